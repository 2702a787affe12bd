#!/usr/bin/env bash
# Installs NVRTC (NVIDIA's run-time CUDA compiler, no GPU needed) from the Python package index
# into a virtual environment, and prints the folder holding libnvrtc.so, for LD_LIBRARY_PATH.
# Used by .ci/run to compile every CUDA kernel to PTX on machines without CUDA.
#   PARHASH_NVRTC_VENV  where the venv goes (default: ~/.cache/parhash/nvrtc-venv; reused)
set -euo pipefail
venv="${PARHASH_NVRTC_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/parhash/nvrtc-venv}"
wheel="nvidia-cuda-nvrtc-cu12==12.9.86"
find_lib() { { find "$venv" -name 'libnvrtc.so.12' -printf '%h\n' 2>/dev/null || true; } | head -n 1; }
lib="$(find_lib)"
if [ -z "$lib" ]; then
  if ! python3 -m venv "$venv" >&2 2>/dev/null; then
    # A Python without the venv module (Debian's python3 without python3-venv): install the
    # wheel into a plain folder instead.
    rm -rf "$venv"
    python3 -m pip install -q --disable-pip-version-check --target "$venv" "$wheel" >&2
  else
    "$venv/bin/python" -m pip install -q --disable-pip-version-check "$wheel" >&2
  fi
  lib="$(find_lib)"
fi
if [ -z "$lib" ]; then
  echo "install-nvrtc: libnvrtc.so.12 not found after installing $wheel into $venv" >&2
  exit 1
fi
echo "$lib"
