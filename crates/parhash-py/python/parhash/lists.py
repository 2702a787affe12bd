"""Checksum lists of a tree that resume, update and audit, as ``parhash sum -r ... -o FILE
[--resume | --update [--rehash-changed]]`` and ``parhash check --audit`` (docs/lists.md,
"Durable lists: ``-o``, ``--resume``, ``--update``" and "Audit a tree against a list")::

    import parhash.lists
    parhash.lists.write("SHA256SUMS", ["data"], resume=True)      # continue where it stopped
    parhash.lists.update("SHA256SUMS", ["data"], rehash_changed=True)
    result = parhash.lists.audit("SHA256SUMS", ["data"])
    result.passed, result.counts["changed"]

Lists and side files (``FILE.parhash-meta``) are byte for byte those of ``parhash sum -o``,
and audits say what ``parhash check --audit`` says: every byte of them is made by the CLI's
own code (``parhash.format``: ``ResumedList``, ``ListUpdate``, ``Audit``), and written by it
(``DurableFile``, ``replace``, ``WithoutOwnFiles``: durably, cut and continued, renamed over the
old ones, the list's own files left out of the walk). Files are hashed
here with the many-file engine (``parhash.hash_files``), or by any `hasher`: a callable taking
an iterable of names (bytes) and yielding ``(name, digest or exception)`` in the same order
(``parhash.distributed`` passes one that hashes on a Ray cluster). Names are relative to the
current directory, as the command line's.
"""

from __future__ import annotations

import json as _json
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

import parhash
from parhash import format as fmt

#: The most records that wait for a file being hashed before the hasher is drained and called
#: again (as ``parhash sum -o``; a test lowers it).
MAX_WAITING = fmt.MAX_WAITING

PathArg = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]
#: Hashes names (bytes) in order: ``(name, digest)`` or ``(name, exception)`` for each.
Hasher = Callable[[Iterable[bytes]], Iterable[Tuple[bytes, Any]]]
#: Receives each message for standard error (without the program's name).
OnMessage = Callable[[str], None]

__all__ = ["AuditResult", "Hasher", "ListResult", "audit", "update", "write"]


@dataclass
class ListResult:
    """What writing or updating a list did: `ok` unless a file could not be hashed;
    `messages` as ``parhash sum`` says them on standard error (without ``parhash: ``)."""

    ok: bool
    messages: List[str] = field(default_factory=list)


@dataclass
class AuditResult:
    """An audit: `passed` when every file matched (``check --audit``'s exit status 0),
    `verdicts` the ``--json`` records (dicts: status, path, group, copies, ...), `counts` by
    status, `events` what ``parhash check --audit`` prints, in order: ``(True, bytes)`` for
    standard output, ``(False, str)`` for a message on standard error, `groups` the
    ``audit_group`` records (the names sharing a digest; a verdict's ``group`` is its index)."""

    passed: bool
    verdicts: List[Dict[str, Any]]
    counts: Dict[str, int]
    events: List[Tuple[bool, Union[bytes, str]]]
    groups: List[Dict[str, Any]] = field(default_factory=list)


def local_hasher(
    algorithm: str,
    *,
    tree_params: Optional[Tuple[int, int]] = None,
    digest_size: Optional[int] = None,
    threads: Optional[int] = None,
) -> Hasher:
    """This machine's many-file engine (``parhash.hash_files``) as a hasher."""
    options: Dict[str, Any] = {"digest_size": digest_size}
    if tree_params is not None:
        options["tree_height"], options["iv_bits"] = tree_params

    def hasher(names: Iterable[bytes]) -> Iterable[Tuple[bytes, Any]]:
        digests: Iterable[Tuple[Any, Any]] = parhash.hash_files(names, algorithm, threads, **options)
        return digests

    return hasher


def _walk(roots: Sequence[PathArg], recursive: bool = True) -> Iterator[Tuple[bytes, Any]]:
    names = [os.fsencode(root) for root in roots]
    for name, error in fmt.walk(names, recursive):
        yield os.fsencode(name), error


class _Writer:
    """Writes hashed files' records to a list and its side file, as ``sum -o``."""

    def __init__(
        self,
        algorithm: str,
        style: Dict[str, Any],
        list_out: fmt.DurableFile,
        side_out: Optional[fmt.DurableFile],
        on_message: OnMessage,
    ):
        self.algorithm = algorithm
        self.style = style
        self.list_out = list_out
        self.side_out = side_out
        self.on_message = on_message
        self.ok = True

    def hashed(self, name: bytes, result: Any, meta_line: Optional[bytes]) -> None:
        tree_params = self.style.get("tree_params")
        if isinstance(result, bytes):
            if self.style.get("json"):
                line = fmt.sum_record(self.algorithm, result, name, tree_params)
            else:
                line = fmt.checksum_line(
                    self.algorithm,
                    result,
                    name,
                    tag=self.style.get("tag", False),
                    binary=self.style.get("binary", False),
                    zero=self.style.get("zero", False),
                    tree_params=tree_params,
                )
            # The side file first: whatever a crash leaves, it covers the list's entries.
            if meta_line is not None and self.side_out is not None:
                self.side_out.write(meta_line)
            self.list_out.write(line)
            return
        self.ok = False
        if self.style.get("json"):
            self.list_out.write(fmt.sum_record(self.algorithm, result, name, tree_params))
        self.on_message(fmt.failure_message(result, name))

    def kept(self, record: bytes, meta_line: Optional[bytes]) -> None:
        if meta_line is not None and self.side_out is not None:
            self.side_out.write(meta_line)
        self.list_out.write(record)

    def sync(self) -> None:
        if self.side_out is not None:
            self.side_out.sync()
        self.list_out.sync()

    def finish(self) -> None:
        try:
            self.sync()
        finally:
            self.close()

    def close(self) -> None:
        """Closes both files (what was written stays: a later resume continues it; the list's
        lock goes with it)."""
        if self.side_out is not None:
            self.side_out.close()
        self.list_out.close()


def _hash_walk(walk: Iterable[Tuple[bytes, Any]], writer: _Writer, hasher: Hasher) -> None:
    """Hashes every file of the walk (a walk error is that file's result), writes it, and
    finishes the files (closes them on an error)."""

    def steps() -> Iterator[Tuple[Optional[bytes], Any]]:
        for name, error in walk:
            if error is not None:
                yield None, (name, error, None)
            else:
                # Metadata as it was before the file is read: a change while it is read shows
                # at the next update.
                yield name, (name, None, fmt.meta_record(name))

    try:
        ordered = fmt.in_order(steps(), hasher, max_waiting=MAX_WAITING)
        for (name, error, meta_line), result in ordered:
            writer.hashed(name, error if error is not None else result, meta_line)
    except BaseException:
        writer.close()
        raise
    writer.finish()


def _style(
    algorithm: str, tag: bool, binary: bool, zero: bool, json: bool, tree_params: Optional[Tuple[int, int]]
) -> Dict[str, Any]:
    if tree_params is None and parhash.new(algorithm).name == "parsha256":
        # The parameters as the library fills them in, as `parhash sum` writes them.
        tree: Any = parhash.new("parsha256")
        tree_params = (int(tree.tree_height), int(tree.iv_bits))
    return {"tag": tag, "binary": binary, "zero": zero, "json": json, "tree_params": tree_params}


def _messages(on_message: Optional[OnMessage], into: List[str]) -> OnMessage:
    def say(text: str) -> None:
        into.append(text)
        if on_message is not None:
            on_message(text)

    return say


def write(
    list_path: PathArg,
    roots: Sequence[PathArg],
    algorithm: str = "sha256",
    *,
    resume: bool = False,
    recursive: bool = True,
    tag: bool = False,
    binary: bool = False,
    zero: bool = False,
    json: bool = False,
    tree_params: Optional[Tuple[int, int]] = None,
    digest_size: Optional[int] = None,
    hasher: Optional[Hasher] = None,
    on_message: Optional[OnMessage] = None,
) -> ListResult:
    """``parhash sum -r ROOTS... -o LIST [--resume]``: the list of every file below `roots`
    written to `list_path` as it is hashed (durably: written at once, fsync every few seconds
    and at the end) with its side file ``LIST.parhash-meta``. With `resume` an existing list
    is continued: the files it has are not hashed again, a torn last line is written again,
    and the result is byte for byte what an uninterrupted run writes (ValueError, in the
    CLI's words, for a list this call did not begin). Without `recursive`, `roots` are files
    (``sum -o`` without ``-r``). A link is followed: the file it names is written, its side
    file beside it; a device or a pipe gets the lines once, without a side file (`resume` of
    one: ValueError). A list another run is writing is left alone: BlockingIOError."""
    messages: List[str] = []
    say = _messages(on_message, messages)
    style = _style(algorithm, tag, binary, zero, json, tree_params)
    hasher = hasher or local_hasher(algorithm, tree_params=tree_params, digest_size=digest_size)
    target, regular = fmt.list_target(list_path, "--resume" if resume else None)
    walk = fmt.WithoutOwnFiles(_walk(roots, recursive), list_path)
    if not regular:
        writer = _Writer(algorithm, style, fmt.DurableFile(target), None, say)
        _hash_walk(walk, writer, hasher)
        return ListResult(writer.ok, messages)
    side_path = fmt.meta_path(target)
    if not (resume and os.path.exists(target)):
        list_out = fmt.DurableFile(target)
        side = fmt.DurableFile(side_path)
        side.write(fmt.META_HEADER)
        writer = _Writer(algorithm, style, list_out, side, say)
        _hash_walk(walk, writer, hasher)
        return ListResult(writer.ok, messages)
    # Locked before it is read: no other run writes it between.
    list_out = fmt.DurableFile.existing(target)
    try:
        resumed = fmt.ResumedList(target, algorithm, **style)
        gaps: List[Tuple[bytes, Any]] = []
        first: List[Tuple[bytes, Any]] = []
        for name, error in walk:
            step, failure = resumed.step(name, error)
            if step == "gap":
                gaps.append((name, failure))
            elif step == "resume":
                first.append((name, error))
                break
        list_len, meta_len, torn = resumed.finish()
        for text in torn:
            say(text)
        for name, failure in gaps:
            say(fmt.failure_message(failure, name))
        if meta_len == 0:
            side = fmt.DurableFile(side_path)
            side.write(fmt.META_HEADER)
        else:
            side = fmt.DurableFile.continue_at(side_path, meta_len)
        list_out.cut(list_len)
    except BaseException:
        list_out.close()
        raise
    writer = _Writer(algorithm, style, list_out, side, say)
    _hash_walk(_chain(first, walk), writer, hasher)
    return ListResult(writer.ok and not gaps, messages)


def _chain(first: List[Tuple[bytes, Any]], rest: Iterable[Tuple[bytes, Any]]) -> Iterator[Tuple[bytes, Any]]:
    yield from first
    yield from rest


def update(
    list_path: PathArg,
    roots: Sequence[PathArg],
    algorithm: str = "sha256",
    *,
    rehash_changed: bool = False,
    recursive: bool = True,
    tag: bool = False,
    binary: bool = False,
    zero: bool = False,
    json: bool = False,
    tree_params: Optional[Tuple[int, int]] = None,
    digest_size: Optional[int] = None,
    hasher: Optional[Hasher] = None,
    on_message: Optional[OnMessage] = None,
) -> ListResult:
    """``parhash sum -r ROOTS... -o LIST --update [--rehash-changed]``: the list brought up to
    date with the tree: new files hashed and added, entries of files gone dropped, the others
    kept without reading them; with `rehash_changed`, those whose size, modification or change
    time, inode or device differ from the side file's record are hashed again (this trusts file
    metadata, as rsync and git do). Written to ``LIST.tmp`` and renamed over `list_path`
    (and the side file likewise); with no list yet, one is written. A link is followed: the
    file it names is replaced beside itself; a device or a pipe is refused (ValueError), and a
    list another run is writing left alone (BlockingIOError)."""
    target, _ = fmt.list_target(list_path, "--update")
    path = os.fsencode(target)
    if not os.path.exists(path):
        return write(
            list_path,
            roots,
            algorithm,
            recursive=recursive,
            tag=tag,
            binary=binary,
            zero=zero,
            json=json,
            tree_params=tree_params,
            digest_size=digest_size,
            hasher=hasher,
            on_message=on_message,
        )
    messages: List[str] = []
    say = _messages(on_message, messages)
    style = _style(algorithm, tag, binary, zero, json, tree_params)
    hasher = hasher or local_hasher(algorithm, tree_params=tree_params, digest_size=digest_size)
    side_path = os.fsencode(fmt.meta_path(path))
    walk = fmt.WithoutOwnFiles(_walk(roots, recursive), list_path)
    # Locked before it is read, until the new list (locked too) is renamed over it.
    lock = fmt.ListLock(path)
    try:
        return _update(list_path, path, side_path, roots, walk, algorithm, style, rehash_changed, hasher, messages, say)
    finally:
        lock.close()


def _update(
    given: PathArg,
    path: bytes,
    side_path: bytes,
    roots: Sequence[PathArg],
    walk: Iterable[Tuple[bytes, Any]],
    algorithm: str,
    style: Dict[str, Any],
    rehash_changed: bool,
    hasher: Hasher,
    messages: List[str],
    say: OnMessage,
) -> ListResult:
    merge = fmt.ListUpdate(
        path, algorithm, [os.fsencode(r) for r in roots], walk, rehash_changed=rehash_changed, **style
    )
    for text in merge.messages:
        say(text)
    list_tmp, side_tmp = fmt.temporary_path(path), fmt.temporary_path(side_path)
    list_out = fmt.DurableFile(list_tmp)
    side = fmt.DurableFile(side_tmp)
    side.write(fmt.META_HEADER)
    writer = _Writer(algorithm, style, list_out, side, say)

    def steps() -> Iterator[Tuple[Optional[bytes], Any]]:
        for action, name, value, meta_line in merge:
            if action == "keep":
                yield None, ("keep", name, value, meta_line)
            elif value is not None:
                yield None, ("failed", name, value, None)
            else:
                yield name, ("hash", name, None, meta_line)

    try:
        ordered = fmt.in_order(steps(), hasher, max_waiting=MAX_WAITING)
        for (action, name, value, meta_line), result in ordered:
            if action == "keep":
                writer.kept(value, meta_line)
            else:
                writer.hashed(name, value if action == "failed" else result, meta_line)
        writer.sync()
    except BaseException:
        # The old list stays as it was.
        writer.close()
        for tmp in (list_tmp, side_tmp):
            try:
                os.remove(tmp)
            except OSError:
                pass
        raise
    try:
        fmt.replace(list_tmp, path)
        fmt.replace(side_tmp, side_path)
    finally:
        # The new list's lock, kept until its side file too is in place.
        writer.close()
    say(merge.summary(given))
    return ListResult(writer.ok, messages)


def audit(
    list_path: PathArg,
    paths: Optional[Sequence[PathArg]] = None,
    *,
    algorithm: Optional[str] = None,
    zero: bool = False,
    warn: bool = False,
    quiet: bool = False,
    status: bool = False,
    strict: bool = False,
    json: bool = False,
    tree_height: Optional[int] = None,
    iv_bits: Optional[int] = None,
    hasher_for: Optional[Callable[..., Hasher]] = None,
    exists: Optional[Callable[[bytes], bool]] = None,
) -> AuditResult:
    """``parhash check --audit [--audit-path PATH]... LIST``: every file of the tree (the
    current directory, or only `paths`) against the list: matched, changed, missing, new,
    moved or unreadable, with the other names holding its content. The files are hashed with
    the algorithm of the list's lines by ``hasher_for(algorithm, tree_params=...,
    digest_size=...)`` (default :func:`local_hasher`); `exists` says whether a listed name
    outside `paths` is still there (default: this machine's file system)."""
    subset = [os.fsencode(p) for p in paths or []]
    audit_, events = fmt.Audit.read(
        os.fsencode(list_path),
        paths=subset,
        algorithm=algorithm,
        zero=zero,
        warn=warn,
        quiet=quiet,
        status=status,
        strict=strict,
        json=json,
        tree_height=tree_height,
        iv_bits=iv_bits,
    )
    if audit_ is None:
        return AuditResult(False, [], {}, list(events))
    hasher = (hasher_for or local_hasher)(
        audit_.algorithm, tree_params=audit_.tree_params, digest_size=audit_.digest_size
    )
    # A root that is gone is walked as empty (its listed names are missing); one below
    # another is walked once.
    roots = fmt.Audit.roots(subset)

    # The list, its side file and their .tmp are not part of the dataset (as the CLI).
    walk = _walk(roots) if os.fsencode(list_path) == b"-" else fmt.WithoutOwnFiles(_walk(roots), list_path)

    def steps() -> Iterator[Tuple[Optional[bytes], Any]]:
        for name, error in walk:
            if audit_.wants(name):
                yield (name if error is None else None), (name, error)

    ordered = fmt.in_order(steps(), hasher, max_waiting=MAX_WAITING)
    for (name, error), result in ordered:
        audit_.found(name, error if error is not None else result)
    passed, report, records, counts = audit_.finish(exists)
    decoded = [_json.loads(record) for record in records]
    verdicts = [record for record in decoded if record["type"] == "audit"]
    groups = [record for record in decoded if record["type"] == "audit_group"]
    return AuditResult(passed, verdicts, dict(counts), list(events) + list(report), groups)
