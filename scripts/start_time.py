#!/usr/bin/python3
"""Process start times, measured round robin (docs/performance.md, "Process start").

    scripts/start_time.py [--runs N] [--json FILE] 'CMD A' 'CMD B' ...

Runs the commands in turn, N times each (default 300, after 10 warm-up rounds): A, B, ..., A,
B, ... so that load from other processes on this shared machine hits every command alike
(hyperfine runs all of one command's runs before the next's). Each run is timed from
posix_spawn to waitpid, stdout and stderr to /dev/null; a command that exits non-zero is an
error. Prints a markdown table: median, 10th percentile and mean in milliseconds. --json writes
every run's time, per command, for other scripts (bench_compare.sh).
"""
import argparse
import json
import os
import shlex
import statistics
import sys
import time


def run_once(argv, devnull):
    t0 = time.perf_counter_ns()
    pid = os.posix_spawnp(argv[0], argv, os.environ,
                          file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)])
    _, status = os.waitpid(pid, 0)
    elapsed_ms = (time.perf_counter_ns() - t0) / 1e6
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"start_time.py: '{shlex.join(argv)}' exited with {os.waitstatus_to_exitcode(status)}")
    return elapsed_ms


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=300)
    ap.add_argument("--json")
    ap.add_argument("commands", nargs="+")
    a = ap.parse_args()
    if a.runs < 1:
        ap.error("--runs must be at least 1")
    cmds = [shlex.split(c) for c in a.commands]
    devnull = os.open(os.devnull, os.O_WRONLY)
    for _ in range(10):
        for c in cmds:
            run_once(c, devnull)
    times = [[] for _ in cmds]
    for _ in range(a.runs):
        for i, c in enumerate(cmds):
            times[i].append(run_once(c, devnull))
    print(f"| command | median | p10 | mean |  ({a.runs} runs each, round robin)\n|---|---|---|---|")
    for c, t in zip(a.commands, times):
        s = sorted(t)
        print(f"| `{c}` | {statistics.median(s):.2f} ms | {s[len(s) // 10]:.2f} ms | {statistics.mean(s):.2f} ms |")
    if a.json:
        with open(a.json, "w") as f:
            json.dump([{"command": c, "ms": t} for c, t in zip(a.commands, times)], f)


if __name__ == "__main__":
    main()
