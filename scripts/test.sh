#!/usr/bin/env bash
# The whole test suite, from a fresh Debian 12 checkout:
#   1. set-up (`scripts/setup.sh test`: installs missing Debian packages; idempotent),
#   2. g++ build with ASan+UBSan and every test: unit, property (RapidCheck), CLI,
#      integration (reference lobby, harness suites, kill matrix, reports),
#   3. clang-19 build of the libFuzzer targets the way ClusterFuzzLite / OSS-Fuzz builds them
#      (.clusterfuzzlite/build.sh with the OSS-Fuzz variables, ASan+UBSan; at low priority, beside
#      the tests of 2) and a bounded fuzz smoke of every binary from its $OUT (seed corpus zip,
#      dict, options, shipped data).
# .ci/run calls this script verbatim.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh test

# Stage times go to the log, so a slow CI run shows where its minutes went.
stage_start=$SECONDS
stage_done() { echo "== $1 took $((SECONDS - stage_start)) s"; stage_start=$SECONDS; }
stage_done "set-up"

echo "== ASan+UBSan build and tests"
cmake --preset asan >/dev/null
cmake --build --preset asan
stage_done "ASan+UBSan build"

# The libFuzzer build (.clusterfuzzlite/build.sh with the OSS-Fuzz variables) runs during the
# tests at the lowest priority: many tests wait on sockets and timers, and the build takes the CPU
# they leave idle without slowing them (nice 19 weighs ~1/70 of a test process). Its log is
# printed after the tests.
cfl=$PWD/build-fuzz-cfl
mkdir -p "$cfl/src" "$cfl/work" "$cfl/out"
fuzz_env() {
  export CC=clang-19 CXX=clang++-19
  export CFLAGS="-O1 -gline-tables-only -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined -fsanitize=fuzzer-no-link"
  export CXXFLAGS="$CFLAGS" LIB_FUZZING_ENGINE=-fsanitize=fuzzer SRC=$cfl/src WORK=$cfl/work OUT=$cfl/out
}
( fuzz_env; exec nice -n 19 .clusterfuzzlite/build.sh ) >"$cfl/build.log" 2>&1 &
fuzz_build=$!
trap 'kill $fuzz_build 2>/dev/null || true' EXIT
ctest --preset asan
stage_done "ASan+UBSan tests (libFuzzer build beside them)"

echo "== libFuzzer build (.clusterfuzzlite/build.sh, OSS-Fuzz variables) and fuzz smoke"
# One clang build: build.sh drives CMake in $WORK with the fuzz preset's options and fills $OUT
# as ClusterFuzzLite expects; the smoke then runs every binary from $OUT. (`cmake --preset fuzz`
# + `ctest --preset fuzz` remain the developer's way, with the same targets and smoke.)
if ! wait "$fuzz_build"; then
  cat "$cfl/build.log"
  echo "== the libFuzzer build failed (log above)" >&2
  exit 1
fi
trap - EXIT
tail -n 3 "$cfl/build.log"
stage_done "libFuzzer build (rest of it, after the tests)"
( fuzz_env; fuzz/smoke_out.sh "$OUT" 4 3 )
stage_done "fuzz smoke"
