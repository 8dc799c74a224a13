#!/bin/bash
# A Slurm cluster on localhost for railyard's tests: munged, slurmctld and one slurmd per fake
# node (n1..nN, `slurmd -N`), all under DIR, nothing in /etc touched.
#
#   rig.sh start DIR N HEALTHCHECK PROLOG   start and wait until every node is idle
#   rig.sh stop DIR                          stop what start started, by PID file only
#
# Clients need SLURM_CONF=DIR/etc/slurm.conf. Ports: slurmctld $RIG_CTLD_PORT (16817), slurmd
# $RIG_SLURMD_PORT.. (17001..): two rigs with other ports run side by side.
set -u
cmd=$1 D=$2

term() { # stop the processes named by PID files: TERM, wait up to 10 s, then KILL
    local pids=() f p
    for f in "$@"; do
        [ -f "$f" ] || continue
        p=$(cat "$f")
        if [ -n "$p" ] && kill -0 "$p" 2>/dev/null; then kill -TERM "$p"; pids+=("$p"); fi
        rm -f "$f"
    done
    for _ in $(seq 100); do
        local alive=0
        for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
        [ $alive = 0 ] && return 0
        sleep 0.1
    done
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && kill -KILL "$p"; done
    return 0
}

case $cmd in
stop)
    export SLURM_CONF=$D/etc/slurm.conf
    term "$D"/run/slurmd-*.pid
    term "$D/run/slurmctld.pid"
    term "$D/munge/munged.pid"
    exit 0 ;;
start) ;;
*) echo "usage: rig.sh start DIR N HEALTHCHECK PROLOG | stop DIR" >&2; exit 2 ;;
esac

N=$3 HC=$4 PROLOG=$5
host=$(hostname -s)
mkdir -p "$D"/{etc,state,spool,log,run,munge,tmp}
export SLURM_CONF=$D/etc/slurm.conf

# munge with a private key and socket (directory 0755, key 0600)
dd if=/dev/urandom of="$D/munge/munge.key" bs=1 count=1024 2>/dev/null
chmod 755 "$D/munge"; chmod 600 "$D/munge/munge.key"
munged --key-file="$D/munge/munge.key" --socket="$D/munge/munge.socket" \
    --pid-file="$D/munge/munged.pid" --log-file="$D/munge/munged.log" \
    --seed-file="$D/munge/munged.seed" || { echo "rig: munged failed"; exit 1; }

cat >"$SLURM_CONF" <<CONF
ClusterName=railyardtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=${RIG_CTLD_PORT:-16817}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$D/munge/munge.socket
MailProg=/bin/true
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool/%n
TmpFS=$D/tmp/%n
SlurmctldPidFile=$D/run/slurmctld.pid
SlurmdPidFile=$D/run/slurmd-%n.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
Prolog=$PROLOG
HealthCheckProgram=$HC
HealthCheckInterval=3
HealthCheckNodeState=ANY
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
SlurmctldTimeout=30
SlurmdTimeout=30
MessageTimeout=10
NodeName=n[1-$N] NodeHostname=$host NodeAddr=127.0.0.1 Port=[${RIG_SLURMD_PORT:-17001}-$((${RIG_SLURMD_PORT:-17001} + N - 1))] CPUs=$(nproc) RealMemory=500 State=UNKNOWN
PartitionName=test Nodes=n[1-$N] Default=YES MaxTime=INFINITE State=UP
CONF

slurmctld -c -f "$SLURM_CONF" || { echo "rig: slurmctld failed"; tail "$D/log/slurmctld.log"; exit 1; }
for _ in $(seq 100); do scontrol ping 2>/dev/null | grep -q UP && break; sleep 0.1; done
for i in $(seq "$N"); do
    mkdir -p "$D/spool/n$i" "$D/tmp/n$i"
    slurmd -f "$SLURM_CONF" -N "n$i" || { echo "rig: slurmd n$i failed"; exit 1; }
done
for _ in $(seq 300); do
    st=$(sinfo -h -N -o '%t' 2>/dev/null | sort -u | tr '\n' ' ')
    case $st in *unk*|*down*|"") sleep 0.1 ;; *) break ;; esac
done
echo "rig: up ($st)"
