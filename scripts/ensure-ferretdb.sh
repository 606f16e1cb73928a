#!/usr/bin/env bash
# Builds FerretDB v1.24.2 (a MongoDB wire-compatible database; its SQLite handler needs no other
# server) for the test suite, from its Go source, into a cache outside the repo:
#   ${DBVAULT_CACHE:-~/.cache/dbvault}/ferretdb/v1.24.2/bin/ferretdb
# testkit/ferretdb.ts starts it on a free loopback port for the suites that run on it. The first
# run takes a few minutes; later runs return at once. Without Go, or when the build fails, the
# reason is left for testkit and those suites skip that target with it (lib/go-source-build.sh).
set -euo pipefail

# The module proxy serves this version (.info, .mod, .zip); the zip's SHA-256 pins the exact
# source (its go.sum hash, checked against sum.golang.org, is h1:trrUU0LbmusMbyubhPS1IELncvrIwKrsRT2LW1UUWCw=).
FERRETDB_VERSION=v1.24.2
ZIP_SHA256=a9465bf03a128a6a1937cd2697fd7e3681f817628940d5030108b5f508855ac3

# shellcheck source=lib/go-source-build.sh
source "$(dirname "$0")/lib/go-source-build.sh"
use_cache ferretdb "$FERRETDB_VERSION" "FerretDB $FERRETDB_VERSION"

exit_if_built ferretdb
fetch_module_source github.com/FerretDB/FerretDB "$FERRETDB_VERSION" "$ZIP_SHA256"
# build/version embeds version.txt when present (FerretDB's release builds generate it); without
# it the server reports its version as "unknown".
echo "$FERRETDB_VERSION" >"$source_dir/build/version/version.txt"
build_program ferretdb ./cmd/ferretdb
install_built
