#!/usr/bin/env python3
"""Runs one criterion bench binary several times and gives, per benchmark, the median over the
rounds of criterion's point estimate, and its ratio to a peer measured in the same rounds.

    scripts/bench-rounds.py BINARY [--rounds 3] [--peer openssl] [-- criterion args...]

Benchmarks are named GROUP/FUNCTION/SIZE; the ratio column is time / time of GROUP/PEER/SIZE
(above 1 = slower than the peer). BINARY is what `cargo bench --no-run` builds."""
import argparse
import re
import statistics
import subprocess
import sys
import tempfile

UNITS = {"ps": 1e-3, "ns": 1.0, "µs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9}
TIME = re.compile(r"time:\s+\[\S+ \S+ (\S+) (\S+) \S+ \S+\]")


def run(binary, args, home):
    out = subprocess.run([binary, "--bench", *args], env={"CRITERION_HOME": home, "PATH": "/usr/bin:/bin"},
                         capture_output=True, text=True, check=True).stdout
    results, name = {}, None
    for line in out.splitlines():
        m = TIME.search(line)
        head = line.split("time:")[0].strip()
        if m:
            results[head or name] = float(m.group(1)) * UNITS[m.group(2)]
        elif line.strip() and not line.startswith(" "):
            name = line.strip()
    return results


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("binary")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--peer", default="openssl")
    argv = sys.argv[1:]
    split = argv.index("--") if "--" in argv else len(argv)
    a = p.parse_args(argv[:split])
    a.args = argv[split + 1:]
    rounds = []
    with tempfile.TemporaryDirectory() as home:
        for _ in range(a.rounds):
            rounds.append(run(a.binary, a.args, home))
    names = list(rounds[0])
    med = {n: statistics.median(r[n] for r in rounds if n in r) for n in names}
    print(f"{'benchmark':48} {'median':>12} {'MB/s':>9} {'vs ' + a.peer:>10}")
    for n in names:
        group, _, size = n.partition("/")[0], None, n.rsplit("/", 1)[-1]
        peer = f"{group}/{a.peer}/{size}"
        ratio = f"{med[n] / med[peer]:.3f}" if peer in med else "-"
        mbps = f"{int(size) / med[n] * 1e3:.0f}" if size.isdigit() else "-"
        print(f"{n:48} {med[n]:10.0f}ns {mbps:>9} {ratio:>10}")


if __name__ == "__main__":
    main()
