#!/usr/bin/env bash
# The Python package (crates/parhash-py/python, stubs included) and scripts/*.py: `ruff check`,
# `ruff format --check` and `mypy`, with the settings in crates/parhash-py/pyproject.toml and
# the versions of crates/parhash-py/lint-requirements.txt, installed into target/lint-venv.
# `scripts/lint-python.sh --fix` rewrites what ruff can (formatting, import order) instead.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/lint-venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
  -r crates/parhash-py/lint-requirements.txt
config=crates/parhash-py/pyproject.toml
paths=(crates/parhash-py/python scripts/*.py)
if [ "${1:-}" = "--fix" ]; then
  "$venv/bin/ruff" check --config "$config" --fix "${paths[@]}"
  exec "$venv/bin/ruff" format --config "$config" "${paths[@]}"
fi
status=0
"$venv/bin/ruff" check --config "$config" "${paths[@]}" || status=1
"$venv/bin/ruff" format --config "$config" --check "${paths[@]}" || status=1
(cd crates/parhash-py && "../../$venv/bin/mypy") || status=1
# The scripts import parhash: its stubs.
MYPYPATH=crates/parhash-py/python "$venv/bin/mypy" --config-file "$config" scripts/*.py || status=1
exit "$status"
