#!/usr/bin/env bash
# Installs what the fuzzer's independent peers need (tests/peers/fuzz/): Node.js and npm (Debian
# packages, when missing), then the npm packages of package-lock.json (`ws`) into node_modules/.
# Idempotent and quick when everything is present; called by the tests that start the peers
# (the CTest fixture fuzz_peers_install) and usable by hand.
set -euo pipefail
cd "$(dirname "$0")"

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "peers: installing nodejs and npm (Debian packages)"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi

# Installed already, from this very lock file?
stamp=node_modules/.agentconform-lock
if [ -f node_modules/ws/package.json ] && [ -f "$stamp" ] && cmp -s package-lock.json "$stamp"; then
  exit 0
fi
echo "peers: npm ci (ws) in $(pwd)"
npm ci --no-audit --no-fund --loglevel=error
cp package-lock.json "$stamp"
