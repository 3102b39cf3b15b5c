#!/usr/bin/python3
"""A SkyPilot spot availability trace as a geopipe `gpus_series` CSV (docs/scenario-format.md,
"Time series").

    scripts/spot_trace_csv.py TRACE.json [--gpus-per-instance N] [-o OUT.csv]

TRACE.json is a trace of the public skypilot-org/spot-traces repository (the traces of "Can't
Be Late", NSDI'24):

    {"metadata": {"gap_seconds": 300}, "data": [0, 0, 5, 16, 16, 8, ...]}

where data[k] is the number of spot instances obtainable at tick k (k * gap_seconds after the
trace's start). The CSV has one row per tick, `time_s,gpus` with time_s = k * gap_seconds and
gpus = data[k] * N (N GPUs per instance, default 1: a p3.2xlarge has one V100, a p3.16xlarge
eight). Every tick is written, so the series covers exactly the trace's len(data) * gap_seconds
seconds (a series' last step lasts as long as the one before it). The region that reads it
needs `gpus` of at least the largest value (the trace's instances times N).

The traces count instances obtainable in one availability zone over time; whether an instance
that a job holds is reclaimed when the count falls is geopipe's eviction rule (docs/model.md,
"Failures and checkpoints"), not something the trace records.

Exit status: 0, or 2 with "file: what is wrong" on stderr (nothing written).
"""
import argparse
import json
import math
import sys


def fail(where, what):
    print(f"{where}: {what}", file=sys.stderr)
    sys.exit(2)


def rows_of(trace, where, per_instance):
    """[(time_s, gpus)] of a parsed trace; fail()s on anything but the documented format."""
    if not isinstance(trace, dict):
        fail(where, "expected a JSON object with 'metadata' and 'data'")
    meta = trace.get("metadata")
    if not isinstance(meta, dict) or "gap_seconds" not in meta:
        fail(where, "no metadata.gap_seconds (expected {\"metadata\": {\"gap_seconds\": g}, \"data\": [...]})")
    gap = meta["gap_seconds"]
    if isinstance(gap, bool) or not isinstance(gap, (int, float)) or not math.isfinite(gap) or gap <= 0:
        fail(where, f"metadata.gap_seconds = {gap!r} (expected a positive number of seconds)")
    data = trace.get("data")
    if not isinstance(data, list) or not data:
        fail(where, "'data' is not a non-empty list of instance counts")
    rows = []
    for k, n in enumerate(data):
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            fail(where, f"data[{k}] = {n!r} (expected a whole number of instances >= 0)")
        rows.append((k * gap, n * per_instance))
    if max(g for _, g in rows) == 0:
        fail(where, "the trace has no instance at any tick (a region without GPUs: leave it out)")
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trace", help="a skypilot-org/spot-traces JSON file")
    ap.add_argument("--gpus-per-instance", type=int, default=1, help="GPUs of one instance (default 1)")
    ap.add_argument("-o", "--output", help="the CSV to write (default: stdout)")
    a = ap.parse_args()
    if a.gpus_per_instance < 1:
        fail("--gpus-per-instance", f"{a.gpus_per_instance} (expected at least 1)")
    try:
        with open(a.trace, encoding="utf-8") as f:
            trace = json.load(f)
    except OSError as e:
        fail(a.trace, f"cannot read: {e.strerror}")
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        fail(a.trace, f"not JSON: {e}")
    rows = rows_of(trace, a.trace, a.gpus_per_instance)
    text = "time_s,gpus\n" + "".join(f"{t:.17g},{g}\n" for t, g in rows)
    if a.output:
        with open(a.output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    print(f"{len(rows)} ticks, at most {max(g for _, g in rows)} GPUs"
          + (f" -> {a.output}" if a.output else ""), file=sys.stderr)


if __name__ == "__main__":
    main()
