#!/usr/bin/env bash
# The main job, from a fresh Debian 12 checkout: set-up, release build, then a full
# conformance run. Extra arguments go to the run.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
cmake --preset default >/dev/null
cmake --build --preset default --target agentconform

# Until the scenario engine lands, the main job validates every fixture of every protocol.
status=0
for p in alp agora agentprotocol a2acp chopsticks; do
  for f in fixtures/$p/valid/*.json; do
    [ -e "$f" ] || continue
    printf '%-14s %-60s ' "$p" "$f"
    build/bin/agentconform validate --protocol "$p" "$@" "$f" || status=1
  done
done
exit $status
