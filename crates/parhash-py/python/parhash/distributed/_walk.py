"""The files ``parhash sum -r`` hashes, in the same order (the CLI's ``walk.rs``): depth-first,
each directory's entries sorted by the bytes of their names, one directory read at a time (so
memory holds one name list per open level, never the whole tree). Links below a directory:
hashed when they lead to a file, not followed when they lead to a directory, a dangling link
reported like a missing file; FIFOs, sockets and devices skipped; a directory that cannot be
read reported in its place, and the walk goes on.
"""

from __future__ import annotations

import os
import stat
from typing import Iterator, List, Optional, Tuple, Union

PathType = Union[str, bytes]

_DIRECTORY, _FILE = "directory", "file"


def _read_sorted(directory: PathType) -> List[Tuple[PathType, str]]:
    """The entries to visit in `directory`, classified, sorted by name bytes and reversed
    (so ``pop`` gives the next)."""
    entries = []
    with os.scandir(directory) as listing:
        for entry in listing:
            if entry.is_dir(follow_symlinks=False):
                kind = _DIRECTORY
            elif entry.is_file(follow_symlinks=False):
                kind = _FILE
            elif entry.is_symlink():
                try:
                    target = os.stat(entry.path)
                except OSError:
                    # Dangling or unreadable: hashing it reports why, in its place.
                    kind = _FILE
                else:
                    kind = _FILE if stat.S_ISREG(target.st_mode) else None
            else:
                kind = None
            if kind is not None:
                entries.append((os.fsencode(entry.name), entry.path, kind))
    entries.sort(reverse=True)
    return [(path, kind) for _, path, kind in entries]


def walk(root: PathType) -> Iterator[Tuple[PathType, Optional[OSError]]]:
    """``(path, None)`` for each file below the directory `root`, or ``(directory, error)``
    for a directory that could not be read, in ``parhash sum -r``'s order. Paths are of
    `root`'s type (str or bytes)."""
    stack: List[List[Tuple[PathType, str]]] = [[(root, _DIRECTORY)]]
    while stack:
        top = stack[-1]
        if not top:
            stack.pop()
            continue
        path, kind = top.pop()
        if kind == _FILE:
            yield path, None
            continue
        try:
            entries = _read_sorted(path)
        except OSError as err:
            yield path, err
            continue
        stack.append(entries)


def expand(names, recursive: bool) -> Iterator[Tuple[PathType, Optional[OSError]]]:
    """The files ``parhash sum [-r] NAMES...`` hashes: each name itself, or with `recursive`
    the files below a name that is a directory (followed if it is a link to one)."""
    for name in names:
        if recursive and os.path.isdir(name):
            yield from walk(os.fspath(name))
        else:
            yield name, None
