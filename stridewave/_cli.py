"""The ``python -m stridewave`` command line.

Subcommands
-----------
info
    Versions, the registered dtypes as a table, and which carrier kinds work here.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import sys
from collections.abc import Sequence


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
    import stridewave

    print(f"stridewave {stridewave.__version__}")
    for dist in ("numpy", "ml_dtypes", "mlx"):
        print(f"  {dist:<10} {_version_of(dist)}")
    print("registered dtypes:")
    for line in dtype_table():
        print(line)
    return 0


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
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    info = sub.add_parser(
        "info",
        help="print versions, the registered dtypes and the carrier kinds available here",
        description="Print versions, the registered dtypes and the carrier kinds available here.",
    )
    info.set_defaults(func=_cmd_info)
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
        The process exit status: 0 on success, 2 on a usage error, 1 on a failure.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        parser.print_help(sys.stderr)
        return 2
    status: int = args.func(args)
    return status
