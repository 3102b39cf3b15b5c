"""Reading helpers shared by the modules of the package (not public)."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd


def decode(v):
    """bytes -> str, numpy scalars -> Python scalars, arrays -> lists (recursively)."""
    if isinstance(v, bytes):
        return v.decode("utf-8", errors="replace").rstrip("\x00")
    if isinstance(v, np.ndarray):
        if v.ndim == 0:
            return decode(v.item())
        return [decode(x) for x in v.tolist()]
    if isinstance(v, (list, tuple)):
        return [decode(x) for x in v]
    if isinstance(v, np.generic):
        return v.item()
    return v


def frame(arr: np.ndarray) -> pd.DataFrame:
    """A structured array as a DataFrame, byte strings decoded to str."""
    df = pd.DataFrame(arr)
    for c in df.columns:
        if df[c].dtype == object:
            df[c] = df[c].map(decode)
    return df


def attr_list(v) -> list:
    v = decode(v)
    return [v] if isinstance(v, str) else list(v)


# The analytic test functions (src/analysis/test_functions.h), the "schedulers" of their sweeps.
TEST_FUNCTIONS = ("ishigami", "sobol-g")


def evaluator(attrs) -> str:
    """What produced a result file's metrics: "simulation" or "test_function" (the root
    attribute ``evaluator``, format 6). A file of an older format all of whose schedulers are
    test functions is of one: its values were stored as avg_jct_s (docs/hdf5-format.md,
    "Format versions")."""
    e = decode(attrs.get("evaluator", ""))
    if e:
        return e
    scheds = attr_list(attrs.get("schedulers", []))
    return "test_function" if scheds and all(s in TEST_FUNCTIONS for s in scheds) else "simulation"


def open_file(path):
    """Open a result file read-only; a file whose SWMR writer is running or died needs
    swmr=True (docs/hdf5-format.md). A missing file raises FileNotFoundError."""
    import h5py  # imported here so that the pure statistics work without h5py

    p = os.fspath(path)
    if not os.path.exists(p):
        raise FileNotFoundError(f"{p}: no such file")
    try:
        return h5py.File(p, "r", swmr=True)
    except OSError:
        return h5py.File(p, "r")
