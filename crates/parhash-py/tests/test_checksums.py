"""The checksums (crc32, crc32c, crc64nvme, xxh64, xxh3, xxh128) against independent
implementations: zlib, the crc32c package, awscrt (the AWS SDKs' CRCs) and xxhash (xxHash's C
library), at random lengths and update splits; through new(), the constructors and hash_file."""

import random
import zlib

import awscrt.checksums
import crc32c
import pytest
import xxhash
from hypothesis import given, settings

import parhash
from test_hashlib import split_message


def be(value, size):
    """A checksum integer as parhash's digest: big-endian, as xxhsum and the CRC tools print."""
    return value.to_bytes(size, "big")


# Each algorithm's digest of `data` by the other implementations (two for each CRC).
ORACLES = {
    "crc32": [lambda d: be(zlib.crc32(d), 4), lambda d: be(awscrt.checksums.crc32(d), 4)],
    "crc32c": [lambda d: be(crc32c.crc32c(d), 4), lambda d: be(awscrt.checksums.crc32c(d), 4)],
    "crc64nvme": [lambda d: be(awscrt.checksums.crc64nvme(d), 8)],
    "xxh64": [lambda d: xxhash.xxh64(d).digest()],
    "xxh3": [lambda d: xxhash.xxh3_64(d).digest()],
    "xxh128": [lambda d: xxhash.xxh3_128(d).digest()],
}
SIZES = {"crc32": 4, "crc32c": 4, "crc64nvme": 8, "xxh64": 8, "xxh3": 8, "xxh128": 16}

# The catalogue check values (CRC of b"123456789") and xxhsum 0.8.1's digests of it.
CHECK = {
    "crc32": "cbf43926",
    "crc32c": "e3069283",
    "crc64nvme": "ae8b14860a799888",
    "xxh64": "8cb841db40e6ae83",
    "xxh3": "72dcb18b67a17dff",
    "xxh128": "33119477ede5dcd5e9716427681d5860",
}


@pytest.mark.parametrize("name", sorted(ORACLES))
def test_check_values_sizes_and_names(name):
    assert parhash.new(name, b"123456789").hexdigest() == CHECK[name]
    for oracle in ORACLES[name]:
        assert oracle(b"123456789").hex() == CHECK[name]
    h = getattr(parhash, name)()
    assert (h.name, h.digest_size) == (name, SIZES[name])
    assert name in parhash.algorithms_available
    assert parhash.new(name.upper()).name == name


@pytest.mark.parametrize("name", sorted(ORACLES))
@settings(max_examples=80, deadline=None)
@given(message=split_message())
def test_equals_independent_implementations(name, message):
    data, pieces = message
    ours = getattr(parhash, name)()
    for piece in pieces:
        ours.update(piece)
    for oracle in ORACLES[name]:
        assert ours.digest() == oracle(data)
    assert ours.hexdigest() == ours.digest().hex()
    assert parhash.new(name, data).digest() == ours.digest()


@pytest.mark.parametrize("name", sorted(ORACLES))
def test_long_random_messages(name):
    rng = random.Random(name)
    for length in [rng.randrange(5000, 1 << 20) for _ in range(4)]:
        data = rng.randbytes(length)
        for oracle in ORACLES[name]:
            assert parhash.new(name, data).digest() == oracle(data), length


def test_hash_file_one_and_several_in_one_read(tmp_path):
    data = random.Random(7).randbytes(3 << 20 | 12345)
    path = tmp_path / "f"
    path.write_bytes(data)
    for name, oracles in ORACLES.items():
        assert parhash.hash_file(path, name) == oracles[0](data), name
    names = ["sha256", "crc32c", "xxh3", "crc64nvme"]
    digests = parhash.hash_file(path, names)
    assert digests["crc32c"] == ORACLES["crc32c"][0](data)
    assert digests["xxh3"] == ORACLES["xxh3"][0](data)
    assert digests["crc64nvme"] == ORACLES["crc64nvme"][0](data)
    assert digests["sha256"] == parhash.sha256(data).digest()
