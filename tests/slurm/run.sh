#!/usr/bin/env bash
# Grids on a cluster, tested for real: a single-node Slurm on this machine runs the quick grid
# (std-adapter/configs/quick.toml, 4 jobs) as a job array of 4 shards into one shared results
# directory, a final step merges them, and the merged summary.json must equal, byte for byte,
# the summary.json of a one-machine run of the same grid.
#
# Not in CI (it installs system packages and starts daemons). Run it as root on a fresh Debian
# 12 machine with a Rust toolchain (cargo ≥ 1.87), from anywhere in the repository:
#
#     sudo tests/slurm/run.sh
#
# Environment: WORK (scratch directory, default /tmp/costbo-slurm; wiped), KEEP_SLURM=1 (leave
# the daemons running afterwards), TIMEOUT (seconds to wait for the array, default 1800).
#
# What it does: apt-get installs slurm-wlm (slurmctld + slurmd, with munge), writes a minimal
# /etc/slurm/slurm.conf for this host (its CPUs, no cgroups, no accounting) unless one exists
# already, starts munged, slurmctld and slurmd (directly, not through systemd, so that it works
# in containers too), builds costbo in release, submits the array with sbatch, waits for it,
# checks every task completed, merges with `costbo run --no-run`, runs the grid on one machine,
# compares, and stops the daemons it started. Exit status 0 means the summaries are equal.
set -euo pipefail

say() { printf '\n== %s\n' "$*"; }
die() { printf 'tests/slurm/run.sh: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (it installs slurm-wlm and starts its daemons)"
REPO=$(cd "$(dirname "$0")/../.." && pwd)
WORK=${WORK:-/tmp/costbo-slurm}
TIMEOUT=${TIMEOUT:-1800}
CONFIG="$REPO/std-adapter/configs/quick.toml"
SHARDS=4

say "installing Debian's Slurm (slurm-wlm: slurmctld, slurmd, munge)"
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q slurm-wlm
fi
command -v cargo >/dev/null || die "cargo not found: install a Rust toolchain (rustup.rs), ≥ 1.87"

HOST=$(hostname -s)
CPUS=$(nproc)
STARTED=()  # pid files of the daemons this script started, stopped on exit

cleanup() {
    if [ "${KEEP_SLURM:-0}" = 1 ]; then
        return
    fi
    for pidfile in "${STARTED[@]}"; do
        if [ -s "$pidfile" ]; then
            kill "$(cat "$pidfile")" 2>/dev/null || true
        fi
    done
}
trap cleanup EXIT

say "configuring munge and Slurm for $HOST ($CPUS CPUs)"
# munge authenticates slurmctld and slurmd to each other; Debian's package makes the key.
if [ ! -s /etc/munge/munge.key ]; then
    mungekey --create --keyfile=/etc/munge/munge.key
    chown munge:munge /etc/munge/munge.key
    chmod 400 /etc/munge/munge.key
fi
install -d -o munge -g munge -m 0755 /run/munge
install -d -o munge -g munge -m 0700 /var/lib/munge /var/log/munge
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
    runuser -u munge -- /usr/sbin/munged
    STARTED+=(/run/munge/munged.pid)
    sleep 1
fi
munge -n | unmunge >/dev/null || die "munge does not work (munged did not start?)"

if [ ! -e /etc/slurm/slurm.conf ]; then
    # The smallest configuration a single node needs. Process tracking by /proc and no task
    # plugin: cgroups are often unavailable (containers), and a test grid needs no confinement.
    # Consumable cores, so that the array's tasks run side by side, one CPU each.
    cat > /etc/slurm/slurm.conf <<EOF
# Written by costbo's tests/slurm/run.sh: a single-node cluster on this machine.
ClusterName=costbo-test
SlurmctldHost=$HOST(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
MinJobAge=3600
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$CPUS State=UNKNOWN
PartitionName=debug Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
EOF
fi
install -d -m 0755 /var/spool/slurmctld /var/spool/slurmd /var/log/slurm

say "starting slurmctld and slurmd"
if ! scontrol ping 2>/dev/null | grep -q UP; then
    slurmctld || die "slurmctld did not start: see /var/log/slurm/slurmctld.log"
    STARTED+=(/run/slurmctld.pid)
fi
if ! pgrep -x slurmd >/dev/null; then
    slurmd || die "slurmd did not start: see /var/log/slurm/slurmd.log"
    STARTED+=(/run/slurmd.pid)
fi
for _ in $(seq 60); do
    state=$(sinfo -h -N -n "$HOST" -o %t 2>/dev/null || true)
    case "$state" in
        idle*|mix*|alloc*) break ;;
        down*|drain*) scontrol update NodeName="$HOST" State=RESUME 2>/dev/null || true ;;
    esac
    sleep 1
done
sinfo
case "$(sinfo -h -N -n "$HOST" -o %t)" in
    idle*|mix*|alloc*) ;;
    *) die "node $HOST is not up: see /var/log/slurm/slurmd.log and slurmctld.log" ;;
esac

say "building costbo (release)"
(cd "$REPO" && cargo build --release -p costbo --bin costbo)
BIN=$(cd "$REPO" && cargo metadata --format-version 1 --no-deps |
      sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')/release/costbo
[ -x "$BIN" ] || die "no binary at $BIN"

rm -rf "$WORK"
mkdir -p "$WORK/logs"
SHARED="$WORK/shared"
ONE="$WORK/one"

say "submitting the quick grid as an array of $SHARDS shards"
# The job-array script of docs/operations.md's "Grids on a cluster", with this run's paths.
cat > "$WORK/grid.sbatch" <<EOF
#!/bin/bash
#SBATCH --job-name=costbo-quick
#SBATCH --array=1-$SHARDS
#SBATCH --cpus-per-task=1
#SBATCH --output=$WORK/logs/%A_%a.out
set -e
"$BIN" run --config "$CONFIG" --out "$SHARED" --jobs 1 \\
    --shard \${SLURM_ARRAY_TASK_ID}/\${SLURM_ARRAY_TASK_COUNT}
EOF
JOB=$(sbatch --parsable "$WORK/grid.sbatch")
JOB=${JOB%%;*}
echo "array job $JOB"
waited=0
while [ -n "$(squeue -h -j "$JOB" 2>/dev/null)" ]; do
    [ "$waited" -lt "$TIMEOUT" ] || die "array $JOB still queued or running after ${TIMEOUT}s"
    sleep 2
    waited=$((waited + 2))
done
for k in $(seq "$SHARDS"); do
    state=$(scontrol show job "${JOB}_$k" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
    echo "task $k: ${state:-unknown}"
    cat "$WORK"/logs/"${JOB}_$k".out 2>/dev/null | sed 's/^/    /'
    [ "$state" = COMPLETED ] || die "task $k of array $JOB: ${state:-no record}"
    [ -s "$SHARED/summary-shard-$k-of-$SHARDS.json" ] || die "task $k wrote no shard summary"
done
[ ! -e "$SHARED/summary.json" ] || die "a shard wrote the grid's summary.json"

say "merging the shards"
"$BIN" run --config "$CONFIG" --out "$SHARED" --no-run | tee "$WORK/merge.log"
grep -q "^4 of 4 jobs finished" "$WORK/merge.log" || die "the merge did not find every job done"

say "the same grid on one machine"
"$BIN" run --config "$CONFIG" --out "$ONE"

say "comparing summary.json (byte for byte; it holds no timing fields)"
if cmp "$SHARED/summary.json" "$ONE/summary.json"; then
    echo "PASS: the merged summary of $SHARDS Slurm shards equals the one-machine run's"
else
    diff "$SHARED/summary.json" "$ONE/summary.json" | head -40
    die "FAIL: merged summary.json differs from the one-machine run's"
fi
