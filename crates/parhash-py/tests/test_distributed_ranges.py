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


def _range_fixture(folder, run_cli):
    """Files with outboards as `parhash sum --outboard` writes them, then damaged in the ways
    `check --range` tells apart: data changed inside the range, an outboard changed, none
    written, a file shorter than the range; with lines of another algorithm, of a missing
    file and an improper one in the list."""
    rng = random.Random(59)
    names = ["good.img", "changed.img", "bad-outboard.img", "no-outboard.img", "short.img", "a b.img"]
    for name in names:
        (folder / name).write_bytes(rng.randbytes(100 * KIB if name == "short.img" else 700 * KIB))
    status, out, err = run_cli("sum", "-a", "blake3", "--outboard", *names[:-1])
    assert status == 0, err
    assert run_cli("sum", "-a", "blake3", "--outboard=obs", "--chunk-group", "4", "a b.img")[0] == 0
    status, grouped, _ = run_cli("sum", "-a", "blake3", "a b.img")
    (folder / "no-outboard.img.obao").unlink()
    data = bytearray((folder / "changed.img").read_bytes())
    data[300 * KIB] ^= 1
    (folder / "changed.img").write_bytes(data)
    outboard = bytearray((folder / "bad-outboard.img.obao").read_bytes())
    outboard[20] ^= 1
    (folder / "bad-outboard.img.obao").write_bytes(outboard)
    sha = run_cli("sum", "-a", "sha256", "good.img")[1]
    (folder / "B3SUMS").write_bytes(out + grouped + sha + b"not a line\n" + out.split(b"\n")[0].replace(b"good", b"gone") + b"\n")


@pytest.mark.parametrize("flags", [[], ["--json", "--quiet"], ["--outboard", "obs", "--chunk-group", "4"]])
def test_parhash_dist_check_range_prints_what_parhash_check_prints(cluster, tmp_path, monkeypatch, flags):  # noqa: F811
    """Every line's range verified on the workers: the CLI's lines, messages and status."""
    from test_distributed import run_cli, run_dist

    monkeypatch.chdir(tmp_path)
    _range_fixture(tmp_path, run_cli)
    for where in ("256KiB:100KiB", "690KiB:10KiB"):
        want = run_cli("check", "--range", where, *flags, "B3SUMS")
        got = run_dist(cluster, "check", "--range", where, *flags, "B3SUMS")
        assert got == want, (where, flags, got, want)
        assert want[0] == 1
    want = run_cli("check", "--range", "4KiB:4KiB", "B3SUMS", stdin=None)
    assert b"good.img: OK (bytes 4096-8191)\n" in want[1]
    assert b"changed.img: OK (bytes 4096-8191)\n" in want[1]


def test_parhash_dist_check_range_usage_errors_are_the_clis(tmp_path):
    """Refused before Ray is asked for: the CLI's status, and its reason."""
    from test_distributed import run_cli, run_dist

    (tmp_path / "L").write_bytes(b"")
    for args, why in [
        (["--range", "5:0"], b"holds no bytes"),
        (["--range", "1:2", "-a", "sha256"], b"leave out -a or give -a blake3"),
        (["--range", "x"], b"not OFFSET:LENGTH"),
        (["--range", "0:1", "--chunk-group", "11"], b"no chunk group"),
        (["--outboard", "d"], b"--range"),
        (["--range", "0:1", "--audit"], b"cannot be used with"),
    ]:
        want = run_cli("check", *args, str(tmp_path / "L"))
        got = run_dist(None, "check", *args, str(tmp_path / "L"))
        assert got[0] == want[0] == 1 and got[1] == want[1] == b"", (args, got, want)
        assert why in want[2] and why in got[2], (args, got[2], want[2])
