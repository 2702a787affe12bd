#!/usr/bin/env bash
# Builds, on a machine with cargo, everything scripts/gpu-check.sh runs on a GPU machine that
# has no cargo: the release test binaries of parhash-cuda, parhash-cli's `device_gpu` test (which
# runs the `parhash` binary named by PARHASH_BIN there) and the release `parhash` binary,
# stripped, copied to target/gpu-check/bin/ with a manifest (target/gpu-check/manifest) naming
# each test binary, and the Python package's abi3 wheel (target/gpu-check/wheel/). Carry target/gpu-check over to the GPU machine (same relative path under the
# repository root) and run scripts/gpu-check.sh there.
set -euo pipefail
cd "$(dirname "$0")/.."
out=target/gpu-check
rm -rf "$out"
mkdir -p "$out/bin"
cargo build --release -p parhash-cli >&2
# The test executables, read from cargo's own JSON messages (not guessed from file names).
{
  cargo test --release -p parhash-cuda --no-run --message-format=json
  cargo test --release -p parhash-cli --test device_gpu --no-run --message-format=json
} 2>/dev/null |
  python3 -c '
import json, sys
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") == "compiler-artifact" and m.get("profile", {}).get("test") and m.get("executable"):
        print(m["target"]["name"], m["executable"])
' > "$out/executables"
: > "$out/manifest"
while read -r name exe; do
  dest="$out/bin/test-$name"
  cp "$exe" "$dest"
  echo "test-$name" >> "$out/manifest"
done < "$out/executables"
rm "$out/executables"
cp target/release/parhash "$out/bin/parhash"
strip "$out"/bin/* 2>/dev/null || true
# The wheel, built by the tests' interpreter where there is one (scripts/test-python.sh).
builder=target/py-venv/bin/python
[ -x "$builder" ] || builder=python3
"$builder" -m pip wheel --quiet --no-deps -w "$out/wheel" ./crates/parhash-py >&2
echo "built for scripts/gpu-check.sh:" >&2
ls -l "$out/bin" "$out/wheel" >&2
du -sh "$out" >&2
