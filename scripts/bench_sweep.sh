#!/usr/bin/env bash
# Sweep-runner benchmarks, measured side by side in one run (docs/performance.md, "Targets").
#   scripts/bench_sweep.sh [BUILD_DIR] [REPEATS]
# Prints a markdown table. Each configuration runs REPEATS times (default 3), interleaved with
# the configurations it is compared with, and the median is reported, so that load from other
# processes on this shared machine hits both sides of a ratio alike.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}
REPEATS=${2:-3}
G=$B/src/geopipe
[ -x "$G" ] || { echo "build first: cmake --build $B" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
MPIRUN="mpirun --oversubscribe"

# t NAME CMD...: runs CMD once, appends "seconds maxrss_kb" to $tmp/NAME: the wall time from
# spawn to exit at the clock's resolution, measured from a Python process started beforehand
# (/usr/bin/time's %e has 10-ms steps, 1.3 % of a 0.8-s sweep, and /usr/bin/time itself adds
# ~4 ms), and the peak RSS from wait4(). A spawned child's ru_maxrss counts the memory of the
# process it was spawned from, here Python's ~9 MB: below any sweep's (a one-scenario sweep
# peaks at ~14 MB).
t() {
  local name=$1
  shift
  rm -f "$tmp"/*.h5
  /usr/bin/python3 -c '
import os, sys, time
with open(os.devnull, "w") as null, open(sys.argv[1], "w") as err:
    os.waitpid(os.posix_spawn("/bin/true", ["true"], os.environ), 0)  # a fresh Python spawns its first child ~3 ms slower
    t0 = time.perf_counter_ns()
    pid = os.posix_spawnp(sys.argv[2], sys.argv[2:], os.environ,
                          file_actions=[(os.POSIX_SPAWN_DUP2, null.fileno(), 1), (os.POSIX_SPAWN_DUP2, err.fileno(), 2)])
    _, status, usage = os.wait4(pid, 0)
    t1 = time.perf_counter_ns()
if os.waitstatus_to_exitcode(status) != 0:
    sys.exit(1)
print("%.6f %d" % ((t1 - t0) / 1e9, usage.ru_maxrss))
' "$tmp/err" "$@" >>"$tmp/$name" || {
    echo "failed: $*" >&2
    cat "$tmp/err" >&2
    exit 1
  }
}
# overhead NAME THREADS: appends to $tmp/NAME.ovh the last run's sweep wall time x THREADS over
# the sum of its scenarios' simulation wall times (/metrics wall_s of $tmp/a.h5): 1 = no overhead;
# and "wall_s sum" to $tmp/NAME.sum (for the per-scenario overhead below)
overhead() {
  local w
  w=$(/usr/bin/python3 -c 'import sys, h5py; print(h5py.File(sys.argv[1], "r")["metrics"]["wall_s"].sum())' "$tmp/a.h5")
  tail -n 1 "$tmp/$1" | awk -v w="$w" -v n="$2" '{printf "%.3f\n", $1 * n / w}' >>"$tmp/$1.ovh"
  echo "$(tail -n 1 "$tmp/$1" | cut -d' ' -f1) $w" >>"$tmp/$1.sum"
}
# marginal SMALL BIG THREADS: the per-scenario overhead, free of the sweep's fixed costs (process
# start, loading, creating and finalising the file): the extra wall time x THREADS of the sweep
# with 5x the seeds over the extra sum of wall_s, from the medians of both
marginal() {
  local a b
  a=$(awk '{print $1}' "$tmp/$1.sum" | median); b=$(awk '{print $1}' "$tmp/$2.sum" | median)
  local wa wb
  wa=$(awk '{print $2}' "$tmp/$1.sum" | median); wb=$(awk '{print $2}' "$tmp/$2.sum" | median)
  awk -v a="$a" -v b="$b" -v wa="$wa" -v wb="$wb" -v n="$3" 'BEGIN {printf "%.3f", (b - a) * n / (wb - wa)}'
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
sec() { cut -d' ' -f1 "$tmp/$1" | median | awk '{printf "%.3f", $1}'; }
rss_mb() { cut -d' ' -f2 "$tmp/$1" | median | awk '{printf "%.1f", $1/1024}'; }

S=sweeps/bench/throughput.toml
N=$("$G" sweep $S --dry-run | sed -n 's/.*= \([0-9]*\) scenarios.*/\1/p')
A=sweeps/bench/array.toml
NA=$("$G" sweep $A --dry-run | sed -n 's/.*= \([0-9]*\) scenarios.*/\1/p')
sed -e "s|^base = .*|base = \"$PWD/sweeps/base/six-regions.toml\"|" -e 's/^seeds = 1250/seeds = 1251/' \
  sweeps/bench/null-1m.toml >"$tmp/null-1m-plus.toml"
sed -e "s|^base = .*|base = \"$PWD/sweeps/base/six-regions.toml\"|" -e 's/^seeds = 160$/seeds = 800/' $S >"$tmp/throughput-5x.toml"
N5=$("$G" sweep "$tmp/throughput-5x.toml" --dry-run | sed -n 's/.*= \([0-9]*\) scenarios.*/\1/p')
[ "$N5" = $((5 * N)) ] || { echo "bench_sweep.sh: expected $S to have seeds = 160" >&2; exit 1; }
echo "geopipe $("$G" --version | cut -d' ' -f2), $(nproc) cores, $(date -u +%F), $REPEATS repeats (median)" >&2

for r in $(seq "$REPEATS"); do
  echo "round $r/$REPEATS" >&2
  t thr1 "$G" sweep $S -o "$tmp/a.h5" --quiet --threads 1
  overhead thr1 1
  t thr2 "$G" sweep $S -o "$tmp/a.h5" --quiet --threads 2
  overhead thr2 2
  t big1 "$G" sweep "$tmp/throughput-5x.toml" -o "$tmp/a.h5" --quiet --threads 1
  overhead big1 1
  t big2 "$G" sweep "$tmp/throughput-5x.toml" -o "$tmp/a.h5" --quiet --threads 2
  overhead big2 2
  t rank1 $MPIRUN -np 1 "$G" sweep $S -o "$tmp/a.h5" --quiet --threads 1
  t rank2 $MPIRUN -np 2 "$G" sweep $S -o "$tmp/a.h5" --quiet --threads 1
  t launch2 $MPIRUN -np 2 "$G" sweep $S -o "$tmp/a.h5" --quiet --threads 1 --dry-run  # mpirun + MPI_Init only
  t null10k "$G" sweep sweeps/bench/null-10k.toml -o "$tmp/n.h5" --quiet --threads 1 --null-scenarios
  t null1m "$G" sweep sweeps/bench/null-1m.toml -o "$tmp/n.h5" --quiet --threads 1 --null-scenarios
  t null3m "$G" sweep sweeps/bench/null-3m.toml -o "$tmp/n.h5" --quiet --threads 1 --null-scenarios
  # a million points: loading (expansion, keys, the sampled check) and running them
  t load1m "$G" sweep sweeps/bench/points-1m.toml --dry-run
  t points1m "$G" sweep sweeps/bench/points-1m.toml -o "$tmp/n.h5" --quiet --threads 1 --null-scenarios
  # --resume of a complete 1M-scenario file (results matched by content key), then growing it
  # by one seed (r.hdf5: not removed by t).
  rm -f "$tmp/r.hdf5"
  "$G" sweep sweeps/bench/null-1m.toml -o "$tmp/r.hdf5" --quiet --threads 1 --null-scenarios
  t resume1m "$G" sweep sweeps/bench/null-1m.toml -o "$tmp/r.hdf5" --resume --quiet --threads 1 --null-scenarios
  t grow1m "$G" sweep "$tmp/null-1m-plus.toml" -o "$tmp/r.hdf5" --resume --quiet --threads 1 --null-scenarios
  # merging files of two sweeps (1M + 1,000,800 scenarios, 1M shared): a collection
  rm -f "$tmp/q.hdf5"
  "$G" sweep sweeps/bench/null-1m.toml -o "$tmp/q.hdf5" --quiet --threads 1 --null-scenarios
  t merge1m "$G" merge "$tmp/q.hdf5" "$tmp/r.hdf5" -o "$tmp/m.h5"
  t null1m_mpi $MPIRUN -np 2 "$G" sweep sweeps/bench/null-1m.toml -o "$tmp/n.h5" --quiet --threads 1 --null-scenarios
  # The same NA scenarios as one `geopipe run` process each (what a job-array user does),
  # one after another and two at a time, vs one sweep with 1 and 2 threads.
  seq 1 100 | while read -r s; do for p in bace-pipe delay-first cost-first greedy-cost; do
    echo "$G run sweeps/base/six-regions.toml --json --seed $s --scheduler $p"; done; done >"$tmp/cmds"
  t procs1 bash -c "xargs -P 1 -I{} sh -c '{} >/dev/null' <$tmp/cmds"
  t procs2 bash -c "xargs -P 2 -I{} sh -c '{} >/dev/null' <$tmp/cmds"
  t arr1 "$G" sweep $A -o "$tmp/a.h5" --quiet --threads 1
  t arr2 "$G" sweep $A -o "$tmp/a.h5" --quiet --threads 2
done

rate() { awk -v n="$1" -v s="$2" 'BEGIN {printf "%.0f", n / s}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
eff() { awk -v one="$1" -v two="$2" 'BEGIN {printf "%.2f", one / (2 * two)}'; }
T1=$(sec thr1) T2=$(sec thr2) R1=$(sec rank1) R2=$(sec rank2) L=$(sec launch2)
cat <<TABLE
| measurement | value |
|---|---|
| \`sweep\` $N scenarios, 1 thread | $T1 s ($(rate "$N" "$T1") scenarios/s) |
| \`sweep\` $N scenarios, 2 threads | $T2 s ($(rate "$N" "$T2") scenarios/s); parallel efficiency $(eff "$T1" "$T2") |
| overhead: sweep wall time x threads / sum of /metrics wall_s, 1 thread | $(median <"$tmp/thr1.ovh") |
| the same, 2 threads | $(median <"$tmp/thr2.ovh") |
| per-scenario overhead ($N5 against $N scenarios: extra wall time x threads / extra sum of wall_s), 1 thread | $(marginal thr1 big1 1) |
| the same, 2 threads | $(marginal thr2 big2 2) |
| \`mpirun -np 1\`, 1 thread | $R1 s ($(rate "$N" "$R1") scenarios/s) |
| \`mpirun -np 2\`, 1 thread each | $R2 s ($(rate "$N" "$R2") scenarios/s); parallel efficiency $(eff "$R1" "$R2") |
| the same without the launch (\`mpirun -np 2 ... --dry-run\`: $L s) | parallel efficiency $(awk -v a="$R1" -v b="$R2" -v l="$L" 'BEGIN {printf "%.2f", (a - l) / (2 * (b - l))}') |
| 10k null scenarios, standalone | $(sec null10k) s ($(rate 10000 "$(sec null10k)") scenarios/s), peak RSS $(rss_mb null10k) MB |
| 1M null scenarios, standalone | $(sec null1m) s ($(rate 1000000 "$(sec null1m)") scenarios/s), peak RSS $(rss_mb null1m) MB |
| 3M null scenarios, standalone | $(sec null3m) s ($(rate 3000000 "$(sec null3m)") scenarios/s), peak RSS $(rss_mb null3m) MB |
| \`--resume\` of the complete 1M null-scenario file | $(sec resume1m) s, peak RSS $(rss_mb resume1m) MB |
| \`--resume\` growing it to 1251 seeds (800 new scenarios) | $(sec grow1m) s, peak RSS $(rss_mb grow1m) MB |
| load a 1M-point sweep (\`points-1m.toml --dry-run\`) | $(sec load1m) s, peak RSS $(rss_mb load1m) MB |
| run it with null scenarios | $(sec points1m) s ($(rate 1000000 "$(sec points1m)") scenarios/s), peak RSS $(rss_mb points1m) MB |
| \`merge\` of two files of different sweeps (2M rows, 1M shared) | $(sec merge1m) s, peak RSS $(rss_mb merge1m) MB |
| 1M null scenarios, \`mpirun -np 2\` (master dispatches to 1 worker) | $(sec null1m_mpi) s ($(rate 1000000 "$(sec null1m_mpi)") scenarios/s) |
| $NA scenarios as $NA \`geopipe run\` processes, sequential | $(sec procs1) s |
| the same as one \`sweep\`, 1 thread | $(sec arr1) s: $(ratio "$(sec procs1)" "$(sec arr1)")x faster |
| $NA \`geopipe run\` processes, 2 at a time | $(sec procs2) s |
| the same as one \`sweep\`, 2 threads | $(sec arr2) s: $(ratio "$(sec procs2)" "$(sec arr2)")x faster |
TABLE
