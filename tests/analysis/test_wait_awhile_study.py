#!/usr/bin/python3
"""The temporal-shifting study (scripts/wait_awhile_study.py, results/studies/wait-awhile/): run
with the binary under test, the table it prints is the REPORT's, verbatim. A change of the model
or of wait-awhile that moves a number of the study fails here, so the REPORT is re-stated with it.

usage: test_wait_awhile_study.py GEOPIPE SOURCE_DIR
"""
import os
import subprocess
import sys
import tempfile


def main() -> int:
    binary, src = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        p = subprocess.run([sys.executable, os.path.join(src, "scripts", "wait_awhile_study.py"), "--geopipe", binary,
                            tmp], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    table = p.stdout.strip()
    assert table.count("\n| ") == 8, table  # a row per point
    with open(os.path.join(src, "results", "studies", "wait-awhile", "REPORT.md")) as f:
        assert table in f.read(), "the REPORT's table is not the script's output: re-run the study, re-state its REPORT"
    print("wait-awhile study: REPORT table verbatim (8 points)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
