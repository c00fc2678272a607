#!/usr/bin/env bash
# Step "Gate" of action.yml: fails the step, and so the job, by agentconform's documented exit
# codes (README, docs/ci.md), after the summary and the artifact are out. EXIT_CODE and GATE are
# the outputs of the run step; an empty EXIT_CODE means agentconform did not run.
set -uo pipefail
case "${EXIT_CODE:-}" in
  0) echo "agentconform: conformant. ${GATE:-}" ;;
  1) echo "::error title=agentconform: not conformant::${GATE:-see the summary}"; exit 1 ;;
  2) echo "::error title=agentconform: usage or configuration error::see the log of the run step"; exit 2 ;;
  3) echo "::error title=agentconform: setup error, unreachable target or harness error::see the log of the run step"; exit 3 ;;
  '') echo "::error title=agentconform did not run::see the install step"; exit 3 ;;
  *) echo "::error title=agentconform ended abnormally (exit $EXIT_CODE)::see the log of the run step"; exit 3 ;;
esac
