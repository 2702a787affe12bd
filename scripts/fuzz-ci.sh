#!/usr/bin/env bash
# Runs every cargo-fuzz target in fuzz/ for SECONDS (default 10) over its corpus
# (fuzz/corpus/TARGET), as many at once as there are cores; fails on any crash, naming the
# input that reproduces it. Inputs the runs find go to a temporary folder, not the corpus.
# Installs what it needs where missing: a nightly toolchain (minimal profile) and cargo-fuzz.
# Used by .ci/run; fuzz/README.md says how to fuzz longer.
#   FUZZ_JOBS  targets run at once (default: the number of cores)
set -euo pipefail
seconds="${1:-10}"
cd "$(dirname "$0")/../fuzz"

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
  rustup toolchain install nightly --profile minimal
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked
fi

targets="$(cargo +nightly fuzz list)"
echo "building the fuzz targets: $(echo $targets)"
cargo +nightly fuzz build
host="$(rustc +nightly -vV | sed -n 's/^host: //p')"
bin="target/$host/release"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# One target: new inputs into $work, a crash's input into artifacts/TARGET/ (ignored by git).
run_one() {
  local target="$1"
  mkdir -p "$work/$target" "artifacts/$target"
  if "$bin/$target" "$work/$target" "corpus/$target" -max_total_time="$seconds" -timeout=60 \
    -artifact_prefix="artifacts/$target/" >"$work/$target.log" 2>&1; then
    echo "-- $target: $(grep -o 'Done [0-9]* runs in [0-9]* second(s)' "$work/$target.log" || echo done)"
    return 0
  fi
  tail -n 40 "$work/$target.log"
  local artifact
  artifact="$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$work/$target.log" | tail -n 1)"
  echo "-- $target: FAILED; reproducer: fuzz/${artifact:-artifacts/$target/}"
  echo "   reproduce: cd fuzz && cargo +nightly fuzz run $target ${artifact:-artifacts/$target/ARTIFACT}"
  return 1
}

mkdir -p corpus
jobs="${FUZZ_JOBS:-$(nproc)}"
failed=0
running=0
for target in $targets; do
  mkdir -p "corpus/$target"
  run_one "$target" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n || failed=1
    running=$((running - 1))
  fi
done
while [ "$running" -gt 0 ]; do
  wait -n || failed=1
  running=$((running - 1))
done
if [ "$failed" -ne 0 ]; then
  echo "fuzzing found a crash (above)"
  exit 1
fi
echo "every fuzz target ran ${seconds}s without a crash"
