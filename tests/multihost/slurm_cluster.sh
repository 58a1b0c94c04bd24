#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
# A real SLURM cluster on this machine (../shared/design/TESTBED.md): munged on a private
# socket, slurmctld on the bridge address, one slurmd per namespace host (n1 in mhA,
# n2 in mhB, made by the test first). Everything lives in DIR; `down` stops what `up`
# started, by the PIDs it wrote.
#   slurm_cluster.sh up DIR      -> prints SLURM_CONF=DIR/slurm.conf when the nodes are idle
#   slurm_cluster.sh down DIR
set -u
cmd=$1 dir=$2

stop_pidfile() {
  local f=$1 pid
  [ -f "$f" ] || return 0
  pid=$(cat "$f" 2>/dev/null)
  [ -n "$pid" ] && kill "$pid" 2>/dev/null
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  kill -9 "$pid" 2>/dev/null
  rm -f "$f"
}

if [ "$cmd" = down ]; then
  stop_pidfile "$dir/slurmd-n1.pid"
  stop_pidfile "$dir/slurmd-n2.pid"
  stop_pidfile "$dir/slurmctld.pid"
  stop_pidfile "$dir/munge/munged.pid"
  exit 0
fi

command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null &&
  command -v salloc >/dev/null || { echo "slurmctld, slurmd, slurm-client or munge is not installed"; exit 77; }
chmod 755 "$dir"
mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log"
chown munge:munge "$dir/munge" && chmod 711 "$dir/munge"
runuser -u munge -- /usr/sbin/munged --socket="$dir/munge/munge.sock" --pid-file="$dir/munge/munged.pid" \
  --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/seed" || { echo "munged did not start"; exit 1; }
host=$(hostname -s)
cat > "$dir/slurm.conf" <<CONF
ClusterName=nexartest
SlurmctldHost=$host(169.254.77.254)
SlurmctldPort=17817
SlurmdPort=17818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.sock
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
SlurmdTimeout=10
SlurmdParameters=config_overrides
NodeName=n1 NodeHostname=$host NodeAddr=169.254.77.1 CPUs=4 RealMemory=2000
NodeName=n2 NodeHostname=$host NodeAddr=169.254.77.2 CPUs=4 RealMemory=2000
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
CONF
export SLURM_CONF=$dir/slurm.conf
slurmctld -f "$SLURM_CONF" || { echo "slurmctld did not start"; exit 1; }
nsenter --net=/var/run/netns/mhA slurmd -f "$SLURM_CONF" -N n1 || { echo "slurmd n1 did not start"; exit 1; }
nsenter --net=/var/run/netns/mhB slurmd -f "$SLURM_CONF" -N n2 || { echo "slurmd n2 did not start"; exit 1; }
for _ in $(seq 150); do
  [ "$(sinfo -h -o %T 2>/dev/null | sort -u)" = idle ] && [ "$(sinfo -h -o %D 2>/dev/null)" = 2 ] &&
    { echo "SLURM_CONF=$SLURM_CONF"; exit 0; }
  sleep 0.1
done
echo "the SLURM nodes did not become idle within 15 s: $(sinfo -h 2>&1 | head -3)"
exit 1
