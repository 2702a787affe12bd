#!/usr/bin/env bash
# scripts/test-summary.sh RUST_LOG RUST_STATUS PYTHON_LOG PYTHON_STATUS: the one line of counts
# scripts/test-all.sh ends with, from the saved output of `cargo test` (every `test result:`
# line summed: unit, integration and doc tests) and of pytest (its final summary line), and
# the exit status: 0 only if both commands exited 0 and no test failed.
#   TOTAL: Rust N passed, 0 failed, M ignored; Python P passed, 0 failed, S skipped
set -euo pipefail
rust_log="$1" rust_status="$2" python_log="$3" python_status="$4"

# `test result: ok. 12 passed; 0 failed; 3 ignored; 0 measured; 0 filtered out; finished in 0.01s`
read -r r_passed r_failed r_ignored r_results < <(awk '
  /^test result: / {
    results++
    for (i = 2; i <= NF; i++) {
      if ($i ~ /^passed;/) passed += $(i - 1)
      if ($i ~ /^failed;/) failed += $(i - 1)
      if ($i ~ /^ignored;/) ignored += $(i - 1)
    }
  }
  END { printf "%d %d %d %d\n", passed, failed, ignored, results }' "$rust_log")

# pytest's last line, as `== 1 failed, 320 passed, 2 skipped, 3 warnings in 99.12s (0:01:39) ==`
# (without the `=` under -q).
summary="$(grep -E '(passed|failed|error|errors|skipped|deselected|no tests ran).* in [0-9.]+s' "$python_log" | tail -n 1 || true)"
count() { # count WORD: the number before WORD in pytest's summary (0 if absent)
  grep -oE "[0-9]+ $1\\b" <<<"$summary" | head -n 1 | cut -d' ' -f1 || true
}
p_passed="$(count passed)" p_failed="$(count failed)" p_skipped="$(count skipped)"
p_errors="$(count errors)"
[ -n "$p_errors" ] || p_errors="$(count error)"
p_xfailed="$(count xfailed)" p_xpassed="$(count xpassed)"

rust="Rust ${r_passed} passed, ${r_failed} failed, ${r_ignored} ignored"
python="Python ${p_passed:-0} passed, ${p_failed:-0} failed, ${p_skipped:-0} skipped"
[ -z "$p_errors" ] || python+=", $p_errors errors"
[ -z "$p_xfailed" ] || python+=", $p_xfailed xfailed"
[ -z "$p_xpassed" ] || python+=", $p_xpassed xpassed"
notes=()
[ "$rust_status" -eq 0 ] || notes+=("cargo test exited $rust_status")
[ "$r_results" -gt 0 ] || notes+=("no Rust test results")
[ "$python_status" -eq 0 ] || notes+=("the Python tests exited $python_status")
[ -n "$summary" ] || notes+=("no pytest summary")
line="TOTAL: $rust; $python"
if [ ${#notes[@]} -gt 0 ]; then
  joined="$(printf '%s; ' "${notes[@]}")"
  line+=" (${joined%; })"
fi
echo "$line"
if [ "$rust_status" -ne 0 ] || [ "$python_status" -ne 0 ] || [ "$r_failed" -gt 0 ] \
  || [ "${p_failed:-0}" -gt 0 ] || [ -n "$p_errors" ] || [ "$r_results" -eq 0 ] || [ -z "$summary" ]; then
  exit 1
fi
