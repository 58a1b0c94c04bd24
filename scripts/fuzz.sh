#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
# Builds the libFuzzer targets (tests/fuzz) with clang-14 and ASan+UBSan into build-fuzz/
# and runs each for SECONDS (default 60), starting from its committed seed corpus.
#   scripts/fuzz.sh [SECONDS] [TARGET...]     e.g. scripts/fuzz.sh 600 quic_wire agent
#   scripts/fuzz.sh --build-only              only build them (exit 1 if clang cannot)
#   scripts/fuzz.sh --build-all               build every target of the tree there (the
#                                             tests too: scripts/test.sh --sanitize-clang)
# The same build makes libnexar and nexrun from the same objects, warnings as errors, so
# one clang-14 build proves both the fuzz targets and clang's build of the product.
# New interesting inputs go to build-fuzz/corpus/<target>; a crash, a hang (-timeout) or
# running out of memory leaves its input in build-fuzz/findings/, printed here in hex, and
# makes this script exit 1: fix it and commit the input to
# tests/fuzz/corpus/<target>/finding_<what> (the GCC builds replay it as a test).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${NEXAR_FUZZ_DIR:-$root/build-fuzz}
all=($(ls "$root/tests/fuzz/corpus"))  # every target has its seed corpus there
build_only=0
build_all=0
secs=60
if [ "${1:-}" = "--build-only" ]; then build_only=1; shift; fi
if [ "${1:-}" = "--build-all" ]; then build_only=1; build_all=1; shift; fi
if [ $# -gt 0 ] && [[ "$1" =~ ^[0-9]+$ ]]; then secs=$1; shift; fi
targets=("${@:-${all[@]}}")
[ $# -gt 0 ] || targets=("${all[@]}")
if ! command -v clang++-14 > /dev/null; then
  echo "fuzz.sh: clang++-14 not found (apt-get install clang-14 libfuzzer-14-dev)" >&2
  exit 2
fi
# -O1 with line tables only (as OSS-Fuzz builds): about half the compile time of -O2 -g,
# and stack traces still name file and line. libFuzzer's coverage flags come from
# NEXAR_FUZZ, for the decoders' libraries only (tests/fuzz/CMakeLists.txt).
opt="-O1 -gline-tables-only"
mkdir -p "$dir"
generator=()
if command -v ninja > /dev/null && [ ! -f "$dir/CMakeCache.txt" ]; then generator=(-G Ninja); fi
# CMAKE_*_FLAGS are emptied: a directory configured when this script passed the coverage
# flags there keeps them in its cache otherwise.
cmake -S "$root" -B "$dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang-14 \
  -DCMAKE_CXX_COMPILER=clang++-14 -DNEXAR_FUZZ=ON -DNEXAR_WERROR=ON -DNEXAR_SANITIZE=address,undefined \
  -DCMAKE_C_FLAGS= -DCMAKE_CXX_FLAGS= \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="$opt" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$opt" \
  > "$dir/configure.log" 2>&1 || { cat "$dir/configure.log" >&2; exit 1; }
if [ $build_all = 1 ]; then
  cmake --build "$dir" -j"${NEXAR_FUZZ_JOBS:-$(nproc)}"
else
  cmake --build "$dir" -j"${NEXAR_FUZZ_JOBS:-$(nproc)}" --target nexar nexrun "${targets[@]/#/fuzz_}"
fi
[ $build_only = 1 ] && exit 0
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
mkdir -p "$dir/findings"
failed=()
# Each input a target failed on: its file, its bytes in hex, and how to replay it.
show_findings() {
  local f
  for f in "$dir/findings/$1-"*; do
    [ -e "$f" ] || continue
    echo "fuzz.sh: $1 failed on $f ($(stat -c %s "$f") bytes); replay: $dir/tests/fuzz/fuzz_$1 $f" >&2
    od -A d -t x1z -v "$f" | head -64 >&2
  done
}
for t in "${targets[@]}"; do
  mkdir -p "$dir/corpus/$t"
  rm -f "$dir/findings/$t-"*
  echo "fuzz.sh: $t for ${secs} s"
  # The first corpus directory receives new inputs; the committed seeds are only read.
  if ! "$dir/tests/fuzz/fuzz_$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$dir/findings/$t-" "$dir/corpus/$t" "$root/tests/fuzz/corpus/$t" 2> "$dir/fuzz_$t.log"; then
    failed+=("$t")
    tail -40 "$dir/fuzz_$t.log" >&2
    show_findings "$t"
  fi
  grep -E "stat::number_of_executed_units|stat::new_units_added" "$dir/fuzz_$t.log" | sed "s/^/  $t /" || true
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz.sh: findings in: ${failed[*]} (inputs in $dir/findings)" >&2
  exit 1
fi
