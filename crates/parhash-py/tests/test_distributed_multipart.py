"""One file's S3 ETag and composite checksums with its parts spread over a local Ray's workers
(``parhash.distributed.multipart_values``, ``parhash-dist sum --etag/--composite`` with several
part sizes or --split-bytes): byte for byte what ``parhash sum`` prints, and the combine step
the library's (``parhash.multipart_combine``) against hashlib."""

from __future__ import annotations

import hashlib
import random

import pytest

pytest.importorskip("ray", reason="parhash.distributed needs the ray extra")

import parhash  # noqa: E402
from parhash import distributed  # noqa: E402
from test_distributed import cluster, run_cli, run_dist  # noqa: F401 - the local Ray fixture

pytestmark = pytest.mark.ray

MIB = 1 << 20

#: Empty, shorter than a part, exactly one part, a last part of one byte, several parts.
SIZES = {"empty": 0, "short": 100, "one-part": 5 * MIB, "last-byte": 10 * MIB + 1,
         "three": 11 * MIB + 3, "odd": 17 * MIB - 5}  # fmt: skip

FORMS = ["etag", "sha256-composite", "sha1-composite", "crc32-composite", "crc32c-composite"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("multipart")
    rng = random.Random(57)
    made = {}
    for name, size in SIZES.items():
        made[name] = folder / name
        made[name].write_bytes(rng.randbytes(size))
    return made


def test_multipart_combine_is_the_librarys_rule():
    parts = [b"a" * 5, b"b" * 5, b"c"]
    digests = [hashlib.md5(p).digest() for p in parts]
    want = hashlib.md5(b"".join(digests)).hexdigest() + "-3"
    assert parhash.multipart_combine("etag", 5 * MIB, 10 * MIB + 1, digests) == want
    sha = [hashlib.sha256(p).digest() for p in parts]
    assert parhash.multipart_combine("sha256-composite", 5 * MIB, 10 * MIB + 1, sha) == \
        parhash.multipart_value("sha256", hashlib.sha256(b"".join(sha)).digest(), 3)
    with pytest.raises(ValueError, match="2 part digests for 3 parts"):
        parhash.multipart_combine("etag", 5 * MIB, 10 * MIB + 1, digests[:2])
    with pytest.raises(ValueError, match="part digest of 32 bytes"):
        parhash.multipart_combine("etag", 5 * MIB, 10 * MIB + 1, sha)
    with pytest.raises(ValueError, match="10001 parts"):
        parhash.multipart_combine("etag", 5 * MIB, 10_001 * 5 * MIB, [])
    with pytest.raises(ValueError):
        parhash.multipart_combine("sha256", 5 * MIB, 1, digests[:1])


@pytest.mark.parametrize("runs", [1, 2, 5])
def test_multipart_values_equal_hash_file(cluster, files, runs):  # noqa: F811
    sizes = [5 * MIB, 6 * MIB, 8 * MIB]
    for path in files.values():
        got = distributed.multipart_values(path, FORMS, sizes, runs=runs)
        want = {(form, size): parhash.hash_file(path, form, part_size=size) for form in FORMS for size in sizes}
        assert got == want, path


@pytest.mark.parametrize("flags", [
    ["--etag", "--part-size", "5MiB,6MiB", "--part-size", "8MiB"],
    ["--etag", "--composite", "-a", "sha256,crc32c,sha1,crc32", "--part-size", "5MiB,16MiB"],
    ["--composite", "-a", "crc32c", "--part-size", "5MiB", "--json"],
    ["--etag", "--composite", "--part-size", "5MiB", "--part-size", "7MiB", "--json"],
])  # fmt: skip
def test_parhash_dist_sum_prints_what_parhash_sum_prints(cluster, files, flags):  # noqa: F811
    paths = [str(path) for path in files.values()] + [str(files["empty"]) + ".absent"]
    want = run_cli("sum", *flags, *paths)
    # Several part sizes spread each file over the cluster; one size with --split-bytes 1.
    for extra in (["--parts", "3"], ["--split-bytes", "1", "--parts", "2"]):
        got = run_dist(cluster, "sum", *flags, *extra, *paths)
        assert got == want, (flags, extra, got[2])
    assert want[0] == 1 and want[1]


def test_too_many_parts_is_that_sizes_error(cluster, files, tmp_path):  # noqa: F811
    """A sparse file of 10,000 parts and a byte (never read): the CLI's error for it."""
    with open(tmp_path / "huge", "wb") as huge:
        huge.truncate(10_000 * 5 * MIB + 1)
    for json_flag in ([], ["--json"]):
        args = ["sum", "--etag", "--part-size", "5MiB", *json_flag, str(files["short"]), str(tmp_path / "huge")]
        assert run_dist(cluster, *args, "--split-bytes", "1") == run_cli(*args)



@pytest.mark.parametrize("size, number, why", [("0", 0, "at least 1 byte"), ("1MiB", MIB, "under S3's smallest part"),
                                               ("6GiB", 6 << 30, "over S3's largest part")])  # fmt: skip
def test_a_refused_size_among_several_is_refused(cluster, files, size, number, why):  # noqa: F811
    """Among good sizes, in one list or in repeated flags, as alone: the CLI's refusal; the
    function's ValueError among several sizes as for one."""
    path = str(files["three"])
    for flags in (["--part-size", size], ["--part-size", f"8MiB,{size},16MiB"], ["--part-size", "8MiB", "--part-size", size]):
        want = run_cli("sum", "--etag", *flags, path)
        got = run_dist(cluster, "sum", "--etag", *flags, path)
        assert (got[0], got[1]) == (want[0], want[1]) == (1, b""), flags
        assert why.encode() in want[2] and why.encode() in got[2], (flags, got[2])
    for sizes in ([number], [8 * MIB, number], [8 * MIB, number, 16 * MIB]):
        with pytest.raises(ValueError, match=why):
            distributed.multipart_values(path, ["etag"], sizes)
