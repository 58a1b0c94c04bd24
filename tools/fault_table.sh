#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
# The fault-scenario table (not in CI; needs root): every scenario of
# tests/multihost/fault_table.cc (frames dropped and duplicated on the namespace bridge,
# datagrams delayed and corrupted, the link cut and restored or cut for good, a random
# rank SIGKILLed or SIGSTOPped at a random point of a collective loop) RUNS times with
# seeds from SEED, on two namespace hosts (the tests' testbed, taken under its lock).
# Prints each failed run, then a table: scenario, expected end, runs, failures, worst
# seconds (the job's, or from the fault to the job's named end), leftovers (processes,
# /dev/shm names, credential directories, sockets); exits 1 if any run failed.
#   tools/fault_table.sh [RUNS] [SEED] [BUILD_DIR] [-- SCENARIO...]   (defaults: 5, 1, build)
set -euo pipefail
runs=${1:-5}
seed=${2:-1}
build=$(cd "${3:-build}" && pwd)
shift $(($# < 3 ? $# : 3))
[ "${1:-}" = "--" ] && shift
table=$build/tests/multihost/fault_table
[ -x "$table" ] || { echo "fault_table.sh: $table missing (cmake --build $build --target fault_table)" >&2; exit 2; }
echo "fault_table.sh: commit $(git -C "$(dirname "$0")" rev-parse --short HEAD 2> /dev/null || echo unknown)," \
  "$(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
rc=0
NEXRUN=$build/launcher/nexrun "$table" "$runs" "$seed" "$@" || rc=$?
echo "fault_table.sh: load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
exit $rc
