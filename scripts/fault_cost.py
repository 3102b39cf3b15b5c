#!/usr/bin/python3
"""What a page fault costs on this machine (docs/performance.md, "What is left, measured").

    scripts/fault_cost.py [--pages N] [--repeats R]

Maps N fresh anonymous pages (default 2048) and writes one byte to each: every write takes a
page fault. Prints the median time per page over R mappings (default 5), next to the time per
page of writing the same pages again (no fault; what Python's own loop costs). Each process
start, each new heap page and each HDF5 buffer that grows pays this: multiply by the fault
counts of `/usr/bin/time -f %R` or `perf stat -e page-faults`.
"""
import argparse
import mmap
import statistics
import time

PAGE = mmap.PAGESIZE


def touch(m, pages):
    t0 = time.perf_counter_ns()
    for i in range(pages):
        m[i * PAGE] = 1
    return (time.perf_counter_ns() - t0) / pages / 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=2048)
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args()
    if a.pages < 1 or a.repeats < 1:
        ap.error("--pages and --repeats must be at least 1")
    first, again = [], []
    for _ in range(a.repeats):
        m = mmap.mmap(-1, a.pages * PAGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        first.append(touch(m, a.pages))
        again.append(touch(m, a.pages))
        m.close()
    print(f"first write to a fresh page: {statistics.median(first):.2f} us/page "
          f"(a write to a mapped page: {statistics.median(again):.3f} us/page; "
          f"{a.pages} pages, median of {a.repeats})")


if __name__ == "__main__":
    main()
