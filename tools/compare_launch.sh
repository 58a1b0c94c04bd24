#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
# Launch cost, nexar against Open MPI: wall time of `nexrun -np NP` and `mpirun -np NP` of a
# program that initialises, allreduces one float and shuts down (tools/launch_probe.c and
# tools/mpi_launch_probe.c), interleaved RUNS times; prints the medians and their ratio.
#   tools/compare_launch.sh [BUILD_DIR] [RUNS] [NP]      (defaults: build, 10, 4)
# Needs Debian's openmpi-bin and libopenmpi-dev (scripts/install-deps.sh --bench).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
runs=${2:-10}
np=${3:-4}
for f in "$build/launcher/nexrun" "$build/tools/nexar-launch-probe" "$build/tools/mpi-launch-probe"; do
  [ -x "$f" ] || { echo "compare_launch.sh: $f is missing (build it; the MPI probe needs libopenmpi-dev)" >&2; exit 2; }
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# seconds COMMAND...: wall time of one run; a failed run fails the script.
seconds() {
  local t0 t1
  t0=$(date +%s.%N)
  timeout 60 "$@" >/dev/null || { echo "compare_launch.sh: failed: $*" >&2; exit 1; }
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", b - a }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
nexar=() mpi=()
for ((i = 0; i < runs; i++)); do
  nexar+=("$(seconds "$build/launcher/nexrun" -np "$np" "$build/tools/nexar-launch-probe")")
  mpi+=("$(seconds mpirun -np "$np" --oversubscribe --bind-to none "$build/tools/mpi-launch-probe")")
done
n=$(printf '%s\n' "${nexar[@]}" | median)
m=$(printf '%s\n' "${mpi[@]}" | median)
printf '# init + allreduce + destroy, %d ranks, median of %d interleaved runs (s)\n' "$np" "$runs"
printf '%-10s %10s %10s %8s\n' np nexrun mpirun ratio
awk -v np="$np" -v n="$n" -v m="$m" 'BEGIN { printf "%-10d %10.3f %10.3f %8.2f\n", np, n, m, n / m }'
