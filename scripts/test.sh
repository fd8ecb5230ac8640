#!/usr/bin/env bash
# Runs the compiled tap suites and ends with one plain line: "N passed, N failed" (CI reads it).
set -uo pipefail
cd "$(dirname "$0")/.."
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  mapfile -t files < <(find dist/test -name '*.test.js' | sort)
fi
log=$(mktemp)
CI=true npx tap --reporter=tap "${files[@]}" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
summary=$(grep -E '^# \{ total: ' "$log" | tail -n 1)
total=$(sed -nE 's/.*total: ([0-9]+).*/\1/p' <<<"$summary")
pass=$(sed -nE 's/.*pass: ([0-9]+).*/\1/p' <<<"$summary")
fail=$(sed -nE 's/.*fail: ([0-9]+).*/\1/p' <<<"$summary")
skip=$(sed -nE 's/.*skip: ([0-9]+).*/\1/p' <<<"$summary")
todo=$(sed -nE 's/.*todo: ([0-9]+).*/\1/p' <<<"$summary")
pass=${pass:-0}; total=${total:-0}; skip=${skip:-0}; todo=${todo:-0}
fail=${fail:-$((total - pass - skip - todo))}
if [ "$status" -ne 0 ] && [ "$fail" -eq 0 ]; then fail=1; fi  # a crashed file counts as a failure
rm -f "$log"
echo "${pass} passed, ${fail} failed"
exit "$status"
