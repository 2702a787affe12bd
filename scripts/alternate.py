#!/usr/bin/env python3
"""Alternating runs of shell commands, medians side by side.

    scripts/alternate.py [--rounds 5] [--warmup 1] CMD_A CMD_B [CMD_C ...]

Each round runs every command once (the order rotates every round), so a change of load on a
shared machine lands on all of them alike; stdout is discarded. Prints each command's median
wall time, min and max, and its ratio to the first command's median (above 1 = slower)."""
import argparse
import statistics
import subprocess
import time


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--warmup", type=int, default=1)
    p.add_argument("commands", nargs="+")
    a = p.parse_args()
    times = {c: [] for c in a.commands}
    n = len(a.commands)
    for r in range(a.warmup + a.rounds):
        order = a.commands[r % n:] + a.commands[: r % n]
        for c in order:
            t0 = time.perf_counter()
            subprocess.run(c, shell=True, check=True, stdout=subprocess.DEVNULL)
            if r >= a.warmup:
                times[c].append(time.perf_counter() - t0)
    base = statistics.median(times[a.commands[0]])
    for c in a.commands:
        t = times[c]
        m = statistics.median(t)
        print(f"{m:8.3f} s  (min {min(t):.3f}, max {max(t):.3f})  x{m / base:.3f}  {c}")


if __name__ == "__main__":
    main()
