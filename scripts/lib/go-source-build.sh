# Shared by ensure-mongo-tools.sh, ensure-ferretdb.sh and ensure-seaweedfs.sh: programs the test
# suite needs that are built from their Go source, fetched through the Go module proxy, checked
# against a pinned SHA-256 and kept in a cache outside the repo:
#   ${DBVAULT_CACHE:-~/.cache/dbvault}/<name>/<version>/bin
# When they cannot be built (no Go, no proxy, a failed download or build) the reason goes into
# <cache>/<name>/<version>/unavailable and the script exits 0: the suites that need them then skip
# with that reason (testkit reads it), never silently, and the rest of the suite still runs.
# Sourced, not run; start with use_cache.
# shellcheck shell=bash

# use_cache NAME VERSION LABEL: the cache folder <name>/<version>; LABEL names the programs in messages.
use_cache() {
  cache_home=${DBVAULT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dbvault}/$1/$2
  cache_bin=$cache_home/bin
  cache_unavailable=$cache_home/unavailable
  cache_label=$3
  mkdir -p "$cache_home"
}

# Exits 0 at once when every program named is already built.
exit_if_built() {
  local program
  for program in "$@"; do [ -x "$cache_bin/$program" ] || return 0; done
  rm -f "$cache_unavailable"
  echo "$cache_label: $cache_bin"
  exit 0
}

# Records why the programs are missing and exits 0 (the tests that need them skip, naming it).
give_up() {
  echo "$1" >"$cache_unavailable"
  echo "$cache_label not available: $1 (the tests that need it will be skipped)" >&2
  exit 0
}

# Downloads MODULE's zip for MODULE_VERSION from the module proxy into a fresh work directory,
# checks it against SHA256 and unpacks it; sets $source_dir (the module's root) and $work_dir.
fetch_module_source() {
  local module=$1 module_version=$2 sha256=$3 proxy escaped
  command -v go >/dev/null 2>&1 || give_up "Go is not installed (https://go.dev/dl/); $cache_label is built from source with it"
  proxy=$(go env GOPROXY | tr ',|' '\n' | grep -m1 '^http') || give_up "no Go module proxy configured (GOPROXY=$(go env GOPROXY))"
  # The proxy's paths spell capitals as "!" plus the lower-case letter.
  escaped=$(printf '%s' "$module" | sed -E 's/([A-Z])/!\L\1/g')
  work_dir=$(mktemp -d)
  trap 'rm -rf "$work_dir"' EXIT
  echo "building $cache_label from $module@$module_version into $cache_bin"
  curl -fsSL --retry 3 -o "$work_dir/src.zip" "$proxy/$escaped/@v/$module_version.zip" ||
    give_up "could not download the $cache_label source from $proxy"
  echo "$sha256  $work_dir/src.zip" | sha256sum -c --quiet - || give_up "the $cache_label source from $proxy does not match its pinned SHA-256"
  (cd "$work_dir" && unzip -q src.zip) || give_up "could not unpack the $cache_label source"
  source_dir="$work_dir/$module@$module_version"
  mkdir -p "$work_dir/bin"
}

# Builds one main package of the unpacked module into the work directory's bin/.
build_program() {
  local program=$1 package=$2
  shift 2
  (cd "$source_dir" && CGO_ENABLED=0 go build -trimpath "$@" -o "$work_dir/bin/$program" "$package") ||
    give_up "go build of $program failed (see the output above)"
}

# Moves the built programs into the cache all at once: a half-finished build never looks ready.
install_built() {
  rm -rf "$cache_bin"
  mv "$work_dir/bin" "$cache_bin"
  rm -f "$cache_unavailable"
  echo "$cache_label: $cache_bin"
}
