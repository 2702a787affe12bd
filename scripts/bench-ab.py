#!/usr/bin/env python3
"""Alternating A/B runs of two builds of one criterion bench, medians side by side.

    scripts/bench-ab.py BEFORE_BINARY AFTER_BINARY [--rounds 3] [-- criterion args...]

Each round runs BEFORE then AFTER (the order flips every round), so clock and load changes on a
shared machine land on both alike; the table gives, per benchmark, the median over rounds of
criterion's point estimate for each, and after/before (above 1 = slower after). The binaries are
what `cargo bench --no-run` builds (target/release/deps/NAME-HASH); build the same bench file
against the two checkouts. Criterion's own files go to a temporary directory per side."""
import argparse
import re
import statistics
import subprocess
import sys
import tempfile

UNITS = {"ps": 1e-3, "ns": 1.0, "µs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9}
TIME = re.compile(r"time:\s+\[\S+ \S+ (\S+) (\S+) \S+ \S+\]")


def run(binary, args, home):
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


def main():
    p = argparse.ArgumentParser()
    p.add_argument("before")
    p.add_argument("after")
    p.add_argument("--rounds", type=int, default=3)
    a, criterion = p.parse_known_args()
    a.criterion = [arg for arg in criterion if arg != "--"]
    samples = {"before": {}, "after": {}}
    with tempfile.TemporaryDirectory() as before_home, tempfile.TemporaryDirectory() as after_home:
        sides = [("before", a.before, before_home), ("after", a.after, after_home)]
        for r in range(a.rounds):
            for side, binary, home in sides if r % 2 == 0 else sides[::-1]:
                print(f"round {r + 1}: {side}", file=sys.stderr, flush=True)
                for name, ns in run(binary, a.criterion, home).items():
                    samples[side].setdefault(name, []).append(ns)
    print("| benchmark | before (ns) | after (ns) | after / before |")
    print("|---|---:|---:|---:|")
    for name in samples["before"]:
        if name not in samples["after"]:
            continue
        b = statistics.median(samples["before"][name])
        f = statistics.median(samples["after"][name])
        print(f"| {name} | {b:,.1f} | {f:,.1f} | {f / b:.3f} |")


if __name__ == "__main__":
    main()
