"""Type stubs of parhash.store: a local tree checked against an S3 bucket/prefix (boto3)."""

from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

PROG: str
CHUNK: int
EXACT_RANGES: int
COARSE: int
SHOWN_RANGES: int
S3_MIN_PART: int
ADDITIONAL: tuple[tuple[str, str], ...]
STATUS_WORDS: dict[str, str]
LIST_FOLDERS: int
HASH_WINDOW: int

class StoreError(Exception): ...

@dataclass
class Expected:
    label: str
    form: str
    digest: bytes
    parts: int | None
    text: str

@dataclass
class Difference:
    """Where a downloaded object and its file differ: [start, end) ranges, and the parts."""

    first: int | None = None
    ranges: list[tuple[int, int]] = ...
    part_size: int | None = None
    part_count: int | None = None
    parts: list[int] = ...
    def record(self) -> dict[str, Any]: ...
    def text(self) -> str: ...

@dataclass
class Verdict:
    status: str
    name: str
    key: str | None = None
    algorithm: str | None = None
    expected: str | None = None
    actual: str | None = None
    part_size: int | None = None
    reason: str | None = None
    difference: Difference | None = None
    def record(self) -> dict[str, Any]: ...
    def line(self) -> str: ...

@dataclass
class Tally:
    counts: dict[str, int]
    def passed(self) -> bool: ...
    def summary(self) -> str: ...

def parse_url(url: str) -> tuple[str, str]: ...
def client(
    endpoint_url: str | None = None, profile: str | None = None, region: str | None = None, connections: int = 10
) -> Any: ...
def listing(
    s3: Any,
    bucket: str,
    prefix: str,
    start_after: str | None = None,
    ahead: int = 4,
    page_size: int | None = None,
    folders: int = ...,
) -> Iterator[dict[str, Any]]:
    """The objects under `prefix` in ListObjectsV2's key order, `folders` of its folders listed at once."""

def expected(s3: Any, bucket: str, key: str, head: dict[str, Any]) -> tuple[Expected | None, str]: ...
def checksum_type(s3: Any, bucket: str, key: str) -> str | None: ...
def head(s3: Any, bucket: str, key: str) -> dict[str, Any]: ...
def gone(err: BaseException) -> bool:
    """Whether `err` is the store saying the object is not there (404, NoSuchKey)."""

def walk(root: str, start_after: str | None = None) -> Iterator[tuple[str, str]]: ...
def merge(
    objects: Iterable[dict[str, Any]], files: Iterable[tuple[str, str]], prefix: str
) -> Iterator[tuple[dict[str, Any] | None, str | None, str | None]]: ...
def requests_for(exp: Expected, size: int, min_part: int = ...) -> list[tuple[str, int | None]]: ...
def download_difference(s3: Any, bucket: str, key: str, path: str) -> Difference:
    """Where the object's bytes (streamed) and the file differ."""

def check(
    s3: Any,
    bucket: str,
    obj: dict[str, Any],
    name: str,
    path: str,
    download: bool = False,
    min_part: int = ...,
    ask: Callable[[str], tuple[Expected | None, str]] | None = None,
) -> Verdict: ...
def _downloaded(s3: Any, bucket: str, verdict: Verdict, path: str) -> Verdict: ...
def _ordered(pool: ThreadPoolExecutor, jobs: Iterable[Callable[[], Any]], window: int) -> Iterator[Any]: ...
def _prepare(
    pool: ThreadPoolExecutor,
    hasher: ThreadPoolExecutor,
    window: list[Any],
    checked: Callable[[dict[str, Any], str, str], Verdict],
    min_part: int,
) -> list[Any]: ...
def _hashed(
    pool: ThreadPoolExecutor,
    batch: list[Any],
    checked: Callable[[dict[str, Any], str, str], Verdict],
    min_part: int,
) -> list[Any]: ...
def _listed_etag(obj: dict[str, Any], path: str, min_part: int) -> tuple[Expected, list[Any]] | None: ...
def verify(
    s3: Any,
    local: str,
    bucket: str,
    prefix: str,
    *,
    threads: int = 16,
    start_after: str | None = None,
    page_size: int | None = None,
    download_mismatches: bool = False,
    min_part_size: int = ...,
    list_folders: int = ...,
) -> Iterator[Verdict]: ...
def store_line(exp: Expected, name: str) -> bytes: ...
def store_record(
    obj: dict[str, Any], name: str, head_: dict[str, Any], exp: Expected | None, why: str
) -> dict[str, Any]: ...
def store_checksums(
    s3: Any, bucket: str, prefix: str, *, threads: int = 16, page_size: int | None = None, list_folders: int = ...
) -> Iterator[tuple[dict[str, Any], str, dict[str, Any], Expected | None, str]]: ...
def describe(err: BaseException) -> str: ...
def main(
    argv: Sequence[str] | None = None, *, prog: str = ..., verifier: Callable[..., Iterator[Verdict]] = ...
) -> int: ...
def entry_point() -> None: ...
