"""Confidence intervals of means: Student-t quantiles and ``mean_ci``.

The quantiles come from scipy (``scipy.stats.t.ppf``, imported on first use): the exact
quantiles, as ``geopipe summarize`` computes them (Boost.Math, src/analysis/stats.cpp). Every
function of this package that computes a confidence interval takes ``quantile=`` (a function
dof -> quantile) to choose another.
"""

from __future__ import annotations

import math
from collections import namedtuple
from typing import Callable, Iterable, Optional

import numpy as np
import pandas as pd

__all__ = ["t975", "t_quantile", "MeanCI", "mean_ci"]

#: A function dof -> the Student-t quantile a confidence interval uses (None: ``t975``).
Quantile = Optional[Callable[[int], float]]


def t_quantile(dof: int, confidence: float = 0.95) -> float:
    """The two-sided ``confidence`` quantile of Student's t with ``dof`` degrees of freedom,
    ``scipy.stats.t.ppf(0.5 + confidence / 2, dof)``; NaN for dof < 1 (``dof`` is truncated to
    an integer, as the number of values minus one always is)."""
    dof = int(dof)
    if dof < 1:
        return math.nan
    if not 0.0 < float(confidence) < 1.0:
        raise ValueError(f"confidence = {confidence!r} (expected a level in (0, 1) such as 0.95)")
    from scipy.stats import t  # imported on first use: `import geopipe` stays fast

    return float(t.ppf(0.5 + float(confidence) / 2.0, dof))


def t975(dof: int) -> float:
    """The 0.975 quantile of Student's t with ``dof`` degrees of freedom (the factor of a
    two-sided 95 % interval): ``scipy.stats.t.ppf(0.975, dof)``, e.g. 12.7062 for 1, 4.3027 for
    2, 2.0211 for 40 (as ``geopipe summarize``); NaN for dof < 1."""
    return t_quantile(dof, 0.95)


class MeanCI(namedtuple("MeanCI", ["n", "mean", "ci"])):
    """Mean of ``n`` values and the half width ``ci`` of its 95 % Student-t interval."""

    __slots__ = ()

    @property
    def lo(self) -> float:
        return self.mean - self.ci

    @property
    def hi(self) -> float:
        return self.mean + self.ci


def mean_ci(values: Iterable[float], quantile: Quantile = None) -> MeanCI:
    """Mean and 95 % Student-t confidence half width of the finite values of ``values``.

    Non-finite values (NaN, inf) are ignored and not counted in ``n``. With no value the mean
    is NaN; with one value the half width is NaN (undefined). The half width is
    ``quantile(n - 1) * s / sqrt(n)`` with ``s`` the sample standard deviation (ddof = 1) and
    ``quantile`` = ``t975`` (scipy) by default.
    """
    q = t975 if quantile is None else quantile
    x = np.asarray(list(values) if not isinstance(values, (np.ndarray, pd.Series)) else values,
                   dtype=float).ravel()
    x = x[np.isfinite(x)]
    n = int(x.size)
    if n == 0:
        return MeanCI(0, math.nan, math.nan)
    mean = float(x.mean())
    if n < 2:
        return MeanCI(1, mean, math.nan)
    sd = float(np.sqrt(((x - mean) ** 2).sum() / (n - 1)))
    return MeanCI(n, mean, q(n - 1) * sd / math.sqrt(n))
