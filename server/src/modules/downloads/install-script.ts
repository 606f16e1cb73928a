import type { Release } from "./release";

/** Single-quotes a value for POSIX sh. */
const shellQuote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

/** The platforms of a release manifest's lines (their first word), for messages. */
const offeredIds = (release: Release) =>
  release.manifest
    .split("\n")
    .slice(1)
    .filter(Boolean)
    .map((line) => line.split(" ")[0])
    .join(", ") || "none";

/**
 * The `curl -fsSL <server>/install.sh | sh` installer: a POSIX sh script that picks this machine's
 * binary (uname and the C library) among those the server offers, checks the signed release
 * manifest written into it with openssl when openssl can (Ed25519 needs OpenSSL 3), downloads the
 * binary from the same server, checks its SHA-256 against the manifest and installs it atomically.
 * Every refusal says why and installs nothing.
 */
export function renderInstallScript(release: Release, installMark: string | null = null): string {
  const publicUrl = release.installScript.replace(/\/install\.sh$/, "");
  // The checklist's mark (install-progress.ts: hex and a dot only) goes on to the download.
  const markQuery = installMark ? `?for=${installMark}` : "";
  const offered = offeredIds(release);
  return `#!/bin/sh
# Installs the DBVault agent from ${publicUrl}.
#   curl -fsSL ${publicUrl}/install.sh | sh
# DBVAULT_INSTALL_DIR chooses the directory (default: /usr/local/bin when writable, else
# ~/.local/bin). The download is checked against the SHA-256 in the release manifest below, and
# the manifest against this server's signature when openssl can check Ed25519 signatures.
# DBVAULT_RELEASE_KEY pins the release signing key (the web app shows it in Settings → Security).
set -eu

DBVAULT_URL=\${DBVAULT_URL:-${shellQuote(publicUrl)}}
# What the server offers: platform, file, version, SHA-256, size (protocol/release-manifest.ts).
MANIFEST=${shellQuote(release.manifest)}
# The server's Ed25519 signature of MANIFEST, and its public key (32 bytes, base64).
SIGNATURE=${shellQuote(release.signature)}
RELEASE_KEY=\${DBVAULT_RELEASE_KEY:-${shellQuote(release.publicKey)}}

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
    MINGW* | MSYS* | CYGWIN*) fail "this is Windows: install the agent from PowerShell instead" "irm $DBVAULT_URL/install.ps1 | iex" ;;
    *) fail "no DBVault agent for $os on this server (offered: ${offered})" ;;
  esac
  case "$machine" in
    x86_64 | amd64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) fail "no DBVault agent for the $machine processor on this server (offered: ${offered})" ;;
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

# Prints "<file> <sha256>" of the manifest's line for platform $1 (nothing when it has none).
manifest_entry() {
  printf '%s' "$MANIFEST" | while read -r id file _version sum _size; do
    if [ "$id" = "$1" ]; then echo "$file $sum"; fi
  done
}

# Ed25519 needs OpenSSL 3 (pkeyutl -rawin); LibreSSL and OpenSSL 1.1 cannot check the signature.
can_check_signature() {
  command -v openssl >/dev/null 2>&1 && openssl pkeyutl -help 2>&1 | grep -q -- -rawin
}

check_signature() {
  printf '%s' "$MANIFEST" >"$work/manifest"
  # An Ed25519 public key's DER encoding is a fixed 12-byte prefix and the 32 raw bytes.
  printf -- '-----BEGIN PUBLIC KEY-----\\nMCowBQYDK2VwAyEA%s\\n-----END PUBLIC KEY-----\\n' "$RELEASE_KEY" >"$work/key.pem"
  printf '%s' "$SIGNATURE" | openssl base64 -d -A >"$work/signature" 2>/dev/null || true
  if ! openssl pkeyutl -verify -pubin -inkey "$work/key.pem" -rawin -in "$work/manifest" -sigfile "$work/signature" >/dev/null 2>&1; then
    fail "the release manifest's signature does not match the release signing key $RELEASE_KEY: nothing was installed" \\
      "compare the key with Settings → Security in the web app; if they match, the script was altered on its way"
  fi
}

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d ' ' -f 1
  elif command -v shasum >/dev/null 2>&1; then shasum -a 256 "$1" | cut -d ' ' -f 1
  elif command -v openssl >/dev/null 2>&1; then openssl dgst -sha256 "$1" | sed 's/^.*= *//'
  else fail "cannot check the download: none of sha256sum, shasum or openssl is installed"
  fi
}

download() {
  if command -v curl >/dev/null 2>&1; then
    # Compressed on the wire when this curl can decode it (the binaries are about 100 MB).
    if curl --version 2>/dev/null | grep -qi 'libz'; then curl -fsSL --compressed -o "$2" "$1"; else curl -fsSL -o "$2" "$1"; fi
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
entry=$(manifest_entry "$platform")
[ -n "$entry" ] || fail "this server offers no agent for $platform (offered: ${offered})" "ask the server's administrator to build the agent for $platform (npm run build:agent -- --all)"
file=\${entry% *}
sum=\${entry#* }

work=$(mktemp -d "\${TMPDIR:-/tmp}/dbvault-install.XXXXXX") || fail "cannot create a temporary directory"
tmp=
trap 'rm -rf "$work"; [ -z "$tmp" ] || rm -f "$tmp"' EXIT INT TERM
if can_check_signature; then
  check_signature
  signed=yes
elif [ -n "\${DBVAULT_RELEASE_KEY:-}" ]; then
  fail "DBVAULT_RELEASE_KEY is set but this machine cannot check Ed25519 signatures: nothing was installed" "install OpenSSL 3 (openssl pkeyutl -rawin), or unset DBVAULT_RELEASE_KEY to rely on the SHA-256 alone"
else
  signed=no
fi

dir=$(choose_dir)
if [ -z "\${DBVAULT_INSTALL_DIR:-}" ] && [ "$dir" != /usr/local/bin ]; then
  say "no write access to /usr/local/bin: installing into $dir (run with sudo to install system-wide)"
fi
mkdir -p "$dir" || fail "cannot create $dir"
[ -w "$dir" ] || fail "cannot write to $dir" "run with sudo, or set DBVAULT_INSTALL_DIR"

tmp=$(mktemp "$dir/.dbvault-agent.XXXXXX") || fail "cannot create a file in $dir"
url="$DBVAULT_URL/downloads/$file${markQuery}"
say "downloading $url"
download "$url" "$tmp" || fail "the download from $url failed"
actual=$(sha256_of "$tmp")
if [ "$actual" != "$sum" ]; then
  fail "checksum mismatch for $url (expected $sum, got $actual): nothing was installed" "try again; if it persists, the file was altered on its way or in the server's storage"
fi
chmod 0755 "$tmp"
mv -f "$tmp" "$dir/dbvault-agent"
tmp=

if [ "$signed" = yes ]; then
  say "installed $dir/dbvault-agent (SHA-256 $sum, signed with release key $RELEASE_KEY)"
else
  say "installed $dir/dbvault-agent (SHA-256 $sum)"
  say "note: the release manifest's signature was not checked: that needs OpenSSL 3 (openssl pkeyutl -rawin)"
fi
# The musl builds link the C++ runtime dynamically; Alpine does not ship it by default.
case "$platform" in
  *-musl)
    if ! { [ -e /usr/lib/libstdc++.so.6 ] || [ -e /lib/libstdc++.so.6 ]; } || ! { [ -e /usr/lib/libgcc_s.so.1 ] || [ -e /lib/libgcc_s.so.1 ]; }; then
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
