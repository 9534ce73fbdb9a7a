"""``python -m stridewave demo``: StrideWeave's main job, end to end on real data, streamed.

The steps, each timed from its first to its last operation and reported on one line:

1. load: stream the table (a memory-mapped ``.npy``/raw file, or a CSV/``.npz`` read
   into memory) a band of rows at a time into a :class:`~stridewave.CPU` carrier,
   column-major, through the carrier's own strided ``scatter`` (the transpose):
   ``Float32`` for floating input (always, so ``-0.0`` and NaN survive), ``Int32``
   for integers that fit and for booleans, else ``Float32``. Every narrowing is
   measured and reported;
2. transpose: each band checked against NumPy's ``.T`` of it, bit for bit;
3. view: ``numpy.asarray`` of the carrier, without a copy (a read-only view);
4. evict the carrier to a :class:`~stridewave.FileBacked` tier through an
   :class:`~stridewave.Evictable`, and promote it back;
5. checksum: SHA-256 of the bytes before eviction and after promotion;
6. microscale: each column through each OCP microscaling format with
   :mod:`stridewave.mx`, on a sample of whole blocks (blocks never straddle two
   columns);
7. pca: the standardized columns through :mod:`stridewave.array_api`;
8. metal: the columns in a :class:`~stridewave.Metal` carrier where a runtime exists.

Memory: one copy of the data is resident, plus chunk-sized temporaries: the input's
pages are unmapped band by band while loading, and a file tier's pages chunk by chunk
while it is written, read back and promoted (``stridewave.carriers._mapped``).
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TextIO

import ml_dtypes
import numpy as np
import numpy.typing as npt

import stridewave as sw
from stridewave import mx
from stridewave.carriers._mapped import drop_mapped_pages, shared_mapping
from stridewave.cli._datafile import Table

#: Values per chunk of every streamed step (16 MiB of float32; a multiple of 32).
CHUNK = 1 << 22
#: Steps over at least this many values draw a progress bar on a terminal.
PROGRESS_MIN = 1 << 23

#: The microscaling formats, largest first: (report label, element dtype name).
MX_FORMATS = (
    ("MXFP8 (E4M3)", "E4M3"),
    ("MXFP8 (E5M2)", "E5M2"),
    ("MXFP6 (E3M2)", "E3M2"),
    ("MXFP6 (E2M3)", "E2M3"),
    ("MXFP4 (E2M1)", "E2M1"),
)
MX_BLOCK = 32
#: The microscale step's sample, at most this many values: whole blocks of 32 spread
#: evenly through each column (a table this small or smaller is taken whole).
MX_SAMPLE = 1 << 25
#: Values per quantize call of the microscale step (bounds its temporaries).
MX_CHUNK = 1 << 18
#: Values per piece of the load's exact checks and the column means (bounds their
#: float64 and long double temporaries, 8 and 16 bytes a value).
CHECK_CHUNK = 1 << 18
#: Values per chunk of the PCA step (host copy, float64 reference, device copy).
PCA_CHUNK = 1 << 20

#: The most columns the PCA step takes: its correlation matrix holds columns² values
#: (8 MiB in float64 at this bound) and its SVD grows with their cube.
PCA_MAX_COLUMNS = 1024


def _describe(carrier: sw.Carrier) -> str:
    """``"CPU(Float32, 4,568 slots)"``: kind, dtype and size, without a value preview."""
    return f"{type(carrier).__name__}({carrier.dtype().name}, {_plural(carrier.size(), 'slot')})"


def _plural(count: int, noun: str) -> str:
    """``"1 row"``, ``"2,284 rows"``."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


@dataclass
class Report:
    """The lines of the demo report, printed as they are produced."""

    out: TextIO
    lines: list[str] = field(default_factory=list)
    total: float = 0.0

    def step(self, name: str, seconds: float | None, text: str) -> None:
        """Print one report line: step name, time in ms (or blank), description."""
        when = f"{seconds * 1e3:9.2f} ms" if seconds is not None else " " * 12
        self.total += seconds or 0.0
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


def progress(total: int, label: str, *, stream: TextIO | None = None) -> Any:
    """Return a tqdm progress bar for ``total`` values, drawn only where it helps.

    Parameters
    ----------
    total : int
        Values the step will process.
    label : str
        The step's name, shown before the bar.
    stream : text stream, optional
        Where the bar goes (default ``sys.stderr``).

    Returns
    -------
    tqdm.tqdm
        A bar that draws on a terminal for steps of at least :data:`PROGRESS_MIN`
        values and is silent otherwise (redirected output, pipes, short steps);
        call ``update(k)`` and ``close()``, or use it as a context manager.
    """
    from tqdm import tqdm

    stream = sys.stderr if stream is None else stream
    quiet = total < PROGRESS_MIN or not stream.isatty()
    return tqdm(
        total=total,
        desc=f"  {label}",
        unit="value",
        unit_scale=True,
        leave=False,
        file=stream,
        disable=quiet,
        mininterval=0.25,
    )


def _chunks(n: int, size: int = CHUNK) -> Iterator[slice]:
    for start in range(0, n, size):
        yield slice(start, min(start + size, n))


def checksum(values: npt.NDArray[Any], *, label: str = "checksum") -> str:
    """Return the SHA-256 hex digest of the bytes of ``values``, a chunk at a time.

    Parameters
    ----------
    values : numpy.ndarray
        Any contiguous array; its raw bytes are hashed.
    label : str, optional
        The progress bar's label (a bar is drawn on a terminal for large inputs).

    Returns
    -------
    str
        64 hexadecimal digits.
    """
    flat = values.reshape(-1)
    digest = hashlib.sha256()
    with progress(flat.size, label) as bar:
        for part in _chunks(flat.size):
            digest.update(np.ascontiguousarray(flat[part]).data)
            bar.update(part.stop - part.start)
    return digest.hexdigest()


# -- load -----------------------------------------------------------------------------


def storage_dtype_for(values: npt.NDArray[Any]) -> sw.SimpleDType:
    """Choose the StrideWeave storage dtype for a table: Float32, or Int32 for integers.

    Parameters
    ----------
    values : numpy.ndarray
        Numeric values of any shape (scanned a chunk at a time for integer input).

    Returns
    -------
    SimpleDType
        ``DType.Float32`` for floating input, always: floating data that happens to
        hold integers keeps its ``-0.0``, NaN and infinities. ``DType.Int32`` for
        booleans (as 0 and 1: the demo evicts to a FileBacked tier, which holds
        Float32 and Int32) and for integers that all lie in ``[-2**31, 2**31 - 1]``;
        ``DType.Float32`` for wider integers.
    """
    kind = values.dtype.kind
    if kind == "b":
        return sw.DType.Int32
    if kind == "f":
        return sw.DType.Float32
    info = np.iinfo(np.int32)
    if np.can_cast(values.dtype, np.int32):
        return sw.DType.Int32
    flat = values.reshape(-1)
    for part in _chunks(flat.size):
        chunk = flat[part]
        if int(chunk.min()) < info.min or int(chunk.max()) > info.max:
            return sw.DType.Float32
    return sw.DType.Int32


@dataclass
class _Narrowing:
    """What converting the input to the storage dtype changed, per column."""

    cols: int
    rounded: int = 0
    overflow: int = 0
    underflow: int = 0
    missing: int = 0
    negative_zero: int = 0
    error: npt.NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))

    def __post_init__(self) -> None:
        self.error = np.zeros(self.cols)

    def add(self, source: npt.NDArray[Any], stored: npt.NDArray[Any]) -> None:
        """Account one chunk: ``source`` rows as read, ``stored`` as converted.

        A piece of :data:`CHECK_CHUNK` values at a time: the exact comparison works in
        long double (16 bytes a value), so a whole chunk would hold several times the
        chunk's own size.
        """
        rows = max(1, CHECK_CHUNK // max(self.cols, 1))
        for start in range(0, source.shape[0], rows):
            self._add(source[start : start + rows], stored[start : start + rows])

    def _add(self, source: npt.NDArray[Any], stored: npt.NDArray[Any]) -> None:
        if source.dtype.kind == "f":
            self.missing += int(np.isnan(source).sum())
            self.negative_zero += int(np.count_nonzero((source == 0) & np.signbit(source)))
        if stored.dtype != np.float32 or source.dtype in (np.float32, np.float16):
            return
        # long double holds every int64 and float64 value exactly on x86-64
        wide = source.astype(np.longdouble)
        back = stored.astype(np.longdouble)
        overflowed = np.isinf(back) & np.isfinite(wide)
        self.overflow += int(overflowed.sum())
        self.underflow += int(np.count_nonzero((back == 0) & (wide != 0)))
        with np.errstate(invalid="ignore"):
            changed = (back != wide) & ~overflowed & ~np.isnan(wide)
            self.rounded += int(changed.sum())
            diff = np.where(changed, np.abs(back - wide), 0).reshape(-1, self.cols)
        if diff.size:
            self.error = np.maximum(self.error, diff.max(axis=0).astype(np.float64))


@dataclass
class _Loaded:
    """What :func:`_load` made: the column-major carrier and what it saw on the way."""

    carrier: sw.CPU
    narrowing: _Narrowing
    #: Whether every band landed as NumPy's ``.T`` of it, bit for bit.
    matches_transpose: bool
    #: Seconds spent on that check (the rest of the load is the load step's).
    check_seconds: float


def _load(table: Table, dtype: sw.SimpleDType) -> _Loaded:
    """Stream ``table`` into a column-major CPU carrier of ``dtype`` by strided scatters.

    A band of rows at a time: the band is narrowed to ``dtype`` (one rounding, measured)
    and scattered with the mapping ``(r, c) -> c * rows + r`` (strides ``(1, rows)``),
    then checked against NumPy's ``.T`` of the band. The file's pages are handed back
    to the kernel after each band, so the load holds the carrier and one band.
    """
    rows, cols = table.values.shape
    np_dtype = sw.to_numpy_dtype(dtype)
    carrier = sw.CPU(rows * cols, dtype=dtype, empty=True)
    destination = sw.Tensor(carrier, sw.Layout((cols, rows)))
    columns = np.asarray(carrier).reshape(cols, rows)  # read-only, sees the scatters
    narrowing = _Narrowing(cols)
    matches, check_seconds = True, 0.0
    band = max(1, CHUNK // cols)
    mapping = shared_mapping(table.values)
    with progress(rows * cols, "load") as bar:
        for start in range(0, rows, band):
            source = np.asarray(table.values[start : start + band])
            with np.errstate(over="ignore", under="ignore", invalid="ignore"):
                typed = source.astype(np_dtype)  # one rounding; overflow is counted below
            narrowing.add(source, typed)
            m = typed.shape[0]
            band_carrier = sw.CPU.from_numpy(typed.reshape(-1), mutable=False)
            chunk = sw.Tensor(band_carrier, sw.Layout((m, cols)))
            carrier.scatter(chunk, destination, sw.Layout((m, cols), strides=(1, rows)), start)
            checked = time.perf_counter()
            landed = columns[:, start : start + m].T
            matches = matches and np.array_equal(
                typed.view(_bits(typed)), landed.view(_bits(landed))
            )
            check_seconds += time.perf_counter() - checked
            bar.update(m * cols)
            del source, typed, band_carrier, chunk, landed
            drop_mapped_pages(mapping)
    return _Loaded(carrier, narrowing, matches, check_seconds)


def _report_narrowing(
    source: np.dtype[Any],
    names: tuple[str, ...],
    dtype: sw.SimpleDType,
    narrowing: _Narrowing,
    report: Report,
) -> None:
    if source.kind == "b":
        report.note("bool -> Int32: False and True stored as 0 and 1")
    elif source.kind in "iu" and dtype is sw.DType.Int32 and source.itemsize >= 4:
        report.note(f"{source} -> Int32: every value fits, none changed")
    elif dtype is sw.DType.Float32 and source not in (np.float32, np.float16):
        worst = int(np.argmax(narrowing.error))
        parts = [
            f"{source} -> Float32: {_plural(narrowing.rounded, 'value')} rounded"
            + (
                f", largest absolute error {float(narrowing.error[worst]):.3g} "
                f"(column {names[worst]!r})"
                if narrowing.rounded
                else ""
            )
        ]
        if narrowing.overflow:
            parts.append(f"{_plural(narrowing.overflow, 'value')} beyond binary32 became inf")
        if narrowing.underflow:
            parts.append(
                f"{_plural(narrowing.underflow, 'value')} below binary32's range became 0 "
                "(sign kept)"
            )
        report.note("; ".join(parts))
    if narrowing.negative_zero:
        report.note(f"sign of zero: {_plural(narrowing.negative_zero, 'value')} -0.0, kept")
    if narrowing.missing:
        report.note(f"{_plural(narrowing.missing, 'missing value')} kept as NaN")


def _bits(a: npt.NDArray[Any]) -> Any:
    return {1: np.uint8, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize]


def _column_means(columns: npt.NDArray[Any]) -> npt.NDArray[np.float64]:
    cols, rows = columns.shape
    sums = np.zeros(cols)
    counts = np.zeros(cols)
    band = max(1, CHECK_CHUNK // max(cols, 1))  # float64 copies of a small piece
    for start in range(0, rows, band):
        part = columns[:, start : start + band].astype(np.float64)
        finite = ~np.isnan(part)
        sums += np.where(finite, part, 0).sum(axis=1)
        counts += finite.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        means: npt.NDArray[np.float64] = sums / counts
    return means


# -- microscaling ---------------------------------------------------------------------


@dataclass
class MXErrors:
    """Round-trip statistics of one MX format over the data, per column."""

    cols: int
    relative: npt.NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    flushed: int = 0
    saturated: int = 0
    lost_to_nan: int = 0

    def __post_init__(self) -> None:
        self.relative = np.zeros(self.cols)


@dataclass(frozen=True)
class Sample:
    """Which values of a column-major table a step reads: whole blocks spread evenly.

    Attributes
    ----------
    columns : numpy.ndarray of intp
        The columns read, in order.
    starts : numpy.ndarray of intp or None
        The first position of each run read in each of those columns (runs of
        ``run`` consecutive values); None for every row.
    run : int
        Values per run.
    description : str
        What the sample is, for the report.
    """

    columns: npt.NDArray[np.intp]
    starts: npt.NDArray[np.intp] | None
    run: int
    description: str

    @property
    def whole(self) -> bool:
        """Whether the sample is the whole table."""
        return self.starts is None

    def positions(self, runs: slice = slice(None)) -> npt.NDArray[np.intp] | slice:
        """Return the row positions of the runs ``runs`` (all rows, as a slice, if whole)."""
        if self.starts is None:
            return slice(None)
        picked = self.starts[runs]
        return (picked[:, None] + np.arange(self.run)).reshape(-1)

    def take(self, table: npt.NDArray[Any]) -> npt.NDArray[Any]:
        """Return the sampled values of ``table`` (shape ``(cols, rows)``) as a new array."""
        rows = self.positions()
        if isinstance(rows, slice):
            return table[self.columns]
        return table[np.ix_(self.columns, rows)]


def block_sample(shape: tuple[int, int], budget: int, *, block: int = MX_BLOCK) -> Sample:
    """Choose at most ``budget`` values of a ``(cols, rows)`` table, as whole blocks.

    Parameters
    ----------
    shape : (int, int)
        The table's shape, column-major: ``(cols, rows)``.
    budget : int
        Most values in the sample; a table of at most ``budget`` values is taken
        whole.
    block : int, optional
        Values per run: each column gives runs of ``block`` consecutive values that
        start on a multiple of ``block`` (blocks the MX formats scale together),
        evenly spaced from its first whole block to its last.

    Returns
    -------
    Sample
        The columns and positions to read; every column unless the table has more
        columns than the budget gives one run each (then evenly spaced columns).
    """
    cols, rows = shape
    total = cols * rows
    if total <= budget:
        return Sample(np.arange(cols), None, rows, f"all {_plural(total, 'value')}")
    run = max(1, min(block, rows))
    kept = np.arange(cols)
    if cols * run > budget:  # too many columns for one run each: spread the columns
        count = max(1, budget // run)
        kept = np.arange(count) * cols // count
    whole = max(1, rows // run)
    per_column = max(1, min(whole, budget // (run * kept.size)))
    starts = (np.arange(per_column) * whole // per_column) * run
    of_cols = (
        "its one column"
        if cols == 1
        else f"each of {_plural(cols, 'column')}"
        if kept.size == cols
        else f"{kept.size:,} evenly spaced columns of {cols:,}"
    )
    size = kept.size * per_column * run
    return Sample(
        kept,
        starts,
        run,
        f"a sample of {size:,} of the {total:,} values: {_plural(per_column, 'block')} of {run} "
        f"spread evenly through {of_cols}",
    )


def mx_errors(
    columns: npt.NDArray[Any],
    element: str,
    *,
    block: int = MX_BLOCK,
    sample: Sample | None = None,
) -> MXErrors:
    """Round-trip ``columns`` (shape ``(cols, rows)``) through an MX format, per column.

    Parameters
    ----------
    columns : numpy.ndarray, shape (cols, rows)
        The values, one column per row of the array (column-major table).
    element : str
        The element type's name (``"E4M3"``...).
    block : int, optional
        Values per E8M0 scale.
    sample : Sample, optional
        The values to round-trip (default: all), read :data:`MX_CHUNK` at a time; its
        runs must be whole blocks of ``block``.

    Returns
    -------
    MXErrors
        Per sampled column, the largest relative error of the values that read back
        finite and nonzero; and over them all, the number of nonzero finite values
        that read back as zero (too small beside their block's largest), that
        saturated, and that read back as NaN because their block holds a NaN or an
        infinity.
    """
    fmt = mx.scaled_dtype(element, block=block)
    cols, rows = columns.shape
    plan = sample or Sample(np.arange(cols), None, rows, "")
    step = max(block, min(CHUNK, MX_CHUNK) // block * block)
    runs = rows if plan.starts is None else plan.starts.size
    per_chunk = step if plan.starts is None else max(1, step // plan.run)
    stats = MXErrors(plan.columns.size)
    largest = float(ml_dtypes.finfo(sw.to_numpy_dtype(fmt.element)).max)  # type: ignore[no-untyped-call]
    with progress(
        plan.columns.size * runs * (1 if plan.starts is None else plan.run), element
    ) as bar:
        for k, c in enumerate(plan.columns):
            for part in _chunks(runs, per_chunk):  # runs are whole blocks, never split
                where = part if plan.starts is None else plan.positions(part)
                x = np.asarray(columns[c, where], dtype=np.float32)
                q = mx.quantize(x, fmt)
                back = mx.dequantize(q, fmt)
                with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
                    finite = np.isfinite(x) & (x != 0)
                    stats.lost_to_nan += int(np.count_nonzero(finite & np.isnan(back)))
                    stats.flushed += int(np.count_nonzero(finite & (back == 0)))
                    kept = finite & np.isfinite(back) & (back != 0)
                    rel = np.abs(back[kept] - x[kept]) / np.abs(x[kept])
                    scale = np.repeat(q.scales.astype(np.float32), block)[: x.size]
                    clamped = np.abs(x) > largest * scale  # beyond the block's range: clamped
                    stats.saturated += int(np.count_nonzero(clamped & finite))
                if rel.size:
                    stats.relative[k] = max(stats.relative[k], float(rel.max()))
                bar.update(x.size)
    return stats


def _microscale(columns: npt.NDArray[Any], names: tuple[str, ...], report: Report) -> None:
    sample = block_sample(columns.shape, MX_SAMPLE)
    names = tuple(names[k] for k in sample.columns)
    report.step("microscale", None, f"each OCP MX format round-trips {sample.description}")
    if not sample.whole:
        report.note(
            "the counts below are the sample's (a format's error on a block depends only "
            "on that block's values)"
        )
    for label, element in MX_FORMATS:
        with _timed() as t:
            stats = mx_errors(columns, element, sample=sample)
        bits = sw.SimpleDType.from_name(element).bits + 8 / MX_BLOCK
        worst = int(np.argmax(stats.relative))
        text = (
            f"{label}: {bits:.2f} bits/value, largest relative error "
            f"{stats.relative[worst]:.3g}"
            + (f" (column {names[worst]!r})" if len(names) > 1 else "")
        )
        extras = []
        if stats.flushed:
            extras.append(f"{_plural(stats.flushed, 'value')} flushed to zero by the block scale")
        if stats.saturated:
            extras.append(
                f"{_plural(stats.saturated, 'value')} too large for the element type, stored as "
                "its largest value"
            )
        if stats.lost_to_nan:
            extras.append(
                f"{_plural(stats.lost_to_nan, 'value')} read back as NaN (a block holding a NaN gets the NaN scale, as OCP MX says)"
            )
        report.step("microscale", t[0], "; ".join([text, *extras]))


# -- array API: a streamed PCA ---------------------------------------------------------


def _best_device(metal: bool) -> tuple[Any, str]:
    """Return the PCA's array-API device: Metal where MLX runs (and is wanted), else CPU."""
    import stridewave.array_api as xp

    if metal:
        from stridewave.carriers._mlx_runtime import runtime

        ok, why = runtime()
        if not ok:  # the reason in the few words `python -m stridewave info` gives
            return xp.Device("CPU"), f"CPU (no Metal here: {why})"
        where = os.environ.get("STRIDEWAVE_METAL_DEVICE", "gpu").strip().lower() or "gpu"
        return xp.Device("Metal"), f"Metal (MLX's {where} device)"
    return xp.Device("CPU"), "CPU (--no-metal)"


@dataclass
class PCAResult:
    """A PCA of the standardized columns, through the array API and by NumPy."""

    device: str
    rows: int
    columns: tuple[str, ...]
    singular: npt.NDArray[np.float64]
    reference: npt.NDArray[np.float64]
    left_out: tuple[str, ...]

    @property
    def difference(self) -> float:
        """Largest difference of the singular values from NumPy's, over NumPy's largest.

        Relative to the largest singular value, not to each: a rank-deficient table
        (a column a multiple of another) has singular values that are rounding noise,
        whose own relative differences are large and mean nothing.
        """
        scale = max(float(np.max(np.abs(self.reference))), float(np.finfo(np.float32).tiny))
        return float(np.max(np.abs(self.singular - self.reference))) / scale


def pca(
    columns: npt.NDArray[Any],
    names: tuple[str, ...],
    shift: npt.NDArray[np.float64],
    *,
    metal: bool = True,
    chunk: int | None = None,
) -> PCAResult | None:
    """PCA of the standardized columns through ``stridewave.array_api``, streamed.

    The complete rows (every value finite) are read a band at a time; each band goes
    to the array-API device as float32, is shifted and scaled per column (by the mean
    and standard deviation of the first complete rows, so that float32 sums neither
    cancel nor overflow nor underflow) and adds its Gram matrix ``X.T @ X`` and column
    sums to two small device arrays. The correlation matrix then comes from those
    (covariance scaled by the standard deviations, which undoes the scaling), and
    ``xp.linalg.svd`` gives its singular values: the variances of the principal
    components of the standardized columns. NumPy does the same in float64 on the same
    bands, as the reference.

    Parameters
    ----------
    columns : numpy.ndarray, shape (cols, rows)
        The table, column-major (any real dtype; read in bands).
    names : tuple of str
        One name per column.
    shift : numpy.ndarray of float64, shape (cols,)
        Values near the column means (NaN where a column has no value), the shift of a
        column that does not vary in the first complete rows.
    metal : bool, optional
        Whether to use the Metal device where MLX runs (else the CPU device).
    chunk : int, optional
        Values per band (default :data:`PCA_CHUNK`, or :data:`CHUNK` if smaller):
        memory beyond the table is a few bands.

    Returns
    -------
    PCAResult or None
        None when fewer than two rows are complete, no column varies, or the values
        are beyond what float32 sums can hold even so (the device's correlation matrix
        is not finite).
    """
    import stridewave.array_api as xp

    device, description = _best_device(metal)
    cols, rows = columns.shape
    band = max(1, (chunk or min(CHUNK, PCA_CHUNK)) // max(cols, 1))
    gram = xp.zeros((cols, cols), dtype=xp.float32, device=device)
    sums = xp.zeros((cols,), dtype=xp.float32, device=device)
    gram64 = np.zeros((cols, cols))
    sums64 = np.zeros(cols)
    count = 0
    center: npt.NDArray[np.float64] | None = None  # shift and scale, from the first rows
    scale = np.ones(cols)
    with progress(cols * rows, "pca") as bar:
        for start in range(0, rows, band):
            # a float64 copy of the band's complete rows, never a view of the table
            # that a device array could keep alive; float32 (C-ordered) on the device
            part = np.array(columns[:, start : start + band].T, dtype=np.float64)
            part = part[np.isfinite(part).all(axis=1)]
            bar.update(min(band, rows - start) * cols)
            if part.shape[0] == 0:
                continue
            if center is None:
                center = np.where(np.isfinite(shift), shift, 0.0)
                if part.shape[0] > 1:
                    center = part.mean(axis=0)
                    spread = part.std(axis=0)
                    scale = np.where((spread > 0) & np.isfinite(spread), spread, 1.0)
            wide = (part - center) / scale
            count += wide.shape[0]
            x = xp.asarray(np.ascontiguousarray(wide, dtype=np.float32), device=device)
            gram = gram + xp.matmul(xp.matrix_transpose(x), x)
            sums = sums + xp.sum(x, axis=0)
            gram64 += wide.T @ wide
            sums64 += wide.sum(axis=0)
    if count < 2:
        return None
    n = float(count)
    covariance = (gram - xp.reshape(sums, (cols, 1)) * xp.reshape(sums, (1, cols)) / n) / (n - 1)
    covariance64 = (gram64 - np.outer(sums64, sums64) / n) / (n - 1)
    spread64 = np.sqrt(np.diag(covariance64))
    keep = np.flatnonzero(spread64 > 0)
    if keep.size == 0:
        return None
    kept = xp.asarray(keep.astype(np.int32), device=device)
    covariance = xp.take(xp.take(covariance, kept, axis=0), kept, axis=1)
    spread = xp.sqrt(xp.linalg.diagonal(covariance))
    correlation = covariance / (xp.reshape(spread, (-1, 1)) * xp.reshape(spread, (1, -1)))
    if not bool(xp.all(xp.isfinite(correlation))):
        return None  # float32 could not hold the sums (an SVD of them would fail)
    singular = xp.linalg.svd(correlation, full_matrices=False)[1]
    host = np.asarray(singular.to_device(xp.Device("CPU")), dtype=np.float64)
    sub = covariance64[np.ix_(keep, keep)]
    reference = np.linalg.svd(sub / np.outer(spread64[keep], spread64[keep]), compute_uv=False)
    return PCAResult(
        description,
        count,
        tuple(names[k] for k in keep),
        host,
        reference,
        tuple(names[k] for k in range(cols) if k not in set(keep.tolist())),
    )


def _pca_step(
    columns: npt.NDArray[Any],
    names: tuple[str, ...],
    shift: npt.NDArray[np.float64],
    metal: bool,
    report: Report,
) -> None:
    if len(names) > PCA_MAX_COLUMNS:
        report.step(
            "pca",
            0.0,
            f"skipped: {len(names):,} columns, more than the {PCA_MAX_COLUMNS:,} it takes "
            f"(the correlation matrix would hold {len(names) ** 2:,} values)",
        )
        return
    with _timed() as t:
        result = pca(columns, names, shift, metal=metal)
    if result is None:
        report.step(
            "pca",
            t[0],
            "skipped: fewer than two complete rows, no column varies, or values beyond "
            "what float32 sums hold",
        )
        return
    share = 100 * result.singular / result.singular.sum()
    shown = ", ".join(f"{v:.3g}%" for v in share[:4]) + (", ..." if share.size > 4 else "")
    report.step(
        "pca",
        t[0],
        f"stridewave.array_api on {result.device}: {_plural(len(result.columns), 'column')} "
        f"standardized ({_plural(result.rows, 'complete row')}), Gram matrix summed a band "
        f"at a time, xp.linalg.svd of the correlation matrix; variance explained: {shown}",
    )
    report.note(
        f"largest difference of the singular values from NumPy's (float64), relative to "
        f"the largest: {result.difference:.2g} (float32 on the device)"
        + (f"; left out, constant: {', '.join(result.left_out)}" if result.left_out else "")
    )


# -- metal ----------------------------------------------------------------------------


def _metal_step(
    evictable: sw.Evictable, dtype: sw.SimpleDType, expected: str, report: Report
) -> None:
    """Copy the values into a Metal carrier, release the Evictable, and check the copy.

    The values go to the Metal carrier from the Evictable's file tier (evicted first,
    so the memory tier is gone), and the Evictable is released before the check, so
    that at most two copies of the data (the file's pages and the device array, then
    the device array and its NumPy snapshot) are resident at once.
    """
    try:
        with _timed() as t:
            empty = sw.Metal(0, dtype=dtype)  # raises before anything moves if no runtime
            evictable.evict()
            flat = np.asarray(evictable).reshape(-1)
            metal = empty.new_like(flat)
            del flat
            evictable.release()
            ok = checksum(np.asarray(metal), label="metal") == expected
        device = os.environ.get("STRIDEWAVE_METAL_DEVICE", "gpu")
        report.step(
            "metal",
            t[0],
            f"{_describe(metal)} on MLX's {device} device; "
            f"values identical: {'yes' if ok else 'NO'}",
        )
        metal.release()
    except RuntimeError as exc:
        report.step("metal", None, f"skipped: {str(exc).splitlines()[0]}")


# -- the job --------------------------------------------------------------------------


def run_demo(
    table: Table,
    *,
    out: TextIO = sys.stdout,
    metal: bool = True,
    read_seconds: float = 0.0,
    plot: str | None = None,
) -> bool:
    """Run the demo's steps on ``table`` and print the report.

    Parameters
    ----------
    table : Table
        The loaded values, shape ``(rows, columns)``; released (unmapped) once they
        are in the carrier.
    out : text stream, optional
        Where the report goes.
    metal : bool, optional
        Whether to try the Metal step (skipped with a reason where no runtime exists).
    read_seconds : float, optional
        Time already spent opening/reading the file, counted in the load step.
    plot : str, optional
        Where to write a PNG of the microscaling error against block size and a
        histogram of the data (needs matplotlib).

    Returns
    -------
    bool
        True when the transpose matched, every value survived eviction and
        promotion, and the PNG (if asked for) was written.
    """
    started = time.perf_counter() - read_seconds
    report = Report(out)
    rows, cols = table.values.shape
    names = table.columns
    print(
        f"StrideWeave {sw.__version__} demo: {table.source}\n"
        f"  {_plural(rows, 'row')} x {_plural(cols, 'column')} "
        f"({', '.join(names[:6])}{', ...' if cols > 6 else ''}), "
        f"{table.values.dtype}",
        file=out,
    )

    with _timed() as t:
        dtype = storage_dtype_for(table.values)
        loaded = _load(table, dtype)
    carrier = loaded.carrier
    source_dtype = table.values.dtype
    table.release()  # unmaps a memory-mapped file: the carrier holds the values now
    report.step(
        "load",
        t[0] - loaded.check_seconds + read_seconds,
        f"{_describe(carrier)}, column-major ({cols} x {rows}), streamed in chunks of "
        f"{CHUNK:,} values",
    )
    for note in table.notes:
        report.note(f"read: {note}")
    _report_narrowing(source_dtype, names, dtype, loaded.narrowing, report)
    report.step(
        "transpose",
        loaded.check_seconds,
        f"done by the load's strided scatters, mapping strides (1, {rows}); "
        f"matches numpy .T: {'yes' if loaded.matches_transpose else 'NO'}",
    )

    with _timed() as t:
        view = np.asarray(carrier)
        shares = np.shares_memory(view, carrier._raw_array())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            means = _column_means(view.reshape(cols, rows))
    report.step(
        "view",
        t[0],
        f"numpy.asarray(carrier): {view.dtype} {view.shape}, zero-copy: "
        f"{'yes' if shares else 'no'}, writeable: {'yes' if view.flags.writeable else 'no'}",
    )
    del view  # a view left alive would keep the evicted tier's memory
    summary = ", ".join(
        f"{name}={mean:.6g}" for name, mean in zip(names[:4], means[:4], strict=True)
    ) + (", ..." if cols > 4 else "")
    report.note(f"column means (NaN skipped): {summary}")

    with _timed() as t_before:
        before = checksum(np.asarray(carrier))
    with _timed() as t:
        secondary = sw.FileBacked(dtype=dtype)
        evictable = sw.Evictable(carrier, secondary)
        evictable.evict()
    on_disk = os.path.getsize(secondary.path)
    report.step("evict", t[0], f"CPU -> FileBacked: {on_disk:,} bytes in {secondary.path}")
    with _timed() as t:
        evictable.promote()
    report.step("promote", t[0], "FileBacked -> CPU")
    with _timed() as t_after:
        after = checksum(np.asarray(evictable))
    survived = before == after
    report.step(
        "checksum",
        t_before[0] + t_after[0],
        f"SHA-256 before eviction {before[:16]}..., after promotion {after[:16]}...: "
        f"{'every value survived' if survived else 'VALUES CHANGED'}",
    )

    columns = np.asarray(evictable).reshape(cols, rows)
    plot_ok = True
    _microscale(columns, names, report)
    _pca_step(columns, names, means, metal, report)
    if plot is not None:
        from stridewave.cli._plot import write_plot

        with _timed() as t:
            try:
                what = write_plot(plot, columns, names, table.source)
            except OSError as exc:  # a path the check before the run could not foresee
                what = None
                print(
                    f"stridewave demo: error: --plot {plot}: {exc.strerror or exc}", file=sys.stderr
                )
        if what is None:
            report.step("plot", t[0], f"could not write {plot}")
            plot_ok = False
        else:
            report.step("plot", t[0], f"wrote {plot} ({what})")
    del columns

    if metal:
        _metal_step(evictable, dtype, after, report)
    evictable.release()  # idempotent: the Metal step may have released it already
    wall = time.perf_counter() - started
    report.step(
        "total", report.total, f"sum of the steps; wall time of the demo {wall * 1e3:,.2f} ms"
    )
    return survived and loaded.matches_transpose and plot_ok
