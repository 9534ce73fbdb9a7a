"""The functions of :mod:`stridewave.array_api`, each delegated to its device's backend.

Every function finds the device of its array arguments (mixing devices raises
``ValueError``), reads them without a copy, calls the function of the same name
in the namespace of the device's backend (:class:`~stridewave.array_api._backend.Backend`:
``array_api_compat.numpy`` for host carriers, ``mlx.core`` and its shims for Metal)
and adopts the result as a fresh carrier of that device; a device whose backend
offers direct calls (Metal) tries those first. Nothing is computed here: the only
work of our own is argument translation (dtype descriptors to backend dtypes, each
device's default dtypes: NumPy's on the host devices, MLX's on Metal) and the dtype
rules of the standard (no silent narrowing of data).
"""

from __future__ import annotations

import builtins
import inspect
from collections.abc import Callable, Sequence
from typing import Any, Final

import numpy as np

from stridewave.array_api import _dtypes, _messages
from stridewave.array_api._array import (
    OPERATOR_NAMES,
    Array,
    adopted,
    as_array,
    common_device,
    install,
    read,
    wrap,
    wrap_one,
)
from stridewave.array_api._backend import Adopted, strided_layout
from stridewave.array_api._device import Device, as_device, check_dtype, default_device
from stridewave.array_api._messages import DeviceMismatch
from stridewave.dtypes import DType
from stridewave.tensor import Tensor

_P = inspect.Parameter
_POS: Final = _P.POSITIONAL_ONLY
_KW: Final = _P.KEYWORD_ONLY
_PK: Final = _P.POSITIONAL_OR_KEYWORD

_RAISES: Final = """
    Raises
    ------
    ValueError
        If array arguments live on different devices (move one with
        ``x.to_device``), or the backend refuses the arguments (shapes, axes).
    TypeError
        If a dtype is requested that is not the standard's or that the device does
        not store, or an argument has an unsupported type.
    RuntimeError
        If an array's carrier is released.
"""


#: Summaries that already start with a verb in the imperative.
_VERBS: Final = frozenset(
    {"Clamp", "Convert", "Broadcast", "Join", "Insert", "Reverse", "Move", "Permute"}
    | {"Repeat", "Give", "Roll", "Remove", "Split", "Solve", "Shift", "Transpose"}
)


def _document(func: Callable[..., Any], summary: str, returns: str = "Array") -> None:
    """Give ``func`` a numpydoc docstring built from its signature."""
    sig = inspect.signature(func)
    first = summary.split(" ", 1)[0]
    if first not in _VERBS:
        summary = f"Return {summary[0].lower()}{summary[1:]}"
    params = []
    for name, param in sig.parameters.items():
        star = "*" if param.kind is _P.VAR_POSITIONAL else ""
        kind = "array" if name in ("x", "x1", "x2", "arrays", "condition", "indices") else "object"
        if param.default is not _P.empty:
            kind += f", optional (default {param.default!r})"
        params.append(f"    {star}{name} : {kind}\n        See the array API standard 2024.12.")
    body = "\n".join(params) if params else "    None"
    func.__doc__ = (
        f"{summary}\n\n    Array API standard 2024.12 ``{func.__name__}``, delegated to NumPy "
        "(through\n    array_api_compat) for host carriers and to ``mlx.core`` for Metal.\n\n"
        f"    Parameters\n    ----------\n{body}\n\n    Returns\n    -------\n    {returns}\n"
        "        On the arguments' device, in a fresh carrier of its kind (or a view of\n"
        f"        an argument's carrier where the backend returns a view).\n{_RAISES}"
    )


def _document_all(pairs: Sequence[tuple[Callable[..., Any], str]]) -> None:
    """Document each ``(function, summary)`` pair (see :func:`_document`)."""
    for func, summary in pairs:
        _document(func, summary)


# -- the dispatch core --------------------------------------------------------------------


def _device_of_args(values: Sequence[object], device: object = None) -> Device:
    if device is None:
        # The common case first: Arrays (and scalars) only, all on one device.
        quick: Device | None = None
        for value in values:
            kind = type(value)
            if kind is Array:
                if quick is None:
                    quick = value._device  # type: ignore[attr-defined]
                elif value._device is not quick:  # type: ignore[attr-defined]
                    break  # (the general path below raises the error)
            elif (
                kind is list
                or kind is tuple
                or (kind not in _PLAIN_TYPES and isinstance(value, Tensor))
            ):
                break
        else:
            if quick is not None:
                return quick
    found = common_device(_flat(values))
    if device is not None:
        wanted = as_device(device)
        if found is not None and wanted is not found:
            raise DeviceMismatch(_messages.device_requested(wanted, found))
        return wanted
    return found if found is not None else default_device()


#: Argument types that are neither arrays nor sequences: passed through unchecked.
_PLAIN_TYPES: Final = frozenset({bool, int, float, type(None), str})

#: The Python scalars a direct call takes as operands.
_PY_SCALARS: Final = frozenset({bool, int, float})

#: Not looked up yet (a direct call's cache; None is an answer: no direct call).
_UNSET: Final = object()


class _Directs:
    """A function's direct calls by device (``Backend.direct``), looked up once each."""

    __slots__ = ("found", "name")

    def __init__(self, name: str) -> None:
        self.name = name
        self.found: dict[Device, Callable[..., Adopted | None] | None] = {}

    def of(self, device: Device) -> Callable[..., Adopted | None] | None:
        """Return the direct call of this function on ``device``, or None."""
        call = self.found.get(device, _UNSET)
        if call is _UNSET:
            call = self.found[device] = device.backend.direct(self.name)
        return call  # type: ignore[return-value]


_DIRECTS: Final[dict[str, _Directs]] = {}


def _directs(name: str) -> _Directs:
    """Return the direct-call cache of the namespace function ``name``."""
    found = _DIRECTS.get(name)
    if found is None:
        found = _DIRECTS[name] = _Directs(name)
    return found


def _flat(values: Sequence[object]) -> list[object]:
    out: list[object] = []
    for value in values:
        if isinstance(value, (list, tuple)):
            out.extend(value)
        else:
            out.append(value)
    return out


def _read_argument(value: Any, device: Device, sources: list[Tensor]) -> Any:
    """Return ``value`` as the backend reads it; arrays found are appended to ``sources``.

    A module-level function, not a closure over ``_apply``'s locals: a recursive closure
    refers to itself through its cell, and that cycle (holding ``sources``) would keep
    every input array alive until the garbage collector runs.
    """
    kind = type(value)
    if kind in _PLAIN_TYPES:
        return value
    if kind is Array or isinstance(value, Tensor):
        sources.append(value)
        return read(value, device)
    if isinstance(value, (list, tuple)) and builtins.any(isinstance(v, Tensor) for v in value):
        return type(value)(_read_argument(v, device, sources) for v in value)
    return value


def _apply(
    name: str,
    args: tuple[Any, ...],
    kwargs: dict[str, Any] | None = None,
    *,
    sub: str | None = None,
    device: Device | None = None,
) -> Any:
    """Delegate ``name`` to the backend of the arguments' device and wrap the result."""
    kwargs = kwargs or {}
    if device is None and sub is None and len(args) == 1 and type(args[0]) is Array:
        # One Array and plain keyword values (the statistical functions, most others):
        # straight to the backend, without the general argument walk below.
        x = args[0]
        for value in kwargs.values():
            if type(value) not in _PLAIN_TYPES:
                break
        else:
            device = x._device
            if device.has_direct:
                call = _directs(name).of(device)
                if call is not None:
                    found = call(x, **kwargs)
                    if found is not None:
                        return adopted(found, device)
            backend = device.backend
            return wrap(getattr(backend.ns, name)(backend.read(x), **kwargs), device, (x,))
    if device is None:
        device = _device_of_args(list(args) + list(kwargs.values()))
    sources: list[Tensor] = []
    call_args = [_read_argument(a, device, sources) for a in args]
    call_kwargs = {k: _read_argument(v, device, sources) for k, v in kwargs.items()}
    backend = device.backend
    namespace = backend.ns if sub is None else getattr(backend.ns, sub)
    result = getattr(namespace, name)(*call_args, **call_kwargs)
    return wrap(result, device, tuple(sources))


def _one(
    name: str,
    args: tuple[Any, ...],
    kwargs: dict[str, Any] | None = None,
    *,
    sub: str | None = None,
    device: Device | None = None,
) -> Array:
    """:func:`_apply` for functions that return one array."""
    result: Array = _apply(name, args, kwargs, sub=sub, device=device)
    return result


def _unary(name: str, summary: str) -> Callable[[Any], Array]:
    rounding = name in ("ceil", "floor", "round", "trunc")
    directs = _directs(name)

    def func(x: Any, /) -> Array:
        if type(x) is not Array and not isinstance(x, Tensor):
            raise TypeError(_messages.expects_array(name, x))
        device = x._device if type(x) is Array else _device_of_args((x,))
        if device.has_direct and not rounding and type(x) is Array:
            call = directs.of(device)
            if call is not None:
                found = call(x)
                if found is not None:
                    return adopted(found, device)
        backend = device.backend
        if rounding and not _dtypes.isdtype(x.dtype, ("real floating", "complex floating")):
            # Rounding an integer is the identity (the standard keeps the dtype);
            # NumPy would answer in float64.
            return wrap_one(backend.cast(read(x, device), x.dtype), device)
        return wrap_one(getattr(backend.ns, name)(read(x, device)), device)

    func.__name__ = func.__qualname__ = name
    func.__signature__ = inspect.Signature([_P("x", _POS)])  # type: ignore[attr-defined]
    _document(func, summary)
    return func


def _binary(name: str, summary: str) -> Callable[[Any, Any], Array]:
    directs = _directs(name)

    def func(x1: Any, x2: Any, /) -> Array:
        try:
            # (Python scalars of the int32 range, floats, bools and arrays pass as they
            # are; anything else goes through _scalar_operand. Inlined for both operands:
            # this runs before every launch.)
            k2 = type(x2)
            if not (
                k2 is Array
                or k2 is float
                or k2 is bool
                or (k2 is int and _INT32_MIN <= x2 <= _INT32_MAX)
                or isinstance(x2, Tensor)
            ):
                x2 = _scalar_operand(name, x2, x1)
                k2 = type(x2)
            k1 = type(x1)
            if not (
                k1 is Array
                or k1 is float
                or k1 is bool
                or (k1 is int and _INT32_MIN <= x1 <= _INT32_MAX)
                or isinstance(x1, Tensor)
            ):
                x1 = _scalar_operand(name, x1, x2)
                k1 = type(x1)
            first = x1._device if k1 is Array else x2._device if k2 is Array else None
            if (
                first is not None
                and first.has_direct
                and (k1 is Array or k1 in _PY_SCALARS)
                and (k2 is Array or k2 in _PY_SCALARS)
            ):
                call = directs.of(first)
                if call is not None:
                    found = call(x1, x2)
                    if found is not None:
                        return adopted(found, first)
            if k1 is Array or isinstance(x1, Tensor):
                device = x1._device if k1 is Array else _device_of_args((x1,))
                if k2 is int or k2 is float or k2 is bool:
                    b: Any = x2  # (a Python scalar: answered before the Tensor ABC check)
                elif k2 is Array or isinstance(x2, Tensor):
                    other = x2._device if k2 is Array else _device_of_args((x2,))
                    if other is not device:
                        raise DeviceMismatch(_messages.devices_differ(device, other, name))
                    b = read(x2, device)
                else:
                    b = _scalar_operand(name, x2)
                a: Any = read(x1, device)
            elif isinstance(x2, Tensor):
                device = x2._device if k2 is Array else _device_of_args((x2,))  # type: ignore[attr-defined]
                a = _scalar_operand(name, x1)
                b = read(x2, device)
            else:
                raise TypeError(_messages.needs_an_array(name, x1, x2))
            return wrap_one(getattr(device.backend.ns, name)(a, b), device)
        except ValueError as exc:
            _raise_if_unbroadcastable(name, x1, x2, exc)
            raise

    func.__name__ = func.__qualname__ = name
    func.__signature__ = inspect.Signature([_P("x1", _POS), _P("x2", _POS)])  # type: ignore[attr-defined]
    _document(func, summary)
    return func


def _scalar_operand(name: str, value: object, other: object = None) -> object:
    """Return the scalar operand ``value`` of ``name`` as the backends take it.

    A NumPy scalar of a bool, integer or floating dtype becomes the Python scalar of
    its value (as array_api_compat takes NumPy's): it then promotes weakly, the
    standard's rule for Python scalars. A Python int outside the int32 range becomes a
    float next to a float32 array (NumPy's rule, NEP 50) and raises OverflowError next
    to any other (MLX would fail with ``std::bad_cast``).
    """
    if isinstance(value, np.generic) and value.dtype.kind in "biufc":
        value = value.item()
    if isinstance(value, (bool, int, float, complex)):
        if (
            isinstance(value, int)
            and not isinstance(value, bool)
            and not _INT32_MIN <= value <= _INT32_MAX
        ):
            dtype = getattr(other, "dtype", None)
            if dtype is not None and not _dtypes.isdtype(dtype, "integral"):
                return float(value)
            if dtype is not None:
                info = _dtypes.iinfo(dtype)
                if not info.min <= value <= info.max:
                    raise OverflowError(_messages.int_out_of_range(name, value, dtype))
        return value
    raise TypeError(_messages.bad_operand(name, value))


def _shape_of(value: object) -> tuple[int, ...]:
    shape = getattr(value, "shape", ())
    return tuple(shape) if isinstance(shape, tuple) else ()


def _raise_if_unbroadcastable(name: str, x1: object, x2: object, exc: ValueError) -> None:
    """Raise this namespace's ValueError when ``x1`` and ``x2`` cannot broadcast.

    The backends word it each their own way (NumPy: "operands could not be broadcast
    together", MLX: "[broadcast_shapes] ..."); a program gets one message on every
    device. Returns (the caller re-raises ``exc``) when the shapes do broadcast.
    """
    if isinstance(exc, DeviceMismatch):
        return  # (raised before any shape was looked at)
    s1, s2 = _shape_of(x1), _shape_of(x2)
    try:
        np.broadcast_shapes(s1, s2)
    except ValueError:
        raise ValueError(_messages.shapes_do_not_broadcast(name, s1, s2)) from exc


_INT32_MIN: Final = -(2**31)
_INT32_MAX: Final = 2**31 - 1


# -- elementwise functions ----------------------------------------------------------------

_UNARY: Final = {
    "abs": "Absolute value, elementwise.",
    "acos": "Inverse cosine, elementwise.",
    "acosh": "Inverse hyperbolic cosine, elementwise.",
    "asin": "Inverse sine, elementwise.",
    "asinh": "Inverse hyperbolic sine, elementwise.",
    "atan": "Inverse tangent, elementwise.",
    "atanh": "Inverse hyperbolic tangent, elementwise.",
    "bitwise_invert": "Bitwise NOT, elementwise.",
    "ceil": "Round towards +infinity, elementwise.",
    "conj": "Complex conjugate (the identity for real dtypes), elementwise.",
    "cos": "Cosine, elementwise.",
    "cosh": "Hyperbolic cosine, elementwise.",
    "exp": "Exponential, elementwise.",
    "expm1": "``exp(x) - 1``, elementwise.",
    "floor": "Round towards -infinity, elementwise.",
    "imag": "Imaginary part (zero for real dtypes), elementwise.",
    "isfinite": "Whether each element is finite.",
    "isinf": "Whether each element is infinite.",
    "isnan": "Whether each element is NaN.",
    "log": "Natural logarithm, elementwise.",
    "log1p": "``log(1 + x)``, elementwise.",
    "log2": "Base-2 logarithm, elementwise.",
    "log10": "Base-10 logarithm, elementwise.",
    "logical_not": "Logical NOT, elementwise.",
    "negative": "Numerical negative, elementwise.",
    "positive": "Numerical positive (a copy), elementwise.",
    "real": "Real part (the identity for real dtypes), elementwise.",
    "reciprocal": "``1 / x``, elementwise.",
    "round": "Round to the nearest integer (half to even), elementwise.",
    "sign": "Sign (-1, 0, 1), elementwise.",
    "signbit": "Whether the sign bit is set, elementwise.",
    "sin": "Sine, elementwise.",
    "sinh": "Hyperbolic sine, elementwise.",
    "square": "``x * x``, elementwise.",
    "sqrt": "Square root, elementwise.",
    "tan": "Tangent, elementwise.",
    "tanh": "Hyperbolic tangent, elementwise.",
    "trunc": "Round towards zero, elementwise.",
}

_BINARY: Final = {
    "add": "Sum ``x1 + x2``, elementwise.",
    "atan2": "Inverse tangent of ``x1 / x2`` by quadrant, elementwise.",
    "bitwise_and": "Bitwise AND, elementwise.",
    "bitwise_left_shift": "Shift the bits of ``x1`` left by ``x2``, elementwise.",
    "bitwise_or": "Bitwise OR, elementwise.",
    "bitwise_right_shift": "Shift the bits of ``x1`` right by ``x2``, elementwise.",
    "bitwise_xor": "Bitwise XOR, elementwise.",
    "copysign": "``x1`` with the sign of ``x2``, elementwise.",
    "divide": "Quotient ``x1 / x2``, elementwise.",
    "equal": "Whether ``x1 == x2``, elementwise.",
    "floor_divide": "Floored quotient ``x1 // x2``, elementwise.",
    "greater": "Whether ``x1 > x2``, elementwise.",
    "greater_equal": "Whether ``x1 >= x2``, elementwise.",
    "hypot": "``sqrt(x1**2 + x2**2)``, elementwise.",
    "less": "Whether ``x1 < x2``, elementwise.",
    "less_equal": "Whether ``x1 <= x2``, elementwise.",
    "logaddexp": "``log(exp(x1) + exp(x2))``, elementwise.",
    "logical_and": "Logical AND, elementwise.",
    "logical_or": "Logical OR, elementwise.",
    "logical_xor": "Logical XOR, elementwise.",
    "maximum": "Larger of ``x1`` and ``x2`` (NaN propagates), elementwise.",
    "minimum": "Smaller of ``x1`` and ``x2`` (NaN propagates), elementwise.",
    "multiply": "Product ``x1 * x2``, elementwise.",
    "nextafter": "Next representable value after ``x1`` towards ``x2``, elementwise.",
    "not_equal": "Whether ``x1 != x2``, elementwise.",
    "pow": "``x1`` raised to ``x2``, elementwise.",
    "remainder": "Remainder of ``x1 / x2`` with the sign of ``x2``, elementwise.",
    "subtract": "Difference ``x1 - x2``, elementwise.",
}

for _name, _summary in _UNARY.items():
    globals()[_name] = _unary(_name, _summary)
for _name, _summary in _BINARY.items():
    globals()[_name] = _binary(_name, _summary)

# Names the generated globals above bind, for type checkers and the operators.
abs: Callable[[Any], Array]
acos: Callable[[Any], Array]
acosh: Callable[[Any], Array]
asin: Callable[[Any], Array]
asinh: Callable[[Any], Array]
atan: Callable[[Any], Array]
atanh: Callable[[Any], Array]
bitwise_invert: Callable[[Any], Array]
ceil: Callable[[Any], Array]
conj: Callable[[Any], Array]
cos: Callable[[Any], Array]
cosh: Callable[[Any], Array]
exp: Callable[[Any], Array]
expm1: Callable[[Any], Array]
floor: Callable[[Any], Array]
imag: Callable[[Any], Array]
isfinite: Callable[[Any], Array]
isinf: Callable[[Any], Array]
isnan: Callable[[Any], Array]
log: Callable[[Any], Array]
log1p: Callable[[Any], Array]
log2: Callable[[Any], Array]
log10: Callable[[Any], Array]
logical_not: Callable[[Any], Array]
negative: Callable[[Any], Array]
positive: Callable[[Any], Array]
real: Callable[[Any], Array]
reciprocal: Callable[[Any], Array]
round: Callable[[Any], Array]
sign: Callable[[Any], Array]
signbit: Callable[[Any], Array]
sin: Callable[[Any], Array]
sinh: Callable[[Any], Array]
square: Callable[[Any], Array]
sqrt: Callable[[Any], Array]
tan: Callable[[Any], Array]
tanh: Callable[[Any], Array]
trunc: Callable[[Any], Array]
add: Callable[[Any, Any], Array]
atan2: Callable[[Any, Any], Array]
bitwise_and: Callable[[Any, Any], Array]
bitwise_left_shift: Callable[[Any, Any], Array]
bitwise_or: Callable[[Any, Any], Array]
bitwise_right_shift: Callable[[Any, Any], Array]
bitwise_xor: Callable[[Any, Any], Array]
copysign: Callable[[Any, Any], Array]
divide: Callable[[Any, Any], Array]
equal: Callable[[Any, Any], Array]
floor_divide: Callable[[Any, Any], Array]
greater: Callable[[Any, Any], Array]
greater_equal: Callable[[Any, Any], Array]
hypot: Callable[[Any, Any], Array]
less: Callable[[Any, Any], Array]
less_equal: Callable[[Any, Any], Array]
logaddexp: Callable[[Any, Any], Array]
logical_and: Callable[[Any, Any], Array]
logical_or: Callable[[Any, Any], Array]
logical_xor: Callable[[Any, Any], Array]
maximum: Callable[[Any, Any], Array]
minimum: Callable[[Any, Any], Array]
multiply: Callable[[Any, Any], Array]
nextafter: Callable[[Any, Any], Array]
not_equal: Callable[[Any, Any], Array]
pow: Callable[[Any, Any], Array]
remainder: Callable[[Any, Any], Array]
subtract: Callable[[Any, Any], Array]


def clip(x: Any, /, min: Any = None, max: Any = None) -> Array:
    device = _device_of_args((x, min, max))
    return _one("clip", (x,), {"min": min, "max": max}, device=device)


_document(clip, "Clamp each element to ``[min, max]``.")


# -- creation -----------------------------------------------------------------------------


def _creation_device(device: object) -> Device:
    return default_device() if device is None else as_device(device)


def _dtype_or(dtype: object, default: DType) -> DType:
    return default if dtype is None else _dtypes.as_dtype(dtype)


def _default(device: Device, kind: str) -> DType:
    """Return the device's default dtype of ``kind`` (its backend's table)."""
    return device.backend.default_dtypes()[kind]


def _infer_dtype(value: object, device: Device) -> DType:
    if isinstance(value, Tensor):
        return value.dtype
    if isinstance(value, np.generic) and _dtypes.from_numpy(value.dtype) is not None:
        found = _dtypes.from_numpy(value.dtype)
        assert found is not None
        return found
    if isinstance(value, (bool, np.bool_)):
        return DType.Bool
    if isinstance(value, (int, np.integer)):
        return _default(device, "integral")
    if isinstance(value, (float, np.floating)):
        return _default(device, "real floating")
    if isinstance(value, (complex, np.complexfloating)):
        return _default(device, "complex floating")
    raise TypeError(_messages.no_dtype_for(value))


def _check_shape(shape: object) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        return (int(shape),)
    if isinstance(shape, (tuple, list)):
        return tuple(int(s) for s in shape)
    raise TypeError(_messages.bad_shape(shape))


def _create(name: str, args: tuple[Any, ...], dtype: DType, device: Device, **kwargs: Any) -> Array:
    check_dtype(device, dtype)
    backend = device.backend
    return wrap_one(
        getattr(backend.ns, name)(*args, dtype=backend.native_dtype(dtype), **kwargs), device
    )


def zeros(shape: Any, *, dtype: Any = None, device: Any = None) -> Array:
    target = _creation_device(device)
    chosen = _dtype_or(dtype, _default(target, "real floating"))
    return _create("zeros", (_check_shape(shape),), chosen, target)


def ones(shape: Any, *, dtype: Any = None, device: Any = None) -> Array:
    target = _creation_device(device)
    chosen = _dtype_or(dtype, _default(target, "real floating"))
    return _create("ones", (_check_shape(shape),), chosen, target)


def empty(shape: Any, *, dtype: Any = None, device: Any = None) -> Array:
    target = _creation_device(device)
    chosen = _dtype_or(dtype, _default(target, "real floating"))
    return _create("empty", (_check_shape(shape),), chosen, target)


def full(shape: Any, fill_value: Any, *, dtype: Any = None, device: Any = None) -> Array:
    target = _creation_device(device)
    chosen = _dtype_or(dtype, _infer_dtype(fill_value, target))
    _check_fill(fill_value, chosen)
    return _create("full", (_check_shape(shape), fill_value), chosen, target)


def _check_fill(value: object, dtype: DType) -> None:
    if isinstance(value, Tensor):
        return
    if (
        isinstance(value, int)
        and not isinstance(value, bool)
        and _dtypes.isdtype(dtype, "integral")
    ):
        info = _dtypes.iinfo(dtype)
        if not info.min <= value <= info.max:
            raise OverflowError(_messages.fill_out_of_range(value, dtype))


def _like_device(x: Any, device: object) -> Device:
    return _device_of_args((x,)) if device is None else as_device(device)


def zeros_like(x: Any, /, *, dtype: Any = None, device: Any = None) -> Array:
    return zeros(x.shape, dtype=_dtype_or(dtype, x.dtype), device=_like_device(x, device))


def ones_like(x: Any, /, *, dtype: Any = None, device: Any = None) -> Array:
    return ones(x.shape, dtype=_dtype_or(dtype, x.dtype), device=_like_device(x, device))


def empty_like(x: Any, /, *, dtype: Any = None, device: Any = None) -> Array:
    return empty(x.shape, dtype=_dtype_or(dtype, x.dtype), device=_like_device(x, device))


def full_like(x: Any, /, fill_value: Any, *, dtype: Any = None, device: Any = None) -> Array:
    return full(
        x.shape, fill_value, dtype=_dtype_or(dtype, x.dtype), device=_like_device(x, device)
    )


def eye(
    n_rows: int, n_cols: int | None = None, /, *, k: int = 0, dtype: Any = None, device: Any = None
) -> Array:
    target = _creation_device(device)
    chosen = _dtype_or(dtype, _default(target, "real floating"))
    return _create("eye", (n_rows, n_cols), chosen, target, k=k)


def arange(
    start: Any, /, stop: Any = None, step: Any = 1, *, dtype: Any = None, device: Any = None
) -> Array:
    ints = builtins.all(
        isinstance(v, int) and not isinstance(v, bool) for v in (start, stop, step) if v is not None
    )
    target = _creation_device(device)
    chosen = _dtype_or(dtype, _default(target, "integral" if ints else "real floating"))
    return _create("arange", (start, stop, step), chosen, target)


def linspace(
    start: Any,
    stop: Any,
    /,
    num: int,
    *,
    dtype: Any = None,
    device: Any = None,
    endpoint: bool = True,
) -> Array:
    target = _creation_device(device)
    complex_bounds = isinstance(start, complex) or isinstance(stop, complex)
    chosen = _dtype_or(
        dtype, _default(target, "complex floating" if complex_bounds else "real floating")
    )
    return _create("linspace", (start, stop, num), chosen, target, endpoint=endpoint)


def meshgrid(*arrays: Any, indexing: str = "xy") -> list[Array]:
    return list(_apply("meshgrid", arrays, {"indexing": indexing}))


def tril(x: Any, /, *, k: int = 0) -> Array:
    return _one("tril", (x,), {"k": k})


def triu(x: Any, /, *, k: int = 0) -> Array:
    return _one("triu", (x,), {"k": k})


def asarray(
    obj: Any, /, *, dtype: Any = None, device: Any = None, copy: bool | None = None
) -> Array:
    wanted = None if dtype is None else _dtypes.as_dtype(dtype)
    if isinstance(obj, Tensor):
        x = as_array(obj)
        target = x._device if device is None else as_device(device)
        same = (wanted is None or wanted is x.dtype) and target == x._device
        if same and not copy:
            return x
        if copy is False:
            raise ValueError(_messages.copy_needed(wanted or x.dtype, target, x.dtype, x._device))
        moved = x.to_device(target) if target != x._device else x
        if moved is not x and (wanted is None or wanted is moved.dtype):
            return moved
        return astype(moved, wanted if wanted is not None else x.dtype, copy=True)
    target = _creation_device(device)
    if copy is False:
        return _share(obj, wanted, target)
    values = _to_numpy(obj, wanted, target)
    if not values.flags.owndata or values is obj:
        # The carrier adopts ``values``' buffer: never the caller's own memory (only
        # copy=False shares it, above), so writes on either side stay apart.
        values = np.array(values, copy=True)
    backend = target.backend
    return wrap_one(backend.asarray(values, _dtypes.from_numpy(values.dtype)), target)


def _share(obj: Any, wanted: DType | None, target: Device) -> Array:
    """``asarray(copy=False)``: share a NumPy (or buffer) object's memory on CPU."""
    try:
        array = np.asarray(obj) if not isinstance(obj, (list, tuple, bool, int, float)) else None
    except (TypeError, ValueError):
        array = None
    if (
        array is None
        or _dtypes.from_numpy(array.dtype) is None
        or (wanted is not None and _dtypes.from_numpy(array.dtype) is not wanted)
        or not array.flags.c_contiguous
    ):
        raise ValueError(_messages.cannot_share(obj))
    return adopted(target.backend.share(array), target)


#: The dtype to ask for when a device lacks the data's dtype (the one-step narrower).
_NARROWER: Final = {"float64": "float32", "complex128": "complex64"}


def _to_numpy(obj: Any, wanted: DType | None, target: Device) -> np.ndarray[Any, Any]:
    """Convert an array-like to NumPy with the namespace's dtype rules.

    Data with a dtype keeps it where ``target`` stores it (no silent narrowing);
    Python scalars and sequences of them take the device's default dtypes.
    """
    python_data = isinstance(obj, (bool, int, float, complex, list, tuple))
    if isinstance(obj, (list, tuple)) and builtins.any(
        isinstance(v, Tensor) for v in _flat(list(obj))
    ):
        obj = _nested_to_numpy(obj)
        python_data = False
    if wanted is not None:
        check_dtype(target, wanted)
        if isinstance(obj, (bool, int, float)):
            _check_fill(obj, wanted)
        array = np.asarray(obj)
        if array.dtype.kind == "c" and not _dtypes.isdtype(wanted, "complex floating"):
            raise TypeError(_messages.complex_values())
        if _dtypes.isdtype(wanted, "integral") and array.dtype.kind in "iu" and array.size:
            info = _dtypes.iinfo(wanted)
            if array.min() < info.min or array.max() > info.max:
                raise OverflowError(_messages.values_out_of_range(wanted))
        if wanted is DType.Float32 and array.dtype.kind == "f":
            return _to_float32(array, obj)
        return np.asarray(array, dtype=_dtypes.numpy_dtype(wanted))
    array = np.asarray(obj)
    kind = array.dtype.kind
    if python_data and kind in "biufc":
        chosen = (
            DType.Bool
            if kind == "b"
            else _default(
                target,
                "integral"
                if kind in "iu"
                else "real floating"
                if kind == "f"
                else "complex floating",
            )
        )
        if kind in "iu" and array.size:
            info = _dtypes.iinfo(chosen)
            if array.min() < info.min or array.max() > info.max:
                raise OverflowError(_messages.integers_out_of_range(obj, chosen))
        if chosen is DType.Float32 and kind == "f":
            return _to_float32(array, obj)
        return array.astype(_dtypes.numpy_dtype(chosen), copy=False)
    found = _dtypes.from_numpy(array.dtype)
    if found is None:
        raise TypeError(_messages.no_namespace_dtype(obj, array.dtype))
    try:
        check_dtype(target, found)
    except TypeError as exc:
        names = {d: n for n, d in _dtypes.DTYPES.items()}
        fix = _NARROWER.get(names[found], "float32")
        raise TypeError(_messages.data_not_on_device(str(exc), fix)) from None
    return array


def _to_float32(array: np.ndarray[Any, Any], obj: object) -> np.ndarray[Any, Any]:
    """Round floating ``array`` to float32; a finite value beyond float32 is refused.

    The carriers' Float32 rule (CONTRACT section 3): a finite value whose nearest
    binary32 is infinite raises ``OverflowError`` instead of becoming ``inf``.
    """
    with np.errstate(over="ignore"):
        out = array.astype(np.float32)
    if out.dtype != array.dtype and array.size:
        overflowed = np.isinf(out) & np.isfinite(array)
        if overflowed.any():
            bad = array[overflowed].flat[0]
            raise OverflowError(_messages.float32_overflow(bad, obj))
    return out


def _nested_to_numpy(obj: Any) -> Any:
    if isinstance(obj, Tensor):
        return np.asarray(as_array(obj))
    if isinstance(obj, (list, tuple)):
        return [_nested_to_numpy(v) for v in obj]
    return obj


def from_dlpack(x: Any, /, *, device: Any = None, copy: bool | None = None) -> Array:
    if isinstance(x, Tensor):
        return asarray(x, device=device, copy=copy)
    target = _creation_device(device)
    if target.backend.host_addressable:
        array = np.from_dlpack(x, copy=copy) if copy is not None else np.from_dlpack(x)
        return asarray(array, device=target, copy=copy is not False)
    return asarray(np.from_dlpack(x), device=target)


_document_all(
    (
        (zeros, "An array of zeros."),
        (ones, "An array of ones."),
        (empty, "An uninitialized array (zeros on carriers that always initialize)."),
        (full, "An array filled with ``fill_value``."),
        (zeros_like, "Zeros shaped like ``x``."),
        (ones_like, "Ones shaped like ``x``."),
        (empty_like, "An uninitialized array shaped like ``x``."),
        (full_like, "``fill_value`` shaped like ``x``."),
        (eye, "A 2-D array with ones on the ``k``-th diagonal."),
        (arange, "Evenly spaced values in ``[start, stop)``."),
        (linspace, "``num`` evenly spaced values over ``[start, stop]``."),
        (tril, "The lower triangle of (a stack of) matrices."),
        (triu, "The upper triangle of (a stack of) matrices."),
        (asarray, "Convert ``obj`` to an array (a Tensor is wrapped without a copy)."),
        (from_dlpack, "An array from a DLPack-capable object."),
    )
)
_document(meshgrid, "Coordinate matrices from coordinate vectors.", returns="list of Array")


# -- data type functions ------------------------------------------------------------------


def astype(x: Any, dtype: Any, /, *, copy: bool = True, device: Any = None) -> Array:
    target = _dtypes.as_dtype(dtype)
    array: Array = as_array(x)
    if device is not None and as_device(device) != array._device:
        array = array.to_device(device)
    if target is array.dtype and not copy:
        return array
    check_dtype(array._device, target)
    x = array
    backend = x._device.backend
    return wrap_one(backend.cast(read(x, x._device), target), x._device)


_document(astype, "A copy of ``x`` cast to ``dtype``.")
can_cast = _dtypes.can_cast
finfo = _dtypes.finfo
iinfo = _dtypes.iinfo
isdtype = _dtypes.isdtype
result_type = _dtypes.result_type


# -- linear algebra in the main namespace -------------------------------------------------


_MATMUL_DIRECTS: Final = _directs("matmul")


def matmul(x1: Any, x2: Any, /) -> Array:
    try:
        if (
            type(x1) is Array
            and type(x2) is Array
            and (x1._device is x2._device or x1._device == x2._device)
        ):
            # Two Arrays on one device (the common case): straight to the backend, as
            # the elementwise functions go, without the general argument walk of _apply.
            device = x1._device
            if device.has_direct:
                call = _MATMUL_DIRECTS.of(device)
                if call is not None:
                    found = call(x1, x2)
                    if found is not None:
                        return adopted(found, device)
            backend = device.backend
            return wrap_one(backend.ns.matmul(backend.read(x1), backend.read(x2)), device)
        if not (isinstance(x1, Tensor) and isinstance(x2, Tensor)):
            raise TypeError(_messages.matmul_needs_arrays())
        return _one("matmul", (x1, x2))
    except ValueError as exc:
        s1, s2 = _shape_of(x1), _shape_of(x2)
        if (
            s1
            and s2
            and s1[-1] != s2[-2 if len(s2) > 1 else 0]
            and not isinstance(exc, DeviceMismatch)
        ):
            raise ValueError(_messages.matmul_shapes(s1, s2)) from exc
        raise


def matrix_transpose(x: Any, /) -> Array:
    if type(x) is Array and x.ndim >= 2:
        return _permuted(x, (*range(x.ndim - 2), x.ndim - 1, x.ndim - 2))
    return _one("matrix_transpose", (x,))


def _permuted(x: Array, axes: tuple[int, ...]) -> Array:
    """Return ``x`` with its axes permuted: a view of the same carrier on every device.

    Pure geometry, as basic indexing is: a write through the result writes ``x``'s
    elements on Metal too (MLX's own transpose would be a copy).
    """
    layout = x._layout
    assert layout is not None
    shape, strides = layout._shape, layout._strides
    view = strided_layout(tuple(shape[a] for a in axes), tuple(strides[a] for a in axes))
    carrier = x._carrier
    assert carrier is not None
    return adopted((carrier, view, x._offset, None), x._device)


def tensordot(x1: Any, x2: Any, /, *, axes: Any = 2) -> Array:
    return _one("tensordot", (x1, x2), {"axes": axes})


def vecdot(x1: Any, x2: Any, /, *, axis: int = -1) -> Array:
    return _one("vecdot", (x1, x2), {"axis": axis})


_document_all(
    (
        (matmul, "Matrix product of (stacks of) matrices and vectors."),
        (matrix_transpose, "Transpose the last two axes (a view on host carriers)."),
        (tensordot, "Tensor contraction over ``axes``."),
        (vecdot, "Vector dot product over ``axis``."),
    )
)


# -- manipulation -------------------------------------------------------------------------


def broadcast_arrays(*arrays: Any) -> list[Array]:
    return list(_apply("broadcast_arrays", arrays))


def broadcast_to(x: Any, /, shape: Any) -> Array:
    return _one("broadcast_to", (x, tuple(shape)))


def concat(arrays: Any, /, *, axis: int | None = 0) -> Array:
    arrays = list(arrays)
    dtype = _dtypes.result_type(*arrays)
    device = _device_of_args(arrays)
    cast = [a if a.dtype is dtype else astype(a, dtype) for a in arrays]
    return _one("concat", (cast,), {"axis": axis}, device=device)


def expand_dims(x: Any, /, axis: int = 0) -> Array:
    return _one("expand_dims", (x,), {"axis": axis})


def flip(x: Any, /, *, axis: Any = None) -> Array:
    return _one("flip", (x,), {"axis": axis})


def moveaxis(x: Any, source: Any, destination: Any, /) -> Array:
    return _one("moveaxis", (x, source, destination))


def permute_dims(x: Any, /, axes: Any) -> Array:
    axes = tuple(axes)
    if (
        type(x) is Array
        and builtins.all(type(a) is int for a in axes)
        and sorted(a % x.ndim if x.ndim else a for a in axes) == list(range(x.ndim))
        and len(axes) == x.ndim
    ):
        return _permuted(x, tuple(a % x.ndim for a in axes))
    return _one("permute_dims", (x, axes))


def repeat(x: Any, repeats: Any, /, *, axis: int | None = None) -> Array:
    return _one("repeat", (x, repeats), {"axis": axis})


def reshape(x: Any, /, shape: Any, *, copy: bool | None = None) -> Array:
    shape = tuple(shape)
    try:
        return _one("reshape", (x, shape), {"copy": copy})
    except ValueError as exc:
        size = int(np.prod(_shape_of(x)))
        known = [n for n in shape if n != -1]
        fits = (
            shape.count(-1) <= 1
            and all(isinstance(n, int) and n >= -1 for n in shape)
            and (size == int(np.prod(known)) if -1 not in shape else True)
        )
        if not fits:
            raise ValueError(_messages.reshape_size(_shape_of(x), size, shape)) from exc
        raise


def roll(x: Any, /, shift: Any, *, axis: Any = None) -> Array:
    return _one("roll", (x, shift), {"axis": axis})


def squeeze(x: Any, /, axis: Any) -> Array:
    return _one("squeeze", (x,), {"axis": axis})


def stack(arrays: Any, /, *, axis: int = 0) -> Array:
    arrays = list(arrays)
    dtype = _dtypes.result_type(*arrays)
    device = _device_of_args(arrays)
    cast = [a if a.dtype is dtype else astype(a, dtype) for a in arrays]
    return _one("stack", (cast,), {"axis": axis}, device=device)


def tile(x: Any, repetitions: Any, /) -> Array:
    return _one("tile", (x, tuple(repetitions)))


def unstack(x: Any, /, *, axis: int = 0) -> tuple[Array, ...]:
    return tuple(_apply("unstack", (x,), {"axis": axis}))


_document_all(
    (
        (broadcast_to, "Broadcast ``x`` to ``shape`` (a view on host carriers)."),
        (concat, "Join arrays along an existing axis."),
        (expand_dims, "Insert an axis of extent one."),
        (flip, "Reverse the order of elements along ``axis``."),
        (moveaxis, "Move axes to new positions."),
        (permute_dims, "Permute the axes (a view on host carriers)."),
        (repeat, "Repeat each element."),
        (reshape, "Give a new shape to the values."),
        (roll, "Roll elements along ``axis``."),
        (squeeze, "Remove axes of extent one."),
        (stack, "Join arrays along a new axis."),
        (tile, "Repeat the whole array."),
    )
)
_document(broadcast_arrays, "Broadcast arrays against each other.", returns="list of Array")
_document(unstack, "Split into arrays along ``axis``.", returns="tuple of Array")


# -- searching, sorting, sets -------------------------------------------------------------


def argmax(x: Any, /, *, axis: int | None = None, keepdims: bool = False) -> Array:
    return _one("argmax", (x,), {"axis": axis, "keepdims": keepdims})


def argmin(x: Any, /, *, axis: int | None = None, keepdims: bool = False) -> Array:
    return _one("argmin", (x,), {"axis": axis, "keepdims": keepdims})


def count_nonzero(x: Any, /, *, axis: Any = None, keepdims: bool = False) -> Array:
    return _one("count_nonzero", (x,), {"axis": axis, "keepdims": keepdims})


def nonzero(x: Any, /) -> tuple[Array, ...]:
    if isinstance(x, Tensor) and len(x.shape) == 0:
        raise ValueError(_messages.nonzero_0d())
    return tuple(_apply("nonzero", (x,)))


def searchsorted(x1: Any, x2: Any, /, *, side: str = "left", sorter: Any = None) -> Array:
    return _one("searchsorted", (x1, x2), {"side": side, "sorter": sorter})


def where(condition: Any, x1: Any, x2: Any, /) -> Array:
    return _one("where", (condition, x1, x2))


def argsort(x: Any, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> Array:
    return _one("argsort", (x,), {"axis": axis, "descending": descending, "stable": stable})


def sort(x: Any, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> Array:
    return _one("sort", (x,), {"axis": axis, "descending": descending, "stable": stable})


def unique_all(x: Any, /) -> Any:
    return _apply("unique_all", (x,))


def unique_counts(x: Any, /) -> Any:
    return _apply("unique_counts", (x,))


def unique_inverse(x: Any, /) -> Any:
    return _apply("unique_inverse", (x,))


def unique_values(x: Any, /) -> Array:
    return _one("unique_values", (x,))


def take(x: Any, indices: Any, /, *, axis: int | None = None) -> Array:
    return _one("take", (x, indices), {"axis": axis})


def take_along_axis(x: Any, indices: Any, /, *, axis: int = -1) -> Array:
    return _one("take_along_axis", (x, indices), {"axis": axis})


_document_all(
    (
        (argmax, "Index of the largest element (first occurrence)."),
        (argmin, "Index of the smallest element (first occurrence)."),
        (count_nonzero, "Number of non-zero elements."),
        (searchsorted, "Insertion indices of ``x2`` into the sorted ``x1``."),
        (where, "``x1`` where ``condition`` holds, else ``x2``."),
        (argsort, "Indices that sort ``x`` along ``axis``."),
        (sort, "Sorted copy of ``x`` along ``axis``."),
        (unique_values, "Unique elements."),
        (take, "Elements at ``indices`` along ``axis``."),
        (take_along_axis, "Elements at ``indices`` matched along ``axis``."),
    )
)
_document(
    nonzero, "Indices of the non-zero elements, one array per axis.", returns="tuple of Array"
)
_document(
    unique_all, "Unique elements, first indices, inverse indices and counts.", returns="namedtuple"
)
_document(unique_counts, "Unique elements and their counts.", returns="namedtuple")
_document(unique_inverse, "Unique elements and inverse indices.", returns="namedtuple")


# -- statistics and utilities -------------------------------------------------------------


def _acc_dtype(x: Any, dtype: object) -> Any:
    """Return the native accumulator dtype of sums and products of ``x`` (``dtype`` if given)."""
    requested = None if dtype is None else _dtypes.as_dtype(dtype)
    if type(x) is Array:
        return x._device.backend.accumulator(x._dtype, requested)
    return _device_of_args((x,)).backend.accumulator(x.dtype, requested)


def cumulative_sum(
    x: Any, /, *, axis: int | None = None, dtype: Any = None, include_initial: bool = False
) -> Array:
    return _one(
        "cumulative_sum",
        (x,),
        {"axis": axis, "dtype": _acc_dtype(x, dtype), "include_initial": include_initial},
    )


def cumulative_prod(
    x: Any, /, *, axis: int | None = None, dtype: Any = None, include_initial: bool = False
) -> Array:
    return _one(
        "cumulative_prod",
        (x,),
        {"axis": axis, "dtype": _acc_dtype(x, dtype), "include_initial": include_initial},
    )


def _stat(name: str, x: Any, kwargs: dict[str, Any]) -> Array:
    """:func:`_one` for the statistical functions: a direct call first where there is one.

    Their keywords (``axis``, ``keepdims``, ``dtype``, ``correction``) never hold
    arrays, so the general argument walk of :func:`_apply` has nothing to do there.
    """
    if type(x) is Array:
        device = x._device
        if device.has_direct:
            call = _directs(name).of(device)
            if call is not None:
                found = call(x, **kwargs)
                if found is not None:
                    return adopted(found, device)
    return _one(name, (x,), kwargs)


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
    return _one("diff", (x,), kwargs)


_document_all(
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

install({name: globals()[name] for name in OPERATOR_NAMES})
