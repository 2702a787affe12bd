#!/usr/bin/env bash
# scripts/forms-coverage.sh LOG_DIR: what CI's library passes exercised, and what none did.
#
# LOG_DIR holds one log per pass, named by what the pass switched off (`avx512`, ..., `all`;
# `none` for the pass with every ISA on), each written by the tests through PARHASH_FORMS_LOG
# (crates/parhash/tests/common/forms_log.rs): one `family:form` line per form a test ran and
# checked, one `SKIPPED: test: reason` line per test that had nothing to run.
#
# Prints, for each pass, the forms that ran (one line per family) and the tests it skipped;
# then fails, naming them, if a variant this machine supports (`parhash list --json`: every
# algorithm's variants with `available`, all ISAs on) ran in no pass, or if a pass recorded
# nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:?usage: scripts/forms-coverage.sh LOG_DIR}"
shopt -s nullglob
logs=("$dir"/*)
if [ ${#logs[@]} -eq 0 ]; then
  echo "forms-coverage: no pass logs in $dir" >&2
  exit 1
fi

status=0
for log in "${logs[@]}"; do
  pass="$(basename "$log")"
  forms="$(grep -v '^SKIPPED: ' "$log" | sort -u || true)"
  skips="$(grep '^SKIPPED: ' "$log" | sort -u || true)"
  if [ -z "$forms" ]; then
    echo "forms-coverage: the pass with $pass switched off recorded no form (PARHASH_FORMS_LOG)" >&2
    status=1
    continue
  fi
  case "$pass" in
    none) what="every ISA on" ;;
    *) what="PARHASH_DISABLE_ISA=$pass" ;;
  esac
  echo "-- forms run with $what: $(wc -l <<<"$forms"), $(grep -c . <<<"$skips" || true) tests skipped"
  # One line per family: `  sha256: parallel-avx512 parallel-portable sequential ...`.
  awk '{ at = index($0, ":"); family = substr($0, 1, at - 1)
         list[family] = list[family] " " substr($0, at + 1) }
       END { for (f in list) print "  " f ":" list[f] }' <<<"$forms" | sort
  if [ -n "$skips" ]; then
    sed 's/^/  /' <<<"$skips"
  fi
done

# The registry's variants this machine runs, with every ISA on.
supported="$(env -u PARHASH_DISABLE_ISA cargo run --quiet --bin parhash -- list --json | python3 -c '
import json, sys
for line in sys.stdin:
    record = json.loads(line)
    for variant in record["variants"]:
        if variant["available"]:
            print(record["name"] + ":" + variant["name"])
' | sort -u)"
ran="$(cat "${logs[@]}" | grep -v '^SKIPPED: ' | sort -u)"
missing="$(comm -23 <(echo "$supported") <(echo "$ran"))"
total="$(grep -c . <<<"$supported")"
if [ -n "$missing" ]; then
  echo "forms-coverage: $(grep -c . <<<"$missing") of the $total variants this machine supports ran in no pass:" >&2
  sed 's/^/  /' <<<"$missing" >&2
  status=1
else
  echo "-- all $total variants this machine supports ran in some pass"
fi
exit "$status"
