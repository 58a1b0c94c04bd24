#!/usr/bin/env bash
# Allreduce (float32, sum), nexar against Open MPI, measured back to back in one go with the
# same method (tools/bench_method.h, ../shared/design/BENCHMARKS.md), interleaving the
# systems and repeating, then a table of the medians of the rounds and their ratios.
#
#   tools/compare_allreduce.sh [BUILD_DIR] [ROUNDS]      (defaults: build, 3)
#   environment: TARGET (seconds per size, default 0.2), NPS (default "2 4 8"),
#                SIZES (default 4,1K,64K,1M,16M,64M)
#
# Systems: nexar as it chooses its transport (shared memory between ranks of one host),
# nexar forced onto QUIC (NEXAR_TRANSPORT=quic), Open MPI's shared memory (btl vader) and
# Open MPI over TCP on loopback (btl tcp) -- the fair partner of nexar over QUIC.
# Needs Debian's openmpi-bin and mpi-bench (built when libopenmpi-dev is installed).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
rounds=${2:-3}
target=${TARGET:-0.2}
nps=${NPS:-"2 4 8"}
sizes=${SIZES:-4,1K,64K,1M,16M,64M}
nexrun=$build/launcher/nexrun
nexar_bench=$build/tools/nexar-bench
mpi_bench=$build/tools/mpi-bench
for f in "$nexrun" "$nexar_bench" "$mpi_bench"; do
  [ -x "$f" ] || { echo "compare_allreduce.sh: $f is missing (build it; mpi-bench needs libopenmpi-dev)" >&2; exit 2; }
done
command -v mpirun >/dev/null || { echo "compare_allreduce.sh: mpirun not found (apt-get install openmpi-bin)" >&2; exit 2; }

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpi_common=(--oversubscribe --bind-to none --mca pml ob1 --mca oob_tcp_if_include lo)
bench_args=(-c allreduce -t "$target")
results=$(mktemp)
trap 'rm -f "$results"' EXIT

# run SYSTEM NP SIZE: one measurement; appends "system np bytes microseconds". One process
# per size: over QUIC a connection stalls after 1024 messages above NEXAR_EAGER_LIMIT in
# one direction (reported to the transport's owner), which a whole sweep would exceed.
run() {
  local system=$1 np=$2 out
  local bench_args=("${bench_args[@]}" -l "$3")
  case $system in
    nexar-shm) out=$(timeout 300 "$nexrun" -np "$np" "$nexar_bench" "${bench_args[@]}") ;;
    nexar-quic) out=$(NEXAR_TRANSPORT=quic timeout 300 "$nexrun" -np "$np" "$nexar_bench" "${bench_args[@]}") ;;
    ompi-shm) out=$(timeout 300 mpirun -np "$np" "${mpi_common[@]}" --mca btl self,vader "$mpi_bench" "${bench_args[@]}") ;;
    ompi-tcp) out=$(timeout 300 mpirun -np "$np" "${mpi_common[@]}" --mca btl tcp,self --mca btl_tcp_if_include lo \
                      "$mpi_bench" "${bench_args[@]}") ;;
  esac
  echo "$out" | awk -v s="$system" -v np="$np" '$1 == "allreduce" { print s, np, $2, $8; if ($11 != "ok") bad = 1 }
    END { exit bad }' >> "$results" || { echo "$system np $np: a correctness check failed" >&2; exit 1; }
}

systems=(nexar-shm ompi-shm nexar-quic ompi-tcp)
start=$(date +%s)
for ((r = 0; r < rounds; r++)); do
  for np in $nps; do
    echo "round $((r + 1))/$rounds np $np ($(($(date +%s) - start)) s)" >&2
    for size in ${sizes//,/ }; do
      # Interleave, and rotate the order each round so no system always runs first.
      for ((k = 0; k < ${#systems[@]}; k++)); do
        run "${systems[$(((k + r) % ${#systems[@]}))]}" "$np" "$size"
      done
    done
  done
done

echo "# allreduce float32 sum: median over $rounds rounds of each run's median (us); ratio = nexar / Open MPI"
echo "# $(nproc) cores, load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); $(($(date +%s) - start)) s in all"
# Median per (system, np, bytes), then one line per (np, bytes) with both pairs and ratios
# (POSIX awk and sort only).
sort -k1,1 -k2,2n -k3,3n -k4,4g "$results" | awk '
  { key = $1 " " $2 " " $3; v[key, ++n[key]] = $4 }
  END { for (key in n) { c = n[key]; m = c % 2 ? v[key, (c + 1) / 2] : (v[key, c / 2] + v[key, c / 2 + 1]) / 2; print key, m } }' |
  awk '{ t[$2 " " $3, $1] = $4; rows[$2 " " $3] = 1 }
  function fmt(x) { return x == "" ? "-" : sprintf("%.1f", x) }
  function ratio(a, b) { return (a == "" || b == "" || b <= 0) ? "-" : sprintf("%.2f", a / b) }
  END {
    for (r in rows) {
      split(r, f, " ")
      a1 = t[r, "nexar-shm"]; b1 = t[r, "ompi-shm"]; a2 = t[r, "nexar-quic"]; b2 = t[r, "ompi-tcp"]
      printf "%-4d %10d %12s %12s %8s %12s %12s %8s\n", f[1], f[2], fmt(a1), fmt(b1), ratio(a1, b1), fmt(a2), fmt(b2), ratio(a2, b2)
    }
  }' | sort -k1,1n -k2,2n | { printf "%-4s %10s %12s %12s %8s %12s %12s %8s\n" np bytes nexar-shm ompi-shm ratio nexar-quic ompi-tcp ratio; cat; }
