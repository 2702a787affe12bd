#!/usr/bin/env python3
"""Lists the functions of a binary that move 32- or 64-byte registers to or from their stack
frame with unaligned moves, and whether each aligns its frame (`and $-32/-64, %rsp`).

Why: a vector kernel whose frame keeps the caller's 16-byte alignment splits cache lines on
those moves or not as the call chain falls, so the same kernel runs at different speeds in
different binaries (SANDstorm-256 in `parhash sum`: BENCHMARKS.md, the AVX2 kernels'
frames). `platform::align_frame` is the cure for spills; local arrays with a
small alignment stay unaligned whatever the frame.

Usage: scripts/stack-alignment-scan.py [BINARY] (default target/release/parhash); needs objdump.
"""

import collections
import re
import subprocess
import sys

binary = sys.argv[1] if len(sys.argv) > 1 else "target/release/parhash"
listing = subprocess.run(
    ["objdump", "-d", "--no-show-raw-insn", binary], capture_output=True, text=True, check=True
).stdout

UNALIGNED = re.compile(
    r"(vmovdqu(8|16|32|64)?|vmovups)\s+(%[yz]mm\d+,-?0x[0-9a-f]+\(%rsp\)|-?0x[0-9a-f]*\(%rsp\),%[yz]mm)"
)
REALIGN = re.compile(r"and\s+\$0xffffffffffffff[ce]0,%rsp")

# function -> [unaligned wide stack moves, aligns its frame]
stats: dict[str, list] = collections.defaultdict(lambda: [0, False])
function = None
for line in listing.splitlines():
    header = re.match(r"^[0-9a-f]+ <(.*)>:", line)
    if header:
        function = header.group(1)
        continue
    if function is None:
        continue
    if REALIGN.search(line):
        stats[function][1] = True
    if UNALIGNED.search(line):
        stats[function][0] += 1

rows = sorted(((n, aligned, f) for f, (n, aligned) in stats.items() if n >= 4), reverse=True)
print("unaligned-moves  frame-aligned  function")
for n, aligned, function in rows:
    print(f"{n:15}  {str(aligned):13}  {function}")
