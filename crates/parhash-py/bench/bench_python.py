"""The Python package against its peers, side by side in one run (BENCHMARKS.md, "Python package").

    target/py-venv/bin/python crates/parhash-py/bench/bench_python.py [--quick]

Needs the package installed from a release build (`pip install ./crates/parhash-py`, as
scripts/test-python.sh does), `blake3` (pip) for the update_mmap peer, and the release CLI
(`cargo build --release -p parhash-cli`) for the hash_file rows. Each pair is measured in
alternating rounds; the medians and their ratio are printed. Timings only: nothing is asserted.
"""

import argparse
import hashlib
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import timeit

import parhash

REPO = pathlib.Path(__file__).resolve().parents[3]


CPU_PER_WALL = {}


def alternate(rounds, **candidates):
    """Median seconds of each candidate (a no-argument callable), measured in turns. Also
    keeps each candidate's median CPU seconds (all threads) per wall second in CPU_PER_WALL: 2
    means two cores were busy, which is what a parallel candidate needs and a loaded machine
    (another process on a core) denies it."""
    times = {name: [] for name in candidates}
    cpu = {name: [] for name in candidates}
    for _ in range(rounds):
        for name, run in candidates.items():
            start, start_cpu = time.perf_counter(), time.process_time()
            run()
            wall = time.perf_counter() - start
            times[name].append(wall)
            cpu[name].append((time.process_time() - start_cpu) / wall)
    CPU_PER_WALL.update({name: statistics.median(c) for name, c in cpu.items()})
    return {name: statistics.median(t) for name, t in times.items()}


def per_call(rounds):
    print("## Per-call cost, 64-byte message: constructor + update + digest (ns per call)")
    data = os.urandom(64)
    calls = 200_000
    print("| algorithm | hashlib | parhash | parhash / hashlib |")
    print("|---|---:|---:|---:|")
    for name in ["sha256", "md5", "sha3_256"]:
        ours, theirs = getattr(parhash, name), getattr(hashlib, name)
        t = alternate(
            rounds,
            hashlib=lambda: timeit.timeit(lambda: theirs(data).digest(), number=calls),
            parhash=lambda: timeit.timeit(lambda: ours(data).digest(), number=calls),
        )
        h, p = t["hashlib"] / calls * 1e9, t["parhash"] / calls * 1e9
        print(f"| {name} | {h:.0f} | {p:.0f} | {p / h:.2f}x |")


def many(rounds):
    print("\n## hash_many: 100,000 x 4 KiB, sha256 (ms)")
    messages = [os.urandom(4096) for _ in range(100_000)]
    t = alternate(
        rounds,
        hashlib_loop=lambda: [hashlib.sha256(m).digest() for m in messages],
        hash_many=lambda: parhash.hash_many(messages, "sha256"),
    )
    print(f"hashlib loop {t['hashlib_loop'] * 1e3:.0f} ms, parhash.hash_many "
          f"{t['hash_many'] * 1e3:.0f} ms: {t['hashlib_loop'] / t['hash_many']:.2f}x faster "
          f"({os.cpu_count()} cores; hash_many kept {CPU_PER_WALL['hash_many']:.2f} cores busy)")


def two_threads(rounds):
    print("\n## Two Python threads, 256 MiB each (sha256; GIL released) vs one after the other")
    datas = [os.urandom(256 << 20), os.urandom(256 << 20)]

    def serial(module):
        for d in datas:
            module.sha256(d).digest()

    def parallel(module):
        threads = [threading.Thread(target=lambda d=d: module.sha256(d).digest()) for d in datas]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    # hashlib (OpenSSL) releases the GIL too: its two threads show what this machine's two
    # cores give two SHA-256 streams at once (vCPUs may share a core's SHA unit).
    t = alternate(rounds, serial=lambda: serial(parhash), parallel=lambda: parallel(parhash),
                  hashlib_serial=lambda: serial(hashlib), hashlib_parallel=lambda: parallel(hashlib))
    ours, theirs = t["serial"] / t["parallel"], t["hashlib_serial"] / t["hashlib_parallel"]
    print(f"parhash: serial {t['serial'] * 1e3:.0f} ms, two threads {t['parallel'] * 1e3:.0f} ms: "
          f"{ours:.2f}x (the two threads kept {CPU_PER_WALL['parallel']:.2f} cores busy)")
    print(f"hashlib: serial {t['hashlib_serial'] * 1e3:.0f} ms, two threads "
          f"{t['hashlib_parallel'] * 1e3:.0f} ms: {theirs:.2f}x (kept "
          f"{CPU_PER_WALL['hashlib_parallel']:.2f} cores busy); parhash two threads / hashlib two "
          f"threads (time): {t['parallel'] / t['hashlib_parallel']:.2f}")
    # What the copy of a mutable buffer costs (docs/python.md, "Buffers and the GIL").
    mutable = bytearray(datas[0])
    t = alternate(rounds, bytes=lambda: parhash.sha256(datas[0]).digest(),
                  bytearray=lambda: parhash.sha256(mutable).digest())
    print(f"256 MiB sha256 from bytes {t['bytes'] * 1e3:.0f} ms, from a bytearray (copied in "
          f"4 MiB steps) {t['bytearray'] * 1e3:.0f} ms: {t['bytearray'] / t['bytes']:.2f}x")


def files(rounds, size):
    cli = REPO / "target" / "release" / "parhash"
    print(f"\n## Files: {size >> 20} MiB in the page cache (ms; GB/s)")
    with tempfile.TemporaryDirectory() as folder:  # /tmp: one 1 GiB file, deleted after
        path = pathlib.Path(folder) / "big"
        with open(path, "wb") as f:
            for _ in range(size >> 24):
                f.write(os.urandom(1 << 24))
        if cli.exists():
            print("| algorithm | CLI `parhash sum` | hash_file | CLI time / hash_file time |")
            print("|---|---:|---:|---:|")
            for name in ["sandstorm256", "parsha256"]:
                run_cli = lambda: subprocess.run([str(cli), "sum", "-a", name, "--no-progress", str(path)],
                                                 check=True, capture_output=True)
                t = alternate(rounds, cli=run_cli, hash_file=lambda: parhash.hash_file(path, name))
                print(f"| {name} | {t['cli'] * 1e3:.0f} | {t['hash_file'] * 1e3:.0f} | "
                      f"{t['cli'] / t['hash_file']:.2f}x |")
        else:
            print(f"({cli} missing: cargo build --release -p parhash-cli)")
        candidates = {
            "parhash.hash_file sha256": lambda: parhash.hash_file(path, "sha256"),
            "hashlib.file_digest sha256": lambda: _file_digest(path),
            "parhash.file_digest sha256": lambda: _file_digest(path, parhash),
        }
        try:
            import blake3
            candidates["blake3 update_mmap (blake3)"] = lambda: blake3.blake3(max_threads=blake3.blake3.AUTO).update_mmap(path).digest()
        except ImportError:
            print("(blake3 not installed: pip install blake3)")
        t = alternate(rounds, **candidates)
        print("| reader | ms | GB/s |")
        print("|---|---:|---:|")
        for name, seconds in t.items():
            print(f"| {name} | {seconds * 1e3:.0f} | {size / seconds / 1e9:.2f} |")


def _file_digest(path, module=hashlib):
    with open(path, "rb") as f:
        return module.file_digest(f, "sha256").digest()


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer rounds, smaller file")
    parser.add_argument("--only", choices=["calls", "many", "threads", "files"], action="append",
                        help="run only this part (repeatable; default: all)")
    parser.add_argument("--rounds", type=int, default=None, help="alternating rounds (default 7, 3 with --quick)")
    args = parser.parse_args()
    rounds = args.rounds or (3 if args.quick else 7)
    parts = set(args.only or ["calls", "many", "threads", "files"])
    print(f"parhash {parhash.__version__}, Python {sys.version.split()[0]}, "
          f"{os.cpu_count()} cores, {rounds} alternating rounds, medians; load average "
          f"{os.getloadavg()[0]:.1f} at the start\n")
    if "calls" in parts:
        per_call(rounds)
    if "many" in parts:
        many(rounds)
    if "threads" in parts:
        two_threads(rounds)
    if "files" in parts:
        files(rounds, (256 << 20) if args.quick else (1 << 30))


if __name__ == "__main__":
    main()
