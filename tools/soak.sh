#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
# Soak (not in CI): N jobs in a row, each a random mix of collective scenarios on 2-5
# ranks over shared memory or QUIC; about one job in four has a rank kill itself at a
# random point inside a collective (NEXAR_FAULT_KILL). A job must end within its bound:
# exit 0 with every scenario done, or, with a kill, exit 137 naming the killed rank. After
# every job, nothing may be left: no nexar /dev/shm names, no rank processes.
#   tools/soak.sh [JOBS] [BUILD_DIR]      (defaults: 300, build)
# Prints one line per failure and a summary; exits 1 if any job failed.
set -uo pipefail
jobs=${1:-300}
build=$(cd "${2:-build}" && pwd)
nexrun=$build/launcher/nexrun
probe=$build/tests/collectives_e2e/coll_e2e_probe
scenarios=(nonblocking identical large invalid)
seed=${SOAK_SEED:-$$}
RANDOM=$seed
shm_count() { find /dev/shm -maxdepth 1 -name 'nexar-*' 2> /dev/null | wc -l; }
shm0=$(shm_count)
fail=0 killed=0 ok=0 worst=0
log=$(mktemp)
echo "soak: $jobs jobs, seed $seed, /dev/shm nexar names at start: $shm0"
for ((j = 1; j <= jobs; ++j)); do
  np=$((2 + RANDOM % 4))
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
  env "${env[@]}" timeout -s KILL 180 "$nexrun" -np "$np" "$probe" "$mix" > "$log" 2>&1
  rc=$?
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
  if [ "$(shm_count)" -gt "$shm0" ]; then why="$why /dev/shm names left: $(shm_count)"; fi
  left=$(pgrep -f -- "$probe" || true)
  if [ -n "$left" ]; then why="$why rank processes left: $left"; kill -KILL $left 2> /dev/null; fi
  if [ -n "$why" ]; then
    fail=$((fail + 1))
    echo "soak: job $j (np $np, $transport, $mix${env[2]:+, ${env[2]}}): $why"
    tail -5 "$log" | sed 's/^/    /'
  else
    ok=$((ok + 1))
  fi
done
rm -f "$log"
echo "soak: $jobs jobs: $ok as expected ($killed ended by a kill), $fail failed; slowest job $worst ms; /dev/shm nexar names at end: $(shm_count)"
((fail == 0))
