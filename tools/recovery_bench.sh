#!/bin/sh
# Recovery time of nexar_comm_shrink (tools/recovery_bench.cc): for each world size, REPS
# runs, each killing the last rank inside an allreduce; one line per run.
# Usage: tools/recovery_bench.sh [build-dir] [sizes...]   (REPS=3, NEXAR_TRANSPORT=quic for QUIC)
set -eu
build=${1:-build}
[ $# -gt 0 ] && shift
sizes=${*:-"4 8"}
reps=${REPS:-3}
echo "# kill -> slowest survivor's error / shrunk communicator / first good allreduce"
for np in $sizes; do
  i=0
  while [ "$i" -lt "$reps" ]; do
    "$build/launcher/nexrun" --enable-recovery -np "$np" "$build/tools/nexar-recovery-bench" 2>/dev/null | grep '^np ' || echo "np $np  run failed"
    i=$((i + 1))
  done
done
