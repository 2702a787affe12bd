"""parhash.multipart_file against hashlib, zlib, crc32c and awscrt, and ``parhash-store``
against a real S3-compatible server started here on localhost (moto's server mode), filled by
boto3 with single-part and multipart uploads, with and without additional checksums.

moto is imported, not skipped: without it these tests fail."""

from __future__ import annotations

import base64
import datetime
import hashlib
import json
import os
import random
import shutil
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
import moto.s3.models
import moto.settings
import pytest
from boto3.s3.transfer import TransferConfig
from botocore.config import Config
from hypothesis import example, given, settings
from hypothesis import strategies as st
from moto.server import ThreadedMotoServer

import parhash
import parhash.store as store
from conftest import cli_path, control_tool

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
        assert parhash.multipart_value("etag", *got[0]) == hashlib.md5(
            b"".join(hashlib.md5(p).digest() for p in parts_of(data, 1000))
        ).hexdigest() + f"-{len(parts_of(data, 1000))}"
        assert parhash.multipart_value("crc64nvme", got[6][0]) == base64.b64encode(PART["crc64nvme"](data)).decode()
        digest, parts = got[1]
        assert parhash.multipart_value("sha256", digest, parts) == f"{base64.b64encode(digest).decode()}-{parts}"


def test_multipart_files_gives_each_file_multipart_files_answers_errors_in_place(tmp_path):
    """Many files at once on every core: each item's answer is `multipart_file`'s for it, in
    order, whatever the sizes; a file that cannot be read gives its exception in its place."""
    rng = random.Random(7)
    items, want = [], []
    for n in range(40):
        path = tmp_path / f"f{n}"
        path.write_bytes(rng.randbytes(rng.choice([0, 1, 999, 1000, 4096, rng.randrange(1, 300_000)])))
        requests = [("etag", None), ("etag", 1000), ("crc32c", 4096), ("sha256", None)][: 1 + n % 4]
        items.append((str(path) if n % 2 else path, requests))
        want.append(store._parhash.multipart_file(path, requests))
    items.insert(5, (tmp_path / "nope", [("etag", None)]))
    got = store._parhash.multipart_files(items)
    assert isinstance(got.pop(5), FileNotFoundError)
    assert got == want
    assert store._parhash.multipart_files([]) == []
    with pytest.raises(ValueError):
        store._parhash.multipart_files([(tmp_path / "f1", [("no-such-form", None)])])
    # With the size the file must have: its answer where it has it, FileChanged where not.
    del items[5]
    sizes = [os.path.getsize(path) + (n % 3 == 1) for n, (path, _) in enumerate(items)]
    got = store._parhash.multipart_files([(p, r, s) for (p, r), s in zip(items, sizes)])
    for n, (answer, answer_alone) in enumerate(zip(got, want)):
        if n % 3 == 1:
            assert isinstance(answer, parhash.FileChanged), n
        else:
            assert answer == answer_alone, n
    assert store._parhash.multipart_files([(items[0][0], items[0][1], None)]) == want[:1]


def test_multipart_file_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        parhash.multipart_file(tmp_path / "nope", [("etag", 8 * MIB)])
    (tmp_path / "f").write_bytes(b"x")
    with pytest.raises(ValueError, match="part size"):
        parhash.multipart_file(tmp_path / "f", [("etag", 0)])
    with pytest.raises(ValueError, match="unknown algorithm"):
        parhash.multipart_file(tmp_path / "f", [("nohash", 10)])
    with pytest.raises(ValueError, match="unknown algorithm"):
        parhash.multipart_value("nohash", b"1234")


def store_value(form: str, data: bytes, size: int) -> str:
    """The control's value as the store shows it, for hash_file's form names."""
    if form == "etag":
        digest, parts = combined("md5", data, size)
        return f"{digest.hex()}-{parts}"
    digest, parts = combined(form.removesuffix("-composite"), data, size)
    return f"{base64.b64encode(digest).decode()}-{parts}"


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
    the network gone midway. ``on_request(data)``, where given, sees what each client sends
    before the server does."""

    def __init__(self, port: int, on_request=None):
        self.target = port
        self.on_request = on_request
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
            for a, b, see in ((near, far, self.on_request), (far, near, None)):
                threading.Thread(target=self.pipe, args=(a, b, see), daemon=True).start()

    @staticmethod
    def pipe(a, b, see=None):
        try:
            while data := a.recv(65536):
                if see is not None:
                    see(data)
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


def run(capsys, *args, binary=True):
    """``parhash-store ARGS``, in this process; also the binary's ``parhash store ARGS``
    (:func:`binary_verify`, :func:`binary_list`), which must say the same, unless ``binary`` is
    False (a test that changes this process's code). --list-folders is the package's alone:
    left out for the binary."""
    code = store.main([str(a) for a in args])
    out, err = capsys.readouterr()
    if binary and args[0] == "verify":
        rest = list(args[1:])
        if "--list-folders" in rest:
            at = rest.index("--list-folders")
            del rest[at : at + 2]
        BINARY["last"] = binary_verify(rest, code, out, err)
    if binary and args[0] == "list":
        BINARY["last"] = binary_list(list(args[1:]), code, out, err)
    return code, out, err


#: The binary's last run by :func:`run` (its messages are checked where they differ in words).
BINARY: dict[str, subprocess.CompletedProcess] = {}


def binary_verify(args, code, out, err):
    """``parhash store verify ARGS`` (the Rust binary: the AWS SDK for Rust, the same rules)
    against ``parhash-store verify``'s ``code``, standard output and counts: the same verdicts,
    lines and records, in the same order; a run that could not finish, status 2 for both."""
    done = subprocess.run([str(cli_path()), "store", "verify", *map(str, args)], capture_output=True, text=True)
    assert done.returncode == code, (done.stderr, err)
    if "--json" in args and code != 2:
        assert [json.loads(line) for line in done.stdout.splitlines()] == [json.loads(line) for line in out.splitlines()]
    else:
        assert done.stdout == out, done.stderr
    if code != 2:
        assert done.stderr.split(": ", 1)[1] == err.split(": ", 1)[1]
    return done


def binary_list(args, code, out, err):
    """``parhash store list ARGS`` against ``parhash-store list``'s ``code``, output (standard
    output, or the file of ``-o``, which the binary writes beside it) and the objects named on
    standard error: the same, byte for byte (records: the same fields and values)."""
    args = [str(a) for a in args]
    if "--list-folders" in args:
        at = args.index("--list-folders")
        del args[at : at + 2]
    if "-o" in args:
        at = args.index("-o") + 1
        ours, args[at] = args[at], args[at] + ".binary"
    done = subprocess.run([str(cli_path()), "store", "list", *args], capture_output=True)
    assert done.returncode == code, (done.stderr, err)
    got = Path(args[at]).read_bytes() if "-o" in args else done.stdout
    want = Path(ours).read_bytes() if "-o" in args else out.encode()
    if "--json" in args:
        assert [json.loads(line) for line in got.splitlines()] == [json.loads(line) for line in want.splitlines()]
    else:
        assert got == want, done.stderr
    if code != 2:
        said = [line.split(": ", 1)[1] for line in done.stderr.decode().splitlines()]
        assert said == [line.split(": ", 1)[1] for line in err.splitlines()]
    return done


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
    # Kept, the list checks the tree offline: `parhash check` finds each part size itself.
    # (moto before 5.2 keeps a wrong full-object multipart CRC: those lines cannot pass there.)
    checked = subprocess.run([str(cli_path()), "check", str(target)], cwd=local, capture_output=True, text=True)
    reports = dict(line.split(": ", 1) for line in checked.stdout.splitlines())
    sound = [key for key, *_ in FORMS if FULL_OBJECT_MULTIPART or key not in FULL_MULTIPART_KEYS]
    assert all(reports.get(key, "").startswith("OK") for key in sound), checked.stdout + checked.stderr
    assert checked.returncode == (0 if FULL_OBJECT_MULTIPART else 1), checked.stderr
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
    # moto's SSE-KMS ETag is the MD5 of the content (S3's is not, so a file can never match it):
    # a file of the same size and other bytes, whose verdict only HeadObject's header can give.
    (local / "kms").write_bytes(b"Secret")
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


class StubStore:
    """ListObjectsV2 (one page, no delimiter) and HeadObject of `objects` {key: (size, etag,
    listed algorithm or None, HeadObject's fields)}, answered in memory."""

    def __init__(self, objects):
        self.objects = objects

    def get_paginator(self, _name):
        return self

    def paginate(self, Bucket, Prefix, **_):
        yield {"Contents": [{"Key": key, "Size": size, "ETag": f'"{etag}"', **({"ChecksumAlgorithm": [alg]} if alg else {})}
                            for key, (size, etag, alg, _) in sorted(self.objects.items())]}  # fmt: skip

    def head_object(self, Bucket, Key, **_):
        size, etag, _, fields = self.objects[Key]
        return {"ETag": f'"{etag}"', "ContentLength": size, **fields}


def test_verify_hashes_listed_etags_together_and_gives_checks_verdicts(tmp_path, monkeypatch):
    """Files whose listed ETag may be theirs (an MD5, an MD5 of parts) are hashed a window at a
    time (multipart_files); the rest, and those that do not match, go through `check`: every
    verdict, in key order across windows, is the one `check` gives the object alone."""
    local = tmp_path / "local"
    local.mkdir()
    rng = random.Random(3)
    objects = {}
    for name, size in [("a", 100), ("b-edited", 50), ("c-grown", 20), ("d-missing", 9), ("f-one-part", 70),
                       ("g-crc", 30), ("h", 0), ("i", 3000), ("j-edited", 1), ("k-parts", 3000)]:  # fmt: skip
        data = rng.randbytes(size)
        md5 = hashlib.md5(data).hexdigest()
        alg, fields = None, {}
        if name == "f-one-part":
            md5 = hashlib.md5(hashlib.md5(data).digest()).hexdigest() + "-1"
        if name == "k-parts":  # three parts of 1000 bytes (`min_part_size` below)
            parts = b"".join(hashlib.md5(data[i : i + 1000]).digest() for i in range(0, size, 1000))
            md5 = hashlib.md5(parts).hexdigest() + "-3"
        if name == "g-crc":
            alg, fields = "CRC32", {"ChecksumCRC32": base64.b64encode(zlib.crc32(data).to_bytes(4, "big")).decode()}
        objects[f"p/{name}"] = (size, md5, alg, fields)
        if name != "d-missing":
            (local / name).write_bytes(bytes(b ^ 1 for b in data) if "edited" in name else data)
    (local / "c-grown").write_bytes(b"more" + (local / "c-grown").read_bytes())
    (local / "e-new").write_bytes(b"new")
    s3 = StubStore(objects)
    alone = []
    for obj, name, path in store.merge(store.listing(s3, "b", "p/", folders=1), store.walk(str(local)), "p/"):
        if path is None:
            alone.append(store.Verdict("missing", name, obj["Key"]))
        elif obj is None:
            alone.append(store.Verdict("new", name))
        else:
            alone.append(store.check(s3, "b", obj, name, path, min_part=1000))
    checked = []
    real_check = store.check
    monkeypatch.setattr(store, "check", lambda s3, bucket, obj, *rest: checked.append(obj["Key"]) or real_check(s3, bucket, obj, *rest))  # fmt: skip
    for window in [2, 3, 1024]:
        monkeypatch.setattr(store, "HASH_WINDOW", window)
        checked.clear()
        got = list(store.verify(s3, str(local), "b", "p/", threads=2, list_folders=1, min_part_size=1000))
        assert [v.record() for v in got] == [v.record() for v in alone], window
        assert sorted(checked) == ["p/b-edited", "p/c-grown", "p/g-crc", "p/j-edited"]
    assert [v.status for v in alone] == ["matched", "changed", "changed", "missing", "new", "matched", "matched",
                                         "matched", "matched", "changed", "matched"]  # fmt: skip
    assert alone[-1].part_size == 1000


def rclone_env(url, config):
    """rclone's remote `x:` for the server, from the environment alone (no config file)."""
    env = {k: v for k, v in os.environ.items() if k != "AWS_CA_BUNDLE"}  # rclone refuses it on http
    env.update(RCLONE_CONFIG=str(config), RCLONE_CONFIG_X_TYPE="s3", RCLONE_CONFIG_X_PROVIDER="Other",
               RCLONE_CONFIG_X_ENDPOINT=url, RCLONE_CONFIG_X_ACCESS_KEY_ID="testing",
               RCLONE_CONFIG_X_SECRET_ACCESS_KEY="testing", RCLONE_CONFIG_X_REGION="us-east-1")  # fmt: skip
    return env


def rclone_check(url, local, remote, tmp):
    """`rclone check`'s verdict of every name it decides ("=" "*" "+" "-": same, differ, only
    here, only in the store), and the names whose hash it could not check (said "=" by size)."""
    rclone = control_tool("rclone", "rclone")
    done = subprocess.run([rclone, "check", str(local), remote, "--combined", "-", "-vv"],
                          env=rclone_env(url, tmp / "rclone.conf"), capture_output=True, text=True)  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    said = {line[2:]: line[0] for line in done.stdout.splitlines()}
    undecided = {line.split(" : ", 1)[1].rsplit(": OK - could not check hash", 1)[0]
                 for line in done.stderr.splitlines() if line.endswith(": OK - could not check hash")}  # fmt: skip
    assert "Using md5 for hash comparisons" in done.stderr, done.stderr
    return said, undecided


def test_rclone_check_agrees_where_it_can_decide(capsys, server, tmp_path):
    """Debian's rclone as the control: on every object whose MD5 ETag rclone can compare, the
    same verdict; the multipart ones it passes on their size alone (their ETag is no MD5),
    parhash-store decides (an edited one is changed)."""
    s3_client(server).create_bucket(Bucket="rclone")
    rng = random.Random(5)
    local = tmp_path / "local"
    objects = [("single/plain", 1000, None, None, False), ("single/crc32", 3000, "CRC32", None, False),
               ("single/sha256-edited", 2000, "SHA256", None, True), ("single/edited", 500, None, None, True),
               ("single/empty", 0, None, None, False), ("parts/same", 11 * MIB + 3, None, 5 * MIB, False),
               ("parts/sha1", 10 * MIB + 1, "SHA1", 5 * MIB, False), ("parts/edited", 11 * MIB, None, 5 * MIB, True),
               ("parts/crc32c-edited", 11 * MIB + 5, "CRC32C", 5 * MIB, True), ("gone", 10, None, None, False)]  # fmt: skip
    for key, size, alg, part_size, edited in objects:
        data = rng.randbytes(size)
        upload(server, "rclone", "p/" + key, data, tmp_path, algorithm=alg, part_size=part_size)
        if key != "gone":
            (local / key).parent.mkdir(parents=True, exist_ok=True)
            (local / key).write_bytes(bytes([data[0] ^ 1]) + data[1:] if edited else data)
    (local / "only-here").write_bytes(b"new")
    said, undecided = rclone_check(server, local, "x:rclone/p", tmp_path)
    code, out, err = run(capsys, "verify", local, "s3://rclone/p", "--endpoint-url", server, "--json")
    got = {name: r["status"] for name, r in records(out)[0].items()}
    assert code == 1 and set(said) == set(got), (said, got)
    assert undecided == {key for key, _, _, part_size, _ in objects if part_size}, said
    word = {"=": "matched", "*": "changed", "+": "new", "-": "missing"}
    assert {name: word[mark] for name, mark in said.items() if name not in undecided} == {
        name: status for name, status in got.items() if name not in undecided}
    assert {name: got[name] for name in undecided} == {
        "parts/same": "matched", "parts/sha1": "matched", "parts/edited": "changed", "parts/crc32c-edited": "changed"}
    assert said["parts/edited"] == "="  # rclone's size-only pass: what parhash-store adds


def fill_deleted(s3, tmp_path):
    """Bucket `deleted`: four objects with a CRC32 under `p/`, each a file of the folder returned."""
    s3.create_bucket(Bucket="deleted")
    local = tmp_path / "local"
    local.mkdir()
    for name in ["a", "b", "c", "d"]:
        s3.put_object(Bucket="deleted", Key=f"p/{name}", Body=name.encode() * 10, ChecksumAlgorithm="CRC32")
        (local / name).write_bytes(name.encode() * 10)
    return local


def test_an_object_deleted_after_the_listing_goes_on(capsys, server, tmp_path, monkeypatch):
    """An object listed, then deleted from the server before its HeadObject: the run goes on;
    its file is new (it has no object any more), and `list` leaves the object out."""
    s3 = s3_client(server)
    local = fill_deleted(s3, tmp_path)
    listed = []
    real_head = store.head

    def deleting_head(client, bucket, key):
        listed.append(key)
        if key in ("p/b", "p/d"):  # listed, not yet asked: deleted now
            s3.delete_object(Bucket=bucket, Key=key)
        return real_head(client, bucket, key)

    monkeypatch.setattr(store, "head", deleting_head)
    code, out, err = run(capsys, "verify", local, "s3://deleted/p", "--endpoint-url", server, "--json", binary=False)
    got, summary = records(out)
    assert {name: r["status"] for name, r in got.items()} == {"a": "matched", "b": "new", "c": "matched", "d": "new"}
    assert "deleted after the listing" in got["b"]["reason"] and got["b"]["key"] is None
    assert code == 1 and summary["passed"] is False and "2 matched, 0 changed, 0 missing, 2 new" in err
    assert sorted(listed) == ["p/a", "p/b", "p/c", "p/d"]
    code, out, err = run(capsys, "verify", local, "s3://deleted/p", "--endpoint-url", server)
    assert "b: NEW (its object was deleted after the listing)" not in out  # gone from the listing now
    assert code == 1 and "b: NEW\n" in out
    s3.put_object(Bucket="deleted", Key="p/b", Body=b"b" * 10)
    code, out, err = run(capsys, "list", "s3://deleted/p", "--endpoint-url", server)
    assert code == 0, err
    assert [line.split(" (")[1].split(")")[0] for line in out.splitlines()] == ["a", "c"]


# Keys that sort around "/" ("-" and "." come before it, "0" after), folders of one key and of
# none (a marker alone), a folder in a folder alone, names past ASCII, keys at the root, and keys
# a listing URL-encodes ("+", "%").
ORDER_KEYS = ["top", "p/a", "p/a b", "p/a-b", "p/a.b", "p/a/b", "p/a/c/d", "p/a/c.d", "p/a/c-d", "p/a0", "p/ab/1",
              "p/b/x", "p/b/y/", "p/c/", "p/d/e/f/g", "p/d/e/f/h", "p/z", "p/\u00e9/x", "p/\u00e9-", "p/~",
              "q/only/deep/x1", "q/only/deep/x2", "zz",
              "p/plus+sign", "p/pct%41"]  # fmt: skip
ORDER_KEYS += [f"p/f{i:02}/k{j}" for i in range(30) for j in range(i % 4)]  # folders of 0-3 keys


def flat_listing(s3, bucket, prefix, after=None):
    """ListObjectsV2 of the whole prefix, page after page: the order every listing must give."""
    keys = [obj["Key"] for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix)
            for obj in page.get("Contents", [])]  # fmt: skip
    return [k for k in keys if not k.endswith("/") and (after is None or k.encode() > after.encode())]


@pytest.fixture(scope="module")
def ordered(server):
    s3 = store.client(server)
    s3.create_bucket(Bucket="order")
    for key in ORDER_KEYS:
        s3.put_object(Bucket="order", Key=key, Body=key.encode())
    return s3




def test_walk_gives_the_files_in_key_order_and_resumes_after_any_key(tmp_path):
    """The walk's order is S3's, the keys' bytes (a folder's files where their keys fall, not
    before "a-b" or "a.b"); links to files are files, links to folders and other entries are
    skipped; names that are not UTF-8 come as Python gives them; after any key, only the
    keys above it; a folder that is not there is a StoreError."""
    root = tmp_path / "t"
    keys = ["a b", "a-b", "a.b", "a/x", "a/y/z", "a0", "\u00e9-", "\u00e9/q", "b\udcff", "z/zz/zzz", "A", "ab/c", "a!"]
    for key in keys:
        path = root / key
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(key.encode("utf-8", "surrogateescape"))
    (root / "empty").mkdir()
    (root / "link-file").symlink_to(root / "a0")
    (root / "link-folder").symlink_to(root / "a")
    (root / "link-broken").symlink_to(tmp_path / "nowhere")
    os.mkfifo(root / "fifo")
    files = sorted(keys + ["link-file"], key=lambda k: k.encode("utf-8", "surrogateescape"))
    got = list(store.walk(str(root)))
    assert got == [(key, os.path.join(str(root), key)) for key in files]
    for after in files + ["", "a", "a/", "a/y", "\u00e9", "zzz", "\U0010ffff"]:
        above = [key for key in files if key.encode("utf-8", "surrogateescape") > after.encode("utf-8", "surrogateescape")]
        assert [name for name, _ in store.walk(str(root), after)] == above, after
    with pytest.raises(store.StoreError, match="not a folder"):
        store.walk(str(tmp_path / "nowhere"))
    vanishing = tmp_path / "v"
    (vanishing / "b").mkdir(parents=True)
    (vanishing / "a").write_bytes(b"")
    (vanishing / "b" / "f").write_bytes(b"")
    files = store.walk(str(vanishing))
    assert next(files)[0] == "a"
    shutil.rmtree(vanishing / "b")  # listed in its parent, gone before it is read
    with pytest.raises(store.StoreError, match="/v/b: No such file or directory"):
        next(files)


@pytest.mark.parametrize("prefix", ["p/", "", "p/a", "p/a/", "p/f0", "q/", "q/only/deep/", "p/nothing/"])
def test_folders_listed_at_once_keep_listobjectsv2s_order(ordered, prefix):
    want = flat_listing(ordered, "order", prefix)
    assert want == sorted(want, key=lambda k: k.encode()) and bool(want) == (prefix != "p/nothing/")
    # slow_page: 0 lists folders from the start; 1e-9 after a first page (always slow); 100
    # never (one listing after the first page, as where pages come fast).
    for folders in (1, 2, 8, 64):
        for page_size in (None, 2):
            for slow_page in (0, 1e-9, 100):
                got = [obj["Key"] for obj in store.listing(ordered, "order", prefix, folders=folders,
                                                           page_size=page_size, slow_page=slow_page)]  # fmt: skip
                assert got == want, (folders, page_size, slow_page)


# Slow (tens of seconds: hundreds of listings in pages of 3) and the same on every CPython:
# scripts/test-python-versions.sh leaves it to the main suite.
@pytest.mark.slow
def test_folders_listed_at_once_resume_after_any_name(ordered):
    keys = flat_listing(ordered, "order", "p/")
    names = [k[2:] for k in keys] + ["a/", "a/c", "b", "b/y", "c", "d/e", "f0", "f05", "f29/k9", "\u00e9", "\u00ff"]
    for after in names:
        want = flat_listing(ordered, "order", "p/", "p/" + after)
        for folders, slow_page in ((1, 0), (8, 0), (8, 1e-9), (8, 100)):
            got = [obj["Key"] for obj in store.listing(ordered, "order", "p/", after, folders=folders, page_size=3,
                                                       slow_page=slow_page)]  # fmt: skip
            assert got == want, (after, folders, slow_page)


def test_an_error_in_a_200_answer_is_still_an_error():
    """parhash's client parses a listing page once, in botocore's check for an error in a 200
    answer: that check keeps botocore's rule (an <Error> or a page cut short becomes a 500,
    retried), and every other operation keeps botocore's own check."""
    s3 = store.client("http://127.0.0.1:9")
    model = s3.meta.service_model

    def status(operation, body):
        response = {"status_code": 200, "body": body, "headers": {}}
        s3.meta.events.emit(f"before-parse.s3.{operation}", operation_model=model.operation_model(operation),
                            response_dict=response, customized_response_dict={})  # fmt: skip
        return response["status_code"], store._PARSED in response

    page = b'<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>b</Name></ListBucketResult>'
    error = b'<?xml version="1.0" encoding="UTF-8"?><Error><Code>InternalError</Code></Error>'
    assert status("ListObjectsV2", page) == (200, True)
    assert status("ListObjectsV2", error) == (500, False)
    assert status("ListObjectsV2", page[:-20]) == (500, False)
    assert status("CompleteMultipartUpload", error) == (500, False)
    assert status("CompleteMultipartUpload", b"<CompleteMultipartUploadResult/>") == (200, False)


def test_listing_pages_read_as_botocore_reads_them(server, filled, ordered):
    """parhash's client reads ListObjectsV2's pages itself (botocore's parser costs more than
    rclone's whole check): the same dicts as botocore's own parser, for every bucket the tests
    fill (single-part and multipart objects, every additional checksum, awkward keys), with and
    without a delimiter, in pages of 2; and every page was read by parhash's reader."""
    plain = boto3.client("s3", endpoint_url=server)
    ours = store.client(server)
    bodies = []
    ours.meta.events.register("before-parse.s3.ListObjectsV2", lambda response_dict, **_: bodies.append(response_dict["body"]))

    def pages(s3, **args):
        return [{k: v for k, v in page.items() if k != "ResponseMetadata"}
                for page in s3.get_paginator("list_objects_v2").paginate(**args)]  # fmt: skip

    buckets = [b["Name"] for b in plain.list_buckets()["Buckets"]]
    assert {"forms", "order"} <= set(buckets)
    for bucket in buckets:
        for args in ({}, {"Delimiter": "/"}, {"Prefix": "p/", "Delimiter": "/"}, {"PaginationConfig": {"PageSize": 2}}):
            want = pages(plain, Bucket=bucket, **args)
            assert pages(ours, Bucket=bucket, **args) == want, (bucket, args)
    assert any(b"<ChecksumAlgorithm>" in body for body in bodies) and any(b"%C3%A9" in body for body in bodies)
    for body in bodies:
        assert store._listing_page(body, store._timestamp) is not None


# Text XML 1.0 can carry (no other control characters, no surrogates), `\r` included: a
# parser turns it into `\n`, and both must.
_XML_TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\ufffe\uffff",
                                  min_codepoint=0x09).filter(lambda c: c in "\t\n\r" or ord(c) >= 0x20),
                    max_size=12)  # fmt: skip


@st.composite
def _listing_bodies(draw):
    """A ListObjectsV2 page: every field botocore's model has, in any order S3 might send,
    escaped text (as elements, entities and CDATA), sometimes an element outside the model,
    a value broken by a comment or a number that is not one."""
    from xml.sax.saxutils import escape

    def text(value):
        how = draw(st.sampled_from(["escape", "charrefs", "cdata"]))
        if how == "cdata" and "]]>" not in value and "\r" not in value:
            return f"<![CDATA[{value}]]>"
        if how == "charrefs":
            return "".join(f"&#{ord(c)};" for c in value)
        return escape(value)

    def leaf(name, value):
        return f"<{name}>{value}</{name}>"

    stamp = draw(st.sampled_from(["2026-12-07T11:30:22.762Z", "2009-10-12T17:50:30.000Z", "2026-01-01T00:00:00Z"]))
    objects = []
    for _ in range(draw(st.integers(0, 4))):
        fields = [leaf("Key", text(draw(_XML_TEXT))), leaf("LastModified", stamp),
                  leaf("ETag", text(draw(st.sampled_from(['"0123456789abcdef0123456789abcdef"', '"ab-3"', ""])))),
                  leaf("Size", draw(st.sampled_from(["0", "17", "5368709120", " 42 ", "+3"] * 4 + ["1_000", "x", ""])))]
        for algorithm in draw(st.lists(st.sampled_from(["CRC32", "CRC32C", "CRC64NVME", "SHA1", "SHA256"]), max_size=2)):
            fields.append(leaf("ChecksumAlgorithm", algorithm))
        if draw(st.booleans()):
            fields.append(leaf("ChecksumType", draw(st.sampled_from(["COMPOSITE", "FULL_OBJECT"]))))
        if draw(st.booleans()):
            fields.append(leaf("StorageClass", "STANDARD"))
        if draw(st.booleans()):
            fields.append(leaf("Owner", leaf("ID", text(draw(_XML_TEXT))) + leaf("DisplayName", text(draw(_XML_TEXT)))))
        if draw(st.booleans()):
            fields.append(leaf("RestoreStatus", leaf("IsRestoreInProgress", draw(st.sampled_from(["true", "false"])))
                               + leaf("RestoreExpiryDate", stamp)))  # fmt: skip
        if draw(st.integers(0, 9)) == 0:
            odd = draw(st.sampled_from(["<Odd>1</Odd>", "<Key>a<!-- c -->b</Key>", "<Size><x/></Size>"]))
            fields.append(odd)
        objects.append(leaf("Contents", "\n  ".join(draw(st.permutations(fields)))))
    head = [leaf("Name", "bucket"), leaf("Prefix", text(draw(_XML_TEXT))), leaf("KeyCount", str(len(objects))),
            leaf("MaxKeys", "1000"), leaf("IsTruncated", draw(st.sampled_from(["true", "false"])))]  # fmt: skip
    if draw(st.booleans()):
        head.append(leaf("NextContinuationToken", text(draw(_XML_TEXT))))
    if draw(st.booleans()):
        head.append(leaf("Delimiter", "/") + leaf("CommonPrefixes", leaf("Prefix", text(draw(_XML_TEXT)))))
    namespace = draw(st.sampled_from(['', ' xmlns="http://s3.amazonaws.com/doc/2006-03-01/"']))
    body = f'<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult{namespace}>{"".join(head + objects)}</ListBucketResult>'
    return body.encode()


@settings(max_examples=400, deadline=None)
@given(body=_listing_bodies())
def test_the_extensions_listing_page_is_botocores(body):
    """A page the extension reads gives botocore's own parser's dict, field for field; one it
    declines (None) is one botocore's reading would differ on, or an element outside its model."""
    import botocore.parsers
    import botocore.session

    model = botocore.session.get_session().get_service_model("s3")
    shape = model.operation_model("ListObjectsV2").output_shape
    ours = store._listing_page(body, store._timestamp)
    if ours is None:
        assert any(odd in body for odd in (b"<Odd>", b"<!--", b"<x/>", b"<Size>x", b"<Size>1_000", b"<Size></Size>")), body
        return
    theirs = botocore.parsers.RestXMLParser(timestamp_parser=store._timestamp).parse(
        {"status_code": 200, "headers": {}, "body": body}, shape)  # fmt: skip
    theirs.pop("ResponseMetadata", None)
    assert ours == theirs


@settings(max_examples=300, deadline=None)
@given(when=st.datetimes(min_value=datetime.datetime(1970, 1, 2), timezones=st.just(datetime.timezone.utc)),
       form=st.sampled_from(["http", "iso", "iso-millis", "epoch", "http-no-zone"]))  # fmt: skip
# Digits alone, which Python 3.11's ISO reader takes for a date without a zone.
@example(when=datetime.datetime(4766, 7, 19, tzinfo=datetime.timezone.utc), form="epoch")
def test_dates_are_read_as_botocore_reads_them(when, form):
    """The client's dates (ListObjectsV2's ISO 8601, HeadObject's HTTP date, anything else)
    are the instants botocore's own reader gives, each with its time zone."""
    import email.utils

    from botocore.utils import parse_timestamp

    when = when.replace(microsecond=when.microsecond // 1000 * 1000 if form == "iso-millis" else 0)
    text = {"http": email.utils.format_datetime(when, usegmt=True),
            "http-no-zone": email.utils.format_datetime(when.replace(tzinfo=None)),
            "iso": when.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "iso-millis": when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z",
            "epoch": str(int(when.timestamp()))}[form]  # fmt: skip
    ours, theirs = store._timestamp(text), parse_timestamp(text)
    assert ours.tzinfo is not None and ours == theirs, (text, ours, theirs)


def test_a_folders_listing_error_is_raised_and_nothing_waits():
    """One folder's ListObjectsV2 failing midway: the consumer gets the error, in its place."""

    class Failing:
        def get_paginator(self, _name):
            return self

        def paginate(self, Bucket, Prefix, Delimiter=None, **_):
            if Delimiter:
                yield {"CommonPrefixes": [{"Prefix": f"{Prefix}{i}/"} for i in range(5)]}
                return
            yield {"Contents": [{"Key": Prefix + "k"}]}
            if Prefix.endswith("2/"):
                raise ConnectionError("cut")
            yield {"Contents": [{"Key": Prefix + "l"}]}

    got = []
    with pytest.raises(ConnectionError):
        for obj in store.listing(Failing(), "b", "x/", folders=3, slow_page=0):
            got.append(obj["Key"])
    assert got == ["x/0/k", "x/0/l", "x/1/k", "x/1/l", "x/2/k"]
    assert threading.active_count() < 20  # the listing threads stopped


def test_verify_merges_keys_around_slash_with_the_walk(capsys, ordered, tmp_path, monkeypatch):
    """The local walk and the listing of folders at once meet in one order: every key that can
    be a file matched ("a" cannot beside the folder "a/": missing), none out of place."""
    local = tmp_path / "local"
    names = [key[2:] for key in flat_listing(ordered, "order", "p/")]
    folders_too = {name for name in names if any(other.startswith(name + "/") for other in names)}
    for name in names:
        if name not in folders_too:
            (local / name).parent.mkdir(parents=True, exist_ok=True)
            (local / name).write_bytes(b"p/" + name.encode())
    (local / "c").mkdir()  # an empty folder: its marker is no object
    (local / "new-b").write_bytes(b"x")
    want = {name: "missing" if name in folders_too else "matched" for name in names} | {"new-b": "new"}
    monkeypatch.setattr(store, "SLOW_PAGE", 0)  # folders listed at once from the start
    for folders in ("1", "8"):
        code, out, err = run(capsys, "verify", local, "s3://order/p", "--endpoint-url", ordered.meta.endpoint_url,
                             "--json", "--list-folders", folders)  # fmt: skip
        got, _ = records(out)
        assert code == 1 and {name: r["status"] for name, r in got.items()} == want, err
        assert [r["path"] for r in got.values()] == sorted(want, key=lambda n: n.encode())


def counting_gets(monkeypatch):
    """The keys of every GetObject the command's client sends (a botocore event hook)."""
    keys = []
    make = store.client

    def counted(*args, **kwargs):
        s3 = make(*args, **kwargs)
        s3.meta.events.register("provide-client-params.s3.GetObject", lambda params, **_: keys.append(params["Key"]))
        return s3

    monkeypatch.setattr(store, "client", counted)
    return keys


def test_download_mismatches_says_where_and_nothing_is_downloaded_without_it(capsys, server, tmp_path, monkeypatch):
    s3 = s3_client(server)
    s3.create_bucket(Bucket="mismatch")
    rng = random.Random(3)
    local = tmp_path / "local"
    local.mkdir()
    originals = {"parts": (rng.randbytes(11 * MIB + 3), None, 5 * MIB), "single": (rng.randbytes(1000), "CRC32C", None),
                 "grown": (rng.randbytes(100), None, None), "shrunk": (rng.randbytes(3 * MIB), "SHA256", None),
                 "many": (rng.randbytes(200_000), None, None), "same": (rng.randbytes(10), None, None)}  # fmt: skip
    for key, (data, alg, part_size) in originals.items():
        upload(server, "mismatch", "p/" + key, data, tmp_path, algorithm=alg, part_size=part_size)

    def flipped(data, offsets):
        data = bytearray(data)
        for i in offsets:
            data[i] ^= 0x80
        return bytes(data)

    many = range(0, 200_000, 1000)
    (local / "parts").write_bytes(flipped(originals["parts"][0], [5 * MIB + 10, 11 * MIB + 1]))
    (local / "single").write_bytes(flipped(originals["single"][0], [100, 101, 102, 103, 900]))
    (local / "grown").write_bytes(originals["grown"][0] + b"xyz")
    (local / "shrunk").write_bytes(originals["shrunk"][0][: 3 * MIB // 2])
    (local / "many").write_bytes(flipped(originals["many"][0], many))
    (local / "same").write_bytes(originals["same"][0])
    gets = counting_gets(monkeypatch)
    heads = []
    real_head = store.head
    monkeypatch.setattr(store, "head", lambda s3, bucket, key: heads.append(key) or real_head(s3, bucket, key))
    code, out, err = run(capsys, "verify", local, "s3://mismatch/p", "--endpoint-url", server, "--json")
    got, _ = records(out)
    assert code == 1 and gets == [], "an object was downloaded without --download-mismatches"
    # The listing's ETag matched: no HeadObject; it did not, or a checksum is listed: one.
    assert sorted(heads) == ["p/many", "p/parts", "p/single"]
    assert all(r["difference"] is None for r in got.values())
    code, out, err = run(capsys, "verify", local, "s3://mismatch/p", "--endpoint-url", server, "--json",
                         "--download-mismatches")  # fmt: skip
    got, _ = records(out)
    assert code == 1 and sorted(gets) == ["p/grown", "p/many", "p/parts", "p/shrunk", "p/single"]
    assert got["same"]["status"] == "matched" and got["same"]["difference"] is None
    found = {name: r["difference"] for name, r in got.items() if r["difference"]}
    assert found["parts"] == {"first": 5 * MIB + 10, "ranges": [[5 * MIB + 10, 5 * MIB + 11], [11 * MIB + 1, 11 * MIB + 2]],
                              "part_size": 5 * MIB, "part_count": 3, "parts": [2, 3]}  # fmt: skip
    assert found["single"] == {"first": 100, "ranges": [[100, 104], [900, 901]], "part_size": None,
                               "part_count": None, "parts": []}  # fmt: skip
    assert found["grown"]["ranges"] == [[100, 103]]
    assert found["shrunk"]["ranges"] == [[3 * MIB // 2, 3 * MIB]]
    # Past EXACT_RANGES ranges, COARSE-byte ones that still hold every difference.
    ranges = found["many"]["ranges"]
    assert ranges[: store.EXACT_RANGES] == [[i, i + 1] for i in many[: store.EXACT_RANGES]]
    assert all(any(a <= i < b for a, b in ranges) for i in many)
    assert all(r["status"] == "changed" and "downloaded: first difference at byte" in r["reason"]
               for name, r in got.items() if name != "same")  # fmt: skip
    code, out, err = run(capsys, "verify", local, "s3://mismatch/p", "--endpoint-url", server,
                         "--download-mismatches")  # fmt: skip
    line = next(line for line in out.splitlines() if line.startswith("parts:"))
    assert line.endswith(f"downloaded: first difference at byte {5 * MIB + 10}; bytes {5 * MIB + 10}-{5 * MIB + 10}, "
                         f"{11 * MIB + 1}-{11 * MIB + 1}; parts 2, 3 of 3)"), line  # fmt: skip
    more = len(ranges) - store.SHOWN_RANGES
    assert f"and {more} more ranges" in next(line for line in out.splitlines() if line.startswith("many:"))


def test_min_part_size_for_stores_with_smaller_parts(capsys, server, tmp_path, monkeypatch):
    """Parts smaller than S3's 5 MiB (Ceph's rgw_multipart_min_part_size can allow them):
    found with --min-part-size, and never a match without it."""
    monkeypatch.setattr(moto.s3.models, "S3_UPLOAD_PART_MIN_SIZE", 1024)
    s3 = s3_client(server, checksums=False)
    s3.create_bucket(Bucket="small-parts")
    data = random.Random(6).randbytes(4 * (64 << 10))  # size/4 to a byte is the part size
    up = s3.create_multipart_upload(Bucket="small-parts", Key="p/f")
    parts = [{"PartNumber": n, "ETag": s3.upload_part(Bucket="small-parts", Key="p/f", UploadId=up["UploadId"],
                                                     PartNumber=n, Body=part)["ETag"]}
             for n, part in enumerate(parts_of(data, 64 << 10), 1)]  # fmt: skip
    s3.complete_multipart_upload(Bucket="small-parts", Key="p/f", UploadId=up["UploadId"],
                                 MultipartUpload={"Parts": parts})  # fmt: skip
    (tmp_path / "f").write_bytes(data)
    code, out, _ = run(capsys, "verify", tmp_path, "s3://small-parts/p", "--endpoint-url", server, "--json")
    assert code == 1 and records(out)[0]["f"]["status"] == "changed"
    code, out, err = run(capsys, "verify", tmp_path, "s3://small-parts/p", "--endpoint-url", server, "--json",
                         "--min-part-size", 4096)  # fmt: skip
    got = records(out)[0]["f"]
    assert code == 0 and (got["status"], got["part_size"], got["expected"][-2:]) == ("matched", 64 << 10, "-4"), err
    # The store's list, checked offline: `parhash check` too tries such parts only when told.
    target = tmp_path / "STORE.sums"
    code, _, err = run(capsys, "list", "s3://small-parts/p", "--endpoint-url", server, "-o", target)
    assert code == 0, err
    check = [str(cli_path()), "check", str(target)]
    done = subprocess.run(check, cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 1 and "f: FAILED" in done.stdout, done.stdout
    done = subprocess.run([*check, "--min-part-size", "4096"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout == "f: OK (part size 64 KiB)\n", done.stdout + done.stderr


def test_errors_are_clear_and_never_success(capsys, server, filled, tmp_path):
    local, _ = filled
    code, _, err = run(capsys, "verify", local, "s3://no-such-bucket/x", "--endpoint-url", server)
    assert code == 2 and "s3://no-such-bucket/x: no such bucket (before any verdict)" in err
    assert "s3://no-such-bucket/x: no such bucket (before any verdict)" in BINARY["last"].stderr
    code, _, err = run(capsys, "verify", local, "s3://forms/nothing-here", "--endpoint-url", server)
    assert code == 2 and "no objects under this prefix" in err
    assert "no objects under this prefix" in BINARY["last"].stderr
    code, _, err = run(capsys, "list", "s3://forms/nothing-here", "--endpoint-url", server)
    assert code == 2 and "no objects under this prefix" in err
    code, _, err = run(capsys, "verify", tmp_path / "absent", "s3://forms/all", "--endpoint-url", server)
    assert code == 2 and "not a folder" in err and "not a folder" in BINARY["last"].stderr
    code, _, err = run(capsys, "verify", local, "forms/all", "--endpoint-url", server)
    assert code == 2 and "s3://" in err and "not an s3://bucket/prefix URL" in BINARY["last"].stderr
    # moto checks credentials once its IAM authorization is on.
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(moto.settings, "INITIAL_NO_AUTH_ACTION_COUNT", 0)
        code, _, err = run(capsys, "verify", local, "s3://forms/all", "--endpoint-url", server)
    assert code == 2 and "refused the credentials" in err and "InvalidAccessKeyId" in err
    assert "refused the credentials or the access (InvalidAccessKeyId" in BINARY["last"].stderr


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
                             "--page-size", "5", binary=False)  # fmt: skip
    finally:
        srv.stop()
    assert code == 2, err
    assert "cannot be reached" in err and "resume with --start-after" in err
    assert 0 < out.count(": OK") < 40


def test_the_binary_goes_on_past_an_object_deleted_after_the_listing(aws_env, tmp_path):
    """``parhash store verify``: objects listed, then deleted before their HeadObject (by a
    relay that deletes them when the first HeadObject passes): their files are new."""
    port = free_port()
    srv = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    srv.start()
    try:
        s3 = s3_client(f"http://127.0.0.1:{port}")
        local = fill_deleted(s3, tmp_path)
        deleted = []
        first = threading.Lock()

        def delete_at_first_head(data):
            # Every HeadObject waits here until the deletion is done (they come on several
            # connections at once): none is answered from before it.
            if data.startswith(b"HEAD "):
                with first:
                    if not deleted:
                        deleted.append(data)
                        s3.delete_objects(Bucket="deleted", Delete={"Objects": [{"Key": "p/b"}, {"Key": "p/d"}]})

        proxy = Proxy(port, delete_at_first_head)
        url = f"http://127.0.0.1:{proxy.port}"
        done = subprocess.run([str(cli_path()), "store", "verify", str(local), "s3://deleted/p", "--endpoint-url", url,
                               "--json"], capture_output=True, text=True)  # fmt: skip
    finally:
        srv.stop()
    got, summary = records(done.stdout)
    assert {name: r["status"] for name, r in got.items()} == {"a": "matched", "b": "new", "c": "matched", "d": "new"}
    assert got["b"]["reason"] == "its object was deleted after the listing" and got["b"]["key"] is None
    assert done.returncode == 1 and "2 matched, 0 changed, 0 missing, 2 new" in done.stderr


def test_the_binary_says_how_far_it_got_when_the_network_is_cut(aws_env, tmp_path):
    """``parhash store verify`` with the store gone after ten HeadObjects (a relay cuts every
    connection and refuses new ones): status 2, how far it got and how to resume; resumed from
    there against the store back, it finishes."""
    port = free_port()
    srv = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    srv.start()
    try:
        direct = f"http://127.0.0.1:{port}"
        s3 = s3_client(direct)
        s3.create_bucket(Bucket="cut")
        local = tmp_path / "local"
        local.mkdir()
        for i in range(40):
            s3.put_object(Bucket="cut", Key=f"k/{i:03}", Body=b"%d" % i, ChecksumAlgorithm="SHA256")
            (local / f"{i:03}").write_bytes(b"%d" % i)
        heads = []
        proxy: Proxy

        def cut_at_the_tenth_head(data):
            heads.extend([1] * data.count(b"HEAD /cut/"))
            if len(heads) >= 10:
                proxy.cut()

        proxy = Proxy(port, cut_at_the_tenth_head)
        url = f"http://127.0.0.1:{proxy.port}"
        args = [str(cli_path()), "store", "verify", str(local), "s3://cut/k", "--threads", "2", "--page-size", "5"]
        done = subprocess.run([*args, "--endpoint-url", url], capture_output=True, text=True)
        assert done.returncode == 2, done.stderr
        assert "cannot be reached" in done.stderr and "resume with --start-after" in done.stderr
        assert 0 < done.stdout.count(": OK") < 40
        last = done.stderr.split("resume with --start-after '")[1].split("'")[0]
        again = subprocess.run([*args, "--endpoint-url", direct, "--start-after", last], capture_output=True, text=True)
        # `parhash store list` cut the same way: the objects before the cut listed, then status 2.
        heads.clear()
        proxy = Proxy(port, cut_at_the_tenth_head)
        listed = subprocess.run([str(cli_path()), "store", "list", "s3://cut/k", "--threads", "2", "--page-size", "5",
                                 "--endpoint-url", f"http://127.0.0.1:{proxy.port}"], capture_output=True, text=True)  # fmt: skip
    finally:
        srv.stop()
    assert again.returncode == 0, again.stderr
    assert done.stdout.count(": OK") + again.stdout.count(": OK") == 40
    assert listed.returncode == 2 and "cannot be reached" in listed.stderr, listed.stderr
    count = len(listed.stdout.splitlines())
    assert 0 < count < 40 and f"(after {count} objects)" in listed.stderr
    assert listed.stdout.splitlines()[0] == f"SHA256 (000) = {base64.b64encode(hashlib.sha256(b'0').digest()).decode()}"


def test_a_key_xml_cannot_carry_is_verified(capsys, server, tmp_path):
    """A key with a control character, which a listing page can only carry URL-encoded (both
    clients ask for that): matched, changed and missing like any other."""
    s3 = s3_client(server)
    s3.create_bucket(Bucket="control")
    local = tmp_path / "local"
    local.mkdir()
    for name, body in [("a\x01b", b"one"), ("c\x1fd", b"two"), ("e\x02f", b"three")]:
        s3.put_object(Bucket="control", Key="p/" + name, Body=body)
        if name != "e\x02f":
            (local / name).write_bytes(body if name == "a\x01b" else b"TWO")
    code, out, err = run(capsys, "verify", local, "s3://control/p", "--endpoint-url", server, "--json")
    got, _ = records(out)
    assert {name: r["status"] for name, r in got.items()} == {"a\x01b": "matched", "c\x1fd": "changed",
                                                                "e\x02f": "missing"}, err  # fmt: skip
    assert code == 1


def test_console_script_is_installed():
    script = Path(sys.executable).parent / "parhash-store"
    result = subprocess.run([script, "verify", "--help"], capture_output=True, text=True)
    assert result.returncode == 0 and "s3://BUCKET/PREFIX" in result.stdout
