"""The Python package's GPU calls against its CPU and hashlib, on a GPU machine without pytest:
scripts/gpu-check.sh runs it with the wheel scripts/gpu-build.sh built unpacked on PYTHONPATH.
Exit status 0 only if every digest matched; each check prints one line."""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile

import parhash


def main() -> int:
    print(f"GPU: {parhash.gpu_device()}")
    failed = 0

    def check(what: str, ok: bool) -> None:
        nonlocal failed
        print(f"{'ok' if ok else 'FAILED'}: {what}")
        failed += not ok

    # Batches that do not fill a buffer, one message, empty messages, then many (of mixed lengths,
    # and of one length, which travel without tables).
    batches = [[b""], [b"abc"], [b"", b"", b"x" * 55], [os.urandom(n % 997) for n in range(200_000)],
               [os.urandom(55) for _ in range(200_000)]]  # fmt: skip
    for batch in batches:
        for alg in ("sha256", "sha3_256", "keccak256", "parsha256"):
            # PARSHA-256 runs one tree per message: a few thousand say as much as 200,000.
            some = batch[:2000] if alg == "parsha256" else batch
            got = parhash.hash_many(some, alg, device="gpu")
            check(f"hash_many {alg} of {len(some)} messages", got == parhash.hash_many(some, alg))
        sha = parhash.hash_many(batch, "sha256", device="gpu")
        check(f"sha256 of {len(batch)} messages against hashlib", sha == [hashlib.sha256(m).digest() for m in batch])
    with tempfile.TemporaryDirectory() as d:
        piece = 16 << 20
        for n in (0, 100, piece - 1, piece + 1, 3 * piece + 12345):
            path = os.path.join(d, f"f{n}")
            with open(path, "wb") as f:
                f.write(os.urandom(n))
            for t, iv in ((13, 256), (8, 128)):
                gpu = parhash.hash_file(path, "parsha256", tree_height=t, iv_bits=iv, device="gpu")
                cpu = parhash.hash_file(path, "parsha256", tree_height=t, iv_bits=iv)
                check(f"hash_file parsha256 T={t} l={iv} of {n} bytes", gpu == cpu)
    print("gpu-check-python: all passed" if not failed else f"gpu-check-python: {failed} FAILED")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
