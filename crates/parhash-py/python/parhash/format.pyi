"""Type stubs of parhash.format: the checksum-list format of `parhash sum` and `parhash check`."""

from collections.abc import Callable, Iterable, Iterator, Mapping
from os import PathLike
from typing import Any, Union, overload

from typing_extensions import Self, TypeAlias

_Path: TypeAlias = Union[str, bytes, PathLike[str], PathLike[bytes]]
#: What a check run asks to print: (True, bytes) for standard output, (False, str) for a message.
_Events: TypeAlias = list[tuple[bool, Union[bytes, str]]]

def checksum_line(
    algorithm: str,
    digest: bytes,
    name: bytes,
    *,
    tag: bool = False,
    binary: bool = False,
    zero: bool = False,
    tree_params: tuple[int, int] | None = None,
) -> bytes:
    """One checksum line, byte for byte as `parhash sum` writes it."""

@overload
def sum_record(
    algorithm: str, result: bytes | BaseException, name: bytes, tree_params: tuple[int, int] | None = None
) -> bytes:
    """`parhash sum --json`'s record of a digest or of the error that stopped it."""

@overload
def sum_record(
    algorithm: list[str],
    result: Mapping[str, bytes] | BaseException,
    name: bytes,
    tree_params: tuple[int, int] | None = None,
) -> bytes:
    """`parhash sum -a A,B --json`'s record: every digest by algorithm, or the error once."""

def multipart_line(form: str, value: str, name: bytes, *, zero: bool = False) -> bytes:
    """`parhash sum --etag`/`--composite`'s line of a form ("etag", "ALG-composite") and its
    value as the store shows it: ``ETAG (NAME) = HEX-N``."""

def multipart_record(form: str, part_size: int | None, result: str | BaseException, name: bytes) -> bytes:
    """`parhash sum --etag`/`--composite --json`'s record of a value or of the error."""

def parse_part_size(text: str) -> int:
    """A part size as `parhash sum --part-size` reads it (8MiB, 5242880), within S3's limits."""

def parse_range(text: str) -> tuple[int, int]:
    """`OFFSET:LENGTH` as `parhash check --range` reads it (4MiB, 1e6): (offset, length)."""

def parse_chunk_group(text: str) -> int:
    """A chunk group's K as `parhash check --chunk-group` reads it (0 to 10)."""

def range_refusal(offset: int, length: int) -> str | None:
    """Why `parhash check --range` refuses the range (an empty one), else None."""

def range_note(offset: int, length: int) -> str:
    """The note after a `check --range` verdict: `bytes A-B`."""

def verify_line_range(
    algorithm: str,
    expected: bytes,
    name: bytes,
    offset: int,
    length: int,
    outboard_dir: str | bytes | PathLike[str] | None = None,
    chunk_group: str | None = None,
) -> tuple[bytes | None, tuple[int | None, str] | None, str | None]:
    """One list line's range verified with its file's outboard, as `parhash check --range`,
    the GIL released: (digest for ListCheck.report, or None; (errno, reason) where there is
    no verdict on the data; the message saying which chunks differ, where they do)."""

def list_name(algorithm: str) -> str:
    """The name distributions give the algorithm's list (SHA256SUMS, B2SUMS), as `--lists`."""

def several_length_error(algorithms: list[str], bits: int | None) -> str | None:
    """What `-l BITS` is wrong about with several algorithms, as the CLI says it."""

def failure_message(error: BaseException, name: bytes) -> str:
    """`NAME: ERROR` as `parhash sum` reports a file it could not hash."""

def quote(name: bytes) -> str:
    """A name quoted as coreutils quotes it in messages."""

def tag(algorithm: str, tree_params: tuple[int, int] | None = None, size: int | None = None) -> str:
    """The BSD tag of an algorithm for a digest of `size` bytes (`BLAKE2b-256`)."""

def from_tag(text: str) -> tuple[str, tuple[int, int] | None, int] | None:
    """(algorithm, PARSHA-256's parameters, digest size in bytes) a BSD tag names, or None."""

def parse_bits(text: str) -> int:
    """A `-l` value in bits (ValueError with the CLI's words)."""

def length_digest_size(algorithm: str, bits: int | None) -> int | None:
    """The digest size `-l BITS` asks of `algorithm` (None: its default; ValueError)."""

def length_error(algorithm: str | None, bits: int | None, checking: bool) -> str | None:
    """What `-l BITS` is wrong about with `-a ALGORITHM`, as the CLI says it."""

def digest_size_for(algorithm: str, bits: int | None) -> int | None:
    """The digest size `-l BITS` gives `algorithm`, checked (None: its default, or one of
    several algorithms whose length `-l` does not set)."""

def list_paths(directory: _Path, template: str | None, algorithms: list[str]) -> list[bytes]:
    """The lists of `sum --lists DIRECTORY --list-name TEMPLATE`, one per algorithm (ValueError
    where two would be the same)."""

def infer_algorithm(size: int) -> str | None:
    """The algorithm a tagless line with a `size`-byte digest is checked with."""

#: The most steps `in_order` keeps waiting by default (as ``parhash sum -o``).
MAX_WAITING: int

def in_order(
    steps: Iterable[tuple[bytes | None, Any]],
    hasher: Callable[[Iterator[bytes]], Iterable[tuple[bytes, Any]]],
    *,
    max_waiting: int = ...,
) -> Iterator[tuple[Any, Any]]:
    """``(payload, result)`` for each step ``(name to hash or None, payload)``, in order: the
    hasher's result for a name, None for the others. As ``parhash sum -o`` writes its lists: at
    most ``max_waiting`` steps wait for a hashed file before them (then the hasher is drained and
    called again)."""

class Entry:
    """One checksum line of a list."""

    @property
    def line(self) -> int: ...
    @property
    def algorithm(self) -> str: ...
    @property
    def expected(self) -> bytes: ...
    @property
    def name(self) -> bytes: ...
    @property
    def tree_params(self) -> tuple[int, int] | None: ...
    @property
    def digest_size(self) -> int | None: ...
    @property
    def inferred(self) -> bool: ...

def parse_list(
    data: bytes,
    *,
    algorithm: str | None = None,
    zero: bool = False,
    strict: bool = False,
    tree_params: tuple[int, int] | None = None,
) -> list[Entry]:
    """The entries of a checksum list, as `parhash check` reads them."""

class Step:
    """A record to report in its turn: a line to check (`entry`) or an improper one."""

    @property
    def entry(self) -> Entry | None: ...
    @property
    def line(self) -> int: ...

class ListCheck:
    """One list being checked."""

    @property
    def terminator(self) -> bytes: ...
    @property
    def shown(self) -> str: ...
    def record(self, record: bytes) -> Step | None: ...
    def report(
        self, step: Step, result: bytes | BaseException | None = None, *, note: str | None = None
    ) -> _Events: ...

class Checker:
    """`parhash check` over lists, one after the other."""

    def __init__(
        self,
        *,
        algorithm: str | None = None,
        zero: bool = False,
        warn: bool = False,
        quiet: bool = False,
        status: bool = False,
        strict: bool = False,
        ignore_missing: bool = False,
        json: bool = False,
        tree_height: int | None = None,
        iv_bits: int | None = None,
    ) -> None: ...
    def start(self, name: bytes) -> ListCheck: ...
    def finish(self, list: ListCheck) -> tuple[bool, _Events]: ...
    def open_failed(self, list: ListCheck, error: BaseException) -> tuple[bool, _Events]: ...
    def read_failed(self, list: ListCheck, error: BaseException) -> tuple[bool, _Events]: ...

def walk(names: Iterable[_Path], recursive: bool = True) -> Iterator[tuple[_Path, OSError | None]]:
    """The files `parhash sum [-r] NAMES...` hashes, in its order."""

#: The first line of a side file `LIST.parhash-meta`.
META_HEADER: bytes

def meta_path(list: _Path) -> bytes:
    """The side file of the list at `list`: `LIST.parhash-meta`."""

def meta_record(name: bytes) -> bytes | None:
    """The side file's line for `name` from its metadata now (None if it cannot be had)."""

def parse_meta_record(line: bytes) -> tuple[bytes, tuple[int, int, int, int, int]] | None:
    """(name, (size, mtime_ns, ctime_ns, ino, dev)) of a side-file line, or None."""

class DurableFile:
    """A file written as `sum -o` writes its list: each write handed to the kernel at once,
    fsync every 5 s or 64 MiB and at `sync()`."""

    def __init__(self, path: _Path) -> None:
        """`path`, created empty (OSError with errno and filename if it cannot be; a device or
        a pipe is opened as it is). A regular file is locked while open: BlockingIOError if
        another run is writing it."""
    @staticmethod
    def continue_at(path: _Path, length: int) -> DurableFile:
        """The existing file at `path` cut to its first `length` bytes, written on from there."""
    @staticmethod
    def existing(path: _Path) -> DurableFile:
        """The existing file at `path`, locked and left as it is until `cut()`."""
    def cut(self, length: int) -> None:
        """Cuts the file to its first `length` bytes and writes on from there."""
    def write(self, data: bytes) -> None: ...
    def sync(self) -> None: ...
    def close(self) -> None:
        """Closes the file without syncing it (ValueError for a write after)."""
    @property
    def closed(self) -> bool: ...
    @property
    def path(self) -> bytes: ...
    def __enter__(self) -> Self: ...
    def __exit__(self, kind: object, value: object, traceback: object) -> None: ...

class ListLock:
    """An existing list locked while `--update` writes the new one beside it
    (BlockingIOError if another run is writing it)."""

    def __init__(self, path: _Path) -> None: ...
    def close(self) -> None:
        """Lets the list go (closing twice is allowed)."""

def list_target(path: _Path, flag: str | None = None) -> tuple[bytes, bool]:
    """What `sum -o PATH` writes to: (the file a link names, True), or (a device or a pipe as
    given, False). With `flag` ("--resume", "--update"), ValueError for a device or a pipe."""

def replace(source: _Path, target: _Path) -> None:
    """Renames `source` over `target` and syncs their directory."""

def temporary_path(path: _Path) -> bytes:
    """`PATH.tmp`, where `--update` writes before renaming over `PATH`."""

def own_files(list: _Path) -> list[bytes]:
    """The list, its `.tmp`, the side file's `.tmp` and the side file."""

class WithoutOwnFiles(Iterator[tuple[bytes, BaseException | None]]):
    """A walk without the files of the list at `list` (the same files, not namesakes)."""

    def __init__(self, walk: Iterable[tuple[bytes, BaseException | None]], list: _Path) -> None: ...
    def __iter__(self) -> WithoutOwnFiles: ...
    def __next__(self) -> tuple[bytes, BaseException | None]: ...

class SideFile:
    """A side file `LIST.parhash-meta` read in its list's order (the walk of `roots`)."""

    def __init__(self, path: _Path, roots: list[_Path]) -> None: ...
    def find(self, name: bytes) -> tuple[int, int, int, int, int] | None:
        """(size, mtime_ns, ctime_ns, ino, dev) recorded for the list's next entry, or None."""
    def take_if_next(self, name: bytes) -> tuple[int, int, int, int, int] | None:
        """The record of `name` if it is the next one, else None."""
    @property
    def taken_end(self) -> int:
        """The offset after the last record taken: where a resumed side file is cut."""

class ResumedList:
    """A list `sum -o` began, compared with a new walk one name at a time (`--resume`)."""

    def __init__(
        self,
        path: _Path,
        algorithm: str,
        *,
        tag: bool = False,
        binary: bool = False,
        zero: bool = False,
        json: bool = False,
        tree_params: tuple[int, int] | None = None,
    ) -> None: ...
    def step(self, name: bytes, error: BaseException | None = None) -> tuple[str, BaseException | None]:
        """("kept", None), ("gap", error) or ("resume", None) for the walk's next file."""
    def finish(self) -> tuple[int, int, list[str]]:
        """(list_len, meta_len, messages): where the list and side file are cut and continued."""

class ListUpdate:
    """`sum -o LIST --update`: the list merged with a walk, one file of the new list at a time."""

    def __init__(
        self,
        path: _Path,
        algorithm: str,
        roots: list[_Path],
        walk: Iterable[tuple[_Path, BaseException | None]],
        *,
        rehash_changed: bool = False,
        tag: bool = False,
        binary: bool = False,
        zero: bool = False,
        json: bool = False,
        tree_params: tuple[int, int] | None = None,
    ) -> None: ...
    @property
    def messages(self) -> list[str]: ...
    def __iter__(self) -> ListUpdate: ...
    def __next__(self) -> tuple[str, bytes, bytes | BaseException | None, bytes | None]:
        """("keep", name, record, meta_line) or ("hash", name, error or None, meta_line)."""
    def summary(self, list: _Path | None = None) -> str:
        """`LIST: updated: K kept, A added, D dropped, H hashed again` (`LIST`: `list` where
        given, a link to the list, else the list's path)."""

class Audit:
    """`parhash check --audit LIST`: the list read, the tree fed in, the CLI's report."""

    @staticmethod
    def read(
        list: bytes,
        *,
        paths: list[bytes] = ...,
        algorithm: str | None = None,
        zero: bool = False,
        warn: bool = False,
        quiet: bool = False,
        status: bool = False,
        strict: bool = False,
        json: bool = False,
        tree_height: int | None = None,
        iv_bits: int | None = None,
    ) -> tuple[Audit | None, _Events]: ...
    @property
    def algorithm(self) -> str: ...
    @property
    def tree_params(self) -> tuple[int, int] | None: ...
    @property
    def digest_size(self) -> int | None: ...
    @staticmethod
    def roots(paths: list[bytes]) -> list[bytes]:
        """The roots `check --audit` walks for a subset: those that exist, each once."""
    def wants(self, name: bytes) -> bool:
        """Whether a walked file is audited (the list itself is not)."""
    def found(self, name: bytes, result: bytes | BaseException) -> None: ...
    def finish(
        self, exists: Callable[[bytes], bool] | None = None
    ) -> tuple[bool, _Events, list[bytes], dict[str, int]]:
        """(passed, events, JSON records (verdicts, then groups), counts)."""
