#!/usr/bin/env bash
# Step "Conformance run" of action.yml: builds the `agentconform run` command line from the
# action's inputs (INPUT_* variables), runs it, and records its exit code, gate line and report
# directory as step outputs. It does not fail itself: the Job summary and Upload steps run first,
# then the Gate step fails the job by the exit code.
#
# A missing baseline file is tolerated: the run goes without it (every failure gates, which is
# what a first run should show) and the note says how to create it. With update-baseline 'true'
# the run writes the file (creating it) and a copy goes into the report directory, i.e. the
# artifact, for you to commit.
set -uo pipefail
: "${GITHUB_OUTPUT:?}" "${RUNNER_TEMP:?}"

output() { printf '%s=%s\n' "$1" "$2" >> "$GITHUB_OUTPUT"; }
usage_error() {  # a bad input: the run does not start, the gate reports exit 2
  echo "::error title=agentconform input::$1"
  output exit-code 2; output note "$1"
  exit 0
}

report_dir=${INPUT_REPORT_DIR:-agentconform-report}
output report-dir "$report_dir"
set -f  # list inputs are split on separators, never globbed (case globs reach agentconform as typed)

# shellcheck disable=SC2054  # the commas belong to the --report value
args=(run --report junit,json,html,md --report-dir "$report_dir")
IFS=', ' read -ra protocols <<< "${INPUT_PROTOCOL:-}"
[ ${#protocols[@]} -gt 0 ] || usage_error "input protocol is required (alp, agora, agentprotocol, a2acp or chopsticks)"
for p in "${protocols[@]}"; do args+=(--protocol "$p"); done
[ -z "${INPUT_TARGET:-}" ] || args+=(--target "$INPUT_TARGET")
[ -z "${INPUT_CONFIG:-}" ] || args+=(--config "$INPUT_CONFIG")
IFS=', ' read -ra suites <<< "${INPUT_SUITES:-}"
for s in "${suites[@]}"; do args+=(--suite "$s"); done
[ -z "${INPUT_FAIL_ON:-}" ] || args+=(--fail-on "$INPUT_FAIL_ON")
[ -z "${INPUT_MIN_COVERAGE:-}" ] || args+=(--min-must-coverage "$INPUT_MIN_COVERAGE")

note=""
update=${INPUT_UPDATE_BASELINE:-false}
case "$update" in true|false) ;; *) usage_error "input update-baseline must be 'true' or 'false' (got '$update')" ;; esac
if [ -n "${INPUT_BASELINE:-}" ]; then
  if [ "$update" = true ]; then
    mkdir -p "$(dirname "$INPUT_BASELINE")"  # agentconform writes the file, not its directory
    args+=(--baseline "$INPUT_BASELINE" --update-baseline)
  elif [ -f "$INPUT_BASELINE" ]; then
    args+=(--baseline "$INPUT_BASELINE")
  else
    note="No baseline at $INPUT_BASELINE yet, so every failure gates this run. To accept the current failures, run once with update-baseline: true and commit $INPUT_BASELINE from the artifact (baseline.json)."
    echo "::notice title=agentconform baseline::$note"
  fi
elif [ "$update" = true ]; then
  usage_error "update-baseline: true needs the baseline input (the file to write)"
fi

read -ra extra <<< "${INPUT_ARGS:-}"

echo "agentconform ${args[*]} ${extra[*]}"
# The run prints strings from the target under test: no line of it may act as a workflow command.
token=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
echo "::stop-commands::$token"
log=$RUNNER_TEMP/agentconform-run.log
agentconform "${args[@]}" "${extra[@]}" 2>&1 | tee "$log"
code=${PIPESTATUS[0]}
echo "::$token::"

if [ "$update" = true ] && [ -f "$INPUT_BASELINE" ] && [ -d "$report_dir" ]; then
  cp "$INPUT_BASELINE" "$report_dir/baseline.json"
  note="The baseline $INPUT_BASELINE was written by this run (update-baseline: true): commit it from the artifact (baseline.json) after editing the reasons."
fi

gate=$(grep -a '^gate: ' "$log" | tail -n 1 | sed 's/^gate: //' | tr -d '\r')
output exit-code "$code"
output gate "$gate"
output note "$note"
echo "agentconform exited $code"
exit 0
