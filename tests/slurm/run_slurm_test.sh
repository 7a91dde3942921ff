#!/usr/bin/env bash
# A sweep on a real single-node Slurm cluster (not a mock): starts munged, slurmctld and slurmd
# from a throw-away configuration, runs scripts/slurm/sweep.sbatch as a job array, merges the shards
# with `meshscope-cli sweep merge` and checks the result equals one machine's run of the same spec
# (elapsed_s aside). Needs root and Debian's slurm-wlm and munge; skips (exit 77) otherwise.
#   run_slurm_test.sh MESHSCOPE_CLI SWEEP_SBATCH
set -uo pipefail
cli=$(readlink -f "${1:?usage: run_slurm_test.sh MESHSCOPE_CLI SWEEP_SBATCH}")
sbatch_script=$(readlink -f "${2:?usage: run_slurm_test.sh MESHSCOPE_CLI SWEEP_SBATCH}")
skip() {
  echo "SKIP: $*"
  exit 77
}
[ "$(id -u)" = 0 ] || skip "not root (the test starts slurmctld, slurmd and munged as root)"
for program in munged munge slurmctld slurmd sbatch sinfo squeue scancel; do
  command -v "$program" >/dev/null || skip "$program is not installed (apt-get install slurm-wlm munge)"
done

work=$(mktemp -d /tmp/meshscope-slurm.XXXXXX)
chmod 700 "$work"
host=$(hostname -s)
# Ports of their own, so that a Slurm already running on this machine is left alone.
ctld_port=$((20000 + ($$ % 5000) * 2))
slurmd_port=$((ctld_port + 1))
export SLURM_CONF=$work/slurm.conf

stop_daemons() {
  for name in slurmd slurmctld munged; do
    local pid_file=$work/$name.pid
    [ -s "$pid_file" ] || continue
    local pid
    pid=$(cat "$pid_file")
    kill "$pid" 2>/dev/null || continue
    for _ in $(seq 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.2
    done
    kill -9 "$pid" 2>/dev/null || true
  done
}
show_logs() {
  for log in "$work"/*.log; do
    [ -f "$log" ] || continue
    echo "--- $log (last lines)"
    tail -n 25 "$log"
  done
}
cleanup() {
  local rc=$?
  stop_daemons
  [ "$rc" = 0 ] || show_logs
  rm -rf "$work"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
die() {
  echo "FAIL: $*"
  exit 1
}
# wait_for SECONDS DESCRIPTION COMMAND...: polls COMMAND until it succeeds.
wait_for() {
  local seconds=$1 what=$2
  shift 2
  for _ in $(seq $((seconds * 5))); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  die "timed out after ${seconds} s waiting for $what"
}

# munge: a fresh key and a daemon on a socket of its own.
dd if=/dev/urandom of="$work/munge.key" bs=1 count=1024 status=none
chmod 400 "$work/munge.key"
munged --key-file="$work/munge.key" --socket="$work/munge.socket" --pid-file="$work/munged.pid" \
  --log-file="$work/munged.log" --seed-file="$work/munged.seed" --force || die "munged did not start"
munge_works() { munge -n -S "$work/munge.socket" | unmunge -S "$work/munge.socket"; }
wait_for 20 "munged" munge_works

cpus=$(nproc)
[ "$cpus" -gt 2 ] && cpus=2
mkdir -p "$work/state" "$work/spool" "$work/out"
cat >"$SLURM_CONF" <<CONF
ClusterName=meshscope-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge.socket
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
MailProg=/bin/true
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF

slurmctld -f "$SLURM_CONF" -c || die "slurmctld did not start"
wait_for 30 "slurmctld" timeout 5 sinfo -h
slurmd -f "$SLURM_CONF" -N "$host" || die "slurmd did not start"
node_idle() { timeout 5 sinfo -h -N -o %t | grep -qx idle; }
wait_for 60 "the node to be idle" node_idle
echo "slurm up: $(timeout 5 sinfo -h -N -o '%N %t %c CPUs')"

# 8 points in 3 shards: small models so that each point takes well under a second.
cat >"$work/spec.json" <<'SPEC'
{
  "models": ["gpt2", "llama3-8b"],
  "clusters": ["dgx-h100:nodes=1..2"],
  "workloads": [{"seq": 2048, "global_batch": 32}],
  "objectives": ["throughput", "cost-per-token"],
  "top": 3
}
SPEC
shards=3
cd "$work" || die "no work folder"
# --wait: sbatch returns when every task has ended, with the highest exit code of them.
MESHSCOPE_CLI="$cli" timeout 240 sbatch --wait --array=0-$((shards - 1)) --cpus-per-task=1 \
  --output="$work/out/task_%a.log" --export=ALL "$sbatch_script" "$work/spec.json" "$work/out"
rc=$?
[ "$rc" = 124 ] && die "timed out after 240 s waiting for the job array"
if [ "$rc" != 0 ]; then
  cat "$work"/out/task_*.log 2>/dev/null
  die "the job array failed (sbatch --wait: $rc)"
fi
for task in $(seq 0 $((shards - 1))); do
  [ -s "$work/out/shard_$task.jsonl" ] || {
    cat "$work/out/task_$task.log" 2>/dev/null
    die "task $task wrote no shard"
  }
  echo "task $task: $(wc -l <"$work/out/shard_$task.jsonl") points"
done
timeout 60 "$cli" sweep merge "$work"/out/shard_*.jsonl --out "$work/merged.jsonl" || die "sweep merge failed"
timeout 120 "$cli" sweep "$work/spec.json" --threads 2 --out "$work/single.jsonl" 2>/dev/null ||
  die "the single-machine sweep failed"
strip() { sed -E 's/,"elapsed_s":[-+0-9.eE]+//' "$1"; }
cmp <(strip "$work/merged.jsonl") <(strip "$work/single.jsonl") ||
  die "the merged shards differ from the single-machine run"
echo "PASS: $(wc -l <"$work/merged.jsonl") points from $shards Slurm array tasks equal the single-machine sweep"
