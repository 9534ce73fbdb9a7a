"""The demo's picture (``--plot PNG``): microscaling error against block size, and a histogram.

Needs matplotlib (the ``plot`` extra); imported only when ``--plot`` is given. The
figure is drawn with matplotlib's object API (no pyplot, no global backend state).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from stridewave import mx

#: Block sizes on the error plot (the OCP formats use 32).
BLOCKS = (2, 4, 8, 16, 32, 64, 128, 256, 1024)
#: Values in the plotted sample, at most: runs of the largest block size spread evenly
#: through each column (what the plot costs does not grow with the data).
SAMPLE = 1 << 14
#: Error curves closer than this (relative, at every block size) are drawn as one line.
SAME_CURVE = 0.01
#: Columns given a histogram.
MAX_HISTOGRAMS = 4
#: The title's lines, at most this many characters: it fits the figure's width.
TITLE_CHARACTERS = 120

_LABELS = {
    "E4M3": "MXFP8 E4M3",
    "E5M2": "MXFP8 E5M2",
    "E3M2": "MXFP6 E3M2",
    "E2M3": "MXFP6 E2M3",
    "E2M1": "MXFP4 E2M1",
}


def distinct_curves(
    curves: dict[str, list[float]], *, tolerance: float = SAME_CURVE
) -> list[tuple[list[str], list[float]]]:
    """Group error curves that would lie on one another, keeping the order given.

    Parameters
    ----------
    curves : dict of str to list of float
        One curve per label, all of one length (NaN where a point has no value).
    tolerance : float, optional
        Curves whose points all agree within this relative difference (NaN matching
        NaN) are one group.

    Returns
    -------
    list of (list of str, list of float)
        The labels of each group, and the curve drawn for it (its first member's).
    """
    groups: list[tuple[list[str], list[float]]] = []
    for label, values in curves.items():
        ys = np.asarray(values, dtype=np.float64)
        for labels, drawn in groups:
            ref = np.asarray(drawn, dtype=np.float64)
            both = np.isnan(ys) & np.isnan(ref)
            with np.errstate(invalid="ignore", divide="ignore"):
                close = np.abs(ys - ref) <= tolerance * np.maximum(np.abs(ref), np.abs(ys))
            if bool(np.all(both | close)):
                labels.append(label)
                break
        else:
            groups.append(([label], list(values)))
    return groups


def _wrap(text: str, width: int) -> str:
    """``text`` broken into lines of at most ``width`` characters, at spaces."""
    import textwrap

    return "\n".join(textwrap.wrap(text, width, break_long_words=False))


def relative_rms_error(columns: npt.NDArray[Any], element: str, block: int) -> float:
    """Relative RMS error of a round trip, averaged over columns (blocks within a column).

    Parameters
    ----------
    columns : numpy.ndarray, shape (cols, rows)
        The sample, one column per row of the array.
    element : str
        The MX element type's name.
    block : int
        Values per scale.

    Returns
    -------
    float
        The mean over columns of ``sqrt(sum((back - x)**2) / sum(x**2))``, each over
        the values whose round trip is finite (a block holding NaN reads back as NaN
        and is left out); NaN when no column has a nonzero value left.
    """
    fmt = mx.scaled_dtype(element, block=block)
    x = np.asarray(columns, dtype=np.float32)
    back = mx.dequantize(mx.quantize(x, fmt, axis=-1), fmt, axis=-1).astype(np.float64)
    keep = np.isfinite(back) & np.isfinite(x)
    wide = np.where(keep, x.astype(np.float64), 0.0)
    error = np.where(keep, back - wide, 0.0)
    energy = np.sum(wide**2, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_column = np.sqrt(np.sum(error**2, axis=1) / energy)
    per_column = per_column[energy > 0]
    return float(per_column.mean()) if per_column.size else float("nan")


def write_plot(path: str, columns: npt.NDArray[Any], names: tuple[str, ...], title: str) -> str:
    """Write the demo's PNG: error of each MX format against block size, and a histogram.

    The error curves come from a sample of at most :data:`SAMPLE` values (runs of 1024
    consecutive values spread evenly through each column), each histogram from at
    most :data:`SAMPLE` single values spread evenly through its column, so the
    picture costs about the same on any table. Formats whose error curves coincide
    (formats with the same number of mantissa bits often do) are drawn as one line,
    labelled with all of them.

    Parameters
    ----------
    path : str
        The PNG file to write (overwritten).
    columns : numpy.ndarray, shape (cols, rows)
        The data, column-major; only the sample is read.
    names : tuple of str
        One name per column.
    title : str
        The data's source, shown above the figure.

    Returns
    -------
    str
        What was plotted, for the report (the sample, and how many lines stand for
        the five formats).

    Raises
    ------
    ImportError
        If matplotlib is not installed.
    OSError
        If the file cannot be written.
    """
    figure, what = build_figure(columns, names, title)
    figure.savefig(path, dpi=90, format="png")
    return what


def build_figure(columns: npt.NDArray[Any], names: tuple[str, ...], title: str) -> tuple[Any, str]:
    """Draw the demo's figure (see :func:`write_plot`) without writing it.

    Parameters
    ----------
    columns : numpy.ndarray, shape (cols, rows)
        The data, column-major; only a sample of at most :data:`SAMPLE` values is read.
    names : tuple of str
        One name per column.
    title : str
        The data's source, shown above the figure.

    Returns
    -------
    figure : matplotlib.figure.Figure
        The figure: the error axes first, then one histogram per shown column.
    description : str
        What was plotted, for the report.
    """
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    from stridewave.cli._demo import block_sample

    plan = block_sample(columns.shape, SAMPLE, block=max(BLOCKS))
    sample = np.asarray(plan.take(columns), dtype=np.float32)
    kept, what = plan.columns, plan.description
    cols = sample.shape[0]
    shown = min(cols, MAX_HISTOGRAMS)
    more = f"; histograms of the first {shown} of {cols} columns" if cols > shown else ""
    heading = _wrap(f"{title}: {what}{more}", TITLE_CHARACTERS)
    # a fixed layout and no minor tick labels: the constrained layout engine and the
    # text extents of the log axes' minor labels were most of the drawing time. The
    # margins are set in inches, so that they hold at every height: the wrapped title
    # above, the error axes' tick labels, label and legend below them, and the
    # histograms reaching down to the figure's foot beside the legend.
    height = 2.4 + 1.6 * max(shown, 2)
    figure = Figure(figsize=(11, height))
    top = 1 - (0.3 + 0.2 * heading.count("\n") + 0.35) / height
    left = figure.add_gridspec(1, 1, left=0.08, right=0.485, bottom=1.75 / height, top=top)
    grid = figure.add_gridspec(
        shown, 1, left=0.575, right=0.98, bottom=0.55 / height, top=top, hspace=0.6
    )
    errors = figure.add_subplot(left[0, 0])
    curves = {
        _LABELS[element]: [relative_rms_error(sample, element, b) for b in BLOCKS]
        for element in mx.ELEMENT_NAMES
    }
    groups = distinct_curves(curves)
    for k, (labels, values) in enumerate(groups):
        errors.plot(
            BLOCKS,
            values,
            marker="osD^v"[k % 5],
            linestyle=("-", "--", "-.", ":", (0, (5, 1)))[k % 5],
            label=" = ".join(labels) if len(labels) > 1 else labels[0],
        )
    errors.axvline(32, color="0.6", linestyle=":", label="OCP block (32)")
    errors.set_xscale("log", base=2)
    errors.set_yscale("log")
    errors.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    errors.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    errors.yaxis.set_minor_formatter(NullFormatter())
    errors.set_xlabel("block size (values per E8M0 scale)")
    errors.set_ylabel("relative RMS error of the round trip")
    errors.set_title(
        "microscaling error (blocks within a column; mean over columns)", fontsize="medium"
    )
    errors.legend(
        fontsize="small",
        title="formats whose errors coincide share a line",
        title_fontsize="small",
        loc="lower center",
        bbox_to_anchor=(0.2825, 0.1 / height),
        bbox_transform=figure.transFigure,
        ncol=2,
    )
    errors.grid(True, which="both", alpha=0.3)
    # the histograms read values spread evenly through each column, one at a time: the
    # error sample's runs of consecutive values would show a trend as separate humps
    rows = columns.shape[1]
    spread = np.unique(np.linspace(0, rows - 1, num=min(rows, SAMPLE)).astype(np.intp))
    for k in range(shown):
        axes = figure.add_subplot(grid[k, 0])
        spread_values = np.asarray(columns[kept[k], spread], dtype=np.float32)
        finite = spread_values[np.isfinite(spread_values)]
        axes.hist(finite, bins=80, color="tab:blue")
        axes.set_ylabel("count")
        axes.set_title(
            f"{names[kept[k]]}: {finite.size:,} finite values, evenly spaced", fontsize="small"
        )
    axes.set_xlabel("value")
    figure.suptitle(heading, fontsize="medium", y=1 - 0.15 / height, va="top")
    lines = f"{len(groups)} line{'s' * (len(groups) != 1)} for the 5 formats"
    return figure, f"{what}; {lines}"
