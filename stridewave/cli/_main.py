"""The ``python -m stridewave`` command line.

Subcommands
-----------
info
    Versions, the registered dtypes as a table, and which carrier kinds work here.
demo [PATH] [--dtype DTYPE] [--no-metal] [--plot PNG]
    The main job on real data: load, view, transpose by scatter, evict and promote,
    checksum, microscaling round trips, Metal where available.
"""

from __future__ import annotations

import argparse
import gc
import importlib.metadata
import os
import sys
import time
from collections.abc import Sequence

from stridewave import _startup
from stridewave._version import __version__


def _version_of(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def dtype_table() -> list[str]:
    """Return the registered dtypes as aligned table lines (header first).

    Returns
    -------
    list of str
        One line per registered descriptor, in registration order, with the columns
        name, kind (``category``/``simple``/``compound``), bits (``-`` when the
        descriptor has no single width) and the supertype chain, nearest first
        (e.g. ``Floating > Any``; ``-`` for a root category).
    """
    from stridewave.dtypes import DType, SimpleDType

    rows = [("name", "kind", "bits", "supertypes")]
    for dtype in DType.registered():
        kind = "category" if dtype.is_category() else "simple" if dtype.is_simple() else "compound"
        bits = str(dtype.bits) if isinstance(dtype, SimpleDType) else "-"
        chain = " > ".join(c.name for c in dtype.supertypes()) or "-"
        rows.append((dtype.name, kind, bits, chain))
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    return [
        f"  {name:<{widths[0]}}  {kind:<{widths[1]}}  {bits:>{widths[2]}}  {chain}"
        for name, kind, bits, chain in rows
    ]


def _cmd_info(args: argparse.Namespace) -> int:
    print(f"stridewave {__version__}")
    for dist in ("numpy", "ml_dtypes", "mlx"):
        print(f"  {dist:<10} {_version_of(dist)}")
    print("registered dtypes:")
    for line in dtype_table():
        print(line)
    print("carriers:")
    for line in carrier_availability():
        print(line)
    print(
        "extension carriers (the array API standard's other dtypes, and float16 and bfloat16; "
        "registered by stridewave.array_api):"
    )
    for line in extension_carriers():
        print(line)
    from stridewave.carriers._base import SCALAR_PATH

    print(f"scalar paths (get_value, set_value, carrier[i]): {SCALAR_PATH}")
    return 0


def carrier_availability() -> list[str]:
    """Return one line per carrier kind: whether it works here, and if not why.

    Returns
    -------
    list of str
        One line per kind of ``stridewave.carriers.KINDS``, e.g. ``"  Metal       available:
        MLX GPU device (CUDA), MLX 0.32.4 [scatter: device; secondary: no; numpy.asarray:
        snapshot]"``: availability from the kind, the bracket from its ``capabilities``
        record. Generic, CPU and FileBacked need only NumPy. Importing MLX (when
        installed) is the only side effect; no storage is allocated.
    """
    from stridewave.carriers import KINDS

    secondaries = ", ".join(kind.__name__ for kind in KINDS if kind.capabilities.secondary)
    lines = []
    for kind in KINDS:
        ok, why = kind._availability()
        caps = kind.capabilities
        scatter = caps.scatter.name.lower() if caps.scatter else "no (NotImplementedError)"
        secondary = "yes" if caps.secondary else "no"
        export = "view" if caps.exports_views else "snapshot"
        if kind.__name__ == "Evictable":
            why = f"{why} ({secondaries})"
            scatter, export = "as its primary", "as its primary"
        lines.append(
            f"  {kind.__name__:<11} {'available' if ok else 'unavailable'}: {why} "
            f"[scatter: {scatter}; secondary: {secondary}; numpy.asarray: {export}]"
        )
    return lines


def extension_carriers() -> list[str]:
    """Return one line per extension carrier kind: its device, availability and dtypes.

    Imports the extension carriers and the array API's table of places
    (:data:`stridewave.array_api._places.PLACES`), which registers the array API
    standard's dtypes in this process (after the dtype table above was printed).

    Returns
    -------
    list of str
        E.g. ``"  CPUExtension        CPU device, available: Bool, Int8, ..., Complex128,
        Float16, BFloat16"``
        for each of ``stridewave.carriers._extension.EXTENSION_KINDS``.
    """
    from stridewave.array_api._places import PLACES
    from stridewave.carriers._extension import EXTENSION_KINDS, HALF_DTYPES

    rows = {row.extension_carrier: row for row in PLACES}
    lines = []
    for kind in EXTENSION_KINDS:
        ok, why = kind._availability()
        row = rows[kind]
        state = "available" if ok else f"unavailable ({why})"
        stored = ", ".join(d.name for d in row.device_dtypes() + HALF_DTYPES)
        lines.append(f"  {kind.__name__:<19} {row.name} device, {state}: {stored}")
    return lines


def _plot_path_problem(path: str) -> str | None:
    """Return why the demo could not write its PNG at ``path``, or None if it can."""
    if not path.lower().endswith(".png"):
        return f"{path!r}: the picture is a PNG; give a path ending in .png"
    if os.path.isdir(path):
        return f"{path!r} is a directory; give a file path ending in .png"
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        return f"{path!r}: the folder {folder!r} does not exist; create it first"
    if not os.access(folder, os.W_OK):
        return f"{path!r}: the folder {folder!r} is not writable; choose another path"
    return None


def _cmd_demo(args: argparse.Namespace) -> int:
    from stridewave.cli._datafile import DataFileError, load_table, printable
    from stridewave.cli._demo import run_demo

    if args.plot is not None:
        try:  # imported here, before the demo starts: the plot step times the drawing
            import matplotlib.backends.backend_agg
            import matplotlib.figure  # noqa: F401
        except ImportError:
            print(
                "stridewave demo: error: --plot needs matplotlib, which is not installed; "
                "run: python -m pip install 'stridewave[plot]' (in a source checkout: "
                "python -m pip install -e '.[plot]')",
                file=sys.stderr,
            )
            return 1
        problem = _plot_path_problem(args.plot)
        if problem is not None:  # checked before the demo runs, not after it
            print(f"stridewave demo: error: --plot {printable(problem)}", file=sys.stderr)
            return 1
    start = time.perf_counter()
    try:
        table = load_table(args.path, dtype=args.dtype)
    except DataFileError as exc:
        print(f"stridewave demo: error: {printable(str(exc))}", file=sys.stderr)
        return 1
    except OSError as exc:
        why = f"{args.path}: {exc.strerror or exc}"
        print(f"stridewave demo: error: {printable(why)}", file=sys.stderr)
        return 1
    ok = run_demo(
        table,
        metal=not args.no_metal,
        read_seconds=time.perf_counter() - start,
        plot=args.plot,
    )
    return 0 if ok else 1


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser of ``python -m stridewave``.

    Returns
    -------
    argparse.ArgumentParser
        The parser, one sub-parser per subcommand.
    """
    parser = argparse.ArgumentParser(
        prog="python -m stridewave",
        description="StrideWeave: typed storage and dtype descriptors over NumPy and MLX.",
    )
    parser.add_argument("--version", action="version", version=f"stridewave {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    info = sub.add_parser(
        "info",
        help="print versions, the registered dtypes and the carrier kinds available here",
        description="Print versions, the registered dtypes and the carrier kinds available here.",
    )
    info.set_defaults(func=_cmd_info, usage_of=info)
    demo = sub.add_parser(
        "demo",
        help="run the main job on a data file, or on the shipped Mauna Loa CO2 data set",
        description=(
            "Stream a numeric data file (a .npy or raw file is memory-mapped) into a CPU "
            "carrier, view it through NumPy without a copy, transpose it with strided "
            "scatters, evict it to a FileBacked tier and promote it back, check every "
            "value survived, round-trip each column through the OCP microscaling "
            "formats (stridewave.mx), and use Metal where available. Without PATH, use "
            "the Mauna Loa weekly CO2 data set shipped with StrideWeave (public domain)."
        ),
    )
    demo.add_argument(
        "path",
        nargs="?",
        metavar="PATH",
        help="a .npy, .npz or .csv file, or a raw binary file with --dtype",
    )
    demo.add_argument(
        "--dtype",
        metavar="DTYPE",
        help="NumPy dtype of a raw binary PATH, e.g. float32, <f4, int32",
    )
    demo.add_argument(
        "--no-metal", action="store_true", help="skip the Metal step even where MLX works"
    )
    demo.add_argument(
        "--plot",
        metavar="PNG",
        help="write a PNG: the error of each microscaling format against the block size, "
        "and a histogram of the data (needs matplotlib: pip install 'stridewave[plot]')",
    )
    demo.set_defaults(func=_cmd_demo, usage_of=demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line.

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments without the program name; ``sys.argv[1:]`` when omitted.

    Returns
    -------
    int
        The process exit status: 0 on success, 2 on a usage error, 1 on a failure,
        130 when interrupted (Ctrl-C): one line on standard error, no traceback, and
        the demo's temporary files removed.
    """
    _startup.restore()  # from here on, KeyboardInterrupt and the handler below
    parser = build_parser()
    words = list(sys.argv[1:] if argv is None else argv)
    args, unknown = parser.parse_known_args(words)
    if unknown:  # the usage of the command they follow, or the top level's (status 2)
        command = getattr(args, "command", None)
        before = command not in words or words.index(unknown[0]) < words.index(command)
        usage = parser if before else getattr(args, "usage_of", parser)
        usage.error(f"unrecognized arguments: {' '.join(unknown)}")
    if getattr(args, "func", None) is None:
        parser.print_help(sys.stderr)
        print("\npython -m stridewave: error: give a command (info or demo)", file=sys.stderr)
        return 2
    try:
        status: int = args.func(args)
    except BrokenPipeError:  # e.g. `python -m stridewave info | head -1`: stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        # the carriers of the interrupted step are only reachable from the traceback:
        # dropping it and collecting releases them (a FileBacked removes its file)
        sys.stdout.flush()
        gc.collect()
        fresh_line = "\r\x1b[K" if sys.stderr.isatty() else ""  # over a progress bar and ^C
        print(f"{fresh_line}python -m stridewave {args.command}: interrupted", file=sys.stderr)
        return 130
    return status
