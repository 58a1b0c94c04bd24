#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
# The flight recorder's cost on the 4 B allreduce: nexar-bench with the recorder on
# (NEXAR_TRACE_BUFFER default) and off (NEXAR_TRACE_BUFFER=0), run in interleaved pairs
# (the order alternates each pair), then per np the median over the pairs of each side's
# median latency and the median of the pairs' on/off ratios (docs/observability.md, Cost).
#
#   tools/recorder_cost.sh [BUILD_DIR] [PAIRS]     (defaults: build, 8)
#   environment: NPS (default "2 8"), TARGET (seconds per run, default 0.3)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
pairs=${2:-8}
nps=${NPS:-"2 8"}
target=${TARGET:-0.3}
nexrun=$build/launcher/nexrun
bench=$build/tools/nexar-bench
for f in "$nexrun" "$bench"; do
  [ -x "$f" ] || { echo "recorder_cost.sh: $f is missing (build it)" >&2; exit 2; }
done

# run NP BUFFER: the median latency (us) of one nexar-bench run of the 4 B allreduce.
run() {
  NEXAR_TRACE_BUFFER=$2 timeout 300 "$nexrun" -np "$1" "$bench" -c allreduce -l 4 -t "$target" |
    awk '$1 == "allreduce" { print $8; if ($11 != "ok") exit 1 }'
}

median() { sort -g | awk '{ v[++n] = $1 } END { print n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }'; }

printf "%-4s %6s %12s %12s %14s\n" np pairs "on (us)" "off (us)" "ratio on/off"
for np in $nps; do
  on=() off=() ratios=()
  for ((i = 0; i < pairs; i++)); do
    if ((i % 2 == 0)); then a=$(run "$np" 2000); b=$(run "$np" 0); else b=$(run "$np" 0); a=$(run "$np" 2000); fi
    on+=("$a") off+=("$b") ratios+=("$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.4f", a / b }')")
  done
  printf "%-4s %6s %12s %12s %14.3f\n" "$np" "$pairs" "$(printf '%s\n' "${on[@]}" | median)" \
    "$(printf '%s\n' "${off[@]}" | median)" "$(printf '%s\n' "${ratios[@]}" | median)"
  echo "#   np $np ratios: ${ratios[*]}"
done
echo "# $(nproc) cores, load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
