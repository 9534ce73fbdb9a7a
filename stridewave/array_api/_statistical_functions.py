"""The statistical and utility functions of :mod:`stridewave.array_api`.

The standard's two sections of those names; reductions try the device's direct call first.
"""

from __future__ import annotations

from typing import Any

from stridewave.array_api import _dtypes
from stridewave.array_api._array import Array
from stridewave.array_api._common import document_all, one
from stridewave.array_api._dispatch import devices_of, unary

# -- statistics and utilities -------------------------------------------------------------


def _acc_dtype(x: Any, dtype: object) -> Any:
    """Return the native accumulator dtype of sums and products of ``x`` (``dtype`` if given)."""
    requested = None if dtype is None else _dtypes.as_dtype(dtype)
    if type(x) is Array:
        return x._device.backend.accumulator(x._dtype, requested)
    return devices_of((x,)).backend.accumulator(x.dtype, requested)


def cumulative_sum(
    x: Any, /, *, axis: int | None = None, dtype: Any = None, include_initial: bool = False
) -> Array:
    return one(
        "cumulative_sum",
        (x,),
        {"axis": axis, "dtype": _acc_dtype(x, dtype), "include_initial": include_initial},
    )


def cumulative_prod(
    x: Any, /, *, axis: int | None = None, dtype: Any = None, include_initial: bool = False
) -> Array:
    return one(
        "cumulative_prod",
        (x,),
        {"axis": axis, "dtype": _acc_dtype(x, dtype), "include_initial": include_initial},
    )


def _stat(name: str, x: Any, kwargs: dict[str, Any]) -> Array:
    """:func:`one` for the statistical functions (their keywords never hold arrays)."""
    if type(x) is Array:
        return Array._new(*unary(name, x, kwargs))
    return one(name, (x,), kwargs)


def sum(x: Any, /, *, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Array:
    return _stat("sum", x, {"axis": axis, "dtype": _acc_dtype(x, dtype), "keepdims": keepdims})


def prod(x: Any, /, *, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Array:
    return _stat("prod", x, {"axis": axis, "dtype": _acc_dtype(x, dtype), "keepdims": keepdims})


def max(x: Any, /, *, axis: Any = None, keepdims: bool = False) -> Array:
    return _stat("max", x, {"axis": axis, "keepdims": keepdims})


def min(x: Any, /, *, axis: Any = None, keepdims: bool = False) -> Array:
    return _stat("min", x, {"axis": axis, "keepdims": keepdims})


def mean(x: Any, /, *, axis: Any = None, keepdims: bool = False) -> Array:
    return _stat("mean", x, {"axis": axis, "keepdims": keepdims})


def std(x: Any, /, *, axis: Any = None, correction: float = 0.0, keepdims: bool = False) -> Array:
    return _stat("std", x, {"axis": axis, "correction": correction, "keepdims": keepdims})


def var(x: Any, /, *, axis: Any = None, correction: float = 0.0, keepdims: bool = False) -> Array:
    return _stat("var", x, {"axis": axis, "correction": correction, "keepdims": keepdims})


def all(x: Any, /, *, axis: Any = None, keepdims: bool = False) -> Array:
    return _stat("all", x, {"axis": axis, "keepdims": keepdims})


def any(x: Any, /, *, axis: Any = None, keepdims: bool = False) -> Array:
    return _stat("any", x, {"axis": axis, "keepdims": keepdims})


def diff(
    x: Any, /, *, axis: int = -1, n: int = 1, prepend: Any = None, append: Any = None
) -> Array:
    kwargs: dict[str, Any] = {"axis": axis, "n": n}
    if prepend is not None:
        kwargs["prepend"] = prepend
    if append is not None:
        kwargs["append"] = append
    return one("diff", (x,), kwargs)


document_all(
    (
        (cumulative_sum, "Cumulative sum along ``axis``."),
        (cumulative_prod, "Cumulative product along ``axis``."),
        (sum, "Sum of the elements (int32 and bool sum to int32)."),
        (prod, "Product of the elements (int32 and bool multiply to int32)."),
        (max, "Largest element."),
        (min, "Smallest element."),
        (mean, "Arithmetic mean."),
        (std, "Standard deviation."),
        (var, "Variance."),
        (all, "Whether every element is true."),
        (any, "Whether some element is true."),
        (diff, "``n``-th forward difference along ``axis``."),
    )
)
