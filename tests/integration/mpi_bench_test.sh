#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
# mpi-bench, the Open MPI side of tools/compare_allreduce.sh: every collective it knows runs
# at np 2 and 3 with its result checked against the values nexar-bench uses (a row's last
# column "ok"; a wrong element aborts it), rooted ones at root 0; an unknown name is refused.
#   mpi_bench_test.sh MPI_BENCH
set -euo pipefail
mpi_bench=$1
fail() { echo "mpi_bench_test: $*" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Open MPI never frees what its components allocate: no leak check on mpi-bench (see bench_spread_test.sh).
export ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0"
mpi=(timeout 60 mpirun --oversubscribe --bind-to none --mca pml ob1 --mca btl self,vader)

for np in 2 3; do
  for coll in allreduce broadcast reduce allgather gather scatter reduce_scatter alltoall alltoallv alltoallv_skew barrier; do
    out=$("${mpi[@]}" -np "$np" "$mpi_bench" -c "$coll" -l 4,100,64K -n 5 -w 1 2>&1) || fail "$coll at np $np failed: $out"
    want=3
    [ "$coll" != barrier ] || want=1
    echo "$out" | awk -v c="$coll" -v want="$want" '
      $1 == c { rows++; if ($11 != "ok") bad = 1 }
      END { exit (bad || rows != want) }' || fail "$coll at np $np: want $want rows checked ok: $out"
  done
done
if out=$("${mpi[@]}" -np 2 "$mpi_bench" -c scan 2>&1); then fail "-c scan was accepted: $out"; fi
echo "$out" | grep -q "unknown collective" || fail "-c scan: no 'unknown collective' in: $out"
echo "mpi_bench_test: ok"
