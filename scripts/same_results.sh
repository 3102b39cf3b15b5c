#!/usr/bin/env bash
# Do two versions of geopipe compute the same numbers? For changes that must not change results
# (performance work): runs every sweep of sweeps/paper (realism/ included: the only sweeps with
# the balanced split, 1F1B and egress), sweeps/quick.toml and sweeps/bench/throughput.toml with --save-jobs, and `geopipe run --scheduler all` with 5000
# jobs, with both versions, and compares /scenarios (the scenario keys that resume and merge
# match by, and the axis values), /metrics, /jobs and the run's metrics bit for bit,
# leaving out what may differ by design: wall-clock columns and the search-effort counters
# (sched_searches, sched_search_nodes). Columns that only one version writes (a metric or a
# per-job column added since OLD) are listed, not compared.
#   scripts/same_results.sh OLD [NEW]
# OLD, NEW: a geopipe binary, or a git revision (built in a temporary worktree, ~2 min).
# NEW defaults to build/src/geopipe. Exit 0: identical; 1: some output differs; 2: usage.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { sed -n '2,12p' "$0" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/src-old" 2>/dev/null || true; git worktree remove --force "$tmp/src-new" 2>/dev/null || true; rm -rf "$tmp"' EXIT

binary_of() {  # name, binary-or-revision -> prints the binary path
  if [ -x "$2" ] && [ -f "$2" ]; then readlink -f "$2"; return; fi
  git rev-parse --verify -q "$2^{commit}" >/dev/null || { echo "not a binary or revision: $2" >&2; exit 2; }
  echo "building $2 ..." >&2
  git worktree add -q --detach "$tmp/src-$1" "$2"
  cmake -S "$tmp/src-$1" -B "$tmp/build-$1" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$tmp/build-$1" --target geopipe >/dev/null
  echo "$tmp/build-$1/src/geopipe"
}
old=$(binary_of old "$1")
new=$(binary_of new "${2:-build/src/geopipe}")

for side in old new; do
  bin=$old
  [ "$side" = new ] && bin=$new
  mkdir -p "$tmp/$side"
  for f in sweeps/paper/*.toml sweeps/paper/realism/*.toml sweeps/quick.toml sweeps/bench/throughput.toml; do
    "$bin" sweep "$f" -o "$tmp/$side/$(basename "$f" .toml).h5" --save-jobs --quiet --threads 2 --no-mpi
  done
  "$bin" run sweeps/base/six-regions.toml --scheduler all --set workload.num_jobs=5000 --json >"$tmp/$side/run5000.json"
done

/usr/bin/python3 - "$tmp" <<'PY'
import glob, json, os, sys
import h5py
import numpy as np
from numpy.lib import recfunctions
tmp = sys.argv[1]
skip = {"wall_s", "sched_time_total_s", "sched_time_max_s", "sched_searches", "sched_search_nodes"}
bad = 0
def common(a, b):
    """Columns both versions write, minus the skipped ones; columns only one writes are listed."""
    na, nb = a.dtype.names, b.dtype.names
    only = [f"-{n}" for n in na if n not in nb] + [f"+{n}" for n in nb if n not in na]
    names = [n for n in na if n in nb and n not in skip]
    return names, only
def pick(d, names):
    return recfunctions.repack_fields(d[names])
for old in sorted(glob.glob(os.path.join(tmp, "old", "*.h5"))):
    name = os.path.basename(old)
    with h5py.File(old, "r") as a, h5py.File(os.path.join(tmp, "new", name), "r") as b:
        for g in ("scenarios", "metrics", "jobs"):
            da, db = a[g][...], b[g][...]
            names, only = common(da, db)
            x, y = pick(da, names), pick(db, names)
            # Numbers bit for bit; texts by value (a column's width may change between versions).
            same = x.shape == y.shape
            widths = []
            for n in names if same else []:
                ca, cb = x[n], y[n]
                if ca.dtype.kind == "S" and cb.dtype.kind == "S":
                    same = same and bool(np.array_equal(ca, cb))
                    if ca.dtype != cb.dtype:
                        widths.append(f"{n} {ca.dtype.itemsize}->{cb.dtype.itemsize} bytes")
                else:
                    same = same and ca.dtype == cb.dtype and ca.tobytes() == cb.tobytes()
            bad += not same
            extra = f"  (columns only in one version: {' '.join(only)})" if only else ""
            extra += f"  (text widths: {', '.join(widths)})" if widths else ""
            print(f"{name:24s} /{g:8s} {x.shape[0]:7d} rows  {'IDENTICAL' if same else 'DIFFERENT'}{extra}")
runs = [json.load(open(os.path.join(tmp, s, "run5000.json")))["results"] for s in ("old", "new")]
for ra, rb in zip(*runs):
    keys = [k for k in ra["metrics"] if k in rb["metrics"] and k not in skip]
    only = sorted(set(ra["metrics"]) ^ set(rb["metrics"]))
    same = ra["scheduler"] == rb["scheduler"] and all(ra["metrics"][k] == rb["metrics"][k] for k in keys)
    bad += not same
    extra = f"  (metrics only in one version: {' '.join(only)})" if only else ""
    print(f"run 5000 jobs {ra['scheduler']:19s} {'IDENTICAL' if same else 'DIFFERENT'}{extra}")
sys.exit(1 if bad else 0)
PY
