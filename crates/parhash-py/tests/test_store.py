"""parhash.multipart_file against hashlib, zlib, crc32c and awscrt, and ``parhash-store``
against a real S3-compatible server started here on localhost (moto's server mode), filled by
boto3 with single-part and multipart uploads, with and without additional checksums.

moto is imported, not skipped: without it these tests fail."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import random
import socket
import subprocess
import sys
import threading
import zlib
from pathlib import Path

import awscrt.checksums
import boto3
import crc32c
import moto
import moto.settings
import pytest
from boto3.s3.transfer import TransferConfig
from botocore.config import Config
from moto.server import ThreadedMotoServer

import parhash
import parhash.store as store

MIB = 1 << 20

#: moto before 5.2 (the last for Python 3.9 is 5.1) keeps a multipart upload's CRC64NVME and
#: full-object CRCs as composites, which S3 never does: those objects must then be reported
#: changed (the store's value is no checksum of the content), never matched.
FULL_OBJECT_MULTIPART = tuple(int(n) for n in moto.__version__.split(".")[:2]) >= (5, 2)
FULL_MULTIPART_KEYS = {"parts8/crc64nvme", "parts6/crc32c-full"}

# Independent references: each part's raw checksum, big-endian as S3 shows it.
PART = {
    "md5": lambda b: hashlib.md5(b).digest(),
    "sha1": lambda b: hashlib.sha1(b).digest(),
    "sha256": lambda b: hashlib.sha256(b).digest(),
    "crc32": lambda b: zlib.crc32(b).to_bytes(4, "big"),
    "crc32c": lambda b: crc32c.crc32c(b).to_bytes(4, "big"),
    "crc64nvme": lambda b: awscrt.checksums.crc64nvme(b).to_bytes(8, "big"),
}


def parts_of(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)] or [b""]


def combined(alg: str, data: bytes, size: int) -> tuple[bytes, int]:
    parts = parts_of(data, size)
    return PART[alg](b"".join(PART[alg](p) for p in parts)), len(parts)


def test_multipart_file_matches_hashlib_zlib_crc32c_and_awscrt(tmp_path):
    rng = random.Random(57)
    for length in [0, 1, 999, 1000, 1001, 3001, 25_000]:
        data = rng.randbytes(length)
        path = tmp_path / f"f{length}"
        path.write_bytes(data)
        requests = [("etag", 1000), ("sha256", 1000), ("sha1", 333), ("crc32", 1000),
                    ("crc32c", 4096), ("etag", None), ("crc64nvme", None), ("crc32c", None)]  # fmt: skip
        got = parhash.multipart_file(path, requests)
        want = []
        for form, size in requests:
            alg = "md5" if form == "etag" else form
            want.append(combined(alg, data, size) if size else (PART[alg](data), 1))
        assert got == want, length
        assert store.etag_text(*got[0]) == hashlib.md5(
            b"".join(hashlib.md5(p).digest() for p in parts_of(data, 1000))
        ).hexdigest() + f"-{len(parts_of(data, 1000))}"
        assert store.checksum_text(got[6][0]) == base64.b64encode(PART["crc64nvme"](data)).decode()


def test_multipart_file_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        parhash.multipart_file(tmp_path / "nope", [("etag", 8 * MIB)])
    (tmp_path / "f").write_bytes(b"x")
    with pytest.raises(ValueError, match="part size"):
        parhash.multipart_file(tmp_path / "f", [("etag", 0)])
    with pytest.raises(ValueError, match="unknown algorithm"):
        parhash.multipart_file(tmp_path / "f", [("nohash", 10)])


def store_value(form: str, data: bytes, size: int) -> str:
    """The control's value as the store shows it, for hash_file's form names."""
    if form == "etag":
        return store.etag_text(*combined("md5", data, size))
    return store.checksum_text(*combined(form.removesuffix("-composite"), data, size))


def test_hash_file_and_hash_files_take_the_multipart_forms(tmp_path):
    rng = random.Random()
    seed = rng.randrange(1 << 30)
    rng.seed(seed)
    forms = ["etag", "sha1-composite", "sha256-composite", "crc32-composite", "CRC32C-Composite"]
    lengths = [0, 1, 5 * MIB, 10 * MIB + 1, rng.randrange(1, 17 * MIB)]
    paths, datas = [], []
    for n, length in enumerate(lengths):
        data = rng.randbytes(length)
        path = tmp_path / f"f{n}"
        path.write_bytes(data)
        paths.append(path)
        datas.append(data)
    for size in [5 * MIB, 8 * MIB, 5 * MIB + 1 + rng.randrange(3 * MIB)]:
        for path, data in zip(paths, datas):
            want = {form: store_value(form.lower(), data, size) for form in forms}
            for form in forms:
                assert parhash.hash_file(path, form, part_size=size) == want[form], (seed, form)
            # Forms and whole-file digests from one read.
            names = [*forms, "crc64nvme", "md5"]
            got = parhash.hash_file(str(path), names, part_size=size)
            want["crc64nvme"] = PART["crc64nvme"](data)
            want["md5"] = hashlib.md5(data).digest()
            assert got == want, seed
        results = list(parhash.hash_files([*paths, tmp_path / "nope"], "etag", part_size=size))
        assert [p for p, _ in results] == [*paths, tmp_path / "nope"]
        for (_, value), data in zip(results, datas):
            assert value == store_value("etag", data, size), seed
        assert isinstance(results[-1][1], FileNotFoundError)
        several = parhash.hash_files(paths, ["crc32c-composite", "sha256"], part_size=size)
        for (_, got), data in zip(several, datas):
            want = store_value("crc32c-composite", data, size)
            assert got == {"crc32c-composite": want, "sha256": hashlib.sha256(data).digest()}
    # Without a part size: the ETag of an object uploaded in one piece.
    assert parhash.hash_file(paths[3], "etag") == hashlib.md5(datas[3]).hexdigest()
    one_piece = dict(parhash.hash_files(paths, "etag"))
    assert one_piece == {p: hashlib.md5(d).hexdigest() for p, d in zip(paths, datas)}


def test_multipart_forms_in_hash_file_refuse_what_s3_would(tmp_path):
    f = tmp_path / "f"
    f.write_bytes(b"x")
    for name, kwargs, error, text in [
        ("etag", {"part_size": 0}, ValueError, "at least 1 byte"),
        ("etag", {"part_size": 4 * MIB}, ValueError, "under S3's smallest part"),
        ("etag", {"part_size": 6 << 30}, ValueError, "over S3's largest part"),
        ("etag", {"part_size": -1}, ValueError, "negative"),
        ("sha256-composite", {}, ValueError, "needs part_size"),
        ("crc64nvme-composite", {"part_size": 8 * MIB}, ValueError, "full-object"),
        ("md5-composite", {"part_size": 8 * MIB}, ValueError, "not md5"),
        ("sha256", {"part_size": 8 * MIB}, TypeError, "part_size goes with"),
        ("etag", {"part_size": 8 * MIB, "threads": 2}, TypeError, "do not go with"),
        ("etag", {"part_size": 8 * MIB, "read": "sequential"}, TypeError, "do not go with"),
    ]:
        with pytest.raises(error, match=text):
            parhash.hash_file(f, name, **kwargs)
    with pytest.raises(ValueError, match="named twice"):
        parhash.hash_file(f, ["etag", "etag"], part_size=8 * MIB)
    # Too many parts for S3: a ValueError naming the file, from hash_files for that file only.
    huge = tmp_path / "huge"
    with open(huge, "wb") as out:
        out.truncate(10_000 * 5 * MIB + 1)  # sparse, never read
    with pytest.raises(ValueError, match="10001 parts"):
        parhash.hash_file(huge, "etag", part_size=5 * MIB)
    (got_huge, huge_value), (_, small) = parhash.hash_files([huge, f], "etag", part_size=5 * MIB)
    assert got_huge == huge and isinstance(huge_value, ValueError)
    assert str(huge_value) == "parts of 5 MiB: 10001 parts are over S3's 10,000 parts in one upload"
    assert small == store_value("etag", b"x", 5 * MIB)


def test_candidate_part_sizes_give_the_part_count():
    size = 20 * MIB + 3
    sizes = parhash.candidate_part_sizes(size, 3)
    assert 8 * MIB in sizes and sizes == sorted(set(sizes))
    assert all(-(-size // s) == 3 for s in sizes)
    assert parhash.candidate_part_sizes(size, 0) == []


# The server.


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Proxy:
    """A TCP relay to the server, whose cut() drops every connection and refuses new ones:
    the network gone midway."""

    def __init__(self, port: int):
        self.target = port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.sockets: list[socket.socket] = []
        self.lock = threading.Lock()
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            try:
                near, _ = self.listener.accept()
            except OSError:
                return
            far = socket.create_connection(("127.0.0.1", self.target))
            with self.lock:
                self.sockets += [near, far]
            for a, b in ((near, far), (far, near)):
                threading.Thread(target=self.pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def pipe(a, b):
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self):
        self.listener.close()
        with self.lock:
            for s in self.sockets:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()


@pytest.fixture(scope="module")
def aws_env():
    with pytest.MonkeyPatch.context() as mp:
        for name in ["AWS_PROFILE", "AWS_ENDPOINT_URL", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"]:
            mp.delenv(name, raising=False)
        mp.setenv("AWS_ACCESS_KEY_ID", "testing")
        mp.setenv("AWS_SECRET_ACCESS_KEY", "testing")
        mp.setenv("AWS_DEFAULT_REGION", "us-east-1")
        mp.setenv("AWS_CONFIG_FILE", "/nonexistent")
        mp.setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
        mp.setenv("AWS_MAX_ATTEMPTS", "2")
        yield


@pytest.fixture(scope="module")
def server(aws_env):
    port = free_port()
    srv = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    srv.start()
    yield f"http://127.0.0.1:{port}"
    srv.stop()


def s3_client(url, checksums=True):
    when = "when_supported" if checksums else "when_required"
    return boto3.client("s3", endpoint_url=url, config=Config(request_checksum_calculation=when))


def upload(url, bucket, key, data, tmp, *, algorithm=None, part_size=None):
    """One object by boto3: put_object, or upload_file in parts of `part_size`."""
    s3 = s3_client(url, checksums=algorithm is not None)
    extra = {"ChecksumAlgorithm": algorithm} if algorithm else {}
    if part_size is None:
        s3.put_object(Bucket=bucket, Key=key, Body=data, **extra)
        return
    path = tmp / "upload.bin"
    path.write_bytes(data)
    config = TransferConfig(multipart_threshold=part_size, multipart_chunksize=part_size,
                            preferred_transfer_client="classic")  # fmt: skip
    s3.upload_file(str(path), bucket, key, ExtraArgs=extra, Config=config)


def full_object_upload(url, bucket, key, data, algorithm, part_size):
    """A multipart upload with a full-object CRC (the low-level calls: TransferConfig has none)."""
    s3 = s3_client(url)
    field = "Checksum" + algorithm
    up = s3.create_multipart_upload(Bucket=bucket, Key=key, ChecksumAlgorithm=algorithm,
                                    ChecksumType="FULL_OBJECT")  # fmt: skip
    parts = []
    for number, part in enumerate(parts_of(data, part_size), 1):
        done = s3.upload_part(Bucket=bucket, Key=key, UploadId=up["UploadId"], PartNumber=number,
                              Body=part, ChecksumAlgorithm=algorithm)  # fmt: skip
        parts.append({"PartNumber": number, "ETag": done["ETag"], field: done[field]})
    whole = base64.b64encode(PART[algorithm.lower()](data)).decode()
    s3.complete_multipart_upload(Bucket=bucket, Key=key, UploadId=up["UploadId"], ChecksumType="FULL_OBJECT",
                                 MultipartUpload={"Parts": parts}, **{field: whole})  # fmt: skip


def run(capsys, *args):
    code = store.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def records(out):
    lines = [json.loads(line) for line in out.splitlines()]
    return {r["path"]: r for r in lines if r["type"] == "store"}, lines[-1]


# Every form: (key, size, algorithm sent, part size or None, the label verify checks).
FORMS = [
    ("single/none", 1000, None, None, "etag"),
    ("single/empty", 0, None, None, "etag"),
    ("single/crc32", 3000, "CRC32", None, "crc32"),
    ("single/crc32c", 3000, "CRC32C", None, "crc32c"),
    ("single/crc64nvme", 3000, "CRC64NVME", None, "crc64nvme"),
    ("single/sha1", 3000, "SHA1", None, "sha1"),
    ("single/sha256", 3000, "SHA256", None, "sha256"),
    ("parts5/none", 11 * MIB + 3, None, 5 * MIB, "etag"),
    ("parts5/crc32", 11 * MIB + 3, "CRC32", 5 * MIB, "crc32-composite"),
    ("parts5/sha1", 10 * MIB + 1, "SHA1", 5 * MIB, "sha1-composite"),
    ("parts8/none", 17 * MIB, None, 8 * MIB, "etag"),
    ("parts8/crc32c", 16 * MIB + 1, "CRC32C", 8 * MIB, "crc32c-composite"),
    ("parts8/crc64nvme", 9 * MIB, "CRC64NVME", 8 * MIB, "crc64nvme"),
    ("parts8/sha256", 16 * MIB + 1, "SHA256", 8 * MIB, "sha256-composite"),
    ("parts6/one-part", 3 * MIB, "SHA256", 3 * MIB, "sha256-composite"),
]


@pytest.fixture(scope="module")
def filled(server, tmp_path_factory):
    """Bucket `forms`: every form of FORMS under `all/`, and a full-object CRC32C in parts;
    the local tree the same."""
    tmp = tmp_path_factory.mktemp("forms")
    local = tmp / "local"
    boto3.client("s3", endpoint_url=server).create_bucket(Bucket="forms")
    rng = random.Random(58)
    labels = {}
    for key, size, alg, part_size, label in FORMS:
        data = rng.randbytes(size)
        upload(server, "forms", "all/" + key, data, tmp, algorithm=alg, part_size=part_size)
        (local / key).parent.mkdir(parents=True, exist_ok=True)
        (local / key).write_bytes(data)
        labels[key] = label
    data = rng.randbytes(13 * MIB)
    full_object_upload(server, "forms", "all/parts6/crc32c-full", data, "CRC32C", 6 * MIB)
    (local / "parts6/crc32c-full").write_bytes(data)
    labels["parts6/crc32c-full"] = "crc32c"
    return local, labels


def test_every_form_matches(capsys, server, filled):
    local, labels = filled
    code, out, err = run(capsys, "verify", local, "s3://forms/all", "--endpoint-url", server, "--json")
    got, summary = records(out)
    want = dict.fromkeys(labels, "matched")
    if not FULL_OBJECT_MULTIPART:
        want.update(dict.fromkeys(FULL_MULTIPART_KEYS, "changed"))
    assert {name: r["status"] for name, r in got.items()} == want, err
    kept = labels if FULL_OBJECT_MULTIPART else {k: v for k, v in labels.items() if k not in FULL_MULTIPART_KEYS}
    assert {name: got[name]["algorithm"] for name in kept} == kept
    assert got["parts8/sha256"]["part_size"] == 8 * MIB
    assert got["parts5/none"]["expected"].endswith("-3")
    matched = sum(status == "matched" for status in want.values())
    assert summary == {"type": "store_summary", "store": "s3://forms/all", "matched": matched,
                       "changed": len(labels) - matched, "missing": 0, "new": 0, "unverifiable": 0,
                       "unreadable": 0, "passed": FULL_OBJECT_MULTIPART}  # fmt: skip
    assert code == (0 if FULL_OBJECT_MULTIPART else 1)
    assert f"{matched} matched" in err


def test_list_writes_the_stores_checksums(capsys, server, filled, tmp_path):
    local, labels = filled
    target = tmp_path / "STORE.sums"
    code, out, err = run(capsys, "list", "s3://forms/all/", "--endpoint-url", server, "-o", target)
    assert code == 0, err
    lines = target.read_text().splitlines()
    assert len(lines) == len(labels)
    for key, _, alg, part_size, label in FORMS:
        data = (local / key).read_bytes()
        if label == "etag" and part_size is None:
            want = f"ETAG ({key}) = {hashlib.md5(data).hexdigest()}"
        elif label == "etag":
            digest, n = combined("md5", data, part_size)
            want = f"ETAG ({key}) = {digest.hex()}-{n}"
        elif label.endswith("-composite"):
            digest, n = combined(alg.lower(), data, part_size)
            want = f"{alg}-COMPOSITE ({key}) = {base64.b64encode(digest).decode()}-{n}"
        elif FULL_OBJECT_MULTIPART or key not in FULL_MULTIPART_KEYS:
            want = f"{alg} ({key}) = {base64.b64encode(PART[label](data)).decode()}"
        else:
            want = next(line for line in lines if line.startswith(f"{alg} ({key}) = "))
        assert want in lines
    code, out, err = run(capsys, "list", "s3://forms/all/", "--endpoint-url", server, "--json")
    got = {r["path"]: r for r in map(json.loads, out.splitlines())}
    if FULL_OBJECT_MULTIPART:
        assert got["parts8/crc64nvme"]["checksums"] == {
            "crc64nvme": base64.b64encode(PART["crc64nvme"]((local / "parts8/crc64nvme").read_bytes())).decode()
        }
    assert got["single/none"]["etag"] == hashlib.md5((local / "single/none").read_bytes()).hexdigest()


def test_every_verdict(capsys, server, tmp_path):
    """matched, changed (content, size, a multipart object), missing, new, unverifiable
    (SSE-KMS, no other checksum): each reported, none of the others as a match."""
    boto3.client("s3", endpoint_url=server).create_bucket(Bucket="verdicts")
    rng = random.Random(1)
    local = tmp_path / "local"
    objects = {
        "same": (rng.randbytes(100), "CRC64NVME", None),
        "d/x": (rng.randbytes(10), None, None),
        "d-y": (rng.randbytes(10), "SHA256", None),
        "edited": (rng.randbytes(100), "CRC32C", None),
        "edited-etag": (rng.randbytes(100), None, None),
        "grown": (rng.randbytes(100), "SHA1", None),
        "edited-parts": (rng.randbytes(11 * MIB), None, 5 * MIB),
        "edited-composite": (rng.randbytes(11 * MIB), "SHA256", 5 * MIB),
        "gone-here": (rng.randbytes(5), "CRC32", None),
    }
    for key, (data, alg, part_size) in objects.items():
        upload(server, "verdicts", "p/" + key, data, tmp_path, algorithm=alg, part_size=part_size)
        if key != "gone-here":
            (local / key).parent.mkdir(parents=True, exist_ok=True)
            (local / key).write_bytes(data)
    s3_client(server, checksums=False).put_object(Bucket="verdicts", Key="p/kms", Body=b"secret",
                                                  ServerSideEncryption="aws:kms")  # fmt: skip
    (local / "kms").write_bytes(b"secret")
    (local / "only-here").write_bytes(b"new")
    for key in ["edited", "edited-etag", "edited-parts", "edited-composite"]:
        data = bytearray((local / key).read_bytes())
        data[len(data) // 2] ^= 1
        (local / key).write_bytes(data)
    (local / "grown").write_bytes(objects["grown"][0] + b"!")
    code, out, err = run(capsys, "verify", local, "s3://verdicts/p", "--endpoint-url", server, "--json")
    got, summary = records(out)
    want = {"same": "matched", "d/x": "matched", "d-y": "matched", "edited": "changed",
            "edited-etag": "changed", "grown": "changed", "edited-parts": "changed",
            "edited-composite": "changed", "gone-here": "missing", "only-here": "new",
            "kms": "unverifiable"}  # fmt: skip
    assert {name: r["status"] for name, r in got.items()} == want
    assert "SSE-KMS" in got["kms"]["reason"]
    assert got["edited"]["algorithm"] == "crc32c" and got["edited"]["actual"] != got["edited"]["expected"]
    assert got["edited-composite"]["algorithm"] == "sha256-composite"
    assert list(got) == sorted(got, key=lambda n: n.encode())  # key order: "d-y" before "d/x"
    assert code == 1 and summary["passed"] is False
    assert "3 matched, 5 changed, 1 missing, 1 new, 1 unverifiable" in err
    code, out, err = run(capsys, "verify", local, "s3://verdicts/p", "--endpoint-url", server)
    assert code == 1
    assert "edited-parts: CHANGED" in out and "gone-here: MISSING" in out and "only-here: NEW" in out
    assert "kms: UNVERIFIABLE (SSE-KMS" in out and "same: OK" in out
    # Resumed after a name: only what comes after it.
    code, out, err = run(capsys, "verify", local, "s3://verdicts/p", "--endpoint-url", server,
                         "--json", "--start-after", "grown")  # fmt: skip
    assert list(records(out)[0]) == ["kms", "only-here", "same"]


def test_errors_are_clear_and_never_success(capsys, server, filled, tmp_path):
    local, _ = filled
    code, _, err = run(capsys, "verify", local, "s3://no-such-bucket/x", "--endpoint-url", server)
    assert code == 2 and "no such bucket" in err
    code, _, err = run(capsys, "verify", local, "s3://forms/nothing-here", "--endpoint-url", server)
    assert code == 2 and "no objects under this prefix" in err
    code, _, err = run(capsys, "list", "s3://forms/nothing-here", "--endpoint-url", server)
    assert code == 2 and "no objects under this prefix" in err
    code, _, err = run(capsys, "verify", tmp_path / "absent", "s3://forms/all", "--endpoint-url", server)
    assert code == 2 and "not a folder" in err
    code, _, err = run(capsys, "verify", local, "forms/all", "--endpoint-url", server)
    assert code == 2 and "s3://" in err
    # moto checks credentials once its IAM authorization is on.
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(moto.settings, "INITIAL_NO_AUTH_ACTION_COUNT", 0)
        code, _, err = run(capsys, "verify", local, "s3://forms/all", "--endpoint-url", server)
    assert code == 2 and "refused the credentials" in err and "InvalidAccessKeyId" in err


def test_network_cut_midway_is_an_error_that_says_how_far_it_got(capsys, aws_env, tmp_path, monkeypatch):
    port = free_port()
    srv = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    srv.start()
    try:
        proxy = Proxy(port)
        url = f"http://127.0.0.1:{proxy.port}"
        boto3.client("s3", endpoint_url=url).create_bucket(Bucket="cut")
        local = tmp_path / "local"
        local.mkdir()
        s3 = s3_client(url)
        for i in range(40):
            s3.put_object(Bucket="cut", Key=f"k/{i:03}", Body=b"%d" % i)
            (local / f"{i:03}").write_bytes(b"%d" % i)
        calls = []
        head = store.head

        def cutting_head(*args):
            calls.append(1)
            if len(calls) == 10:
                proxy.cut()
                srv.stop()
            return head(*args)

        monkeypatch.setattr(store, "head", cutting_head)
        code, out, err = run(capsys, "verify", local, "s3://cut/k", "--endpoint-url", url, "--threads", "2",
                             "--page-size", "5")  # fmt: skip
    finally:
        srv.stop()
    assert code == 2, err
    assert "cannot be reached" in err and "resume with --start-after" in err
    assert 0 < out.count(": OK") < 40


def test_console_script_is_installed():
    script = Path(sys.executable).parent / "parhash-store"
    result = subprocess.run([script, "verify", "--help"], capture_output=True, text=True)
    assert result.returncode == 0 and "s3://BUCKET/PREFIX" in result.stdout
