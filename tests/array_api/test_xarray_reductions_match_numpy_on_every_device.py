"""xarray over namespace Arrays reduces, groups and masks as over NumPy data, on every device.

xarray's ``nan`` reductions and ``where`` without ``other`` read NumPy dtypes; the
namespace wraps those xarray functions for its own Arrays (``stridewave.array_api._xarray``)
and leaves every other input to xarray. Each result is a namespace Array on the input's
device whose values and dtype are those of the same call on NumPy data.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import stridewave.array_api as xp

xr = pytest.importorskip("xarray")

#: (name, the call on a DataArray with dims ("t", "x") and coordinate "g" along "t").
CALLS: list[tuple[str, Callable[[Any], Any]]] = [
    ("mean_t", lambda d: d.mean("t")),
    ("max", lambda d: d.max()),
    ("min_x", lambda d: d.min("x")),
    ("std", lambda d: d.std()),
    ("std_ddof", lambda d: d.std("t", ddof=1)),
    ("var_x", lambda d: d.var("x")),
    ("sum_skipna", lambda d: d.sum("t", skipna=True)),
    ("prod_x", lambda d: d.prod("x")),
    ("argmax_t", lambda d: d.argmax("t")),
    ("cumsum_t", lambda d: d.cumsum("t")),
    ("groupby_mean", lambda d: d.groupby("g").mean()),
    ("where", lambda d: d.where(d > 5)),
]

DATA = np.arange(24, dtype=np.float64).reshape(6, 4) / 4.0
GROUPS = [0, 1, 0, 1, 2, 2]


def _wrap(values: Any) -> Any:
    return xr.DataArray(values, dims=("t", "x"), coords={"g": ("t", GROUPS)})


def _as_namespace(dtype: str, device: xp.Device) -> Any:
    return _wrap(xp.asarray(DATA.astype(dtype), device=device))


@pytest.mark.parametrize("name,call", CALLS, ids=[c[0] for c in CALLS])
def test_reduction_matches_numpy_and_stays_on_the_device(
    device: xp.Device, name: str, call: Callable[[Any], Any]
) -> None:
    dtype = "float32" if device == xp.Device("Metal") else "float64"
    got = call(_as_namespace(dtype, device)).data
    expected = np.asarray(call(_wrap(DATA.astype(dtype))).data)
    assert isinstance(got, xp.Array), f"{name}: {type(got).__name__}, not a namespace Array"
    assert got.device == device
    assert str(got.dtype) == str(expected.dtype)
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-6, equal_nan=True)


@pytest.mark.parametrize("dtype", ["int16", "int64"])
def test_where_without_other_promotes_integers_as_on_numpy(device: xp.Device, dtype: str) -> None:
    values = np.arange(6, dtype=dtype).reshape(2, 3)
    ours = xr.DataArray(xp.asarray(values, device=device), dims=("a", "b"))
    reference = xr.DataArray(values, dims=("a", "b"))
    got = ours.where(ours > 2).data
    expected = reference.where(reference > 2).data
    assert isinstance(got, xp.Array) and got.device == device
    assert str(got.dtype) == str(expected.dtype)
    np.testing.assert_array_equal(np.asarray(got), expected)


def test_all_nan_slices_give_nan_as_on_numpy(device: xp.Device) -> None:
    values = np.array([[np.nan, 1.0], [np.nan, 3.0]], dtype=np.float32)
    ours = xr.DataArray(xp.asarray(values, device=device), dims=("t", "x"))
    reference = xr.DataArray(values, dims=("t", "x"))
    calls: list[Callable[[Any], Any]] = [
        lambda d: d.max("t"),
        lambda d: d.mean("t"),
        lambda d: d.var("t"),
    ]
    for call in calls:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # NumPy's "All-NaN slice", "Mean of empty slice"
            expected = np.asarray(call(reference).data)
        np.testing.assert_array_equal(np.asarray(call(ours).data), expected)


def test_numpy_backed_data_reaches_xarrays_own_functions() -> None:
    from xarray.computation import nanops
    from xarray.core import dtypes

    promoted, fill = dtypes.maybe_promote(np.dtype("int16"))
    assert promoted == np.dtype("float32") and type(fill) is np.float32
    got = nanops.nanmean(np.array([1.0, np.nan, 3.0]))  # type: ignore[no-untyped-call,unused-ignore]
    assert type(got) is np.float64 and got == 2.0


def test_xarray_imported_after_the_namespace_is_adapted() -> None:
    script = (
        "import stridewave.array_api as xp, numpy as np, xarray as xr\n"
        "d = xr.DataArray(xp.asarray(np.arange(6.0)), dims=('t',))\n"
        "r = d.mean('t').data\n"
        "assert isinstance(r, xp.Array) and float(r) == 2.5, r\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], check=False, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
