"""One answer per input, on every write path of every carrier kind (CONTRACT 3).

A battery of inputs, each with the one outcome it must have per storage dtype (the
stored value with its Python type, or the exception), runs through every write path:
scalar ``set_value`` and ``carrier[i] = v``; ``new_like`` from a list, a tuple, an
iterator, an object array, a typed array, a masked array and a user ndarray subclass;
``Generic(values)``; and scatter from a source carrier that holds the value. A path
that refuses a value leaves the carrier's value and version as they were.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from stridewave import CPU, Carrier, DType, Generic, Layout, Tensor
from stridewave.carriers._capabilities import ScatterSupport

from .conftest import ZERO, Kind

F32, I32, BOOL = DType.Float32, DType.Int32, DType.Bool
FLT_MAX = float(np.finfo(np.float32).max)
WIDE_LONGDOUBLE = np.finfo(np.longdouble).nmant > np.finfo(np.float64).nmant


class IndexOnly:
    """An integer by ``__index__`` only (not int, not a NumPy integer)."""

    def __index__(self) -> int:
        return 5

    def __repr__(self) -> str:
        return "IndexOnly()"


class SelfAstype(np.ndarray):
    """A user subclass whose ``astype`` returns itself (it must be read as plain data)."""

    def astype(self, *args: Any, **kwargs: Any) -> SelfAstype:
        return self


def _f32(x: float) -> float:
    return float(np.float32(x))


# (id, value, {dtype: stored value or exception type})
BATTERY: list[tuple[str, object, dict[DType, object]]] = [
    ("int", 3, {F32: 3.0, I32: 3, BOOL: TypeError}),
    # the nearest binary32 of the exact value; via float64 it would be 2**54
    (
        "int-double-rounding",
        2**54 - 2**29 - 1,
        {F32: float(2**54 - 2**30), I32: OverflowError, BOOL: TypeError},
    ),
    ("int-tie-to-even", 2**24 + 1, {F32: float(2**24), I32: 2**24 + 1, BOOL: TypeError}),
    ("int-tie-to-even-up", 2**24 + 3, {F32: float(2**24 + 4), I32: 2**24 + 3, BOOL: TypeError}),
    # rounds down to FLT_MAX, although float(...) of it is the overflow threshold
    (
        "int-below-overflow",
        2**128 - 2**103 - 1,
        {F32: FLT_MAX, I32: OverflowError, BOOL: TypeError},
    ),
    ("int-overflow", 2**128 - 2**103, {F32: OverflowError, I32: OverflowError, BOOL: TypeError}),
    (
        "neg-int-below-overflow",
        -(2**128 - 2**103 - 1),
        {F32: -FLT_MAX, I32: OverflowError, BOOL: TypeError},
    ),
    ("int-huge", 10**400, {F32: OverflowError, I32: OverflowError, BOOL: TypeError}),
    ("int32-max", 2**31 - 1, {F32: float(2**31), I32: 2**31 - 1, BOOL: TypeError}),
    (
        "np.int64-double-rounding",
        np.int64(2**54 - 2**29 - 1),
        {F32: float(2**54 - 2**30), I32: OverflowError, BOOL: TypeError},
    ),
    (
        "np.uint64-max",
        np.uint64(2**64 - 1),
        {F32: float(2**64), I32: OverflowError, BOOL: TypeError},
    ),
    ("np.int8", np.int8(-4), {F32: -4.0, I32: -4, BOOL: TypeError}),
    ("float", 0.1, {F32: _f32(0.1), I32: TypeError, BOOL: TypeError}),
    ("float-overflow", 3.5e38, {F32: OverflowError, I32: TypeError, BOOL: TypeError}),
    ("float-rounds-to-max", 3.4028235e38, {F32: FLT_MAX, I32: TypeError, BOOL: TypeError}),
    ("inf", math.inf, {F32: math.inf, I32: TypeError, BOOL: TypeError}),
    ("nan", math.nan, {F32: math.nan, I32: TypeError, BOOL: TypeError}),
    ("np.float32", np.float32(1.5), {F32: 1.5, I32: TypeError, BOOL: TypeError}),
    ("np.float16", np.float16(0.5), {F32: 0.5, I32: TypeError, BOOL: TypeError}),
    (
        "np.longdouble-overflow",
        np.longdouble("1e4000"),
        {F32: OverflowError, I32: TypeError, BOOL: TypeError},
    ),
    ("np.longdouble", np.longdouble(2) ** 100, {F32: 2.0**100, I32: TypeError, BOOL: TypeError}),
    ("bfloat16", ml_dtypes.bfloat16(1.5), {F32: 1.5, I32: TypeError, BOOL: TypeError}),
    ("float8_e4m3fn", ml_dtypes.float8_e4m3fn(448), {F32: 448.0, I32: TypeError, BOOL: TypeError}),
    (
        "float8_e8m0fnu",
        ml_dtypes.float8_e8m0fnu(2.0**-127),
        {F32: 2.0**-127, I32: TypeError, BOOL: TypeError},
    ),
    ("float4_e2m1fn", ml_dtypes.float4_e2m1fn(-6), {F32: -6.0, I32: TypeError, BOOL: TypeError}),
    ("timedelta64", np.timedelta64(3, "ns"), {F32: TypeError, I32: TypeError, BOOL: TypeError}),
    ("datetime64", np.datetime64(3, "ns"), {F32: TypeError, I32: TypeError, BOOL: TypeError}),
    ("bool", True, {F32: TypeError, I32: TypeError, BOOL: True}),
    ("bool-false", False, {F32: TypeError, I32: TypeError, BOOL: False}),
    ("np.bool_", np.True_, {F32: TypeError, I32: TypeError, BOOL: TypeError}),
    ("IndexOnly", IndexOnly(), {F32: TypeError, I32: 5, BOOL: TypeError}),
    ("Fraction", Fraction(1, 2), {F32: TypeError, I32: TypeError, BOOL: TypeError}),
    ("complex", 1j, {F32: TypeError, I32: TypeError, BOOL: TypeError}),
    ("str", "1", {F32: TypeError, I32: TypeError, BOOL: TypeError}),
]
if WIDE_LONGDOUBLE:
    # 1 + 2**-24 + 2**-60: once to binary32 is 1 + 2**-23; via binary64 it would tie to 1.0
    BATTERY.append(
        (
            "np.longdouble-double-rounding",
            np.longdouble(1) + np.longdouble(2) ** -24 + np.longdouble(2) ** -60,
            {F32: 1.0 + 2.0**-23, I32: TypeError, BOOL: TypeError},
        )
    )


def _typed_array(value: object) -> np.ndarray | None:
    """``numpy.array([value])`` when NumPy infers a typed (non-object) array, else None.

    ``numpy.bool_`` is left out: a bool *array* is accepted on the vectorized path
    (CONTRACT section 3) while the scalar is refused, so they are different inputs.
    """
    if isinstance(value, np.bool_):
        return None
    array = np.array([value])
    return None if array.dtype.kind == "O" else array


def _source_dtype(value: object) -> DType | None:
    """The storage dtype that holds ``value`` exactly (a scatter source of it), if any."""
    if type(value) is bool:
        return BOOL
    if type(value) is int and -(2**31) <= value < 2**31:
        return I32
    if type(value) is float and (
        math.isnan(value) or math.isinf(value) or (abs(value) <= FLT_MAX and _f32(value) == value)
    ):
        return F32
    return None


Path = Callable[[Kind, DType, object], object]


def _scalar(write: Callable[[Carrier, object], None]) -> Path:
    def path(kind: Kind, dtype: DType, value: object) -> object:
        carrier = kind.make([ZERO[dtype]], dtype, True)
        try:
            write(carrier, value)
        except Exception:
            assert carrier.version == 0 and carrier[0] == ZERO[dtype]  # nothing half-done
            raise
        assert carrier.version == 1
        return carrier[0]

    return path


def _set_value(carrier: Carrier, value: object) -> None:
    carrier.set_value(0, value)


def _setitem(carrier: Carrier, value: object) -> None:
    carrier[0] = value


def _new_like(wrap: Callable[[object], object]) -> Path:
    def path(kind: Kind, dtype: DType, value: object) -> object:
        return kind.make([], dtype, True).new_like(wrap(value))[0]

    return path


def _new_like_typed(make: Callable[[np.ndarray], object]) -> Path:
    def path(kind: Kind, dtype: DType, value: object) -> object:
        array = _typed_array(value)
        if array is None:
            pytest.skip("NumPy infers no typed array from this value (object path covers it)")
        return kind.make([], dtype, True).new_like(make(array))[0]

    return path


def _generic(kind: Kind, dtype: DType, value: object) -> object:
    if kind.cls is not Generic:
        pytest.skip("the Generic constructor is one path, run with the Generic kind")
    return Generic([value], dtype=dtype)[0]


def _scatter(source_kind: Callable[[Kind], Callable[..., Carrier]]) -> Path:
    def path(kind: Kind, dtype: DType, value: object) -> object:
        source_dtype = _source_dtype(value)
        if source_dtype is None:
            pytest.skip("no storage dtype holds this value exactly, so no source carrier does")
        if kind.cls.capabilities.scatter is ScatterSupport.NONE:
            pytest.skip(f"{kind.name} does not scatter (spec)")
        make = source_kind(kind)
        if make is kind.make and source_dtype not in kind.dtypes:
            pytest.skip(f"{kind.name} holds no {source_dtype!r} source")
        source = make([value], source_dtype, True)
        receiver = kind.make([ZERO[dtype]], dtype, True)
        view = Layout((1,))
        try:
            receiver.scatter(Tensor(source, view), Tensor(receiver, view), view)
        except Exception:
            assert receiver.version == 0 and receiver[0] == ZERO[dtype]
            raise
        assert receiver.version == 1
        return receiver[0]

    return path


def _object_array(values: list[object]) -> np.ndarray:
    array = np.empty(len(values), dtype=object)
    array[:] = values
    return array


def _cpu_source(values: list[object], dtype: DType, mutable: bool) -> Carrier:
    return CPU(0, dtype=dtype).new_like(values, mutable=mutable)


PATHS: dict[str, Path] = {
    "set_value": _scalar(_set_value),
    "setitem": _scalar(_setitem),
    "new_like(list)": _new_like(lambda v: [v]),
    "new_like(tuple)": _new_like(lambda v: (v,)),
    "new_like(iterator)": _new_like(lambda v: iter([v])),
    "new_like(object array)": _new_like(lambda v: _object_array([v])),
    "new_like(typed array)": _new_like_typed(lambda a: a),
    "new_like(masked array)": _new_like_typed(lambda a: np.ma.array(a, mask=[False])),
    "new_like(subclass)": _new_like_typed(lambda a: a.view(SelfAstype)),
    "Generic(values)": _generic,
    "scatter(CPU source)": _scatter(lambda kind: _cpu_source),
    "scatter(same-kind source)": _scatter(lambda kind: kind.make),
}


def _same(got: object, expected: object) -> bool:
    if isinstance(expected, float) and math.isnan(expected):
        return isinstance(got, float) and math.isnan(got)
    return got == expected and type(got) is type(expected)


@pytest.mark.parametrize("path", list(PATHS))
@pytest.mark.parametrize(("value", "outcomes"), [pytest.param(v, o, id=i) for i, v, o in BATTERY])
def test_every_write_path_gives_one_answer(
    kind: Kind, path: str, value: object, outcomes: dict[DType, object]
) -> None:
    for dtype in kind.dtypes:
        expected = outcomes[dtype]
        if isinstance(expected, type) and issubclass(expected, Exception):
            with pytest.raises(expected):
                PATHS[path](kind, dtype, value)
        else:
            got = PATHS[path](kind, dtype, value)
            assert _same(got, expected), f"{path} stored {got!r} for {value!r} as {dtype!r}"


# -- None: a hole only in new_like input ---------------------------------------------------


@pytest.mark.parametrize("wrap", [list, tuple, lambda v: _object_array(v)])
def test_none_is_a_hole_only_in_new_like(
    kind: Kind, wrap: Callable[[list[object]], object]
) -> None:
    for dtype in kind.dtypes:
        fresh = kind.make([], dtype, True).new_like(wrap([None]))
        assert _same(fresh[0], ZERO[dtype])
        with pytest.raises(TypeError, match="hole only in new_like"):
            Generic(wrap([None]), dtype=dtype)
        carrier = kind.make([ZERO[dtype]], dtype, True)
        with pytest.raises(TypeError, match="hole only in new_like"):
            carrier[0] = None
        assert carrier.version == 0


# -- NumPy subclasses: plain data, never stored as the subclass, never aliased ---------


def test_masked_elements_are_read_as_their_data(kind: Kind) -> None:
    """A mask is not a hole: masked elements store their underlying data (numpy.asarray)."""
    masked = np.ma.array([1, 2, 3], mask=[False, True, False])
    fresh = kind.make([], F32, True).new_like(masked)
    assert list(fresh) == [1.0, 2.0, 3.0]
    assert fresh[1] == 2.0
    assert list(Generic(masked, dtype=F32)) == [1.0, 2.0, 3.0]


def test_subclass_input_is_copied_as_plain_data(kind: Kind) -> None:
    for make in (lambda a: a.view(SelfAstype), lambda a: np.ma.array(a)):
        source = np.array([1.0, 2.0], dtype=np.float32)
        fresh = kind.make([], F32, True).new_like(make(source))
        source[0] = 9.0  # no alias of the caller's memory
        assert list(fresh) == [1.0, 2.0]
        exported = np.asarray(fresh)
        assert type(exported) is np.ndarray
        # a subclass of a foreign dtype is converted by ndarray's astype, not its own
        assert list(kind.make([], F32, True).new_like(np.arange(2).view(SelfAstype))) == [0.0, 1.0]


@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")
def test_matrix_reads_as_its_two_dimensional_data(kind: Kind) -> None:
    """``numpy.matrix`` is always 2-D: read as plain data it is refused like any 2-D array."""
    with pytest.raises(TypeError, match="one-dimensional"):
        kind.make([], F32, True).new_like(np.matrix([[1.0, 2.0]]))
    assert list(kind.make([], F32, True).new_like(np.asarray(np.matrix([[1.0, 2.0]])).ravel())) == [
        1.0,
        2.0,
    ]


def test_bool_arrays_stay_accepted_on_the_vectorized_path(kind: Kind) -> None:
    if BOOL not in kind.dtypes:
        pytest.skip(f"{kind.name} holds no Bool")
    fresh = kind.make([], BOOL, True).new_like(np.array([True, False]))
    assert list(fresh) == [True, False]
    with pytest.raises(TypeError, match=r"bool\(x\)"):
        kind.make([], BOOL, True).new_like([np.True_])


# -- the spec sentences these rules implement (requirement-level tests) ------------------


def test_generic_stores_normalized_concrete_values_python_bool_and_no_holes() -> None:
    """Spec: Generic Bool values SHALL be Python bool values; None is no Generic value."""
    assert [type(v) for v in Generic([True, False], dtype=BOOL)] == [bool, bool]
    assert [type(v) for v in Generic(np.array([True]), dtype=BOOL)] == [bool]
    with pytest.raises(TypeError, match=r"bool\(x\)"):
        Generic([True, np.False_], dtype=BOOL)
    with pytest.raises(TypeError, match="hole only in new_like"):
        Generic([1.0, None], dtype=F32)
    assert Generic([2**54 - 2**29 - 1], dtype=F32)[0] == float(2**54 - 2**30)


def test_cpu_owns_or_wraps_typed_host_storage_bool_writes_require_a_python_bool() -> None:
    """Spec: "Bool writes SHALL require a Python bool" (CPU and every kind)."""
    carrier = CPU(1, dtype=BOOL)
    with pytest.raises(TypeError, match=r"bool\(x\)"):
        carrier[0] = np.True_
    assert carrier.version == 0 and carrier[0] is False
    carrier[0] = True
    assert carrier[0] is True
