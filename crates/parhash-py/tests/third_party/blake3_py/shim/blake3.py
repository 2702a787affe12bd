"""`import blake3` imports parhash (blake3-py's suite, run against parhash: see ../README.md)."""

import sys

import parhash

sys.modules[__name__] = parhash
