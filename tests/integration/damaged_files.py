#!/usr/bin/env python3
"""Damaged result files: every reader ends in bounded time with exit 0 or 2 (docs/hdf5-format.md,
"Damaged files and limits").

Usage: damaged_files.py GEOPIPE_BINARY SOURCE_DIR bytes [VARIANTS]
       damaged_files.py GEOPIPE_BINARY SOURCE_DIR values
       damaged_files.py GEOPIPE_BINARY SOURCE_DIR writers

bytes:

Writes three real result files (a complete one, one whose writer was killed with SIGKILL and one
whose writer got SIGHUP in the middle of the sweep), then derives VARIANTS damaged copies from
them with a fixed seed: truncations, flipped bits in the first and last 4 KiB (superblock, object
headers, chunk indexes, heaps) and anywhere, zero-filled ranges and torn files (the second part
zeroed). Each variant is given to the three readers, `geopipe summarize F`, `geopipe merge F -o M`
and `geopipe sweep S -o F --resume` (on a copy). Each must end within TIME_LIMIT_S with exit 0 or
2, never a signal or exit 1; on exit 2 with one line "geopipe: error: F: ..." on stderr, the same
line for the three readers, nothing written (no M, no *-tmp) and F unchanged. Prints a summary
(variants, verdicts, slowest reader run).

values: a real file edited with h5py so that it stays a readable HDF5 file but says something
impossible (total_scenarios = 0 or 2^62, ids -5, 10^18, 2^62 or repeated in /metrics, ...): the
three readers must all refuse it with exit 2 and the same message.

writers: while a sweep writes F, a second `sweep -o F` (plain, --resume, --force) and a
`merge ... -o F` are refused with exit 2 naming the live writer, and F is neither removed nor
replaced; the first writer then finishes normally. A --durable run gives the same rows.
"""
import concurrent.futures
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import h5py

from sweep_tests import wait_for_handlers  # (this directory: the sweep tests' helper)

TIME_LIMIT_S = 10.0
SEED = int(os.environ.get("GEOPIPE_DAMAGE_SEED", "20240611"))  # another seed: other variants
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def run(cmd, timeout=TIME_LIMIT_S * 3):
    t = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=ENV)
        return p.returncode, p.stderr, time.monotonic() - t
    except subprocess.TimeoutExpired as e:
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        return "timeout", err, time.monotonic() - t


def killed_writer(geopipe, sweep, out, sig, after_s):
    """Starts a sweep into `out`, sends `sig` `after_s` seconds after its stop handlers are in
    place, waits for it. (Counting from the launch instead raced a slow start: under ASan on a
    loaded machine a SIGHUP after 0.7 s came before the handlers and ended it with no file.)"""
    p = subprocess.Popen([geopipe, "sweep", sweep, "-o", out, "-q", "--no-mpi", "-t", "1", "--save-jobs",
                          "--flush-interval", "0.05"], env=ENV, stderr=subprocess.DEVNULL)
    wait_for_handlers(p.pid, timeout=60.0)
    time.sleep(after_s)
    p.send_signal(sig)
    p.wait(timeout=60)
    assert os.path.exists(out), f"{out}: the killed writer left no file"


def variants(bases, n, rng):
    """n (name, bytes, base index) damaged copies of the base files, deterministic for rng."""
    kinds = ["truncate", "flip_head", "flip_head", "flip_tail", "flip_any", "zero_range", "torn"]
    out = []
    for i in range(n):
        b_i = i % len(bases)
        b = bytearray(bases[b_i][1])
        kind = kinds[i % len(kinds)]
        if kind == "truncate":
            off = rng.randrange(len(b))
            b = b[:off]
        elif kind == "flip_head":
            off = rng.randrange(min(4096, len(b)))
            b[off] ^= 1 << rng.randrange(8)
        elif kind == "flip_tail":
            off = len(b) - 1 - rng.randrange(min(4096, len(b)))
            b[off] ^= 1 << rng.randrange(8)
        elif kind == "flip_any":
            off = rng.randrange(len(b))
            b[off] ^= 0xFF
        elif kind == "zero_range":
            off = rng.randrange(len(b))
            n_zero = rng.choice([8, 64, 512, 4096])
            b[off:off + n_zero] = bytes(len(b[off:off + n_zero]))
        else:  # torn: the writer got only so far; the rest of the file is zeros
            off = rng.randrange(len(b) // 4, len(b))
            b[off:] = bytes(len(b) - off)
        out.append((f"v{i:03d}-{bases[b_i][0]}-{kind}@{off}", bytes(b), b_i))
    return out


def check_variant(geopipe, tmp, name, data, sweep):
    """Runs the three readers on one variant; returns (verdict, max seconds, problems)."""
    d = os.path.join(tmp, name)
    os.makedirs(d)
    problems = []
    results = {}
    f = os.path.join(d, "in.h5")
    open(f, "wb").write(data)
    results["summarize"] = run([geopipe, "summarize", f])
    merged = os.path.join(d, "merged.h5")
    results["merge"] = run([geopipe, "merge", f, "-o", merged])
    r = os.path.join(d, "resume.h5")
    open(r, "wb").write(data)
    results["resume"] = run([geopipe, "sweep", sweep, "-o", r, "--resume", "-q", "--no-mpi", "-t", "1",
                             "--null-scenarios"])
    slowest = max(t for _, _, t in results.values())
    lines = {}
    for reader, (rc, err, t) in results.items():
        if rc not in (0, 2):
            problems.append(f"{reader}: exit {rc} after {t:.1f} s: {err.strip()[-300:]}")
            continue
        if t > TIME_LIMIT_S:
            problems.append(f"{reader}: took {t:.1f} s (limit {TIME_LIMIT_S} s)")
        if rc == 2:
            shown = r if reader == "resume" else f
            err_lines = err.strip().split("\n")
            if len(err_lines) != 1 or not err_lines[0].startswith(f"geopipe: error: {shown}: "):
                problems.append(f"{reader}: expected one line 'geopipe: error: {shown}: ...', got {err!r}")
            lines[reader] = err_lines[0].replace(shown, "F")
    if results["merge"][0] == 2 and os.path.exists(merged):
        problems.append("merge: exit 2 but the output exists")
    if results["resume"][0] == 2 and open(r, "rb").read() != data:
        problems.append("resume: exit 2 but the file changed")
    leftovers = [x for x in os.listdir(d) if x.endswith("-tmp")]
    if leftovers:
        problems.append(f"temporary files left: {leftovers}")
    codes = {reader: res[0] for reader, res in results.items()}
    if len(set(codes.values())) != 1:
        problems.append(f"readers disagree: {codes} {lines}")
    elif len(set(lines.values())) > 1:
        problems.append(f"readers give different messages: {lines}")
    if not problems:
        shutil.rmtree(d)
    verdict = "ok" if set(codes.values()) == {0} else "refused" if set(codes.values()) == {2} else "mixed"
    return verdict, slowest, problems


def edits():
    """(name, function(h5py.File)) that make a valid file impossible."""
    def attr(name, value, dtype):
        def f(h):
            h.attrs.create(name, value, dtype=dtype)
        return f

    def row(table, i, column, value):
        def f(h):
            r = h[table][i]
            r[column] = value
            h[table][i] = r
        return f

    def copy_row(table, src, dst):
        def f(h):
            h[table][dst] = h[table][src]
        return f

    def grow(table, rows):
        def f(h):
            h[table].resize((rows,))
        return f

    u64, i64 = "uint64", "int64"
    out = [
        ("total_scenarios=0", attr("total_scenarios", 0, u64)),
        ("total_scenarios=2^62", attr("total_scenarios", 2**62, u64)),
        ("total_scenarios=2^40+36", attr("total_scenarios", 2**40 + 36, u64)),
        ("total_scenarios=35", attr("total_scenarios", 35, u64)),
        ("num_scenarios=2^62", attr("num_scenarios", 2**62, u64)),
        ("num_scenarios=35", attr("num_scenarios", 35, u64)),
        ("format_version=0", attr("format_version", 0, i64)),
        ("format_version=99", attr("format_version", 99, i64)),
        ("shard=0/0", lambda h: h.attrs.__setitem__("shard", "0/0")),
        ("shard=1/2", lambda h: h.attrs.__setitem__("shard", "1/2")),
        ("sweep_hash=xyz", lambda h: h.attrs.__setitem__("sweep_hash", "xyz")),
        ("schedulers=[]", lambda h: h.attrs.create("schedulers", [], dtype=h5py.string_dtype())),
        ("schedulers=2^21", lambda h: h.attrs.create("schedulers", ["a"] * (2**21), dtype=h5py.string_dtype())),
        ("axes-renamed", lambda h: h.attrs.create("axes", ["x", "y"], dtype=h5py.string_dtype())),
        ("scenario-id=36", row("scenarios", 35, "id", 36)),
        ("scenario-id-repeated", row("scenarios", 1, "id", 0)),
        ("scenario-scheduler-swapped", row("scenarios", 0, "scheduler", b"cost-first")),
        ("scenario-point=-1", row("scenarios", 3, "point", -1)),
        ("scenario-text-not-utf8", row("scenarios", 2, "scheduler", b"\xff\xfe")),
        ("scenarios-grown", grow("scenarios", 40)),
        ("metrics-id=-5", row("metrics", 4, "id", -5)),
        ("metrics-id=10^18", row("metrics", 4, "id", 10**18)),
        ("metrics-id=2^62", row("metrics", 0, "id", 2**62)),
        ("metrics-id=36", row("metrics", 7, "id", 36)),
        ("metrics-id-repeated", copy_row("metrics", 3, 9)),
        ("metrics-status=2", row("metrics", 5, "status", 2)),
        ("metrics-fill-id-with-status", row("metrics", 5, "id", -1)),
        ("metrics-grown-2^40", grow("metrics", 2**40)),
        ("jobs-scenario-id=10^18", row("jobs", 10, "scenario_id", 10**18)),
        ("jobs-job-repeated", row("jobs", 1, "job_id", 0)),
        ("jobs-job-id=-3", row("jobs", 1, "job_id", -3)),
        ("jobs-model-not-utf8", row("jobs", 1, "model", b"\xc3")),
        ("complete-but-missing", lambda h: (h["metrics"].resize((30,)), h.attrs.create("complete", 1, dtype="int8"))),
    ]
    return out


def values(geopipe, src):
    """Impossible values written with h5py: all three readers refuse with the same message."""
    tiny = os.path.join(src, "tests/integration/tiny.toml")
    tmp = tempfile.mkdtemp(prefix="geopipe-values-")
    full = os.path.join(tmp, "full.h5")
    rc, err, _ = run([geopipe, "sweep", tiny, "-o", full, "-q", "--no-mpi", "--save-jobs"], timeout=300)
    assert rc == 0, err
    base = open(full, "rb").read()
    failures = []
    for name, edit in edits():
        f = os.path.join(tmp, "edited.h5")
        open(f, "wb").write(base)
        with h5py.File(f, "r+") as h:
            edit(h)
        verdict, t, problems = check_variant(geopipe, tmp, name, open(f, "rb").read(), tiny)
        if verdict != "refused":
            problems.append(f"expected all three readers to refuse it, got {verdict}")
        print(f"{name}: {verdict} in {t:.2f} s")
        if problems:
            failures.append((name, problems))
    for name, problems in failures:
        print(f"FAIL {name}:")
        for p in problems:
            print(f"    {p}")
    if failures:
        print(f"kept {tmp}")
        return 1
    shutil.rmtree(tmp)
    return 0


def writers(geopipe, src):
    medium = os.path.join(src, "tests/integration/medium.toml")
    tiny = os.path.join(src, "tests/integration/tiny.toml")
    tmp = tempfile.mkdtemp(prefix="geopipe-writers-")
    out = os.path.join(tmp, "out.h5")
    first = subprocess.Popen([geopipe, "sweep", medium, "-o", out, "-q", "--no-mpi", "-t", "1"], env=ENV,
                             stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not os.path.exists(out) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert os.path.exists(out), "the first writer created no file"
    inode = os.stat(out).st_ino
    for extra in ([], ["--resume"], ["--force"], ["--resume", "--force"]):
        rc, err, t = run([geopipe, "sweep", medium, "-o", out, "-q", "--no-mpi", *extra])
        assert rc == 2 and "another geopipe process is writing this file" in err and f"pid {first.pid}" in err, \
            f"second writer {extra}: exit {rc}: {err}"
        assert os.stat(out).st_ino == inode, f"second writer {extra} replaced the file"
    rc, err, t = run([geopipe, "merge", out, "-o", out])
    assert rc == 2, f"merge onto a live output: exit {rc}: {err}"
    assert first.poll() is None, "the first writer ended early (make medium.toml longer?)"
    first.send_signal(signal.SIGTERM)
    assert first.wait(timeout=60) == 75, first.stderr.read()
    assert not os.path.exists(out + ".lock"), "the lock file stayed after the writer ended"
    # After it ended, --resume takes over.
    rc, err, t = run([geopipe, "sweep", medium, "-o", out, "-q", "--no-mpi", "--resume", "--null-scenarios"], timeout=300)
    assert rc == 0, err
    # --durable writes the same rows.
    a, b = os.path.join(tmp, "a.h5"), os.path.join(tmp, "b.h5")
    for path, extra in ((a, []), (b, ["--durable", "--flush-interval", "0.01"])):
        rc, err, _ = run([geopipe, "sweep", tiny, "-o", path, "-q", "--no-mpi", "--save-jobs", *extra], timeout=300)
        assert rc == 0, err
    with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
        for table in ("metrics", "errors", "jobs"):
            x, y = fa[table][:], fb[table][:]
            names = [n for n in x.dtype.names if n not in ("wall_s", "sched_time_total_s", "sched_time_max_s")]
            assert all((x[n] == y[n]).all() for n in names), f"--durable changed /{table}"
    print("writers: second writers refused, lock released, --durable rows identical")
    shutil.rmtree(tmp)
    return 0


def main():
    geopipe, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    if sys.argv[3] == "values":
        return values(geopipe, src)
    if sys.argv[3] == "writers":
        return writers(geopipe, src)
    n = int(sys.argv[4]) if len(sys.argv) > 4 else 150
    tiny = os.path.join(src, "tests/integration/tiny.toml")
    medium = os.path.join(src, "tests/integration/medium.toml")
    tmp = tempfile.mkdtemp(prefix="geopipe-damaged-")
    rng = random.Random(SEED)
    try:
        full = os.path.join(tmp, "full.h5")
        rc, err, _ = run([geopipe, "sweep", tiny, "-o", full, "-q", "--no-mpi", "--save-jobs"], timeout=300)
        assert rc == 0, err
        killed = os.path.join(tmp, "killed.h5")
        killed_writer(geopipe, medium, killed, signal.SIGKILL, 1.0)
        hup = os.path.join(tmp, "hup.h5")
        killed_writer(geopipe, medium, hup, signal.SIGHUP, 0.7)
        bases = [("full", open(full, "rb").read(), tiny), ("killed", open(killed, "rb").read(), medium),
                 ("hup", open(hup, "rb").read(), medium)]
        # The undamaged files are read by all three readers.
        for name, data, sweep in bases:
            verdict, _, problems = check_variant(geopipe, tmp, "base-" + name, data, sweep)
            assert verdict == "ok" and not problems, f"undamaged {name}: {verdict} {problems}"
        vs = variants([(b[0], b[1]) for b in bases], n, rng)
        t0 = time.monotonic()
        verdicts, slowest, failures = {}, 0.0, []
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as ex:
            futs = {ex.submit(check_variant, geopipe, tmp, name, data, bases[b_i][2]): name
                    for name, data, b_i in vs}
            for fut in concurrent.futures.as_completed(futs):
                verdict, t, problems = fut.result()
                verdicts[verdict] = verdicts.get(verdict, 0) + 1
                slowest = max(slowest, t)
                if problems:
                    failures.append((futs[fut], problems))
        print(f"{len(vs)} damaged variants of {len(bases)} files x 3 readers in {time.monotonic() - t0:.1f} s: "
              f"{verdicts}; slowest reader run {slowest:.2f} s (limit {TIME_LIMIT_S} s)")
        for name, problems in sorted(failures):
            print(f"FAIL {name}:")
            for p in problems:
                print(f"    {p}")
        if failures:
            print(f"kept the failing variants in {tmp}")
            return 1
        shutil.rmtree(tmp)
        return 0
    except BaseException:
        print(f"kept {tmp}")
        raise


if __name__ == "__main__":
    sys.exit(main())
