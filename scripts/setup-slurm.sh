#!/usr/bin/env bash
# A single-node Slurm cluster on this machine, for the tests of locfix's slurm backend: installs Debian's
# slurm-wlm and munge, writes a munge key and a slurm.conf whose one node is this machine, and starts
# munged, slurmctld and slurmd. Accounting storage is off (no slurmdbd), so `sacct` does not work; locfix
# relies on squeue/scontrol and files. Idempotent: a step whose result already exists is skipped. Runs as root
# (CI runs it from .ci/run).
set -euo pipefail

SLURM_LOG_DIR="${LOCFIX_SLURM_LOG_DIR:-/var/log/locfix-slurm}"
PARTITION="${LOCFIX_SLURM_PARTITION:-debug}"

log() { echo "[setup-slurm] $*" >&2; }

if ! command -v slurmctld >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1; then
  log "installing slurm-wlm and munge"
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y --no-install-recommends slurm-wlm munge >/dev/null; then
    apt-get update >/dev/null
    apt-get install -y --no-install-recommends slurm-wlm munge >/dev/null
  fi
fi

# munge: a key only root and munge can read, and the daemon running as user munge.
mkdir -p /etc/munge /var/lib/munge /var/log/munge /run/munge
if [ ! -s /etc/munge/munge.key ]; then
  dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
fi
chown -R munge:munge /etc/munge /var/lib/munge /var/log/munge /run/munge
chmod 700 /etc/munge
chmod 400 /etc/munge/munge.key
if ! munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; then
  log "starting munged"
  su -s /bin/sh munge -c '/usr/sbin/munged' || runuser -u munge -- /usr/sbin/munged
fi

host="$(hostname -s)"
cpus="$(nproc)"
# RealMemory must not exceed what slurmd sees, or the node is drained as "Low RealMemory": take 3/4 of what is free.
free_mb="$(awk '/MemAvailable/ { print int($2 / 1024) }' /proc/meminfo)"
mem_mb=$((free_mb * 3 / 4))
mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd "$SLURM_LOG_DIR"
conf=/etc/slurm/slurm.conf
want="$(cat <<EOF
# written by locfix scripts/setup-slurm.sh: one node, this machine
ClusterName=locfix
SlurmctldHost=${host}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=${SLURM_LOG_DIR}/slurmctld.log
SlurmdLogFile=${SLURM_LOG_DIR}/slurmd.log
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
# finished jobs stay visible to scontrol for 5 minutes (the default); tasks are polled well within that
MinJobAge=300
KillWait=5
NodeName=${host} CPUs=${cpus} RealMemory=${mem_mb} State=UNKNOWN
PartitionName=${PARTITION} Nodes=${host} Default=YES MaxTime=INFINITE State=UP
EOF
)"
if [ ! -f "$conf" ] || ! grep -q "NodeName=${host} CPUs=${cpus} " "$conf" || ! grep -q 'written by locfix' "$conf"; then
  log "writing $conf (node ${host}, ${cpus} CPUs, ${mem_mb} MB)"
  printf '%s\n' "$want" >"$conf"
fi

if ! pgrep -x slurmctld >/dev/null; then
  log "starting slurmctld"
  /usr/sbin/slurmctld
fi
if ! pgrep -x slurmd >/dev/null; then
  log "starting slurmd"
  /usr/sbin/slurmd
fi

for _ in $(seq 1 60); do
  state="$(sinfo -h -N -o '%t' 2>/dev/null | head -n 1 || true)"
  case "$state" in
    idle | mix | alloc) break ;;
    drain* | down*) scontrol update nodename="$host" state=resume >/dev/null 2>&1 || true ;;
  esac
  sleep 1
done
state="$(sinfo -h -N -o '%t' 2>/dev/null | head -n 1 || true)"
case "$state" in
  idle | mix | alloc) log "node ${host} is ${state} in partition ${PARTITION}" ;;
  *)
    log "the node did not come up (state: ${state:-none}); last lines of the logs:"
    tail -n 20 "$SLURM_LOG_DIR/slurmctld.log" "$SLURM_LOG_DIR/slurmd.log" >&2 || true
    exit 1
    ;;
esac
