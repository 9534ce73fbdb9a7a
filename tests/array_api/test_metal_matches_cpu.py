"""The Metal device answers as the CPU device does, on the direct and general paths.

Scalar writes after a result leave the result; ``sign``, fractional corrections,
means of large integers, huge Python ints and NumPy scalars follow the standard; a
call runs on its operands' MLX device; threads writing and reading one array do not
crash (the Metal carrier publishes only evaluated storage).
"""

from __future__ import annotations

import sys
import textwrap
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import stridewave.array_api as xp
from tests.metal_scripts import host as _host
from tests.metal_scripts import requires_mlx, run_script

pytestmark = requires_mlx

METAL = xp.Device("Metal")
CPU = xp.Device("CPU")


# -- lazy results: a carrier scalar write lands in a scheduled result's operand ------------


def test_a_scalar_write_after_a_metal_result_does_not_change_that_result() -> None:
    # y = x * 2 is scheduled (mx.async_eval), not computed; Metal.set_value then writes
    # through the carrier's host view straight into x's MLX buffer, which the pending
    # graph still reads: y comes out as 2 * (the new value). Setitem (an MLX slice
    # update) is not affected; only the carrier's scalar path is.
    n = 1_000_000
    stale = 0
    for _ in range(5):
        x = xp.asarray(np.ones(n, dtype=np.float32), device=METAL)
        x.carrier.get_value(0)  # the host view exists (any earlier scalar access)
        y = xp.multiply(x, 2.0)
        x.carrier.set_value(n - 1, 1000.0)
        stale += y.carrier.get_value(n - 1) != 2.0
    assert stale == 0, f"{stale} of 5 results saw a write made after they were computed"


#: Calls reading the carrier of ``w`` in every position a direct call takes it (first
#: or second operand, after a Python scalar, through a view, reduced whole, as a
#: matrix) and through the general path (a reduction over an axis):
#: (name, shape of x, shape of w, the call).
_N = 1_000_000
_READS_OF_W: list[tuple[str, tuple[int, ...], tuple[int, ...], Any]] = [
    ("add(x, w)", (_N,), (_N,), lambda x, w: xp.add(x, w)),
    ("add(w, x)", (_N,), (_N,), lambda x, w: xp.add(w, x)),
    ("2.0 * w", (_N,), (_N,), lambda x, w: 2.0 * w),
    ("w[::2] * 2", (_N,), (_N,), lambda x, w: w[::2] * 2),
    ("-w", (_N,), (_N,), lambda x, w: -w),
    ("sum(w)", (_N,), (_N,), lambda x, w: xp.sum(w)),
    ("matmul(x, w)", (1, _N), (_N, 1), lambda x, w: xp.matmul(x, w)),
    ("sum(w, axis=0)", (_N,), (1000, 1000), lambda x, w: xp.sum(w, axis=0)),
]


def _stale_results(
    x_shape: tuple[int, ...],
    w_shape: tuple[int, ...],
    call: Any,
    make: Callable[[np.ndarray[Any, Any]], Any],
    write: Callable[[Any], None],
    trials: int = 5,
) -> int:
    """Count the trials whose ``call(x, w)`` saw ``write(w)``, made after the call."""
    x_values = np.ones(x_shape, dtype=np.float32)
    w_values = np.ones(w_shape, dtype=np.float32)
    expected = _host(call(xp.asarray(x_values, device=CPU), xp.asarray(w_values, device=CPU)))
    stale = 0
    for _ in range(trials):
        x, w = make(x_values), make(w_values)
        y = call(x, w)
        write(w)
        stale += not np.array_equal(_host(y), expected)
    return stale


def _write_slot(w: Any) -> None:
    w.carrier.set_value(_N - 2, 1000.0)  # (an even slot: in w[::2] too)


def _carrier_with_a_view(values: np.ndarray[Any, Any]) -> Any:
    w = xp.asarray(values, device=METAL)
    w.carrier.get_value(0)  # the host view exists (any earlier scalar access)
    return w


def _fresh_result(values: np.ndarray[Any, Any]) -> Any:
    return xp.asarray(values, device=METAL) * 1  # no carrier until one is asked for


def _on_another_thread(w: Any) -> None:
    thread = threading.Thread(target=_write_slot, args=(w,))
    thread.start()
    thread.join()


@pytest.mark.parametrize(
    ("x_shape", "w_shape", "call"),
    [case[1:] for case in _READS_OF_W],
    ids=[case[0] for case in _READS_OF_W],
)
def test_a_scalar_write_after_a_result_never_changes_it_whichever_operand_it_writes(
    x_shape: tuple[int, ...], w_shape: tuple[int, ...], call: Any
) -> None:
    # The record of pending device reads must cover every Metal operand of a call,
    # not only its first one: a write into the second operand's carrier, made after
    # the call returned, must not reach the scheduled result either.
    stale = _stale_results(x_shape, w_shape, call, _carrier_with_a_view, _write_slot)
    assert stale == 0, f"{stale} of 5 results saw a write made after they were computed"


@pytest.mark.parametrize(
    ("x_shape", "w_shape", "call"),
    [case[1:] for case in _READS_OF_W],
    ids=[case[0] for case in _READS_OF_W],
)
@pytest.mark.parametrize("writer", ["this thread", "another thread"])
def test_a_write_into_a_fresh_result_read_before_its_carrier_existed_leaves_the_reader(
    x_shape: tuple[int, ...], w_shape: tuple[int, ...], call: Any, writer: str
) -> None:
    # A fresh result (w = ... * 1) has no carrier until one is asked for, so a direct
    # call reads its buffer without a record on a carrier; the carrier made later must
    # still make its first host write wait for that read, on whichever thread it runs
    # (ordered after the call by the join).
    write = _write_slot if writer == "this thread" else _on_another_thread
    stale = _stale_results(x_shape, w_shape, call, _fresh_result, write)
    assert stale == 0, f"{stale} of 5 results saw a write made after they were computed"


def test_a_carrier_made_on_another_thread_while_a_call_reads_the_fresh_result() -> None:
    # The window of _mlx_namespace.fresh, forced: the call has read the fresh operand
    # through its token and launched, and before it records the read another thread
    # makes the operand's carrier and reads through it, so the carrier has taken over
    # the token's reads already (a profile hook runs that thread at the moment fresh()
    # is entered). The call must then record its read on that carrier, so the write
    # after the call waits for it and leaves the result as it was.
    from stridewave.array_api import _mlx_namespace

    values = np.ones(_N, dtype=np.float32)
    stale = 0
    for _ in range(5):
        w = _fresh_result(values)

        def hook(frame: Any, event: str, arg: Any, w: Any = w) -> None:
            if event == "call" and frame.f_code is _mlx_namespace.fresh.__code__:
                sys.setprofile(None)
                maker = threading.Thread(target=lambda: w.carrier.get_value(0))
                maker.start()
                maker.join()

        sys.setprofile(hook)
        try:
            y = w**2.5  # (slow enough to be pending at the write)
        finally:
            sys.setprofile(None)
        assert w._native is None or len(w._native) != 7  # (the carrier was made)
        _write_slot(w)
        stale += float(y[_N - 2]) != 1.0
    assert stale == 0, f"{stale} of 5 results saw a write made after the call"


# -- Metal answers that differ from NumPy's (both the direct and the general path) --------


def test_sign_of_nan_is_nan_on_metal() -> None:
    # Array API ``sign``: "If x_i is NaN, the result is NaN". MLX answers 0.
    x = xp.asarray([float("nan"), 2.0], device=METAL)
    got = _host(xp.sign(x))
    assert np.isnan(got[0]), got


@pytest.mark.parametrize("name", ["var", "std"])
def test_a_fractional_correction_is_not_truncated_on_metal(name: str) -> None:
    # MLX takes an integer ddof only: correction=0.5 must not become 0.
    values = np.array([1.0, 2.0, 4.0], dtype=np.float32)
    got = float(getattr(xp, name)(xp.asarray(values, device=METAL), correction=0.5))
    expected = float(getattr(xp, name)(xp.asarray(values, device=CPU), correction=0.5))
    assert got == pytest.approx(expected, rel=1e-5)


def test_mean_of_large_int32_values_does_not_wrap_on_metal() -> None:
    # The namespace accepts int32 for mean and answers float32; MLX sums in int32 and
    # wraps (-1.0 here), the CPU device answers 2147483647.0.
    values = np.array([2**31 - 1, 2**31 - 1], dtype=np.int32)
    got = float(xp.mean(xp.asarray(values, device=METAL)))
    expected = float(xp.mean(xp.asarray(values, device=CPU)))
    assert got == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize("scalar", [2**63, 2**64, 10**30])
def test_a_huge_python_int_with_a_float32_array_works_on_metal(scalar: int) -> None:
    # CPU: float32 + 2**64 is 1.8e19 (float32). Metal: RuntimeError('std::bad_cast'),
    # an error that names neither the operand nor a fix.
    x_cpu = xp.asarray([1.0], device=CPU)
    x_metal = xp.asarray([1.0], device=METAL)
    expected = _host(x_cpu + scalar)
    np.testing.assert_allclose(_host(x_metal + scalar), expected, rtol=1e-6)


# -- operators and NumPy scalars (both devices) -------------------------------------------


@pytest.mark.parametrize("device", [CPU, METAL], ids=["cpu", "metal"])
@pytest.mark.parametrize(
    "scalar", [np.float32(2.5), np.int32(3), np.bool_(True)], ids=["f32", "i32", "bool"]
)
def test_an_operator_with_a_numpy_scalar_does_not_leave_the_namespace(
    device: xp.Device, scalar: object
) -> None:
    # Array.__add__ returns NotImplemented for a NumPy scalar, so NumPy's reflected
    # operator runs and converts the Array through __array__: the answer is a host
    # numpy.ndarray (float64 for int32 + np.int32(3)), off the array's device. The
    # functions raise TypeError for the same operand (xp.add(x, np.float32(2.5))).
    x = xp.asarray(np.array([1, 0, 1], dtype=np.int32), device=device)
    for result in (_try(lambda: x + scalar), _try(lambda: scalar + x), _try(lambda: x < scalar)):
        assert not isinstance(result, np.ndarray), (
            f"{type(scalar).__name__} operand gave a {type(result).__name__} "
            f"({getattr(result, 'dtype', '?')}) instead of an Array or a TypeError"
        )


def _try(call: object) -> object:
    try:
        return call()  # type: ignore[operator]
    except TypeError as exc:
        return exc


# -- the direct call's narrowing cast does not follow the data ----------------------------


def test_a_direct_call_that_narrows_runs_on_its_operands_device(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # docs/array-api.md: an operation on Metal arrays runs on the MLX device holding its
    # first operand's storage, whatever STRIDEWAVE_METAL_DEVICE says now. The direct
    # calls do, except where MLX's result needs a narrowing cast (bool << bool is uint8
    # in MLX): the cast must run on the operands' device too, not on the one the
    # variable names now.
    b = xp.asarray([True, False, True], device=METAL)
    i = xp.asarray(np.array([1, 2, 3], dtype=np.int32), device=METAL)
    xp.add(i, 1)
    monkeypatch.setenv("STRIDEWAVE_METAL_DEVICE", "neither-cpu-nor-gpu")
    assert _host(xp.bitwise_left_shift(i, 1)).tolist() == [2, 4, 6]  # follows the data
    assert _host(xp.bitwise_left_shift(b, True)).tolist() == [2, 0, 2]  # raises instead


# -- the known MLX limit (several threads): reported apart ---------------------------------

_SLICE_WRITER_AND_READERS = textwrap.dedent(
    """
    import sys, threading
    import numpy as np
    import stridewave.array_api as xp
    sys.setswitchinterval(1e-6)
    M = xp.Device("Metal")
    n = 4096
    x = xp.asarray(np.zeros(n, dtype=np.float32), device=M)
    stop = threading.Event()
    def writer():
        for i in range(1500):
            x[: n // 2] = float(i)
            x[n // 2 :] = float(i)
        stop.set()
    errors = []
    def reader(k):
        while not stop.is_set():
            try:
                float(xp.std(x) if k % 2 else xp.max(xp.reshape(x, (64, 64)) - x[0]))
            except Exception as exc:  # "There is no Stream(cpu, N) in current thread"
                errors.append(f"{type(exc).__name__}: {exc}")
    threads = [threading.Thread(target=writer)]
    threads += [threading.Thread(target=reader, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("finished", len(errors), errors[:1])
    """
)


def test_one_slice_writer_and_readers_on_other_threads_do_not_crash(
    tmp_path: Path,
) -> None:
    # One thread writing two slices of a Metal array while four others reduce it. The
    # Metal carrier publishes only evaluated storage (docs/threads-and-processes.md);
    # otherwise the readers meet "RuntimeError: There is no Stream(cpu, N) in current
    # thread" in mx.async_eval, and the process at times dies of SIGSEGV. On MLX's CUDA
    # backend, evaluations on several threads at once at times hung for good until every
    # evaluation took one lock (docs/threads-and-processes.md).
    done = run_script(_SLICE_WRITER_AND_READERS, tmp_path=tmp_path, metal_device=None, timeout=240)
    assert done.returncode == 0, f"exit {done.returncode}: {done.stderr[-400:]}"
    assert "finished 0 []" in done.stdout, done.stdout


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda x: xp.squeeze(x, axis=0), "squeeze"),
        (lambda x: xp.sort(x), "sort"),
        (lambda x: xp.argsort(x, descending=True), "argsort"),
    ],
)
def test_an_axis_a_0d_metal_array_lacks_is_named_in_the_error(call: Any, name: str) -> None:
    # MLX answered "tuple index out of range" / "list assignment index out of range".
    x = xp.asarray(1.0, device=METAL)
    with pytest.raises(np.exceptions.AxisError, match=f"{name}: axis -?[01] is out of range"):
        call(x)
