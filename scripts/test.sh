#!/usr/bin/env bash
# Every test, in lanes: the fast lane (typecheck, Biome, unit tests: scripts/fast-lane.sh), then
# the integration, real-tools and browser tests on embedded PGlite, then the database-backed
# suites again on a real PostgreSQL server. Installs missing Debian packages first (see
# ensure-system-packages.sh). Every lane runs even when an earlier one failed, so one failure
# cannot hide another; the script ends with a summary of all and exits non-zero when any failed.
# With arguments (`npm test -- server/test`), the PGlite lane runs `bun test` with them instead.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"

bash scripts/ensure-system-packages.sh

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

# First, so a type error or a unit failure shows within two minutes, before any slow build.
run_phase fast bash scripts/fast-lane.sh

echo "== real MongoDB Database Tools and FerretDB (built once from source, then cached outside the repo) =="
bash scripts/ensure-mongo-tools.sh
bash scripts/ensure-ferretdb.sh
echo "== moto S3 server (Object Lock tests; installed once from PyPI into the same cache) =="
bash scripts/ensure-moto.sh
echo "== SeaweedFS S3 server (refuses shortening a COMPLIANCE retention; built once from source into the same cache) =="
bash scripts/ensure-seaweedfs.sh

echo "== web app build (the browser tests serve it) =="
bun run build:web

echo "== agent binary builds (the agent's tests run dist/dbvault-agent; every platform's is checked) =="
# Each platform's Bun runtime is downloaded from the npm registry once and kept in Bun's cache
# (~/.bun/install/cache); builds current with the sources are skipped: seconds after the first run.
bun run build:agent -- --all --if-stale
echo "== server binary build (a test starts dist/dbvault-server from an empty directory) =="
bun run build:server

# Each bun test run prints " N pass", " N fail" (and " N skip") near its end; the fast lane has
# two runs (its halves), so a phase's counts are the sums: "PASS FAIL SKIP".
phase_counts() {
  local log=$1
  local sum='{ total += $1 } END { print total + 0 }'
  echo "$(grep -E '^ *[0-9]+ pass$' "$log" | awk "$sum") $(grep -E '^ *[0-9]+ fail$' "$log" | awk "$sum") $(grep -E '^ *[0-9]+ skip$' "$log" | awk "$sum")"
}

if [ $# -gt 0 ]; then
  run_phase pglite bun test --timeout 60000 "$@"
else
  # Everything the fast lane did not run: the integration and browser tests.
  mapfile -t unit < <(bash scripts/unit-tests.sh)
  mapfile -t slow < <(git ls-files --cached --others --exclude-standard -- '*.test.ts' '*.test.tsx' |
    sed 's|^|./|' | grep -v -x -F -f <(printf '%s\n' "${unit[@]}"))
  run_phase pglite bun test --timeout 60000 "${slow[@]}"
fi
run_phase postgres bash scripts/with-test-postgres.sh bun test --timeout 60000 server db

# The summary: one line a phase and a total, each in the plain "N passed, N failed" form.
status=0
total_pass=0 total_fail=0 total_skip=0
echo
echo "== summary =="
for phase in fast pglite postgres; do
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
