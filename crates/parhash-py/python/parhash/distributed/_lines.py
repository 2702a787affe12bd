"""Algorithm facts ``parhash-dist`` asks often, remembered. Every rule of the checksum-list
format (lines, tags, lengths, escaping, checking) is :mod:`parhash.format`, the CLI's code."""

from __future__ import annotations

import os
from functools import lru_cache
from typing import Any

import parhash


@lru_cache(maxsize=None)
def canonical_name(name: str) -> str:
    """The canonical name of an algorithm name or alias (ValueError for an unknown one)."""
    return parhash.new(name).name


@lru_cache(maxsize=None)
def digest_size(algorithm: str) -> int:
    """The default digest size in bytes: the library's (and the CLI's), which for SHAKE is 32
    or 64 where hashlib's SHAKE objects say 0."""
    return len(parhash.hash_many([b""], algorithm)[0])


def check_options(algorithm: str, **options: Any) -> None:
    """Raises the ValueError (or TypeError) a file hashed with these options would raise:
    through ``hash_file``, which takes every option for every algorithm (``parhash.blake3``
    objects, as blake3-py's, take a length at ``digest()`` instead of ``digest_size``)."""
    parhash.hash_file(os.devnull, algorithm, **options)


class _Sized:
    """A ``parhash.blake3`` object that gives ``size`` bytes of digest."""

    def __init__(self, hasher: Any, size: int) -> None:
        self._hasher, self._size = hasher, size

    def update(self, data: Any) -> None:
        self._hasher.update(data)

    def digest(self) -> bytes:
        return self._hasher.digest(self._size)


def new(algorithm: str, **options: Any) -> Any:
    """A hash object for ``algorithm`` with ``hash_files``' options (``digest_size`` too)."""
    size = options.pop("digest_size", None)
    if size is not None and algorithm == "blake3":
        return _Sized(parhash.new(algorithm, **options), size)
    if size is not None:
        options["digest_size"] = size
    return parhash.new(algorithm, **options)
