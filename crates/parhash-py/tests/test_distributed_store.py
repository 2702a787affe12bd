"""``parhash-dist verify`` against ``parhash-store verify``: the same lines, --json records,
counts and exit status for a tree against the local moto server (test_store's), with the
files hashed on a local Ray's workers."""

from __future__ import annotations

import random
import subprocess
import sys

import boto3
import pytest

ray = pytest.importorskip("ray", reason="parhash.distributed needs the ray extra")

import parhash.store as store  # noqa: E402
from parhash.distributed import _store  # noqa: E402
from test_distributed import cluster  # noqa: E402,F401 - the local Ray fixture
from test_store import MIB, aws_env, s3_client, server, upload  # noqa: E402,F401 - the moto fixtures

pytestmark = pytest.mark.ray


def same(data: bytes) -> bytes:
    return data


def edited(data: bytes) -> bytes:
    """One bit of the middle byte flipped."""
    middle = len(data) // 2
    return data[:middle] + bytes([data[middle] ^ 1]) + data[middle + 1 :]


def grown(data: bytes) -> bytes:
    return data + b"!"


@pytest.fixture(scope="module")
def mixed(server, tmp_path_factory):  # noqa: F811
    """Bucket `dist`, prefix `p/`: objects matched (one piece and in parts: ETag, composite,
    full-object CRC), changed (content, size, in parts), missing, new and unverifiable (SSE-KMS)."""
    tmp = tmp_path_factory.mktemp("dist")
    local = tmp / "local"
    boto3.client("s3", endpoint_url=server).create_bucket(Bucket="dist")
    rng = random.Random(57)
    # key: (bytes, additional checksum, part size, the local file made of them or None)
    objects = {
        "a/one-piece": (rng.randbytes(1000), None, None, same),
        "a/empty": (b"", None, None, same),
        "a/crc64nvme": (rng.randbytes(3000), "CRC64NVME", None, same),
        "a/parts-etag": (rng.randbytes(11 * MIB + 3), None, 5 * MIB, same),
        "a/parts-sha256": (rng.randbytes(10 * MIB + 1), "SHA256", 5 * MIB, same),
        "a/one-part": (rng.randbytes(3 * MIB), "CRC32C", 3 * MIB, same),
        "b/edited-etag": (rng.randbytes(100), None, None, edited),
        "b/edited-crc32": (rng.randbytes(100), "CRC32", None, edited),
        "b/edited-parts": (rng.randbytes(11 * MIB), None, 5 * MIB, edited),
        "b/edited-composite": (rng.randbytes(11 * MIB), "SHA1", 5 * MIB, edited),
        "b/grown": (rng.randbytes(100), None, None, grown),
        "gone-here": (rng.randbytes(5), "CRC32", None, None),
    }
    for key, (data, alg, part_size, local_file) in objects.items():
        upload(server, "dist", "p/" + key, data, tmp, algorithm=alg, part_size=part_size)
        if local_file is not None:
            (local / key).parent.mkdir(parents=True, exist_ok=True)
            (local / key).write_bytes(local_file(data))
    s3_client(server, checksums=False).put_object(Bucket="dist", Key="p/kms", Body=b"secret",
                                                  ServerSideEncryption="aws:kms")  # fmt: skip
    (local / "kms").write_bytes(b"Secret")
    (local / "only-here").write_bytes(b"new")
    (local / "a" / "new-too").write_bytes(b"")
    return local


def command(module, *args):
    done = subprocess.run([sys.executable, "-m", module, *map(str, args)], capture_output=True)
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize("flags", [[], ["--json"], ["--quiet"], ["--json", "--download-mismatches"],
                                   ["--start-after", "a/parts-etag"]])  # fmt: skip
def test_verify_on_ray_prints_what_parhash_store_prints(cluster, server, mixed, flags):  # noqa: F811
    args = ["verify", mixed, "s3://dist/p", "--endpoint-url", server, *flags]
    want = command("parhash.store", *args)
    got = command("parhash.distributed.cli", *args, "--address", cluster, "--task-files", "2")
    assert got[0] == want[0] == 1, got[2]
    assert got[1] == want[1]
    assert got[2].replace(b"parhash-dist: ", b"parhash-store: ") == want[2]
    if not flags:
        assert b"6 matched, 5 changed, 1 missing, 2 new, 1 unverifiable, 0 unreadable" in got[2]
        assert b"b/edited-parts: CHANGED" in got[1] and b"a/parts-etag: OK" in got[1]


def test_files_are_hashed_on_the_workers(cluster, server, mixed, monkeypatch):  # noqa: F811
    """The driver lists and asks the store; a driver that cannot hash still gives every verdict."""
    s3 = s3_client(server)
    want = [v.record() for v in store.verify(s3, str(mixed), "dist", "p/")]

    def refused(*args):
        raise AssertionError("the driver hashed a file")

    monkeypatch.setattr(store._parhash, "multipart_file", refused)
    got = [v.record() for v in _store.verify(s3, str(mixed), "dist", "p/", task_files=3)]
    assert got == want
    assert ray.is_initialized()


def test_errors_as_parhash_store_says_them(cluster, server, mixed, tmp_path):  # noqa: F811
    for args in (["verify", mixed, "s3://no-such-bucket/p", "--endpoint-url", server],
                 ["verify", tmp_path / "absent", "s3://dist/p", "--endpoint-url", server],
                 ["verify", mixed, "s3://dist/nothing-here", "--endpoint-url", server],
                 ["verify", mixed, "s3://dist/p", "--threads", "0"]):  # fmt: skip
        want = command("parhash.store", *args)
        got = command("parhash.distributed.cli", *args, "--address", cluster)
        assert got[0] == want[0] == 2, got[2]
        assert got[1] == want[1]
        assert got[2].replace(b"parhash-dist", b"parhash-store") == want[2]


def test_help_names_the_stores_options_and_the_clusters():
    status, out, _ = command("parhash.distributed.cli", "verify", "--help")
    assert status == 0
    assert b"usage: parhash-dist verify" in out and b"--download-mismatches" in out
    assert b"--address" in out and b"--task-files" in out and b"--max-retries" in out
