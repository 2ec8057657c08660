#!/usr/bin/env bash
# Starts a single-node Slurm on this host (Debian's slurm-wlm and munge), every file under DIR:
# munged, slurmctld and slurmd as root, on the ports given, with the pid files DIR/*.pid (the
# caller stops them by those). Prints the slurm.conf path. Usage: single_node.sh DIR CTLD_PORT
set -euo pipefail
d=$(realpath "$1")
port=${2:?usage: single_node.sh DIR CTLD_PORT}
mkdir -p "$d"/{state,spool,log,munge}
host=$(hostname -s)
cpus=$(nproc)
mem=$(awk '/MemTotal/ {print int($2/1024) - 512}' /proc/meminfo)
dd if=/dev/urandom of="$d/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$d/munge/munge.key"
munged --key-file="$d/munge/munge.key" --socket="$d/munge/munge.socket" \
  --pid-file="$d/munged.pid" --log-file="$d/munge/munged.log" --seed-file="$d/munge/seed" --force
cat >"$d/slurm.conf" <<CONF
ClusterName=vftest
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$d/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
SlurmctldPort=$port
SlurmdPort=$((port + 1))
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
KillWait=20
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
CONF
export SLURM_CONF="$d/slurm.conf"
slurmctld -f "$d/slurm.conf"
slurmd -f "$d/slurm.conf"
for _ in $(seq 100); do
  sinfo -h -o %T 2>/dev/null | grep -qE 'idle|mixed' && break
  sleep 0.2
done
sinfo -h -o %T | grep -qE 'idle|mixed' || { echo "slurm: the node did not come up" >&2; exit 1; }
echo "$d/slurm.conf"
