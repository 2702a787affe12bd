"""hash_many, hash_file, hash_files and file_digest: equal to one-by-one hashing; file errors."""

import errno
import hashlib
import io
import os
import pathlib
import random
import subprocess

import pytest

import parhash

LANES = ["md5", "sha1", "sha256", "sha512", "sha3-256", "keccak256"]
OTHERS = ["whirlpool", "blake512", "sandstorm256", "parsha256", "skein512-256"]


@pytest.mark.parametrize("name", LANES + OTHERS)
def test_hash_many_equals_one_by_one(name):
    rng = random.Random(name)
    messages = [rng.randbytes(rng.choice([0, 1, 55, 64, 100, 4096, 20_000])) for _ in range(300)]
    expected = [parhash.new(name, m).digest() for m in messages]
    for threads in [None, 1, 2]:
        assert parhash.hash_many(messages, name, threads=threads) == expected
    # Any iterable, any buffers.
    assert parhash.hash_many((bytearray(m) for m in messages), name) == expected
    assert parhash.hash_many([], name) == []


def test_hash_many_sha256_equals_hashlib():
    rng = random.Random(3)
    messages = [rng.randbytes(4096) for _ in range(2000)]
    assert parhash.hash_many(messages, "sha256") == [hashlib.sha256(m).digest() for m in messages]


@pytest.fixture
def files(tmp_path):
    rng = random.Random(4)
    paths = []
    for i, size in enumerate([0, 1, 100, 65_536, 65_537, 300_000, 2_500_000]):
        path = tmp_path / f"f{i}"
        path.write_bytes(rng.randbytes(size))
        paths.append(path)
    return paths


@pytest.mark.parametrize("name", ["sha256", "md5", "sandstorm256", "parsha256", "jh512"])
def test_hash_file_and_hash_files_equal_one_by_one(name, files, tmp_path):
    expected = [parhash.new(name, p.read_bytes()).digest() for p in files]
    assert [parhash.hash_file(p, name) for p in files] == expected
    assert [parhash.hash_file(str(p), name, threads=1) for p in files] == expected
    assert parhash.hash_file(os.fsencode(files[2]), name) == expected[2]
    missing = tmp_path / "missing"
    given = files[:3] + [missing] + files[3:] + [tmp_path]
    results = list(parhash.hash_files(given, name, threads=2))
    assert [path for path, _ in results] == given
    digests = [r for _, r in results]
    assert digests[:3] + digests[4:-1] == expected
    assert isinstance(digests[3], FileNotFoundError) and digests[3].errno == errno.ENOENT
    assert digests[3].filename == str(missing)
    assert isinstance(digests[-1], IsADirectoryError)


def test_hash_file_and_hash_files_take_a_digest_size(files, cli):
    """BLAKE2's digest size parameter and the XOFs' lengths, hashlib as the control (BLAKE3:
    the CLI's `-l`)."""
    controls = {
        "blake2b": lambda data, size: hashlib.blake2b(data, digest_size=size).digest(),
        "blake2s": lambda data, size: hashlib.blake2s(data, digest_size=size).digest(),
        "shake128": lambda data, size: hashlib.shake_128(data).digest(size),
        "shake256": lambda data, size: hashlib.shake_256(data).digest(size),
        "blake3": None,
    }
    for name, control in controls.items():
        for size in (1, 20, 32, 200 if name.startswith(("shake", "blake3")) else 31):
            if control is None:
                expected = cli(name, files, "-l", str(8 * size))
            else:
                expected = [control(p.read_bytes(), size) for p in files]
            assert [parhash.hash_file(p, name, digest_size=size) for p in files] == expected, (name, size)
            got = [digest for _, digest in parhash.hash_files(files, name, threads=2, digest_size=size)]
            assert got == expected, (name, size)
    with pytest.raises(ValueError):
        parhash.hash_file(files[0], "blake2b", digest_size=65)
    with pytest.raises(ValueError):
        parhash.hash_files(files, "sha256", digest_size=16)


def test_hash_files_takes_a_long_generator(tmp_path):
    paths = []
    for i in range(1000):
        path = tmp_path / f"small{i}"
        path.write_bytes(b"x" * i)
        paths.append(path)
    results = parhash.hash_files((str(p) for p in paths), "sha1")
    for i, (path, digest) in enumerate(results):
        assert path == str(paths[i])
        assert digest == hashlib.sha1(b"x" * i).digest()
    assert i == 999


def test_file_errors_are_oserrors_with_errno_and_filename(tmp_path):
    missing = tmp_path / "no-such-file"
    with pytest.raises(FileNotFoundError) as info:
        parhash.hash_file(missing, "sha256")
    assert info.value.errno == errno.ENOENT
    assert info.value.filename == str(missing)
    with pytest.raises(IsADirectoryError) as info:
        parhash.hash_file(tmp_path, "sandstorm256")
    assert info.value.errno == errno.EISDIR
    with pytest.raises(ValueError, match="unknown algorithm"):
        parhash.hash_file(missing, "no-such-algorithm")
    with pytest.raises(TypeError):
        list(parhash.hash_files([1234], "md5"))


def test_hash_file_reads_a_pipe(tmp_path):
    # No size to promise: PARSHA-256 reads it into memory first, the others stream.
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    data = random.Random(5).randbytes(200_000)
    source = tmp_path / "source"
    source.write_bytes(data)
    for name in ["parsha256", "sha256"]:
        # A writer process (not fork(), unsafe in a threaded process): the shell opens the FIFO.
        writer = subprocess.Popen(["sh", "-c", 'cat "$0" > "$1"', str(source), str(fifo)])
        try:
            assert parhash.hash_file(fifo, name) == parhash.new(name, data).digest()
        finally:
            assert writer.wait(timeout=60) == 0


@pytest.mark.parametrize("name", ["sha256", "sha3_512", "md5"])
def test_file_digest_equals_hashlib(name, files):
    for path in files:
        with open(path, "rb") as f:
            ours = parhash.file_digest(f, name).digest()
        with open(path, "rb") as f:
            theirs = hashlib.file_digest(f, name).digest() if hasattr(hashlib, "file_digest") \
                else hashlib.new(name, f.read()).digest()
        assert ours == theirs
        with open(path, "rb") as f:
            assert parhash.file_digest(f, getattr(parhash, name)).digest() == theirs
        assert parhash.file_digest(io.BytesIO(path.read_bytes()), name).digest() == theirs
    with open(files[0], "r") as text:
        with pytest.raises(ValueError, match="binary reading mode"):
            parhash.file_digest(text, "sha256")


def test_hash_files_is_one_caller_at_a_time(tmp_path):
    (tmp_path / "a").write_bytes(b"a")
    iterator = None

    def paths():
        yield tmp_path / "a"
        next(iterator)  # calls back into the iterator that is asking for paths

    iterator = parhash.hash_files(paths(), "md5")
    with pytest.raises(ValueError, match="already executing"):
        next(iterator)


@pytest.mark.parametrize("name", ["blake3", "sandstorm256", "parsha256"])
def test_every_read_strategy_gives_the_one_digest(name, tmp_path):
    # 6 MiB: over the 4 MiB from which two threads read their own pieces ("parallel").
    data = random.Random(name).randbytes(6 << 20 | 12345)
    path = tmp_path / "f"
    path.write_bytes(data)
    expected = parhash.new(name, data).digest()
    for read in [None, "auto", "sequential", "parallel", "PARALLEL"]:
        assert parhash.hash_file(path, name, threads=2, read=read) == expected, read
        assert list(parhash.hash_files([path], name, threads=2, read=read)) == [(path, expected)]
    with pytest.raises(ValueError, match="auto, sequential or parallel"):
        parhash.hash_file(path, name, read="fast")


def test_parsha256_told_its_length_streams_to_the_same_digest():
    data = random.Random(7).randbytes(3 << 20 | 777)
    expected = parhash.parsha256(data).digest()
    for params in [{}, {"tree_height": 5, "iv_bits": 0}]:
        whole = parhash.parsha256(data, **params).digest()
        h = parhash.parsha256(message_length=len(data), threads=2, **params)
        view = memoryview(data)
        for start in range(0, len(data), 100_003):
            h.update(view[start:start + 100_003])
        assert h.digest() == whole
        assert h.hexdigest() == whole.hex()
        assert h.copy().digest() == whole  # a finished stream copies
        if not params:
            assert whole == expected
    short = parhash.new("parsha256", b"abc", message_length=5)
    with pytest.raises(ValueError, match="message_length=5 but 3 bytes"):
        short.digest()
    with pytest.raises(ValueError, match="can be copied only once"):
        short.copy()
    short.update(b"de")
    assert short.digest() == parhash.parsha256(b"abcde").digest()
    with pytest.raises(ValueError, match="more than message_length=5"):
        short.update(b"f")
    assert short.digest() == parhash.parsha256(b"abcde").digest()
    with pytest.raises(TypeError, match="only parsha256"):
        parhash.sha256(b"", message_length=3)
    with pytest.raises(ValueError, match="must not be negative"):
        parhash.parsha256(message_length=-1)


def test_a_file_truncated_while_hash_file_maps_it_is_an_oserror(tmp_path):
    # A cached file read in parallel is hashed from a memory map; another thread truncates it
    # mid-hash. pytest runs with faulthandler's SIGBUS handler installed first: parhash's
    # handler, installed over it at the first map, catches the faults in its own maps, so the
    # result is the file-changed OSError, by size or by version (or, if the cut came before or after the hash, that
    # file's digest), never a crash. Several tries; at least one must meet the truncation.
    import threading
    import time

    data = random.Random(27).randbytes(1 << 20) * 256
    # Whole if the cut came after the hash, the first MiB if it came before hash_file's stat.
    expected = {parhash.blake3(data).digest(), parhash.blake3(data[: 1 << 20]).digest()}
    path = tmp_path / "shrinking"
    errors = 0
    for attempt in range(5):
        path.write_bytes(data)

        def cut():
            time.sleep(0.002 * attempt)
            os.truncate(path, 1 << 20)

        cutter = threading.Thread(target=cut)
        cutter.start()
        try:
            digest = parhash.hash_file(path, "blake3", threads=2, read="parallel")
            assert digest in expected
        except OSError as err:
            # The cut found by the size check, or by the file's changed version (mtime) first.
            assert "changed size" in str(err) or isinstance(err, parhash.FileChanged), err
            errors += 1
        finally:
            cutter.join()
    assert errors > 0, "the truncation never came during the hash"


def test_hash_file_with_several_algorithms_reads_once_and_equals_one_by_one(tmp_path):
    # Issue 28: a list of names gives {name: digest}, each equal to that algorithm alone,
    # for an empty, a small and a multi-piece file; options go where they apply.
    names = ["md5", "sha256", "blake2b", "blake3", "parsha256", "sha3_256"]
    for size in [0, 1000, 5 * 1024 * 1024 + 17]:
        path = tmp_path / f"f{size}"
        path.write_bytes(random.Random(size).randbytes(size))
        got = parhash.hash_file(path, names, threads=2)
        assert list(got) == names
        for name in names:
            assert got[name] == parhash.hash_file(path, name, threads=2), (name, size)
        sized = parhash.hash_file(path, ["sha256", "blake3", "blake2b"], digest_size=20)
        assert sized["sha256"] == parhash.hash_file(path, "sha256")
        assert sized["blake3"] == parhash.hash_file(path, "blake3", digest_size=20)
        assert sized["blake2b"] == parhash.hash_file(path, "blake2b", digest_size=20)
        tree = parhash.hash_file(path, ["sha1", "parsha256"], tree_height=5, iv_bits=0)
        assert tree["parsha256"] == parhash.hash_file(path, "parsha256", tree_height=5, iv_bits=0)
    with pytest.raises(TypeError, match="parsha256"):
        parhash.hash_file(path, ["md5", "sha1"], tree_height=5)
    with pytest.raises(ValueError, match="named twice"):
        parhash.hash_file(path, ["md5", "MD5"])
    with pytest.raises(ValueError, match="unknown algorithm"):
        parhash.hash_file(path, ["md5", "nosuch"])
    with pytest.raises(FileNotFoundError):
        parhash.hash_file(tmp_path / "missing", ["md5", "sha1"])


def test_file_digest_with_several_algorithms_reads_the_file_object_once(tmp_path):
    data = random.Random(28).randbytes(3 * (1 << 18) + 5)
    path = tmp_path / "f"
    path.write_bytes(data)
    for source in [lambda: open(path, "rb"), lambda: io.BytesIO(data)]:
        with source() as f:
            got = parhash.file_digest(f, ["md5", parhash.sha256, "sha3_256"])
        assert list(got) == ["md5", "sha256", "sha3_256"]
        assert got["md5"].digest() == hashlib.md5(data).digest()
        assert got["sha256"].digest() == hashlib.sha256(data).digest()
        assert got["sha3_256"].digest() == hashlib.sha3_256(data).digest()
    with pytest.raises(ValueError, match="twice"):
        parhash.file_digest(io.BytesIO(data), ["md5", "md5"])
    with pytest.raises(ValueError, match="no algorithm"):
        parhash.file_digest(io.BytesIO(data), [])


def test_hash_files_with_several_algorithms_equals_one_by_one_and_checks_hashlib(tmp_path):
    # Issue 28: hash_files(paths, [names]) yields (path, {name: digest}) in input order, each
    # digest equal to that algorithm alone and to hashlib; a missing file is one OSError for
    # the file, not one per algorithm; small files go through the lanes, large ones split.
    rng = random.Random(2828)
    paths = []
    contents = {}
    for i in range(300):
        size = rng.choice([0, 1, 63, 64, 1000, 4096, 70_000]) if i % 50 else 3 * 1024 * 1024 + i
        path = tmp_path / f"f{i:03}"
        data = rng.randbytes(size)
        path.write_bytes(data)
        contents[str(path)] = data
        paths.append(str(path))
    missing = str(tmp_path / "missing")
    paths.insert(7, missing)
    names = ["md5", "sha256", "sha512", "blake2b", "blake3"]
    got = list(parhash.hash_files(paths, names, threads=2))
    assert [p for p, _ in got] == paths
    singles = {name: dict(parhash.hash_files(paths, name, threads=2)) for name in names}
    errors = 0
    for path, result in got:
        if path == missing:
            assert isinstance(result, FileNotFoundError) and result.filename == missing
            errors += 1
            continue
        assert isinstance(result, dict) and list(result) == names
        data = contents[path]
        for name in names:
            assert result[name] == singles[name][path], (name, path)
        assert result["md5"] == hashlib.md5(data).digest()
        assert result["sha256"] == hashlib.sha256(data).digest()
        assert result["blake2b"] == hashlib.blake2b(data).digest()
    assert errors == 1
    sized = dict(parhash.hash_files(paths[:3], ["sha1", "blake3"], digest_size=16))
    for path in paths[:3]:
        if path != missing:
            assert sized[path]["blake3"] == parhash.hash_file(path, "blake3", digest_size=16)
    with pytest.raises(ValueError, match="named twice"):
        parhash.hash_files(paths, ["md5", "MD5"])
    with pytest.raises(TypeError, match="algorithm name or a list"):
        parhash.hash_files(paths, 5)
