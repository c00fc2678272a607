#!/usr/bin/env bash
# The main job, from a fresh Debian 12 checkout: set-up, release build, then the full
# conformance run (every suite of every protocol) against the embedded reference lobby, with
# reports in ./agentconform-report/ (results.json, report.json, junit.xml, report.html,
# summary.md). Extra arguments go to `agentconform run` (e.g. --protocol alp, --jobs 4).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
cmake --preset default >/dev/null
cmake --build --preset default --target agentconform

exec build/bin/agentconform run --report junit,json,html,md --report-dir agentconform-report "$@"
