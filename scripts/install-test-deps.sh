#!/usr/bin/env bash
# The system packages the tests need beyond Rust and Python (Debian/Ubuntu names), installed
# with apt when this runs as root or with password-less sudo; otherwise it stops at once and
# names the one command that installs them. scripts/test-all.sh runs it first; so does CI.
set -euo pipefail
need_apt=()
command -v pkg-config >/dev/null || need_apt+=(pkg-config)
# The lab's OpenSSL peer (the `openssl` crate) links libssl.
dpkg -s libssl-dev >/dev/null 2>&1 || need_apt+=(libssl-dev)
# The CUDA-emulation tests build their harness with a C++20 compiler (g++ 10 or newer).
command -v g++ >/dev/null || need_apt+=(g++)
# The Python tests make a venv (Debian's python3 needs python3-venv for its ensurepip).
python3 -c 'import ensurepip' >/dev/null 2>&1 || need_apt+=(python3-venv)
python3 -m pip --version >/dev/null 2>&1 || need_apt+=(python3-pip)
# The lab's HTML report is checked in headless Chromium (scripts/check-report.sh, run by
# parhash-lab's browser test); its plots need a TrueType font.
command -v chromium >/dev/null || need_apt+=(chromium)
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need_apt+=(fonts-dejavu-core)
# Controls: b2sum and cksum come with coreutils, b3sum is BLAKE3's own tool.
command -v b3sum >/dev/null || need_apt+=(b3sum)
# xxhsum (XXH64, XXH3, XXH128) is xxHash's own tool, the CLI's control for those.
command -v xxhsum >/dev/null || need_apt+=(xxhash)
# rclone's `check` is parhash-store's control against the tests' local S3 server (test_store.py).
command -v rclone >/dev/null || need_apt+=(rclone)
# SHAKE of any length is compared with `openssl dgst -xoflen`.
command -v openssl >/dev/null || need_apt+=(openssl)
# The CLI's manual page is rendered by groff in its tests (as `man` renders it).
command -v groff >/dev/null || need_apt+=(groff-base)
# The `bao` tool (BLAKE3's outboard encoder, crates.io `bao_bin`) is the control for
# `sum --outboard` and `check --range` (crates/parhash-cli/tests/ranges.rs); cargo builds it.
command -v bao >/dev/null || cargo install --quiet --locked bao_bin
[ ${#need_apt[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
  sudo=(sudo)
else
  echo "The tests need these system packages: ${need_apt[*]}" >&2
  echo "Install them with: sudo apt-get install -y ${need_apt[*]}" >&2
  exit 1
fi
echo "== installing system packages for the tests: ${need_apt[*]}" >&2
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if ! { "${sudo[@]}" apt-get update -qq &&
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${need_apt[@]}"; } >"$log" 2>&1; then
  cat "$log" >&2
  echo "installing ${need_apt[*]} failed (apt's output above)" >&2
  exit 1
fi
