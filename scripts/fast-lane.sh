#!/usr/bin/env bash
# The fast lane: what a change must pass before anything slower runs. TypeScript, Biome (format
# and lint with biome.json) and the unit tests; no database server, browser or MongoDB needed.
#   npm run test:fast
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"

echo "== typecheck =="
tsc --noEmit -p .
echo "== format and lint (biome ci) =="
biome ci --colors=off --reporter=summary .
echo "== unit tests =="
mapfile -t unit < <(bash scripts/unit-tests.sh)
bun test --timeout 60000 "${unit[@]}"
