#!/usr/bin/env bash
# Step "Job summary" of action.yml: appends the run's summary.md to $GITHUB_STEP_SUMMARY (GitHub
# shows at most 1 MiB per step), after the run step's note (a missing baseline, a baseline
# written); when the run wrote no summary, says why, by the exit code.
set -uo pipefail
: "${GITHUB_STEP_SUMMARY:?}"
{
  if [ -n "${NOTE:-}" ]; then printf '> %s\n\n' "$NOTE"; fi
  if [ -n "${REPORT_DIR:-}" ] && [ -f "$REPORT_DIR/summary.md" ]; then
    head -c 1000000 "$REPORT_DIR/summary.md"
  else
    case "${EXIT_CODE:-}" in
      '') echo "**agentconform did not run**: see the log of the install step." ;;
      2) echo "**agentconform: usage or configuration error** (exit 2), no report: see the log of the run step." ;;
      3) echo "**agentconform: setup error, target unreachable or harness error** (exit 3), no report: see the log of the run step." ;;
      *) echo "**agentconform wrote no summary** (exit $EXIT_CODE): see the log of the run step." ;;
    esac
  fi
} >> "$GITHUB_STEP_SUMMARY"
