"""Backward-compatible shim: the analysis module is now the package ``geopipe`` (python/geopipe).

New code: ``import geopipe`` (``PYTHONPATH=python`` from the repository, or after ``cmake
--install build``). Old code keeps working unchanged::

    import sys; sys.path.insert(0, "scripts"); import geopipe_results as gr
    df = gr.load("quick.h5")
    gr.paired_change(df, "avg_jct_s", "bace-pipe", "delay-first", by=["network.bandwidth_scale"])

This module puts ``<repository>/python`` on ``sys.path`` (found relative to this file) when
``geopipe`` is not importable, then re-exports the package under the old names: load, axes,
point_labels, scheduler_order, t975, mean_ci, MeanCI, summary, paired_values, paired_change,
normalized, model_size_b, base_scenario, design, design_values, sobol_indices,
morris_indices, oat_effects (plus the package's newer functions: load_jobs, to_xarray, plot,
...). Confidence intervals use the exact Student-t quantiles (``scipy.stats.t.ppf``, as
``geopipe summarize`` does with Boost.Math); earlier versions of this module used a table
rounded to 3 decimals (a difference below 0.001). Importing this module has no side effects
beyond that ``sys.path`` entry.
"""

from __future__ import annotations

import os
import sys

try:
    import geopipe as _gp
except ImportError:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
    import geopipe as _gp

from geopipe import *  # noqa: E402,F401,F403 - the package's public names
from geopipe import (MeanCI, axes, base_scenario, design, design_values, load, mean_ci, model_size_b,  # noqa: E402,F401
                     morris_indices, normalized, oat_effects, paired_change, paired_values, point_labels,
                     scheduler_order, sobol_indices, summary)

__all__ = [
    "load", "axes", "point_labels", "scheduler_order", "t975", "mean_ci", "MeanCI",
    "summary", "paired_values", "paired_change", "normalized", "model_size_b",
    "base_scenario", "design", "design_values", "sobol_indices", "morris_indices", "oat_effects",
] + list(_gp.__all__)
__all__ = list(dict.fromkeys(__all__))

t975 = _gp.t975
