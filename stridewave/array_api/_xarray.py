"""xarray over namespace Arrays: its missing-value rules and ``nan`` reductions, per device.

xarray computes reductions of floating data through ``xarray.computation.nanops``,
which read NumPy's ``dtype.kind`` and then call NumPy's ``nan*`` functions (a NumPy
result, off the Array's device), and it chooses the fill value of ``where`` without
``other`` through ``xarray.core.dtypes.maybe_promote``, which takes NumPy dtypes only.
The descriptors keep the dtype spec's members (docs/decisions.md, "xarray reads NumPy
dtypes"), so this module wraps those functions instead: for a namespace Array or
descriptor the wrapper computes through the namespace, on the Array's device; for any
other input it calls xarray's own function unchanged.

:func:`install` runs when ``stridewave.array_api`` is imported after xarray, or, through
a one-shot import hook, right after xarray is first imported.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any, Final

import numpy as np

from stridewave.array_api import _dtypes
from stridewave.array_api._array import Array
from stridewave.dtypes import DType

__all__ = ["install", "install_when_imported"]

#: Marks a wrapper, so that installing twice wraps once.
_MARK: Final = "_stridewave_array_api"

AxisLike = int | Sequence[int] | None


#: The namespace module, set by :func:`install_when_imported` (it imports this one).
_NAMESPACE: list[Any] = []


def _xp() -> Any:
    return _NAMESPACE[0]


def _axis(axis: object) -> int | tuple[int, ...] | None:
    if axis is None or isinstance(axis, int):
        return axis
    return tuple(int(a) for a in axis)  # type: ignore[attr-defined]


def _inexact(a: Array) -> bool:
    return bool(_xp().isdtype(a.dtype, ("real floating", "complex floating")))


def maybe_promote(dtype: DType) -> tuple[DType, float | complex]:
    """Return the dtype that holds ``dtype``'s values and a missing value, and that value.

    xarray's rules (pandas'): floating and complex dtypes hold NaN themselves, integers
    of at most 16 bits go to ``float32``, wider ones to ``float64``, booleans to
    ``object`` (which no namespace dtype is: ``TypeError``).

    Parameters
    ----------
    dtype : DType
        A namespace dtype, e.g. ``xp.int64``.

    Returns
    -------
    tuple of (DType, scalar)
        The promoted namespace dtype and its missing value, a Python ``float`` or
        ``complex`` NaN: a weak scalar, so that xarray's promotion of the Array with
        it asks the namespace (a NumPy scalar would be taken for a NumPy dtype).

    Raises
    ------
    TypeError
        For ``bool``, whose missing value needs NumPy's ``object`` dtype.
    """
    xp = _xp()
    np_dtype = _dtypes.numpy_dtype(dtype)
    if xp.isdtype(dtype, ("real floating", "complex floating")):
        promoted = dtype
    elif xp.isdtype(dtype, "integral"):
        promoted = xp.float32 if np_dtype.itemsize <= 2 else xp.float64
    else:
        raise TypeError(
            f"xarray has no missing value for a {dtype} Array: it would promote to NumPy's "
            "object dtype, which no array API dtype is; pass where(..., other=...) or "
            "convert first with xp.astype(x, xp.float64)"
        )
    fill = complex(np.nan, np.nan) if xp.isdtype(promoted, "complex floating") else np.nan
    return promoted, fill


def _missing(a: Array) -> Any:
    xp = _xp()
    return xp.isnan(a) if _inexact(a) else xp.zeros(a.shape, dtype=xp.bool, device=a.device)


def _count(mask: Array, axis: AxisLike, keepdims: bool = False) -> Any:
    xp = _xp()
    return xp.sum(xp.astype(~mask, xp.int64), axis=_axis(axis), keepdims=keepdims)


def _extreme(a: Array, axis: AxisLike, largest: bool) -> Any:
    xp = _xp()
    if not _inexact(a):
        return (xp.max if largest else xp.min)(a, axis=_axis(axis))
    mask = xp.isnan(a)
    filled = xp.where(mask, -xp.inf if largest else xp.inf, a)
    found = (xp.max if largest else xp.min)(filled, axis=_axis(axis))
    return xp.where(xp.all(mask, axis=_axis(axis)), xp.nan, found)


def _arg_extreme(a: Array, axis: AxisLike, largest: bool) -> Any:
    xp = _xp()
    if not _inexact(a):
        return (xp.argmax if largest else xp.argmin)(a, axis=axis)
    mask = xp.isnan(a)
    if bool(xp.any(xp.all(mask, axis=axis))):
        raise ValueError("All-NaN slice encountered")
    filled = xp.where(mask, -xp.inf if largest else xp.inf, a)
    return (xp.argmax if largest else xp.argmin)(filled, axis=axis)


def _mean(a: Array, axis: AxisLike, keepdims: bool = False) -> Any:
    xp = _xp()
    mask = _missing(a)
    if not _inexact(a):
        a = xp.astype(a, xp.float64 if a.dtype != xp.int8 else xp.float32)
    total = xp.sum(
        xp.where(mask, xp.zeros((), dtype=a.dtype, device=a.device), a),
        axis=_axis(axis),
        keepdims=keepdims,
    )
    return total / xp.astype(_count(mask, axis, keepdims), total.dtype)


def _var(a: Array, axis: AxisLike, ddof: float) -> Any:
    xp = _xp()
    mask = _missing(a)
    if not _inexact(a):
        a = xp.astype(a, xp.float64)
    centred = a - _mean(a, axis, keepdims=True)
    squared = xp.abs(centred) ** 2 if xp.isdtype(a.dtype, "complex floating") else centred**2
    zero = xp.zeros((), dtype=squared.dtype, device=a.device)
    total = xp.sum(xp.where(mask, zero, squared), axis=_axis(axis))
    return total / xp.astype(_count(mask, axis) - ddof, total.dtype)


def _nanmin(a: Any, axis: AxisLike = None, out: Any = None) -> Any:
    return _extreme(a, axis, largest=False)


def _nanmax(a: Any, axis: AxisLike = None, out: Any = None) -> Any:
    return _extreme(a, axis, largest=True)


def _nanargmin(a: Any, axis: int | None = None) -> Any:
    return _arg_extreme(a, axis, largest=False)


def _nanargmax(a: Any, axis: int | None = None) -> Any:
    return _arg_extreme(a, axis, largest=True)


def _nanmean(a: Any, axis: AxisLike = None, dtype: Any = None, out: Any = None) -> Any:
    xp = _xp()
    return _mean(a if dtype is None else xp.astype(a, _dtypes.as_dtype(dtype)), axis)


def _nanvar(
    a: Any, axis: AxisLike = None, dtype: Any = None, out: Any = None, ddof: float = 0
) -> Any:
    xp = _xp()
    return _var(a if dtype is None else xp.astype(a, _dtypes.as_dtype(dtype)), axis, ddof)


def _nanstd(
    a: Any, axis: AxisLike = None, dtype: Any = None, out: Any = None, ddof: float = 0
) -> Any:
    return _xp().sqrt(_nanvar(a, axis=axis, dtype=dtype, ddof=ddof))


def _nanprod(
    a: Any, axis: AxisLike = None, dtype: Any = None, out: Any = None, min_count: Any = None
) -> Any:
    xp = _xp()
    one = xp.ones((), dtype=a.dtype, device=a.device)
    return xp.prod(xp.where(_missing(a), one, a), axis=_axis(axis))


def _scan(name: str) -> Callable[..., Any]:
    def scan(a: Any, axis: int | None = None, dtype: Any = None, out: Any = None) -> Any:
        xp = _xp()
        neutral = (xp.zeros if name == "sum" else xp.ones)((), dtype=a.dtype, device=a.device)
        filled = xp.where(_missing(a), neutral, a)
        if axis is None:
            filled, axis = xp.reshape(filled, (-1,)), 0
        return getattr(xp, f"cumulative_{name}")(filled, axis=axis)

    return scan


#: The ``nanops`` functions replaced for namespace Arrays, by name.
_NANOPS: Final[dict[str, Callable[..., Any]]] = {
    "nanmin": _nanmin,
    "nanmax": _nanmax,
    "nanargmin": _nanargmin,
    "nanargmax": _nanargmax,
    "nanmean": _nanmean,
    "nanvar": _nanvar,
    "nanstd": _nanstd,
    "nanprod": _nanprod,
    "nancumsum": _scan("sum"),
    "nancumprod": _scan("prod"),
}


def _where_on_the_device(original: Callable[..., Any]) -> Callable[..., Any]:
    """Xarray's three-argument ``where``, with Python scalars made on the Arrays' device.

    xarray turns a scalar operand into ``xp.asarray(scalar)``, which lands on the default
    device; beside Arrays of another device that would mix devices.
    """

    def where(condition: Any, x: Any, y: Any) -> Any:
        arrays = [v for v in (condition, x, y) if isinstance(v, Array)]
        if arrays and any(_is_scalar(v) for v in (x, y)):
            from xarray.core import dtypes

            xp = _xp()
            dtype = _dtypes.as_dtype(dtypes.result_type(x, y, xp=xp))
            device = arrays[0].device
            x, y = (
                xp.asarray(v, dtype=dtype, device=device) if _is_scalar(v) else xp.astype(v, dtype)
                for v in (x, y)
            )
        return original(condition, x, y)

    return where


def _is_scalar(value: object) -> bool:
    return isinstance(value, (bool, int, float, complex))


def _wrap(original: Callable[..., Any], ours: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(first: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(first, (Array, DType)):
            if isinstance(first, DType) and first not in _dtypes.DTYPES.values():
                return original(first, *args, **kwargs)
            return ours(first, *args, **kwargs)
        return original(first, *args, **kwargs)

    wrapper.__name__ = getattr(original, "__name__", "wrapper")
    wrapper.__qualname__ = getattr(original, "__qualname__", wrapper.__name__)
    wrapper.__doc__ = getattr(original, "__doc__", None)
    wrapper.__wrapped__ = original  # type: ignore[attr-defined]
    setattr(wrapper, _MARK, True)
    return wrapper


def _replace(module: ModuleType, name: str, ours: Callable[..., Any]) -> None:
    original = getattr(module, name, None)
    if original is None or getattr(original, _MARK, False):
        return
    setattr(module, name, _wrap(original, ours))


def install() -> None:
    """Wrap xarray's ``maybe_promote``, ``where`` and ``nan*`` reductions for namespace Arrays.

    Idempotent; a function the installed xarray lacks is skipped. Inputs that are not
    namespace Arrays (or descriptors) reach xarray's own functions unchanged.
    """
    import importlib

    try:
        dtypes = importlib.import_module("xarray.core.dtypes")
        nanops = importlib.import_module("xarray.computation.nanops")
    except ImportError:
        return
    _replace(dtypes, "maybe_promote", maybe_promote)
    duck = importlib.import_module("xarray.core.duck_array_ops")
    where = getattr(duck, "where", None)
    if where is not None and not getattr(where, _MARK, False):
        ours = _where_on_the_device(where)
        setattr(ours, _MARK, True)
        for module in (duck, nanops):
            if getattr(module, "where", None) is where:
                setattr(module, "where", ours)  # noqa: B010 (a module mypy cannot see)
    for name, ours in _NANOPS.items():
        _replace(nanops, name, ours)


class _AfterXarray(importlib.abc.MetaPathFinder):
    """Runs :func:`install` once, after the top-level ``xarray`` module has executed."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != "xarray":
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        loader = spec.loader
        run = loader.exec_module

        def exec_module(module: ModuleType) -> None:
            run(module)
            install()

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def install_when_imported(namespace: ModuleType) -> None:
    """Install now if xarray is imported, else right after its first import.

    Parameters
    ----------
    namespace : module
        ``stridewave.array_api`` itself, which the wrappers compute through.
    """
    _NAMESPACE[:] = [namespace]
    if "xarray" in sys.modules:
        install()
    elif not any(isinstance(f, _AfterXarray) for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterXarray())
