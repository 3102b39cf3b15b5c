#!/usr/bin/python3
"""Hold geopipe's per-iteration model against published measured runs (docs/validation.md).

usage: validate_model.py [--geopipe BIN] [--cases CSV] [--sync-cases CSV] [--plot FIG.png]
                         [--markdown OUT.md] [--write-predictions CSV | --check CSV] [--calibrate] [--quiet]

Each row of sweeps/validation/cases.csv is one measured run: a scenario of sweeps/validation/
(its testbed), one job (model, stages, GPUs per stage, micro-batch size and count, and
data-parallel replicas: the optional last column, default 1), the network of a tc-shaped testbed
(``D ms/R gbps``: every [[network.link]] of the scenario, and its network.mesh_* if it has a
mesh, gets that one-way latency and rate), ``--set`` overrides, the measured seconds per
iteration, the case's role in the calibration and its source. For every case the script writes a
one-job trace (one iteration, arriving at 0), runs ``geopipe run SCENARIO --scheduler
delay-first --jobs-csv`` with the case's overrides and reads the job's ``first_iteration_s``: the model's iteration time, with the built-in GPU
types' calibrated efficiency and the default link efficiency.

It prints one line per case (measured, predicted, relative error) and the median and maximum
|error| over all cases, over the held-out ones (those no parameter was fitted on) and per source.

Each row of sweeps/validation/sync_cases.csv is one measured all-reduce of data-parallel
synchronisation: a scenario whose machines are regions of one GPU, a model, the number of
replicas D (one per machine), the network, overrides, the measured seconds. The script runs the
model's job with S = 1 stage and D replicas, then with one, and takes the difference of their
first_iteration_s: the all-reduce's time in the model (docs/model.md, "Data parallelism").
These cases are reported apart ("synchronisation"): they measure a collective, not an
iteration, and no parameter is fitted on them.

  --plot FIG.png            predicted against measured, one colour per source, and the error of each case
  --markdown OUT.md         the per-case table and the summary as markdown (docs/validation.md's tables)
  --write-predictions CSV   the predictions, each the shortest text that reads back as the same double
  --check CSV               exit 1 unless every prediction equals the file's bit for bit (the regression
                            test: a change that moves the model's error is seen)
  --calibrate               fit the calibrated parameters on the cases whose role is fit:...  and print
                            them (the values docs/validation.md, src/model/gpu.cpp and
                            src/model/scenario.h hold): per GPU type mfu_max and mfu_half_hidden, the
                            link efficiency, and the case parameters written @name in the set column

Roles: ``fit:<GPU type>`` (its efficiency curve is fitted on this case), ``fit:link`` (the link
efficiency), ``fit:<name>`` (the case parameter @name), ``held-out`` (nothing is fitted on it).
Case parameters (``@name`` in a set value) take their values from sweeps/validation/parameters.csv.

Exit codes: 0 done, 1 a check failed or geopipe failed on a case, 2 bad input. Run with Debian's
/usr/bin/python3 (scipy for --calibrate, matplotlib for --plot).
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
VALIDATION = os.path.join(REPO, "sweeps", "validation")
TRACE_HEADER = "arrival_s,model,stages,gpus_per_stage,micro_batch_size,micro_batches,iterations\n"
ROLES_FIT = "fit:"


TRACE_HEADER_DP = TRACE_HEADER.rstrip("\n") + ",data_parallel\n"


class InputError(Exception):
    pass


def read_csv(path: str) -> list[dict]:
    """Rows of a CSV whose lines starting with '#' are comments."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            lines = [ln for ln in f if not ln.lstrip().startswith("#")]
    except OSError as e:
        raise InputError(f"{path}: {e.strerror}") from None
    return list(csv.DictReader(lines))


def find_geopipe(arg: str | None) -> str:
    for cand in (arg, os.environ.get("GEOPIPE"), os.path.join(REPO, "build", "src", "geopipe"), shutil.which("geopipe")):
        if cand and os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    raise InputError("no geopipe binary: build it (cmake --build build --target geopipe), or give --geopipe BIN or $GEOPIPE")


class Case:
    def __init__(self, row: dict, line: int, cases_dir: str, file: str = "cases.csv"):
        self.name = row["case"]
        self.line = line
        self.file = file  # the cases file's name, for errors
        self.scenario = os.path.join(cases_dir, row["scenario"])
        self.model = row["model"]
        self.job = [row[k] for k in ("stages", "gpus_per_stage", "micro_batch_size", "micro_batches")]
        self.network = row["network"].strip()
        self.sets = [s.strip() for s in row["set"].split(";") if s.strip()]
        self.measured_s = float(row["measured_s"])
        self.role = row["role"].strip()
        self.source = row["source"]
        if not (self.role == "held-out" or self.role.startswith(ROLES_FIT)):
            raise InputError(f"{self.file}:{line}: role '{self.role}' (expected held-out or fit:<what>)")
        if not os.path.isfile(self.scenario):
            raise InputError(f"{self.file}:{line}: scenario '{row['scenario']}' does not exist")
        with open(self.scenario, "rb") as f:
            self.toml = tomllib.load(f)
        spec = next((m for m in self.toml.get("model", []) if m["name"] == self.model), None)
        if spec is None:
            raise InputError(f"{self.file}:{line}: model '{self.model}' is not a [[model]] of {row['scenario']}")
        self.hidden, self.seq = spec["hidden"], spec["seq_len"]
        for s in self.sets:
            if s.split("=")[0] == f"model.{self.model}.seq_len":
                self.seq = int(s.split("=", 1)[1])
        gpus = {r["gpu"] for r in self.toml["cluster"]["region"]}
        for s in self.sets:
            if s.startswith("cluster.region.") and s.split("=")[0].endswith(".gpu"):
                gpus = {s.split("=", 1)[1]}
        if len(gpus) != 1:
            raise InputError(f"{self.file}:{line}: the scenario's regions have several GPU types {sorted(gpus)}")
        self.gpu = gpus.pop()
        self.has_mesh = bool(self.toml.get("network", {}).get("mesh_bandwidth_gbps"))
        try:
            self.replicas = int(row.get("data_parallel") or 1)
            assert self.replicas >= 1
        except (ValueError, AssertionError):
            raise InputError(f"{self.file}:{line}: data_parallel '{row.get('data_parallel')}' (expected an integer >= 1)") from None

    @property
    def source_group(self) -> str:
        return self.name.split("-")[0]

    def link_sets(self) -> list[str]:
        if not self.network:
            return []
        try:
            lat, rate = self.network.split("/")
            assert lat.endswith("ms") and rate.endswith("gbps")
            lat_ms, gbps = float(lat[:-2]), float(rate[:-4])
        except (ValueError, AssertionError):
            raise InputError(f"{self.file}:{self.line}: network '{self.network}' (expected e.g. 10ms/1gbps)") from None
        out = []
        if self.has_mesh:
            out += [f"network.mesh_latency_ms={lat_ms:g}", f"network.mesh_bandwidth_gbps={gbps:g}"]
        for link in self.toml["network"].get("link", []):
            a, b = link["regions"]
            out += [f"network.link.{a}/{b}.latency_ms={lat_ms:g}", f"network.link.{a}/{b}.bandwidth_gbps={gbps:g}"]
        return out


class SyncCase(Case):
    """A row of sync_cases.csv: an all-reduce among data_parallel replicas of a one-stage job."""

    def __init__(self, row: dict, line: int, cases_dir: str, file: str = "sync_cases.csv"):
        row = dict(row, stages="1", gpus_per_stage="1", micro_batch_size="1", micro_batches="1")
        super().__init__(row, line, cases_dir, file)
        try:
            assert int(row["data_parallel"]) >= 2
        except (ValueError, AssertionError, TypeError):
            raise InputError(f"{self.file}:{line}: data_parallel '{row.get('data_parallel')}' (expected an integer >= 2)") from None


def load_cases(path: str, kind=Case) -> list:
    rows = read_csv(path)
    if not rows:
        raise InputError(f"{path}: no cases")
    d = os.path.dirname(os.path.abspath(path))
    cases = [kind(r, i + 2, d, os.path.basename(path)) for i, r in enumerate(rows)]
    names = [c.name for c in cases]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise InputError(f"{path}: repeated case names {sorted(dup)}")
    return cases


def load_parameters(path: str) -> dict[str, float]:
    return {r["name"]: float(r["value"]) for r in read_csv(path)} if os.path.isfile(path) else {}


def substitute(sets: list[str], params: dict[str, float], case: Case) -> list[str]:
    out = []
    for s in sets:
        path, _, value = s.partition("=")
        if value.startswith("@"):
            if value[1:] not in params:
                raise InputError(f"{case.file}:{case.line}: no value for case parameter {value} (sweeps/validation/parameters.csv)")
            value = repr(params[value[1:]])
        out.append(f"{path}={value}")
    return out


def run_one_job(geopipe: str, case: Case, tmp: str, params: dict[str, float], tag: str, header: str, row: list[str],
                extra: list[str] = ()) -> dict:
    """The job row of `geopipe run` of the case's scenario (delay-first, the case's network and
    overrides) replaying a one-job trace of `header` and `row`."""
    trace = os.path.join(tmp, tag + ".csv")
    with open(trace, "w") as f:
        f.write(header + ",".join(row) + "\n")
    jobs = os.path.join(tmp, tag + ".jobs.csv")
    cmd = [geopipe, "run", case.scenario, "--scheduler", "delay-first", "--jobs-csv", jobs, "--set", f"workload.trace={trace}"]
    for s in case.link_sets() + substitute(case.sets, params, case) + list(extra):
        cmd += ["--set", s]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"case {case.name}: geopipe exited with {r.returncode}: {r.stderr.strip()}")
    with open(jobs, newline="") as f:
        rows = list(csv.DictReader(f))
    if len(rows) != 1:
        raise RuntimeError(f"case {case.name}: expected one job row, got {len(rows)}")
    return rows[0]


def predict(geopipe: str, case: Case, tmp: str, params: dict[str, float], extra: list[str] = ()) -> float:
    """The model's iteration time of the case's job, s (geopipe run, first_iteration_s)."""
    if case.replicas == 1:
        row = run_one_job(geopipe, case, tmp, params, case.name, TRACE_HEADER, ["0", case.model] + case.job + ["1"], extra)
    else:
        row = run_one_job(geopipe, case, tmp, params, case.name, TRACE_HEADER_DP,
                          ["0", case.model] + case.job + ["1", str(case.replicas)], extra)
        if int(row["data_parallel"]) != case.replicas:
            raise RuntimeError(f"case {case.name}: expected a job of {case.replicas} replicas, got {row['data_parallel']}")
    return float(row["first_iteration_s"]), row["first_iteration_s"]


def predict_sync(geopipe: str, case: SyncCase, tmp: str, params: dict[str, float]) -> tuple[float, str]:
    """The model's all-reduce time of a synchronisation case, s: the first iteration of its job
    with D replicas minus that of the same job with one (geopipe run, first_iteration_s)."""
    times = []
    for d in (case.replicas, 1):
        row = run_one_job(geopipe, case, tmp, params, f"{case.name}-d{d}", TRACE_HEADER_DP,
                          ["0", case.model] + case.job + ["1", str(d)])
        if int(row["data_parallel"]) != d:
            raise RuntimeError(f"case {case.name}: expected a job of {d} replicas, got {row['data_parallel']}")
        times.append(float(row["first_iteration_s"]))
    t = times[0] - times[1]
    return t, repr(t)


def summary(errs: list[float]) -> tuple[int, float, float]:
    a = [abs(e) for e in errs]
    return len(a), (statistics.median(a) if a else math.nan), (max(a) if a else math.nan)


def pct(x: float) -> str:
    return f"{x * 100:+.1f} %".replace("-", "\u2212")


def write_groups(groups: list, err: dict[str, float], out, markdown: bool):
    """One summary line (or markdown row) per (label, cases): n, median and maximum |error|."""
    for label, cs in groups:
        n, med, mx = summary([err[c.name] for c in cs])
        if markdown:
            out.write(f"| {label} | {n} | {med * 100:.1f} % | {mx * 100:.1f} % |\n")
        else:
            out.write(f"{label:<20} n = {n:3d}  median |error| = {med * 100:5.1f} %  max |error| = {mx * 100:5.1f} %\n")


def report_sync(cases: list[SyncCase], pred: dict[str, float], out=sys.stdout, markdown=False):
    """The synchronisation cases: each all-reduce, then the median and maximum |error| over all
    and per source, and per network setting."""
    err = {c.name: pred[c.name] / c.measured_s - 1 for c in cases}
    if markdown:
        out.write("| case | replicas | network | measured s | predicted s | error |\n|---|---|---|---|---|---|\n")
        for c in cases:
            out.write(f"| `{c.name}` | {c.replicas} | {c.network} | {c.measured_s:.4g} | {pred[c.name]:.4g} | {pct(err[c.name])} |\n")
        out.write("\n| synchronisation cases | n | median \\|error\\| | max \\|error\\| |\n|---|---|---|---|\n")
    else:
        out.write("synchronisation (all-reduce among the replicas; held out)\n")
        w = max(len(c.name) for c in cases)
        out.write(f"{'case':<{w}}  {'D':>3} {'network':<13} {'measured_s':>11} {'predicted_s':>12} {'error':>8}\n")
        for c in cases:
            out.write(f"{c.name:<{w}}  {c.replicas:>3} {c.network:<13} {c.measured_s:>11.4g} {pred[c.name]:>12.4g} "
                      f"{err[c.name] * 100:>+7.1f}%\n")
        out.write("\n")
    groups = [("sync all", cases)]
    for src in sorted({c.source_group for c in cases}):
        groups.append((f"sync {src}", [c for c in cases if c.source_group == src]))
    for net in sorted({c.network for c in cases}, key=lambda n: float(n.split("ms")[0])):
        groups.append((f"sync {net}", [c for c in cases if c.network == net]))
    write_groups(groups, err, out, markdown)
    return err


def report(cases: list[Case], pred: dict[str, float], out=sys.stdout, markdown=False):
    err = {c.name: pred[c.name] / c.measured_s - 1 for c in cases}
    if markdown:
        out.write("| case | role | measured s | predicted s | error |\n|---|---|---|---|---|\n")
        for c in cases:
            out.write(f"| `{c.name}` | {c.role} | {c.measured_s:.4g} | {pred[c.name]:.4g} | {pct(err[c.name])} |\n")
        out.write("\n| cases | n | median \\|error\\| | max \\|error\\| |\n|---|---|---|---|\n")
    else:
        w = max(len(c.name) for c in cases)
        out.write(f"{'case':<{w}}  {'role':<15} {'measured_s':>11} {'predicted_s':>12} {'error':>8}\n")
        for c in cases:
            out.write(f"{c.name:<{w}}  {c.role:<15} {c.measured_s:>11.4g} {pred[c.name]:>12.4g} {err[c.name] * 100:>+7.1f}%\n")
        out.write("\n")
    groups = [("all", cases), ("fitted", [c for c in cases if c.role != "held-out"]),
              ("held-out", [c for c in cases if c.role == "held-out"])]
    for src in sorted({c.source_group for c in cases}):
        groups.append((f"held-out {src}", [c for c in cases if c.role == "held-out" and c.source_group == src]))
    write_groups(groups, err, out, markdown)
    return err


def plot(cases: list[Case], pred: dict[str, float], path: str):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    srcs = sorted({c.source_group for c in cases})
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.6))
    lo = min(min(c.measured_s, pred[c.name]) for c in cases) / 1.3
    hi = max(max(c.measured_s, pred[c.name]) for c in cases) * 1.3
    a1.plot([lo, hi], [lo, hi], "k-", lw=0.8)
    for f in (0.9, 1.1):
        a1.plot([lo, hi], [lo * f, hi * f], "k:", lw=0.6)
    for i, s in enumerate(srcs):
        cs = [c for c in cases if c.source_group == s]
        for held, marker in ((True, "o"), (False, "x")):
            sel = [c for c in cs if (c.role == "held-out") == held]
            if sel:
                a1.scatter([c.measured_s for c in sel], [pred[c.name] for c in sel], s=22, marker=marker, color=f"C{i}",
                           label=f"{s}" + ("" if held else " (fitted)"))
    a1.set_xscale("log")
    a1.set_yscale("log")
    a1.set_xlabel("measured s / iteration")
    a1.set_ylabel("geopipe s / iteration")
    a1.set_title("predicted vs measured (dotted: \u00b110 %)")
    a1.legend(fontsize=7)
    order = sorted(cases, key=lambda c: (c.source_group, c.name))
    xs = range(len(order))
    a2.axhline(0, color="k", lw=0.8)
    for f in (-10, -5, 5, 10):
        a2.axhline(f, color="k", lw=0.5, ls=":")
    for i, s in enumerate(srcs):
        idx = [k for k, c in enumerate(order) if c.source_group == s]
        a2.scatter(idx, [(pred[order[k].name] / order[k].measured_s - 1) * 100 for k in idx], s=14, color=f"C{i}",
                   marker="o", label=s)
    a2.set_xticks([])
    a2.set_xlabel(f"case ({len(order)}, grouped by source)")
    a2.set_ylabel("error %")
    a2.set_title("relative error per case")
    fig.tight_layout()
    fig.savefig(path, dpi=150)


# Datasheet peak dense bf16/fp16 tensor TFLOP/s and memory bandwidth (GB/s) of the built-in types
# (NVIDIA datasheets; src/model/gpu.cpp): a type calibrated on cases of a single width, or on
# none, takes its mfu_half_hidden from the roofline reading of the curve (docs/validation.md):
# mfu_half_hidden ∝ peak / bandwidth at the reference type's non-GEMM traffic per token.
DATASHEET = {"V100-16GB": (125, 900), "V100-32GB": (125, 900), "A100-40GB": (312, 1555), "A100-80GB": (312, 2039),
             "H100-SXM": (989, 3350), "A40": (149.7, 696), "L40S": (362, 864)}
ROOFLINE_REFERENCE = "A100-80GB"


def roofline_half_hidden(gpu: str, ref_half_hidden: float) -> float:
    (p, bw), (p0, bw0) = DATASHEET[gpu], DATASHEET[ROOFLINE_REFERENCE]
    return ref_half_hidden * (p / bw) / (p0 / bw0)


def calibrate(geopipe: str, cases: list[Case], params: dict[str, float], tmp: str) -> dict[str, float]:
    """Fits the calibrated parameters on the fit:... cases (least squares on log(predicted / measured)),
    with each case's efficiency passed as sim.mfu: its GPU's m = mfu_max · h / (h + mfu_half_hidden),
    or (6h + s) / (6h / m + s / mfu_attention) for a type with an attention efficiency. A GPU
    type whose fit cases have one width gets no mfu_half_hidden of its own (the reference type's
    scaled by the roofline: roofline_half_hidden); one whose fit cases have no two sequence
    lengths at one width gets no mfu_attention (0: the width curve's)."""
    import numpy as np
    from scipy.optimize import least_squares

    fit = [c for c in cases if c.role.startswith(ROLES_FIT)]
    gpus = sorted({c.role[len(ROLES_FIT):] for c in fit if c.role[len(ROLES_FIT):] in {x.gpu for x in cases}})
    widths = {g: {c.hidden for c in fit if c.role == ROLES_FIT + g} for g in gpus}
    curve = [g for g in gpus if len(widths[g]) > 1]
    # an attention efficiency is identified by two sequence lengths at one width
    attn = [g for g in gpus
            if any(len({c.seq for c in fit if c.role == ROLES_FIT + g and c.hidden == h}) > 1 for h in widths[g])]
    if ROOFLINE_REFERENCE not in curve and len(curve) < len(gpus):
        raise InputError(f"the roofline reference {ROOFLINE_REFERENCE} needs fit cases of two widths")
    case_params = sorted({c.role[len(ROLES_FIT):] for c in fit} - set(gpus) - {"link"})
    names = ([f"{g}.mfu_max" for g in gpus] + [f"{g}.mfu_half_hidden" for g in curve] +
             [f"{g}.mfu_attention" for g in attn] + ["link_efficiency"] + case_params)
    x0 = [0.5] * len(gpus) + [1000.0] * len(curve) + [0.4] * len(attn) + [0.95] + [params.get(p, 0.1) for p in case_params]
    lo = [1e-3] * len(gpus) + [0.0] * len(curve) + [1e-3] * len(attn) + [0.05] + [0.0] * len(case_params)
    hi = [1.0] * len(gpus) + [1e5] * len(curve) + [1.0] * len(attn) + [1.0] + [1e3] * len(case_params)
    def values(x):
        v = dict(zip(names, x))
        for g in gpus:
            if g not in curve:
                v[f"{g}.mfu_half_hidden"] = roofline_half_hidden(g, v[f"{ROOFLINE_REFERENCE}.mfu_half_hidden"])
            if g not in attn:
                v[f"{g}.mfu_attention"] = 0.0
        return v
    def resid(x):
        v = values(x)
        p = dict(params)
        p.update({k: v[k] for k in case_params})
        r = []
        for c in fit:
            eta = v[f"{c.gpu}.mfu_max"] * c.hidden / (c.hidden + v[f"{c.gpu}.mfu_half_hidden"])
            a = v[f"{c.gpu}.mfu_attention"]
            if a:
                eta = (6 * c.hidden + c.seq) / (6 * c.hidden / eta + c.seq / a)
            extra = [f"sim.mfu={min(1.0, max(1e-3, eta))!r}", f"network.link_efficiency={v['link_efficiency']!r}"]
            r.append(math.log(predict(geopipe, c, tmp, p, extra)[0] / c.measured_s))
        return r
    res = least_squares(resid, np.array(x0), bounds=(lo, hi), x_scale="jac", diff_step=1e-4)
    v = values(res.x)
    # the types without cases of their own: the curve of their architecture's calibrated type
    # (DERIVED), mfu_half_hidden scaled by the roofline
    for g, sibling in DERIVED.items():
        if sibling in gpus:
            v[f"{g}.mfu_max (= {sibling}'s)"] = v[f"{sibling}.mfu_max"]
            v[f"{g}.mfu_attention (= {sibling}'s)"] = v[f"{sibling}.mfu_attention"]
            v[f"{g}.mfu_half_hidden"] = v[f"{sibling}.mfu_half_hidden"] * (DATASHEET[g][0] / DATASHEET[g][1]) / (
                DATASHEET[sibling][0] / DATASHEET[sibling][1])
    return v


# The built-in types without a measured case of their own and the calibrated type whose curve they
# take (the same chip, or the same architecture family: docs/validation.md).
DERIVED = {"V100-32GB": "V100-16GB", "A100-40GB": "A100-80GB", "A40": "A100-80GB", "L40S": "A100-80GB"}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--geopipe", metavar="BIN", help="the geopipe binary (default: $GEOPIPE, build/src/geopipe, PATH)")
    ap.add_argument("--cases", default=os.path.join(VALIDATION, "cases.csv"), metavar="CSV")
    ap.add_argument("--sync-cases", default=os.path.join(VALIDATION, "sync_cases.csv"), metavar="CSV",
                    help="the synchronisation cases ('' for none)")
    ap.add_argument("--parameters", default=os.path.join(VALIDATION, "parameters.csv"), metavar="CSV",
                    help="values of the case parameters (@name)")
    ap.add_argument("--plot", metavar="FIG.png")
    ap.add_argument("--markdown", metavar="OUT.md")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--write-predictions", metavar="CSV")
    g.add_argument("--check", metavar="CSV")
    ap.add_argument("--calibrate", action="store_true")
    ap.add_argument("--quiet", action="store_true", help="print the summary only")
    args = ap.parse_args(argv)
    try:
        geopipe = find_geopipe(args.geopipe)
        cases = load_cases(args.cases)
        sync = load_cases(args.sync_cases, SyncCase) if args.sync_cases else []
        names = [c.name for c in cases + sync]
        if len(set(names)) != len(names):
            raise InputError("a case name is in both cases files")
        params = load_parameters(args.parameters)
        with tempfile.TemporaryDirectory(prefix="geopipe-validation-") as tmp:
            if args.calibrate:
                for k, v in calibrate(geopipe, cases, params, tmp).items():
                    print(f"{k} = {v:.6g}")
                return 0
            pred, text = {}, {}
            for c in cases:
                pred[c.name], text[c.name] = predict(geopipe, c, tmp, params)
            for c in sync:
                pred[c.name], text[c.name] = predict_sync(geopipe, c, tmp, params)
        out = open(os.devnull, "w") if args.quiet else sys.stdout
        if args.quiet:
            err = {c.name: pred[c.name] / c.measured_s - 1 for c in cases}
            for label, cs in (("all", cases), ("held-out", [c for c in cases if c.role == "held-out"])):
                n, med, mx = summary([err[c.name] for c in cs])
                print(f"{label:<9} n = {n:3d}  median |error| = {med * 100:5.1f} %  max |error| = {mx * 100:5.1f} %")
            if sync:
                n, med, mx = summary([pred[c.name] / c.measured_s - 1 for c in sync])
                print(f"{'sync':<9} n = {n:3d}  median |error| = {med * 100:5.1f} %  max |error| = {mx * 100:5.1f} %")
        else:
            report(cases, pred, out)
            if sync:
                out.write("\n")
                report_sync(sync, pred, out)
        if args.markdown:
            with open(args.markdown, "w") as f:
                report(cases, pred, f, markdown=True)
                if sync:
                    f.write("\n")
                    report_sync(sync, pred, f, markdown=True)
        if args.plot:
            plot(cases, pred, args.plot)
        if args.write_predictions:
            with open(args.write_predictions, "w") as f:
                f.write("# geopipe's predicted seconds per iteration of every case of cases.csv, and of the all-reduce of\n"
                        "# every case of sync_cases.csv (scripts/validate_model.py\n"
                        "# --write-predictions); the regression test checks them bit for bit (--check).\n")
                f.write("case,predicted_s\n")
                for c in cases + sync:
                    f.write(f"{c.name},{text[c.name]}\n")
        if args.check:
            want = {r["case"]: r["predicted_s"] for r in read_csv(args.check)}
            every = cases + sync
            bad = [c.name for c in every if want.get(c.name) != text[c.name]]
            extra = sorted(set(want) - set(text))
            for n in bad:
                print(f"check: {n}: predicted {text[n]} s, {args.check} has {want.get(n, 'no row')}", file=sys.stderr)
            for n in extra:
                print(f"check: {args.check} has a case that the cases files do not: {n}", file=sys.stderr)
            if bad or extra:
                print(f"check: {len(bad) + len(extra)} of {len(every)} predictions differ from {args.check}", file=sys.stderr)
                return 1
            print(f"check: all {len(every)} predictions equal {args.check} bit for bit")
        return 0
    except InputError as e:
        print(f"validate_model: error: {e}", file=sys.stderr)
        return 2
    except RuntimeError as e:
        print(f"validate_model: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
