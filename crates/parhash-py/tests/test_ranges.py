"""parhash.outboard_file and parhash.verify_range: outboards in bao's format (as `parhash sum
--outboard` writes them), ranges verified at the start, the end and across chunk groups, damage
in the data (False) told apart from damage in the outboard and bad ranges (ValueError); the
digests of ranges against the `blake3` package."""

import os
import subprocess
import sys

import pytest

import parhash
from conftest import cli_path

# The `blake3` package itself, also where blake3-py's suite (third_party) has put parhash in
# its place in sys.modules: the reference must not be the code under test.
_substitute = sys.modules.pop("blake3", None)
import blake3  # noqa: E402

if _substitute is not None:
    sys.modules["blake3"] = _substitute
assert blake3 is not parhash

SIZES = [0, 1, 1023, 1024, 1025, 16 * 1024 + 1, (1 << 20) + 5000]


def data(n, seed=1):
    return bytes((i * 131 + seed + (i >> 10)) & 0xFF for i in range(n))


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("group", [0, 4])
def test_outboards_match_the_cli_and_the_digest(tmp_path, cli, size, group):
    # `cli`: the binary is there (the fixture fails the test otherwise).
    body = data(size, size)
    path = tmp_path / "f"
    path.write_bytes(body)
    root, outboard = parhash.outboard_file(path, group)
    assert root == blake3.blake3(body).digest()
    assert len(outboard) == 8 + 64 * (max(1, -(-size // (1024 << group))) - 1)
    subprocess.run([str(cli_path()), "sum", "-a", "blake3", "--outboard", "--chunk-group",
                    str(group), str(path)], check=True, capture_output=True)
    written = tmp_path / ("f.obao" if group == 0 else f"f.obao{group}")
    assert written.read_bytes() == outboard
    # Written atomically by Python too.
    assert parhash.outboard_file(path, group, out=tmp_path / "py.obao") == (root, None)
    assert (tmp_path / "py.obao").read_bytes() == outboard
    assert not (tmp_path / "py.obao.tmp").exists()


def test_ranges_verify_and_damage_is_told_apart(tmp_path):
    size = 3 * 16384 + 100
    body = data(size)
    path = tmp_path / "f"
    path.write_bytes(body)
    for group in (0, 4):
        root, outboard = parhash.outboard_file(str(path), chunk_group=group)
        ob_path = tmp_path / "f.obao"
        ob_path.write_bytes(outboard)
        for offset, length in [(0, 1), (0, size), (size - 1, 1), (16380, 10), (1023, 2)]:
            for ob in (outboard, bytearray(outboard), ob_path, str(ob_path)):
                for key in (root, root.hex()):
                    assert parhash.verify_range(path, ob, key, offset, length, chunk_group=group)
        with pytest.raises(ValueError, match="past the end"):
            parhash.verify_range(path, outboard, root, size - 1, 2, chunk_group=group)
        with pytest.raises(ValueError, match="empty range"):
            parhash.verify_range(path, outboard, root, 5, 0, chunk_group=group)
        damaged_outboard = bytearray(outboard)
        damaged_outboard[8] ^= 1
        with pytest.raises(ValueError, match="outboard damaged"):
            parhash.verify_range(path, damaged_outboard, root, 0, 1, chunk_group=group)
        # Another chunk group's outboard has another size: the outboard's fault, not the data's.
        with pytest.raises(ValueError, match="outboard damaged"):
            parhash.verify_range(path, outboard, root, 0, 1, chunk_group=group + 1)
    root, outboard = parhash.outboard_file(path)
    damaged = bytearray(body)
    damaged[20000] ^= 1
    (tmp_path / "d").write_bytes(damaged)
    assert not parhash.verify_range(tmp_path / "d", outboard, root, 19000, 2000)
    assert parhash.verify_range(tmp_path / "d", outboard, root, 0, 19000)
    # A file that grew since its outboard was made.
    (tmp_path / "g").write_bytes(body + b"x")
    assert not parhash.verify_range(tmp_path / "g", outboard, root, 0, 10)


def test_bad_arguments(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"abc")
    root, outboard = parhash.outboard_file(path)
    with pytest.raises(ValueError, match="chunk_group 11"):
        parhash.outboard_file(path, 11)
    with pytest.raises(ValueError, match="32-byte"):
        parhash.verify_range(path, outboard, root[:16], 0, 1)
    with pytest.raises(ValueError):
        parhash.verify_range(path, outboard, "zz" * 32, 0, 1)
    with pytest.raises(FileNotFoundError):
        parhash.verify_range(tmp_path / "missing", outboard, root, 0, 1)
    with pytest.raises(FileNotFoundError):
        parhash.verify_range(path, str(tmp_path / "missing.obao"), root, 0, 1)
    with pytest.raises(FileNotFoundError):
        parhash.outboard_file(tmp_path / "missing")


def test_sum_range_is_the_digest_of_the_range(tmp_path, cli):
    # `cli`: the binary is there (the fixture fails the test otherwise).
    body = os.urandom((2 << 20) + 777)
    path = tmp_path / "f"
    path.write_bytes(body)
    for offset, length in [(0, 0), (0, 1), (1 << 20, 4096), (len(body) - 777, 777)]:
        out = subprocess.run([str(cli_path()), "sum", "-a", "blake3", "--range",
                              f"{offset}:{length}", str(path)],
                             check=True, capture_output=True, text=True).stdout
        digest, name = out.rstrip("\n").split("  ", 1)
        assert digest == blake3.blake3(body[offset:offset + length]).hexdigest()
        shown = f"bytes {offset}-{offset + length - 1}" if length else f"no bytes at {offset}"
        assert name == f"{path} ({shown})"
