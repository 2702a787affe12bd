"""Every algorithm against the Rust CLI (`parhash sum -a ALG`), the control for those hashlib
does not have: random lengths, random update split points."""

import random

import pytest

import parhash

# Lengths around block and padding boundaries, SANDstorm's superblocks (64,000 bytes of
# level 2; 16,448 where the reference code's 8-bit counter wraps) and PARSHA-256's rounds.
LENGTHS = [0, 1, 55, 56, 63, 64, 65, 127, 128, 129, 1000, 16447, 16449, 64064, 200_003, 700_001]


@pytest.fixture(scope="module")
def messages(tmp_path_factory):
    rng = random.Random(18)
    folder = tmp_path_factory.mktemp("messages")
    out = []
    for i, length in enumerate(LENGTHS + [rng.randrange(1, 300_000) for _ in range(4)]):
        data = rng.randbytes(length)
        path = folder / f"m{i}"
        path.write_bytes(data)
        out.append((path, data))
    return out


def fed_in_pieces(name, data, rng, **options):
    h = parhash.new(name, **options)
    at = 0
    while at < len(data):
        step = rng.choice([1, 7, 64, 1000, 65536, 300_000])
        h.update(data[at:at + step])
        at += step
    return h


def digest_of(h, want):
    """The digest as long as the CLI's (SHAKE, as hashlib's, needs a length)."""
    return h.digest(len(want)) if h.name in ("shake_128", "shake_256") else h.digest()


@pytest.mark.parametrize("name", sorted(parhash.algorithms_available))
def test_equals_cli(name, messages, cli):
    expected = cli(name, [path for path, _ in messages])
    rng = random.Random(name)
    for (path, data), want in zip(messages, expected):
        assert digest_of(parhash.new(name, data), want) == want, (name, len(data))
        assert digest_of(fed_in_pieces(name, data, rng), want) == want, (name, len(data))
        assert parhash.hash_file(path, name) == want, (name, len(data))


@pytest.mark.parametrize("tree_height,iv_bits", [(1, 0), (5, 128), (13, 256), (20, 0)])
def test_parsha_parameters_equal_cli(tree_height, iv_bits, messages, cli):
    paths = [path for path, _ in messages]
    expected = cli("parsha256", paths, "--tree-height", str(tree_height), "--iv-bits", str(iv_bits))
    rng = random.Random(tree_height)
    for (path, data), want in zip(messages, expected):
        options = dict(tree_height=tree_height, iv_bits=iv_bits)
        h = parhash.parsha256(data, **options)
        assert (h.tree_height, h.iv_bits) == (tree_height, iv_bits)
        assert h.digest() == want
        assert fed_in_pieces("parsha256", data, rng, **options).digest() == want
        assert parhash.hash_file(path, "parsha256", **options) == want
