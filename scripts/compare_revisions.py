#!/usr/bin/env python3
"""What a results revision moved: the same design sweep run by two model versions.

    scripts/compare_revisions.py OLD.h5 NEW.h5 [--scheduler bace-pipe] [--baseline delay-first]
                                 [--metric avg_jct_s ...] [--by network.bandwidth_scale] [--out FILE.md]

OLD.h5 and NEW.h5 are result files of one sampling-design sweep (the same /design; e.g. a
sweeps/studies file run by the geopipe of each model version). Per metric, y of a point is the
mean over its seeds of the paired change scheduler / baseline - 1 (as `geopipe analyze
--paired-vs` and results/studies/REPORT.md); for a Sobol' design only its base-sample points
(A and B rows), as the report's "Where ... wins". Printed as Markdown: by quartile bin of
``--by``, the old mean change over every point, the old one over the points where no seed of
either scheduler left jobs unfinished, and the new one, with the share of points where the
scheduler is lower and the old file's share of points with unfinished jobs. The old file may
leave jobs out (model version 1): it is read with allow_unfinished=True.
"""
import argparse
import math
import os
import sys
import warnings

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import geopipe  # noqa: E402


def pct(x: float) -> str:
    return "\u2013" if math.isnan(x) else f"{100 * x:+.1f} %".replace("-", "\u2212")


def share(x: float) -> str:
    return f"{100 * x:.1f} %"


def second_order(path: str) -> bool:
    """Does a Sobol' file's design hold the second-order blocks ([sobol] second_order)?"""
    import tomllib

    import h5py

    with h5py.File(path, "r") as f:
        text = f.attrs.get("sweep_toml", "")
    text = text.decode() if isinstance(text, bytes) else str(text)
    return bool(tomllib.loads(text).get("sobol", {}).get("second_order", True))  # its default: true


def point_values(path: str, metric: str, sched: str, base: str, allow: bool) -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        v = geopipe.design_values(path, metric, sched, paired_vs=base, allow_unfinished=allow)
    if v.attrs["design"] == "sobol":
        d = len(v.attrs["factors"])
        k = 2 * d + 2 if second_order(path) else d + 2
        v = v[(v["point"] % k == 0) | (v["point"] % k == k - 1)]
    return v.set_index("point")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--scheduler", default="bace-pipe")
    ap.add_argument("--baseline", default="delay-first")
    ap.add_argument("--metric", nargs="+", default=["avg_jct_s", "total_cost_usd"])
    ap.add_argument("--by", default="network.bandwidth_scale")
    ap.add_argument("--out", help="write the Markdown here (default: stdout)")
    a = ap.parse_args(argv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        old_df = geopipe.load(a.old, allow_unfinished=True)
    new_df = geopipe.load(a.new)
    for name, df in (("old", old_df), ("new", new_df)):
        if a.by not in df.columns:
            raise SystemExit(f"compare_revisions.py: {name} file has no column '{a.by}'")
    unf = (old_df[old_df["scheduler"].isin([a.scheduler, a.baseline])].groupby("point")["jobs_unfinished"].max() > 0)
    lines = [f"Old: `{os.path.basename(a.old)}` (model version {old_df.attrs.get('model_version', '?')}, geopipe "
             f"{old_df.attrs.get('geopipe_version', '?')}); new: `{os.path.basename(a.new)}` (model version "
             f"{new_df.attrs.get('model_version', '?')}, geopipe {new_df.attrs.get('geopipe_version', '?')}). "
             f"y = mean over the seeds of {a.scheduler} / {a.baseline} \u2212 1.", ""]
    for metric in a.metric:
        old = point_values(a.old, metric, a.scheduler, a.baseline, True)
        new = point_values(a.new, metric, a.scheduler, a.baseline, False)
        common = old.index.intersection(new.index)
        old, new = old.loc[common], new.loc[common]
        by = new_df.groupby("point")[a.by].first().reindex(common)
        codes = pd.qcut(by, 4, labels=False, duplicates="drop").astype(int)
        u = unf.reindex(common).fillna(False).astype(bool)
        lines += [f"**{metric}** ({len(common):,} points), by quartile of `{a.by}`:", "",
                  "| bin | points | old: points with unfinished jobs | old mean change (lower in) | old, without those points "
                  "| new mean change (lower in) |", "|---|---|---|---|---|---|"]
        groups = [(f"Q{c + 1} [{by[codes == c].min():.3g}, {by[codes == c].max():.3g}]", codes == c)
                  for c in range(int(codes.max()) + 1)] + [("all", pd.Series(True, index=common))]
        for label, m in groups:
            yo, yn, mu = old["y"][m], new["y"][m], u[m]
            clean = yo[~mu]
            clean_text = pct(float(clean.mean())) if len(clean) else "\u2013"
            lines.append(f"| {label} | {int(m.sum()):,} | {share(float(mu.mean()))} | {pct(float(yo.mean()))} "
                         f"({share(float((yo < 0).mean()))}) | {clean_text} "
                         f"| {pct(float(yn.mean()))} ({share(float((yn < 0).mean()))}) |")
        lines.append("")
    text = "\n".join(lines)
    if a.out:
        with open(a.out, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
