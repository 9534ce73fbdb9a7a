"""The array object and devices of :mod:`stridewave.array_api`.

An :class:`Array` is a single-subtensor :class:`~stridewave.Tensor` (a carrier, a
:class:`~stridewave.Layout` and an offset) with the array API's operators. Its
device is its carrier's kind (:class:`Device`). Reading an operand gives the
backend's array *without a copy*: a read-only NumPy view with the Tensor's strides
for host carriers, an ``mlx.core`` view (``as_strided``) for Metal. A backend result
becomes a fresh carrier of the operands' kind by adoption (``CPU.from_numpy`` of the
result's own buffer, ``Metal`` adopting the MLX array); a result that NumPy
returned as a view of an operand (a transpose, a reshape, a broadcast) becomes a
Tensor on the operand's carrier instead. Writes (``__setitem__``, in-place
operators) are one ``Carrier.scatter`` each: one mutability check, one version step.
"""

from __future__ import annotations

import functools
import operator
import os
import threading
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from stridewave.array_api import _dtypes
from stridewave.array_api._dtypes import narrow
from stridewave.carriers import CPU, Carrier, Evictable, FileBacked, Generic, Metal, _messages
from stridewave.dtypes import DType
from stridewave.layout import Layout
from stridewave.tensor import Tensor

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = [
    "DEFAULT_DEVICE_ENV",
    "Array",
    "Device",
    "default_device",
    "set_default_device",
]

#: Environment variable naming the default device: ``cpu`` (the default),
#: ``file`` (FileBacked) or ``metal``.
DEFAULT_DEVICE_ENV: Final = "STRIDEWAVE_ARRAY_API_DEVICE"


class Device:
    """A device of :mod:`stridewave.array_api`: a carrier kind.

    Parameters
    ----------
    kind : str
        ``"CPU"``, ``"FileBacked"``, ``"Generic"`` or ``"Metal"`` (case-insensitive;
        ``"cpu"``, ``"file"``, ``"metal"`` also work).

    Raises
    ------
    ValueError
        If ``kind`` names no carrier kind.

    Notes
    -----
    Devices compare equal by kind. Arrays of one device live in carriers of that
    kind: ``Device("CPU")`` in :class:`~stridewave.CPU`, ``Device("FileBacked")``
    in :class:`~stridewave.FileBacked` (bool arrays, which FileBacked cannot store,
    in CPU carriers), ``Device("Metal")`` in :class:`~stridewave.Metal` on the MLX
    device that ``STRIDEWAVE_METAL_DEVICE`` selects.
    """

    __slots__ = ("kind",)

    kind: str

    _NAMES: Final = {
        "cpu": "CPU",
        "host": "CPU",
        "filebacked": "FileBacked",
        "file": "FileBacked",
        "generic": "Generic",
        "metal": "Metal",
        "mlx": "Metal",
    }

    def __init__(self, kind: object) -> None:
        name = self._NAMES.get(kind.strip().lower()) if isinstance(kind, str) else None
        if name is None:
            raise ValueError(
                f"unknown stridewave.array_api device {kind!r}; expected 'CPU', "
                "'FileBacked', 'Generic' or 'Metal'."
            )
        object.__setattr__(self, "kind", name)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Device is immutable")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Device):
            return NotImplemented
        return self.kind == other.kind

    def __hash__(self) -> int:
        return hash((Device, self.kind))

    def __repr__(self) -> str:
        return f"Device({self.kind!r})"

    def describe(self) -> str:
        """Return the device in words (for Metal: the MLX device and version).

        Returns
        -------
        str
            E.g. ``"CPU"`` or ``"Metal: MLX CPU device (...), MLX 0.32.4"``.
        """
        if self.kind == "Metal":
            return f"Metal: {_metal_device_name()}"
        return self.kind

    def __reduce__(self) -> tuple[type[Device], tuple[str]]:
        """Pickle as the kind name (devices compare equal by kind).

        Returns
        -------
        tuple
            ``(Device, (kind,))``.
        """
        return (Device, (self.kind,))


CPU_DEVICE: Final = Device("CPU")
FILE_DEVICE: Final = Device("FileBacked")
GENERIC_DEVICE: Final = Device("Generic")
METAL_DEVICE: Final = Device("Metal")

_KIND_DEVICE: Final[dict[type, Device]] = {
    CPU: CPU_DEVICE,
    FileBacked: FILE_DEVICE,
    Generic: GENERIC_DEVICE,
    Metal: METAL_DEVICE,
}


def _metal_device_name() -> str:
    from stridewave.carriers._metal import metal_runtime

    _ok, text = metal_runtime()
    return text


_default_lock = threading.Lock()
_default: list[Device] = []


def default_device() -> Device:
    """Return the device that creation functions use when given ``device=None``.

    Returns
    -------
    Device
        The device set by :func:`set_default_device`, else the one named by the
        environment variable ``STRIDEWAVE_ARRAY_API_DEVICE`` (``cpu``, ``file``,
        ``metal``; read once), else ``Device("CPU")``.

    Raises
    ------
    ValueError
        If the environment variable names no device.
    """
    if _default:
        return _default[0]
    with _default_lock:
        if not _default:
            name = os.environ.get(DEFAULT_DEVICE_ENV, "").strip()
            _default.append(Device(name) if name else CPU_DEVICE)
    return _default[0]


def set_default_device(device: Device | str | None) -> None:
    """Set the device creation functions use when given ``device=None``.

    Parameters
    ----------
    device : Device, str or None
        The new default (a :class:`Device` or its kind name); ``None`` goes back to
        the environment variable ``STRIDEWAVE_ARRAY_API_DEVICE`` (else CPU).

    Raises
    ------
    ValueError
        If ``device`` names no device.
    """
    chosen = None if device is None else as_device(device)
    with _default_lock:
        _default.clear()
        if chosen is not None:
            _default.append(chosen)


def as_device(device: object) -> Device:
    """Return ``device`` as a :class:`Device` (a Device, a kind name, or a carrier class)."""
    if isinstance(device, Device):
        return device
    if isinstance(device, type) and device in _KIND_DEVICE:
        return _KIND_DEVICE[device]
    if isinstance(device, str):
        return Device(device)
    raise ValueError(
        f"expected a stridewave.array_api Device (e.g. xp.Device('CPU')), got "
        f"{type(device).__name__} {device!r}."
    )


def carrier_device(carrier: Carrier) -> Device:
    """Return the device of ``carrier``: its kind (an Evictable: its primary's)."""
    kind = type(carrier)
    found = _KIND_DEVICE.get(kind)
    if found is not None:
        return found
    if isinstance(carrier, Evictable):
        return carrier_device(carrier.primary)
    for base, dev in _KIND_DEVICE.items():
        if isinstance(carrier, base):
            return dev
    raise TypeError(
        f"stridewave.array_api has no device for carrier kind {kind.__name__}; use CPU, "
        "FileBacked, Generic, Metal or an Evictable over one of them."
    )


# -- layouts -----------------------------------------------------------------------------


@functools.lru_cache(maxsize=1024)
def contiguous_layout(shape: tuple[int, ...]) -> Layout:
    """Return the row-major Layout of ``shape`` (cached: layouts are immutable)."""
    return Layout(shape)


@functools.lru_cache(maxsize=1024)
def strided_layout(shape: tuple[int, ...], strides: tuple[int, ...]) -> Layout:
    """Return ``Layout(shape, strides)`` (cached: a loop slicing alike validates once)."""
    return Layout(shape, strides)


_EMPTY: Final = Layout((0,))


def _is_row_major(layout: Layout) -> bool:
    return layout.strides == contiguous_layout(layout.shape).strides


# -- the backends ------------------------------------------------------------------------


class HostBackend:
    """NumPy through ``array_api_compat``: the compute of CPU, FileBacked and Generic."""

    name: Final = "numpy"

    def __init__(self) -> None:
        import array_api_compat.numpy as cnp

        self.ns: Any = cnp

    @staticmethod
    def read(tensor: Tensor) -> npt.NDArray[Any]:
        """Return a read-only NumPy view of the Tensor's logical values (no copy)."""
        storage: npt.NDArray[Any] = np.asarray(tensor._carrier)
        layout = tensor._layout
        assert layout is not None
        offset = tensor._offset
        shape = layout.shape
        if offset == 0 and layout.size == storage.shape[0] and _is_row_major(layout):
            return storage.reshape(shape)
        itemsize = storage.itemsize
        if layout.size and (
            offset + layout.min_index < 0 or offset + layout.max_index >= storage.shape[0]
        ):
            raise IndexError(
                f"{tensor!r} addresses slots outside its carrier of {storage.shape[0]} "
                "slots (the carrier shrank after the view was made)."
            )
        view: npt.NDArray[Any] = np.ndarray(
            shape,
            storage.dtype,
            buffer=storage,
            offset=offset * itemsize if layout.size else 0,
            strides=tuple(s * itemsize for s in layout.strides),
        )
        return view

    @staticmethod
    def dtype_of(array: Any) -> DType:
        return narrow(array.dtype)

    def asarray(self, values: Any, dtype: DType) -> npt.NDArray[Any]:
        return np.asarray(values, dtype=_dtypes.numpy_dtype(dtype))

    @staticmethod
    def to_numpy(array: Any) -> npt.NDArray[Any]:
        return np.asarray(array)

    @staticmethod
    def backend_dtype(dtype: DType) -> Any:
        return _dtypes.numpy_dtype(dtype)

    @staticmethod
    def is_array(value: object) -> bool:
        return isinstance(value, (np.ndarray, np.generic))

    @staticmethod
    def getitem(array: npt.NDArray[Any], key: tuple[Any, ...], device: Device) -> Any:
        return wrap(array[key], device)

    @staticmethod
    def astype(array: npt.NDArray[Any], dtype: DType) -> npt.NDArray[Any]:
        return array.astype(_dtypes.numpy_dtype(dtype), copy=False)

    @staticmethod
    def cast(array: npt.NDArray[Any], dtype: DType) -> npt.NDArray[Any]:
        return array.astype(_dtypes.numpy_dtype(dtype), copy=True)

    @staticmethod
    def scalar(value: object, dtype: DType) -> npt.NDArray[Any]:
        return np.asarray(value, dtype=_dtypes.numpy_dtype(dtype))

    @staticmethod
    def broadcast_to(array: npt.NDArray[Any], shape: tuple[int, ...]) -> npt.NDArray[Any]:
        return np.broadcast_to(array, shape)

    @staticmethod
    def set_advanced(
        array: npt.NDArray[Any], key: tuple[Any, ...], values: npt.NDArray[Any]
    ) -> npt.NDArray[Any]:
        updated = np.array(array, copy=True)
        updated[key] = values
        return updated


_HOST = HostBackend()


class _MetalState:
    """The lazily built MLX backend (imports mlx on first use)."""

    backend: Any = None


def metal_backend() -> Any:
    """Return the MLX backend (:mod:`stridewave.array_api._mlx`), importing MLX once."""
    if _MetalState.backend is None:
        from stridewave.array_api import _mlx

        _MetalState.backend = _mlx.MLXBackend()
    return _MetalState.backend


def backend_for(device: Device) -> Any:
    """Return the compute backend of ``device``."""
    if device.kind == "Metal":
        return metal_backend()
    return _HOST


# -- adoption: a backend result becomes an Array -----------------------------------------


class _Prototypes:
    """One released carrier per host kind, for ``new_like`` on creation functions."""

    file: FileBacked | None = None


def _file_prototype() -> FileBacked:
    if _Prototypes.file is None:
        proto = FileBacked(dtype=DType.Float32)
        proto.release()
        _Prototypes.file = proto
    return _Prototypes.file


def _make(carrier: Carrier, layout: Layout, offset: int, device: Device) -> Array:
    """Build an Array over checked geometry (no re-validation: the caller proved it)."""
    out = object.__new__(Array)
    out._carrier = carrier
    out._layout = layout
    out._offset = offset
    out._dtype = carrier.dtype()
    out._subtensors = ()
    out._device = device
    out._host = None
    return out


def _one_slice(x: Array, key: slice) -> Array | None:
    """``x[start:stop:step]`` of a 1-D array with int/None bounds (the common case).

    The geometry :func:`~stridewave.array_api._indexing.basic_geometry` gives, without
    its general loop; None for anything else (the general path then decides, and raises
    where it must). Called by ``Array.__getitem__`` itself: a view's Python runs before
    the launch of the operation that reads it (docs/array-api.md, "Lazy results").
    """
    layout = x._layout
    if layout is None or len(layout._shape) != 1:  # (Layout's slots: a per-call path)
        return None
    start, stop, step = key.start, key.stop, key.step
    if not (
        (start is None or type(start) is int)
        and (stop is None or type(stop) is int)
        and (step is None or (type(step) is int and step))
    ):
        return None
    picked = range(layout._shape[0])[key]  # (slice.indices' bounds, and the length)
    length = len(picked)
    (stride,) = layout._strides
    offset = x._offset + picked.start * stride if length else 0
    stride *= picked.step
    view_layout = (
        contiguous_layout((length,)) if stride == 1 else strided_layout((length,), (stride,))
    )
    return _make(x._carrier, view_layout, offset, x._device)  # type: ignore[arg-type]


def adopt_host(result: Any, device: Device, sources: tuple[Tensor, ...] = ()) -> Array:
    """Turn a NumPy result into an Array of ``device`` (adopting its buffer).

    A read-only result is a view NumPy made of an operand (whose storage views are
    read-only): it becomes a Tensor on that operand's carrier. A fresh result is
    adopted without a copy by ``CPU.from_numpy`` (C-contiguous) or copied into the
    device's storage (FileBacked, Generic).
    """
    if not isinstance(result, np.ndarray):
        result = np.asarray(result)
    dtype = _dtypes.from_numpy(result.dtype)
    if dtype is None:
        dtype = narrow(result.dtype)
        result = result.astype(_dtypes.numpy_dtype(dtype))
    if not result.flags.writeable and sources:
        view = _view_of(result, sources, device)
        if view is not None:
            return view
    shape = result.shape
    if (
        device is CPU_DEVICE
        or device.kind == "CPU"
        or (device.kind == "FileBacked" and dtype is DType.Bool)
    ):
        if not result.flags.c_contiguous or not result.flags.writeable:
            result = np.array(result, order="C", copy=True)
        carrier: Carrier = CPU.from_numpy(result.reshape(-1))
        fresh = _make(carrier, contiguous_layout(shape), 0, device)
        view = result.view()
        view.flags.writeable = False  # internal: operands only, never handed out
        fresh._host = (view, 0, carrier.size())
        return fresh
    if device.kind == "FileBacked":
        carrier = _file_prototype().new_like(result.reshape(-1), dtype=dtype)
    elif device.kind == "Generic":
        carrier = Generic(np.ascontiguousarray(result).reshape(-1), dtype=dtype)
    else:
        adopted: Array = metal_backend().adopt(metal_backend().from_numpy(result), device)
        return adopted
    return _make(carrier, contiguous_layout(shape), 0, device)


def _view_of(result: npt.NDArray[Any], sources: tuple[Tensor, ...], device: Device) -> Array | None:
    """Return ``result`` as a Tensor on the carrier of the operand it views, if any."""
    itemsize = result.itemsize
    if result.size == 0:
        return None
    low, high = np.lib.array_utils.byte_bounds(result)
    for source in sources:
        carrier = source._carrier
        if carrier is None or carrier.dtype() is not _dtypes.from_numpy(result.dtype):
            continue
        storage = np.asarray(carrier)
        start, end = np.lib.array_utils.byte_bounds(storage)
        if start <= low and high <= end:
            delta = result.__array_interface__["data"][0] - start
            if delta % itemsize or any(s % itemsize for s in result.strides):
                return None
            layout = Layout(result.shape, tuple(s // itemsize for s in result.strides))
            return _make(carrier, layout, delta // itemsize, device)
    return None


def wrap(result: Any, device: Device, sources: tuple[Tensor, ...] = ()) -> Any:
    """Wrap backend results (an array, or tuples/namedtuples/lists of arrays)."""
    backend = backend_for(device)
    if backend.is_array(result):
        if device.kind == "Metal":
            return backend.adopt(result, device)
        return adopt_host(result, device, sources)
    if isinstance(result, tuple):
        items = [wrap(item, device, sources) for item in result]
        if hasattr(result, "_fields"):
            return type(result)(*items)
        return tuple(items)
    if isinstance(result, list):
        return [wrap(item, device, sources) for item in result]
    return result


# -- reading operands --------------------------------------------------------------------


def device_of(value: Tensor) -> Device:
    """Return the device of an Array or a plain single-subtensor Tensor."""
    if type(value) is Array:
        return value._device
    if value._carrier is None:
        raise ValueError(
            f"stridewave.array_api works on single-subtensor Tensors; {value!r} is compound "
            "(one subtensor per plane): pass tensor.subtensors[k]."
        )
    return carrier_device(value._carrier)


def common_device(values: tuple[object, ...] | list[object]) -> Device | None:
    """Return the one device of the Tensors among ``values`` (ValueError if several)."""
    found: Device | None = None
    for value in values:
        if isinstance(value, Tensor):
            dev = device_of(value)
            if found is None:
                found = dev
            elif dev != found:
                raise ValueError(
                    f"arrays on different devices ({found!r} and {dev!r}) cannot be "
                    "combined; move one first with x.to_device(...)."
                )
    return found


def host_values(value: Tensor, device: Device) -> Any:
    """Return ``value``'s values as a NumPy array, for a host export (no device read noted)."""
    if device.kind == "Metal":
        backend = _MetalState.backend or metal_backend()
        if value._carrier is None:
            device_of(value)  # raises for compound Tensors
        return backend.to_numpy(backend.read(value, note=False))
    return backend_for(device).to_numpy(read(value, device))


def read(value: Tensor, device: Device) -> Any:
    """Return the backend array of ``value`` (no copy where the backend allows)."""
    if value._carrier is None:
        device_of(value)  # raises for compound Tensors
    if device.kind == "Metal":
        return (_MetalState.backend or metal_backend()).read(value)
    if type(value) is not Array:
        return HostBackend.read(value)
    carrier = value._carrier
    cache = value._host
    if (
        cache is not None
        and cache[1] == carrier.version  # type: ignore[union-attr]
        and cache[2] == carrier.size()  # type: ignore[union-attr]
        and not carrier.is_released()  # type: ignore[union-attr]
    ):
        return cache[0]
    view = HostBackend.read(value)
    if type(carrier) in _CACHEABLE:
        value._host = (view, carrier.version, carrier.size())  # type: ignore[union-attr]
    return view


#: Carrier kinds whose NumPy buffer changes only with a version step or a size change.
_CACHEABLE: Final = (CPU, Generic)


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

    One ``Carrier.scatter``: element ``i`` of ``values`` goes to slot ``offset +
    Layout(shape, strides).index(i)``; mutability, ownership and release are the
    carrier's checks, and ``version`` advances by one.
    """
    carrier = target._carrier
    assert carrier is not None
    if isinstance(carrier, FileBacked) or (
        isinstance(carrier, Evictable) and isinstance(carrier.primary, FileBacked)
    ):
        raise NotImplementedError(
            f"cannot write into {carrier!r}: FileBacked storage has no scatter (carrier "
            "spec), so FileBacked arrays are read-only in stridewave.array_api. Compute a "
            "new array instead, or move it with x.to_device(xp.Device('CPU'))."
        )
    backend = backend_for(device)
    if device.kind == "Metal":
        source_carrier = backend.source_carrier(values, shape, target.dtype)
    else:
        flat = np.ascontiguousarray(np.broadcast_to(values, shape)).reshape(-1)
        if flat.dtype != _dtypes.numpy_dtype(target.dtype):
            flat = flat.astype(_dtypes.numpy_dtype(target.dtype))
        source_carrier = CPU.from_numpy(flat, mutable=False)
    source = Tensor(source_carrier, contiguous_layout(shape))
    carrier.scatter(source, Tensor(carrier, _EMPTY), Layout(shape, strides), offset)


# -- the array object --------------------------------------------------------------------

_SCALARS: Final = (bool, int, float)
#: A scalar operand of the operators: a Python scalar, or a NumPy scalar (its value).
_SCALAR_OPERANDS: Final = (*_SCALARS, np.generic)
#: Any operand the operators take: a scalar operand or an array (scalars tested first:
#: for them isinstance answers before the Tensor ABC check).
_OPERANDS: Final = (*_SCALAR_OPERANDS, Tensor)

#: The NumPy ufuncs a NumPy scalar's operator calls that have a function of the same
#: name in this namespace (``Array.__array_ufunc__``).
_UFUNC_NAMES: Final = frozenset(
    {
        "add",
        "subtract",
        "multiply",
        "divide",
        "floor_divide",
        "remainder",
        "bitwise_and",
        "bitwise_or",
        "bitwise_xor",
        "less",
        "less_equal",
        "greater",
        "greater_equal",
        "equal",
        "not_equal",
        "logical_and",
        "logical_or",
        "logical_xor",
    }
)

#: The modules of this package that import this one, looked up on first use: an
#: import statement in an operator would cost every call a trip through the import
#: system.
_LATE: dict[str, Any] = {}


def _late(name: str) -> Any:
    """Return ``stridewave.array_api.<name>`` (``_functions`` or ``_indexing``)."""
    module = _LATE.get(name)
    if module is None:
        from stridewave.array_api import _functions, _indexing

        _LATE.update(_functions=_functions, _indexing=_indexing)
        module = _LATE[name]
    return module


def _binary(name: str, reflected: bool = False) -> Callable[[Array, object], Any]:
    found: list[Callable[[object, object], Any]] = []  # the function, looked up once

    def method(self: Array, other: object) -> Any:
        # (the scalar types first: for them isinstance answers before the ABC check)
        if type(other) is not Array and not isinstance(other, _OPERANDS):
            return NotImplemented
        if not found:
            found.append(getattr(_late("_functions"), name))
        func = found[0]
        return func(other, self) if reflected else func(self, other)

    method.__name__ = f"__{'r' if reflected else ''}{name}__"
    method.__doc__ = (
        f"Return ``{name}({'other, self' if reflected else 'self, other'})`` (array API operator)."
    )
    return method


def _inplace(name: str) -> Callable[[Array, object], Array]:
    def method(self: Array, other: object) -> Array:
        if not isinstance(other, _OPERANDS):
            return NotImplemented  # type: ignore[no-any-return]
        result = getattr(_late("_functions"), name)(self, other)
        if result.shape != self.shape:
            raise ValueError(
                f"in-place {name} would change the shape {self.shape} to {result.shape}; "
                "the right operand must broadcast to the left one's shape."
            )
        if result.dtype is not self.dtype:
            raise TypeError(
                f"in-place {name} would change the dtype {_messages.dtype_text(self.dtype)} to "
                f"{_messages.dtype_text(result.dtype)}; use the out-of-place operator."
            )
        layout = self.layout
        write(
            self,
            self._device,
            layout.shape,
            layout.strides,
            self._offset,
            read(result, self._device),
        )
        return self

    method.__name__ = f"__i{name}__"
    method.__doc__ = (
        f"Do ``self = {name}(self, other)`` in place: one scatter into the carrier "
        "(one version step); the result must keep ``self``'s shape and dtype."
    )
    return method


class Array(Tensor):
    """The array object of :mod:`stridewave.array_api`: a Tensor with operators.

    An ``Array`` is a single-subtensor :class:`~stridewave.Tensor`: ``carrier``,
    ``layout`` and ``offset`` say where its elements live. Build one with the
    namespace's creation functions (``xp.asarray``, ``xp.zeros`` ...) or wrap an
    existing Tensor with ``xp.asarray(tensor)`` (no copy). Operators follow the
    Python array API standard 2024.12 for bool, int32 and float32.

    Parameters
    ----------
    *args, **kwargs
        Refused: arrays are made by the namespace's functions.

    Raises
    ------
    TypeError
        Always, when called directly (use ``xp.asarray``).

    Notes
    -----
    *Devices*: ``device`` is the carrier kind (:class:`Device`). Results live in
    fresh carriers of the operands' kind; mixing devices raises ``ValueError``.

    *Views*: basic indexing (integers, slices, ``...``, ``None``) and the views NumPy
    makes (transposes, reshapes, broadcasts) share the carrier; boolean and integer
    array indexing give fresh arrays.

    *Writes*: ``__setitem__`` and in-place operators are one ``Carrier.scatter``
    each: a read-only, released or owned carrier refuses with ``RuntimeError``, and
    a successful write advances the carrier's ``version`` by one.
    """

    __slots__ = ("_device", "_host")

    _device: Device
    #: ``(read-only NumPy view of the logical values, carrier version, carrier size)``
    #: for an Array on a CPU or Generic carrier (whose buffer only changes by a version
    #: step or a resize), so that a repeated read skips the export; ``None`` otherwise.
    _host: tuple[npt.NDArray[Any], int, int] | None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError(
            "stridewave.array_api.Array is built by the namespace: use xp.asarray(values) "
            "or xp.asarray(tensor) (no copy), not Array(...)."
        )

    # -- Tensor's queries without the self-referencing subtensors tuple ---------------

    @property
    def subtensors(self) -> tuple[Tensor, ...]:
        """``(self,)``: an Array is a single-subtensor Tensor."""
        return (self,)

    @property
    def shape(self) -> tuple[int, ...]:
        """Tuple of int: The extent of each axis, in elements."""
        layout = self._layout
        assert layout is not None
        return layout.shape

    @property
    def ndim(self) -> int:
        """The number of axes (int)."""
        layout = self._layout
        assert layout is not None
        return layout.ndim

    @property
    def size(self) -> int:
        """The number of elements, the product of ``shape`` (int)."""
        layout = self._layout
        assert layout is not None
        return layout.size

    @property
    def device(self) -> Device:
        """Device: The carrier kind holding the elements."""
        return self._device

    @property
    def T(self) -> Array:
        """Array: The transpose of a 2-D array (a view; ``ValueError`` otherwise)."""
        if self.ndim != 2:
            raise ValueError(
                f".T needs a 2-D array, got {self.ndim}-D (shape {self.shape}); use "
                "xp.permute_dims or .mT for stacks of matrices."
            )
        return _late("_functions").permute_dims(self, (1, 0))  # type: ignore[no-any-return]

    @property
    def mT(self) -> Array:
        """Array: The transpose of the last two axes (a view)."""
        return _late("_functions").matrix_transpose(self)  # type: ignore[no-any-return]

    def to_device(self, device: object, /, *, stream: object = None) -> Array:
        """Return the array on ``device`` (a copy into a fresh carrier of that kind).

        Parameters
        ----------
        device : Device or str
            The target device.
        stream : None
            Not supported (must be ``None``).

        Returns
        -------
        Array
            ``self`` when already on ``device``, else a fresh carrier of the target
            kind holding the values.

        Raises
        ------
        ValueError
            If ``device`` names no device or ``stream`` is given.
        RuntimeError
            If the carrier is released.
        """
        if stream is not None:
            raise ValueError("stridewave.array_api.to_device takes no stream; pass stream=None.")
        target = as_device(device)
        if target == self._device:
            return self
        values = np.asarray(host_values(self, self._device))
        moved: Array = wrap(backend_for(target).asarray(values, self.dtype), target)
        return moved

    def __dlpack__(
        self,
        /,
        *,
        stream: object = None,
        max_version: tuple[int, int] | None = None,
        dl_device: tuple[int, int] | None = None,
        copy: bool | None = None,
    ) -> Any:
        """Export the values through DLPack (the backend array's ``__dlpack__``).

        Parameters
        ----------
        stream : None, keyword-only
            Passed on to the backend (host arrays take ``None``).
        max_version : tuple of int, optional
            The highest DLPack version the consumer reads; ``(1, 0)`` or later lets
            a host array be exported as a read-only view.
        dl_device : tuple of int, optional
            The consumer's device, passed on.
        copy : bool or None, optional
            ``True``: export a copy; ``False``: a view or ``BufferError``;
            ``None``: a view where DLPack can mark it read-only, else a copy.

        Returns
        -------
        PyCapsule
            The DLPack capsule of the values (host arrays: a read-only view of the
            carrier, or a copy; Metal arrays: MLX's export).

        Raises
        ------
        BufferError
            If ``copy=False`` and no read-only view can be exported.
        RuntimeError
            If the carrier is released.
        """
        array = read(self, self._device)
        kwargs: dict[str, Any] = {}
        if stream is not None:
            kwargs["stream"] = stream
        if max_version is not None:
            kwargs["max_version"] = max_version
        if dl_device is not None:
            kwargs["dl_device"] = dl_device
        if copy is not None:
            kwargs["copy"] = copy
        if self._device.kind == "Metal":
            return metal_backend().dlpack(array, **kwargs)
        # Host: the carriers' rule (CONTRACT section 8): zero-copy read-only only for a
        # consumer that honours the flag; PyTorch and legacy consumers get a copy.
        from stridewave.carriers._protocols import _caller_module, export_dlpack

        return export_dlpack(
            lambda: array,
            what=self,
            stream=stream,
            max_version=max_version,
            dl_device=dl_device,
            copy=copy,
            consumer=_caller_module(1),
        )

    def __dlpack_device__(self) -> tuple[int, int]:
        """Return the DLPack device of the values.

        Returns
        -------
        tuple of int
            ``(1, 0)`` (kDLCPU) for host carriers; MLX's answer for Metal arrays.
        """
        if self._device.kind == "Metal":
            found: tuple[int, int] = metal_backend().dlpack_device(read(self, self._device))
            return found
        return (1, 0)

    def __dask_tokenize__(self) -> object:
        """Return a cheap Dask token: the carrier's token, the layout and the offset.

        Returns
        -------
        tuple
            As :meth:`Tensor.__dask_tokenize__` for a single-subtensor Tensor.
        """
        carrier = self._carrier
        token = getattr(carrier, "__dask_tokenize__", None)
        return ((token() if token is not None else id(carrier), repr(self._layout), self._offset),)

    # -- conversion to Python scalars ------------------------------------------------------

    def _scalar(self, what: str) -> Any:
        if self.size != 1 and what != "__bool__":
            pass
        if self.ndim != 0 and self.size != 1:
            raise TypeError(f"{what} needs a 0-d array (one element); got shape {self.shape}.")
        return host_values(self, self._device).reshape(()).item()

    def __bool__(self) -> bool:
        """Return the single element as a Python bool."""
        return bool(self._scalar("__bool__"))

    def __int__(self) -> int:
        """Return the single element as a Python int (``inf``/``nan`` raise)."""
        value = self._scalar("__int__")
        return int(value)

    def __float__(self) -> float:
        """Return the single element as a Python float."""
        return float(self._scalar("__float__"))

    def __complex__(self) -> complex:
        """Return the single element as a Python complex."""
        return complex(self._scalar("__complex__"))

    def __index__(self) -> int:
        """Return the single element of an int32 array as a Python int."""
        if self.dtype is not DType.Int32:
            raise TypeError(
                f"__index__ needs an int32 array, got {_messages.dtype_text(self.dtype)}."
            )
        return int(self._scalar("__index__"))

    # -- indexing ---------------------------------------------------------------------------

    def __getitem__(self, key: object, /) -> Array:  # type: ignore[override,unused-ignore]  # an array API getitem gives arrays, Tensor.__getitem__ NumPy values
        """Return ``self[key]`` (array API indexing).

        Parameters
        ----------
        key : int, slice, ellipsis, None, array, or tuple of these
            Integers, slices, ``...`` and ``None`` give a view on the same carrier
            (new offset and strides); a boolean array (mask) or integer arrays give
            a fresh array.

        Returns
        -------
        Array
            The selected elements.

        Raises
        ------
        IndexError
            If an integer is out of range or there are more indices than axes.
        ValueError
            If an index array lives on another device.
        RuntimeError
            If the carrier is released (advanced indexing reads it).
        """
        if type(key) is slice:
            view = _one_slice(self, key)
            if view is not None:
                return view
        return _late("_indexing").getitem(self, key)  # type: ignore[no-any-return]

    def __setitem__(self, key: object, value: object, /) -> None:
        """Write ``value`` into ``self[key]``: one scatter, one version step.

        Parameters
        ----------
        key : int, slice, ellipsis, None, array, or tuple of these
            As for :meth:`__getitem__`.
        value : Array or Python scalar
            Broadcast to the selection; its kind must fit the array's dtype.

        Raises
        ------
        TypeError
            If ``value`` does not fit the dtype (a float into int32, ...).
        ValueError
            If ``value`` does not broadcast, or lives on another device.
        RuntimeError
            If the carrier is released, immutable or owned.
        NotImplementedError
            If the carrier is FileBacked (no scatter in the carrier spec).
        """
        _late("_indexing").setitem(self, key, value)

    def __repr__(self) -> str:
        try:
            values = np.array2string(host_values(self, self._device), separator=", ")
        except (RuntimeError, IndexError):
            values = "<released>"
        return f"Array({values}, dtype={_messages.dtype_text(self.dtype)}, device={self._device!r})"

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """NumPy's ufunc protocol (NEP 13): keep NumPy scalars' operators in the namespace.

        ``np.float32(2) * x`` makes NumPy call ``np.multiply`` with this Array. When
        a NumPy scalar (or a 0-d NumPy array: NumPy hands its scalars' comparisons
        over as those) takes part in a plain two-operand call of a ufunc this
        namespace has under the same name (``np.add``, ``np.less`` ...), the call is
        this namespace's function: the result is an Array on the operands' device,
        the NumPy scalar taken as the Python scalar of its value. Any other ufunc
        call runs in NumPy on host copies of the Arrays (``numpy.asarray``) and
        returns NumPy's result, as it did through ``__array__`` alone.

        Parameters
        ----------
        ufunc : numpy.ufunc
            The ufunc called.
        method : str
            ``"__call__"``, ``"reduce"`` ... (NEP 13).
        *inputs : object
            The operands, this Array among them.
        **kwargs : object
            The ufunc's keyword arguments.

        Returns
        -------
        Array or numpy.ndarray or object
            An Array for a NumPy scalar's operator; else NumPy's result.
        """
        if method == "__call__" and ufunc.__name__ in _UFUNC_NAMES and not kwargs:
            # (a NumPy scalar's comparison hands NumPy's ufunc a 0-d ndarray of it)
            values = [
                v[()] if type(v) is np.ndarray and v.ndim == 0 and v.dtype.kind in "biuf" else v
                for v in inputs
            ]
            if (
                len(values) == 2
                and any(isinstance(value, np.generic) for value in values)
                and all(type(v) is Array or isinstance(v, _SCALAR_OPERANDS) for v in values)
            ):
                return getattr(_late("_functions"), ufunc.__name__)(*values)
        host = [np.asarray(value) if isinstance(value, Tensor) else value for value in inputs]
        return getattr(ufunc, method)(*host, **kwargs)

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> npt.NDArray[Any]:
        """Return the values as NumPy (NumPy 2 ``__array__``).

        Parameters
        ----------
        dtype : numpy dtype, optional
            Convert to this dtype.
        copy : bool or None, optional
            As :meth:`Tensor.__array__` (Metal arrays always copy; ``copy=False``
            raises ``ValueError`` there).

        Returns
        -------
        numpy.ndarray
            Shape ``self.shape``; a read-only view for host carriers.
        """
        if self._device.kind == "Metal":
            out = np.array(host_values(self, self._device), dtype=dtype)
            if copy is False:
                raise ValueError("a Metal array has no NumPy view; drop copy=False.")
            return out
        return Tensor.__array__(self, dtype, copy)

    __hash__ = None  # type: ignore[assignment]

    # operators: arithmetic, comparison, bitwise
    __add__ = _binary("add")
    __radd__ = _binary("add", reflected=True)
    __iadd__ = _inplace("add")
    __sub__ = _binary("subtract")
    __rsub__ = _binary("subtract", reflected=True)
    __isub__ = _inplace("subtract")
    __mul__ = _binary("multiply")
    __rmul__ = _binary("multiply", reflected=True)
    __imul__ = _inplace("multiply")
    __truediv__ = _binary("divide")
    __rtruediv__ = _binary("divide", reflected=True)
    __itruediv__ = _inplace("divide")
    __floordiv__ = _binary("floor_divide")
    __rfloordiv__ = _binary("floor_divide", reflected=True)
    __ifloordiv__ = _inplace("floor_divide")
    __mod__ = _binary("remainder")
    __rmod__ = _binary("remainder", reflected=True)
    __imod__ = _inplace("remainder")
    __pow__ = _binary("pow")
    __rpow__ = _binary("pow", reflected=True)
    __ipow__ = _inplace("pow")
    __matmul__ = _binary("matmul")
    __rmatmul__ = _binary("matmul", reflected=True)
    __imatmul__ = _inplace("matmul")
    __and__ = _binary("bitwise_and")
    __rand__ = _binary("bitwise_and", reflected=True)
    __iand__ = _inplace("bitwise_and")
    __or__ = _binary("bitwise_or")
    __ror__ = _binary("bitwise_or", reflected=True)
    __ior__ = _inplace("bitwise_or")
    __xor__ = _binary("bitwise_xor")
    __rxor__ = _binary("bitwise_xor", reflected=True)
    __ixor__ = _inplace("bitwise_xor")
    __lshift__ = _binary("bitwise_left_shift")
    __rlshift__ = _binary("bitwise_left_shift", reflected=True)
    __ilshift__ = _inplace("bitwise_left_shift")
    __rshift__ = _binary("bitwise_right_shift")
    __rrshift__ = _binary("bitwise_right_shift", reflected=True)
    __irshift__ = _inplace("bitwise_right_shift")
    __lt__ = _binary("less")
    __le__ = _binary("less_equal")
    __gt__ = _binary("greater")
    __ge__ = _binary("greater_equal")
    __eq__ = _binary("equal")
    __ne__ = _binary("not_equal")

    def __neg__(self) -> Array:
        """Return ``negative(self)``."""
        return _late("_functions").negative(self)  # type: ignore[no-any-return]

    def __pos__(self) -> Array:
        """Return ``positive(self)``."""
        return _late("_functions").positive(self)  # type: ignore[no-any-return]

    def __abs__(self) -> Array:
        """Return ``abs(self)``."""
        return _late("_functions").abs(self)  # type: ignore[no-any-return]

    def __invert__(self) -> Array:
        """Return ``bitwise_invert(self)``."""
        return _late("_functions").bitwise_invert(self)  # type: ignore[no-any-return]


def as_array(value: Tensor) -> Array:
    """Return ``value`` as an Array sharing its carrier (``value`` if it is one)."""
    if type(value) is Array:
        return value
    device = device_of(value)
    layout = value._layout
    assert layout is not None
    assert value._carrier is not None
    return _make(value._carrier, layout, value._offset, device)


def namespace(api_version: str | None = None) -> types.ModuleType:
    """Return :mod:`stridewave.array_api` for ``api_version`` ``None`` or 2021.12 .. 2024.12."""
    if api_version is not None and api_version not in (
        "2021.12",
        "2022.12",
        "2023.12",
        "2024.12",
    ):
        raise ValueError(
            f"stridewave.array_api implements the array API standard 2024.12; got "
            f"api_version={api_version!r}."
        )
    import stridewave.array_api as xp

    return xp


_ = operator  # operator is used by _indexing through this module's namespace
