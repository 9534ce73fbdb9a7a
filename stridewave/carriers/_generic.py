"""`Generic`: a carrier that consumes values into normalized storage it owns."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Final

import numpy as np
import numpy.typing as npt
from typing_extensions import Self, override

from stridewave.carriers import _messages
from stridewave.carriers._array_backed import _ArrayCarrier
from stridewave.carriers._base import check_flag
from stridewave.carriers._normalize import materialize, storage_numpy_dtype
from stridewave.carriers._storage import validate_storage_dtype
from stridewave.dtypes import DType

__all__ = ["Generic"]

_GENERIC_SUPPORTED: Final[tuple[DType, ...]] = (
    DType.Any,
    DType.Floating,
    DType.Float32,
    DType.Int32,
    DType.Bool,
)
_GENERIC_CONCRETE: Final[tuple[DType, ...]] = (DType.Float32, DType.Int32, DType.Bool)


#: Default of ``dtype`` that only tells "not given" apart (a required keyword).
class _Required:
    """Run-time default of Generic's required ``dtype``: tells "left out" apart."""

    def __repr__(self) -> str:
        return "<required>"


_REQUIRED: Final = _Required()


def _owned(values: object, dtype: DType, *, where: str, holes: bool) -> npt.NDArray[Any]:
    """Normalize ``values`` into a fresh C-contiguous array the carrier owns."""
    np_dtype = storage_numpy_dtype(dtype)
    array, fresh = materialize(values, dtype, np_dtype, where=where, holes=holes)
    if not fresh or not array.flags.c_contiguous:
        array = np.array(array, dtype=np_dtype, copy=True, order="C")
    return array


class Generic(_ArrayCarrier):
    """Storage built from an iterable of values: a 1-D ``numpy.ndarray`` it owns.

    Parameters
    ----------
    values : iterable
        Ordered slot values, consumed once and normalized before the carrier is
        returned. ``None`` items are refused (``TypeError``): a hole exists only in
        ``new_like`` input. NumPy subclasses (masked arrays, ``numpy.matrix``) read as
        their plain data (``numpy.asarray``; a mask is not a hole). The carrier keeps
        no reference to ``values``: later changes to it do not show.
    mutable : bool, optional
        Intrinsic mutability (default ``True``).
    dtype : DType
        Required, keyword-only: ``DType.Float32``, ``DType.Int32`` or ``DType.Bool``.
        Omitting it is a ``TypeError`` naming the missing keyword-only argument and
        the accepted dtypes; passing it positionally is Python's positional-argument
        ``TypeError``.

    Raises
    ------
    TypeError
        If ``dtype`` is missing or not a DType, ``values`` is not iterable, or a value
        (``None`` included) is refused by the normalization table.
    ValueError
        If ``dtype`` is another descriptor (every category, compound dtypes).
    OverflowError
        If a value is out of the dtype's range.

    Notes
    -----
    Implements "Generic stores normalized concrete values". Supported storage
    dtypes (structural, per the spec): Any, Floating, Float32, Int32, Bool; only the
    three concrete ones can be constructed. Reads return Python scalars;
    ``numpy.asarray`` gives a read-only zero-copy view; ``release()`` drops the array.
    """

    _SUPPORTED_STORAGE: ClassVar[tuple[DType, ...] | None] = _GENERIC_SUPPORTED
    _CONSTRUCTIBLE_STORAGE: ClassVar[tuple[DType, ...] | None] = _GENERIC_CONCRETE

    if TYPE_CHECKING:  # dtype is required for type checkers

        def __init__(self, values: object, *, mutable: bool = True, dtype: DType) -> None: ...

    else:  # at run time a default tells "left out" apart, to name the accepted dtypes

        def __init__(self, values, *, mutable=True, dtype=_REQUIRED):
            self._construct(values, mutable, dtype)

    def _construct(self, values: object, mutable: object, dtype: object) -> None:
        accepted = type(self)._CONSTRUCTIBLE_STORAGE or _GENERIC_CONCRETE
        if dtype is _REQUIRED:
            raise TypeError(_messages.missing_dtype(where="Generic", accepted=accepted))
        checked = validate_storage_dtype(dtype, carrier="Generic", accepted=accepted)
        flag = check_flag("mutable", mutable, where="Generic")
        self._array = _owned(values, checked, where="Generic", holes=False)
        self._init_carrier(checked, mutable=flag)

    @classmethod
    def _adopt(cls, array: npt.NDArray[Any], dtype: DType, *, mutable: bool) -> Self:
        self = cls.__new__(cls)
        self._array = array
        self._init_carrier(dtype, mutable=mutable)
        return self

    @override
    def _raw_new_like(self, values: object, *, mutable: bool, dtype: DType) -> Self:
        # new_like, unlike the constructor, reads None items as holes (spec).
        array = _owned(values, dtype, where="Generic.new_like", holes=True)
        return type(self)._adopt(array, dtype, mutable=mutable)

    @override
    def _raw_allocate_like(self, size: int, *, mutable: bool, dtype: DType, empty: bool) -> Self:
        # Generic always initializes, even with empty=True.
        return type(self)._adopt(
            np.zeros(size, dtype=storage_numpy_dtype(dtype)), dtype, mutable=mutable
        )
