"""``parhash.distributed.verify_ranges``: ranges of one file checked against its BLAKE3 digest
and outboard on a local Ray's workers, each range's verdict that of ``parhash.verify_range``."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("ray", reason="parhash.distributed needs the ray extra")

import parhash  # noqa: E402
from parhash import distributed  # noqa: E402
from test_distributed import cluster  # noqa: F401 - the local Ray fixture

pytestmark = pytest.mark.ray

KIB = 1 << 10


@pytest.mark.parametrize("chunk_group", [0, 4])
def test_a_damaged_range_fails_and_the_others_pass(cluster, tmp_path, chunk_group):  # noqa: F811
    rng = random.Random(59 + chunk_group)
    size = 3 * (1 << 20) + 12_345
    data = bytearray(rng.randbytes(size))
    path = tmp_path / "big.img"
    path.write_bytes(data)
    digest, outboard = parhash.outboard_file(path, chunk_group)
    ranges = [(0, 1), (0, 64 * KIB), (1 << 20, 4 * KIB), ((1 << 20) - 100, 200), (size - 1, 1),
              (size - 70_000, 70_000), (2 * (1 << 20) + 7, 300_000), (123_456, 1)]  # fmt: skip
    ranges += [(rng.randrange(size - 5000), rng.randrange(1, 5000)) for _ in range(20)]
    assert distributed.verify_ranges(path, digest, outboard, ranges, chunk_group=chunk_group, tasks=3) == [True] * len(ranges)
    # One byte changed inside the range at (2 MiB + 7): that range FAILED, the others OK.
    at = 2 * (1 << 20) + 100_000
    data[at] ^= 0x20
    path.write_bytes(data)
    ob_path = tmp_path / "big.img.obao"
    ob_path.write_bytes(outboard)
    want = [parhash.verify_range(path, outboard, digest, o, n, chunk_group=chunk_group) for o, n in ranges]
    for outboard_given in (outboard, str(ob_path), ob_path):
        got = distributed.verify_ranges(path, digest.hex(), outboard_given, ranges, chunk_group=chunk_group)
        assert got == want
    assert want[6] is False and all(not ok for (o, n), ok in zip(ranges, want) if o <= at < o + n)
    assert all(ok for (o, n), ok in zip(ranges, want) if not o - 16 * KIB <= at < o + n + 16 * KIB)


def test_bad_ranges_raise_as_verify_range_does(cluster, tmp_path):  # noqa: F811
    path = tmp_path / "small"
    path.write_bytes(b"x" * 5000)
    digest, outboard = parhash.outboard_file(path)
    assert distributed.verify_ranges(path, digest, outboard, []) == []
    for bad in [(4999, 2), (10, 0)]:
        with pytest.raises(ValueError):
            parhash.verify_range(path, outboard, digest, *bad)
        with pytest.raises(ValueError):
            distributed.verify_ranges(path, digest, outboard, [(0, 10), bad])
    with pytest.raises(OSError):
        distributed.verify_ranges(tmp_path / "absent", digest, outboard, [(0, 10)])
