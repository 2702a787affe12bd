"""The hash objects: names, copy, hmac, every buffer type, threads, errors."""

import array
import hashlib
import hmac
import mmap
import os
import random
import shutil
import subprocess
import threading

import numpy as np
import pytest

import parhash

ALL = sorted(parhash.algorithms_available)
DATA = random.Random(1).randbytes(300_000)


def digest(h):
    """The object's digest; 32 bytes of SHAKE's (which, as hashlib's, has no size of its own)."""
    return h.digest(32) if h.digest_size == 0 else h.digest()


def test_every_algorithm_has_a_constructor_and_metadata():
    for name in ALL:
        constructor = getattr(parhash, name.replace("-", "_"))
        h = constructor(b"abc")
        assert h.name == name
        if name.startswith("shake_"):
            assert h.digest_size == 0
            assert h.hexdigest(40) == h.digest(40).hex()
        else:
            assert len(h.digest()) == h.digest_size
            assert h.hexdigest() == h.digest().hex()
        # A CRC and coreutils' sums go byte by byte: their block is one byte.
        bytewise = name.startswith("crc") or name in ("sysv", "bsd")
        blocks = (1,) if bytewise else (32, 64, 72, 104, 128, 136, 144, 168)
        assert h.block_size in blocks
        assert digest(parhash.new(name, b"abc")) == digest(h)


def test_constructors_pickle_by_name_as_hashlib_s_do():
    import pickle
    for name in ALL:
        constructor = getattr(parhash, name.replace("-", "_"))
        assert pickle.loads(pickle.dumps(constructor)) is constructor
        assert constructor.__name__ == name.replace("-", "_")
        assert constructor().name == name


def test_names_and_aliases_as_the_cli_takes_them():
    abc = parhash.sha256(b"abc").digest()
    for spelling in ["sha256", "SHA-256", "sha_256", "Sha2-256", "sha2"]:
        assert parhash.new(spelling, b"abc").digest() == abc
    assert parhash.new("SHA3_256").name == "sha3_256"
    assert parhash.new("sha3-256").name == "sha3_256"
    # hashlib's names and parhash's, both ways, and both constructors.
    assert parhash.new("shake128").name == parhash.new("shake_128").name == "shake_128"
    assert parhash.shake128(b"abc").digest(20) == parhash.shake_128(b"abc").digest(20)
    assert "sha3_256" in parhash.algorithms_available
    assert "sha3-256" not in parhash.algorithms_available
    assert parhash.new("sandstorm").name == "sandstorm256"


def test_unknown_algorithm_names_a_close_match():
    with pytest.raises(ValueError, match=r"unknown algorithm 'sha265'; did you mean 'sha256'\?"):
        parhash.new("sha265")
    with pytest.raises(ValueError, match="algorithms_available"):
        parhash.new("zzzzzzzzzzzz")
    with pytest.raises(ValueError, match="did you mean 'sha3-256'"):
        parhash.hash_many([b""], "sha3-265")


def test_copy_is_independent():
    for name in ALL:
        h = parhash.new(name, DATA[:1000])
        fork = h.copy()
        fork.update(DATA[1000:5000])
        h.update(b"other")
        assert digest(fork) == digest(parhash.new(name, DATA[:5000])), name
        assert digest(h) == digest(parhash.new(name, DATA[:1000] + b"other")), name


@pytest.mark.parametrize("name", ["md5", "sha1", "sha256", "sha512", "sha3_256", "sha512_224"])
@pytest.mark.parametrize("key_len", [0, 5, 64, 200])
def test_hmac_equals_hashlib_hmac(name, key_len):
    key = bytes(range(key_len % 256)) * (key_len // 256 + 1)
    key = key[:key_len]
    ours = hmac.new(key, b"message", digestmod=getattr(parhash, name))
    ours.update(b" more")
    theirs = hmac.new(key, b"message more", digestmod=name)
    assert ours.digest() == theirs.digest()
    assert hmac.digest(key, b"m", getattr(parhash, name)) == hmac.digest(key, b"m", name)


def test_hmac_with_an_algorithm_hashlib_lacks():
    # The control: HMAC written out from its definition (RFC 2104) over the parhash object.
    key, msg = b"k" * 10, b"message"
    block = parhash.skein512_256().block_size
    padded = key.ljust(block, b"\0")
    inner = parhash.skein512_256(bytes(b ^ 0x36 for b in padded) + msg).digest()
    outer = parhash.skein512_256(bytes(b ^ 0x5C for b in padded) + inner).digest()
    assert hmac.new(key, msg, digestmod=parhash.skein512_256).digest() == outer


def buffers_of(data: bytes):
    """The same bytes in every kind of buffer."""
    m = mmap.mmap(-1, len(data))
    m.write(data)
    as_u32 = np.frombuffer(data[: len(data) // 4 * 4], dtype=np.uint32)
    return {
        "bytes": data,
        "bytearray": bytearray(data),
        "memoryview": memoryview(data),
        "memoryview of bytearray": memoryview(bytearray(data)),
        "mmap": m,
        "numpy uint8": np.frombuffer(data, dtype=np.uint8).copy(),
        "numpy 2-d": np.frombuffer(data[:300 * 1000], dtype=np.uint8).reshape(300, 1000).copy(),
        "numpy uint32": as_u32.copy(),
        "array.array": array.array("B", data),
    }


@pytest.mark.parametrize("name", ["sha256", "sandstorm256", "parsha256", "md5"])
def test_every_buffer_type(name):
    for kind, buffer in buffers_of(DATA).items():
        expected_bytes = memoryview(buffer).cast("B").tobytes()
        expected = parhash.new(name, expected_bytes).digest()
        assert parhash.new(name, buffer).digest() == expected, kind
        h = parhash.new(name)
        h.update(buffer)
        assert h.digest() == expected, kind
        assert parhash.hash_many([buffer, expected_bytes], name) == [expected, expected], kind


def test_a_buffer_larger_than_one_copy_step():
    # Mutable buffers are copied a few MiB at a time: several steps, a partial last one.
    data = random.Random(2).randbytes(9 * 1024 * 1024 + 12345)
    for name in ["sha256", "sandstorm512"]:
        assert parhash.new(name, bytearray(data)).digest() == parhash.new(name, data).digest()
    assert parhash.sha1(np.frombuffer(data, dtype=np.uint8)).digest() == hashlib.sha1(data).digest()


def test_a_sliced_memoryview_hashes_only_its_bytes():
    view = memoryview(bytearray(DATA))[100:2100]
    assert parhash.sha256(view).digest() == hashlib.sha256(DATA[100:2100]).digest()


def test_str_and_non_buffers_are_type_errors():
    with pytest.raises(TypeError, match="Strings must be encoded before hashing"):
        parhash.sha256("abc")
    with pytest.raises(TypeError, match="Strings must be encoded"):
        parhash.sha256().update("abc")
    with pytest.raises(TypeError, match="buffer API required"):
        parhash.md5(12)
    with pytest.raises(TypeError):
        parhash.hash_many(["abc"], "md5")
    # Not contiguous: refused, as hashlib refuses it.
    strided = np.arange(100, dtype=np.uint8)[::2]
    with pytest.raises((TypeError, BufferError, ValueError)):
        parhash.sha256(strided)


def test_a_buffer_changed_while_it_is_hashed():
    # Another thread writes into the buffer while it is hashed with the GIL released: the
    # hash copies each step under the GIL, so this is some mix of old and new contents and
    # never a crash; once the writer stops, the digest is exact again.
    buffer = bytearray(DATA * 60)  # 18 MB: several copy steps
    stop = threading.Event()

    def writer():
        i = 0
        while not stop.is_set():
            buffer[i % len(buffer)] ^= 0xFF
            i += 4099

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        for _ in range(3):
            assert len(parhash.sha256(buffer).digest()) == 32
    finally:
        stop.set()
        thread.join()
    assert parhash.sha256(buffer).digest() == hashlib.sha256(buffer).digest()


@pytest.mark.parametrize("name", ["sandstorm256", "sandstorm512", "parsha256", "sha256"])
def test_threads_give_equal_digests(name):
    data = DATA * 8  # 2.4 MB: many superblocks and rounds
    expected = parhash.new(name, data).digest()
    for threads in [None, 0, 1, 2, 3]:
        h = parhash.new(name, threads=threads)
        for at in range(0, len(data), 1 << 20):
            h.update(data[at:at + (1 << 20)])
        assert h.digest() == expected, threads
        assert parhash.hash_many([data], name, threads=threads) == [expected]


def test_one_object_shared_by_threads():
    # Updates from several threads take turns; identical pieces make the order irrelevant.
    piece = DATA[:100_000]
    h = parhash.sha256()
    threads = [threading.Thread(target=lambda: [h.update(piece) for _ in range(50)])
               for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert h.digest() == hashlib.sha256(piece * 200).digest()


def test_python_threads_hash_in_parallel_correctly():
    datas = [random.Random(i).randbytes(3_000_000) for i in range(4)]
    results = [None] * 4

    def work(i):
        results[i] = parhash.sha512(datas[i]).digest()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [hashlib.sha512(d).digest() for d in datas]


def test_options_errors():
    with pytest.raises(ValueError, match=r"tree_height must be in 1\.\.=40, not 41"):
        parhash.parsha256(tree_height=41)
    with pytest.raises(ValueError, match=r"tree_height must be in 1\.\.=40, not 0"):
        parhash.new("parsha256", tree_height=0)
    with pytest.raises(ValueError, match="iv_bits must be 0, 128 or 256, not 64"):
        parhash.parsha256(iv_bits=64)
    with pytest.raises(TypeError, match="only parsha256 has tree parameters"):
        parhash.sha256(tree_height=13)
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        parhash.sha256(colour=1)
    with pytest.raises(TypeError, match="positional"):
        parhash.sha256(b"a", b"b")
    with pytest.raises(ValueError, match="threads must be"):
        parhash.sandstorm256(threads=-1)
    with pytest.raises(ValueError, match="no variant 'warp-drive'"):
        parhash.sha256(variant="warp-drive")
    # hashlib's flag is accepted.
    assert parhash.md5(b"a", usedforsecurity=False).digest() == hashlib.md5(b"a").digest()


def test_variants_give_the_default_digest():
    for variant in ["portable", "reference"]:
        for name in ["sha256", "parsha256", "sandstorm256"]:
            try:
                h = parhash.new(name, DATA, variant=variant)
            except ValueError:
                continue  # this algorithm has no such variant
            assert h.digest() == parhash.new(name, DATA).digest(), (name, variant)


def test_parsha_parameters_change_the_digest():
    default = parhash.parsha256(DATA).digest()
    assert parhash.parsha256(DATA, tree_height=13, iv_bits=256).digest() == default
    assert parhash.parsha256(DATA, iv_bits=0).digest() != default
    assert parhash.sha256(DATA).tree_height is None


def test_the_type_stubs_declare_every_constructor():
    import pathlib
    stubs = (pathlib.Path(parhash.__file__).parent / "__init__.pyi").read_text()
    assert (pathlib.Path(parhash.__file__).parent / "py.typed").exists()
    for name in ALL:
        py_name = name.replace("-", "_")
        assert f"def {py_name}(" in stubs or f"class {py_name}:" in stubs, name


@pytest.mark.parametrize(
    "name, size, control",
    [
        ("blake2b", 32, lambda d, n: hashlib.blake2b(d, digest_size=n).digest()),
        ("blake2b", 64, lambda d, n: hashlib.blake2b(d, digest_size=n).digest()),
        ("blake2s", 16, lambda d, n: hashlib.blake2s(d, digest_size=n).digest()),
        ("shake128", 100, lambda d, n: hashlib.shake_128(d).digest(n)),
        ("shake256", 7, lambda d, n: hashlib.shake_256(d).digest(n)),
        # Past the 128 bytes parhash once stopped at, and SHAKE's rates, up to the limit.
        ("shake128", 129, lambda d, n: hashlib.shake_128(d).digest(n)),
        ("shake128", 65_536, lambda d, n: hashlib.shake_128(d).digest(n)),
        ("shake256", 1000, lambda d, n: hashlib.shake_256(d).digest(n)),
        ("shake256", 1 << 20, lambda d, n: hashlib.shake_256(d).digest(n)),
    ],
)
def test_digest_size_of_variable_length_algorithms_matches_hashlib(name, size, control):
    data = bytes(range(256)) * 41
    h = parhash.new(name, data, digest_size=size)
    assert h.digest_size == size
    assert h.digest() == control(data, size)
    assert getattr(parhash, name)(data, digest_size=size).digest() == h.digest()
    assert h.copy().digest() == h.digest()


def test_blake3_digest_is_a_prefix_of_its_longer_output():
    long = parhash.blake3(b"abc").digest(64)
    assert parhash.blake3(b"abc").digest() == long[:32]
    # blake3-py's type has no digest_size= (digest(length) gives any length).
    with pytest.raises(TypeError):
        parhash.blake3(b"abc", digest_size=64)


def test_digest_size_is_refused_where_it_cannot_be_had():
    with pytest.raises(ValueError):
        parhash.sha256(b"", digest_size=16)
    with pytest.raises(ValueError):
        parhash.blake2b(b"", digest_size=65)
    with pytest.raises(ValueError):
        parhash.shake128(b"", digest_size=-1)
    # digest_size has a limit (1 MiB, as the CLI's -l); digest(length) has none.
    with pytest.raises(ValueError, match="1 to 1048576 bytes"):
        parhash.shake256(b"", digest_size=(1 << 20) + 1)


@pytest.mark.parametrize("name", ["shake128", "shake256"])
def test_shake_digest_of_any_length_is_hashlib_s(name):
    data = bytes(range(256)) * 41
    theirs = getattr(hashlib, name.replace("shake", "shake_"))(data)
    for digest_size in [None, 20, 300]:
        ours = parhash.new(name, data, digest_size=digest_size)
        # Any length, whatever the object's own digest_size, past digest_size's limit too.
        for length in [0, 1, 20, 129, 200, 1000, 65_536, (1 << 20) + 4321]:
            assert ours.digest(length) == theirs.digest(length), (digest_size, length)
        assert ours.hexdigest(1000) == theirs.hexdigest(1000)
        # Reading does not end the object: more data goes on the same hash.
        ours.update(b"more")
        longer = hashlib.new(name.replace("shake", "shake_"), data + b"more")
        assert ours.digest(500) == longer.digest(500)


def test_blake3_digest_of_any_length_is_b3sum_s(tmp_path):
    if shutil.which("b3sum") is None:
        assert "CI" not in os.environ, "CI must compare with b3sum (.ci/run installs it)"
        pytest.skip("b3sum is not installed")
    # 2.2 MB: two of the 1 MiB pieces parhash hashes on threads, and a part of a third.
    data = bytes(range(251)) * 9000
    (tmp_path / "data").write_bytes(data)
    for length in [1, 32, 129, 200, 1000, 65_536, (1 << 20) + 1]:
        line = subprocess.run(["b3sum", "--length", str(length), "--no-names", "data"],
                              cwd=tmp_path, check=True, capture_output=True, text=True).stdout
        expected = line.strip()
        ours = parhash.blake3(data, max_threads=2)
        assert ours.hexdigest(length) == expected, length
        assert parhash.new("blake3", data).digest(length).hex() == expected, length


def test_digest_length_is_for_extendable_output_functions_only():
    with pytest.raises(TypeError, match="fixed length"):
        parhash.sha256(b"abc").digest(16)
    with pytest.raises(TypeError):
        parhash.blake2b(b"abc", digest_size=16).hexdigest(16)
    with pytest.raises(ValueError, match="negative"):
        parhash.shake128(b"abc").digest(-1)
    # Without a length, SHAKE's digest() is hashlib's TypeError, unless digest_size was given.
    with pytest.raises(TypeError, match="length"):
        parhash.shake128(b"abc").digest()
    with pytest.raises(TypeError, match="length"):
        parhash.shake_256(b"abc").hexdigest()
    assert parhash.shake_128(b"abc").digest_size == 0
    assert parhash.shake128(b"abc", digest_size=32).digest() == hashlib.shake_128(b"abc").digest(32)
    # hashlib's bound: a length of 2**29 bytes or more is a ValueError, a huge one too.
    for length in [2**29, 2**61, 2**64 + 10]:
        with pytest.raises((ValueError, OverflowError)):
            parhash.shake_128(b"abc").digest(length)


def test_parsha_keeps_the_message_by_reference_and_hashes_it_as_one():
    # The kept message is the update()s' bytes objects (and private copies of mutable
    # buffers), shared by copy(), fed to the streaming engine at digest(): against the literal
    # reference variant (the registry's own one-shot) over the joined bytes, at random splits,
    # buffer kinds and parameters.
    rng = random.Random(29)
    data = rng.randbytes(1024 * 1024 + 777)

    def reference(message, options):
        return parhash.parsha256(message, variant="reference", **options).digest()

    for options in [{}, {"tree_height": 5, "iv_bits": 0}, {"threads": 2}]:
        h = parhash.parsha256(**options)
        assert h.digest() == reference(b"", options)
        at, forks = 0, []
        while at < len(data):
            step = rng.choice([1, 63, 64, 1000, 70_000, 300_000])
            piece = data[at:at + step]
            kind = rng.choice(["bytes", "bytearray", "memoryview"])
            if kind == "bytes":
                h.update(piece)
            elif kind == "bytearray":
                h.update(bytearray(piece))
            else:
                h.update(memoryview(bytearray(piece)))
            at += len(piece)
            if rng.random() < 0.15:
                assert h.digest() == reference(data[:at], options), (options, at)
                forks.append((h.copy(), at))
        assert h.digest() == reference(data, options), options
        # Forks go on on their own: the shared pieces are never changed by another object.
        for fork, fork_at in forks:
            fork.update(b"tail")
            assert fork.digest() == reference(data[:fork_at] + b"tail", options), fork_at
    # A bytearray changed after update() does not change the kept message (it was copied).
    buffer = bytearray(data[:100_000])
    h = parhash.parsha256(buffer)
    buffer[0] ^= 0xFF
    assert h.digest() == reference(data[:100_000], {})
