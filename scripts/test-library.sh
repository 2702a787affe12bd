#!/usr/bin/env bash
# The parhash library's tests (unit, integration and doc tests): what `cargo test -p parhash`
# runs, from the test binaries of `cargo test --workspace` (`-p` would build them again: .ci/run
# says why). CI's ISA passes run it after scripts/test-all.sh, with PARHASH_DISABLE_ISA and
# PARHASH_FORMS_LOG set. Builds what is missing first (the whole workspace's tests).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

# Every test executable of the workspace, built where missing; the library's are kept (the
# `parhash` package: its lib's unit tests and tests/*.rs).
binaries="$(cargo test --workspace --no-run --quiet --message-format=json | python3 -c '
import json, re, sys
for line in sys.stdin:
    message = json.loads(line)
    if message.get("reason") != "compiler-artifact" or not message.get("executable"):
        continue
    if re.search(r"/crates/parhash#", message["package_id"]) and message["profile"]["test"]:
        print(message["executable"])
')"
if [ -z "$binaries" ]; then
  echo "test-library: cargo listed no test binary of the parhash package" >&2
  exit 1
fi

failed=()
# As cargo runs them: from the package's folder, one binary after another.
cd "$root/crates/parhash"
for binary in $binaries; do
  "$binary" --quiet || failed+=("$(basename "$binary")")
done
cd "$root"
# The doc tests: only the library's (their names begin with its source path).
cargo test --workspace --doc --quiet -- crates/parhash/src/ || failed+=("doc tests")

if [ ${#failed[@]} -ne 0 ]; then
  echo "test-library: failed: ${failed[*]}" >&2
  exit 1
fi
