"""One file's multipart forms (S3's ETag, composite checksums) with its parts spread over the
cluster: each task hashes a contiguous run of whole parts, every algorithm the forms need from
one read of them, and the driver combines the parts' digests by the library's rule
(``parhash.multipart_combine``, ``parhash::multipart::combine``)."""

from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import parhash

from . import _engine
from ._engine import DEFAULT_MAX_RETRIES, _changed, remote

#: Bytes read at a time within a part.
CHUNK = 4 << 20


def algorithm_of(form: str) -> str:
    """The algorithm a form's parts are hashed with: MD5 for the ETag, ALG for ALG-composite."""
    lower = form.lower()
    return "md5" if lower == "etag" else lower[: -len("-composite")]


def _identity(path: Any) -> Tuple[int, int, int]:
    """The version of the file a run reads: size, modification time and inode."""
    st = os.stat(path)
    return st.st_size, st.st_mtime_ns, st.st_ino


def _hash_run(path: Any, algorithms: Sequence[str], part_size: int, first: int, count: int,
              identity: Tuple[int, int, int]) -> List[List[bytes]]:  # fmt: skip
    """On a worker: for parts ``first`` to ``first + count - 1`` (of ``part_size`` bytes, the
    last one shorter), each algorithm's digest of each part, from one read; the file must be
    the version ``identity`` names when the run starts and ends (else parhash.FileChanged)."""
    length = identity[0]
    digests: List[List[bytes]] = []
    buffer = bytearray(min(CHUNK, max(part_size, 1)))
    view = memoryview(buffer)
    with open(path, "rb") as file:
        if _identity(path) != identity:
            raise _changed(path, "file changed before its parts were read")
        file.seek(first * part_size)
        for index in range(first, first + count):
            hashers = [parhash.new(name) for name in algorithms]
            left = max(0, min(part_size, length - index * part_size))
            while left:
                got = file.readinto(view[: min(len(buffer), left)])
                if not got:
                    raise _changed(path, f"ended at byte {length - left} of {length}")
                for hasher in hashers:
                    hasher.update(view[:got])
                left -= got
            digests.append([hasher.digest() for hasher in hashers])
    if _identity(path) != identity:
        raise _changed(path, "file changed while its parts were read")
    return digests


def _runs(parts: int, runs: int) -> List[Tuple[int, int]]:
    """``(first, count)`` of ``runs`` contiguous runs of whole parts, as equal as can be."""
    runs = max(1, min(runs, parts))
    base, extra = divmod(parts, runs)
    out, first = [], 0
    for i in range(runs):
        count = base + (i < extra)
        out.append((first, count))
        first += count
    return out


def _result(ref: Any, path: Any) -> List[List[bytes]]:
    """A run's digests; its file's OSError where the task raised one, else DistributedError."""
    try:
        return _engine.ray.get(ref)
    except Exception as err:  # noqa: BLE001 - Ray's wrapper of the task's exception
        cause = _engine.file_error([err])
        if cause is not None:
            raise cause from None
        name = path if isinstance(path, str) else os.fsdecode(path)
        raise _engine.DistributedError(f"{name}: a run of parts failed: {_engine.describe_failure(err)}") from err


def multipart_values(path: Any, forms: Union[str, Sequence[str]], part_sizes: Union[int, Sequence[int]], *,
                   runs: Optional[int] = None, address: Optional[str] = None,
                   max_retries: int = DEFAULT_MAX_RETRIES
                   ) -> Dict[Tuple[str, int], Union[str, ValueError]]:  # fmt: skip
    """The values as the store shows them (``parhash.hash_file(path, form, part_size=size)``)
    of each form in ``forms`` ("etag", "ALG-composite") for each part size, keyed ``(form,
    size)``: the parts of each size hashed in ``runs`` tasks (default: one per CPU of the
    cluster, at most one per part), each a contiguous run of whole parts, all the forms'
    algorithms from one read of the run. A size that S3 would refuse for this file (more
    than 10,000 parts) gives its ValueError in place of the values. An unreadable file raises
    its OSError, one that changes while read parhash.FileChanged."""
    forms = [forms] if isinstance(forms, str) else list(forms)
    sizes = [part_sizes] if isinstance(part_sizes, int) else list(part_sizes)
    for size in sizes:  # the forms and sizes checked on the driver, as hash_file checks them
        parhash.hash_file(os.devnull, forms, part_size=size)
    if not isinstance(path, str):
        path = os.fspath(path)
    _engine.connect(address)
    identity = _identity(path)
    length = identity[0]
    algorithms = list(dict.fromkeys(algorithm_of(form) for form in forms))
    task = remote(_hash_run, max_retries=max_retries)
    if runs is None:
        runs = _engine.cluster_cpus()
    submitted = {}
    for size in sizes:
        parts = max(1, -(-length // size))
        if parts > 10_000:
            continue  # S3's most: multipart_combine says so below, in hash_file's words
        submitted[size] = [task.remote(path, algorithms, size, first, count, identity)
                           for first, count in _runs(parts, runs)]  # fmt: skip
    values: Dict[Tuple[str, int], Union[str, ValueError]] = {}
    for size in sizes:
        digests = [part for ref in submitted.get(size, []) for part in _result(ref, path)]
        for form in forms:
            column = algorithms.index(algorithm_of(form))
            try:
                values[(form, size)] = parhash.multipart_combine(form, size, length, [d[column] for d in digests])
            except ValueError as err:
                values[(form, size)] = err
    return values
