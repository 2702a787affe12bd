#!/usr/bin/env bash
# The Python package's tests: a virtual environment in target/py-venv, the package installed
# from the checkout as a user installs it (`pip install ./crates/parhash-py`: maturin builds the
# release extension), the packages of crates/parhash-py/tests/requirements.txt, and the CLI
# (the control for the algorithms hashlib lacks). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/py-venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet -r crates/parhash-py/tests/requirements.txt
# The `ray` extra (pyproject.toml), for parhash.distributed's tests (marked `ray`; the longest
# also `slow`: `-m "not slow"` skips them).
"$venv/bin/python" -m pip install --quiet "ray[data]>=2.9" fsspec "tqdm>=4.60"
# --force-reinstall: the version does not change when the code does.
"$venv/bin/python" -m pip install --quiet --force-reinstall --no-deps ./crates/parhash-py
# The CLI and seekfs (the FUSE file system test_faults.py mounts; root and /dev/fuse): the
# workspace's binaries, built with the features `cargo test --workspace` gives them (.ci/run).
cargo build --quiet --bins
# Run from the tests' folder, so `import parhash` finds the installed package.
cd crates/parhash-py/tests
PARHASH_CLI="$PWD/../../../target/debug/parhash" exec "../../../$venv/bin/python" -m pytest -q \
  -p no:cacheprovider "$@"
