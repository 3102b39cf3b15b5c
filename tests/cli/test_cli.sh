#!/usr/bin/env bash
# End-to-end checks of the geopipe CLI: exit codes, outputs, and that bad input never writes.
# Usage: test_cli.sh GEOPIPE_BINARY SOURCE_DIR
set -uo pipefail
BIN=$1
SRC=$2
FRONT_LINK=${3:-shared}  # how the front end is linked: static, static-libstdc++ or shared (GEOPIPE_FRONT_END_LINK)
BASE=$SRC/sweeps/base/six-regions.toml
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
expect_rc() {  # expect_rc CODE DESCRIPTION -- command...
  local want=$1 what=$2
  shift 3
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ "$rc" -eq "$want" ]; then ok; else bad "$what: exit $rc, expected $want; stderr: $(head -c 400 "$tmp/err")"; fi
}

# --- run: all presets, same trace, table with every preset
expect_rc 0 "run all" -- "$BIN" run "$BASE" --scheduler all
for p in $("$BIN" list presets | cut -d" " -f1); do
  grep -q "^$p " "$tmp/out" && ok || bad "table lacks $p"
done
grep -q "200/200" "$tmp/out" && ok || bad "table does not show 200/200 completed"
# the synchronisation's share of the time (sync_fraction) is a column: 0 for one-pipeline jobs,
# above 0 for the study's two-replica jobs with an every-step all-reduce
head -2 "$tmp/out" | tail -1 | grep -q " stall   sync " && ok || bad "table lacks the sync column: $(head -2 "$tmp/out" | tail -1)"
head -2 "$tmp/out" | tail -1 | grep -q " sync  maxrho   jain " && ok || bad "table lacks the fairness columns: $(head -2 "$tmp/out" | tail -1)"
head -2 "$tmp/out" | tail -1 | grep -q "avgJCT_h  jctLB_h " && ok || bad "table lacks the JCT bound column: $(head -2 "$tmp/out" | tail -1)"
expect_rc 0 "run dp2" -- "$BIN" run "$BASE" --scheduler first-fit --set workload.trace=../studies/dp/dp2.csv
sync_col=$(awk '/^scheduler/ { for (i = 1; i <= NF; ++i) if ($i == "sync") c = i } /^first-fit/ { print $c }' "$tmp/out")
awk -v v="$sync_col" 'BEGIN { exit !(v > 0 && v < 1) }' && ok || bad "dp2 sync_fraction '$sync_col' not in (0, 1)"

# --- the change line follows geopipe's one convention: scheduler / baseline - 1 (baseline = the
# first scheduler), the same numbers as the JSON give
expect_rc 0 "run two, table" -- "$BIN" run "$BASE" --scheduler bace-pipe,delay-first
cp "$tmp/out" "$tmp/table.txt"
"$BIN" run "$BASE" --scheduler bace-pipe,delay-first --json >"$tmp/pair.json"
python3 - "$tmp/table.txt" "$tmp/pair.json" <<'PY' && ok || bad "run: change line (scheduler / baseline - 1)"
import json, re, sys
table = open(sys.argv[1]).read()
d = json.load(open(sys.argv[2]))["results"]
b, m = d[0]["metrics"], d[1]["metrics"]
want = (f"change vs bace-pipe (scheduler / bace-pipe - 1): delay-first JCT {100 * (m['avg_jct_s'] / b['avg_jct_s'] - 1):+.1f}% "
        f"cost {100 * (m['total_cost_usd'] / b['total_cost_usd'] - 1):+.1f}%")
assert want in table, (want, table)
assert m["avg_jct_s"] > b["avg_jct_s"] and "delay-first JCT +" in table  # delay-first is slower here: a positive change
PY

# --- JSON is valid and has the metrics
expect_rc 0 "run json" -- "$BIN" run "$BASE" --scheduler bace-pipe,delay-first --json
python3 - "$tmp/out" <<'PY' && ok || bad "json content"
import json, sys
d = json.load(open(sys.argv[1]))
assert [r["scheduler"] for r in d["results"]] == ["bace-pipe", "delay-first"], d
m = d["results"][0]["metrics"]
for k in ("avg_jct_s", "p99_jct_s", "total_cost_usd", "total_energy_j", "gpu_hours", "stall_fraction",
          "sched_time_total_s", "sched_time_max_s", "events", "wall_s", "cross_region_bytes"):
    assert k in m, k
assert m["jobs_completed"] == 200
PY

# --- same seed twice: identical deterministic metrics; another seed: different trace
"$BIN" run "$BASE" --scheduler all --json --seed 7 >"$tmp/a.json" && "$BIN" run "$BASE" --scheduler all --json --seed 7 >"$tmp/b.json" &&
  "$BIN" run "$BASE" --scheduler all --json --seed 8 >"$tmp/c.json"
python3 - "$tmp/a.json" "$tmp/b.json" "$tmp/c.json" <<'PY' && ok || bad "determinism across processes"
import json, sys
timing = {"sched_time_total_s", "sched_time_max_s", "wall_s"}
def det(p):
    return [{k: v for k, v in r["metrics"].items() if k not in timing} for r in json.load(open(p))["results"]]
a, b, c = det(sys.argv[1]), det(sys.argv[2]), det(sys.argv[3])
assert a == b, "same seed differs"
assert a != c, "different seed gives the same result"
PY

# --- per-job CSV
expect_rc 0 "jobs csv" -- "$BIN" run "$BASE" --scheduler bace-pipe,cost-first --jobs-csv "$tmp/jobs.csv"
[ "$(wc -l <"$tmp/jobs.csv")" -eq 401 ] && ok || bad "jobs csv rows: $(wc -l <"$tmp/jobs.csv")"
head -1 "$tmp/jobs.csv" | grep -q "^scheduler,job_id,model,stages,gpus_per_stage,data_parallel,regions,layers,arrival_s,start_s,finish_s" && ok || bad "csv header"

# --- --set overrides change the result; bad ones exit 2
"$BIN" run "$BASE" --scheduler bace-pipe --json --set network.bandwidth_scale=0.25 >"$tmp/bw.json"
"$BIN" run "$BASE" --scheduler bace-pipe --json >"$tmp/base.json"
cmp -s "$tmp/bw.json" "$tmp/base.json" && bad "--set had no effect" || ok
expect_rc 2 "typo in --set" -- "$BIN" run "$BASE" --set network.bandwith_scale=2
grep -q "did you mean 'network.bandwidth_scale'" "$tmp/err" && ok || bad "no did-you-mean: $(cat "$tmp/err")"
expect_rc 2 "unknown scheduler" -- "$BIN" run "$BASE" --scheduler nope
grep -q "unknown scheduler 'nope'" "$tmp/err" && ok || bad "unknown scheduler message"
expect_rc 2 "missing file" -- "$BIN" run "$tmp/does-not-exist.toml"

# --- bad input writes nothing: an existing CSV stays untouched
echo "precious" >"$tmp/keep.csv"
expect_rc 2 "bad set keeps csv" -- "$BIN" run "$BASE" --set cluster.capacity_scale=-1 --jobs-csv "$tmp/keep.csv"
[ "$(cat "$tmp/keep.csv")" = "precious" ] && ok || bad "existing csv overwritten on bad input"

# --- validate, list, help
expect_rc 0 "validate base" -- "$BIN" validate "$BASE"
for what in presets models gpus params; do expect_rc 0 "list $what" -- "$BIN" list "$what"; done
grep -q "H100-SXM" <("$BIN" list gpus) && ok || bad "list gpus lacks H100"
# list gpus: the calibrated built-in types with their efficiency curve (docs/validation.md)
gpus_out=$("$BIN" list gpus)
for g in V100-16GB V100-32GB A100-40GB A100-80GB H100-SXM A40 L40S; do
  grep -q "^$g " <<<"$gpus_out" && ok || bad "list gpus lacks $g"
done
grep -Eq '^A100-80GB +312\.0 +80 +400 +60 +0\.678 +407 +- +0\.566 ' <<<"$gpus_out" && ok || bad "list gpus: A100-80GB's calibrated curve (mfu_max 0.678, half width 407, no attention efficiency of its own, 0.566 at h = 2048): $gpus_out"
grep -Eq '^H100-SXM +989\.0 .* +0\.302 +0\.417 ' <<<"$gpus_out" && ok || bad "list gpus: H100-SXM's attention efficiency 0.302: $gpus_out"
# a scenario without sim.mfu runs on the calibrated efficiencies; an old one with sim.mfu still runs, differently
cal=$("$BIN" run "$BASE" --scheduler bace-pipe --json) && ok || bad "run without sim.mfu"
old=$("$BIN" run "$BASE" --scheduler bace-pipe --json --set sim.mfu=0.4 --set sim.recompute=none --set network.link_efficiency=1) && ok || bad "run with sim.mfu"
[ -n "$cal" ] && [ "$cal" != "$old" ] && ok || bad "sim.mfu = 0.4 gave the calibrated run's output"
# every validation scenario is a valid scenario on its own
for f in "$SRC"/sweeps/validation/*.toml; do expect_rc 0 "validate $(basename "$f")" -- "$BIN" validate "$f"; done
# list params: every parameter path with its type and default (from the schema)
grep -Eq '^network\.bandwidth_scale +number +1 ' <("$BIN" list params) && ok || bad "list params lacks network.bandwidth_scale with default 1"
grep -Eq '^workload\.mix\.<model>\.micro_batches +integer +16 ' <("$BIN" list params) && ok || bad "list params lacks workload.mix.<model>.micro_batches with default 16"
[ "$("$BIN" list params | wc -l)" -eq 103 ] && ok || bad "list params: expected a header and 102 parameters"
expect_rc 2 "list unknown" -- "$BIN" list nonsense
for sub in "" run validate list; do expect_rc 0 "help $sub" -- "$BIN" $sub --help; done

# --- every bad scenario in tests/config/bad: exit 2, message "file:line:col: ..." as expected
for f in "$SRC"/tests/config/bad/*.toml; do
  want=$(head -1 "$f" | sed -n 's/^# expect: //p')
  "$BIN" validate "$f" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  if [ "$rc" -ne 2 ]; then bad "$(basename "$f"): exit $rc"; continue; fi
  # "..." in an expectation stands for any text: every piece must appear, in order.
  python3 - "$tmp/err" "$want" "$f" <<'PY' && ok || bad "$(basename "$f"): '$(cat "$tmp/err")' lacks '$want'"
import sys
err, want, path = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
assert path in err
pos = 0
for piece in (p.strip() for p in want.split("...")):
    i = err.find(piece, pos)
    assert i >= 0, piece
    pos = i + len(piece)
PY
done

# --- hostile input (docs/limits.md): every case returns within the timeout, exit 2, with ONE
# line "geopipe: error: FILE:..." containing the expected text, and writes nothing.
hostile() {  # hostile DESCRIPTION EXPECTED-TEXT -- command...
  local what=$1 want=$2
  shift 3
  timeout 60 "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ "$rc" -ne 2 ]; then bad "$what: exit $rc, expected 2; stderr: $(head -c 300 "$tmp/err")"; return; fi
  if [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! head -1 "$tmp/err" | grep -q '^geopipe: error: '; then
    bad "$what: not one 'geopipe: error:' line: $(head -c 300 "$tmp/err")"
    return
  fi
  grep -qF -- "$want" "$tmp/err" && ok || bad "$what: '$(head -c 300 "$tmp/err")' lacks '$want'"
}
h=$tmp/hostile
mkdir -p "$h"
python3 -c "print('.'.join(['a']*50000) + ' = 1')" >"$h/key.toml"
python3 -c "print('[' + '.'.join(['a']*50000) + ']')" >"$h/header.toml"
python3 -c "print('[[' + '.'.join(['a']*50000) + ']]')" >"$h/aot.toml"
python3 -c "print('x = ' + '[' * 100000)" >"$h/array.toml"
for f in key header aot array; do
  hostile "deep $f" "$h/$f.toml:1:" -- "$BIN" validate "$h/$f.toml"
  grep -qF "expected at most 64" "$tmp/err" && ok || bad "deep $f: no limit named: $(cat "$tmp/err")"
done
printf '[sweep]\nname = "d"\nbase = "%s"\nschedulers = ["bace-pipe"]\nseeds = 1\n[sweep.set]\n%s = 1\n' "$BASE" \
  "$(python3 -c "print('.'.join(['a']*50000))")" >"$h/deep-sweep.toml"
hostile "deep key in a sweep" "deep-sweep.toml:7:" -- "$BIN" sweep "$h/deep-sweep.toml" -o "$h/out.h5" --no-mpi
hostile "deep --set key" "more than 64 parts" -- "$BIN" validate "$BASE" --set "$(python3 -c "print('.'.join(['a']*50000))")=1"
hostile "deep --set value" "expected at most 64" -- "$BIN" validate "$BASE" --set "sim.mfu=$(python3 -c "print('['*100000)")"

mkfifo "$h/fifo"
truncate -s 1G "$h/huge.toml"
printf '[sweep]\nname = "f"\nbase = "%s"\nschedulers = ["bace-pipe"]\nseeds = 1\n' "$h/fifo" >"$h/fifo-base.toml"
printf '[sweep]\nname = "z"\nbase = "/dev/zero"\nschedulers = ["bace-pipe"]\nseeds = 1\n' >"$h/zero-base.toml"
printf '[sweep]\nname = "t"\nbase = "%s"\nschedulers = ["bace-pipe"]\nseeds = 1\n[sweep.set]\n"workload.trace" = "%s"\n' \
  "$BASE" "$h/fifo" >"$h/fifo-trace.toml"
hostile "validate /dev/zero" "/dev/zero: cannot open scenario file: it is not a regular file (a character device)" -- "$BIN" validate /dev/zero
hostile "run /dev/zero" "it is not a regular file" -- "$BIN" run /dev/zero
hostile "sweep /dev/zero" "/dev/zero: cannot open sweep file: it is not a regular file" -- "$BIN" sweep /dev/zero -o "$h/out.h5" --no-mpi
hostile "validate fifo" "cannot open scenario file: it is not a regular file (a FIFO)" -- "$BIN" validate "$h/fifo"
hostile "sweep fifo" "cannot open sweep file: it is not a regular file (a FIFO)" -- "$BIN" sweep "$h/fifo" -o "$h/out.h5" --no-mpi
hostile "fifo base" "fifo-base.toml:3:8: cannot open base scenario" -- "$BIN" sweep "$h/fifo-base.toml" -o "$h/out.h5" --no-mpi
hostile "/dev/zero base" "zero-base.toml:3:8: cannot open base scenario" -- "$BIN" sweep "$h/zero-base.toml" -o "$h/out.h5" --no-mpi
hostile "fifo trace in a sweep" "cannot open trace file" -- "$BIN" sweep "$h/fifo-trace.toml" -o "$h/out.h5" --no-mpi
hostile "fifo trace" "--set: workload.trace: cannot open trace file '$h/fifo': it is not a regular file (a FIFO)" -- \
  "$BIN" run "$BASE" --set "workload.trace=$h/fifo"
hostile "/dev/zero trace" "it is not a regular file (a character device)" -- "$BIN" run "$BASE" --set workload.trace=/dev/zero
hostile "directory" "cannot open scenario file: it is a directory" -- "$BIN" validate "$h"
hostile "huge file" "it is 1073741824 bytes (expected at most 16 MiB)" -- "$BIN" validate "$h/huge.toml"
[ -e "$h/out.h5" ] && bad "a rejected sweep wrote its output" || ok

# NUL in a path, control characters in echoed names, exact integers, a duplicated CSV column.
printf 'arrival_s,model,stages,gpus_per_stage,micro_batch_size,micro_batches,iterations\n0,llama2-7b,0,1,1,16,10\n' >"$h/trace.csv"
sed 's/^\[workload\]$/[workload]\ntrace = "trace.csv\\u0000x"/' "$BASE" >"$h/nul.toml"
hostile "NUL in a trace path" "workload.trace contains U+0000 (NUL), which no text value may" -- "$BIN" validate "$h/nul.toml"
hostile "newline in a name" "unknown preset 'a\\nb'" -- "$BIN" validate "$BASE" --set 'scheduler.preset="a\nb"'
hostile "exact integer" "(got 9223372036854775807)" -- "$BIN" validate "$BASE" --set cluster.region.us-east.gpus=9223372036854775807
printf 'arrival_s,model,stages,gpus_per_stage,micro_batch_size,micro_batches,iterations,model\n0,llama2-7b,0,1,1,16,10,x\n' \
  >"$h/dup.csv"
hostile "duplicate CSV column" "duplicate column 'model' (column 8, already column 2" -- "$BIN" validate "$BASE" --set "workload.trace=$h/dup.csv"

# Out-of-range numbers are refused; the extremes that are accepted give finite metrics.
for s in network.link.us-east/us-west.bandwidth_gbps=1e-308 cluster.region.us-east.price_usd_per_kwh=1e308 \
  network.bandwidth_scale=1e-300 network.link.us-east/us-west.latency_ms=1e200; do
  hostile "out of range $s" "must be" -- "$BIN" run "$BASE" --set "$s"
done
"$BIN" run "$BASE" --json --set workload.num_jobs=20 --set network.bandwidth_scale=1e-6 \
  --set network.link.us-east/us-west.bandwidth_gbps=1e-6 --set cluster.region.us-east.price_usd_per_kwh=1e6 \
  --set network.link.us-east/us-west.latency_ms=1e6 --set cluster.region.us-east.carbon_g_per_kwh=1e6 >"$tmp/x.json"
python3 - "$tmp/x.json" <<'PY' && ok || bad "extreme accepted values give non-finite metrics"
import json, math, sys
for r in json.load(open(sys.argv[1]))["results"]:
    for k, v in r["metrics"].items():
        assert v is not None and math.isfinite(v), (k, v)
PY

# Load time: a 30,000-value axis.
python3 - "$h/long.toml" "$BASE" <<'PY'
import sys
vals = ", ".join(str(1 + i * 1e-4) for i in range(30000))
open(sys.argv[1], "w").write(f'[sweep]\nname = "l"\nbase = "{sys.argv[2]}"\nschedulers = ["bace-pipe"]\nseeds = 1\n'
                             f'[[axis]]\nparam = "network.bandwidth_scale"\nvalues = [{vals}]\n')
PY
expect_rc 0 "30k-value axis loads" -- timeout 120 "$BIN" sweep "$h/long.toml" --dry-run --no-mpi

# Series memory (docs/limits.md, "Input files"): a link series of 2.4 M steps (23 MB, no reverse
# column) named by two links and as a region's price series is held as 16 bytes per step once
# for the links' four directions (and once for the price, plus 8 for its integral): `validate`
# takes 129 MB of RSS and fits in a 250 MB address space (the build before took 377 MB and
# failed with bad_alloc under this limit). The sanitizers reserve terabytes of address space:
# not under them.
if ! ldd "$BIN" 2>&1 | grep -Eq 'lib[at]san'; then
  python3 - "$h/big.csv" "$h/big.toml" "$SRC/tests/config/good/series.toml" <<'PY'
import re, sys
csv, toml, good = sys.argv[1:]
with open(csv, "w") as f:
    f.write("time_s,bandwidth_gbps,usd_per_kwh\n")
    for k in range(0, 2_400_000, 100_000):
        f.write("".join(f"{i},{1 + (i & 1)},{0.1 + 0.1 * (i & 1)}\n" for i in range(k, k + 100_000)))
text = open(good).read()
text = text.replace('bandwidth_trace = "series_bw.csv"', 'bandwidth_trace = "big.csv"')
text = re.sub(r'price_series = "series_price.csv"\nprice_series_column = .*\nprice_series_scale = .*\n',
              'price_series = "big.csv"\n', text)
text = text.replace('carbon_series = "series_carbon.csv"', 'carbon_g_per_kwh = 300').replace('start_utc = "2024-03-01T00:00:00Z"', '')
text = text.replace('[[cluster.region]]\nname = "eu-west"',
                    '[[cluster.region]]\nname = "ap-south"\ngpu = "A100-80GB"\ngpus = 8\nprice_usd_per_kwh = 0.1\n\n'
                    '[[cluster.region]]\nname = "eu-west"', 1)
text = text.replace('[cluster]', '[[network.link]]\nregions = ["ap-south", "us-east"]\nbandwidth_trace = "big.csv"\n'
                    'latency_ms = 40\n\n[cluster]', 1)
open(toml, "w").write(text)
PY
  expect_rc 0 "2.4 M-step series named three times, in 250 MB" -- bash -c "ulimit -v 250000 && exec \"\$0\" validate \"\$1\"" "$BIN" "$h/big.toml"
  rm -f "$h/big.csv"
fi

# A forgiving CLI: misspelt commands, options and presets get a did-you-mean and the choices;
# `list` alone lists its topics; `validate` checks a sweep file too; logs get timestamps.
says() {  # says CODE TEXT DESCRIPTION -- command...: exit CODE and TEXT on stderr or stdout
  local want=$1 text=$2 what=$3
  shift 4
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ "$rc" -eq "$want" ] && grep -qF -- "$text" "$tmp/out" "$tmp/err"; then ok; else
    bad "$what: exit $rc (expected $want), output lacks '$text': $(head -c 300 "$tmp/err" "$tmp/out")"; fi
}
says 2 "unknown command 'swep' (did you mean 'sweep'?) (expected one of 'run'," "misspelt command" -- "$BIN" swep x.toml
says 2 "unknown option '--thread' (did you mean '--threads'?) of 'geopipe sweep'" "misspelt option" -- \
  "$BIN" sweep --thread 2 "$SRC/sweeps/quick.toml"
says 2 "unknown option '--baselin' (did you mean '--baseline'?)" "misspelt summarize option" -- "$BIN" summarize --baselin x y.h5
says 2 "unknown scheduler 'bace_pipe' (did you mean 'bace-pipe'?)" "misspelt preset" -- "$BIN" run "$BASE" -s bace_pipe
says 0 "params    every scenario parameter" "list without a topic" -- "$BIN" list
says 0 "avg_jct_s                  s      mean of finish - arrival" "list metrics" -- "$BIN" list metrics
says 0 "ok: sweep 'quick' (design grid), 12 points x 10 seeds x 4 schedulers = 480 scenarios" "validate a sweep" -- \
  "$BIN" validate "$SRC/sweeps/quick.toml"
says 2 "zip_length_mismatch.toml:15:9: zip[0].axis[1]" "validate a bad sweep" -- \
  "$BIN" validate "$SRC/tests/config/sweeps/bad/zip_length_mismatch.toml"
says 0 "output: /dev/null (it is not a regular file (a character device): it would be refused)" "dry-run output state" -- \
  "$BIN" sweep "$SRC/sweeps/quick.toml" --dry-run -o /dev/null
"$BIN" sweep "$SRC/tests/integration/tiny.toml" -o "$tmp/tiny.h5" --no-mpi --threads 1 2>"$tmp/log" >/dev/null
grep -qE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z progress: 36/36' "$tmp/log" && ok ||
  bad "progress lines in a log have no ISO 8601 UTC time: $(cat "$tmp/log")"

# geopipe plot: the binary runs the Python package's plot command (found in the source tree here)
# summarize --fairness: the fairness columns after the default metrics
expect_rc 0 "summarize --fairness" -- "$BIN" summarize "$tmp/tiny.h5" --fairness --pool
for m in avg_jct_s total_cost_usd max_ftf_rho unfair_fraction jain_fairness jct_lower_bound_s p99_queue_delay_s; do
  grep -q " $m" "$tmp/out" && ok || bad "summarize --fairness lacks $m"
done
expect_rc 0 "plot" -- env MPLBACKEND=Agg "$BIN" plot "$tmp/tiny.h5" --x network.bandwidth_scale --metric avg_jct_s \
  -o "$tmp/fig.png"
/usr/bin/python3 - "$tmp/fig.png" <<'PY' && ok || bad "geopipe plot: not a non-empty PNG image"
import sys
import matplotlib.image as mpimg
img = mpimg.imread(sys.argv[1])
assert img.ndim == 3 and img.shape[0] > 200 and img.shape[1] > 300, img.shape
assert len({tuple(p) for p in img.reshape(-1, img.shape[2])[::97]}) > 5, "a blank image"
PY
says 2 "geopipe plot: error: unknown axis 'nope'" "plot: unknown axis" -- "$BIN" plot "$tmp/tiny.h5" --x nope -o "$tmp/x.png"

# --- two executables: geopipe runs run, validate and list without MPI, oneTBB or HDF5 (a fast
# start) and hands every other command to geopipe-full beside it (docs/design.md, "Layers")
# (ldd's output is kept first: `ldd | grep -q` fails under pipefail when grep stops reading early;
# of a static executable ldd says "not a dynamic executable" and exits 1)
front_libs=$(ldd "$BIN" 2>&1)
full_libs=$(ldd "$(dirname "$BIN")/geopipe-full")
if grep -Eq 'libmpi|libhdf5|libtbb' <<<"$front_libs"; then bad "geopipe links MPI, HDF5 or oneTBB: $(grep -E 'libmpi|libhdf5|libtbb' <<<"$front_libs" | tr '\n' ' ')"; else ok; fi
# geopipe-full loads Open MPI only in a process that uses it (under mpirun or srun), from the
# module geopipe-mpi.so beside it (run/mpi_api.h): a sweep without mpirun never loads the module,
# and one whose environment says mpirun launched it, but which cannot load it, is refused (exit 2).
if grep -q libmpi <<<"$full_libs"; then bad "geopipe-full links MPI (expected it only in geopipe-mpi.so)"; else ok; fi
mpi_libs=$(ldd "$(dirname "$BIN")/geopipe-mpi.so")
grep -q libmpi <<<"$mpi_libs" && ok || bad "geopipe-mpi.so does not link MPI"
expect_rc 0 "a sweep without mpirun loads no MPI module" -- \
  env GEOPIPE_MPI_MODULE=/nonexistent/geopipe-mpi.so "$BIN" sweep "$SRC/sweeps/quick.toml" --dry-run
says 2 "geopipe-mpi.so: geopipe's MPI module cannot be loaded, and a sweep under mpirun or srun needs it" \
  "a sweep under mpirun without its MPI module" -- \
  env OMPI_COMM_WORLD_SIZE=1 GEOPIPE_MPI_MODULE=/nonexistent/geopipe-mpi.so "$BIN" sweep "$SRC/sweeps/quick.toml" --dry-run
# a module path naming a FIFO (dlopen would block on it for ever) or a directory is refused
mkfifo "$tmp/mpi.fifo" && mkdir -p "$tmp/mpi.dir"
for m in "$tmp/mpi.fifo" "$tmp/mpi.dir"; do
  says 2 "$m: not a regular file" "GEOPIPE_MPI_MODULE names $(basename "$m")" -- \
    timeout 20 env OMPI_COMM_WORLD_SIZE=1 GEOPIPE_MPI_MODULE="$m" "$BIN" sweep "$SRC/sweeps/quick.toml" --dry-run
done
# ... and, as GEOPIPE_FRONT_END_LINK says, no shared library at all (no program interpreter: the
# kernel starts it without the dynamic loader) or none but libc's (no libstdc++, toml++ or fmt
# symbols to resolve): docs/performance.md, "Process start, third step".
front_headers=$(readelf --program-headers --dynamic "$BIN" 2>&1)
case "$FRONT_LINK" in
  static)
    if grep -Eq 'INTERP|NEEDED' <<<"$front_headers"; then
      bad "geopipe is not a static executable: $(grep -E 'INTERP|NEEDED' <<<"$front_headers" | tr -s ' ' | tr '\n' ' ')"
    else ok; fi ;;
  static-libstdc++)
    if grep -Eq 'libstdc\+\+|libtomlplusplus|libfmt|libgcc_s' <<<"$front_libs"; then
      bad "geopipe links shared libraries beyond libc's: $(grep -Eo 'lib(stdc\+\+|tomlplusplus|fmt|gcc_s)[^ ]*' <<<"$front_libs" | tr '\n' ' ')"
    else ok; fi ;;
  shared) ;;
  *) bad "unknown front-end link mode '$FRONT_LINK'" ;;
esac
expect_rc 0 "help through geopipe-full" -- "$BIN" --help
for c in run validate list sweep merge summarize analyze plot trace; do
  grep -q "^  $c" "$tmp/out" && ok || bad "geopipe --help lacks the command $c"
done
expect_rc 0 "version" -- "$BIN" --version
[ "$(cat "$tmp/out")" = "$("$(dirname "$BIN")/geopipe-full" --version)" ] && ok || bad "the two executables report different versions"
mkdir -p "$tmp/alone" && cp "$BIN" "$tmp/alone/geopipe"
says 2 "geopipe-full, which must be in the directory of geopipe" "front end without geopipe-full" -- "$tmp/alone/geopipe" summarize "$tmp/tiny.h5"
expect_rc 0 "front end alone still runs" -- "$tmp/alone/geopipe" run "$BASE" --scheduler bace-pipe --set workload.num_jobs=20

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
