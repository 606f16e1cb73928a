#!/usr/bin/env bash
# Every test: the whole suite on embedded PGlite, then the database-backed suites again on a
# real PostgreSQL server. Installs missing Debian packages first (see ensure-system-packages.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"

bash scripts/ensure-system-packages.sh

echo "== web app build (the browser tests serve it) =="
bun run build:web

echo "== agent binary build (the agent's tests run dist/dbvault-agent) =="
bun run build:agent
echo "== server binary build (a test starts dist/dbvault-server from an empty directory) =="
bun run build:server

echo "== all tests on embedded PGlite =="
bun test --timeout 60000 "$@"

echo "== database-backed tests on PostgreSQL =="
bash scripts/with-test-postgres.sh bun test --timeout 60000 server db
