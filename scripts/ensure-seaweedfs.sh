#!/usr/bin/env bash
# Builds SeaweedFS's `weed` (its S3 gateway enforces Object Lock retention changes: a shortened
# COMPLIANCE retention answers AccessDenied, which moto accepts) for the test suite, from its Go
# source, into a cache outside the repo:
#   ${DBVAULT_CACHE:-~/.cache/dbvault}/seaweedfs/<version>/bin/weed
# testkit/seaweedfs.ts starts it on free loopback ports for the suites that run on it. The first
# run takes several minutes (a large module); later runs return at once. Without Go, or when the
# build fails, the reason is left for testkit and those tests skip with it (lib/go-source-build.sh).
set -euo pipefail

# The module proxy serves this pseudo-version (.info, .mod, .zip); the zip's SHA-256 pins the exact
# source (its go.sum hash is h1:LOYZFToHq9F7pSR6lkPGfkM8RmHlVFrzndKdhmNZjrU=). Its go.mod has
# replace directives, so `go install module@version` refuses it: it is built inside the unpacked
# module instead, like FerretDB.
SEAWEEDFS_VERSION=v0.0.0-20261109003541-7506e5f91cd6
ZIP_SHA256=936224fad4c98289ea5bb2e0470e8b2cd2fd08059c102f2241ca7d4c9341edf6

# shellcheck source=lib/go-source-build.sh
source "$(dirname "$0")/lib/go-source-build.sh"
use_cache seaweedfs "$SEAWEEDFS_VERSION" "SeaweedFS $SEAWEEDFS_VERSION"

exit_if_built weed
fetch_module_source github.com/seaweedfs/seaweedfs "$SEAWEEDFS_VERSION" "$ZIP_SHA256"
build_program weed ./weed
install_built
