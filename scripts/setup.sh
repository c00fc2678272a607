#!/usr/bin/env bash
# Installs the Debian 12 packages one job of agentconform needs, and nothing more:
#   scripts/setup.sh run       build and run agentconform (scripts/conformance.sh, the main job):
#                              g++, CMake, Ninja, ccache and the libraries the binary links
#   scripts/setup.sh test      run + what the test command needs (scripts/test.sh): GoogleTest,
#                              RapidCheck, Google Benchmark, clang-19 and its sanitizer/libFuzzer
#                              runtime, chromium (HTML report rendering), xmllint, zip, yamllint
#   scripts/setup.sh package   run + what scripts/package.sh and tests/packaging/clean_root_proof.sh
#                              use: dpkg-dev (dpkg-shlibdeps), mmdebstrap, lintian
#   scripts/setup.sh           the same as `test` (everything a developer builds)
# Idempotent: packages already present are skipped, so running it before every build is cheap.
# Runs as root, or through sudo when not root, on Debian 12 "bookworm".
set -euo pipefail

job=${1:-test}

# Build and run agentconform (the libraries are the ones cmake/Dependencies.cmake finds).
run_packages=(
  build-essential cmake ninja-build ccache pkg-config git
  libboost1.81-dev libboost-url1.81-dev
  nlohmann-json3-dev libssl-dev openssl libsodium-dev
  libcli11-dev libre2-dev
  # lld links the (large) binaries in seconds instead of minutes (cmake/Linker.cmake)
  lld
)
# The test command: test and benchmark libraries, the clang-19 libFuzzer build, and the tools
# tests call (chromium renders the HTML report, xmllint checks JUnit XML against its XSD, zip
# packs seed corpora, yamllint and python3-yaml check and run action.yml, the peers are Python).
test_packages=(
  libgtest-dev libgmock-dev librapidcheck-dev libbenchmark-dev
  clang-19 libclang-rt-19-dev
  chromium libxml2-utils zip
  yamllint python3-yaml python3
  # the independent test peers (tests/peers/): HTTP + WebSocket server, Ed25519
  python3-aiohttp python3-cryptography
)
# Packages and the clean-root proof (docs/packaging.md).
package_packages=(dpkg-dev file xz-utils mmdebstrap lintian)

case "$job" in
  run) packages=("${run_packages[@]}") ;;
  test) packages=("${run_packages[@]}" "${test_packages[@]}") ;;
  package) packages=("${run_packages[@]}" "${package_packages[@]}") ;;
  *) echo "usage: scripts/setup.sh [run|test|package]  (got '$job')" >&2; exit 2 ;;
esac

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
  echo "setup ($job): installing ${missing[*]}"
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "setup ($job): all Debian packages present"
fi

if [ $need_valijson -eq 1 ]; then
  echo "setup ($job): unpacking valijson headers into $deps_dir/valijson"
  tmp=$(mktemp -d); chmod 755 "$tmp"
  (cd "$tmp" && apt-get download -qq "$valijson_deb" >/dev/null)
  $SUDO mkdir -p "$deps_dir/valijson"
  $SUDO dpkg-deb -x "$tmp"/libvalijson-dev_*.deb "$deps_dir/valijson"
  rm -rf "$tmp"
fi
