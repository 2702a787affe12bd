#!/usr/bin/env bash
# The Python package on the oldest and the newest CPython >= 3.9 this machine has (python3.N on
# PATH or pyenv's versions) besides the one of scripts/test-python.sh, or on every one with
# ALL_VERSIONS=1: one abi3 wheel built once, installed into a fresh virtual environment per
# version, and the tests that need no Ray run there (Ray's own wheels do not cover every
# version; its tests run under scripts/test-python.sh), less those marked slow (they run there
# too, and nothing in them depends on the version). The ends are where versions differ (the
# oldest also gets the oldest moto and botocore); the versions between add CI minutes, not
# findings. A version that is not installed is named and skipped; none found at all is an error.
# Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=target/py-versions
rm -rf "$work"
mkdir -p "$work/wheel"
# Built by the interpreter scripts/test-python.sh built the extension with, where it has run
# (CI runs it first): maturin's release build is then cargo's, unchanged (PyO3's build script
# runs again, and all that depends on it, when the interpreter differs).
builder=target/py-venv/bin/python
[ -x "$builder" ] || builder=python3
"$builder" -m pip wheel --quiet --no-deps -w "$work/wheel" ./crates/parhash-py
wheel=$(ls "$work"/wheel/parhash-*.whl)
cargo build --quiet --bins

interpreter() {
  local version=$1
  if command -v "python$version" >/dev/null 2>&1 && "python$version" -c 'import sys' 2>/dev/null; then
    command -v "python$version"
    return
  fi
  local pyenv_root=${PYENV_ROOT:-$HOME/.pyenv}
  local found
  found=$(ls -d "$pyenv_root"/versions/"$version".*/bin/python3 2>/dev/null | sort -V | tail -1 || true)
  [ -n "$found" ] && echo "$found"
}

# PATH without the directories that hold cargo or rustc.
no_rust_path() {
  local dir out=()
  IFS=: read -ra dirs <<<"$PATH"
  for dir in "${dirs[@]}"; do
    [ -x "$dir/cargo" ] || [ -x "$dir/rustc" ] || out+=("$dir")
  done
  (IFS=:; echo "${out[*]}")
}

# The version of scripts/test-python.sh's environment, where the whole suite (Ray's tests
# too) has run: not run a second time here unless asked (ALL_VERSIONS=1).
main=""
if [ -x target/py-venv/bin/python ] && [ -z "${ALL_VERSIONS:-}" ]; then
  main=$(target/py-venv/bin/python -c 'import sys; print("%d.%d" % sys.version_info[:2])')
fi

# One version's environment and tests; its output goes to its log.
test_version() {
  local version=$1 python=$2
  local venv="$work/venv-$version"
  echo "== CPython $version ($python)"
  "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --upgrade pip
  "$venv/bin/python" -m pip install --quiet -r crates/parhash-py/tests/requirements.txt
  # The wheel installs where no Rust toolchain is: cargo and rustc off PATH, binaries only.
  env PATH="$(no_rust_path)" "$venv/bin/python" -m pip install --quiet --no-index \
    --only-binary=:all: "$wheel"
  (cd /tmp && env PATH="$(no_rust_path)" "$root/$venv/bin/python" -c \
    'import parhash as hashlib, parhash as blake3; assert hashlib.sha3_256(b"").name == "sha3_256"; assert blake3.blake3(b"", key=bytes(32)).digest()')
  (cd crates/parhash-py/tests &&
    PARHASH_CLI="$root/target/debug/parhash" "$root/$venv/bin/python" -m pytest -q \
      -p no:cacheprovider -m "not ray and not slow" "${pytest_args[@]}")
}

# Versions run two at a time (PYTHON_VERSIONS_AT_ONCE): a run is mostly one interpreter's
# thread and the server's, and CI's machine has two cores. Each log is shown when its batch
# ends, in order.
at_once=${PYTHON_VERSIONS_AT_ONCE:-2}
pytest_args=("$@")
tested=()
missing=()
failed=()
batch=()
finish_batch() {
  local version status
  for version in "${batch[@]}"; do
    status=0
    wait "${pids[$version]}" || status=$?
    cat "$work/log-$version"
    if [ "$status" -ne 0 ]; then
      failed+=("$version")
    fi
    tested+=("$version")
  done
  batch=()
}
declare -A pids
declare -A pythons
others=()
for version in 3.9 3.10 3.11 3.12 3.13; do
  python=$(interpreter "$version" || true)
  if [ -z "$python" ]; then
    missing+=("$version")
    continue
  fi
  if [ "$version" = "$main" ]; then
    echo "== CPython $version: the suite runs in target/py-venv (scripts/test-python.sh)"
    tested+=("$version")
    continue
  fi
  pythons[$version]=$python
  others+=("$version")
done
chosen=("${others[@]}")
if [ -n "$main" ] && [ ${#others[@]} -gt 2 ]; then
  chosen=("${others[0]}" "${others[-1]}")
  echo "== CPython ${others[*]:1:${#others[@]}-2}: between the oldest and the newest, not run (ALL_VERSIONS=1 runs them)"
fi
for version in "${chosen[@]}"; do
  python=${pythons[$version]}
  test_version "$version" "$python" >"$work/log-$version" 2>&1 &
  pids[$version]=$!
  batch+=("$version")
  if [ ${#batch[@]} -ge "$at_once" ]; then
    finish_batch
  fi
done
finish_batch
[ ${#missing[@]} -eq 0 ] || echo "not installed here, not tested: CPython ${missing[*]}"
if [ ${#tested[@]} -eq 0 ]; then
  echo "no CPython >= 3.9 found" >&2
  exit 1
fi
echo "tested on CPython ${tested[*]}"
if [ ${#failed[@]} -ne 0 ]; then
  echo "failed on CPython ${failed[*]}" >&2
  exit 1
fi
