#!/usr/bin/env bash
# Builds scripts/s3-server (a local S3-compatible server on the gofakes3 library, Go) into
# target/s3-server, or into $1: scripts/bench-store.py --server target/s3-server uses it.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-target/s3-server}"
command -v go >/dev/null || { echo "Go is needed to build scripts/s3-server" >&2; exit 1; }
mkdir -p "$(dirname "$out")"
out="$(cd "$(dirname "$out")" && pwd)/$(basename "$out")"
(cd scripts/s3-server && go build -o "$out" .)
echo "$out"
