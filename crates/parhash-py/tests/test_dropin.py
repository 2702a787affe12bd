"""`import parhash as hashlib` and `import parhash as blake3`: names, types and errors as the
standard library's and blake3-py's (their own suites run in test_dropin_stdlib_hashlib.py and
third_party/blake3_py/)."""

import array
import hashlib
import hmac

import numpy as np
import pytest

import parhash


def test_names_are_hashlib_s():
    for name in sorted(hashlib.algorithms_guaranteed):
        assert parhash.new(name).name == hashlib.new(name).name == name
        assert getattr(parhash, name)().name == name
    assert parhash.algorithms_guaranteed == hashlib.algorithms_guaranteed
    assert parhash.algorithms_guaranteed <= parhash.algorithms_available
    # parhash's own algorithms keep their names.
    assert parhash.new("sandstorm256").name == "sandstorm256"
    assert parhash.new("skein512-256").name == "skein512-256"


def test_hmac_names_itself_as_with_hashlib():
    ours = hmac.new(b"key", b"msg", digestmod=parhash.sha3_256)
    theirs = hmac.new(b"key", b"msg", digestmod=hashlib.sha3_256)
    assert ours.name == theirs.name == "hmac-sha3_256"
    assert ours.digest() == theirs.digest()


def test_shake_is_hashlib_s():
    for name in ["shake_128", "shake_256"]:
        ours, theirs = parhash.new(name, b"abc"), hashlib.new(name, b"abc")
        assert (ours.digest_size, ours.block_size) == (theirs.digest_size, theirs.block_size)
        assert ours.digest(100) == theirs.digest(100)
        with pytest.raises(TypeError):
            ours.digest()
        with pytest.raises(TypeError):
            theirs.digest()
        assert (ours._capacity_bits, ours._rate_bits, ours._suffix) == (
            (256, 1344, b"\x1f") if name == "shake_128" else (512, 1088, b"\x1f")
        )


def test_non_contiguous_buffers_are_a_buffer_error():
    strided = memoryview(bytes(range(10)))[::2]
    with pytest.raises(BufferError):
        hashlib.sha256(strided)
    with pytest.raises(BufferError):
        parhash.sha256(strided)
    with pytest.raises(BufferError):
        parhash.sha256().update(np.arange(10, dtype=np.uint8)[::2])
    # Contiguous buffers of any item size are hashed as their bytes, as hashlib does.
    ints = array.array("i", range(100))
    assert parhash.sha256(ints).digest() == hashlib.sha256(ints).digest()


def test_data_is_positional_in_update():
    with pytest.raises(TypeError):
        parhash.sha256().update(data=b"abc")
    # The constructors take hashlib's keywords (`string=` in 3.9 to 3.12, `data=` from 3.13).
    assert parhash.sha256(data=b"abc").digest() == hashlib.sha256(b"abc").digest()
    assert parhash.sha256(string=b"abc").digest() == hashlib.sha256(b"abc").digest()


def test_hash_objects_are_not_constructed_directly():
    with pytest.raises(TypeError, match="cannot create 'parhash.Hash' instances"):
        type(parhash.sha256())()


def test_builtin_constructor_lookup_as_hashlib_s():
    get = getattr(parhash, "__get_builtin_constructor")
    assert get("sha256") is parhash.sha256
    assert get("SHA256") is parhash.sha256
    with pytest.raises(ValueError):
        get("test")
    with pytest.raises(TypeError):
        get(3)
