#!/usr/bin/python3
"""The validation suite (docs/validation.md) as a regression test: scripts/validate_model.py on the
geopipe binary reproduces sweeps/validation/predictions.csv bit for bit, so a change that moves
the model's error against the measured runs is seen (and must rewrite that file with
--write-predictions, the docs/validation.md tables and a line of docs/model.md, "Model versions").
Also: a prediction one ulp off fails the check (exit 1, naming the case); a malformed cases file
is refused with one line (exit 2); --markdown writes every case and the summary.

usage: test_validation.py GEOPIPE_BINARY SOURCE_DIR
"""

import csv
import math
import os
import subprocess
import sys
import tempfile


def run(args, expect):
    p = subprocess.run([sys.executable] + args, capture_output=True, text=True)
    assert p.returncode == expect, f"{' '.join(args)}: exit {p.returncode}, expected {expect}\n{p.stdout}\n{p.stderr}"
    return p


def main():
    binary, src = sys.argv[1], sys.argv[2]
    script = os.path.join(src, "scripts", "validate_model.py")
    vdir = os.path.join(src, "sweeps", "validation")
    committed = os.path.join(vdir, "predictions.csv")
    with tempfile.TemporaryDirectory() as tmp:
        # 1. the committed predictions, bit for bit
        p = run([script, "--geopipe", binary, "--check", committed, "--quiet"], 0)
        assert "predictions equal" in p.stdout, p.stdout
        n_cases = sum(1 for ln in open(os.path.join(vdir, "cases.csv")) if ln.strip() and not ln.startswith("#")) - 1
        assert f"all {n_cases} predictions equal" in p.stdout, p.stdout
        # 2. one prediction one ulp off: the check fails and names it
        lines = open(committed).read().splitlines()
        k = next(i for i, ln in enumerate(lines) if ln.startswith("zb-6.2b-m32,"))
        name, value = lines[k].split(",")
        lines[k] = f"{name},{repr(math.nextafter(float(value), math.inf))}"
        tampered = os.path.join(tmp, "predictions.csv")
        open(tampered, "w").write("\n".join(lines) + "\n")
        p = run([script, "--geopipe", binary, "--check", tampered, "--quiet"], 1)
        assert "zb-6.2b-m32" in p.stderr and "1 of" in p.stderr, p.stderr
        # 3. a case with an unknown role: one line, exit 2
        rows = list(csv.DictReader(ln for ln in open(os.path.join(vdir, "cases.csv")) if not ln.startswith("#")))
        rows[0]["role"] = "fitted"
        bad = os.path.join(vdir, "bad-cases-for-test.csv")  # beside the scenarios it names
        try:
            with open(bad, "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
                w.writeheader()
                w.writerows(rows[:3])
            p = run([script, "--geopipe", binary, "--cases", bad], 2)
        finally:
            os.unlink(bad)
        assert p.stderr.count("\n") == 1 and "role 'fitted'" in p.stderr, p.stderr
        # 4. the markdown tables: every case, the summary with the held-out group
        md = os.path.join(tmp, "table.md")
        run([script, "--geopipe", binary, "--markdown", md, "--quiet"], 0)
        text = open(md).read()
        assert text.count("\n| `") == n_cases, text[:200]
        assert "| held-out |" in text and "| all |" in text, text[-400:]
    print(f"validation: {n_cases} predictions reproduced bit for bit; a one-ulp change and a bad role are caught")


if __name__ == "__main__":
    main()
