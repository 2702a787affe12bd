#!/usr/bin/env bash
# Every test: the Rust workspace, then the Python package (README's test command; .ci/run runs it).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --workspace
scripts/test-python.sh
