#!/usr/bin/env python3
"""Per-call cost of parhash's hashlib-style types against hashlib, on a 64-byte message.

    target/py-venv/bin/python scripts/python-percall.py [blake2b blake2s "blake2b key" ...]

Nine rounds alternate parhash and hashlib (`timeit` of 20,000 calls, best of 3); prints, per
case, the median ns per call of each and the median of the per-round ratios parhash / hashlib.
BENCHMARKS.md ("Python") quotes it.
"""

import hashlib
import statistics
import sys
import timeit

import parhash

b = bytes(range(64))
k = bytes(range(32))
cases = {
    "blake2b": (lambda: parhash.blake2b(b).digest(), lambda: hashlib.blake2b(b).digest()),
    "blake2s": (lambda: parhash.blake2s(b).digest(), lambda: hashlib.blake2s(b).digest()),
    "blake2b key": (lambda: parhash.blake2b(b, key=k).digest(), lambda: hashlib.blake2b(b, key=k).digest()),
    "blake2s key": (lambda: parhash.blake2s(b, key=k).digest(), lambda: hashlib.blake2s(b, key=k).digest()),
    "sha256": (lambda: parhash.sha256(b).digest(), lambda: hashlib.sha256(b).digest()),
    "md5": (lambda: parhash.md5(b).digest(), lambda: hashlib.md5(b).digest()),
    "sha3_256": (lambda: parhash.sha3_256(b).digest(), lambda: hashlib.sha3_256(b).digest()),
}
for n in sys.argv[1:] or list(cases):
    p, h = cases[n]
    r, tp, th = [], [], []
    for _ in range(9):
        a = min(timeit.repeat(p, number=20000, repeat=3)) / 20000
        c = min(timeit.repeat(h, number=20000, repeat=3)) / 20000
        r.append(a / c)
        tp.append(a)
        th.append(c)
    print(n, statistics.median(tp) * 1e9, statistics.median(th) * 1e9, statistics.median(r))
