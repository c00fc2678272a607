#!/usr/bin/env bash
# Bounded fuzz smoke of an OSS-Fuzz style $OUT (what .clusterfuzzlite/build.sh produced), run by
# scripts/test.sh:
#   fuzz/smoke_out.sh OUT SECONDS HUB_SECONDS
# 1. checks that every fuzz target of fuzz/targets/ is in OUT with its seed corpus zip, dict and
#    options file (and that OUT has nothing else a runner would take for a fuzzer);
# 2. per binary, two at a time: replays fuzz/regressions/<name>/, then fuzzes for SECONDS
#    (HUB_SECONDS for the in-process hub targets) from the unzipped seed corpus, with the dict and
#    the options file's max_len / timeout / rss_limit_mb, reading its data from
#    OUT/agentconform-data (AGENTCONFORM_DATA_DIR), so a file build.sh forgot to ship fails here.
# Any crash, leak, sanitizer report or timeout fails; the input is left in OUT/../fuzz-artifacts/.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

if [ "${1:-}" = "--one" ]; then
  # One binary (called by the loop below through xargs).
  out=$2 fuzzer=$3 seconds=$4
  name=${fuzzer#fuzz_}
  option() { sed -n "s/^[[:space:]]*$1[[:space:]]*=[[:space:]]*\\(.*\\)/\\1/p" "$out/$fuzzer.options" | tail -1; }
  artifacts="$(dirname "$out")/fuzz-artifacts/$name"
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  mkdir -p "$artifacts" "$scratch/seeds" "$scratch/corpus"
  python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' \
    "$out/${fuzzer}_seed_corpus.zip" "$scratch/seeds"
  args=(-max_len="$(option max_len)" -timeout="$(option timeout)" -rss_limit_mb="$(option rss_limit_mb)"
        -dict="$out/$fuzzer.dict" "-artifact_prefix=$artifacts/")
  export AGENTCONFORM_DATA_DIR="$out/agentconform-data"
  {
    if [ -d "$here/regressions/$name" ] && [ -n "$(ls -A "$here/regressions/$name")" ]; then
      echo "== $fuzzer: replaying $(ls "$here/regressions/$name" | wc -l) regression inputs"
      "$out/$fuzzer" "${args[@]}" "$here/regressions/$name"/*
    fi
    echo "== $fuzzer: fuzzing for ${seconds}s from $(ls "$scratch/seeds" | wc -l) seeds"
    "$out/$fuzzer" "${args[@]}" -max_total_time="$seconds" -print_final_stats=1 "$scratch/corpus" "$scratch/seeds"
  } > "$scratch/log" 2>&1 && status=0 || status=$?
  if [ $status -eq 0 ]; then
    grep -E "^== |^Done |^stat::number_of_executed_units|^stat::average_exec_per_sec|^stat::peak_rss_mb|#[0-9]+ *DONE" "$scratch/log" | sed "s/^/[$name] /"
  else
    sed "s/^/[$name] /" "$scratch/log" | tail -80
    echo "FAILED: $fuzzer (exit $status)"
  fi
  exit $status
fi

out=${1:?usage: smoke_out.sh OUT SECONDS HUB_SECONDS}
seconds=${2:?} hub_seconds=${3:?}
out=$(cd "$out" && pwd)

missing=0
for src in "$here"/targets/*.cpp; do
  fuzzer=fuzz_$(basename "$src" .cpp)
  for f in "$fuzzer" "${fuzzer}_seed_corpus.zip" "$fuzzer.dict" "$fuzzer.options"; do
    if [ ! -s "$out/$f" ]; then
      echo "smoke_out: $out/$f is missing"
      missing=1
    fi
  done
  [ -x "$out/$fuzzer" ] || { echo "smoke_out: $out/$fuzzer is not executable"; missing=1; }
done
[ -d "$out/agentconform-data/schemas" ] || { echo "smoke_out: $out/agentconform-data/schemas is missing"; missing=1; }
[ $missing -eq 0 ] || exit 1

jobs=()
for src in "$here"/targets/*.cpp; do
  name=$(basename "$src" .cpp)
  s=$seconds
  [[ $name == hub_* ]] && s=$hub_seconds
  jobs+=("fuzz_$name $s")
done
echo "== fuzz smoke of ${#jobs[@]} targets from $out (2 at a time)"
printf '%s\n' "${jobs[@]}" | xargs -P 2 -L 1 "$0" --one "$out"
