#!/usr/bin/env bash
# Installs every Debian 12 package agentconform needs to build, test, fuzz and benchmark.
# Idempotent: packages already present are skipped, so running it before every build is cheap.
# Must run as root (or with passwordless sudo) on Debian 12 "bookworm".
set -euo pipefail

# Packages installed normally (apt resolves their dependencies).
packages=(
  build-essential cmake ninja-build ccache pkg-config git
  libboost1.81-dev libboost-url1.81-dev
  nlohmann-json3-dev libssl-dev openssl
  libgtest-dev libgmock-dev librapidcheck-dev
  libcli11-dev libbenchmark-dev
  clang-19 libclang-rt-19-dev
  libre2-dev libxml2-utils zip chromium
  python3
)

# valijson is header-only, but Debian's libvalijson-dev depends on Qt5, Poco, yaml-cpp, ...
# (for adapters we never use). We fetch the .deb and unpack only its headers.
valijson_deb=libvalijson-dev
deps_dir=${AGENTCONFORM_DEPS_DIR:-/opt/agentconform-deps}

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

need_valijson=0
[ -f "$deps_dir/valijson/usr/include/valijson/validator.hpp" ] || need_valijson=1

if [ ${#missing[@]} -gt 0 ] || [ $need_valijson -eq 1 ]; then
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
fi

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "setup: all Debian packages present"
fi

if [ $need_valijson -eq 1 ]; then
  echo "setup: unpacking valijson headers into $deps_dir/valijson"
  tmp=$(mktemp -d); chmod 755 "$tmp"
  (cd "$tmp" && apt-get download -qq "$valijson_deb" >/dev/null)
  $SUDO mkdir -p "$deps_dir/valijson"
  $SUDO dpkg-deb -x "$tmp"/libvalijson-dev_*.deb "$deps_dir/valijson"
  rm -rf "$tmp"
fi
