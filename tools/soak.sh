#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
# Soak (not in CI): N jobs in a row, each a random mix of collective scenarios on 2-6
# ranks over shared memory or QUIC; about one job in four has a rank kill itself at a
# random point inside a collective (NEXAR_FAULT_KILL). A job must end within its bound:
# exit 0 with every scenario done, or, with a kill, exit 137 naming the killed rank. After
# every job, nothing may be left: no nexar /dev/shm names, no credential directory, no
# rank or nexrun process. Every SOAK_EVERY jobs (default 50) a table row samples the
# machine: open files (/proc/sys/fs/file-nr), memory in use (MemTotal - MemAvailable),
# /dev/shm nexar names and bytes in use (machine-wide: they move with whatever else runs).
#   tools/soak.sh [JOBS] [BUILD_DIR]      (defaults: 300, build)
# Prints one line per failure, the table and a summary; exits 1 if any job failed.
set -uo pipefail
jobs=${1:-300}
build=$(cd "${2:-build}" && pwd)
nexrun=$build/launcher/nexrun
probe=$build/tests/collectives_e2e/coll_e2e_probe
# SOAK_SCENARIOS: the scenarios drawn from (coll_e2e_probe's names, space-separated).
read -r -a scenarios <<< "${SOAK_SCENARIOS:-nonblocking identical large invalid}"
seed=${SOAK_SEED:-$$}
RANDOM=$seed
every=${SOAK_EVERY:-50}
shm_count() { find /dev/shm -maxdepth 1 -name 'nexar-*' 2> /dev/null | wc -l; }
# nexrun makes each job's credential directory, nexar-<job id>, in TMPDIR: a private one
# tells this soak's jobs from others on the machine, and names the job's /dev/shm prefix.
export TMPDIR
TMPDIR=$(mktemp -d)
# This soak's processes whose command line matches $1: their environment holds its private
# TMPDIR (a compiler whose flags name the probe, or a test running the same build, is not ours).
ours() {
  local pid
  for pid in $(pgrep -f -- "$1"); do
    tr '\0' '\n' < "/proc/$pid/environ" 2> /dev/null | grep -qxF "TMPDIR=$TMPDIR" && printf '%s ' "$pid"
  done
}
cred_count() { find "$TMPDIR" -maxdepth 1 -name 'nexar-*' -type d 2> /dev/null | wc -l; }
# One table row: job, seconds, open files, MiB in use, /dev/shm nexar names, /dev/shm KiB used.
sample() {
  local files mem shm_kib
  files=$(cut -f1 /proc/sys/fs/file-nr)
  mem=$(awk '/^MemTotal:/ {t = $2} /^MemAvailable:/ {a = $2} END {print int((t - a) / 1024)}' /proc/meminfo)
  shm_kib=$(df -k --output=used /dev/shm | tail -1 | tr -d ' ')
  printf '%6s %7s %11s %9s %10s %12s\n' "$1" "$SECONDS" "$files" "$mem" "$(shm_count)" "$shm_kib"
}
shm0=$(shm_count)
fail=0 killed=0 ok=0 worst=0
log=$(mktemp)
table=$(printf '%6s %7s %11s %9s %10s %12s\n' job seconds open-files mem-MiB shm-names shm-used-KiB)
table+=$'\n'$(sample 0)
echo "soak: $jobs jobs, seed $seed, /dev/shm nexar names at start: $shm0, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for ((j = 1; j <= jobs; ++j)); do
  np=$((2 + RANDOM % 5))
  transport=auto
  ((RANDOM % 2)) && transport=quic
  mix=${scenarios[RANDOM % ${#scenarios[@]}]},${scenarios[RANDOM % ${#scenarios[@]}]}
  env=(NEXAR_TRANSPORT=$transport NEXAR_TIMEOUT=60)
  victim=-1
  if ((RANDOM % 4 == 0)); then
    victim=$((RANDOM % np))
    env+=(NEXAR_FAULT_KILL=$victim:collective:$((1 + RANDOM % 40)))
  fi
  t0=$(date +%s%N)
  env "${env[@]}" timeout -s KILL 180 "$nexrun" -np "$np" "$probe" "$mix" > "$log" 2>&1 &
  job=$! id=""
  while kill -0 "$job" 2> /dev/null; do
    [ -n "$id" ] || id=$(find "$TMPDIR" -maxdepth 1 -name 'nexar-*' -printf '%f\n' 2> /dev/null | head -1)
    sleep 0.05
  done
  wait "$job"
  rc=$?
  id=${id#nexar-}
  ms=$((($(date +%s%N) - t0) / 1000000))
  ((ms > worst)) && worst=$ms
  why=""
  if ((victim >= 0)); then
    # The kill point may come after the job's last collective: then the job just passes.
    if ((rc == 137)); then
      grep -q "rank $victim .*killed by signal 9" "$log" || why="kill of rank $victim not named"
      killed=$((killed + 1))
    elif ((rc != 0)); then
      why="exit $rc after a kill of rank $victim"
    fi
  elif ((rc != 0)); then
    why="exit $rc"
  elif [ "$(grep -c ' ok (' "$log")" -ne $((np * 2)) ]; then
    why="not every scenario done"
  fi
  sleep 0.2
  # The job's /dev/shm names start with its id's first 16 hex digits (shm/token.h).
  if [ -n "$id" ] && ls /dev/shm | grep -q "^nexar-${id:0:16}-"; then
    why="$why /dev/shm names left: $(ls /dev/shm | grep -c "^nexar-${id:0:16}-")"
  fi
  if [ "$(cred_count)" -gt 0 ]; then why="$why credential directory left"; rm -rf "$TMPDIR"/nexar-*; fi
  left=$(ours "^$probe ")
  if [ -n "$left" ]; then why="$why rank processes left: $left"; kill -KILL $left 2> /dev/null; fi
  left=$(ours "^$nexrun ")
  if [ -n "$left" ]; then why="$why nexrun processes left: $left"; fi
  if [ -n "$why" ]; then
    fail=$((fail + 1))
    echo "soak: job $j (np $np, $transport, $mix${env[2]:+, ${env[2]}}): $why"
    tail -5 "$log" | sed 's/^/    /'
  else
    ok=$((ok + 1))
  fi
  ((j % every == 0 || j == jobs)) && table+=$'\n'$(sample "$j")
done
rm -f "$log"
rmdir "$TMPDIR"
echo "$table"
echo "soak: $jobs jobs: $ok as expected ($killed ended by a kill), $fail failed; slowest job $worst ms; load average $(cut -d' ' -f1-3 /proc/loadavg)"
((fail == 0))
