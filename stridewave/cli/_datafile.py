"""Load a numeric data file for ``python -m stridewave demo``.

Formats: ``.npy`` and ``.npz`` (NumPy's own, loaded without pickle), ``.csv`` (a header
row of column names is detected; empty fields read as NaN), and raw binary files of
one NumPy dtype given by ``--dtype``. Every failure is a :class:`DataFileError` whose
message is one line saying what was wrong and how to fix it.
"""

from __future__ import annotations

import csv
import io
import zipfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np
import numpy.typing as npt

#: The data set shipped inside the package (public domain; see ``docs/demo.md``).
SHIPPED_DATA = "co2_mauna_loa_weekly.csv"


class DataFileError(ValueError):
    """A data file that cannot be loaded; the message is one line for the user."""


@dataclass(frozen=True)
class Table:
    """A numeric table loaded from a file.

    Attributes
    ----------
    values : numpy.ndarray
        ``float64`` or integer array of shape ``(rows, columns)``; a 1-D input becomes
        one column.
    columns : tuple of str
        One name per column (``col0``, ``col1``... where the file has none).
    source : str
        Where the data came from, for the report.
    """

    values: npt.NDArray[np.generic]
    columns: tuple[str, ...]
    source: str


def _as_table(array: npt.NDArray[np.generic], source: str, columns: tuple[str, ...] = ()) -> Table:
    if array.dtype.kind not in "biuf":
        raise DataFileError(
            f"{source}: holds {array.dtype} values; the demo needs a numeric array "
            "(bool, integer or floating)"
        )
    if array.size == 0:
        raise DataFileError(f"{source}: holds no values; give a file with at least one number")
    if array.ndim == 0:
        array = array.reshape(1, 1)
    elif array.ndim == 1:
        array = array.reshape(-1, 1)
    elif array.ndim > 2:
        array = array.reshape(array.shape[0], -1)
    if array.size == 0:
        raise DataFileError(f"{source}: holds no values; give a file with at least one number")
    names = columns or tuple(f"col{k}" for k in range(array.shape[1]))
    return Table(np.ascontiguousarray(array), names, source)


def _load_npy(path: Path) -> Table:
    with path.open("rb") as file:
        magic = file.read(6)
    if magic != b"\x93NUMPY":
        raise DataFileError(
            f"{path}: not a .npy file (it does not start with NumPy's header); save it "
            "with numpy.save, or give a raw binary file with --dtype"
        )
    try:
        array = np.load(path, allow_pickle=False)
    except (ValueError, OSError, EOFError) as exc:
        raise DataFileError(f"{path}: not a readable .npy file ({exc})") from None
    return _as_table(array, str(path))


def _load_npz(path: Path) -> Table:
    try:
        with np.load(path, allow_pickle=False) as archive:
            names = list(archive.files)
            if not names:
                raise DataFileError(f"{path}: the .npz archive holds no arrays")
            array = archive[names[0]]
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
        raise DataFileError(f"{path}: not a readable .npz file ({exc})") from None
    return _as_table(array, f"{path} (array {names[0]!r})")


def _parse_csv(text: str, source: str) -> Table:
    rows = [row for row in csv.reader(io.StringIO(text)) if row and any(f.strip() for f in row)]
    if not rows:
        raise DataFileError(f"{source}: the CSV file is empty; give at least one row of numbers")
    header: tuple[str, ...] = ()
    try:
        [float(f) for f in rows[0] if f.strip()]
    except ValueError:
        names = [f.strip() for f in rows[0]]
        if names and names[0].startswith("#"):  # numpy.savetxt's default header comment
            names[0] = names[0].lstrip("#").strip()
        header = tuple(names)
        rows = rows[1:]
    width = len(header) if header else len(rows[0]) if rows else 0
    if not rows:
        raise DataFileError(f"{source}: the CSV file has a header but no rows of numbers")
    try:  # the fast path: NumPy's C parser, for files with no empty or bad fields
        fast = np.loadtxt(
            io.StringIO(text), delimiter=",", skiprows=1 if header else 0, ndmin=2, comments=None
        )
    except ValueError:
        pass  # below: the field-by-field parse that reads empty fields as NaN
    else:
        return _as_table(fast, source, header)
    values = np.empty((len(rows), width), dtype=np.float64)
    for r, row in enumerate(rows):
        if len(row) != width:
            raise DataFileError(
                f"{source}: line {r + 1 + bool(header)} has {len(row)} fields, expected {width}"
            )
        for c, field in enumerate(row):
            field = field.strip()
            try:
                values[r, c] = float(field) if field else np.nan
            except ValueError:
                raise DataFileError(
                    f"{source}: line {r + 1 + bool(header)}, column {c + 1} holds {field!r}, "
                    "which is not a number"
                ) from None
    return _as_table(values, source, header)


def _load_raw(path: Path, dtype: str) -> Table:
    try:
        np_dtype = np.dtype(dtype)
    except (TypeError, ValueError, SyntaxError):
        np_dtype = None
    if np_dtype is None or np_dtype.kind not in "biuf" or np_dtype.shape != ():
        raise DataFileError(
            f"--dtype {dtype!r} is not a numeric NumPy scalar dtype; use e.g. float32, <f4, "
            "int32 or uint8"
        )
    size = path.stat().st_size
    if np_dtype.itemsize == 0 or size % np_dtype.itemsize:
        raise DataFileError(
            f"{path}: {size} bytes is not a whole number of {np_dtype} items "
            f"({np_dtype.itemsize} bytes each); check --dtype"
        )
    return _as_table(np.fromfile(path, dtype=np_dtype), f"{path} (raw {np_dtype})")


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
        The values as a 2-D array of shape ``(rows, columns)``, with column names.

    Raises
    ------
    DataFileError
        If the file is missing, unreadable, malformed, empty or not numeric; the
        message is one line naming the file and the fix.
    """
    if path is None:
        text = resources.files("stridewave.cli.data").joinpath(SHIPPED_DATA).read_text()
        return _parse_csv(text, f"shipped data set {SHIPPED_DATA}")
    file = Path(path)
    if not file.exists():
        raise DataFileError(f"{file}: no such file")
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
        try:
            text = file.read_text(encoding="utf-8-sig")  # tolerate a BOM (Excel writes one)
        except (OSError, UnicodeDecodeError) as exc:
            raise DataFileError(f"{file}: cannot read it as text ({exc})") from None
        return _parse_csv(text, str(file))
    raise DataFileError(
        f"{file}: unknown suffix {suffix or '(none)'!r}; give a .npy, .npz or .csv file, "
        "or a raw binary file with --dtype (e.g. --dtype float32)"
    )
