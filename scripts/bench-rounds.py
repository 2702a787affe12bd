#!/usr/bin/env python3
"""Criterion bench binaries run round after round, medians of criterion's point estimates.

    scripts/bench-rounds.py BINARY [--rounds 3] [--peer openssl] [-- criterion args...]
    scripts/bench-rounds.py BEFORE AFTER [--rounds 3] [-- criterion args...]

One binary: per benchmark (named GROUP/FUNCTION/SIZE), the median over the rounds and its ratio
to GROUP/PEER/SIZE measured in the same rounds (above 1 = slower than the peer).
Two binaries (an A/B of two builds of one bench file): each round runs BEFORE then AFTER, the
order flipping every round, so clock and load changes on a shared machine land on both alike;
per benchmark the medians and after/before (above 1 = slower after).
The binaries are what `cargo bench --no-run` builds (target/release/deps/NAME-HASH).
Criterion's own files go to a temporary directory per binary."""

import argparse
import re
import statistics
import subprocess
import sys
import tempfile

UNITS = {"ps": 1e-3, "ns": 1.0, "µs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9}
TIME = re.compile(r"time:\s+\[\S+ \S+ (\S+) (\S+) \S+ \S+\]")


def run(binary, args, home):
    """Criterion's point estimate (ns) per benchmark name, from one run of `binary`."""
    out = subprocess.run(
        [binary, "--bench", *args],
        env={"CRITERION_HOME": home, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    results, name = {}, None
    for line in out.splitlines():
        m = TIME.search(line)
        head = line.split("time:")[0].strip()
        if m:
            results[head or name] = float(m.group(1)) * UNITS[m.group(2)]
        elif line.strip() and not line.startswith(" "):
            name = line.strip()
    return results


def rounds_of(binaries, args, rounds):
    """{binary index: {benchmark: [ns per round]}}, the binaries' order flipping every round."""
    samples = [{} for _ in binaries]
    homes = [tempfile.TemporaryDirectory() for _ in binaries]
    try:
        order = list(range(len(binaries)))
        for r in range(rounds):
            for i in order if r % 2 == 0 else order[::-1]:
                print(f"round {r + 1}: {binaries[i]}", file=sys.stderr, flush=True)
                for name, ns in run(binaries[i], args, homes[i].name).items():
                    samples[i].setdefault(name, []).append(ns)
    finally:
        for home in homes:
            home.cleanup()
    return [{name: statistics.median(ns) for name, ns in side.items()} for side in samples]


def against_peer(med, peer):
    print(f"{'benchmark':48} {'median':>12} {'MB/s':>9} {'vs ' + peer:>10}")
    for n in med:
        group, size = n.partition("/")[0], n.rsplit("/", 1)[-1]
        other = f"{group}/{peer}/{size}"
        ratio = f"{med[n] / med[other]:.3f}" if other in med else "-"
        mbps = f"{int(size) / med[n] * 1e3:.0f}" if size.isdigit() else "-"
        print(f"{n:48} {med[n]:10.0f}ns {mbps:>9} {ratio:>10}")


def before_after(before, after):
    print("| benchmark | before (ns) | after (ns) | after / before |")
    print("|---|---:|---:|---:|")
    for name, b in before.items():
        if name in after:
            print(f"| {name} | {b:,.1f} | {after[name]:,.1f} | {after[name] / b:.3f} |")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("binaries", nargs="+", metavar="BINARY", help="one bench binary, or BEFORE AFTER")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--peer", default="openssl", help="with one binary: the function to compare with")
    argv = sys.argv[1:]
    split = argv.index("--") if "--" in argv else len(argv)
    a = p.parse_args(argv[:split])
    if len(a.binaries) > 2:
        p.error("one binary, or two (BEFORE AFTER)")
    medians = rounds_of(a.binaries, argv[split + 1 :], a.rounds)
    if len(medians) == 1:
        against_peer(medians[0], a.peer)
    else:
        before_after(*medians)


if __name__ == "__main__":
    main()
