#!/bin/bash
# A private single-node Slurm on localhost for the tests (needs root and the Debian packages
# slurm-wlm + munge, which scripts/setup.sh installs).
#
# Source it and call:   slurm_start DIR   (exports SLURM_CONF; returns 77 if Slurm cannot run)
#                       slurm_stop        (stops exactly the daemons slurm_start started, by PID)
# Always pair them with `trap slurm_stop EXIT`. Or run it directly for manual use:
#   tests/slurm/local_slurm.sh DIR        (starts, prints `export SLURM_CONF=...`, waits;
#                                          Ctrl-C stops everything)
# SLURM_TEST_CPUS (default 4) is the node's CPU count (config_overrides lets it exceed the
# real cores); SLURM_TEST_MAX_ARRAY_SIZE (default 3) is MaxArraySize; SLURM_TEST_PORT (default 16817) is slurmctld's port, slurmd uses +1.

_SLURM_PIDS=()
_MUNGED_STARTED=""

slurm_skip() { echo "SKIP: $*" >&2; return 77; }

slurm_start() {
  local dir=$1 cpus=${SLURM_TEST_CPUS:-4} port=${SLURM_TEST_PORT:-16817}
  [ "$(id -u)" -eq 0 ] || { slurm_skip "a private Slurm needs root (slurmd runs as root)"; return 77; }
  local b
  for b in slurmctld slurmd munged sbatch sinfo scontrol; do
    command -v "$b" >/dev/null 2>&1 || [ -x "/usr/sbin/$b" ] ||
      { slurm_skip "$b not installed (scripts/setup.sh installs slurm-wlm munge)"; return 77; }
  done
  mkdir -p "$dir"/{state,spool,log}

  # munge: reuse a running munged, else start one as the munge user
  if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
    [ -s /etc/munge/munge.key ] || { mungekey --create >/dev/null 2>&1 ||
      dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 2>/dev/null;
      chown munge:munge /etc/munge/munge.key; chmod 400 /etc/munge/munge.key; }
    mkdir -p /run/munge /var/log/munge /var/lib/munge
    chown munge:munge /run/munge /var/log/munge /var/lib/munge 2>/dev/null
    if id munge >/dev/null 2>&1; then runuser -u munge -- /usr/sbin/munged
    else /usr/sbin/munged --force; fi
    _MUNGED_STARTED=1
    local i
    for i in $(seq 50); do munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.1; done
    munge -n 2>/dev/null | unmunge >/dev/null 2>&1 || { slurm_skip "munged does not start"; return 77; }
  fi

  cat > "$dir/slurm.conf" <<EOF
ClusterName=geopipetest
SlurmctldHost=localhost
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=cred_expire=10
MailProg=/bin/true
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
MpiDefault=pmix
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
KillWait=5
MinJobAge=600
# small on purpose: the array drill then exercises submit_array.sh's split into several arrays
MaxArraySize=${SLURM_TEST_MAX_ARRAY_SIZE:-3}
NodeName=localhost CPUs=$cpus RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
  export SLURM_CONF=$dir/slurm.conf
  slurmctld -D -c -f "$SLURM_CONF" >"$dir/log/slurmctld.stdout" 2>&1 &
  _SLURM_PIDS+=($!)
  slurmd -D -N localhost -f "$SLURM_CONF" >"$dir/log/slurmd.stdout" 2>&1 &
  _SLURM_PIDS+=($!)
  local t state=""
  for t in $(seq 150); do
    state=$(sinfo -h -o %T 2>/dev/null | head -1)
    [ "$state" = idle ] && break
    sleep 0.2
  done
  if [ "$state" != idle ]; then
    echo "slurm did not become idle (state '$state'); logs:" >&2
    tail -n 20 "$dir"/log/*.log "$dir"/log/*.stdout >&2 2>/dev/null
    slurm_skip "slurmctld/slurmd could not be started"; return 77
  fi
  echo "local slurm up: SLURM_CONF=$SLURM_CONF (pids ${_SLURM_PIDS[*]})" >&2
}

slurm_stop() {
  local p
  for p in "${_SLURM_PIDS[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${_SLURM_PIDS[@]}"; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null
  done
  _SLURM_PIDS=()
  if [ -n "$_MUNGED_STARTED" ] && [ -s /run/munge/munged.pid ]; then
    kill "$(cat /run/munge/munged.pid)" 2>/dev/null
  fi
  _MUNGED_STARTED=""
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  [ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
  trap slurm_stop EXIT
  slurm_start "$1" || exit $?
  echo "export SLURM_CONF=$SLURM_CONF"
  echo "running; Ctrl-C to stop" >&2
  while sleep 3600; do :; done
fi
