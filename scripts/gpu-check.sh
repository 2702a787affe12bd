#!/usr/bin/env bash
# Runs parhash's GPU checks on a GPU machine that has CUDA (driver, NVRTC) and Python but no
# cargo, using the binaries scripts/gpu-build.sh built beforehand (target/gpu-check/, carried
# over). Prints the device, every test result (parhash-cuda's, and parhash-cli's device_gpu on
# the prebuilt `parhash`), `parhash sum --device gpu` against the CPU, the Python package's
# `device="gpu"` against its CPU (the wheel unpacked, no pip needed), and (with --bench) the GPU
# figures of `parhash bench --preset gpu`, the gpu-wins record it wrote, and `sum --device auto`
# against the CPU under that record. Exit status 0 only if all passed.
#   scripts/gpu-check.sh [--bench]
set -uo pipefail
cd "$(dirname "$0")/.."
dir=target/gpu-check
# The device tool brings back only what is written under $OUT: the whole output goes there too,
# and on exit every test log, the bench's report and the gpu-wins record (see keep_results).
if [ -n "${OUT:-}" ] && [ -d "$OUT" ]; then
  exec > >(tee "$OUT/gpu-check.out") 2>&1
fi
if [ ! -f "$dir/manifest" ]; then
  echo "gpu-check: $dir/manifest is missing: run scripts/gpu-build.sh on a machine with cargo first" >&2
  exit 2
fi

# NVRTC and the driver: the CUDA toolkit's folder, and NVIDIA's Python wheels if installed.
extra=""
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
  [ -d "$d" ] && extra="$extra:$d"
done
if command -v python3 >/dev/null; then
  wheel_libs="$(python3 - <<'PY' 2>/dev/null
import glob, os, site
paths = site.getsitepackages() + [site.getusersitepackages()]
for p in paths:
    for lib in glob.glob(os.path.join(p, "nvidia", "*", "lib")):
        print(lib)
PY
)"
  for d in $wheel_libs; do extra="$extra:$d"; done
fi
export LD_LIBRARY_PATH="${extra#:}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PARHASH_CUDA_CACHE="${PARHASH_CUDA_CACHE:-$PWD/$dir/ptx-cache}"
# The prebuilt CLI for test-device_gpu: the path cargo compiled into it is the build machine's.
export PARHASH_BIN="$PWD/$dir/bin/parhash"
# On this machine a missing GPU is a failure, not the "no GPU" branch of the tests.
export PARHASH_REQUIRE_GPU=1

echo "== device"
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv,noheader || true
else
  echo "nvidia-smi not found"
fi
command -v nvcc >/dev/null && nvcc --version | tail -n 1

failed=0
echo "== tests (prebuilt, every ignored GPU test included)"
while read -r bin; do
  echo "-- $bin"
  "$dir/bin/$bin" --include-ignored --test-threads 1 --nocapture > "$dir/$bin.log" 2>&1
  status=$?
  grep -E -A1 "^(GPU:|test |test result|host-to-device|.*panicked)" "$dir/$bin.log" | grep -v "^--$"
  if [ "$status" != 0 ]; then
    echo "FAILED: $bin (exit $status; full output in $dir/$bin.log)"
    failed=1
  fi
done < "$dir/manifest"

echo "== parhash sum --device gpu against the CPU"
tmp="$(mktemp -d)"
keep_results() {
  rm -rf "$tmp"
  if [ -n "${OUT:-}" ] && [ -d "$OUT" ]; then
    cp "$dir"/*.log "$OUT"/ 2>/dev/null
    [ -d "$dir/bench-gpu" ] && cp -r "$dir/bench-gpu" "$OUT"/
    [ -f "$PARHASH_CUDA_CACHE/gpu-wins" ] && cp "$PARHASH_CUDA_CACHE/gpu-wins" "$OUT"/
  fi
  return 0
}
trap keep_results EXIT
python3 - "$tmp" <<'PY'
import os, random, sys
random.seed(7)
d = sys.argv[1]
for i, n in enumerate([0, 1, 55, 56, 64, 135, 136, 1000, 65536, 3 << 20]):
    with open(os.path.join(d, "f%02d" % i), "wb") as f:
        f.write(bytes(random.getrandbits(8) for _ in range(n)))
PY
head -c 100000000 /dev/urandom > "$tmp/f99-1e8"
for alg in sha256 sha3-256 keccak256 "parsha256 --tree-height 13" "parsha256 --tree-height 16 --iv-bits 256"; do
  # shellcheck disable=SC2086 # $alg is the algorithm and its flags
  cpu="$("$dir/bin/parhash" sum -a $alg "$tmp"/f*)"
  # shellcheck disable=SC2086
  gpu="$("$dir/bin/parhash" sum --device gpu -a $alg "$tmp"/f*)"
  if [ "$cpu" = "$gpu" ] && [ -n "$gpu" ]; then
    echo "$alg: $(echo "$gpu" | wc -l) files (up to 10^8 bytes), GPU lines equal the CPU's"
  else
    echo "FAILED: $alg: GPU lines differ from the CPU's"; echo "$gpu" | head -n 3
    failed=1
  fi
done

echo "== Python: device=\"gpu\" against the CPU (scripts/gpu-check-python.py)"
wheel="$(ls "$dir"/wheel/parhash-*.whl 2>/dev/null | head -n 1)"
if [ -z "$wheel" ]; then
  echo "FAILED: no wheel in $dir/wheel (scripts/gpu-build.sh builds it)"
  failed=1
else
  rm -rf "$dir/py" && python3 -m zipfile -e "$wheel" "$dir/py"
  PYTHONPATH="$PWD/$dir/py" python3 scripts/gpu-check-python.py || failed=1
fi

if [ "${1:-}" = "--bench" ]; then
  echo "== parhash bench --preset gpu"
  "$dir/bin/parhash" bench --preset gpu --out "$dir/bench-gpu" || failed=1
  echo "== gpu-wins, as just measured (what sum --device auto follows now)"
  cat "$PARHASH_CUDA_CACHE/gpu-wins" 2>/dev/null || echo "no record written"
  for alg in sha256 sha3-256 keccak256 parsha256; do
    cpu="$("$dir/bin/parhash" sum -a "$alg" "$tmp"/f*)"
    auto="$("$dir/bin/parhash" sum --device auto -a "$alg" "$tmp"/f*)"
    if [ "$cpu" = "$auto" ] && [ -n "$auto" ]; then
      echo "$alg: sum --device auto lines equal the CPU's"
    else
      echo "FAILED: $alg: sum --device auto lines differ from the CPU's"
      failed=1
    fi
  done
fi

if [ "$failed" = 0 ]; then echo "gpu-check: all passed"; else echo "gpu-check: FAILURES"; fi
exit "$failed"
