"""What the study scripts (scripts/*_study.py) share: their command line (``[--geopipe BIN]
OUT_DIR``) and running one of sweeps/studies/ into OUT_DIR with the geopipe binary, without MPI.
Importing it also puts the repository's Python package (python/geopipe) on the path.
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "python"))


def parse_args(doc: str) -> argparse.Namespace:
    """--geopipe BIN (default build/src/geopipe) and OUT_DIR, created if missing; the
    description is the first paragraph of the script's docstring."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--geopipe", default=os.path.join(REPO, "build", "src", "geopipe"))
    ap.add_argument("out_dir")
    a = ap.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    return a


def run_study_sweep(a: argparse.Namespace, sweep: str, h5_name: str | None = None, extra: tuple = ()) -> str:
    """Runs sweeps/studies/SWEEP.toml into OUT_DIR/H5_NAME.h5 (default SWEEP.h5), replacing any
    file there (--force), quietly; returns the file's path. A failed sweep raises."""
    h5 = os.path.join(a.out_dir, (h5_name or sweep) + ".h5")
    subprocess.run([a.geopipe, "sweep", os.path.join(REPO, "sweeps", "studies", sweep + ".toml"), "-o", h5, "--force",
                    "--no-mpi", "--quiet", *extra], check=True)
    return h5
