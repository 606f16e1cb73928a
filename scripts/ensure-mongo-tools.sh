#!/usr/bin/env bash
# Builds the real MongoDB Database Tools (mongodump, mongorestore, bsondump) for the test suite,
# pinned to 100.18.0, from their Go source, into a cache outside the repo:
#   ${DBVAULT_CACHE:-~/.cache/dbvault}/mongo-tools/<commit>/bin
# The first run takes a few minutes (source and dependencies through the Go module proxy); later
# runs find the binaries and return at once. Without Go, or when the build fails, the reason is
# left for testkit/mongo-tools.ts and the tests that need the tools skip with it
# (lib/go-source-build.sh).
set -euo pipefail

TOOLS_VERSION=100.18.0
COMMIT=8fa3cfc8263b9cead37912d7b0447766143c3e3a
# The proxy serves this commit's .mod and .zip but not its .info, which `go mod download` needs:
# the zip is fetched directly and checked against its SHA-256.
PSEUDO_VERSION=v0.0.0-20260821190201-8fa3cfc8263b
ZIP_SHA256=c20c9a3ddb2e669114942ce1249bddd90c652f5875f1fdf4aa5262794a9e977a
TOOLS=(mongodump mongorestore bsondump)

# shellcheck source=lib/go-source-build.sh
source "$(dirname "$0")/lib/go-source-build.sh"
use_cache mongo-tools "$COMMIT" "mongo-tools $TOOLS_VERSION"

exit_if_built "${TOOLS[@]}"
fetch_module_source github.com/mongodb/mongo-tools "$PSEUDO_VERSION" "$ZIP_SHA256"
for tool in "${TOOLS[@]}"; do
  # Each tool's main package is <tool>/main; one `go build -o` a tool.
  build_program "$tool" "./$tool/main" -ldflags "-X main.VersionStr=$TOOLS_VERSION -X main.GitCommit=$COMMIT"
done
install_built
