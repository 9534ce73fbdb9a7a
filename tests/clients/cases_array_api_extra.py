"""array-api-extra: every public function, with the namespace passed as ``xp=`` where the
function takes it (as libraries built on array-api-extra call it).
"""

from __future__ import annotations

from typing import Any

from _case_support import CaseFn, case_decorator, wide

CLIENT = "array_api_extra"
CASES: dict[str, CaseFn] = {}
case = case_decorator(CASES)


@case
def atleast_nd(xp: Any, ctx: Any) -> Any:
    import array_api_extra as xpx

    return xpx.atleast_nd(ctx.randn(3), ndim=3, xp=xp)


@case
def cov(xp: Any, ctx: Any) -> Any:
    import array_api_extra as xpx

    return xpx.cov(ctx.randn(3, 20), xp=xp)


@case
def create_diagonal(xp: Any, ctx: Any) -> Any:
    import array_api_extra as xpx

    return xpx.create_diagonal(ctx.randn(4), offset=1, xp=xp)


@case
def expand_dims(xp: Any, ctx: Any) -> Any:
    import array_api_extra as xpx

    return xpx.expand_dims(ctx.randn(3, 4), axis=(0, -1), xp=xp)


@case
def kron(xp: Any, ctx: Any) -> Any:
    import array_api_extra as xpx

    return xpx.kron(ctx.randn(2, 2), ctx.randn(3, 2), xp=xp)


@case
def nunique(xp: Any, ctx: Any) -> Any:
    import array_api_extra as xpx

    return xpx.nunique(ctx.integers(5, 20), xp=xp)


@case
def pad(xp: Any, ctx: Any) -> Any:
    import array_api_extra as xpx

    return xpx.pad(ctx.randn(3, 4), 2, constant_values=1.5, xp=xp)


@case
def pad_per_axis(xp: Any, ctx: Any) -> Any:
    import array_api_extra as xpx

    return xpx.pad(ctx.randn(3, 4), ((1, 0), (0, 2)), xp=xp)


@case
def setdiff1d(xp: Any, ctx: Any) -> Any:
    import array_api_extra as xpx

    a = ctx.asarray([5, 1, 3, 7, 3, 9], ctx.int_dtype)
    return xpx.setdiff1d(a, ctx.asarray([3, 9], ctx.int_dtype), xp=xp)


@case
def union1d(xp: Any, ctx: Any) -> Any:
    import array_api_extra as xpx

    a = ctx.asarray([5, 1, 3], ctx.int_dtype)
    return xpx.union1d(a, ctx.asarray([3, 9, 1], ctx.int_dtype), xp=xp)


@case
def isin(xp: Any, ctx: Any) -> Any:
    import array_api_extra as xpx

    return xpx.isin(ctx.integers(6, 12), ctx.asarray([1, 4], ctx.int_dtype), xp=xp)


@case
def sinc(xp: Any, ctx: Any) -> Any:
    import array_api_extra as xpx

    return xpx.sinc(ctx.asarray([-1.5, -0.5, 0.0, 0.25, 2.0], ctx.float_dtype), xp=xp)


@case
def isclose(xp: Any, ctx: Any) -> Any:
    import array_api_extra as xpx

    a = ctx.randn(10)
    return xpx.isclose(a, a + 1e-7, xp=xp), xpx.isclose(a, a + 1.0, xp=xp)


@case
def at_set(xp: Any, ctx: Any) -> Any:
    import array_api_extra as xpx

    a = ctx.randn(6)
    return xpx.at(a)[1:3].set(0.5)


@case
def at_add_mask(xp: Any, ctx: Any) -> Any:
    import array_api_extra as xpx

    a = ctx.randn(6)
    return xpx.at(a, a > 0).add(10.0)


@case
def at_multiply_copy(xp: Any, ctx: Any) -> Any:
    import array_api_extra as xpx

    a = ctx.randn(3, 3)
    out = xpx.at(a)[0, :].multiply(2.0, copy=True)
    return out, a


@case
def at_min_max(xp: Any, ctx: Any) -> Any:
    import array_api_extra as xpx

    a = ctx.randn(6)
    return xpx.at(a)[::2].min(0.0), xpx.at(a)[1::2].max(0.0)


@case
def apply_where(xp: Any, ctx: Any) -> Any:
    import array_api_extra as xpx

    x = ctx.randn(10)
    return xpx.apply_where(x > 0, x, lambda v: v**0.5, fill_value=-1.0)


@case
def apply_where_two_functions(xp: Any, ctx: Any) -> Any:
    import array_api_extra as xpx

    x = ctx.randn(10)
    return xpx.apply_where(x > 0, (x,), lambda v: v * 2, lambda v: -v)


@case
def broadcast_shapes(xp: Any, ctx: Any) -> Any:
    import array_api_extra as xpx

    return xpx.broadcast_shapes((3, 1), (1, 4), (4,))


@case
def default_dtype(xp: Any, ctx: Any) -> Any:
    import array_api_extra as xpx

    return xp.ones(2, dtype=xpx.default_dtype(xp)), xp.ones(
        2, dtype=xpx.default_dtype(xp, "integral")
    )


@case
def nan_to_num(xp: Any, ctx: Any) -> Any:
    import array_api_extra as xpx

    a = ctx.asarray([1.0, float("nan"), float("inf"), -float("inf")], ctx.float_dtype)
    return xpx.nan_to_num(a, fill_value=-1.0, xp=xp)


@case
def nansum(xp: Any, ctx: Any) -> Any:
    import array_api_extra as xpx

    a = ctx.asarray([[1.0, float("nan")], [2.0, 3.0]], ctx.float_dtype)
    return xpx.nansum(a, axis=0, xp=xp)


@case
def nanmean(xp: Any, ctx: Any) -> Any:
    import array_api_extra as xpx

    a = ctx.asarray([[1.0, float("nan")], [2.0, 3.0]], ctx.float_dtype)
    return xpx.nanmean(a, axis=1, xp=xp)


@case
def nanmax_nanmin(xp: Any, ctx: Any) -> Any:
    import array_api_extra as xpx

    a = ctx.asarray([1.0, float("nan"), 4.0, -2.0], ctx.float_dtype)
    return xpx.nanmax(a, xp=xp), xpx.nanmin(a, xp=xp)


@case
def one_hot(xp: Any, ctx: Any) -> Any:
    import array_api_extra as xpx

    return xpx.one_hot(ctx.asarray([0, 2, 1], ctx.int_dtype), 3, xp=xp)


@case
def partition(xp: Any, ctx: Any) -> Any:
    import array_api_extra as xpx

    out = xpx.partition(ctx.randn(9), 4, xp=xp)
    return out[4]


@case
def argpartition(xp: Any, ctx: Any) -> Any:
    import array_api_extra as xpx

    a = ctx.randn(9)
    return a[xpx.argpartition(a, 4, xp=xp)[4]]


@case
def searchsorted(xp: Any, ctx: Any) -> Any:
    import array_api_extra as xpx

    a = ctx.asarray([1.0, 2.0, 4.0, 8.0], ctx.float_dtype)
    return xpx.searchsorted(a, ctx.asarray([3.0, 0.0, 9.0], ctx.float_dtype), xp=xp)


@case
def tril_triu_indices(xp: Any, ctx: Any) -> Any:
    import array_api_extra as xpx

    return xpx.tril_indices(3, xp=xp), xpx.triu_indices(3, offset=1, xp=xp)


@case
def diag_indices(xp: Any, ctx: Any) -> Any:
    import array_api_extra as xpx

    return xpx.diag_indices(3, xp=xp)


@case
def unravel_index(xp: Any, ctx: Any) -> Any:
    import array_api_extra as xpx

    return xpx.unravel_index(ctx.asarray([1, 5, 11], ctx.int_dtype), (3, 4), xp=xp)


@case
def deg2rad_rad2deg(xp: Any, ctx: Any) -> Any:
    import array_api_extra as xpx

    a = ctx.uniform(5, low=-180, high=180)
    return xpx.rad2deg(xpx.deg2rad(a, xp=xp), xp=xp)


@case
def angle(xp: Any, ctx: Any) -> Any:
    import array_api_extra as xpx

    return xpx.angle(ctx.randn(5), xp=xp)


@case
def lazy_apply(xp: Any, ctx: Any) -> Any:
    import array_api_extra as xpx
    import numpy as np

    a = ctx.randn(6)
    return xpx.lazy_apply(lambda v: np.cumsum(v), a, shape=(6,), dtype=a.dtype, as_numpy=True)


for _name in ("cov", "kron", "nunique", "pad", "setdiff1d", "sinc", "isclose", "at_add_mask"):
    CASES[f"{_name}[float64]"] = wide(CASES[_name])
