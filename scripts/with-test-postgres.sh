#!/usr/bin/env bash
# Starts a throw-away PostgreSQL server on a free loopback port, runs the given command with
# TEST_DATABASE_URL pointing at it, then stops it and deletes its files.
#   scripts/with-test-postgres.sh bun test server
set -euo pipefail

bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -x "$bin/initdb" ] || { echo "error: PostgreSQL server binaries not found (apt-get install postgresql)" >&2; exit 1; }

dir=$(mktemp -d /tmp/dbvault-pg-XXXXXX)
port=$(node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')
# initdb refuses to run as root: run the server as the postgres user then.
run=()
if [ "$(id -u)" -eq 0 ]; then
  chown postgres "$dir"
  run=(runuser -u postgres --)
fi
cleanup() {
  "${run[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT

"${run[@]}" "$bin/initdb" -D "$dir/data" -U app --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
"${run[@]}" "$bin/pg_ctl" -D "$dir/data" -w -l "$dir/server.log" start \
  -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" >/dev/null

export TEST_DATABASE_URL="postgres://app@127.0.0.1:$port/postgres"
echo "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') running on 127.0.0.1:$port"
"$@"
