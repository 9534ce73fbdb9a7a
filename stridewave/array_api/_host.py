"""The host backend: NumPy through ``array_api_compat``, for CPU, FileBacked and Generic.

Reading a Tensor gives a read-only NumPy view with the Tensor's strides (no copy).
A NumPy result becomes a carrier of the device by adoption: ``from_numpy`` of the
result's own buffer on CPU (``CPU`` for the spec's dtypes, ``CPUExtension`` for the
others); a copy into the device's storage on FileBacked and Generic (the carrier class
:func:`~stridewave.array_api._places.carrier_for` names for the dtype). A result NumPy returned as
a view of an operand (a transpose, a reshape, a broadcast) becomes geometry on that
operand's carrier instead.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

import array_api_compat.numpy
import numpy as np

from stridewave.array_api import _dtypes
from stridewave.array_api._backend import (
    CONTIGUOUS_LAYOUTS,
    ERRSTATE,
    QUIET,
    UNSET_ERRSTATE,
    Adopted,
    check_bounds,
    contiguous_layout,
    quiet,
    quiet_astype,
)
from stridewave.array_api._buffers import RESULT_BUFFERS
from stridewave.array_api._dtypes import narrow
from stridewave.array_api._numpy_namespace import NAMESPACE as _NAMESPACE
from stridewave.array_api._numpy_namespace import SHIMMED as _SHIMMED
from stridewave.array_api._places import carrier_for, device_storage_dtypes, place
from stridewave.carriers import CPU, Carrier, Generic
from stridewave.carriers._base import _speedups
from stridewave.carriers._extension import HALF_DTYPES, CPUExtension, GenericExtension
from stridewave.carriers._scatter import strided_view
from stridewave.dtypes import DType
from stridewave.layout import Layout
from stridewave.tensor import Tensor

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = ["HostBackend", "backend", "describe"]

#: What each host device stores (all thirteen, and float16 and bfloat16 beyond the
#: standard), with NumPy's dtype for each (ml_dtypes' for bfloat16).
_DTYPES: Final[Mapping[DType, Any]] = types.MappingProxyType(
    {dtype: _dtypes.numpy_dtype(dtype) for dtype in device_storage_dtypes("CPU") + HALF_DTYPES}
)
#: NumPy's own defaults (CONTRACT section 9: the computing library's defaults).
_DEFAULTS: Final[Mapping[str, DType]] = types.MappingProxyType(
    {
        "real floating": DType.Float64,
        "complex floating": _dtypes.DTYPES["complex128"],
        "integral": _dtypes.DTYPES["int64"],
        "indexing": _dtypes.DTYPES["int64"],
    }
)
_INT64: Final = _dtypes.DTYPES["int64"]
_UINT64: Final = _dtypes.DTYPES["uint64"]

#: Carrier kinds whose NumPy buffer changes only with a version step or a size change:
#: an Array over one keeps its NumPy view (its ``native`` token) between reads.
_CACHEABLE: Final = (CPU, Generic, CPUExtension, GenericExtension)

#: A Tensor without the Array's ``_native`` slot (a plain Tensor: nothing cached).
_NO_SLOT: Final = object()

#: The version field of a fresh result's token: its carrier is not made yet, and the
#: NumPy array in the token is the only reference to its buffer. Such an Array's
#: layout is the C-contiguous layout of that array's shape, at offset 0.
LAZY: Final = object()


#: ``array_api_compat.numpy`` (typed loosely: its stubs name fewer functions than it has).
cnp: Any = array_api_compat.numpy


def _view(tensor: Tensor) -> npt.NDArray[Any]:
    """Return a read-only NumPy view of the Tensor's logical values (no copy)."""
    storage: npt.NDArray[Any] = np.asarray(tensor._carrier)
    layout = tensor._layout
    assert layout is not None
    offset = tensor._offset
    size = storage.shape[0]
    if (
        offset == 0
        and layout._size == size
        and layout._strides == contiguous_layout(layout._shape)._strides
    ):
        return storage.reshape(layout._shape)
    check_bounds(tensor, size)
    itemsize = storage.itemsize
    view: npt.NDArray[Any] = np.ndarray(
        layout._shape,
        storage.dtype,
        buffer=storage,
        offset=offset * itemsize if layout._size else 0,
        strides=tuple(s * itemsize for s in layout._strides),
    )
    return view


def _view_of(result: npt.NDArray[Any], sources: tuple[Tensor, ...]) -> Adopted | None:
    """Return ``result`` as geometry on the carrier of the operand it views, if any."""
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
            return (carrier, layout, delta // itemsize, None)
    return None


#: The operand types a direct call passes to NumPy as they are (the dispatch hands a
#: direct call Arrays of its device and these).
_PY_SCALARS: Final = frozenset({bool, int, float})

#: The fewest elements of a direct call's result taken from the result cache (whose
#: own byte bounds then apply): below them the look-up would cost more than it saves.
_CACHED_ELEMENTS: Final = 2**18


def _direct_ufunc(backend: HostBackend, ufunc: np.ufunc) -> Callable[..., Adopted | None]:
    """Return the CPU device's direct call of a NumPy ufunc of one or two operands.

    The general step in one frame: each operand read as the host backend reads it
    (a fresh result's own array at once), the ufunc computed without floating-point
    warnings (in :data:`~stridewave.array_api._backend.QUIET`'s context where the
    caller set no NumPy error state of their own, else under theirs), and a fresh
    C-ordered result of a standard dtype kept as it is (its carrier made when first
    asked for, as :meth:`HostBackend.adopt` keeps one); any other result goes through
    ``adopt``. It never returns None: the host takes every call it is given. With the
    C accelerator built, the two-operand call is its C form
    (``_speedups.host_binary``): the common case in C, this closure for the rest.
    """
    read = backend.read
    adopt = backend.adopt
    dtypes = _dtypes.FROM_NUMPY
    layouts = CONTIGUOUS_LAYOUTS
    get_state = ERRSTATE.get  # type: ignore[union-attr]
    unset = UNSET_ERRSTATE
    loud = quiet(ufunc)
    scalars = _PY_SCALARS
    ndarray = np.ndarray
    large = _CACHED_ELEMENTS
    out_for = RESULT_BUFFERS.out_for

    def into_cache(shape: tuple[int, ...], *operands: Any) -> Any:
        # (a large result is written into a cached buffer: see _buffers)
        out = out_for(ufunc, operands, shape)
        into = {} if out is None else {"out": out}
        if get_state() is not unset:
            return ufunc(*operands, **into)
        try:
            return QUIET(ufunc, *operands, **into)
        except RuntimeError:  # (another thread computes in the context)
            return loud(*operands, **into)

    def fresh(result: Any) -> Adopted:
        # (a fresh C-ordered result of a standard dtype is kept as it is)
        if type(result) is np.ndarray and result.flags.c_contiguous:
            dtype = dtypes.get(result.dtype)
            if dtype is not None:
                layout = layouts.get(result.shape)
                if layout is None:
                    layout = contiguous_layout(result.shape)
                return (None, layout, 0, (result, LAZY, dtype))
        return adopt(result, ())

    if ufunc.nin == 1:

        def unary(x: Any, **kwargs: Any) -> Adopted | None:
            if kwargs:
                return None  # (the namespace's function takes the keywords)
            native = x._native
            a = native[0] if native is not None and native[1] is LAZY else read(x)
            if x._layout._size >= large:
                return fresh(into_cache(x._layout._shape, a))
            if get_state() is not unset:
                return fresh(ufunc(a))
            try:
                return fresh(QUIET(ufunc, a))
            except RuntimeError:  # (another thread computes in the context)
                return fresh(loud(a))

        return unary

    def binary(x1: Any, x2: Any) -> Adopted:
        # ``layout``: the operands' one row-major layout (one Layout object, a Python
        # scalar taking the other's), whose result is a fresh C-ordered array of that
        # layout: no check of NumPy's result's shape or flags then (this runs in every
        # operator on the CPU device). ``lazy``: every Array operand is a fresh result,
        # whose layout is C-contiguous by construction (``LAZY``), so no look-up either.
        if type(x1) in scalars:
            a = x1
            layout = None
            lazy = True
        else:
            native = x1._native
            lazy = native is not None and native[1] is LAZY
            a = native[0] if lazy else read(x1)
            layout = x1._layout
        if type(x2) in scalars:
            b = x2
        else:
            native = x2._native
            if native is not None and native[1] is LAZY:
                b = native[0]
            else:
                b = read(x2)
                lazy = False
            if layout is None:
                layout = x2._layout
            elif layout is not x2._layout:
                layout = None
        if layout is not None and layout._size >= large:
            result = into_cache(layout._shape, a, b)
        elif get_state() is not unset:
            result = ufunc(a, b)
        else:
            try:
                result = QUIET(ufunc, a, b)
            except RuntimeError:  # (another thread computes in the context)
                result = loud(a, b)
        if type(result) is ndarray:
            dtype = dtypes.get(result.dtype)
            if dtype is not None:
                if layout is not None:
                    if lazy:
                        return (None, layout, 0, (result, LAZY, dtype))
                    cached = layouts.get(layout._shape)
                    if cached is layout and cached is not None:
                        return (None, cached, 0, (result, LAZY, dtype))
                if result.flags.c_contiguous:
                    shaped = layouts.get(result.shape)
                    if shaped is None:
                        shaped = contiguous_layout(result.shape)
                    return (None, shaped, 0, (result, LAZY, dtype))
        return adopt(result, ())

    if _speedups is None:
        return binary

    def finish(result: Any) -> Adopted:
        # (the C call's result of another form: a NumPy scalar of a 0-d operation, or
        # a dtype the namespace does not have; the closure's tail for fresh operands)
        return adopt(result, ())

    state = (ufunc, QUIET, get_state, unset, LAZY, dtypes, large, ndarray, binary, finish)
    return _speedups.host_binary(state)  # type: ignore[no-any-return]


#: The namespace's integer, real floating and complex floating dtypes (the fast
#: paths' rules below are per group).
_INTEGERS: Final = tuple(
    _dtypes.DTYPES[n]
    for n in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
)
_REALS: Final = (_dtypes.DTYPES["float32"], _dtypes.DTYPES["float64"])
_COMPLEXES: Final = (_dtypes.DTYPES["complex64"], _dtypes.DTYPES["complex128"])

#: The dtypes whose ``x ** 2`` NumPy's operator computes as ``square(x)``, exactly
#: ``power(x, 2)`` (integers wrap alike; a real float's square is correctly rounded),
#: each with the exponent types it squares for (a float exponent takes an integer
#: array to float64).
_SQUARED: Final = {
    **{dtype: frozenset({int}) for dtype in _INTEGERS},
    **{dtype: frozenset({int, float}) for dtype in _REALS},
}


def _squaring(
    power: Callable[..., Adopted | None], square: Callable[..., Adopted | None]
) -> Callable[..., Adopted | None]:
    """Return ``pow``'s direct call, squaring where the exponent is the scalar 2.

    NumPy's ``a ** 2`` calls ``square`` (its operator's fast scalar power), twice as
    fast as ``power(a, 2)`` and equal to it on the integer and real floating dtypes:
    the CPU device gives ``x ** 2`` that speed too.
    """

    def call(x1: Any, x2: Any) -> Adopted | None:
        kinds = _SQUARED.get(getattr(x1, "_dtype", DType.Bool))  # (a scalar: none)
        if kinds is not None and type(x2) in kinds and x2 == 2:
            return square(x1)
        return power(x1, x2)

    return call


#: The functions an in-place operator computes into the carrier (NumPy's ufuncs).
_IN_PLACE: Final = {
    "add": np.add,
    "subtract": np.subtract,
    "multiply": np.multiply,
    "divide": np.true_divide,
    "pow": np.power,
}
#: For each dtype: the functions whose result keeps it, the Python scalar types that
#: do not widen it (bool scalars are left to the general path), and whether it is an
#: integer dtype (NumPy refuses its negative powers, midway through the loop).
_IN_PLACE_DTYPES: Final[dict[DType, tuple[frozenset[str], frozenset[type], bool]]] = {
    **{
        dtype: (frozenset({"add", "subtract", "multiply", "pow"}), frozenset({int}), True)
        for dtype in _INTEGERS
    },
    **{dtype: (frozenset(_IN_PLACE), frozenset({int, float}), False) for dtype in _REALS},
    **{
        dtype: (frozenset(_IN_PLACE), frozenset({int, float, complex}), False)
        for dtype in _COMPLEXES
    },
}


def _fits(dtype: DType, value: object) -> bool:
    """Whether a Python scalar operand fits ``dtype`` as NumPy takes it without a cast."""
    if type(value) is not int:
        return True
    info = _dtypes.iinfo(dtype) if _dtypes.isdtype(dtype, "integral") else None
    return info is None or info.min <= value <= info.max


#: A released carrier of each FileBacked class, for ``new_like`` on adoption.
_FILE_PROTOTYPES: dict[type[Carrier], Carrier] = {}


def _file_prototype(dtype: DType) -> Carrier:
    kind: Any = carrier_for("FileBacked", dtype)
    found = _FILE_PROTOTYPES.get(kind)
    if found is None:
        found = kind(dtype=DType.Float32)
        found.release()
        _FILE_PROTOTYPES[kind] = found
    return found


def _store_file(flat: npt.NDArray[Any], dtype: DType) -> Carrier:
    return _file_prototype(dtype).new_like(flat, dtype=dtype)


def _store_generic(flat: npt.NDArray[Any], dtype: DType) -> Carrier:
    kind: Any = carrier_for("Generic", dtype)
    found: Carrier = kind(np.ascontiguousarray(flat), dtype=dtype)
    return found


#: The CPU device's carrier class of each NumPy dtype (looked up once: every result
#: on CPU is adopted through it).
_CPU_KINDS: Final[dict[np.dtype[Any], Any]] = {
    _dtypes.numpy_dtype(dtype): carrier_for("CPU", dtype) for dtype in _DTYPES
}


def _from_numpy(flat: npt.NDArray[Any], *, mutable: bool = True) -> Carrier:
    """Adopt a 1-D C-contiguous NumPy array as a CPU-device carrier (no copy)."""
    kind: Any = _CPU_KINDS.get(flat.dtype, CPU)
    found: Carrier = kind.from_numpy(flat, mutable=mutable)
    return found


#: How each host kind stores a fresh result other than by adopting its buffer
#: (``None``: CPU adopts it, ``CPU.from_numpy``).
_STORES: Final[dict[str, Callable[[npt.NDArray[Any], DType], Carrier] | None]] = {
    "CPU": None,
    "FileBacked": _store_file,
    "Generic": _store_generic,
}


class HostBackend:
    """NumPy through ``array_api_compat``: the compute of one host carrier kind.

    Parameters
    ----------
    kind : str
        ``"CPU"``, ``"FileBacked"`` or ``"Generic"``: where results are stored.

    Notes
    -----
    Implements :class:`~stridewave.array_api._backend.Backend` for the host devices
    (CONTRACT section 9).
    """

    name: Final = "numpy"
    host_addressable: Final = True

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.ns: Any = _NAMESPACE
        self._store = _STORES[kind]
        self._accumulators: dict[tuple[DType, DType | None], Any] = {}
        #: Direct calls where the place's row offers them (CPU, which keeps a fresh
        #: result as it is).
        self.has_direct: bool = place(kind).has_direct
        self._directs: dict[str, Callable[..., Adopted | None] | None] = {}

    def describe(self) -> str:
        """Return the device in words: its kind."""
        return self.kind

    def dtypes(self) -> Mapping[DType, Any]:
        """Return the dtypes the device stores, each with its NumPy dtype."""
        return _DTYPES

    def default_dtypes(self) -> Mapping[str, DType]:
        """Return the default dtypes of the device."""
        return _DEFAULTS

    @staticmethod
    def native_dtype(dtype: DType) -> Any:
        """Return NumPy's dtype of a namespace dtype."""
        return _dtypes.numpy_dtype(dtype)

    def accumulator(self, dtype: DType, requested: DType | None) -> Any:
        """Return the NumPy accumulator dtype of sums and products of ``dtype``.

        The standard's default: a floating dtype keeps itself, bool and signed
        integers sum in the default integer (int64), unsigned ones in uint64;
        ``requested`` when given.
        """
        key = (dtype, requested)
        found = self._accumulators.get(key)
        if found is None:
            found = self._accumulators[key] = _dtypes.numpy_dtype(
                requested or _dtypes.accumulator_dtype(dtype, _INT64, _UINT64)
            )
        return found

    # -- reading and adopting ------------------------------------------------------------

    @staticmethod
    def read(tensor: Tensor) -> npt.NDArray[Any]:
        """Return the Tensor's values as a NumPy array (no copy), for compute only.

        A fresh result whose carrier is not made yet is its own NumPy array (no one
        else can write it). An Array over a CPU or Generic carrier keeps its read-only
        view as its ``native`` token until the carrier's version moves or its storage
        array is replaced: the token holds that array (``_array``), compared by
        identity, and the carrier itself (an Array's carrier never changes). Every replacement of the storage (a resize, a release, an
        Evictable's secondary loaded anew at each eviction, without a version step
        of the tier) makes a new array object, whatever its size.
        """
        cache: Any = getattr(tensor, "_native", _NO_SLOT)
        if cache is not None and cache is not _NO_SLOT:
            if cache[1] is LAZY:
                return cache[0]  # type: ignore[no-any-return]
            # (the Array's carrier, kept in the token, and its version slot: no
            # property on a path every operand read takes; no CPU or Generic kind
            # overrides ``version``)
            carrier = cache[3]
            if cache[2] is carrier._array and cache[1] == carrier._version:
                return cache[0]  # type: ignore[no-any-return]
        carrier = tensor._carrier
        view = _view(tensor)
        if cache is not _NO_SLOT and type(carrier) in _CACHEABLE:
            tensor._native = (view, carrier.version, carrier._array, carrier)  # type: ignore[attr-defined,union-attr]
        return view

    def export(self, tensor: Tensor) -> npt.NDArray[Any]:
        """Return the Tensor's values as NumPy: a read-only view (no copy)."""
        array = self.read(tensor)
        if array.flags.writeable:
            array = array.view()
            array.flags.writeable = False
        return array

    @staticmethod
    def export_writable(tensor: Tensor) -> npt.NDArray[Any] | None:
        """Return a writable zero-copy view of a writable Tensor's values, or None.

        CONTRACT section 9, version 3 ("a writable Array exports a writable zero-copy
        view"): taking it is one write, so the carrier's ``version`` advances by one
        (:meth:`Carrier._export_storage`); later writes through the view are the
        consumer's, outside the counter (as with ``torch.Tensor.numpy()``). None for
        a carrier that refuses writes (immutable, owned, released) or keeps no host
        storage: the read-only export (:meth:`export`) answers for it.

        Parameters
        ----------
        tensor : Tensor
            A single-subtensor Tensor of this kind.

        Returns
        -------
        numpy.ndarray or None
            Shape ``tensor.shape``, writable, sharing the carrier's storage.
        """
        carrier = tensor._carrier
        assert carrier is not None
        assert tensor._layout is not None
        caps = carrier.capabilities
        if not (caps.exports_views and caps.host_addressable) or not carrier.is_mutable():
            return None
        try:
            storage = carrier._export_storage("export a writable view")
        except RuntimeError:
            return None  # (refused since the check: the read-only export answers)
        return strided_view(storage, tensor._offset, tensor._layout)

    @staticmethod
    def is_native(value: object) -> bool:
        """Return whether ``value`` is a NumPy array or scalar."""
        return isinstance(value, (np.ndarray, np.generic))

    def adopt(self, result: Any, sources: tuple[Tensor, ...] = ()) -> Adopted:
        """Adopt a NumPy result as a result of this kind (or a view of a source's).

        A result that views memory it does not own may be a view NumPy made of an
        operand: it becomes geometry on that operand's carrier. A fresh result on CPU
        is kept as it is, its carrier made by ``CPU.from_numpy`` of its own buffer
        when first asked for (:meth:`materialize`); on FileBacked and Generic it is
        copied into the kind's storage.
        """
        if type(result) is not np.ndarray:
            result = np.asarray(result)
        dtype = _dtypes.from_numpy(result.dtype)
        if dtype is None:
            dtype = narrow(result.dtype)
            result = result.astype(_dtypes.numpy_dtype(dtype))
        if sources and (result.base is not None or not result.flags.writeable):
            view = _view_of(result, sources)
            if view is not None:
                return view
        shape = result.shape
        if self._store is None:
            flags = result.flags
            if not flags.c_contiguous or not flags.writeable or result.base is not None:
                # (a fresh result owns its C-ordered buffer: nothing else can write it)
                result = np.array(result, order="C", copy=True)
            return (None, contiguous_layout(shape), 0, (result, LAZY, dtype))
        return (self._store(result.reshape(-1), dtype), contiguous_layout(shape), 0, None)

    @staticmethod
    def materialize(native: Any) -> tuple[Carrier, Any]:
        """Make the CPU carrier of a fresh result (``CPU.from_numpy`` of its buffer).

        Parameters
        ----------
        native : tuple
            The result's token, ``(array, LAZY, dtype)`` (:meth:`adopt`).

        Returns
        -------
        tuple
            ``(carrier, token)``: the carrier over the array's buffer (no copy) and
            the Array's token from now on (a read-only view, the version, the
            storage array and the carrier: see :meth:`read`).
        """
        array = native[0]
        carrier = _from_numpy(array.reshape(-1))
        view = array.view()
        view.flags.writeable = False  # internal: operands only, never handed out
        return carrier, (view, carrier.version, carrier._array, carrier)  # type: ignore[attr-defined]

    def direct(self, name: str) -> Callable[..., Adopted | None] | None:
        """Return ``name`` as one-frame call on this device's Arrays, or None.

        Where the namespace's function is NumPy's ufunc itself (``add``, ``less``,
        ``sqrt`` ...: ``array_api_compat.numpy`` passes it through and no host shim
        replaces it), the call computes it over the operands' NumPy arrays and keeps
        the result as :meth:`adopt` would: the general step without its look-ups.
        None for every other function, and on FileBacked and Generic, which copy
        each result into their storage.

        Parameters
        ----------
        name : str
            The namespace function.

        Returns
        -------
        callable or None
            ``call(x)`` or ``call(x1, x2)`` over Arrays of this device (and, for two
            operands, Python bool, int and float scalars), returning the adopted
            result.
        """
        try:
            return self._directs[name]
        except KeyError:
            pass
        found: Callable[..., Adopted | None] | None = None
        ufunc = getattr(cnp, name, None)
        if (
            self.has_direct
            and ERRSTATE is not None
            and type(ufunc) is np.ufunc
            and ufunc.nout == 1
            and ufunc.nin in (1, 2)
            and name not in _SHIMMED
        ):
            found = _direct_ufunc(self, ufunc)
            if ufunc is np.power:
                found = _squaring(found, _direct_ufunc(self, np.square))
        self._directs[name] = found
        return found

    @staticmethod
    def write_element(target: Tensor, offset: int, source: Any) -> bool:
        """Write a 0-d NumPy ``source`` into slot ``offset`` of the target's carrier.

        One element (``a[i, j] = v``, scikit-learn's diagonal fills) is the carrier's
        own element write (``Carrier.set_value``: its checks and one version step),
        not a one-slot scatter. ``source`` is the value already cast to the target's
        dtype, so its ``item()`` is stored exactly.

        Parameters
        ----------
        target : Tensor
            The Array written.
        offset : int
            The storage slot, in slots.
        source : numpy.ndarray
            A 0-d array of the target's dtype.

        Returns
        -------
        bool
            True when written; False for a value of no NumPy kind (ml_dtypes'
            bfloat16: the caller scatters it).

        Raises
        ------
        RuntimeError
            If the carrier refuses writes (immutable, owned, released).
        """
        if type(source) is not np.ndarray or source.dtype.kind not in "biufc":
            return False
        target._carrier.set_value(offset, source.item())  # type: ignore[union-attr]
        return True

    def update_in_place(self, name: str, target: Tensor, operand: object) -> bool:
        """Compute ``target = name(target, operand)`` into the carrier, as NumPy's ``x += y``.

        One write of the carrier (:meth:`Carrier._update_storage`: its lock, checks
        and one version step), the ufunc writing its result into the target's view of
        the storage (``out=``): no result array, no second pass, as NumPy's in-place
        operators. Taken only where the answer is the general path's: an arithmetic
        function whose result keeps the target's dtype (an Array operand of that
        dtype broadcasting to the target's shape, or a Python scalar of a kind that
        promotes no further), host storage that takes writes, and no NumPy error
        state set by the caller (the general path computes first and writes after,
        so a raising error state must raise before anything is written).

        Parameters
        ----------
        name : str
            ``add``, ``subtract``, ``multiply``, ``divide`` or ``pow``.
        target : Tensor
            The Array written, on this device.
        operand : object
            The other operand (an Array of this device, or a Python scalar).

        Returns
        -------
        bool
            True when the carrier was updated; False where the general path runs.

        Raises
        ------
        RuntimeError
            If the carrier refuses writes (``scatter``'s refusals).
        """
        ufunc = _IN_PLACE.get(name)
        if ufunc is None or ERRSTATE is None or ERRSTATE.get() is not UNSET_ERRSTATE:
            return False
        dtype = target.dtype
        rules = _IN_PLACE_DTYPES.get(dtype)
        if rules is None:
            return False
        names, scalar_types, integral = rules
        if name not in names:
            return False
        if integral and name == "pow" and not (type(operand) is int and operand >= 0):
            return False  # (a negative power of an integer raises midway: the general path)
        if type(operand) in _PY_SCALARS:
            if type(operand) not in scalar_types or not _fits(dtype, operand):
                return False
            value: Any = operand
        elif isinstance(operand, Tensor) and getattr(operand, "_dtype", None) is dtype:
            if getattr(operand, "_device", None) is not getattr(target, "_device", None):
                return False
            try:
                if np.broadcast_shapes(target.shape, operand.shape) != target.shape:
                    return False
            except ValueError:
                return False
            value = self.read(operand)
        else:
            return False
        carrier = target._carrier
        layout = target._layout
        if carrier is None or layout is None or not carrier.is_mutable():
            return False
        caps = carrier.capabilities
        if not (caps.exports_views and caps.host_addressable):
            return False
        offset = target._offset

        def update(storage: npt.NDArray[Any]) -> None:
            check_bounds(target, storage.shape[0])
            view = strided_view(storage, offset, layout)
            try:
                QUIET(ufunc, view, value, out=view)
            except RuntimeError:  # (another thread computes in the context)
                with np.errstate(all="ignore"):
                    ufunc(view, value, out=view)

        carrier._update_storage(update)
        return True

    # -- conversions ---------------------------------------------------------------------

    @staticmethod
    def asarray(values: npt.NDArray[Any], dtype: DType | None) -> npt.NDArray[Any]:
        """Return ``values`` as NumPy of ``dtype``."""
        if dtype is None:
            return np.asarray(values)
        return np.asarray(values, dtype=_dtypes.numpy_dtype(dtype))

    def share(self, values: npt.NDArray[Any]) -> Adopted:
        """Adopt C-contiguous NumPy ``values`` without a copy (CPU only).

        Raises
        ------
        ValueError
            On FileBacked and Generic, which cannot share a NumPy buffer.
        """
        if self._store is not None:
            raise ValueError(
                f"asarray(copy=False) can share memory only on CPU, not Device({self.kind!r})."
            )
        carrier = _from_numpy(values.reshape(-1), mutable=bool(values.flags.writeable))
        return (carrier, contiguous_layout(values.shape), 0, None)

    @staticmethod
    def astype(array: npt.NDArray[Any], dtype: DType) -> npt.NDArray[Any]:
        """Return ``array`` as ``dtype`` (itself when it already is).

        Quiet as every operation of the namespace (``quiet``): a value beyond the
        new dtype's range casts as NumPy casts it (``inf``; an integer cast of
        ``nan`` or of an out-of-range float is undefined), with no ``RuntimeWarning``.
        """
        return quiet_astype(array, _dtypes.numpy_dtype(dtype), False)

    @staticmethod
    def cast(array: npt.NDArray[Any], dtype: DType) -> npt.NDArray[Any]:
        """Return a copy of ``array`` cast to ``dtype`` (quiet, as :meth:`astype`)."""
        return quiet_astype(array, _dtypes.numpy_dtype(dtype), True)

    @staticmethod
    def scalar(value: object, dtype: DType) -> npt.NDArray[Any]:
        """Return a 0-d NumPy array of ``dtype`` holding ``value``."""
        return np.asarray(value, dtype=_dtypes.numpy_dtype(dtype))

    @staticmethod
    def broadcast_to(array: npt.NDArray[Any], shape: tuple[int, ...]) -> npt.NDArray[Any]:
        """Broadcast ``array`` to ``shape`` (ValueError if it cannot)."""
        return np.broadcast_to(array, shape)

    # -- indexing and writes -------------------------------------------------------------

    @staticmethod
    def getitem(array: npt.NDArray[Any], key: tuple[Any, ...]) -> Any:
        """Return NumPy's advanced indexing ``array[key]``."""
        return array[key]

    @staticmethod
    def set_advanced(
        array: npt.NDArray[Any], key: tuple[Any, ...], values: npt.NDArray[Any]
    ) -> npt.NDArray[Any]:
        """Return a copy of ``array`` with ``values`` written at the advanced ``key``."""
        updated = np.array(array, copy=True)
        updated[key] = values
        return updated

    @staticmethod
    def write_source(values: Any, shape: tuple[int, ...], dtype: DType) -> Carrier:
        """Return a read-only CPU carrier of ``values`` broadcast to ``shape``."""
        flat = np.ascontiguousarray(np.broadcast_to(values, shape)).reshape(-1)
        if flat.dtype != _dtypes.numpy_dtype(dtype):
            flat = flat.astype(_dtypes.numpy_dtype(dtype))
        return _from_numpy(flat, mutable=False)

    # -- DLPack --------------------------------------------------------------------------

    def dlpack(self, tensor: Tensor, consumer: str, **kwargs: Any) -> Any:
        """Export the values through DLPack by the carriers' rule (CONTRACT section 8).

        Zero-copy read-only only for a consumer that honours the flag; PyTorch and
        legacy consumers get a copy.
        """
        from stridewave.carriers._protocols import export_dlpack

        array = self.read(tensor)
        return export_dlpack(
            lambda: array,
            what=tensor,
            stream=kwargs.get("stream"),
            max_version=kwargs.get("max_version"),
            dl_device=kwargs.get("dl_device"),
            copy=kwargs.get("copy"),
            consumer=consumer,
        )

    @staticmethod
    def dlpack_device(tensor: Tensor) -> tuple[int, int]:
        """Return ``(1, 0)``: kDLCPU."""
        return (1, 0)


_BACKENDS: Final = {kind: HostBackend(kind) for kind in _STORES}


def backend(name: str) -> HostBackend:
    """Return the host backend of the device ``name`` (one per device).

    Parameters
    ----------
    name : str
        ``"CPU"``, ``"FileBacked"`` or ``"Generic"``: a row of the table of places
        whose ``backend_module`` is this module.

    Returns
    -------
    HostBackend
        Its backend.
    """
    return _BACKENDS[name]


def describe(name: str) -> str:
    """Return the device ``name`` in words: its name.

    Parameters
    ----------
    name : str
        A host device's name.

    Returns
    -------
    str
        ``name``.
    """
    return name
