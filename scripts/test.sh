#!/usr/bin/env bash
# Every test: the whole suite on embedded PGlite, then the database-backed suites again on a
# real PostgreSQL server. Installs missing Debian packages first (see ensure-system-packages.sh).
# Both phases always run, so a failure in the first cannot hide one in the second; the script
# ends with a summary of both and exits non-zero when either failed.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"

bash scripts/ensure-system-packages.sh

echo "== real MongoDB Database Tools and FerretDB (built once from source, then cached outside the repo) =="
bash scripts/ensure-mongo-tools.sh
bash scripts/ensure-ferretdb.sh

echo "== web app build (the browser tests serve it) =="
bun run build:web

echo "== agent binary builds (the agent's tests run dist/dbvault-agent; every platform's is checked) =="
# Each platform's Bun runtime is downloaded from the npm registry once and kept in Bun's cache
# (~/.bun/install/cache); builds current with the sources are skipped: seconds after the first run.
bun run build:agent -- --all --if-stale
echo "== server binary build (a test starts dist/dbvault-server from an empty directory) =="
bun run build:server

logs=$(mktemp -d /tmp/dbvault-test-logs-XXXXXX)
trap 'rm -rf "$logs"' EXIT

# Runs one phase with its output shown live and kept for the summary; records its exit code.
run_phase() {
  local name=$1
  shift
  echo "== $name =="
  set +e
  "$@" 2>&1 | tee "$logs/$name.log"
  local code=${PIPESTATUS[0]}
  set -e
  echo "$code" >"$logs/$name.code"
}

# bun test prints " N pass", " N fail" (and " N skip") near its end: "PASS FAIL SKIP".
phase_counts() {
  local log=$1 pass fail skip
  pass=$(grep -E '^ *[0-9]+ pass$' "$log" | tail -n 1 | awk '{print $1}')
  fail=$(grep -E '^ *[0-9]+ fail$' "$log" | tail -n 1 | awk '{print $1}')
  skip=$(grep -E '^ *[0-9]+ skip$' "$log" | tail -n 1 | awk '{print $1}')
  echo "${pass:-0} ${fail:-0} ${skip:-0}"
}

run_phase pglite bun test --timeout 60000 "$@"
run_phase postgres bash scripts/with-test-postgres.sh bun test --timeout 60000 server db

# The summary: one line a phase and a total, each in the plain "N passed, N failed" form.
status=0
total_pass=0 total_fail=0 total_skip=0
echo
echo "== summary =="
for phase in pglite postgres; do
  code=$(cat "$logs/$phase.code")
  read -r pass fail skip < <(phase_counts "$logs/$phase.log")
  # A runner that crashed before printing its counts still fails the phase.
  [ "$code" -eq 0 ] || [ "$fail" -gt 0 ] || fail=1
  echo "$phase: $pass passed, $fail failed, $skip skipped"
  if [ "$code" -ne 0 ]; then
    status=1
    echo "  $phase phase FAILED (exit $code):"
    grep -E '^\(fail\)' "$logs/$phase.log" | sed 's/^/    /' || true
  fi
  total_pass=$((total_pass + pass)) total_fail=$((total_fail + fail)) total_skip=$((total_skip + skip))
done
echo "total: $total_pass passed, $total_fail failed, $total_skip skipped"
exit "$status"
