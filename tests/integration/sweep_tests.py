#!/usr/bin/env python3
"""Integration tests of `geopipe sweep` with the real binary, real HDF5 files and real mpirun.

Usage: sweep_tests.py TEST GEOPIPE_BINARY SOURCE_DIR
Each TEST is one ctest entry (see CMakeLists.txt). Exits non-zero on the first failure.
"""
import csv
import glob
import io
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np
from numpy.lib import recfunctions

TIMING = {"sched_time_total_s", "sched_time_max_s", "wall_s"}
MPI_ENV = {
    "OMPI_ALLOW_RUN_AS_ROOT": "1",
    "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
    # single-host test runs: shared memory without ptrace-based single copy (containers)
    "OMPI_MCA_btl_vader_single_copy_mechanism": "none",
    "OMPI_MCA_rmaps_base_oversubscribe": "1",
}


class Ctx:
    def __init__(self, binary, src):
        self.bin = os.path.abspath(binary)
        self.src = os.path.abspath(src)
        self.tmp = tempfile.mkdtemp(prefix="geopipe-it-")
        self.tiny = os.path.join(self.src, "tests/integration/tiny.toml")
        self.medium = os.path.join(self.src, "tests/integration/medium.toml")

    def path(self, name):
        return os.path.join(self.tmp, name)

    def env(self, extra=None):
        e = dict(os.environ)
        e.update(MPI_ENV)
        if extra:
            e.update(extra)
        return e

    def sweep_cmd(self, sweep, out, *args, ranks=0):
        cmd = [self.bin, "sweep", sweep, "-o", out, "--quiet", *args]
        if ranks:
            cmd = ["mpirun", "--oversubscribe", "-np", str(ranks), *cmd]
        return cmd

    def run(self, cmd, expect=0, env=None, timeout=600):
        p = subprocess.run(cmd, capture_output=True, text=True, env=self.env(env), timeout=timeout)
        if expect is not None and p.returncode != expect:
            raise AssertionError(f"{' '.join(cmd)}: exit {p.returncode}, expected {expect}\n"
                                 f"stdout: {p.stdout[-2000:]}\nstderr: {p.stderr[-2000:]}")
        return p


def metrics(path):
    """/metrics as {column: array} sorted by id, without the wall-clock columns."""
    with h5py.File(path, "r") as f:
        m = f["metrics"][:]
    m = np.sort(m, order="id")
    return {k: m[k] for k in m.dtype.names if k not in TIMING}


def assert_same_metrics(a, b, what):
    ma, mb = metrics(a), metrics(b)
    assert list(ma) == list(mb), f"{what}: columns differ"
    assert len(ma["id"]) == len(mb["id"]), f"{what}: {len(ma['id'])} vs {len(mb['id'])} rows"
    for k in ma:
        x, y = ma[k], mb[k]
        if x.dtype.kind == "f":  # bitwise, NaN-safe
            x, y = x.view(np.uint64), y.view(np.uint64)
        assert np.array_equal(x, y), f"{what}: column {k} differs"


def assert_complete(path, n):
    with h5py.File(path, "r") as f:
        ids = f["metrics"]["id"][:]
        assert int(f.attrs["complete"]) == 1, f"{path}: complete != 1"
        assert len(ids) == n, f"{path}: {len(ids)} rows, expected {n}"
        assert len(np.unique(ids)) == n, f"{path}: duplicated ids"
        assert np.array_equal(np.sort(ids), np.arange(n)), f"{path}: ids are not 0..{n - 1}"
        assert np.all(f["metrics"]["status"][:] == 1)


# ------------------------------------------------------------------ tests
def test_layouts(c):
    """Same sweep standalone (1, 2 threads) and under mpirun (2, 3 ranks): identical metrics."""
    ref = c.path("t1.h5")
    c.run(c.sweep_cmd(c.tiny, ref, "--threads", "1"))
    assert_complete(ref, 36)
    runs = [("t2.h5", ["--threads", "2"], 0), ("m2.h5", ["--threads", "1"], 2), ("m3.h5", ["--threads", "1"], 3),
            ("m2t2.h5", ["--threads", "2"], 2)]
    for name, args, ranks in runs:
        out = c.path(name)
        c.run(c.sweep_cmd(c.tiny, out, *args, ranks=ranks))
        assert_complete(out, 36)
        assert_same_metrics(ref, out, f"{name} vs 1 thread")
        with h5py.File(out, "r") as f:
            layout = f.attrs["layout"]
            layout = layout.decode() if isinstance(layout, bytes) else layout
            want = f"ranks={ranks or 1} threads={args[1]}"
            assert layout == want, f"{name}: layout {layout!r}, expected {want!r}"
        print(f"  {name}: 36 scenarios, metrics identical to the 1-thread run")
    # /jobs through MPI (--save-jobs): 40 jobs per scenario, sorted, matching the metrics
    out = c.path("jobs.h5")
    c.run(c.sweep_cmd(c.tiny, out, "--threads", "1", "--save-jobs", ranks=2))
    with h5py.File(out, "r") as f:
        jobs = f["jobs"][:]
        met = np.sort(f["metrics"][:], order="id")
    assert len(jobs) == 36 * 40, len(jobs)
    key = jobs["scenario_id"].astype(np.int64) * 1000 + jobs["job_id"]
    assert np.all(np.diff(key) > 0), "/jobs not sorted by (scenario_id, job_id)"
    for sid in (0, 17, 35):
        rows = jobs[jobs["scenario_id"] == sid]
        total = float(np.sum(rows["cost_usd"]))
        want = float(met["total_cost_usd"][met["id"] == sid][0])
        assert abs(total - want) <= 1e-9 * max(1.0, want), (sid, total, want)
    print("  --save-jobs under mpirun -np 2: 1440 job rows, per-scenario cost sums match /metrics")
    # and a scenario of the sweep equals `geopipe run` of the same point and seed
    with h5py.File(ref, "r") as f:
        sc = np.sort(f["scenarios"][:], order="id")
        row = sc[sc["id"] == 7][0]
    sched = row["scheduler"].decode() if isinstance(row["scheduler"], bytes) else row["scheduler"]
    p = c.run([c.bin, "run", os.path.join(c.src, "sweeps/base/six-regions.toml"), "--json", "--scheduler", sched,
               "--seed", str(int(row["seed"])), "--set", "workload.num_jobs=40",
               "--set", f"network.bandwidth_scale={row['network.bandwidth_scale']!r}",
               "--set", f"workload.load_scale={row['workload.load_scale']!r}"])
    import json
    m = json.loads(p.stdout)["results"][0]["metrics"]
    ref_m = metrics(ref)
    k = int(np.where(ref_m["id"] == 7)[0][0])
    for name in ("avg_jct_s", "total_cost_usd", "events"):
        assert m[name] == float(ref_m[name][k]), f"scenario 7 {name}: run {m[name]} vs sweep {ref_m[name][k]}"
    print("  scenario 7 reproduced exactly by `geopipe run`")


def kill_and_resume(c, out, ranks, victim, rng, rounds):
    """Starts the medium sweep with --resume, kills `victim` ('master', 'worker' or 'term') at a
    random moment, checks the file stays readable, `rounds` times. Returns how many rounds were
    really interrupted (a round may finish before its kill)."""
    killed = 0
    for r in range(rounds):
        cmd = c.sweep_cmd(c.medium, out, "--resume", "--threads", "1" if ranks else "2", "--flush-interval", "0.05",
                          ranks=ranks)
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=c.env(), text=True)
        # after start-up (mpirun takes ~0.5 s), at a random point of the run. Standalone, the
        # start is when geopipe catches SIGTERM (its stop handlers are installed): a fixed delay
        # alone raced a slow start (a sanitizer build on a loaded machine) and killed geopipe
        # before it could handle the signal.
        if not ranks:
            wait_for_handlers(p.pid)
        delay = rng.uniform(0.45, 0.75) if ranks else rng.uniform(0.0, 0.4)
        time.sleep(delay)
        what = "finished first"
        if p.poll() is None:
            pids = geopipe_pids(out)
            if victim == "term":
                target = p.pid
                sig = signal.SIGUSR1 if (r % 2 and not ranks) else signal.SIGTERM
                os.kill(target, sig)
                what = sig.name
            else:
                deadline = time.time() + 5
                while len(pids) < max(ranks, 1) and time.time() < deadline:
                    time.sleep(0.05)
                    pids = geopipe_pids(out)
                assert pids, "no geopipe process found to kill"
                pids.sort()
                if victim == "master":
                    target = master_pid(pids)
                else:
                    workers = [q for q in pids if q != master_pid(pids)]
                    target = workers[0] if workers else pids[0]
                os.kill(target, signal.SIGKILL)
                what = f"kill -9 {victim} pid {target}"
            killed += 1
        rc = wait_for_launcher(p, out, ranks, what, r)
        err = p.stderr.read()
        if victim == "term" and what in ("SIGTERM", "SIGUSR1") and ranks == 0:
            assert rc == 75, f"{what}: exit {rc}, expected 75 (resumable); stderr: {err[-500:]}"
        if os.path.exists(out):
            with h5py.File(out, "r", swmr=True) as f:  # readable after any kill
                n = len(f["metrics"]["id"][:])
        else:
            n = 0
        print(f"  round {r}: {what} after {delay:.2f}s -> exit {rc}, {n} rows in the file")
    assert killed > 0, "no round was interrupted: the test sweep is too short for this machine"
    return killed


def wait_for_handlers(pid, timeout=30.0):
    """Until process `pid` catches SIGTERM (the SigCgt mask of /proc/PID/status), it exits, or
    `timeout` seconds pass."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with open(f"/proc/{pid}/status") as f:
                fields = dict(l.split(":", 1) for l in f if ":" in l)
        except OSError:
            return
        if fields.get("State", "").strip().startswith("Z"):  # it has exited
            return
        if int(fields.get("SigCgt", "0").strip(), 16) & (1 << (signal.SIGTERM - 1)):
            return
        time.sleep(0.005)


def wait_for_launcher(p, out, ranks, what, r):
    """The exit code of sweep process `p` (geopipe, or mpirun with `ranks` ranks) after an
    interruption. Open MPI 4.1's mpirun sometimes never returns after a rank was killed with
    SIGKILL: every rank has exited (zombies it does not reap) and it waits on a futex for ever
    (a race in its teardown, seen on the loaded 2-core machine, not in geopipe: the ranks are
    gone). When no rank of this sweep is left alive for 10 s, mpirun is ended here and the round
    counts as killed; the resume that follows checks what the test is about."""
    deadline = time.time() + 120
    gone_since = None
    while time.time() < deadline:
        try:
            return p.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            pass
        if not ranks:
            continue
        alive = [q for q in geopipe_pids(out) if not is_zombie(q)]
        if alive:
            gone_since = None
        elif gone_since is None:
            gone_since = time.time()
        elif time.time() - gone_since > 10:
            p.kill()
            p.wait()
            print(f"  round {r}: mpirun did not return after its ranks had exited ({what}); ended it")
            return -9
    p.kill()
    raise AssertionError(f"round {r}: sweep did not exit after {what}")


def is_zombie(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def geopipe_pids(out):
    pids = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if argv and argv[0].endswith(b"geopipe") and out.encode() in argv:
            pids.append(int(d))
    return pids


def master_pid(pids):
    """Rank 0 is the process with OMPI_COMM_WORLD_RANK=0 (or the only one)."""
    for q in pids:
        try:
            with open(f"/proc/{q}/environ", "rb") as f:
                env = f.read().split(b"\0")
        except OSError:
            continue
        if b"OMPI_COMM_WORLD_RANK=0" in env or not any(e.startswith(b"OMPI_COMM_WORLD_RANK=") for e in env):
            return q
    return pids[0]


def reference_medium(c):
    ref = c.path("medium-ref.h5")
    if not os.path.exists(ref):
        c.run(c.sweep_cmd(c.medium, ref, "--threads", "2"))
        assert_complete(ref, 3072)
    return ref


def finish_and_compare(c, out, ref, what):
    c.run(c.sweep_cmd(c.medium, out, "--resume", "--threads", "2"))
    assert_complete(out, 3072)
    assert_same_metrics(ref, out, what)
    print(f"  {what}: resumed to 3072/3072 scenarios, no duplicates, metrics equal to the uninterrupted run")


def test_kill_master(c):
    ref = reference_medium(c)
    rng = random.Random(20261129)
    out = c.path("kill-standalone.h5")
    kill_and_resume(c, out, 0, "master", rng, 4)
    finish_and_compare(c, out, ref, "standalone kill -9")
    out = c.path("kill-mpi-master.h5")
    kill_and_resume(c, out, 3, "master", rng, 3)
    finish_and_compare(c, out, ref, "mpirun -np 3, kill -9 of rank 0")


def test_kill_worker(c):
    ref = reference_medium(c)
    rng = random.Random(7)
    out = c.path("kill-mpi-worker.h5")
    kill_and_resume(c, out, 3, "worker", rng, 3)
    finish_and_compare(c, out, ref, "mpirun -np 3, kill -9 of a worker")


def test_sigterm(c):
    ref = reference_medium(c)
    rng = random.Random(11)
    out = c.path("term.h5")
    kill_and_resume(c, out, 0, "term", rng, 3)
    finish_and_compare(c, out, ref, "SIGTERM/SIGUSR1 standalone")
    out = c.path("term-mpi.h5")
    kill_and_resume(c, out, 2, "term", rng, 2)
    finish_and_compare(c, out, ref, "SIGTERM to mpirun -np 2")


def test_cli_rules(c):
    out = c.path("rules.h5")
    # dry run: count, no file
    p = c.run([c.bin, "sweep", c.tiny, "-o", out, "--dry-run"])
    assert "= 36 scenarios" in p.stdout, p.stdout
    assert not os.path.exists(out), "--dry-run created the output"
    # injected failures -> /errors, exit 3
    c.run(c.sweep_cmd(c.tiny, out, "--threads", "2"), expect=3, env={"GEOPIPE_FAIL_IDS": "3,17"})
    with h5py.File(out, "r") as f:
        errs = f["errors"][:]
        assert sorted(errs["id"].tolist()) == [3, 17], errs
        assert b"injected failure" in bytes(errs["message"][0]), errs
        assert len(f["metrics"]) == 34
    # existing output without --resume/--force: exit 2, file untouched
    before = open(out, "rb").read()
    p = c.run(c.sweep_cmd(c.tiny, out), expect=2)
    assert "exists" in p.stderr and "--resume" in p.stderr, p.stderr
    assert open(out, "rb").read() == before, "existing output was modified"
    # resume of a finished file: nothing to do, same content
    c.run(c.sweep_cmd(c.tiny, out, "--resume"), expect=0)
    with h5py.File(out, "r") as f:
        assert len(f["metrics"]) == 34 and len(f["errors"]) == 2
    # changed sweep (--set enters the hash): grown by content key; here no scenario is the same,
    # so all 36 results move to a file of their own and all 36 scenarios run
    before = open(out, "rb").read()
    p = c.run([c.bin, "sweep", c.tiny, "-o", out, "--resume", "--set", "workload.num_jobs=41"], expect=None)
    assert p.returncode in (0, 3), p.stderr
    assert "reused 0, to run 36, no longer in the sweep 36" in p.stderr, p.stderr
    # every result was set aside: the retired file is the old file, byte for byte (a rebuild of a
    # complete file is deterministic)
    assert open(out + ".retired-1.h5", "rb").read() == before
    with h5py.File(out + ".retired-1.h5", "r") as f:
        assert len(f["metrics"]) == 34 and len(f["errors"]) == 2 and int(f.attrs["complete"]) == 1
    os.remove(out + ".retired-1.h5")
    # --force overwrites
    c.run(c.sweep_cmd(c.tiny, out, "--force"))
    assert_complete(out, 36)
    # bad flags
    p = c.run([c.bin, "sweep", c.tiny, "-o", c.path("x.h5"), "--shard", "2/2"], expect=2)
    assert "--shard" in p.stderr
    assert not os.path.exists(c.path("x.h5"))
    p = c.run([c.bin, "sweep", c.tiny], expect=2)
    assert "-o" in p.stderr
    print("  dry-run, /errors + exit 3, existing-output refusal, finished resume, changed sweep grown, --force: ok")


def test_shard_merge_summarize(c):
    full = c.path("full.h5")
    c.run(c.sweep_cmd(c.tiny, full, "--threads", "2"))
    shards = []
    for k in range(3):
        s = c.path(f"shard{k}.h5")
        c.run(c.sweep_cmd(c.tiny, s, "--shard", f"{k}/3", "--threads", "1"))
        shards.append(s)
    sizes = []
    for s in shards:
        with h5py.File(s, "r") as f:
            sizes.append(len(f["metrics"]))
            ids = f["metrics"]["id"][:]
            # whole (point, seed) pairs: all 3 schedulers of a pair are in the same shard
            assert all(np.sum(ids // 3 == q) == 3 for q in np.unique(ids // 3))
    assert sum(sizes) == 36 and min(sizes) > 0, sizes
    merged = c.path("merged.h5")
    c.run([c.bin, "merge", *shards, "-o", merged])
    assert_complete(merged, 36)
    assert_same_metrics(full, merged, "merged shards vs full run")
    # refusing an existing output; a file given twice is kept once; shards merged twice agree
    c.run([c.bin, "merge", *shards, "-o", merged], expect=2)
    p = c.run([c.bin, "merge", shards[0], shards[0], "-o", c.path("dup.h5")])
    assert f"{sizes[0]} scenarios, {sizes[0]} found in more than one file" in p.stderr, p.stderr
    assert_same_metrics(shards[0], c.path("dup.h5"), "a shard merged with itself")
    c.run([c.bin, "merge", merged, *shards, "-o", c.path("again.h5")])
    assert_same_metrics(full, c.path("again.h5"), "merged file + its shards")
    # another sweep: a collection, not a refusal
    other = c.path("other.h5")
    c.run(c.sweep_cmd(c.tiny, other, "--shard", "1/3", "--set", "workload.num_jobs=39"))
    p = c.run([c.bin, "merge", shards[0], other, "-o", c.path("mix.h5")])
    assert "of 2 sweeps" in p.stderr and "a collection" in p.stderr, p.stderr
    # summarize
    p = c.run([c.bin, "summarize", merged])
    for s in ("bace-pipe", "delay-first", "cost-first", "baseline", "avg_jct_s", "total_cost_usd"):
        assert s in p.stdout, (s, p.stdout)
    p = c.run([c.bin, "summarize", merged, "--by", "network.bandwidth_scale", "--baseline", "delay-first"])
    assert "[network.bandwidth_scale=0.5]" in p.stdout and "[network.bandwidth_scale=2]" in p.stdout, p.stdout
    p = c.run([c.bin, "summarize", merged, "--by", "network.bandwith_scale"], expect=2)
    assert "did you mean 'network.bandwidth_scale'" in p.stderr, p.stderr
    c.run([c.bin, "summarize", merged, "--baseline", "nope"], expect=2)
    c.run([c.bin, "summarize", c.path("missing.h5")], expect=2)
    check_summaries(c, merged, shards[0])
    print("  3 shards of whole (point, seed) pairs, merge == full run, merge refusals, summarize: ok")


def check_summaries(c, merged, shard):
    """summarize: per point by default, --pool, plain ASCII when not on a terminal, a loud note
    on an incomplete file, --format csv and json with both paired changes computed as documented
    (scheduler / baseline - 1: the mean of the ratios, and the ratio of the means with a
    delta-method CI), checked against the raw HDF5 arrays."""
    import csv
    import io
    import json
    from scipy import stats
    p = c.run([c.bin, "summarize", merged])
    groups = [ln for ln in p.stdout.splitlines() if ln.startswith("[point ")]
    assert len(groups) == 4 and groups[0].startswith("[point 0: network.bandwidth_scale=0.5 workload.load_scale=1]"), groups
    assert "\u00b1" not in p.stdout and " +- " in p.stdout, "not plain ASCII when stdout is a pipe"
    assert "avg_jct_s [h]" in p.stdout and "change = scheduler / bace-pipe - 1" in p.stdout, p.stdout
    assert "INCOMPLETE" not in p.stdout
    p = c.run([c.bin, "summarize", merged, "--pool"])
    assert not any(ln.startswith("[") for ln in p.stdout.splitlines()), p.stdout
    c.run([c.bin, "summarize", merged, "--pool", "--by", "workload.load_scale"], expect=2)
    p = c.run([c.bin, "summarize", merged, "--by", "nope"], expect=2)
    assert "expected one of 'network.bandwidth_scale', 'workload.load_scale'" in p.stderr, p.stderr
    c.run([c.bin, "summarize", merged, "--format", "xml"], expect=2)
    p = c.run([c.bin, "summarize", shard])
    assert p.stdout.startswith("NOTE: this file is INCOMPLETE: ") and "of 36 scenarios" in p.stdout, p.stdout[:300]
    # CSV and JSON, pooled, against a computation from the raw arrays
    with h5py.File(merged, "r") as f:
        sc, me = np.sort(f["scenarios"][:], order="id"), np.sort(f["metrics"][:], order="id")
    sched = np.array([x.decode() if isinstance(x, bytes) else x for x in sc["scheduler"]])
    a = me["avg_jct_s"][sched == "delay-first"]
    b = me["avg_jct_s"][sched == "bace-pipe"]  # ids: the schedulers of a (point, seed) pair are adjacent
    t = stats.t.ppf(0.975, len(a) - 1)
    rel = a / b - 1
    ratio = a.mean() / b.mean()
    d = (a - ratio * b) / b.mean()
    want = {"change_mean_of_ratios": rel.mean(), "change_mean_of_ratios_ci": t * rel.std(ddof=1) / np.sqrt(len(a)),
            "change_ratio_of_means": ratio - 1, "change_ratio_of_means_ci": t * d.std(ddof=1) / np.sqrt(len(a))}
    p = c.run([c.bin, "summarize", merged, "--pool", "--format", "csv"])
    raw = subprocess.run([c.bin, "summarize", merged, "--pool", "--format", "csv"], capture_output=True).stdout
    assert raw.count(b"\r\n") == raw.count(b"\n") > 1, "CSV lines do not end in CRLF (RFC 4180)"
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    row = [r for r in rows if r["scheduler"] == "delay-first" and r["metric"] == "avg_jct_s"][0]
    assert row["unit"] == "s" and int(row["n"]) == 12 and int(row["pairs"]) == 12, row
    for k, v in want.items():
        assert abs(float(row[k]) - v) <= 1e-9 * max(1, abs(v)), (k, row[k], v)
    p = c.run([c.bin, "summarize", merged, "--pool", "--format", "json"])
    j = json.loads(p.stdout)
    assert j["complete"] is True and j["scenarios_with_results"] == 36 and j["change"] == "scheduler / baseline - 1"
    m = [s for s in j["groups"][0]["schedulers"] if s["scheduler"] == "delay-first"][0]["metrics"]["avg_jct_s"]
    for k, v in want.items():
        assert abs(m[k] - v) <= 1e-9 * max(1, abs(v)), (k, m[k], v)
    print("  summarize: per point (4 groups), --pool, ASCII on a pipe, INCOMPLETE on a shard, CSV and JSON changes "
          "(mean of ratios, ratio of means) equal to a numpy/scipy computation")


def test_sweep_errors(c):
    bad_dir = os.path.join(c.src, "tests/config/sweeps/bad")
    files = sorted(f for f in os.listdir(bad_dir) if f.endswith(".toml"))
    assert len(files) >= 10, files
    for name in files:
        path = os.path.join(bad_dir, name)
        want = open(path).readline().split("# expect:", 1)[1].strip()
        out = c.path("never.h5")
        p = c.run([c.bin, "sweep", path, "-o", out], expect=2)
        pos = 0
        for piece in [x.strip() for x in want.split("...")]:
            i = p.stderr.find(piece, pos)
            assert i >= 0, f"{name}: {p.stderr!r} lacks {piece!r}"
            pos = i + len(piece)
        assert not os.path.exists(out), f"{name}: output created"
    print(f"  {len(files)} bad sweep files: exit 2, expected message, no output file")


def test_unfinished(c):
    """No job left behind (docs/model.md, "Events and metrics";
    docs/analysis.md, "Unfinished jobs"): a run whose scheduler leaves jobs waiting is a failed run (run: exit 1 naming it,
    the other schedulers' rows printed, no file written; sweep: an /errors row, exit 3,
    counted by summarize), and results whose scenarios left jobs unfinished (only files of
    model version 1 have them; here made by editing a file) are refused by summarize, analyze
    and the Python package, or flagged with --allow-unfinished / allow_unfinished=True."""
    base = os.path.join(c.src, "sweeps/base/six-regions.toml")
    strand = {"GEOPIPE_STRAND_PRESETS": "cost-first"}
    csv = c.path("jobs.csv")
    p = c.run([c.bin, "run", base, "--scheduler", "bace-pipe,cost-first", "--set", "workload.num_jobs=20",
               "--jobs-csv", csv], expect=1, env=strand)
    assert "geopipe: error: scheduler 'cost-first' left 20 jobs waiting on an idle cluster at t = " in p.stderr, p.stderr
    assert "a scheduler bug" in p.stderr and "not written" in p.stderr, p.stderr
    assert "bace-pipe" in p.stdout and " 20/20 " in p.stdout and "cost-first" not in p.stdout, p.stdout
    assert not os.path.exists(csv)
    out = c.path("strand.h5")
    p = c.run(c.sweep_cmd(c.tiny, out, "--threads", "2", "--no-mpi"), expect=3, env=strand)
    with h5py.File(out, "r") as f:
        sc, err, met = f["scenarios"][:], f["errors"][:], f["metrics"][:]
    sched = {int(r["id"]): r["scheduler"].decode() for r in sc}
    assert len(err) == 12 and all(sched[int(r["id"])] == "cost-first" for r in err), len(err)
    assert all(b"scheduler 'cost-first' left" in r["message"] and b"waiting on an idle cluster" in r["message"] for r in err)
    assert len(met) == 24 and np.all(met["jobs_unfinished"] == 0)
    p = c.run([c.bin, "summarize", out, "--pool"])
    assert "NOTE: 12 scenarios FAILED" in p.stdout, p.stdout
    print("  stranding scheduler: run exit 1 naming it (other rows printed, no CSV); sweep exit 3 with 12 /errors rows; "
          "summarize counts them")

    # Results that leave unfinished jobs out: edit a good file as model version 1 could have written it.
    good = c.path("good.h5")
    c.run(c.sweep_cmd(c.tiny, good, "--threads", "2", "--no-mpi"))
    bad = c.path("unfinished.h5")
    shutil.copy(good, bad)
    with h5py.File(bad, "r+") as f:
        m = f["metrics"][:]
        i = int(np.nonzero(m["id"] == 4)[0][0])
        m["jobs_unfinished"][i] = 3
        m["jobs_completed"][i] = m["jobs_total"][i] - 3
        f["metrics"][:] = m
    p = c.run([c.bin, "summarize", bad], expect=2)
    assert "1 of its 36 scenarios left jobs unfinished (the first: id 4" in p.stderr and "--allow-unfinished" in p.stderr, p.stderr
    assert "'avg_jct_s'" in p.stderr and "'total_cost_usd'" in p.stderr, p.stderr
    c.run([c.bin, "summarize", bad, "--metric", "jobs_completed", "jobs_unfinished"])  # counts are whole
    p = c.run([c.bin, "summarize", bad, "--allow-unfinished", "--pool"])
    assert "WARNING: 1 scenario left jobs unfinished" in p.stdout and "unfin" in p.stdout, p.stdout
    p = c.run([c.bin, "summarize", bad, "--allow-unfinished", "--pool", "--format", "csv"])
    rows = [r.split(",") for r in p.stdout.strip().splitlines()]
    col = rows[0].index("unfinished_runs")
    flagged = {(r[rows[0].index("scheduler")], r[col]) for r in rows[1:]}
    assert (sched_of(good, 4), "1") in flagged and sum(int(n) for _, n in flagged) == 1, flagged
    p = c.run([c.bin, "summarize", bad, "--allow-unfinished", "--format", "json"])
    assert '"unfinished_scenarios": 1' in p.stdout, p.stdout[:400]
    c.run([c.bin, "summarize", good])  # the unedited file: no refusal, no flag
    py = ("import sys, warnings; sys.path.insert(0, sys.argv[1]); import geopipe\n"
          "try:\n    geopipe.load(sys.argv[2]); print('loaded')\n"
          "except geopipe.UnfinishedJobsError as e:\n    print('refused:', e)\n"
          "with warnings.catch_warnings(record=True) as w:\n    warnings.simplefilter('always')\n"
          "    df = geopipe.load(sys.argv[2], allow_unfinished=True)\n"
          "    print('flagged', df.attrs['unfinished_scenarios'], len(w))\n"
          "print('good', geopipe.load(sys.argv[3]).attrs['unfinished_scenarios'])\n")
    p = c.run(["/usr/bin/python3", "-c", py, os.path.join(c.src, "python"), bad, good])
    assert "refused:" in p.stdout and "left jobs unfinished" in p.stdout and "flagged 1 1" in p.stdout \
        and "good 0" in p.stdout, p.stdout

    # analyze: a Morris design file with one edited scenario
    morris = design_sweep(c, "m", ["bace-pipe", "delay-first"], 20, "morris", "trajectories = 3\nlevels = 4\n",
                          '[[factor]]\nparam = "workload.load_scale"\nmin = 0.5\nmax = 2.0\n')
    mh = c.path("morris.h5")
    c.run(c.sweep_cmd(morris, mh, "--threads", "2", "--no-mpi"))
    with h5py.File(mh, "r+") as f:
        m = f["metrics"][:]
        ids = {int(r["id"]): r["scheduler"].decode() for r in f["scenarios"][:]}
        i = next(k for k, r in enumerate(m) if ids[int(r["id"])] == "delay-first")
        m["jobs_unfinished"][i] = 2
        f["metrics"][:] = m
    c.run([c.bin, "analyze", "morris", mh, "--resamples", "10"])  # bace-pipe alone: its scenarios are whole
    p = c.run([c.bin, "analyze", "morris", mh, "--paired-vs", "delay-first", "--resamples", "10"], expect=2)
    assert "1 scenario of bace-pipe and delay-first left jobs unfinished" in p.stderr and "--allow-unfinished" in p.stderr, p.stderr
    p = c.run([c.bin, "analyze", "morris", mh, "--paired-vs", "delay-first", "--resamples", "10", "--allow-unfinished"])
    assert p.stdout.startswith("WARNING: 1 scenario left jobs unfinished"), p.stdout
    p = c.run([c.bin, "analyze", "morris", mh, "--paired-vs", "delay-first", "--resamples", "10", "--allow-unfinished",
               "--format", "json"])
    assert '"unfinished_scenarios": 1' in p.stdout and "left jobs unfinished" in p.stderr
    c.run([c.bin, "analyze", "morris", mh, "--scheduler", "delay-first", "--metric", "jobs_completed", "--resamples", "10"])
    py = ("import sys; sys.path.insert(0, sys.argv[1]); import geopipe\n"
          "try:\n    geopipe.morris_indices(sys.argv[2], paired_vs='delay-first', resamples=10); print('analysed')\n"
          "except geopipe.UnfinishedJobsError as e:\n    print('refused:', e)\n"
          "import warnings; warnings.simplefilter('ignore')\n"
          "r = geopipe.morris_indices(sys.argv[2], paired_vs='delay-first', resamples=10, allow_unfinished=True)\n"
          "print('flagged', r.attrs['unfinished_scenarios'])\n")
    p = c.run(["/usr/bin/python3", "-c", py, os.path.join(c.src, "python"), mh])
    assert "refused:" in p.stdout and "flagged 1" in p.stdout, p.stdout
    print("  unfinished jobs: summarize, analyze and geopipe.load / morris_indices refuse them (exit 2 / "
          "UnfinishedJobsError) unless allowed, then flag them (banner, 'unfin' column, unfinished_runs, JSON count); "
          "job-count metrics pass")


def sched_of(path, scenario_id):
    with h5py.File(path, "r") as f:
        return next(r["scheduler"].decode() for r in f["scenarios"][:] if int(r["id"]) == scenario_id)


def test_hostile_study(c):
    """Hostile input, round 2 (the study features): no NaN or inf in any output, the value of a
    test function shown as it is, a constant metric said to be constant (no indices), and the
    messages that used to mislead."""
    import json
    ish = c.path("ish.toml")
    with open(ish, "w") as f:
        f.write('[sweep]\nname = "ish"\ndesign = "sobol"\n[test_function]\nname = "ishigami"\n'
                '[sobol]\nsamples = 16\nsecond_order = false\n')
    out = c.path("ish.h5")
    c.run(c.sweep_cmd(ish, out, "--no-mpi"))
    with h5py.File(out, "r") as f:
        mean = float(np.mean(f["metrics"]["value"]))
        assert f.attrs["evaluator"] == "test_function" and (f["metrics"]["avg_jct_s"] == 0).all()
    p = c.run([c.bin, "summarize", out, "--pool"])
    assert "value" in p.stdout and "[h]" not in p.stdout and "total_cost_usd" not in p.stdout, p.stdout
    row = next(l for l in p.stdout.splitlines() if l.startswith("ishigami"))
    assert abs(float(row.split()[2]) - mean) <= 1e-3 * abs(mean), (row, mean)
    j = json.loads(c.run([c.bin, "summarize", out, "--pool", "--format", "json"]).stdout)
    cell = j["groups"][0]["schedulers"][0]["metrics"]["value"]
    assert cell["unit"] == "" and abs(cell["mean"] - mean) < 1e-9 * abs(mean), cell
    p = c.run([c.bin, "summarize", out, "--metric", "avg_jct_s"], expect=2)
    assert p.returncode == 2 and "a simulation's metric" in p.stderr and "--metric value" in p.stderr, p.stderr
    # a constant metric: said to be constant, no index, no NaN, in every format
    sob = design_sweep(c, "sob", ["bace-pipe"], 10, "sobol", "samples = 4\nsecond_order = false\n",
                       '[[factor]]\nparam = "workload.load_scale"\nmin = 0.5\nmax = 2.0\n')
    sh = c.path("sob.h5")
    c.run(c.sweep_cmd(sob, sh, "--no-mpi"))
    for fmt in ("table", "csv", "json"):
        p = c.run([c.bin, "analyze", "sobol", sh, "--metric", "jobs_total", "--resamples", "10", "--format", fmt])
        text = p.stdout + p.stderr
        assert "jobs_total of bace-pipe is 10 at every one of the 16 points: no factor moves it, so there are no indices" \
            in text, text
        assert "nan" not in p.stdout.lower() and "inf" not in p.stdout.lower(), p.stdout
    assert json.loads(p.stdout)["constant"] is True
    # analyze refuses what would leave results out, saying what is missing and what to do
    py = ("import sys; sys.path.insert(0, sys.argv[1]); import geopipe\n"
          "try:\n    geopipe.sobol_indices(sys.argv[2], resamples=10); print('analysed')\n"
          "except ValueError as e:\n    print('refused:', e)\n")
    def refused(path, want):
        p = c.run([c.bin, "analyze", "sobol", path, "--resamples", "10"], expect=2)
        assert want in p.stderr, p.stderr
        q = c.run(["/usr/bin/python3", "-c", py, os.path.join(c.src, "python"), path])
        assert "refused:" in q.stdout and want in q.stdout, q.stdout
    cut = c.path("sob-cut.h5")  # a /design cut short
    shutil.copy(sh, cut)
    with h5py.File(cut, "r+") as f:
        d = f["design"][:12]
        del f["design"]
        f.create_dataset("design", data=d)
    refused(cut, "damaged result file: /design has 12 rows but /scenarios has 16 points")
    failed = c.path("sob-failed.h5")  # a failed scenario
    c.run(c.sweep_cmd(sob, failed, "--no-mpi"), expect=3, env={"GEOPIPE_FAIL_IDS": "5"})
    refused(failed, "1 scenario of bace-pipe failed (rows in /errors; the first: point 2, seed 2, bace-pipe: injected failure")
    shard = c.path("sob-shard.h5")  # one shard of two
    c.run(c.sweep_cmd(sob, shard, "--no-mpi", "--shard", "0/2"))
    refused(shard, "16 scenarios of bace-pipe have no result (the first at point 0; the file holds results of 16 of 32 "
                   "scenarios: it is shard 0/2 of the sweep: geopipe merge the shards first)")
    # accepted at load means it runs: a sweep one HDF5 file cannot hold is refused at load (exit
    # 2, --dry-run too); the largest that fits runs
    def g_sweep(n):
        path = c.path(f"g{n}.toml")
        with open(path, "w") as f:
            f.write(f'[sweep]\nname = "g{n}"\ndesign = "lhs"\n[test_function]\nname = "sobol-g"\n'
                    f'a = [{", ".join(["99"] * n)}]\n[lhs]\nsamples = 2\n')
        return path
    for args in (["--dry-run"], ["--quiet", "--no-mpi"]):
        p = c.run([c.bin, "sweep", g_sweep(2500), "-o", c.path("g2500.h5"), *args], expect=2)
        assert "one HDF5 result file cannot hold this sweep (2500 parameter columns" in p.stderr, p.stderr
        assert not glob.glob(c.path("g2500.h5*")), glob.glob(c.path("g2500.h5*"))
    c.run([c.bin, "sweep", g_sweep(2375), "-o", c.path("g2375.h5"), "--quiet", "--no-mpi"])
    with h5py.File(c.path("g2375.h5"), "r") as f:
        assert len(f["design"].dtype.names) == 2376 and len(f["metrics"]) == 2
    # a text value with U+0000 is refused where it is written (readers would find it damaged)
    nul = c.path("nul.toml")
    with open(nul, "w") as f:
        f.write(f'[sweep]\nname = "nul"\nbase = "{os.path.join(c.src, "sweeps/base/six-regions.toml")}"\n'
                'schedulers = ["bace-pipe"]\nseeds = 1\n[[axis]]\nparam = "scenario.name"\nvalues = ["x", "a\\u0000b"]\n')
    p = c.run([c.bin, "sweep", nul, "-o", c.path("nul.h5"), "--no-mpi"], expect=2)
    assert "nul.toml:8:16: axis[0].values[1] contains U+0000 (NUL), which no text value may" in p.stderr, p.stderr
    assert not os.path.exists(c.path("nul.h5"))
    # every file a sweep reads is an input, its points file too: never overwritten, not with --force
    pts = c.path("pts.csv")
    with open(pts, "w") as f:
        f.write("network.bandwidth_scale\n0.5\n1\n")
    ptoml = c.path("pts.toml")
    with open(ptoml, "w") as f:
        f.write(f'[sweep]\nname = "p"\nbase = "{os.path.join(c.src, "sweeps/base/six-regions.toml")}"\n'
                'schedulers = ["bace-pipe"]\nseeds = 1\ndesign = "points_file"\n[points_file]\npath = "pts.csv"\n')
    for extra in ([], ["--force"], ["--resume"]):
        p = c.run([c.bin, "sweep", ptoml, "-o", pts, "--no-mpi", *extra], expect=2)
        assert "is an input of this sweep" in p.stderr and open(pts).read() == "network.bandwidth_scale\n0.5\n1\n", p.stderr
    # a file-size limit (a quota, a full scratch file system) mid-sweep: not a signal but an error,
    # no stray files, and the result file resumes to the same results as a run without the limit
    import resource
    ref = c.path("lim-ref.h5")
    c.run(c.sweep_cmd(c.tiny, ref, "--no-mpi", "--save-jobs", "--threads", "1", "--flush-interval", "0.05"))
    size = os.path.getsize(ref)
    for blocks in sorted({max(8, int(size * f) // 1024) for f in (0.2, 0.5, 0.8)}):  # KiB below the final size
        out = c.path(f"lim{blocks}.h5")
        def limit(b=blocks):
            signal.signal(signal.SIGXFSZ, signal.SIG_DFL)  # geopipe itself must ignore it
            resource.setrlimit(resource.RLIMIT_FSIZE, (b * 1024, b * 1024))
        p = subprocess.run(c.sweep_cmd(c.tiny, out, "--no-mpi", "--save-jobs", "--threads", "1", "--flush-interval", "0.05"),
                           capture_output=True, text=True, env=c.env(), preexec_fn=limit, timeout=600)
        assert p.returncode == 1 and "File too large" in p.stderr, (blocks, p.returncode, p.stderr)
        assert [l for l in p.stderr.splitlines() if l.startswith("geopipe: error: ")], p.stderr
        left = sorted(os.path.basename(x) for x in glob.glob(out + "*"))
        assert left in ([], [os.path.basename(out)]), left  # no .lock, .create-tmp or .tmp
        c.run(c.sweep_cmd(c.tiny, out, "--no-mpi", "--save-jobs", "--resume"))
        assert_same_metrics(ref, out, f"resumed after a {blocks} KiB file-size limit")
        with h5py.File(ref, "r") as a, h5py.File(out, "r") as b:
            ja = np.sort(a["jobs"][:], order=["scenario_id", "job_id"])
            jb = np.sort(b["jobs"][:], order=["scenario_id", "job_id"])
            assert ja.tobytes() == jb.tobytes(), f"/jobs after a {blocks} KiB limit"
    # --force over an earlier result under a limit the new file cannot be written in: the earlier
    # result stays at its path, byte for byte (the new file is written beside it and renamed over
    # it only once complete), and nothing else is left
    out = c.path("force-lim.h5")
    shutil.copyfile(ref, out)
    before = open(out, "rb").read()
    def limit8():
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
        resource.setrlimit(resource.RLIMIT_FSIZE, (8 * 1024, 8 * 1024))
    p = subprocess.run(c.sweep_cmd(c.tiny, out, "--no-mpi", "--threads", "1", "--force"),
                       capture_output=True, text=True, env=c.env(), preexec_fn=limit8, timeout=600)
    assert p.returncode == 1 and "File too large" in p.stderr, (p.returncode, p.stderr)
    assert open(out, "rb").read() == before, "--force lost the earlier result before the new one existed"
    left = sorted(os.path.basename(x) for x in glob.glob(out + "*"))
    assert left == [os.path.basename(out)], left
    print("  test-function values shown unscaled (no [h], no cost column); a constant metric reported as such "
          "in table, CSV and JSON, with no NaN; a /design cut short, a failed scenario and a shard refused by "
          "analyze and by the Python functions, with what is missing; a 2,500-column sweep refused at load, "
          "2,375 columns run; NUL text refused at load; a file-size limit mid-sweep: exit 1, no stray file, "
          "--resume gives the results of an unlimited run; --force under the limit keeps the earlier result")


def test_jobs_rows(c):
    """HDF5 /jobs and `geopipe run --jobs-csv` write the same per-job row (sim/job_row.h): same
    columns after their key column, same values, for one scenario of the tiny sweep."""
    import csv
    out = c.path("jobs.h5")
    c.run(c.sweep_cmd(c.tiny, out, "--save-jobs", "--threads", "1", "--no-mpi"))
    with h5py.File(out, "r") as f:
        scen = f["scenarios"][:]
        jobs = f["jobs"][:]
    row = scen[scen["id"] == 3][0]  # (point 0 · 3 seeds + seed index 1) · 3 schedulers + 0: seed 2, bace-pipe
    assert row["scheduler"].decode() == "bace-pipe" and int(row["seed"]) == 2, row
    mine = jobs[jobs["scenario_id"] == 3]
    base = os.path.join(c.src, "sweeps/base/six-regions.toml")
    csv_path = c.path("jobs.csv")
    c.run([c.bin, "run", base, "--scheduler", "bace-pipe", "--seed", "2", "--set", "workload.num_jobs=40",
           "--set", "network.bandwidth_scale=0.5", "--set", "workload.load_scale=1.0", "--jobs-csv", csv_path])
    with open(csv_path) as fh:
        rows = list(csv.DictReader(fh))
    columns = [n for n in jobs.dtype.names if n != "scenario_id"]
    assert list(rows[0].keys()) == ["scheduler"] + columns, (list(rows[0].keys()), columns)
    assert len(rows) == len(mine) == 40, (len(rows), len(mine))
    for r, j in zip(rows, mine):
        for n in columns:
            v = j[n]
            got = v.decode() if isinstance(v, bytes) else v
            want = r[n] if isinstance(v, bytes) else type(got)(float(r[n]))
            assert got == want, f"job {r['job_id']} column {n}: /jobs {got!r} vs csv {want!r}"
    assert any(float(r["carbon_g"]) > 0 for r in rows), "carbon is recorded"
    print(f"  /jobs and --jobs-csv: {len(columns)} columns, {len(rows)} jobs identical")


def test_long_texts(c):
    """No stored text is cut (format version 3): with 70-byte region names, a 90-byte model name
    and 8-stage pipelines, /jobs `regions` and `model` are exactly what `geopipe run --jobs-csv`
    writes, and the columns are as wide as the sweep's longest possible text (job_text_bytes)."""
    import csv
    src_base = os.path.join(c.src, "sweeps/base/six-regions.toml")
    text = open(src_base).read()
    names = ["us-east", "us-west", "eu-west", "eu-central", "ap-northeast", "ap-southeast"]
    for n in names:
        text = text.replace(f'"{n}"', f'"{n}-{"x" * (69 - len(n))}"')
    model = "a-custom-model-" + "m" * 75
    text = text.replace('[workload]', f'[[model]]\nname = "{model}"\nlayers = 32\nhidden = 4096\n'
                        'vocab = 32000\nseq_len = 2048\n\n[workload]', 1)
    text += f'\n[[workload.mix]]\nmodel = "{model}"\nstage_multiplier = 8.0\n'
    base = c.path("long-base.toml")
    open(base, "w").write(text)
    sweep = c.path("long.toml")
    open(sweep, "w").write(f'[sweep]\nname = "long"\nbase = "{base}"\nschedulers = ["bace-pipe", "cost-first"]\n'
                           'seeds = 1\n[sweep.set]\n"workload.num_jobs" = 60\n')
    out = c.path("long.h5")
    c.run(c.sweep_cmd(sweep, out, "--save-jobs", "--threads", "1", "--no-mpi"))
    with h5py.File(out, "r") as f:
        assert int(f.attrs["format_version"]) == 10
        jobs = f["jobs"][:]
        widths = {n: jobs.dtype[n].itemsize for n in ("model", "regions")}
    longest = 0
    for sid, sched in enumerate(["bace-pipe", "cost-first"]):
        csv_path = c.path(f"long-{sched}.csv")
        c.run([c.bin, "run", base, "--scheduler", sched, "--seed", "1", "--set", "workload.num_jobs=60",
               "--jobs-csv", csv_path])
        with open(csv_path) as fh:
            rows = list(csv.DictReader(fh))
        mine = jobs[jobs["scenario_id"] == sid]
        assert len(rows) == len(mine) == 60, (len(rows), len(mine))
        for r, j in zip(rows, mine):
            for n in ("model", "regions"):
                assert j[n].decode() == r[n], f"{sched} job {r['job_id']} {n}: /jobs {j[n]!r} vs csv {r[n]!r}"
                longest = max(longest, len(r["regions"]))
    # The bound: 8 x the 32-layer model's minimum stages at most 32 stages, 70-byte names.
    assert longest > 128, f"the test needs regions texts longer than the old 128-byte column ({longest})"
    assert widths["model"] == len(model), widths
    assert longest <= widths["regions"] <= 32 * 71 - 1, (longest, widths)
    print(f"  /jobs texts whole: regions up to {longest} bytes (column {widths['regions']}), model {len(model)}")


def extension_sweep(c, name, seeds=2, values=(0.5, 2.0), schedulers=("bace-pipe", "delay-first"), point=False,
                    base=None):
    """A small sweep file for the extension tests: num_jobs = 12, one bandwidth axis."""
    base = base or os.path.join(c.src, "sweeps/base/six-regions.toml")
    text = (f'[sweep]\nname = "ext"\nbase = "{base}"\nschedulers = {list(schedulers)!r}\nseeds = {seeds}\n'
            '[sweep.set]\n"workload.num_jobs" = 12\n\n'
            f'[[axis]]\nparam = "network.bandwidth_scale"\nvalues = {list(values)!r}\n')
    if point:
        text += '\n[[point]]\n"network.bandwidth_scale" = 3.0\n"workload.load_scale" = 1.5\n'
    path = c.path(name + ".toml")
    with open(path, "w") as f:
        f.write(text.replace("'", '"'))
    return path


def accounting(stderr):
    """(reused, to run, no longer in the sweep) from the line geopipe prints before it starts."""
    import re
    m = re.search(r"reused (\d+), to run (\d+), no longer in the sweep (\d+)", stderr)
    assert m, stderr
    return tuple(int(x) for x in m.groups())


def deterministic(path):
    """/scenarios, /metrics (without wall-clock columns), /errors and /jobs as comparable bytes."""
    with h5py.File(path, "r") as f:
        out = {"scenarios": f["scenarios"][:].tobytes(), "complete": int(f.attrs["complete"])}
        m = f["metrics"][:]
        keep = [n for n in m.dtype.names if n not in TIMING]
        out["metrics"] = recfunctions.repack_fields(np.sort(m, order="id")[keep]).tobytes()
        out["errors"] = f["errors"][:].tobytes()
        if "jobs" in f:
            j = f["jobs"][:]
            out["jobs"] = np.sort(j, order=["scenario_id", "job_id"]).tobytes()
    return out


def test_extend(c):
    """Growing a finished study (--resume with a changed sweep): every result the new sweep still
    has is reused by content key, only the missing scenarios run, results no longer in the sweep
    are moved to a file of their own, and the file ends bit-identical to a from-scratch run of
    the new sweep, also when the extension is killed with SIGKILL at random moments."""
    start = extension_sweep(c, "start")
    done = c.path("start.h5")
    c.run(c.sweep_cmd(start, done, "--save-jobs", "--threads", "2", "--no-mpi"))
    assert_complete(done, 8)
    changed_base = c.path("changed-base.toml")
    text = open(os.path.join(c.src, "sweeps/base/six-regions.toml")).read()
    assert "price_usd_per_kwh = 0.086" in text
    open(changed_base, "w").write(text.replace("price_usd_per_kwh = 0.086", "price_usd_per_kwh = 0.087", 1))
    # (name, sweep, reused, to run, no longer in the sweep); start: 2 values x 2 seeds x 2 schedulers
    cases = [
        ("seeds 2->3", extension_sweep(c, "seeds", seeds=3), 8, 4, 0),
        ("new axis value", extension_sweep(c, "value", values=(0.5, 1.0, 2.0)), 8, 4, 0),
        ("new scheduler", extension_sweep(c, "sched", schedulers=("bace-pipe", "delay-first", "cost-first")), 8, 4, 0),
        ("removed scheduler", extension_sweep(c, "unsched", schedulers=("bace-pipe",)), 4, 0, 4),
        ("new point", extension_sweep(c, "point", point=True), 8, 4, 0),
        ("changed base", extension_sweep(c, "base", base=changed_base), 0, 8, 8),
        ("axis values reordered, seeds 1", extension_sweep(c, "reorder", seeds=1, values=(2.0, 0.5)), 4, 0, 4),
    ]
    rng = random.Random(20261130)
    for name, sweep, reused, to_run, retired in cases:
        ref = c.path("ref.h5")
        if os.path.exists(ref):
            os.remove(ref)
        c.run(c.sweep_cmd(sweep, ref, "--save-jobs", "--threads", "2", "--no-mpi"))
        want = deterministic(ref)
        wall = 0.2
        for attempt in ("straight", "killed", "killed", "killed"):
            out = c.path("ext.h5")
            for f in glob.glob(out + "*"):
                os.remove(f)
            shutil.copy(done, out)
            cmd = [c.bin, "sweep", sweep, "-o", out, "--resume", "--save-jobs", "--threads", "2", "--no-mpi"]
            if attempt == "killed":
                # SIGKILL at a random moment of the extension (rewrite or runs), then --resume.
                p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=c.env())
                time.sleep(rng.uniform(0.0, wall))
                p.kill()
                p.wait()
                for f in glob.glob(out + ".*-tmp"):  # what a killed writer leaves; a rerun ignores it
                    os.remove(f)
            t0 = time.monotonic()
            r = c.run(cmd)
            if attempt == "straight":
                wall = time.monotonic() - t0
            got = accounting(r.stderr)
            if attempt == "straight":
                assert got == (reused, to_run, retired), f"{name}: {got} != {(reused, to_run, retired)}\n{r.stderr}"
                import re
                m = re.search(r"holds (\d+) of (\d+) scenarios: reused (\d+), computed (\d+)", r.stderr)
                assert m and int(m.group(4)) == to_run and int(m.group(1)) == int(m.group(2)), (name, r.stderr)
                retired_files = glob.glob(out + ".retired-*.h5")
                if retired:
                    assert len(retired_files) == 1, (name, retired_files)
                    with h5py.File(retired_files[0], "r") as f:
                        n = len(f["metrics"]) + len(f["errors"])
                    assert n == retired, f"{name}: {n} rows set aside, expected {retired}"
                    c.run([c.bin, "summarize", retired_files[0]])
                else:
                    assert not retired_files, (name, retired_files)
            got_rows = deterministic(out)
            for k in want:
                assert got_rows.get(k) == want[k], f"{name} ({attempt}): {k} differs from a from-scratch run"
        print(f"  {name}: reused {reused}, ran {to_run}, set aside {retired}; identical to a fresh run (also after kill -9)")

    # The same sweep file, but its trace changed: the sweep hash does not see it, the keys do.
    trace = c.path("jobs.csv")
    header = "arrival_s,model,stages,gpus_per_stage,micro_batch_size,micro_batches,iterations\n"
    open(trace, "w").write(header + "0,gpt3-1.3b,0,1,1,4,50\n600,gpt3-1.3b,0,1,1,4,80\n")
    sweep = extension_sweep(c, "trace")
    text = open(sweep).read().replace('"workload.num_jobs" = 12', f'"workload.trace" = "{trace}"')
    open(sweep, "w").write(text)
    out = c.path("trace.h5")
    c.run(c.sweep_cmd(sweep, out, "--threads", "2", "--no-mpi"))
    r = c.run([c.bin, "sweep", sweep, "-o", out, "--resume", "--threads", "2", "--no-mpi"])
    assert accounting(r.stderr) == (8, 0, 0), r.stderr
    open(trace, "w").write(header + "0,gpt3-1.3b,0,1,1,4,50\n600,gpt3-1.3b,0,1,1,4,81\n")
    r = c.run([c.bin, "sweep", sweep, "-o", out, "--resume", "--threads", "2", "--no-mpi"])
    assert accounting(r.stderr) == (0, 8, 8), r.stderr
    ref = c.path("trace-ref.h5")
    c.run(c.sweep_cmd(sweep, ref, "--threads", "2", "--no-mpi"))
    assert deterministic(out) == deterministic(ref), "a changed trace was not recomputed"
    print("  same sweep file, changed trace: reused 0, ran 8, set aside 8; identical to a fresh run")


def keyed(path):
    """{key: (seed, scheduler, deterministic metrics as bytes)} of the scenarios with metrics."""
    with h5py.File(path, "r") as f:
        s, m = f["scenarios"][:], f["metrics"][:]
    keep = [n for n in m.dtype.names if n not in TIMING and n != "id"]
    rows = {int(r["id"]): recfunctions.repack_fields(m[keep][i:i + 1]).tobytes() for i, r in enumerate(m)}
    return {r["key"].decode(): (int(r["seed"]), r["scheduler"].decode(), rows[int(r["id"])])
            for r in s if int(r["id"]) in rows}


def test_merge_studies(c):
    """Merge by content: studies run separately (other seeds, other axis values, a shard of a
    third sweep) join into one collection, each scenario once; it equals a single run of the
    union; identical results are deduplicated, a differing one is an error naming the scenario;
    a format-3 file is refused by merge and upgraded by --resume."""
    a = extension_sweep(c, "a", seeds=2, values=(0.5, 2.0))
    b = extension_sweep(c, "b", seeds=2, values=(2.0, 4.0))
    with open(b) as f:
        text = f.read().replace("seeds = 2", "seeds = [2, 3]")
    with open(b, "w") as f:
        f.write(text)
    union = extension_sweep(c, "union", seeds=3, values=(0.5, 2.0, 4.0))
    ha, hb, hu = c.path("a.h5"), c.path("b.h5"), c.path("union.h5")
    for sw, out in ((a, ha), (b, hb), (union, hu)):
        c.run(c.sweep_cmd(sw, out, "--threads", "2", "--no-mpi"))
    # a: 2 values x seeds 1,2; b: 2 values x seeds 2,3; both have (2.0, seed 2): 2 schedulers
    ab = c.path("ab.h5")
    p = c.run([c.bin, "merge", ha, hb, "-o", ab])
    assert "of 2 sweeps" in p.stderr and "14 scenarios, 2 found in more than one file" in p.stderr, p.stderr
    assert "2 results compared, all equal" in p.stderr, p.stderr
    ka, kb, kab, ku = keyed(ha), keyed(hb), keyed(ab), keyed(hu)
    assert set(kab) == set(ka) | set(kb) and len(kab) == 14, (len(kab), len(ka), len(kb))
    for k, v in kab.items():  # every result is the one of a single run of the union sweep
        assert ku.get(k) == v, f"scenario {k}: merged result differs from a run of the union sweep"
    with h5py.File(ab, "r") as f:
        assert int(f.attrs["collection"]) == 1 and int(f.attrs["complete"]) == 1
        assert f.attrs["sweep_name"] == "ext" and list(f["scenarios"]["id"]) == list(range(14))
        s = f["scenarios"][:]
        # points by content: one point per bandwidth value, whichever file it came from
        pts = {float(r["network.bandwidth_scale"]): set() for r in s}
        for r in s:
            pts[float(r["network.bandwidth_scale"])].add(int(r["point"]))
        assert all(len(v) == 1 for v in pts.values()) and len(pts) == 3, pts
    # the other order: the same scenarios and results; summarize pairs the merged seeds
    ba = c.path("ba.h5")
    c.run([c.bin, "merge", hb, ha, "-o", ba])
    assert keyed(ba) == kab
    p = c.run([c.bin, "summarize", ab, "--by", "network.bandwidth_scale"])
    assert "[network.bandwidth_scale=2]" in p.stdout, p.stdout
    two = [ln for ln in p.stdout.split("[network.bandwidth_scale=2]")[1].splitlines() if ln.startswith("bace-pipe")]
    assert two and two[0].split()[1] == "3", p.stdout  # seeds 1, 2 (a) and 3 (b) of one point
    # a collection merges again, with a shard of a third sweep
    third = c.path("third.h5")
    c.run(c.sweep_cmd(union, third, "--shard", "0/2", "--threads", "2", "--no-mpi", "--set", "workload.num_jobs=13"))
    abc = c.path("abc.h5")
    p = c.run([c.bin, "merge", ab, third, "-o", abc])
    with h5py.File(third, "r") as f:
        n3 = len(f["scenarios"])
    assert f"{14 + n3} scenarios, 0 found" in p.stderr, p.stderr
    # a collection merged with one of its own inputs names each sweep once, and a collection of
    # collections is the collection of their sweeps (the same sweep_hash as merging them at once)
    aba, abc_flat = c.path("aba.h5"), c.path("abc-flat.h5")
    c.run([c.bin, "merge", ab, ha, "-o", aba])
    c.run([c.bin, "merge", ha, hb, third, "-o", abc_flat])
    def attr(path, name):
        with h5py.File(path, "r") as f:
            v = f.attrs[name]
            return v.decode() if isinstance(v, bytes) else v
    for name in ("sweep_name", "sweep_toml", "base_toml", "sweep_hash"):
        assert attr(aba, name) == attr(ab, name), f"{name} of a collection merged with its own input"
    assert attr(ab, "sweep_toml").count("# ==== sweep 'ext'") == 2, attr(ab, "sweep_toml")[:300]
    assert attr(abc, "sweep_hash") == attr(abc_flat, "sweep_hash")
    assert attr(abc, "sweep_toml").count("# ==== sweep ") == 3
    # every row's resolved parameters: the snippet of hdf5-format.md, /parameters; num_jobs (12
    # in a and b, 13 in the third sweep) became a column of the collection
    with h5py.File(ab, "r") as f:
        par = {r["path"].decode(): (r["value"].decode(), r["column"].decode()) for r in f["parameters"][:]}
        assert par["network.bandwidth_scale"] == ("", "network.bandwidth_scale"), par["network.bandwidth_scale"]
        assert par["cluster.region[0].gpus"] == ("24", ""), par["cluster.region[0].gpus"]
        assert par["workload.num_jobs"] == ("12", ""), par["workload.num_jobs"]
    with h5py.File(abc, "r") as f:
        par = {r["path"].decode(): (r["value"].decode(), r["column"].decode()) for r in f["parameters"][:]}
        assert par["workload.num_jobs"] == ("", "workload.num_jobs"), par["workload.num_jobs"]
        jobs = f["scenarios"]["workload.num_jobs"]
        assert list(jobs[:14]) == [12.0] * 14 and list(jobs[14:]) == [13.0] * n3, list(jobs)
    # a differing result for the same key: an error naming it, nothing written
    bad = c.path("bad.h5")
    shutil.copy(hb, bad)
    with h5py.File(bad, "r+") as f:
        s = f["scenarios"][:]
        shared = [r for r in s if r["key"].decode() in ka]
        assert len(shared) == 2
        m = f["metrics"][:]
        i = int(np.nonzero(m["id"] == shared[0]["id"])[0][0])
        m[i]["avg_jct_s"] += 1.0
        f["metrics"][:] = m
    out = c.path("conflict.h5")
    p = c.run([c.bin, "merge", ha, bad, "-o", out], expect=2)
    assert shared[0]["key"].decode() in p.stderr and "avg_jct_s" in p.stderr and bad in p.stderr, p.stderr
    assert not os.path.exists(out) and not [x for x in os.listdir(c.tmp) if x.startswith("conflict.h5")]
    # the same within one sweep (a shard merged with an edited copy of itself)
    p = c.run([c.bin, "merge", hb, bad, "-o", out], expect=2)
    assert "different result" in p.stderr and "avg_jct_s" in p.stderr, p.stderr
    assert not os.path.exists(out)
    # format 3 (no point keys): merge refuses it with the way to upgrade; --resume upgrades it when
    # its model version is this build's (format 3 files are of model version 1: since version 2
    # --resume refuses them, naming the model versions, and leaves them as they are)
    data = os.path.join(c.src, "tests/sweep/data")
    v3 = c.path("v3.h5")
    shutil.copy(os.path.join(data, "format3.h5"), v3)
    p = c.run([c.bin, "merge", v3, ha, "-o", c.path("v3m.h5")], expect=2)
    assert "format version 3" in p.stderr and "--resume" in p.stderr, p.stderr
    before = keyed(v3)
    with h5py.File(v3, "r") as f, h5py.File(ha, "r") as g:
        same_model = int(f.attrs["model_version"]) == int(g.attrs["model_version"])
    if same_model:  # its results are this model's: --resume upgrades the file and reuses them
        p = c.run([c.bin, "sweep", os.path.join(data, "format3.toml"), "-o", v3, "--resume", "--no-mpi"])
        with h5py.File(v3, "r") as f:
            assert int(f.attrs["format_version"]) == 10 and "point_key" in f["scenarios"].dtype.names
        assert accounting(p.stderr) == (4, 0, 0), p.stderr
        assert keyed(v3) == before
        c.run([c.bin, "merge", v3, ha, "-o", c.path("v3m.h5")])
    else:  # results of an older model version: never extended, the file left as it was
        p = c.run([c.bin, "sweep", os.path.join(data, "format3.toml"), "-o", v3, "--resume", "--no-mpi"], expect=2)
        assert "model version 1" in p.stderr and "Model versions" in p.stderr, p.stderr
        with h5py.File(v3, "r") as f:
            assert int(f.attrs["format_version"]) == 3
        assert keyed(v3) == before
    print(f"  collections: a+b = 14 scenarios (2 shared, equal), equal to a run of the union sweep; "
          f"+ shard of a third sweep = {14 + n3}; conflicts named; format 3 "
          f"{'upgraded by --resume' if same_model else 'of an older model refused by --resume'}")


def design_sweep(c, name, schedulers, jobs, design, design_table, more_factors):
    """Writes NAME.toml: a sampling-design sweep of the six-region base with 2 seeds and JOBS
    jobs, its [DESIGN] table, the factor network.bandwidth_scale in [0.5, 2] and MORE_FACTORS."""
    path = c.path(name + ".toml")
    with open(path, "w") as f:
        f.write(f'[sweep]\nname = "{name}"\nbase = "{os.path.join(c.src, "sweeps/base/six-regions.toml")}"\n'
                f'schedulers = {schedulers!r}\nseeds = 2\ndesign = "{design}"\n[sweep.set]\n"workload.num_jobs" = {jobs}\n'
                f'[{design}]\n{design_table}[[factor]]\nparam = "network.bandwidth_scale"\nmin = 0.5\nmax = 2.0\n'
                + more_factors)
    return path


def test_designs(c):
    """A Latin hypercube sweep stores its design matrix in /design (unit coordinates, one stratum
    per point and factor, mapped to the /scenarios values as documented), shards of it merge with
    the same /design, and a collection with a grid study has none."""
    lhs = os.path.join(c.src, "tests/config/sweeps/good/lhs.toml")
    full, s0, s1, merged = c.path("lhs.h5"), c.path("lhs0.h5"), c.path("lhs1.h5"), c.path("lhs-merged.h5")
    c.run(c.sweep_cmd(lhs, full, "--threads", "2", "--no-mpi"))
    with h5py.File(full, "r") as f:
        assert f.attrs["design"] == "lhs", f.attrs["design"]
        d, sc = f["design"][:], f["scenarios"][:]
        names = d.dtype.names
        assert names == ("point", "network.bandwidth_scale", "workload.load_scale", "cluster.region.b.gpus",
                         "scheduler.epsilon"), names
        assert list(d["point"]) == list(range(16))
        for name in names[1:]:
            u = d[name]
            assert np.all((u >= 0) & (u < 1)), name
            assert sorted(np.floor(u * 16).astype(int)) == list(range(16)), name  # one point per stratum
        # the mapping of docs/sweep-format.md, for every scenario row
        u = d[sc["point"]]
        assert np.allclose(sc["network.bandwidth_scale"], np.exp(np.log(0.25) + u["network.bandwidth_scale"] * np.log(16)),
                           rtol=1e-12)
        assert np.allclose(sc["workload.load_scale"], 0.5 + 1.5 * u["workload.load_scale"], rtol=1e-12)
        assert np.array_equal(sc["cluster.region.b.gpus"], 4 + np.floor(4 * u["cluster.region.b.gpus"]))
        assert np.array_equal(sc["scheduler.epsilon"], np.where(u["scheduler.epsilon"] < 0.5, 0.0, 0.1))
    c.run(c.sweep_cmd(lhs, s0, "--shard", "0/2", "--no-mpi"))
    c.run(c.sweep_cmd(lhs, s1, "--shard", "1/2", "--no-mpi"))
    c.run([c.bin, "merge", s0, s1, "-o", merged])
    assert_same_metrics(full, merged, "merged LHS shards vs full run")
    with h5py.File(full, "r") as a, h5py.File(merged, "r") as b:
        assert a["design"][:].tobytes() == b["design"][:].tobytes()
    grid = c.path("grid.h5")
    c.run(c.sweep_cmd(extension_sweep(c, "grid"), grid, "--no-mpi"))
    with h5py.File(grid, "r") as f:
        assert f.attrs["design"] == "grid" and "design" not in f
    coll = c.path("coll.h5")
    c.run([c.bin, "merge", full, grid, "-o", coll])
    with h5py.File(coll, "r") as f:
        assert int(f.attrs["collection"]) == 1 and f.attrs["design"] == "" and "design" not in f
    print("  LHS: /design stratified (16 points x 4 factors), mapping to values exact, shards merge with it; "
          "grid and collections have none")
    # A design that holds one scenario at two ids (an OAT level equal to the base's value):
    # --resume of the finished file reuses both rows and sets nothing aside.
    oat = design_sweep(c, "oat-dup", ["bace-pipe"], 30, "oat", "levels = 3\n",
                       '[[factor]]\nparam = "workload.load_scale"\nkind = "discrete"\nvalues = [1.0, 2.0]\n')
    out = c.path("oat-dup.h5")
    c.run(c.sweep_cmd(oat, out, "--no-mpi"))
    with h5py.File(out, "r") as f:
        sc = f["scenarios"][:]
    keys = [k for k in sc["key"]]
    assert len(set(keys)) < len(keys), "the test sweep has no duplicated scenario"
    p = c.run([c.bin, "sweep", oat, "-o", out, "--resume", "--no-mpi"])
    assert "reused 12, computed 0" in p.stderr and "no longer in the sweep 0" in p.stderr, p.stderr
    assert not glob.glob(out + ".retired-*"), glob.glob(out + ".retired-*")
    # A collection with another study that shares none of its scenarios: its repeats are not
    # scenarios "found in more than one file".
    other = design_sweep(c, "oat-other", ["delay-first"], 30, "oat", "levels = 3\n",
                         '[[factor]]\nparam = "workload.load_scale"\nkind = "discrete"\nvalues = [1.0, 2.0]\n')
    out2 = c.path("oat-other.h5")
    c.run(c.sweep_cmd(other, out2, "--no-mpi"))
    p = c.run([c.bin, "merge", out, out2, "-o", c.path("oat-coll.h5")])
    rep = 2 * (len(keys) - len(set(keys)))
    assert f"{2 * len(set(keys))} scenarios, 0 found in more than one file" in p.stderr, p.stderr
    assert f"{rep} rows repeated within one file" in p.stderr, p.stderr
    print(f"  OAT with a level equal to the base ({len(keys) - len(set(keys))} duplicated scenarios): --resume reuses "
          "all 12 rows, nothing set aside; merged with another study, its repeats are counted as repeats, not as "
          "scenarios of two files")


def replay_rounds(path, rule, schedulers):
    """An independent replay of the rounds of a precision-driven sweep (docs/sweep-format.md,
    "Seeds until a precision") from a result file's rows: {point: seeds it must end with}."""
    from scipy import stats
    with h5py.File(path, "r") as f:
        sc, m = f["scenarios"][:], f["metrics"][:]
    m = m[m["id"] >= 0]
    val = dict(zip(m["id"].tolist(), m[rule["metric"]].tolist()))
    sched = [s.decode() if isinstance(s, bytes) else s for s in sc["scheduler"]]
    table = {}  # (point, seed, scheduler) -> value
    for i in range(len(sc)):
        if int(sc["id"][i]) in val:
            table[(int(sc["point"][i]), int(sc["seed"][i]), sched[i])] = val[int(sc["id"][i])]
    points = sorted({int(p) for p in sc["point"]})
    out = {}
    for p in points:
        n = rule["min"]
        while True:
            worst = -1.0
            for s in schedulers:
                if s == rule.get("paired_vs"):
                    continue
                x = np.array([table[(p, k, s)] for k in range(1, n + 1)])
                if rule.get("paired_vs"):
                    x = x / np.array([table[(p, k, rule["paired_vs"])] for k in range(1, n + 1)]) - 1
                half = stats.t.ppf(0.975, n - 1) * x.std(ddof=1) / np.sqrt(n)
                target = max(rule["rel_ci"] * abs(x.mean()), rule.get("abs_ci", 0.0))
                ratio = 0.0 if half == 0 else (half / target if target > 0 else np.inf)
                worst = max(worst, ratio)
            if worst <= 1 or n >= rule["max"]:
                break
            n = max(n + 1, int(min(np.ceil(n * worst * worst), 2 * n, rule["max"])))
        out[p] = n
    return out


def seeds_per_point(path):
    with h5py.File(path, "r") as f:
        sc, m = f["scenarios"][:], f["metrics"][:]
    done = set(m["id"][m["id"] >= 0].tolist())
    counts = {}
    for i in range(len(sc)):
        if int(sc["id"][i]) in done:
            counts.setdefault(int(sc["point"][i]), set()).add(int(sc["seed"][i]))
    return {p: sorted(s) for p, s in counts.items()}


def test_precision_seeds(c):
    """seeds = { min, max, rel_ci }: the final set of scenarios is the same with 1 thread, 2
    threads, 2 and 3 MPI ranks, and after kill -9 / SIGTERM at random moments followed by
    --resume; each point ends with seeds 1..n where n is what an independent replay of the
    documented rounds gives; --shard is refused; a paired rule works the same way."""
    sweep = os.path.join(c.src, "tests/integration/adaptive.toml")
    ref = c.path("ad-ref.h5")
    t0 = time.time()
    c.run(c.sweep_cmd(sweep, ref, "--threads", "1", "--no-mpi"))
    print(f"  reference (1 thread): {time.time() - t0:.1f} s")
    rule = {"min": 3, "max": 40, "rel_ci": 0.15, "metric": "avg_jct_s"}
    want = replay_rounds(ref, rule, ["bace-pipe", "delay-first"])
    got = seeds_per_point(ref)
    assert {p: len(s) for p, s in got.items()} == want, f"seeds per point {got} vs replay {want}"
    assert all(s == list(range(1, len(s) + 1)) for s in got.values()), "seeds are not 1..n"
    total = sum(want.values()) * 2
    assert len(set(want.values())) > 1 and total > 15 * 3 * 2, f"the rule did not vary the seeds: {want}"
    print(f"  {total} scenarios, seeds per point {sorted(want.values())} = the independent replay of the rounds")
    p = c.run([c.bin, "summarize", ref, "--precision"])
    reached = sum(1 for n in want.values() if n < 40)
    assert f"15 points, " in p.stdout and ", 0 failed, 0 still running" in p.stdout, p.stdout
    table = [l.split() for l in p.stdout.splitlines() if l.strip() and l.split()[0].isdigit() and l.split()[-1] in ("reached", "seeds")]
    assert len(table) == 15 and {int(r[0]): int(r[1]) for r in table} == want, p.stdout
    import json
    j = json.loads(c.run([c.bin, "summarize", ref, "--precision", "--format", "json"]).stdout)["precision"]
    assert j["points"] == 15 and j["running"] == 0 and {e["point"]: e["seeds"] for e in j["per_point"]} == want, j
    j = json.loads(c.run([c.bin, "summarize", ref, "--format", "json"]).stdout)["precision"]
    assert j["points"] == 15 and "per_point" not in j, j
    p = c.run([c.bin, "summarize", ref, "--precision", "--format", "csv"], expect=2)
    assert "--precision: the per-point precision is a table of its own" in p.stderr, p.stderr
    print(f"  summarize --precision: 15 points listed with the seeds of the replay ({reached} below max), "
          "in the table and in JSON; refused with CSV")
    wall = None  # of the straight 2-thread run: it scales the kill window below
    for what, args, ranks in (("2 threads", ("--threads", "2", "--no-mpi"), 0),
                              ("mpirun -np 2", ("--threads", "1"), 2),
                              ("mpirun -np 3 x 2 threads", ("--threads", "2"), 3)):
        out = c.path("ad-" + what.replace(" ", "_") + ".h5")
        t0 = time.monotonic()
        c.run(c.sweep_cmd(sweep, out, *args, ranks=ranks))
        wall = time.monotonic() - t0 if wall is None else wall
        assert_same_metrics(ref, out, what)
        print(f"  {what}: the same {total} scenarios, metrics bit-identical")
    # Interrupted at random moments (kill -9 and SIGTERM), then resumed until it finishes. The
    # window is a fraction of the straight 2-thread run (as in test_extend), so that a slowed
    # build (sanitizers, a loaded machine) still makes progress between interruptions; on the
    # release build it is about 0.05-0.6 s.
    rng = random.Random(5)
    out = c.path("ad-killed.h5")
    killed, rounds = 0, 0
    while True:
        rounds += 1
        assert rounds < 60, "the interrupted sweep never finished"
        p = subprocess.Popen(c.sweep_cmd(sweep, out, "--resume", "--threads", "2", "--no-mpi", "--flush-interval", "0.05"),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=c.env(), text=True)
        wait_for_handlers(p.pid)  # a SIGTERM before them would be a kill, not a stop (kill_and_resume)
        time.sleep(rng.uniform(0.03, 0.35) * wall)
        if p.poll() is None:
            sig = signal.SIGKILL if rounds % 3 else signal.SIGTERM
            p.send_signal(sig)
            killed += 1
        rc = p.wait(timeout=120)
        p.stderr.read()
        if rc == 0:
            break
        assert rc in (75, -9), f"interrupted sweep: exit {rc}"
    assert killed >= 2, f"only {killed} interruptions: the test sweep is too short for this machine"
    assert_same_metrics(ref, out, f"{killed} interruptions + --resume")
    print(f"  {killed} interruptions (kill -9 and SIGTERM) in {rounds} runs, windows up to {0.35 * wall:.2f} s "
          f"(a straight run: {wall:.2f} s) + --resume: the same {total} scenarios, bit-identical")
    # Resuming a finished file runs nothing and changes nothing.
    p = c.run([c.bin, "sweep", sweep, "-o", out, "--resume", "--no-mpi"])
    assert "computed 0" in p.stderr, p.stderr
    assert_same_metrics(ref, out, "resume of a finished file")
    # Shards cannot split a point's seeds.
    p = c.run(c.sweep_cmd(sweep, c.path("ad-shard.h5"), "--shard", "0/2", "--no-mpi"), expect=2)
    assert "cannot be split by seed across shards" in p.stderr, p.stderr
    # A paired rule: the change of bace-pipe against delay-first.
    paired = c.path("paired.toml")
    with open(sweep) as f:
        text = f.read().replace('metric = "avg_jct_s" }', 'metric = "avg_jct_s", paired_vs = "delay-first", abs_ci = 0.02 }')
    with open(paired, "w") as f:
        f.write(text.replace('"../../sweeps/base/', '"' + os.path.join(c.src, "sweeps/base/")))
    a, b = c.path("paired1.h5"), c.path("paired2.h5")
    c.run(c.sweep_cmd(paired, a, "--threads", "1", "--no-mpi"))
    c.run(c.sweep_cmd(paired, b, "--threads", "1", ranks=2))
    assert_same_metrics(a, b, "paired rule, 1 thread vs mpirun -np 2")
    want = replay_rounds(a, dict(rule, paired_vs="delay-first", abs_ci=0.02), ["bace-pipe", "delay-first"])
    assert {p: len(s) for p, s in seeds_per_point(a).items()} == want
    print(f"  paired rule (bace-pipe / delay-first - 1, rel 15% or abs 0.02): seeds per point {sorted(want.values())}, "
          "equal to the replay, the same under mpirun -np 2")


def test_quick_sweep(c):
    """A sweep from flags alone (--base, --axis, --schedulers, --seeds, --set): the sweep file it
    stands for is written next to the output and stored in it, running that file gives the same
    results, --resume with more seeds grows the study, and every misuse is exit 2."""
    base = os.path.join(c.src, "sweeps/base/six-regions.toml")
    out = c.path("q.h5")
    flags = ["--base", base, "--axis", "network.bandwidth_scale=0.5,2", "--axis", "workload.load_scale=1,2",
             "--schedulers", "bace-pipe,delay-first", "--seeds", "2", "--set", "workload.num_jobs=20"]
    c.run([c.bin, "sweep", *flags, "-o", out, "--quiet", "--no-mpi"])
    gen = c.path("q.sweep.toml")
    text = open(gen).read()
    assert '[sweep.set]\n"workload.num_jobs" = 20' in text and 'values = [0.5, 2]' in text, text
    with h5py.File(out, "r") as f:
        stored = f.attrs["sweep_toml"]
        stored = stored.decode() if isinstance(stored, bytes) else stored
        assert stored == text and len(f["metrics"]) == 4 * 2 * 2
    ref = c.path("ref.h5")
    c.run(c.sweep_cmd(gen, ref, "--no-mpi"))
    assert_same_metrics(ref, out, "the flags' sweep vs its written file")
    # Growing it: more seeds, --resume.
    more = [x if x != "2" else "3" for x in flags]
    p = c.run([c.bin, "sweep", *more, "-o", out, "--resume", "--no-mpi"])
    assert "reused 16, computed 8" in p.stderr, p.stderr
    # Another sweep over the same output without --resume/--force: refused, nothing changed.
    before = open(gen).read()
    p = c.run([c.bin, "sweep", *flags, "-o", out, "--no-mpi"], expect=2)
    assert "exists with another sweep (expected --resume" in p.stderr and open(gen).read() == before, p.stderr
    # Misuse.
    p = c.run([c.bin, "sweep", gen, "--base", base, "-o", c.path("x.h5")], expect=2)
    assert "a sweep file and --base were both given" in p.stderr, p.stderr
    p = c.run([c.bin, "sweep", gen, "--axis", "sim.mfu=0.3", "-o", c.path("x.h5")], expect=2)
    assert "--axis: is for a sweep without a file" in p.stderr, p.stderr
    p = c.run([c.bin, "sweep", "--base", base, "--axis", "network.bandwidth_scale", "-o", c.path("x.h5")], expect=2)
    assert "expected PARAM=V1,V2,..." in p.stderr, p.stderr
    tmp_before = set(glob.glob(os.path.join(tempfile.gettempdir(), "geopipe-sweep-*")))
    p = c.run([c.bin, "sweep", "--base", base, "--axis", "network.bandwith_scale=1", "--dry-run"], expect=2)
    assert "--base/--axis: unknown parameter 'network.bandwith_scale' (did you mean 'network.bandwidth_scale'?)" in p.stderr
    assert set(glob.glob(os.path.join(tempfile.gettempdir(), "geopipe-sweep-*"))) == tmp_before, "temporary file left"
    p = c.run([c.bin, "sweep", "--base", base, "--seeds", "2", "--dry-run"])
    assert "1 points x 2 seeds x 1 schedulers = 2 scenarios" in p.stdout, p.stdout
    # Nothing is written by a refused or dry command, and an input is never overwritten.
    d = c.path("hostile")
    os.mkdir(d)
    mine = os.path.join(d, "b.sweep.toml")  # the user's base scenario, named as the generated file would be
    shutil.copy(base, mine)
    original = open(mine, "rb").read()
    for extra in ([], ["--force"], ["--resume"], ["--resume", "--force"]):
        p = c.run([c.bin, "sweep", "--base", mine, "--axis", "workload.load_scale=1,2", "-o",
                   os.path.join(d, "b.h5"), "--no-mpi", *extra], expect=2)
        assert "is an input of the sweep" in p.stderr and "never overwritten" in p.stderr, p.stderr
        assert open(mine, "rb").read() == original and sorted(os.listdir(d)) == ["b.sweep.toml"], os.listdir(d)
    typo = os.path.join(d, "a.h5")
    p = c.run([c.bin, "sweep", "--base", mine, "--axis", "workload.lod_scale=1,2", "-o", typo, "--no-mpi"], expect=2)
    assert "did you mean 'workload.load_scale'" in p.stderr and sorted(os.listdir(d)) == ["b.sweep.toml"], os.listdir(d)
    p = c.run([c.bin, "sweep", "--base", mine, "--axis", "workload.load_scale=1,2", "-o", mine, "--no-mpi", "--force"],
              expect=2)
    assert "is an input of this sweep" in p.stderr and open(mine, "rb").read() == original, p.stderr
    p = c.run([c.bin, "sweep", "--base", mine, "--axis", "workload.load_scale=1,2", "-o", typo, "--dry-run"])
    assert "sweep file: " + os.path.join(d, "a.sweep.toml") + " (written when the sweep runs)" in p.stdout, p.stdout
    assert sorted(os.listdir(d)) == ["b.sweep.toml"], os.listdir(d)
    # the corrected command runs (no file left by the refused ones stands in its way)
    c.run([c.bin, "sweep", "--base", mine, "--axis", "workload.load_scale=1,2", "--set", "workload.num_jobs=10", "-o", typo,
           "--quiet", "--no-mpi"])
    assert sorted(os.listdir(d)) == ["a.h5", "a.sweep.toml", "b.sweep.toml"], os.listdir(d)
    # a file at OUT.sweep.toml that geopipe did not write is never replaced, not even with --force
    notes = os.path.join(d, "n.sweep.toml")
    with open(notes, "w") as f:
        f.write("my notes\n")
    p = c.run([c.bin, "sweep", "--base", mine, "--axis", "workload.load_scale=1,2", "-o", os.path.join(d, "n.h5"),
               "--force", "--no-mpi"], expect=2)
    assert "is not a sweep file that geopipe generated" in p.stderr and open(notes).read() == "my notes\n", p.stderr
    assert not os.path.exists(os.path.join(d, "n.h5"))
    print("  flags -> q.sweep.toml (stored in the file; running it gives the same metrics), --resume to 3 seeds "
          "reused 16 and computed 8, conflicts and misuse exit 2, no temporary file left; an input named like "
          "OUT.sweep.toml is never overwritten (with --force, --resume), refused and dry commands write nothing, "
          "a user's file at OUT.sweep.toml is never replaced")


def test_io_errors(c):
    """Unwritable output directory, a full disk, and HDF5 file locking turned off (as on shared
    file systems): clear messages, no crash, nothing half-written left for the read-only case.
    Uses small tmpfs mounts, which need root: exit 77 (ctest SKIP) where mounting is refused."""
    ro, small = c.path("ro"), c.path("small")
    os.makedirs(ro)
    os.makedirs(small)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m,ro", "tmpfs", ro], capture_output=True).returncode != 0:
        print("SKIP: cannot mount a tmpfs here (needs root)")
        sys.exit(77)
    try:
        p = c.run(c.sweep_cmd(c.tiny, os.path.join(ro, "x.h5")), expect=2)
        assert "Read-only file system" in p.stderr and os.path.join(ro, "x.h5") in p.stderr, p.stderr
        assert os.listdir(ro) == [], os.listdir(ro)
        print(f"  read-only directory: exit 2, '{p.stderr.strip().splitlines()[0]}'")
    finally:
        subprocess.run(["umount", ro])
    assert subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", small]).returncode == 0
    try:
        quick = os.path.join(c.src, "sweeps/quick.toml")
        p = c.run([c.bin, "sweep", quick, "-o", os.path.join(small, "x.h5"), "--quiet"], expect=None)
        assert p.returncode == 1, f"disk full: exit {p.returncode}, expected 1 (a clear error, not a crash)"
        assert "No space left on device" in p.stderr, p.stderr
        print(f"  full disk (64 KiB tmpfs): exit 1, 'No space left on device' reported")
    finally:
        subprocess.run(["umount", small])
    out = c.path("nolock.h5")
    c.run(c.sweep_cmd(c.tiny, out, "--threads", "2"), env={"HDF5_USE_FILE_LOCKING": "FALSE"})
    assert_complete(out, 36)
    print("  HDF5_USE_FILE_LOCKING=FALSE: sweep completes, 36/36 scenarios")


def test_value_upgrade(c):
    """A test function's file of format 5 (tests/sweep/data/format5-ishigami.h5, written by
    geopipe 86a3bce), whose values were stored as avg_jct_s, is read as of a test function: its
    values are the metric value (summarize, analyze, geopipe.load, design_values), avg_jct_s is
    refused; --resume rewrites it in format 6 with value = the old avg_jct_s bit for bit and
    avg_jct_s = 0, as a fresh run of the sweep writes it; a merge with a simulation is refused."""
    import json
    sys.path.insert(0, os.path.join(c.src, "python"))
    import geopipe
    data = os.path.join(c.src, "tests/sweep/data")
    v5 = c.path("ish5.h5")
    shutil.copy(os.path.join(data, "format5-ishigami.h5"), v5)
    with h5py.File(v5, "r") as f:
        assert int(f.attrs["format_version"]) == 5 and "value" not in f["metrics"].dtype.names
        old = f["metrics"][:]
        scen = f["scenarios"][:]
    x = np.column_stack([scen[k] for k in ("x1", "x2", "x3")])
    want = np.sin(x[:, 0]) + 7 * np.sin(x[:, 1]) ** 2 + 0.1 * x[:, 2] ** 4 * np.sin(x[:, 0])
    assert np.all(np.abs(old["avg_jct_s"] - want) < 1e-12), "the old file stored ishigami(x) as avg_jct_s"
    j = json.loads(c.run([c.bin, "summarize", v5, "--pool", "--format", "json"]).stdout)
    cell = j["groups"][0]["schedulers"][0]["metrics"]
    assert list(cell) == ["value"] and abs(cell["value"]["mean"] - float(np.mean(want))) < 1e-9, cell
    a = json.loads(c.run([c.bin, "analyze", "sobol", v5, "--resamples", "10", "--format", "json"]).stdout)
    assert a["metric"] == "value" and a["quantity"] == "value of ishigami", (a["metric"], a["quantity"])
    p = c.run([c.bin, "analyze", "sobol", v5, "--metric", "avg_jct_s"], expect=2)
    assert p.returncode == 2 and "a simulation's metric" in p.stderr, p.stderr
    df = geopipe.load(v5)
    assert df.attrs["evaluator"] == "test_function"
    assert (df.sort_values("id")["value"].to_numpy() == old[np.argsort(old["id"])]["avg_jct_s"]).all()
    assert (df["avg_jct_s"] == 0).all()
    dv = geopipe.design_values(v5)
    assert dv.attrs["metric"] == "value" and np.isfinite(dv["y"]).all()
    try:
        geopipe.design_values(v5, metric="avg_jct_s")
        raise AssertionError("design_values took a simulation's metric of a test function's file")
    except ValueError as e:
        assert "a simulation's metric" in str(e), e
    # --resume (nothing left to run) rewrites it in format 6
    toml = os.path.join(data, "format5-ishigami.toml")
    as_this_model(c, v5, toml)
    p = c.run([c.bin, "sweep", toml, "-o", v5, "--resume", "--no-mpi"])
    assert accounting(p.stderr) == (40, 0, 0), p.stderr
    with h5py.File(v5, "r") as f:
        assert int(f.attrs["format_version"]) == 10 and f.attrs["evaluator"] == "test_function"
        up = f["metrics"][:]
    up, old = up[np.argsort(up["id"])], old[np.argsort(old["id"])]
    assert (up["value"] == old["avg_jct_s"]).all() and (up["avg_jct_s"] == 0).all()
    fresh = c.path("ish6.h5")
    c.run([c.bin, "sweep", toml, "-o", fresh, "--no-mpi"])
    with h5py.File(fresh, "r") as f:
        new = f["metrics"][:]
    new = new[np.argsort(new["id"])]
    for n in new.dtype.names:
        if n not in TIMING:
            assert (new[n] == up[n]).all(), n
    # files of a test function and of a simulation do not merge (their metrics differ)
    v4 = c.path("v4.h5")
    shutil.copy(os.path.join(data, "format4.h5"), v4)
    as_this_model(c, v4, os.path.join(data, "format4.toml"))
    p = c.run([c.bin, "sweep", os.path.join(data, "format4.toml"), "-o", v4, "--resume", "--no-mpi"])
    p = c.run([c.bin, "summarize", v4, "--metric", "value"], expect=2)
    assert "a test function's metric" in p.stderr and "a simulation's results" in p.stderr, p.stderr
    p = c.run([c.bin, "merge", fresh, v4, "-o", c.path("mixed.h5")], expect=2)
    assert p.returncode == 2 and "expected files of one kind to merge" in p.stderr, p.stderr
    print("  format 5 test function: values read as `value` (summarize, analyze, load, design_values), "
          "avg_jct_s refused; --resume upgraded it to format 6 (value = old avg_jct_s, bit for bit), equal to a "
          "fresh run; a merge with a simulation refused")


def as_this_model(c, path, toml):
    """A fixture of an older format (tests/sweep/data/) is also of the model version of the
    geopipe that wrote it, which --resume and merge rightly refuse to mix with another. The
    format tests are about the format, so the copy at PATH is relabelled as this build's model:
    its model_version and scenario keys are those of a fresh run of TOML by this build (the keys
    include the model version). Where this model gives the fixture's sweep the same results,
    every result column the two files share (wall-clock ones aside) is first checked to be
    equal bit for bit (a test function's value against the old file's avg_jct_s, where format
    5 kept it). Where it does not (a model version that changed results: docs/model.md,
    "Model versions"), the copy is given this model's results in the columns its own format has, in
    /metrics and /jobs, so that it is the file the old format would have held for them; what
    the tests check of the format (its missing columns, their upgrade, reuse by content key)
    does not depend on the values."""
    with h5py.File(path, "r") as f:
        old_model = int(f.attrs["model_version"])
        old_m = f["metrics"][:]
        has_jobs = "jobs" in f
        test_function = "value" not in old_m.dtype.names and f.attrs["schedulers"][0] in ("ishigami", "sobol-g")
    fresh = c.path(os.path.basename(path) + ".this-model.h5")
    c.run([c.bin, "sweep", toml, "-o", fresh, "--no-mpi", "--force"] + (["--save-jobs"] if has_jobs else []))
    with h5py.File(fresh, "r") as g:
        model = int(g.attrs["model_version"])
        new_m, new_s = g["metrics"][:], g["scenarios"][:]
        new_j = g["jobs"][:] if has_jobs else None
    if old_model == model:
        return
    old_m, new_m = old_m[np.argsort(old_m["id"])], new_m[np.argsort(new_m["id"])]
    assert (old_m["id"] == new_m["id"]).all(), "the fixture's sweep no longer has the same scenarios"
    shared = [n for n in old_m.dtype.names if n not in TIMING and n in new_m.dtype.names and n != "id"]
    same = all((old_m[n] == (new_m["value"] if test_function and n == "avg_jct_s" else new_m[n])).all() for n in shared)
    key = dict(zip(new_s["id"].tolist(), new_s["key"].tolist()))
    with h5py.File(path, "r+") as f:
        s = f["scenarios"][:]
        s["key"] = [key[i] for i in s["id"].tolist()]
        f["scenarios"][...] = s
        f.attrs["model_version"] = model
        if same:
            return
        assert not test_function, "a test function's values do not depend on the model"
        m = f["metrics"][:]
        by_id = {int(i): k for k, i in enumerate(new_m["id"])}
        for n in shared:
            m[n] = [new_m[n][by_id[int(i)]] for i in m["id"]]
        f["metrics"][...] = m
        if has_jobs:
            j = f["jobs"][:]
            pos = {(int(a), int(b)): k for k, (a, b) in enumerate(zip(new_j["scenario_id"], new_j["job_id"]))}
            rows = [pos[(int(a), int(b))] for a, b in zip(j["scenario_id"], j["job_id"])]
            for n in j.dtype.names:
                if n in new_j.dtype.names:
                    j[n] = [new_j[n][r] for r in rows]
            f["jobs"][...] = j
            back = f["jobs"][:]
            for n in j.dtype.names:
                if n in new_j.dtype.names:
                    assert (back[n] == new_j[n][rows]).all(), f"{path}: /jobs column {n} does not hold this model's values"


# The columns HDF5 formats 9 and 10 added: NaN (not recorded) in results of older files.
FAIRNESS = {"p99_queue_delay_s", "avg_ftf_rho", "max_ftf_rho", "unfair_fraction", "jain_fairness", "isolated_jct_s",
            "ftf_rho", "jct_lower_bound_s"}


def same_columns(m_old, m_new, j_old=None, j_new=None):
    """Every /metrics column of m_old but the wall-clock ones, and every /jobs column of j_old,
    holds the same values in m_new and j_new (which may have more columns); a fairness column
    that m_old or j_old does not record (all NaN: results of a file before format 9) is not
    compared."""
    def unrecorded(t, n):
        return n in FAIRNESS and np.isnan(t[n]).all()
    for n in m_old.dtype.names:
        if n not in TIMING and not unrecorded(m_old, n):
            assert (m_old[n] == m_new[n]).all(), n
    for n in (j_old.dtype.names if j_old is not None else ()):
        if not unrecorded(j_old, n):
            assert (j_old[n] == j_new[n]).all(), n


def test_format_upgrade(c):
    """A file of format 4 (tests/sweep/data/format4.h5, written by geopipe 2a205f7) is read as
    results without egress: summarize and geopipe.load see electricity_cost_usd = total_cost_usd
    and egress_cost_usd = 0; --resume rewrites it in format 6 with every result reused, every
    old column unchanged bit for bit and the new ones filled (layers "": not recorded; value 0);
    a merge with a file of format 6 takes both."""
    sys.path.insert(0, os.path.join(c.src, "python"))
    import geopipe
    data = os.path.join(c.src, "tests/sweep/data")
    v4 = c.path("v4.h5")
    shutil.copy(os.path.join(data, "format4.h5"), v4)
    with h5py.File(v4, "r") as f:
        assert int(f.attrs["format_version"]) == 4 and "egress_cost_usd" not in f["metrics"].dtype.names
        old_m, old_j = f["metrics"][:], f["jobs"][:]
    p = c.run([c.bin, "summarize", v4, "--metric", "egress_cost_usd", "--format", "csv"])
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    assert rows and all(float(r["mean"]) == 0.0 for r in rows), p.stdout
    df = geopipe.load(v4)
    assert (df["electricity_cost_usd"] == df["total_cost_usd"]).all() and (df["egress_cost_usd"] == 0).all()
    jobs = geopipe.load_jobs(v4)
    assert (jobs["electricity_cost_usd"] == jobs["cost_usd"]).all() and (jobs["layers"] == "").all()
    as_this_model(c, v4, os.path.join(data, "format4.toml"))
    with h5py.File(v4, "r") as f:  # the results it holds now (this model's, in format 4)
        old_m, old_j = f["metrics"][:], f["jobs"][:]
    p = c.run([c.bin, "sweep", os.path.join(data, "format4.toml"), "-o", v4, "--resume", "--no-mpi"])
    assert accounting(p.stderr) == (4, 0, 0), p.stderr
    with h5py.File(v4, "r") as f:
        assert int(f.attrs["format_version"]) == 10 and f.attrs["evaluator"] == "simulation"
        m, j = f["metrics"][:], f["jobs"][:]
    same_columns(old_m, m, old_j, j)
    assert (m["electricity_cost_usd"] == m["total_cost_usd"]).all() and (m["egress_cost_usd"] == 0).all()
    assert (j["electricity_cost_usd"] == j["cost_usd"]).all() and (j["egress_cost_usd"] == 0).all()
    assert set(j["layers"]) == {b""}
    assert (m["value"] == 0).all()  # format 6: a simulation has no test-function value
    # the same sweep run by this build: equal results, and its jobs say their layers
    fresh = c.path("v5.h5")
    c.run([c.bin, "sweep", os.path.join(data, "format4.toml"), "-o", fresh, "--save-jobs", "--no-mpi"])
    with h5py.File(fresh, "r") as f:
        m5, j5 = f["metrics"][:], f["jobs"][:]
    same_columns(m, m5)
    assert all(x.decode().count(";") + 1 == s for x, s in zip(j5["layers"], j5["stages"])), j5["layers"]
    # an untouched format-4 copy merges with the fresh file: the results agree, the merge is format 5
    v4b = c.path("v4b.h5")
    shutil.copy(os.path.join(data, "format4.h5"), v4b)
    as_this_model(c, v4b, os.path.join(data, "format4.toml"))
    merged = c.path("v45.h5")
    c.run([c.bin, "merge", v4b, fresh, "-o", merged])
    with h5py.File(merged, "r") as f:
        assert int(f.attrs["format_version"]) == 10 and len(f["metrics"]) == 4
    print("  format 4: read as results without egress; --resume upgraded it to format 6, 4 results reused, "
          "old columns identical, new ones filled; a fresh run agrees")


def upgrade_resumed(c, fmt, filled):
    """The shared half of the format-upgrade tests: tests/sweep/data/format<fmt>.h5, relabelled as
    this model's results (as_this_model), is resumed with every result reused (4) and rewritten
    in format 10 with every old column unchanged bit for bit; filled(metrics, jobs) checks the
    new columns; a fresh run of the same sweep by this build agrees with it bit for bit."""
    data = os.path.join(c.src, "tests/sweep/data")
    toml = os.path.join(data, f"format{fmt}.toml")
    path = c.path(f"v{fmt}.h5")
    as_this_model(c, path, toml)
    with h5py.File(path, "r") as f:  # the results it holds now (this model's, in its format)
        old_m, old_j = f["metrics"][:], f["jobs"][:]
    p = c.run([c.bin, "sweep", toml, "-o", path, "--resume", "--no-mpi"])
    assert accounting(p.stderr) == (4, 0, 0), p.stderr
    with h5py.File(path, "r") as f:
        assert int(f.attrs["format_version"]) == 10
        m, j = f["metrics"][:], f["jobs"][:]
    same_columns(old_m, m, old_j, j)
    filled(m, j)
    fresh = c.path(f"fresh{fmt}.h5")
    c.run([c.bin, "sweep", toml, "-o", fresh, "--save-jobs", "--no-mpi"])
    with h5py.File(fresh, "r") as f:
        m8, j8 = f["metrics"][:], f["jobs"][:]
    same_columns(m, m8, j, j8)


def fixture_copy(c, fmt):
    """A copy of tests/sweep/data/format<fmt>.h5 at c.path("v<fmt>.h5"); its path."""
    path = c.path(f"v{fmt}.h5")
    shutil.copy(os.path.join(c.src, "tests/sweep/data", f"format{fmt}.h5"), path)
    with h5py.File(path, "r") as f:
        assert int(f.attrs["format_version"]) == fmt
    return path


def summarize_means(c, path, metric):
    p = c.run([c.bin, "summarize", path, "--metric", metric, "--format", "csv"])
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    assert rows, p.stdout
    return [float(r["mean"]) for r in rows]


def test_format6_upgrade(c):
    """A file of format 6 (tests/sweep/data/format6.h5, written by geopipe 3779462) is read as
    results of jobs of one pipeline each: summarize, geopipe.load and load_jobs see
    sync_bytes = sync_fraction = 0 and data_parallel = 1; --resume rewrites it in format 10 with
    every result reused, every old column unchanged bit for bit and the new ones filled; the
    same sweep run afresh by this build agrees with it bit for bit, the new columns included."""
    sys.path.insert(0, os.path.join(c.src, "python"))
    import geopipe
    v6 = fixture_copy(c, 6)
    with h5py.File(v6, "r") as f:
        assert "sync_bytes" not in f["metrics"].dtype.names and "data_parallel" not in f["jobs"].dtype.names
    assert all(v == 0.0 for v in summarize_means(c, v6, "sync_fraction"))
    df = geopipe.load(v6)
    assert (df["sync_bytes"] == 0).all() and (df["sync_fraction"] == 0).all()
    jobs = geopipe.load_jobs(v6)
    assert (jobs["data_parallel"] == 1).all() and (jobs["sync_bytes"] == 0).all()
    cols = list(jobs.columns)
    assert cols.index("data_parallel") == cols.index("gpus_per_stage") + 1, cols

    def filled(m, j):
        assert (m["sync_bytes"] == 0).all() and (m["sync_fraction"] == 0).all()
        assert (j["data_parallel"] == 1).all() and (j["sync_bytes"] == 0).all()
    upgrade_resumed(c, 6, filled)
    print("  format 6: read as results of one-pipeline jobs; --resume upgraded it to format 10, 4 results reused, "
          "old columns identical, new ones filled; a fresh run agrees bit for bit")


def test_format7_upgrade(c):
    """A file of format 7 (tests/sweep/data/format7.h5, written by geopipe c5d3e90) is read as
    results without failures or checkpoints: summarize, geopipe.load and load_jobs see
    failures = restarts = preemptions = 0, lost and checkpoint GPU-hours 0 and goodput 1;
    --resume rewrites it in format 10 with every result reused, every old column unchanged bit
    for bit and the new ones filled; the same sweep run afresh by this build agrees with it bit
    for bit, the new columns included."""
    sys.path.insert(0, os.path.join(c.src, "python"))
    import geopipe
    v7 = fixture_copy(c, 7)
    with h5py.File(v7, "r") as f:
        assert "goodput" not in f["metrics"].dtype.names and "failures" not in f["jobs"].dtype.names
    assert all(v == 1.0 for v in summarize_means(c, v7, "goodput"))
    df = geopipe.load(v7)
    for col in ("failures", "preemptions", "restarts", "lost_gpu_hours", "checkpoint_gpu_hours"):
        assert (df[col] == 0).all(), col
    assert (df["goodput"] == 1).all()
    cols = list(df.columns)
    assert cols.index("failures") == cols.index("sync_fraction") + 1, cols
    jobs = geopipe.load_jobs(v7)
    assert (jobs["failures"] == 0).all() and (jobs["lost_gpu_hours"] == 0).all()
    cols = list(jobs.columns)
    assert cols.index("failures") == cols.index("sync_bytes") + 1, cols

    def filled(m, j):
        assert (m["failures"] == 0).all() and (m["goodput"] == 1).all() and (m["checkpoint_gpu_hours"] == 0).all()
        assert (j["failures"] == 0).all() and (j["restarts"] == 0).all() and (j["checkpoint_gpu_hours"] == 0).all()
    upgrade_resumed(c, 7, filled)
    print("  format 7: read as results without failures; --resume upgraded it to format 10, 4 results reused, "
          "old columns identical, new ones filled; a fresh run agrees bit for bit")


def test_format8_upgrade(c):
    """A file of format 8 (tests/sweep/data/format8.h5, written by geopipe 2576f15) does not
    record the fairness columns format 9 added: summarize and analyze refuse them (exit 2, 'not
    recorded'), geopipe.load and load_jobs have them as NaN (with a warning) at their places;
    --resume rewrites it in format 10 with every result reused, every old column unchanged bit
    for bit and the new ones NaN; a fresh run of the same sweep by this build records them, agrees
    with it in every other column, and merges with it (a row without them agrees with one that has
    them)."""
    import warnings
    sys.path.insert(0, os.path.join(c.src, "python"))
    import geopipe
    v8 = fixture_copy(c, 8)
    with h5py.File(v8, "r") as f:
        assert "avg_ftf_rho" not in f["metrics"].dtype.names and "ftf_rho" not in f["jobs"].dtype.names
    for metric in ("avg_ftf_rho", "p99_queue_delay_s"):
        p = c.run([c.bin, "summarize", v8, "--metric", metric], expect=2)
        assert f"'{metric}' is not recorded in 4 of the 4 results" in p.stderr and "format 9" in p.stderr, p.stderr
    assert all(v > 0 for v in summarize_means(c, v8, "avg_jct_s"))  # the other metrics as before
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        df = geopipe.load(v8)
        jobs = geopipe.load_jobs(v8)
    assert any("not recorded" in str(x.message) for x in w), [str(x.message) for x in w]
    for col in ("p99_queue_delay_s", "avg_ftf_rho", "max_ftf_rho", "unfair_fraction", "jain_fairness"):
        assert df[col].isna().all(), col
    cols = list(df.columns)
    assert cols.index("p99_queue_delay_s") == cols.index("avg_queue_delay_s") + 1, cols
    assert cols.index("avg_ftf_rho") == cols.index("goodput") + 1, cols
    assert df["jct_lower_bound_s"].isna().all() and cols.index("jct_lower_bound_s") == cols.index("jain_fairness") + 1
    assert jobs["isolated_jct_s"].isna().all() and jobs["ftf_rho"].isna().all()
    cols = list(jobs.columns)
    assert cols.index("isolated_jct_s") == cols.index("checkpoint_gpu_hours") + 1, cols
    assert cols.index("ftf_rho") == cols.index("isolated_jct_s") + 1, cols


    def filled(m, j):
        for col in ("p99_queue_delay_s", "avg_ftf_rho", "max_ftf_rho", "unfair_fraction", "jain_fairness",
                    "jct_lower_bound_s"):
            assert np.isnan(m[col]).all(), col
        assert np.isnan(j["isolated_jct_s"]).all() and np.isnan(j["ftf_rho"]).all()
    upgrade_resumed(c, 8, filled)
    resumed = c.path("v8.h5")
    p = c.run([c.bin, "summarize", resumed, "--metric", "jain_fairness"], expect=2)
    assert "'jain_fairness' is not recorded in 4 of the 4 results" in p.stderr, p.stderr
    fresh = c.path("fresh8.h5")
    with h5py.File(fresh, "r") as f:
        m, j = f["metrics"][:], f["jobs"][:]
    assert (m["avg_ftf_rho"] > 0).all() and (m["jain_fairness"] > 0).all() and (m["jain_fairness"] <= 1).all()
    assert (m["max_ftf_rho"] >= m["avg_ftf_rho"]).all() and (j["ftf_rho"] > 0).all() and (j["isolated_jct_s"] > 0).all()
    assert all(v > 0 for v in summarize_means(c, fresh, "avg_ftf_rho"))
    merged = c.path("v89.h5")
    c.run([c.bin, "merge", resumed, fresh, "-o", merged])
    with h5py.File(merged, "r") as f:
        assert int(f.attrs["format_version"]) == 10 and len(f["metrics"]) == 4
    print("  format 8: fairness not recorded (NaN, refused by summarize); --resume upgraded it to format 10, 4 results "
          "reused, old columns identical; a fresh run agrees and records them; merge takes both")


def test_format9_upgrade(c):
    """A file of format 9 (tests/sweep/data/format9.h5, written by geopipe 08d97a9) does not
    record jct_lower_bound_s, which format 10 added: summarize refuses it (exit 2, 'not recorded',
    'format 10'), geopipe.load has it as NaN after jain_fairness (with a warning); --resume
    rewrites it in format 10 with every result reused, every old column unchanged bit for bit and
    the bound NaN; a fresh run of the same sweep by this build records it (positive, at most
    avg_jct_s), agrees with it in every other column, and merges with it."""
    import warnings
    sys.path.insert(0, os.path.join(c.src, "python"))
    import geopipe
    v9 = fixture_copy(c, 9)
    with h5py.File(v9, "r") as f:
        assert "jct_lower_bound_s" not in f["metrics"].dtype.names and "jain_fairness" in f["metrics"].dtype.names
    p = c.run([c.bin, "summarize", v9, "--metric", "jct_lower_bound_s"], expect=2)
    assert "'jct_lower_bound_s' is not recorded in 4 of the 4 results" in p.stderr and "format 10" in p.stderr, p.stderr
    assert all(v > 0 for v in summarize_means(c, v9, "jain_fairness"))  # the other metrics as before
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        df = geopipe.load(v9)
    assert any("not recorded" in str(x.message) for x in w), [str(x.message) for x in w]
    assert df["jct_lower_bound_s"].isna().all() and df["avg_ftf_rho"].notna().all()
    cols = list(df.columns)
    assert cols.index("jct_lower_bound_s") == cols.index("jain_fairness") + 1, cols

    def filled(m, j):
        assert np.isnan(m["jct_lower_bound_s"]).all()
        assert (m["avg_ftf_rho"] > 0).all() and (j["ftf_rho"] > 0).all()
    upgrade_resumed(c, 9, filled)
    resumed = c.path("v9.h5")
    p = c.run([c.bin, "summarize", resumed, "--metric", "jct_lower_bound_s"], expect=2)
    assert "'jct_lower_bound_s' is not recorded in 4 of the 4 results" in p.stderr, p.stderr
    fresh = c.path("fresh9.h5")
    with h5py.File(fresh, "r") as f:
        m = f["metrics"][:]
    assert (m["jct_lower_bound_s"] > 0).all() and (m["jct_lower_bound_s"] <= m["avg_jct_s"]).all()
    assert all(v > 0 for v in summarize_means(c, fresh, "jct_lower_bound_s"))
    merged = c.path("v910.h5")
    c.run([c.bin, "merge", resumed, fresh, "-o", merged])
    with h5py.File(merged, "r") as f:
        assert int(f.attrs["format_version"]) == 10 and len(f["metrics"]) == 4
    print("  format 9: jct_lower_bound_s not recorded (NaN, refused by summarize); --resume upgraded it to format 10, "
          "4 results reused, old columns identical; a fresh run agrees and records it; merge takes both")


def main():
    name, binary, src = sys.argv[1], sys.argv[2], sys.argv[3]
    c = Ctx(binary, src)
    try:
        globals()["test_" + name](c)
        print(f"{name}: 1 passed, 0 failed")
    finally:
        shutil.rmtree(c.tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
