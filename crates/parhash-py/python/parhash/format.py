"""The checksum-list format of ``parhash sum`` and ``parhash check``: coreutils' sha256sum and
b2sum lines (``HEX  NAME``), BSD tags (``SHA256 (NAME) = HEX``), escaped names, ``-l``
lengths, the ``--json`` records, check runs and the ``-r`` walk, and the files of
``sum -o LIST`` (:func:`list_target`, :class:`DurableFile`, :class:`ListLock`, :func:`replace`,
:class:`WithoutOwnFiles`).

It is the CLI's own code (the Rust crate ``parhash-format``), so what a Python program writes
here checks with ``parhash check`` and ``sha256sum -c``, and the other way round::

    >>> import parhash, parhash.format
    >>> digest = parhash.new("md5", b"abc").digest()
    >>> parhash.format.checksum_line("md5", digest, b"a b")
    b'900150983cd24fb0d6963f7d28e17f72  a b\\n'
    >>> [e.name for e in parhash.format.parse_list(b"MD5 (x) = 900150983cd24fb0d6963f7d28e17f72\\n")]
    [b'x']

Names are bytes (``os.fsencode``); paths from :func:`walk` have the type of the name given.
"""

from __future__ import annotations

import os
from typing import Iterable, Iterator, Optional, Tuple, Union

from ._parhash import (
    MAX_WAITING,
    META_HEADER,
    Audit,
    Checker,
    DurableFile,
    Entry,
    ListCheck,
    ListLock,
    ListUpdate,
    ResumedList,
    SideFile,
    Step,
    Walk,
    WithoutOwnFiles,
    checksum_line,
    digest_size_for,
    failure_message,
    from_tag,
    in_order,
    infer_algorithm,
    length_digest_size,
    length_error,
    list_name,
    list_paths,
    list_target,
    meta_path,
    meta_record,
    multipart_line,
    multipart_record,
    own_files,
    parse_bits,
    parse_chunk_group,
    parse_list,
    parse_meta_record,
    parse_part_size,
    parse_range,
    quote,
    range_note,
    range_refusal,
    replace,
    several_length_error,
    sum_record,
    temporary_path,
    verify_line_range,
)
from ._parhash import bsd_tag as tag

__all__ = [
    "MAX_WAITING",
    "META_HEADER",
    "Audit",
    "Checker",
    "DurableFile",
    "Entry",
    "ListCheck",
    "ListLock",
    "ListUpdate",
    "ResumedList",
    "SideFile",
    "Step",
    "WithoutOwnFiles",
    "checksum_line",
    "digest_size_for",
    "failure_message",
    "from_tag",
    "in_order",
    "infer_algorithm",
    "length_digest_size",
    "length_error",
    "list_name",
    "list_target",
    "list_paths",
    "meta_path",
    "meta_record",
    "multipart_line",
    "multipart_record",
    "own_files",
    "parse_bits",
    "parse_chunk_group",
    "parse_list",
    "parse_meta_record",
    "parse_part_size",
    "parse_range",
    "quote",
    "range_note",
    "range_refusal",
    "replace",
    "several_length_error",
    "sum_record",
    "temporary_path",
    "verify_line_range",
    "tag",
    "walk",
]

PathType = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]


def walk(names: Iterable[PathType], recursive: bool = True) -> Iterator[Tuple[PathType, Optional[OSError]]]:
    """The files ``parhash sum [-r] NAMES...`` hashes, in its order: ``(name, None)`` for a
    name that is not walked, and with `recursive` for each file below a directory ``(path,
    None)`` (depth-first, sorted by name bytes, links to files hashed, links to directories
    not followed) or ``(directory, OSError)`` for one that could not be read. Walked paths
    have the type of their name (str or bytes)."""
    for name in names:
        if not (recursive and name not in ("-", b"-") and os.path.isdir(name)):
            yield name, None
            continue
        as_text = isinstance(os.fspath(name), str)
        for path, error in Walk([name], True):
            yield (os.fsdecode(path) if as_text else path), error
