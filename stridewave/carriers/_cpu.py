"""`CPU`: typed host storage, owned (a fresh ``numpy.ndarray``) or wrapping external memory."""

from __future__ import annotations

import ctypes
from typing import Any, ClassVar, Final

import numpy as np
import numpy.typing as npt
from typing_extensions import Self, override

from stridewave._integers import as_integer
from stridewave.carriers import _messages
from stridewave.carriers._array_backed import _ArrayCarrier
from stridewave.carriers._base import check_flag, check_size
from stridewave.carriers._mapped import copy_streamed
from stridewave.carriers._normalize import materialize, storage_numpy_dtype
from stridewave.carriers._resources import check_host_allocation
from stridewave.carriers._storage import validate_storage_dtype
from stridewave.carriers._storage_dtypes import ROWS, row_for_numpy
from stridewave.dtypes import DType

__all__ = ["CPU"]

_CPU_DTYPES: Final[tuple[DType, ...]] = (DType.Float32, DType.Int32, DType.Bool)


def _wrap_address(pointer: int, size: int, np_dtype: np.dtype[Any]) -> npt.NDArray[Any]:
    nbytes = size * np_dtype.itemsize
    buffer = (ctypes.c_char * nbytes).from_address(pointer)
    array: npt.NDArray[Any] = np.frombuffer(
        buffer,  # type: ignore[call-overload,unused-ignore]
        dtype=np_dtype,
        count=size,
    )
    return array


class CPU(_ArrayCarrier):
    """Typed host storage: a 1-D ``numpy.ndarray``, one element per slot.

    Parameters
    ----------
    size : int-like
        Number of slots (elements), ``>= 0``.
    pointer : int or None, optional
        ``None`` (default): own a new allocation. A positive integer: wrap the
        existing memory at that address (``size * itemsize`` bytes, suitably
        aligned) without owning it, initializing it, or changing it. The caller
        keeps that memory alive and valid for the carrier's whole life and for
        every NumPy view exported from it; :meth:`from_numpy` does this for a NumPy
        array. ``copy``/``pickle`` of a wrapping carrier give an owned copy.
    mutable : bool, optional
        Intrinsic mutability (default ``True``).
    dtype : DType, optional
        ``DType.Float32`` (default), ``DType.Int32`` or ``DType.Bool``
        (binary32, two's-complement 32-bit, one byte 0/1 per slot).
    empty : bool, optional
        With an owned allocation, skip zero-initialization (default ``False``);
        every slot must then be written before it is read. Ignored when wrapping.

    Raises
    ------
    TypeError
        If ``size`` or ``pointer`` is not an integer (a descriptor given positionally as
        ``pointer`` is told that ``dtype`` is keyword-only), ``dtype`` is not a DType, or
        a flag is not a bool.
    ValueError
        If ``size`` is negative, ``pointer`` is not positive, or ``dtype`` is not one
        of Float32, Int32 and Bool (categories and compound dtypes included).

    Notes
    -----
    Implements "CPU owns or wraps typed host storage". Reads return Python scalars
    (zero-copy ``item``); ``numpy.asarray(cpu)`` is a read-only zero-copy view.
    ``release()`` drops the carrier's reference: owned memory is freed once no
    exported view remains; wrapped memory is never freed by the carrier.
    Supported storage dtypes: Float32, Int32, Bool.
    """

    _SUPPORTED_STORAGE: ClassVar[tuple[DType, ...] | None] = _CPU_DTYPES
    _CONSTRUCTIBLE_STORAGE: ClassVar[tuple[DType, ...] | None] = _CPU_DTYPES

    _address: int
    _wraps: bool

    #: The storage row of a wrapped array's NumPy dtype, or ``None`` (``from_numpy``);
    #: a kind with a wider storage set widens it.
    _row_for_numpy = staticmethod(row_for_numpy)

    def __init__(
        self,
        size: int,
        pointer: int | None = None,
        *,
        mutable: bool = True,
        dtype: DType = DType.Float32,
        empty: bool = False,
    ) -> None:
        n = check_size(size, where="CPU")
        dtype = validate_storage_dtype(
            dtype, carrier="CPU", accepted=type(self)._CONSTRUCTIBLE_STORAGE or _CPU_DTYPES
        )
        flag = check_flag("mutable", mutable, where="CPU")
        skip = check_flag("empty", empty, where="CPU")
        np_dtype = storage_numpy_dtype(dtype)
        if pointer is None:
            check_host_allocation(n * np_dtype.itemsize, what=f"CPU({n}, dtype={dtype!r})")
            self._array = np.empty(n, dtype=np_dtype) if skip else np.zeros(n, dtype=np_dtype)
            self._wraps = False
        else:
            given: object = pointer  # typed int, but callers may pass a descriptor here
            if isinstance(given, DType):
                raise TypeError(_messages.dtype_positional(given, where="CPU"))
            address = as_integer(pointer, _messages.bad_pointer_type)
            if address <= 0:
                raise ValueError(_messages.non_positive_pointer(address))
            self._array = _wrap_address(address, n, np_dtype)
            self._wraps = True
        self._init_carrier(dtype, mutable=flag)

    @classmethod
    def _from_owned_array(cls, array: npt.NDArray[Any], dtype: DType, *, mutable: bool) -> Self:
        """Adopt ``array`` (fresh, C-contiguous, storage dtype) without copying."""
        self = cls.__new__(cls)
        self._array = array
        self._wraps = False
        self._init_carrier(dtype, mutable=mutable)
        return self

    @classmethod
    def from_numpy(cls, array: npt.NDArray[Any], *, mutable: bool = True) -> Self:
        """Wrap a NumPy array's memory (zero-copy), keeping the array alive.

        The result reads and writes ``array``'s buffer directly, like
        ``CPU(array.size, pointer=array.ctypes.data, dtype=...)``, but also holds a
        reference to ``array`` (and so does every NumPy view exported from the
        carrier), so the memory stays valid for as long as any of them is used.

        Parameters
        ----------
        array : numpy.ndarray
            1-D, C-contiguous, dtype ``float32``, ``int32`` or ``bool`` (native order).
        mutable : bool, optional
            Intrinsic mutability (default ``True``); ``True`` needs a writeable array.

        Returns
        -------
        CPU
            A carrier of ``array.size`` slots of the matching DType.

        Raises
        ------
        TypeError
            If ``array`` is not a ``numpy.ndarray``.
        ValueError
            If ``array`` is not 1-D and C-contiguous, has another dtype, or is
            read-only while ``mutable=True``.
        """
        if not isinstance(array, np.ndarray):
            raise TypeError(_messages.from_numpy_not_an_array(array))
        flag = check_flag("mutable", mutable, where="CPU.from_numpy")
        row = cls._row_for_numpy(array.dtype)
        if row is None or array.ndim != 1 or not array.flags.c_contiguous:
            raise ValueError(
                _messages.from_numpy_layout(
                    array.shape,
                    array.dtype,
                    contiguous=bool(array.flags.c_contiguous),
                    stored=[row.numpy for row in ROWS],
                )
            )
        if flag and not array.flags.writeable:
            raise ValueError(_messages.from_numpy_read_only())
        self = cls.__new__(cls)
        self._array = np.asarray(array).view()  # a subclass is wrapped as plain data
        self._wraps = True
        self._init_carrier(row.dtype, mutable=flag)
        return self

    def pointer(self) -> int:
        """Return the positive integer address of slot 0.

        Returns
        -------
        int
            The address of the owned allocation, or the wrapped ``pointer``.

        Raises
        ------
        RuntimeError
            If the carrier is released.
        """
        self._require_live("pointer")
        address: int = self._array.ctypes.data
        return address

    def is_wrapping(self) -> bool:
        """Return whether the carrier wraps external memory (``pointer`` or ``from_numpy``).

        Returns
        -------
        bool
            ``True`` when the memory is not owned by the carrier.
        """
        return self._wraps

    @override
    def _raw_load(self, values: npt.NDArray[Any]) -> None:
        super()._raw_load(values)
        self._wraps = False  # the fresh buffer is owned, not the wrapped memory

    @override
    def _raw_new_like(self, values: object, *, mutable: bool, dtype: DType) -> Self:
        np_dtype = storage_numpy_dtype(dtype)
        array, fresh = materialize(values, dtype, np_dtype, where="CPU.new_like", holes=True)
        if not fresh or not array.flags.c_contiguous:
            # from a mapped file (a FileBacked tier being promoted): a chunk at a time,
            # so the file's pages do not stay resident beside the copy
            array = copy_streamed(array, np_dtype)
        return type(self)._from_owned_array(array, dtype, mutable=mutable)

    @override
    def _raw_allocate_like(self, size: int, *, mutable: bool, dtype: DType, empty: bool) -> Self:
        return type(self)(size, mutable=mutable, dtype=dtype, empty=empty)
