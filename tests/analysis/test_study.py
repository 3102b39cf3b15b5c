#!/usr/bin/python3
"""End-to-end test of scripts/study.sh + scripts/study_report.py on reduced study sweeps.

usage: test_study.py GEOPIPE_BINARY PROJECT_SOURCE_DIR

Writes reduced copies of sweeps/studies/bace-sobol.toml and bace-morris.toml into a temporary
directory with sed (samples = 8, trajectories = 4, seeds = 2, 30 jobs per scenario, the base
path made absolute), adds a copy of the test-function sweep ishigami-sobol.toml (which
study.sh must not run), runs `scripts/study.sh --sweeps TMP --out TMP/out --geopipe BIN`, and
checks: the bad-argument and -h exits, the result files, REPORT.md's sections and that its
numbers are the JSON's, every expected PNG (signature, IHDR size, not tiny), every JSON parses
with the expected keys, then a second run that reuses every scenario (--resume). Prints one
line per check and "N passed, M failed"; exits 1 if any failed. GEOPIPE_KEEP_TMP=1 keeps the
temporary directory.
"""

import json
import os
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
STUDY = os.path.join(SRC, "scripts", "study.sh")
TMP = tempfile.mkdtemp(prefix="geopipe-study-")
SWEEPS = os.path.join(TMP, "sweeps")
OUT = os.path.join(TMP, "out")
ENV = dict(os.environ, MPLBACKEND="Agg", MPLCONFIGDIR=os.path.join(TMP, "mpl"))
MINUS = "\u2212"
STEMS = ("bace-sobol", "bace-morris")
TAGS = ("avg_jct_s", "total_cost_usd", "avg_jct_s_vs-delay-first", "total_cost_usd_vs-delay-first")
POINTS = {"bace-sobol": 8 * (8 + 2), "bace-morris": 4 * (8 + 1)}

from harness import check, finish, results  # noqa: E402,F401 - tests/analysis/harness.py


def run(cmd, expect=0, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=300, **kw)
    if p.returncode != expect:
        raise AssertionError(f"{' '.join(cmd)} exited with {p.returncode} (expected {expect})\n"
                             f"stdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    return p


@check
def reduced_sweeps_written_with_sed():
    os.makedirs(SWEEPS)
    base = os.path.join(SRC, "sweeps", "base", "six-regions.toml")
    for stem in STEMS:
        src = os.path.join(SRC, "sweeps", "studies", stem + ".toml")
        p = run(["sed", "-e", "s/^samples = .*/samples = 8/", "-e", "s/^trajectories = .*/trajectories = 4/",
                 "-e", 's/^seeds = .*/seeds = 2\\nset = { "workload.num_jobs" = 30 }/',
                 "-e", f's|^base = .*|base = "{base}"|', src])
        text = p.stdout
        for want in ('set = { "workload.num_jobs" = 30 }', f'base = "{base}"', "seeds = 2"):
            assert want in text, (stem, want)
        assert ("samples = 8" in text) if stem.endswith("sobol") else ("trajectories = 4" in text), stem
        with open(os.path.join(SWEEPS, stem + ".toml"), "w") as f:
            f.write(text)
    # a test-function sweep in the same directory: study.sh selects bace-*.toml only
    shutil.copy(os.path.join(SRC, "sweeps", "studies", "ishigami-sobol.toml"), SWEEPS)


@check
def bad_arguments_exit_2_and_help_exits_0():
    for args in (["--bogus"], ["--np"], ["--threads", "x"], ["--np", "-1"]):
        p = run(["bash", STUDY] + args, expect=2)
        assert "study.sh:" in p.stderr, p.stderr
    p = run(["bash", STUDY, "-h"])
    assert "--sweeps DIR" in p.stdout and "--geopipe BIN" in p.stdout, p.stdout
    p = run(["bash", STUDY, "--sweeps", os.path.join(TMP, "nothing-here"), "--out", os.path.join(TMP, "x"),
             "--geopipe", GEOPIPE], expect=2)
    assert "no bace-" in p.stderr, p.stderr


@check
def study_sh_end_to_end():
    run(["bash", STUDY, "--sweeps", SWEEPS, "--out", OUT, "--geopipe", GEOPIPE, "--threads", "2"], cwd=TMP)
    h5 = sorted(f for f in os.listdir(os.path.join(OUT, "h5")) if f.endswith(".h5") and ".retired" not in f)
    assert h5 == ["bace-morris.h5", "bace-sobol.h5"], h5  # not ishigami-sobol


@check
def json_files_parse():
    for stem in STEMS:
        for tag in TAGS:
            with open(os.path.join(OUT, f"{stem}_{tag}.json"), encoding="utf-8") as f:
                js = json.load(f)
            design = stem.split("-")[-1]
            assert js["analysis"] == design, (stem, tag, js["analysis"])
            assert js["metric"] == tag.split("_vs-")[0] and js["scheduler"] == "bace-pipe", (stem, tag)
            assert js["paired_vs"] == ("delay-first" if "_vs-" in tag else None), (stem, tag, js["paired_vs"])
            assert js["points"] == POINTS[stem], (stem, js["points"])
            assert len(js["factors"]) == 8 and js["seed_noise"]["seeds_min"] == 2, (stem, tag)
            keys = {"S1", "S1_conf", "ST", "ST_conf"} if design == "sobol" else {"mu", "mu_star", "sigma", "mu_star_conf"}
            assert keys <= set(js["factors"][0]), (stem, tag, js["factors"][0])


@check
def pngs_valid():
    for stem in STEMS:
        for tag in TAGS:
            path = os.path.join(OUT, f"{stem}_{tag}.png")
            size = os.path.getsize(path)
            with open(path, "rb") as f:
                head = f.read(24)
            assert head[:8] == b"\x89PNG\r\n\x1a\n", (path, head[:8])
            assert head[12:16] == b"IHDR", path
            w, h = struct.unpack(">II", head[16:24])
            assert 600 <= w <= 2400 and 400 <= h <= 1600, (path, w, h)  # 150 dpi, modest size
            assert 10_000 < size < 400_000, (path, size)


@check
def report_sections_and_numbers():
    rep = open(os.path.join(OUT, "REPORT.md"), encoding="utf-8").read()
    for want in ("# Sensitivity of bace-pipe", "## How this was made", "Generated by `scripts/study.sh",
                 "Wall time of the sweep step", "## 1. What decides bace-pipe's JCT?",
                 "## 2. What decides bace-pipe's cost?", "## 3. What decides its advantage over delay-first?",
                 "### change of average JCT, bace-pipe vs delay-first", "Ranking by ST:", "Ranking by Morris",
                 "Sum of S1 =", "indistinguishable from 0", "Seed noise: Sobol'", "## Where bace-pipe wins",
                 "of the configurations", "## Morris against Sobol'", "## Checks of the data", "where_wins.csv"):
        assert want in rep, want
    assert "ishigami" not in rep
    assert "| 320 |" in rep and "| 144 |" in rep, "scenario counts"
    # every figure is linked, and the table's numbers are the JSON's
    for stem in STEMS:
        for tag in TAGS:
            assert f"({stem}_{tag}.png)" in rep, (stem, tag)
    with open(os.path.join(OUT, "bace-sobol_avg_jct_s_vs-delay-first.json"), encoding="utf-8") as f:
        js = json.load(f)
    for fa in js["factors"]:
        cell = f"{fa['ST']:.3f} \u00b1 {fa['ST_conf']:.3f}".replace("-", MINUS)
        assert f"| `{fa['factor']}` |" in rep and cell in rep, (fa["factor"], cell)
    # the seed-noise share is stated, with the warning iff it is above 25 %
    share = js["seed_noise"]["share"]
    section = rep.split("### change of average JCT")[1].split("###")[0]
    assert f"**{100 * share:.1f} %** of Var(y)" in section, share
    assert os.path.exists(os.path.join(OUT, "where_wins.csv"))


@check
def outputs_small_and_no_hdf5_beside_report():
    total = 0
    for f in os.listdir(OUT):
        p = os.path.join(OUT, f)
        if os.path.isfile(p):
            assert not f.endswith(".h5"), f
            total += os.path.getsize(p)
    assert total < 1_500_000, total


@check
def second_run_reuses_everything():
    p = run(["bash", STUDY, "--sweeps", SWEEPS, "--out", OUT, "--geopipe", GEOPIPE, "--threads", "2"], cwd=TMP)
    assert "to run 0" in p.stderr, p.stderr[-2000:]
    rep = open(os.path.join(OUT, "REPORT.md"), encoding="utf-8").read()
    assert "0 (reused 320)" in rep and "0 (reused 144)" in rep, "computed in this run"


finish(TMP)
