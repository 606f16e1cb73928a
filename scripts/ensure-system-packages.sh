#!/usr/bin/env bash
# Installs the Debian packages the test suite drives when they are missing:
# PostgreSQL (a real server for the Postgres test run), Chromium (browser tests) and ShellCheck
# (lints the agent installer the server hands out), curl and unzip (the Go sources of the real
# mongo-tools and of FerretDB).
set -euo pipefail

missing=()
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] || missing+=(chromium)
command -v shellcheck >/dev/null 2>&1 || missing+=(shellcheck)
# curl and unzip fetch and unpack Go module sources (scripts/lib/go-source-build.sh).
command -v curl >/dev/null 2>&1 || missing+=(curl)
command -v unzip >/dev/null 2>&1 || missing+=(unzip)
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing Debian packages: ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  echo "error: ${missing[*]} missing and no root/sudo to install them (apt-get install ${missing[*]})" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
