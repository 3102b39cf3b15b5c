#!/usr/bin/env bash
# Hostile command-line values and outputs: every bad flag value is one error line
# "geopipe: error: --flag: ..." with exit 2 and nothing written; an output never replaces an
# input; a failed write is an error, not exit 0. (docs/limits.md, "Resource flags")
# Usage: test_flags.sh GEOPIPE_BINARY SOURCE_DIR
set -uo pipefail
BIN=$1
SRC=$(cd "$2" && pwd)
SCEN=$SRC/tests/config/good/small.toml
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# A sweep whose base is an absolute path, so that it can live in $tmp.
sed "s|^base = \"[^\"]*\"|base = \"$SRC/sweeps/base/six-regions.toml\"|" "$SRC/sweeps/quick.toml" >"$tmp/study.toml"

# rejected CODE FLAG_TEXT -- command...: exit CODE, exactly one stderr line, which starts with
# "geopipe: error: " and names FLAG_TEXT; nothing appears in $tmp/out.h5.
rejected() {
  local want=$1 flag=$2
  shift 3
  rm -f "$tmp/out.h5"
  timeout 60 "$@" >"$tmp/stdout" 2>"$tmp/err"
  local rc=$?
  local lines
  lines=$(wc -l <"$tmp/err")
  if [ "$rc" -ne "$want" ]; then bad "$*: exit $rc, expected $want; stderr: $(head -c 300 "$tmp/err")"; return; fi
  if [ "$lines" -ne 1 ]; then bad "$*: $lines stderr lines, expected one: $(head -c 300 "$tmp/err")"; return; fi
  if ! grep -q "^geopipe: error: .*$flag" "$tmp/err"; then bad "$*: message lacks 'geopipe: error:' or '$flag': $(cat "$tmp/err")"; return; fi
  if [ -e "$tmp/out.h5" ]; then bad "$*: wrote $tmp/out.h5"; return; fi
  ok
}

# --- integers: no sign, no wrap-around, no clamping
rejected 2 "--seed" -- "$BIN" run "$SCEN" --seed -1
rejected 2 "--seed" -- "$BIN" run "$SCEN" --seed 18446744073709551616
rejected 2 "--seed" -- "$BIN" run "$SCEN" --seed 1e3
rejected 2 "--seed" -- "$BIN" run "$SCEN" --seed ""
rejected 2 "--seed" -- "$BIN" run "$SCEN" --seed " 7"
"$BIN" run "$SCEN" --seed 18446744073709551615 --json >"$tmp/max.json" 2>"$tmp/err" && grep -q '"seed": 18446744073709551615' "$tmp/max.json" &&
  ok || bad "--seed 2^64-1 is a valid seed: $(cat "$tmp/err")"
rejected 2 "--threads" -- "$BIN" sweep "$tmp/study.toml" -o "$tmp/out.h5" --threads 100000
rejected 2 "--threads" -- "$BIN" sweep "$tmp/study.toml" -o "$tmp/out.h5" --threads -2
rejected 2 "--threads" -- "$BIN" sweep "$tmp/study.toml" -o "$tmp/out.h5" --threads 1025
for s in 0/-1 "" 1/1 /4 0/ 2/0 a/b 0/4x 0/18446744073709551616; do
  rejected 2 "--shard" -- "$BIN" sweep "$tmp/study.toml" -o "$tmp/out.h5" --shard "$s"
done

# --- intervals: finite, positive, at most a day
for v in nan inf -1 0 1e300 1e-400x ""; do
  rejected 2 "--progress-interval" -- "$BIN" sweep "$tmp/study.toml" -o "$tmp/out.h5" --progress-interval "$v"
  rejected 2 "--flush-interval" -- "$BIN" sweep "$tmp/study.toml" -o "$tmp/out.h5" --flush-interval "$v"
done

# --- empty names are never "the default"
rejected 2 "--scheduler" -- "$BIN" run "$SCEN" --scheduler ""
rejected 2 "--scheduler" -- "$BIN" run "$SCEN" --scheduler "bace-pipe,"
"$BIN" sweep "$tmp/study.toml" -o "$tmp/ok.h5" --force -q --threads 1 >/dev/null 2>&1 || bad "small sweep for summarize"  # one thread: TSan-clean (scripts/sanitize.sh)
rejected 2 "--baseline" -- "$BIN" summarize "$tmp/ok.h5" --baseline ""
rejected 2 "--metric" -- "$BIN" summarize "$tmp/ok.h5" --metric ""
rejected 2 "--by" -- "$BIN" summarize "$tmp/ok.h5" --by ""
rejected 2 "-o" -- "$BIN" merge "$tmp/ok.h5" -o ""
# every option of every command: an empty value is an error, never the default or "not given"
rejected 2 "--scheduler: an empty value" -- "$BIN" analyze sobol "$tmp/ok.h5" --scheduler ""
rejected 2 "--paired-vs: an empty value" -- "$BIN" analyze sobol "$tmp/ok.h5" --paired-vs ""
rejected 2 "--metric: an empty value" -- "$BIN" analyze sobol "$tmp/ok.h5" --metric ""
rejected 2 "--jobs-csv: an empty value" -- "$BIN" run "$SCEN" --jobs-csv ""
rejected 2 "--output: an empty value" -- "$BIN" sweep "$tmp/study.toml" -o ""
rejected 2 "--name: an empty value" -- "$BIN" sweep --base "$SCEN" --axis sim.mfu=0.3 --name "" -o "$tmp/out.h5"
rejected 2 "--set: an empty value" -- "$BIN" validate "$SCEN" --set ""
# an unknown metric lists the known ones, and never suggests itself
rejected 2 "--metric" -- "$BIN" summarize "$tmp/ok.h5" --metric id
grep -q "did you mean 'id'" "$tmp/err" && bad "suggests the unknown word itself: $(cat "$tmp/err")" || ok
grep -q "expected one of: .*'avg_jct_s'" "$tmp/err" && ok || bad "unknown metric without the list: $(cat "$tmp/err")"

# --- parser errors: one line with the prefix, for typos of commands and flags
rejected 2 "unknown command 'swep' (did you mean 'sweep'?)" -- "$BIN" swep
rejected 2 "--thread" -- "$BIN" sweep "$tmp/study.toml" --thread 2
rejected 2 "what: nope not in" -- "$BIN" list nope

# --- a newline in an echoed value stays on one line (escaped)
rejected 2 'a\\nb' -- "$BIN" run "$SCEN" --scheduler $'a\nb'

# ... and so are the reports that echo a scenario name (validate's ok line, run's table)
sed 's/^name = "small"/name = "sm\\nall"/' "$SCEN" >"$tmp/nl.toml"
"$BIN" validate "$tmp/nl.toml" >"$tmp/stdout" 2>&1 && [ "$(wc -l <"$tmp/stdout")" -eq 1 ] && grep -qF "'sm\\nall'" "$tmp/stdout" &&
  ok || bad "validate's ok line with a newline in the name: $(cat "$tmp/stdout")"
"$BIN" run "$tmp/nl.toml" >"$tmp/stdout" 2>&1 && head -1 "$tmp/stdout" | grep -q '^scenario sm\\nall ' &&
  ok || bad "run's table header with a newline in the name: $(head -2 "$tmp/stdout")"

# --- an output never replaces an input, even with --force
cp "$tmp/study.toml" "$tmp/study.keep"
rejected 2 "-o" -- "$BIN" sweep "$tmp/study.toml" -o "$tmp/study.toml" --force
cmp -s "$tmp/study.toml" "$tmp/study.keep" && ok || bad "sweep -o SWEEP --force changed the sweep file"
cp "$SRC/sweeps/base/six-regions.toml" "$tmp/base.toml"
sed "s|^base = \"[^\"]*\"|base = \"base.toml\"|" "$SRC/sweeps/quick.toml" >"$tmp/local.toml"
ln -s base.toml "$tmp/alias.toml"
rejected 2 "-o" -- "$BIN" sweep "$tmp/local.toml" -o "$tmp/alias.toml" --force
cmp -s "$tmp/base.toml" "$SRC/sweeps/base/six-regions.toml" && ok || bad "sweep -o BASE (via a link) --force changed the base"
cp "$SCEN" "$tmp/scen.toml"
rejected 2 "--jobs-csv" -- "$BIN" run "$tmp/scen.toml" --jobs-csv "$tmp/scen.toml"
cmp -s "$tmp/scen.toml" "$SCEN" && ok || bad "run --jobs-csv SCENARIO changed the scenario"

# ... nor a trace file that a scenario or a sweep point reads
cp "$SRC/tests/config/good/trace.toml" "$SRC/tests/config/good/trace.csv" "$tmp/"
cp "$tmp/trace.csv" "$tmp/trace.keep"
rejected 2 "--jobs-csv" -- "$BIN" run "$tmp/trace.toml" --jobs-csv "$tmp/trace.csv"
cmp -s "$tmp/trace.csv" "$tmp/trace.keep" && ok || bad "run --jobs-csv TRACE changed the trace"
cat >"$tmp/trace-sweep.toml" <<TOML
[sweep]
name = "t"
base = "trace.toml"
schedulers = ["first-fit"]
seeds = 1
TOML
rejected 2 "-o" -- "$BIN" sweep "$tmp/trace-sweep.toml" -o "$tmp/trace.csv" --force
cmp -s "$tmp/trace.csv" "$tmp/trace.keep" && ok || bad "sweep -o TRACE --force changed the trace"

# --- result files that are not regular files: an error at once, never a blocked open or a
# removed FIFO (a device as -o --force is the same check; not tried here, so that a regression
# could not remove one)
mkfifo "$tmp/pipe.h5"
rejected 2 "FIFO" -- "$BIN" summarize "$tmp/pipe.h5"
rejected 2 "FIFO" -- "$BIN" merge "$tmp/pipe.h5" "$tmp/ok.h5" -o "$tmp/out.h5"
rejected 2 "FIFO" -- "$BIN" sweep "$tmp/study.toml" -o "$tmp/pipe.h5" --resume
rejected 2 "FIFO" -- "$BIN" sweep "$tmp/study.toml" -o "$tmp/pipe.h5" --force
[ -p "$tmp/pipe.h5" ] && [ ! -e "$tmp/pipe.h5.lock" ] && ok || bad "the FIFO was replaced or got a lock file"
rejected 2 "directory" -- "$BIN" summarize "$tmp"

# --- write errors are errors
if [ -w /dev/full ]; then
  rejected 2 "/dev/full" -- "$BIN" run "$SCEN" --jobs-csv /dev/full
  timeout 60 "$BIN" run "$SCEN" --json >/dev/full 2>"$tmp/err"
  rc=$?
  [ "$rc" -eq 2 ] && grep -q "^geopipe: error: cannot write to standard output" "$tmp/err" && ok ||
    bad "run --json >/dev/full: exit $rc: $(cat "$tmp/err")"
  timeout 60 "$BIN" list presets >/dev/full 2>"$tmp/err"
  [ $? -eq 2 ] && ok || bad "list >/dev/full: exit 0"
  # (the front end answers a lone --version itself, without CLI11: cli/main.cpp)
  timeout 60 "$BIN" --version >/dev/full 2>"$tmp/err"
  rc=$?
  [ "$rc" -eq 2 ] && grep -q "^geopipe: error: cannot write to standard output" "$tmp/err" && ok ||
    bad "--version >/dev/full: exit $rc: $(cat "$tmp/err")"
fi

echo "test_flags: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
