import type { AgentBinary } from "./agent-binaries";

/** Single-quotes a value for POSIX sh. */
const shellQuote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

/**
 * The `curl -fsSL <server>/install.sh | sh` installer: a POSIX sh script that picks this machine's
 * binary among those the server offers (their checksums written into the script), downloads it
 * from the same server, checks its SHA-256 and installs it atomically. Every refusal says why.
 */
export function renderInstallScript(publicUrl: string, binaries: readonly AgentBinary[]): string {
  const offered = binaries.map((b) => `${b.platform.id} ${b.sha256}`).join("\n");
  const offeredNames = binaries.map((b) => b.platform.id).join(", ") || "none";
  return `#!/bin/sh
# Installs the DBVault agent from ${publicUrl}.
#   curl -fsSL ${publicUrl}/install.sh | sh
# DBVAULT_INSTALL_DIR chooses the directory (default: /usr/local/bin when writable, else
# ~/.local/bin). The agent is checked against the SHA-256 below before it is installed.
set -eu

DBVAULT_URL=\${DBVAULT_URL:-${shellQuote(publicUrl)}}
# platform, SHA-256 of its binary
OFFERED=${shellQuote(offered)}

say() { printf 'dbvault-install: %s\\n' "$*"; }
fail() {
  printf 'dbvault-install: error: %s\\n' "$1" >&2
  [ $# -lt 2 ] || printf 'dbvault-install: hint: %s\\n' "$2" >&2
  exit 1
}

detect_platform() {
  os=$(uname -s)
  machine=$(uname -m)
  case "$os" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    *) fail "no DBVault agent for $os on this server (offered: ${offeredNames})" ;;
  esac
  case "$machine" in
    x86_64 | amd64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) fail "no DBVault agent for the $machine processor on this server (offered: ${offeredNames})" ;;
  esac
  suffix=
  if [ "$os" = linux ] && is_musl; then suffix=-musl; fi
  echo "$os-$arch$suffix"
}

# Alpine and other musl systems need the musl build: a glibc binary does not start there.
is_musl() {
  if command -v ldd >/dev/null 2>&1 && ldd --version 2>&1 | grep -qi musl; then return 0; fi
  for loader in /lib/ld-musl-*; do [ -e "$loader" ] && return 0; done
  return 1
}

expected_sha256() {
  printf '%s\\n' "$OFFERED" | while read -r id sum; do
    if [ "$id" = "$1" ]; then echo "$sum"; fi
  done
}

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d ' ' -f 1
  elif command -v shasum >/dev/null 2>&1; then shasum -a 256 "$1" | cut -d ' ' -f 1
  elif command -v openssl >/dev/null 2>&1; then openssl dgst -sha256 "$1" | sed 's/^.*= *//'
  else fail "cannot check the download: none of sha256sum, shasum or openssl is installed"
  fi
}

download() {
  if command -v curl >/dev/null 2>&1; then curl -fsSL -o "$2" "$1"
  elif command -v wget >/dev/null 2>&1; then wget -q -O "$2" "$1"
  else fail "neither curl nor wget is installed" "install one of them (e.g. apt-get install curl) and run this again"
  fi
}

choose_dir() {
  if [ -n "\${DBVAULT_INSTALL_DIR:-}" ]; then
    echo "$DBVAULT_INSTALL_DIR"
  elif [ -d /usr/local/bin ] && [ -w /usr/local/bin ]; then
    echo /usr/local/bin
  else
    [ -n "\${HOME:-}" ] || fail "cannot write to /usr/local/bin and HOME is not set" "set DBVAULT_INSTALL_DIR, or run with sudo"
    echo "$HOME/.local/bin"
  fi
}

platform=$(detect_platform)
sum=$(expected_sha256 "$platform")
[ -n "$sum" ] || fail "this server offers no agent for $platform (offered: ${offeredNames})" "ask the server's administrator to build the agent for $platform"

dir=$(choose_dir)
if [ -z "\${DBVAULT_INSTALL_DIR:-}" ] && [ "$dir" != /usr/local/bin ]; then
  say "no write access to /usr/local/bin: installing into $dir (run with sudo to install system-wide)"
fi
mkdir -p "$dir" || fail "cannot create $dir"
[ -w "$dir" ] || fail "cannot write to $dir" "run with sudo, or set DBVAULT_INSTALL_DIR"

tmp=$(mktemp "$dir/.dbvault-agent.XXXXXX") || fail "cannot create a file in $dir"
trap 'rm -f "$tmp"' EXIT INT TERM
url="$DBVAULT_URL/downloads/dbvault-agent-$platform"
say "downloading $url"
download "$url" "$tmp" || fail "the download from $url failed"
actual=$(sha256_of "$tmp")
if [ "$actual" != "$sum" ]; then
  fail "checksum mismatch for $url (expected $sum, got $actual): nothing was installed" "try again; if it persists, the file was altered on its way"
fi
chmod 0755 "$tmp"
mv -f "$tmp" "$dir/dbvault-agent"
trap - EXIT INT TERM

say "installed $dir/dbvault-agent (SHA-256 $sum)"
# The musl builds link the C++ runtime dynamically; Alpine does not ship it by default.
case "$platform" in
  *-musl)
    if ! ls /usr/lib/libstdc++.so.6 /lib/libstdc++.so.6 >/dev/null 2>&1; then
      say "note: the agent needs the C++ runtime on this system: apk add libstdc++ libgcc"
    fi
    ;;
esac
case ":\${PATH:-}:" in
  *":$dir:"*) agent=dbvault-agent ;;
  *) agent="$dir/dbvault-agent"; say "note: $dir is not on your PATH" ;;
esac
say "next: $agent setup --server $DBVAULT_URL"
`;
}
