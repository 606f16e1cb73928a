#!/usr/bin/env bash
# Prints the unit test files, one a line: every *.test.ts(x) that needs no server process.
# Tests that start one (PostgreSQL, the MongoDB test server, S3, SMTP, Chromium, a built binary)
# are named *.integration.test.ts or live in e2e/ (HOUSE-STYLE.md), and run in the later lanes.
set -euo pipefail
cd "$(dirname "$0")/.."
git ls-files --cached --others --exclude-standard -- '*.test.ts' '*.test.tsx' |
  grep -v -E '(\.integration\.test\.tsx?$|^e2e/)' |
  while read -r file; do [ -f "$file" ] && echo "./$file"; done
