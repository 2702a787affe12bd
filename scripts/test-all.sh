#!/usr/bin/env bash
# Every test: the Rust workspace, then the Python package (docs/testing.md, "Running the
# tests"; .ci/run runs it).
# Ends with one line of counts, summed from cargo test's `test result:` lines and pytest's
# summary:
#   TOTAL: Rust N passed, 0 failed, M ignored; Python P passed, 0 failed, S skipped
# and exits non-zero if anything failed (the Python tests run even after a Rust failure, so the
# line counts both).
set -euo pipefail
cd "$(dirname "$0")/.."
# The system packages the tests need: installed (as root or with sudo), or named in one command.
scripts/install-test-deps.sh
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT

rust_status=0
# --no-fail-fast: a failing test binary does not hide the counts of the others.
cargo test --workspace --no-fail-fast 2>&1 | tee "$logs/rust" || rust_status=$?
python_status=0
scripts/test-python.sh 2>&1 | tee "$logs/python" || python_status=$?

scripts/test-summary.sh "$logs/rust" "$rust_status" "$logs/python" "$python_status"
