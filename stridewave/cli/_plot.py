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
#: Values per column in the plotted sample (the first ones of each column).
SAMPLE = 1 << 18
#: Columns given a histogram.
MAX_HISTOGRAMS = 4

_LABELS = {
    "E4M3": "MXFP8 E4M3",
    "E5M2": "MXFP8 E5M2",
    "E3M2": "MXFP6 E3M2",
    "E2M3": "MXFP6 E2M3",
    "E2M1": "MXFP4 E2M1",
}


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
    q = mx.quantize(x, fmt, axis=-1)
    back = mx.dequantize(q.elements, q.scales, fmt, axis=-1).astype(np.float64)
    keep = np.isfinite(back) & np.isfinite(x)
    wide = np.where(keep, x.astype(np.float64), 0.0)
    error = np.where(keep, back - wide, 0.0)
    energy = np.sum(wide**2, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_column = np.sqrt(np.sum(error**2, axis=1) / energy)
    per_column = per_column[energy > 0]
    return float(per_column.mean()) if per_column.size else float("nan")


def write_plot(path: str, columns: npt.NDArray[Any], names: tuple[str, ...], title: str) -> None:
    """Write the demo's PNG: error of each MX format against block size, and a histogram.

    Parameters
    ----------
    path : str
        The PNG file to write (overwritten).
    columns : numpy.ndarray, shape (cols, rows)
        The data, column-major; the first :data:`SAMPLE` values of each column are
        plotted.
    names : tuple of str
        One name per column.
    title : str
        The data's source, shown above the figure.

    Raises
    ------
    ImportError
        If matplotlib is not installed.
    OSError
        If the file cannot be written.
    """
    from matplotlib.figure import Figure

    sample = np.ascontiguousarray(columns[:, :SAMPLE], dtype=np.float32)
    cols = sample.shape[0]
    shown = min(cols, MAX_HISTOGRAMS)
    figure = Figure(figsize=(11, 1.2 + 1.6 * max(shown, 2)), layout="constrained")
    grid = figure.add_gridspec(shown, 2)
    errors = figure.add_subplot(grid[:, 0])
    for element in mx.ELEMENT_NAMES:
        values = [relative_rms_error(sample, element, b) for b in BLOCKS]
        # formats with the same mantissa width often give the same errors: distinct
        # markers and dash patterns keep a line visible under another one
        k = list(_LABELS).index(element)
        errors.plot(
            BLOCKS,
            values,
            marker="osD^v"[k % 5],
            markersize=7 - k,
            linestyle=("-", "--", "-.", ":", (0, (5, 1)))[k % 5],
            label=_LABELS[element],
        )
    errors.axvline(32, color="0.6", linestyle=":", label="OCP block (32)")
    errors.set_xscale("log", base=2)
    errors.set_yscale("log")
    errors.set_xlabel("block size (values per E8M0 scale)")
    errors.set_ylabel("relative RMS error of the round trip")
    errors.set_title("microscaling error (blocks within a column; mean over columns)")
    errors.legend(fontsize="small")
    errors.grid(True, which="both", alpha=0.3)
    for k in range(shown):
        axes = figure.add_subplot(grid[k, 1])
        finite = sample[k][np.isfinite(sample[k])]
        axes.hist(finite, bins=80, color="tab:blue")
        axes.set_ylabel("count")
        axes.set_title(f"{names[k]}: {finite.size:,} finite values", fontsize="small")
    axes.set_xlabel("value")
    more = f"; histograms of the first {shown} of {cols} columns" if cols > shown else ""
    cut = f"; first {SAMPLE:,} values of each column" if columns.shape[1] > SAMPLE else ""
    figure.suptitle(f"{title}{cut}{more}", fontsize="medium")
    figure.savefig(path, dpi=100)
