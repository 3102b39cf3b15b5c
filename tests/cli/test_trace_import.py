#!/usr/bin/env python3
"""`geopipe trace import` with the real binary (docs/trace-import.md).

Usage: test_trace_import.py GEOPIPE_BINARY SOURCE_DIR

For each format, a small hand-written trace of tests/cli/trace_import/ is imported; the summary's
counts are checked; the output (self-documenting '#' lines, then geopipe's trace CSV) is replayed
by `geopipe run` with workload.trace pointing at it and --jobs-csv (and, for one format, by a sweep
whose /jobs is read with h5py): one job per kept row, with the
model, stages and GPUs per stage the default shape table gives the row's GPU count, and the
arrivals of the output. Then a shape-table override, and the bad paths: a malformed row (exit 2,
one line file:line:col, nothing written; --skip-bad-rows counts it), an existing output (refused
unless --force), -o naming the input (refused even with --force), a bad flag, no row kept.
Standard library, and h5py (Debian python3-h5py) for the /jobs check.
"""
import csv
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile

BIN = os.path.abspath(sys.argv[1])
SRC = os.path.abspath(sys.argv[2])
DATA = os.path.join(SRC, "tests", "cli", "trace_import")
failures = []
checks = 0


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def geopipe(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=120)


# The default shape table (docs/trace-import.md, "The shape table"): N -> (model, g); S = N // g.
DEFAULT = [(1, 1, "gpt3-1.3b", 1), (2, 7, "llama2-7b", 1), (8, 15, "llama2-13b", 2), (16, 31, "llama-33b", 4),
           (32, 127, "llama2-70b", 8), (128, 10**9, "flm-101b", 8)]
LAYERS = {"gpt3-1.3b": 24, "llama2-7b": 32, "llama2-13b": 40, "llama-33b": 60, "llama2-70b": 80, "flm-101b": 80}


def default_shape(n):
    for lo, hi, model, g in DEFAULT:
        if lo <= n <= hi:
            return model, g, max(1, min(n // g, LAYERS[model]))
    raise AssertionError(n)


def trace_rows(path):
    """The jobs of a geopipe trace CSV (skipping '#' lines), in file order."""
    with open(path, newline="") as f:
        lines = [line for line in f if not line.lstrip().startswith("#")]
    return list(csv.DictReader(io.StringIO("".join(lines))))


def summary_counts(stderr):
    counts = {}
    m = re.search(r": (\d+) rows read, (\d+) kept, (\d+) dropped", stderr)
    if m:
        counts["read"], counts["kept"], counts["dropped"] = map(int, m.groups())
    for key, n in re.findall(r"^  ([a-z_]+) +(\d+)  ", stderr, flags=re.M):
        counts[key] = int(n)
    return counts


SCENARIO = """# a replay of an imported trace (tests/cli/test_trace_import.py)
[scenario]
name = "imported-trace"

[[cluster.region]]
name = "east"
gpu = "A100-80GB"
gpus = 32
price_usd_per_kwh = 0.1

[[cluster.region]]
name = "west"
gpu = "A100-80GB"
gpus = 32
price_usd_per_kwh = 0.12

[[network.link]]
regions = ["east", "west"]
bandwidth_gbps = 10
latency_ms = 20

[workload]
trace = "jobs.csv"
"""

# format, input file, the GPU count of each kept row in submit order, expected drop counts
CASES = [
    ("philly", "philly.csv", [1, 2, 8, 16, 4], {"duplicate": 1, "duration": 1, "no_gpu": 1}),
    ("helios", "helios.csv", [1, 8, 16, 4], {"state": 3, "no_gpu": 1, "duplicate": 1}),
    ("acme", "acme.csv", [8, 32, 1], {"state": 1}),
    ("alibaba-2023", "alibaba-2023.csv", [1, 8, 2, 4], {"fractional_gpu": 1, "no_gpu": 1, "state": 3}),
]

tmp = tempfile.mkdtemp(prefix="geopipe-trace-import-")
try:
    for fmt, name, gpus, drops in CASES:
        work = os.path.join(tmp, fmt)
        os.mkdir(work)
        src = os.path.join(DATA, name)
        out = os.path.join(work, "jobs.csv")
        p = geopipe("trace", "import", "--format", fmt, src, "-o", out)
        check(p.returncode == 0, f"{fmt}: import exit {p.returncode}: {p.stderr}")
        if p.returncode != 0:
            continue
        counts = summary_counts(p.stderr)
        with open(src) as f:
            data_rows = sum(1 for line in f) - 1
        check(counts.get("read") == data_rows and counts.get("kept") == len(gpus), f"{fmt}: summary counts {counts}")
        for key in ("bad_row", "duplicate", "state", "no_gpu", "fractional_gpu", "too_few_gpus", "too_many_gpus",
                    "no_shape", "duration", "window", "limit"):
            check(counts.get(key) == drops.get(key, 0), f"{fmt}: dropped {key} = {counts.get(key)}, expected {drops.get(key, 0)}")
        check(counts.get("kept", 0) + counts.get("dropped", 0) == counts.get("read"), f"{fmt}: kept + dropped != read")
        text = open(out).read()
        check(text.startswith("# Written by: geopipe trace import --format " + fmt), f"{fmt}: first line: {text[:80]!r}")
        check(f"(--format {'helios' if fmt == 'acme' else fmt})" in text.split("\n")[1], f"{fmt}: input line")
        rows = trace_rows(out)
        check(len(rows) == len(gpus), f"{fmt}: {len(rows)} trace rows, expected {len(gpus)}")
        arrivals = [float(r["arrival_s"]) for r in rows]
        check(arrivals == sorted(arrivals) and arrivals[0] == 0, f"{fmt}: arrivals {arrivals}")
        for r, n in zip(rows, gpus):
            model, g, s = default_shape(n)
            check((r["model"], int(r["gpus_per_stage"]), int(r["stages"])) == (model, g, s),
                  f"{fmt}: {n} GPUs -> {r['model']} g={r['gpus_per_stage']} S={r['stages']}, expected {model} g={g} S={s}")
            check(int(r["iterations"]) >= 1 and (int(r["micro_batch_size"]), int(r["micro_batches"])) == (1, 16), f"{fmt}: {r}")
        # deterministic: the same command writes the same bytes
        again = os.path.join(work, "again.csv")
        geopipe("trace", "import", "--format", fmt, src, "-o", again)
        check(open(again).read().replace("again.csv", "jobs.csv") == text, f"{fmt}: a second import differs")

        # replay: one job per kept row, the mapped shape, the same arrivals
        scen = os.path.join(work, "replay.toml")
        with open(scen, "w") as f:
            f.write(SCENARIO)
        jobs_csv = os.path.join(work, "run-jobs.csv")
        p = geopipe("run", scen, "--scheduler", "bace-pipe", "--jobs-csv", jobs_csv)
        check(p.returncode == 0, f"{fmt}: run exit {p.returncode}: {p.stderr[:400]}")
        if p.returncode != 0:
            continue
        with open(jobs_csv, newline="") as f:
            ran = sorted(csv.DictReader(f), key=lambda r: int(r["job_id"]))
        check(len(ran) == len(rows), f"{fmt}: run has {len(ran)} jobs, the trace {len(rows)}")
        for j, r in zip(ran, rows):
            check((j["model"], j["stages"], j["gpus_per_stage"]) == (r["model"], r["stages"], r["gpus_per_stage"]),
                  f"{fmt}: job {j['job_id']} ran as {j['model']} S={j['stages']} g={j['gpus_per_stage']}, trace says {r}")
            check(float(j["arrival_s"]) == float(r["arrival_s"]), f"{fmt}: job {j['job_id']} arrival {j['arrival_s']} vs {r['arrival_s']}")
            check(float(j["finish_s"]) > float(j["start_s"]) >= float(j["arrival_s"]), f"{fmt}: job {j['job_id']} times")
        # and through a sweep: /jobs of the result file has one row per kept trace row, the mapped shape
        if fmt == "philly":
            import h5py  # /usr/bin/python3 (Debian's python3-h5py, installed by scripts/setup.sh)
            sweep = os.path.join(work, "replay.sweep.toml")
            with open(sweep, "w") as f:
                f.write('[sweep]\nname = "replay"\nbase = "replay.toml"\nschedulers = ["bace-pipe"]\nseeds = 1\n')
            h5 = os.path.join(work, "replay.h5")
            p = geopipe("sweep", sweep, "-o", h5, "--save-jobs", "--no-mpi")
            check(p.returncode == 0, f"{fmt}: sweep exit {p.returncode}: {p.stderr[:400]}")
            if p.returncode == 0:
                with h5py.File(h5, "r") as f:
                    jobs = sorted(f["jobs"][:].tolist(), key=lambda r: r[list(f["jobs"].dtype.names).index("job_id")])
                    names = list(f["jobs"].dtype.names)
                check(len(jobs) == len(rows), f"{fmt}: /jobs has {len(jobs)} rows, the trace {len(rows)}")
                for j, r in zip(jobs, rows):
                    got = (j[names.index("model")].decode(), int(j[names.index("stages")]), int(j[names.index("gpus_per_stage")]))
                    check(got == (r["model"], int(r["stages"]), int(r["gpus_per_stage"])), f"{fmt}: /jobs row {got} vs trace {r}")

    # --- a shape-table override: stages 0 is decided by geopipe on the cluster
    work = os.path.join(tmp, "shapes")
    os.mkdir(work)
    out = os.path.join(work, "jobs.csv")
    p = geopipe("trace", "import", "--format", "philly", os.path.join(DATA, "philly.csv"), "-o", out,
                "--shape-table", os.path.join(DATA, "shapes.csv"), "--time-scale", "0.5")
    check(p.returncode == 0, f"shapes: exit {p.returncode}: {p.stderr}")
    rows = trace_rows(out)
    check([(r["model"], r["stages"], r["gpus_per_stage"]) for r in rows] ==
          [("llama2-7b", "0", "1"), ("llama2-7b", "0", "1"), ("llama2-13b", "2", "4"), ("llama2-13b", "4", "4"),
           ("llama2-13b", "1", "4")], f"shapes: {rows}")
    check([float(r["arrival_s"]) for r in rows] == [0, 150, 300, 1800, 2400], f"shapes: --time-scale 0.5 arrivals {rows}")
    check("# Shape table (" + os.path.join(DATA, "shapes.csv") in open(out).read(), "shapes: the comment names the table")
    with open(os.path.join(work, "replay.toml"), "w") as f:
        f.write(SCENARIO)
    p = geopipe("run", os.path.join(work, "replay.toml"), "--jobs-csv", os.path.join(work, "ran.csv"))
    check(p.returncode == 0, f"shapes: run exit {p.returncode}: {p.stderr[:300]}")
    if p.returncode == 0:
        with open(os.path.join(work, "ran.csv"), newline="") as f:
            ran = sorted(csv.DictReader(f), key=lambda r: int(r["job_id"]))
        check([j["stages"] for j in ran][:2] == ["2", "2"], f"shapes: stages 0 ran as {[j['stages'] for j in ran]}")
    # the printed default table, given back, changes nothing
    p = geopipe("trace", "shape-table")
    check(p.returncode == 0 and p.stdout.startswith("# "), f"shape-table: {p.returncode} {p.stdout[:100]}")
    table = os.path.join(work, "default.csv")
    with open(table, "w") as f:
        f.write(p.stdout)
    a, b = os.path.join(work, "a.csv"), os.path.join(work, "b.csv")
    geopipe("trace", "import", "--format", "helios", os.path.join(DATA, "helios.csv"), "-o", a)
    geopipe("trace", "import", "--format", "helios", os.path.join(DATA, "helios.csv"), "-o", b, "--shape-table", table)
    check(trace_rows(a) == trace_rows(b), "shape-table: the printed default maps as the built-in one")

    # --- a malformed row: exit 2, one line file:line:col, nothing written
    bad = os.path.join(DATA, "helios-bad-time.csv")
    out = os.path.join(tmp, "bad.csv")
    p = geopipe("trace", "import", "--format", "helios", bad, "-o", out)
    want = f"geopipe: error: {bad}:3:25: submit_time: '2020-04-31 08:00:00' is no date and time"
    check(p.returncode == 2 and p.stderr.startswith(want) and p.stderr.count("\n") == 1, f"bad row: {p.returncode} {p.stderr!r}")
    check(not os.path.exists(out) and not [f for f in os.listdir(tmp) if f.startswith("bad.csv")], "bad row: something was written")
    p = geopipe("trace", "import", "--format", "helios", bad, "-o", out, "--skip-bad-rows")
    counts = summary_counts(p.stderr)
    check(p.returncode == 0 and counts.get("bad_row") == 1 and counts.get("kept") == 2, f"--skip-bad-rows: {p.returncode} {p.stderr}")
    check("the first: " + bad + ":3:25: submit_time" in p.stderr, "--skip-bad-rows: the first bad row is named")
    check(len(trace_rows(out)) == 2, "--skip-bad-rows: two rows written")

    # --- an existing output is refused unless --force; an input never
    before = open(out).read()
    p = geopipe("trace", "import", "--format", "philly", os.path.join(DATA, "philly.csv"), "-o", out)
    check(p.returncode == 2 and "exists (expected --force" in p.stderr and open(out).read() == before, f"existing output: {p.stderr}")
    p = geopipe("trace", "import", "--format", "philly", os.path.join(DATA, "philly.csv"), "-o", out, "--force")
    check(p.returncode == 0 and len(trace_rows(out)) == 5, f"--force: {p.returncode} {p.stderr}")
    copy = os.path.join(tmp, "input.csv")
    shutil.copy(os.path.join(DATA, "philly.csv"), copy)
    original = open(copy).read()
    for extra in ([], ["--force"]):
        p = geopipe("trace", "import", "--format", "philly", copy, "-o", os.path.join(tmp, ".", "input.csv"), *extra)
        check(p.returncode == 2 and p.stderr.startswith("geopipe: error: -o: ") and open(copy).read() == original,
              f"-o = input {extra}: {p.returncode} {p.stderr}")

    # --- bad flags and nothing kept: exit 2, one line, nothing written
    out = os.path.join(tmp, "none.csv")
    for args, needle in [(["--format", "helio"], "--format: unknown format 'helio' (did you mean 'helios'?)"),
                         (["--format", "helios", "--time-scale", "0"], "--time-scale: "),
                         (["--format", "helios", "--time-scale", "nan"], "--time-scale: 'nan' is not a number"),
                         (["--format", "helios", "--min-gpus", "-1"], "--min-gpus: "),
                         (["--format", "helios", "--states", "DONE"], "--states: unknown state 'DONE'"),
                         (["--format", "helios", "--reference-gpu", "A100"], "--reference-gpu: unknown GPU 'A100'")]:
        p = geopipe("trace", "import", os.path.join(DATA, "helios.csv"), "-o", out, *args)
        check(p.returncode == 2 and p.stderr.startswith("geopipe: error: " + needle) and p.stderr.count("\n") == 1,
              f"{args}: {p.returncode} {p.stderr!r}")
        check(not os.path.exists(out), f"{args}: wrote {out}")
    p = geopipe("trace", "import", "--format", "helios", os.path.join(DATA, "helios.csv"), "-o", out, "--min-gpus", "1000")
    check(p.returncode == 2 and "no row kept" in p.stderr and summary_counts(p.stderr).get("too_few_gpus") == 4,
          f"nothing kept: {p.returncode} {p.stderr}")
    check(not os.path.exists(out), "nothing kept: a file was written")
finally:
    shutil.rmtree(tmp, ignore_errors=True)

print(f"trace import: {checks - len(failures)}/{checks} checks passed")
sys.exit(1 if failures else 0)
