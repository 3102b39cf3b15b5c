#!/usr/bin/env bash
# Builds the tests with sanitizers and runs them.
#   scripts/sanitize.sh          ASan + UBSan  (build-asan/)
#   scripts/sanitize.sh tsan     ThreadSanitizer (build-tsan/)
#   scripts/sanitize.sh all      both
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-asan}
run() {
  local dir=$1 san=$2
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DGEOPIPE_SANITIZE="$san" >/dev/null
  cmake --build "$dir" -j2
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 TSAN_OPTIONS=halt_on_error=1 \
    ctest --test-dir "$dir" --output-on-failure -j2
}
case "$mode" in
  asan) run build-asan address,undefined ;;
  tsan) run build-tsan thread ;;
  all) run build-asan address,undefined; run build-tsan thread ;;
  *) echo "usage: $0 [asan|tsan|all]" >&2; exit 2 ;;
esac
