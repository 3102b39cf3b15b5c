#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz, clang-14, build-fuzz/) and fuzzes each for a bounded
# time (docs/design.md, "Tests").
#
#   scripts/fuzz.sh [scenario|sweep|trace|points|trace_import|toml_comments|all] [SECONDS]     default: all 60
#   FUZZ_SEED=N scripts/fuzz.sh ...                          one process from seed N (CI)
#
# For each target: first every file of tests/fuzz/regressions/<target>/ runs once (a file that
# still crashes is a finding); then libFuzzer runs for SECONDS on a seed corpus collected at run
# time from the shipped scenarios, sweeps and traces (plus the regressions that pass), with one
# worker (-fork=1 -ignore_crashes=1: it keeps going after a crash, so one run reports every
# distinct crash it meets, not only the first). Exit 0: no finding; 1: findings, each printed
# with its reproducer (kept in build-fuzz/fuzz-out/<target>/) and its first lines.
#
# A reproducer becomes a regression by copying it (minimised first:
#   build-fuzz/tests/fuzz/fuzz_<target> -minimize_crash=1 -max_total_time=60 -exact_artifact_path=F CRASH)
# into tests/fuzz/regressions/<target>/; the ctest fuzz.replay.<target> (every build) and
# fuzz.regressions.<target> (build-fuzz) then run it.
#
# Environment: CC/CXX (default clang-14/clang++-14, used when build-fuzz/ is first configured);
# CMAKE_CXX_COMPILER_LAUNCHER=ccache is honoured by CMake.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
which=${1:-all}
seconds=${2:-60}
case "$which" in
  all) targets=(scenario sweep trace points trace_import toml_comments) ;;
  scenario|sweep|trace|points|trace_import|toml_comments) targets=("$which") ;;
  *) echo "usage: $0 [scenario|sweep|trace|points|trace_import|toml_comments|all] [SECONDS]" >&2; exit 2 ;;
esac
[[ "$seconds" =~ ^[0-9]+$ ]] || { echo "fuzz.sh: SECONDS must be a whole number, got '$seconds'" >&2; exit 2; }

build=build-fuzz
if [ ! -f "$build/CMakeCache.txt" ]; then
  # -O1 with line tables: builds faster than -O2 -g, runs about as fast under ASan, and keeps
  # assert() and file:line in the stacks.
  CC=${CC:-clang-14} CXX=${CXX:-clang++-14} cmake -S . -B "$build" -G Ninja -DGEOPIPE_FUZZ=ON -DGEOPIPE_BUILD_TESTS=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" >/dev/null
fi
build_start=$(date +%s)
cmake --build "$build" -j2 --target "${targets[@]/#/fuzz_}"
echo "== fuzz: build $(( $(date +%s) - build_start ))s"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# libFuzzer's fork-mode files and fuzz_sweep's input trees go there too, even after a crash.
mkdir -p "$work/tmp"
export TMPDIR=$work/tmp
# Memory and time per input; a generated input is at most 64 KiB (-max_len also truncates a file
# given as an argument, so the regressions, which may be longer, run without it).
limits=(-timeout=10 -rss_limit_mb=2048)
opts=(-max_len=65536 "${limits[@]}")
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

# seeds TARGET DIR: the seed corpus of a target, from the files the repository ships.
seeds() {
  local t=$1 dir=$2 f
  mkdir -p "$dir"
  case "$t" in
    scenario)
      # Byte 0 of an input says how many --set lines follow and which canned override applies
      # (tests/fuzz/fuzz_scenario.cpp); 0 = none.
      for f in tests/config/good/*.toml tests/config/bad/*.toml sweeps/base/*.toml tests/config/sweeps/base/*.toml; do
        { printf '\0'; cat "$f"; } >"$dir/$(basename "$(dirname "$f")")-$(basename "$f")"
      done
      { printf '\005'; cat tests/config/good/small.toml; } >"$dir/canned-small.toml"
      { printf '\001network.bandwidth_scale=0.5\n'; cat tests/config/good/small.toml; } >"$dir/set1-small.toml"
      { printf '\002cluster.region.us-east.gpus=4\nworkload.num_jobs=2\n'; cat tests/config/good/small.toml; } >"$dir/set2-small.toml"
      { printf '\001workload.mix[0].weight=2\n'; cat tests/config/good/trace.toml; } >"$dir/set1-trace.toml"
      ;;
    sweep)
      # Not sweeps/bench/: their million-scenario sweeps are slow to validate.
      for f in sweeps/*.toml sweeps/paper/*.toml sweeps/studies/*.toml tests/integration/*.toml tests/config/sweeps/good/*.toml tests/config/sweeps/bad/*.toml; do
        cp "$f" "$dir/$(basename "$(dirname "$f")")-$(basename "$f")"
      done
      ;;
    trace)
      # Traces and time series (fuzz_trace.cpp reads each input with both readers).
      for f in tests/config/good/*.csv tests/config/bad/*.csv sweeps/real/*.csv; do
        cp "$f" "$dir/$(basename "$(dirname "$f")")-$(basename "$f")"
      done
      ;;
    trace_import)
      # Byte 0 of an input picks the format (0 philly, 1 helios/acme, 2 alibaba-2023, 3 a shape
      # table) and options (tests/fuzz/fuzz_trace_import.cpp): each sample plain and with every
      # option bit set.
      for f in tests/cli/trace_import/*.csv; do
        case "$(basename "$f")" in
          philly*) b=0 ;;
          helios*|acme*) b=1 ;;
          alibaba*) b=2 ;;
          *) b=3 ;;
        esac
        { printf "\\$(printf '%03o' "$b")"; cat "$f"; } >"$dir/$(basename "$f")"
        [ "$b" -eq 3 ] || { printf "\\$(printf '%03o' $((b + 252)))"; cat "$f"; } >"$dir/all-options-$(basename "$f")"
      done
      ;;
    toml_comments)
      # Every TOML file the repository ships or tests with, commented or not.
      for f in tests/config/good/*.toml tests/config/bad/*.toml sweeps/*.toml sweeps/base/*.toml sweeps/paper/*.toml \
        tests/config/sweeps/good/*.toml tests/config/sweeps/bad/*.toml; do
        cp "$f" "$dir/$(basename "$(dirname "$f")")-$(basename "$f")"
      done
      ;;
    points)
      printf 'network.bandwidth_scale,workload.load_scale,cluster.region.us-east.gpu\r\n0.5,1,"H100-SXM"\r\n2, 1.5 ,A100-80GB\r\n' \
        >"$dir/points.csv"
      for f in tests/config/good/*.csv; do
        cp "$f" "$dir/trace-$(basename "$f")"
      done
      ;;
  esac
}

# show FILE: a reproducer's path and its first lines.
show() {
  echo "  reproducer: $1 ($(wc -c <"$1") bytes); first lines:"
  head -c 600 "$1" | head -n 8 | cat -v | awk '{ print "    | " $0 }'
}

findings=0
for t in "${targets[@]}"; do
  exe=$build/tests/fuzz/fuzz_$t
  out=$build/fuzz-out/$t
  mkdir -p "$out" "$work/$t/corpus"
  seeds "$t" "$work/$t/seeds"

  echo "== fuzz $t: regressions"
  for f in tests/fuzz/regressions/"$t"/*; do
    [ -f "$f" ] || continue
    if "$exe" "${limits[@]}" -artifact_prefix="$work/$t/" "$f" >"$work/$t/replay.log" 2>&1; then
      cp "$f" "$work/$t/seeds/regression-$(basename "$f")"
    else
      findings=$((findings + 1))
      echo "FINDING: fuzz_$t: regression still fails: $f"
      grep -E -m 3 "ERROR: |runtime error|SUMMARY|FINDING|Assertion" "$work/$t/replay.log" | sed 's/^/  /' || true
      show "$f"
    fi
  done

  echo "== fuzz $t: ${seconds}s on $(ls "$work/$t/seeds" | wc -l) seeds"
  touch "$work/$t/start"
  start=$(date +%s)
  # FUZZ_SEED=N (CI): one process from a fixed seed, so the inputs tried are always the same
  # sequence and a shorter run tries a prefix of a longer one: the gate is reproducible (a
  # longer run with the same seed, done before landing, covers what CI tries). Unset: fork mode
  # from a random seed, exploring anew each time.
  if [ -n "${FUZZ_SEED:-}" ]; then mode=(-seed="$FUZZ_SEED"); else mode=(-fork=1 -ignore_crashes=1); fi
  "$exe" "${opts[@]}" "${mode[@]}" -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix="$out/" "$work/$t/corpus" "$work/$t/seeds" >"$work/$t/fuzz.log" 2>&1 || true
  end=$(date +%s)
  # Fork mode prints a line per job, "#EXECS: cov: N ... time: Ts ..."; the last has the totals.
  # One process prints "#EXECS<TAB>DONE   cov: N ... exec/s: R ..." at the end.
  last=$(grep -E '^#[0-9]+: cov: ' "$work/$t/fuzz.log" | tail -n 1 || true)
  done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE ' "$work/$t/fuzz.log" | tail -n 1 || true)
  if [[ "$done_line" =~ ^#([0-9]+)[[:space:]]+DONE[[:space:]]+cov:\ ([0-9]+).*exec/s:\ ([0-9]+) ]]; then
    echo "   $((end - start))s: ${BASH_REMATCH[1]} runs (seed $FUZZ_SEED), ${BASH_REMATCH[3]} exec/s," \
         "coverage ${BASH_REMATCH[2]}, $(ls "$work/$t/corpus" | wc -l) new corpus inputs"
  elif [[ "$last" =~ ^#([0-9]+):\ cov:\ ([0-9]+).*\ time:\ ([0-9]+)s ]] && [ "${BASH_REMATCH[3]}" -gt 0 ]; then
    echo "   $((end - start))s: ${BASH_REMATCH[1]} runs, $((BASH_REMATCH[1] / BASH_REMATCH[3])) exec/s," \
         "coverage ${BASH_REMATCH[2]}, $(ls "$work/$t/corpus" | wc -l) new corpus inputs"
  else
    echo "   $((end - start))s (no statistics; the log's last lines:)"
    tail -n 5 "$work/$t/fuzz.log" | sed 's/^/   | /'
  fi
  # The new reproducers (crash-*, oom-*, timeout-*, leak-*), grouped by what they trigger (the
  # first sanitizer, assertion or exception line of a replay), smallest first: one bug found
  # many times is reported once, with its smallest reproducer and a count.
  declare -A first=() count=()
  while IFS= read -r f; do
    sig=$("$exe" "${opts[@]}" -artifact_prefix="$work/$t/" "$f" 2>&1 \
            | grep -E -m 1 "runtime error|Assertion|ERROR: AddressSanitizer|ERROR: LeakSanitizer|ERROR: libFuzzer|FINDING" \
            | sed -E 's/==[0-9]+==//g; s/0x[0-9a-f]+/0x.../g' || true)
    sig=${sig:-"$(basename "$f" | cut -d- -f1) (no report on replay)"}
    count[$sig]=$(( ${count[$sig]:-0} + 1 ))
    [ -n "${first[$sig]:-}" ] || first[$sig]=$f
  done < <(find "$out" -type f -newer "$work/$t/start" -printf '%s %p\n' | sort -n | cut -d' ' -f2-)
  for sig in "${!first[@]}"; do
    findings=$((findings + 1))
    echo "FINDING: fuzz_$t (${count[$sig]} reproducer(s)): $sig"
    show "${first[$sig]}"
    echo "  replay: $exe ${first[$sig]}"
  done
  unset first count
done
if [ "$findings" -gt 0 ]; then
  echo "fuzz.sh: $findings finding(s)" >&2
  exit 1
fi
echo "fuzz.sh: no findings"
