#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
# nexar-bench -P (and mpi-bench -P when Open MPI is installed): after each row a comment line
# with the samples' spread, ordered, its p50 the row's median; no such line without -P.
#   bench_spread_test.sh NEXRUN NEXAR_BENCH [MPI_BENCH]
set -euo pipefail
nexrun=$1 nexar_bench=$2 mpi_bench=${3:-}
fail() { echo "bench_spread_test: $*" >&2; exit 1; }

# check OUTPUT LABEL: one row and one spread line after it, consistent.
check() {
  echo "$1" | awk -v label="$2" '
    $1 == "allreduce" { rows++; median = $8; iters = $7; next }
    /^# spread over/ {
      spreads++
      if ($4 != iters) { print label ": spread over " $4 " iterations, the row ran " iters; bad = 1 }
      # "# spread over N iterations (us): min A p10 B p50 C p90 D p99 E max F"
      v[0] = $8; v[1] = $10; v[2] = $12; v[3] = $14; v[4] = $16; v[5] = $18
      for (i = 1; i < 6; i++) if (v[i] + 0 < v[i - 1] + 0) { print label ": spread out of order: " $0; bad = 1 }
      if (v[2] != median) { print label ": p50 " v[2] " is not the row median " median; bad = 1 }
    }
    END {
      if (rows != 1 || spreads != 1) { print label ": " rows + 0 " rows, " spreads + 0 " spread lines (want 1 and 1)"; bad = 1 }
      exit bad
    }' >&2 || fail "$2: $1"
}

# An odd count: the median is one sample, as p50 is.
out=$(timeout 120 "$nexrun" --timeout 100 -np 2 "$nexar_bench" -c allreduce -l 4 -n 21 -w 2 -P) || fail "nexar-bench -P failed: $out"
check "$out" nexar-bench
out=$(timeout 120 "$nexrun" --timeout 100 -np 2 "$nexar_bench" -c allreduce -l 4 -n 21 -w 2) || fail "nexar-bench failed: $out"
if echo "$out" | grep -q '^# spread'; then fail "a spread line without -P: $out"; fi

if [ -n "$mpi_bench" ] && [ -x "$mpi_bench" ] && command -v mpirun > /dev/null; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  # Open MPI never frees what its components allocate (dlopened, then closed): in a sanitized
  # build LeakSanitizer would fail mpi-bench on Open MPI's memory. nexar-bench above keeps
  # the leak check.
  out=$(ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0" timeout 120 mpirun -np 2 --oversubscribe --mca btl self,vader "$mpi_bench" -c allreduce -l 4 -n 21 -w 2 -P) ||
    fail "mpi-bench -P failed: $out"
  check "$out" mpi-bench
fi
echo "bench_spread_test: ok"
