"""The harness of the analysis tests (test_*.py, known_indices.py beside it): each check runs
once, in file order, and its outcome is printed ("ok   NAME" or "FAIL NAME" with the traceback);
finish() prints "N passed, M failed", removes the temporary directory unless a check failed or
GEOPIPE_KEEP_TMP is set, and exits 1 if any check failed."""

import os
import shutil
import sys
import traceback

results = []  # (name, ok)


def check(fn):
    """Runs one check now; records and prints its outcome."""
    name = fn.__name__
    try:
        fn()
    except Exception:  # noqa: BLE001
        results.append((name, False))
        print(f"FAIL {name}")
        traceback.print_exc(file=sys.stdout)
    else:
        results.append((name, True))
        print(f"ok   {name}")
    return fn


def finish(tmp):
    passed = sum(1 for _, ok in results if ok)
    failed = len(results) - passed
    if failed == 0 and not os.environ.get("GEOPIPE_KEEP_TMP"):
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        print(f"temporary files kept in {tmp}")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
