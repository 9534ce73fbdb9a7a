"""xarray: ``DataArray`` and ``Dataset`` wrapping namespace arrays (xarray keeps any array
with ``__array_namespace__`` as its data): reductions, arithmetic, indexing, alignment.
Each case returns the wrapped ``.data`` (or ``.values`` where a user asks for NumPy).
"""

from __future__ import annotations

from typing import Any

from _case_support import CaseFn, case_decorator, wide

CLIENT = "xarray"
CASES: dict[str, CaseFn] = {}
case = case_decorator(CASES)


def _da(ctx: Any, *shape: int) -> Any:
    import xarray as xr

    dims = ("x", "y", "z")[: len(shape)]
    return xr.DataArray(ctx.randn(*shape), dims=dims)


@case
def wraps_without_copy_to_numpy(xp: Any, ctx: Any) -> Any:
    return _da(ctx, 3, 4).data


@case
def mean_over_dim(xp: Any, ctx: Any) -> Any:
    return _da(ctx, 3, 4).mean(dim="x").data


@case
def sum_all(xp: Any, ctx: Any) -> Any:
    return _da(ctx, 3, 4).sum().data


@case
def std_var(xp: Any, ctx: Any) -> Any:
    a = _da(ctx, 5, 4)
    return a.std(dim="x").data, a.var(dim="y").data


@case
def max_min(xp: Any, ctx: Any) -> Any:
    a = _da(ctx, 5, 4)
    return a.max(dim="y").data, a.min().data


@case
def arithmetic(xp: Any, ctx: Any) -> Any:
    a = _da(ctx, 3, 4)
    b = _da(ctx, 3, 4)
    return (a * 2 + b - 1.5).data


@case
def broadcasting_by_dim_name(xp: Any, ctx: Any) -> Any:
    import xarray as xr

    a = xr.DataArray(ctx.randn(3), dims=("x",))
    b = xr.DataArray(ctx.randn(4), dims=("y",))
    return (a * b).transpose("x", "y").data


@case
def ufunc_like_namespace_call(xp: Any, ctx: Any) -> Any:
    a = _da(ctx, 3, 4)
    return xp.exp(a.data), abs(a).data


@case
def isel(xp: Any, ctx: Any) -> Any:
    return _da(ctx, 4, 5).isel(x=slice(1, 3), y=2).data


@case
def sel_with_coords(xp: Any, ctx: Any) -> Any:
    import xarray as xr

    a = xr.DataArray(ctx.randn(4), dims=("t",), coords={"t": [10, 20, 30, 40]})
    return a.sel(t=20).data


@case
def where(xp: Any, ctx: Any) -> Any:
    a = _da(ctx, 3, 4)
    return a.where(a > 0, 0.0).data


@case
def transpose(xp: Any, ctx: Any) -> Any:
    return _da(ctx, 2, 3, 4).transpose("z", "x", "y").data


@case
def concat(xp: Any, ctx: Any) -> Any:
    import xarray as xr

    return xr.concat([_da(ctx, 2, 3), _da(ctx, 2, 3)], dim="x").data


@case
def dataset_mean(xp: Any, ctx: Any) -> Any:
    import xarray as xr

    ds = xr.Dataset({"a": _da(ctx, 3, 4), "b": _da(ctx, 3, 4)})
    return ds.mean(dim="y")["b"].data


@case
def dot(xp: Any, ctx: Any) -> Any:
    import xarray as xr

    return xr.dot(_da(ctx, 3, 4), _da(ctx, 3, 4), dim="y").data


@case
def cumsum(xp: Any, ctx: Any) -> Any:
    return _da(ctx, 3, 4).cumsum(dim="y").data


@case
def rolling_mean(xp: Any, ctx: Any) -> Any:
    return _da(ctx, 8).rolling(x=3).mean().data


@case
def groupby_mean(xp: Any, ctx: Any) -> Any:
    import xarray as xr

    a = xr.DataArray(ctx.randn(6), dims=("t",), coords={"g": ("t", [0, 1, 0, 1, 0, 1])})
    return a.groupby("g").mean().data


@case
def values_to_numpy(xp: Any, ctx: Any) -> Any:
    import numpy as np

    return np.asarray(_da(ctx, 3, 4).mean(dim="x").values).tolist()


@case
def astype(xp: Any, ctx: Any) -> Any:
    return (_da(ctx, 3, 4) > 0).astype(xp.int32 if not ctx.is_reference else "int32").data


@case
def reductions_on_time(xp: Any, ctx: Any) -> Any:
    a = _da(ctx, 6, 4).rename({"x": "t", "y": "x"})
    return a.mean("t").data, a.max().data, a.std().data, a.var("x").data


@case
def where_without_other(xp: Any, ctx: Any) -> Any:
    a = _da(ctx, 3, 4)
    return a.where(a > 0).data


@case
def groupby_mean_two_dims(xp: Any, ctx: Any) -> Any:
    import xarray as xr

    a = xr.DataArray(ctx.randn(6, 3), dims=("t", "x"), coords={"g": ("t", [0, 1, 0, 1, 2, 2])})
    return a.groupby("g").mean().data


for _name in (
    "mean_over_dim",
    "arithmetic",
    "where",
    "dot",
    "reductions_on_time",
    "where_without_other",
):
    CASES[f"{_name}[float64]"] = wide(CASES[_name])
