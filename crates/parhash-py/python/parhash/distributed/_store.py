"""``parhash-dist verify``: ``parhash-store verify`` with the local files hashed on Ray's workers.

The driver lists the store once and walks the tree (``parhash.store``'s listing, walk and
merge, in key order) and asks the store for what it holds of each object (HeadObject, only
where the listing's ETag does not settle it, as ``parhash-store`` does); the workers run
``parhash.store.check`` on runs of files with the driver's answers in place of the store, so
every verdict is the one ``parhash-store`` gives. A worker never talks to the store.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any, Iterable, Iterator, List, Optional, Tuple

import ray

from parhash import store

from ._engine import DEFAULT_MAX_RETRIES, remote

#: Files of one task, and their bytes at most (the last file may pass it).
DEFAULT_TASK_FILES = 64
DEFAULT_TASK_BYTES = 256 << 20

#: A worker's result for a file whose listed ETag did not settle it: the driver asks the store
#: (HeadObject) and the file is checked again with the answer.
NEEDS_STORE = "needs the store"


class _Gone(Exception):
    """The store's "no such key", as ``parhash.store.gone`` recognises it: the object was
    deleted after the listing."""

    response = {"Error": {"Code": "404"}}


class _Unanswered(Exception):
    """Raised on a worker where the driver has not asked the store yet."""


def _check_run(bucket: str, items: List[Tuple[dict, str, str, Any]], min_part: int) -> List[Any]:
    """On a worker: ``parhash.store.check`` of each ``(object, name, path, answer)``, where
    ``answer`` is the driver's ``("expected", (Expected, why))``, ``("gone", None)`` or None
    (not asked yet: :data:`NEEDS_STORE` where the check needs it)."""
    results: List[Any] = []
    for obj, name, path, answer in items:

        def ask(key: str, answer: Any = answer) -> Tuple[Optional[store.Expected], str]:
            if answer is None:
                raise _Unanswered(key)
            kind, value = answer
            if kind == "gone":
                raise _Gone(key)
            return value

        try:
            results.append(store.check(None, bucket, obj, name, path, False, min_part, ask))
        except _Unanswered:
            results.append(NEEDS_STORE)
    return results


def _answer(s3: Any, bucket: str, key: str) -> Tuple[str, Any]:
    """What the store holds of ``key`` for a worker (its other failures raise here)."""
    try:
        return ("expected", store.expected(s3, bucket, key, store.head(s3, bucket, key)))
    except Exception as err:
        if store.gone(err):
            return ("gone", None)
        raise


def _runs(pairs: Iterable[Tuple[Optional[dict], Optional[str], Optional[str]]], task_files: int,
          task_bytes: int) -> Iterator[list]:  # fmt: skip
    """The merged pairs in runs of at most ``task_files`` files with objects (and
    ``task_bytes`` bytes), missing and new ones among them in their places."""
    run: list = []
    files = nbytes = 0
    for pair in pairs:
        run.append(pair)
        obj, _, path = pair
        if obj is not None and path is not None:
            files += 1
            nbytes += obj["Size"]
        # Missing and new ones count too, so that a run of them is not held whole.
        if files >= task_files or nbytes >= task_bytes or len(run) >= 16 * task_files:
            yield run
            run, files, nbytes = [], 0, 0
    if run:
        yield run


def verify(s3: Any, local: str, bucket: str, prefix: str, *, threads: int = 16,
           start_after: Optional[str] = None, page_size: Optional[int] = None,
           download_mismatches: bool = False, min_part_size: int = store.S3_MIN_PART,
           task_files: int = DEFAULT_TASK_FILES, task_bytes: int = DEFAULT_TASK_BYTES,
           max_retries: int = DEFAULT_MAX_RETRIES, window: Optional[int] = None,
           list_folders: int = store.LIST_FOLDERS) -> Iterator[store.Verdict]:  # fmt: skip
    """``parhash.store.verify`` on the connected Ray: every object under ``prefix`` and every
    file below ``local`` (a path the workers see too), one :class:`parhash.store.Verdict` each,
    in key order; at most ``window`` tasks at once (default: twice the cluster's CPUs). A
    changed object's bytes are compared (``download_mismatches``) on the driver."""
    task = remote(_check_run, max_retries=max_retries)
    if window is None:
        window = 2 * max(1, int(ray.cluster_resources().get("CPU", 1)))
    objects = store.listing(s3, bucket, prefix, start_after, page_size=page_size, folders=list_folders)
    pairs = store.merge(objects, store.walk(local, start_after), prefix)

    with ThreadPoolExecutor(threads, thread_name_prefix="parhash-dist store") as asking:

        def answers(keys: List[str]) -> List[Tuple[str, Any]]:
            return list(asking.map(lambda key: _answer(s3, bucket, key), keys))

        def settle(run: list) -> List[store.Verdict]:
            """A run's verdicts, on a driver thread: its files on a worker, the store asked
            for those whose listing does not settle them, and those checked again."""
            both = [(obj, name, path) for obj, name, path in run if obj is not None and path is not None]
            # An object the listing says has an additional checksum needs HeadObject anyway.
            first = [obj.get("ChecksumAlgorithm") and obj["Key"] for obj, _, _ in both]
            asked = iter(answers([key for key in first if key]))
            items = [(obj, name, path, next(asked) if key else None) for (obj, name, path), key in zip(both, first)]
            results = ray.get(task.remote(bucket, items, min_part_size)) if items else []
            again = [i for i, result in enumerate(results) if isinstance(result, str)]
            if again:
                replies = answers([both[i][0]["Key"] for i in again])
                redo = [(*both[i], reply) for i, reply in zip(again, replies)]
                for i, result in zip(again, ray.get(task.remote(bucket, redo, min_part_size))):
                    results[i] = result
            checked = iter(results)
            verdicts = []
            for obj, name, path in run:
                if path is None:
                    verdicts.append(store.Verdict("missing", name, obj["Key"]))
                elif obj is None:
                    verdicts.append(store.Verdict("new", name))
                else:
                    verdict = next(checked)
                    if download_mismatches and verdict.status == "changed":
                        verdict = store._downloaded(s3, bucket, verdict, path)
                    verdicts.append(verdict)
            return verdicts

        with ThreadPoolExecutor(window, thread_name_prefix="parhash-dist tasks") as running:
            try:
                jobs = (lambda run=run: settle(run) for run in _runs(pairs, task_files, task_bytes))
                for verdicts in store._ordered(running, jobs, window):
                    yield from verdicts
            finally:
                running.shutdown(wait=True, cancel_futures=True)
