#!/usr/bin/python3
"""Helpers for the Slurm drills (run with /usr/bin/python3, which has h5py).

  h5check.py count FILE            -> prints "<valid metrics rows> <complete attr>"
  h5check.py compare REF OUT NAME  -> compares /metrics of OUT with the uninterrupted REF:
      valid rows sorted by id, no duplicate ids, same id set, every column bit-identical
      except the wall-clock ones; /errors empty. Prints the counts; exit 1 on any difference.
"""
import sys
import numpy as np
import h5py

WALL = {"sched_time_total_s", "sched_time_max_s", "wall_s"}


def load(path):
    try:
        f = h5py.File(path, "r", swmr=True)
    except OSError:
        f = h5py.File(path, "r")
    with f:
        m = f["metrics"][:]
        errs = len(f["errors"]) if "errors" in f else 0
        complete = int(f.attrs.get("complete", 0))
    if "status" in m.dtype.names:
        m = m[(m["id"] >= 0) & (m["status"] == 1)]
    else:
        m = m[m["id"] >= 0]
    return m, errs, complete


def main():
    if sys.argv[1] == "count":
        m, errs, complete = load(sys.argv[2])
        print(len(m), complete)
        return 0
    ref, ref_err, _ = load(sys.argv[2])
    out, out_err, out_complete = load(sys.argv[3])
    name = sys.argv[4] if len(sys.argv) > 4 else "drill"
    problems = []
    ids = out["id"]
    dup = len(ids) - len(np.unique(ids))
    if dup:
        problems.append(f"{dup} duplicate ids")
    missing = np.setdiff1d(ref["id"], ids)
    extra = np.setdiff1d(ids, ref["id"])
    if len(missing):
        problems.append(f"{len(missing)} ids missing (first {missing[:5].tolist()})")
    if len(extra):
        problems.append(f"{len(extra)} unexpected ids")
    if ref_err or out_err:
        problems.append(f"/errors rows: ref {ref_err}, out {out_err}")
    if not out_complete:
        problems.append("output not marked complete")
    cols = [c for c in ref.dtype.names if c not in WALL]
    if set(cols) - set(out.dtype.names):
        problems.append(f"columns missing: {sorted(set(cols) - set(out.dtype.names))}")
    differing = []
    if not problems:
        r = np.sort(ref, order="id")
        o = np.sort(out, order="id")
        for c in cols:
            a, b = r[c], o[c]
            same = (a.tobytes() == b.tobytes()) if a.dtype == b.dtype else False
            if not same:
                differing.append(c)
        if differing:
            problems.append(f"columns differ: {differing}")
    print(f"{name}: compared {len(out)} scenario rows of the final file with {len(ref)} rows of "
          f"the uninterrupted run ({len(cols)} columns, wall-clock columns excluded): "
          f"{len(np.intersect1d(ref['id'], ids))} ids in both, duplicates {dup}, "
          f"missing {len(missing)}, extra {len(extra)} -> "
          + ("IDENTICAL" if not problems else "DIFFERENT: " + "; ".join(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
