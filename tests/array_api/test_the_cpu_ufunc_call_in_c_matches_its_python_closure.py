"""The CPU device's two-operand ufunc call in C answers as its pure-Python closure.

With the C accelerator built, ``HostBackend.direct(name)`` of a two-operand ufunc is
``_speedups.host_binary``'s call: the common case (fresh results of one Layout, or one
beside a Python scalar, few elements, no error state of the caller) in C, everything
else by the closure it was given (its ``__self__`` is the state tuple, the closure at
:data:`FALLBACK`). These tests hold the C call to the closure's values, dtypes,
geometry and exceptions on every kind of operand pair, to the fallback rules one by
one, and to its references (a leak shows as a growing reference count).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stridewave.array_api as xp
from stridewave.array_api._array import Array
from stridewave.array_api._host import LAZY
from stridewave.carriers._base import _speedups

pytestmark = pytest.mark.skipif(_speedups is None, reason="the C accelerator is not built")

CPU = xp.Device("CPU")
#: Where the C call's state tuple keeps its run, its ufunc and the closure.
RUN, FALLBACK = 1, 8


def _calls(name: str) -> tuple[Callable[..., Any], Callable[..., Any]]:
    call = CPU.backend.direct(name)
    assert call is not None and type(call).__name__ == "builtin_function_or_method", call
    return call, call.__self__[FALLBACK]  # type: ignore[attr-defined]


def _fresh(values: Any) -> Array:
    fresh: Array = xp.asarray(values)  # (a fresh result: its own array is its token)
    assert fresh._native is not None and fresh._native[1] is LAZY
    assert fresh.dtype == getattr(xp, np.asarray(values).dtype.name)
    return fresh


def _outcome(call: Callable[..., Any], x1: Any, x2: Any) -> tuple[Any, ...]:
    try:
        carrier, layout, offset, native = call(x1, x2)
    except (AttributeError, TypeError, ValueError, ArithmeticError) as exc:  # (compared)
        return ("raised", type(exc), str(exc))
    array = native[0] if carrier is None else np.asarray(carrier.to_numpy())
    return ("ok", carrier is None, layout.shape, layout.strides, offset, native[2], array)


def _same(c: tuple[Any, ...], py: tuple[Any, ...]) -> None:
    assert c[:-1] == py[:-1] if c[0] == "ok" else c == py
    if c[0] == "ok":
        assert c[-1].dtype == py[-1].dtype
        np.testing.assert_array_equal(c[-1], py[-1])


PAIRS: list[tuple[str, Callable[[], tuple[Any, Any]]]] = [
    ("two fresh float32 of one layout", lambda: (_fresh(np.ones(3, "f4")),) * 2),
    ("fresh int16 and a Python int", lambda: (_fresh(np.arange(4, dtype="i2")), 7)),
    ("a Python float and fresh float64", lambda: (2.5, _fresh(np.arange(4.0)))),
    ("a Python bool and fresh bool", lambda: (True, _fresh(np.array([True, False])))),
    ("fresh uint8 and an int beyond it", lambda: (_fresh(np.arange(3, dtype="u1")), 300)),
    ("fresh complex64 of one layout", lambda: (_fresh(np.ones(2, "c8")),) * 2),
    ("two layouts of one shape", lambda: (_fresh(np.ones(3)), _fresh(np.ones(3)))),
    ("shapes that broadcast", lambda: (_fresh(np.ones((2, 1))), _fresh(np.ones((1, 3))))),
    ("shapes that do not broadcast", lambda: (_fresh(np.ones(2)), _fresh(np.ones(3)))),
    ("0-d operands", lambda: (_fresh(np.float32(2.0)), 3.0)),
    ("an Array whose carrier is made", lambda: (_made(np.ones(3)), 1.0)),
    ("many elements", lambda: (_fresh(np.ones(2**18, "f4")), 1.0)),
    # (operands the dispatch step never gives a direct call: the closure's answer too)
    ("a NumPy scalar operand", lambda: (_fresh(np.ones(3)), np.float64(2.0))),
    ("a complex scalar operand", lambda: (_fresh(np.ones(3)), 1j)),
    ("two Python scalars", lambda: (1.0, 2.0)),
]


def _made(values: Any) -> Array:
    made = xp.asarray(values)
    assert made._carrier is not None  # (made on first use: the token is its view then)
    return made


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "less", "maximum"])
@pytest.mark.parametrize(("case", "make"), PAIRS, ids=[p[0] for p in PAIRS])
def test_every_operand_pair_answers_as_the_closure(
    name: str, case: str, make: Callable[[], tuple[Any, Any]]
) -> None:
    call, closure = _calls(name)
    x1, x2 = make()
    _same(_outcome(call, x1, x2), _outcome(closure, x1, x2))


def test_a_fresh_pair_is_computed_in_c_and_kept_as_the_closure_keeps_it() -> None:
    call, _ = _calls("add")
    x = _fresh(np.arange(3, dtype="f4"))
    carrier, layout, offset, native = call(x, x)
    assert carrier is None and layout is x._layout and offset == 0
    assert native[1] is LAZY and native[2] == xp.float32
    np.testing.assert_array_equal(native[0], np.arange(3, dtype="f4") * 2)


def test_the_callers_error_state_is_the_closures_to_honour() -> None:
    call, closure = _calls("multiply")
    big = _fresh(np.full(2, np.finfo(np.float32).max, dtype="f4"))
    with np.errstate(over="raise"):
        with pytest.raises(FloatingPointError):
            call(big, big)
        with pytest.raises(FloatingPointError):
            closure(big, big)
    # without a state of the caller's, the overflow is silent
    assert np.isinf(call(big, big)[3][0]).all()


def test_a_runtime_error_of_the_quiet_context_calls_the_closure() -> None:
    # (another thread computing in the shared context: the closure computes loud)
    call, closure = _calls("add")
    state = list(call.__self__)  # type: ignore[attr-defined]
    seen: list[tuple[Any, Any]] = []

    def busy(*args: Any) -> Any:
        raise RuntimeError("cannot enter context: it is already entered")

    def recording(x1: Any, x2: Any) -> Any:
        seen.append((x1, x2))
        return closure(x1, x2)

    state[RUN], state[FALLBACK] = busy, recording
    c_call = _speedups.host_binary(tuple(state))  # type: ignore[union-attr]
    x = _fresh(np.ones(2))
    assert np.asarray(c_call(x, x)[3][0]).tolist() == [2.0, 2.0]
    assert seen == [(x, x)]


class _Interrupting:
    """An operand whose token read is interrupted once (a signal arriving there)."""

    def __init__(self, array: Array) -> None:
        self.inner, self.interrupted = array, False

    @property
    def _native(self) -> Any:
        if not self.interrupted:
            self.interrupted = True
            raise KeyboardInterrupt
        return self.inner._native

    @property
    def _layout(self) -> Any:
        return self.inner._layout


def test_an_operand_read_that_raises_other_than_attribute_error_propagates() -> None:
    call, closure = _calls("add")
    x = _fresh(np.ones(3))
    for run in (call, closure):
        operand = _Interrupting(x)
        with pytest.raises(KeyboardInterrupt):
            run(x, operand)
        assert operand.interrupted


def test_other_exceptions_of_the_ufunc_propagate() -> None:
    call, _ = _calls("subtract")
    flags = _fresh(np.array([True, False]))
    with pytest.raises(TypeError, match="subtract"):
        call(flags, flags)


def test_a_malformed_state_is_refused() -> None:
    with pytest.raises(TypeError, match="tuple of 10 items"):
        _speedups.host_binary((np.add,))  # type: ignore[union-attr]
    good = list(_calls("add")[0].__self__)  # type: ignore[attr-defined]
    for index, bad in ((5, list(good[5].items())), (7, "ndarray"), (6, 2.5**18)):
        state = list(good)
        state[index] = bad
        with pytest.raises(TypeError, match="dtypes must be a dict"):
            _speedups.host_binary(tuple(state))  # type: ignore[union-attr]
    call, _ = _calls("add")
    with pytest.raises(TypeError, match="two operands"):
        call(_fresh(np.ones(1)))


@pytest.mark.parametrize(
    "case",
    ["fresh pair", "scalar", "fallback", "finish", "raising"],
)
def test_no_call_keeps_a_reference_to_its_operands(case: str) -> None:
    add, _ = _calls("add")
    subtract, _ = _calls("subtract")
    x = _fresh(np.ones(3))
    y = _fresh(np.ones(3))
    zero_d = _fresh(np.float64(1.0))
    flags = _fresh(np.array([True]))
    run: Callable[[], Any] = {
        "fresh pair": lambda: add(x, x),
        "scalar": lambda: add(2.0, x),
        "fallback": lambda: add(x, y),
        "finish": lambda: add(zero_d, 1.0),
        "raising": lambda: _swallow(subtract, flags, flags),
    }[case]
    watched = [x, x._layout, x._native[0], y, zero_d, zero_d._layout, flags]
    run()  # (a first call may fill caches)
    before = [sys.getrefcount(obj) for obj in watched]
    for _ in range(2000):
        run()
    assert [sys.getrefcount(obj) for obj in watched] == before


def _swallow(call: Callable[..., Any], *operands: Any) -> None:
    with contextlib.suppress(TypeError):
        call(*operands)


_DTYPES = ["float32", "float64", "int8", "int64", "uint16", "bool", "complex128"]


@settings(max_examples=150, deadline=None)
@given(
    dtype=st.sampled_from(_DTYPES),
    name=st.sampled_from(["add", "multiply", "divide", "equal", "maximum"]),
    scalar=st.one_of(
        st.none(),
        st.integers(-(2**31), 2**31 - 1),
        st.floats(allow_nan=True, allow_infinity=True),
        st.booleans(),
    ),
    left=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_random_pairs_answer_as_the_closure(
    dtype: str, name: str, scalar: Any, left: bool, seed: int
) -> None:
    call, closure = _calls(name)
    values = np.random.default_rng(seed).integers(-50, 50, size=5).astype(dtype)
    x = _fresh(values)
    other: Any = x if scalar is None else scalar
    pair = (other, x) if left else (x, other)
    _same(_outcome(call, *pair), _outcome(closure, *pair))
