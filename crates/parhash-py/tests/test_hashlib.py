"""Every algorithm hashlib has, against hashlib: random messages, random update split points."""

import hashlib

import pytest
from hypothesis import given, settings, strategies as st

import parhash

HASHLIB_NAMES = [
    "md5", "sha1", "sha224", "sha256", "sha384", "sha512", "sha512_224", "sha512_256",
    "sha3_224", "sha3_256", "sha3_384", "sha3_512",
]


@st.composite
def split_message(draw):
    """A message up to a few blocks past the largest block size, cut at random points."""
    data = draw(st.binary(max_size=1200) | st.binary(min_size=2040, max_size=5000))
    cuts = sorted(draw(st.lists(st.integers(0, len(data)), max_size=6)))
    pieces, start = [], 0
    for cut in cuts + [len(data)]:
        pieces.append(data[start:cut])
        start = cut
    return data, pieces


@pytest.mark.parametrize("name", HASHLIB_NAMES)
@settings(max_examples=60, deadline=None)
@given(message=split_message())
def test_equals_hashlib(name, message):
    data, pieces = message
    expected = hashlib.new(name, data)
    ours = getattr(parhash, name)()
    for piece in pieces:
        ours.update(piece)
    assert ours.digest() == expected.digest()
    assert ours.hexdigest() == expected.hexdigest()
    # new() by hashlib's name, data given at once.
    assert parhash.new(name, data).digest() == expected.digest()


@pytest.mark.parametrize("name", HASHLIB_NAMES)
def test_sizes_equal_hashlib(name):
    ours, theirs = parhash.new(name), hashlib.new(name)
    assert (ours.digest_size, ours.block_size) == (theirs.digest_size, theirs.block_size)


@pytest.mark.parametrize("name", HASHLIB_NAMES)
def test_digest_does_not_end_the_object(name):
    h = parhash.new(name, b"abc")
    first = h.digest()
    assert h.digest() == first
    h.update(b"def")
    assert h.digest() == hashlib.new(name, b"abcdef").digest()
