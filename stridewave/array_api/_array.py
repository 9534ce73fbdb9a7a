"""The array object of :mod:`stridewave.array_api`, built by its own class.

An :class:`Array` is a single-subtensor :class:`~stridewave.Tensor` (a carrier, a
:class:`~stridewave.Layout` and an offset) with the array API's operators. Its
device is a place (:class:`~stridewave.array_api._device.Device`), and everything
device-specific goes through that device's backend
(:class:`~stridewave.array_api._backend.Backend`): the operators call the dispatch
step (:mod:`~stridewave.array_api._dispatch`, which also reads and writes operands'
values) through :func:`binary_call`, and indexing
(:mod:`~stridewave.array_api._indexing`) directly; both return a result's geometry,
and :meth:`Array._new` is the one constructor (:func:`~stridewave.array_api._common.wrap`
turns a backend result into Arrays by the backend's adoption).
"""

from __future__ import annotations

import copy
import os
import sys
import threading
import types
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from stridewave.array_api import _dtypes, _messages
from stridewave.array_api._backend import (
    Adopted,
    strided_layout,
)
from stridewave.array_api._device import Device, as_device, carrier_device
from stridewave.array_api._dispatch import (
    binary,
    common_device,
    device_of,
    directs_of,
    host_values,
    read,
    unary,
    write,
)
from stridewave.array_api._dtypes import same_kind
from stridewave.array_api._indexing import getitem, one_slice, setitem
from stridewave.array_api._numpy_namespace import UFUNC_NAMES
from stridewave.carriers import Carrier
from stridewave.carriers._messages import dtype_text
from stridewave.carriers._protocols import _caller_module
from stridewave.dtypes import DType
from stridewave.layout import Layout
from stridewave.tensor import Tensor, check_pickled_view

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = [
    "Array",
    "as_array",
    "common_device",
    "device_of",
    "permuted",
]


def _rebuild(carrier: Any, layout: Layout, offset: int) -> Array:
    """Unpickle an Array: the same geometry on the unpickled carrier, on its device.

    Checked first (:func:`~stridewave.tensor.check_pickled_view`): an altered pickle
    raises ``ValueError`` naming the part, what it was and what was expected.
    """
    check_pickled_view(carrier, layout, offset, kind="Array")
    try:
        device = carrier_device(carrier)
    except TypeError as exc:
        raise ValueError(f"cannot unpickle a stridewave Array: {exc}") from None
    return Array._new((carrier, layout, offset, None), device)


# -- the array object --------------------------------------------------------------------

#: A complex scalar is among them: with a real floating array it gives the complex dtype
#: of that precision (NumPy's result; ``array_api_strict`` accepts it, the standard is
#: silent).
_SCALARS: Final = (bool, int, float, complex)
#: A scalar operand of the operators: a Python scalar, or a NumPy scalar (its value).
_SCALAR_OPERANDS: Final = (*_SCALARS, np.generic)
#: Any operand the operators take: a scalar operand or an array (scalars tested first:
#: for them isinstance answers before the Tensor ABC check).
_OPERANDS: Final = (*_SCALAR_OPERANDS, Tensor)


def binary_call(name: str, *, operator: bool = False) -> Callable[[Any, Any], Any]:
    """Return ``name(x1, x2)`` as one call: the direct call where it applies, else ``binary``.

    The namespace's two-operand functions and the Array's forward operators are this
    call. Where the operands are what the device's direct call takes (Arrays of one
    device, a Python float or bool, or an int of the int32 range beside an Array: the
    gate of :func:`~stridewave.array_api._dispatch.binary`), it runs that call from the
    dispatch step's table at once; everything else, and a device's first call (which
    fills the table), is the general step. A ``ValueError`` of the direct call (shapes
    that do not broadcast) is raised by the general step, which names the shapes.

    Parameters
    ----------
    name : str
        The namespace function (``add``, ``less`` ...).
    operator : bool, keyword-only
        True for the forward operator ``x1.__add__(x2)``, ``x1`` an Array: an ``x2``
        that is no operand (neither a scalar nor a Tensor) gives ``NotImplemented``,
        so that Python asks ``x2``'s reflected operator.

    Returns
    -------
    callable
        ``call(x1, x2)`` returning the result Array (or ``NotImplemented``, for an
        operator); it raises what :func:`~stridewave.array_api._dispatch.binary` raises.
    """
    calls = directs_of(name)
    low, high = -(2**31), 2**31 - 1
    new_object = object.__new__

    def call(x1: Any, x2: Any) -> Any:
        kind2 = type(x2)
        if type(x1) is Array:
            device = x1._device
            takes = (
                (kind2 is Array and x2._device is device)
                or kind2 is float
                or kind2 is bool
                or (kind2 is int and low <= x2 <= high)
            )
        elif kind2 is Array:
            device = x2._device
            kind1 = type(x1)
            takes = kind1 is float or kind1 is bool or (kind1 is int and low <= x1 <= high)
        else:
            takes = False
        if takes:
            direct = calls.get(device)
            if direct is not None:
                try:
                    found = direct(x1, x2)
                except ValueError:  # (the general step says which shapes)
                    found = None
                if found is not None:
                    if found[0] is not None:
                        return _new(found, device)
                    # (``_new`` of a fresh result inlined: this runs in every operator)
                    out = new_object(Array)
                    _, out._layout, out._offset, native = found
                    out._native = native
                    out._device = device
                    out._dtype = native[2]
                    return out
        elif operator and not isinstance(x2, _OPERANDS):
            return NotImplemented
        adopted, device = binary(name, x1, x2)
        return _new(adopted, device)

    return call


def _binary(name: str, reflected: bool = False) -> Callable[[Array, object], Any]:
    method: Callable[[Array, object], Any]
    if reflected:
        call = binary_call(name)

        def method(self: Array, other: object) -> Any:
            if type(other) is not Array and not isinstance(other, _OPERANDS):
                return NotImplemented
            return call(other, self)

    else:
        method = binary_call(name, operator=True)
    method.__name__ = f"__{'r' if reflected else ''}{name}__"
    method.__doc__ = (
        f"Return ``{name}({'other, self' if reflected else 'self, other'})`` (array API operator)."
    )
    return method


def _inplace(name: str) -> Callable[[Array, object], Array]:
    def method(self: Array, other: object) -> Array:
        if not isinstance(other, _OPERANDS):
            return NotImplemented  # type: ignore[no-any-return]
        if not self.layout.is_injective():
            layout = self.layout
            raise ValueError(
                _messages.write_shared_slots(
                    f"update ({name}) in place", layout.shape, layout.strides
                )
            )
        if self._device.backend.update_in_place(name, self, other):
            return self  # (computed into the carrier: one write, as NumPy's)
        result = Array._new(*binary(name, self, other))
        if result.shape != self.shape:
            raise ValueError(_messages.inplace_shape(name, self.shape, result.shape))
        values = read(result, self._device)
        if result.dtype is not self.dtype:
            if not same_kind(result.dtype, self.dtype):
                raise TypeError(_messages.inplace_dtype(name, self.dtype, result.dtype))
            # (a wider result of the same kind is cast back, as NumPy's in-place
            # operators do with casting="same_kind": float32 += float64)
            values = self._device.backend.cast(values, self.dtype)
        layout = self.layout
        write(self, self._device, layout.shape, layout.strides, self._offset, values)
        return self

    method.__name__ = f"__i{name}__"
    method.__doc__ = (
        f"Do ``self = {name}(self, other)`` in place: one scatter into the carrier "
        "(one version step); the result must keep ``self``'s shape and dtype."
    )
    return method


#: Tensor's own ``_carrier`` slot, read and written past Array's lazy property.
_get_carrier: Final = Tensor.__dict__["_carrier"].__get__
_set_carrier: Final = Tensor.__dict__["_carrier"].__set__
#: Guards the one-time making of a fresh result's carrier (:meth:`Array._materialize`).
_MATERIALIZE_LOCK: Final = threading.Lock()
if hasattr(os, "register_at_fork"):  # inherited held by a vanished thread: reset
    os.register_at_fork(after_in_child=getattr(_MATERIALIZE_LOCK, "_at_fork_reinit"))  # noqa: B009


class Array(Tensor):
    """The array object of :mod:`stridewave.array_api`: a Tensor with operators.

    An ``Array`` is a single-subtensor :class:`~stridewave.Tensor`: ``carrier``,
    ``layout`` and ``offset`` say where its elements live. Build one with the
    namespace's creation functions (``xp.asarray``, ``xp.zeros`` ...) or wrap an
    existing Tensor with ``xp.asarray(tensor)`` (no copy). Operators follow the
    Python array API standard 2024.12 for its thirteen dtypes.

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
    *Devices*: ``device`` is the place (:class:`Device`), whatever carrier class
    holds the dtype. Results live in fresh carriers of the operands' device (the
    class ``carrier_for(device, dtype)`` names); mixing devices raises ``ValueError``.

    *Views*: basic indexing (integers, slices, ``...``, ``None``) and the views NumPy
    makes (transposes, reshapes, broadcasts) share the carrier; boolean and integer
    array indexing give fresh arrays.

    *Writes*: ``__setitem__`` and in-place operators are one write each (a
    ``Carrier.scatter``; an arithmetic in-place operator on host storage computes
    into the carrier, as NumPy's do): a read-only, released or owned carrier refuses
    with ``RuntimeError``, and a successful write advances the carrier's ``version``
    by one.
    """

    __slots__ = ("_device", "_native")

    _device: Device
    #: The backend's cached native form of the values (its own token, read and kept
    #: up to date by that backend's ``read``; ``None``: nothing cached).
    _native: Any

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError(_messages.array_constructor())

    #: An Array is never compound (Tensor's slot, answered by the class).
    _subtensors = ()

    @staticmethod
    def _new(adopted: Adopted, device: Device) -> Array:
        """Build an Array over a backend's adopted geometry: the one constructor.

        Parameters
        ----------
        adopted : tuple
            ``(carrier, layout, offset, native)`` as a backend's ``adopt`` returns it
            (no re-validation: the backend proved the geometry). ``carrier`` is
            ``None`` for a fresh result whose carrier is made when first asked for
            (:meth:`Backend.materialize`); ``native`` then also names the dtype.
        device : Device
            The device it lives on.

        Returns
        -------
        Array
            The Array; no other module writes an Array's slots.
        """
        out = object.__new__(Array)
        carrier: Carrier | None
        carrier, out._layout, out._offset, native = adopted
        out._native = native
        out._device = device
        if carrier is None:
            out._dtype = native[2]
        else:
            _set_carrier(out, carrier)
            out._dtype = carrier.dtype()
        return out

    @property
    def _carrier(self) -> Carrier:  # type: ignore[override]
        """The carrier (Tensor's slot), made on first use for a fresh result."""
        try:
            return _get_carrier(self)  # type: ignore[no-any-return]
        except AttributeError:
            return self._materialize()

    def _materialize(self) -> Carrier:
        """Make the carrier of a fresh result from its backend token, once."""
        with _MATERIALIZE_LOCK:
            try:
                return _get_carrier(self)  # type: ignore[no-any-return]
            except AttributeError:
                carrier, native = self._device.backend.materialize(self._native)
                self._native = native
                _set_carrier(self, carrier)
                return carrier

    # -- Tensor's queries, direct: an Array is always a single-subtensor Tensor -------

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
        """Device: The place holding the elements (whatever carrier class holds them)."""
        return self._device

    @property
    def T(self) -> Array:
        """Array: The transpose of a 2-D array (a view; ``ValueError`` otherwise)."""
        if self.ndim != 2:
            raise ValueError(_messages.transpose_needs_2d(self.ndim, self.shape))
        return permuted(self, (1, 0))

    @property
    def mT(self) -> Array:
        """Array: The transpose of the last two axes (a view)."""
        if self.ndim < 2:
            raise ValueError(_messages.matrix_transpose_needs_2d(self.shape))
        return permuted(self, (*range(self.ndim - 2), self.ndim - 1, self.ndim - 2))

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
            raise ValueError(_messages.no_stream())
        target = as_device(device)
        if target == self._device:
            return self
        values = np.asarray(host_values(self, self._device))
        moved: Array = Array._new(
            target.backend.adopt(target.backend.asarray(values, self.dtype), ()), target
        )
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
            The DLPack capsule of the values (host arrays: a view of the carrier,
            writable when the Array is, as ``__array__``; a read-only Array's view is
            flagged read-only, or copied for consumers that ignore the flag; Metal
            arrays: MLX's export).

        Raises
        ------
        BufferError
            If ``copy=False`` and no read-only view can be exported; for a bfloat16
            Array always (NumPy's DLPack has no bfloat16; the message names the fixes).
        RuntimeError
            If the carrier is released.
        """
        if self.dtype is _dtypes.bfloat16:
            raise BufferError(_messages.no_dlpack_for_bfloat16(self._device))
        kwargs: dict[str, Any] = {}
        if stream is not None:
            kwargs["stream"] = stream
        if max_version is not None:
            kwargs["max_version"] = max_version
        if dl_device is not None:
            kwargs["dl_device"] = dl_device
        if copy is not None:
            kwargs["copy"] = copy
        backend = self._device.backend
        if copy is not True:
            view = backend.export_writable(self)
            if view is not None:
                return view.__dlpack__(**kwargs)
        return backend.dlpack(self, _caller_module(1), **kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        """Return the DLPack device of the values.

        Returns
        -------
        tuple of int
            ``(1, 0)`` (kDLCPU) for host carriers; MLX's answer for Metal arrays.
        """
        return self._device.backend.dlpack_device(self)

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
        if self.ndim != 0 and self.size != 1:
            raise TypeError(_messages.not_one_element(what, self.shape))
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
        """Return the single element of an integer array as a Python int."""
        if not self.dtype.is_subtype_of(DType.Integer):
            raise TypeError(_messages.index_needs_int32(self.dtype))
        return int(self._scalar("__index__"))

    def __format__(self, format_spec: str) -> str:
        """Format a 0-d Array's value as NumPy formats its scalar (``f"{x:.3f}"``).

        The standard is silent; NumPy's 0-d arrays format their value, and so does
        this namespace (CONTRACT section 9, version 3: the reference's leniency).

        Parameters
        ----------
        format_spec : str
            A format specification (``".3f"``, ``">8"`` ...); empty gives ``str(self)``.

        Returns
        -------
        str
            The formatted value.

        Raises
        ------
        TypeError
            If ``format_spec`` is not empty and the Array is not 0-d.
        """
        if not format_spec:
            return str(self)
        if self.ndim != 0:
            raise TypeError(_messages.format_needs_0d(format_spec, self.shape))
        return format(host_values(self, self._device).reshape(())[()], format_spec)

    def __iter__(self) -> Iterator[Array]:
        """Iterate over the first axis, as ``array_api_strict`` does.

        Returns
        -------
        iterator of Array
            ``self[i]`` for ``i`` in ``range(self.shape[0])``: views of the same
            carrier (basic indexing), each of ``ndim - 1`` axes.

        Raises
        ------
        TypeError
            If the array is 0-d (there is no first axis): raised by ``iter(x)``
            itself, so ``numpy.iterable(x)`` answers False as for NumPy's 0-d arrays
            (matplotlib and SciPy ask it).
        """
        if self.ndim == 0:
            raise TypeError(_messages.iterate_0d())
        return (self[i] for i in range(self.shape[0]))

    def __copy__(self) -> Array:
        """Return ``copy.copy(x)``: the values in storage of their own, as NumPy's copy.

        Returns
        -------
        Array
            A new Array on the same device with the same dtype, shape and values, over
            a carrier of its own (``copy.deepcopy``'s): a write into one leaves the
            other as it was.
        """
        return copy.deepcopy(self)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle as the Tensor it is: carrier, layout and offset (no cached view).

        Returns
        -------
        tuple
            ``(rebuild, (carrier, layout, offset))``; unpickling in a fresh process
            imports this module, which registers the standard's dtypes first.
        """
        return (_rebuild, (self._carrier, self._layout, self._offset))

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
            view = one_slice(self, key)
            if view is not None:
                # (``Array._new`` inlined, the dtype taken from ``self``: a view's Python
                # runs before the launch that reads it, docs/array-api.md "Lazy results")
                out = object.__new__(Array)
                _set_carrier(out, self._carrier)
                out._layout, out._offset = view
                out._native, out._device, out._dtype = None, self._device, self._dtype
                return out
        return _new(getitem(self, self._device, key), self._device)

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
        """
        setitem(self, self._device, key, value)

    def __repr__(self) -> str:
        try:
            values = np.array2string(host_values(self, self._device), separator=", ")
        except RuntimeError:
            if not self._carrier.is_released():
                raise
            values = "<released>"

        return f"Array({values}, dtype={dtype_text(self.dtype)}, device={self._device!r})"

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """NumPy's ufunc protocol (NEP 13): a ufunc of Arrays gives Arrays.

        A plain call (``np.sin(x)``, ``scipy.special.erf(x)``, ``np.float32(2) * x``)
        whose operands are Arrays of one device and scalars gives Arrays on that
        device, as CuPy's and Dask's arrays answer NumPy's ufuncs. Where the
        namespace has a function of the ufunc's name (``np.add``, ``np.less`` ...)
        and a NumPy scalar takes part, the call is that function (a NumPy scalar
        taken as the Python scalar of its value). Any other ufunc computes in NumPy
        over the Arrays' host values; its results become Arrays of the operands'
        device (of the dtype NumPy gives; a result of a dtype no device holds stays
        NumPy's). A call with a NumPy array among the operands (``x + numpy_array``:
        another library's array does not join the namespace), with ``out=``, or of a
        ufunc method (``reduce``, ``at`` ...) runs in NumPy on host copies of the
        Arrays and returns NumPy's result, as through ``__array__`` alone.

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
        Array or tuple of Array or numpy.ndarray or object
            Arrays for a plain call of Arrays and scalars (a tuple for a ufunc of
            several outputs); else NumPy's result.

        Raises
        ------
        ValueError
            If the Arrays live on two devices.
        """
        plain = method == "__call__" and "out" not in kwargs
        # (a NumPy scalar's comparison hands NumPy's ufunc a 0-d ndarray of it)
        values = [
            v[()] if type(v) is np.ndarray and v.ndim == 0 and v.dtype.kind in "biufc" else v
            for v in inputs
        ]
        ours = plain and all(isinstance(v, (Tensor, *_SCALAR_OPERANDS)) for v in values)
        name = UFUNC_NAMES.get(ufunc.__name__) if ours and not kwargs else None
        if (
            name is not None
            and len(values) == 2
            and any(isinstance(v, np.generic) for v in values)
            and all(type(v) is Array or isinstance(v, _SCALAR_OPERANDS) for v in values)
        ):
            return Array._new(*binary(name, *values))
        device = common_device(values) if ours else None
        host = [
            host_values(as_array(v), device_of(v)) if isinstance(v, Tensor) else v for v in inputs
        ]
        result = getattr(ufunc, method)(*host, **kwargs)
        if device is None:
            return result
        if type(result) is tuple:
            return tuple(_from_host(r, device) for r in result)
        return _from_host(result, device)

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> npt.NDArray[Any]:
        """Return the values as NumPy (NumPy 2 ``__array__``).

        Parameters
        ----------
        dtype : numpy dtype, optional
            Convert to this dtype.
        copy : bool or None, optional
            As :meth:`Tensor.__array__` (arrays of a device that is not host
            addressable, Metal, always copy; ``copy=False`` raises ``ValueError`` there).

        Returns
        -------
        numpy.ndarray
            Shape ``self.shape``. On host devices a zero-copy view: writable when the
            Array is (taking it counts as one write, one ``version`` step; CONTRACT
            section 9, version 3), read-only when its carrier refuses writes.
        """
        backend = self._device.backend
        if not copy and dtype is None:
            view = backend.export_writable(self)
            if view is not None:
                return view
        if not backend.host_addressable:
            out = np.array(host_values(self, self._device), dtype=dtype)
            if copy is False:
                raise ValueError(_messages.no_numpy_view(self._device))
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
        adopted, device = unary("negative", self)
        return _new(adopted, device)

    def __pos__(self) -> Array:
        """Return ``positive(self)``."""
        adopted, device = unary("positive", self)
        return _new(adopted, device)

    def __abs__(self) -> Array:
        """Return ``abs(self)``."""
        adopted, device = unary("abs", self)
        return _new(adopted, device)

    def __invert__(self) -> Array:
        """Return ``bitwise_invert(self)``."""
        adopted, device = unary("bitwise_invert", self)
        return _new(adopted, device)


#: ``Array._new``, read as a module global by the operators (one look-up fewer per call).
_new: Final = Array._new


def _from_host(result: Any, device: Device) -> Any:
    """Return a NumPy ufunc's result as an Array on ``device`` (NumPy's, of no namespace dtype)."""
    values = np.asarray(result)
    dtype = _dtypes.from_numpy(values.dtype)
    if dtype is None:
        return result
    return Array._new(device.backend.adopt(device.backend.asarray(values, dtype), ()), device)


def permuted(x: Array, axes: tuple[int, ...]) -> Array:
    """Return ``x`` with its axes permuted: a view of the same carrier on every device.

    Pure geometry, as basic indexing is: a write through the result writes ``x``'s
    elements on Metal too (MLX's own transpose would be a copy).

    Parameters
    ----------
    x : Array
        The array.
    axes : tuple of int
        A permutation of ``range(x.ndim)``.

    Returns
    -------
    Array
        The view.
    """
    layout = x._layout
    assert layout is not None
    shape, strides = layout._shape, layout._strides
    view = strided_layout(tuple(shape[a] for a in axes), tuple(strides[a] for a in axes))
    return Array._new((x._carrier, view, x._offset, None), x._device)


def as_array(value: Tensor) -> Array:
    """Return ``value`` as an Array sharing its carrier (``value`` if it is one)."""
    if type(value) is Array:
        return value
    device = device_of(value)
    layout = value._layout
    assert layout is not None
    assert value._carrier is not None
    return Array._new((value._carrier, layout, value._offset, None), device)


def namespace(api_version: str | None = None) -> types.ModuleType:
    """Return :mod:`stridewave.array_api` for ``api_version`` ``None`` or 2021.12 .. 2024.12."""
    if api_version is not None and api_version not in (
        "2021.12",
        "2022.12",
        "2023.12",
        "2024.12",
    ):
        raise ValueError(_messages.api_version(api_version))
    # (the package is loaded before any of its modules: found, not imported)
    return sys.modules[__package__]
