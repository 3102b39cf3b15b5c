"""``python3 -m geopipe plot ...``: the command line of the package.

    python3 -m geopipe plot OUT.h5 --x AXIS [--metric M] [--by AXIS ...] [--paired-vs P]
                                  [--schedulers a,b] -o FIG.png|FIG.svg
    python3 -m geopipe --version      the package's version and the executable it finds

Exit codes as the geopipe binary's: 0 done, 2 bad input (one line ``geopipe plot: error:
...`` on stderr: an unknown axis, metric or scheduler with the valid names, an output that is
not .png/.svg or whose directory does not exist, a missing or unreadable input file), 1 an
internal error.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

EXIT_OK, EXIT_INTERNAL, EXIT_INPUT = 0, 1, 2


class InputError(Exception):
    """Bad input: reported on one line with the command's name, exit code 2."""

    def __init__(self, prog: str, message: str):
        super().__init__(message)
        self.prog = prog


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse prints usage + message over several lines: one line instead
        raise InputError(self.prog, f"{message} (see '{self.prog} --help')")


def _parser() -> argparse.ArgumentParser:
    top = _Parser(prog="geopipe", description="geopipe's Python tools (the geopipe package).")
    top.add_argument("--version", action="store_true",
                     help="print the package's version and the geopipe executable it finds (exit 1 if none)")
    sub = top.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    p = sub.add_parser(
        "plot", prog="geopipe plot", help="plot a metric against a swept parameter",
        description="Plot a metric of a result file against a swept parameter: each scheduler's mean over "
                    "the seeds with its 95 % CI, optionally one panel per value of other parameters (--by) "
                    "and each scheduler's paired change against another (--paired-vs). Log x scale for "
                    "geometric values; y in the unit the CLI shows (hours for JCT).")
    p.add_argument("file", metavar="OUT.h5", help="result file of geopipe sweep")
    p.add_argument("--x", required=True, metavar="AXIS",
                   help="swept parameter on the x axis (its path, e.g. network.bandwidth_scale, or "
                        "network_bandwidth_scale)")
    p.add_argument("--metric", default="avg_jct_s", metavar="M", help="metric (default avg_jct_s)")
    p.add_argument("--by", action="append", default=[], metavar="AXIS",
                   help="one panel per value of this swept parameter (repeat it, or a,b, for several)")
    p.add_argument("--paired-vs", metavar="P", help="add a panel with each scheduler's paired change vs P, in %%")
    p.add_argument("--schedulers", metavar="a,b", help="the schedulers to draw (default: all, in sweep order)")
    p.add_argument("-o", "--output", required=True, metavar="FIG", help="output file: .png or .svg (150 dpi)")
    return top


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _plot(args) -> int:
    from .plotting import _check_out, plot

    prog = "geopipe plot"
    try:
        _check_out(args.output)
    except ValueError as e:
        raise InputError(prog, str(e)) from None
    outdir = os.path.dirname(os.path.abspath(args.output))
    if not os.path.isdir(outdir):
        raise InputError(prog, f"output '{args.output}': directory '{outdir}' does not exist")
    if not os.path.exists(args.file):
        raise InputError(prog, f"{args.file}: no such file")
    if os.path.isdir(args.file):
        raise InputError(prog, f"{args.file}: is a directory (expected a result file of geopipe sweep)")
    by = [b for item in args.by for b in item.split(",") if b]
    from .results import load

    try:
        df = load(args.file)
    except (OSError, ValueError, KeyError) as e:
        raise InputError(prog, f"{args.file}: not a readable geopipe result file ({_one_line(e)})") from None
    try:
        plot(df, x=args.x, metric=args.metric, by=by or None, paired_vs=args.paired_vs,
             schedulers=args.schedulers, out=args.output)
    except ValueError as e:
        raise InputError(prog, str(e)) from None
    except OSError as e:
        raise InputError(prog, f"output '{args.output}': {e.strerror or e}") from None
    return EXIT_OK


def _version() -> int:
    from ._version import __version__
    from .executable import ExecutableNotFound, executable_version, find_executable

    print(f"geopipe (Python package) {__version__}")
    try:
        exe = find_executable()
        print(f"executable: {exe} ({executable_version(exe)})")
    except ExecutableNotFound as e:
        print(f"geopipe: error: {_one_line(e)}", file=sys.stderr)
        return EXIT_INTERNAL
    except (OSError, subprocess.SubprocessError) as e:
        print(f"geopipe: error: the executable does not run: {_one_line(e)}", file=sys.stderr)
        return EXIT_INTERNAL
    return EXIT_OK


def main(argv=None) -> int:
    """Run the command line; returns the exit code."""
    try:
        args, extra = _parser().parse_known_args(argv)
        if extra:
            prog = "geopipe plot" if args.command == "plot" else "geopipe"
            raise InputError(prog, f"unrecognized arguments: {' '.join(extra)} (see '{prog} --help')")
        if args.version:
            return _version()
        if args.command == "plot":
            return _plot(args)
        raise InputError("geopipe", "a command is required: plot (see 'python3 -m geopipe --help')")
    except InputError as e:
        print(f"{e.prog}: error: {_one_line(e)}", file=sys.stderr)
        return EXIT_INPUT
