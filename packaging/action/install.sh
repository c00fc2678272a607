#!/usr/bin/env bash
# Step "Install agentconform" of action.yml (inputs in INPUT_* variables, the action's checkout in
# ACTION_PATH). INPUT_INSTALL:
#   deb     download the release's .deb (or INPUT_DEB_URL) and install it with apt, which pulls its
#           dependencies; Debian 12 only (the job runs in `container: debian:12` on GitHub's runners)
#   source  build the action's own checkout (scripts/setup.sh run, release build of the
#           agentconform target, compiler cache in $RUNNER_TEMP/agentconform-ccache) and install
#           it relocatably into $RUNNER_TEMP/agentconform, which goes on PATH
#   none    agentconform is on PATH already (your own image or an earlier step)
# A setup failure exits 3 (agentconform's code for setup errors), a bad input 2.
set -euo pipefail

fail() { echo "::error title=agentconform setup::$1"; exit "${2:-3}"; }
: "${RUNNER_TEMP:?}" "${GITHUB_PATH:?}" "${GITHUB_OUTPUT:?}"


debian12() {
  local id="" codename="" pretty="an unknown system"
  if [ -r /etc/os-release ]; then
    id=$(. /etc/os-release && echo "${ID:-}"); codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
    pretty=$(. /etc/os-release && echo "${PRETTY_NAME:-$pretty}")
  fi
  [ "$id" = debian ] && [ "$codename" = bookworm ] ||
    fail "agentconform's packages and build need Debian 12 (bookworm); this job runs on $pretty. Run the job in a Debian 12 container (container: debian:12) or use install: none with your own installation."
}

apt_install() {
  local SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || fail "not root and no sudo: apt cannot install $*"
    SUDO="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

case "${INPUT_INSTALL:-deb}" in
  none)
    command -v agentconform >/dev/null || fail "install is 'none' but agentconform is not on PATH"
    ;;
  deb)
    debian12
    installed=$(dpkg-query -W -f='${Version}' agentconform 2>/dev/null || true)
    if [ -z "${INPUT_DEB_URL:-}" ] && [ -n "$installed" ] && [ "$installed" = "${INPUT_VERSION:-}" ]; then
      echo "agentconform $installed is installed already"
    else
      arch=$(dpkg --print-architecture)
      url=${INPUT_DEB_URL:-https://github.com/${INPUT_REPOSITORY:?}/releases/download/v${INPUT_VERSION:?}/agentconform_${INPUT_VERSION}_${arch}.deb}
      command -v curl >/dev/null || apt_install ca-certificates curl
      deb=$RUNNER_TEMP/agentconform.deb
      echo "downloading $url"
      curl -fsSL --retry 3 -o "$deb" "$url" || fail "cannot download the .deb from $url (input version or deb-url)"
      # apt resolves the package's dependencies (computed by dpkg-shlibdeps) from the mirror.
      apt_install "$deb" || fail "apt could not install $url"
    fi
    ;;
  source)
    debian12
    : "${ACTION_PATH:?}"
    export CCACHE_DIR=$RUNNER_TEMP/agentconform-ccache CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-1G}
    bash "$ACTION_PATH/scripts/setup.sh" run
    build=$RUNNER_TEMP/agentconform-build prefix=$RUNNER_TEMP/agentconform
    cmake -S "$ACTION_PATH" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=g++ \
      -DAC_BUILD_TESTS=OFF -DAC_BUILD_BENCH=OFF -DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=ON >/dev/null
    cmake --build "$build" --target agentconform -j "$(nproc)"
    cmake --install "$build" --prefix "$prefix" --strip >/dev/null
    echo "$prefix/bin" >> "$GITHUB_PATH"
    export PATH="$prefix/bin:$PATH"
    ccache -s 2>/dev/null | sed -n '/Hits/,/Misses/p' || true
    ;;
  *)
    fail "input install must be deb, source or none (got '${INPUT_INSTALL}')" 2
    ;;
esac

agentconform --version
