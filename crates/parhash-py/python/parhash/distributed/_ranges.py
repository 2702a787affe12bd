"""Ranges of one file verified against its BLAKE3 digest and outboard on the cluster: the
ranges are spread over tasks, each checking its share with ``parhash.verify_range`` (which
reads only a range's bytes and the outboard's path to the root)."""

from __future__ import annotations

import os
from typing import Any, List, Optional, Sequence, Tuple, Union

import parhash

from . import _engine
from ._engine import DEFAULT_MAX_RETRIES, remote


def _verify_share(path: Any, outboard: Any, root: Any, ranges: Sequence[Tuple[int, int]],
                  chunk_group: int) -> List[bool]:  # fmt: skip
    """On a worker: ``parhash.verify_range`` of each ``(offset, length)``, in order."""
    return [parhash.verify_range(path, outboard, root, offset, length, chunk_group=chunk_group)
            for offset, length in ranges]  # fmt: skip


def verify_ranges(path: Any, digest: Union[bytes, str], outboard: Any, ranges: Sequence[Tuple[int, int]], *,
                  chunk_group: int = 0, tasks: Optional[int] = None, address: Optional[str] = None,
                  max_retries: int = DEFAULT_MAX_RETRIES) -> List[bool]:  # fmt: skip
    """Whether each ``(offset, length)`` of ``ranges`` holds the bytes the BLAKE3 ``digest``
    (32 bytes or hex) was made from, as ``parhash.verify_range`` says, the ranges spread over
    ``tasks`` tasks (default: one per CPU of the cluster, at most one per range). ``path``
    and, where it is a path, ``outboard`` are read by the workers (paths every node sees);
    outboard bytes go to them once through Ray's object store. An empty range, one past the
    end or a damaged outboard raises ValueError, an unreadable file OSError, as
    ``verify_range`` does; a task that fails for good, DistributedError."""
    ranges = [(int(offset), int(length)) for offset, length in ranges]
    if not isinstance(path, str):
        path = os.fspath(path)
    if not isinstance(outboard, (bytes, bytearray, memoryview, str)):
        outboard = os.fspath(outboard)
    _engine.connect(address)
    shared = outboard if isinstance(outboard, str) else _engine.ray.put(bytes(outboard))
    if not ranges:
        return []
    count = max(1, min(tasks or _engine.cluster_cpus(), len(ranges)))
    base, extra = divmod(len(ranges), count)
    task = remote(_verify_share, max_retries=max_retries)
    refs, first = [], 0
    for i in range(count):
        share = ranges[first : first + base + (i < extra)]
        first += len(share)
        refs.append(task.remote(path, shared, digest, share, chunk_group))
    results: List[bool] = []
    for ref in refs:
        try:
            results.extend(_engine.ray.get(ref))
        except Exception as err:  # noqa: BLE001 - Ray's wrapper of the task's exception
            cause = getattr(err, "cause", None)
            if isinstance(cause, (ValueError, OSError)):
                raise cause from None
            raise _engine.DistributedError(f"{path}: ranges not verified: {_engine.describe_failure(err)}") from err
    return results


#: A list line's range as a worker checks it: (algorithm, expected digest, name as bytes).
Line = Tuple[str, bytes, bytes]
#: What a worker says of it: parhash.format.verify_line_range's (digest, error, damage).
Verdict = Tuple[Optional[bytes], Optional[Tuple[Optional[int], str]], Optional[str]]


def _verify_lines(cwd: str, lines: Sequence[Line], offset: int, length: int, outboard_dir: Optional[str],
                  chunk_group: Optional[str]) -> List[Verdict]:  # fmt: skip
    """On a worker: each line's range verified with its file's outboard, from the driver's
    working directory (the lists' names and the messages that quote them are relative to it)."""
    from parhash import format as fmt

    before = os.getcwd()
    os.chdir(cwd)
    try:
        return [fmt.verify_line_range(algorithm, expected, name, offset, length, outboard_dir, chunk_group)
                for algorithm, expected, name in lines]  # fmt: skip
    finally:
        os.chdir(before)


def verify_lines(lines: Sequence[Line], offset: int, length: int, *, outboard_dir: Optional[str] = None,
                 chunk_group: Optional[int] = None, tasks: Optional[int] = None,
                 max_retries: int = DEFAULT_MAX_RETRIES) -> List[Verdict]:  # fmt: skip
    """``parhash check --range``'s verdict on each list line's range (``lines`` of
    ``(algorithm, expected, name)``), as ``parhash.format.verify_line_range`` gives it, the
    lines spread over ``tasks`` tasks (default: one per CPU of the connected cluster, at most
    one per line). Files, outboards and names are as the driver's working directory sees them
    (paths every node sees). A task that fails for good raises DistributedError."""
    if not lines:
        return []
    group = None if chunk_group is None else str(chunk_group)
    count = max(1, min(tasks or _engine.cluster_cpus(), len(lines)))
    base, extra = divmod(len(lines), count)
    task = remote(_verify_lines, max_retries=max_retries)
    refs, first = [], 0
    for i in range(count):
        share = list(lines[first : first + base + (i < extra)])
        first += len(share)
        refs.append(task.remote(os.getcwd(), share, offset, length, outboard_dir, group))
    results: List[Verdict] = []
    for ref in refs:
        try:
            results.extend(_engine.ray.get(ref))
        except Exception as err:  # noqa: BLE001 - Ray's wrapper of the task's exception
            raise _engine.DistributedError(f"ranges not verified: {_engine.describe_failure(err)}") from err
    return results
