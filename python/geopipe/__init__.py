"""geopipe: read, analyse and plot the HDF5 result files of ``geopipe sweep``.

    import geopipe
    df = geopipe.load("quick.h5")                       # one row per scenario (pandas)
    geopipe.paired_change(df, "avg_jct_s", "bace-pipe", "delay-first", by="network.bandwidth_scale")
    geopipe.plot(df, x="network.bandwidth_scale", metric="avg_jct_s", out="jct.png")
    ds = geopipe.to_xarray("quick.h5")                  # dims: the swept axes, scheduler, seed

Importable from the repository with ``PYTHONPATH=python``, after ``pip install ./python`` (into
a virtual environment made with ``python3 -m venv --system-site-packages``), ``cmake --install
build`` (into ``<prefix>/lib/python3.X/dist-packages``), ``module load geopipe`` or the Debian
package (README, "Install"). ``find_executable()`` finds the ``geopipe`` executable
(``$GEOPIPE_EXECUTABLE``, else ``PATH``). Needs numpy and pandas; h5py to read files,
scipy for the Student-t quantiles and the sensitivity analyses, xarray for ``to_xarray``,
matplotlib for ``plot``: each is imported when first needed, and importing the package has no
side effects. ``python3 -m geopipe plot ...`` is the command line (``geopipe.cli``).

Modules: ``results`` (load, load_jobs, summary, paired_change, ...), ``stats`` (t975,
mean_ci), ``metrics`` (the metric units), ``dataset`` (to_xarray), ``sensitivity`` (design,
design_values, sobol_indices, morris_indices, oat_effects), ``plotting`` (plot), ``cli``.

Conventions: values are SI as stored (the unit is in the metric's name); relative changes are
fractions, change = scheduler / baseline - 1 (negative: the scheduler's value is lower);
confidence intervals are 95 % Student-t half widths with ``scipy.stats.t.ppf`` quantiles, as
``geopipe summarize``.
"""

from ._version import __version__
from .dataset import is_grid, to_xarray
from .executable import ExecutableNotFound, executable_version, find_executable
from .metrics import (METRICS, Metric, display_scale, display_unit, leaves_out_unfinished_jobs, metric_label, metric_names,
                      metric_unit)
from .plotting import geometric, is_log_axis, plot
from .results import (UnfinishedJobsError, alias, axes, base_scenario, load, load_jobs, model_size_b, normalized,
                      paired_change, paired_values, point_labels, scheduler_order, summary)
from .sensitivity import design, design_values, morris_indices, oat_effects, sobol_indices
from .stats import MeanCI, mean_ci, t975, t_quantile

__all__ = [
    # results
    "load", "load_jobs", "UnfinishedJobsError", "axes", "alias", "scheduler_order", "point_labels", "model_size_b", "base_scenario",
    "summary", "paired_values", "paired_change", "normalized",
    # statistics
    "t975", "t_quantile", "MeanCI", "mean_ci",
    # metrics
    "METRICS", "Metric", "metric_names", "metric_unit", "leaves_out_unfinished_jobs", "display_unit", "display_scale", "metric_label",
    # xarray, plots
    "to_xarray", "is_grid", "plot", "is_log_axis", "geometric",
    # sensitivity analysis
    "design", "design_values", "sobol_indices", "morris_indices", "oat_effects",
    # the executable
    "find_executable", "executable_version", "ExecutableNotFound", "__version__",
]
