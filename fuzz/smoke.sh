#!/usr/bin/env bash
# Bounded fuzz smoke for one libFuzzer target, run by CTest in the fuzz preset.
#   smoke.sh FUZZER NAME SECONDS
# 1. replays every input in fuzz/regressions/NAME/ (crashes found earlier must stay fixed);
# 2. fuzzes for SECONDS seconds from the seed corpora, in a scratch corpus directory.
# Any crash, leak, sanitizer report or timeout fails the test and leaves the input in
# build-fuzz/fuzz-artifacts/.
set -euo pipefail
fuzzer=$1 name=$2 seconds=$3
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
artifacts="$(dirname "$fuzzer")/../fuzz-artifacts/$name"
mkdir -p "$artifacts"
common=(-rss_limit_mb=2048 -timeout=10 -max_len=65536 "-artifact_prefix=$artifacts/")
[ -f "$here/dict/$name.dict" ] && common+=("-dict=$here/dict/$name.dict")

regressions=()
if [ -d "$here/regressions/$name" ]; then
  while IFS= read -r -d '' f; do regressions+=("$f"); done < <(find "$here/regressions/$name" -type f -print0)
fi
if [ ${#regressions[@]} -gt 0 ]; then
  echo "== $name: replaying ${#regressions[@]} regression inputs"
  "$fuzzer" "${common[@]}" "${regressions[@]}"
fi

seeds=()
[ -d "$here/corpus/$name" ] && seeds+=("$here/corpus/$name")
if [ -f "$here/seeds/$name.txt" ]; then
  while IFS= read -r line; do
    [ -n "$line" ] && [ -d "$root/$line" ] && seeds+=("$root/$line")
  done < "$here/seeds/$name.txt"
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
echo "== $name: fuzzing for ${seconds}s from ${#seeds[@]} seed directories"
"$fuzzer" "${common[@]}" -max_total_time="$seconds" -print_final_stats=1 "$scratch" "${seeds[@]}"
