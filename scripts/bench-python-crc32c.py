#!/usr/bin/env python3
"""CRC-32C of 1 GiB from Python: parhash against google-crc32c (Google's C CRC-32C, GCS's SDK).

    target/py-venv/bin/python scripts/bench-python-crc32c.py [--size-mib 1024] [--rounds 5] [--dir DIR]

In memory (one bytes object): parhash.crc32c(data) on one thread; on every core, through the
library's parts (parhash.PartPlan: a contiguous range per core hashed with the GIL released,
the CRCs joined by the library's combine step); google_crc32c.value(data). A cached file:
parhash.hash_file(path, "crc32c") on every core and with threads=1, against google-crc32c's
Checksum fed in 8 MiB reads. Rounds alternate the cases (after one warm-up); prints each
case's median ms and the median of the rounds' ratios to google-crc32c's. Every value is
checked against google-crc32c's first.
"""

import argparse
import os
import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import google_crc32c  # type: ignore[import-not-found, unused-ignore]  # no stubs
import parhash

parser = argparse.ArgumentParser()
parser.add_argument("--size-mib", type=int, default=1024)
parser.add_argument("--rounds", type=int, default=5)
parser.add_argument("--dir", default=None, help="where the file is written (default: the temp dir)")
args = parser.parse_args()
cores = os.cpu_count() or 1
data = os.urandom(args.size_mib << 20)
pool = ThreadPoolExecutor(cores)


def all_cores(message: bytes) -> bytes:
    plan = parhash.PartPlan("crc32c", len(message), cores)
    states = list(pool.map(lambda i: plan.hash_part(i, message), range(plan.parts)))
    return plan.combine(states)


def google_file(path: str) -> bytes:
    checksum = google_crc32c.Checksum()
    with open(path, "rb", buffering=0) as file:
        while chunk := file.read(8 << 20):
            checksum.update(chunk)
    return checksum.digest()


with tempfile.NamedTemporaryFile(dir=args.dir) as file:
    file.write(data)
    file.flush()
    path = file.name
    want = google_crc32c.value(data).to_bytes(4, "big")
    cases = {
        "memory google-crc32c value()": lambda: google_crc32c.value(data).to_bytes(4, "big"),
        "memory parhash 1 thread": lambda: parhash.crc32c(data).digest(),
        f"memory parhash {cores} threads (PartPlan)": lambda: all_cores(data),
        "file google-crc32c 8 MiB reads": lambda: google_file(path),
        "file parhash hash_file 1 thread": lambda: parhash.hash_file(path, "crc32c", threads=1),
        f"file parhash hash_file {cores} threads": lambda: parhash.hash_file(path, "crc32c"),
    }
    times: dict[str, list[float]] = {name: [] for name in cases}
    for round_ in range(args.rounds + 1):
        for name, case in cases.items():
            start = time.perf_counter()
            got = case()
            elapsed = time.perf_counter() - start
            assert got == want, (name, got.hex(), want.hex())
            if round_:
                times[name].append(elapsed)
    for name, runs in times.items():
        peer = "memory google-crc32c value()" if name.startswith("memory") else "file google-crc32c 8 MiB reads"
        ratio = statistics.median(p / t for p, t in zip(times[peer], runs))
        print(f"{name:42} {statistics.median(runs) * 1000:8.1f} ms  {ratio:5.2f}x google-crc32c")
print(f"{args.size_mib} MiB, {cores} cores, {args.rounds} rounds, load {os.getloadavg()[0]:.1f}")
