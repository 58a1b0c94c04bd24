#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
# World size against init time, connections and memory, NEXAR_CONNECT=eager against lazy,
# for each NEXAR_TOPOLOGY in SCALING_TOPOLOGIES (default "full"; e.g. "full kregular:4
# hypercube"), every peer over QUIC on one host (NEXAR_TRANSPORT=quic):
# tools/scaling_probe.c under nexrun -np NP for each NP, and Open MPI's mpirun of the
# launch probe beside it (the anchor: the job's wall time). One row per (NP, topology, mode):
#   job_s      wall time of the whole job (nexrun start to exit)
#   init_med/max  nexar_init per rank (s), median and slowest rank
#   first_med  the first allreduce of one float (lazy: it makes the connections it uses)
#   second_med the next one
#   conn_mean/max  peers each rank connected to over QUIC by the end (the INFO line
#              World::shutdown logs), of `links` (the peers it may link to: np - 1, or
#              its degree in a sparse topology)
#   rss_init/rss_end  mean resident memory per rank after init and at the end (MiB)
#   tools/scaling_bench.sh [BUILD_DIR] [NP...]        (defaults: build, 16 64 256)
# SCALING_MODES picks the NEXAR_CONNECT modes (default "eager lazy"; e.g. "lazy").
# Each run is bounded by SCALING_TIMEOUT seconds (default 900), which is also the peer
# timeout: with 64 ranks on 2 cores the rendezvous server (in nexrun) went silent for
# more than the default 5 s and ranks declared it lost. Run it inside
# `flock /work/.bench.lock` beside nothing else heavy; the load average is printed.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift || true
nps=("$@")
[ ${#nps[@]} -gt 0 ] || nps=(16 64 256)
read -r -a topologies <<<"${SCALING_TOPOLOGIES:-full}"
read -r -a modes <<<"${SCALING_MODES:-eager lazy}"
for mode in "${modes[@]}"; do
  [ "$mode" = eager ] || [ "$mode" = lazy ] || { echo "scaling_bench.sh: SCALING_MODES=$mode: not eager or lazy" >&2; exit 2; }
done
limit=${SCALING_TIMEOUT:-900}
for f in "$build/launcher/nexrun" "$build/tools/nexar-scaling-probe"; do
  [ -x "$f" ] || { echo "scaling_bench.sh: $f is missing (build it)" >&2; exit 2; }
done
mpi_probe="$build/tools/mpi-launch-probe"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# stats COLUMN: median and max of a column of numbers on stdin.
stats() { sort -g | awk '{ v[NR] = $1; s += $1 } END { if (!NR) { print "- - -"; exit } printf "%.4f %.4f %.4f\n", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2, v[NR], s / NR }'; }
wall() {  # wall SECONDS_FILE COMMAND...: runs it bounded, writes its wall time
  local out=$1 t0 t1 rc=0
  shift
  t0=$(date +%s.%N)
  timeout "$limit" "$@" >"$tmp/stdout" 2>"$tmp/stderr" || rc=$?
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f\n", b - a }' >"$out"
  return $rc
}
echo "# $(date -u +%F) $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(nproc) cores, one host, NEXAR_TRANSPORT=quic"
printf '%-5s %-11s %-6s %8s %9s %9s %10s %10s %9s %9s %5s %9s %9s\n' np topology mode job_s init_med init_max first_med \
  second_med conn_mean conn_max links rss_init rss_end
for np in "${nps[@]}"; do
  for topology in "${topologies[@]}"; do
  for mode in "${modes[@]}"; do
    load=$(cut -d' ' -f1 /proc/loadavg)
    if ! wall "$tmp/job_s" env NEXAR_TRANSPORT=quic NEXAR_TOPOLOGY="$topology" NEXAR_CONNECT=$mode NEXAR_DEBUG=INFO NEXAR_DEBUG_SUBSYS=INIT \
        NEXAR_CONNECT_TIMEOUT=$limit NEXAR_TIMEOUT=$limit NEXAR_PEER_TIMEOUT=$limit "$build/launcher/nexrun" -np "$np" --bind-to none \
        "$build/tools/nexar-scaling-probe"; then
      printf '%-5s %-11s %-6s %8s  failed or over %s s (load %s): %s\n' "$np" "$topology" "$mode" "$(cat "$tmp/job_s")" "$limit" "$load" \
        "$(grep -m1 -i 'error\|fail' "$tmp/stderr" || true)"
      continue
    fi
    col() { awk -v k="$1" '$1 == "scaling" { for (i = 2; i < NF; ++i) if ($i == k) print $(i + 1) }' "$tmp/stdout"; }
    read -r init_med init_max _ < <(col init_s | stats)
    read -r first_med _ _ < <(col first_s | stats)
    read -r second_med _ _ < <(col second_s | stats)
    rss_i=$(col rss_init_kb | stats | awk '{ printf "%.1f", $3 / 1024 }')
    rss_e=$(col rss_end_kb | stats | awk '{ printf "%.1f", $3 / 1024 }')
    grep -o '[0-9]* of [0-9]* network peers connected ([^)]*) at the end' "$tmp/stderr" >"$tmp/conn" || true
    read -r _ conn_max conn_mean < <(awk '{ print $1 }' "$tmp/conn" | stats)
    read -r _ links _ < <(awk '{ print $3 }' "$tmp/conn" | stats)
    printf '%-5s %-11s %-6s %8s %9.3f %9.3f %10.4f %10.4f %9.1f %9d %5d %9s %9s   load %s\n' "$np" "$topology" "$mode" \
      "$(cat "$tmp/job_s")" "$init_med" "$init_max" "$first_med" "$second_med" "$conn_mean" "${conn_max%.*}" \
      "${links%.*}" "$rss_i" "$rss_e" "$load"
  done
  done
  if [ -x "$mpi_probe" ] && command -v mpirun >/dev/null; then
    load=$(cut -d' ' -f1 /proc/loadavg)
    if wall "$tmp/job_s" mpirun -np "$np" --oversubscribe --bind-to none "$mpi_probe"; then
      printf '%-5s %-6s %8s   (Open MPI mpirun, launch probe: init + allreduce + finalize)   load %s\n' "$np" mpirun \
        "$(cat "$tmp/job_s")" "$load"
    else
      printf '%-5s %-6s %8s   failed or over %s s\n' "$np" mpirun "$(cat "$tmp/job_s")" "$limit"
    fi
  fi
done
