#!/usr/bin/env bash
# Runs the whole test suite (scripts/test.sh) several times in a row while every core is kept
# busy by another process, the way a shared CI machine is: a test that only passes on an idle
# machine fails here. Prints the time and result of each run and exits non-zero if any failed.
#   bash scripts/stress-test.sh [RUNS]        default 3 runs
# The load is stress-ng (Debian's package, installed when missing and possible), one CPU worker
# per core; without it, one shell busy loop per core.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-3}
cores=$(nproc)
logs=$(mktemp -d /tmp/dbvault-stress-XXXXXX)

if ! command -v stress-ng >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
  echo "installing stress-ng"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq stress-ng >/dev/null || true
fi

load_pids=()
start_load() {
  if command -v stress-ng >/dev/null 2>&1; then
    stress-ng --cpu "$cores" --cpu-method matrixprod --quiet &
    load_pids+=($!)
    echo "load: stress-ng --cpu $cores"
  else
    for _ in $(seq "$cores"); do
      (while :; do :; done) &
      load_pids+=($!)
    done
    echo "load: $cores busy loops (stress-ng not available)"
  fi
}
stop_load() {
  for pid in "${load_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  load_pids=()
}
trap stop_load EXIT

start_load
failed=0
summary=()
for run in $(seq "$runs"); do
  echo "== loaded run $run of $runs =="
  started=$(date +%s)
  if bash scripts/test.sh >"$logs/run-$run.log" 2>&1; then verdict=passed; else verdict=FAILED; failed=$((failed + 1)); fi
  seconds=$(($(date +%s) - started))
  counts=$(grep -E '^total: ' "$logs/run-$run.log" | tail -n 1 || true)
  summary+=("run $run: $verdict in ${seconds} s (${counts:-no summary line})")
  echo "${summary[-1]}"
  if [ "$verdict" = FAILED ]; then
    grep -E '^\(fail\)|FAILED' "$logs/run-$run.log" | sed 's/^/  /' || true
    echo "  full log: $logs/run-$run.log"
  fi
done
stop_load

echo
echo "== stress test: $runs runs of the whole suite with $cores cores kept busy =="
printf '%s\n' "${summary[@]}"
echo "runs: $((runs - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
