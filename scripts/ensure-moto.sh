#!/usr/bin/env bash
# Installs moto 5.2.5's S3 server (PyPI, pinned) for the Object Lock tests, in a Python virtual
# environment in a cache outside the repo:
#   ${DBVAULT_CACHE:-~/.cache/dbvault}/moto/5.2.5/bin/moto_server
# testkit/moto-server.ts starts it on a free loopback port. moto enforces Object Lock (a locked
# version's DELETE answers AccessDenied, GOVERNANCE gives way only to the bypass header), which
# s3rver, the server of the other storage tests, does not have at all. The first run takes about
# a minute; later runs return at once. Without python3, venv or PyPI, the reason is left in
# <cache>/moto/5.2.5/unavailable and the lock tests skip naming it (testkit/built-programs.ts).
set -euo pipefail

MOTO_VERSION=5.2.5
home=${DBVAULT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dbvault}/moto/$MOTO_VERSION

if [ -x "$home/bin/moto_server" ] && "$home/bin/python" -c "import moto, sys; sys.exit(moto.__version__ != '$MOTO_VERSION')" 2>/dev/null; then
  exit 0
fi

unavailable() {
  mkdir -p "$home"
  echo "$1" >"$home/unavailable"
  echo "ensure-moto: $1 (the Object Lock tests will skip)" >&2
  exit 0
}

command -v python3 >/dev/null || unavailable "python3 is not installed"
rm -rf "$home"
python3 -m venv "$home" 2>/dev/null || unavailable "python3 cannot create a virtual environment (install python3-venv)"
echo "== moto $MOTO_VERSION (S3 server with Object Lock, for the lock tests) into $home =="
"$home/bin/pip" install --quiet --disable-pip-version-check "moto[server]==$MOTO_VERSION" ||
  { rm -rf "$home/bin"; unavailable "pip could not install moto[server]==$MOTO_VERSION from PyPI"; }
rm -f "$home/unavailable"
