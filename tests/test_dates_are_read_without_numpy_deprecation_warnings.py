"""Reading YYYYMMDD dates raises no NumPy warning: every timedelta carries its unit.

NumPy 2.5 deprecates the generic timedelta unit (``datetime64[M] + 1``); the demo's date
step (the shipped CSV's date column, a ``.npy`` file's date-like column) runs here with
every warning an error.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from stridewave.cli._datafile import load_table


def test_the_demos_date_step_raises_no_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table = load_table(None)
    years = table.values[:, 0]
    assert years[0] == pytest.approx(1958 + 87 / 365)  # 29 March 1958, day 88 of 365
    assert any("read as dates" in note for note in table.notes)


def test_csv_dates_become_decimal_years_without_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "dates.csv"
    path.write_text("date,x\n20000101,1\n20000301,2\n19991231,3\n,4\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table = load_table(str(path))
    years = table.values[:, 0]
    assert years[:3].tolist() == pytest.approx([2000.0, 2000 + 60 / 366, 1999 + 364 / 365])
    assert np.isnan(years[3])


def test_a_npy_date_column_is_noted_without_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "dates.npy"
    np.save(path, np.array([[20000131, 1.0], [20000229, 2.0], [20010228, 3.0]]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table = load_table(str(path))
    assert any("(20000131 to 20010228): YYYYMMDD dates" in note for note in table.notes)
    bad = tmp_path / "not-dates.npy"
    np.save(bad, np.array([[20010229, 1.0], [20000230, 2.0]]))  # no 29 Feb 2001
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not any("YYYYMMDD" in note for note in load_table(str(bad)).notes)
