#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
# Plots a collective's busbw against message size, one panel per rank count, one line per
# system, from the medians compare_allreduce.sh computes (lines "system np bytes microseconds").
#
#   tools/plot_busbw.sh MEDIANS PNG [TITLE [COLL[:gG]]]
#
# busbw = bytes / time x nccl-tests' factor for COLL (default allreduce) with n ranks per
# group (np / G): allreduce 2(n-1)/n; allgather, reduce_scatter, alltoall (n-1)/n;
# broadcast 1; groups of one rank (n = 1, where every factor but broadcast's is 0) plot
# algbw, bytes / time. In GB/s. Needs gnuplot (Debian: gnuplot-nox); without it nothing is written
# and the exit status is 3.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 MEDIANS PNG [TITLE]" >&2; exit 2; }
medians=$1
png=$2
title=${3:-allreduce busbw}
item=${4:-allreduce}
coll=${item%%:*}
groups=1
[ "$item" = "$coll" ] || groups=${item#*:g}
[ -r "$medians" ] || { echo "plot_busbw.sh: cannot read $medians" >&2; exit 2; }
if ! command -v gnuplot >/dev/null; then
  echo "plot_busbw.sh: gnuplot not found (apt-get install gnuplot-nox): skipping the plot $png" >&2
  exit 3
fi

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# One data file per (np, system): "bytes busbw_GBps".
awk -v d="$dir" -v c="$coll" -v g="$groups" '$4 > 0 {
    n = $2 / g; k = n == 1 || c == "broadcast" ? 1 : c == "allreduce" ? 2 * (n - 1) / n : (n - 1) / n
    f = d "/" $2 "_" $1 ".dat"; print $3, $3 / ($4 * 1e3) * k > f }' "$medians"
nps=$(awk '{ print $2 }' "$medians" | sort -n -u)
n=$(echo "$nps" | wc -w)
# Tics at the measured sizes, labelled 4, 1K, 64K, 1M, ...
xtics=$(awk '{ print $3 }' "$medians" | sort -n -u | awk '
  { b = $1; u = ""; split("K M G", us, " "); for (i = 1; i <= 3 && b >= 1024 && b % 1024 == 0; i++) { b /= 1024; u = us[i] }
    printf "%s\"%d%s\" %d", (NR > 1 ? ", " : ""), b, u, $1 }')
[ "$n" -gt 0 ] || { echo "plot_busbw.sh: no data in $medians" >&2; exit 2; }

{
  echo "set terminal pngcairo size $((520 * n)),440 font ',10'"
  echo "set output '$png'"
  echo "set multiplot layout 1,$n title '$title'"
  echo "set logscale xy"
  echo "set xtics ($xtics)"
  echo "set format y '%g'"
  echo "set xlabel 'message size (bytes)'"
  echo "set grid"
  echo "set key left top"
  for np in $nps; do
    echo "set title '$np ranks'"
    if [ $((np / groups)) -eq 1 ]; then echo "set ylabel 'algbw (GB/s)'"; else echo "set ylabel 'busbw (GB/s)'"; fi
    plots=()
    for f in "$dir/${np}"_*.dat; do
      sys=$(basename "$f" .dat)
      sys=${sys#"${np}_"}
      plots+=("'$f' using 1:2 with linespoints lw 2 title '$sys'")
    done
    (IFS=,; echo "plot ${plots[*]}")
  done
  echo "unset multiplot"
} > "$dir/plot.gp"
gnuplot "$dir/plot.gp"
echo "plot_busbw.sh: wrote $png" >&2
