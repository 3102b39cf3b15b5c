#!/usr/bin/python3
"""The validation suite (docs/validation.md) as a regression test: scripts/validate_model.py on the
geopipe binary reproduces sweeps/validation/predictions.csv bit for bit, so a change that moves
the model's error against the measured runs is seen (and must rewrite that file with
--write-predictions, the docs/validation.md tables and a line of docs/model.md, "Model versions").
Also: a prediction one ulp off fails the check (exit 1, naming the case); a malformed cases file
is refused with one line (exit 2); --markdown writes every case and the summary; a
synchronisation case (sync_cases.csv) predicts the ring all-reduce 2(n-1)/n * bytes / B + 2(n-1) *
alpha of docs/model.md, "Data parallelism", by hand, and a DP x PP case (DT-FM's sharded-PS columns)
exceeds its single pipeline by that all-reduce of its first stage.

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
        def count(name):
            return sum(1 for ln in open(os.path.join(vdir, name)) if ln.strip() and not ln.startswith("#")) - 1
        n_cases, n_sync = count("cases.csv"), count("sync_cases.csv")
        assert f"all {n_cases + n_sync} predictions equal" in p.stdout, p.stdout
        # 1b. a synchronisation case by hand: 4 machines, 256 MiB, every link 10 ms and 1 Gbit/s
        # at the default link efficiency 0.92: 2(n-1)/n * bytes / B + 2(n-1) * alpha
        want = 2 * 3 / 4 * 2**28 / (1e9 / 8 * 0.92) + 2 * 3 * 0.010
        got = float(next(ln.split(",")[1] for ln in open(committed) if ln.startswith("nccl-ar-256m-n4-10ms-1gbps,")))
        assert abs(got / want - 1) < 1e-12, (got, want)
        # 1c. a DP x PP case by hand: DT-FM's GPT-3 XL pipeline with 2 replicas over the 10-ms,
        # 1-Gbit/s mesh takes the single pipeline's iteration plus the all-reduce of its first
        # stage (the last to end its backward), 3 layers of 12h^2 and the tokenizer's embedding
        # (28,996 x h) in fp16, between the 2 replicas
        pred = {ln.split(",")[0]: float(ln.split(",")[1]) for ln in open(committed) if not ln.startswith(("#", "case,"))}
        h = 2048
        stage0_bytes = (3 * 12 * h * h + 28996 * h) * 2
        want = 2 * 1 / 2 * stage0_bytes / (1e9 / 8 * 0.92) + 2 * 1 * 0.010
        got = pred["dtfmdp-xl-d2-10ms-1gbps"] - pred["dtfm-xl-0420-m96-10ms-1gbps"]
        assert abs(got / want - 1) < 1e-12, (got, want)
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
        assert p.stderr.count("\n") == 1 and "bad-cases-for-test.csv:2: role 'fitted'" in p.stderr, p.stderr
        # 4. the markdown tables: every case, the summary with the held-out group
        md = os.path.join(tmp, "table.md")
        run([script, "--geopipe", binary, "--markdown", md, "--quiet"], 0)
        text = open(md).read()
        assert text.count("\n| `") == n_cases + n_sync, text[:200]
        assert "| held-out |" in text and "| all |" in text and "| sync all |" in text, text[-400:]
    print(f"validation: {n_cases} + {n_sync} predictions reproduced bit for bit; a one-ulp change and a bad role are "
          "caught; a synchronisation case and a DP x PP case equal the ring formula")


if __name__ == "__main__":
    main()
