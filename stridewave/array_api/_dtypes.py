"""Data types of :mod:`stridewave.array_api`: the descriptors themselves, and their rules.

The namespace's dtype objects *are* the stridewave descriptors
(``xp.float32 is DType.Float32``): the standard's thirteen, the built-ins where the
dtype spec has one and the standard's extension descriptors for the others, which
this module registers when the namespace is first imported
(:func:`stridewave.dtypes.register_standard_dtypes`; CONTRACT section 9).

Promotion follows the array API standard's table inside a kind (booleans, signed and
unsigned integers together, real floating, complex floating with real floating), and
NumPy's rules across kinds, which the standard leaves undefined: an integer and a
floating dtype give NumPy's answer (``int32`` with ``float32`` is ``float64``,
``int8`` with ``float32`` is ``float32``), ``uint64`` with a signed integer is
``float64``. Python scalars are weak: they take the array's dtype.

Beyond the standard, ``float16`` and ``bfloat16`` (:data:`HALF`; CONTRACT section 9,
version 3): descriptors ``Float16`` and ``BFloat16`` registered with the thirteen, never
among them (:data:`DTYPES`, and so ``__array_namespace_info__().dtypes()``, lists the
thirteen only). They are of the kinds ``"real floating"`` and ``"numeric"`` (the
standard's words: "real-valued floating-point data types"). Their promotion is NumPy's
with ml_dtypes, as JAX, PyTorch and MLX have it: either with a wider real floating dtype
gives the wider, ``float16`` with ``bfloat16`` gives ``float32`` (neither holds the
other), either with a complex dtype the complex dtype; across kinds NumPy's rule
(``int8``/``uint8``/``bool`` keep the half dtype, ``int16``/``uint16`` give
``float32``, wider integers ``float64``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Final

import ml_dtypes
import numpy as np

from stridewave.array_api import _messages
from stridewave.dtypes import DType, register_standard_dtypes
from stridewave.dtypes._standard import register_half_dtypes

__all__ = [
    "DTYPES",
    "HALF",
    "accumulator_dtype",
    "as_dtype",
    "can_cast",
    "finfo",
    "from_numpy",
    "iinfo",
    "isdtype",
    "numpy_dtype",
    "promote",
    "result_type",
    "same_kind",
]

#: Every dtype of the namespace, by its array API name, in the standard's order.
DTYPES: Final[dict[str, DType]] = dict(register_standard_dtypes())

#: The two half-precision dtypes beyond the standard, by name (never in :data:`DTYPES`).
HALF: Final[dict[str, DType]] = dict(register_half_dtypes())
float16: Final = HALF["float16"]
bfloat16: Final = HALF["bfloat16"]

bool_: Final = DType.Bool
int32: Final = DType.Int32
float32: Final = DType.Float32
float64: Final = DType.Float64

_TO_NUMPY: Final[dict[DType, np.dtype[Any]]] = {
    **{dtype: np.dtype(name if name != "bool" else np.bool_) for name, dtype in DTYPES.items()},
    float16: np.dtype(np.float16),
    bfloat16: np.dtype(ml_dtypes.bfloat16),
}
_FROM_NUMPY: Final[dict[np.dtype[Any], DType]] = {v: k for k, v in _TO_NUMPY.items()}
#: The namespace dtype of each NumPy dtype that is one (read directly on per-call paths).
FROM_NUMPY: Final = _FROM_NUMPY
_KNOWN: Final = frozenset(DTYPES.values()) | frozenset(HALF.values())

_SIGNED: Final = tuple(DTYPES[n] for n in ("int8", "int16", "int32", "int64"))
_UNSIGNED: Final = tuple(DTYPES[n] for n in ("uint8", "uint16", "uint32", "uint64"))
_REAL: Final = (DTYPES["float32"], DTYPES["float64"], float16, bfloat16)
_COMPLEX: Final = (DTYPES["complex64"], DTYPES["complex128"])

_KINDS: Final[dict[str, frozenset[DType]]] = {
    "bool": frozenset({bool_}),
    "signed integer": frozenset(_SIGNED),
    "unsigned integer": frozenset(_UNSIGNED),
    "integral": frozenset(_SIGNED + _UNSIGNED),
    "real floating": frozenset(_REAL),
    "complex floating": frozenset(_COMPLEX),
    "numeric": frozenset(_SIGNED + _UNSIGNED + _REAL + _COMPLEX),
}


def _refuse(dtype: object) -> TypeError:
    return TypeError(_messages.unsupported_dtype(dtype))


def as_dtype(dtype: object) -> DType:
    """Return the namespace dtype ``dtype`` names (a descriptor or a NumPy dtype-like).

    Parameters
    ----------
    dtype : DType or numpy dtype-like
        ``xp.float64`` (the descriptor), or a NumPy dtype such as ``numpy.float64``.

    Returns
    -------
    DType
        One of the standard's thirteen descriptors, or ``float16``/``bfloat16``
        (``numpy.float16``, ``ml_dtypes.bfloat16``).

    Raises
    ------
    TypeError
        If ``dtype`` is any other dtype (``float8``, a category, a structured dtype).
    """
    if isinstance(dtype, DType):
        if dtype in _KNOWN:
            return dtype
        raise _refuse(dtype)
    try:
        found = _FROM_NUMPY.get(np.dtype(dtype))  # type: ignore[call-overload]
    except TypeError:
        found = None
    if found is None:
        raise _refuse(dtype)
    return found


def numpy_dtype(dtype: DType) -> np.dtype[Any]:
    """Return the NumPy dtype storing ``dtype`` (e.g. ``numpy.dtype("int64")`` for Int64)."""
    return _TO_NUMPY[dtype]


def from_numpy(np_dtype: np.dtype[Any]) -> DType | None:
    """Return the namespace dtype of a NumPy dtype, or ``None`` if it has none."""
    return _FROM_NUMPY.get(np_dtype)


def narrow(np_dtype: np.dtype[Any]) -> DType:
    """Return the namespace dtype a backend result of ``np_dtype`` is held as.

    Every NumPy dtype of the namespace is itself (``float16`` and ml_dtypes'
    ``bfloat16`` included); any other bool, integer or floating width (another byte
    order) the dtype of its kind and size where there is one.

    Raises
    ------
    TypeError
        If no standard dtype holds ``np_dtype`` (``longdouble``, strings, objects).
    """
    found = _FROM_NUMPY.get(np_dtype)
    if found is not None:
        return found
    found = _FROM_NUMPY.get(np_dtype.newbyteorder("="))
    if found is not None:
        return found
    raise TypeError(_messages.unheld_result_dtype(np_dtype))


def _dtype_of(value: object) -> DType | None:
    """Return the dtype of an array operand (``None`` for a Python scalar)."""
    dtype = getattr(value, "dtype", None)
    if dtype is None:
        return None
    return as_dtype(dtype)


def promote(d1: DType, d2: DType) -> DType:
    """Return the promotion of two namespace dtypes (the standard's table, NumPy's across kinds).

    Parameters
    ----------
    d1, d2 : DType
        Namespace dtypes.

    Returns
    -------
    DType
        The promoted dtype.
    """
    if d1 is d2:
        return d1
    return _FROM_NUMPY[np.promote_types(_TO_NUMPY[d1], _TO_NUMPY[d2])]


def _scalar_fits(scalar: object, dtype: DType) -> bool:
    """Whether a Python scalar may take ``dtype`` (the standard's weak scalars)."""
    if isinstance(scalar, bool):
        return True
    if isinstance(scalar, int):
        return dtype is not bool_
    if isinstance(scalar, float):
        return dtype in _KINDS["real floating"] or dtype in _KINDS["complex floating"]
    return dtype in _KINDS["real floating"] or dtype in _KINDS["complex floating"]


def check_scalar(value: object, dtype: DType) -> None:
    """Refuse a Python scalar that ``dtype`` cannot hold: one rule for writes and fills.

    ``x[k] = value`` and ``full(shape, value, dtype=dtype)`` follow it on every device,
    as ``asarray`` does: an int outside the integer dtype's range, a finite float
    beyond float32's (or float16's, bfloat16's), and a complex value with a finite part
    beyond float32's written into complex64, raise ``OverflowError``; a NaN or an
    infinity written into an integer dtype raises ``ValueError`` (NumPy's ``int(nan)``). A finite float into an
    integer dtype is truncated, as NumPy's assignment does (the reference's leniency;
    CONTRACT section 9, version 3).

    Parameters
    ----------
    value : object
        The scalar (Python or NumPy); anything else passes unchecked.
    dtype : DType
        The dtype of the array written or made.

    Raises
    ------
    OverflowError
        If the value does not fit ``dtype``'s range.
    ValueError
        If a NaN or an infinity is written into an integer dtype.
    """
    if isinstance(value, (bool, np.bool_)):
        return
    integral = dtype in _KINDS["integral"]
    if isinstance(value, (int, np.integer)):
        if integral:
            info = np.iinfo(_TO_NUMPY[dtype])
            if not info.min <= int(value) <= info.max:
                raise OverflowError(_messages.fill_out_of_range(value, dtype))
        return
    if isinstance(value, (float, np.floating)):
        number = float(value)
        if integral:
            if not math.isfinite(number):
                raise ValueError(_messages.nonfinite_into_integer(value, dtype))
            info = np.iinfo(_TO_NUMPY[dtype])
            if not info.min <= int(number) <= info.max:
                raise OverflowError(_messages.fill_out_of_range(value, dtype))
        elif (
            dtype in (float32, _COMPLEX[0])
            and abs(number) >= _FLOAT32_LIMIT
            and math.isfinite(number)
        ):
            raise OverflowError(_messages.float32_overflow(value, value))
        elif dtype in _HALF_LIMITS and math.isfinite(number) and abs(number) >= _HALF_LIMITS[dtype]:
            raise OverflowError(_messages.half_overflow(value, dtype))
        return
    if isinstance(value, (complex, np.complexfloating)) and dtype is _COMPLEX[0]:
        parts = complex(value)
        for part in (parts.real, parts.imag):
            if math.isfinite(part) and abs(part) >= _FLOAT32_LIMIT:
                raise OverflowError(_messages.complex64_overflow(value, value))


#: The smallest magnitude that rounds to infinity in float32 (2**128 - 2**103).
_FLOAT32_LIMIT: Final = float(2**128 - 2**103)
#: The smallest magnitude that rounds to infinity in float16 and in bfloat16 (the
#: largest finite value plus half its spacing).
_HALF_LIMITS: Final[dict[DType, float]] = {
    float16: float(2**16 - 2**4),
    bfloat16: float(2**128 - 2**119),
}


def result_type(*arrays_and_dtypes: object) -> DType:
    """Return the dtype the standard's promotion gives for the arguments.

    Parameters
    ----------
    *arrays_and_dtypes : array, DType or Python scalar
        At least one array or dtype (2024.12 also accepts Python scalars, which
        take the dtype of the arrays).

    Returns
    -------
    DType
        The promoted dtype: the standard's table inside a kind, NumPy's rules across
        kinds (module docstring). A Python complex next to a real floating dtype gives
        the complex dtype of its precision.

    Raises
    ------
    ValueError
        If no array or dtype is given (Python scalars alone), as ``array_api_strict``.
    TypeError
        If a dtype is not of this namespace, or a Python scalar cannot take the array
        dtype (a float with an integer array).
    """
    result: DType | None = None
    scalars: list[object] = []
    for item in arrays_and_dtypes:
        if isinstance(item, (bool, int, float, complex)):
            scalars.append(item)
            continue
        dtype = as_dtype(item) if not hasattr(item, "dtype") else _dtype_of(item)
        assert dtype is not None
        result = dtype if result is None else promote(result, dtype)
    if result is None:
        # (ValueError, as array_api_strict raises: SciPy's callers catch that one)
        raise ValueError(_messages.result_type_of_nothing())
    for scalar in scalars:
        if not _scalar_fits(scalar, result):
            raise TypeError(_messages.scalar_of_other_kind(scalar, result))
        if isinstance(scalar, complex) and result in _KINDS["real floating"]:
            result = DTYPES["complex128"] if result is float64 else DTYPES["complex64"]
    return result


def can_cast(from_: object, to: object, /) -> bool:
    """Return whether promotion can turn ``from_`` into ``to`` (array API ``can_cast``).

    Parameters
    ----------
    from_ : DType or array
        The source dtype, or an array whose dtype is used.
    to : DType
        The target dtype.

    Returns
    -------
    bool
        ``True`` when promoting ``from_`` with ``to`` gives ``to`` under the standard's
        table (inside a kind, or real floating to complex floating); across the other
        kinds (integer to floating, which the standard leaves undefined) ``False``.

    Raises
    ------
    TypeError
        If a dtype is not one of this namespace's.
    """
    found = _dtype_of(from_) if hasattr(from_, "dtype") else as_dtype(from_)
    assert found is not None
    source: DType = found
    target = as_dtype(to)
    if source is target:
        return True
    if source is bool_ or target is bool_:
        return False
    floating = _KINDS["real floating"] | _KINDS["complex floating"]
    if (source in floating) != (target in floating):
        return False
    if source in _KINDS["complex floating"] and target in _KINDS["real floating"]:
        return False
    return promote(source, target) is target


def isdtype(dtype: object, kind: object) -> bool:
    """Return whether ``dtype`` is of ``kind`` (array API ``isdtype``).

    Parameters
    ----------
    dtype : DType
        A dtype of this namespace.
    kind : DType, str or tuple
        A dtype, a kind name (``"bool"``, ``"signed integer"``, ``"unsigned
        integer"``, ``"integral"``, ``"real floating"``, ``"complex floating"``,
        ``"numeric"``), or a tuple of these (any match).

    Returns
    -------
    bool
        ``True`` when ``dtype`` is ``kind`` or one of its members.

    Raises
    ------
    TypeError
        If ``dtype`` is not a dtype of this namespace, or ``kind`` is neither.
    ValueError
        If ``kind`` is a string that names no kind.
    """
    target = as_dtype(dtype)
    if isinstance(kind, tuple):
        return any(isdtype(target, k) for k in kind)
    if isinstance(kind, str):
        members = _KINDS.get(kind)
        if members is None:
            raise ValueError(_messages.unknown_dtype_kind(kind, sorted(_KINDS)))
        return target in members
    return target is as_dtype(kind)


@dataclass(frozen=True)
class finfo_object:
    """Machine limits of a floating dtype (array API ``finfo`` result)."""

    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: DType


@dataclass(frozen=True)
class iinfo_object:
    """Machine limits of an integer dtype (array API ``iinfo`` result)."""

    bits: int
    max: int
    min: int
    dtype: DType


def same_kind(given: DType, target: DType) -> bool:
    """Whether NumPy's ``same_kind`` casting takes ``given`` to ``target``.

    Parameters
    ----------
    given, target : DType
        The dtype of a result, and the dtype it is written into.

    Returns
    -------
    bool
        True within a kind (a narrowing included: float64 into float32) and for real
        floating into complex floating, as NumPy's in-place operators cast.
    """
    for kind in ("integral", "real floating", "complex floating"):
        if isdtype(target, kind):
            return isdtype(given, kind) or (
                kind == "complex floating" and isdtype(given, "real floating")
            )
    return False


def finfo(type: object, /) -> finfo_object:
    """Return the limits of a floating dtype (array API ``finfo``).

    Parameters
    ----------
    type : DType or array
        A real or complex floating dtype, or an array of one.

    Returns
    -------
    finfo_object
        ``bits``, ``eps``, ``max``, ``min``, ``smallest_normal`` (Python floats),
        ``dtype``; for a complex dtype, those of its real part (the standard's rule),
        with ``dtype`` the real floating dtype of that precision.

    Raises
    ------
    TypeError
        If the dtype is not floating.
    """
    dtype = _dtype_of(type) if hasattr(type, "dtype") else as_dtype(type)
    if dtype not in _KINDS["real floating"] and dtype not in _KINDS["complex floating"]:
        raise TypeError(_messages.finfo_needs_float(dtype))
    info = np.finfo(_TO_NUMPY[dtype])
    real = _FROM_NUMPY[np.dtype(info.dtype)]
    return finfo_object(
        info.bits,
        float(info.eps),
        float(info.max),
        float(info.min),
        float(info.smallest_normal),
        real,
    )


def iinfo(type: object, /) -> iinfo_object:
    """Return the limits of an integer dtype (array API ``iinfo``).

    Parameters
    ----------
    type : DType or array
        A signed or unsigned integer dtype, or an array of one.

    Returns
    -------
    iinfo_object
        ``bits``, ``max``, ``min`` (Python ints), ``dtype``.

    Raises
    ------
    TypeError
        If the dtype is not an integer dtype.
    """
    dtype = _dtype_of(type) if hasattr(type, "dtype") else as_dtype(type)
    if dtype not in _KINDS["integral"]:
        raise TypeError(_messages.iinfo_needs_int(dtype))
    info = np.iinfo(_TO_NUMPY[dtype])
    return iinfo_object(info.bits, int(info.max), int(info.min), dtype)


def accumulator_dtype(dtype: DType, integral: DType, unsigned: DType) -> DType:
    """Return the standard's default accumulator of ``sum``/``prod`` over ``dtype``.

    Parameters
    ----------
    dtype : DType
        The input's dtype.
    integral : DType
        The device's default integer dtype.
    unsigned : DType
        The unsigned integer dtype of the default integer's width.

    Returns
    -------
    DType
        ``dtype`` for floating dtypes; for bool and signed integers the wider of
        ``dtype`` and ``integral``; for unsigned integers the wider of ``dtype`` and
        ``unsigned``.
    """
    if isdtype(dtype, ("real floating", "complex floating")):
        return dtype
    if isdtype(dtype, "unsigned integer"):
        return promote(dtype, unsigned)
    if dtype is bool_:
        return integral
    return promote(dtype, integral)
