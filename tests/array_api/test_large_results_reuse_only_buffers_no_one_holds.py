"""The CPU device's large results reuse a buffer only once nothing references it.

A direct call's result of 1 MiB and more is written into a cached buffer whose every
Array, view, export and carrier is gone (``stridewave.array_api._buffers``), so a
chain of operations faults in no fresh pages. The promise that matters is the other
side: a buffer anything still reads is never written again, by this thread or another.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stridewave.array_api as xp
from stridewave.array_api import _buffers

#: A float32 operand of 1 MiB and a bit: its results are cached.
N = 2**18 + 5
BASE = np.arange(N, dtype=np.float32)


@pytest.fixture
def x() -> Iterator[Any]:
    _buffers.RESULT_BUFFERS.clear()
    yield xp.asarray(BASE, device="cpu")
    _buffers.RESULT_BUFFERS.clear()


def _address(array: Any) -> int:
    export = np.asarray(array)
    return int(export.ctypes.data)


def test_a_chain_gives_numpys_values_and_dtypes(x: Any) -> None:
    ints = xp.asarray(np.arange(N, dtype=np.int16), device="cpu")
    cases: list[tuple[Any, np.ndarray]] = [
        ((x * 2 + 1) ** 2 - x / 3, (BASE * 2 + 1) ** 2 - BASE / 3),
        (ints / 3, np.arange(N, dtype=np.int16) / 3),
        (ints * True, np.arange(N, dtype=np.int16) * True),
        (x < 7.5, BASE < 7.5),
        (-ints, -np.arange(N, dtype=np.int16)),
        (xp.sqrt(x), np.sqrt(BASE)),
    ]
    for ours, numpys in cases:
        got = np.asarray(ours)
        assert got.dtype == numpys.dtype
        np.testing.assert_array_equal(got, numpys)


def test_an_idle_buffer_is_written_again(x: Any) -> None:
    first = x * 2
    address = _address(first)
    del first
    second = x * 3
    assert _address(second) == address
    np.testing.assert_array_equal(np.asarray(second), BASE * 3)


def _holders() -> dict[str, Callable[[Any], Any]]:
    return {
        "the Array": lambda r: r,
        "numpy.asarray": np.asarray,
        "a NumPy view of the export": lambda r: np.asarray(r)[::3],
        "a memoryview": lambda r: memoryview(np.asarray(r).data),
        "numpy.from_dlpack": np.from_dlpack,
        "the carrier": lambda r: r.carrier,
        "a strided Array view": lambda r: r[::2],
        "a reshaped Array": lambda r: xp.reshape(r, (-1, 1)),
    }


@pytest.mark.parametrize("holder", list(_holders()))
def test_a_buffer_someone_holds_is_never_written(x: Any, holder: str) -> None:
    result = x + 1
    held = _holders()[holder](result)
    address = _address(result)
    del result
    gc.collect()
    others = [x * k for k in range(2, 2 + _buffers.MAX_ENTRIES)]
    assert all(_address(other) != address for other in others)
    if holder == "a memoryview":
        values = np.frombuffer(held, dtype=np.float32)
    else:
        values = np.asarray(held).reshape(-1)
    expected = (BASE + 1)[::3] if holder == "a NumPy view of the export" else BASE + 1
    if holder == "a strided Array view":
        expected = (BASE + 1)[::2]
    np.testing.assert_array_equal(values, expected)


def test_a_released_carrier_frees_its_buffer_for_reuse(x: Any) -> None:
    result = x - 1
    address = _address(result)
    result.carrier.release()
    del result
    assert _address(x * 4) == address


def test_threads_never_share_a_buffer(x: Any) -> None:
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    errors: list[str] = []

    def work(k: int) -> None:
        for _ in range(20):
            result = x * k
            kept = np.asarray(result).copy()
            if not np.array_equal(kept, BASE * k):
                errors.append(f"thread {k} read another thread's result")
            del result

    try:
        threads = [threading.Thread(target=work, args=(k,)) for k in range(2, 8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(switch)
    assert not errors, errors[:3]
    assert len(_buffers.RESULT_BUFFERS._entries) <= _buffers.MAX_ENTRIES


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.tuples(st.just("make"), st.integers(1, 9)),
            st.tuples(st.just("drop"), st.integers(0, 40)),
        ),
        max_size=30,
    )
)
def test_held_results_keep_their_values_against_a_model(actions: list[tuple[str, int]]) -> None:
    # the model: each held result's factor; the values must stay BASE * factor
    _buffers.RESULT_BUFFERS.clear()
    x = xp.asarray(BASE, device="cpu")
    held: list[tuple[Any, int]] = []
    for action, value in actions:
        if action == "make":
            held.append((x * value, value))
        elif held:
            del held[value % len(held)]
        for result, factor in held:
            assert float(result[N - 1]) == float(BASE[N - 1] * factor)
    for result, factor in held:
        np.testing.assert_array_equal(np.asarray(result), BASE * factor)


def test_the_cache_holds_at_most_its_limit(x: Any) -> None:
    kept = [x * k for k in range(40)]
    cache = _buffers.RESULT_BUFFERS
    assert cache._bytes <= cache.limit
    assert len(cache._entries) <= _buffers.MAX_ENTRIES
    for k, result in enumerate(kept):
        assert float(result[1]) == float(k)


def test_a_chains_three_live_temporaries_of_the_largest_size_fit_the_cache() -> None:
    # (two operands and a result: a chain over 10**7 float64, 80 MB each, keeps three
    # such buffers in the default 256 MiB; larger results are never cached)
    largest = 2**20 * 3
    cache = _buffers.ResultBuffers(3 * largest)
    live = [cache.empty((largest // 8,), np.dtype(np.float64)) for _ in range(3)]
    assert all(buffer is not None for buffer in live)
    assert cache._bytes == 3 * largest
    addresses = {int(buffer.ctypes.data) for buffer in live if buffer is not None}
    del live
    again = cache.empty((largest // 8,), np.dtype(np.float64))
    assert again is not None and int(again.ctypes.data) in addresses  # (an idle one)
    assert cache.empty((largest // 8 + 1,), np.dtype(np.float64)) is None
    default = _buffers.ResultBuffers(_buffers.DEFAULT_LIMIT)
    assert default.empty((10**7,), np.dtype(np.float64)) is not None


def _run(tmp_path: Path, limit: str, source: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TMPDIR": str(tmp_path), _buffers.LIMIT_VARIABLE: limit}
    return subprocess.run(
        [sys.executable, "-c", source],
        check=False,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_limit_of_zero_turns_the_cache_off(tmp_path: Path) -> None:
    done = _run(
        tmp_path,
        "0",
        "import numpy as np, stridewave.array_api as xp\n"
        "from stridewave.array_api import _buffers\n"
        "x = xp.asarray(np.ones(2**20, np.float32))\n"
        "y = (x * 2 + 1) ** 2\n"
        "assert float(y[0]) == 9.0\n"
        "assert _buffers.RESULT_BUFFERS._entries == []\n",
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("limit", ["lots", "-1", "1e6", "\u0661\u0660"])
def test_a_limit_that_is_no_byte_count_names_the_fix(tmp_path: Path, limit: str) -> None:
    done = _run(tmp_path, limit, "import stridewave.array_api as xp; xp.asarray([1.0]) * 2")
    assert done.returncode != 0
    assert f"STRIDEWAVE_HOST_CACHE_BYTES={limit!r} is not a byte count" in done.stderr
    assert "unset it for the default" in done.stderr


#: A large result computed by code that runs while the cache itself runs: a signal
#: handler between two bytecodes, and a finalizer of a buffer the cache forgets.
_REENTRY = {
    "a signal handler": """
signal.signal(signal.SIGALRM, lambda signum, frame: float((x * 5)[1]))
signal.setitimer(signal.ITIMER_REAL, 0.002, 0.002)
keep = []
for i in range(3000):
    keep.append(x * 3)
    del keep[:-20]
signal.setitimer(signal.ITIMER_REAL, 0)
""",
    "a finalizer of a forgotten buffer": """
result = x + 1
buffer = np.asarray(result).base
while buffer.base is not None:
    buffer = buffer.base
weakref.finalize(buffer, lambda: print("finalizer", float((x * 2)[1])))
del result, buffer
keep = [z * k for k in range(2 * _buffers.MAX_ENTRIES)]
""",
}


@pytest.mark.parametrize("case", list(_REENTRY))
def test_code_run_inside_the_cache_computes_without_waiting(tmp_path: Path, case: str) -> None:
    source = (
        "import signal, weakref, numpy as np, stridewave.array_api as xp\n"
        "from stridewave.array_api import _buffers\n"
        f"x = xp.asarray(np.arange({N}, dtype=np.float32))\n"
        f"z = xp.asarray(np.arange({N + 1}, dtype=np.float32))\n"
        + _REENTRY[case]
        + "print('finished')\n"
    )
    done = _run(tmp_path, "", source)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "finished"
    if case.startswith("a finalizer"):
        assert "finalizer 2.0" in done.stdout
