#!/usr/bin/env bash
# The whole test suite, from a fresh Debian 12 checkout:
#   1. set-up (installs missing Debian packages; idempotent),
#   2. g++ build with ASan+UBSan and every test: unit, property (RapidCheck), CLI,
#      integration (reference lobby, harness suites, kill matrix, reports),
#   3. clang-19 build of the libFuzzer targets and a bounded fuzz smoke of each (ASan+UBSan).
# .ci/run calls this script verbatim.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh

echo "== ASan+UBSan build and tests"
cmake --preset asan >/dev/null
cmake --build --preset asan
ctest --preset asan

echo "== libFuzzer build and fuzz smoke"
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz
ctest --preset fuzz
