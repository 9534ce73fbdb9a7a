"""``python -m stridewave demo``: StrideWeave's main job, end to end on real data.

The steps, each timed and reported on one line:

1. load a numeric table (a user file, or the shipped Mauna Loa CO2 data set) and
   place it, row-major, in a :class:`~stridewave.CPU` carrier of the narrowest
   StrideWeave dtype that holds it (Int32 for integral data, else Float32);
2. show it through ``numpy.asarray`` without a copy (a read-only view);
3. transpose it to column-major order with one strided ``scatter``;
4. evict the transposed carrier to a :class:`~stridewave.FileBacked` tier through an
   :class:`~stridewave.Evictable`, and promote it back;
5. check that every value survived (SHA-256 of the bytes before and after);
6. round-trip the values through the OCP microscaling formats whose element type
   can represent them (:class:`~stridewave.ScaledDType`, E8M0 scale per 32 values);
7. place the columns in a :class:`~stridewave.Metal` carrier where a runtime exists.
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TextIO

import ml_dtypes
import numpy as np
import numpy.typing as npt

import stridewave as sw
from stridewave.cli._datafile import Table

#: Values per progress-bar step and per checksum chunk (4 MiB of float32).
_CHUNK = 1 << 20
#: Inputs at least this many values long get a progress bar on a terminal.
_PROGRESS_MIN = 4 * _CHUNK

#: The microscaling element formats, largest first: (name, element dtype name).
_MX_FORMATS = (
    ("MXFP8 (E4M3)", "E4M3"),
    ("MXFP8 (E5M2)", "E5M2"),
    ("MXFP6 (E3M2)", "E3M2"),
    ("MXFP6 (E2M3)", "E2M3"),
    ("MXFP4 (E2M1)", "E2M1"),
)
_MX_BLOCK = 32


def _plural(count: int, noun: str) -> str:
    """``"1 row"``, ``"2,284 rows"``."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def _finfo(np_dtype: Any) -> Any:
    """``ml_dtypes.finfo`` (untyped upstream): bits, ``maxexp``, ``max`` of a float type."""
    return ml_dtypes.finfo(np_dtype)  # type: ignore[no-untyped-call]


@dataclass
class Report:
    """The lines of the demo report, printed as they are produced."""

    out: TextIO
    lines: list[str] = field(default_factory=list)

    def step(self, name: str, seconds: float | None, text: str) -> None:
        """Print one report line: step name, time in ms (or blank), description."""
        when = f"{seconds * 1e3:9.2f} ms" if seconds is not None else " " * 12
        line = f"  {name:<12} {when}  {text}"
        self.lines.append(line)
        print(line, file=self.out, flush=True)

    def note(self, text: str) -> None:
        """Print an indented continuation line."""
        line = f"  {'':<12} {'':12}  {text}"
        self.lines.append(line)
        print(line, file=self.out, flush=True)


@contextmanager
def _timed() -> Iterator[list[float]]:
    box = [0.0]
    start = time.perf_counter()
    try:
        yield box
    finally:
        box[0] = time.perf_counter() - start


def _progress(total: int, label: str, stream: TextIO) -> Callable[[int], None]:
    """Return ``advance(done)`` drawing a bar on ``stream`` for large inputs on a terminal."""
    show = total >= _PROGRESS_MIN and stream.isatty()

    def advance(done: int) -> None:
        if not show:
            return
        width = 30
        filled = width * done // max(total, 1)
        end = "\n" if done >= total else ""
        stream.write(f"\r  {label:<12} [{'#' * filled}{'.' * (width - filled)}] {done:,}/{total:,}")
        stream.write(end)
        stream.flush()

    return advance


def checksum(values: npt.NDArray[Any], *, stream: TextIO = sys.stderr) -> str:
    """Return the SHA-256 hex digest of the bytes of ``values``, in chunks with a progress bar.

    Parameters
    ----------
    values : numpy.ndarray
        Any contiguous array; its raw bytes are hashed.
    stream : text stream, optional
        Where the progress bar goes (only for large inputs on a terminal).

    Returns
    -------
    str
        64 hexadecimal digits.
    """
    flat = np.ascontiguousarray(values).reshape(-1)
    digest = hashlib.sha256()
    advance = _progress(flat.size, "checksum", stream)
    for start in range(0, flat.size, _CHUNK):
        digest.update(flat[start : start + _CHUNK].tobytes())
        advance(min(start + _CHUNK, flat.size))
    return digest.hexdigest()


def storage_dtype_for(values: npt.NDArray[Any]) -> sw.SimpleDType:
    """Choose the StrideWeave storage dtype for a table: Int32 when exact, else Float32.

    Parameters
    ----------
    values : numpy.ndarray
        Numeric values of any shape.

    Returns
    -------
    SimpleDType
        ``DType.Int32`` for boolean input (as 0 and 1: the demo evicts to a
        FileBacked tier, which holds Float32 and Int32) and when every value is a
        finite integer in ``[-2**31, 2**31 - 1]``; ``DType.Float32`` otherwise.
    """
    info = np.iinfo(np.int32)
    if values.dtype.kind in "b":
        return sw.DType.Int32
    if values.dtype.kind in "iu":
        if values.size == 0 or (int(values.min()) >= info.min and int(values.max()) <= info.max):
            return sw.DType.Int32
        return sw.DType.Float32
    wide = values.astype(np.float64)  # compare in float64: float16 cannot hold 2**31
    with np.errstate(all="ignore"):
        integral = bool(np.isfinite(wide).all()) and np.array_equal(wide, np.round(wide))
    if integral and wide.min() >= info.min and wide.max() <= info.max:
        return sw.DType.Int32
    return sw.DType.Float32


def mx_dtype(label: str, element: str) -> sw.ScaledDType:
    """Return the registered :class:`~stridewave.ScaledDType` for one OCP MX format.

    Registers ``label`` on first use (E8M0 scale, one scale per 32 elements) and
    returns the same identity afterwards.

    Parameters
    ----------
    label : str
        The format's name, e.g. ``"MXFP8 (E4M3)"``.
    element : str
        The element dtype's registered name, e.g. ``"E4M3"``.

    Returns
    -------
    ScaledDType
        The registered descriptor.
    """
    try:
        return sw.ScaledDType.from_name(label)
    except LookupError:
        return sw.ScaledDType(
            label,
            element=sw.SimpleDType.from_name(element),
            scale=sw.DType.E8M0,
            block=_MX_BLOCK,
        )


def mx_round_trip(
    values: npt.NDArray[np.float32], dtype: sw.ScaledDType
) -> npt.NDArray[np.float32]:
    """Quantize ``values`` to an MX format and back (OCP Microscaling v1.0, section 6.3).

    Each block of ``dtype.block`` consecutive values shares one power-of-two scale
    ``X = 2**(floor(log2(max|v|)) - emax)`` where ``emax`` is the exponent of the
    element format's largest normal number; the elements are ``v / X`` rounded to
    the element format, clamped to its largest finite magnitude.

    Parameters
    ----------
    values : numpy.ndarray of float32, shape (n,)
        The values; NaN stays NaN where the element format has one.
    dtype : ScaledDType
        The MX format (element and scale planes, integer block size).

    Returns
    -------
    numpy.ndarray of float32, shape (n,)
        The dequantized values ``element * scale``.
    """
    element_np = sw.to_numpy_dtype(dtype.element)
    scale_np = sw.to_numpy_dtype(dtype.scale)
    block = dtype.block if isinstance(dtype.block, int) else max(values.size, 1)
    info = _finfo(element_np)
    emax = int(info.maxexp) - 1
    largest = float(info.max)
    n = values.size
    padded = np.zeros(-(-n // block) * block, dtype=np.float32)
    padded[:n] = values
    blocks = padded.reshape(-1, block)
    with np.errstate(all="ignore"):  # NaN and inf pass through as the formats allow
        # the scale follows the block's largest finite magnitude (inf and NaN saturate)
        amax = np.nanmax(np.where(np.isfinite(blocks), np.abs(blocks), np.nan), axis=1, initial=0.0)
        exponent = np.where(amax > 0, np.floor(np.log2(np.where(amax > 0, amax, 1.0))) - emax, 0)
        scale = np.exp2(exponent).astype(np.float32).astype(scale_np)
        scale_f = scale.astype(np.float32)[:, None]
        elements = np.clip(blocks / scale_f, -largest, largest).astype(element_np)
        result: npt.NDArray[np.float32] = (elements.astype(np.float32) * scale_f).reshape(-1)[:n]
    return result


def _metal_line(columns: npt.NDArray[np.float32], report: Report) -> None:
    try:
        with _timed() as t:
            metal = sw.Metal(0).new_like(columns.reshape(-1))
            back = np.asarray(metal)
        ok = np.array_equal(back, columns.reshape(-1), equal_nan=True)
        device = os.environ.get("STRIDEWAVE_METAL_DEVICE", "gpu")
        report.step(
            "metal",
            t[0],
            f"{metal!r} on MLX's {device} device; values identical: {'yes' if ok else 'NO'}",
        )
        metal.release()
    except RuntimeError as exc:
        report.step("metal", None, f"skipped: {str(exc).splitlines()[0]}")


def run_demo(table: Table, *, out: TextIO = sys.stdout, metal: bool = True) -> bool:
    """Run the demo's steps on ``table`` and print the report.

    Parameters
    ----------
    table : Table
        The loaded values, shape ``(rows, columns)``.
    out : text stream, optional
        Where the report goes.
    metal : bool, optional
        Whether to try the Metal step (skipped with a reason where no runtime exists).

    Returns
    -------
    bool
        True when every value survived eviction and promotion.
    """
    report = Report(out)
    rows, cols = table.values.shape
    n = rows * cols
    print(
        f"StrideWeave {sw.__version__} demo: {table.source}\n"
        f"  {_plural(rows, 'row')} x {_plural(cols, 'column')} "
        f"({', '.join(table.columns[:6])}{', ...' if cols > 6 else ''})",
        file=out,
    )

    dtype = storage_dtype_for(table.values)
    np_dtype = sw.to_numpy_dtype(dtype)
    with _timed() as t:
        with np.errstate(all="ignore"):  # overflow to inf is reported below
            typed = table.values.reshape(-1).astype(np_dtype)
        carrier = sw.CPU(0, dtype=dtype).new_like(typed)
    report.step("load", t[0], f"{carrier!r}, row-major ({rows} x {cols})")
    if table.values.dtype.kind == "b":
        report.note("bool -> Int32: False and True stored as 0 and 1")
    elif dtype is sw.DType.Float32 and table.values.dtype != np.float32:
        # long double holds every int64 and float64 value exactly on x86-64, so the
        # rounding of wide integers is measured, not hidden by a float64 cast
        source = table.values.reshape(rows, cols).astype(np.longdouble)
        stored = typed.reshape(rows, cols).astype(np.longdouble)
        overflowed = np.isinf(stored) & np.isfinite(source)
        with np.errstate(all="ignore"):
            error = np.nanmax(
                np.where(overflowed, np.nan, np.abs(stored - source)), axis=0, initial=0.0
            )
        worst = int(np.argmax(error))
        overflow = int(overflowed.sum())
        missing = int(np.isnan(source).sum())
        report.note(
            f"{table.values.dtype} -> Float32: largest absolute rounding error "
            f"{float(error[worst]):.3g} (column {table.columns[worst]!r})"
            + (f"; {_plural(overflow, 'value')} beyond binary32 became inf" if overflow else "")
            + (f"; {_plural(missing, 'missing value')} kept as NaN" if missing else "")
        )

    with _timed() as t:
        view = np.asarray(carrier)
    shares = np.shares_memory(view, carrier._raw_array())
    report.step(
        "view",
        t[0],
        f"numpy.asarray(carrier): {view.dtype} {view.shape}, zero-copy: "
        f"{'yes' if shares else 'no'}, writeable: {'yes' if view.flags.writeable else 'no'}",
    )

    transposed = carrier.allocate_like(n)
    source_tensor = sw.Tensor(carrier, sw.Layout((rows, cols)))
    destination = sw.Tensor(transposed, sw.Layout((cols, rows)))
    mapping = sw.Layout((rows, cols), strides=(1, rows))
    with _timed() as t:
        transposed.scatter(source_tensor, destination, mapping)
    columns = np.asarray(destination)
    ok_transpose = np.array_equal(columns, view.reshape(rows, cols).T, equal_nan=True)
    report.step(
        "transpose",
        t[0],
        f"one strided scatter to column-major, mapping strides {mapping.strides}; "
        f"matches numpy .T: {'yes' if ok_transpose else 'NO'}",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN column has no mean
        means = np.nanmean(columns.astype(np.float64), axis=1)
    summary = ", ".join(
        f"{name}={mean:.6g}" for name, mean in zip(table.columns[:4], means[:4], strict=True)
    ) + (", ..." if cols > 4 else "")
    report.note(f"column means (NaN skipped): {summary}")

    before = checksum(np.asarray(transposed))
    secondary = sw.FileBacked(dtype=dtype)
    evictable = sw.Evictable(transposed, secondary)
    with _timed() as t:
        evictable.evict()
    on_disk = os.path.getsize(secondary.path)
    report.step(
        "evict",
        t[0],
        f"CPU -> FileBacked: {on_disk:,} bytes in {secondary.path}",
    )
    with _timed() as t:
        evictable.promote()
    report.step("promote", t[0], "FileBacked -> CPU")
    after = checksum(np.asarray(evictable))
    survived = before == after
    report.step(
        "checksum",
        None,
        f"SHA-256 before {before[:16]}..., after {after[:16]}...: "
        f"{'every value survived' if survived else 'VALUES CHANGED'}",
    )

    with np.errstate(all="ignore"):
        flat = np.asarray(evictable).astype(np.float32)
    has_nan = bool(np.isnan(flat).any())
    for label, element in _MX_FORMATS:
        element_dtype = sw.SimpleDType.from_name(element)
        finfo = _finfo(sw.to_numpy_dtype(element_dtype))
        if has_nan and not np.isnan(np.array(np.nan, dtype=finfo.dtype).astype(np.float32)):
            report.step("microscale", None, f"{label}: skipped, {element} has no NaN")
            continue
        fmt = mx_dtype(label, element)
        with _timed() as t:
            back = mx_round_trip(flat, fmt)
        finite = np.isfinite(flat) & (flat != 0)
        flushed = finite & (back == 0)  # too small beside its block's largest value
        kept = finite & ~flushed & np.isfinite(back)  # inf/NaN in a block spoil its scale
        with np.errstate(all="ignore"):
            rel = (
                float(np.max(np.abs(back[kept] - flat[kept]) / np.abs(flat[kept])))
                if kept.any()
                else 0.0
            )
        bits = element_dtype.bits + 8 / _MX_BLOCK
        report.step(
            "microscale",
            t[0],
            f"{label}: {bits:.2f} bits/value, largest relative error {rel:.3g}"
            + (
                f"; {_plural(int(flushed.sum()), 'value')} flushed to zero by the block scale"
                if flushed.any()
                else ""
            ),
        )

    if metal:
        _metal_line(columns.astype(np.float32, copy=False), report)
    evictable.release()
    carrier.release()
    return survived and ok_transpose
