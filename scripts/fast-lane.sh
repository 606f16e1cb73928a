#!/usr/bin/env bash
# The fast lane: what a change must pass before anything slower runs. TypeScript, Biome (format
# and lint with biome.json) and the unit tests; no database server, browser or MongoDB needed.
#   npm run test:fast
# `bun test` runs its files one after another on one core, so the unit tests run as two halves
# side by side, and the checks beside them: on CI's two cores that halves the lane's time.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"

logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT
mapfile -t unit < <(bash scripts/unit-tests.sh)
# Every other file to each half: a folder's slow files (the archive's memory tests) get split.
first_half=() second_half=()
for i in "${!unit[@]}"; do
  if ((i % 2 == 0)); then first_half+=("${unit[$i]}"); else second_half+=("${unit[$i]}"); fi
done

(tsc --noEmit -p . && biome ci --colors=off --reporter=summary .) >"$logs/checks" 2>&1 &
checks=$!
bun test --timeout 60000 "${first_half[@]}" >"$logs/unit-1" 2>&1 &
first=$!
bun test --timeout 60000 "${second_half[@]}" >"$logs/unit-2" 2>&1 &
second=$!

failed=0
for lane in "checks:$checks:typecheck, format and lint (tsc, biome ci)" "unit-1:$first:unit tests, first half" "unit-2:$second:unit tests, second half"; do
  IFS=: read -r log pid title <<<"$lane"
  status=0
  wait "$pid" || status=$?
  echo "== $title =="
  cat "$logs/$log"
  if [ "$status" -ne 0 ]; then
    echo "== $title: FAILED (exit $status) =="
    failed=1
  fi
done
exit "$failed"
