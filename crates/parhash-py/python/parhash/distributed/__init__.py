"""parhash on a Ray cluster: the same digests as ``parhash sum``, computed by many machines.

- ``hash_files(paths_or_dirs, algorithm)``: many files (directories walked as ``parhash sum
  -r`` walks them), packed into tasks of tens of MiB, results in input order as they arrive;
  a file's error is that file's result, never a failed job.
- ``hash_file(path, algorithm, parts=N)``: one large file of an algorithm that splits
  (``parhash.splits(algorithm)``) split into tree parts, each hashed by a task that reads only
  the bytes it needs (from a path every node sees or an fsspec URL), combined on the driver into
  the one-machine digest.
- ``multipart_values(path, forms, part_sizes)``: one file's S3 ETag and composite checksums
  for several part sizes, runs of whole parts hashed by tasks, combined on the driver.
- ``verify_ranges(path, digest, outboard, ranges)``: ranges of one file checked against its
  BLAKE3 digest and outboard (``parhash.verify_range``), spread over tasks.
- ``DigestColumn``: a callable for ``ray.data.Dataset.map_batches`` adding a digest column to
  ``ray.data.read_binary_files(..., include_paths=True)``.
- ``write_list``, ``update_list``, ``audit_list``: ``parhash.lists``' write (and resume),
  update and audit of a checksum list, the files hashed on the cluster.
- ``parhash-dist sum|check|verify``: the command line, printing what ``parhash sum|check`` (and
  ``parhash-store verify``) print.

Connecting (every function's ``address``): if this process already called ``ray.init``, that
Ray is used (and never shut down here); otherwise ``ray.init(address)``: None starts a local
Ray (or joins ``RAY_ADDRESS``), ``"auto"`` joins the cluster started on this machine with ``ray
start``, ``"ray://HOST:10001"`` connects through Ray Client. Workers need parhash installed (the
same version) and must see the files at the same paths.

Needs the ``ray`` extra: ``pip install "parhash[ray]"``.
"""

from __future__ import annotations

import os
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union, cast

import parhash
import parhash.format
import parhash.lists

from . import _engine, _lines
from ._engine import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_TASK_BYTES,
    DEFAULT_TASK_FILES,
    DEFAULT_VERSION_RETRIES,
    DistributedError,
    Item,
    Pipeline,
    Progress,
    Spec,
    connect,
)
from ._multipart import multipart_values
from ._ranges import verify_ranges

PathArg = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]

#: Files of a tree-mode algorithm (parsha256, sandstorm*) at least this large are split into
#: parts hashed by several tasks (``split_bytes=None`` keeps every file in one task).
DEFAULT_SPLIT_BYTES = 256 << 20

__all__ = [
    "DEFAULT_MAX_RETRIES",
    "DEFAULT_SPLIT_BYTES",
    "DEFAULT_TASK_BYTES",
    "DEFAULT_TASK_FILES",
    "DEFAULT_VERSION_RETRIES",
    "DigestColumn",
    "DistributedError",
    "Progress",
    "audit_list",
    "connect",
    "hash_file",
    "hash_files",
    "multipart_values",
    "update_list",
    "verify_ranges",
    "write_list",
]


def _is_multipart_form(name: Any) -> bool:
    """Whether `name` names an object store's multipart form, as ``parhash.hash_file`` reads
    it ("etag", "ALG-composite")."""
    return isinstance(name, str) and (name.lower() == "etag" or name.lower().endswith("-composite"))


def _spec(
    algorithm: Union[str, Sequence[str]],
    tree_height: Optional[int],
    iv_bits: Optional[int],
    digest_size: Optional[int] = None,
    part_size: Optional[int] = None,
) -> Spec:
    """Checks the algorithm(s), PARSHA-256's parameters and the digest size on the driver (a
    bad one fails here, before any task runs)."""
    names = [algorithm] if isinstance(algorithm, str) else list(algorithm)
    if part_size is not None or any(map(_is_multipart_form, names)):
        # The library's rules (a form needs a part size S3 takes, the other options do not
        # apply), checked through hash_file of an empty file.
        options = {"tree_height": tree_height, "iv_bits": iv_bits, "digest_size": digest_size}
        given = {key: value for key, value in options.items() if value is not None}
        # Whatever the caller gave, for the library to refuse: no overload is meant to match.
        parhash.hash_file(os.devnull, algorithm, part_size=part_size, **given)  # type: ignore[call-overload]
        several = tuple(names) if not isinstance(algorithm, str) else ()
        return Spec(names[0], algorithms=several, part_size=part_size, multipart=True)
    if not isinstance(algorithm, str):
        return _several_spec(list(algorithm), tree_height, iv_bits, digest_size)
    name = _lines.canonical_name(algorithm)
    takes_tree = parhash.takes_tree_params(name)
    if not takes_tree and (tree_height is not None or iv_bits is not None):
        raise TypeError(f"{name} takes no tree_height or iv_bits (only parsha256 has tree parameters)")
    if takes_tree:
        parhash.new(name, tree_height=tree_height, iv_bits=iv_bits)  # ValueError when out of range
    if digest_size is not None:
        _lines.check_options(name, digest_size=digest_size)  # ValueError for a size it cannot make
        if digest_size == _lines.digest_size(name):
            digest_size = None
    return Spec(name, tree_height, iv_bits, digest_size)


def _several_spec(
    names: List[str], tree_height: Optional[int], iv_bits: Optional[int], digest_size: Optional[int]
) -> Spec:
    """Several algorithms from one read: the library's rules for a list of names (each once;
    tree parameters only with parsha256; a digest size for those with a choice of lengths),
    checked here through ``hash_file`` of an empty file."""
    if not all(isinstance(name, str) for name in names):
        raise TypeError("algorithm must be an algorithm name or a list of them")
    # ValueError/TypeError as parhash.hash_file
    parhash.hash_file(os.devnull, names, tree_height=tree_height, iv_bits=iv_bits, digest_size=digest_size)
    if len(names) == 1:
        return _spec(names[0], tree_height, iv_bits, digest_size)
    canonical = [_lines.canonical_name(name) for name in names]
    return Spec(canonical[0], tree_height, iv_bits, digest_size, algorithms=tuple(names))


def _is_one_path(obj: Any) -> bool:
    return isinstance(obj, (str, bytes)) or hasattr(obj, "__fspath__")


def hash_files(
    paths_or_dirs: Union[PathArg, Iterable[PathArg]],
    algorithm: Union[str, Sequence[str]] = "sha256",
    *,
    address: Optional[str] = None,
    recursive: bool = False,
    tree_height: Optional[int] = None,
    iv_bits: Optional[int] = None,
    digest_size: Optional[int] = None,
    task_bytes: int = DEFAULT_TASK_BYTES,
    task_files: int = DEFAULT_TASK_FILES,
    split_bytes: Optional[int] = DEFAULT_SPLIT_BYTES,
    parts: Optional[int] = None,
    max_running: Optional[int] = None,
    max_retries: int = DEFAULT_MAX_RETRIES,
    progress: Optional[Progress] = None,
    version_retries: int = DEFAULT_VERSION_RETRIES,
    part_size: Optional[int] = None,
) -> Iterator[Tuple[Any, Union[bytes, str, Dict[str, Union[bytes, str]], BaseException]]]:
    """Hashes files on the Ray cluster and yields ``(path, digest)`` in input order, or
    ``(path, error)`` for a file that could not be hashed: the file's ``OSError`` (missing,
    unreadable, a directory without ``recursive``, changed while read) or a
    ``DistributedError`` when the task holding it failed for good. The run always goes on.

    `paths_or_dirs` is one path or an iterable of paths (str, bytes, os.PathLike), read
    lazily; with `recursive` a directory stands for the files below it, walked in ``parhash
    sum -r``'s order, and a directory that cannot be read is yielded with its error in its
    place. Paths are yielded as given (walked ones in the type of their root).

    Files are packed into tasks of about `task_bytes` bytes or `task_files` files (each task
    hashes its files with the library's many-file engine: small files side by side in SIMD
    lanes); at most `max_running` tasks (default twice the cluster's CPUs) run at once and a
    bounded number of results wait to be yielded, so memory stays bounded for any number of
    files. Files of a tree-mode algorithm of at least `split_bytes` bytes are split into
    `parts` parts (default one per CPU of the cluster), as ``hash_file`` does (a file whose
    parts read different versions of it is hashed again, `version_retries` times, then
    yielded with ``parhash.FileChanged``). Ray retries a task `max_retries` times when
    its worker dies. The driver stats each file to pack by bytes. `digest_size` (bytes) for
    blake2b, blake2s, blake3, shake128 and shake256, as ``parhash.hash_files`` (``parhash sum -l``
    in bytes).

    With a list of algorithm names (``["md5", "sha256"]``) each file is read once for all of
    them and yields ``(path, {name: digest})`` (an error once per file, not per algorithm), as
    ``parhash.hash_files`` with a list; such files are never split into parts.

    Object stores' multipart forms as ``parhash.hash_files`` takes them: "etag" and
    "ALG-composite" with `part_size` (bytes), each file yielding the value as the store shows
    it (str; ``{name: value}`` with a list, algorithms beside the forms giving bytes), or
    ValueError for a file over S3's 10,000 parts. Each file is one task's (its parts on that
    worker's cores), never split over tasks.
    """
    spec = _spec(algorithm, tree_height, iv_bits, digest_size, part_size)
    names = cast(Iterable[PathArg], [paths_or_dirs] if _is_one_path(paths_or_dirs) else paths_or_dirs)
    connect(address)
    pipeline = Pipeline(
        spec,
        task_bytes=task_bytes,
        task_files=task_files,
        max_running=max_running,
        max_retries=max_retries,
        split_bytes=split_bytes,
        parts=parts,
        progress=progress,
        version_retries=version_retries,
    )
    items = (
        Item(key=path, path=path) if error is None else Item(key=path, preset=error)
        for path, error in parhash.format.walk(names, recursive)
    )
    return pipeline.run(items)


def hash_file(
    path: PathArg,
    algorithm: str,
    *,
    parts: Optional[int] = None,
    address: Optional[str] = None,
    tree_height: Optional[int] = None,
    iv_bits: Optional[int] = None,
    max_retries: int = DEFAULT_MAX_RETRIES,
    storage_options: Optional[Dict[str, Any]] = None,
    version_retries: int = DEFAULT_VERSION_RETRIES,
) -> bytes:
    """The digest of one file with an algorithm that splits (``parhash.splits(algorithm)``),
    hashed in `parts` parts on the cluster (default: one per CPU, a power of two for
    PARSHA-256, whose plan accepts no other count); the plan may use fewer parts for a short
    file. Equals ``parhash.hash_file(path, algorithm)`` and ``parhash sum``.

    `path` is a path every node sees (a shared file system), or an fsspec URL
    (``s3://bucket/key``, ``gs://...``; `storage_options` go to fsspec): each task reads
    only the byte ranges of its part. The parts' states come back to the driver, which
    combines them (PARSHA-256's combine reads ``plan.top_ranges()`` of the file, a few KiB,
    on the driver). A part whose task fails for good raises ``DistributedError`` naming
    the parts; a state that does not fit the plan (missing, repeated, damaged) is refused by
    the combine step (ValueError), never turned into a wrong digest.

    Each part records which version of the file it read (size, modification time and inode;
    for a URL the object's version id, generation or ETag); parts of different versions (the
    file changed while it was hashed) are not combined: the whole file is hashed again, up to
    `version_retries` times, and then ``parhash.FileChanged`` (an OSError naming the file)
    is raised.
    """
    if _is_multipart_form(algorithm):
        # The parts machinery splits a tree mode's message and combines tree states; a form's
        # parts would need their own digests per byte range and the form's combine step.
        raise ValueError(
            f"{algorithm}: one file's multipart form is computed by one task (hash_files with "
            "part_size), not split over the cluster"
        )
    spec = _spec(algorithm, tree_height, iv_bits)
    if version_retries < 0:
        raise ValueError("version_retries must be at least 0")
    storage_options = dict(storage_options or {})
    if not _engine._is_url(path):
        path = os.fspath(path)
    connect(address)
    if parts is None:
        parts = _engine.default_parts()
    for attempt in range(version_retries + 1):
        try:
            return _hash_file_once(path, spec, parts, max_retries, storage_options)
        except parhash.FileChanged:
            if attempt == version_retries:
                raise
    raise AssertionError("the loop returns or raises")  # pragma: no cover


def _hash_file_once(path: Any, spec: Spec, parts: int, max_retries: int, storage_options: Dict[str, Any]) -> bytes:
    """One try of :func:`hash_file`: plan, hash the parts on the cluster, combine."""
    plan = _engine.make_plan(path, spec, parts, storage_options)
    refs = _engine.submit_parts(plan, path, storage_options, max_retries)
    states: List[bytes] = []
    failures: List[str] = []
    errors: List[BaseException] = []
    for index, ref in enumerate(refs):
        try:
            states.append(_engine.ray.get(ref))
        except Exception as err:  # noqa: BLE001 - collected, then reported together
            errors.append(err)
            failures.append(f"part {index}: {_engine.describe_failure(err)}")
    if failures:
        error = _engine.file_error(errors)
        if error is not None:
            raise error
        raise DistributedError(
            f"{os.fsdecode(path) if not isinstance(path, str) else path}: {len(failures)} of "
            f"{plan.parts} parts failed: " + "; ".join(failures)
        )
    return _engine.combine(plan, states, path, storage_options)


class DigestColumn:
    """A callable for ``Dataset.map_batches`` that adds a digest column, for pipelines on
    Ray Data::

        ds = ray.data.read_binary_files("s3://bucket/dir", include_paths=True)
        ds = ds.map_batches(DigestColumn, fn_constructor_kwargs={"algorithm": "sha256"},
                            concurrency=4)          # or ds.map_batches(DigestColumn("sha256"))
        for row in ds.iter_rows(): print(row["digest"], row["path"])

    Each batch's messages (column `column`, ``bytes`` as ``read_binary_files`` names it) are
    hashed side by side in SIMD lanes (``parhash.hash_many``); the digests go into column
    `output` as hex strings (as ``parhash sum`` prints them) or, with ``hexdigest=False``, as
    bytes. Works with the numpy (dict) and pandas batch formats.
    """

    def __init__(
        self,
        algorithm: str = "sha256",
        *,
        column: str = "bytes",
        output: str = "digest",
        hexdigest: bool = True,
        tree_height: Optional[int] = None,
        iv_bits: Optional[int] = None,
        threads: Optional[int] = 1,
    ):
        self.spec = _spec(algorithm, tree_height, iv_bits)
        self.column = column
        self.output = output
        self.hexdigest = hexdigest
        self.threads = threads

    def _digests(self, messages) -> List[Any]:
        messages = [bytes(m) if not isinstance(m, bytes) else m for m in messages]
        if self.spec.tree_height is not None or self.spec.iv_bits is not None:
            # hash_many uses PARSHA-256's default parameters: other ones one message at a time.
            digests = [parhash.new(self.spec.algorithm, m, **self.spec.tree_kwargs()).digest() for m in messages]
        else:
            digests = parhash.hash_many(messages, self.spec.algorithm, self.threads)
        return [d.hex() for d in digests] if self.hexdigest else digests

    def __call__(self, batch):
        if isinstance(batch, dict):
            import numpy as np

            digests = self._digests(batch[self.column])
            column = np.empty(len(digests), dtype=object)
            column[:] = digests
            return {**batch, self.output: column}
        # pandas.DataFrame (batch_format="pandas").
        batch = batch.copy()
        batch[self.output] = self._digests(batch[self.column])
        return batch


def cluster_hasher(
    algorithm: str = "sha256",
    *,
    tree_params: Optional[Tuple[int, int]] = None,
    digest_size: Optional[int] = None,
    task_bytes: int = DEFAULT_TASK_BYTES,
    task_files: int = DEFAULT_TASK_FILES,
    split_bytes: Optional[int] = DEFAULT_SPLIT_BYTES,
    parts: Optional[int] = None,
    max_retries: int = DEFAULT_MAX_RETRIES,
    progress: Optional[Progress] = None,
    version_retries: int = DEFAULT_VERSION_RETRIES,
) -> parhash.lists.Hasher:
    """A ``parhash.lists`` hasher that hashes on the Ray cluster (connect first): the
    ``Pipeline`` of :func:`hash_files`, results in input order."""
    tree_height, iv_bits = tree_params if tree_params is not None else (None, None)
    spec = _spec(algorithm, tree_height, iv_bits, digest_size)

    def hasher(names: Iterable[bytes]) -> Iterable[Tuple[bytes, Any]]:
        pipeline = Pipeline(
            spec,
            task_bytes=task_bytes,
            task_files=task_files,
            max_retries=max_retries,
            split_bytes=split_bytes,
            parts=parts,
            progress=progress,
            version_retries=version_retries,
        )
        # Workers run elsewhere (another directory, another node): they get absolute paths.
        return pipeline.run(Item(key=name, path=os.path.abspath(name)) for name in names)

    return hasher


def _cluster_options(options: Dict[str, Any]) -> Dict[str, Any]:
    """The keyword arguments of :func:`cluster_hasher` taken out of `options`."""
    names = ("task_bytes", "task_files", "split_bytes", "parts", "max_retries", "progress", "version_retries")
    return {name: options.pop(name) for name in names if name in options}


def _list_hasher(algorithm: str, address: Optional[str], options: Dict[str, Any]) -> parhash.lists.Hasher:
    """Connected to `address`, the cluster hasher for a list's `algorithm`: :func:`cluster_hasher`'s
    keyword arguments taken out of `options`, the list's length and tree parameters read from it."""
    cluster = _cluster_options(options)
    connect(address)
    return cluster_hasher(
        algorithm, tree_params=options.get("tree_params"), digest_size=options.get("digest_size"), **cluster
    )


def write_list(
    list_path: PathArg,
    roots: Sequence[PathArg],
    algorithm: str = "sha256",
    *,
    resume: bool = False,
    address: Optional[str] = None,
    **options: Any,
) -> parhash.lists.ListResult:
    """``parhash.lists.write`` (``parhash sum -r ROOTS -o LIST [--resume]``) with the files
    hashed on the cluster; the list and its side file, written on the driver, are byte for
    byte those of ``parhash sum -o``. `options`: ``parhash.lists.write``'s (``tag``,
    ``tree_params``, ``digest_size``, ``on_message``...) and :func:`cluster_hasher`'s."""
    hasher = _list_hasher(algorithm, address, options)
    return parhash.lists.write(list_path, roots, algorithm, resume=resume, hasher=hasher, **options)


def update_list(
    list_path: PathArg,
    roots: Sequence[PathArg],
    algorithm: str = "sha256",
    *,
    rehash_changed: bool = False,
    address: Optional[str] = None,
    **options: Any,
) -> parhash.lists.ListResult:
    """``parhash.lists.update`` (``parhash sum -r ROOTS -o LIST --update``) with the new and
    changed files hashed on the cluster; `options` as :func:`write_list`'s."""
    hasher = _list_hasher(algorithm, address, options)
    return parhash.lists.update(list_path, roots, algorithm, rehash_changed=rehash_changed, hasher=hasher, **options)


def audit_list(
    list_path: PathArg, paths: Optional[Sequence[PathArg]] = None, *, address: Optional[str] = None, **options: Any
) -> parhash.lists.AuditResult:
    """``parhash.lists.audit`` (``parhash check --audit LIST``) with the tree hashed on the
    cluster; `options`: ``parhash.lists.audit``'s (``json``, ``quiet``...) and
    :func:`cluster_hasher`'s."""
    cluster = _cluster_options(options)
    connect(address)

    def hasher_for(algorithm: str, **spec: Any) -> parhash.lists.Hasher:
        return cluster_hasher(algorithm, **spec, **cluster)

    return parhash.lists.audit(list_path, paths, hasher_for=hasher_for, **options)
