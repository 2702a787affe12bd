"""parhash.blake3_subtree, blake3_merge and blake3_root (BLAKE3's subtrees, as the `blake3`
crate's hazmat module has them): a message split at random into valid subtrees, hashed apart
and merged, gives its digest, parhash's and the `blake3` package's; subtrees that are not the
tree's are ValueErrors."""

import random
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import parhash

# The `blake3` package itself, also where blake3-py's suite (third_party) has put parhash in
# its place in sys.modules: the reference must not be the code under test.
_substitute = sys.modules.pop("blake3", None)
import blake3  # noqa: E402

if _substitute is not None:
    sys.modules["blake3"] = _substitute
assert blake3 is not parhash


def node(data: bytes, offset: int, rng: random.Random) -> bytes:
    """The chaining value of the node over ``data`` at ``offset``: hashed whole as one subtree,
    or (at random, where it has children) its two children's merged."""
    left = parhash.blake3_left_subtree_len(len(data))
    if left is None or rng.random() < 0.3:
        return parhash.blake3_subtree(data, offset)
    return parhash.blake3_merge(node(data[:left], offset, rng), node(data[left:], offset + left, rng))


def digest(data: bytes, rng: random.Random) -> bytes:
    """The message's digest from random valid splits of its tree (a message of one chunk or less
    has no subtrees: its plain hash)."""
    left = parhash.blake3_left_subtree_len(len(data))
    if left is None:
        return parhash.blake3(data).digest()
    return parhash.blake3_root(node(data[:left], 0, rng), node(data[left:], left, rng))


@settings(max_examples=60, deadline=None)
@given(length=st.integers(0, 70_000), seed=st.integers(0, 2**32 - 1))
def test_random_splits_give_the_digest(length, seed):
    rng = random.Random(seed)
    data = rng.randbytes(length)
    got = digest(data, rng)
    assert got == parhash.blake3(data).digest()
    assert got == blake3.blake3(data).digest()


def test_a_large_subtree_and_any_buffer():
    data = random.Random(7).randbytes(3 << 20)
    left = parhash.blake3_left_subtree_len(len(data))
    assert left == 2 << 20
    right = memoryview(bytearray(data))[left:]
    assert parhash.blake3_root(parhash.blake3_subtree(data[:left], 0), parhash.blake3_subtree(right, left)) == (
        blake3.blake3(data).digest()
    )


def test_tree_shape():
    assert parhash.blake3_left_subtree_len(1024) is None
    assert parhash.blake3_left_subtree_len(1025) == 1024
    assert parhash.blake3_left_subtree_len(12 * 1024) == 8 * 1024
    assert parhash.blake3_max_subtree_len(0) is None
    assert parhash.blake3_max_subtree_len(8192) == 8192
    assert parhash.blake3_max_subtree_len(3 * 1024) == 1024


@pytest.mark.parametrize(
    "data, offset, why",
    [
        (b"x", 100, "multiple of 1024"),
        (b"", 0, "at least one byte"),
        (bytes(2048), 1024, "at most 1024 bytes"),
    ],
)
def test_invalid_subtrees_are_value_errors(data, offset, why):
    with pytest.raises(ValueError, match=why):
        parhash.blake3_subtree(data, offset)


def test_invalid_values_are_refused():
    with pytest.raises(ValueError, match="multiple of 1024"):
        parhash.blake3_max_subtree_len(1000)
    with pytest.raises(ValueError, match="32 bytes"):
        parhash.blake3_merge(bytes(31), bytes(32))
    with pytest.raises(ValueError, match="32 bytes"):
        parhash.blake3_root(bytes(32), bytes(33))
    with pytest.raises(TypeError):
        parhash.blake3_subtree("text", 0)
