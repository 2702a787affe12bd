"""Type stubs of the parhash package (the extension module and its Python part)."""

from collections.abc import Iterable, Iterator, Sequence
from os import PathLike
from typing import IO, Callable, ClassVar, Generic, Literal, TypeVar, Union, overload

from _typeshed import ReadableBuffer
from typing_extensions import TypeAlias

__version__: str

_Path: TypeAlias = Union[str, bytes, PathLike[str], PathLike[bytes]]

#: Every algorithm: hashlib's names for hashlib's algorithms (sha3_256, shake_128), parhash's
#: canonical names for the others (parhash.new also takes aliases, as the CLI does).
algorithms_available: frozenset[str]
#: hashlib's guaranteed algorithms, under hashlib's names.
algorithms_guaranteed: frozenset[str]

class Hash:
    """A running hash, as hashlib's objects (update, digest, hexdigest, copy)."""

    @property
    def name(self) -> str: ...
    @property
    def digest_size(self) -> int: ...
    @property
    def block_size(self) -> int: ...
    @property
    def tree_height(self) -> int | None:
        """PARSHA-256's tree height T (None for other algorithms)."""
    @property
    def iv_bits(self) -> int | None:
        """PARSHA-256's IV length l in bits (None for other algorithms)."""
    @property
    def _capacity_bits(self) -> int:
        """SHA-3's and SHAKE's capacity in bits (AttributeError for other algorithms)."""
    @property
    def _rate_bits(self) -> int:
        """SHA-3's and SHAKE's rate in bits (AttributeError for other algorithms)."""
    @property
    def _suffix(self) -> bytes:
        """SHA-3's and SHAKE's domain suffix (AttributeError for other algorithms)."""
    def update(self, data: ReadableBuffer, /) -> None: ...
    def digest(self, length: int | None = None) -> bytes:
        """The digest; `length` bytes of it for shake_128 and shake_256 (required, below 2**29,
        as hashlib's, unless the object was given `digest_size`), a TypeError for the others
        (their length is fixed)."""
    def hexdigest(self, length: int | None = None) -> str:
        """The digest as lowercase hexadecimal (`length` as for `digest`)."""
    def copy(self) -> Hash: ...

class Constructor:
    """One algorithm's constructor (parhash.sha256, ...); pickles by name."""

    __name__: str
    @property
    def algorithm(self) -> str: ...
    def __call__(self, data: ReadableBuffer = b"", **options: object) -> Hash: ...

def new(
    name: str,
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    tree_height: int | None = None,
    iv_bits: int | None = None,
    variant: str | None = None,
    digest_size: int | None = None,
    message_length: int | None = None,
    usedforsecurity: bool = True,
    **params: object,
) -> Hash | blake2b | blake2s | blake3:
    """A hash object for the algorithm `name` (any name or alias the CLI takes); blake2b,
    blake2s and blake3 get their own types, with their parameters in `params`;
    `message_length` (parsha256 only) as for `parsha256`."""

def parsha256(
    data: ReadableBuffer = b"",
    *,
    tree_height: int = 13,
    iv_bits: int = 256,
    threads: int | None = None,
    variant: str | None = None,
    message_length: int | None = None,
    usedforsecurity: bool = True,
) -> Hash:
    """PARSHA-256 with tree height T in 1..=40 and an IV of l in {0, 128, 256} bits.

    PARSHA-256 needs the message length before it starts: without `message_length` the
    object keeps every byte until `digest()`; with it, bytes are hashed as they arrive (in
    bounded memory), more than `message_length` is a ValueError, and `digest()` (which then
    needs all of them) is kept once computed."""

def blake224(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def blake256(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def blake384(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...

class blake2b:
    """hashlib's blake2b: RFC 7693's whole parameter block (`blake2b_simd`/`blake2s_simd`)."""

    SALT_SIZE: ClassVar[int]
    PERSON_SIZE: ClassVar[int]
    MAX_KEY_SIZE: ClassVar[int]
    MAX_DIGEST_SIZE: ClassVar[int]
    def __init__(
        self,
        data: ReadableBuffer = b"",
        /,
        *,
        digest_size: int = 64,
        key: ReadableBuffer = b"",
        salt: ReadableBuffer = b"",
        person: ReadableBuffer = b"",
        fanout: int = 1,
        depth: int = 1,
        leaf_size: int = 0,
        node_offset: int = 0,
        node_depth: int = 0,
        inner_size: int = 0,
        last_node: bool = False,
        usedforsecurity: bool = True,
    ) -> None: ...
    @property
    def name(self) -> str: ...
    @property
    def digest_size(self) -> int: ...
    @property
    def block_size(self) -> int: ...
    def update(self, data: ReadableBuffer, /) -> None: ...
    def digest(self) -> bytes: ...
    def hexdigest(self) -> str: ...
    def copy(self) -> blake2b: ...

class blake2s:
    """hashlib's blake2s: RFC 7693's whole parameter block (`blake2b_simd`/`blake2s_simd`)."""

    SALT_SIZE: ClassVar[int]
    PERSON_SIZE: ClassVar[int]
    MAX_KEY_SIZE: ClassVar[int]
    MAX_DIGEST_SIZE: ClassVar[int]
    def __init__(
        self,
        data: ReadableBuffer = b"",
        /,
        *,
        digest_size: int = 32,
        key: ReadableBuffer = b"",
        salt: ReadableBuffer = b"",
        person: ReadableBuffer = b"",
        fanout: int = 1,
        depth: int = 1,
        leaf_size: int = 0,
        node_offset: int = 0,
        node_depth: int = 0,
        inner_size: int = 0,
        last_node: bool = False,
        usedforsecurity: bool = True,
    ) -> None: ...
    @property
    def name(self) -> str: ...
    @property
    def digest_size(self) -> int: ...
    @property
    def block_size(self) -> int: ...
    def update(self, data: ReadableBuffer, /) -> None: ...
    def digest(self) -> bytes: ...
    def hexdigest(self) -> str: ...
    def copy(self) -> blake2s: ...

class blake3:
    """blake3-py's blake3: hash, keyed hash (`key`, 32 bytes) or key derivation
    (`derive_key_context`), on up to `max_threads` threads (AUTO: all cores, the default)."""

    name: ClassVar[str]
    digest_size: ClassVar[int]
    block_size: ClassVar[int]
    key_size: ClassVar[int]
    AUTO: ClassVar[int]
    def __init__(
        self,
        data: ReadableBuffer = b"",
        /,
        *,
        key: ReadableBuffer | None = None,
        derive_key_context: str | None = None,
        max_threads: int = -1,
        usedforsecurity: bool = True,
    ) -> None: ...
    def update(self, data: ReadableBuffer, /) -> blake3: ...
    def update_mmap(self, path: str | PathLike[str]) -> blake3:
        """Feeds the file's contents (read, not mapped: no SIGBUS if it is truncated)."""
    def digest(self, length: int = 32, *, seek: int = 0) -> bytes: ...
    def hexdigest(self, length: int = 32, *, seek: int = 0) -> str: ...
    def copy(self) -> blake3: ...
    def reset(self) -> None: ...

def shake128(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    digest_size: int | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def shake256(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    digest_size: int | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def shake_128(
    data: ReadableBuffer = b"",
    /,
    *,
    threads: int | None = None,
    variant: str | None = None,
    digest_size: int | None = None,
    usedforsecurity: bool = True,
) -> Hash:
    """SHAKE128 under hashlib's name: `digest_size` 0 and `digest(length)` needing the length,
    as hashlib's (unless `digest_size` is given)."""

def shake_256(
    data: ReadableBuffer = b"",
    /,
    *,
    threads: int | None = None,
    variant: str | None = None,
    digest_size: int | None = None,
    usedforsecurity: bool = True,
) -> Hash:
    """SHAKE256 under hashlib's name (as `shake_128`)."""

def blake512(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def crc32(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash:
    """CRC-32/ISO-HDLC (zlib.crc32's), big-endian; not cryptographic."""

def crc32c(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash:
    """CRC-32C (Castagnoli), big-endian; not cryptographic."""

def crc64nvme(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash:
    """CRC-64/NVME (S3's), big-endian; not cryptographic."""

def crc(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash:
    """POSIX cksum (coreutils `cksum -a crc`): the 4-byte CRC then the byte count as 8 bytes,
    big-endian; not cryptographic."""

def crc32b(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash:
    """coreutils 9.6 `cksum -a crc32b`: zlib's CRC-32 (4 bytes) then the byte count as 8 bytes,
    big-endian; not cryptographic."""

def sysv(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash:
    """System V `sum -s`: the 16-bit sum then the byte count as 8 bytes, big-endian; not
    cryptographic."""

def bsd(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash:
    """BSD `sum -r`: the 16-bit sum then the byte count as 8 bytes, big-endian; not
    cryptographic."""

def groestl224(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def groestl256(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def groestl384(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def groestl512(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def jh224(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def jh256(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def jh384(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def jh512(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def keccak224(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def keccak256(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def keccak384(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def keccak512(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def md5(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def sandstorm224(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def sandstorm224_ref(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def sandstorm256(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def sandstorm256_ref(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def sandstorm384(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def sandstorm512(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def sha1(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def sha224(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def sha256(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def sha384(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def sha3_224(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def sha3_256(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def sha3_384(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def sha3_512(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def sha512(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def sha512_224(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def sha512_256(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def simd224(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def simd256(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def simd384(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def simd512(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def skein1024_1024(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def skein256_256(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def skein512_224(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def skein512_256(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def skein512_384(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def skein512_512(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def whirlpool(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def xxh128(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash:
    """XXH3-128, seed 0, as xxhsum -H2 prints it; not cryptographic."""

def xxh3(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash:
    """XXH3-64, seed 0, as xxhsum -H3 prints it; not cryptographic."""

def xxh64(
    data: ReadableBuffer = b"",
    *,
    threads: int | None = None,
    variant: str | None = None,
    usedforsecurity: bool = True,
) -> Hash:
    """XXH64, seed 0, as xxhsum -H1 prints it; not cryptographic."""

@overload
def file_digest(fileobj: IO[bytes], digest: str | Callable[[], Hash], /, *, _bufsize: int = 262144) -> Hash:
    """hashlib.file_digest: the hash object of what `fileobj` holds from its position on."""

@overload
def file_digest(
    fileobj: IO[bytes],
    digest: list[str | Callable[[], Hash]] | tuple[str | Callable[[], Hash], ...],
    /,
    *,
    _bufsize: int = 262144,
) -> dict[str, Hash]:
    """Several algorithms, one read of `fileobj`: {name: hash object}."""

_MultipartForm: TypeAlias = Literal["etag", "sha1-composite", "sha256-composite", "crc32-composite", "crc32c-composite"]

# A form's name is also a str: the first overload that matches wins, as intended.
@overload
def hash_file(path: _Path, name: _MultipartForm, *, part_size: int | None = None) -> str:  # type: ignore[overload-overlap]
    """An object store's value as it shows it: "etag" (S3's ETag, `hex-N`; without
    `part_size` a one-piece upload's, the file's MD5 in hex) or "ALG-composite" (S3's
    composite checksum, `base64-N`), for parts of `part_size` bytes (5 MiB to 5 GiB). A file
    over 10,000 parts raises ValueError."""

@overload
def hash_file(
    path: _Path,
    name: list[str] | tuple[str, ...],
    *,
    part_size: int,
) -> dict[str, bytes | str]:
    """Multipart forms ("etag", "ALG-composite": str) and algorithms (bytes, the whole
    file's digest) from one read: {name: value} for each name."""

@overload
def hash_file(
    path: _Path,
    name: str,
    threads: int | None = None,
    *,
    tree_height: int | None = None,
    iv_bits: int | None = None,
    digest_size: int | None = None,
    read: Literal["auto", "sequential", "parallel"] | None = None,
    device: Literal["cpu", "gpu"] = "cpu",
) -> bytes:
    """The digest of the file at `path`, read in pieces with the GIL released (`digest_size`
    in bytes for blake2b, blake2s, blake3, shake128 and shake256, as in `new`; `read` as
    `parhash sum --read`: "auto" (None) decides per file, "parallel" lets the hashing threads
    read their own pieces, "sequential" reads one stream). `device="gpu"`: a parsha256 file on
    the GPU, read once (RuntimeError without a usable GPU)."""

@overload
def hash_file(
    path: _Path,
    name: list[str] | tuple[str, ...],
    threads: int | None = None,
    *,
    tree_height: int | None = None,
    iv_bits: int | None = None,
    digest_size: int | None = None,
    read: Literal["auto", "sequential", "parallel"] | None = None,
) -> dict[str, bytes]:
    """Several algorithms, one read of the file: {name: digest} for each name (`tree_height`,
    `iv_bits` for parsha256, `digest_size` for those whose length it can be). "etag" among
    them (no `part_size`: a one-piece upload's ETag) is a str."""

_Digests = TypeVar("_Digests", bytes, dict[str, bytes], str, dict[str, bytes | str])

class FileDigests(Iterator[tuple[_Path, Union[_Digests, OSError, ValueError]]], Generic[_Digests]):
    """`hash_files`' results: bytes for one algorithm, {name: bytes} for several; str (and
    {name: bytes | str}) with the multipart forms, ValueError for a file over S3's parts."""

    def __iter__(self) -> FileDigests[_Digests]: ...
    def __next__(self) -> tuple[_Path, Union[_Digests, OSError, ValueError]]: ...

@overload
def hash_files(  # type: ignore[overload-overlap]  # as hash_file's first overload
    paths: Iterable[_Path], name: _MultipartForm, *, part_size: int | None = None
) -> FileDigests[str]:
    """(path, value as the store shows it) or (path, OSError or ValueError), in input order."""

@overload
def hash_files(
    paths: Iterable[_Path], name: list[str] | tuple[str, ...], *, part_size: int
) -> FileDigests[dict[str, bytes | str]]:
    """Multipart forms and algorithms, each file read once: (path, {name: value})."""

@overload
def hash_files(
    paths: Iterable[_Path],
    name: str,
    threads: int | None = None,
    *,
    tree_height: int | None = None,
    iv_bits: int | None = None,
    digest_size: int | None = None,
    read: Literal["auto", "sequential", "parallel"] | None = None,
) -> FileDigests[bytes]:
    """(path, digest) or (path, OSError) for each path, in input order, bounded memory."""

@overload
def hash_files(
    paths: Iterable[_Path],
    name: list[str] | tuple[str, ...],
    threads: int | None = None,
    *,
    tree_height: int | None = None,
    iv_bits: int | None = None,
    digest_size: int | None = None,
    read: Literal["auto", "sequential", "parallel"] | None = None,
) -> FileDigests[dict[str, bytes]]:
    """Several algorithms, each file read once: (path, {name: digest}) or (path, OSError)."""

def hash_many(
    buffers: Iterable[ReadableBuffer],
    name: str,
    threads: int | None = None,
    *,
    device: Literal["cpu", "gpu"] = "cpu",
) -> list[bytes]:
    """The digest of every buffer, in order, hashed side by side in SIMD lanes; `device="gpu"`
    on the GPU (sha256, sha3_256, keccak256, parsha256; RuntimeError without a usable GPU)."""

def gpu_device() -> str:
    """The name of the GPU `device="gpu"` runs on; RuntimeError("no usable CUDA GPU: ...")
    where there is none."""

def multipart_file(path: _Path, requests: Sequence[tuple[str, int | None]]) -> list[tuple[bytes, int]]:
    """For each (form, part_size), (raw digest, part count), every one from one read of the file
    with the GIL released: form "etag" is S3's ETag (MD5 of the parts' MD5s), an algorithm name
    its composite checksum (the digest of the parts' digests); part_size None asks for the digest
    of the whole file (MD5 for "etag"; a full-object CRC), with 1 part. Text forms:
    ``multipart_value``."""

def multipart_files(
    items: Sequence[
        tuple[_Path, Sequence[tuple[str, int | None]]] | tuple[_Path, Sequence[tuple[str, int | None]], int | None]
    ],
) -> list[list[tuple[bytes, int]] | OSError]:
    """``multipart_file`` of each ``(path, requests)`` or ``(path, requests, size)``, many
    files at once on every core with the GIL released, the parts and whole digests of small
    and middle-sized files side by side in SIMD lanes, in order; a file that cannot be read
    gives its exception (OSError, ``FileChanged``; a file not of the ``size`` given is
    ``FileChanged`` and is not read) in its place, not raised."""

def multipart_value(form: str, digest: bytes, parts: int | None = None) -> str:
    """`digest` as S3 shows it: hex for form "etag", base64 for an algorithm's checksum, then
    `-parts` where given (a multipart ETag, a composite checksum)."""

def multipart_combine(form: str, part_size: int, length: int, digests: list[bytes]) -> str:
    """The value as the store shows it of `form` ("etag", "ALG-composite") for an object of
    `length` bytes in parts of `part_size`, from its parts' raw digests in order (each the
    form's algorithm's digest of one part: MD5 for "etag"), combined by the library's rule: for
    parts hashed elsewhere (`parhash.distributed.multipart_values`). ValueError: a count that is
    not the object's part count, a digest of the wrong length, S3's limits."""

def candidate_part_sizes(size: int, parts: int) -> list[int]:
    """The part sizes tools use that give an object of `size` bytes `parts` parts, increasing."""

@overload
def outboard_file(path: _Path, chunk_group: int = 0, *, out: None = None) -> tuple[bytes, bytes]:
    """(BLAKE3 digest, outboard) of the file at `path`, from one read with the GIL released:
    bao's outboard format (the `bao` crate's, byte for byte, with chunk_group 0; iroh's 16 KiB
    groups with 4; leaves of 2**chunk_group KiB, 0 to 10)."""

@overload
def outboard_file(path: _Path, chunk_group: int = 0, *, out: _Path) -> tuple[bytes, None]:
    """The outboard written to `out` (through OUT.tmp, renamed once complete): (digest, None)."""

def verify_range(
    path: _Path,
    outboard: ReadableBuffer | str | PathLike[str],
    root: ReadableBuffer | str,
    offset: int,
    length: int,
    *,
    chunk_group: int = 0,
) -> bool:
    """Whether `length` bytes of the file from `offset` are those BLAKE3's digest `root` (32
    bytes or 64 hex digits) was made from, checked with the file's outboard (its bytes, or its
    path as str or os.PathLike) reading only the range, the GIL released. False: the bytes (or
    the file's length) differ. ValueError: an empty range, one past the end, a damaged
    outboard (no verdict on the data); OSError: a file that cannot be read."""

def blake3_subtree(data: ReadableBuffer, offset: int) -> bytes:
    """The chaining value (32 bytes, not a digest) of the BLAKE3 subtree of `data` starting at
    byte `offset` of the message, the GIL released. ValueError where it is not one of BLAKE3's
    subtrees (an offset not a multiple of 1024, no bytes, over blake3_max_subtree_len)."""

def blake3_merge(left: bytes, right: bytes) -> bytes:
    """The chaining value of the parent of two sibling subtrees (not the root: blake3_root)."""

def blake3_root(left: bytes, right: bytes) -> bytes:
    """The message's BLAKE3 digest from its top node's children's chaining values: the left
    subtree of blake3_left_subtree_len(length) bytes and the right one of the rest."""

def blake3_left_subtree_len(length: int) -> int | None:
    """Bytes of the left child of a node over `length` bytes; None for 1024 or less (a leaf)."""

def blake3_max_subtree_len(offset: int) -> int | None:
    """The most bytes a subtree at `offset` holds; None at 0 (any length). ValueError for an
    offset that is not a multiple of 1024."""

def splits(name: str) -> bool:
    """Whether the algorithm `name` splits one message into parts (``PartPlan``)."""

def takes_tree_params(name: str) -> bool:
    """Whether the algorithm `name` takes ``tree_height`` and ``iv_bits`` (its digests depend on them)."""

class FileChanged(OSError):
    """A file changed while it was hashed, or the parts of one file read different versions
    of it: no digest is given. ``filename`` names the file where it is known."""

class PartPlan:
    """One long message of an algorithm that splits (``splits(name)``) split into parts."""

    def __init__(
        self,
        name: str,
        message_len: int,
        parts: int,
        *,
        tree_height: int | None = None,
        iv_bits: int | None = None,
        threads: int | None = None,
        digest_size: int | None = None,
    ) -> None: ...
    @staticmethod
    def for_file(
        path: _Path,
        name: str,
        parts: int,
        *,
        tree_height: int | None = None,
        iv_bits: int | None = None,
        threads: int | None = None,
        digest_size: int | None = None,
    ) -> PartPlan: ...
    @property
    def name(self) -> str: ...
    @property
    def parts(self) -> int: ...
    @property
    def message_len(self) -> int: ...
    @property
    def digest_size(self) -> int: ...
    @property
    def tree_height(self) -> int | None: ...
    @property
    def iv_bits(self) -> int | None: ...
    def ranges(self, index: int) -> list[tuple[int, int]]: ...
    def top_ranges(self) -> list[tuple[int, int]]: ...
    def hash_part(self, index: int, message: ReadableBuffer, *, identity: bytes | None = None) -> bytes: ...
    def hash_part_file(self, index: int, path: _Path, *, identity: bytes | None = None) -> bytes: ...
    @staticmethod
    def file_identity(path: _Path) -> bytes | None: ...
    def combine(self, states: Iterable[ReadableBuffer], message: ReadableBuffer | None = None) -> bytes: ...
    def combine_file(
        self, states: Iterable[ReadableBuffer], path: _Path, *, identity: bytes | None = None
    ) -> bytes: ...
