#!/usr/bin/env bash
# Builds the DBVault server's OCI image with buildah, without a Docker engine:
#   1. a minimal Debian base (bookworm, Essential packages and ca-certificates, no docs) made with
#      mmdebstrap from Debian's packages, cached in ~/.cache/dbvault/container-base/;
#   2. container/Containerfile built on it (the single-file server, a non-root user, /data a volume);
#   3. the image written as an OCI archive (default dist/dbvault-server-image.oci.tar) and left
#      in the local image store as localhost/dbvault-server:VERSION.
#   bash container/build-image.sh [OUTPUT.tar]
# Needs root (or a user namespace) and the Debian packages buildah and mmdebstrap.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"

out=${1:-dist/dbvault-server-image.oci.tar}
version=$(bun -e 'import { PRODUCT_VERSION } from "./protocol/version"; console.log(PRODUCT_VERSION)')
suite=bookworm
base_dir="${XDG_CACHE_HOME:-$HOME/.cache}/dbvault/container-base"
base_tar="$base_dir/debian-$suite-essential.tar"
base_image="localhost/dbvault-base:$suite"
image="localhost/dbvault-server:$version"

for tool in buildah mmdebstrap; do
  command -v "$tool" >/dev/null || { echo "build-image: $tool is missing (apt-get install buildah mmdebstrap)" >&2; exit 1; }
done
# The server binary, rebuilt when its sources are newer (the build script checks).
bun run build:server >/dev/null

if [ ! -s "$base_tar" ]; then
  echo "build-image: making the Debian $suite base with mmdebstrap (once; cached in $base_dir)"
  mkdir -p "$base_dir"
  # The host's own apt sources when it has them (they name the mirror this machine reaches).
  sources=/etc/apt/sources.list.d/debian.sources
  [ -s "$sources" ] || sources=<(echo "deb http://deb.debian.org/debian $suite main")
  mmdebstrap --quiet --variant=essential --include=ca-certificates \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/info/*' \
    "$suite" "$base_tar.tmp" - <"$sources"
  mv "$base_tar.tmp" "$base_tar"
fi
if ! buildah inspect --type image "$base_image" >/dev/null 2>&1; then
  container=$(buildah from scratch)
  buildah add --quiet "$container" "$base_tar" / >/dev/null
  buildah commit --quiet --rm "$container" "$base_image" >/dev/null
fi

echo "build-image: building $image"
buildah build --quiet --layers=false --build-arg "BASE=$base_image" -f container/Containerfile -t "$image" . >/dev/null
mkdir -p "$(dirname "$out")"
rm -f "$out"
buildah push --quiet "$image" "oci-archive:$out:dbvault-server:$version"
echo "build-image: $out ($(du -h "$out" | cut -f1)), $image"
