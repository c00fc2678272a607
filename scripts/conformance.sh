#!/usr/bin/env bash
# The main job, from a fresh Debian 12 checkout: set-up, release build, then the full
# conformance run (every suite of every protocol) against the embedded reference lobby, with
# reports in ./agentconform-report/ (results.json, report.json, junit.xml, report.html,
# summary.md). Extra arguments go to `agentconform run` (e.g. --protocol alp, --jobs 4).
set -euo pipefail
cd "$(dirname "$0")/.."

# The main job needs only what builds and runs agentconform: no test libraries, no second
# compiler, no browser (those are `scripts/setup.sh test`, for scripts/test.sh).
bash scripts/setup.sh run
cmake --preset default -DAC_BUILD_TESTS=OFF -DAC_BUILD_BENCH=OFF >/dev/null
cmake --build --preset default --target agentconform

# Cases spend most of their time waiting on the lobby (timeouts, token expiry): `run`'s default
# --jobs (32) keeps the cores busy; a --jobs/-j of your own wins.
exec build/bin/agentconform run --report junit,json,html,md --report-dir agentconform-report "$@"
