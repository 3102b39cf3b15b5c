#!/usr/bin/env python3
"""`geopipe run --timeline FILE` with the real binary (docs/timeline.md).

Usage: test_timeline.py GEOPIPE_BINARY SOURCE_DIR

One run of sweeps/base/six-regions.toml (30 jobs, bace-pipe and delay-first) writes --json,
--jobs-csv and --timeline at once; the timeline is checked against the scenario file (read with
tomllib), the CSV and the JSON of that same run: tracks and their names, one slice per job and
region it used, slices within [0, makespan] and disjoint per track, counters in time order,
allocated <= capacity per link, busy GPUs and waiting jobs equal to what the slices and arrivals
imply, metrics equal to --json's. Then the bad paths: exit 2, one line
"geopipe: error: --timeline: ...", nothing written; a failed write (file size limit) leaves
neither FILE nor FILE.tmp and an older FILE as it was. Standard library only.
"""
import collections
import csv
import glob
import io
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import tomllib

BIN = os.path.abspath(sys.argv[1])
SRC = os.path.abspath(sys.argv[2])
SCENARIO = os.path.join(SRC, "sweeps", "base", "six-regions.toml")
SCHEDULERS = ["bace-pipe", "delay-first"]
RUN = ["run", SCENARIO, "--scheduler", ",".join(SCHEDULERS), "--set", "workload.num_jobs=30"]

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, flush=True)
    return cond


def geopipe(args, **kw):
    return subprocess.run([BIN] + args, capture_output=True, text=True, timeout=120, **kw)


def check_timeline(tmp, extra=(), congested=False):
    with open(SCENARIO, "rb") as f:
        scenario = tomllib.load(f)
    regions = [r["name"] for r in scenario["cluster"]["region"]]
    gpus = {r["name"]: r["gpus"] for r in scenario["cluster"]["region"]}
    prices = {r["name"]: r["price_usd_per_kwh"] for r in scenario["cluster"]["region"]}

    tl_path, csv_path = os.path.join(tmp, "timeline.json"), os.path.join(tmp, "jobs.csv")
    p = geopipe(RUN + list(extra) + ["--json", "--jobs-csv", csv_path, "--timeline", tl_path])
    if not check(p.returncode == 0, f"run exit {p.returncode}: {p.stderr}"):
        return
    check(not glob.glob(glob.escape(tl_path) + ".tmp*"), "FILE.tmp* left behind after a successful write")
    out = json.loads(p.stdout)
    metrics = {r["scheduler"]: r["metrics"] for r in out["results"]}
    with open(csv_path, newline="") as f:
        rows = collections.defaultdict(dict)
        for row in csv.DictReader(f):
            rows[row["scheduler"]][int(row["job_id"])] = row
    with open(tl_path) as f:
        doc = json.load(f)

    check(doc.get("displayTimeUnit") == "ms", "displayTimeUnit is not ms")
    events = doc["traceEvents"]
    other = doc["otherData"]
    check(isinstance(events, list) and events, "traceEvents is not a non-empty list")

    # --- processes and tracks
    process_name, thread_name = {}, {}
    for e in events:
        if e["ph"] == "M" and e["name"] == "process_name":
            process_name[e["pid"]] = e["args"]["name"]
        if e["ph"] == "M" and e["name"] == "thread_name":
            check((e["pid"], e["tid"]) not in thread_name, f"two thread_name events for {(e['pid'], e['tid'])}")
            thread_name[(e["pid"], e["tid"])] = e["args"]["name"]
    pids = sorted({e["pid"] for e in events})
    check(all(pid in process_name for pid in pids), f"a pid without process_name: {pids} vs {process_name}")
    check([process_name[pid] for pid in pids] == SCHEDULERS, f"process names {process_name}, expected {SCHEDULERS}")
    for e in events:
        if "tid" in e:
            key = (e["pid"], e["tid"])
            check(key in thread_name, f"{key} used by a {e['ph']} event has no thread_name")
    for key, name in thread_name.items():
        check(name in regions or name == "queue", f"track {key} is named {name!r}: not a region of the scenario nor 'queue'")
    for pid in pids:  # every region has a track in every process
        names = {n for (p_, _), n in thread_name.items() if p_ == pid}
        check(names == set(regions) | {"queue"}, f"pid {pid}: tracks {sorted(names)}")

    pid_of = {name: pid for pid, name in process_name.items()}
    for sched in SCHEDULERS:
        pid = pid_of[sched]
        m = metrics[sched]
        makespan_us = m["makespan_s"] * 1e6
        res = [r for r in other["results"] if r["scheduler"] == sched]
        check(len(res) == 1 and res[0]["pid"] == pid, f"{sched}: otherData.results entry")
        check(res and res[0]["metrics"] == m, f"{sched}: otherData metrics differ from --json's")
        slices = [e for e in events if e["pid"] == pid and e["ph"] == "X"]

        # --- slices: on region tracks, within [0, makespan], disjoint per track
        per_track = collections.defaultdict(list)
        for s in slices:
            per_track[s["tid"]].append(s)
            check(thread_name[(pid, s["tid"])] in regions, f"{sched}: a job slice on the queue track")
            check(s["ts"] >= 0 and s["dur"] >= 0, f"{sched}: slice {s['name']} has ts {s['ts']} dur {s['dur']}")
            check(isinstance(s["ts"], int) and isinstance(s["dur"], int), f"{sched}: slice {s['name']} times are not whole µs")
            check(s["ts"] + s["dur"] <= makespan_us + 0.5, f"{sched}: slice {s['name']} ends after the makespan")
        for tid, ss in per_track.items():
            ss.sort(key=lambda s: s["ts"])
            for a, b in zip(ss, ss[1:]):
                check(a["ts"] + a["dur"] <= b["ts"], f"{sched}: slices {a['name']} and {b['name']} overlap on track {tid}")

        # --- per job: one slice per distinct region of its placement, matching the CSV
        by_job = collections.defaultdict(list)
        for s in slices:
            by_job[s["args"]["job"]].append(s)
        finished = {j for j, r in rows[sched].items() if float(r["finish_s"]) >= 0}
        check(len(by_job) == m["jobs_completed"], f"{sched}: {len(by_job)} jobs with slices, jobs_completed {m['jobs_completed']}")
        check(set(by_job) == finished, f"{sched}: jobs with slices != finished jobs of the CSV")
        check(sum(1 for ss in by_job.values() for s in ss if thread_name[(pid, s["tid"])] == s["args"]["regions"].split(";")[0])
              == m["jobs_completed"], f"{sched}: first-region slices != jobs_completed")
        for j, ss in by_job.items():
            row = rows[sched][j]
            want = row["regions"].split(";")
            got = [thread_name[(pid, s["tid"])] for s in ss]
            check(sorted(got) == sorted(set(want)), f"{sched}: job {j} has slices on {got}, placement {want}")
            start, finish = float(row["start_s"]), float(row["finish_s"])
            for s in ss:
                a = s["args"]
                check(abs(s["ts"] - start * 1e6) <= 0.5 and abs(s["ts"] + s["dur"] - finish * 1e6) <= 0.5, f"{sched}: job {j} slice times")
                check(a["model"] == row["model"] and a["regions"] == row["regions"], f"{sched}: job {j} model/regions args")
                for k in ("energy_j", "cost_usd", "arrival_s", "start_s", "finish_s", "iterations"):
                    check(a[k] == float(row[k]), f"{sched}: job {j} arg {k} {a[k]} != CSV {row[k]}")
                check(a["iteration_s"] == float(row["mean_iteration_s"]), f"{sched}: job {j} iteration_s")
                check(a["queue_delay_s"] == start - float(row["arrival_s"]), f"{sched}: job {j} queue_delay_s")
                check(a["gpus_per_region"][thread_name[(pid, s["tid"])]] == a["gpus_here"], f"{sched}: job {j} gpus_here")
                check(sum(a["gpus_per_region"].values()) == a["stages"] * a["gpus_per_stage"], f"{sched}: job {j} gpus_per_region")

        # --- arrivals: one instant per job on the queue track
        arrivals = [e for e in events if e["pid"] == pid and e["ph"] == "i"]
        check(sorted(e["args"]["job"] for e in arrivals) == sorted(rows[sched]), f"{sched}: arrival instants")
        check(all(thread_name[(pid, e["tid"])] == "queue" for e in arrivals), f"{sched}: an arrival off the queue track")

        # --- counters: time order per name; links within capacity; busy GPUs and waiting jobs
        counters = collections.defaultdict(list)
        for e in events:  # file order
            if e["pid"] == pid and e["ph"] == "C":
                counters[e["name"]].append(e)
        for name, cs in counters.items():
            ts = [c["ts"] for c in cs]
            check(ts == sorted(ts), f"{sched}: counter {name!r} goes back in time")
            check(ts[0] == 0 and ts[-1] <= makespan_us + 0.5, f"{sched}: counter {name!r} spans {ts[0]}..{ts[-1]}")
        link_cap = {f"link {l['from']}->{l['to']}": l["capacity_gbps"] for l in other["links"]}
        check(link_cap and all(n in counters for n in link_cap), f"{sched}: a link direction without a counter")
        for name, cs in counters.items():
            if name.startswith("link "):
                for c in cs:
                    alloc, cap = c["args"]["allocated_gbps"], c["args"]["capacity_gbps"]
                    check(cap == link_cap[name], f"{sched}: {name} capacity {cap} != otherData {link_cap[name]}")
                    check(0 <= alloc <= cap * (1 + 1e-9), f"{sched}: {name} allocated {alloc} > capacity {cap} at {c['ts']}")
        check(any(c["args"]["allocated_gbps"] > 0 for n, cs in counters.items() if n.startswith("link ") for c in cs),
              f"{sched}: no link was ever used (expected cross-region jobs in this scenario)")
        # (the file's whole µs: a counter and a slice at the same simulated time have the same ts)
        spans = [(s["ts"], s["ts"] + s["dur"], thread_name[(pid, s["tid"])], s["args"]["gpus_here"]) for s in slices]
        for r in regions:
            cs = counters[f"busy GPUs {r}"]
            for c in cs:
                busy = sum(g for a, b, reg, g in spans if reg == r and a <= c["ts"] < b)
                check(c["args"]["gpus"] == busy, f"{sched}: busy GPUs {r} at {c['ts']}: {c['args']['gpus']}, slices say {busy}")
                check(0 <= c["args"]["gpus"] <= gpus[r], f"{sched}: busy GPUs {r} out of range")
            check([c["args"]["usd_per_kwh"] for c in counters[f"price {r}"]] == [prices[r]], f"{sched}: flat price of {r}")
        arrived = {e["args"]["job"]: e["ts"] for e in arrivals}
        started = {s["args"]["job"]: s["ts"] for s in slices}
        for c in counters["waiting jobs"]:
            waiting = sum(1 for j, t in arrived.items() if t <= c["ts"] and not (j in started and started[j] <= c["ts"]))
            check(c["args"]["jobs"] == waiting, f"{sched}: waiting jobs at {c['ts']}: {c['args']['jobs']}, expected {waiting}")
        if congested:  # the checks above saw jobs wait and regions run several jobs at once
            check(max(c["args"]["jobs"] for c in counters["waiting jobs"]) > 0, f"{sched}: no job ever waited")
            check(max(per_track) - min(per_track) + 1 > len(regions), f"{sched}: no region needed a second lane")
    print(f"timeline: {len(events)} events, {os.path.getsize(tl_path)} bytes", flush=True)


def rejected(tmp, args, what, target, **kw):
    """exit 2, one stderr line 'geopipe: error: --timeline: ...', nothing on stdout, no target."""
    before = set(os.listdir(tmp))
    p = geopipe(RUN + args, **kw)
    lines = p.stderr.splitlines()
    check(p.returncode == 2, f"{what}: exit {p.returncode}, expected 2 ({p.stderr.strip()})")
    check(len(lines) == 1 and lines[0].startswith("geopipe: error: --timeline: "), f"{what}: stderr {p.stderr!r}")
    check(p.stdout == "", f"{what}: wrote to stdout")
    check(set(os.listdir(tmp)) == before, f"{what}: files appeared: {set(os.listdir(tmp)) - before}")
    if target is not None:
        check(not glob.glob(glob.escape(target) + ".tmp*"), f"{what}: left {target}.tmp*")
    return p


def check_bad_paths(tmp):
    os.mkdir(os.path.join(tmp, "adir"))
    rejected(tmp, ["--timeline", os.path.join(tmp, "adir")], "an existing directory", None)
    rejected(tmp, ["--timeline", os.path.join(tmp, "missing", "t.json")], "a directory that does not exist", None)
    with open(os.path.join(tmp, "afile"), "w") as f:
        f.write("x")
    rejected(tmp, ["--timeline", os.path.join(tmp, "afile", "t.json")], "a path under a regular file", None)
    rejected(tmp, ["--timeline", ""], "an empty path", None)
    rejected(tmp, ["--timeline", "/dev/full"], "/dev/full (a character device)", None)
    check(os.path.exists("/dev/full") and not os.path.isfile("/dev/full"), "/dev/full was replaced")
    if os.geteuid() != 0:  # root writes anywhere
        ro = os.path.join(tmp, "readonly")
        os.mkdir(ro)
        os.chmod(ro, 0o555)
        rejected(tmp, ["--timeline", os.path.join(ro, "t.json")], "a read-only directory", None)
        os.chmod(ro, 0o755)
    # one of the inputs: the scenario itself, a hard link to it, a symbolic link to it
    scen = os.path.join(tmp, "scen.toml")
    shutil.copy(SCENARIO, scen)
    text = open(scen, "rb").read()
    run_copy = ["run", scen, "--scheduler", "bace-pipe", "--set", "workload.num_jobs=30"]
    p = geopipe(run_copy + ["--timeline", scen])
    check(p.returncode == 2 and p.stderr.startswith("geopipe: error: --timeline: ") and "is an input" in p.stderr,
          f"the scenario as --timeline: exit {p.returncode} {p.stderr!r}")
    os.link(scen, os.path.join(tmp, "hard.json"))
    p = geopipe(run_copy + ["--timeline", os.path.join(tmp, "hard.json")])
    check(p.returncode == 2 and "is an input" in p.stderr, f"a hard link to the scenario: exit {p.returncode} {p.stderr!r}")
    os.symlink(scen, os.path.join(tmp, "x.json"))
    p = geopipe(run_copy + ["--timeline", os.path.join(tmp, "x.json")])
    check(p.returncode == 2 and "is an input" in p.stderr, f"a symbolic link to the scenario: exit {p.returncode} {p.stderr!r}")
    check(open(scen, "rb").read() == text and os.path.islink(os.path.join(tmp, "x.json")), "the scenario changed")
    for n in ("hard.json", "x.json"):
        os.unlink(os.path.join(tmp, n))
    both = os.path.join(tmp, "both.out")
    rejected(tmp, ["--jobs-csv", both, "--timeline", both], "the --jobs-csv file", both)

    # a failed write (a file size limit stands in for a full disk): exit 2 with a message, the
    # older FILE untouched, no FILE.tmp
    target = os.path.join(tmp, "old.json")
    with open(target, "w") as f:
        f.write("old\n")

    def limit():  # SIGXFSZ keeps its default action: geopipe itself must ignore it (EFBIG instead)
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
        resource.setrlimit(resource.RLIMIT_FSIZE, (20000, 20000))

    p = geopipe(RUN + ["--timeline", target], preexec_fn=limit)
    lines = p.stderr.splitlines()
    check(p.returncode == 2, f"a failed write: exit {p.returncode}, expected 2 ({p.stderr.strip()})")
    check(len(lines) == 1 and lines[0].startswith("geopipe: error: --timeline: cannot write"), f"a failed write: {p.stderr!r}")
    check(open(target).read() == "old\n", "a failed write changed the existing FILE")
    check(not glob.glob(glob.escape(target) + ".tmp*"), "a failed write left FILE.tmp*")
    # the per-job CSV under the same limit: the same contract
    csv_target = os.path.join(tmp, "old.csv")
    with open(csv_target, "w") as f:
        f.write("old\n")
    def small_limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
        resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))

    p = geopipe(RUN + ["--jobs-csv", csv_target], preexec_fn=small_limit)
    check(p.returncode == 2 and p.stderr.startswith("geopipe: error: --jobs-csv: cannot write")
          and "File too large" in p.stderr, f"a failed CSV write: exit {p.returncode} {p.stderr!r}")
    check(open(csv_target).read() == "old\n" and not glob.glob(glob.escape(csv_target) + ".tmp*"),
          "a failed CSV write changed FILE or left FILE.tmp*")
    # the same run without the limit replaces it
    p = geopipe(RUN + ["--timeline", target])
    check(p.returncode == 0 and json.load(open(target))["traceEvents"], f"overwriting an older FILE: {p.stderr!r}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        check_timeline(tmp)
        # 20 times the arrival rate: jobs queue, so the waiting-jobs counter and the lanes matter
        check_timeline(tmp, ["--set", "workload.load_scale=20"], congested=True)
        bad = os.path.join(tmp, "bad")
        os.mkdir(bad)
        check_bad_paths(bad)
    if failures:
        print(f"{len(failures)} failure(s)")
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
