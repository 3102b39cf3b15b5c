#!/bin/bash
# Slurm fault drills: starts a private Slurm on localhost (tests/slurm/local_slurm.sh),
# submits the real scripts in slurm/ and checks that the final HDF5 /metrics equals an
# uninterrupted standalone run of the same sweep (sorted by id, wall-clock columns excluded):
#   (a) sweep.sbatch with a short --time: SIGUSR1 before the limit -> flush, requeue, resume
#   (b) scancel mid-run, resubmit (--resume)
#   (c) shard array with one failing task, that task resubmitted alone, merged
#   (d) kill -9 of a worker rank under srun --mpi=pmix, resubmit (--resume)
#
#   tests/slurm/run_drills.sh GEOPIPE_BINARY [DRILL...]     (DRILL: a b c d; default all)
#
# Exit 0: every drill passed; 1: a drill failed; 77: Slurm cannot be started here (not root,
# packages missing) -- ctest reports SKIP. Needs root; keeps everything in a temp dir.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
[ $# -ge 1 ] || { echo "usage: $0 GEOPIPE_BINARY [a b c d]" >&2; exit 2; }
export GEOPIPE=$(readlink -f "$1"); shift
drills=${*:-a b c d}
PY=/usr/bin/python3
CHECK="$PY $here/h5check.py"
$PY -c 'import h5py' 2>/dev/null || { echo "FAIL: /usr/bin/python3 has no h5py (scripts/setup.sh installs python3-h5py)" >&2; exit 1; }

# MPI as root (test machines): Open MPI refuses otherwise. Not needed as a normal user.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset GEOPIPE_FAIL_IDS GEOPIPE_FAIL_SHARDS GEOPIPE_LAUNCHER

WORK=$(mktemp -d /tmp/geopipe-slurm-drills.XXXXXX)
source "$here/local_slurm.sh"
JOBS=()
cleanup() {
  local rc=$?
  if [ ${#JOBS[@]} -gt 0 ] && [ -n "${SLURM_CONF:-}" ]; then
    scancel "${JOBS[@]}" 2>/dev/null
    for _ in $(seq 30); do [ -z "$(squeue -h 2>/dev/null)" ] && break; sleep 0.5; done
  fi
  slurm_stop
  if [ "$rc" -eq 0 ] || [ "$rc" -eq 77 ]; then rm -rf "$WORK"; else echo "kept $WORK for inspection" >&2; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

T0=$(date +%s)
slurm_start "$WORK/slurm"; src=$?
[ "$src" -eq 0 ] || exit "$src"

cd "$WORK"
# Sweep A (drill a): ~150 s of single-thread work (the USR1@30 of --time=2 comes 60-90 s in); sweep B (b, c, d): ~20 s.
mk_sweep() {  # name seeds
  cat > "$WORK/$1.toml" <<EOF
[sweep]
name = "slurm-drill-$1"
base = "$repo/sweeps/base/six-regions.toml"
schedulers = ["bace-pipe", "delay-first"]
seeds = $2
[sweep.set]
"workload.num_jobs" = 2000
[[axis]]
param = "workload.load_scale"
values = [1, 2]
EOF
}
# Sweep A must outlive the USR1, whatever the speed of the machine (and of geopipe: a faster
# scheduler once made a fixed-size A finish first): size it from a short calibration run to
# ~150 s of one thread.
if [ -n "${DRILL_SEEDS_A:-}" ]; then
  seeds_a=$DRILL_SEEDS_A
elif [[ " $drills " == *" a "* ]]; then
  mk_sweep CAL 40  # 160 scenarios
  t_cal=$( { /usr/bin/time -f %e "$GEOPIPE" sweep CAL.toml -o cal.h5 --no-mpi --threads 1 --quiet; } 2>&1 | tail -1)
  seeds_a=$($PY -c "import math; print(max(200, math.ceil(150 * 160 / max(float('$t_cal'), 0.01) / 4)))")
  echo "calibration: 160 scenarios in ${t_cal}s -> sweep A with $seeds_a seeds ($((4 * seeds_a)) scenarios, ~150 s)"
  rm -f cal.h5
else
  seeds_a=200
fi
mk_sweep A "$seeds_a"
mk_sweep B "${DRILL_SEEDS_B:-250}"
mkdir -p logs

FAILED=()
RESULTS=()
pass() { RESULTS+=("PASS ($1) $2"); echo "PASS ($1) $2"; }
fail() { RESULTS+=("FAIL ($1) $2"); FAILED+=("$1"); echo "FAIL ($1) $2" >&2; }
el() { echo "$(( $(date +%s) - T0 ))s"; }

submit() {  # sbatch args... ; prints job id
  local id
  id=$(sbatch --parsable "$@") || return 1
  id=${id%%;*}
  JOBS+=("$id")
  echo "$id"
}
# states of every record of a job (array: every task), one per line
job_states() { scontrol show job -o "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2; }
job_field() { scontrol show job -o "$1" 2>/dev/null | head -1 | grep -o " $2=[^ ]*" | cut -d= -f2-; }
is_terminal() { case "$1" in COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE) return 0;; *) return 1;; esac; }
wait_job() {  # id timeout_s -> 0 when every record is terminal; prints the states
  local id=$1 lim=$2 s all
  for ((t = 0; t < lim * 2; t++)); do
    all=1
    for s in $(job_states "$id"); do is_terminal "$s" || all=0; done
    [ -n "$(job_states "$id")" ] && [ $all -eq 1 ] && { job_states "$id" | sort | uniq -c | tr '\n' ' '; echo; return 0; }
    sleep 0.5
  done
  echo "timeout; states: $(job_states "$id" | tr '\n' ' ')"
  return 1
}
rows() { $CHECK count "$1" 2>/dev/null | cut -d' ' -f1; }
wait_rows() {  # file min timeout_s
  for ((t = 0; t < $3 * 4; t++)); do
    [ -f "$1" ] && [ "$(rows "$1" || echo 0)" -ge "$2" ] 2>/dev/null && return 0
    sleep 0.25
  done
  return 1
}
total_of() { "$GEOPIPE" sweep "$1" -o /dev/null --dry-run 2>&1 | grep -oE '[0-9]+ scenarios' | head -1 | cut -d' ' -f1; }

SB="$repo/slurm/sweep.sbatch"

# ---- (a) submitted first: it runs on one CPU while the others use the second ----------
if [[ " $drills " == *" a "* ]]; then
  A_ID=$(submit -D "$WORK" -J drill-a -n 1 -c 1 --time=2 --signal=B:USR1@30 \
           -o "$WORK/logs/a.out" "$SB" A.toml a.h5)
  echo "[$(el)] (a) submitted job $A_ID (--time=2 --signal=B:USR1@30, 1 rank x 1 thread)"
fi

ref() {  # sweep -> ref_X.h5 (standalone, no MPI)
  [ -f "ref_$1.h5" ] && return 0
  local t=$(date +%s)
  "$GEOPIPE" sweep "$1.toml" -o "ref_$1.h5" --no-mpi --threads 1 --quiet ||
    { echo "reference run of $1 failed" >&2; return 1; }
  echo "[$(el)] reference run of sweep $1: $(rows "ref_$1.h5") rows in $(( $(date +%s) - t ))s"
}
need_b() { [[ " $drills " == *" b "* || " $drills " == *" c "* || " $drills " == *" d "* ]]; }
if need_b; then ref B || exit 1; fi

# ---- (b) scancel mid-run, resubmit -----------------------------------------------------
if [[ " $drills " == *" b "* ]]; then
  TOT=$(rows ref_B.h5)
  id=$(submit -D "$WORK" -J drill-b -n 1 -c 1 -o "$WORK/logs/b.out" "$SB" B.toml b.h5)
  if ! wait_rows b.h5 50 120; then fail b "no rows appeared in b.h5 (see logs/b.out)"
  else
    scancel "$id"
    st=$(wait_job "$id" 60)
    n=$(rows b.h5)
    echo "[$(el)] (b) scancel'd job $id -> $st; b.h5 holds $n of $TOT rows"
    if [ "$n" -ge "$TOT" ]; then fail b "job finished before scancel; not a mid-run drill"
    else
      id2=$(submit -D "$WORK" -J drill-b2 -n 1 -c 1 -o "$WORK/logs/b.out" "$SB" B.toml b.h5)
      st=$(wait_job "$id2" 240)
      echo "[$(el)] (b) resubmitted job $id2 -> $st"
      if out=$($CHECK compare ref_B.h5 b.h5 "(b) scancel+resubmit: $n rows before the cancel;"); then pass b "$out"; else fail b "$out"; fi
    fi
  fi
fi

# ---- (c) shard array with one failing task -------------------------------------------
if [[ " $drills " == *" c "* ]]; then
  NS=4 BAD=2
  sub=$(GEOPIPE_FAIL_SHARDS=$BAD "$repo/slurm/submit_array.sh" --throttle 1 B.toml shards $NS c.h5 -- \
          -D "$WORK" -c 1 -o "$WORK/logs/c-%A_%a.out")
  echo "$sub" | sed 's/^/    /'
  arrs=$(echo "$sub" | awk '/^array/ {print $2}')
  mid=$(echo "$sub" | awk '/^merge/ {print $2}')
  JOBS+=($arrs $mid)
  nf=0 na=0 st=""
  for arr in $arrs; do
    s1=$(wait_job "$arr" 240); st+="[$arr: $s1] "; na=$((na + 1))
    f1=$(echo "$s1" | grep -o '[0-9]* FAILED' | cut -d' ' -f1); nf=$((nf + ${f1:-0}))
  done
  echo "[$(el)] (c) $na array(s) (MaxArraySize $(scontrol show config | awk -F= '/^MaxArraySize/ {print $2}' | tr -d ' ')) -> $st; merge job $mid: $(job_field "$mid" JobState) ($(job_field "$mid" Reason))"
  if [ "$na" -lt 2 ]; then
    fail c "expected submit_array.sh to split $NS shards into several arrays (MaxArraySize)"
  elif [ "$nf" != 1 ] || [ -f "shards/shard-$BAD-of-$NS.h5" ]; then
    fail c "expected exactly shard $BAD to fail without output (states: $st)"
  else
    scancel "$mid"
    sub2=$("$repo/slurm/submit_array.sh" --tasks $BAD B.toml shards $NS c.h5 -- \
             -D "$WORK" -c 1 -o "$WORK/logs/c-%A_%a.out")
    echo "$sub2" | sed 's/^/    /'
    mid2=$(echo "$sub2" | awk '/^merge/ {print $2}')
    JOBS+=($(echo "$sub2" | awk '{print $2}'))
    st2=$(wait_job "$mid2" 240)
    echo "[$(el)] (c) merge job $mid2 -> $st2"
    counts=""
    for ((k = 0; k < NS; k++)); do counts+="$(rows shards/shard-$k-of-$NS.h5)+"; done
    if [ ! -f c.h5 ]; then fail c "merge produced no c.h5 (see logs/c-*.out)"
    elif out=$($CHECK compare ref_B.h5 c.h5 "(c) array, shard $BAD failed and rerun, shards ${counts%+} rows;"); then pass c "$out"; else fail c "$out"; fi
  fi
fi

# ---- (a) check ---------------------------------------------------------------------------
if [[ " $drills " == *" a "* ]]; then
  ref A || exit 1
  st=$(wait_job "$A_ID" 480)
  rq=$(grep -c 'requeueing job' logs/a.out)
  rs=$(job_field "$A_ID" Restarts)
  echo "[$(el)] (a) job $A_ID -> $st; requeued $rq time(s), Restarts=$rs; stopped at:" \
       "$(grep 'interrupted' logs/a.out | grep -oE 'progress: [0-9]+/[0-9]+' | cut -d' ' -f2 | tr '\n' ' ')"
  if [ "${rq:-0}" -lt 1 ]; then fail a "the job was never signalled and requeued (see logs/a.out); sweep A too short?"
  elif out=$($CHECK compare ref_A.h5 a.h5 "(a) USR1+requeue x$rq, stopped at $(grep interrupted logs/a.out | grep -oE 'progress: [0-9]+/' | grep -oE '[0-9]+' | tr '\n' ' ')rows;"); then pass a "$out"; else fail a "$out"; fi
fi

# ---- (d) kill -9 a worker rank under srun ------------------------------------------------
if [[ " $drills " == *" d "* ]]; then
  TOT=$(rows ref_B.h5)
  id=$(submit -D "$WORK" -J drill-d -n 2 --ntasks-per-node=2 -c 1 -o "$WORK/logs/d.out" "$SB" B.toml d.h5)
  victim=""
  if wait_rows d.h5 50 120; then
    for p in $(pgrep -x 'geopipe(-full)?'); do
      env=$(tr '\0' '\n' < /proc/$p/environ 2>/dev/null)
      if grep -qx "SLURM_JOB_ID=$id" <<<"$env" && grep -qx "SLURM_PROCID=1" <<<"$env"; then victim=$p; fi
    done
  fi
  if [ -z "$victim" ]; then fail d "no rank-1 geopipe process of job $id found (see logs/d.out)"; scancel "$id"
  else
    kill -9 "$victim"
    st=$(wait_job "$id" 120)
    n=$(rows d.h5)
    echo "[$(el)] (d) killed rank 1 (pid $victim) of job $id -> $st (ExitCode $(job_field "$id" ExitCode)); d.h5 holds $n of $TOT rows"
    if [[ "$st" != *FAILED* ]] || [ "$n" -ge "$TOT" ]; then fail d "job did not abort mid-run ($st, $n rows)"
    else
      id2=$(submit -D "$WORK" -J drill-d2 -n 2 --ntasks-per-node=2 -c 1 -o "$WORK/logs/d.out" "$SB" B.toml d.h5)
      st=$(wait_job "$id2" 240)
      echo "[$(el)] (d) resubmitted job $id2 -> $st"
      if out=$($CHECK compare ref_B.h5 d.h5 "(d) rank 1 kill -9 + resume: $n rows before the kill;"); then pass d "$out"; else fail d "$out"; fi
    fi
  fi
fi

echo "== slurm drills done in $(el)"
printf '  %s\n' "${RESULTS[@]}"
if [ ${#FAILED[@]} -gt 0 ]; then
  echo "failed drills: ${FAILED[*]}; logs:" >&2
  for f in logs/*; do echo "--- $f" >&2; tail -n 30 "$f" >&2; done
  exit 1
fi
[ ${#RESULTS[@]} -gt 0 ] || { echo "no drill ran" >&2; exit 1; }
exit 0
