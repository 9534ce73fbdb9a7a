"""The MLX shims: the standard's functions where ``mlx.core`` lacks them or answers otherwise.

One plain function per shim, over MLX arrays. The tables at the end map each name of
the standard to ``mlx.core``'s function of another name (a string), to a shim here,
or, where absent, to NumPy on a host copy (:mod:`~stridewave.array_api._mlx_backend`
delegates those). MLX comes from the Metal carrier module's lazy import point, so
that module stays the only one that imports MLX; this module is imported with the
MLX backend, on first use of the Metal device.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import numpy as np

from stridewave.carriers._mlx_runtime import import_mlx

mx: Any = import_mlx()

__all__ = ["FFT", "LINALG", "MAIN", "SHARES_INPUT", "NeedsHost", "touches_empty"]


#: The Metal device's default indexing dtype (int64, as on host devices and in the
#: consumers' suites): the dtype of every index MLX answers in uint32 or int32.
INDEX: Final = mx.int64


class NeedsHost(Exception):
    """Raised inside a shim to delegate one call to NumPy instead."""


#: MLX functions whose result may be a view of an argument's buffer (or the argument
#: itself). A Metal carrier owns its buffer: its scalar writes go into it in place, so
#: adopting such a view would let a write through one carrier change another without
#: its version moving. Their results are copied (``mlx.core.array(view)``).
SHARES_INPUT: Final = frozenset(
    {
        "broadcast_arrays",
        "broadcast_to",
        "conj",
        "expand_dims",
        "flip",
        "matrix_transpose",
        "meshgrid",
        "moveaxis",
        "permute_dims",
        "real",
        "reshape",
        "squeeze",
        "unstack",
    }
)


def private(impl: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap ``impl`` so that each MLX array it returns is a copy, not a view."""
    array_type = mx.array

    def func(*args: Any, **kwargs: Any) -> Any:
        out = impl(*args, **kwargs)
        if type(out) is array_type:
            return array_type(out)
        if type(out) in (list, tuple):
            return type(out)(array_type(o) if type(o) is array_type else o for o in out)
        return out

    return func


def touches_empty(args: tuple[Any, ...] | list[Any], kwargs: dict[str, Any]) -> bool:
    """Whether an MLX array argument (or one in a list or tuple argument) has no elements.

    Also True for a NumPy array in a list or tuple (a host-held dtype's operand).

    Such calls go to NumPy on the host (a copy of nothing): MLX 0.32.4's reductions
    over an empty array on its CPU device can spin for good inside ``mlx.core.eval``
    (``std``, ``var``, ``sum`` of ``[]``; tests/array_api/test_fast_paths.py runs them
    in a subprocess with a time limit), and NumPy gives the standard's answers.
    """
    array_type = mx.array
    value: Any
    for value in (*args, *kwargs.values()):
        if type(value) is array_type:
            if value.size == 0:
                return True
        elif type(value) is np.ndarray:
            return True  # (a host-held dtype's operand: NumPy computes it)
        elif type(value) in (list, tuple):
            item: Any
            for item in value:
                if type(item) is array_type and item.size == 0:
                    return True
                if type(item) is np.ndarray:
                    return True  # (a host-held dtype among them: NumPy computes it)
    return False


def _fresh(out: Any, x: Any) -> Any:
    """Return ``out``, a reduction of ``x``, as a new array when it may be ``x`` itself.

    MLX answers a reduction that combines nothing (``axis=()``, a 0-d or one-element
    operand, an axis of length 1) with its operand or a view of it; adopted as the
    result's storage, that buffer would be shared by two carriers (a write to one
    changing the other, versions unmoved).
    """
    return mx.array(out) if out.size == x.size else out


def _sum_like(name: str) -> Callable[..., Any]:
    reduce = getattr(mx, name)

    def func(x: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Any:
        if dtype is not None and x.dtype != dtype:
            x = x.astype(dtype)  # (an astype to the same dtype would copy)
        out = reduce(x, axis=axis, keepdims=keepdims)
        if dtype is not None and out.dtype != dtype:
            out = out.astype(dtype)  # (MLX sums bool in int32; dtype=bool asks bool)
        return _fresh(out, x)

    func.__name__ = name
    return func


def _reduce(name: str) -> Callable[..., Any]:
    reduce = getattr(mx, name)

    def func(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
        return _fresh(reduce(x, axis=axis, keepdims=keepdims), x)

    func.__name__ = name
    return func


def abs(x: Any) -> Any:
    if x.dtype == mx.bool_ or mx.issubdtype(x.dtype, mx.unsignedinteger):
        return mx.array(x)  # (MLX's abs of bool or unsigned is its operand itself: a copy)
    return mx.abs(x)


def _count(shape: Any, axis: Any) -> int:
    """Return how many elements a reduction over ``axis`` (an int or a tuple) combines."""
    count = 1
    for a in (axis,) if isinstance(axis, int) else axis:
        count *= shape[a]
    return count


#: MLX's real floating dtypes, and with them its complex one (which mean and the
#: moments keep; only integers and bool are summed in float32).
_REAL_FLOATS: Final = frozenset({mx.float32, mx.float64, mx.float16, mx.bfloat16})
_INEXACT: Final = _REAL_FLOATS | {mx.complex64}


def _moment(name: str) -> Callable[..., Any]:
    moment = getattr(mx, name)

    def func(x: Any, axis: Any = None, correction: float = 0.0, keepdims: bool = False) -> Any:
        if x.dtype not in _INEXACT:
            x = x.astype(mx.float32)  # (MLX would sum integers in int32, wrapping)
        if correction == int(correction):
            return moment(x, axis=axis, keepdims=keepdims, ddof=int(correction))
        # MLX takes an integer ddof only: a fractional correction (the standard
        # allows any real) scales the biased variance by N / (N - correction).
        count = x.size if axis is None else _count(x.shape, axis)
        biased = mx.var(x, axis=axis, keepdims=keepdims)
        variance = (
            biased * (count / (count - correction)) if count > correction else biased * float("nan")
        )
        return variance if name == "var" else mx.sqrt(variance)

    func.__name__ = name
    return func


def mean(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    if x.dtype not in _INEXACT:
        x = x.astype(mx.float32)  # (MLX would sum integers in int32, wrapping)
    return mx.mean(x, axis=axis, keepdims=keepdims)


def sign(x: Any) -> Any:
    if x.dtype not in _REAL_FLOATS:
        if x.dtype == mx.complex64:
            # (MLX's sign of a complex zero is the zero itself, signs and all; the
            # standard's is 0 + 0j)
            return mx.where(mx.equal(x, 0), mx.array(0, x.dtype), mx.sign(x))
        # (MLX's sign of bool is its operand itself: a copy)
        return mx.array(x) if x.dtype == mx.bool_ else mx.sign(x)
    return mx.where(mx.isnan(x), x, mx.sign(x))  # (MLX's sign(NaN) is 0)


def sin(x: Any) -> Any:
    # (MLX's sin(-0.0) is +0.0; sin(x) is x at either zero)
    return mx.where(mx.equal(x, 0), x, mx.sin(x))


def expm1(x: Any) -> Any:
    """``expm1`` of complex64 too (MLX's takes real dtypes only), with the standard's cases.

    ``expm1(a + bj) = expm1(a) cos(b) - 2 sin(b/2)**2 + j exp(a) sin(b)``, accurate near
    zero; ``exp(x) - 1`` where a part is infinite or NaN (the standard's special cases).
    """
    if x.dtype != mx.complex64:
        return mx.expm1(x)
    a, b = mx.real(x), mx.imag(x)
    half = mx.sin(b / 2)
    # (+ 0.0: the real part of expm1(-0 + 0j) is +0)
    real = mx.expm1(a) * mx.cos(b) - 2 * half * half + 0.0
    near = mx.view(mx.stack([real, mx.exp(a) * mx.sin(b)], axis=-1), mx.complex64)
    return mx.where(mx.isfinite(x), near.reshape(x.shape), mx.exp(x) - 1)


def tanh(x: Any) -> Any:
    """``tanh`` whose complex limits ``tanh(±inf + bj)`` are ``±1 + 0j`` with ``b``'s sign.

    MLX gives the zero the sign of ``sin(2b)`` (C99's rule); the standard's
    ``tanh(+inf + bj)`` is ``1 + 0j`` for ``b > 0`` (and its symmetries).
    """
    out = mx.tanh(x)
    if x.dtype != mx.complex64:
        return out
    a, b = mx.real(x), mx.imag(x)
    limit = mx.logical_and(mx.isinf(a), mx.isfinite(b))
    ones = mx.view(mx.stack([mx.sign(a), b * 0.0], axis=-1), mx.complex64)
    return mx.where(limit, ones.reshape(x.shape), out)


def _remainder(x1: Any, x2: Any) -> Any:
    """Floating ``remainder`` whose zeros take the divisor's sign, as the standard's do.

    MLX gives a zero result the dividend's sign (``-0.0 % 3`` is -0.0, ``0.0 % -3``
    is +0.0).
    """
    out = mx.remainder(x1, x2)
    dtype = out.dtype
    if type(x2) is float or type(x2) is int or type(x2) is bool:
        zero: Any = mx.array(-0.0 if x2 < 0 else 0.0, dtype)
    else:
        zero = mx.where(mx.less(x2, 0), mx.array(-0.0, dtype), mx.array(0.0, dtype))
    return mx.where(mx.equal(out, 0), zero, out)


def _cumulative(name: str, initial: int) -> Callable[..., Any]:
    def func(x: Any, axis: Any = None, dtype: Any = None, include_initial: bool = False) -> Any:
        if axis is None:
            if x.ndim > 1:
                raise ValueError("axis is required for arrays of more than one axis.")
            axis = 0
        if dtype is not None and x.dtype != dtype:
            x = x.astype(dtype)
        out = getattr(mx, name)(x, axis=axis)
        if include_initial:
            shape = list(x.shape)
            shape[axis] = 1
            out = mx.concatenate([mx.full(shape, initial, dtype=out.dtype), out], axis=axis)
        return out

    return func


def _arg(name: str) -> Callable[..., Any]:
    def func(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
        return getattr(mx, name)(x, axis=axis, keepdims=keepdims).astype(INDEX)

    func.__name__ = name
    return func


#: The name of each MLX integer dtype.
_INT_NAMES: Final = {
    getattr(mx, name): name
    for name in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
}

#: The range of each MLX integer dtype (an index array's bounds test is skipped on a
#: side no value of its dtype can reach).
_INT_RANGES: Final = {
    dtype: (int(np.iinfo(name).min), int(np.iinfo(name).max)) for dtype, name in _INT_NAMES.items()
}


def zeros(shape: Any, dtype: Any = None) -> Any:
    return mx.zeros(shape, dtype=dtype)


def ones(shape: Any, dtype: Any = None) -> Any:
    return mx.ones(shape, dtype=dtype)


def arange(start: Any, stop: Any = None, step: Any = 1, dtype: Any = None) -> Any:
    """``mlx.core.arange``, refusing integers its dtype cannot hold.

    MLX computes an integer ``arange`` in doubles and casts each value: values beyond
    the dtype came back as the dtype's minimum, and values beyond 2**53 lose their
    last digits. Such a range raises ``OverflowError`` (as ``asarray`` and ``full``
    do for the same values), and one past 2**53 that fits runs in NumPy.

    Raises
    ------
    OverflowError
        If an integer value of the range is outside the integer ``dtype``.
    """
    if stop is None:
        start, stop = 0, start
    # (a bound given as a 0-d array, MLX's or an Array read as one: its Python value)
    start, stop, step = (v.item() if isinstance(v, mx.array) else v for v in (start, stop, step))
    bounds = _INT_RANGES.get(dtype)
    if bounds is not None and all(type(v) is int for v in (start, stop, step)) and step:
        count = len(range(start, stop, step))
        if count:
            last = start + (count - 1) * step
            low, high = min(start, last), max(start, last)
            if low < bounds[0] or high > bounds[1]:
                name = _INT_NAMES[dtype]
                raise OverflowError(
                    f"arange({start}, {stop}, {step}) has values from {low} to {high}, "
                    f"out of the {name} range [{bounds[0]}, {bounds[1]}]; pass a wider "
                    f"dtype= (int64 holds [-2**63, 2**63))."
                )
            if max(-low, high) > 2**53:
                raise NeedsHost  # (exact in NumPy; MLX's doubles would round)
    return mx.arange(start, stop, step, dtype=dtype)


def linspace(start: Any, stop: Any, num: int, dtype: Any = None, endpoint: bool = True) -> Any:
    if endpoint:
        return mx.linspace(start, stop, num, dtype=dtype)
    return mx.linspace(start, stop, num + 1, dtype=dtype)[:-1]


def eye(n_rows: int, n_cols: int | None = None, k: int = 0, dtype: Any = None) -> Any:
    cols = n_rows if n_cols is None else n_cols
    # A diagonal beyond the matrix is all zeros: clamp k into MLX's int range.
    k = max(-n_rows - 1, min(k, cols + 1))
    return mx.eye(n_rows, cols, k, dtype=dtype)


def full(shape: Any, fill_value: Any, dtype: Any = None) -> Any:
    # (MLX keeps a float fill's float32 even when given an integer dtype)
    if dtype is not None and not isinstance(fill_value, mx.array):
        fill_value = mx.array(fill_value, dtype=dtype)
    return mx.full(shape, fill_value, dtype=dtype)


def positive(x: Any) -> Any:
    return mx.array(x)


def clip(x: Any, min: Any = None, max: Any = None) -> Any:
    if min is None and max is None:
        return mx.array(x)
    out = mx.clip(x, min, max)
    return out.astype(x.dtype) if out.dtype != x.dtype else out


# MLX answers an operation that changes nothing (a concat or stack of one array, a
# tile or repeat by 1) with the operand's own buffer; such results are copied, as the
# views of SHARES_INPUT are, so that no two carriers share a buffer.


def concat(arrays: Any, axis: Any = 0) -> Any:
    if axis is None:
        out = mx.concatenate([a.reshape(-1) for a in arrays], axis=0)
    else:
        out = mx.concatenate(list(arrays), axis=axis)
    return mx.array(out) if len(arrays) == 1 else out


def stack(arrays: Any, axis: int = 0) -> Any:
    out = mx.stack(list(arrays), axis=axis)
    return mx.array(out) if len(arrays) == 1 else out


def reshape(x: Any, shape: Any, copy: Any = None) -> Any:
    return mx.reshape(x, shape)


def flip(x: Any, axis: Any = None) -> Any:
    if axis is None:
        axis = tuple(range(x.ndim))
    if isinstance(axis, int):
        axis = (axis,)
    index = [slice(None)] * x.ndim
    for a in axis:
        index[a] = slice(None, None, -1)
    return x[tuple(index)]


def permute_dims(x: Any, axes: Any) -> Any:
    return mx.transpose(x, axes)


def matrix_transpose(x: Any) -> Any:
    if x.ndim < 2:
        raise ValueError("matrix_transpose needs at least two axes.")
    return mx.swapaxes(x, -1, -2)


def _check_axis(name: str, axis: int, ndim: int) -> None:
    """Raise NumPy's ``AxisError`` (an IndexError and a ValueError) for an axis out of range."""
    if not -ndim <= axis < ndim:
        hint = (
            "a 0-d array has no axis: reshape it to 1-D first."
            if ndim == 0
            else f"pass an axis in [{-ndim}, {ndim})."
        )
        raise np.exceptions.AxisError(
            f"{name}: axis {axis} is out of range for an array of {ndim} dimensions; {hint}"
        )


def squeeze(x: Any, axis: Any) -> Any:
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    for a in axes:
        _check_axis("squeeze", a, x.ndim)
        if x.shape[a] != 1:
            raise ValueError(f"cannot squeeze axis {a} of extent {x.shape[a]}.")
    return mx.squeeze(x, axis=axes)


def expand_dims(x: Any, axis: int = 0) -> Any:
    if not -x.ndim - 1 <= axis <= x.ndim:
        raise IndexError(f"axis {axis} is out of range for {x.ndim + 1} axes.")
    return mx.expand_dims(x, axis)


def unstack(x: Any, axis: int = 0) -> tuple[Any, ...]:
    axis = axis % x.ndim if x.ndim else axis
    lead = (slice(None),) * axis
    keys = [(*lead, i) for i in range(x.shape[axis])]
    return tuple(x[key] for key in keys)


def _axis_error(axis: int, ndim: int) -> int:
    raise IndexError(f"axis {axis} is out of range for {ndim} axes.")


def moveaxis(x: Any, source: Any, destination: Any) -> Any:
    ndim = x.ndim
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise ValueError("moveaxis: source and destination need as many axes.")
    src = [a % ndim if -ndim <= a < ndim else _axis_error(a, ndim) for a in src]
    dst = [a % ndim if -ndim <= a < ndim else _axis_error(a, ndim) for a in dst]
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise ValueError("moveaxis: repeated axis.")
    order = [a for a in range(ndim) if a not in src]
    for d, s in sorted(zip(dst, src, strict=True)):
        order.insert(d, s)
    return mx.transpose(x, order)


def roll(x: Any, shift: Any, axis: Any = None) -> Any:
    return mx.roll(x, shift, axis=axis)


def tile(x: Any, repetitions: Any) -> Any:
    out = mx.tile(x, list(repetitions))
    return mx.array(out) if out.size == x.size else out  # (all repetitions 1)


def repeat(x: Any, repeats: Any, axis: Any = None) -> Any:
    if isinstance(repeats, mx.array):
        raise NeedsHost
    if axis is None:
        x = x.reshape(-1)
        axis = 0
    out = mx.repeat(x, repeats, axis=axis)
    return mx.array(out) if out.size == x.size else out  # (repeats of 1)


def check_indices(indices: Any, extent: int, axis: int) -> None:
    """Raise ``IndexError`` if an integer index array has a value outside ``[-extent, extent)``.

    MLX gathers without a bounds check: an index past the axis reads another
    allocation, and a large one kills the process (CONTRACT section 7: never a crash
    inside a backend). The test is one fused comparison and reduction over the
    indices, read at once (the gather's indices are usually host-made, so already
    evaluated); benchmarks/bench_metal.py measures it against the gather.

    Raises
    ------
    IndexError
        If an index is out of range, naming the first such index, the axis and its
        size (the CPU device's message).
    """
    bounds = _INT_RANGES.get(getattr(indices, "dtype", None))
    if bounds is None or indices.size == 0:
        return  # (not an integer array: MLX raises its own error)
    low, high = bounds
    bad = None
    if low < -extent:
        bad = indices < -extent
    if high >= extent:
        above = indices >= extent
        bad = above if bad is None else mx.logical_or(bad, above)
    if bad is None or not mx.any(bad).item():
        return
    first = int(mx.argmax(bad.reshape(-1)).item())
    raise IndexError(
        f"index {indices.reshape(-1)[first].item()} is out of bounds for axis {axis} "
        f"with size {extent}."
    )


def take(x: Any, indices: Any, axis: Any = None) -> Any:
    if axis is None:
        if x.ndim != 1:
            raise ValueError("take needs axis= for arrays of more than one axis.")
        axis = 0
    if isinstance(axis, int) and -x.ndim <= axis < x.ndim:
        check_indices(indices, x.shape[axis], axis % x.ndim)
    return mx.take(x, indices, axis=axis)


def take_along_axis(x: Any, indices: Any, axis: int = -1) -> Any:
    if -x.ndim <= axis < x.ndim:
        check_indices(indices, x.shape[axis], axis % x.ndim)
    return mx.take_along_axis(x, indices, axis=axis)


def where(condition: Any, x1: Any, x2: Any) -> Any:
    return mx.where(condition, x1, x2)


def sort(x: Any, axis: int = -1, descending: bool = False, stable: bool = True) -> Any:
    _check_axis("sort", axis, x.ndim)
    out = mx.sort(x, axis=axis)
    if descending:
        index = [slice(None)] * x.ndim
        index[axis] = slice(None, None, -1)
        out = out[tuple(index)]
    return out


def argsort(x: Any, axis: int = -1, descending: bool = False, stable: bool = True) -> Any:
    _check_axis("argsort", axis, x.ndim)
    if not descending:
        return mx.argsort(x, axis=axis).astype(INDEX)
    index = [slice(None)] * x.ndim
    index[axis] = slice(None, None, -1)
    flipped = mx.argsort(x[tuple(index)], axis=axis).astype(INDEX)
    n = x.shape[axis]
    return (n - 1 - flipped)[tuple(index)]


def vecdot(x1: Any, x2: Any, axis: int = -1) -> Any:
    if x1.shape[axis] != x2.shape[axis]:
        raise ValueError("vecdot: the contracted axes differ in extent.")
    if x1.dtype == mx.complex64:
        x1 = mx.conj(x1)  # (the standard's vecdot conjugates x1)
    return mx.sum(x1 * x2, axis=axis)


def _bit_shift(name: str) -> Callable[..., Any]:
    """Shifts by the bit width or more: the standard's 0 (-1 for a negative x1 >> n).

    MLX shifts as the hardware does, which takes the count modulo the width
    (``1 << 32`` is 1 for int32).
    """
    shift = getattr(mx, name)

    def func(x1: Any, x2: Any) -> Any:
        out = shift(x1, x2)
        too_far = mx.greater_equal(x2, 8 * out.dtype.size)
        if name == "left_shift":
            return mx.where(too_far, mx.zeros_like(out), out)
        sign = mx.where(mx.less(x1, 0), -1, 0).astype(out.dtype)
        return mx.where(too_far, sign, out)

    return func


def _integral(value: Any) -> bool:
    if isinstance(value, mx.array):
        return bool(mx.issubdtype(value.dtype, mx.integer))
    return type(value) is int


def _unsigned(value: Any) -> bool:
    return isinstance(value, mx.array) and bool(mx.issubdtype(value.dtype, mx.unsignedinteger))


def _int_division(name: str, floating: Callable[..., Any] | None = None) -> Callable[..., Any]:
    """Integer ``floor_divide``/``remainder`` that survive ``INT32_MIN`` by ``-1``.

    MLX divides integers with the CPU's instruction, which traps on the one quotient
    that overflows (SIGFPE kills the process). A divisor of -1 is answered without
    dividing: ``-x1`` (wrapping, as NumPy's ``INT32_MIN // -1``) and 0. Floating
    operands go to ``floating`` (default: MLX's function).
    """
    divide = getattr(mx, name)
    inexact = divide if floating is None else floating

    def func(x1: Any, x2: Any) -> Any:
        if not (_integral(x1) and _integral(x2)):
            return inexact(x1, x2)
        if type(x2) is int:
            # (a Python divisor is answered here: an array of it would widen int8
            # and int16 operands to int32)
            if x2 != -1:
                return divide(x1, x2)
            return mx.negative(x1) if name == "floor_divide" else mx.zeros_like(x1)
        if _unsigned(x1) or _unsigned(x2):
            return divide(x1, x2)  # (no quotient overflows; -1 is no unsigned value)
        if type(x1) is int:
            x1 = mx.array(x1, dtype=x2.dtype)
        by_minus_one = mx.equal(x2, -1)
        out = divide(x1, mx.where(by_minus_one, 1, x2))
        instead = mx.negative(x1) if name == "floor_divide" else mx.zeros_like(out)
        return mx.where(by_minus_one, instead, out)

    return func


def _inexact(*arrays: Any) -> None:
    """MLX multiplies matrices of floating dtypes only: hand integer ones to NumPy."""
    for a in arrays:
        if a.dtype != mx.float32 and not mx.issubdtype(a.dtype, mx.floating):
            raise NeedsHost


_FLOAT32_ONLY: Final = frozenset({mx.float32})


def matmul(x1: Any, x2: Any) -> Any:
    # (float32, the common case, first; a set lookup is cheaper than MLX's dtype !=)
    if x1.dtype not in _FLOAT32_ONLY or x2.dtype not in _FLOAT32_ONLY:
        _inexact(x1, x2)
    return mx.matmul(x1, x2)


def tensordot(x1: Any, x2: Any, axes: Any = 2) -> Any:
    _inexact(x1, x2)
    return mx.tensordot(x1, x2, axes=axes)


def tril(x: Any, k: int = 0) -> Any:
    return mx.tril(x, k)


def triu(x: Any, k: int = 0) -> Any:
    return mx.triu(x, k)


def meshgrid(*arrays: Any, indexing: str = "xy") -> Any:
    return mx.meshgrid(*arrays, indexing=indexing)


def broadcast_arrays(*arrays: Any) -> Any:
    return mx.broadcast_arrays(*arrays)


def diff(x: Any, axis: int = -1, n: int = 1, prepend: Any = None, append: Any = None) -> Any:
    parts = [p for p in (prepend, x, append) if p is not None]
    if len(parts) > 1:
        x = mx.concatenate(parts, axis=axis)
    if n == 0:
        return mx.array(x)  # (MLX's diff of order 0 is its operand itself: a copy)
    return mx.diff(x, n=n, axis=axis)


def count_nonzero(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return mx.sum(x != 0, axis=axis, keepdims=keepdims).astype(INDEX)


def _freq(name: str) -> Callable[..., Any]:
    def func(n: int, d: float = 1.0, dtype: Any = None) -> Any:
        out = getattr(mx.fft, name)(n, d=d)
        return out.astype(dtype) if dtype is not None else out

    return func


def _shift(name: str) -> Callable[..., Any]:
    return lambda x, axes=None: getattr(mx.fft, name)(x, axes=axes)


#: The main namespace: a string names ``mlx.core``'s function of that name; a
#: callable is the shim; a name absent here runs in NumPy on a host copy.
MAIN: Final[dict[str, str | Callable[..., Any]]] = {
    # elementwise
    "abs": abs,
    "acos": "arccos",
    "acosh": "arccosh",
    "asin": "arcsin",
    "asinh": "arcsinh",
    "atan": "arctan",
    "atanh": "arctanh",
    "bitwise_invert": "bitwise_invert",
    "ceil": "ceil",
    "conj": "conj",
    "cos": "cos",
    "cosh": "cosh",
    "exp": "exp",
    "expm1": expm1,
    "floor": "floor",
    "imag": "imag",
    "isfinite": "isfinite",
    "isinf": "isinf",
    "isnan": "isnan",
    "log": "log",
    "log1p": "log1p",
    "log2": "log2",
    "log10": "log10",
    "logical_not": "logical_not",
    "negative": "negative",
    "positive": positive,
    "real": "real",
    "reciprocal": "reciprocal",
    "round": "round",
    "sign": sign,
    "sin": sin,
    "sinh": "sinh",
    "square": "square",
    "sqrt": "sqrt",
    "tan": "tan",
    "tanh": tanh,
    "trunc": "trunc",
    "add": "add",
    "atan2": "arctan2",
    "bitwise_and": "bitwise_and",
    "bitwise_left_shift": _bit_shift("left_shift"),
    "bitwise_or": "bitwise_or",
    "bitwise_right_shift": _bit_shift("right_shift"),
    "bitwise_xor": "bitwise_xor",
    "divide": "divide",
    "equal": "equal",
    "floor_divide": _int_division("floor_divide"),
    "greater": "greater",
    "greater_equal": "greater_equal",
    "less": "less",
    "less_equal": "less_equal",
    "logaddexp": "logaddexp",
    "logical_and": "logical_and",
    "logical_or": "logical_or",
    "logical_xor": "logical_xor",
    "maximum": "maximum",
    "minimum": "minimum",
    "multiply": "multiply",
    "not_equal": "not_equal",
    "pow": "power",
    "remainder": _int_division("remainder", _remainder),
    "subtract": "subtract",
    "clip": clip,
    # creation
    "zeros": zeros,
    "ones": ones,
    "empty": zeros,
    "full": full,
    "eye": eye,
    "arange": arange,
    "linspace": linspace,
    "meshgrid": meshgrid,
    "tril": tril,
    "triu": triu,
    # linear algebra
    "matmul": matmul,
    "matrix_transpose": matrix_transpose,
    "tensordot": tensordot,
    "vecdot": vecdot,
    # manipulation
    "broadcast_arrays": broadcast_arrays,
    "broadcast_to": "broadcast_to",
    "concat": concat,
    "expand_dims": expand_dims,
    "flip": flip,
    "moveaxis": moveaxis,
    "permute_dims": permute_dims,
    "repeat": repeat,
    "reshape": reshape,
    "roll": roll,
    "squeeze": squeeze,
    "stack": stack,
    "tile": tile,
    "unstack": unstack,
    # searching, sorting, indexing
    "argmax": _arg("argmax"),
    "argmin": _arg("argmin"),
    "count_nonzero": count_nonzero,
    "where": where,
    "sort": sort,
    "argsort": argsort,
    "take": take,
    "take_along_axis": take_along_axis,
    # statistics, utilities
    "sum": _sum_like("sum"),
    "prod": _sum_like("prod"),
    "max": _reduce("max"),
    "min": _reduce("min"),
    "mean": mean,
    "std": _moment("std"),
    "var": _moment("var"),
    "all": _reduce("all"),
    "any": _reduce("any"),
    "cumulative_sum": _cumulative("cumsum", 0),
    "cumulative_prod": _cumulative("cumprod", 1),
    "diff": diff,
}

LINALG: Final[dict[str, str | Callable[..., Any]]] = {
    "matmul": matmul,
    "matrix_transpose": matrix_transpose,
    "tensordot": tensordot,
    "vecdot": vecdot,
    # The factorizations stay with NumPy: MLX runs them on its CPU stream only, and
    # mlx 0.32's linalg.inv kills the process (SIGFPE) on some singular inputs.
}

FFT: Final[dict[str, str | Callable[..., Any]]] = {
    "fftfreq": _freq("fftfreq"),
    "rfftfreq": _freq("rfftfreq"),
    "fftshift": _shift("fftshift"),
    "ifftshift": _shift("ifftshift"),
}
