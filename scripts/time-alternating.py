#!/usr/bin/env python3
"""Wall time of several commands, run in turn round after round, medians side by side.

    scripts/time-alternating.py [--rounds 5] [--warmup 0] [--evict FILE] [--before COMMAND]
        [NAME=]COMMAND ...

Each round runs every command once (the order rotates each round, so clock and load changes
on a shared machine land on all alike); a command's output goes to /dev/null. With --evict,
FILE's pages are dropped from the page cache (posix_fadvise DONTNEED) before every run, so
each run reads it cold. With --before, COMMAND runs (untimed) before every run: `cat FILE >
/dev/null` puts back in the page cache what a machine that reclaims idle page cache (as some
VMs do within minutes) took out, so that "cached" means cached. Prints a Markdown table:
median and min wall time per command, the median over rounds of each command's time divided
by the first command's in that round, and
the median CPU time (user + system, all threads)."""

import argparse
import os
import re
import resource
import statistics
import subprocess
import time


def evict(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


NAMED = re.compile(r"([\w.-]+)=(.*)", re.S)


def named(text):
    """(NAME, COMMAND) from 'NAME=COMMAND', or (text, text)."""
    m = NAMED.fullmatch(text)
    return (m.group(1), m.group(2)) if m else (text, text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=0, help="rounds run first and not counted")
    parser.add_argument("--evict", help="file to drop from the page cache before each run")
    parser.add_argument("--before", help="command (run by sh, not timed) before each run")
    parser.add_argument("commands", nargs="+", help="[NAME=]COMMAND (run by sh)")
    args = parser.parse_args()
    commands = [named(c) for c in args.commands]
    times = {name: [] for name, _ in commands}
    cpu = {name: [] for name, _ in commands}
    for round_ in range(args.warmup + args.rounds):
        counted = round_ >= args.warmup
        shift = round_ % len(commands)
        for name, command in commands[shift:] + commands[:shift]:
            if args.evict:
                evict(args.evict)
            if args.before:
                subprocess.run(args.before, shell=True, check=True, stdout=subprocess.DEVNULL)
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run(command, shell=True, check=True, stdout=subprocess.DEVNULL)
            wall = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if not counted:
                continue
            times[name].append(wall)
            cpu[name].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    first = commands[0][0]
    print(f"| command | median wall (s) | min wall (s) | wall / {first} | median CPU (s) |")
    print("|---|---|---|---|---|")
    for name, _command in commands:
        ratios = [t / f for t, f in zip(times[name], times[first])]
        print(
            f"| {name} | {statistics.median(times[name]):.4f} | {min(times[name]):.4f} "
            f"| {statistics.median(ratios):.3f} | {statistics.median(cpu[name]):.4f} |"
        )


if __name__ == "__main__":
    main()
