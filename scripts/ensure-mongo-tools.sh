#!/usr/bin/env bash
# Builds the real MongoDB Database Tools (mongodump, mongorestore, bsondump) for the test suite,
# pinned to 100.18.0, from their Go source, into a cache outside the repo:
#   ${DBVAULT_CACHE:-~/.cache/dbvault}/mongo-tools/<commit>/bin
# The first run takes about a minute (source and dependencies through the Go module proxy); later
# runs find the binaries and return at once. Without Go, or when the build fails, it says why in
# <cache>/mongo-tools/<commit>/unavailable and exits 0: the suites that need the tools are then
# skipped with that reason (testkit/mongo-tools.ts), never silently.
set -euo pipefail

VERSION=100.18.0
COMMIT=8fa3cfc8263b9cead37912d7b0447766143c3e3a
# The proxy serves this commit's .mod and .zip but not its .info, which `go mod download` needs:
# the zip is fetched directly and checked against its SHA-256.
PSEUDO_VERSION=v0.0.0-20260821190201-8fa3cfc8263b
ZIP_SHA256=c20c9a3ddb2e669114942ce1249bddd90c652f5875f1fdf4aa5262794a9e977a
TOOLS=(mongodump mongorestore bsondump)

home=${DBVAULT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dbvault}/mongo-tools/$COMMIT
bin=$home/bin
unavailable=$home/unavailable
mkdir -p "$home"

ready=1
for tool in "${TOOLS[@]}"; do [ -x "$bin/$tool" ] || ready=0; done
if [ $ready -eq 1 ]; then
  rm -f "$unavailable"
  echo "mongo-tools $VERSION: $bin"
  exit 0
fi

give_up() {
  echo "$1" >"$unavailable"
  echo "mongo-tools $VERSION not available: $1 (the tests that need them will be skipped)" >&2
  exit 0
}

command -v go >/dev/null 2>&1 || give_up "Go is not installed (https://go.dev/dl/); the real mongodump/mongorestore are built from source with it"
proxy=$(go env GOPROXY | tr ',|' '\n' | grep -m1 '^http') || give_up "no Go module proxy configured (GOPROXY=$(go env GOPROXY))"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "building mongo-tools $VERSION ($COMMIT) into $bin"
curl -fsSL --retry 3 -o "$work/src.zip" "$proxy/github.com/mongodb/mongo-tools/@v/$PSEUDO_VERSION.zip" ||
  give_up "could not download the mongo-tools source from $proxy"
echo "$ZIP_SHA256  $work/src.zip" | sha256sum -c --quiet - || give_up "the mongo-tools source from $proxy does not match its pinned SHA-256"
(cd "$work" && unzip -q src.zip) || give_up "could not unpack the mongo-tools source"
src="$work/github.com/mongodb/mongo-tools@$PSEUDO_VERSION"
mkdir -p "$work/bin"
for tool in "${TOOLS[@]}"; do
  (cd "$src" && go build -trimpath -ldflags "-X main.VersionStr=$VERSION -X main.GitCommit=$COMMIT" -o "$work/bin/$tool" "./$tool/main") ||
    give_up "go build of $tool failed (see the output above)"
done
# Into place all at once: a half-finished build never looks ready.
rm -rf "$bin"
mv "$work/bin" "$bin"
rm -f "$unavailable"
echo "mongo-tools $VERSION: $bin"
