"""Load a numeric data file for ``python -m stridewave demo``.

Formats:

- ``.npy``: checked from its header first (dtype, and that the file really holds the
  bytes its shape claims), then *mapped* read-only (``numpy.load(mmap_mode="r")``):
  nothing is read until the demo streams through it;
- ``.npz``: its first member, which must be a ``.npy`` array (read into memory);
- ``.csv``: read by pandas (missing values ``NA`` or empty, ``#`` comment lines, the
  delimiter sniffed among ``,`` ``;`` tab ``|``, a header row detected, numpy.savetxt's
  ``# a,b`` header understood, ``YYYYMMDD`` date columns read as dates and stored as
  decimal years, other non-numeric columns such as ISO dates skipped);
- anything else with ``--dtype``: raw binary of one NumPy dtype, mapped read-only.

Every failure is a :class:`DataFileError` whose message is one printable line saying
what was wrong and how to fix it: text from the file (column names, field values) is
shown with control characters escaped, never raw.
"""

from __future__ import annotations

import csv
import io
import re
import warnings
import zipfile
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import IO, Any

import numpy as np
import numpy.typing as npt
from numpy.lib import format as npy_format

#: The data set shipped inside the package (public domain; see ``docs/demo.md``).
SHIPPED_DATA = "co2_mauna_loa_weekly.csv"
#: Bytes of a CSV file read to sniff its delimiter and detect its header.
_SNIFF_BYTES = 64 * 1024
#: Delimiters the CSV sniffer chooses among.
_DELIMITERS = ",;\t|"


class DataFileError(ValueError):
    """A data file that cannot be loaded; the message is one line for the user."""


def printable(text: str) -> str:
    r"""Return ``text`` with every non-printable character escaped (``\x1b``, ``\n``...).

    Parameters
    ----------
    text : str
        Any text, e.g. a column name read from a file.

    Returns
    -------
    str
        The same text on one line, safe to print on a terminal: control and format
        characters (terminal escape sequences, newlines, bidirectional overrides)
        appear as Python escapes.
    """
    return "".join(
        c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text
    )


@dataclass
class Table:
    """A numeric table loaded from a file.

    Attributes
    ----------
    values : numpy.ndarray
        Numeric array of shape ``(rows, columns)``: a 1-D input becomes one column, an
        N-D input ``(shape[0], rest)``. For ``.npy`` and raw files it is a read-only
        memory map (``numpy.memmap``); call :meth:`release` to unmap it.
    columns : tuple of str
        One printable name per column (``col0``, ``col1``... where the file has none).
    source : str
        Where the data came from, for the report (printable).
    notes : list of str
        One line per thing the reader did that the user should know (a sniffed
        delimiter, skipped comment lines or columns, missing values).
    """

    values: npt.NDArray[Any]
    columns: tuple[str, ...]
    source: str
    notes: list[str] = field(default_factory=list)

    def release(self) -> None:
        """Drop the values (unmapping a mapped file once no view of it is left)."""
        self.values = np.empty((0, len(self.columns)))


def _as_table(
    array: npt.NDArray[Any],
    source: str,
    columns: tuple[str, ...] = (),
    notes: list[str] | None = None,
) -> Table:
    if array.dtype.kind not in "biuf":
        raise DataFileError(
            f"{source}: holds {array.dtype} values; the demo needs a numeric array "
            "(bool, integer or floating)"
        )
    if array.size == 0:
        raise DataFileError(f"{source}: holds no values; give a file with at least one number")
    notes = list(notes or [])
    if array.ndim == 0:
        array = array.reshape(1, 1)
    elif array.ndim == 1:
        array = array.reshape(-1, 1)
    elif array.ndim > 2:  # a view for C- and Fortran-ordered maps alike: no copy
        shape = array.shape
        fortran = array.flags.f_contiguous and not array.flags.c_contiguous
        array = array.reshape(array.shape[0], -1, order="A")
        rows, cols = array.shape
        notes.append(
            f"a {len(shape)}-D array of shape {shape}: read as {rows:,} row{'s' * (rows != 1)}"
            f" x {cols:,} column{'s' * (cols != 1)}, the axes after the first flattened in "
            + ("the file's column-major (Fortran) order" if fortran else "row-major order")
        )
    names = columns or tuple(f"col{k}" for k in range(array.shape[1]))
    dated = _date_like_columns(array)
    if dated:
        shown = ", ".join(
            f"{printable(names[column])!r} ({first} to {last})" for column, first, last in dated[:3]
        ) + (f" and {len(dated) - 3:,} more" if len(dated) > 3 else "")
        notes.append(
            f"{'column' if len(dated) == 1 else 'columns'} {shown}: YYYYMMDD dates in the "
            "first rows, read as plain numbers (this file has no date type; their mean is "
            "no date). Save dates as decimal years, or give a CSV file, whose YYYYMMDD "
            "columns are read as dates"
        )
    return Table(array, tuple(printable(n) for n in names), printable(source), notes)


#: How many leading values of a column (at most) and how many columns the date check
#: reads: a bounded sample of any file, however large.
_DATE_SAMPLE_VALUES = 1 << 16
_DATE_SAMPLE_COLUMNS = 256


def _date_like_columns(table: npt.NDArray[Any]) -> list[tuple[int, int, int]]:
    """Return ``(column, first, last)`` for each column whose leading values are dates.

    A column is date-like when its first values (at least two present, NaN skipped)
    are all integers ``YYYYMMDD`` naming valid calendar dates from year 1000 to 2999;
    ``first`` and ``last`` are the smallest and largest of them. Reads at most
    :data:`_DATE_SAMPLE_VALUES` values of each of the first
    :data:`_DATE_SAMPLE_COLUMNS` columns of a ``(rows, columns)`` table.
    """
    if table.dtype.kind not in "iuf" or table.shape[0] < 2:
        return []
    columns = min(table.shape[1], _DATE_SAMPLE_COLUMNS)
    rows = min(table.shape[0], max(2, _DATE_SAMPLE_VALUES // columns))
    sample = np.asarray(table[:rows, :columns], dtype=np.float64)
    present = np.isfinite(sample)
    # missing values stand in as a valid date; each test then holds column-wise
    values = np.where(present, sample, 20_000_101.0)
    plausible = np.all(
        (values == np.floor(values)) & (values >= 10_000_101) & (values <= 29_991_231), axis=0
    )
    dates = np.where(plausible, values, 20_000_101.0).astype(np.int64)
    year, month, day = dates // 10_000, dates // 100 % 100, dates % 100
    # every timedelta names its unit (NumPy 2.5 deprecates the generic one of a bare int)
    first_of_month = ((year - 1970) * 12 + np.clip(month, 1, 12) - 1).astype("datetime64[M]")
    next_month = (first_of_month + np.timedelta64(1, "M")).astype("datetime64[D]")
    length = next_month - first_of_month.astype("datetime64[D]")
    calendar = (month >= 1) & (month <= 12) & (day >= 1) & (day <= length.astype(np.int64))
    found = np.flatnonzero(plausible & np.all(calendar, axis=0) & (present.sum(axis=0) >= 2))
    first = np.where(present, dates, np.iinfo(np.int64).max).min(axis=0)
    last = np.where(present, dates, 0).max(axis=0)
    return [(int(k), int(first[k]), int(last[k])) for k in found]


def _check_dtype(dtype: np.dtype[Any], source: str) -> None:
    if dtype.kind == "f" and dtype.itemsize > 8:
        raise DataFileError(
            f"{source}: holds {dtype} (extended precision) values, which the demo does not "
            "read; convert them with numpy.save(path, a.astype(numpy.float64))"
        )
    if dtype.kind not in "biuf" or dtype.shape != () or dtype.fields is not None:
        raise DataFileError(
            f"{source}: holds {dtype} values; the demo needs a numeric array "
            "(bool, integer or floating)"
        )


def _read_npy_header(file: IO[bytes], source: str) -> tuple[tuple[int, ...], np.dtype[Any], int]:
    """Return (shape, dtype, data bytes expected) from a .npy header, validated."""
    try:
        version = npy_format.read_magic(file)
        if version == (1, 0):
            shape, _fortran, dtype = npy_format.read_array_header_1_0(file)
        elif version in ((2, 0), (3, 0)):
            shape, _fortran, dtype = npy_format.read_array_header_2_0(file)
        else:  # pragma: no cover - read_magic refuses other versions itself
            raise ValueError(f"unknown .npy format version {version}")
    except (ValueError, OSError, EOFError, SyntaxError, UnicodeDecodeError) as exc:
        raise DataFileError(
            f"{source}: not a readable .npy file ({exc}); save it with numpy.save"
        ) from None
    if dtype.hasobject:
        raise DataFileError(
            f"{source}: holds Python objects (loading them would need pickle, which the "
            "demo never uses); save a numeric array instead"
        )
    _check_dtype(dtype, source)
    count = 1
    for extent in shape:
        count *= int(extent)
    return tuple(shape), dtype, count * dtype.itemsize


def _claims_too_much(source: str, shape: tuple[int, ...], dtype: Any, need: int, have: int) -> str:
    return (
        f"{source}: its header claims shape {shape} of {dtype} ({need:,} bytes of data) but "
        f"the file holds {have:,}; it is truncated or corrupt, so save it again with numpy.save"
    )


def _load_npy(path: Path) -> Table:
    with path.open("rb") as file:
        if file.read(6) != b"\x93NUMPY":
            raise DataFileError(
                f"{path}: not a .npy file (it does not start with NumPy's header); save it "
                "with numpy.save, or give a raw binary file with --dtype"
            )
        file.seek(0)
        shape, dtype, need = _read_npy_header(file, str(path))
        have = path.stat().st_size - file.tell()
    if need > have:
        raise DataFileError(_claims_too_much(str(path), shape, dtype, need, have))
    if need == 0:
        raise DataFileError(f"{path}: holds no values; give a file with at least one number")
    try:
        array = np.load(path, mmap_mode="r", allow_pickle=False)
    except (ValueError, OSError) as exc:
        raise DataFileError(f"{path}: not a readable .npy file ({exc})") from None
    return _as_table(array, str(path))


def _load_npz(path: Path) -> Table:
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
            if not members:
                raise DataFileError(f"{path}: the .npz archive holds no arrays")
            first = members[0]
            name = first.filename
            source = f"{path} (array {name.removesuffix('.npy')!r})"
            if not name.endswith(".npy"):
                raise DataFileError(
                    f"{path}: the archive member {name!r} is not a .npy array; save the "
                    "arrays with numpy.savez"
                )
            with archive.open(first) as member:
                if member.read(6) != b"\x93NUMPY":
                    raise DataFileError(
                        f"{source}: the member is not a .npy array (no NumPy header); save "
                        "the arrays with numpy.savez"
                    )
            with archive.open(first) as member:
                shape, dtype, need = _read_npy_header(member, source)
                have = first.file_size - member.tell()
            if need > have:
                raise DataFileError(_claims_too_much(source, shape, dtype, need, have))
            with archive.open(first) as member:
                array = npy_format.read_array(member, allow_pickle=False)
    except (ValueError, OSError, EOFError, zipfile.BadZipFile, KeyError) as exc:
        if isinstance(exc, DataFileError):
            raise
        raise DataFileError(
            f"{path}: not a readable .npz file ({exc}); give an archive saved with "
            "numpy.savez(path, values) or numpy.savez_compressed, or the array itself as a "
            ".npy file (numpy.save)"
        ) from None
    return _as_table(array, source)


# -- CSV ----------------------------------------------------------------------------


def _is_number(field_text: str) -> bool:
    try:
        float(field_text)
    except ValueError:
        return False
    return True


@dataclass
class _CsvLayout:
    delimiter: str
    header: bool
    names: list[str] | None  # numpy.savetxt's "# a,b" header, else None
    decimal: str
    notes: list[str]


def _sniff_csv(sample: str, source: str) -> _CsvLayout:
    """Detect delimiter, header row and decimal mark from the start of a CSV file."""
    lines = [line for line in sample.splitlines() if line.strip()]
    data = [line for line in lines if not line.lstrip().startswith("#")]
    if not data:
        raise DataFileError(f"{source}: the CSV file is empty; give at least one row of numbers")
    try:
        delimiter = csv.Sniffer().sniff("\n".join(data[:50]), delimiters=_DELIMITERS).delimiter
    except csv.Error:
        delimiter = ","  # one column, or nothing consistent: the CSV default
    notes = []
    if delimiter != ",":
        notes.append(f"delimiter {delimiter!r} detected")
    decimal = "."
    if delimiter == ";" and re.search(r"\d,\d", "\n".join(data[:50])):
        decimal = ","
        notes.append("decimal comma detected")

    def fields(line: str) -> list[str]:
        row = next(csv.reader([line], delimiter=delimiter, skipinitialspace=True), [])
        return [f.strip().replace(decimal, ".") if decimal == "," else f.strip() for f in row]

    first = fields(data[0])
    header = not all(_is_number(f) or f in ("", "NA", "NaN", "nan") for f in first)
    names = None
    if not header and lines[0].lstrip().startswith("#"):  # numpy.savetxt's header comment
        candidate = fields(lines[0].lstrip()[1:])
        if len(candidate) == len(first) and not all(_is_number(f) for f in candidate):
            names = candidate
    return _CsvLayout(delimiter, header, names, decimal, notes)


def _count_comment_lines(text_source: Path | str) -> int:
    if isinstance(text_source, Path):
        count = 0
        with text_source.open("rb") as file:
            at_line_start = True
            while chunk := file.read(1 << 20):
                count += chunk.count(b"\n#") + (1 if at_line_start and chunk[:1] == b"#" else 0)
                at_line_start = chunk.endswith(b"\n")
        return count
    return sum(1 for line in text_source.splitlines() if line.startswith("#"))


def _decimal_years(series: Any) -> Any:
    """Return a column of ``YYYYMMDD`` dates as decimal years (a pandas Series), else None.

    A column is date-like when every value present is an integer of eight digits that
    is a valid calendar date from year 1000 to 2999 (``19580329``), and there are at
    least two such values. Stored as a number, such a date is neither a quantity (its
    mean or its rounding to Float32 mean nothing) nor exact in Float32 (24-bit
    significand); as a decimal year (``1958.238``) it is a time axis that Float32 holds
    to within an hour. The result's ``attrs`` hold the first and last date (ISO).
    """
    import pandas as pd

    present = series.dropna()
    if len(present) < 2 or series.dtype.kind not in "iuf":
        return None
    values = present.to_numpy()
    if series.dtype.kind == "f" and not np.all(values == np.floor(values)):
        return None
    if values.min() < 10_000_101 or values.max() > 29_991_231:
        return None
    dates = pd.to_datetime(present.astype(np.int64).astype(str), format="%Y%m%d", errors="coerce")
    if dates.isna().any():
        return None
    # Day arithmetic in NumPy with explicit units (NumPy 2.5 deprecates the generic
    # timedelta unit of bare integers).
    days = dates.to_numpy().astype("datetime64[D]")
    year_start = days.astype("datetime64[Y]")
    start = year_start.astype("datetime64[D]")
    length = (year_start + np.timedelta64(1, "Y")).astype("datetime64[D]") - start
    day_of_year = (days - start) / np.timedelta64(1, "D")
    years = pd.Series(np.nan, index=series.index, dtype=np.float64)
    years[present.index] = (
        year_start.astype(np.int64) + 1970 + day_of_year / (length / np.timedelta64(1, "D"))
    )
    years.attrs["first"] = dates.min().date().isoformat()
    years.attrs["last"] = dates.max().date().isoformat()
    return years


def _read_csv(text_source: Path | str, source: str) -> Table:
    try:
        import pandas as pd
    except ImportError:  # pandas is a dependency; a --no-deps install may lack it
        raise DataFileError(
            f"{source}: reading CSV files needs pandas, which is not installed; "
            "run: python -m pip install pandas"
        ) from None
    if isinstance(text_source, Path):
        try:
            with text_source.open(encoding="utf-8-sig", errors="strict") as file:
                sample = file.read(_SNIFF_BYTES)
        except (OSError, UnicodeDecodeError) as exc:
            raise DataFileError(f"{source}: cannot read it as UTF-8 text ({exc})") from None
    else:
        sample = text_source[:_SNIFF_BYTES]
    layout = _sniff_csv(sample, source)
    notes = layout.notes
    comments = _count_comment_lines(text_source) - (1 if layout.names else 0)
    if comments:
        notes.append(f"{comments:,} comment line{'s' * (comments != 1)} (#) skipped")
    options: dict[str, Any] = {
        "sep": layout.delimiter,
        "comment": "#",
        "header": 0 if layout.header else None,
        "index_col": False,
        "skipinitialspace": True,
        "decimal": layout.decimal,
        "encoding": "utf-8-sig",
        "skip_blank_lines": True,
    }
    if layout.names:
        options["names"] = layout.names
    buffer: Any = text_source if isinstance(text_source, Path) else io.StringIO(text_source)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            frame = pd.read_csv(buffer, **options)
    except pd.errors.ParserWarning:
        raise DataFileError(
            f"{source}: the rows have more fields than the header has names; give every "
            "column a name in the header row"
        ) from None
    except pd.errors.EmptyDataError:
        raise DataFileError(
            f"{source}: the CSV file is empty; give at least one row of numbers"
        ) from None
    except (pd.errors.ParserError, ValueError, UnicodeDecodeError) as exc:
        why = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
        raise DataFileError(
            f"{source}: not a readable CSV file ({printable(why)}); give a text file of "
            "comma-separated numbers, one row per line with the same number of fields in "
            "each (an optional header row of names, # comment lines), e.g. saved with "
            "numpy.savetxt(path, values, delimiter=',') or DataFrame.to_csv(path, index=False)"
        ) from None
    if frame.shape[0] == 0:
        raise DataFileError(f"{source}: the CSV file has a header but no rows of numbers")
    names = [str(c) if layout.header or layout.names else f"col{c}" for c in frame.columns]
    kept: list[str] = []
    arrays: list[npt.NDArray[Any]] = []
    for position, (name, column) in enumerate(zip(names, frame.columns, strict=True)):
        series = frame[column]
        years = _decimal_years(series)
        if years is not None:
            first, last = years.attrs["first"], years.attrs["last"]
            in_years = float(years.dropna().iloc[0])
            notes.append(
                f"column {printable(name)!r} read as dates (YYYYMMDD, {first} to {last}) and "
                f"stored as decimal years (e.g. {in_years:.2f}), which Float32 keeps to within "
                "an hour"
            )
            kept.append(name)
            arrays.append(years.to_numpy(dtype=np.float64))
            continue
        if series.dtype.kind in "biuf":
            kept.append(name)
            arrays.append(series.to_numpy())
            continue
        present = series.dropna()
        if present.empty:  # nothing but missing values: a column of NaN
            kept.append(name)
            arrays.append(np.full(len(series), np.nan))
            continue
        numbers = pd.to_numeric(present, errors="coerce")
        if np.isnan(numbers.iloc[0]):  # not numeric from its first value on: dates, labels
            example = printable(str(present.iloc[0]))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # pandas guessing a date format
                dates = pd.to_datetime(present, errors="coerce")
            what = "holds dates" if not dates.isna().any() else "not numeric"
            notes.append(f"column {printable(name)!r} left out: {what} (e.g. {example!r})")
            continue
        bad = present[numbers.isna()]
        if not bad.empty:
            row = int(bad.index[0]) + 1
            raise DataFileError(
                f"{source}: data row {row}, column {position + 1} ({printable(name)!r}) holds "
                f"{printable(str(bad.iloc[0]))!r}, which is not a number"
            )
        kept.append(name)
        arrays.append(pd.to_numeric(series, errors="coerce").to_numpy(dtype=np.float64))
    if not arrays:
        raise DataFileError(f"{source}: no numeric column; the demo needs numbers")
    if all(a.dtype.kind in "biu" for a in arrays):
        values = np.column_stack([a.astype(np.int64) for a in arrays])
    else:
        values = np.column_stack([a.astype(np.float64) for a in arrays])
    missing = int(np.isnan(values).sum()) if values.dtype.kind == "f" else 0
    if missing:
        notes.append(f"{missing:,} missing value{'s' * (missing != 1)} (NA or empty) read as NaN")
    return _as_table(values, source, tuple(kept), notes)


# -- raw ------------------------------------------------------------------------------


def _load_raw(path: Path, dtype: str) -> Table:
    try:
        np_dtype = np.dtype(dtype)
    except (TypeError, ValueError, SyntaxError):
        np_dtype = None
    if np_dtype is None or np_dtype.kind not in "biuf" or np_dtype.shape != ():
        raise DataFileError(
            f"--dtype {printable(dtype)!r} is not a numeric NumPy scalar dtype; use e.g. "
            "float32, <f4, int32 or uint8"
        )
    _check_dtype(np_dtype, f"--dtype {dtype}")
    size = path.stat().st_size
    if np_dtype.itemsize == 0 or size % np_dtype.itemsize:
        raise DataFileError(
            f"{path}: {size} bytes is not a whole number of {np_dtype} items "
            f"({np_dtype.itemsize} bytes each); check --dtype"
        )
    if size == 0:
        raise DataFileError(f"{path}: holds no values; give a file with at least one number")
    return _as_table(np.memmap(path, dtype=np_dtype, mode="r"), f"{path} (raw {np_dtype})")


def load_table(path: str | None, *, dtype: str | None = None) -> Table:
    """Load a numeric table from ``path``, or the shipped data set when ``path`` is None.

    Parameters
    ----------
    path : str or None
        A ``.npy``, ``.npz`` or ``.csv`` file, or any file read as raw binary when
        ``dtype`` is given; None loads the shipped Mauna Loa CO2 data set.
    dtype : str, optional
        NumPy dtype of a raw binary file (e.g. ``"<f4"``); required for files with
        another suffix.

    Returns
    -------
    Table
        The values as a 2-D array of shape ``(rows, columns)`` (a read-only memory
        map for ``.npy`` and raw files), with column names and the reader's notes.

    Raises
    ------
    DataFileError
        If the file is missing, unreadable, malformed, truncated, empty or not
        numeric; the message is one printable line naming the file and the fix.
    """
    if path is None:
        text = resources.files("stridewave.cli.data").joinpath(SHIPPED_DATA).read_text()
        return _read_csv(text, f"shipped data set {SHIPPED_DATA}")
    file = Path(path)
    if not file.exists():
        raise DataFileError(
            f"{file}: no such file; check the path (the demo reads a .npy, .npz or .csv "
            "file, or a raw binary file with --dtype)"
        )
    if not file.is_file():
        raise DataFileError(f"{file}: not a regular file")
    suffix = file.suffix.lower()
    if dtype is not None:
        if suffix in (".npy", ".npz", ".csv"):
            raise DataFileError(
                f"{file}: a {suffix} file carries its own types; --dtype is for raw "
                "binary files only, so drop it"
            )
        return _load_raw(file, dtype)
    if suffix == ".npy":
        return _load_npy(file)
    if suffix == ".npz":
        return _load_npz(file)
    if suffix == ".csv":
        return _read_csv(file, str(file))
    raise DataFileError(
        f"{file}: unknown suffix {suffix or '(none)'!r}; give a .npy, .npz or .csv file, "
        "or a raw binary file with --dtype (e.g. --dtype float32)"
    )
