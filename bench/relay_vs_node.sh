#!/usr/bin/env bash
# The reference lobby against a Node `ws` relay (bench/node-relay/), side by side in one run on
# this machine, with one load generator (`agentconform load`) for both: throughput (closed loop)
# at 1, 2 and 4 agent pairs, p99 latency at 20,000 msg/s, and memory per idle connection.
# Rounds alternate the order of the two targets; the figures are medians of the rounds.
# docs/performance.md records what it printed and on which machine.
#
#   bench/relay_vs_node.sh [ROUNDS]          (default 3; needs the release build: cmake --preset default)
#
# Environment: AGENTCONFORM (default build/bin/agentconform), DURATION (seconds per throughput
# round, default 5), IDLE (idle connections, default 3000), SIZE (message bytes, default 160).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${AGENTCONFORM:-build/bin/agentconform}
if [ ! -x "$BIN" ]; then
  echo "relay_vs_node: $BIN not found; build it first: cmake --preset default && cmake --build build --target agentconform" >&2
  exit 2
fi
command -v node >/dev/null || { echo "relay_vs_node: node is needed (apt-get install nodejs npm)" >&2; exit 2; }
# The Node relay's one dependency, from npm, exactly as locked.
(cd bench/node-relay && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
exec python3 bench/relay_vs_node.py --bin "$BIN" --rounds "${1:-3}" --duration "${DURATION:-5}" --idle "${IDLE:-3000}" --size "${SIZE:-160}"
