#!/usr/bin/python3
"""The Python package geopipe (python/geopipe) on real output of the geopipe binary.

usage: test_package.py GEOPIPE_BINARY PROJECT_SOURCE_DIR

Runs two small sweeps into a temporary directory: a grid (network.bandwidth_scale 0.25, 1, 4 as
a log range x workload.load_scale 1, 2; bace-pipe and delay-first; 3 seeds; 30 jobs;
--save-jobs) and a Latin hypercube (4 points of 2 factors, one log-uniform; 2 seeds), then
checks, each against the raw h5py arrays or a hand computation: load (dtypes, decoded strings,
the dot-free aliases in DataFrame.query), load_jobs (one row per job, jobs_total per scenario,
the ValueError without /jobs), to_xarray (dims, coords, units, values equal to the DataFrame's,
the point dim of a non-grid design), the metric-unit table against the binary (`geopipe list
metrics` when it has it, always src/sim/metrics.h and the file's /metrics columns),
paired_change (mean of ratios and ratio of means with their CIs, by hand and against `geopipe
summarize --format json`), the Student-t quantiles
against scipy, plot and `python3 -m geopipe plot` (PNG size = figsize x dpi, not blank; SVG
parses; log x), the bad-input exits (2, one line), the README snippet, the old module
scripts/geopipe_results.py, and that importing the package has no side effects. Prints one line
per check and "N passed, M failed"; exits 1 if any failed. GEOPIPE_KEEP_TMP=1 keeps the
temporary directory.
"""

import math
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

if len(sys.argv) != 3:
    print(__doc__)
    sys.exit(2)
GEOPIPE = os.path.abspath(sys.argv[1])
SRC = os.path.abspath(sys.argv[2])
PYDIR = os.path.join(SRC, "python")
PY = sys.executable

try:
    import h5py
    import numpy as np
    import scipy.stats
    import xarray  # noqa: F401 - to_xarray needs it
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.image
except ImportError as e:
    print(f"test_package.py needs h5py, numpy, pandas, scipy, xarray and matplotlib (Debian's /usr/bin/python3): {e}")
    print("0 passed, 1 failed")
    sys.exit(1)

sys.path.insert(0, PYDIR)
import geopipe  # noqa: E402

TMP = tempfile.mkdtemp(prefix="geopipe-package-")
ENV = dict(os.environ, MPLBACKEND="Agg", MPLCONFIGDIR=os.path.join(TMP, "mpl"), PYTHONPATH=PYDIR)
BASE = os.path.join(SRC, "sweeps", "base", "six-regions.toml")
SCHEDS = ["bace-pipe", "delay-first"]
SEEDS = [1, 2, 3]
BW = [0.25, 1.0, 4.0]
LOAD = [1.0, 2.0]
AX_BW, AX_LOAD = "network.bandwidth_scale", "workload.load_scale"

from harness import check, finish, results  # noqa: E402,F401 - tests/analysis/harness.py
state = {}


def run(cmd, expect=0, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, env=kw.pop("env", ENV), timeout=300, **kw)
    if p.returncode != expect:
        raise AssertionError(f"{' '.join(cmd)} exited with {p.returncode} (expected {expect})\n"
                             f"stdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    return p


def raw(path):
    """{id: (point, seed, scheduler, {axis: value}, {metric: value})} from h5py, and the attrs."""
    with h5py.File(path, "r") as f:
        sc = f["scenarios"][:]
        me = f["metrics"][:]
        attrs = dict(f.attrs)
    axes = [n for n in sc.dtype.names if n not in ("id", "point", "seed", "scheduler", "key", "point_key")]
    by_id = {int(r["id"]): r for r in sc}
    out = {}
    for r in me:
        if int(r["id"]) >= 0 and int(r["status"]) == 1:
            s = by_id[int(r["id"])]
            out[int(r["id"])] = (int(s["point"]), int(s["seed"]), s["scheduler"].decode(),
                                 {a: float(s[a]) for a in axes},
                                 {n: float(r[n]) for n in me.dtype.names if n not in ("id", "status")})
    return out, attrs


def png_check(path, fig_inches, dpi=150):
    img = matplotlib.image.imread(path)
    h, w = img.shape[:2]
    want = (round(fig_inches[1] * dpi), round(fig_inches[0] * dpi))
    assert (h, w) == want, (path, (h, w), want)
    rgb = (img[..., :3] * 255).round().astype(np.uint8).reshape(-1, 3)
    colours = np.unique(rgb, axis=0)
    assert len(colours) >= 8, (path, len(colours))  # white, black, grey grid, red, blue, ...
    # not blank: a good share of the pixels is not white
    assert (rgb.min(axis=1) < 250).mean() > 0.02, path
    return w, h


def svg_check(path):
    root = ET.parse(path).getroot()
    assert root.tag.endswith("svg"), root.tag
    assert len(list(root.iter())) > 50, "an SVG with hardly any element"


# ------------------------------------------------------------------------------------------
@check
def sweeps_run():
    grid = os.path.join(TMP, "grid.toml")
    with open(grid, "w") as f:
        f.write(f'[sweep]\nname = "pkg-grid"\nbase = "{BASE}"\nschedulers = ["bace-pipe", "delay-first"]\n'
                f'seeds = {len(SEEDS)}\n\n[sweep.set]\n"workload.num_jobs" = 30\n\n'
                f'[[axis]]\nparam = "{AX_BW}"\nrange = {{ start = 0.25, stop = 4.0, num = 3, log = true }}\n\n'
                f'[[axis]]\nparam = "{AX_LOAD}"\nvalues = [1, 2]\n')
    state["grid"] = os.path.join(TMP, "grid.h5")
    run([GEOPIPE, "sweep", grid, "-o", state["grid"], "--save-jobs", "--quiet", "--no-mpi", "--threads", "2"])
    lhs = os.path.join(TMP, "lhs.toml")
    with open(lhs, "w") as f:
        f.write(f'[sweep]\nname = "pkg-lhs"\nbase = "{BASE}"\nschedulers = ["bace-pipe", "delay-first"]\n'
                'seeds = 2\ndesign = "lhs"\n\n[sweep.set]\n"workload.num_jobs" = 30\n\n[lhs]\nsamples = 4\n\n'
                f'[[factor]]\nparam = "{AX_BW}"\nkind = "log-uniform"\nmin = 0.25\nmax = 4.0\n\n'
                f'[[factor]]\nparam = "{AX_LOAD}"\nmin = 0.5\nmax = 2.0\n')
    state["lhs"] = os.path.join(TMP, "lhs.h5")
    run([GEOPIPE, "sweep", lhs, "-o", state["lhs"], "--quiet", "--no-mpi", "--threads", "2"])


@check
def load_dtypes_and_decoded_strings():
    df = geopipe.load(state["grid"])
    vals, attrs = raw(state["grid"])
    assert len(df) == len(BW) * len(LOAD) * len(SEEDS) * len(SCHEDS) == len(vals), len(df)
    for c in ("id", "point", "seed"):
        assert df[c].dtype == np.int64, (c, df[c].dtype)
    assert df["status"].eq(1).all()
    for c in ("scheduler", "key", "point_key"):
        assert df[c].map(type).eq(str).all(), c
    assert set(df["scheduler"]) == set(SCHEDS)
    assert df["key"].str.fullmatch(r"[0-9a-f]{32}").all()
    for m in geopipe.metric_names():
        assert df[m].dtype == np.float64, (m, df[m].dtype)
    assert df[AX_BW].dtype == np.float64 and sorted(df[AX_BW].unique()) == BW
    assert sorted(df["seed"].unique()) == SEEDS
    a = df.attrs
    assert a["sweep_name"] == "pkg-grid" and a["schedulers"] == SCHEDS and a["axes"] == [AX_BW, AX_LOAD], a
    assert isinstance(a["sweep_toml"], str) and isinstance(a["geopipe_version"], str)
    assert a["complete"] == 1 and a["errors"] == 0 and a["path"] == state["grid"]
    assert a["metrics"] == geopipe.metric_names(), a["metrics"]
    assert list(df["id"]) == sorted(vals)
    for r in df.itertuples(index=False):
        point, seed, sched, ax, met = vals[r.id]
        assert (r.point, r.seed, r.scheduler) == (point, seed, sched)
        assert getattr(r, "avg_jct_s") == met["avg_jct_s"] and getattr(r, "total_cost_usd") == met["total_cost_usd"]


@check
def dot_free_aliases_in_query():
    df = geopipe.load(state["grid"])
    assert df.attrs["aliases"] == {"network_bandwidth_scale": AX_BW, "workload_load_scale": AX_LOAD}
    assert (df["network_bandwidth_scale"] == df[AX_BW]).all() and (df["workload_load_scale"] == df[AX_LOAD]).all()
    q = df.query("network_bandwidth_scale > 1 and workload_load_scale == 2 and scheduler == 'bace-pipe'")
    mask = (df[AX_BW] > 1) & (df[AX_LOAD] == 2) & (df["scheduler"] == "bace-pipe")
    assert len(q) == int(mask.sum()) == len(SEEDS) and list(q["id"]) == list(df.loc[mask, "id"])
    assert geopipe.axes(df) == [AX_BW, AX_LOAD], "aliases are not axes"
    assert geopipe.alias("cluster.region.us-east.gpus") == "cluster_region_us_east_gpus"
    assert geopipe.alias("cluster.region[0].gpus") == "cluster_region_0__gpus"


@check
def load_jobs_one_row_per_job():
    jobs = geopipe.load_jobs(state["grid"])
    df = geopipe.load(state["grid"])
    with h5py.File(state["grid"], "r") as f:
        nraw = int((f["jobs"]["scenario_id"][:] >= 0).sum())
    assert len(jobs) == nraw == int(df["jobs_total"].sum()) == len(df) * 30, (len(jobs), nraw)
    per = jobs.groupby("scenario_id").size()
    tot = df.set_index("id")["jobs_total"].astype(int)
    assert (per.reindex(tot.index) == tot).all(), "rows per scenario != jobs_total"
    for c in ("scenario_id", "point", "seed"):
        assert jobs[c].dtype == np.int64, (c, jobs[c].dtype)
    for c in ("scheduler", "model", "regions"):
        assert jobs[c].map(type).eq(str).all(), c
    assert jobs["model"].str.len().gt(0).all()
    assert list(jobs.columns[:4]) == ["scenario_id", "point", "seed", "scheduler"], list(jobs.columns)
    assert "network_bandwidth_scale" in jobs and "job_id" in jobs and "cost_usd" in jobs
    joined = jobs.merge(df[["id", "point", "seed", "scheduler"]], left_on="scenario_id", right_on="id",
                        suffixes=("", "_s"))
    assert len(joined) == len(jobs)
    assert (joined["point"] == joined["point_s"]).all() and (joined["seed"] == joined["seed_s"]).all()
    assert (joined["scheduler"] == joined["scheduler_s"]).all()
    assert jobs[["scenario_id", "job_id"]].apply(tuple, axis=1).is_monotonic_increasing
    # the per-job costs add up to the scenario's total
    cost = jobs.groupby("scenario_id")["cost_usd"].sum()
    tc = df.set_index("id")["total_cost_usd"]
    assert np.allclose(cost.reindex(tc.index), tc, rtol=1e-9), "job costs do not add up"
    try:
        geopipe.load_jobs(state["lhs"])
    except ValueError as e:
        assert "--save-jobs" in str(e) and "/jobs" in str(e), str(e)
    else:
        raise AssertionError("no ValueError for a file without /jobs")


@check
def to_xarray_grid():
    ds = geopipe.to_xarray(state["grid"])
    df = geopipe.load(state["grid"])
    assert tuple(ds.dims) == ("network_bandwidth_scale", "workload_load_scale", "scheduler", "seed"), ds.dims
    assert list(ds["network_bandwidth_scale"].values) == BW and list(ds["workload_load_scale"].values) == LOAD
    assert list(ds["scheduler"].values) == SCHEDS and list(ds["seed"].values) == SEEDS
    assert ds["seed"].dtype == np.int64
    assert ds["network_bandwidth_scale"].attrs["parameter"] == AX_BW
    assert list(ds.data_vars) == geopipe.metric_names()
    for m in geopipe.METRICS:
        v = ds[m.name]
        assert v.dims == ("network_bandwidth_scale", "workload_load_scale", "scheduler", "seed")
        assert v.attrs["units"] == m.unit, (m.name, v.attrs)
        assert v.attrs["display_units"] == (m.display or m.unit)
    assert ds["avg_jct_s"].attrs["units"] == "s" and ds["total_cost_usd"].attrs["units"] == "USD"
    with h5py.File(state["grid"], "r") as f:
        for k, v in f.attrs.items():
            got = ds.attrs[k]
            want = v.decode() if isinstance(v, bytes) else v
            if isinstance(want, np.ndarray):
                assert list(got) == [x.decode() if isinstance(x, bytes) else x for x in want.tolist()], k
            else:
                assert got == want, (k, got, want)
    assert not np.isnan(ds["avg_jct_s"].values).any()
    for r in df.itertuples(index=False):
        cell = ds.sel(network_bandwidth_scale=getattr(r, "network_bandwidth_scale"),
                      workload_load_scale=getattr(r, "workload_load_scale"), scheduler=r.scheduler, seed=r.seed)
        for m in ("avg_jct_s", "total_cost_usd", "jobs_completed", "wall_s"):
            assert float(cell[m]) == getattr(r, m), (m, float(cell[m]), getattr(r, m))
    # a subset of metrics, and an unknown one
    sub = geopipe.to_xarray(state["grid"], metrics=["avg_jct_s", "total_cost_usd"])
    assert list(sub.data_vars) == ["avg_jct_s", "total_cost_usd"]
    assert list(geopipe.to_xarray(df, metrics="avg_jct_s").data_vars) == ["avg_jct_s"]
    try:
        geopipe.to_xarray(state["grid"], metrics=["avg_jct_s", "nope"])
    except ValueError as e:
        assert "nope" in str(e) and "avg_jct_s" in str(e), str(e)
    else:
        raise AssertionError("no ValueError for an unknown metric")
    # the mean over seeds from xarray equals the pandas groupby
    x = ds["avg_jct_s"].mean("seed").sel(scheduler="bace-pipe", network_bandwidth_scale=4.0, workload_load_scale=2.0)
    g = df[(df.scheduler == "bace-pipe") & (df[AX_BW] == 4.0) & (df[AX_LOAD] == 2.0)]["avg_jct_s"].mean()
    assert abs(float(x) - g) <= 1e-9 * g


@check
def to_xarray_point_dim_for_lhs():
    ds = geopipe.to_xarray(state["lhs"], metrics=["avg_jct_s"])
    df = geopipe.load(state["lhs"])
    assert tuple(ds.dims) == ("point", "scheduler", "seed"), ds.dims
    assert list(ds["point"].values) == [0, 1, 2, 3] and list(ds["seed"].values) == [1, 2]
    assert ds["network_bandwidth_scale"].dims == ("point",) and ds["workload_load_scale"].dims == ("point",)
    per_point = df.groupby("point")[[AX_BW, AX_LOAD]].first()
    assert np.array_equal(ds["network_bandwidth_scale"].values, per_point[AX_BW].to_numpy())
    assert np.array_equal(ds["workload_load_scale"].values, per_point[AX_LOAD].to_numpy())
    assert ds.attrs["design"] == "lhs"
    for r in df.itertuples(index=False):
        assert float(ds["avg_jct_s"].sel(point=r.point, scheduler=r.scheduler, seed=r.seed)) == r.avg_jct_s
    assert not geopipe.is_grid(per_point, [AX_BW, AX_LOAD])


def _metrics_h():
    """[(name, unit, display, deterministic)] parsed from src/sim/metrics.h's X-macro."""
    text = open(os.path.join(SRC, "src", "sim", "metrics.h"), encoding="utf-8").read()
    rows = re.findall(r'X\(\s*\w+\s*,\s*(\w+)\s*,\s*"([^"]*)"\s*,\s*(\w+)\s*,\s*(true|false)\s*,', text)
    shown = {"kPlain": "", "kHours": "h", "kMwh": "MWh", "kTb": "TB", "kMs": "ms"}
    return [(n, u, shown[d], det == "true") for n, u, d, det in rows]


def _parse_list_metrics(out):
    """{name: {column: value}} from a fixed-width table with a header line (as `geopipe list
    params` prints; '-' = empty)."""
    lines = [l for l in out.splitlines() if l.strip()]
    header = lines[0]
    cols = [(m.start(), m.group(0).lower()) for m in re.finditer(r"\S+", header)]
    rows = {}
    for l in lines[1:]:
        cells = {}
        for i, (start, name) in enumerate(cols):
            end = cols[i + 1][0] if i + 1 < len(cols) else len(l)
            v = l[start:end].strip() if i + 1 < len(cols) else l[start:].strip()
            cells[name] = "" if v == "-" else v
        key = cells.get("metric") or cells.get("name") or cells[cols[0][1]]
        rows[key] = cells
    return [c for _, c in cols], rows


@check
def metric_units_match_the_binary():
    pkg = [(m.name, m.unit, m.display, m.deterministic) for m in geopipe.METRICS]
    assert pkg == _metrics_h(), "python/geopipe/metrics.py differs from src/sim/metrics.h"
    with h5py.File(state["grid"], "r") as f:
        cols = [n for n in f["metrics"].dtype.names if n not in ("id", "status")]
    assert cols == geopipe.metric_names(), "the /metrics columns differ from geopipe.METRICS"
    p = subprocess.run([GEOPIPE, "list", "metrics"], capture_output=True, text=True, timeout=60)
    if p.returncode != 0 and "metrics not in" in p.stderr:
        print("     (this geopipe has no `list metrics` yet: compared with src/sim/metrics.h and /metrics only)")
        return
    assert p.returncode == 0, (p.returncode, p.stderr)
    header, rows = _parse_list_metrics(p.stdout)
    assert list(rows) == geopipe.metric_names(), ("geopipe list metrics names", list(rows))
    unit_col = next((c for c in header if c == "unit"), None) or next((c for c in header if "unit" in c), None)
    assert unit_col, f"geopipe list metrics: no unit column in {header}"
    disp_col = next((c for c in header if ("display" in c or "shown" in c) and c != unit_col), None)
    doc_col = next((c for c in header if c in ("meaning", "doc", "description")), None)
    for m in geopipe.METRICS:
        assert rows[m.name][unit_col] == m.unit, (m.name, rows[m.name], m.unit)
        if disp_col:
            assert rows[m.name][disp_col] in (m.display or m.unit, ""), (m.name, rows[m.name])
        if doc_col:
            assert rows[m.name][doc_col].startswith(m.doc), (m.name, rows[m.name][doc_col], m.doc)


@check
def labels_and_display_units():
    assert geopipe.metric_unit("avg_jct_s") == "s" and geopipe.display_unit("avg_jct_s") == "h"
    assert geopipe.display_scale("avg_jct_s") == 1 / 3600 and geopipe.display_scale("total_energy_j") == 1 / 3.6e9
    assert geopipe.metric_label("avg_jct_s") == "avg_jct [h]"
    assert geopipe.metric_label("total_cost_usd") == "total_cost_usd [USD]"
    assert geopipe.metric_label("gpu_utilization") == "gpu_utilization"
    assert geopipe.metric_label("sched_time_max_s") == "sched_time_max [ms]"


def hand_pairs(vals, metric, target, baseline, bw):
    """[(target value, baseline value)] over the (point, seed) pairs at bandwidth bw."""
    rows = {}
    for i, (point, seed, sched, ax, met) in vals.items():
        if ax[AX_BW] == bw:
            rows.setdefault((point, seed), {})[sched] = met[metric]
    return [(r[target], r[baseline]) for _, r in sorted(rows.items())]


@check
def paired_change_both_estimates():
    df = geopipe.load(state["grid"])
    vals, _ = raw(state["grid"])
    for metric in ("avg_jct_s", "total_cost_usd"):
        got = geopipe.paired_change(df, metric, "bace-pipe", "delay-first", by=AX_BW)
        assert list(got[AX_BW]) == BW
        for bw in BW:
            pairs = hand_pairs(vals, metric, "bace-pipe", "delay-first", bw)
            n = len(pairs)
            assert n == len(LOAD) * len(SEEDS)
            t = [a for a, _ in pairs]
            b = [c for _, c in pairs]
            tq = scipy.stats.t.ppf(0.975, n - 1)
            rel = [x / y - 1 for x, y in pairs]
            mr = sum(rel) / n
            ci = tq * math.sqrt(sum((x - mr) ** 2 for x in rel) / (n - 1)) / math.sqrt(n)
            mt, mb = sum(t) / n, sum(b) / n
            rom = mt / mb - 1
            d = [(x - (mt / mb) * y) / mb for x, y in pairs]  # delta method, as geopipe summarize
            dm = sum(d) / n
            rom_ci = tq * math.sqrt(sum((x - dm) ** 2 for x in d) / (n - 1)) / math.sqrt(n)
            row = got[got[AX_BW] == bw].iloc[0]
            assert int(row["n"]) == n and row["seeds"] == SEEDS
            for k, want in (("mean", mr), ("ci", ci), ("change_mean_of_ratios", mr), ("change_mean_of_ratios_ci", ci),
                            ("change_ratio_of_means", rom), ("change_ratio_of_means_ci", rom_ci),
                            ("target_mean", mt), ("baseline_mean", mb)):
                assert math.isclose(row[k], want, rel_tol=1e-9, abs_tol=1e-15), (metric, bw, k, row[k], want)
            assert math.isclose(row["change_ratio_of_means_lo"], rom - rom_ci, rel_tol=1e-9, abs_tol=1e-15)
            assert math.isclose(row["change_ratio_of_means_hi"], rom + rom_ci, rel_tol=1e-9, abs_tol=1e-15)
            # the sign: negative exactly when the target's mean is lower
            assert (row["change_ratio_of_means"] < 0) == (mt < mb)
    # the reverse comparison flips the sign of the ratio of means: (b/t - 1) = 1 / (t/b) - 1
    a = geopipe.paired_change(df, "avg_jct_s", "bace-pipe", "delay-first")
    r = geopipe.paired_change(df, "avg_jct_s", "delay-first", "bace-pipe")
    assert math.isclose(1 + r["change_ratio_of_means"].iloc[0], 1 / (1 + a["change_ratio_of_means"].iloc[0]),
                        rel_tol=1e-12)


@check
def same_numbers_as_geopipe_summarize():
    """summary and paired_change against `geopipe summarize --format json` (same quantiles, same
    delta method), when the binary has that format."""
    p = subprocess.run([GEOPIPE, "summarize", state["grid"], "--by", AX_BW, "--baseline", "delay-first",
                        "--metric", "avg_jct_s", "total_cost_usd", "--format", "json"],
                       capture_output=True, text=True, timeout=60)
    if p.returncode != 0 and "--format" in p.stderr:
        print("     (this geopipe summarize has no --format json: skipped)")
        return
    assert p.returncode == 0, p.stderr
    import json

    js = json.loads(p.stdout)
    assert js["change"] == "scheduler / baseline - 1", js.get("change")
    df = geopipe.load(state["grid"])
    seen = 0
    for g in js["groups"]:
        bw = float(g["fields"][AX_BW])
        sub = df[df[AX_BW] == bw]
        for s in g["schedulers"]:
            for metric, v in s["metrics"].items():
                sm = geopipe.summary(sub[sub.scheduler == s["scheduler"]], metric).iloc[0]
                assert int(sm["n"]) == v["n"] and math.isclose(sm["mean"], v["mean"], rel_tol=1e-12)
                assert math.isclose(sm["ci"], v["ci_half_width"], rel_tol=1e-9), (sm["ci"], v)
                if "change_ratio_of_means" not in v:
                    continue  # the baseline itself
                pc = geopipe.paired_change(sub, metric, s["scheduler"], js["baseline"]).iloc[0]
                for k in ("change_mean_of_ratios", "change_mean_of_ratios_ci", "change_ratio_of_means",
                          "change_ratio_of_means_ci"):
                    assert math.isclose(pc[k], v[k], rel_tol=1e-9, abs_tol=1e-15), (bw, metric, k, pc[k], v[k])
                seen += 1
    assert seen == len(BW) * 2, seen


@check
def t_quantiles_equal_scipy():
    for d in list(range(1, 61)) + [100, 1000, 10 ** 6]:
        assert geopipe.t975(d) == float(scipy.stats.t.ppf(0.975, d)), d
        assert geopipe.t_quantile(d, 0.9) == float(scipy.stats.t.ppf(0.95, d)), d
    assert math.isnan(geopipe.t975(0)) and math.isnan(geopipe.t975(-3))
    m = geopipe.mean_ci([1.0, 2.0, 3.0, 4.0])
    assert math.isclose(m.ci, scipy.stats.t.ppf(0.975, 3) * math.sqrt(5.0 / 3.0) / 2.0, rel_tol=1e-15)


@check
def plot_png_and_svg():
    df = geopipe.load(state["grid"])
    png = os.path.join(TMP, "api.png")
    fig = geopipe.plot(df, x=AX_BW, metric="avg_jct_s", by=AX_LOAD, paired_vs="delay-first", out=png)
    import matplotlib.figure

    assert isinstance(fig, matplotlib.figure.Figure)
    size = fig.get_size_inches()
    assert tuple(size) == (2 * geopipe.plotting.PANEL_W, 2 * geopipe.plotting.PANEL_H), size
    png_check(png, size)
    axs = fig.axes
    assert len(axs) == 4, len(axs)
    assert all(a.get_xscale() == "log" for a in axs), "the log range should give a log x axis"
    assert axs[0].get_ylabel() == "avg_jct [h]", axs[0].get_ylabel()
    assert "delay-first" in axs[2].get_ylabel() and "%" in axs[2].get_ylabel()
    # the top-left panel's first line: bace-pipe's means at load 1, in hours
    s = geopipe.summary(df[df[AX_LOAD] == 1.0], "avg_jct_s", by=AX_BW)
    want = s[s.scheduler == "bace-pipe"].sort_values(AX_BW)["mean"].to_numpy() / 3600
    top = axs[0].containers[0]  # ErrorbarContainer: (data line, caps, bars)
    assert top.get_label() == "bace-pipe"
    assert np.allclose(top.lines[0].get_ydata(), want, rtol=1e-12), (top.lines[0].get_ydata(), want)
    # the paired panel: bace-pipe vs delay-first in %
    pc = geopipe.paired_change(df[df[AX_LOAD] == 1.0], "avg_jct_s", "bace-pipe", "delay-first", by=AX_BW)
    low = axs[2].containers[0]
    assert low.get_label() == "bace-pipe vs delay-first" and len(axs[2].containers) == 1
    assert np.allclose(low.lines[0].get_ydata(), pc.sort_values(AX_BW)["mean"].to_numpy() * 100, rtol=1e-12)
    # SVG, a path, a linear axis, one scheduler, an alias for x
    svg = os.path.join(TMP, "api.svg")
    fig2 = geopipe.plot(state["grid"], x="workload_load_scale", metric="total_cost_usd", schedulers="bace-pipe",
                        out=svg)
    svg_check(svg)
    assert fig2.axes[0].get_xscale() == "linear" and fig2.axes[0].get_ylabel() == "total_cost_usd [USD]"
    assert len(fig2.axes[0].containers) == 1, "one scheduler, one series"
    assert "pooled over network.bandwidth_scale" in " ".join(fig2._suptitle.get_text().split())
    # into a given Axes: by-groups as line styles
    import matplotlib.pyplot as plt

    f3, ax = plt.subplots()
    assert geopipe.plot(df, x=AX_BW, by=AX_LOAD, ax=ax) is f3
    assert len(ax.containers) == 4 and {c.lines[0].get_linestyle() for c in ax.containers} == {"-", "--"}
    plt.close(f3)
    # bad input raises ValueError naming the valid choices
    for kw, words in ((dict(x="nope"), ["nope", AX_BW, AX_LOAD]), (dict(x=AX_BW, metric="nope"), ["nope", "avg_jct_s"]),
                      (dict(x=AX_BW, schedulers="a-b"), ["a-b", "bace-pipe"]),
                      (dict(x=AX_BW, out=os.path.join(TMP, "x.pdf")), [".png", ".svg"])):
        try:
            geopipe.plot(df, **kw)
        except ValueError as e:
            assert all(w in str(e) for w in words), (kw, str(e))
        else:
            raise AssertionError(f"no ValueError for {kw}")
    # the figure is written as every geopipe output: never over an input (a link to the result
    # file named like a figure), atomically (no temporary file left behind)
    link = os.path.join(TMP, "input-link.png")
    os.symlink(state["grid"], link)
    before = open(state["grid"], "rb").read()
    try:
        geopipe.plot(state["grid"], x=AX_BW, out=link)
    except ValueError as e:
        assert "is an input" in str(e), str(e)
    else:
        raise AssertionError("plotted over the input")
    assert open(state["grid"], "rb").read() == before
    assert not [f for f in os.listdir(TMP) if ".tmp." in f], os.listdir(TMP)


@check
def log_scale_heuristic():
    g = geopipe.geometric
    assert g([0.125, 0.25, 0.5, 1, 2, 4, 8]) and g([1, 3, 10, 30]) and g([4, 1, 0.25])
    assert not g([0.5, 1, 2, 3]) and not g([1, 2]) and not g([1, 1.2, 1.44]) and not g([0, 1, 10])
    assert not g(["a", "b", "c"])
    lhs = geopipe.load(state["lhs"])  # 4 random values, declared log-uniform in the sweep file
    assert geopipe.is_log_axis(lhs, AX_BW) and not geopipe.is_log_axis(lhs, AX_LOAD)
    grid = geopipe.load(state["grid"])
    assert geopipe.is_log_axis(grid, AX_BW) and not geopipe.is_log_axis(grid, AX_LOAD)


@check
def cli_plot_png_and_svg():
    png = os.path.join(TMP, "cli.png")
    p = run([PY, "-m", "geopipe", "plot", state["grid"], "--x", "network_bandwidth_scale", "--metric", "avg_jct_s",
             "--by", AX_LOAD, "--paired-vs", "delay-first", "--schedulers", "bace-pipe,delay-first", "-o", png],
            cwd=TMP)
    assert p.stdout == "" and p.stderr == "", (p.stdout, p.stderr)
    w, h = png_check(png, (2 * geopipe.plotting.PANEL_W, 2 * geopipe.plotting.PANEL_H))
    png1 = os.path.join(TMP, "cli1.png")
    run([PY, "-m", "geopipe", "plot", state["grid"], "--x", AX_BW, "-o", png1], cwd=TMP)
    png_check(png1, (geopipe.plotting.PANEL_W, geopipe.plotting.PANEL_H))
    svg = os.path.join(TMP, "cli.svg")
    run([PY, "-m", "geopipe", "plot", state["lhs"], "--x", AX_BW, "--metric", "total_cost_usd", "-o", svg], cwd=TMP)
    svg_check(svg)
    h = run([PY, "-m", "geopipe", "plot", "--help"], cwd=TMP).stdout
    assert h.startswith("usage: geopipe plot") and "--paired-vs" in h and "--by" in h


@check
def cli_bad_input_exits_2():
    g = state["grid"]
    out = os.path.join(TMP, "bad.png")
    cases = [
        ([g, "--x", "nope", "-o", out], ["unknown axis 'nope'", AX_BW, AX_LOAD]),
        ([g, "--x", AX_BW, "--metric", "avg_jct", "-o", out], ["unknown metric 'avg_jct'", "avg_jct_s", "wall_s"]),
        ([g, "--x", AX_BW, "--schedulers", "bace-pipe,nope", "-o", out], ["unknown scheduler 'nope'", "delay-first"]),
        ([g, "--x", AX_BW, "--paired-vs", "first-fit", "-o", out], ["unknown scheduler 'first-fit'", "bace-pipe"]),
        ([g, "--x", AX_BW, "--by", "nope", "-o", out], ["unknown axis 'nope'"]),
        ([g, "--x", AX_BW, "-o", os.path.join(TMP, "bad.pdf")], ["bad.pdf", ".png or .svg"]),
        ([g, "--x", AX_BW, "-o", os.path.join(TMP, "bad")], [".png or .svg"]),
        ([os.path.join(TMP, "missing.h5"), "--x", AX_BW, "-o", out], ["missing.h5", "no such file"]),
        ([os.path.join(TMP, "grid.toml"), "--x", AX_BW, "-o", out],
         ["grid.toml", "not a readable geopipe result file"]),
        ([g, "--x", AX_BW, "-o", os.path.join(TMP, "no-dir", "x.png")], ["no-dir", "does not exist"]),
        ([g, "-o", out], ["--x"]),
        ([g, "--x", AX_BW, "--bogus", "-o", out], ["--bogus"]),
    ]
    for args, words in cases:
        p = run([PY, "-m", "geopipe", "plot"] + args, expect=2, cwd=TMP)
        lines = p.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("geopipe plot: error: "), (args, p.stderr)
        assert all(w in lines[0] for w in words), (args, lines[0], words)
        assert p.stdout == "", (args, p.stdout)
        assert not os.path.exists(out) and not os.path.exists(os.path.join(TMP, "bad.pdf")), args
    p = run([PY, "-m", "geopipe"], expect=2, cwd=TMP)
    assert p.stderr.startswith("geopipe: error: ") and len(p.stderr.splitlines()) == 1, p.stderr


@check
def readme_snippet_runs():
    text = open(os.path.join(SRC, "README.md"), encoding="utf-8").read()
    m = re.search(r"^## Analysing results\n(.*?)^```python\n(.*?)^```", text, flags=re.M | re.S)
    assert m, "README.md: no ```python block after '## Analysing results'"
    assert "\n## " not in m.group(1), "the python block is not in the '## Analysing results' section"
    code = m.group(2)
    assert len(code.strip().splitlines()) <= 3 and "import geopipe" in code and "quick.h5" in code, code
    code = code.replace("quick.h5", state["grid"])
    run([PY, "-c", code], cwd=TMP)
    png = os.path.join(TMP, "jct.png")
    assert os.path.isfile(png), "the README snippet wrote no jct.png"
    png_check(png, (geopipe.plotting.PANEL_W, geopipe.plotting.PANEL_H))


@check
def old_module_still_works():
    """scripts/geopipe_results.py: found without PYTHONPATH, the old names, the package's functions."""
    env = {k: v for k, v in ENV.items() if k != "PYTHONPATH"}
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import geopipe_results as gr\n"
            "names = ['load', 'axes', 'point_labels', 'scheduler_order', 't975', 'mean_ci', 'MeanCI', 'summary',\n"
            "         'paired_values', 'paired_change', 'normalized', 'model_size_b', 'base_scenario', 'design',\n"
            "         'design_values', 'sobol_indices', 'morris_indices', 'oat_effects']\n"
            "assert all(hasattr(gr, n) for n in names) and set(names) <= set(gr.__all__)\n"
            "assert gr.t975 is __import__('geopipe').t975 and abs(gr.mean_ci([2.0, 4.0]).ci - 12.7062047) < 1e-6\n"
            "df = gr.load(sys.argv[2]); pc = gr.paired_change(df, 'avg_jct_s', 'bace-pipe', 'delay-first')\n"
            "import geopipe, math\n"
            "new = geopipe.paired_change(df, 'avg_jct_s', 'bace-pipe', 'delay-first')\n"
            "assert pc['mean'].iloc[0] == new['mean'].iloc[0] and int(pc['n'].iloc[0]) == 18\n"
            "assert pc['ci'].iloc[0] == new['ci'].iloc[0]\n"
            "print(geopipe.__file__)\n")
    p = run([PY, "-c", code, os.path.join(SRC, "scripts"), state["grid"]], env=env, cwd=TMP)
    assert os.path.realpath(p.stdout.strip()).startswith(os.path.realpath(PYDIR) + os.sep), p.stdout


@check
def import_has_no_side_effects():
    code = ("import sys, geopipe\n"
            "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('matplotlib', 'scipy', 'xarray', 'h5py'))\n"
            "assert not heavy, heavy\n")
    p = run([PY, "-c", code], cwd=TMP)
    assert p.stdout == "" and p.stderr == "", (p.stdout, p.stderr)
    assert not [f for f in os.listdir(TMP) if f.endswith((".png", ".svg")) and f.startswith("side")]


finish(TMP)
