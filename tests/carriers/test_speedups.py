"""The C accelerator of the scalar paths (``stridewave.carriers._speedups``) and its fallback.

The accelerator must behave exactly like the pure-Python scalar paths it stands in
front of (``Carrier._py_get_value`` and friends, the reference): the same stored
bits, the same version steps, the same exceptions with the same messages, for every
kind and dtype, on its fast path and off it. The tests here compare the two on twin
carriers, check the cached buffer across every way a carrier re-binds its storage
(release, resize, evict/promote, Metal's lazy host view, a rebind while a view is
exported), and count references. The pure-Python path itself runs the scalar-path,
lifecycle, race and write-path tests in a subprocess with ``STRIDEWAVE_NO_SPEEDUPS=1``
(``test_the_pure_python_path_passes_the_scalar_path_tests``, a ``slow`` soak variant;
CI's ``nox -s speedups`` runs the core tests so).
"""

from __future__ import annotations

import inspect
import math
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import stridewave as sw
from stridewave import CPU, Carrier, DType, Evictable, FileBacked, Generic
from stridewave.carriers import _base

from .conftest import HAVE_MLX, KIND_DTYPES, NO_MLX_REASON, Kind

F32, I32, BOOL = DType.Float32, DType.Int32, DType.Bool
ROOT = Path(__file__).resolve().parents[2]
ACCELERATED = _base._speedups is not None
needs_c = pytest.mark.skipif(not ACCELERATED, reason=f"scalar paths here: {_base.SCALAR_PATH}")


class IntSub(int):
    pass


class FloatSub(float):
    pass


#: values for every dtype: the fast path's own (exact float/int/bool in range) and
#: everything around it (NaN, infinities, -0.0, the binary32 and int32 edges, bools as
#: numbers, subclasses, NumPy scalars, non-numbers)
VALUES: list[object] = [
    0.0,
    -0.0,
    1.5,
    0.1,
    float("nan"),
    float("inf"),
    float("-inf"),
    3.4028234663852886e38,  # FLT_MAX
    math.nextafter(2.0**128 - 2.0**103, 0.0),  # the largest double rounding to FLT_MAX
    2.0**128 - 2.0**103,  # the first that rounds to infinity: OverflowError
    -1e39,
    1e-46,  # rounds to 0 in binary32
    2**24 + 1,
    2**53 + 1,
    2**31 - 1,
    2**31,
    -(2**31),
    -(2**31) - 1,
    2**70,
    0,
    -7,
    True,
    False,
    IntSub(5),
    FloatSub(2.5),
    np.float32(1.25),
    np.float64(0.1),
    np.int64(9),
    np.bool_(True),
    np.longdouble(1) / 3,
    "1.0",
    None,
    1j,
]

#: indices in range and out, of every type the index protocol meets
INDICES: list[object] = [0, 2, -1, 3, 4, 2**70, -(2**70), IntSub(1), np.int64(2), np.int32(0)]
BAD_INDICES: list[object] = [True, np.bool_(False), 1.0, "1", None, slice(0, 1)]


def outcome(action: Callable[..., object], *args: object) -> tuple[str, object]:
    """Run ``action(*args)``; return ("ok", result) or (exception type name, message)."""
    try:
        result = action(*args)
    except Exception as exc:  # noqa: BLE001  (compared between the two paths)
        return type(exc).__name__, str(exc)
    return "ok", result


def bits(carrier: Carrier) -> bytes:
    """The stored bytes, read around the scalar paths."""
    return np.array(carrier, copy=True).tobytes()


def twins(kind: Kind, dtype: DType) -> tuple[Carrier, Carrier]:
    zero: dict[DType, object] = {F32: 0.0, I32: 0, BOOL: False}
    return kind.make([zero[dtype]] * 4, dtype, True), kind.make([zero[dtype]] * 4, dtype, True)


# -- which path is active, and its documentation ----------------------------------------


def test_info_names_the_active_scalar_path() -> None:
    for env, expected in (({}, _base.SCALAR_PATH), ({"STRIDEWAVE_NO_SPEEDUPS": "1"}, "pure")):
        proc = subprocess.run(
            [sys.executable, "-m", "stridewave", "info"],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
            env={**os.environ, **env},
        )
        line = proc.stdout.strip().splitlines()[-1]
        assert line.startswith("scalar paths (get_value, set_value, carrier[i]): ")
        assert expected in line


def test_the_environment_variable_turns_the_accelerator_off() -> None:
    code = (
        "import stridewave, types\n"
        "from stridewave.carriers import _base\n"
        "assert _base._speedups is None, _base.SCALAR_PATH\n"
        "assert isinstance(stridewave.CPU.set_value, types.FunctionType)\n"
        "assert stridewave.CPU.set_value is stridewave.CPU._py_set_value\n"
        "print(_base.SCALAR_PATH)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "STRIDEWAVE_NO_SPEEDUPS": "1"},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("pure Python (STRIDEWAVE_NO_SPEEDUPS is set)")


@needs_c
@pytest.mark.parametrize("name", ["get_value", "set_value", "__getitem__", "__setitem__"])
def test_the_c_methods_carry_the_python_docstrings(name: str) -> None:
    method = getattr(CPU, name)
    reference = getattr(_base._ScalarPath, name)
    assert type(method).__name__ == "method_descriptor"  # the C method, not Python
    assert method.__doc__ == reference.__doc__  # one source: the Python method's
    c_params = list(inspect.signature(method).parameters)
    assert c_params == list(inspect.signature(reference).parameters)
    assert "Parameters\n" in inspect.getdoc(method)  # type: ignore[operator]


# -- the C path behaves as the pure-Python reference, value by value --------------------


@needs_c
@pytest.mark.parametrize(("kind", "dtype"), KIND_DTYPES)
def test_set_value_matches_the_python_path(kind: Kind, dtype: DType) -> None:
    fast, slow = twins(kind, dtype)
    for value in VALUES:
        for index in (*INDICES, *BAD_INDICES):
            got = outcome(fast.set_value, index, value)
            want = outcome(slow._py_set_value, index, value)
            assert got == want, (index, value)
            assert bits(fast) == bits(slow), (index, value)
            assert fast.version == slow.version
            got = outcome(fast.__setitem__, index, value)
            want = outcome(slow._py_setitem, index, value)
            assert got == want, (index, value)
            assert bits(fast) == bits(slow) and fast.version == slow.version


@needs_c
@pytest.mark.parametrize(("kind", "dtype"), KIND_DTYPES)
def test_get_value_matches_the_python_path(kind: Kind, dtype: DType) -> None:
    fast, _ = twins(kind, dtype)
    low: dict[DType, object] = {F32: -0.0, I32: -(2**31), BOOL: True}
    high: dict[DType, object] = {F32: float("nan"), I32: 2**31 - 1, BOOL: True}
    fast.set_value(1, low[dtype])
    fast.set_value(2, high[dtype])
    for index in (*INDICES, *BAD_INDICES):
        got = outcome(fast.get_value, index)
        want = outcome(fast._py_get_value, index)
        assert got[0] == want[0] and str(got[1]) == str(want[1]), index
        assert type(got[1]) is type(want[1])
        got = outcome(fast.__getitem__, index)
        want = outcome(fast._py_getitem, index)
        assert got[0] == want[0] and str(got[1]) == str(want[1]), index


@needs_c
def test_negative_zero_and_rounding_are_stored_as_memoryview_stores_them() -> None:
    c = CPU(3, dtype=F32)
    c[0] = -0.0
    c.set_value(1, 0.1)
    c.set_value(2, math.nextafter(2.0**128 - 2.0**103, 0.0))
    assert math.copysign(1.0, c[0]) == -1.0
    assert c[1] == float(np.float32(0.1))
    assert c[2] == float(np.finfo(np.float32).max)
    assert c.version == 3


@needs_c
def test_keyword_and_wrong_arity_calls_take_the_python_path() -> None:
    c = CPU(2, dtype=F32)
    c.set_value(index=1, value=2.0)
    assert c.get_value(index=1) == 2.0 and c.version == 1
    loose: Any = c  # wrong arities on purpose
    for method, args in (
        (loose.set_value, (1,)),
        (loose.get_value, ()),
        (loose.set_value, (1, 2.0, 3)),
    ):
        with pytest.raises(TypeError) as exc:
            method(*args)
        assert "argument" in str(exc.value)
    assert c.version == 1


@needs_c
def test_a_bare_instance_reads_as_unset() -> None:
    bare = CPU.__new__(CPU)
    for name in ("_gate", "_version", "_slots", "_released", "_slot_store"):
        with pytest.raises(AttributeError):
            getattr(bare, name)
    with pytest.raises(AttributeError):
        bare.set_value(0, 1.0)
    with pytest.raises(AttributeError):
        bare.get_value(0)


# -- the cached buffer follows every re-binding ---------------------------------------


@needs_c
def test_release_lets_the_cached_buffer_go() -> None:
    c = CPU(4, dtype=F32)
    store = c._slot_store
    assert type(store) is memoryview
    c[0] = 1.0
    c.release()
    store.release()  # BufferError if the accelerator still held an export of it
    with pytest.raises(RuntimeError, match="released"):
        c.set_value(0, 1.0)
    with pytest.raises(RuntimeError, match="released"):
        c.get_value(0)
    with pytest.raises(RuntimeError, match="released"):
        c[0]


@needs_c
def test_file_backed_resize_rebinds_while_a_view_is_exported() -> None:
    c = FileBacked(dtype=F32)
    c.resize(4)
    c[3] = 3.0
    view = np.asarray(c)  # an export of the old mapping, held across the moves
    c.resize(8)
    c[7] = 7.0
    assert c[3] == 3.0 and c[7] == 7.0
    c.resize(2)  # shrink: a new file and mapping
    c[1] = 1.0
    with pytest.raises(IndexError):
        c[3] = 1.0
    assert list(np.asarray(c)) == [0.0, 1.0]
    assert view[3] == 3.0  # the old view keeps the values it had
    assert c.version == 3
    c.release()


@needs_c
def test_evictable_writes_across_evict_and_promote() -> None:
    e = Evictable(CPU(4, dtype=F32), FileBacked(dtype=F32))
    e[0] = 1.0  # promoted: the primary's buffer, cached in the wrapper too
    assert e._slot_store is e._primary._slot_store
    e.evict()
    assert e._gate is None and type(e._slot_store) is not memoryview
    e[1] = 2.0  # closed gate: the Python path pages in, then writes
    assert not e.is_evicted()
    e.set_value(2, 3.0)  # open again: the fast path on the new primary buffer
    e.evict()
    assert e.get_value(2) == 3.0  # a read pages in as well
    assert list(np.asarray(e)) == [1.0, 2.0, 3.0, 0.0]
    assert e.version == 3
    e.release()


@needs_c
@pytest.mark.skipif(not HAVE_MLX, reason=NO_MLX_REASON)
def test_metal_lazy_host_view_is_cached_once_taken() -> None:
    m = sw.Metal(4, dtype=F32)
    assert type(m._slot_store) is not memoryview  # lazy: no host view yet
    m[0] = 1.5  # the Python path takes the view and re-binds the accessor
    if type(m._slot_store) is not memoryview:
        pytest.skip("this MLX device gives no host view")
    m.set_value(1, 2.5)  # the C path on the view
    assert m.get_value(1) == 2.5
    source = CPU(4, dtype=F32)
    for i in range(4):
        source[i] = float(i + 10)
    layout = sw.Layout((4,), (1,))
    m.scatter(sw.Tensor(source, layout), sw.Tensor(m, layout), layout)  # may replace the buffer
    m[3] = 9.0
    assert list(np.asarray(m)) == [10.0, 11.0, 12.0, 9.0]
    assert m.version == 4
    m.release()


@needs_c
def test_a_shrink_on_another_thread_never_writes_out_of_bounds() -> None:
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        c = FileBacked(dtype=I32)
        c.resize(64)
        stop = threading.Event()
        errors: list[BaseException] = []

        def writer() -> None:
            while not stop.is_set():
                for i in (0, 63):
                    try:
                        c.set_value(i, 7)
                    except IndexError:
                        assert i == 63  # the slot is gone: refused, never written
                    except BaseException as exc:  # noqa: BLE001
                        errors.append(exc)
                        return

        thread = threading.Thread(target=writer)
        thread.start()
        for _ in range(40):
            c.resize(8)
            c.resize(64)
        stop.set()
        thread.join(timeout=60)
        assert not thread.is_alive() and not errors, errors
        assert c[0] == 7
        c.release()
    finally:
        sys.setswitchinterval(old)


# -- no leaks ---------------------------------------------------------------------------


@needs_c
def test_no_reference_is_leaked_on_either_path() -> None:
    c = CPU(4, dtype=F32)
    g = Generic([0, 0], dtype=I32)
    value, other, index = 1.5, FloatSub(0.5), IntSub(1)
    c[0] = value
    store = c._slot_store
    counts = [sys.getrefcount(x) for x in (value, other, index, store)]
    for _ in range(10**5):
        c.set_value(0, value)
        c[1] = value
        c.get_value(0)
        c[0]
        c.set_value(index, other)  # the Python path, called from C
        c.get_value(index)
        g[1] = 123456789  # a fresh version object every call
    assert [sys.getrefcount(x) for x in (value, other, index, store)] == counts
    assert c.version == 3 * 10**5 + 1 and g.version == 10**5


# -- the pure-Python path runs the scalar-path tests too ---------------------------------

#: the tests that exercise the scalar paths, their lifecycle and their races
PURE_PYTHON_TESTS = [
    "tests/carriers/test_contract.py",
    "tests/carriers/test_evictable.py",
    "tests/carriers/test_file_backed.py",
    "tests/carriers/test_write_paths.py",
    "tests/carriers/test_messages.py",
    "tests/carriers/test_ownership.py",
    "tests/carriers/test_generic.py",
    "tests/carriers/test_cpu.py",
    "tests/carriers/hardening/test_races.py",
    "tests/carriers/hardening/test_threads.py",
    "tests/carriers/test_speedups.py",
]


# CI runs this and more as ``nox -s speedups`` (the core tests with the accelerator off);
# here it is a soak variant, minutes long on two cores.
@pytest.mark.slow
@pytest.mark.skipif(not ACCELERATED, reason="the main run is the pure-Python path already")
def test_the_pure_python_path_passes_the_scalar_path_tests(tmp_path: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-x",
            "-p",
            "no:cacheprovider",
            "-k",
            "not test_the_pure_python_path_passes",
            *PURE_PYTHON_TESTS,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env={
            # a plain pytest run, also when this one is a pytest-xdist worker
            **{k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")},
            "STRIDEWAVE_NO_SPEEDUPS": "1",
            "TMPDIR": str(tmp_path),
        },
    )
    tail = (proc.stdout + proc.stderr)[-3000:]
    assert proc.returncode == 0, tail
    assert " passed" in tail
