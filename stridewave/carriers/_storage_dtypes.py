"""The storage-dtype table: one frozen record per dtype a carrier can store.

Everything a storage dtype means to a carrier lives in its row of :data:`ROWS`: the
NumPy dtype (from the one mapping, :func:`stridewave.to_numpy_dtype`), the MLX dtype
name, the zero a fresh slot holds, the value a ``None`` hole in ``new_like`` input
reads as, the Python type reads return, the scalar normalizer with its fast-path
bounds, the vectorized rule for whole arrays, and the limits named in messages.
Every carrier kind, the normalizer (:mod:`stridewave.carriers._normalize`), the
public storage helpers (:mod:`stridewave.carriers._storage`) and the Metal backend
read this table; none of them branches on a storage dtype. Adding a storage dtype is
one more row here (with its two rule functions) plus its tests.

:data:`ROWS` holds the spec carriers' three. The array API standard's other dtypes
(Int8, Int16, Int64, UInt8-UInt64, Float64, Complex64, Complex128), and the two
half-precision dtypes beyond it (Float16, BFloat16), have rows too, built from their
rules (:data:`EXTENSION_ROW_NAMES`) when first asked for, because their descriptors
exist only once registered; :func:`storage_row` finds both, and only the
extension carriers (:mod:`stridewave.carriers._extension`) accept them.

The rules implement CONTRACT section 3 ("Value normalization"):

======= ============================================ ===================== ==========================
dtype   accepted                                     stored / read back    refused
======= ============================================ ===================== ==========================
Float32 ``int``, ``float``, NumPy integer and        the nearest binary32  ``bool``/``numpy.bool_``,
        floating scalars (``numpy.longdouble``        of the exact value,   ``timedelta64``,
        included), the ``ml_dtypes`` floats          rounded once, read    ``datetime64``, complex,
                                                     as ``float``          str, None: ``TypeError``;
                                                                           a finite value whose
                                                                           nearest binary32 is
                                                                           infinite: ``OverflowError``
Int32   objects with ``__index__`` (not ``bool``,     read as ``int``       non-integers (incl.
        not ``timedelta64``)                                               ``1.0``), bools:
                                                                           ``TypeError``; outside
                                                                           [-2**31, 2**31-1]:
                                                                           ``OverflowError``
Bool    Python ``bool``; on the vectorized path a    read as ``bool``      anything else, incl.
        NumPy array of dtype ``bool``                                      ``numpy.bool_``, 0 and 1:
                                                                           ``TypeError`` (use
                                                                           ``bool(x)``)
======= ============================================ ===================== ==========================

*Rounded once.* A Python ``int`` beyond ``2**53`` is rounded to binary32 in integer
arithmetic (half to even), never through ``float`` (which would round to binary64
first: ``2**54 - 2**29 - 1`` would become ``2**54`` instead of ``2**54 - 2**30``).
A ``numpy.longdouble`` is cast to ``float32`` directly. ``inf`` and ``nan`` are
stored as they are; a finite value overflows exactly when its nearest binary32 is
infinite, i.e. when its magnitude reaches ``2**128 - 2**103``.

*Vectorized rules* apply the same table to a whole 1-D ``numpy.ndarray`` by its
dtype, with no per-element Python loop: integer, floating (``longdouble`` too) and
``ml_dtypes`` float arrays into Float32 (one rounding by NumPy's cast; a finite
overflow raises), integer arrays into Int32 (range-checked with one ``min``/``max``),
bool arrays into Bool. ``timedelta64``/``datetime64``, complex, string and other
arrays are refused with ``TypeError``. Object arrays are not handled here: they take
the scalar normalizer element by element (:func:`stridewave.carriers._normalize.materialize`).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import ml_dtypes
import numpy as np
import numpy.typing as npt

from stridewave.carriers import _messages
from stridewave.dtypes import DType
from stridewave.dtypes._standard import is_half, is_standard, standard_dtype_for_numpy
from stridewave.interop import to_numpy_dtype

__all__ = [
    "EXTENSION_ROW_NAMES",
    "FLOAT32_OVERFLOW",
    "INT32_MAX",
    "INT32_MIN",
    "ROWS",
    "StorageDType",
    "extension_row",
    "extension_row_for_numpy",
    "row_for_numpy",
    "storage_row",
]

#: Smallest magnitude whose nearest binary32 is infinite (FLT_MAX + half an ulp).
FLOAT32_OVERFLOW: Final[float] = 2.0**128 - 2.0**103
INT32_MIN: Final[int] = -(2**31)
INT32_MAX: Final[int] = 2**31 - 1

#: The ``ml_dtypes`` floating types: real numbers that binary32 holds exactly.
_ML_FLOAT_NAMES: Final = (
    "bfloat16",
    "float8_e3m4",
    "float8_e4m3",
    "float8_e4m3b11fnuz",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
    "float6_e2m3fn",
    "float6_e3m2fn",
    "float4_e2m1fn",
)
_ML_FLOAT_TYPES: Final[frozenset[type]] = frozenset(
    getattr(ml_dtypes, name) for name in _ML_FLOAT_NAMES if hasattr(ml_dtypes, name)
)
_ML_FLOAT_DTYPES: Final[frozenset[np.dtype[Any]]] = frozenset(
    np.dtype(kind) for kind in _ML_FLOAT_TYPES
)
#: Scalars that look numeric to ``isinstance`` but are not numbers here.
_NOT_NUMBERS: Final = (bool, np.bool_, np.timedelta64, np.datetime64)

_F32_LIMITS: Final = "finite values of magnitude below 2**128 - 2**103 (about 3.4028235e38)"
_I32_LIMITS: Final = "integers in [-2**31, 2**31 - 1] = [-2147483648, 2147483647]"

Normalizer = Callable[[object], Any]
ArrayRule = Callable[[npt.NDArray[Any], np.dtype[Any]], tuple[npt.NDArray[Any], bool]]


# -- Float32 ----------------------------------------------------------------------------


def _float32_refused(value: object) -> TypeError:
    return TypeError(
        _messages.value_type(
            value,
            dtype=DType.Float32,
            expected="real numbers: int, float, numpy integer or floating scalars (longdouble "
            "included) and the ml_dtypes floats",
            fix="Convert with float(...); bool, complex, timedelta64 and datetime64 values are "
            "not real numbers here.",
        )
    )


def _float32_overflow(value: object) -> OverflowError:
    return OverflowError(_messages.value_overflow(value, dtype=DType.Float32, limits=_F32_LIMITS))


def _float32_from_int(i: int, value: object) -> float:
    """Return the nearest binary32 of the integer ``i`` (half to even), as a float."""
    magnitude = -i if i < 0 else i
    if magnitude <= 1 << 53:  # exact in binary64, so the store rounds once
        return float(i)
    shift = magnitude.bit_length() - 24  # keep 24 significant bits
    kept = magnitude >> shift
    rest = magnitude - (kept << shift)
    half = 1 << (shift - 1)
    if rest > half or (rest == half and kept & 1):
        kept += 1
    rounded = kept << shift
    if rounded >= 1 << 128:  # the nearest binary32 is infinite
        raise _float32_overflow(value)
    result = float(rounded)  # at most 25 significant bits: exact
    return -result if i < 0 else result


def _float32_from_wide(value: np.floating[Any]) -> float:
    """Round a floating scalar wider than binary64 (``longdouble``) once, to binary32."""
    if not np.isfinite(value):
        return float(value)
    try:
        with np.errstate(over="raise"):
            narrowed = np.float32(value)
    except FloatingPointError:
        raise _float32_overflow(value) from None
    if np.isinf(narrowed):
        raise _float32_overflow(value)
    return float(narrowed)


def _float32(value: object) -> float:
    """Scalar rule of Float32 (module table); ``float`` fast-path values never get here."""
    cls = type(value)
    if cls is float:
        f: float = value  # type: ignore[assignment]
    elif cls is int:
        return _float32_from_int(value, value)  # type: ignore[arg-type]
    elif isinstance(value, _NOT_NUMBERS):
        raise _float32_refused(value)
    elif isinstance(value, (int, np.integer)):
        return _float32_from_int(operator.index(value), value)
    elif isinstance(value, float) or cls in _ML_FLOAT_TYPES:
        f = float(value)  # type: ignore[arg-type]
    elif isinstance(value, np.floating):
        if value.dtype.itemsize > 8:
            return _float32_from_wide(value)
        f = float(value)
    else:
        raise _float32_refused(value)
    if -FLOAT32_OVERFLOW < f < FLOAT32_OVERFLOW or math.isinf(f) or math.isnan(f):
        return f
    raise _float32_overflow(value)


#: What a real floating row's vectorized rule takes, in its refusal.
_REAL_ARRAYS: Final = "real numbers (integer, floating or ml_dtypes float dtypes)"


def _refuse_unless(array: npt.NDArray[Any], dtype: DType, kinds: str, expected: str) -> None:
    """Raise the refusal of ``array`` unless its NumPy kind is in ``kinds`` or an ml_dtypes float.

    Raises
    ------
    TypeError
        Naming the array's dtype, ``dtype`` and what ``expected`` says it takes.
    """
    if array.dtype.kind not in kinds and array.dtype not in _ML_FLOAT_DTYPES:
        raise TypeError(_messages.array_refused(array.dtype, dtype=dtype, expected=expected))


def _float32_array(array: npt.NDArray[Any], target: np.dtype[Any]) -> tuple[npt.NDArray[Any], bool]:
    """Vectorized rule of Float32: one cast, a finite overflow raises."""
    if array.dtype == target:
        return array, False
    _refuse_unless(array, DType.Float32, "fiu", _REAL_ARRAYS)
    try:
        with np.errstate(over="raise"):
            return array.astype(target), True
    except FloatingPointError:
        raise _float32_overflow(f"an array of {array.dtype}") from None


# -- Int32 ------------------------------------------------------------------------------


def _integer_refused(value: object, dtype: DType = DType.Int32) -> TypeError:
    """Return the refusal of a value that is not an integer (every integer row)."""
    return TypeError(
        _messages.value_type(
            value,
            dtype=dtype,
            expected="integers: objects with __index__ such as int or numpy.int64",
            fix="Convert with int(...) or round(...) first; floats such as 1.0, bools and "
            "timedelta64 values are refused.",
        )
    )


def _int32(value: object) -> int:
    """Scalar rule of Int32 (module table); ``int`` fast-path values never get here."""
    if type(value) is int:
        i: int = value
    elif isinstance(value, _NOT_NUMBERS):
        raise _integer_refused(value)
    else:
        try:
            i = operator.index(value)  # type: ignore[arg-type,unused-ignore]
        except TypeError:
            raise _integer_refused(value) from None
    if INT32_MIN <= i <= INT32_MAX:
        return i
    raise OverflowError(_messages.value_overflow(value, dtype=DType.Int32, limits=_I32_LIMITS))


def _int32_array(array: npt.NDArray[Any], target: np.dtype[Any]) -> tuple[npt.NDArray[Any], bool]:
    """Vectorized rule of Int32: integer dtypes, range-checked with one min/max."""
    if array.dtype == target:
        return array, False
    kind = array.dtype.kind
    if kind not in "iu":
        raise TypeError(
            _messages.array_refused(
                array.dtype, dtype=DType.Int32, expected="integers (integer dtypes)"
            )
        )
    if array.size and (array.dtype.itemsize > 4 or (kind == "u" and array.dtype.itemsize == 4)):
        low, high = int(array.min()), int(array.max())
        if low < INT32_MIN or high > INT32_MAX:
            bad = low if low < INT32_MIN else high
            raise OverflowError(
                _messages.value_overflow(bad, dtype=DType.Int32, limits=_I32_LIMITS)
            )
    return array.astype(target), True


# -- Bool -------------------------------------------------------------------------------


def _bool(value: object) -> bool:
    """Scalar rule of Bool: a Python ``bool`` only (spec: "Bool writes SHALL require a Python bool")."""
    if value is True or value is False:
        return value
    raise TypeError(
        _messages.value_type(
            value,
            dtype=DType.Bool,
            expected="Python bool values True and False (numpy.bool_ scalars are refused; a "
            "NumPy array of dtype bool is accepted as a whole)",
            fix="Convert with bool(x) if you mean the value's truth.",
        )
    )


def _bool_array(array: npt.NDArray[Any], target: np.dtype[Any]) -> tuple[npt.NDArray[Any], bool]:
    """Vectorized rule of Bool: arrays of dtype bool only."""
    if array.dtype == target:
        return array, False
    if array.dtype.kind != "b":
        raise TypeError(
            _messages.array_refused(array.dtype, dtype=DType.Bool, expected="booleans (dtype bool)")
        )
    return array.astype(target), True


# -- the table --------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class StorageDType:
    """Everything one storage dtype means to a carrier (one row of :data:`ROWS`).

    Parameters
    ----------
    dtype : DType
        The descriptor identity (``DType.Float32``, ...).
    numpy : numpy.dtype
        Native-order NumPy storage dtype, from :func:`stridewave.to_numpy_dtype`.
    mlx : str
        Name of the ``mlx.core`` dtype attribute (``"float32"``, ``"int32"``, ``"bool_"``).
    python : type
        Type of the Python scalars reads return.
    zero : float, int, bool or complex
        Value of an initialized slot (spec: ``storage_zero`` for the spec rows).
    hole : float, int, bool or complex
        Value a ``None`` item of ``new_like`` input reads as.
    normalize : callable
        Scalar rule ``f(value) -> python scalar``; raises ``TypeError``/``OverflowError``.
    fast_type : type
        Values of exactly this type within ``[fast_low, fast_high]`` are stored as they
        are, without calling ``normalize`` (the scalar hot path).
    fast_low, fast_high : float, int or bool
        Bounds of the fast path, inclusive.
    vectorize : callable
        Vectorized rule ``f(array, target) -> (array as target, fresh)``; ``fresh`` is
        ``False`` when ``array`` already had dtype ``target`` and is returned itself.
    limits : str
        The dtype's value range in words, for messages.
    """

    dtype: DType
    numpy: np.dtype[Any]
    mlx: str
    python: type
    zero: float | int | bool | complex
    hole: float | int | bool | complex
    normalize: Normalizer
    fast_type: type
    fast_low: Any
    fast_high: Any
    vectorize: ArrayRule
    limits: str

    def __repr__(self) -> str:
        """Return ``StorageDType(SimpleDType('Float32'), numpy=float32, mlx=float32)``."""
        return f"StorageDType({self.dtype!r}, numpy={self.numpy}, mlx={self.mlx})"


_FLOAT32_FAST: Final = math.nextafter(FLOAT32_OVERFLOW, 0.0)

#: The storage dtypes, one row each (the order is the one messages list them in).
ROWS: Final[tuple[StorageDType, ...]] = (
    StorageDType(
        dtype=DType.Float32,
        numpy=to_numpy_dtype(DType.Float32),
        mlx="float32",
        python=float,
        zero=0.0,
        hole=0.0,
        normalize=_float32,
        fast_type=float,
        fast_low=-_FLOAT32_FAST,
        fast_high=_FLOAT32_FAST,
        vectorize=_float32_array,
        limits=_F32_LIMITS,
    ),
    StorageDType(
        dtype=DType.Int32,
        numpy=to_numpy_dtype(DType.Int32),
        mlx="int32",
        python=int,
        zero=0,
        hole=0,
        normalize=_int32,
        fast_type=int,
        fast_low=INT32_MIN,
        fast_high=INT32_MAX,
        vectorize=_int32_array,
        limits=_I32_LIMITS,
    ),
    StorageDType(
        dtype=DType.Bool,
        numpy=to_numpy_dtype(DType.Bool),
        mlx="bool_",
        python=bool,
        zero=False,
        hole=False,
        normalize=_bool,
        fast_type=bool,
        fast_low=False,
        fast_high=True,
        vectorize=_bool_array,
        limits="True and False",
    ),
)


# -- the array API standard's other dtypes (extension carriers only) ---------------------
#
# Rows of the dtypes no spec carrier stores: Int8 and Float64 (built-ins) and the
# standard's extensions (Int16, Int64, UInt8-UInt64, Complex64, Complex128). Their
# descriptors exist only once registered (stridewave.dtypes.register_standard_dtypes),
# so each row is built from its rule the first time it is asked for, and only for the
# registered descriptor with the standard's structure; :data:`ROWS` stays the spec
# carriers' three. Integers follow Int32's rule with their own range; Float64 follows
# Float32's with binary64; a complex dtype takes Python ``complex`` and every real the
# matching real rule takes, each part rounded once.


class _NoFastPath:
    """``fast_type`` of a row without a scalar fast path: no value has this type."""


def _integer_row(dtype: DType, low: int, high: int, mlx: str) -> StorageDType:
    limits = f"integers in [{low}, {high}]"

    def normalize(value: object) -> int:
        if type(value) is int:
            i: int = value
        elif isinstance(value, _NOT_NUMBERS):
            raise _integer_refused(value, dtype)
        else:
            try:
                i = operator.index(value)  # type: ignore[arg-type,unused-ignore]
            except TypeError:
                raise _integer_refused(value, dtype) from None
        if low <= i <= high:
            return i
        raise OverflowError(_messages.value_overflow(value, dtype=dtype, limits=limits))

    def vectorize(array: npt.NDArray[Any], target: np.dtype[Any]) -> tuple[npt.NDArray[Any], bool]:
        if array.dtype == target:
            return array, False
        if array.dtype.kind not in "iu":
            raise TypeError(
                _messages.array_refused(
                    array.dtype, dtype=dtype, expected="integers (integer dtypes)"
                )
            )
        if array.size and not np.can_cast(array.dtype, target, "safe"):
            smallest, largest = int(array.min()), int(array.max())
            if smallest < low or largest > high:
                bad = smallest if smallest < low else largest
                raise OverflowError(_messages.value_overflow(bad, dtype=dtype, limits=limits))
        return array.astype(target), True

    return StorageDType(
        dtype=dtype,
        numpy=to_numpy_dtype(dtype),
        mlx=mlx,
        python=int,
        zero=0,
        hole=0,
        normalize=normalize,
        fast_type=int,
        fast_low=low,
        fast_high=high,
        vectorize=vectorize,
        limits=limits,
    )


_F64_LIMITS: Final = "finite values of magnitude below 2**1024 - 2**970 (about 1.7976931e308)"


def _real_kind(value: object) -> bool:
    """Tell whether ``value`` is a real number the floating rules take."""
    return not isinstance(value, _NOT_NUMBERS) and (
        isinstance(value, (int, float, np.integer, np.floating)) or type(value) in _ML_FLOAT_TYPES
    )


def _float64_value(value: object, overflow: Callable[[object], Exception]) -> float:
    """Return the nearest binary64 of the real ``value``, rounded once."""
    if isinstance(value, (int, np.integer)):
        try:
            return float(operator.index(value))  # correctly rounded, half to even
        except OverflowError:
            raise overflow(value) from None
    if isinstance(value, np.floating) and value.dtype.itemsize > 8:
        if not np.isfinite(value):
            return float(value)
        try:
            with np.errstate(over="raise"):
                narrowed = np.float64(value)
        except FloatingPointError:
            raise overflow(value) from None
        if np.isinf(narrowed):
            raise overflow(value)
        return float(narrowed)
    return float(value)  # type: ignore[arg-type]


def _float_array(
    array: npt.NDArray[Any], target: np.dtype[Any], *, dtype: DType, kinds: str, expected: str
) -> tuple[npt.NDArray[Any], bool]:
    """Vectorized rule of Float64 and the complex dtypes: one cast, an overflow raises."""
    if array.dtype == target:
        return array, False
    _refuse_unless(array, dtype, kinds, expected)
    try:
        with np.errstate(over="raise", invalid="ignore"):
            return array.astype(target), True
    except FloatingPointError:
        raise OverflowError(
            _messages.value_overflow(f"an array of {array.dtype}", dtype=dtype, limits=expected)
        ) from None


def _float64_row(dtype: DType) -> StorageDType:
    def overflow(value: object) -> OverflowError:
        return OverflowError(_messages.value_overflow(value, dtype=dtype, limits=_F64_LIMITS))

    def normalize(value: object) -> float:
        if type(value) is float:
            return value
        if not _real_kind(value):
            raise TypeError(
                _messages.value_type(
                    value,
                    dtype=dtype,
                    expected="real numbers: int, float, numpy integer or floating scalars "
                    "(longdouble included) and the ml_dtypes floats",
                    fix="Convert with float(...); bool, complex, timedelta64 and datetime64 "
                    "values are not real numbers here.",
                )
            )
        return _float64_value(value, overflow)

    def vectorize(array: npt.NDArray[Any], target: np.dtype[Any]) -> tuple[npt.NDArray[Any], bool]:
        return _float_array(
            array,
            target,
            dtype=dtype,
            kinds="fiu",
            expected=_REAL_ARRAYS,
        )

    return StorageDType(
        dtype=dtype,
        numpy=to_numpy_dtype(dtype),
        mlx="float64",
        python=float,
        zero=0.0,
        hole=0.0,
        normalize=normalize,
        fast_type=float,
        fast_low=-math.inf,
        fast_high=math.inf,
        vectorize=vectorize,
        limits=_F64_LIMITS,
    )


def _complex_row(dtype: DType, *, single: bool) -> StorageDType:
    limits = (
        f"complex numbers whose parts are {_F32_LIMITS}"
        if single
        else f"complex numbers whose parts are {_F64_LIMITS}"
    )

    def overflow(value: object) -> OverflowError:
        return OverflowError(_messages.value_overflow(value, dtype=dtype, limits=limits))

    def part(value: object, whole: object) -> float:
        if not single:
            return _float64_value(value, lambda _: overflow(whole))
        try:
            return _float32(value)
        except OverflowError:
            raise overflow(whole) from None

    def normalize(value: object) -> complex:
        if isinstance(value, (complex, np.complexfloating)):
            return complex(part(value.real, value), part(value.imag, value))
        if not _real_kind(value):
            raise TypeError(
                _messages.value_type(
                    value,
                    dtype=dtype,
                    expected="complex and real numbers: complex, int, float and NumPy "
                    "complex, integer and floating scalars",
                    fix="Convert with complex(...); bool, str, timedelta64 and datetime64 "
                    "values are refused.",
                )
            )
        return complex(part(value, value), 0.0)

    def vectorize(array: npt.NDArray[Any], target: np.dtype[Any]) -> tuple[npt.NDArray[Any], bool]:
        return _float_array(
            array,
            target,
            dtype=dtype,
            kinds="fiuc",
            expected="complex or real numbers (complex, integer, floating or ml_dtypes "
            "float dtypes)",
        )

    return StorageDType(
        dtype=dtype,
        numpy=to_numpy_dtype(dtype),
        mlx="complex64" if single else "",
        python=complex,
        zero=0j,
        hole=0j,
        normalize=normalize,
        fast_type=_NoFastPath,
        fast_low=None,
        fast_high=None,
        vectorize=vectorize,
        limits=limits,
    )


_F16_LIMITS: Final = (
    "finite values of magnitude below 2**16 - 2**4 = 65520 (float16's max is 65504)"
)
_BF16_LIMITS: Final = (
    "finite values of magnitude below 2**128 - 2**119 (about 3.3961e38; bfloat16's max is "
    "about 3.3895e38)"
)


def _round_int(i: int, significant: int) -> int:
    """Return the integer ``i`` rounded to ``significant`` bits, half to even, exactly."""
    magnitude = -i if i < 0 else i
    shift = magnitude.bit_length() - significant
    if shift <= 0:
        return i
    kept = magnitude >> shift
    rest = magnitude - (kept << shift)
    half = 1 << (shift - 1)
    if rest > half or (rest == half and kept & 1):
        kept += 1
    rounded = kept << shift
    return -rounded if i < 0 else rounded


def _half_row(dtype: DType, np_dtype: np.dtype[Any], *, mlx: str, significant: int) -> StorageDType:
    """Build the row of Float16 or BFloat16 (beyond the standard; extension carriers only).

    A real number is stored as the nearest value of the dtype, rounded once (NumPy's
    and ml_dtypes' casts from binary64 round correctly; a Python int beyond ``2**53``
    is rounded to the dtype's ``significant`` bits in integer arithmetic first, which
    the dtype then holds exactly); a finite value whose nearest is infinite raises
    ``OverflowError``, as Float32's rule does.
    """
    limits = _F16_LIMITS if significant == 11 else _BF16_LIMITS
    scalar = np_dtype.type

    def overflow(value: object) -> OverflowError:
        return OverflowError(_messages.value_overflow(value, dtype=dtype, limits=limits))

    def normalize(value: object) -> float:
        if not _real_kind(value):
            raise TypeError(
                _messages.value_type(
                    value,
                    dtype=dtype,
                    expected="real numbers: int, float, numpy integer or floating scalars "
                    "and the ml_dtypes floats",
                    fix="Convert with float(...); bool, complex, timedelta64 and datetime64 "
                    "values are not real numbers here.",
                )
            )
        if isinstance(value, (int, np.integer)):
            exact: Any = _round_int(operator.index(value), significant)
            wide: Any
            try:
                wide = float(exact)
            except OverflowError:
                raise overflow(value) from None
        elif isinstance(value, np.floating) and value.dtype.itemsize > 8:
            wide = value  # (cast directly: no binary64 step)
        else:
            wide = float(value)  # type: ignore[arg-type]
        with np.errstate(over="ignore"):
            stored = scalar(wide)
        if np.isinf(stored) and np.isfinite(wide):
            raise overflow(value)
        return float(stored)

    def vectorize(array: npt.NDArray[Any], target: np.dtype[Any]) -> tuple[npt.NDArray[Any], bool]:
        if array.dtype == target:
            return array, False
        _refuse_unless(array, dtype, "fiu", _REAL_ARRAYS)
        with np.errstate(over="ignore", invalid="ignore"):
            out = array.astype(target)
        if array.size:
            overflowed = np.isinf(out) & ~np.isinf(array) & ~np.isnan(array)
            if overflowed.any():
                raise overflow(array[overflowed][0])
        return out, True

    return StorageDType(
        dtype=dtype,
        numpy=np_dtype,
        mlx=mlx,
        python=float,
        zero=0.0,
        hole=0.0,
        normalize=normalize,
        fast_type=_NoFastPath,
        fast_low=None,
        fast_high=None,
        vectorize=vectorize,
        limits=limits,
    )


#: How to build the row of each standard dtype no spec carrier stores, by name.
_EXTENSION_RULES: Final[dict[str, Callable[[DType], StorageDType]]] = {
    "Int8": lambda d: _integer_row(d, -(2**7), 2**7 - 1, "int8"),
    "Int16": lambda d: _integer_row(d, -(2**15), 2**15 - 1, "int16"),
    "Int64": lambda d: _integer_row(d, -(2**63), 2**63 - 1, "int64"),
    "UInt8": lambda d: _integer_row(d, 0, 2**8 - 1, "uint8"),
    "UInt16": lambda d: _integer_row(d, 0, 2**16 - 1, "uint16"),
    "UInt32": lambda d: _integer_row(d, 0, 2**32 - 1, "uint32"),
    "UInt64": lambda d: _integer_row(d, 0, 2**64 - 1, "uint64"),
    "Float64": _float64_row,
    "Complex64": lambda d: _complex_row(d, single=True),
    "Complex128": lambda d: _complex_row(d, single=False),
    # beyond the standard (CONTRACT section 9, version 3)
    "Float16": lambda d: _half_row(d, np.dtype(np.float16), mlx="float16", significant=11),
    "BFloat16": lambda d: _half_row(d, np.dtype(ml_dtypes.bfloat16), mlx="bfloat16", significant=8),
}

#: Names of the dtypes only extension carriers store, in the standard's order, then the
#: two half-precision dtypes beyond it.
EXTENSION_ROW_NAMES: Final[tuple[str, ...]] = tuple(_EXTENSION_RULES)

_EXTENSION_ROWS: dict[DType, StorageDType] = {}


def extension_row(dtype: object) -> StorageDType | None:
    """Return the row of a standard dtype that only extension carriers store, or ``None``.

    Parameters
    ----------
    dtype : object
        Any object.

    Returns
    -------
    StorageDType or None
        The row (built once, on first request) when ``dtype`` is the registered
        standard (or half-precision) descriptor of one of :data:`EXTENSION_ROW_NAMES`; ``None`` otherwise,
        e.g. for a user's descriptor of the same name with another structure.
    """
    row: StorageDType | None = _EXTENSION_ROWS.get(dtype)  # type: ignore[call-overload]
    if row is not None:
        return row
    if not isinstance(dtype, DType) or dtype.name not in _EXTENSION_RULES:
        return None
    if not is_standard(dtype) and not is_half(dtype):
        return None
    return _EXTENSION_ROWS.setdefault(dtype, _EXTENSION_RULES[dtype.name](dtype))


def storage_row(dtype: object) -> StorageDType:
    """Return the row of storage dtype ``dtype`` (matched by identity).

    Parameters
    ----------
    dtype : DType
        A storage descriptor.

    Returns
    -------
    StorageDType
        Its record.

    Raises
    ------
    ValueError
        If no row holds ``dtype`` (a category, a compound, another simple dtype); the
        standard's extension rows (:func:`extension_row`) count once registered.
    """
    for row in ROWS:
        if row.dtype is dtype:
            return row
    extension = extension_row(dtype)
    if extension is not None:
        return extension
    raise ValueError(_messages.no_storage_row(dtype, [row.dtype for row in ROWS]))


def row_for_numpy(np_dtype: np.dtype[Any]) -> StorageDType | None:
    """Return the row whose native NumPy dtype is ``np_dtype``, or ``None``.

    Parameters
    ----------
    np_dtype : numpy.dtype
        A NumPy dtype (native byte order matches; a swapped one does not).

    Returns
    -------
    StorageDType or None
        The row storing exactly that NumPy dtype.
    """
    for row in ROWS:
        if row.numpy == np_dtype and np_dtype.isnative:
            return row
    return None


def extension_row_for_numpy(np_dtype: np.dtype[Any]) -> StorageDType | None:
    """Return the row storing ``np_dtype``: a spec row, else a registered extension row.

    Parameters
    ----------
    np_dtype : numpy.dtype
        A NumPy dtype (native byte order matches; a swapped one does not).

    Returns
    -------
    StorageDType or None
        The row storing exactly that NumPy dtype, or ``None`` (also while the standard
        dtypes are not registered).
    """
    row = row_for_numpy(np_dtype)
    if row is not None:
        return row
    dtype = standard_dtype_for_numpy(np_dtype)
    return None if dtype is None else extension_row(dtype)
