#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
# Collectives (allreduce by default, float32, sum), nexar against Open MPI, measured back to back in one go with
# the same method (tools/bench_method.h, ../shared/design/BENCHMARKS.md), interleaving the
# systems and repeating, then per collective a table of the medians of the rounds and their
# ratios, and a plot of busbw against message size (tools/plot_busbw.sh, needs gnuplot).
#
#   tools/compare_allreduce.sh [BUILD_DIR] [ROUNDS]      (defaults: build, 3)
#   environment: COLL (default allreduce; a comma-separated list of collectives both mpi-bench
#                and nexar-bench know: allreduce, broadcast, reduce, allgather, gather, scatter,
#                reduce_scatter, alltoall, alltoallv, alltoallv_skew, barrier (rooted ones at
#                root 0); NAME:gG runs it inside G groups split from the world, e.g.
#                allreduce:g2 for 8 ranks as 2 groups of 4; COLL=all: every one of broadcast,
#                reduce, allgather, gather, scatter, reduce_scatter, alltoall, barrier,
#                allreduce, allreduce:g2),
#                BIND (--bind-to of both launchers, default none; auto: per np as both launchers'
#                default would, the same flag given to both: core up to 2 ranks, socket up to
#                the cores nproc counts, none beyond),
#                TARGET (seconds per size, default 0.2), NPS (default "2 4 8"),
#                SIZES (default 4,1K,64K,1M,16M,64M),
#                SYSTEMS (default "nexar-shm ompi-shm nexar-quic ompi-tcp"; nexar-tcp too;
#                nexar-quic-dflt and nexar-tcp-dflt: the same launched with nexrun's own
#                default binding, whatever BIND says (core up to 2 ranks, as BIND=auto);
#                nexar-quic-ns, nexar-quic-lossy, nexar-tcp-ns: see below),
#                PLOT (the PNG to write, default BUILD_DIR/compare_allreduce.png; with several
#                collectives one PNG each, named with the collective before .png; empty: none)
#
# Systems: nexar as it chooses its transport (shared memory between ranks of one host),
# nexar forced onto QUIC (NEXAR_TRANSPORT=quic), nexar forced onto its unencrypted TCP data
# plane (NEXAR_TRANSPORT=tcp), Open MPI's shared memory (btl vader) and Open MPI over TCP on
# loopback (btl tcp) -- the fair partner of nexar over QUIC, and the like of nexar over TCP.
# Needs Debian's openmpi-bin and mpi-bench (built when libopenmpi-dev is installed).
# The paths between hosts (root; tools/netns_pair.sh): nexar-quic-ns runs nexar over QUIC
# between two namespace hosts joined by 1500-byte-MTU veths and a bridge (ranks split
# evenly), nexar-quic-lossy the same with LOSS% (default 2) of the UDP frames dropped and
# DUP% (default 2) duplicated on the way, nexar-tcp-ns nexar's TCP data plane between the same
# hosts; a second table compares them with nexar-quic (nexar-tcp) on loopback.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
rounds=${2:-3}
target=${TARGET:-0.2}
colls=${COLL:-allreduce}
[ "$colls" != all ] || colls=broadcast,reduce,allgather,gather,scatter,reduce_scatter,alltoall,barrier,allreduce,allreduce:g2
IFS=, read -r -a coll_list <<< "$colls"
bind=${BIND:-none}
nps=${NPS:-"2 4 8"}
sizes=${SIZES:-4,1K,64K,1M,16M,64M}
read -r -a systems <<< "${SYSTEMS:-nexar-shm ompi-shm nexar-quic ompi-tcp}"
plot=${PLOT-$build/compare_allreduce.png}
nexrun=$build/launcher/nexrun
nexar_bench=$build/tools/nexar-bench
mpi_bench=$build/tools/mpi-bench
for f in "$nexrun" "$nexar_bench" "$mpi_bench"; do
  [ -x "$f" ] || { echo "compare_allreduce.sh: $f is missing (build it; mpi-bench needs libopenmpi-dev)" >&2; exit 2; }
done
command -v mpirun >/dev/null || { echo "compare_allreduce.sh: mpirun not found (apt-get install openmpi-bin)" >&2; exit 2; }
for s in "${systems[@]}"; do
  case $s in nexar-shm | nexar-quic | nexar-tcp | nexar-quic-dflt | nexar-tcp-dflt | ompi-shm | ompi-tcp) ;;
    nexar-quic-ns | nexar-quic-lossy | nexar-tcp-ns) netns=1 ;;
    *) echo "compare_allreduce.sh: unknown system '$s' in SYSTEMS (nexar-shm, nexar-quic, nexar-tcp, nexar-quic-dflt," \
         "nexar-tcp-dflt, ompi-shm, ompi-tcp, nexar-quic-ns, nexar-quic-lossy, nexar-tcp-ns)" >&2; exit 2 ;;
  esac
done
if [ -n "${netns:-}" ]; then
  tools/netns_pair.sh up || { echo "compare_allreduce.sh: no namespace hosts (needs root)" >&2; exit 2; }
fi

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpi_common=(--oversubscribe --mca pml ob1 --mca oob_tcp_if_include lo)
case $bind in none | core | socket | auto) ;;
  *) echo "compare_allreduce.sh: BIND=$bind is not none, core, socket or auto" >&2; exit 2 ;;
esac
# bind_for NP: the --bind-to both launchers get for NP ranks.
bind_for() {
  if [ "$bind" != auto ]; then echo "$bind"
  elif [ "$1" -gt "$(nproc)" ]; then echo none
  elif [ "$1" -le 2 ]; then echo core
  else echo socket; fi
}
results=$(mktemp)
medians=$(mktemp)
trap 'rm -f "$results" "$medians"; [ -z "${netns:-}" ] || tools/netns_pair.sh down' EXIT

# run SYSTEM NP COLL[:gG]: one process measures every size; appends "coll system np bytes microseconds".
run() {
  local system=$1 np=$2 item=$3 out
  local coll=${item%%:*} groups=1
  [ "$item" = "$coll" ] || groups=${item#*:g}
  local bench_args=(-c "$coll" -t "$target" -l "$sizes" -g "$groups")
  local b
  b=$(bind_for "$np")
  local launch=("$nexrun" --bind-to "$b")
  local across=(--launch-agent 'nsenter --net=/var/run/netns/{host}' -H "nxbA:$(((np + 1) / 2)),nxbB:$((np / 2))")
  case $system in
    nexar-shm) out=$(timeout 600 "${launch[@]}" -np "$np" "$nexar_bench" "${bench_args[@]}") ;;
    nexar-quic) out=$(NEXAR_TRANSPORT=quic timeout 600 "${launch[@]}" -np "$np" "$nexar_bench" "${bench_args[@]}") ;;
    nexar-tcp) out=$(timeout 600 "${launch[@]}" -np "$np" --transport tcp "$nexar_bench" "${bench_args[@]}") ;;
    nexar-quic-dflt) out=$(NEXAR_TRANSPORT=quic timeout 600 "$nexrun" -np "$np" "$nexar_bench" "${bench_args[@]}") ;;
    nexar-tcp-dflt) out=$(timeout 600 "$nexrun" -np "$np" --transport tcp "$nexar_bench" "${bench_args[@]}") ;;
    nexar-quic-ns | nexar-quic-lossy)
      if [ "$system" = nexar-quic-lossy ]; then tools/netns_pair.sh lossy "${LOSS:-2}" "${DUP:-2}"; fi
      out=$(NEXAR_TRANSPORT=quic timeout 600 "$nexrun" "${across[@]}" -np "$np" "$nexar_bench" "${bench_args[@]}")
      tools/netns_pair.sh clean ;;
    nexar-tcp-ns) out=$(timeout 600 "$nexrun" "${across[@]}" -np "$np" --transport tcp "$nexar_bench" "${bench_args[@]}") ;;
    ompi-shm) out=$(timeout 600 mpirun -np "$np" --bind-to "$b" "${mpi_common[@]}" --mca btl self,vader "$mpi_bench" "${bench_args[@]}") ;;
    ompi-tcp) out=$(timeout 600 mpirun -np "$np" --bind-to "$b" "${mpi_common[@]}" --mca btl tcp,self --mca btl_tcp_if_include lo \
                      "$mpi_bench" "${bench_args[@]}") ;;
  esac
  echo "$out" | awk -v s="$system" -v np="$np" -v c="$coll" -v item="$item" \
    '$1 == c { print item, s, np, $2, $8; if ($11 != "ok") bad = 1 } END { exit bad }' >> "$results" ||
    { echo "$system np $np $item: a correctness check failed" >&2; exit 1; }
}

start=$(date +%s)
for ((r = 0; r < rounds; r++)); do
  for np in $nps; do
    echo "round $((r + 1))/$rounds np $np ($(($(date +%s) - start)) s)" >&2
    # Interleave, and rotate the order each round so no system always runs first.
    for item in "${coll_list[@]}"; do
      for ((k = 0; k < ${#systems[@]}; k++)); do
        run "${systems[$(((k + r) % ${#systems[@]}))]}" "$np" "$item"
      done
    done
  done
done

# Median per (coll, system, np, bytes) over the rounds (POSIX awk and sort only).
sort -k1,1 -k2,2 -k3,3n -k4,4n -k5,5g "$results" | awk '
  { key = $1 " " $2 " " $3 " " $4; v[key, ++n[key]] = $5 }
  END { for (key in n) { c = n[key]; m = c % 2 ? v[key, (c + 1) / 2] : (v[key, c / 2] + v[key, c / 2 + 1]) / 2; print key, m } }' |
  sort -k1,1 -k3,3n -k4,4n -k2,2 > "$medians"

# table COLL COLUMN...: per np and size, one column per argument: SYSTEM (its median) or
# SYSTEM/OTHER (the ratio of their medians; OTHER's time over SYSTEM's is SYSTEM's busbw over OTHER's).
table() {
  local item=$1
  shift
  local spec="$*"
  awk -v item="$item" '$1 == item { $1 = ""; print }' "$medians" | awk -v spec="$spec" 'BEGIN { n = split(spec, col, " ") }
    { t[$2 " " $3, $1] = $4; rows[$2 " " $3] = 1 }
    function width(c) { return length(c) < 12 ? 12 : length(c) + 1 }
    function cell(r, c,   p, x, y) {
      if (split(c, p, "/") == 1) { x = t[r, c]; return x == "" ? "-" : sprintf("%.2f", x) }
      x = t[r, p[1]]; y = t[r, p[2]]
      return (x == "" || y == "" || y <= 0) ? "-" : sprintf("%.2f", x / y)
    }
    END {
      printf "%-4s %10s", "np", "bytes"
      for (i = 1; i <= n; i++) printf " %*s", width(col[i]), col[i]
      printf "\n"; fflush()
      for (r in rows) {
        split(r, f, " ")
        line = sprintf("%-4d %10d", f[1], f[2])
        for (i = 1; i <= n; i++) line = line sprintf(" %*s", width(col[i]), cell(r, col[i]))
        print line | "sort -k1,1n -k2,2n"
      }
    }'
}

binds=""
for np in $nps; do binds+="${binds:+, }np $np: $(bind_for "$np")"; done
echo "# float32 (reductions: sum), --bind-to ($binds) for both launchers: median over $rounds rounds of each run's median (us);" \
  "A/B = A's time / B's (nexar-shm/ompi-shm < 1: nexar faster; its busbw ratio is the inverse)"
echo "# $(nproc) cores, load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); $(($(date +%s) - start)) s in all"
for item in "${coll_list[@]}"; do
  echo "## $item"
  table "$item" nexar-shm ompi-shm nexar-shm/ompi-shm nexar-quic ompi-tcp nexar-quic/ompi-tcp nexar-tcp nexar-tcp/ompi-tcp
  case " ${systems[*]} " in *" nexar-quic-dflt "* | *" nexar-tcp-dflt "*)
    echo "# nexrun's default binding (core up to 2 ranks) against Open MPI TCP as above"
    table "$item" nexar-quic-dflt nexar-quic-dflt/ompi-tcp nexar-tcp-dflt nexar-tcp-dflt/ompi-tcp ;;
  esac
  if [ -n "${netns:-}" ]; then
    echo "# the path between two namespace hosts (1500-byte MTU; lossy: ${LOSS:-2}% of UDP frames dropped," \
      "${DUP:-2}% duplicated): ratio = time there / time on loopback (busbw ratio = 1 / ratio)"
    table "$item" nexar-quic nexar-quic-ns nexar-quic-ns/nexar-quic nexar-quic-lossy nexar-quic-lossy/nexar-quic \
      nexar-tcp nexar-tcp-ns nexar-tcp-ns/nexar-tcp
  fi
  if [ -n "$plot" ] && [ "${item%%:*}" != barrier ]; then
    png=$plot
    [ ${#coll_list[@]} -eq 1 ] || png=${plot%.png}_${item/:/_}.png
    awk -v item="$item" '$1 == item { $1 = ""; print }' "$medians" > "$medians.one"
    tools/plot_busbw.sh "$medians.one" "$png" "$item float32, median of $rounds rounds ($(nproc) cores)" "$item" ||
      echo "compare_allreduce.sh: no plot written (see above)" >&2
    rm -f "$medians.one"
  fi
done
