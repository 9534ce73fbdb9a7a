"""The CPU device's direct calls give what the general dispatch step gives.

Where the namespace's function is NumPy's ufunc itself, the CPU backend computes it in
one frame (``HostBackend.direct``): the operands' arrays read at once, the ufunc in a
context where NumPy ignores floating-point exceptions, the fresh result kept as the
general adoption keeps it. These tests hold it to the general step's values, dtypes
and geometry, to the caller's own ``numpy.errstate``, and to threads that compute in
the shared quiet context at once.
"""

from __future__ import annotations

import sys
import threading
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import stridewave.array_api as xp
from stridewave.array_api._array import Array

CPU = xp.Device("CPU")
BACKEND = CPU.backend

BINARY = ["add", "subtract", "multiply", "divide", "less", "equal", "maximum", "hypot"]
UNARY = ["negative", "sqrt", "exp", "isnan", "square"]
DTYPES = ["float32", "float64", "int16", "uint8", "complex64"]


@pytest.fixture
def fast_switching() -> Iterator[None]:
    """Switch threads as often as the interpreter allows, for the test's duration."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


def _operand(dtype: str, seed: int, shape: tuple[int, ...] = (3, 4)) -> Array:
    values = np.random.default_rng(seed).uniform(0.5, 9.0, size=shape).astype(dtype)
    fresh: Array = xp.asarray(values) + 0  # (a fresh result: its own array is its token)
    return fresh


def _general(name: str, *operands: Any) -> Any:
    """The general step's answer: the namespace function over NumPy copies."""
    arrays = [np.asarray(x.to_device("cpu")) if isinstance(x, Array) else x for x in operands]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(BACKEND.ns, name)(*arrays)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", BINARY)
def test_a_direct_binary_call_gives_the_general_steps_values_dtype_and_geometry(
    name: str, dtype: str
) -> None:
    if name in ("less", "maximum", "hypot") and dtype == "complex64":
        pytest.skip("the standard orders no complex values")
    if name == "hypot" and dtype not in ("float32", "float64"):
        pytest.skip("hypot is defined for real floating dtypes")
    call = BACKEND.direct(name)
    assert call is not None, f"{name} is NumPy's ufunc: the CPU device has a direct call"
    x1, x2 = _operand(dtype, 1), _operand(dtype, 2, shape=(4,))
    for pair in ((x1, x2), (x1, 2), (3, x2)):
        if dtype.startswith("uint") and name == "subtract" and type(pair[1]) is not int:
            continue  # (wraps alike on both paths; not the point here)
        result = getattr(xp, name)(*pair)
        expected = _general(name, *pair)
        assert np.asarray(result).dtype == expected.dtype
        np.testing.assert_array_equal(np.asarray(result), expected)
        assert result.shape == expected.shape
        assert result.layout.strides == tuple(s // expected.itemsize for s in expected.strides)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64"])
@pytest.mark.parametrize("name", UNARY)
def test_a_direct_unary_call_gives_the_general_steps_values_and_dtype(
    name: str, dtype: str
) -> None:
    x = _operand(dtype, 3)
    result = getattr(xp, name)(x)
    expected = _general(name, x)
    assert np.asarray(result).dtype == expected.dtype
    np.testing.assert_allclose(np.asarray(result), expected, rtol=0, atol=0)


def test_functions_a_host_shim_answers_have_no_direct_call() -> None:
    for name in ("floor_divide", "expm1", "tanh", "clip", "matmul", "sum", "round"):
        assert BACKEND.direct(name) is None, name
    # FileBacked and Generic copy each result into their storage: no direct calls.
    assert xp.Device("FileBacked").backend.direct("add") is None
    assert xp.Device("Generic").backend.direct("add") is None


def test_operators_on_zero_d_and_materialized_arrays_take_the_same_path() -> None:
    zero_d = xp.asarray(np.float32(2.5))
    materialized = xp.asarray(np.arange(6, dtype=np.float32).reshape(2, 3)).T  # (a view)
    assert float(zero_d * zero_d) == 6.25
    np.testing.assert_array_equal(
        np.asarray(materialized + 1), np.arange(6, dtype=np.float32).reshape(2, 3).T + 1
    )


def test_the_callers_numpy_errstate_is_honoured_by_direct_calls() -> None:
    big = xp.asarray(np.full(4, 3e38, dtype=np.float32))
    with np.errstate(over="raise"), pytest.raises(FloatingPointError):
        big * big
    with np.errstate(over="warn"), pytest.warns(RuntimeWarning, match="overflow"):
        big * big
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isinf(np.asarray(big * big)).all()  # (no state set: IEEE, silently)


# (below 2**18 elements the C form of the call computes, at 2**18 and more the closure
# writes into a cached buffer: both enter the one quiet context)
@pytest.mark.parametrize("size", [1 << 17, 1 << 18])
def test_threads_computing_at_once_in_the_quiet_context_get_ieee_results_silently(
    fast_switching: None, size: int
) -> None:
    # Long loops release the GIL inside NumPy, so threads overlap in the one quiet
    # context: each must still answer, silently, with the IEEE result.
    big = xp.asarray(np.full(size, 3e38, dtype=np.float32))
    zero = xp.asarray(np.zeros(size, dtype=np.float32))
    errors: list[Exception] = []

    def work() -> None:
        try:
            for _ in range(20):
                assert np.isinf(np.asarray(big * big)).all()
                assert np.isnan(np.asarray(zero / zero)).all()
        except Exception as exc:  # noqa: BLE001 (reported by the main thread)
            errors.append(exc)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        threads = [threading.Thread(target=work) for _ in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
    assert not errors, errors[0]
    assert not [w for w in caught if issubclass(w.category, RuntimeWarning)]


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int64", "float32", "float64"])
@pytest.mark.parametrize("exponent", [2, 2.0, 3, 0.5])
def test_a_scalar_power_gives_numpys_operator_result(dtype: str, exponent: float) -> None:
    # NumPy's ``a ** 2`` squares; the CPU device's ``x ** 2`` gives the same values
    # and dtype, and any other exponent is ``power``'s.
    if type(exponent) is float and not dtype.startswith("float"):
        pytest.skip("a float exponent takes an integer array to float64 (NumPy's rule)")
    values = np.random.default_rng(5).uniform(0, 11, size=(4, 5)).astype(dtype)
    x = xp.asarray(values)
    expected = values**exponent
    for got in (np.asarray(x**exponent), np.asarray(xp.pow(x, exponent))):
        assert got.dtype == expected.dtype
        if exponent == 2 or not dtype.startswith("float"):
            np.testing.assert_array_equal(got, expected)
        else:
            # (NumPy's operator computes ``a ** 0.5`` as ``sqrt`` on some versions and
            # as ``power`` on others: within one ulp either way)
            np.testing.assert_array_max_ulp(got, expected, maxulp=1)


def test_a_power_of_two_arrays_is_powers_not_a_square() -> None:
    base = np.array([1.5, 2.0, 3.0], dtype=np.float32)
    exponent = np.array([2.0, 3.0, 0.5], dtype=np.float32)
    got = xp.asarray(base) ** xp.asarray(exponent)
    np.testing.assert_array_equal(np.asarray(got), base**exponent)


def test_an_integer_array_to_the_float_two_is_float64_as_in_numpy() -> None:
    values = np.array([16, 3], dtype=np.int8)
    got = np.asarray(xp.asarray(values) ** 2.0)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, values**2.0)


@pytest.mark.parametrize(
    "operands",
    ["same shape", "a row of a larger array", "a transposed view", "broadcast rows", "a scalar"],
)
def test_operator_results_have_numpys_values_and_row_major_geometry(operands: str) -> None:
    # a fresh result of two operands with one row-major layout takes that layout
    # without a look at NumPy's result; any other pair is looked at
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    big = xp.asarray(np.arange(48, dtype=np.float32).reshape(2, 4, 6))
    x = xp.asarray(base)
    y, numpy_y = {
        "same shape": (xp.asarray(base * 2), base * 2),
        "a row of a larger array": (big[1], np.asarray(big)[1]),
        "a transposed view": (xp.asarray(base.T.copy()).T, base),
        "broadcast rows": (xp.asarray(base[:1]), base[:1]),
        "a scalar": (1.5, 1.5),
    }[operands]
    for got, expected in (
        (x + y, base + numpy_y),
        (x * y, base * numpy_y),
        (y - x, numpy_y - base),
    ):
        host = np.asarray(got)
        np.testing.assert_array_equal(host, expected)
        assert host.flags.c_contiguous
        assert got.layout.strides == tuple(s // 4 for s in expected.strides) or not host.size
