"""``parhash-store``: a local tree checked against an S3 bucket and prefix without downloading
an object, and the store's checksums written as a checksum list.

The store's side is boto3 (the ``s3`` extra: credentials, region, profiles and endpoint as
the AWS tools find them, retries by botocore); the local side is hashed by the extension,
each file read once for every form its object may have (``parhash.multipart_file``; files
whose listed ETag is their MD5 many at a time, ``parhash.hash_files``). The
listing (ListObjectsV2, the prefix's folders listed at once, pages fetched ahead in threads)
and a walk of the tree in the same key order are merged one entry at a time, so memory does
not grow with the bucket; objects with a local file are asked for their checksums (HeadObject
with checksum mode, and GetObjectAttributes only where a multipart CRC's type is not said) and
checked on a pool of threads while the listing goes on. docs/object-stores.md is the guide.

Exit status as ``parhash check``'s: 0 when every object and file matched, 1 when anything
else was found, 2 for a usage error or a run that could not finish (no bucket, credentials
refused, no objects under the prefix, the network gone: the message says how far it got).
"""

from __future__ import annotations

import argparse
import datetime
import email.utils
import itertools
import json
import os
import queue
import sys
import threading
import time
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Optional, Sequence, Tuple

from . import _parhash

PROG = "parhash-store"

#: --download-mismatches reads the object and the file this many bytes at a time.
CHUNK: int = _parhash.store_chunk

#: Differing ranges found to the byte; past that many, to COARSE bytes (a file that differs
#: everywhere is not compared byte by byte).
EXACT_RANGES: int = _parhash.store_exact_ranges
COARSE: int = _parhash.store_coarse

#: Ranges named in a verdict's line (--json has them all).
SHOWN_RANGES: int = _parhash.store_shown_ranges

#: S3 accepts parts of 5 MiB and more (all but the last): smaller candidates are not tried.
S3_MIN_PART = 5 << 20

#: The store's additional checksums (HeadObject's fields), strongest first, with parhash's
#: name for each: the first one an object has is the one checked (the rules themselves, which
#: ``parhash store verify`` shares, are the extension's: ``parhash_store::rules``).
ADDITIONAL: Tuple[Tuple[str, str], ...] = tuple(_parhash.store_checksum_fields)

#: Folders of the prefix listed at once (``listing``'s ``folders``).
LIST_FOLDERS = 8

#: A first listing page that takes this many seconds or more has the rest of the listing done
#: folder by folder, ``LIST_FOLDERS`` at once (``listing``'s ``slow_page``). A store nearby
#: answers a page of 1,000 keys in a few hundredths of a second; across a network, S3 takes
#: tenths: that is the wait that listing folders at once overlaps.
SLOW_PAGE = 0.08

#: Entries of the merge :func:`verify` takes at a time: their files whose listed ETag is an
#: MD5 are hashed together, enough to keep the extension's threads busy, few enough that the
#: first verdicts come soon and memory stays flat.
HASH_WINDOW = 1024

#: Windows :func:`verify` hashes at once: while the extension hashes one window's files (on
#: every core, the GIL released), the next window's ETags are read and its verdicts given in
#: Python (10,000 objects: 0.66 s against 0.70 s one window at a time).
HASHERS = 2

STATUS_WORDS = {
    "matched": "OK",
    "changed": "CHANGED",
    "missing": "MISSING",
    "new": "NEW",
    "unverifiable": "UNVERIFIABLE",
    "unreadable": "FAILED open or read",
}


class StoreError(Exception):
    """A run that cannot go on: the message says why (and how far it got, where it started)."""


@dataclass
class Expected:
    """The checksum of one object that is checked: ``form`` is "etag" or an algorithm, ``parts``
    None for a digest of the whole object, else the part count of a multipart form."""

    label: str
    form: str
    digest: bytes
    parts: Optional[int]
    text: str


@dataclass
class Difference:
    """Where a downloaded object's bytes and its local file differ: byte ranges ``[start,
    end)`` (exact for the first :data:`EXACT_RANGES`, then to :data:`COARSE` bytes), and for a
    multipart object the numbers of the parts they fall in, with its part size."""

    first: Optional[int] = None
    ranges: list[Tuple[int, int]] = field(default_factory=list)
    part_size: Optional[int] = None
    part_count: Optional[int] = None
    parts: list[int] = field(default_factory=list)

    def record(self) -> dict[str, Any]:
        return {"first": self.first, "ranges": [list(r) for r in self.ranges],
                "part_size": self.part_size, "part_count": self.part_count, "parts": self.parts}  # fmt: skip

    def text(self) -> str:
        return _parhash.store_difference_text((self.first, self.ranges, self.part_size, self.part_count, self.parts))


@dataclass
class Verdict:
    """What became of one object or file (``key`` None for a new file)."""

    status: str
    name: str
    key: Optional[str] = None
    algorithm: Optional[str] = None
    expected: Optional[str] = None
    actual: Optional[str] = None
    part_size: Optional[int] = None
    reason: Optional[str] = None
    #: What a download of a changed object found (``--download-mismatches``).
    difference: Optional[Difference] = None

    def record(self) -> dict[str, Any]:
        found = self.difference
        return {"type": "store", "status": self.status, "path": self.name, "key": self.key,
                "algorithm": self.algorithm, "expected": self.expected, "actual": self.actual,
                "part_size": self.part_size, "reason": self.reason,
                "difference": found.record() if found else None}  # fmt: skip

    def line(self) -> str:
        word = STATUS_WORDS[self.status]
        if self.reason and self.status in ("changed", "new", "unverifiable", "unreadable"):
            return f"{self.name}: {word} ({self.reason})"
        return f"{self.name}: {word}"


@dataclass
class Tally:
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(STATUS_WORDS, 0))

    def passed(self) -> bool:
        return all(n == 0 for status, n in self.counts.items() if status != "matched")

    def summary(self) -> str:
        return ", ".join(f"{n} {status}" for status, n in self.counts.items())


def parse_url(url: str) -> Tuple[str, str]:
    """(bucket, prefix) of ``s3://bucket/prefix``; the prefix, when given, names a folder."""
    if not url.startswith("s3://"):
        raise StoreError(f"{url}: not an s3://bucket/prefix URL")
    bucket, _, prefix = url[len("s3://") :].partition("/")
    if not bucket:
        raise StoreError(f"{url}: no bucket named")
    if prefix and not prefix.endswith("/"):
        prefix += "/"
    return bucket, prefix


def _order(name: str) -> bytes:
    """The order S3 lists keys in: their UTF-8 bytes (names that are not UTF-8 as the OS gave
    them)."""
    return name.encode("utf-8", "surrogateescape")


# The store's side.


def client(endpoint_url: Optional[str] = None, profile: Optional[str] = None,
           region: Optional[str] = None, connections: int = 10) -> Any:  # fmt: skip
    """An S3 client as the AWS tools make one (environment, ``~/.aws/config`` and
    ``credentials``, ``profile``), for ``connections`` threads at once."""
    # botocore's own session and client, which boto3's wrap: importing boto3 would add its
    # transfer manager (a tenth of a second of a verification of 10,000 objects) for nothing.
    try:
        import botocore.config
        import botocore.exceptions
        import botocore.session
    except ImportError as err:
        raise StoreError(f"boto3 is needed: pip install 'parhash[s3]' ({err})") from err
    core = botocore.session.Session(profile=profile)
    # botocore reads a listing page through its shape-driven XML parser, 15 us a key against
    # 6 for ElementTree and a table, and 2 for the extension, mostly without the interpreter's
    # lock (1,000 keys a page): ListObjectsV2's pages are read by `_listing_page` (the same
    # dict, tested against botocore's); everything else (signing, retries, errors, the
    # URL-decoding of keys) stays the SDK's.
    parsers = _parsers()
    # botocore reads every LastModified with dateutil, which costs more than the rest of the
    # key's parsing; none is used here, and ISO 8601 is read by the standard library.
    parsers.set_parser_defaults(timestamp_parser=_timestamp)
    core.register_component("response_parser_factory", parsers)
    config = botocore.config.Config(max_pool_connections=connections)
    try:
        s3 = core.create_client("s3", endpoint_url=endpoint_url, region_name=region, config=config)
    except (botocore.exceptions.ProfileNotFound, botocore.exceptions.ConfigParseError) as err:
        raise StoreError(str(err)) from err
    _one_parse_a_page(s3)
    return s3


#: Where a listing page's parsed XML waits between the check of the answer and its reading.
_PARSED = "parhash_parsed"


def _one_parse_a_page(s3: Any) -> None:
    """Has ``s3`` read each ListObjectsV2 page once. botocore parses every S3 answer of 200
    to see whether it is an error in disguise (S3 may answer 200 with ``<Error>``; a page cut
    short is retried as a 500), then parses it again to read it: a third of the listing's time.
    Here that check, its rule unchanged, keeps the page read by :func:`_listing_page` for the
    parser; a page the extension cannot read, and every other operation, keeps botocore's own
    check (and all of them do where botocore has none by that name)."""
    import botocore.handlers

    check = getattr(botocore.handlers, "_handle_200_error", None)
    if check is None:
        return

    def check_once(operation_model: Any, response_dict: Optional[dict] = None, **kwargs: Any) -> None:
        if operation_model.name != "ListObjectsV2" or not response_dict or response_dict.get("status_code") != 200:
            check(operation_model, response_dict, **kwargs)
            return
        try:
            tag, page = _parhash.listing_page(response_dict["body"], _timestamp)
        except ValueError:
            check(operation_model, response_dict, **kwargs)
            return
        if tag == "Error":
            response_dict["status_code"] = 500
            return
        response_dict[_PARSED] = page

    s3.meta.events.unregister("before-parse.s3.*", check)
    s3.meta.events.register_first("before-parse.s3.*", check_once)


def _parsers() -> Any:
    """botocore's response parsers, with ListObjectsV2's pages read by :func:`_listing_page`."""
    import botocore.parsers

    class ListingParser(botocore.parsers.RestXMLParser):  # type: ignore[misc]
        def _parse_payload(self, response: dict, shape: Any, member_shapes: Any, final_parsed: dict) -> None:
            if getattr(shape, "name", None) == "ListObjectsV2Output" and response.get("body"):
                if _PARSED in response:
                    page = response.pop(_PARSED)
                else:
                    page = _listing_page(response["body"], self._timestamp_parser)
                if page is not None:
                    final_parsed.update(page)
                    return
            super()._parse_payload(response, shape, member_shapes, final_parsed)

    class Parsers(botocore.parsers.ResponseParserFactory):  # type: ignore[misc]
        def create_parser(self, protocol_name: str) -> Any:
            if protocol_name == "rest-xml":
                return ListingParser(**self._defaults)
            return super().create_parser(protocol_name)

    return Parsers()


def _listing_page(body: bytes, timestamp: Callable[[str], Any]) -> Optional[dict]:
    """A ListObjectsV2 page as botocore's parser gives it (its model's names, integers,
    booleans, dates, lists and structures), read by the extension (``listing_page``, without
    the interpreter's lock); None for a page holding an element outside that model, or one the
    extension cannot read (botocore then reads it)."""
    try:
        return _parhash.listing_page(body, timestamp)[1]
    except ValueError:
        return None


def _timestamp(text: str) -> Any:
    """A response's date: ListObjectsV2's ISO 8601 and HeadObject's HTTP date (RFC 7231, in
    UTC) by the standard library, others by botocore (dateutil, which took a tenth of a
    HeadObject's time in the interpreter)."""
    # Only a zoned result: Python 3.11's reader also takes digits alone ("88250428800", an
    # epoch to botocore) as a basic-format date without a zone.
    try:
        date = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (ValueError, TypeError, AttributeError):
        date = None
    if date is not None and date.tzinfo is not None:
        return date
    try:
        date = email.utils.parsedate_to_datetime(text)
    except (ValueError, TypeError, IndexError):
        date = None
    if date is not None and date.tzinfo is not None:
        return date
    from botocore.utils import parse_timestamp

    return parse_timestamp(text)


def listing(s3: Any, bucket: str, prefix: str, start_after: Optional[str] = None,
            ahead: int = 4, page_size: Optional[int] = None,
            folders: int = LIST_FOLDERS, slow_page: Optional[float] = None) -> Iterator[dict]:  # fmt: skip
    """The objects under ``prefix`` in key order (folder markers left out), pages fetched up to
    ``ahead`` ahead while the caller works on the ones before.

    With ``folders`` > 1, where the first page took ``slow_page`` seconds (default
    ``SLOW_PAGE``) or more (0: from the start), the rest of the prefix's level is listed with
    the delimiter ``/`` and up to ``folders`` of its folders are listed at once, each on its own
    thread, their keys handed on in the order one ListObjectsV2 of the prefix gives them (a
    level holding one folder alone is descended into). A store answers one request per folder
    then, not one per 1,000 keys in a row: the listing no longer waits on one page after the
    other. Where pages come fast (a store nearby), each request costs more of the client's time
    than its wait, and one listing, fewer requests, is faster."""
    after = prefix + start_after if start_after else None
    slow_page = SLOW_PAGE if slow_page is None else slow_page
    if folders > 1 and slow_page > 0:
        pages = _pages(s3, bucket, prefix, after, page_size)
        began = time.monotonic()
        first = next(pages, None)
        slow = time.monotonic() - began >= slow_page
        if first is None:
            return
        contents = first.get("Contents", [])
        rest: Optional[_Ahead] = None
        tail: Iterator[dict] = iter(())
        if first.get("IsTruncated") and contents and slow:
            # The folders after the first page's last key, their listing started now (on a
            # thread of its own, in runs of keys) while the first page is handed on.
            last = contents[-1]["Key"][len(prefix) :]
            rest = _Ahead(lambda: _runs(listing(s3, bucket, prefix, last, ahead, page_size, folders, 0)), ahead)
            tail = (obj for run in rest for obj in run)
        elif first.get("IsTruncated"):
            rest = _Ahead(lambda: pages, ahead)
            tail = _keys(rest)
        try:
            yield from _keys([first])
            yield from tail
        finally:
            if rest is not None:
                rest.close()
        return
    if folders <= 1:
        pages = _Ahead(lambda: _pages(s3, bucket, prefix, after, page_size), ahead)
        try:
            yield from _keys(pages)
        finally:
            pages.close()
        return
    units = _Ahead(lambda: _level(s3, bucket, prefix, after, page_size), 2 * folders)
    window: deque = deque()
    started = 0
    try:
        while True:
            # Keep up to `folders` folders listing ahead of the one handed on.
            while started < folders and len(window) < 2 * folders and (not window or units.ready()):
                unit = next(units, None)
                if unit is None:
                    break
                kind, value, start = unit
                if kind == "folder":
                    window.append(_Ahead(lambda f=value, s=start: _pages(s3, bucket, f, s, page_size), ahead))
                    started += 1
                else:
                    window.append(value)
            if not window:
                return
            unit = window.popleft()
            if isinstance(unit, _Ahead):
                started -= 1
                try:
                    yield from _keys(unit)
                finally:
                    unit.close()
            else:
                yield from unit
    finally:
        units.close()
        for unit in window:
            if isinstance(unit, _Ahead):
                unit.close()


def _pages(s3: Any, bucket: str, prefix: str, start_after: Optional[str], page_size: Optional[int],
           delimiter: Optional[str] = None) -> Iterator[dict]:  # fmt: skip
    """The ListObjectsV2 pages of ``prefix`` (after the key ``start_after``)."""
    arguments: dict[str, Any] = {"Bucket": bucket, "Prefix": prefix}
    if start_after:
        arguments["StartAfter"] = start_after
    if delimiter:
        arguments["Delimiter"] = delimiter
    if page_size:
        arguments["PaginationConfig"] = {"PageSize": page_size}
    return iter(s3.get_paginator("list_objects_v2").paginate(**arguments))


def _runs(objects: Iterator[dict], run: int = 1000) -> Iterator[list]:
    """``objects`` in lists of up to ``run``: one hand-over between threads per run, not per key."""
    while True:
        chunk = list(itertools.islice(objects, run))
        if not chunk:
            return
        yield chunk


def _keys(pages: Iterable[dict]) -> Iterator[dict]:
    for page in pages:
        for obj in page.get("Contents", []):
            if not obj["Key"].endswith("/"):
                yield obj


def _level(s3: Any, bucket: str, prefix: str, after: Optional[str], page_size: Optional[int]
           ) -> Iterator[Tuple[str, Any, Optional[str]]]:  # fmt: skip
    """The level below ``prefix`` in key order, as ("keys", [object, ...], None) and ("folder",
    folder prefix, the key to start after in it) units: what follows the key ``after`` (None:
    everything). A level that is one folder alone is replaced by the level below it."""
    start = None
    if after is not None:
        # The level's entry holding `after` (its first name, a folder of it or itself) is
        # listed from its start: StartAfter past a folder's name would leave the folder out.
        start = prefix + after[len(prefix) :].split("/", 1)[0]
    pages = _pages(s3, bucket, prefix, start, page_size, "/")
    first = next(pages, {})
    found = first.get("CommonPrefixes", [])
    if len(found) == 1 and not first.get("Contents") and not first.get("IsTruncated"):
        folder = found[0]["Prefix"]
        if after is None or _order(folder) > _order(after) or after.startswith(folder):
            yield from _level(s3, bucket, folder, after, page_size)
        return
    for page in itertools.chain([first], pages):
        entries = [(obj["Key"], obj) for obj in page.get("Contents", [])]
        entries += [(p["Prefix"], None) for p in page.get("CommonPrefixes", [])]
        entries.sort(key=lambda entry: _order(entry[0]))
        keys: list = []
        for name, obj in entries:
            if obj is not None:
                if after is None or _order(name) > _order(after):
                    keys.append(obj)
                continue
            if after is not None and not (_order(name) > _order(after) or after.startswith(name)):
                continue  # every key in it comes before `after`
            if keys:
                yield "keys", keys, None
                keys = []
            yield "folder", name, after if after is not None and after.startswith(name) else None
        if keys:
            yield "keys", keys, None


class _Ahead:
    """The items of ``produce()``, made in a thread of their own up to ``ahead`` before the
    consumer takes them; the producer's exception is raised to the consumer, and close() stops
    the producer (it is a daemon: a run that stops early does not wait on it)."""

    def __init__(self, produce: Callable[[], Iterable[Any]], ahead: int):
        self.items: queue.Queue = queue.Queue(maxsize=max(ahead, 1))
        self.stop = threading.Event()
        self.finished = False
        self.thread = threading.Thread(target=self._run, args=(produce,), name="parhash-store listing", daemon=True)
        self.thread.start()

    def _run(self, produce: Callable[[], Iterable[Any]]) -> None:
        try:
            for item in produce():
                if not self._put(("item", item)):
                    return
            self._put(("end", None))
        except BaseException as err:  # handed to the consumer, which raises it
            self._put(("error", err))

    def _put(self, item: Any) -> bool:
        while not self.stop.is_set():
            try:
                self.items.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def __iter__(self) -> "_Ahead":
        return self

    def __next__(self) -> Any:
        if self.finished:
            raise StopIteration
        kind, value = self.items.get()
        if kind == "item":
            return value
        self.finished = True
        self.stop.set()
        if kind == "error":
            raise value
        raise StopIteration

    def ready(self) -> bool:
        """Whether next() would not wait."""
        return self.finished or not self.items.empty()

    def close(self) -> None:
        self.stop.set()


def expected(s3: Any, bucket: str, key: str, head: dict) -> Tuple[Optional[Expected], str]:
    """The strongest checksum of an object parhash can reproduce, from its HeadObject (with
    checksum mode), or None and why not; GetObjectAttributes is asked where HeadObject does
    not say whether a multipart CRC is composite or full-object."""
    etag, checksums, kind, _, _ = _facts(head)
    if _parhash.store_needs_checksum_type(etag, checksums, kind):
        # Kept in ``head`` (the object's record names the type that decided).
        head["ChecksumType"] = checksum_type(s3, bucket, key)
    found = _parhash.store_expected(*_facts(head))
    if isinstance(found, str):
        return None, found
    return Expected(*found), ""


def _facts(head: dict) -> Tuple[str, dict[str, str], Optional[str], Optional[str], Optional[str]]:
    """What the rules read of a HeadObject answer: (ETag, {algorithm: value}, checksum type,
    SSE, SSE-C's algorithm), as ``_parhash.store_expected`` and ``store_object_record`` take it."""
    checksums = {algorithm: head[name] for name, algorithm in ADDITIONAL if head.get(name)}
    sse = head.get("ServerSideEncryption")
    return (head.get("ETag", ""), checksums, head.get("ChecksumType"), str(sse) if sse else None,
            head.get("SSECustomerAlgorithm"))  # fmt: skip


def checksum_type(s3: Any, bucket: str, key: str) -> Optional[str]:
    """COMPOSITE or FULL_OBJECT, as GetObjectAttributes says."""
    attributes = s3.get_object_attributes(Bucket=bucket, Key=key, ObjectAttributes=["Checksum"])
    return attributes.get("Checksum", {}).get("ChecksumType")


def head(s3: Any, bucket: str, key: str) -> dict:
    return s3.head_object(Bucket=bucket, Key=key, ChecksumMode="ENABLED")


def gone(err: BaseException) -> bool:
    """Whether ``err`` is the store saying the object is not there (HeadObject's bare 404,
    GetObject's and GetObjectAttributes' NoSuchKey): one deleted after the listing."""
    response = getattr(err, "response", None)
    if not isinstance(response, dict):
        return False
    return response.get("Error", {}).get("Code") in ("404", "NoSuchKey")


# The local side.


def walk(root: str, start_after: Optional[str] = None) -> Iterator[Tuple[str, str]]:
    """(name, path) of every file below ``root``, names relative with ``/``, in the order S3
    lists keys (each folder's entries sorted as ``name/`` for a folder, ``name`` for a file,
    so a folder's files come where their keys do; ``_parhash.walk_keys``). Links to folders
    are not followed; links to files are files."""
    if not os.path.isdir(root):
        raise StoreError(f"{root}: not a folder")

    def files() -> Iterator[Tuple[str, str]]:
        try:
            yield from _parhash.walk_keys(root, start_after)
        except OSError as err:
            raise StoreError(f"{err.filename}: {err.strerror or err}") from err

    return files()


def merge(objects: Iterable[dict], files: Iterable[Tuple[str, str]], prefix: str
          ) -> Iterator[Tuple[Optional[dict], Optional[str], Optional[str]]]:  # fmt: skip
    """(object, name, path) in key order: both for a file with its object, ``path`` None for a
    missing file, ``object`` None for a new one."""
    objects = iter(objects)
    files = iter(files)
    obj = next(objects, None)
    item = next(files, None)
    while obj is not None or item is not None:
        name = obj["Key"][len(prefix) :] if obj is not None else None
        if item is None or (name is not None and _order(name) < _order(item[0])):
            yield obj, name, None
            obj = next(objects, None)
        elif name is None or _order(item[0]) < _order(name):
            yield None, item[0], item[1]
            item = next(files, None)
        else:
            yield obj, name, item[1]
            obj, item = next(objects, None), next(files, None)


def requests_for(exp: Expected, size: int, min_part: int = S3_MIN_PART) -> list[Tuple[str, Optional[int]]]:
    """What ``multipart_file`` computes for ``exp``: the whole digest, or the form for every
    part size that gives the object its part count (a one-part upload: any size covers it)."""
    return _parhash.store_requests(_fields(exp), size, min_part)


def _fields(exp: Expected) -> Tuple[str, str, bytes, Optional[int], str]:
    return (exp.label, exp.form, exp.digest, exp.parts, exp.text)


def download_difference(s3: Any, bucket: str, key: str, path: str) -> Difference:
    """Where the object's bytes and the file differ, the object streamed :data:`CHUNK` bytes at
    a time beside the file (never held whole); for a multipart object, in which parts (its
    part size from HeadObject of part 1, read in pieces that never cross a part's end). The
    comparison is ``parhash_store::difference``'s, as the binary's."""
    try:
        top = s3.head_object(Bucket=bucket, Key=key, PartNumber=1)
    except Exception as err:  # a store without part-numbered requests: no parts named
        if gone(err):
            raise
        top = {}
    count = top.get("PartsCount") or 0
    parts = (top["ContentLength"], count) if count > 1 else None
    with s3.get_object(Bucket=bucket, Key=key)["Body"] as body:
        first, ranges, part_size, part_count, numbers = _parhash.store_difference(body, path, parts)
    return Difference(first, list(ranges), part_size, part_count, list(numbers))


def _downloaded(s3: Any, bucket: str, verdict: Verdict, path: str) -> Verdict:
    """``verdict`` (changed) with what a download of its object found, in its reason too."""
    try:
        verdict.difference = download_difference(s3, bucket, verdict.key, path)
        said = verdict.difference.text()
    except OSError as err:
        said = f"not downloaded: {err.strerror or err}"
    except Exception as err:
        if not gone(err):
            raise
        said = "not downloaded: the object was deleted meanwhile"
    verdict.reason = f"{verdict.reason}; {said}" if verdict.reason else said
    return verdict


def check(s3: Any, bucket: str, obj: dict, name: str, path: str, download: bool = False,
          min_part: int = S3_MIN_PART, ask: Optional[Callable[[str], Tuple[Optional[Expected], str]]] = None
          ) -> Verdict:  # fmt: skip
    """One object against its local file: sizes first, then its strongest checksum (multipart
    forms tried with the part sizes of ``min_part`` and more); with ``download``, a changed
    object's bytes compared with the file's. ``ask(key)``, where given, stands for HeadObject
    and :func:`expected` (parhash-dist's workers: the driver asks the store)."""
    verdict = _check(s3, bucket, obj, name, path, min_part, ask)
    if download and verdict.status == "changed":
        return _downloaded(s3, bucket, verdict, path)
    return verdict


def _check(s3: Any, bucket: str, obj: dict, name: str, path: str, min_part: int,
           ask: Optional[Callable[[str], Tuple[Optional[Expected], str]]] = None) -> Verdict:  # fmt: skip
    key = obj["Key"]
    try:
        size = os.stat(path).st_size
    except OSError as err:
        return Verdict("unreadable", name, key, reason=err.strerror or str(err))
    if size != obj["Size"]:
        return Verdict("changed", name, key, reason=f"{size} bytes here, {obj['Size']} in the store")
    listed = None
    if not obj.get("ChecksumAlgorithm"):
        # The listing names no additional checksum, so its ETag is the strongest one, and a
        # match needs no HeadObject: an ETag that is no MD5 of the content (SSE's) cannot match.
        # Anything else is asked of HeadObject below, which says why.
        listed, _ = expected(s3, bucket, key, {"ETag": obj.get("ETag", "")})
        if listed is not None:
            verdict = _compare(listed, name, key, path, size, min_part)
            if verdict.status == "matched":
                return verdict
    try:
        exp, why = ask(key) if ask else expected(s3, bucket, key, head(s3, bucket, key))
    except Exception as err:
        if not gone(err):
            raise
        # Deleted since it was listed: the file has no object any more.
        return Verdict("new", name, reason="its object was deleted after the listing")
    if exp is None:
        return Verdict("unverifiable", name, key, reason=why)
    if exp == listed:
        return verdict
    return _compare(exp, name, key, path, size, min_part)


def _compare(exp: Expected, name: str, key: str, path: str, size: int, min_part: int) -> Verdict:
    """The file at ``path`` (``size`` bytes) against the checksum ``exp``: one read for every
    part size that may have made it."""
    wanted = requests_for(exp, size, min_part)
    results: list = []
    if wanted:
        try:
            results = _parhash.multipart_file(path, wanted)
        except OSError as err:
            return Verdict("unreadable", name, key, exp.label, exp.text, reason=err.strerror or str(err))
    return _verdict(exp, name, key, size, min_part, results)


def _verdict(exp: Expected, name: str, key: str, size: int, min_part: int, results: list) -> Verdict:
    """Matched where any of ``results`` (``multipart_file``'s for :func:`requests_for`'s
    requests) is the store's checksum, else changed (also where no part size gives the
    object's part count: no results)."""
    status, actual, part_size, reason = _parhash.store_verdict(_fields(exp), size, min_part, results)
    return Verdict(status, name, key, exp.label, exp.text, actual, part_size, reason)


def _ordered(pool: ThreadPoolExecutor, jobs: Iterable[Callable[[], Any]], window: int) -> Iterator[Any]:
    """Each job's result in the order given, up to ``window`` running at once on ``pool``."""
    running: deque = deque()
    for job in jobs:
        running.append(pool.submit(job))
        while running and (len(running) >= window or running[0].done()):
            yield running.popleft().result()
    while running:
        yield running.popleft().result()


def verify(s3: Any, local: str, bucket: str, prefix: str, *, threads: int = 16,
           start_after: Optional[str] = None, page_size: Optional[int] = None,
           download_mismatches: bool = False, min_part_size: int = S3_MIN_PART,
           list_folders: int = LIST_FOLDERS) -> Iterator[Verdict]:  # fmt: skip
    """Every object under ``prefix`` and every file below ``local``, one :class:`Verdict`
    each, in key order; a failure of the store raises (botocore's exceptions). No object's
    bytes are read unless ``download_mismatches``: then each changed one's are (streamed), to
    say where it differs.

    The merge is taken :data:`HASH_WINDOW` entries at a time: the files whose listed ETag may
    be theirs (an MD5, or an MD5 of parts) are hashed together (``multipart_files``, many files
    at once on the extension's threads) while the next windows are merged (:data:`HASHERS` at
    once), the other objects checked on a pool of ``threads`` threads meanwhile; a window's
    verdicts are handed on in order."""
    objects = listing(s3, bucket, prefix, start_after, page_size=page_size, folders=list_folders)
    pairs = merge(objects, walk(local, start_after), prefix)

    def checked(obj: dict, name: str, path: str) -> Verdict:
        return check(s3, bucket, obj, name, path, download_mismatches, min_part_size)

    pool = ThreadPoolExecutor(threads, thread_name_prefix="parhash-store")
    hasher = ThreadPoolExecutor(HASHERS, thread_name_prefix="parhash-store-hash")
    try:
        prepared: deque = deque()
        failure: Optional[BaseException] = None
        while failure is None:
            window = []
            try:
                window.extend(itertools.islice(pairs, HASH_WINDOW))
            except Exception as err:  # the listing's, the walk's: raised after what came before
                failure = err
            if window:
                prepared.append(_prepare(pool, hasher, window, checked, min_part_size))
            while len(prepared) > HASHERS or (prepared and len(window) < HASH_WINDOW):
                for slot in prepared.popleft():
                    if isinstance(slot, tuple):
                        batch, at = slot
                        slot = batch.result()[at]
                    yield slot.result() if isinstance(slot, Future) else slot
            if len(window) < HASH_WINDOW:
                break
        if failure is not None:
            raise failure
    finally:
        hasher.shutdown(wait=True, cancel_futures=True)
        pool.shutdown(wait=True, cancel_futures=True)


def _prepare(pool: ThreadPoolExecutor, hasher: ThreadPoolExecutor, window: list,
             checked: Callable[[dict, str, str], Verdict], min_part: int) -> list:  # fmt: skip
    """The verdicts of a window of the merge in order: each a :class:`Verdict`, a future of
    one, or ``(batch, i)``, the ``i``-th of the list that the future ``batch`` gives. Every file
    with its object goes to one batch, taken on ``hasher`` (:func:`_hashed`) so that the caller
    merges the next window while it is hashed."""
    batch = [(obj, name, path) for obj, name, path in window if obj is not None and path is not None]
    done = hasher.submit(_hashed, pool, batch, checked, min_part) if batch else None
    in_batch = itertools.count()
    slots: list = []
    for obj, name, path in window:
        if path is None:
            slots.append(Verdict("missing", name, obj["Key"]))
        elif obj is None:
            slots.append(Verdict("new", name))
        else:
            slots.append((done, next(in_batch)))
    return slots


def _hashed(pool: ThreadPoolExecutor, batch: list, checked: Callable[[dict, str, str], Verdict],
            min_part: int) -> list:  # fmt: skip
    """The verdicts of ``batch`` ((object, name, path) each), in order, each a
    :class:`Verdict` or a future of one: a file whose object's listed ETag may be its own
    (:func:`_listed_etag`) is hashed here with the others (``multipart_files``: every part size
    that may have made it, many files at once), and only a mismatch or an error is checked
    (:func:`check`) on ``pool``, from the start: its verdict is the one ``check`` gives. The
    others are checked on ``pool`` at once."""
    slots: list = []
    sums = []
    for obj, name, path in batch:
        listed = _listed_etag(obj, min_part)
        if listed is None:
            slots.append(pool.submit(checked, obj, name, path))
        else:
            sums.append((len(slots), obj, name, path, *listed))
            slots.append(None)
    # The object's size goes with each file: the extension reads only a file of that size (a
    # `stat` here, one per file, would wait on the interpreter's lock each time).
    answers = _parhash.multipart_files([(path, wanted, obj["Size"]) for _, obj, _, path, _, wanted in sums])
    for (at, obj, name, path, exp, _), results in zip(sums, answers):
        verdict = None
        if not isinstance(results, BaseException):
            verdict = _verdict(exp, name, obj["Key"], obj["Size"], min_part, results)
        if verdict is not None and verdict.status == "matched":
            slots[at] = verdict
        else:
            slots[at] = pool.submit(checked, obj, name, path)
    return slots


def _listed_etag(obj: dict, min_part: int) -> Optional[Tuple[Expected, list]]:
    """The listed ETag of ``obj`` where :func:`check` would compare a file of the object's
    size with it first, and what to compute for it (:func:`requests_for`): no additional
    checksum listed, an ETag of an MD5 form, a part size that gives its parts. Else None."""
    if obj.get("ChecksumAlgorithm"):
        return None
    exp, _ = expected(None, "", obj["Key"], {"ETag": obj.get("ETag", "")})
    if exp is None:
        return None
    wanted = requests_for(exp, obj["Size"], min_part)
    return (exp, wanted) if wanted else None


# The list of the store's checksums.


def store_line(exp: Expected, name: str) -> bytes:
    """The checksum line of an object: ``CRC64NVME (NAME) = BASE64``, ``SHA256-COMPOSITE (NAME)
    = BASE64-N``, ``ETAG (NAME) = HEX[-N]``, the name escaped as ``parhash sum`` escapes it."""
    return _parhash.store_line(_fields(exp), name)


def store_record(obj: dict, name: str, head_: dict, exp: Optional[Expected], why: str) -> dict:
    """The JSON record of an object (``"type": "store_object"``): every checksum HeadObject
    gave, and the one checked (``exp``, or ``why`` there is none, which the rules decide again
    from the same answer)."""
    return json.loads(_parhash.store_object_record(obj["Key"], name, obj["Size"], *_facts(head_)))


def store_checksums(s3: Any, bucket: str, prefix: str, *, threads: int = 16, page_size: Optional[int] = None,
                    list_folders: int = LIST_FOLDERS
                    ) -> Iterator[Tuple[dict, str, dict, Optional[Expected], str]]:  # fmt: skip
    """(object, name, HeadObject, strongest checksum or None, why not) of every object under
    ``prefix``, in key order; one deleted after the listing is left out, as a later listing
    would leave it."""

    def one(obj: dict) -> Optional[Tuple[dict, str, dict, Optional[Expected], str]]:
        try:
            head_ = head(s3, bucket, obj["Key"])
            exp, why = expected(s3, bucket, obj["Key"], head_)
        except Exception as err:
            if gone(err):
                return None
            raise
        return obj, obj["Key"][len(prefix) :], head_, exp, why

    objects = listing(s3, bucket, prefix, page_size=page_size, folders=list_folders)
    with ThreadPoolExecutor(threads, thread_name_prefix="parhash-store") as pool:
        try:
            jobs = (lambda obj=obj: one(obj) for obj in objects)
            yield from (found for found in _ordered(pool, jobs, 4 * threads) if found is not None)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


# The command line.


def describe(err: BaseException) -> str:
    """A failure of the store in words."""
    try:
        import botocore.exceptions as bx
    except ImportError:  # pragma: no cover: boto3 made the client
        return str(err)
    if isinstance(err, bx.ClientError):
        code = err.response.get("Error", {}).get("Code", "")
        if code in ("NoSuchBucket", "404") and err.operation_name == "ListObjectsV2":
            return "no such bucket"
        if code in ("InvalidAccessKeyId", "SignatureDoesNotMatch", "AccessDenied", "403",
                    "ExpiredToken", "InvalidToken", "InvalidClientTokenId"):  # fmt: skip
            return f"the store refused the credentials or the access ({code}: {err})"
        return str(err)
    if isinstance(err, bx.NoCredentialsError):
        return "no AWS credentials found (environment, ~/.aws/credentials, --profile)"
    if isinstance(err, (bx.HTTPClientError, bx.EndpointConnectionError)):
        return f"the store cannot be reached: {err}"
    return str(err) or type(err).__name__


def _arguments(argv: Optional[Sequence[str]], prog: str = PROG) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Check a local tree against an S3 bucket/prefix without downloading "
        "objects, or write the store's checksums as a checksum list.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    store = argparse.ArgumentParser(add_help=False)
    store.add_argument("--endpoint-url", help="an S3-compatible store's URL (MinIO, Ceph, R2...)")
    store.add_argument("--profile", help="the AWS profile (~/.aws/config) to use")
    store.add_argument("--region", help="the store's region (else as the AWS tools find it)")
    store.add_argument("--json", action="store_true", help="JSON Lines records, not text lines")
    store.add_argument("--threads", type=int, default=16, help="objects checked at once (16)")
    store.add_argument("--list-folders", type=int, default=LIST_FOLDERS, metavar="N",
                       help=f"folders of the prefix listed at once where its first page took "
                       f"{SLOW_PAGE} s or more ({LIST_FOLDERS}; 1: one listing of the whole prefix, "
                       "page after page, as where pages come faster)")  # fmt: skip
    store.add_argument("--page-size", type=int, help=argparse.SUPPRESS)
    verify_ = commands.add_parser(
        "verify", parents=[store], help="check LOCAL_DIR against s3://bucket/prefix",
        description="Every object under the prefix and every file below LOCAL_DIR (the key "
        "less the prefix is the file's name): matched, changed, missing (an object without its "
        "file), new (a file without its object), unverifiable (the store holds no checksum "
        "parhash can reproduce) or unreadable. Exit status 0 when all matched, 1 otherwise, "
        "2 when the run could not finish.",
    )  # fmt: skip
    verify_.add_argument("local", metavar="LOCAL_DIR")
    verify_.add_argument("url", metavar="s3://BUCKET/PREFIX")
    verify_.add_argument("--quiet", action="store_true", help="no line for matched objects")
    verify_.add_argument("--min-part-size", type=int, default=S3_MIN_PART, metavar="BYTES",
                         help="the store's smallest part (all but the last) of a multipart upload: "
                         "smaller part sizes are not tried (S3: 5 MiB; Ceph's "
                         "rgw_multipart_min_part_size)")  # fmt: skip
    verify_.add_argument("--download-mismatches", action="store_true",
                         help="download each changed object (streamed) and say which bytes and "
                         "parts differ; without it no object's bytes are read")  # fmt: skip
    verify_.add_argument("--start-after", metavar="NAME",
                         help="resume after NAME (relative to the prefix), as a cut run says")  # fmt: skip
    list_ = commands.add_parser(
        "list", parents=[store], help="write the store's checksums as a checksum list",
        description="One line per object with its strongest checksum: CRC64NVME (NAME) = "
        "BASE64, SHA256-COMPOSITE (NAME) = BASE64-N, ETAG (NAME) = HEX[-N], NAME relative to "
        "the prefix; --json: every checksum of every object.",
    )  # fmt: skip
    list_.add_argument("url", metavar="s3://BUCKET/PREFIX")
    list_.add_argument("-o", "--output", metavar="FILE", help="write to FILE, not standard output")
    args = parser.parse_args(argv)
    if args.threads < 1 or args.list_folders < 1:
        parser.error("--threads and --list-folders must be at least 1")
    if getattr(args, "min_part_size", 1) < 1:
        parser.error("--min-part-size must be at least 1")
    return args


def main(argv: Optional[Sequence[str]] = None, *, prog: str = PROG,
         verifier: Callable[..., Iterator[Verdict]] = verify) -> int:  # fmt: skip
    """The command line; ``prog`` and ``verifier`` (:func:`verify`'s signature) are
    parhash-dist's, whose workers hash the files."""
    try:
        args = _arguments(argv, prog)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    try:
        bucket, prefix = parse_url(args.url)
        s3 = client(args.endpoint_url, args.profile, args.region, args.threads + args.list_folders + 2)
    except StoreError as err:
        print(f"{prog}: {err}", file=sys.stderr)
        return 2
    if args.command == "verify":
        return _verify(args, s3, bucket, prefix, prog, verifier)
    return _list(args, s3, bucket, prefix)


def _verify(args: argparse.Namespace, s3: Any, bucket: str, prefix: str, prog: str = PROG,
            verifier: Callable[..., Iterator[Verdict]] = verify) -> int:  # fmt: skip
    tally = Tally()
    last = args.start_after
    seen = 0
    try:
        for verdict in verifier(s3, args.local, bucket, prefix, threads=args.threads,
                                start_after=args.start_after, page_size=args.page_size,
                                download_mismatches=args.download_mismatches,
                                min_part_size=args.min_part_size, list_folders=args.list_folders):  # fmt: skip
            tally.counts[verdict.status] += 1
            seen += verdict.key is not None
            last = verdict.name
            if args.json:
                print(json.dumps(verdict.record()), flush=False)
            elif not (args.quiet and verdict.status == "matched"):
                print(verdict.line())
    except Exception as err:  # the store's, the walk's: the run stops here
        sys.stdout.flush()
        done = sum(tally.counts.values())
        where = "before any verdict"
        if last:
            where = f"after {done} verdicts, the last {last!r}; resume with --start-after {last!r}"
        print(f"{prog}: {args.url}: {describe(err)} ({where})", file=sys.stderr)
        return 2
    sys.stdout.flush()
    if seen == 0 and args.start_after is None:
        print(f"{prog}: {args.url}: no objects under this prefix", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"type": "store_summary", "store": args.url, **tally.counts,
                          "passed": tally.passed()}))  # fmt: skip
    print(f"{prog}: {args.url}: {tally.summary()}", file=sys.stderr)
    return 0 if tally.passed() else 1


def _list(args: argparse.Namespace, s3: Any, bucket: str, prefix: str) -> int:
    try:
        out = open(args.output, "wb") if args.output else sys.stdout.buffer
    except OSError as err:
        print(f"{PROG}: {args.output}: {err.strerror or err}", file=sys.stderr)
        return 2
    count = without = 0
    try:
        for obj, name, head_, exp, why in store_checksums(s3, bucket, prefix, threads=args.threads,
                                                          page_size=args.page_size,
                                                          list_folders=args.list_folders):  # fmt: skip
            count += 1
            if args.json:
                out.write(json.dumps(store_record(obj, name, head_, exp, why)).encode() + b"\n")
            elif exp is not None:
                out.write(store_line(exp, name))
            if exp is None:
                without += 1
                print(f"{PROG}: {name}: no checksum parhash can reproduce ({why})", file=sys.stderr)
    except Exception as err:
        print(f"{PROG}: {args.url}: {describe(err)} (after {count} objects)", file=sys.stderr)
        return 2
    finally:
        if args.output:
            out.close()
        else:
            out.flush()
    if count == 0:
        print(f"{PROG}: {args.url}: no objects under this prefix", file=sys.stderr)
        return 2
    return 1 if without else 0


def entry_point() -> None:
    sys.exit(main())


if __name__ == "__main__":
    entry_point()
