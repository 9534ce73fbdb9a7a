"""Tensor: a typed strided view of carrier storage (CONTRACT section 5).

A single-subtensor :class:`Tensor` is a carrier, a :class:`~stridewave.Layout`
and an offset: logical element ``i`` lives at physical slot ``offset +
layout.index(i)``.  A compound Tensor (for a ``CompoundDType``) holds one
single-subtensor Tensor per storage plane.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn

import numpy as np

from stridewave.carriers import Carrier
from stridewave.carriers._scatter import TensorView, strided_view
from stridewave.dtypes import CompoundDType, DType
from stridewave.interop import export_dtype
from stridewave.layout import Layout, _as_index

if TYPE_CHECKING:
    from types import ModuleType
    from typing import SupportsIndex

    import numpy.typing as npt
    from typing_extensions import CapsuleType

__all__ = ["Tensor"]


def _check_fits(carrier: Carrier, layout: Layout, offset: int) -> None:
    """Raise IndexError unless every slot ``offset + layout.index(i)`` is in the carrier."""
    if layout.size == 0:
        return
    size = carrier.size()
    low = offset + layout.min_index
    high = offset + layout.max_index
    if low < 0 or high >= size:
        if carrier.is_released():  # released by another thread after the caller's check
            raise RuntimeError(
                f"cannot view {carrier!r}: it is released and has no storage; build the "
                "Tensor on a live carrier."
            )
        bad = low if low < 0 else high
        raise IndexError(
            f"Tensor(offset={offset}, {layout!r}) addresses physical index {bad} but "
            f"{carrier!r} has {size} slots (valid: [0, {size})); the view spans "
            f"[{low}, {high}]. Use a smaller offset or shape, or a larger carrier."
        )


def _unpickle_error(
    kind: str, what: str, given: object, expected: str, *, shown: str | None = None
) -> ValueError:
    """Return the error of a refused pickle: ``given`` by type and repr (or ``shown``)."""
    text = f"{type(given).__name__} {given!r}" if shown is None else shown
    return ValueError(
        f"cannot unpickle a stridewave {kind}: its {what} is {text}, expected {expected}. "
        "The pickle was not made by this version of stridewave, or was altered; nothing "
        "was built."
    )


def check_pickled_view(carrier: object, layout: object, offset: object, *, kind: str) -> None:
    """Validate a pickled single-subtensor view before anything is built (CONTRACT 7).

    Parameters
    ----------
    carrier : object
        Must be a live :class:`~stridewave.carriers.Carrier`.
    layout : object
        Must be a :class:`~stridewave.Layout`.
    offset : object
        Must be an ``int`` (not ``bool``) ``>= 0``.
    kind : str
        What is unpickled (``"Tensor"``, ``"Array"``), for the message.

    Raises
    ------
    ValueError
        On the first part that does not hold, naming it, what it was and what was
        expected; also when a slot the view addresses is outside the carrier.
    """
    if not isinstance(carrier, Carrier):
        raise _unpickle_error(kind, "carrier", carrier, "a stridewave Carrier")
    if not isinstance(layout, Layout):
        raise _unpickle_error(kind, "layout", layout, "a stridewave Layout")
    if type(offset) is not int or offset < 0:
        raise _unpickle_error(kind, "offset", offset, "an int >= 0", shown=repr(offset))
    if carrier.is_released():
        raise _unpickle_error(kind, "carrier", carrier, "a live carrier")
    if layout.size == 0:
        return
    size = carrier.size()
    low, high = offset + layout.min_index, offset + layout.max_index
    if low < 0 or high >= size:
        raise _unpickle_error(
            kind,
            f"view (offset {offset}, {layout!r})",
            None,
            f"slots within the carrier's [0, {size}) of {carrier!r}",
            shown=f"slots [{low}, {high}]",
        )


def _rebuild_tensor(carrier: Any, layout: Any, offset: Any) -> Tensor:
    """Unpickle a single-subtensor Tensor (see ``Tensor.__reduce__``); ValueError if bad."""
    check_pickled_view(carrier, layout, offset, kind="Tensor")
    return Tensor(carrier, layout, offset=offset)


def _rebuild_compound(dtype: object, subtensors: object) -> Tensor:
    """Unpickle a compound Tensor (see ``Tensor.__reduce__``); ValueError if bad."""
    if not isinstance(dtype, CompoundDType):
        raise _unpickle_error("Tensor", "dtype", dtype, "a CompoundDType")
    planes = dtype.planes
    if (
        type(subtensors) is not tuple
        or len(subtensors) != len(planes)
        or not all(
            type(sub) is Tensor and sub._carrier is not None and sub._dtype is plane
            for sub, plane in zip(subtensors, planes, strict=False)
        )
    ):
        raise _unpickle_error(
            "Tensor",
            "subtensors",
            subtensors,
            f"one Tensor per plane of {dtype!r}, of dtypes {planes!r}",
        )
    return Tensor.compound(dtype, subtensors)


class Tensor(TensorView):
    """A typed, strided view of carrier storage.

    Logical element ``i`` (row-major over ``shape``) of a single-subtensor Tensor
    lives at physical slot ``offset + layout.index(i)`` of ``carrier``.
    Construction checks that every addressed slot lies in ``[0,
    carrier.size())``, using ``layout.min_index``/``max_index`` (no enumeration).
    The view does not copy: writes to the carrier are visible through it.

    Parameters
    ----------
    carrier : Carrier
        The storage holding the elements (any live carrier kind).
    layout : Layout
        Shape and strides of the view, in elements (slots).
    offset : int, keyword-only, default 0
        Physical index of layout offset 0, in elements; ``>= 0``.

    Raises
    ------
    TypeError
        If ``carrier`` is not a ``Carrier``, ``layout`` not a ``Layout``, or
        ``offset`` not an integer (``bool`` is refused).
    ValueError
        If ``offset`` is negative.
    RuntimeError
        If ``carrier`` is released.
    IndexError
        If some addressed slot ``offset + layout.index(i)`` is outside
        ``[0, carrier.size())``; the message names the slot and the carrier size.

    See Also
    --------
    Tensor.compound : A Tensor of a ``CompoundDType``, one subtensor per plane.

    Examples
    --------
    >>> import numpy as np
    >>> from stridewave import CPU, DType, Layout, Tensor
    >>> c = CPU(6, dtype=DType.Int32)
    >>> t = Tensor(c, Layout((2, 3), (1, 2)))    # a transposed view
    >>> np.asarray(t).shape
    (2, 3)
    """

    __slots__ = ("_carrier", "_dtype", "_layout", "_offset", "_subtensors")

    _carrier: Carrier | None
    _layout: Layout | None
    _offset: int
    _dtype: DType
    _subtensors: tuple[Tensor, ...]

    def __init__(self, carrier: Carrier, layout: Layout, *, offset: SupportsIndex = 0) -> None:
        if not isinstance(carrier, Carrier):
            raise TypeError(
                f"Tensor carrier must be a stridewave Carrier, got {type(carrier).__name__} "
                f"{carrier!r}; wrap the values first, e.g. CPU(n) or Generic(values, dtype=...)."
            )
        if not isinstance(layout, Layout):
            raise TypeError(
                f"Tensor layout must be a stridewave Layout, got {type(layout).__name__} "
                f"{layout!r}; pass for example Layout({layout!r})."
            )
        offset_i = _as_index(offset, "Tensor offset")
        if offset_i < 0:
            raise ValueError(
                f"Tensor offset must be >= 0 (a physical index in elements), got {offset_i}."
            )
        if carrier.is_released():
            raise RuntimeError(
                f"cannot view {carrier!r}: it is released and has no storage; build the "
                "Tensor on a live carrier."
            )
        _check_fits(carrier, layout, offset_i)
        self._carrier = carrier
        self._layout = layout
        self._offset = offset_i
        self._dtype = carrier.dtype()
        # empty for a simple Tensor: ``(self,)`` stored here would be a reference
        # cycle, keeping every carrier viewed by a Tensor alive until the collector runs
        self._subtensors = ()

    @classmethod
    def compound(cls, dtype: CompoundDType, subtensors: Sequence[Tensor]) -> Tensor:
        """Build a multi-subtensor Tensor of a compound dtype, one subtensor per plane.

        Parameters
        ----------
        dtype : CompoundDType
            The compound dtype; ``dtype.planes`` lists the simple dtype of each
            plane (for a ``ScaledDType``: element, then scale).
        subtensors : sequence of Tensor
            One single-subtensor Tensor per plane, in plane order; subtensor ``k``
            must have dtype ``dtype.planes[k]`` (identity).

        Returns
        -------
        Tensor
            A Tensor with ``dtype`` set to ``dtype`` and ``subtensors`` the given
            views; its ``shape`` is that of the first plane.

        Raises
        ------
        TypeError
            If ``dtype`` is not a ``CompoundDType`` or ``subtensors`` is not a
            tuple or list of Tensors.
        ValueError
            If the number of subtensors differs from the number of planes, a
            subtensor is itself compound, or a subtensor's dtype is not its plane's.
        """
        if not isinstance(dtype, CompoundDType):
            raise TypeError(
                f"Tensor.compound needs a CompoundDType, got {type(dtype).__name__} {dtype!r}; "
                "for a simple dtype build Tensor(carrier, layout) instead."
            )
        if not isinstance(subtensors, (tuple, list)) or not all(
            isinstance(t, Tensor) for t in subtensors
        ):
            raise TypeError(
                f"Tensor.compound needs a tuple of Tensors (one per plane), got {subtensors!r}."
            )
        planes = dtype.planes
        if len(subtensors) != len(planes):
            raise ValueError(
                f"{dtype!r} has {len(planes)} planes {planes!r} but {len(subtensors)} "
                "subtensors were given; pass one single-subtensor Tensor per plane, in order."
            )
        for k, (sub, plane) in enumerate(zip(subtensors, planes, strict=True)):
            if len(sub.subtensors) != 1:
                raise ValueError(
                    f"subtensor {k} of Tensor.compound is itself a multi-subtensor Tensor; "
                    "pass one single-subtensor Tensor per plane."
                )
            if sub.dtype is not plane:
                raise ValueError(
                    f"subtensor {k} has dtype {sub.dtype!r} but plane {k} of {dtype!r} is "
                    f"{plane!r}; view a carrier of dtype {plane!r} for that plane."
                )
        self = object.__new__(cls)
        self._carrier = None
        self._layout = None
        self._offset = 0
        self._dtype = dtype
        self._subtensors = tuple(subtensors)
        return self

    # -- queries ------------------------------------------------------------------

    def _single(self, what: str) -> NoReturn:
        raise ValueError(
            f"a compound Tensor of {self._dtype!r} has no single {what}: it has one "
            f"subtensor per plane; use tensor.subtensors[k].{what}."
        )

    @property
    def carrier(self) -> Carrier:
        """The carrier holding a single-subtensor Tensor's elements (ValueError if compound)."""
        if self._carrier is None:
            self._single("carrier")
        return self._carrier

    @property
    def layout(self) -> Layout:
        """The view's shape and strides, in elements (ValueError if compound)."""
        if self._layout is None:
            self._single("layout")
        return self._layout

    @property
    def offset(self) -> int:
        """The physical index of layout offset 0, in elements (ValueError if compound)."""
        if self._layout is None:
            self._single("offset")
        return self._offset

    @property
    def shape(self) -> tuple[int, ...]:
        """The logical extent of each axis (the first plane's, if compound)."""
        first = self.subtensors[0]
        assert first._layout is not None
        return first._layout.shape

    @property
    def dtype(self) -> DType:
        """The carrier's dtype, or the compound dtype of a compound Tensor."""
        return self._dtype

    @property
    def subtensors(self) -> tuple[Tensor, ...]:
        """The single-subtensor views: ``(self,)``, or one per plane if compound."""
        return self._subtensors or (self,)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle as the parts the constructor takes; unpickling checks them.

        Returns
        -------
        tuple
            ``(rebuild, (carrier, layout, offset))``, or for a compound Tensor
            ``(rebuild, (dtype, subtensors))``. Unpickling an altered recipe raises
            ``ValueError`` naming the part, what it was and what was expected (a view
            outside its carrier, an offset that is not an ``int >= 0``, a subtensor
            that is not its plane's), before anything is built.
        """
        if self._carrier is None:
            return (_rebuild_compound, (self._dtype, self._subtensors))
        return (_rebuild_tensor, (self._carrier, self._layout, self._offset))

    def __setstate__(self, state: object) -> None:
        """Restore a Tensor pickled as its slots (Python's default recipe), checked.

        Parameters
        ----------
        state : tuple
            ``(None, slots)``: the slot values by name.

        Raises
        ------
        ValueError
            If the state is not a Tensor's slots, a slot does not hold what the
            constructor would have made (the carrier's dtype, a view inside the
            carrier, ``()`` for a simple Tensor's subtensors), or the object is a
            subclass with its own recipe (an Array).
        """
        kind = type(self).__name__
        if type(self).__reduce__ is not Tensor.__reduce__:
            raise _unpickle_error(kind, "state", state, f"the recipe of {kind}.__reduce__")
        names = set(Tensor.__slots__)
        if not (
            type(state) is tuple
            and len(state) == 2
            and state[0] is None
            and type(state[1]) is dict
            and set(state[1]) == names
        ):
            raise _unpickle_error(kind, "state", state, f"(None, a dict of {sorted(names)})")
        slots = state[1]
        carrier, dtype, subtensors = slots["_carrier"], slots["_dtype"], slots["_subtensors"]
        if carrier is None:
            if slots["_layout"] is not None or slots["_offset"] != 0:
                raise _unpickle_error(
                    kind, "layout and offset", (slots["_layout"], slots["_offset"]), "(None, 0)"
                )
            built = _rebuild_compound(dtype, subtensors)
        else:
            check_pickled_view(carrier, slots["_layout"], slots["_offset"], kind=kind)
            if dtype is not carrier.dtype():
                raise _unpickle_error(
                    kind, "dtype", dtype, f"the carrier's dtype {carrier.dtype()!r}"
                )
            if subtensors != ():
                raise _unpickle_error(kind, "subtensors", subtensors, "() for a simple Tensor")
            built = Tensor(carrier, slots["_layout"], offset=slots["_offset"])
        for name in Tensor.__slots__:
            object.__setattr__(self, name, object.__getattribute__(built, name))

    def __repr__(self) -> str:
        if self._carrier is None:
            return f"Tensor.compound({self._dtype!r}, {self._subtensors!r})"
        return f"Tensor({self._carrier!r}, {self._layout!r}, offset={self._offset})"

    # -- the array API namespace ---------------------------------------------------

    def __array_namespace__(self, /, *, api_version: str | None = None) -> ModuleType:
        """Return :mod:`stridewave.array_api`, the array API namespace (CONTRACT section 9).

        Parameters
        ----------
        api_version : str or None, keyword-only
            ``None`` or a standard version up to ``"2024.12"``.

        Returns
        -------
        module
            :mod:`stridewave.array_api` (imported on first use).

        Raises
        ------
        ValueError
            If ``api_version`` names a version the namespace does not implement.
        """
        from stridewave.array_api._array import namespace

        return namespace(api_version)

    # -- NumPy interop ------------------------------------------------------------

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> npt.NDArray[Any]:
        """Return the logical values, shape ``self.shape`` (NumPy 2 ``__array__``).

        Parameters
        ----------
        dtype : numpy dtype, optional
            Convert to this dtype (a copy unless it is already the storage dtype).
        copy : bool, optional
            ``None``: a **read-only** strided view of the carrier's storage where
            the carrier gives a NumPy view (CPU, Generic, FileBacked), else a copy.
            ``True``: a writable copy.  ``False``: a view or ``ValueError``.

        Returns
        -------
        numpy.ndarray, shape ``self.shape``
            Element ``i`` (row-major) is the value at physical slot
            ``offset + layout.index(i)``.

        Raises
        ------
        TypeError
            If NumPy cannot read ``dtype`` as a dtype.
        ValueError
            If the Tensor is compound (one array per plane: convert each
            subtensor), or ``copy=False`` and no view is possible.
        RuntimeError
            If the carrier has been released.
        """
        if self._carrier is None or self._layout is None:
            raise ValueError(
                f"a compound Tensor of {self._dtype!r} has no single NumPy array; convert "
                "each plane: [numpy.asarray(t) for t in tensor.subtensors]."
            )
        requested = export_dtype(dtype, exporter=self)
        storage = self._carrier.__array__(copy=False if copy is False else None)
        view = strided_view(np.ascontiguousarray(storage), self._offset, self._layout)
        if copy:
            view = view.copy()
        if requested is not None and requested != view.dtype:
            if copy is False:
                raise ValueError(
                    f"cannot return a view of {self!r} as {requested}: the storage "
                    f"holds {view.dtype}; pass copy=None or copy=True to convert."
                )
            view = view.astype(requested)
        return view

    # -- array-likeness and DLPack (CONTRACT section 8) ------------------------------

    @property
    def ndim(self) -> int:
        """The number of axes, ``len(shape)``."""
        return len(self.shape)

    def __getitem__(self, key: Any) -> Any:
        """Index the logical values as NumPy does (``numpy.asarray(tensor)[key]``).

        This is what ``dask.array.from_array(tensor)`` calls for each chunk: basic
        indexing of a host-backed Tensor is a zero-copy **read-only** view.

        Parameters
        ----------
        key : int, slice, tuple, array
            Any NumPy index.

        Returns
        -------
        numpy.ndarray or scalar
            What NumPy returns for the same index of the read-only export.

        Raises
        ------
        ValueError
            If the Tensor is compound.
        RuntimeError
            If the carrier has been released.
        IndexError
            As NumPy, for an index out of range.
        """
        return self.__array__()[key]

    def _export(self) -> npt.NDArray[Any]:
        view = self.__array__()
        if view.flags.writeable:
            view = view.view()
            view.flags.writeable = False
        return view

    def __dlpack__(
        self,
        *,
        stream: object = None,
        max_version: tuple[int, int] | None = None,
        dl_device: tuple[int, int] | None = None,
        copy: bool | None = None,
    ) -> CapsuleType:
        """Export the logical values through DLPack (shape ``self.shape``, strided).

        As :meth:`Carrier.__dlpack__ <stridewave.Carrier.__dlpack__>`: a zero-copy
        strided view with DLPack's read-only flag for consumers that honour it, a
        private copy for every other consumer. A Tensor over Metal exports a host
        snapshot.

        Parameters
        ----------
        stream : int or None, optional
            Consumer stream; ``None`` for host memory.
        max_version : tuple of (int, int) or None, optional
            Highest DLPack version the consumer understands.
        dl_device : tuple of (int, int) or None, optional
            Requested device; only the host ``(1, 0)`` is served.
        copy : bool or None, optional
            ``None``: zero-copy where possible; ``True``: a copy; ``False``: zero-copy
            or ``BufferError``.

        Returns
        -------
        PyCapsule
            A DLPack capsule.

        Raises
        ------
        ValueError
            If the Tensor is compound (export each subtensor).
        RuntimeError
            If the carrier has been released.
        BufferError
            If ``copy=False`` or ``dl_device`` cannot be honoured.
        """
        from stridewave.carriers._protocols import _caller_module, export_dlpack

        return export_dlpack(
            self._export,
            what=self,
            stream=stream,
            max_version=max_version,
            dl_device=dl_device,
            copy=copy,
            consumer=_caller_module(1),
        )

    def __dlpack_device__(self) -> tuple[int, int]:
        """Return ``(1, 0)`` (``kDLCPU``): a Tensor exports host memory.

        Returns
        -------
        tuple of (int, int)
            The DLPack device.

        Raises
        ------
        RuntimeError
            If the carrier has been released.
        """
        for sub in self.subtensors:
            if sub._carrier is not None and sub._carrier.is_released():
                raise RuntimeError(
                    f"cannot export {self!r} through DLPack: its carrier is released."
                )
        return (1, 0)

    def __dask_tokenize__(self) -> object:
        """Return a cheap Dask token: the carriers' tokens, layouts and offsets."""
        return tuple(
            (
                sub._carrier.__dask_tokenize__() if sub._carrier is not None else None,
                repr(sub._layout),
                sub._offset,
            )
            for sub in self.subtensors
        )
