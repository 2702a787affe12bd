"""Type stubs of parhash.format: the checksum-list format of `parhash sum` and `parhash check`."""

from collections.abc import Iterable, Iterator, Mapping
from os import PathLike
from typing import Union, overload

_Path = Union[str, bytes, PathLike[str], PathLike[bytes]]
#: What a session asks to print: (True, bytes) for standard output, (False, str) for a message.
_Events = list[tuple[bool, Union[bytes, str]]]

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

def infer_algorithm(size: int) -> str | None:
    """The algorithm a tagless line with a `size`-byte digest is checked with."""

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
    def report(self, step: Step, result: bytes | BaseException | None = None) -> _Events: ...

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
