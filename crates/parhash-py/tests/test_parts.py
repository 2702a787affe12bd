"""Tree parts: plan, hash each part (from bytes or from a file), combine in any order."""

import os
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
    # A state from a file records the file's identity: the same bytes in memory, given it.
    identity = parhash.PartPlan.file_identity(message_file)
    from_bytes = [plan.hash_part(i, MESSAGE, identity=identity) for i in range(plan.parts)]
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


# --- parts of a file that changes ----------------------------------------------------------


def rewrite_same_size(path, data, mtime_step_ns=1_000_000_007):
    """Rewrites `path` in place (same inode, same size) with `data`, and moves its
    modification time on by `mtime_step_ns` (a coarse clock could leave it where it was)."""
    before = os.stat(path)
    with open(path, "r+b") as f:
        f.write(data)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + mtime_step_ns))


@pytest.mark.parametrize("name", ["sandstorm256", "parsha256", "blake3"])
def test_parts_of_a_file_rewritten_between_them_do_not_combine(name, tmp_path):
    """Part 0 of one version, part 1 of another of the same size: FileChanged naming the
    file, from combine_file and from combine, never a digest of neither."""
    path = tmp_path / "rewritten"
    path.write_bytes(MESSAGE)
    plan = parhash.PartPlan.for_file(path, name, 2)
    assert plan.parts == 2
    old = [plan.hash_part_file(i, path) for i in range(2)]
    newer = bytes(b ^ 0x5A for b in MESSAGE)
    rewrite_same_size(path, newer)
    second = plan.hash_part_file(1, path)
    with pytest.raises(parhash.FileChanged, match="different versions") as caught:
        plan.combine_file([old[0], second], path)
    assert isinstance(caught.value, OSError)
    assert caught.value.filename == str(path) and str(path) in str(caught.value)
    with pytest.raises(parhash.FileChanged, match="different versions"):
        plan.combine([old[0], second], newer)
    if plan.top_ranges():
        # All parts of the old version, the combine step reading the new one: refused too.
        with pytest.raises(parhash.FileChanged, match="combine step"):
            plan.combine_file(old, path)
    # Both parts again from the new version: its digest.
    again = [plan.hash_part_file(i, path) for i in range(2)]
    assert plan.combine_file(again, path) == parhash.hash_file(path, name)


@pytest.mark.parametrize("name", ["sandstorm256", "parsha256", "blake3"])
def test_parts_of_an_unchanged_file_give_the_sequential_digest(name, tmp_path):
    path = tmp_path / "unchanged"
    path.write_bytes(MESSAGE)
    plan = parhash.PartPlan.for_file(path, name, 4)
    states = [plan.hash_part_file(i, path) for i in reversed(range(plan.parts))]
    digest = parhash.hash_file(path, name)
    assert plan.combine_file(states, path) == digest
    if not plan.top_ranges():
        assert plan.combine(states) == digest
    # Read again (a touch that keeps the time, a copy of the state bytes): still one version.
    os.utime(path, ns=(os.stat(path).st_atime_ns, os.stat(path).st_mtime_ns))
    assert plan.combine_file([bytes(s) for s in states], path) == digest
    assert parhash.PartPlan.file_identity(path) == parhash.PartPlan.file_identity(str(path))


def test_a_file_replaced_under_its_name_is_another_version(tmp_path):
    """Same size, same modification time, another inode (a rename over it): another version."""
    path, other = tmp_path / "file", tmp_path / "other"
    path.write_bytes(MESSAGE)
    other.write_bytes(bytes(b ^ 1 for b in MESSAGE))
    stat = os.stat(path)
    os.utime(other, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    plan = parhash.PartPlan.for_file(path, "sandstorm256", 2)
    first = plan.hash_part_file(0, path)
    os.replace(other, path)
    second = plan.hash_part_file(1, path)
    with pytest.raises(parhash.FileChanged):
        plan.combine([first, second])


def test_states_without_identity_combine_with_those_that_have_one():
    """States hashed from memory record no identity unless given one, and combine with any
    (the parts hashed from files, of one version, are still compared among themselves)."""
    plan = parhash.PartPlan("sandstorm256", len(MESSAGE), 3)
    digest = parhash.new("sandstorm256", MESSAGE).digest()
    plain = [plan.hash_part(i, MESSAGE) for i in range(3)]
    assert plan.combine(plain) == digest
    assert plan.combine([plain[0], *(plan.hash_part(i, MESSAGE, identity=b"v1") for i in (1, 2))]) == digest
    mixed = [plain[0], plan.hash_part(1, MESSAGE, identity=b"v1"), plan.hash_part(2, MESSAGE, identity=b"v2")]
    with pytest.raises(parhash.FileChanged, match="parts 1 and 2"):
        plan.combine(mixed)
