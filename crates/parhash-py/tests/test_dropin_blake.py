"""BLAKE2 with RFC 7693's whole parameter block and BLAKE3's modes, against the official
vectors: the BLAKE2 authors' keyed KAT, RFC 7693's self-test, BLAKE3's test_vectors.json
(hash, keyed_hash, derive_key, extended output); and against hashlib for every parameter."""

import array
import hashlib
import hmac
import json
import pathlib
import random
import threading

import pytest

import parhash

VECTORS = pathlib.Path(__file__).parents[2] / "parhash" / "tests" / "vectors"


def kat(path):
    """The `In`/`Key`/`Out` records of a BLAKE2 KAT file."""
    records, record = [], {}
    for line in path.read_text().splitlines():
        if line.startswith("#") or " = " not in line:
            continue
        field, value = line.split(" = ")
        record[field] = bytes.fromhex(value)
        if field == "Out":
            records.append(record)
            record = {}
    return records


@pytest.mark.parametrize("name", ["blake2b", "blake2s"])
def test_blake2_authors_keyed_kat(name):
    records = kat(VECTORS / name / "blake2-kat-keyed.txt")
    assert len(records) == 256
    for r in records:
        assert getattr(parhash, name)(r["In"], key=r["Key"]).digest() == r["Out"]
        assert parhash.new(name, r["In"], key=r["Key"]).digest() == r["Out"]
        h = getattr(parhash, name)(key=r["Key"])
        h.update(r["In"][:7])
        h.update(r["In"][7:])
        assert h.hexdigest() == r["Out"].hex()


def rfc7693_selftest(constructor, md_len, in_len):
    """RFC 7693, Appendix E: the self-test's grand hash over keyed and unkeyed digests."""

    def seq(length, seed):
        a, b, out = (0xDEAD4BAD * seed) & 0xFFFFFFFF, 1, bytearray(length)
        for i in range(length):
            t = (a + b) & 0xFFFFFFFF
            a, b = b, t
            out[i] = (t >> 24) & 0xFF
        return bytes(out)

    outer = constructor(digest_size=32)
    for outlen in md_len:
        for inlen in in_len:
            data = seq(inlen, inlen)
            outer.update(constructor(data, digest_size=outlen).digest())
            outer.update(constructor(data, key=seq(outlen, outlen), digest_size=outlen).digest())
    return outer.hexdigest()


def test_blake2_rfc7693_selftest():
    b2b = rfc7693_selftest(parhash.blake2b, [20, 32, 48, 64], [0, 3, 128, 129, 255, 1024])
    assert b2b == "c23a7800d98123bd10f506c61e29da5603d763b8bbad2e737f5e765a7bccd475"
    b2s = rfc7693_selftest(parhash.blake2s, [16, 20, 28, 32], [0, 3, 64, 65, 255, 1024])
    assert b2s == "6a411f08ce25adcdfb02aba641451cec53c598b24f4fc787fbdc88797f4c1dfe"


@pytest.mark.parametrize("name", ["blake2b", "blake2s"])
def test_blake2_every_parameter_equals_hashlib(name):
    ours, theirs = getattr(parhash, name), getattr(hashlib, name)
    for constant in ["SALT_SIZE", "PERSON_SIZE", "MAX_KEY_SIZE", "MAX_DIGEST_SIZE"]:
        assert getattr(ours, constant) == getattr(theirs, constant)
    rng = random.Random(name)
    big = theirs.MAX_DIGEST_SIZE
    for _ in range(200):
        params = dict(
            digest_size=rng.randint(1, big),
            key=rng.randbytes(rng.randint(0, theirs.MAX_KEY_SIZE)),
            salt=rng.randbytes(rng.randint(0, theirs.SALT_SIZE)),
            person=rng.randbytes(rng.randint(0, theirs.PERSON_SIZE)),
            fanout=rng.randint(0, 255),
            depth=rng.randint(1, 255),
            leaf_size=rng.randint(0, 2**32 - 1),
            node_offset=rng.randint(0, 2**64 - 1 if name == "blake2b" else 2**48 - 1),
            node_depth=rng.randint(0, 255),
            inner_size=rng.randint(0, big),
            last_node=rng.random() < 0.5,
        )
        data = rng.randbytes(rng.choice([0, 1, 63, 64, 65, 127, 128, 129, 3000]))
        h = ours(data[:10], **params)
        h.update(data[10:])
        expected = theirs(data, **params)
        assert h.digest() == expected.digest(), params
        assert h.copy().hexdigest() == expected.hexdigest()
        assert (h.name, h.digest_size, h.block_size) == (
            expected.name,
            expected.digest_size,
            expected.block_size,
        )


@pytest.mark.parametrize("name", ["blake2b", "blake2s"])
def test_blake2_errors_are_hashlib_s(name):
    ours = getattr(parhash, name)
    for kwargs, error in [
        (dict(digest_size=0), ValueError),
        (dict(digest_size=ours.MAX_DIGEST_SIZE + 1), ValueError),
        (dict(key=b"k" * (ours.MAX_KEY_SIZE + 1)), ValueError),
        (dict(salt=b"s" * (ours.SALT_SIZE + 1)), ValueError),
        (dict(person=b"p" * (ours.PERSON_SIZE + 1)), ValueError),
        (dict(fanout=256), ValueError),
        (dict(depth=0), ValueError),
        (dict(leaf_size=-1), ValueError),
        (dict(leaf_size=2**32), OverflowError),
        (dict(node_offset=-1), ValueError),
        (dict(node_depth=256), ValueError),
        (dict(data=b""), TypeError),
        (dict(string=b""), TypeError),
        (dict(key="a str"), TypeError),
    ]:
        with pytest.raises(error):
            ours(**kwargs)
    with pytest.raises(TypeError):
        ours("a str")


@pytest.mark.parametrize("name", ["blake2b", "blake2s"])
def test_blake2_argument_errors_name_the_argument(name):
    # The rarer keywords are parsed by the extension, not PyO3: the same errors either way.
    ours = getattr(parhash, name)
    for kwargs, message in [
        (dict(foo=1), "unexpected keyword argument 'foo'"),
        (dict(data=b"", foo=1), "unexpected keyword argument 'foo'"),
        (dict(foo=1, data=b""), "unexpected keyword argument 'foo'"),
        (dict(data=b"", salt=b"s"), "positional-only arguments passed as keyword arguments: 'data'"),
        (dict(digest_size="x"), "argument 'digest_size': 'str' object cannot be interpreted"),
        (dict(fanout="x"), "argument 'fanout': 'str' object cannot be interpreted"),
        (dict(salt=b"", inner_size=1.5), "argument 'inner_size': 'float' object cannot be"),
        (dict(last_node=1), "argument 'last_node': 'int' object cannot be cast as 'bool'"),
        (dict(usedforsecurity=None), "argument 'usedforsecurity'"),
        (dict(key=5), "object supporting the buffer API required, not 'int'"),
        (dict(person="p"), "Strings must be encoded before hashing"),
    ]:
        with pytest.raises(TypeError, match=message):
            ours(**kwargs)
    with pytest.raises(TypeError, match="takes from 0 to 1 positional arguments but 2 were given"):
        ours(b"a", b"b")
    # None stands for "not given" where the parameter's default is None (as before).
    expected = getattr(hashlib, name)(b"abc").digest()
    none = dict(key=None, salt=None, person=None, leaf_size=None, node_offset=None)
    assert ours(None).digest() == ours().digest() == getattr(hashlib, name)().digest()
    assert ours(b"abc", **none).digest() == expected
    # Keyword names that are not interned (built at run time) are found too.
    assert ours(b"abc", **{"".join(["sa", "lt"]): b"s"}).digest() == (
        getattr(hashlib, name)(b"abc", salt=b"s").digest()
    )


def test_keyed_blake2_as_a_mac_and_in_hmac():
    key = bytes(range(32))
    assert (
        parhash.blake2b(b"msg", key=key, digest_size=32).digest()
        == hashlib.blake2b(b"msg", key=key, digest_size=32).digest()
    )
    assert hmac.digest(b"k", b"m", parhash.blake2s) == hmac.digest(b"k", b"m", "blake2s")


BLAKE3 = json.loads((VECTORS / "blake3" / "test_vectors.json").read_text())


def test_blake3_authors_vectors_in_every_mode():
    key = BLAKE3["key"].encode()
    context = "BLAKE3 2019-12-27 16:29:52 test vectors context"
    for case in BLAKE3["cases"]:
        data = bytes(i % 251 for i in range(case["input_len"]))
        for field, options in [
            ("hash", {}),
            ("keyed_hash", {"key": key}),
            ("derive_key", {"derive_key_context": context}),
        ]:
            expected = bytes.fromhex(case[field])
            for threads in [1, parhash.blake3.AUTO]:
                h = parhash.blake3(data, max_threads=threads, **options)
                assert h.digest() == expected[:32]
                assert h.digest(len(expected)) == expected
                assert h.digest(40, seek=91) == expected[91:]
                assert h.hexdigest(10, seek=3) == expected[3:13].hex()
            assert parhash.new("blake3", data, **options).digest() == expected[:32]


def test_blake3_long_input_on_threads_in_every_mode():
    # Several 1 MiB pieces: keyed and derive-key pieces and merges on threads equal one thread.
    data = random.Random(3).randbytes(5 * 2**20 + 4321)
    for options in [{}, {"key": bytes(32)}, {"derive_key_context": "ctx"}]:
        one = parhash.blake3(data, max_threads=1, **options).digest(100)
        many = parhash.blake3(max_threads=parhash.blake3.AUTO, **options)
        for at in range(0, len(data), 3 * 2**20):
            many.update(data[at : at + 3 * 2**20])
        assert many.digest(100) == one
        many.reset()
        assert many.update(data) is many
        assert many.digest(100) == one


def test_blake3_update_mmap_reads_the_file(tmp_path):
    path = tmp_path / "f"
    data = random.Random(4).randbytes(3 * 2**20 + 5)
    path.write_bytes(data)
    key = bytes(range(32))
    h = parhash.blake3(b"head", key=key).update_mmap(path).update_mmap(path=str(path))
    assert h.digest() == parhash.blake3(b"head" + data + data, key=key).digest()
    with pytest.raises(FileNotFoundError):
        h.update_mmap(tmp_path / "missing")


@pytest.mark.parametrize("name", ["blake2b", "blake2s"])
def test_constructor_data_in_every_form_equals_hashlib(name):
    # The constructor feeds short bytes directly and the rest as update() does (the GIL
    # released from 2 KiB on, other buffers copied): every path, default and other sizes.
    rng = random.Random(7693)
    mine, theirs = getattr(parhash, name), getattr(hashlib, name)
    for length in [0, 1, 63, 64, 65, 128, 129, 2047, 2048, 2049, 100_000]:
        data = rng.randbytes(length)
        for form in (bytes, bytearray, memoryview, lambda d: array.array("B", d)):
            for options in ({}, {"digest_size": 20}, {"key": b"k" * 5}, {"salt": b"s"}):
                got = mine(form(data), **options).digest()
                assert got == theirs(data, **options).digest(), (length, form, options)


@pytest.mark.parametrize("name", ["blake2b", "blake2s"])
def test_blake2_kept_key_and_data_in_every_order_of_calls(name):
    # With at most a digest size and a key, the constructor keeps the key and a short bytes and
    # builds the state when first needed: digest before and after update, copies either side.
    ours, theirs = getattr(parhash, name), getattr(hashlib, name)
    for options in ({}, {"key": b"k" * 8}, {"digest_size": 20}, {"key": b"", "digest_size": 7}):
        for data in (b"", b"abc", bytes(range(200)) * 10):
            h, t = ours(data, **options), theirs(data, **options)
            assert h.digest() == t.digest()
            assert h.hexdigest() == t.hexdigest()
            early = h.copy()
            h.update(b"more")
            t_early = t.copy()
            t.update(b"more")
            assert (h.digest(), early.digest()) == (t.digest(), t_early.digest()), options
            late = h.copy()
            early.update(b"else")
            t_early.update(b"else")
            assert (late.digest(), early.digest()) == (t.digest(), t_early.digest()), options
    # A key given as a mutable buffer is copied: changing it afterwards changes nothing.
    key = bytearray(b"secret")
    h = ours(b"abc", key=key)
    key[0] ^= 1
    assert h.digest() == theirs(b"abc", key=b"secret").digest()


@pytest.mark.parametrize("name", ["blake2b", "blake2s"])
def test_blake2_one_object_shared_by_threads(name):
    # Updates take turns while other threads read the digest: identical pieces make the order
    # irrelevant, and every digest read meanwhile is of some number of whole pieces.
    piece = random.Random(name).randbytes(3000)
    h = getattr(parhash, name)(b"start", key=b"k")
    prefixes = {getattr(hashlib, name)(b"start" + piece * n, key=b"k").digest() for n in range(201)}
    seen = []

    def update():
        for _ in range(50):
            h.update(piece)

    def read():
        for _ in range(200):
            seen.append(h.digest())

    threads = [threading.Thread(target=update) for _ in range(4)]
    threads.append(threading.Thread(target=read))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert h.digest() == getattr(hashlib, name)(b"start" + piece * 200, key=b"k").digest()
    assert set(seen) <= prefixes
