#!/usr/bin/env bash
# Installs the Debian packages the test suite drives when they are missing:
# PostgreSQL (a real server for the Postgres test run), Chromium (browser tests) and ShellCheck
# (lints the agent installer the server hands out), curl and unzip (the Go sources of the real
# mongo-tools and of FerretDB; curl also runs the API token article's examples, with jq), strace
# (what the agent asks of the disk), and, when they can be
# had, qemu-user-static and the arm64 C library (the linux-arm64 agent build).
set -euo pipefail

missing=()
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] || missing+=(chromium)
command -v shellcheck >/dev/null 2>&1 || missing+=(shellcheck)
# curl and unzip fetch and unpack Go module sources (scripts/lib/go-source-build.sh).
command -v curl >/dev/null 2>&1 || missing+=(curl)
command -v unzip >/dev/null 2>&1 || missing+=(unzip)
# jq reads the API's answers in the KB article's curl examples (server/test/api-token-curl.*).
command -v jq >/dev/null 2>&1 || missing+=(jq)
# strace records the agent's system calls (the config is flushed before it replaces the old one).
command -v strace >/dev/null 2>&1 || missing+=(strace)
# Optional: the linux-arm64 agent build runs under emulation (agent/test/platform-builds.*), with
# the arm64 C library from Debian's multiarch. Without them those tests are skipped, saying why.
optional=()
command -v qemu-aarch64-static >/dev/null 2>&1 || optional+=(qemu-user-static)
[ -e /lib/ld-linux-aarch64.so.1 ] || optional+=(libc6:arm64)
# Optional: the server's container image is built with buildah on a base made by mmdebstrap and
# run with podman (with runc: crun refuses hybrid cgroup hosts) by container/image.integration.test.ts.
container=()
for tool in buildah podman mmdebstrap runc; do command -v "$tool" >/dev/null 2>&1 || container+=("$tool"); done
[ ${#missing[@]} -eq 0 ] && [ ${#optional[@]} -eq 0 ] && [ ${#container[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
elif [ ${#missing[@]} -eq 0 ]; then
  echo "note: ${optional[*]} missing and no root/sudo to install them: the linux-arm64 build's tests will be skipped" >&2
  exit 0
else
  echo "error: ${missing[*]} missing and no root/sudo to install them (apt-get install ${missing[*]})" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
if [ ${#missing[@]} -gt 0 ]; then
  "${as_root[@]}" apt-get update -qq
  echo "installing Debian packages: ${missing[*]}"
  "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# The optional ones after the required, and never fatal: a mirror without arm64 indexes, or any
# other failure here, only skips the emulated build's tests.
if [ ${#optional[@]} -gt 0 ]; then
  echo "installing Debian packages: ${optional[*]}"
  if { case " ${optional[*]} " in
    *" libc6:arm64 "*) dpkg --print-foreign-architectures | grep -qx arm64 || "${as_root[@]}" dpkg --add-architecture arm64 ;;
  esac; } && "${as_root[@]}" apt-get update -qq &&
    "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${optional[@]}" >/dev/null; then
    :
  else
    echo "note: could not install ${optional[*]}: the linux-arm64 build's tests will be skipped" >&2
  fi
fi
# With their recommended packages, as tested (podman's helpers, mmdebstrap's); never fatal either.
if [ ${#container[@]} -gt 0 ]; then
  echo "installing Debian packages: ${container[*]}"
  { [ ${#missing[@]} -gt 0 ] || [ ${#optional[@]} -gt 0 ] || "${as_root[@]}" apt-get update -qq; } &&
    "${as_root[@]}" apt-get install -y -qq "${container[@]}" >/dev/null ||
    echo "note: could not install ${container[*]}: the container image's tests will be skipped" >&2
fi
