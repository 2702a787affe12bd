#!/usr/bin/env bash
# On a GPU machine, after scripts/gpu-check.sh's build is carried over (target/gpu-check/):
# runs `parhash bench --preset gpu` three more times (for medians) and reads Nsight Compute's
# counters for the SHA-256 kernels (instructions executed per compression, the integer pipes'
# share of their peak), so the batched SHA-256 figure can be set against the device's integer
# peak with a reading rather than an instruction-count estimate. Writes into $1 (default
# target/gpu-check/profile/).
#   scripts/gpu-profile.sh [OUT_DIR]
set -uo pipefail
cd "$(dirname "$0")/.."
dir=target/gpu-check
out="${1:-$dir/profile}"
mkdir -p "$out"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PARHASH_CUDA_CACHE="${PARHASH_CUDA_CACHE:-$PWD/$dir/ptx-cache}"
bin="$dir/bin/parhash"
for i in 1 2 3; do
  "$bin" bench --preset gpu --out "$out/bench-$i" > "$out/bench-$i.txt" 2>&1 || echo "bench run $i failed"
done
ncu="$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n 1)"
if [ -z "$ncu" ]; then
  echo "gpu-profile: ncu not found" | tee "$out/ncu.txt"
  exit 1
fi
# The first launches of the preset: 3 of sha256_batch on 55-byte messages, 3 on 1000-byte ones,
# then the nonce search.
"$ncu" -k regex:'sha256_batch|nonce_search' -c 7 \
  --metrics smsp__inst_executed.sum,smsp__thread_inst_executed.sum,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second \
  "$bin" bench --preset gpu --out "$out/ncu-bench" > "$out/ncu-metrics.txt" 2>&1 || echo "ncu (metrics) failed"
"$ncu" -k sha256_batch -c 1 --section SpeedOfLight --section ComputeWorkloadAnalysis \
  --section InstructionStats --section Occupancy \
  "$bin" bench --preset gpu --out "$out/ncu-bench-sections" > "$out/ncu-sections.txt" 2>&1 || echo "ncu (sections) failed"
echo "gpu-profile: wrote $out"
