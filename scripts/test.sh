#!/usr/bin/env bash
# Runs the compiled tap suites and ends with one plain line: "N passed, N failed" (CI reads it).
# The files that start a whole cluster (chaos, cluster) run last, one at a time, so they never starve another file.
set -uo pipefail
cd "$(dirname "$0")/.."
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  mapfile -t files < <(find dist/test -name '*.test.js' | sort)
fi
heavy=()
light=()
for f in "${files[@]}"; do
  case "$f" in
    */integration/chaos.test.js | */integration/cluster.test.js) heavy+=("$f") ;;
    *) light+=("$f") ;;
  esac
done
pass=0
fail=0
status=0
failures=$(mktemp)
trap 'rm -f "$failures"' EXIT
run() {
  local log
  log=$(mktemp)
  CI=true npx tap --reporter=tap "$@" 2>&1 | tee "$log"
  local st=${PIPESTATUS[0]}
  local summary total p f skip todo
  summary=$(grep -E '^# \{ total: ' "$log" | tail -n 1)
  total=$(sed -nE 's/.*total: ([0-9]+).*/\1/p' <<<"$summary")
  p=$(sed -nE 's/.*pass: ([0-9]+).*/\1/p' <<<"$summary")
  f=$(sed -nE 's/.*fail: ([0-9]+).*/\1/p' <<<"$summary")
  skip=$(sed -nE 's/.*skip: ([0-9]+).*/\1/p' <<<"$summary")
  todo=$(sed -nE 's/.*todo: ([0-9]+).*/\1/p' <<<"$summary")
  p=${p:-0}; total=${total:-0}; skip=${skip:-0}; todo=${todo:-0}
  f=${f:-$((total - p - skip - todo))}
  if [ "$st" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi  # a crashed file counts as a failure
  grep -E '^ *not ok ' "$log" >>"$failures"
  rm -f "$log"
  pass=$((pass + p))
  fail=$((fail + f))
  if [ "$st" -ne 0 ]; then status=$st; fi
}
if [ ${#light[@]} -gt 0 ]; then run "${light[@]}"; fi
if [ ${#heavy[@]} -gt 0 ]; then run --jobs=1 "${heavy[@]}"; fi
# The failures again at the end, where a reader of only the last lines (CI's excerpt) sees them.
if [ -s "$failures" ]; then
  echo "failed:"
  head -n 40 "$failures"
fi
echo "${pass} passed, ${fail} failed"
exit "$status"
