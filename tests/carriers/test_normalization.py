"""Every row of the normalization table (CONTRACT section 3), on every kind and path."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from stridewave import DType
from stridewave.carriers._normalize import FLOAT32_OVERFLOW, normalize_scalar

from .conftest import Kind

F32, I32, BOOL = DType.Float32, DType.Int32, DType.Bool
FLT_MAX = float(np.finfo(np.float32).max)


class IndexOnly:
    def __index__(self) -> int:
        return 5


# (dtype, value written, value read back)
ACCEPTED = [
    (F32, 1.5, 1.5),
    (F32, 3, 3.0),
    (F32, -(2**40), float(-(2**40))),
    (F32, 0.1, float(np.float32(0.1))),  # nearest binary32
    (F32, np.float64(2.5), 2.5),
    (F32, np.float16(0.5), 0.5),
    (F32, np.int64(-4), -4.0),
    (F32, np.uint8(200), 200.0),
    (F32, math.inf, math.inf),
    (F32, -math.inf, -math.inf),
    (F32, FLT_MAX, FLT_MAX),
    (F32, 3.4028235e38, FLT_MAX),  # rounds down to FLT_MAX
    (F32, 1e-50, 0.0),  # underflows to zero: not an overflow
    (I32, 7, 7),
    (I32, -(2**31), -(2**31)),
    (I32, 2**31 - 1, 2**31 - 1),
    (I32, np.int64(12), 12),
    (I32, np.int64(2**31 - 1), 2**31 - 1),  # NumPy scalars skip the int shortcut
    (I32, np.int64(-(2**31)), -(2**31)),
    (I32, np.uint32(2**31 - 1), 2**31 - 1),
    (I32, np.uint32(9), 9),
    (I32, IndexOnly(), 5),
    (BOOL, True, True),
    (BOOL, False, False),
]

# (dtype, value, error)
REFUSED = [
    (F32, True, TypeError),
    (F32, np.True_, TypeError),
    (F32, "1.0", TypeError),
    (F32, None, TypeError),
    (F32, 1j, TypeError),
    (F32, np.complex64(1), TypeError),
    (F32, Fraction(1, 2), TypeError),
    (F32, [1.0], TypeError),
    (F32, 3.5e38, OverflowError),
    (F32, -3.5e38, OverflowError),
    (F32, 1e300, OverflowError),
    (F32, FLOAT32_OVERFLOW, OverflowError),
    (F32, -FLOAT32_OVERFLOW, OverflowError),
    (F32, 10**400, OverflowError),
    (F32, np.float64(1e39), OverflowError),
    (I32, 1.0, TypeError),
    (I32, np.float32(1), TypeError),
    (I32, True, TypeError),
    (I32, np.True_, TypeError),
    (I32, "1", TypeError),
    (I32, None, TypeError),
    (I32, 2**31, OverflowError),
    (I32, -(2**31) - 1, OverflowError),
    (I32, np.int64(2**40), OverflowError),
    (I32, np.int64(2**31), OverflowError),
    (I32, np.int64(-(2**31) - 1), OverflowError),
    (I32, np.uint32(2**31), OverflowError),
    (BOOL, 1, TypeError),
    (BOOL, 0, TypeError),
    (BOOL, 1.0, TypeError),
    (BOOL, "True", TypeError),
    (BOOL, None, TypeError),
    (BOOL, np.int8(1), TypeError),
    (BOOL, np.True_, TypeError),  # spec: Bool writes require a Python bool
    (F32, np.timedelta64(3, "ns"), TypeError),
    (F32, np.datetime64(3, "ns"), TypeError),
    (I32, np.timedelta64(3, "ns"), TypeError),
]


def _holds(kind: Kind, dtype: DType) -> bool:
    return any(dtype is d for d in kind.dtypes)


def _start(dtype: DType) -> object:
    start: dict[DType, object] = {F32: 42.0, I32: 42, BOOL: False}
    return start[dtype]


@pytest.mark.parametrize(("dtype", "value", "expected"), ACCEPTED)
def test_accepted_value_is_stored_and_read_as_python_scalar(
    kind: Kind, dtype: DType, value: object, expected: object
) -> None:
    if not _holds(kind, dtype):
        return
    carrier = kind.make([_start(dtype)], dtype, True)
    carrier[0] = value
    got = carrier[0]
    assert got == expected
    assert type(got) is type(expected)
    assert carrier.version == 1
    assert kind.raw_values(carrier) == [expected]


@pytest.mark.parametrize(("dtype", "value", "error"), REFUSED)
def test_refused_value_leaves_value_and_version(
    kind: Kind, dtype: DType, value: object, error: type[Exception]
) -> None:
    if not _holds(kind, dtype):
        return
    start = _start(dtype)
    carrier = kind.make([start], dtype, True)
    with pytest.raises(error, match=dtype.name):
        carrier[0] = value
    with pytest.raises(error):
        carrier.set_value(0, value)
    assert carrier.version == 0
    assert carrier[0] == start
    assert kind.raw_values(carrier) == [start]


@pytest.mark.parametrize(("dtype", "value", "error"), REFUSED)
def test_refused_value_fails_new_like(
    kind: Kind, dtype: DType, value: object, error: type[Exception]
) -> None:
    if not _holds(kind, dtype) or value is None:  # None is a hole in new_like
        return
    with pytest.raises(error):
        kind.make([], dtype, True).new_like([_start(dtype), value])


def test_nan_is_stored_as_nan(kind: Kind) -> None:
    carrier = kind.make([0.0], F32, True)
    carrier[0] = math.nan
    assert math.isnan(carrier[0])


# -- vectorized path: the same table by array dtype ----------------------------------------

ARRAYS_ACCEPTED = [
    (F32, np.array([1.5, -2.0], np.float64), [1.5, -2.0]),
    (F32, np.array([1, 2], np.int64), [1.0, 2.0]),
    (F32, np.array([1, 2], np.uint16), [1.0, 2.0]),
    (F32, np.array([np.inf, -np.inf], np.float64), [math.inf, -math.inf]),
    (I32, np.array([1, -2], np.int64), [1, -2]),
    (I32, np.array([2**31 - 1], np.uint32), [2**31 - 1]),
    (I32, np.array([3], np.int8), [3]),
    (I32, np.array([2**31 - 1, -(2**31)], np.int64), [2**31 - 1, -(2**31)]),
    (I32, np.array([2**31 - 1], np.uint64), [2**31 - 1]),
    (BOOL, np.array([True, False]), [True, False]),
]

ARRAYS_REFUSED = [
    (F32, np.array([True]), TypeError),
    (F32, np.array([1 + 1j]), TypeError),
    (F32, np.array(["1.0"]), TypeError),
    (F32, np.array([3.5e38]), OverflowError),
    (I32, np.array([1.0]), TypeError),
    (I32, np.array([True]), TypeError),
    (I32, np.array([2**31], np.int64), OverflowError),
    (I32, np.array([2**32 - 1], np.uint32), OverflowError),
    (I32, np.array([0, -(2**31) - 1], np.int64), OverflowError),
    (I32, np.array([2**31], np.uint32), OverflowError),
    (BOOL, np.array([1, 0]), TypeError),
    (F32, np.zeros((2, 2), np.float32), TypeError),
]


@pytest.mark.parametrize(("dtype", "array", "expected"), ARRAYS_ACCEPTED)
def test_array_values_follow_the_table(
    kind: Kind, dtype: DType, array: np.ndarray, expected: list[object]
) -> None:
    if not _holds(kind, dtype):
        return
    fresh = kind.make([], dtype, True).new_like(array)
    assert list(fresh) == expected
    assert [type(v) for v in fresh] == [type(v) for v in expected]


@pytest.mark.parametrize(("dtype", "array", "error"), ARRAYS_REFUSED)
def test_array_values_refused_by_the_table(
    kind: Kind, dtype: DType, array: np.ndarray, error: type[Exception]
) -> None:
    if not _holds(kind, dtype):
        return
    with pytest.raises(error):
        kind.make([], dtype, True).new_like(array)


def test_object_array_takes_the_scalar_path(kind: Kind) -> None:
    values = np.array([1.5, None, 2], dtype=object)
    assert list(kind.make([], F32, True).new_like(values)) == [1.5, 0.0, 2.0]
    with pytest.raises(TypeError):
        kind.make([], F32, True).new_like(np.array([True], dtype=object))


def test_buffer_inputs_take_the_vectorized_path(kind: Kind) -> None:
    import array

    assert list(kind.make([], F32, True).new_like(array.array("f", [1.0, 2.5]))) == [1.0, 2.5]
    assert list(kind.make([], I32, True).new_like(bytes([1, 2, 3]))) == [1, 2, 3]
    assert list(kind.make([], I32, True).new_like(memoryview(bytearray([4])))) == [4]


# -- properties -----------------------------------------------------------------------


@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-FLT_MAX, max_value=FLT_MAX))
def test_float32_round_trip_is_nearest_binary32(value: float) -> None:
    assert normalize_scalar(F32, value) == value
    from stridewave import CPU

    carrier = CPU(1)
    carrier[0] = value
    assert carrier[0] == float(np.float32(value))


@given(st.floats(width=32))
def test_binary32_values_round_trip_exactly(value: float) -> None:
    from stridewave import Generic

    carrier = Generic([value], dtype=F32)
    got = carrier[0]
    assert got == value or (math.isnan(got) and math.isnan(value))


@given(st.integers())
def test_int32_accepts_exactly_its_range(value: int) -> None:
    if -(2**31) <= value < 2**31:
        assert normalize_scalar(I32, value) == value
    else:
        with pytest.raises(OverflowError):
            normalize_scalar(I32, value)


@given(st.floats(allow_nan=False))
def test_float32_overflow_boundary(value: float) -> None:
    if math.isinf(value) or abs(value) < FLOAT32_OVERFLOW:
        normalize_scalar(F32, value)
        assert not math.isinf(float(np.float32(value))) or math.isinf(value)
    else:
        with pytest.raises(OverflowError):
            normalize_scalar(F32, value)


# -- Int32's edges off the ``carrier[0] = int`` shortcut ---------------------

INT32_EDGES = [2**31 - 1, -(2**31)]


@pytest.mark.parametrize("edge", INT32_EDGES)
def test_int32_edges_pass_new_like_with_a_list(kind: Kind, edge: int) -> None:
    if not _holds(kind, I32):
        return
    fresh = kind.make([], I32, True).new_like([edge, 0, edge])
    assert list(fresh) == [edge, 0, edge]
    assert kind.raw_values(fresh) == [edge, 0, edge]
    with pytest.raises(OverflowError, match="Int32"):
        kind.make([], I32, True).new_like([edge, edge + (1 if edge > 0 else -1)])


@pytest.mark.parametrize("edge", INT32_EDGES)
@pytest.mark.parametrize("scalar", [np.int64, np.int32, int, IndexOnly], ids=lambda t: t.__name__)
def test_int32_edges_pass_the_scalar_write_path_as_numpy_scalars(
    kind: Kind, edge: int, scalar: type
) -> None:
    if not _holds(kind, I32):
        return
    value = _EdgeIndex(edge) if scalar is IndexOnly else scalar(edge)
    carrier = kind.make([0, 0], I32, True)
    carrier[0] = value
    carrier.set_value(1, value)
    assert carrier[0] == edge and type(carrier[0]) is int
    assert carrier.get_value(1) == edge
    assert kind.raw_values(carrier) == [edge, edge]
    assert carrier.version == 2


@pytest.mark.parametrize("edge", INT32_EDGES)
def test_int32_edges_pass_the_generic_constructor(edge: int) -> None:
    from stridewave import Generic

    carrier = Generic([edge, np.int64(edge), _EdgeIndex(edge)], dtype=I32)
    assert list(carrier) == [edge, edge, edge]
    assert [type(v) for v in carrier] == [int, int, int]
    beyond = edge + (1 if edge > 0 else -1)
    for value in (beyond, np.int64(beyond), _EdgeIndex(beyond)):
        with pytest.raises(OverflowError, match="Int32"):
            Generic([value], dtype=I32)


@pytest.mark.parametrize("edge", INT32_EDGES)
def test_int32_edges_pass_normalize_scalar(edge: int) -> None:
    for value in (edge, np.int64(edge), _EdgeIndex(edge)):
        assert normalize_scalar(I32, value) == edge
        assert type(normalize_scalar(I32, value)) is int


class _EdgeIndex:
    """An ``__index__`` object of a chosen value (neither int nor a NumPy scalar)."""

    def __init__(self, value: int) -> None:
        self.value = value

    def __index__(self) -> int:
        return self.value


# -- empty typed arrays (the size guard before min()/max()) ------------------


@pytest.mark.parametrize(
    "np_dtype", [np.int64, np.uint32, np.uint64, np.int32, np.int8], ids=lambda t: t.__name__
)
def test_empty_integer_arrays_make_empty_int32_storage(kind: Kind, np_dtype: type) -> None:
    if not _holds(kind, I32):
        return
    fresh = kind.make([], I32, True).new_like(np.array([], np_dtype))
    assert fresh.size() == 0
    assert list(fresh) == []
    assert fresh.dtype() is I32


# -- the refused array's message ---------------------------------------------

REFUSED_ARRAY_WORDS = [
    # (dtype, array, words the message must hold: what was expected, what was given)
    (F32, np.array([True]), ("accepts arrays of real numbers", "dtype bool", "astype")),
    (F32, np.array(["x"]), ("accepts arrays of real numbers", "dtype <U1", "astype")),
    (I32, np.array([1.0]), ("accepts arrays of integers", "dtype float64", "astype")),
    (I32, np.array([True]), ("accepts arrays of integers", "dtype bool", "astype")),
    (BOOL, np.array([1, 0], np.int64), ("accepts arrays of booleans", "dtype int64", "astype")),
]


@pytest.mark.parametrize(("dtype", "array", "words"), REFUSED_ARRAY_WORDS)
def test_a_refused_array_says_what_is_accepted_and_how_to_convert(
    kind: Kind, dtype: DType, array: np.ndarray, words: tuple[str, ...]
) -> None:
    if not _holds(kind, dtype):
        return
    with pytest.raises(TypeError) as info:
        kind.make([], dtype, True).new_like(array)
    message = str(info.value)
    assert dtype.name in message
    for word in words:
        assert word in message, (word, message)


# -- every row through the list paths, and the refusals' words (mutation run) -------------


@pytest.mark.parametrize(("dtype", "value", "expected"), ACCEPTED)
def test_accepted_value_passes_the_list_paths(
    kind: Kind, dtype: DType, value: object, expected: object
) -> None:
    if not _holds(kind, dtype):
        return
    fresh = kind.make([], dtype, True).new_like([value, value])
    assert list(fresh) == [expected, expected]
    assert type(fresh[1]) is type(expected)
    if dtype is not F32:  # Float32 rounds in the backend write, not in the normalizer
        assert normalize_scalar(dtype, value) == expected


#: the distinctive words of each row's refusal: what it accepts, how to convert
REFUSAL_WORDS: dict[DType, tuple[str, ...]] = {
    F32: ("accepts real numbers", ". Convert with float("),
    I32: ("accepts integers", ". Convert with int(", "bools and timedelta64 values are refused."),
    BOOL: ("accepts Python bool values True and False", ". Convert with bool(x)"),
}
#: a None is told where holes are allowed instead of how to convert
NONE_WORDS = ("None is a hole only in new_like input",)
OVERFLOW_WORDS: dict[DType, str] = {F32: "2**128 - 2**103", I32: "[-2**31, 2**31 - 1]"}


@pytest.mark.parametrize(("dtype", "value", "error"), REFUSED)
def test_a_refused_value_is_named_with_the_rule_and_the_fix(
    dtype: DType, value: object, error: type[Exception]
) -> None:
    from stridewave import CPU

    carrier = CPU(1, dtype=dtype)
    with pytest.raises(error) as info:
        carrier[0] = value
    message = str(info.value)
    assert dtype.name in message
    assert repr(value)[:40] in message, message
    if error is TypeError:
        words = REFUSAL_WORDS[dtype][:1] + (
            NONE_WORDS if value is None else REFUSAL_WORDS[dtype][1:]
        )
        for word in words:
            assert word in message, (word, message)
        assert f"of type {type(value).__name__}" in message or type(value).__module__ in message
    else:
        assert OVERFLOW_WORDS[dtype] in message, message
        assert "does not fit" in message


@pytest.mark.parametrize("dtype", [F32, I32, BOOL], ids=lambda d: d.name)
def test_storage_never_aliases_an_input_array_of_the_storage_dtype(
    kind: Kind, dtype: DType
) -> None:
    if not _holds(kind, dtype):
        return
    # values other than the zero the caller overwrites them with (Bool: True)
    starts: dict[DType, object] = {F32: 42.0, I32: 42, BOOL: True}
    start = starts[dtype]
    source: np.ndarray = np.array([start, start], dtype=_NUMPY[dtype])
    fresh = kind.make([], dtype, True).new_like(source)
    before = list(fresh)
    source[:] = np.zeros(2, dtype=source.dtype)  # the caller reuses its array
    assert list(fresh) == before


_NUMPY: dict[DType, type] = {F32: np.float32, I32: np.int32, BOOL: np.bool_}


@pytest.mark.parametrize(
    ("dtype", "array", "words"),
    [
        (F32, np.array([3.5e38]), ("an array of float64", "2**128 - 2**103")),
        # the value named is the one that does not fit, whichever end it is at
        (I32, np.array([-(2**31), 2**31], np.int64), ("got 2147483648,", "[-2**31, 2**31 - 1]")),
        (I32, np.array([-(2**31) - 1, 5], np.int64), ("got -2147483649,", "[-2**31, 2**31 - 1]")),
        (I32, np.array([2**32 - 1], np.uint32), ("got 4294967295,", "[-2**31, 2**31 - 1]")),
    ],
)
def test_an_overflowing_array_is_named_with_the_limits(
    dtype: DType, array: np.ndarray, words: tuple[str, ...]
) -> None:
    from stridewave import CPU

    with pytest.raises(OverflowError) as info:
        CPU(0, dtype=dtype).new_like(array)
    message = str(info.value)
    assert dtype.name in message and "does not fit" in message
    for word in words:
        assert word in message, (word, message)


def test_the_table_has_no_row_for_other_dtypes() -> None:
    from stridewave.carriers import _normalize

    for call in (
        lambda: _normalize.scalar_normalizer(DType.Float64),
        lambda: _normalize.storage_numpy_dtype(DType.Float64),
        lambda: _normalize.normalize_array(
            DType.Float64, np.zeros(1, np.float32), np.dtype(np.float64)
        ),
    ):
        with pytest.raises(ValueError, match="Float64") as info:
            call()
        assert "DType.Float32, DType.Int32 or DType.Bool" in str(info.value)


class _OnlyArray:
    """An array-like with ``__array__`` only: not iterable, no buffer."""

    def __array__(self, dtype: object = None, copy: object = None) -> np.ndarray:
        return np.array([1.5, -2.0])


def test_an_object_with_only_dunder_array_takes_the_array_path(kind: Kind) -> None:
    if not _holds(kind, F32):
        return
    assert list(kind.make([], F32, True).new_like(_OnlyArray())) == [1.5, -2.0]


def test_a_two_dimensional_array_is_named_with_its_shape(kind: Kind) -> None:
    with pytest.raises(TypeError) as info:
        kind.make([], F32, True).new_like(np.zeros((2, 3), np.float32))
    message = str(info.value)
    assert "one-dimensional" in message and "(2, 3)" in message and "ravel" in message


@pytest.mark.parametrize("dtype", [F32, I32, BOOL], ids=lambda d: d.name)
def test_a_none_in_new_like_values_is_a_hole_holding_the_dtype_zero(
    kind: Kind, dtype: DType
) -> None:
    if not _holds(kind, dtype):
        return
    zeros: dict[DType, object] = {F32: 0.0, I32: 0, BOOL: False}
    zero = zeros[dtype]
    fresh = kind.make([], dtype, True).new_like([None, _start(dtype), None])
    assert list(fresh) == [zero, _start(dtype), zero]
    assert type(fresh[0]) is type(zero)


def test_values_that_cannot_be_iterated_are_named(kind: Kind) -> None:
    with pytest.raises(TypeError) as info:
        kind.make([], F32, True).new_like(7)
    message = str(info.value)
    where = message.split(" expects")[0]  # the caller named, e.g. "CPU.new_like"
    assert where.split(".")[0] in {"Generic", "CPU", "FileBacked", "Metal", "Evictable"}
    assert "iterable" in message, message
    assert "got 7 of type int" in message, message


def test_an_endless_iterable_is_stopped_at_the_limit_and_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import itertools

    from stridewave import CPU
    from stridewave.carriers import _normalize

    monkeypatch.setattr(_normalize, "ITERATION_LIMIT", 5)
    assert list(CPU(0).new_like(iter([1.0] * 5))) == [1.0] * 5
    # a list, tuple or range has a length it cannot lie about: no limit
    for values in ([1.0] * 7, (1.0,) * 7, range(7)):
        assert CPU(0).new_like(values).size() == 7
    with pytest.raises(ValueError) as info:
        CPU(0).new_like(itertools.count())
    message = str(info.value)
    assert "CPU.new_like" in message and "after 5 items" in message, message


# -- tests that catch slips: survivors of the storage-dtype table ---------------
# carriers/_storage_dtypes.py; the mutants each test kills are listed in docs/testing.md.

#: (integer, its nearest binary32): half to even at 24 significant bits, computed on
#: the exact integer (through float64 the first one would round twice, to 2**53)
NEAREST_BINARY32 = [
    (2**53 + 2**29 + 1, 2**53 + 2**30),  # above half: up
    (2**60 + 1, 2**60),  # just above a binary32: down
    (2**60 + 2**35 + 1, 2**60),  # below half an ulp (2**37): down
    (2**60 + 2**36 + 1, 2**60 + 2**37),  # above half: up
    (2**60 + 2**36, 2**60),  # a tie next to an even significand: stays
    (2**60 + 2**37 + 1, 2**60 + 2**37),  # next to an odd significand, below half: down
    (2**60 + 2**37 + 2**36, 2**60 + 2**38),  # a tie next to an odd significand: up to even
    (2**128 - 2**103 - 1, FLT_MAX),  # just below the overflow threshold
]


@pytest.mark.parametrize(("value", "nearest"), NEAREST_BINARY32, ids=lambda v: hex(int(v)))
@pytest.mark.parametrize("sign", [1, -1], ids=["positive", "negative"])
def test_a_large_int_is_rounded_once_to_the_nearest_binary32(
    kind: Kind, sign: int, value: int, nearest: float
) -> None:
    assert normalize_scalar(F32, sign * value) == sign * float(nearest)
    if _holds(kind, F32):
        carrier = kind.make([], F32, True).new_like([sign * value, 1.0])
        assert carrier[0] == sign * float(nearest)


@pytest.mark.parametrize("value", [2**128 - 2**103, 2**128 - 1, 2**128, 2**129 + 2**105])
def test_an_int_whose_nearest_binary32_is_infinite_overflows(value: int) -> None:
    for signed in (value, -value):
        with pytest.raises(OverflowError, match="does not fit"):
            normalize_scalar(F32, signed)


class _Big(int):
    """An ``int`` subclass (it misses the exact-int shortcut)."""

    def __repr__(self) -> str:
        return f"_Big({int(self)})"


class _Half(float):
    """A ``float`` subclass (it misses the exact-float shortcut)."""


def test_int_and_float_subclasses_follow_their_base_rule() -> None:
    assert normalize_scalar(F32, _Big(2**60 + 1)) == float(2**60)
    assert normalize_scalar(F32, _Half(0.5)) == 0.5
    assert type(normalize_scalar(F32, _Half(0.5))) is float
    with pytest.raises(OverflowError) as info:
        normalize_scalar(F32, _Big(2**128))
    message = str(info.value)
    assert f"got _Big({2**128})" in message and "None" not in message, message


def test_refusal_messages_spell_out_the_whole_rule() -> None:
    with pytest.raises(TypeError) as info:
        normalize_scalar(F32, 1j)
    message = str(info.value)
    assert (
        "accepts real numbers: int, float, numpy integer or floating scalars (longdouble "
        "included) and the ml_dtypes floats; got 1j of type complex."
    ) in message, message
    assert message.endswith(
        "bool, complex, timedelta64 and datetime64 values are not real numbers here."
    ), message
    with pytest.raises(TypeError) as info:
        normalize_scalar(BOOL, np.bool_(True))
    message = str(info.value)
    assert (
        "accepts Python bool values True and False (numpy.bool_ scalars are refused; a NumPy "
        "array of dtype bool is accepted as a whole); got"
    ) in message, message


@pytest.mark.skipif(
    np.dtype(np.longdouble).itemsize <= 8, reason="longdouble is binary64 on this platform"
)
def test_a_wide_longdouble_is_rounded_once_and_named_when_it_overflows(kind: Kind) -> None:
    # Kills _float32_from_wide 3 (a non-finite longdouble lost) and 9 (the overflow
    # message built with None).
    for value, stored in (
        (np.longdouble("inf"), math.inf),
        (np.longdouble("-inf"), -math.inf),
        (np.longdouble(2) ** 100 + 1, 2.0**100),
    ):
        assert normalize_scalar(F32, value) == stored
        if _holds(kind, F32):
            assert kind.make([], F32, True).new_like([value])[0] == stored
    assert math.isnan(normalize_scalar(F32, np.longdouble("nan")))
    for value in (np.longdouble("1e4000"), -(np.longdouble(2) ** 128)):
        with pytest.raises(OverflowError) as info:
            normalize_scalar(F32, value)
        message = str(info.value)
        assert f"got {value!r}" in message and "does not fit" in message, message


# -- tests that catch slips: survivors of _normalize.py --------------------------


def test_a_two_dimensional_array_is_named_with_the_call(kind: Kind) -> None:
    # Kills materialize 10 (the caller's name replaced by None).
    with pytest.raises(TypeError) as info:
        kind.make([], F32, True).new_like(np.zeros((2, 3), np.float32))
    message = str(info.value)
    assert ".new_like" in message and "None" not in message, message


def test_a_list_no_process_could_hold_is_refused_before_it_is_built(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The scalar path builds a Python list first: per item a pointer (8 bytes), a
    # Python scalar (24) and the stored item (4 for Float32). Kills materialize 38
    # (the message's "what" lost) and 41 to 45 (the estimate changed).
    from stridewave import CPU
    from stridewave.carriers import _resources

    n = 1000
    carrier = CPU(1, dtype=F32)
    monkeypatch.setattr(_resources, "host_memory_limit", lambda: 36 * n - 1)
    with pytest.raises(MemoryError) as info:
        carrier.new_like(range(n))
    message = str(info.value)
    assert message.startswith(f"CPU.new_like({n} values) needs {36 * n} bytes"), message
    monkeypatch.setattr(_resources, "host_memory_limit", lambda: 36 * n)
    assert list(carrier.new_like(range(n))) == [float(i) for i in range(n)]
