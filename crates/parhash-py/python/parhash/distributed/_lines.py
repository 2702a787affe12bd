"""Algorithm facts ``parhash-dist`` asks often, remembered. Every rule of the checksum-list
format (lines, tags, lengths, escaping, checking) is :mod:`parhash.format`, the CLI's code."""

from __future__ import annotations

from functools import lru_cache

import parhash


@lru_cache(maxsize=None)
def canonical_name(name: str) -> str:
    """The canonical name of an algorithm name or alias (ValueError for an unknown one)."""
    return parhash.new(name).name


@lru_cache(maxsize=None)
def digest_size(algorithm: str) -> int:
    """The default digest size in bytes."""
    return parhash.new(algorithm).digest_size
