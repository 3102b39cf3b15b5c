#!/usr/bin/python3
"""End-to-end test of the analysis scripts on real geopipe sweep output.

usage: test_analysis.py GEOPIPE_BINARY PROJECT_SOURCE_DIR

Runs reduced versions of two paper sweeps (fig5-bandwidth and fig8-ablation: 2 points,
3 seeds, 30 jobs) with the real binary into a temporary directory, then checks
scripts/geopipe_results.py (load, axes, mean_ci, summary, paired_change, normalized,
point_labels) against values computed by hand from the raw h5py arrays, runs
scripts/plot_paper.py and scripts/report.py and checks their outputs. Prints one line per
check and a final "N passed, M failed"; exits 1 if any check failed. Set
GEOPIPE_KEEP_TMP=1 to keep the temporary directory.
"""

import math
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

if len(sys.argv) != 3:
    print(__doc__)
    sys.exit(2)
GEOPIPE = os.path.abspath(sys.argv[1])
SRC = os.path.abspath(sys.argv[2])
SCRIPTS = os.path.join(SRC, "scripts")
PY = sys.executable

try:
    import h5py
    import numpy as np
    import pandas as pd  # noqa: F401
except ImportError as e:
    print(f"test_analysis.py needs h5py, numpy and pandas (Debian's /usr/bin/python3): {e}")
    print("0 passed, 1 failed")
    sys.exit(1)

sys.path.insert(0, SCRIPTS)
import geopipe_results as gr  # noqa: E402

MINUS = "\u2212"
TMP = tempfile.mkdtemp(prefix="geopipe-analysis-")
ENV = dict(os.environ, MPLBACKEND="Agg", MPLCONFIGDIR=os.path.join(TMP, "mpl"))
BASE = os.path.join(SRC, "sweeps", "base", "six-regions.toml")
SEEDS = [1, 2, 3]

SWEEPS = {
    "fig5": dict(name="fig5-bandwidth", axis="network.bandwidth_scale", values=[0.5, 2.0],
                 schedulers=["bace-pipe", "delay-first", "cost-first", "greedy-cost", "first-fit"]),
    "fig8": dict(name="fig8-ablation", axis="workload.load_scale", values=[1.0, 2.0],
                 schedulers=["bace-pipe", "bace-no-priority", "bace-no-pathfinder", "bace-no-costmin"]),
}

from harness import check, finish, results  # noqa: E402,F401 - tests/analysis/harness.py
state = {}


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=600, **kw)
    if p.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} exited with {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    return p


def sweep_toml(s):
    scheds = ", ".join(f'"{x}"' for x in s["schedulers"])
    vals = ", ".join(repr(float(v)) for v in s["values"])
    return (f'[sweep]\nname = "{s["name"]}"\nbase = "{BASE}"\nschedulers = [{scheds}]\n'
            f'seeds = {len(SEEDS)}\n\n[sweep.set]\n"workload.num_jobs" = 30\n\n'
            f'[[axis]]\nparam = "{s["axis"]}"\nvalues = [{vals}]\n')


def raw(path):
    """{(point, seed, scheduler): {metric: value}} straight from h5py, plus the attributes."""
    with h5py.File(path, "r") as f:
        sc = f["scenarios"][:]
        me = f["metrics"][:]
        attrs = dict(f.attrs)
    by_id = {int(r["id"]): (int(r["point"]), int(r["seed"]), r["scheduler"].decode()) for r in sc}
    out = {}
    for r in me:
        if int(r["id"]) >= 0 and int(r["status"]) == 1:
            out[by_id[int(r["id"])]] = {n: float(r[n]) for n in me.dtype.names if n not in ("id", "status")}
    return out, attrs


def hand_change(vals, metric, target, baseline, point):
    """Mean and CI half width of target/baseline - 1 over the seeds, written out by hand."""
    rel = []
    for seed in SEEDS:
        t = vals[(point, seed, target)][metric]
        b = vals[(point, seed, baseline)][metric]
        rel.append(t / b - 1.0)
    n = len(rel)
    mean = sum(rel) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in rel) / (n - 1))
    from scipy import stats  # the exact quantile the module uses (its closed form is checked below)
    return mean, float(stats.t.ppf(0.975, n - 1)) * sd / math.sqrt(n), n


def fmt_num(x):
    r = round(100 * x, 1)
    if r == 0:
        return "0.0"
    return ("+" if r > 0 else MINUS) + f"{abs(r):.1f}"


def fmt_cell(mean, ci):
    return f"{fmt_num(mean)} % [{fmt_num(mean - ci)}, {fmt_num(mean + ci)}]"


# ------------------------------------------------------------------------------------------
@check
def sweeps_run():
    for key, s in SWEEPS.items():
        toml = os.path.join(TMP, f"{key}.toml")
        with open(toml, "w") as f:
            f.write(sweep_toml(s))
        out = os.path.join(TMP, f"{key}.h5")
        run([GEOPIPE, "sweep", toml, "-o", out, "--quiet", "--no-mpi", "--threads", "2"])
        assert os.path.isfile(out), out
        state[key] = out


@check
def load_rows_columns_attrs():
    for key, s in SWEEPS.items():
        df = gr.load(state[key])
        expected = len(s["values"]) * len(SEEDS) * len(s["schedulers"])
        assert len(df) == expected, (key, len(df), expected)
        for c in ["id", "point", "seed", "scheduler", s["axis"], "avg_jct_s", "total_cost_usd", "status"]:
            assert c in df.columns, (key, c, list(df.columns))
        assert (df["status"] == 1).all()
        assert list(df["id"]) == sorted(df["id"]), "rows sorted by id"
        assert all(isinstance(x, str) for x in df["scheduler"]), "scheduler decoded to str"
        assert set(df["scheduler"]) == set(s["schedulers"])
        assert sorted(df["seed"].unique().tolist()) == SEEDS
        assert sorted(df[s["axis"]].unique().tolist()) == s["values"]
        a = df.attrs
        assert a["sweep_name"] == s["name"], a["sweep_name"]
        assert isinstance(a["sweep_hash"], str) and re.fullmatch(r"[0-9a-f]{16}", a["sweep_hash"])
        assert a["schedulers"] == s["schedulers"], a["schedulers"]
        assert a["errors"] == 0 and a["complete"] == 1 and a["num_scenarios"] == expected
        assert gr.axes(df) == [s["axis"]], gr.axes(df)
        assert gr.scheduler_order(df) == s["schedulers"]
        # The join is right: every row's metrics are those of its own id in the raw file.
        vals, _ = raw(state[key])
        for r in df.itertuples(index=False):
            assert vals[(r.point, r.seed, r.scheduler)]["avg_jct_s"] == r.avg_jct_s


@check
def mean_ci_hand_cases():
    # Exact Student-t quantiles (scipy), checked against closed forms: df = 1 is Cauchy,
    # tan(pi (p - 1/2)); df = 2: (2p - 1) / sqrt(2 p (1 - p)); and against the normal limit.
    t1, t2 = math.tan(math.pi * 0.475), 0.95 / math.sqrt(2 * 0.975 * 0.025)
    assert abs(gr.t975(1) - t1) < 1e-9 and abs(gr.t975(2) - t2) < 1e-9, (gr.t975(1), gr.t975(2))
    assert abs(gr.t975(10 ** 8) - 1.959963985) < 1e-7 and math.isnan(gr.t975(0))
    m = gr.mean_ci([2.0, 4.0, float("nan")])  # NaN ignored: n = 2, sd = sqrt(2), ci = t1 * sqrt(2) / sqrt(2)
    assert m.n == 2 and m.mean == 3.0 and abs(m.ci - t1) < 1e-9, m
    m = gr.mean_ci([1.0, 2.0, 3.0])
    assert abs(m.ci - t2 * 1.0 / math.sqrt(3.0)) < 1e-9, m
    assert abs(m.lo - (2.0 - m.ci)) < 1e-15 and abs(m.hi - (2.0 + m.ci)) < 1e-15
    assert math.isnan(gr.mean_ci([5.0]).ci) and gr.mean_ci([5.0]).mean == 5.0
    assert gr.mean_ci([]).n == 0 and math.isnan(gr.mean_ci([]).mean)


@check
def paired_change_matches_raw_arrays():
    for key, s in SWEEPS.items():
        df = gr.load(state[key])
        vals, _ = raw(state[key])
        for baseline in s["schedulers"][1:]:
            for metric in ("avg_jct_s", "total_cost_usd"):
                got = gr.paired_change(df, metric, "bace-pipe", baseline, by=[s["axis"]])
                assert list(got[s["axis"]]) == s["values"], got
                for point, v in enumerate(s["values"]):
                    mean, ci, n = hand_change(vals, metric, "bace-pipe", baseline, point)
                    row = got[got[s["axis"]] == v].iloc[0]
                    assert int(row["n"]) == n == 3
                    assert row["mean"] == mean, (key, baseline, metric, v, row["mean"], mean)
                    assert row["ci"] == ci, (key, baseline, metric, v, row["ci"], ci)
                    assert row["seeds"] == SEEDS
        # by=None pools all points: 6 pairs.
        pooled = gr.paired_change(df, "avg_jct_s", "bace-pipe", s["schedulers"][1])
        assert len(pooled) == 1 and int(pooled["n"].iloc[0]) == len(s["values"]) * len(SEEDS)


@check
def failed_scenarios_and_status():
    # Fault injection (GEOPIPE_FAIL_IDS, docs/sweep-runner.md): scenario id 1 = point 0, seed 1,
    # bace-no-priority fails; the sweep exits with 3 and the row is in /errors only.
    toml = os.path.join(TMP, "fig8.toml")
    out = os.path.join(TMP, "fig8-fail.h5")
    p = subprocess.run([GEOPIPE, "sweep", toml, "-o", out, "--quiet", "--no-mpi", "--threads", "2"],
                       capture_output=True, text=True, env=dict(ENV, GEOPIPE_FAIL_IDS="1"), timeout=600)
    assert p.returncode == 3, (p.returncode, p.stderr)
    df = gr.load(out)
    assert len(df) == 2 * 3 * 4 - 1 and 1 not in set(df["id"])
    assert df.attrs["errors"] == 1 and df.attrs["error_ids"] == [1], df.attrs["errors"]
    pc = gr.paired_change(df, "avg_jct_s", "bace-no-priority", "bace-pipe", by="workload.load_scale")
    assert list(pc["n"]) == [2, 3] and pc["seeds"].iloc[0] == [2, 3], pc
    state["fig8-fail"] = out
    # A /metrics row with status != 1 is dropped.
    other = os.path.join(TMP, "status.h5")
    shutil.copyfile(state["fig5"], other)
    with h5py.File(other, "r+") as f:
        m = f["metrics"][:]
        m["status"][4] = 0
        f["metrics"][...] = m
        dropped = int(m["id"][4])
    df = gr.load(other)
    assert len(df) == 2 * 3 * 5 - 1 and dropped not in set(df["id"])


@check
def summary_and_normalized():
    df = gr.load(state["fig5"])
    vals, _ = raw(state["fig5"])
    axis = SWEEPS["fig5"]["axis"]
    s = gr.summary(df, "total_cost_usd", axis)
    assert len(s) == 2 * 5 and list(s["scheduler"][:5]) == SWEEPS["fig5"]["schedulers"]
    r = s[(s[axis] == 2.0) & (s["scheduler"] == "cost-first")].iloc[0]
    x = [vals[(1, seed, "cost-first")]["total_cost_usd"] for seed in SEEDS]
    assert r["n"] == 3 and abs(r["mean"] - sum(x) / 3) < 1e-9 * abs(r["mean"])
    nm = gr.normalized(df, "avg_jct_s", axis)
    for v, g in nm.groupby(axis):
        assert abs(g["norm_mean"].max() - 1.0) < 1e-12, g
        assert (g["norm_mean"] > 0).all() and (g["norm_mean"] <= 1.0 + 1e-12).all()
        assert np.allclose(g["norm_ci"], g["ci"] / g["mean"].max())
    nb = gr.normalized(df, "avg_jct_s", axis, reference="bace-pipe")
    assert np.allclose(nb[nb["scheduler"] == "bace-pipe"]["norm_mean"], 1.0)


@check
def point_labels_for_mix_points():
    # A Fig. 4-like frame: explicit points that remove models with weight 1e-9.
    with open(BASE) as f:
        base = f.read()
    cols = ["workload.mix.llama-33b.weight", "workload.mix.llama2-70b.weight", "workload.mix.flm-101b.weight",
            "workload.mix.gpt3-1.3b.weight", "workload.mix.llama2-7b.weight", "workload.mix.llama2-13b.weight"]
    nan = float("nan")
    rows = [[nan] * 6, [1e-9, 1e-9, 1e-9, nan, nan, nan], [nan, nan, nan, 1e-9, 1e-9, 1e-9]]
    df = pd.DataFrame([dict(zip(cols, r), point=p, seed=1, scheduler="bace-pipe") for p, r in enumerate(rows)])
    df.attrs = dict(axes=cols, base_toml=base)
    assert gr.point_labels(df) == {0: "mixed (1.3B-101B)", 1: "small (1.3B-13B)", 2: "large (33B-101B)"}, \
        gr.point_labels(df)
    d5 = gr.load(state["fig5"])
    assert gr.point_labels(d5) == {0: "network.bandwidth_scale=0.5", 1: "network.bandwidth_scale=2"}


def png_info(path):
    with open(path, "rb") as f:
        head = f.read(33)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path}: not a PNG signature"
    assert head[12:16] == b"IHDR", f"{path}: no IHDR chunk"
    w, h = struct.unpack(">II", head[16:24])
    return w, h, os.path.getsize(path)


@check
def plot_paper_writes_pngs():
    out = os.path.join(TMP, "png")
    p = run([PY, os.path.join(SCRIPTS, "plot_paper.py"), "--out", out, state["fig5"], state["fig8"]])
    for name in ("fig5.png", "fig8.png"):
        path = os.path.join(out, name)
        assert os.path.isfile(path), (path, p.stdout, p.stderr)
        w, h, size = png_info(path)
        assert 1200 <= w <= 2000 and 450 <= h <= 900, (name, w, h)  # ~10 x 4.4 in at 150 dpi
        assert 20_000 <= size <= 3_000_000, (name, size)


@check
def plot_paper_generic_sweep():
    # Any other sweep_name gets the generic per-axis plot, named after the sweep.
    other = os.path.join(TMP, "custom.h5")
    shutil.copyfile(state["fig5"], other)
    with h5py.File(other, "r+") as f:
        f.attrs["sweep_name"] = "my sweep"
    out = os.path.join(TMP, "png-generic")
    run([PY, os.path.join(SCRIPTS, "plot_paper.py"), "--out", out, other])
    w, h, size = png_info(os.path.join(out, "my_sweep.png"))
    assert size > 20_000


@check
def plot_paper_rejects_bad_input():
    bad = os.path.join(TMP, "not-h5.h5")
    with open(bad, "w") as f:
        f.write("not hdf5\n")
    p = subprocess.run([PY, os.path.join(SCRIPTS, "plot_paper.py"), "--out", os.path.join(TMP, "x"), bad],
                       capture_output=True, text=True, env=ENV, timeout=120)
    assert p.returncode != 0 and "not-h5.h5" in p.stderr, (p.returncode, p.stderr)


CELL = rf"(?:[+{MINUS}]\d+\.\d|0\.0) % \[(?:[+{MINUS}]\d+\.\d|0\.0), (?:[+{MINUS}]\d+\.\d|0\.0)\]"


@check
def report_contents():
    out = os.path.join(TMP, "REPORT_TABLES.md")
    run([PY, os.path.join(SCRIPTS, "report.py"), "--out", out, state["fig5"], state["fig8"]])
    text = open(out, encoding="utf-8").read()
    for h in ["# BACE-Pipe reproduction: paired comparison tables",
              "## Fig. 5 — sensitivity to inter-region bandwidth (`fig5-bandwidth`)",
              "## Fig. 8 — ablation of BACE-Pipe's components (`fig8-ablation`)",
              "### Point 0: network.bandwidth_scale = 0.5", "### Point 1: network.bandwidth_scale = 2",
              "### Point 0: workload.load_scale = 1", "### Point 1: workload.load_scale = 2",
              f"{MINUS}27.9 % to {MINUS}64.7 %"]:
        assert h in text, f"missing {h!r}"
    assert text.count("**Summary:**") == 2
    for key in SWEEPS:
        _, attrs = raw(state[key])
        for a in ("sweep_hash", "geopipe_version", "created_utc"):
            v = attrs[a].decode() if isinstance(attrs[a], bytes) else str(attrs[a])
            assert v in text, (a, v)
        assert f"scenarios: {int(attrs['num_scenarios'])} with metrics" in text
    # Every table row: scheduler | JCT cell | cost cell | 3 | 1–3 | ...
    rows = [l for l in text.splitlines() if re.match(r"\| (?:delay-first|cost-first|greedy-cost|first-fit|bace-no-)", l)]
    assert len(rows) == 2 * 4 + 2 * 3, len(rows)
    for l in rows:
        cells = [c.strip() for c in l.strip("|").split("|")]
        assert re.fullmatch(CELL, cells[1]) and re.fullmatch(CELL, cells[2]), l
        assert cells[3] == "3" and cells[4] == "1–3", l
    # Numbers use the Unicode minus only (no ASCII '-' directly before a digit in a cell).
    assert not re.search(r"(?:^|[\s\[(])-\d", "\n".join(rows)), "ASCII minus in a number"
    # A sweep with a failed scenario: that pair is missing (n = 2, seeds 2–3) and reported.
    out2 = os.path.join(TMP, "REPORT_FAIL.md")
    run([PY, os.path.join(SCRIPTS, "report.py"), "--out", out2, state["fig8-fail"]])
    t2 = open(out2, encoding="utf-8").read()
    assert "(1 failed; complete = 1)" in t2, t2[:2000]
    assert re.search(rf"\| bace-no-priority \| {CELL} \| {CELL} \| 2 \| 2–3 \|", t2), t2
    # Exact values, computed by hand from the raw arrays.
    v5, _ = raw(state["fig5"])
    for point in (0, 1):
        for b in SWEEPS["fig5"]["schedulers"][1:]:
            j = hand_change(v5, "avg_jct_s", "bace-pipe", b, point)
            c = hand_change(v5, "total_cost_usd", "bace-pipe", b, point)
            line = f"| {b} | {fmt_cell(j[0], j[1])} | {fmt_cell(c[0], c[1])} | 3 | 1–3 |"
            assert line in text, f"missing row {line!r}"
    v8, _ = raw(state["fig8"])
    for point in (0, 1):
        for a in SWEEPS["fig8"]["schedulers"][1:]:  # ablation relative to full BACE-Pipe
            j = hand_change(v8, "avg_jct_s", a, "bace-pipe", point)
            c = hand_change(v8, "total_cost_usd", a, "bace-pipe", point)
            line = f"| {a} | {fmt_cell(j[0], j[1])} | {fmt_cell(c[0], c[1])} | 3 | 1–3 |"
            assert line in text, f"missing row {line!r}"


@check
def import_has_no_side_effects():
    p = run([PY, "-c", "import sys; sys.path.insert(0, sys.argv[1]); import geopipe_results, plot_paper, report",
             SCRIPTS], cwd=TMP)
    assert p.stdout == "" and p.stderr == "", (p.stdout, p.stderr)
    assert not os.path.exists(os.path.join(TMP, "fig5.png"))


@check
def reproduce_sh_end_to_end():
    """scripts/reproduce.sh on reduced copies of the paper sweeps (2 points, 3 seeds, 30 jobs)."""
    sweeps = os.path.join(TMP, "reduced-sweeps")
    out = os.path.join(TMP, "reproduce-out")
    os.makedirs(sweeps, exist_ok=True)
    for key, s in SWEEPS.items():
        with open(os.path.join(sweeps, f"{key}_reduced.toml"), "w") as f:
            f.write(sweep_toml(s))
    with open(os.path.join(sweeps, "fig4_reduced.toml"), "w") as f:  # explicit points, as Fig. 4
        f.write(f'[sweep]\nname = "fig4-end-to-end"\nbase = "{BASE}"\n'
                'schedulers = ["bace-pipe", "delay-first", "cost-first"]\nseeds = 3\n\n'
                '[sweep.set]\n"workload.num_jobs" = 30\n\n[[point]]\n\n[[point]]\n'
                '"workload.mix.llama-33b.weight" = 1e-9\n"workload.mix.llama2-70b.weight" = 1e-9\n'
                '"workload.mix.flm-101b.weight" = 1e-9\n')
    # the model-realism variants, reduced the same way (2 seeds, 30 jobs)
    real = os.path.join(sweeps, "realism")
    os.makedirs(real, exist_ok=True)
    src_real = os.path.join(SRC, "sweeps", "paper", "realism")
    for name in sorted(os.listdir(src_real)):
        text = open(os.path.join(src_real, name), encoding="utf-8").read()
        text = re.sub(r"seeds = \d+", "seeds = 2", text).replace("../../base/", os.path.join(SRC, "sweeps", "base") + "/")
        text = text.replace("[sweep.set]\n", '[sweep.set]\n"workload.num_jobs" = 30\n') if "[sweep.set]" in text else \
            text.replace("[[zip]]", '[sweep.set]\n"workload.num_jobs" = 30\n\n[[zip]]', 1)
        text = text.replace("range = { start = 0.125, stop = 8.0, num = 7, log = true }", "values = [0.5, 2.0]")
        with open(os.path.join(real, name), "w") as f:
            f.write(text)
    # the literature's schedulers in Fig. 4's setting, reduced the same way
    lit = os.path.join(sweeps, "literature")
    os.makedirs(lit, exist_ok=True)
    text = open(os.path.join(SRC, "sweeps", "paper", "literature", "fig4_literature.toml"), encoding="utf-8").read()
    text = re.sub(r"seeds = \d+", "seeds = 2", text).replace("../../base/", os.path.join(SRC, "sweeps", "base") + "/")
    text = text.replace("[[point]]", '[sweep.set]\n"workload.num_jobs" = 30\n\n[[point]]', 1)
    with open(os.path.join(lit, "fig4_literature.toml"), "w") as f:
        f.write(text)
    run(["bash", os.path.join(SCRIPTS, "reproduce.sh"), "--sweeps", sweeps, "--out", out, "--geopipe", GEOPIPE,
         "--threads", "2"], cwd=SRC)
    for fig in ("fig4.png", "fig5.png", "fig8.png"):
        with open(os.path.join(out, fig), "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n", fig
    rep = open(os.path.join(out, "REPORT.md"), encoding="utf-8").read()
    for want in ("# Reproducing the BACE-Pipe evaluation", "wall time of the sweeps", "## Fig. 4", "## Fig. 5",
                 "## Fig. 8", MINUS + "27.9 %", "## Model realism", "balanced split, 1F1B", "the ranking **",
                 "| $0.02/GB | bace-pipe |", "## The literature's schedulers in Fig. 4's setting",
                 "Offline lower bound of the mean JCT", "| gavel-maxmin |"):
        assert want in rep, want
    assert not os.path.exists(os.path.join(out, "realism.md"))
    assert not os.path.exists(os.path.join(out, "literature.md"))
    assert len(gr.load(os.path.join(out, "h5", "literature", "fig4_literature.h5"))) == 3 * 2 * 6
    assert len(gr.load(os.path.join(out, "h5", "fig4_reduced.h5"))) == 2 * 3 * 3


finish(TMP)
