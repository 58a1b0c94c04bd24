#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
# The second README command: install dependencies, build, run the whole test suite.
#   scripts/test.sh              the normal build (build/)
#   scripts/test.sh --sanitize   an ASan+UBSan build of everything (build-asan/)
#   scripts/test.sh --sanitize-clang
#                                the same with clang-14, in the fuzz build (build-fuzz/,
#                                made by scripts/fuzz.sh --build-all: one build serves the
#                                suite and the fuzz targets, as CI runs them)
#   scripts/test.sh --tsan       a ThreadSanitizer build of everything (build-tsan/)
#   scripts/test.sh --clang      a clang-14 build of everything (build-clang/)
# Extra arguments after those go to ctest (e.g. -L long, -R p2p).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
dir=build
cmake_args=()
ctest_args=(-LE long)
# Sanitizer builds: reports need file:line, not variables (line tables, -g1, build ~12%
# faster), and the library at -O1 (runtime/CMakeLists.txt says why).
sanitized=(-DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG=-g1 -DCMAKE_CXX_FLAGS_DEBUG=-g1 -DNEXAR_RUNTIME_OPT=-O1)
if [ "${1:-}" = "--sanitize" ]; then
  shift
  dir=build-asan
  cmake_args=(-DNEXAR_SANITIZE=address,undefined "${sanitized[@]}")
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
fi
if [ "${1:-}" = "--tsan" ]; then
  shift
  dir=build-tsan
  cmake_args=(-DNEXAR_SANITIZE=thread "${sanitized[@]}")
  export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
fi
if [ "${1:-}" = "--clang" ]; then
  shift
  dir=build-clang
  cmake_args=(-DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14)
fi
if [ "${1:-}" = "--sanitize-clang" ]; then
  shift
  dir=build-fuzz
  scripts/install-deps.sh clang
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
fi
[ $# -gt 0 ] && ctest_args=("$@")
if [ "$dir" = build-fuzz ]; then
  NEXAR_FUZZ_DIR="$PWD/$dir" scripts/fuzz.sh --build-all
else
  scripts/build.sh "$dir" "${cmake_args[@]}"
fi
cd "$dir"
# Two tests at a time (NEXAR_TEST_JOBS): tests/CMakeLists.txt says which run alone.
ctest --output-on-failure -j"${NEXAR_TEST_JOBS:-2}" "${ctest_args[@]}"
