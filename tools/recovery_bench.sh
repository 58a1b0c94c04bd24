#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
# Recovery time after a lost rank (tools/recovery_bench.cc): for each world size, REPS runs
# of each way, each killing the last rank inside an allreduce; one line per run.
#   shrink   nexrun --enable-recovery revoke, shrink, allreduce on the survivors
#   rebuild  nexrun --respawn 1      rebuild with the replacement, allreduce on the full world
#   gang     nexrun --max-restarts 1 every rank stopped and started again (torchrun's way)
# Usage: tools/recovery_bench.sh [build-dir] [sizes...]
#   (REPS=3, WAYS="shrink rebuild gang", NEXAR_TRANSPORT=quic for QUIC; extra nexrun options
#    such as -H/--launch-agent in NEXRUN_OPTS)
set -eu
build=${1:-build}
[ $# -gt 0 ] && shift
sizes=${*:-"4 8"}
reps=${REPS:-3}
ways=${WAYS:-"shrink rebuild gang"}
stamp=$(mktemp)
trap 'rm -f "$stamp"' EXIT
echo "# kill -> slowest survivor's error / recovered communicator / first good allreduce"
for way in $ways; do
  case $way in
    shrink) opts="--enable-recovery"; args="shrink" ;;
    rebuild) opts="--respawn 1"; args="rebuild" ;;
    gang) opts="--max-restarts 1"; args="gang $stamp" ;;
    *) echo "unknown way $way" >&2; exit 2 ;;
  esac
  for np in $sizes; do
    i=0
    while [ "$i" -lt "$reps" ]; do
      # shellcheck disable=SC2086
      "$build/launcher/nexrun" ${NEXRUN_OPTS:-} $opts -np "$np" "$build/tools/nexar-recovery-bench" $args 2>/dev/null |
        grep '^np ' || echo "np $np  $way run failed"
      i=$((i + 1))
    done
  done
done
