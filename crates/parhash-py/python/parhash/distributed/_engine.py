"""The Ray side: connecting, the remote tasks, and the ordered pipeline that packs files into
tasks by bytes, keeps a bounded number of tasks in flight and hands results back in input order.

Everything a task returns is small (digests, errors, partial states of a few hundred bytes), so
nothing large ever goes through Ray's object store: workers read the files themselves, from a
path every node sees or an fsspec URL.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Deque, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

import parhash

try:
    import ray
except ImportError as err:  # pragma: no cover - only without the extra
    raise ImportError(
        'parhash.distributed needs Ray: pip install "parhash[ray]" '
        '(from a checkout: pip install "./crates/parhash-py[ray]")'
    ) from err

#: A task gets files until it holds this many bytes (one larger file gets a task of its own).
DEFAULT_TASK_BYTES = 32 << 20
#: ... or this many files (bounds a task's result list and the driver's memory per task).
DEFAULT_TASK_FILES = 4096
#: How often Ray retries a task whose worker died (a file's read error is not retried: it is
#: that file's result).
DEFAULT_MAX_RETRIES = 3
#: How often one file split into parts is hashed again, whole, when its parts read different
#: versions of it (it changed meanwhile); then it is reported as changed (parhash.FileChanged).
DEFAULT_VERSION_RETRIES = 1
#: Bytes read at a time from an fsspec file.
_URL_CHUNK = 8 << 20
#: What names an object's version in fsspec's ``info()``: S3's version id and ETag, GCS's
#: generation, Azure's etag. Where none is given, the size, times and inode say it
#: (``_WEAK_VERSION_KEYS``: the local and memory file systems).
_VERSION_KEYS = ("VersionId", "version_id", "generation", "ETag", "etag")
_WEAK_VERSION_KEYS = ("mtime", "LastModified", "last_modified", "updated", "modified", "created", "ino")


class DistributedError(RuntimeError):
    """A task failed for good (its worker died more often than Ray retries, or it raised);
    the message says which files or parts and why."""


@dataclass(frozen=True)
class Spec:
    """What every file of a job is hashed with."""

    algorithm: str
    tree_height: Optional[int] = None
    iv_bits: Optional[int] = None
    #: Bytes of digest for BLAKE2b/s, BLAKE3 and SHAKE (``-l``); None: the default. With
    #: several algorithms, for those that have a choice of lengths.
    digest_size: Optional[int] = None
    #: Several algorithms from one read of each file (``sum -a md5,sha256``), as named by the
    #: caller, ``algorithm`` being the first; empty for one. A file then yields ``{name:
    #: digest}`` and is never split into parts (one task reads it once for all of them).
    algorithms: Tuple[str, ...] = ()
    #: The part size of the multipart forms ("etag", "ALG-composite": ``parhash.hash_files``'
    #: `part_size`), where ``multipart`` says some name is one.
    part_size: Optional[int] = None
    #: Whether a name is a multipart form: files then yield the values as the store shows them
    #: (str) and are never split into parts.
    multipart: bool = False

    @property
    def several(self) -> bool:
        return len(self.algorithms) > 1

    def names(self) -> Union[str, List[str]]:
        """What ``parhash.hash_files`` takes as its `name`: one name, or the list."""
        return list(self.algorithms) if self.several else self.algorithm

    def tree_kwargs(self) -> dict:
        """PARSHA-256's parameters as keyword arguments (what a ``PartPlan`` takes)."""
        if not any(parhash.takes_tree_params(name) for name in self.algorithms or (self.algorithm,)):
            return {}
        return {"tree_height": self.tree_height, "iv_bits": self.iv_bits}

    def hash_kwargs(self) -> dict:
        """Every option as keyword arguments of ``parhash.new`` and ``hash_files``."""
        if self.multipart:
            return {} if self.part_size is None else {"part_size": self.part_size}
        if self.digest_size is None:
            return self.tree_kwargs()
        return {**self.tree_kwargs(), "digest_size": self.digest_size}


# --- connecting ---------------------------------------------------------------------------


def connect(address: Optional[str] = None, **init_kwargs: Any) -> bool:
    """Makes sure this process is connected to Ray and returns whether this call started
    the connection. A Ray the caller already initialised is used as it is (never shut down
    by parhash). Otherwise ``ray.init(address)``: None starts (or, with ``RAY_ADDRESS`` set,
    joins) a cluster as Ray's default does (one it starts runs its workers at this process's
    priority, not Ray's default of 15 lower), ``"auto"`` joins the cluster running on this
    machine, ``"ray://HOST:10001"`` connects through Ray Client."""
    if ray.is_initialized():
        return False
    if address is None and not os.environ.get("RAY_ADDRESS"):
        # A local instance for this job: no dashboard to start, and workers at the caller's
        # priority (Ray's default renices them by 15, which on a shared machine lets any other
        # process starve the hashing: 1 GiB took 3x `parhash sum`'s time instead of 1.4x).
        init_kwargs.setdefault("include_dashboard", False)
        system_config = dict(init_kwargs.get("_system_config") or {})
        system_config.setdefault("worker_niceness", 0)
        init_kwargs["_system_config"] = system_config
    with _printable_entrypoint():
        ray.init(address=address, **init_kwargs)
    return True


@contextlib.contextmanager
def _printable_entrypoint():
    """Ray (2.60) records the driver's command line as UTF-8 and fails on a file name that is
    not (``parhash-dist sum $'\xff'``): it gets the line with such bytes replaced."""
    utils = getattr(getattr(ray, "_private", None), "utils", None)
    original = getattr(utils, "get_entrypoint_name", None)
    if original is None:
        yield
        return

    def printable() -> str:
        return original().encode("utf-8", "surrogateescape").decode("utf-8", "replace")

    utils.get_entrypoint_name = printable
    try:
        yield
    finally:
        utils.get_entrypoint_name = original


def cluster_cpus() -> int:
    """CPUs of the connected cluster (at least 1)."""
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


# --- remote tasks -------------------------------------------------------------------------


def _hash_batch(paths: Sequence[Any], spec: Spec, threads: int) -> List[Any]:
    """On a worker: the digest or the OSError of each file, in order, through the library's
    many-file engine (small files side by side in SIMD lanes)."""
    # The multipart forms spread each file's parts over the worker's cores themselves.
    threads_arg = () if spec.multipart else (threads,)
    return [result for _, result in parhash.hash_files(paths, spec.names(), *threads_arg, **spec.hash_kwargs())]


def _is_url(path: Any) -> bool:
    return isinstance(path, str) and "://" in path


def url_identity(url: str, storage_options: dict) -> Tuple[bytes, int]:
    """The identity of the version of the fsspec object `url` now (what a part records, as
    ``PartPlan.file_identity`` for a local file), and its size: the identity is the size and
    the version id, generation or ETag where the store gives one, else its times and inode."""
    import fsspec

    fs, inner = fsspec.core.url_to_fs(url, **storage_options)
    info = fs.info(inner)
    keys = [key for key in _VERSION_KEYS if info.get(key) is not None]
    keys = keys or [key for key in _WEAK_VERSION_KEYS if info.get(key) is not None]
    named = {key: info[key] for key in keys}
    named["size"] = info.get("size")
    return b"fsspec" + json.dumps(named, sort_keys=True, default=str).encode(), int(info.get("size") or 0)


def _changed(path: Any, why: str) -> parhash.FileChanged:
    name = path if isinstance(path, str) else os.fsdecode(path)
    error = parhash.FileChanged(f"{name}: {why}")
    error.filename = path
    error.strerror = why
    return error


def _copy_ranges_from_url(url: str, ranges, length: int, storage_options: dict, into) -> bytes:
    """Writes the byte `ranges` of the fsspec file `url` at their offsets into the open file
    `into`, which is `length` bytes long and sparse elsewhere; returns the object's identity
    (``url_identity``), taken before and checked after (parhash.FileChanged if it moved, or
    if the object is no longer `length` bytes)."""
    import fsspec

    identity, size = url_identity(url, storage_options)
    if size != length:
        raise _changed(url, f"{size} bytes; the plan is for {length} (it changed)")
    with fsspec.open(url, "rb", **storage_options) as source:
        for start, end in ranges:
            source.seek(start)
            into.seek(start)
            while start < end:
                chunk = source.read(min(_URL_CHUNK, end - start))
                if not chunk:
                    raise OSError(f"{url}: ended at byte {start} of {length}")
                into.write(chunk)
                start += len(chunk)
    into.flush()
    if url_identity(url, storage_options)[0] != identity:
        raise _changed(url, "file changed while being read")
    return identity


def _with_local_view(path: Any, ranges, length: int, storage_options: dict, use: Callable[[Any, Optional[bytes]], Any]):
    """``use(local_path, None)`` for a path, or for a URL ``use(view, identity)``: `view` a
    sparse local file of the same length holding only `ranges` (the bytes the part reads),
    removed afterwards, and `identity` the object's version it holds. A FileChanged names
    the URL, not the view."""
    if not _is_url(path):
        return use(path, None)
    with tempfile.NamedTemporaryFile(prefix="parhash-part-") as local:
        local.truncate(length)
        identity = _copy_ranges_from_url(path, ranges, length, storage_options, local)
        try:
            return use(local.name, identity)
        except parhash.FileChanged as err:
            raise _changed(path, err.strerror or str(err)) from None


def _hash_part(plan: parhash.PartPlan, index: int, path: Any, storage_options: dict) -> bytes:
    """On a worker: the state of part `index` (bytes), reading only the bytes it needs, and
    recording which version of the file it read."""
    return _with_local_view(
        path,
        plan.ranges(index),
        plan.message_len,
        storage_options,
        lambda local, identity: plan.hash_part_file(index, local, identity=identity),
    )


def _where_am_i() -> Tuple[str, int]:
    """On a worker: its node id and process id (for tests and diagnostics)."""
    return ray.get_runtime_context().get_node_id(), os.getpid()


_remote_cache: dict = {}


def remote(function: Callable, **options: Any):
    """`function` as a Ray remote function with `options` (made once per options)."""
    key = (function, tuple(sorted(options.items())))
    if key not in _remote_cache:
        _remote_cache[key] = ray.remote(**options)(function) if options else ray.remote(function)
    return _remote_cache[key]


# --- one file in parts --------------------------------------------------------------------


def file_size(path: Any, storage_options: dict) -> int:
    if _is_url(path):
        import fsspec

        fs, inner = fsspec.core.url_to_fs(path, **storage_options)
        return int(fs.size(inner))
    return os.stat(path).st_size


def default_parts() -> int:
    """One part per CPU of the cluster (a plan keeps as many as its algorithm's tree allows:
    for PARSHA-256, the largest power of two not above)."""
    return cluster_cpus()


def make_plan(path: Any, spec: Spec, parts: int, storage_options: dict) -> parhash.PartPlan:
    length = file_size(path, storage_options)
    # Each part runs in one task of one CPU: one thread per part.
    return parhash.PartPlan(
        spec.algorithm, length, parts, threads=1, digest_size=spec.digest_size, **spec.tree_kwargs()
    )


def submit_parts(plan: parhash.PartPlan, path: Any, storage_options: dict, max_retries: int) -> list:
    task = remote(_hash_part, max_retries=max_retries)
    return [task.remote(plan, index, path, storage_options) for index in range(plan.parts)]


def combine(plan: parhash.PartPlan, states: Sequence[bytes], path: Any, storage_options: dict) -> bytes:
    """The digest from the parts' states; a combine step that reads ``top_ranges()`` of the
    file (PARSHA-256's) reads them here, on the driver. Parts that read different versions
    of the file (or another than the combine step reads) raise parhash.FileChanged naming
    it."""
    if not plan.top_ranges():
        try:
            return plan.combine(states)
        except parhash.FileChanged as err:
            raise _changed(path, err.strerror or str(err)) from None
    return _with_local_view(
        path,
        plan.top_ranges(),
        plan.message_len,
        storage_options,
        lambda local, identity: plan.combine_file(states, local, identity=identity),
    )


def file_error(failures: Iterable[BaseException]) -> Optional[OSError]:
    """The OSError the tasks raised, when every failure is one (a file the workers cannot
    read is that file's error, not a failed job)."""
    causes = [getattr(err, "cause", None) for err in failures]
    if causes and all(isinstance(cause, OSError) for cause in causes):
        return causes[0]
    return None


def describe_failure(err: BaseException) -> str:
    """The first line of a task's failure (Ray's messages run to many lines)."""
    text = str(err).strip().splitlines()
    cause = getattr(err, "cause", None)
    if cause is not None and not isinstance(cause, type(err)):
        return f"{type(cause).__name__}: {cause}"
    return text[0] if text else type(err).__name__


# --- many files, in order -----------------------------------------------------------------


class Progress:
    """What the pipeline tells about its work (the CLI draws a bar from it)."""

    def submitted(self, files: int, nbytes: int) -> None:
        pass

    def finished(self, files: int, nbytes: int) -> None:
        pass

    def running(self, tasks: int) -> None:
        pass


@dataclass
class Item:
    """One input, with whatever the caller wants back (`key`): a path to hash (with the job's
    spec, or its own), or a result known without hashing (`preset`: a directory of ``-r``
    that could not be read, standard input hashed on the driver, a note to keep in order)."""

    key: Any
    path: Any = None
    preset: Any = None
    spec: Optional[Spec] = None
    size: int = 0

    @property
    def hashed(self) -> bool:
        return self.path is not None and self.preset is None


@dataclass
class _Entry:
    """Submitted work in input order: its refs, the items, what became of them."""

    items: List[Item]
    refs: List[Any]
    finish: Callable[[List[Any]], List[Any]]
    done: dict = field(default_factory=dict)
    failures: dict = field(default_factory=dict)
    results: Optional[List[Any]] = None
    #: For a file in parts: the entry that hashes it again, whole, when it changed meanwhile
    #: (its result is a parhash.FileChanged); None once the retries are spent.
    again: Optional[Callable[[], "_Entry"]] = None

    @property
    def nbytes(self) -> int:
        return sum(item.size for item in self.items)


class Pipeline:
    """Packs items into tasks (by bytes and count), keeps at most `max_running` tasks
    running and `max_window` entries not yet handed back, and yields ``(key, result)`` in
    input order: result is a digest (bytes), the file's OSError, or a DistributedError when
    the task holding the file failed for good."""

    def __init__(
        self,
        spec: Spec,
        *,
        task_bytes: int = DEFAULT_TASK_BYTES,
        task_files: int = DEFAULT_TASK_FILES,
        max_running: Optional[int] = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        split_bytes: Optional[int] = None,
        parts: Optional[int] = None,
        progress: Optional[Progress] = None,
        stat: bool = True,
        version_retries: int = DEFAULT_VERSION_RETRIES,
    ):
        if task_bytes < 1 or task_files < 1:
            raise ValueError("task_bytes and task_files must be at least 1")
        self.spec = spec
        self.task_bytes = task_bytes
        self.task_files = task_files
        self.max_running = max_running or 2 * cluster_cpus()
        self.max_window = 4 * self.max_running + 16
        self.max_retries = max_retries
        self.version_retries = version_retries
        # Files of a tree mode at least this large are split into parts over several tasks.
        self.split_bytes = split_bytes
        self.parts = parts
        self.progress = progress or Progress()
        self.stat = stat
        self._batch_task = remote(_hash_batch, max_retries=max_retries)

    # Packing.

    def _sized(self, item: Item) -> Item:
        if item.spec is None:
            item.spec = self.spec
        if self.stat and item.hashed:
            try:
                item.size = os.stat(item.path).st_size
            except (OSError, ValueError):
                item.size = 0  # the worker reports why, in the file's place
        return item

    def _entries(self, items: Iterable[Item]) -> Iterator[_Entry]:
        batch: List[Item] = []
        batch_bytes = 0
        batch_spec: Optional[Spec] = None
        for item in map(self._sized, items):
            # A large tree-mode file is split over tasks; a task has one spec (a checksum
            # list may mix algorithms).
            split = item.hashed and self._splits(item)
            if batch and (split or (item.hashed and batch_spec not in (None, item.spec))):
                yield self._batch_entry(batch)
                batch, batch_bytes, batch_spec = [], 0, None
            if split:
                yield self._split_entry(item)
                continue
            batch.append(item)
            batch_bytes += item.size
            if item.hashed:
                batch_spec = item.spec
            if batch_bytes >= self.task_bytes or len(batch) >= self.task_files:
                yield self._batch_entry(batch)
                batch, batch_bytes, batch_spec = [], 0, None
        if batch:
            yield self._batch_entry(batch)

    def _splits(self, item: Item) -> bool:
        assert item.spec is not None  # every item has one after _sized
        if item.spec.several or item.spec.multipart:
            return False
        splits = parhash.splits(item.spec.algorithm)
        return splits and self.split_bytes is not None and item.size >= self.split_bytes

    def _batch_entry(self, batch: List[Item]) -> _Entry:
        hashed = [item for item in batch if item.hashed]
        refs = []
        if hashed:
            paths = [item.path for item in hashed]
            refs = [self._batch_task.remote(paths, hashed[0].spec, 1)]

        def finish(outputs: List[Any]) -> List[Any]:
            digests = iter(outputs[0] if outputs else ())
            return [next(digests) if item.hashed else item.preset for item in batch]

        return _Entry(batch, refs, finish)

    def _split_entry(self, item: Item, attempt: int = 0) -> _Entry:
        try:
            parts = self.parts or default_parts()
            assert item.spec is not None  # every item has one after _sized
            plan = make_plan(item.path, item.spec, parts, {})
        except OSError as err:
            error: OSError = err  # `err` is unbound after the except clause
            return _Entry([item], [], lambda _: [error])
        refs = submit_parts(plan, item.path, {}, self.max_retries)

        def finish(states: List[Any]) -> List[Any]:
            try:
                return [combine(plan, states, item.path, {})]
            except OSError as err:
                return [err]
            except ValueError as err:  # a state the plan refuses: never a wrong digest
                return [DistributedError(f"not hashed: {err}")]

        entry = _Entry([item], refs, finish)
        if attempt < self.version_retries:
            entry.again = lambda: self._split_entry(item, attempt + 1)
        return entry

    # Running.

    def run(self, items: Iterable[Item]) -> Iterator[Tuple[Any, Any]]:
        entries = self._entries(items)
        window: Deque[_Entry] = deque()
        waiting: dict = {}  # ref -> (entry, index in entry.refs)
        exhausted = False
        while True:
            while not exhausted and len(waiting) < self.max_running and len(window) < self.max_window:
                entry = next(entries, None)
                if entry is None:
                    exhausted = True
                    break
                window.append(entry)
                self.progress.submitted(len(entry.items), entry.nbytes)
                self._wait_for(entry, waiting)
            self.progress.running(len(waiting))
            while window and (results := window[0].results) is not None:
                entry = window.popleft()
                yield from zip((item.key for item in entry.items), results)
            if not window:
                if exhausted:
                    return
                continue
            if not waiting:
                continue
            ready, _ = ray.wait(list(waiting), num_returns=1, timeout=1.0)
            for ref in ready:
                entry, index = waiting.pop(ref)
                try:
                    entry.done[index] = ray.get(ref)
                except Exception as err:  # noqa: BLE001 - any task failure is reported per file
                    entry.failures[index] = err
                if len(entry.done) + len(entry.failures) == len(entry.refs):
                    self._settle(entry)
                    self._wait_for(entry, waiting)

    def _wait_for(self, entry: _Entry, waiting: dict) -> None:
        """Registers the refs of `entry` (submitted, or submitted again) in `waiting`; settles
        an entry that has none."""
        while entry.results is None and not entry.refs:
            self._settle(entry)
        if entry.results is None:
            for index, ref in enumerate(entry.refs):
                waiting[ref] = (entry, index)

    def _settle(self, entry: _Entry) -> None:
        """Sets `entry.results`; or, for a file in parts that changed meanwhile with retries
        left, submits it again (its results stay None)."""
        error = file_error(entry.failures.values()) if len(entry.items) == 1 else None
        if error is not None:
            entry.results = [error]
        elif entry.failures:
            reasons = sorted({describe_failure(err) for err in entry.failures.values()})
            parts = (
                ""
                if len(entry.refs) == 1
                else (f" (parts {', '.join(map(str, sorted(entry.failures)))} of {len(entry.refs)})")
            )
            failed = DistributedError(f"not hashed: task failed{parts}: {'; '.join(reasons)}")
            entry.results = [failed if item.hashed else item.preset for item in entry.items]
        else:
            entry.results = entry.finish([entry.done[i] for i in range(len(entry.refs))])
        if entry.again is not None and isinstance(entry.results[0], parhash.FileChanged):
            again = entry.again()
            entry.refs, entry.finish, entry.again = again.refs, again.finish, again.again
            entry.done, entry.failures, entry.results = {}, {}, again.results
            return
        self.progress.finished(len(entry.items), entry.nbytes)
