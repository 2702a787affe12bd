"""Tree parts: plan, hash each part (from bytes or from a file), combine in any order."""

import pickle
import random

import pytest

import parhash

MESSAGE = random.Random(6).randbytes(3_000_000)

CASES = [
    ("parsha256", {}),
    ("parsha256", {"tree_height": 10, "iv_bits": 0}),
    ("parsha256", {"tree_height": 5, "iv_bits": 128}),
    ("sandstorm256", {}),
    ("sandstorm512", {}),
    ("sandstorm224-ref", {}),
]


@pytest.fixture(scope="module")
def message_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("parts") / "message"
    path.write_bytes(MESSAGE)
    return path


@pytest.mark.parametrize("name,options", CASES)
@pytest.mark.parametrize("wanted", [1, 3, 8])
def test_parts_combine_to_the_digest(name, options, wanted, message_file):
    expected = parhash.new(name, MESSAGE, **options).digest()
    plan = parhash.PartPlan(name, len(MESSAGE), wanted, **options)
    assert 1 <= plan.parts <= wanted
    from_bytes = [plan.hash_part(i, MESSAGE) for i in range(plan.parts)]
    # A worker that has only the path, the algorithm and its part index.
    worker_plan = parhash.PartPlan.for_file(message_file, name, wanted, **options)
    from_file = [worker_plan.hash_part_file(i, message_file) for i in range(plan.parts)]
    assert from_bytes == from_file
    shuffled = from_file[::-1]
    assert plan.combine(shuffled, MESSAGE) == expected
    assert plan.combine_file(shuffled, message_file) == expected
    # What a part reads lies inside the message, in order.
    for i in range(plan.parts):
        ranges = plan.ranges(i)
        assert all(0 <= s < e <= len(MESSAGE) for s, e in ranges)
        assert ranges == sorted(ranges)


def test_plans_pickle():
    for name, options in CASES:
        plan = parhash.PartPlan(name, len(MESSAGE), 4, threads=1, **options)
        copy = pickle.loads(pickle.dumps(plan))
        assert (copy.name, copy.parts, copy.message_len, copy.tree_height, copy.iv_bits) == \
            (plan.name, plan.parts, plan.message_len, plan.tree_height, plan.iv_bits)
        assert copy.hash_part(1, MESSAGE) == plan.hash_part(1, MESSAGE)


def test_bad_states_and_plans_are_refused(tmp_path):
    plan = parhash.PartPlan("sandstorm256", len(MESSAGE), 4)
    states = [plan.hash_part(i, MESSAGE) for i in range(plan.parts)]
    with pytest.raises(ValueError, match="missing parts: 2"):
        plan.combine(states[:2] + states[3:])
    with pytest.raises(ValueError, match="given twice"):
        plan.combine(states + states[:1])
    damaged = bytearray(states[1])
    damaged[50] ^= 1
    with pytest.raises(ValueError, match="checksum"):
        plan.combine([states[0], damaged, *states[2:]])
    other = parhash.PartPlan("sandstorm256", len(MESSAGE) - 1, 4)
    with pytest.raises(ValueError, match="another plan"):
        other.combine(states, MESSAGE[:-1])
    with pytest.raises(IndexError):
        plan.hash_part(4, MESSAGE)
    with pytest.raises(ValueError, match="message is"):
        plan.hash_part(0, MESSAGE[:-1])
    short = tmp_path / "short"
    short.write_bytes(MESSAGE[:10])
    with pytest.raises(ValueError, match="this plan is for a message of"):
        plan.hash_part_file(0, short)
    with pytest.raises(FileNotFoundError):
        plan.hash_part_file(0, tmp_path / "missing")
    with pytest.raises(ValueError, match="no tree mode"):
        parhash.PartPlan("sha256", 100, 2)
    with pytest.raises(ValueError, match="tree_height must be"):
        parhash.PartPlan("parsha256", 100, 2, tree_height=99)
    parsha = parhash.PartPlan("parsha256", len(MESSAGE), 2)
    with pytest.raises(ValueError, match="pass message="):
        parsha.combine([parsha.hash_part(i, MESSAGE) for i in range(2)])


def test_every_algorithm_that_splits_combines_to_its_digest():
    splitting = sorted(name for name in parhash.algorithms_available if parhash.splits(name))
    assert {"parsha256", "sandstorm256", "blake3"} <= set(splitting)
    for name in splitting:
        plan = parhash.PartPlan(name, len(MESSAGE), 3)
        assert plan.parts > 1, name
        states = [plan.hash_part(i, MESSAGE) for i in range(plan.parts)]
        assert plan.combine(states[::-1], MESSAGE) == parhash.new(name, MESSAGE).digest(), name
    for name in parhash.algorithms_available - set(splitting):
        with pytest.raises(ValueError, match="split"):
            parhash.PartPlan(name, len(MESSAGE), 3)


def test_a_plan_gives_the_digest_size_asked_for():
    plan = parhash.PartPlan("blake3", len(MESSAGE), 3, digest_size=100)
    states = [plan.hash_part(i, MESSAGE) for i in range(plan.parts)]
    assert plan.digest_size == 100
    assert plan.combine(states) == parhash.blake3(MESSAGE).digest(100)
    copy = pickle.loads(pickle.dumps(plan))
    assert copy.digest_size == 100 and copy.combine(states) == plan.combine(states)
    with pytest.raises(ValueError):
        parhash.PartPlan("sandstorm256", len(MESSAGE), 3, digest_size=100)
