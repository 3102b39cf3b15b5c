#!/usr/bin/python3
"""The baselines study (scripts/baselines_study.py, results/studies/baselines/): run with the binary
under test, its summary.csv equals the committed one byte for byte and the tables it prints are
the REPORT's, verbatim. A change of the model or of a scheduler that moves a number of the study
fails here, so the REPORT is re-stated with it.

usage: test_baselines_study.py GEOPIPE SOURCE_DIR
"""
import os
import subprocess
import sys
import tempfile


def main() -> int:
    binary, src = sys.argv[1], sys.argv[2]
    res = os.path.join(src, "results", "studies", "baselines")
    with tempfile.TemporaryDirectory() as tmp:
        p = subprocess.run([sys.executable, os.path.join(src, "scripts", "baselines_study.py"), "--geopipe", binary,
                            tmp], capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        with open(os.path.join(tmp, "summary.csv")) as f:
            got = f.read()
    with open(os.path.join(res, "summary.csv")) as f:
        want = f.read()
    assert got == want, "summary.csv differs from results/studies/baselines/summary.csv: re-run the study, re-state its REPORT"
    with open(os.path.join(res, "REPORT.md")) as f:
        report = f.read()
    assert p.stdout.strip() in report, "the REPORT's tables are not the script's output"
    print(f"baselines study: summary.csv identical ({len(want.splitlines()) - 1} rows), REPORT tables verbatim")
    return 0


if __name__ == "__main__":
    sys.exit(main())
