"""The one dispatch step of :mod:`stridewave.array_api`: operands to a backend result.

Every namespace function and every operator of the Array goes through here, in one
order: the devices of the operands (two devices raise ``DeviceMismatch``, a
``ValueError``), then the device's direct call where its backend offers one
(:meth:`Backend.direct`), then the function of the same name in the backend's
namespace (:attr:`Backend.ns`) over the operands read without a copy
(:meth:`Backend.read`), then the backend's adoption of the result
(:meth:`Backend.adopt`). The step returns the result's geometry (:data:`Adopted`) and
its device; the array module makes the Array (``Array._new``), so this module never
imports the array object and the Array's operators call it directly.

An operand is on a device when it is a :class:`~stridewave.Tensor`: an Array names
its device (its ``_device`` slot), a plain Tensor's is its carrier's place.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from typing import Any, Final

import numpy as np

from stridewave.array_api import _dtypes, _messages
from stridewave.array_api._backend import EMPTY_LAYOUT, Adopted, contiguous_layout
from stridewave.array_api._device import Device, as_device, carrier_device, default_device
from stridewave.array_api._messages import DeviceMismatch
from stridewave.layout import Layout
from stridewave.tensor import Tensor

__all__ = [
    "apply",
    "binary",
    "common_device",
    "device_of",
    "directs_of",
    "devices_of",
    "direct",
    "host_values",
    "read",
    "scalar_operand",
    "shape_of",
    "unary",
    "write",
]

#: Argument types that are neither arrays nor sequences: passed through unchecked.
_PLAIN_TYPES: Final = frozenset({bool, int, float, type(None), str})

#: The Python scalars a direct call takes as operands, and that pass to a backend as
#: they are (they promote weakly there, the standard's rule for Python scalars).
_PY_SCALARS: Final = frozenset({bool, int, float})

_INT32_MIN: Final = -(2**31)
_INT32_MAX: Final = 2**31 - 1
_UINT64: Final = _dtypes.DTYPES["uint64"]
_INT64_MIN: Final = -(2**63)
_INT64_MAX: Final = 2**63 - 1

#: ml_dtypes' bfloat16 scalar type (a NumPy scalar of kind "V"), taken as its value too.
_BFLOAT16_SCALAR: Final = _dtypes.numpy_dtype(_dtypes.bfloat16).type

#: The functions whose integer operand is returned as it is (rounding an integer).
_ROUNDING: Final = frozenset({"ceil", "floor", "round", "trunc"})


# -- the devices of the operands ----------------------------------------------------------

#: Whether each operand type seen is placed: an Array (or a subclass), whose ``_device``
#: slot names its device. A cache of ``hasattr(type, "_device")``.
_PLACED: Final[dict[type, bool]] = {}
#: The type of a ``__slots__`` member (the Array's ``_device`` is one).
_SLOT_TYPE: Final = type(Tensor.__dict__["_layout"])


def placed(kind: type) -> bool:
    """Return whether values of type ``kind`` are Arrays (they carry their device).

    Parameters
    ----------
    kind : type
        An operand's type.

    Returns
    -------
    bool
        True for the array object of this namespace and its subclasses.
    """
    found = _PLACED.get(kind)
    if found is None:
        found = _PLACED[kind] = isinstance(getattr(kind, "_device", None), _SLOT_TYPE)
    return found


def device_of(value: Tensor) -> Device:
    """Return the device of an Array or a plain single-subtensor Tensor.

    Parameters
    ----------
    value : Tensor
        An Array or a Tensor.

    Returns
    -------
    Device
        The Array's device, or the place of the Tensor's carrier.

    Raises
    ------
    ValueError
        If ``value`` is a compound Tensor (one carrier per plane, no one device).
    TypeError
        If no device computes on the carrier's kind.
    """
    try:
        return value._device  # type: ignore[attr-defined,no-any-return]
    except AttributeError:
        pass
    if value._carrier is None:
        raise ValueError(_messages.compound_tensor(value))
    return carrier_device(value._carrier)


def common_device(values: Sequence[object]) -> Device | None:
    """Return the one device of the Tensors among ``values``, or None if there are none.

    Raises
    ------
    ValueError
        ``DeviceMismatch``, if they live on two devices.
    """
    found: Device | None = None
    for value in values:
        if isinstance(value, Tensor):
            dev = device_of(value)
            if found is None:
                found = dev
            elif dev is not found:
                raise DeviceMismatch(_messages.devices_differ(found, dev))
    return found


def _flat(values: Sequence[object]) -> list[object]:
    out: list[object] = []
    for value in values:
        if isinstance(value, (list, tuple)):
            out.extend(value)
        else:
            out.append(value)
    return out


def devices_of(values: Sequence[object], device: object = None) -> Device:
    """Return the device a call on ``values`` runs on (resolved once).

    Parameters
    ----------
    values : sequence
        The call's arguments; lists and tuples among them are looked into once.
    device : Device, str or None
        The ``device=`` argument of the call, if any.

    Returns
    -------
    Device
        The operands' one device; ``device`` when given (it must agree with theirs);
        the default device when there are no operands.

    Raises
    ------
    ValueError
        If the operands live on two devices, or ``device`` differs from theirs.
    """
    found = common_device(_flat(values))
    if device is None:
        return found if found is not None else default_device()
    wanted = as_device(device)
    if found is not None and wanted is not found:
        raise DeviceMismatch(_messages.device_requested(wanted, found))
    return wanted


# -- direct calls -------------------------------------------------------------------------

#: Each function's direct calls, by device (``Backend.direct``), looked up once each;
#: None is an answer (no direct call). A cache: a miss only looks it up again. Keyed
#: by name, then device: two dictionary reads on the per-call path, no key to build.
_DIRECTS: Final[dict[str, dict[Device, Callable[..., Adopted | None] | None]]] = {}

#: Not looked up yet.
_UNSET: Final = object()


def directs_of(name: str) -> dict[Device, Callable[..., Adopted | None] | None]:
    """Return the table of ``name``'s direct calls by device (filled by :func:`direct`).

    For the Array's operators, which read it once per call: a device not in it yet
    is looked up by the general step (:func:`binary`) on its first call.

    Parameters
    ----------
    name : str
        The namespace function.

    Returns
    -------
    dict
        Device to direct call (None: the device has none), the live table.
    """
    return _DIRECTS.setdefault(name, {})


def direct(name: str, device: Device) -> Callable[..., Adopted | None] | None:
    """Return the direct call of ``name`` on ``device``, or None if there is none.

    Parameters
    ----------
    name : str
        The namespace function.
    device : Device
        The device of the operands.

    Returns
    -------
    callable or None
        ``Backend.direct(name)`` for a device whose backend has direct calls
        (``Device.has_direct``), else None, without building the backend.
    """
    calls = _DIRECTS.get(name)
    if calls is None:
        calls = _DIRECTS.setdefault(name, {})
    call = calls.get(device, _UNSET)
    if call is _UNSET:
        call = calls[device] = device.backend.direct(name) if device.has_direct else None
    return call  # type: ignore[return-value]


# -- scalars ------------------------------------------------------------------------------


def scalar_operand(name: str, value: object, other: object = None) -> object:
    """Return the scalar operand ``value`` of ``name`` as the backends take it.

    A NumPy scalar of a bool, integer, floating or complex dtype (ml_dtypes' bfloat16
    included) becomes the Python scalar of its value (as array_api_compat takes NumPy's): it then promotes weakly,
    the standard's rule for Python scalars. A Python int outside the int32 range
    becomes a float next to a floating array (NumPy's rule, NEP 50), stays an int next
    to a bool array (the two compute in int64, as in NumPy) and raises OverflowError
    next to an integer array it does not fit, or beyond int64 next to a bool one.

    Parameters
    ----------
    name : str
        The function, for the messages.
    value : object
        The scalar operand.
    other : object, optional
        The other operand (its dtype decides a large int's fate).

    Returns
    -------
    bool, int, float or complex
        The Python scalar.

    Raises
    ------
    TypeError
        If ``value`` is neither an array nor a scalar.
    OverflowError
        If a Python int does not fit the integer dtype of ``other`` (int64 for a bool
        ``other``).
    """
    if isinstance(value, np.generic) and (
        value.dtype.kind in "biufc" or type(value) is _BFLOAT16_SCALAR
    ):
        value = value.item()
    if isinstance(value, (bool, int, float, complex)):
        if (
            isinstance(value, int)
            and not isinstance(value, bool)
            and not _INT32_MIN <= value <= _INT32_MAX
        ):
            dtype = getattr(other, "dtype", None)
            if dtype is _dtypes.bool_:
                # (bool and an int compute in the default integer: NumPy's int64)
                if not _INT64_MIN <= value <= _INT64_MAX:
                    raise OverflowError(_messages.int_beyond_bool_int(name, value))
                return value
            if dtype is not None and not _dtypes.isdtype(dtype, "integral"):
                return float(value)
            if dtype is not None:
                info = _dtypes.iinfo(dtype)
                if not info.min <= value <= info.max:
                    raise OverflowError(
                        _messages.int_out_of_range(name, value, dtype, info.min, info.max)
                    )
        return value
    raise TypeError(_messages.bad_operand(name, value))


def shape_of(value: object) -> tuple[int, ...]:
    """Return the shape of an operand (``()`` for a scalar or anything without one)."""
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
    s1, s2 = shape_of(x1), shape_of(x2)
    try:
        np.broadcast_shapes(s1, s2)
    except ValueError:
        raise ValueError(_messages.shapes_do_not_broadcast(name, s1, s2)) from exc


def _raise_if_mismatched(x1: object, x2: object, exc: ValueError) -> None:
    """Raise this namespace's ValueError when ``matmul``'s inner extents differ."""
    s1, s2 = shape_of(x1), shape_of(x2)
    if s1 and s2 and s1[-1] != s2[-2 if len(s2) > 1 else 0] and not isinstance(exc, DeviceMismatch):
        raise ValueError(_messages.matmul_shapes(s1, s2)) from exc


# -- the step -----------------------------------------------------------------------------


def unary(name: str, x: Any, kwargs: dict[str, Any] | None = None) -> tuple[Adopted, Device]:
    """Run ``name(x, **kwargs)`` for one array operand with plain keyword values.

    Parameters
    ----------
    name : str
        The namespace function (an elementwise one, a reduction ...).
    x : Array or Tensor
        The operand.
    kwargs : dict, optional
        Keyword arguments that hold no arrays (``axis``, ``keepdims`` ...).

    Returns
    -------
    tuple
        ``(adopted, device)``: the result's geometry and its device.

    Raises
    ------
    TypeError
        If ``x`` is not an array.
    RuntimeError
        If its carrier is released.
    """
    if _PLACED.get(type(x)) or placed(type(x)):
        device = x._device
        calls = _DIRECTS.get(name)
        call = calls[device] if calls is not None and device in calls else direct(name, device)
        if call is not None and name not in _ROUNDING:
            found = call(x, **kwargs) if kwargs else call(x)
            if found is not None:
                return found, device
    elif not isinstance(x, Tensor):
        raise TypeError(_messages.expects_array(name, x))
    else:
        device = device_of(x)
    kwargs = kwargs or {}
    backend = device.backend
    native = backend.read(x)
    if name in _ROUNDING and not _dtypes.isdtype(x.dtype, ("real floating", "complex floating")):
        # Rounding an integer is the identity (the standard keeps the dtype);
        # NumPy would answer in float64.
        return backend.adopt(backend.cast(native, x.dtype), ()), device
    return backend.adopt(getattr(backend.ns, name)(native, **kwargs), (x,)), device


def binary(name: str, x1: Any, x2: Any) -> tuple[Adopted, Device]:
    """Run the elementwise ``name(x1, x2)``: arrays of one device and Python scalars.

    Parameters
    ----------
    name : str
        The namespace function (``add``, ``less`` ...).
    x1, x2 : Array, Tensor or scalar
        The operands; at least one is an array. Python scalars pass to the backend as
        they are; NumPy scalars as the Python scalar of their value.

    Returns
    -------
    tuple
        ``(adopted, device)``: the result's geometry and its device.

    Raises
    ------
    TypeError
        If neither operand is an array, or one is neither an array nor a scalar.
    ValueError
        If the arrays live on two devices or their shapes do not broadcast.
    OverflowError
        If a Python int does not fit the other operand's integer dtype.
    RuntimeError
        If a carrier is released.
    """
    try:
        # (Python scalars of the int32 range, floats and bools pass as they are;
        # anything else that is not an array goes through scalar_operand. Unrolled
        # for both operands: this runs before every launch.)
        k1 = type(x1)
        k2 = type(x2)
        p1 = p2 = True  # (whether each operand is a Python scalar or an Array)
        if _PLACED.get(k1):
            d1 = x1._device
        elif k1 is float or k1 is bool or (k1 is int and _INT32_MIN <= x1 <= _INT32_MAX):
            d1 = None
        elif placed(k1):
            d1 = x1._device
        elif isinstance(x1, Tensor):
            d1 = device_of(x1)
            p1 = False
        else:
            x1 = scalar_operand(name, x1, x2)
            k1 = type(x1)
            d1 = None
            p1 = k1 in _PY_SCALARS
        if _PLACED.get(k2):
            d2 = x2._device
        elif k2 is float or k2 is bool or (k2 is int and _INT32_MIN <= x2 <= _INT32_MAX):
            d2 = None
        elif placed(k2):
            d2 = x2._device
        elif isinstance(x2, Tensor):
            d2 = device_of(x2)
            p2 = False
        else:
            x2 = scalar_operand(name, x2, x1)
            k2 = type(x2)
            d2 = None
            p2 = k2 in _PY_SCALARS
        if d1 is None:
            if d2 is None:
                raise TypeError(_messages.needs_an_array(name, x1, x2))
            device = d2
        else:
            device = d1
            if d2 is not None and d2 is not d1:
                raise DeviceMismatch(_messages.devices_differ(d1, d2, name))
        calls = _DIRECTS.get(name)
        call = calls[device] if calls is not None and device in calls else direct(name, device)
        if call is not None and p1 and p2:
            found = call(x1, x2)
            if found is not None:
                return found, device
        if (k2 is int and x2 < 0 and d1 is not None and x1.dtype is _UINT64) or (
            k1 is int and x1 < 0 and d2 is not None and x2.dtype is _UINT64
        ):
            # (MLX takes a negative int to uint64 modulo 2**64, silently)
            return _beyond_answer(name, x1, x2, None)
        backend = device.backend
        a = x1 if d1 is None else backend.read(x1)
        b = x2 if d2 is None else backend.read(x2)
        # A bool array and a Python int compute in the default integer (NumPy's int64):
        # the int goes as a 0-d array of it, where MLX would compute in int32.
        if k2 is int and d1 is not None and x1.dtype is _dtypes.bool_:
            b = backend.scalar(x2, backend.default_dtypes()["integral"])
        elif k1 is int and d2 is not None and x2.dtype is _dtypes.bool_:
            a = backend.scalar(x1, backend.default_dtypes()["integral"])
        return backend.adopt(getattr(backend.ns, name)(a, b), ()), device
    except OverflowError:
        if name not in _COMPARED_BEYOND or _int_beyond_range(x1, x2) is None:
            raise
        return _beyond_answer(name, x1, x2, None)
    except ValueError as exc:
        if name == "matmul":
            _raise_if_mismatched(x1, x2, exc)
        elif _int_beyond_range(x1, x2) is not None:
            # (MLX refuses such an int with ValueError)
            return _beyond_answer(name, x1, x2, exc)
        else:
            _raise_if_unbroadcastable(name, x1, x2, exc)
        raise


def _beyond_answer(name: str, x1: Any, x2: Any, exc: Exception | None) -> tuple[Adopted, Device]:
    """Answer ``name(x1, x2)`` of an integer array and a Python int beyond its dtype.

    NumPy's answer, on every device: a comparison's truth (every element alike), or
    ``OverflowError`` for any other function.
    """
    beyond = _int_beyond_range(x1, x2)
    assert beyond is not None
    array, value, int_first = beyond
    if name in _COMPARED_BEYOND:
        return _compare_beyond(name, array, value, int_first)
    info = _dtypes.iinfo(array.dtype)
    raise OverflowError(
        _messages.int_out_of_range(name, value, array.dtype, info.min, info.max)
    ) from exc


#: For a comparison of an integer array ``x`` with a Python int beyond its dtype's
#: range, NumPy's answer (every element alike), as a comparison with the dtype's own
#: bound that gives it: ``{name: (above the max, below the min)}``, each
#: ``(name, bound)`` of ``name(x, bound)``, for ``x`` the first operand.
_COMPARED_BEYOND: Final = {
    "less": (("less_equal", "max"), ("less", "min")),
    "less_equal": (("less_equal", "max"), ("less", "min")),
    "greater": (("greater", "max"), ("greater_equal", "min")),
    "greater_equal": (("greater", "max"), ("greater_equal", "min")),
    "equal": (("greater", "max"), ("less", "min")),
    "not_equal": (("less_equal", "max"), ("greater_equal", "min")),
}

#: A comparison with its operands swapped: ``name(c, x)`` is ``_SWAPPED[name](x, c)``.
_SWAPPED: Final = {
    "less": "greater",
    "less_equal": "greater_equal",
    "greater": "less",
    "greater_equal": "less_equal",
    "equal": "equal",
    "not_equal": "not_equal",
}


def _int_beyond_range(x1: Any, x2: Any) -> tuple[Any, int, bool] | None:
    """Return ``(array, int, int_first)`` for a Python int beyond an integer array's dtype.

    None where there is no such pair (called only once an operation failed, or for a
    negative int with a uint64 array).
    """
    for value, array, first in ((x2, x1, False), (x1, x2, True)):
        if type(value) is int and isinstance(array, Tensor):
            dtype = getattr(array, "dtype", None)
            if dtype is not None and _dtypes.isdtype(dtype, "integral"):
                info = _dtypes.iinfo(dtype)
                if not info.min <= value <= info.max:
                    return array, value, first
    return None


def _compare_beyond(name: str, array: Any, value: int, int_first: bool) -> tuple[Adopted, Device]:
    """Compare an integer array with a Python int beyond its dtype as NumPy does."""
    if int_first:
        name = _SWAPPED[name]
    info = _dtypes.iinfo(array.dtype)
    above, below = _COMPARED_BEYOND[name]
    name, bound = above if value > info.max else below
    return binary(name, array, info.max if bound == "max" else info.min)


def _read_argument(value: Any, device: Device, sources: list[Tensor]) -> Any:
    """Return ``value`` as the backend reads it; arrays found are appended to ``sources``.

    A module-level function, not a closure over ``apply``'s locals: a recursive closure
    refers to itself through its cell, and that cycle (holding ``sources``) would keep
    every input array alive until the garbage collector runs.
    """
    if type(value) in _PLAIN_TYPES:
        return value
    if isinstance(value, Tensor):
        sources.append(value)
        if value._carrier is None and not hasattr(value, "_device"):
            device_of(value)  # raises for compound Tensors
        return device.backend.read(value)
    if isinstance(value, (list, tuple)) and builtins.any(isinstance(v, Tensor) for v in value):
        return type(value)(_read_argument(v, device, sources) for v in value)
    return value


def apply(
    name: str,
    args: tuple[Any, ...],
    kwargs: dict[str, Any] | None = None,
    *,
    sub: str | None = None,
    device: Device | None = None,
) -> tuple[Any, Device, tuple[Tensor, ...]]:
    """Run ``name(*args, **kwargs)`` in the namespace of the arguments' device.

    Parameters
    ----------
    name : str
        The function, in the backend's namespace (or its ``sub`` namespace).
    args : tuple
        Positional arguments: arrays, sequences of arrays, plain values.
    kwargs : dict, optional
        Keyword arguments, read as ``args`` are.
    sub : str, optional
        A sub-namespace of the backend's (``"linalg"``, ``"fft"``).
    device : Device, optional
        The device, when the caller resolved it already.

    Returns
    -------
    tuple
        ``(result, device, sources)``: what the backend's function returned (native
        arrays, tuples of them ...), the device, and the operands (a result that
        views one becomes geometry on its carrier when adopted).

    Raises
    ------
    ValueError
        If the arrays live on two devices, or the backend refuses the arguments.
    RuntimeError
        If a carrier is released.
    """
    kwargs = kwargs or {}
    if device is None:
        device = devices_of(list(args) + list(kwargs.values()))
    sources: list[Tensor] = []
    call_args = [_read_argument(a, device, sources) for a in args]
    call_kwargs = {k: _read_argument(v, device, sources) for k, v in kwargs.items()}
    namespace = device.backend.ns if sub is None else getattr(device.backend.ns, sub)
    return getattr(namespace, name)(*call_args, **call_kwargs), device, tuple(sources)


# -- reading operands --------------------------------------------------------------------


def host_values(value: Tensor, device: Device) -> Any:
    """Return ``value``'s values as NumPy, for a host export (no device read noted)."""
    if not placed(type(value)) and value._carrier is None:
        device_of(value)  # raises for compound Tensors
    return device.backend.export(value)


def read(value: Tensor, device: Device) -> Any:
    """Return the backend's native array of ``value`` (no copy where the backend allows)."""
    if not placed(type(value)) and value._carrier is None:
        device_of(value)  # raises for compound Tensors
    return device.backend.read(value)


# -- writing -----------------------------------------------------------------------------


def write(
    target: Tensor,
    device: Device,
    shape: tuple[int, ...],
    strides: tuple[int, ...],
    offset: int,
    values: Any,
) -> None:
    """Write backend ``values`` (broadcast to ``shape``) into ``target``'s carrier.

    One scatter (``Carrier._bulk_write``, the template of ``Carrier.scatter``, which
    FileBacked storage takes too): element ``i`` of ``values`` goes to slot ``offset +
    Layout(shape, strides).index(i)``; mutability, ownership and release are the
    carrier's checks, and ``version`` advances by one.

    Raises
    ------
    RuntimeError
        If the carrier refuses writes (immutable, owned, released).
    """
    carrier = target._carrier
    assert carrier is not None
    source_carrier = device.backend.write_source(values, shape, target.dtype)
    source = Tensor(source_carrier, contiguous_layout(shape))
    # (the scatter template, FileBacked included: every listed device takes writes,
    # CONTRACT section 9 version 3, while the spec's FileBacked.scatter keeps refusing)
    carrier._bulk_write(source, Tensor(carrier, EMPTY_LAYOUT), Layout(shape, strides), offset)
