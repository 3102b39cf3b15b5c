#!/usr/bin/python3
"""End-to-end validation of `geopipe analyze` and of the Python sensitivity functions on test
functions whose indices are known in closed form.

usage: known_indices.py GEOPIPE_BINARY PROJECT_SOURCE_DIR

Runs the three shipped validation sweeps (sweeps/studies/ishigami-sobol.toml,
sobol-g-sobol.toml, sobol-g-morris.toml), a grid sweep (tests/integration/tiny.toml) and two
small simulator sweeps with two schedulers and two seeds (an OAT and a Sobol' design) with the
real binary into a temporary directory, then checks:

* `geopipe analyze sobol --format json` against the closed forms of Ishigami (a = 7, b = 0.1)
  and Sobol's G (a = 0, 1, 4.5, 9, 99, 99, 99, 99), computed here (not by the C++): every S1
  and ST inside est +- conf with conf < 0.05, Ishigami's S2(x1, x3) = V13 / Var inside its CI,
  the CIs of S2(x1, x2) and S2(x2, x3) containing 0;
* `geopipe analyze morris` on the G Morris file: mu* ranks x1 > x2 > x3 > x4 > max(x5..x8);
* scripts/geopipe_results.py (sobol_indices, morris_indices, oat_effects, design,
  design_values) against the CLI's JSON: the same point estimates (|diff| < 1e-9), CI half
  widths within a factor 0.7-1.4 (another bootstrap generator), the same seed noise, also
  for another scheduler, a paired change and several seeds; the CSV output parsed with pandas
  equals the JSON;
* determinism of `analyze` (byte-identical JSON, --seed changes only the CIs, --resamples 0
  gives null CIs);
* an independent numpy re-implementation of the Saltelli/Jansen estimators (SALib's
  standardised form) from the raw h5py arrays of the Ishigami file, which also checks that
  each stored value is ishigami(x) of the point's /scenarios values and /design coordinates;
* the errors (exit code 2 and the message of the CLI, ValueError in Python): analysis of a
  file of another design, an unknown metric or scheduler, a grid sweep's file without a
  design matrix, a file with a point without results.

Prints one line per check and a final "N passed, M failed"; exits 1 if any check failed. Set
GEOPIPE_KEEP_TMP=1 to keep the temporary directory.
"""

import io
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

if len(sys.argv) != 3:
    print(__doc__)
    sys.exit(2)
GEOPIPE = os.path.abspath(sys.argv[1])
SRC = os.path.abspath(sys.argv[2])
SCRIPTS = os.path.join(SRC, "scripts")
STUDIES = os.path.join(SRC, "sweeps", "studies")

try:
    import h5py
    import numpy as np
    import pandas as pd
    import scipy.stats  # noqa: F401 - geopipe_results' analyses need it
except ImportError as e:
    print(f"known_indices.py needs h5py, numpy, pandas and scipy (Debian's /usr/bin/python3): {e}")
    print("0 passed, 1 failed")
    sys.exit(1)

sys.path.insert(0, SCRIPTS)
import geopipe_results as gr  # noqa: E402

TMP = tempfile.mkdtemp(prefix="geopipe-known-indices-")
ENV = dict(os.environ)
BASE = os.path.join(SRC, "sweeps", "base", "six-regions.toml")

from harness import check, finish, results  # noqa: E402,F401 - tests/analysis/harness.py
state = {}


def run(cmd, expect=0, **kw):
    p = subprocess.run(cmd, capture_output=True, env=ENV, timeout=300, **kw)
    if p.returncode != expect:
        raise AssertionError(f"{' '.join(cmd)} exited with {p.returncode} (expected {expect})\n"
                             f"stdout:\n{p.stdout.decode(errors='replace')[:4000]}\n"
                             f"stderr:\n{p.stderr.decode(errors='replace')[:4000]}")
    return p


def analyze(method, path, *args, fmt="json", expect=0):
    """`geopipe analyze METHOD PATH ARGS --format FMT`: parsed JSON, or the raw stdout bytes."""
    p = run([GEOPIPE, "analyze", method, path, *args, "--format", fmt], expect=expect)
    if expect != 0:
        return p
    return json.loads(p.stdout) if fmt == "json" else p.stdout


def factors_frame(j):
    return pd.DataFrame(j["factors"]).set_index("factor")


def num(v):
    """JSON value -> float (null -> NaN)."""
    return math.nan if v is None else float(v)


# --- Closed forms, written out here from the textbook formulas (not taken from the C++) ---------

ISHIGAMI_A, ISHIGAMI_B = 7.0, 0.1
G_A = [0.0, 1.0, 4.5, 9.0, 99.0, 99.0, 99.0, 99.0]


def ishigami_closed_form(a=ISHIGAMI_A, b=ISHIGAMI_B):
    pi = math.pi
    var = a * a / 8 + b * pi ** 4 / 5 + b * b * pi ** 8 / 18 + 0.5
    v1 = (1 + b * pi ** 4 / 5) ** 2 / 2
    v2 = a * a / 8
    v13 = 8 * b * b * pi ** 8 / 225
    s1 = [v1 / var, v2 / var, 0.0]
    st = [(v1 + v13) / var, v2 / var, v13 / var]
    return s1, st, v13 / var, var


def g_closed_form(a=G_A):
    vi = [1.0 / (3.0 * (1.0 + x) ** 2) for x in a]
    v = math.prod(1.0 + x for x in vi) - 1.0
    s1 = [x / v for x in vi]
    st = [vi[i] * math.prod(1.0 + vi[j] for j in range(len(vi)) if j != i) / v for i in range(len(vi))]
    return s1, st, v


def ishigami(x1, x2, x3, a=ISHIGAMI_A, b=ISHIGAMI_B):
    return np.sin(x1) + a * np.sin(x2) ** 2 + b * x3 ** 4 * np.sin(x1)


def g_function(x, a=G_A):
    return np.prod([(np.abs(4 * x[:, i] - 2) + a[i]) / (1 + a[i]) for i in range(len(a))], axis=0)


def within(est, conf, truth):
    return est - conf <= truth <= est + conf


# --- Sweeps ----------------------------------------------------------------------------------

SIM_FACTORS = ('[[factor]]\nparam = "network.bandwidth_scale"\nkind = "log-uniform"\nmin = 0.5\nmax = 2.0\n\n'
               '[[factor]]\nparam = "workload.load_scale"\nmin = 1.0\nmax = 2.0\n')


def sim_sweep(name, design, table):
    return (f'[sweep]\nname = "{name}"\nbase = "{BASE}"\nschedulers = ["bace-pipe", "delay-first"]\n'
            f'seeds = 2\ndesign = "{design}"\n\n[sweep.set]\n"workload.num_jobs" = 30\n\n{table}\n{SIM_FACTORS}')


@check
def sweeps_run():
    files = {
        "ishigami": os.path.join(STUDIES, "ishigami-sobol.toml"),
        "g_sobol": os.path.join(STUDIES, "sobol-g-sobol.toml"),
        "g_morris": os.path.join(STUDIES, "sobol-g-morris.toml"),
        "grid": os.path.join(SRC, "tests", "integration", "tiny.toml"),
    }
    for key, text in (("oat_sim", sim_sweep("oat-sim", "oat", "[oat]\nlevels = 3\n")),
                      ("sobol_sim", sim_sweep("sobol-sim", "sobol", "[sobol]\nsamples = 8\nsecond_order = true\n"))):
        files[key] = os.path.join(TMP, f"{key}.toml")
        with open(files[key], "w") as f:
            f.write(text)
    for key, toml in files.items():
        out = os.path.join(TMP, f"{key}.h5")
        t0 = time.monotonic()
        run([GEOPIPE, "sweep", toml, "-o", out, "--no-mpi", "-q", "--threads", "2"])
        state[key] = out
        print(f"     swept {os.path.basename(toml)} in {time.monotonic() - t0:.2f} s")
    want = dict(ishigami=("sobol", 32768), g_sobol=("sobol", 40960), g_morris=("morris", 450),
                oat_sim=("oat", 7), sobol_sim=("sobol", 48))
    for key, (design, points) in want.items():
        d = gr.design(state[key])
        assert d.attrs["design"] == design, (key, d.attrs)
        assert len(d) == points and list(d["point"]) == list(range(points)), (key, len(d))


@check
def ishigami_cli_contains_closed_form():
    j = analyze("sobol", state["ishigami"])
    state["ishigami_json"] = j
    assert j["analysis"] == "sobol" and j["points"] == 32768 and j["samples"] == 4096, j
    assert j["second_order"] is True and j["scheduler"] == "ishigami" and j["metric"] == "value"
    s1, st, s13, var = ishigami_closed_form()
    assert abs(j["variance"] / var - 1) < 0.02, (j["variance"], var)  # QMC estimate of Var f
    fr = factors_frame(j)
    assert list(fr.index) == ["x1", "x2", "x3"], list(fr.index)
    for i, x in enumerate(fr.index):
        r = fr.loc[x]
        assert r.S1_conf < 0.05 and r.ST_conf < 0.05, (x, r.to_dict())
        assert within(r.S1, r.S1_conf, s1[i]), (x, "S1", r.S1, r.S1_conf, s1[i])
        assert within(r.ST, r.ST_conf, st[i]), (x, "ST", r.ST, r.ST_conf, st[i])
    s2 = {(e["factor_a"], e["factor_b"]): (e["S2"], e["S2_conf"]) for e in j["S2"]}
    assert sorted(s2) == [("x1", "x2"), ("x1", "x3"), ("x2", "x3")], s2
    assert within(*s2[("x1", "x3")], s13), (s2[("x1", "x3")], s13)
    assert within(*s2[("x1", "x2")], 0.0), s2[("x1", "x2")]
    assert within(*s2[("x2", "x3")], 0.0), s2[("x2", "x3")]


@check
def sobol_g_cli_contains_closed_form():
    j = analyze("sobol", state["g_sobol"])
    state["g_sobol_json"] = j
    assert j["points"] == 40960 and j["samples"] == 4096 and j["second_order"] is False, j
    assert "S2" not in j
    s1, st, v = g_closed_form()
    assert abs(j["variance"] / v - 1) < 0.02, (j["variance"], v)
    fr = factors_frame(j)
    assert list(fr.index) == [f"x{i}" for i in range(1, 9)], list(fr.index)
    for i, x in enumerate(fr.index):
        r = fr.loc[x]
        assert r.S1_conf < 0.05 and r.ST_conf < 0.05, (x, r.to_dict())
        assert within(r.S1, r.S1_conf, s1[i]), (x, "S1", r.S1, r.S1_conf, s1[i])
        assert within(r.ST, r.ST_conf, st[i]), (x, "ST", r.ST, r.ST_conf, st[i])


@check
def sobol_g_morris_ranks_inputs():
    j = analyze("morris", state["g_morris"])
    state["g_morris_json"] = j
    assert j["analysis"] == "morris" and j["trajectories"] == 50 and j["points"] == 450, j
    fr = factors_frame(j)
    m = [fr.loc[f"x{i}", "mu_star"] for i in range(1, 9)]
    assert m[0] > m[1] > m[2] > m[3] > max(m[4:]), m
    assert (fr["sigma"] >= 0).all() and (fr["mu_star"] >= fr["mu"].abs() - 1e-12).all(), fr


def compare_estimates(py, j, est_cols, conf_cols, label, conf_ratio=True):
    cli = factors_frame(j)
    assert list(py.index) == list(cli.index), (label, list(py.index), list(cli.index))
    for c in est_cols:
        diff = np.abs(py[c].to_numpy(float) - cli[c].to_numpy(float))
        assert np.all(diff < 1e-9), (label, c, py[c].tolist(), cli[c].tolist())
    for c in conf_cols:
        a, b = py[c].to_numpy(float), cli[c].to_numpy(float)
        assert np.all(np.isfinite(a)) and np.all(np.isfinite(b)), (label, c, a, b)
        if conf_ratio:
            ratio = a / b
            assert np.all((ratio > 0.7) & (ratio < 1.4)), (label, c, ratio.tolist())


def compare_attrs(py, j, keys, label):
    for k in keys:
        a, b = py.attrs[k], j[k]
        if isinstance(b, float):
            assert abs(a - b) <= 1e-12 * max(1.0, abs(b)), (label, k, a, b)
        else:
            assert a == b, (label, k, a, b)
    n_py, n_j = py.attrs["seed_noise"], j["seed_noise"]
    for k, v in n_j.items():
        a = n_py[k]
        if v is None:
            assert isinstance(a, float) and math.isnan(a), (label, "seed_noise", k, a)
        else:
            assert abs(a - v) <= 1e-12 * max(1.0, abs(v)), (label, "seed_noise", k, a, v)


SOBOL_KEYS = ["analysis", "metric", "scheduler", "paired_vs", "quantity", "points", "resamples", "confidence",
              "samples", "second_order", "variance"]
MORRIS_KEYS = ["analysis", "metric", "scheduler", "paired_vs", "quantity", "points", "resamples", "confidence",
               "trajectories"]
OAT_KEYS = ["analysis", "metric", "scheduler", "paired_vs", "quantity", "points", "base_value"]


@check
def python_sobol_matches_cli():
    for key in ("ishigami", "g_sobol"):
        j = state[f"{key}_json"]
        py = gr.sobol_indices(state[key])
        assert list(py.columns) == ["S1", "S1_conf", "ST", "ST_conf"] and py.index.name == "factor", py
        compare_estimates(py, j, ["S1", "ST"], ["S1_conf", "ST_conf"], key)
        compare_attrs(py, j, SOBOL_KEYS, key)
        s2 = py.attrs["S2"]
        assert list(s2.columns) == ["factor_a", "factor_b", "S2", "S2_conf"], s2
        if not j["second_order"]:
            assert len(s2) == 0, s2
            continue
        cli = pd.DataFrame(j["S2"])
        assert s2[["factor_a", "factor_b"]].values.tolist() == cli[["factor_a", "factor_b"]].values.tolist()
        assert np.all(np.abs(s2["S2"].to_numpy() - cli["S2"].to_numpy()) < 1e-9), (s2, cli)
        ratio = s2["S2_conf"].to_numpy() / cli["S2_conf"].to_numpy()
        assert np.all((ratio > 0.7) & (ratio < 1.4)), ratio


@check
def python_morris_matches_cli():
    j = state["g_morris_json"]
    py = gr.morris_indices(state["g_morris"])
    assert list(py.columns) == ["mu", "mu_star", "sigma", "mu_star_conf"], py
    compare_estimates(py, j, ["mu", "mu_star", "sigma"], ["mu_star_conf"], "g_morris")
    compare_attrs(py, j, MORRIS_KEYS, "g_morris")


@check
def python_matches_cli_schedulers_paired_seeds():
    # Two schedulers, two seeds: the analysed scheduler, a paired change and another metric;
    # the seed noise is measured (two seeds per point). N = 8 samples: estimates only.
    variants = [[], ["--scheduler", "delay-first"], ["--paired-vs", "delay-first"],
                ["--metric", "total_cost_usd", "--scheduler", "delay-first", "--paired-vs", "bace-pipe"]]
    for args in variants:
        kw = {a[2:].replace("-", "_"): v for a, v in zip(args[::2], args[1::2])}
        j = analyze("oat", state["oat_sim"], *args)
        py = gr.oat_effects(state["oat_sim"], **kw)
        assert list(py.columns) == ["levels", "y_min", "y_max", "range"], py
        compare_estimates(py, j, ["levels", "y_min", "y_max", "range"], [], f"oat {args}")
        compare_attrs(py, j, OAT_KEYS, f"oat {args}")
        assert j["seed_noise"]["seeds_min"] == 2 and j["seed_noise"]["rms_standard_error"] is not None, j
        assert py["levels"].tolist() == [3, 3], py
        j = analyze("sobol", state["sobol_sim"], *args)
        py = gr.sobol_indices(state["sobol_sim"], **kw)
        compare_estimates(py, j, ["S1", "ST"], ["S1_conf", "ST_conf"], f"sobol {args}", conf_ratio=False)
        compare_attrs(py, j, SOBOL_KEYS, f"sobol {args}")
        assert abs(py.attrs["S2"]["S2"].iloc[0] - j["S2"][0]["S2"]) < 1e-9, (py.attrs["S2"], j["S2"])
        dv = gr.design_values(state["sobol_sim"], **kw)
        assert list(dv.columns) == ["point", "y", "n_seeds", "se"] and (dv["n_seeds"] == 2).all(), dv
        assert dv.attrs["seed_noise"] == py.attrs["seed_noise"], (dv.attrs, py.attrs)
    # design_values by hand from load(): the paired change per seed, then the mean.
    df = gr.load(state["oat_sim"])
    a = df[df.scheduler == "bace-pipe"].set_index(["point", "seed"])["avg_jct_s"]
    b = df[df.scheduler == "delay-first"].set_index(["point", "seed"])["avg_jct_s"]
    rel = (a / b - 1).groupby(level="point")
    dv = gr.design_values(state["oat_sim"], paired_vs="delay-first")
    assert np.allclose(dv["y"], rel.mean().to_numpy(), rtol=0, atol=1e-12), (dv, rel.mean())
    assert np.allclose(dv["se"], (rel.std(ddof=1) / np.sqrt(rel.count())).to_numpy(), rtol=0, atol=1e-12)


def csv_rows(raw):
    assert raw.endswith(b"\r\n") and raw.count(b"\n") == raw.count(b"\r\n"), raw[:200]
    # round_trip: pandas' default float parser may be 1 ulp off the shortest round-trip text
    return pd.read_csv(io.BytesIO(raw), keep_default_na=False, na_values=[""], float_precision="round_trip",
                       dtype={"factor": str, "factor_b": str})


def same_number(csv_value, json_value, what):
    if json_value is None:
        assert isinstance(csv_value, float) and math.isnan(csv_value), (what, csv_value)
    else:
        assert float(csv_value) == float(json_value), (what, csv_value, json_value)


@check
def csv_equals_json():
    for key, method, cols in (("ishigami", "sobol", ["S1", "S1_conf", "ST", "ST_conf"]),
                              ("g_sobol", "sobol", ["S1", "S1_conf", "ST", "ST_conf"]),
                              ("g_morris", "morris", ["mu", "mu_star", "sigma", "mu_star_conf"]),
                              ("oat_sim", "oat", ["levels", "y_min", "y_max", "range"])):
        j = state.get(f"{key}_json") or analyze(method, state[key])
        c = csv_rows(analyze(method, state[key], fmt="csv"))
        second = bool(j.get("second_order"))
        want = ["factor"] + (["factor_b"] if second else []) + cols + (["S2", "S2_conf"] if second else [])
        assert list(c.columns) == want, (key, list(c.columns), want)
        d = len(j["factors"])
        assert len(c) == d + (d * (d - 1) // 2 if second else 0), (key, len(c))
        for i, f in enumerate(j["factors"]):
            row = c.iloc[i]
            assert row["factor"] == f["factor"], (key, row["factor"], f["factor"])
            if second:
                assert isinstance(row["factor_b"], float) and math.isnan(row["factor_b"]), row  # empty cell
                assert math.isnan(row["S2"]) and math.isnan(row["S2_conf"]), row
            for col in cols:
                same_number(row[col], f[col], (key, f["factor"], col))
        if second:
            for i, e in enumerate(j["S2"]):
                row = c.iloc[d + i]
                assert (row["factor"], row["factor_b"]) == (e["factor_a"], e["factor_b"]), (row, e)
                for col in cols:
                    assert math.isnan(row[col]), (key, col, row)
                same_number(row["S2"], e["S2"], (key, "S2", i))
                same_number(row["S2_conf"], e["S2_conf"], (key, "S2_conf", i))


@check
def analyze_is_deterministic():
    path = state["ishigami"]
    one = run([GEOPIPE, "analyze", "sobol", path, "--format", "json"]).stdout
    two = run([GEOPIPE, "analyze", "sobol", path, "--format", "json"]).stdout
    assert one == two, "two runs gave different JSON"
    base = json.loads(one)
    other = analyze("sobol", path, "--seed", "2")
    none = analyze("sobol", path, "--resamples", "0")
    assert none["resamples"] == 0 and other["resamples"] == 1000
    for b, o, n in zip(base["factors"], other["factors"], none["factors"]):
        for c in ("S1", "ST"):
            assert b[c] == o[c] == n[c], (b, o, n)
            assert o[c + "_conf"] != b[c + "_conf"] and o[c + "_conf"] is not None, (c, b, o)
            assert n[c + "_conf"] is None, n
    for b, o, n in zip(base["S2"], other["S2"], none["S2"]):
        assert b["S2"] == o["S2"] == n["S2"] and o["S2_conf"] != b["S2_conf"] and n["S2_conf"] is None, (b, o, n)
    assert base["variance"] == other["variance"] == none["variance"]
    m1 = analyze("morris", state["g_morris"], "--seed", "2")
    m0 = analyze("morris", state["g_morris"], "--resamples", "0")
    for b, o, n in zip(state["g_morris_json"]["factors"], m1["factors"], m0["factors"]):
        assert b["mu_star"] == o["mu_star"] == n["mu_star"] and b["mu_star_conf"] != o["mu_star_conf"], (b, o)
        assert n["mu_star_conf"] is None, n
    # The Python functions: the same seed gives the same CIs, resamples=0 NaN CIs.
    a = gr.sobol_indices(state["g_sobol"], seed=7)
    b = gr.sobol_indices(state["g_sobol"], seed=7)
    c = gr.sobol_indices(state["g_sobol"], seed=8)
    z = gr.sobol_indices(state["g_sobol"], resamples=0)
    assert a.equals(b) and not a["S1_conf"].equals(c["S1_conf"]) and (a["S1"] == c["S1"]).all()
    assert z[["S1_conf", "ST_conf"]].isna().all().all() and (z["ST"] == a["ST"]).all()
    mz = gr.morris_indices(state["g_morris"], resamples=0)
    assert mz["mu_star_conf"].isna().all()


@check
def independent_numpy_ishigami():
    """Saltelli 2010 / Jansen 1999 / Saltelli 2002, SALib's standardised form, straight from h5py."""
    j = state["ishigami_json"]
    with h5py.File(state["ishigami"], "r") as f:
        design = f["design"][:]
        sc = f["scenarios"][:]
        me = f["metrics"][:]
        assert f.attrs["design"] in ("sobol", b"sobol")
    me = me[(me["id"] >= 0) & (me["status"] == 1)]
    point_of = dict(zip(sc["id"].tolist(), sc["point"].tolist()))
    P, D = len(design), 3
    y = np.full(P, np.nan)
    pts = np.array([point_of[i] for i in me["id"].tolist()])
    assert len(np.unique(pts)) == P == len(pts), (P, len(pts))  # one seed: one value per point
    y[pts] = me["value"]
    # The stored values are Ishigami's at the point's parameters, which map the unit coordinates.
    x = np.empty((P, D))
    x[sc["point"]] = np.column_stack([sc[f"x{i}"] for i in range(1, 4)])
    u = np.column_stack([design[f"x{i}"] for i in range(1, 4)])
    assert np.all(np.abs(x - (-math.pi + 2 * math.pi * u)) < 1e-12), "x = -pi + 2 pi u"
    assert np.all(np.abs(y - ishigami(x[:, 0], x[:, 1], x[:, 2])) < 1e-12), "stored value = ishigami(x)"
    # Saltelli layout with second order: k = 2D + 2 = 8 points per sample.
    k = 2 * D + 2
    n = P // k
    U = u.reshape(n, k, D)
    for jj in range(D):
        ab, ba = U[:, 1 + jj, :], U[:, 1 + D + jj, :]
        for c in range(D):
            src_ab = U[:, k - 1, c] if c == jj else U[:, 0, c]
            src_ba = U[:, 0, c] if c == jj else U[:, k - 1, c]
            assert np.array_equal(ab[:, c], src_ab) and np.array_equal(ba[:, c], src_ba), (jj, c)
    Y = (y - y.mean()) / y.std()
    A, B = Y[0::k], Y[k - 1::k]
    AB = np.column_stack([Y[1 + jj::k] for jj in range(D)])
    BA = np.column_stack([Y[1 + D + jj::k] for jj in range(D)])
    V = np.var(np.r_[A, B])
    S1 = [np.mean(B * (AB[:, jj] - A)) / V for jj in range(D)]
    ST = [0.5 * np.mean((A - AB[:, jj]) ** 2) / V for jj in range(D)]
    fr = factors_frame(j)
    for jj in range(D):
        assert abs(S1[jj] - fr["S1"].iloc[jj]) < 1e-9, ("S1", jj, S1[jj], fr["S1"].iloc[jj])
        assert abs(ST[jj] - fr["ST"].iloc[jj]) < 1e-9, ("ST", jj, ST[jj], fr["ST"].iloc[jj])
    for e in j["S2"]:
        a, b = int(e["factor_a"][1:]) - 1, int(e["factor_b"][1:]) - 1
        vab = np.mean(BA[:, a] * AB[:, b] - A * B) / V
        s2 = vab - S1[a] - S1[b]
        assert abs(s2 - e["S2"]) < 1e-9, (e, s2)
    raw_var = np.var(np.r_[y[0::k], y[k - 1::k]])
    assert abs(raw_var / j["variance"] - 1) < 1e-9, (raw_var, j["variance"])
    # design() and design_values() are these raw arrays.
    d = gr.design(state["ishigami"])
    assert list(d.columns) == ["point", "x1", "x2", "x3"] and np.array_equal(d[["x1", "x2", "x3"]].to_numpy(), u)
    dv = gr.design_values(state["ishigami"])
    assert np.array_equal(dv["y"].to_numpy(), y) and (dv["n_seeds"] == 1).all() and dv["se"].isna().all()
    # The G files hold G's values too.
    for key in ("g_sobol", "g_morris"):
        dsg = gr.design(state[key])
        ug = dsg[[f"x{i}" for i in range(1, 9)]].to_numpy()
        yg = gr.design_values(state[key])["y"].to_numpy()
        assert np.all(np.abs(yg - g_function(ug)) < 1e-12), key


def expect_value_error(fn, *words):
    try:
        fn()
    except ValueError as e:
        msg = str(e)
        for w in words:
            assert w in msg, (w, msg)
        return msg
    raise AssertionError(f"no ValueError (expected one naming {words})")


@check
def cli_errors():
    ish, grid = state["ishigami"], state["grid"]
    p = analyze("morris", ish, expect=2)
    err = p.stderr.decode()
    assert 'design = "sobol"' in err and os.path.basename(ish) in err and p.stdout == b"", err
    p = analyze("sobol", ish, "--metric", "nope", expect=2)
    assert "nope" in p.stderr.decode() and "unknown metric" in p.stderr.decode(), p.stderr
    p = analyze("sobol", grid, expect=2)
    err = p.stderr.decode()
    assert "no design matrix" in err and os.path.basename(grid) in err and "grid" in err, err
    p = analyze("sobol", ish, "--scheduler", "bace-pipe", expect=2)
    assert "bace-pipe" in p.stderr.decode(), p.stderr
    p = analyze("oat", state["oat_sim"], "--paired-vs", "nope", expect=2)
    assert "nope" in p.stderr.decode(), p.stderr


@check
def python_errors():
    ish, grid = state["ishigami"], state["grid"]
    expect_value_error(lambda: gr.morris_indices(ish), 'design = "sobol"', ish)
    expect_value_error(lambda: gr.oat_effects(ish), 'design = "sobol"')
    expect_value_error(lambda: gr.sobol_indices(state["g_morris"]), 'design = "morris"')
    expect_value_error(lambda: gr.sobol_indices(ish, metric="nope"), "unknown metric 'nope'")
    expect_value_error(lambda: gr.sobol_indices(ish, metric="total_cost_usd"), "a simulation's metric")
    expect_value_error(lambda: gr.sobol_indices(ish, scheduler="bace-pipe"), "'bace-pipe' is not in")
    expect_value_error(lambda: gr.oat_effects(state["oat_sim"], paired_vs="nope"), "'nope' is not in")
    expect_value_error(lambda: gr.oat_effects(state["oat_sim"], paired_vs="bace-pipe"), "analysed scheduler itself")
    expect_value_error(lambda: gr.sobol_indices(ish, confidence=1.5), "confidence")
    expect_value_error(lambda: gr.sobol_indices(grid), "no design matrix", "grid")
    expect_value_error(lambda: gr.design(grid), "no design matrix")
    expect_value_error(lambda: gr.design_values(grid), "no design matrix")
    # A point without results: an incomplete copy of the Morris file (one /metrics row made a
    # fill row, complete = 0, as an interrupted run leaves it).
    part = os.path.join(TMP, "g-morris-partial.h5")
    shutil.copyfile(state["g_morris"], part)
    with h5py.File(part, "r+") as f:
        m = f["metrics"][:]
        sc = f["scenarios"][:]
        gone = int(m["id"][17])
        m["id"][17], m["status"][17] = -1, 0
        f["metrics"][...] = m
        f.attrs["complete"] = np.int8(0)
        point = int(sc["point"][sc["id"] == gone][0])
    want = "1 scenario of sobol-g has no result (the first at point %d; the file holds results of 449 of 450" % point
    expect_value_error(lambda: gr.morris_indices(part), want)
    p = analyze("morris", part, expect=2)
    assert want in p.stderr.decode() and "geopipe sweep --resume" in p.stderr.decode(), p.stderr


finish(TMP)
