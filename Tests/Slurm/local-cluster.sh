#!/usr/bin/env bash
# A single-node Slurm cluster on loopback, for the integration tests (RenderFarm article RunningOnACluster, "Slurm").
#
#   Tests/Slurm/local-cluster.sh start    start munged (unless one answers), slurmctld and slurmd;
#                                         prints the state folder (holding slurm.conf) on stdout
#   Tests/Slurm/local-cluster.sh stop DIR stop what `start` started there and remove DIR
#   Tests/Slurm/local-cluster.sh status DIR
#
# Needs root and Debian's `slurm-wlm` and `munge` packages (`make slurm-deps` installs them).
# Clients find the cluster through SLURM_CONF=DIR/slurm.conf. Ports: RENDERFARM_SLURM_PORT
# (slurmctld, default 6817) and the next one (slurmd). Every daemon this script starts has its
# pid recorded in DIR, and `stop` ends exactly those.
set -euo pipefail

die() { echo "local-cluster: $*" >&2; exit 1; }

start() {
    [ "$(id -u)" = 0 ] || die "must run as root (the daemons and munge need it)"
    for tool in munged slurmctld slurmd sinfo; do
        command -v "$tool" >/dev/null || [ -x "/usr/sbin/$tool" ] \
            || die "$tool not found: install Debian's slurm-wlm and munge (make slurm-deps)"
    done
    local dir port cpus
    dir=$(mktemp -d /tmp/renderfarm-slurm.XXXXXX)
    chmod 755 "$dir"
    port=${RENDERFARM_SLURM_PORT:-6817}
    cpus=$(nproc)
    mkdir -p "$dir/state" "$dir/spool" "$dir/log"
    # On any failure below, stop what was started so far and say where the logs are.
    trap 'echo "local-cluster: start failed; logs:" >&2; tail -n 20 "$dir"/log/* >&2 || true; stop "$dir"' ERR

    start_munge "$dir"

    # SchedulerParameters: with Slurm's defaults, a job whose dependency had ended (the render tasks after the
    # prepare job, the merge job after them) started only at slurmctld's next pass, 3 s apart in its log, and the
    # integration suite took 58 s; with batch jobs scheduled at once, passes are 1 s apart and it takes 27 s.
    cat >"$dir/slurm.conf" <<CONF
# Written by Tests/Slurm/local-cluster.sh: one node on loopback, state in $dir.
ClusterName=renderfarm-local
SlurmctldHost=localhost
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
ReturnToService=2
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
MinJobAge=600
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF

    /usr/sbin/slurmctld -f "$dir/slurm.conf" -i
    /usr/sbin/slurmd -f "$dir/slurm.conf" -N localhost
    wait_for_pid "$dir/slurmctld.pid"
    wait_for_pid "$dir/slurmd.pid"

    local state=""
    for _ in $(seq 1 60); do
        state=$(SLURM_CONF="$dir/slurm.conf" sinfo -h -N -o %t 2>/dev/null || true)
        [ "$state" = idle ] && break
        sleep 0.5
    done
    [ "$state" = idle ] || { echo "local-cluster: node state \"$state\" after 30 s, expected idle" >&2; false; }
    trap - ERR
    echo "$dir"
}

# Uses a munged that already answers; otherwise starts one as the munge user and records its pid.
start_munge() {
    local dir=$1
    if munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
        return
    fi
    mkdir -p /run/munge /var/log/munge /var/lib/munge
    chown munge:munge /run/munge /var/log/munge /var/lib/munge
    chmod 755 /run/munge
    if [ ! -s /etc/munge/munge.key ]; then
        mkdir -p /etc/munge
        dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 status=none
        chown munge:munge /etc/munge/munge.key
        chmod 400 /etc/munge/munge.key
    fi
    runuser -u munge -- /usr/sbin/munged --pid-file=/run/munge/munged.pid
    cp /run/munge/munged.pid "$dir/munged.pid"
    for _ in $(seq 1 40); do
        munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && return
        sleep 0.25
    done
    echo "local-cluster: munged does not answer" >&2
    false
}

wait_for_pid() {
    for _ in $(seq 1 40); do
        [ -s "$1" ] && return
        sleep 0.25
    done
    echo "local-cluster: no pid file $1" >&2
    false
}

stop() {
    local dir=${1:-}
    [ -n "$dir" ] && [ -d "$dir" ] || die "stop needs the folder printed by start"
    [ -f "$dir/slurm.conf" ] || die "$dir is not a local cluster folder (no slurm.conf)"
    local name pid
    for name in slurmd slurmctld munged; do
        [ -s "$dir/$name.pid" ] || continue
        pid=$(cat "$dir/$name.pid")
        kill "$pid" 2>/dev/null || continue
        for _ in $(seq 1 40); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.25
        done
        kill -9 "$pid" 2>/dev/null || true
    done
    rm -rf "$dir"
}

status() {
    local dir=${1:-}
    [ -f "$dir/slurm.conf" ] || die "status needs the folder printed by start"
    SLURM_CONF="$dir/slurm.conf" sinfo
    SLURM_CONF="$dir/slurm.conf" squeue
}

case ${1:-} in
    start) start ;;
    stop) stop "${2:-}" ;;
    status) status "${2:-}" ;;
    *) echo "usage: $0 start | stop DIR | status DIR" >&2; exit 64 ;;
esac
