"""The array API's shortcuts agree with the general code they bypass.

* a 1-D slice takes a shortcut past the general basic-indexing geometry;
* the CPU device's read token compares the carrier's version slot, not its property,
  so a host write between two reads gives the second one the new values;
* Metal results are scheduled (``mx.async_eval``), not awaited, and a result of more
  than one axis keeps its N-d MLX form for the next read until its carrier changes.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import stridewave.array_api as xp
from stridewave.array_api import _indexing
from tests.metal_scripts import run_script

HAVE_MLX = importlib.util.find_spec("mlx") is not None
needs_mlx = pytest.mark.skipif(
    not HAVE_MLX, reason='mlx is not importable: install "stridewave[mlx]"'
)

bounds = st.one_of(st.none(), st.integers(-12, 12))
steps = st.one_of(st.none(), st.integers(-4, 4).filter(bool))


@given(
    n=st.integers(0, 9),
    source=st.sampled_from(["whole", "reversed", "tail", "strided"]),
    start=bounds,
    stop=bounds,
    step=steps,
)
def test_one_slice_shortcut_gives_the_general_geometry(
    n: int, source: str, start: int | None, stop: int | None, step: int | None
) -> None:
    base = xp.asarray(np.arange(n, dtype=np.float32))
    x = {"whole": base, "reversed": base[::-1], "tail": base[1:], "strided": base[::2]}[source]
    key = slice(start, stop, step)
    quick = _indexing.one_slice(x, key)
    assert quick is not None
    layout, offset = quick
    general = _indexing.basic_geometry(x.layout.shape, x.layout.strides, x._offset, (key,))
    assert (layout.shape, layout.strides, offset) == general
    view = x[key]
    assert (view.layout.shape, view.layout.strides, view._offset) == general
    assert view.dtype is x.dtype and view.device == x.device and view.carrier is x.carrier
    assert np.asarray(x[key]).tolist() == np.asarray(x)[key].tolist()


@pytest.mark.parametrize(
    "key", [slice(0, 2, 0), slice(1.0, 2), slice(np.int64(1), None), slice("a", None)]
)
def test_slices_the_shortcut_declines_take_the_general_path(key: slice) -> None:
    x = xp.asarray(np.arange(4, dtype=np.float32))
    assert _indexing.one_slice(x, key) is None


@pytest.mark.needs_mlx
@needs_mlx
def test_host_reads_after_a_write_give_the_new_values_through_the_version_slot() -> None:
    from stridewave.array_api._host import _CACHEABLE
    from stridewave.carriers._lifecycle import _Lifecycle

    # The token's check reads ``_version`` directly: no cacheable kind may count
    # versions any other way.
    assert all(kind.version is _Lifecycle.version for kind in _CACHEABLE)
    x = xp.asarray([1.0, 2.0, 3.0], device=xp.Device("cpu"))
    np.testing.assert_array_equal(np.asarray(x + 1.0), [2.0, 3.0, 4.0])
    x[0] = 10.0
    np.testing.assert_array_equal(np.asarray(x + 1.0), [11.0, 3.0, 4.0])
    x._carrier.set_value(1, 20.0)  # (a carrier write, outside the Array)
    np.testing.assert_array_equal(np.asarray(x + 1.0), [11.0, 21.0, 4.0])


def test_metal_results_read_back_right_after_writes_to_their_carriers() -> None:
    metal = xp.Device("Metal")
    a = xp.reshape(xp.arange(6, dtype=xp.float32, device=metal), (2, 3))
    b = a * 2.0  # a 2-D result: its N-d form is kept for the next read
    assert b._native is not None
    np.testing.assert_array_equal(np.asarray(b @ xp.ones((3,), device=metal)), [6, 24])
    b[0, 0] = 100.0  # one scatter: the carrier's version moves, the kept form is stale
    np.testing.assert_array_equal(np.asarray(b + 0.0), [[100, 2, 4], [6, 8, 10]])
    np.testing.assert_array_equal(np.asarray(b @ xp.ones((3,), device=metal)), [106, 24])
    assert b._carrier is not None
    b._carrier.set_value(5, -1.0)  # a scalar write into the carrier under the Array
    np.testing.assert_array_equal(np.asarray(xp.sum(b, axis=1)), [106, 13])


@pytest.mark.needs_mlx
@needs_mlx
def test_a_chain_of_scheduled_metal_results_gives_numpy_values() -> None:
    metal = xp.Device("Metal")
    rng = np.random.default_rng(1)
    a_np = rng.standard_normal((40, 30)).astype(np.float32)
    a = xp.asarray(a_np, device=metal)
    out = xp.sum((a - xp.mean(a, axis=0)) * 2.0, axis=1)  # four results, none awaited
    expected = ((a_np - a_np.mean(axis=0)) * 2.0).sum(axis=1)
    np.testing.assert_allclose(np.asarray(out), expected, rtol=1e-4, atol=1e-4)
    assert out._carrier is not None
    assert out._carrier.get_value(0) == pytest.approx(float(expected[0]), rel=1e-4, abs=1e-4)


@pytest.mark.needs_mlx
@needs_mlx
def test_metal_adoption_keeps_the_nd_form_and_holds_float16_as_float16() -> None:
    backend: Any = xp.Device("Metal").backend
    mx = backend.mx
    p = mx.arange(6, dtype=mx.float32).reshape(2, 3)
    q = mx.arange(6, dtype=mx.float16).reshape(3, 2) * 10  # (beyond the standard)
    fresh, layout, offset, token = backend.adopt(p, ())
    assert fresh is None and (layout.shape, offset) == ((2, 3), 0)  # made when asked for
    assert token[0] is p and token[1].shape == (6,)  # the N-d form and the storage form
    carrier, native = backend.materialize(token)
    assert native is not None and native[0] is p  # the N-d form, kept for the next read
    assert carrier.mlx_array is token[1] is native[1]
    _fresh, layout, _offset, token = backend.adopt(q, ())
    held, _native = backend.materialize(token)
    assert held.dtype() is xp.float16 and layout.shape == (3, 2)
    np.testing.assert_array_equal(np.asarray(held), np.arange(6) * 10)
    # A namespace function's result comes back launched and adopted already.
    launched = backend.ns.multiply(p, 2.0)
    assert backend.is_native(launched)
    assert backend.adopt(launched, ())[1].shape == (2, 3)


DIRECT_CASES: list[tuple[str, Callable[[Any, Any], Any], Callable[[Any, Any], Any]]] = [
    ("add", lambda x, y: xp.add(x, y), np.add),
    ("multiply by a scalar", lambda x, y: x * 2.5, lambda x, y: x * np.float32(2.5)),
    ("reflected subtract", lambda x, y: 3 - x, lambda x, y: np.float32(3) - x),
    ("less", lambda x, y: x < y, np.less),
    ("sum", lambda x, y: xp.sum(x), lambda x, y: np.sum(x, dtype=np.float32)),
    ("mean over axis 0", lambda x, y: xp.mean(x, axis=0), lambda x, y: np.mean(x, axis=0)),
    ("exp", lambda x, y: xp.exp(x), np.exp),
    ("matmul", lambda x, y: xp.matmul(x, y.T), lambda x, y: np.matmul(x, y.T)),
    ("strided view times 2", lambda x, y: x[:, ::2] * 2, lambda x, y: x[:, ::2] * 2),
]


@pytest.mark.needs_mlx
@needs_mlx
@pytest.mark.parametrize(("label", "ours", "numpy"), DIRECT_CASES, ids=[c[0] for c in DIRECT_CASES])
@pytest.mark.parametrize("operands", ["metal", "evictable", "one empty"])
@pytest.mark.filterwarnings("ignore:Mean of empty slice:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
def test_metal_direct_calls_give_numpy_values_and_decline_what_they_do_not_take(
    label: str,
    ours: Callable[[Any, Any], Any],
    numpy: Callable[[Any, Any], Any],
    operands: str,
) -> None:
    from stridewave import DType, Evictable, FileBacked, Layout, Tensor

    metal = xp.Device("Metal")
    rng = np.random.default_rng(3)
    shape = (0, 4) if operands == "one empty" else (3, 4)
    x_np = rng.standard_normal(shape).astype(np.float32)
    y_np = rng.standard_normal(shape).astype(np.float32)
    x, y = xp.asarray(x_np, device=metal), xp.asarray(y_np, device=metal)
    direct: Any = metal.backend.direct
    if operands == "evictable":
        # An Evictable over Metal: declined by the direct call, run by the general path.
        primary = xp.asarray(x_np.reshape(-1), device=metal)._carrier
        assert primary is not None
        evictable = Evictable(primary, FileBacked(dtype=DType.Float32))
        x = xp.asarray(Tensor(evictable, Layout(shape)))
        assert x.device == metal
        assert direct("add")(x, y) is None
        evictable.evict()  # the general path pages it in
    elif operands == "one empty":
        assert direct("add")(x, y) is None  # (MLX's empty reductions: the NumPy path)
    else:
        assert direct("add")(x, y) is not None
    out = ours(x, y)
    expected = numpy(x_np, y_np)
    assert out.device == metal
    assert out.shape == np.shape(expected)
    # (On a GPU, MLX multiplies float32 matrices in reduced precision, likely TF32.)
    gpu = label == "matmul" and not os.environ.get("STRIDEWAVE_METAL_DEVICE")
    tolerance = 5e-3 if gpu else 1e-5
    np.testing.assert_allclose(np.asarray(out), expected, rtol=tolerance, atol=tolerance)


def _run_metal_script(script: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """Run ``script`` in a fresh interpreter with a time limit (a hang or a crash fails)."""
    return run_script(script, tmp_path=tmp_path, metal_device=None, timeout=120)


THREADED_RESULTS = """
import sys, threading, time
import numpy as np
import stridewave.array_api as xp
sys.setswitchinterval(1e-6)
backend = xp.Device("Metal").backend
adopt = backend.adopt
def adopt_after_a_switch(*args, **kwargs):
    time.sleep(0)  # let another thread launch while this one adopts
    return adopt(*args, **kwargs)
backend.adopt = adopt_after_a_switch
metal = xp.Device("Metal")
bad, errors = [], []
def work(seed):
    try:
        rng = np.random.default_rng(seed)
        p_np = rng.standard_normal((8, 8)).astype(np.float32)
        a_np = rng.standard_normal(64).astype(np.float32)
        b_np = rng.random(16) > 0.5
        p = xp.asarray(p_np, device=metal)
        a = xp.asarray(a_np, device=metal)
        b = xp.asarray(b_np, device=metal)
        for _ in range(int(sys.argv[1])):
            # N-d results, 0-d results, 1-D results and a narrowing cast (bool << bool)
            checks = [
                (xp.matmul(p, p), p_np @ p_np),
                (xp.sum(a), np.sum(a_np)),
                (a + 1.0, a_np + 1),
                (xp.bitwise_left_shift(b, True), b_np.astype(np.int32) << 1),
            ]
            for ours, expected in checks:
                if not np.allclose(np.asarray(ours), expected, rtol=1e-4, atol=1e-4):
                    bad.append(seed)
    except Exception as exc:
        errors.append(repr(exc))
threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("bad", len(bad), "errors", errors[:1])
"""


@pytest.mark.needs_mlx
@needs_mlx
def test_results_launched_on_several_threads_are_adopted_right(tmp_path: Path) -> None:
    # Each thread's result is launched and adopted by its own call, with no state
    # shared between the two steps. Forced switches make the threads interleave there.
    proc = _run_metal_script(THREADED_RESULTS.replace("sys.argv[1]", "60"), tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.splitlines()[-1] == "bad 0 errors []"


EMPTY_REDUCTIONS = """
import warnings
import stridewave.array_api as xp
warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's "Degrees of freedom <= 0"
d = xp.Device("Metal")
for _ in range(20):
    for name in ("std", "var", "sum", "mean", "prod"):
        out = getattr(xp, name)(xp.asarray([], dtype=xp.float32, device=d))
        print(name, float(out))
"""


@pytest.mark.needs_mlx
@needs_mlx
def test_reductions_of_empty_metal_arrays_finish(tmp_path: Path) -> None:
    # MLX 0.32.4 can spin for good reducing an empty array on its CPU device; the
    # namespace hands calls with an empty operand to NumPy instead. A subprocess with a
    # time limit, so that a regression fails here rather than hanging the suite.
    proc = _run_metal_script(EMPTY_REDUCTIONS, tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    last = dict(line.split() for line in proc.stdout.splitlines()[-5:])
    assert last["sum"] == "0.0" and last["prod"] == "1.0"
    assert all(last[name] == "nan" for name in ("std", "var", "mean"))


VIEWS: dict[str, Callable[[Any], Any]] = {
    "reshape": lambda a: xp.reshape(a, (3, 2)),
    "flip": lambda a: xp.flip(a),
    "expand_dims": lambda a: xp.expand_dims(a, axis=0),
    "broadcast_to": lambda a: xp.broadcast_to(a, (2, 2, 3)),
    "squeeze": lambda a: xp.squeeze(xp.expand_dims(a, axis=0), axis=0),
    "unstack": lambda a: xp.unstack(a)[0],
    "real": lambda a: xp.real(a),
    "astype": lambda a: xp.astype(a, xp.float32),
}


@pytest.mark.needs_mlx
@needs_mlx
@pytest.mark.parametrize("name", list(VIEWS))
def test_metal_results_of_view_functions_own_their_buffer(name: str) -> None:
    # MLX returns views for these; a Metal result adopts a copy, so a scalar write
    # through one carrier never changes the other (whose version would not move).
    metal = xp.Device("Metal")
    a = xp.asarray(np.arange(6, dtype=np.float32).reshape(2, 3), device=metal)
    r = VIEWS[name](a)
    # (host copies: numpy.asarray of a writable Array would be a write, a version step)
    before = _copy(r)
    assert r.carrier is not None
    a.carrier.set_value(0, 99.0)
    np.testing.assert_array_equal(_copy(r), before)
    assert r.carrier.version == 0
    r.carrier.set_value(1, 42.0)
    assert _copy(a).ravel().tolist() == [99.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert a.carrier.version == 1


def _copy(x: Any) -> Any:
    """Return a host copy of ``x``'s values (no export of ``x``: no version step)."""
    return np.asarray(x.to_device(xp.Device("CPU")))


TRANSPOSES: dict[str, Callable[[Any], Any]] = {
    "permute_dims": lambda a: xp.permute_dims(a, (1, 0)),
    ".T": lambda a: a.T,
    ".mT": lambda a: a.mT,
    "matrix_transpose": lambda a: xp.matrix_transpose(a),
    # (NumPy's moveaxis is a view, and SciPy's ndimage writes its output= through one)
    "moveaxis": lambda a: xp.moveaxis(a, 0, 1),
    "moveaxis, negative axes": lambda a: xp.moveaxis(a, (-1,), (-2,)),
}


@pytest.mark.needs_mlx
@needs_mlx
@pytest.mark.parametrize("name", list(TRANSPOSES))
def test_metal_transposes_are_views_of_the_same_carrier_as_basic_indexing(name: str) -> None:
    # Geometry on the operand's carrier, as on CPU: a write through the transpose
    # reaches the array, and the one carrier's version counts it.
    metal = xp.Device("Metal")
    a = xp.asarray(np.arange(6, dtype=np.float32).reshape(2, 3), device=metal)
    t = TRANSPOSES[name](a)
    assert t.carrier is a.carrier and t.shape == (3, 2)
    t[1:, :1] = xp.asarray([[10.0], [20.0]], device=metal)
    assert _copy(a).tolist() == [[0.0, 10.0, 20.0], [3.0, 4.0, 5.0]]
    assert a.carrier.version == 1


INT_MIN_BY_MINUS_ONE = """
import numpy as np
import stridewave.array_api as xp
x = xp.asarray(np.array([-2**31, 7, -7], np.int32), device=xp.Device("Metal"))
y = xp.asarray(np.array([-1, -1, 2], np.int32), device=xp.Device("Metal"))
print(np.asarray(x // y).tolist(), np.asarray(x % y).tolist(), np.asarray(x // -1).tolist())
"""


@pytest.mark.needs_mlx
@needs_mlx
def test_int32_min_divided_by_minus_one_does_not_kill_the_process(tmp_path: Path) -> None:
    # MLX's integer division traps on INT32_MIN // -1 (SIGFPE: the conformance run
    # died of it); the namespace answers a divisor of -1 without dividing, as NumPy
    # does. A subprocess, so that a regression fails here instead of ending pytest.
    proc = _run_metal_script(INT_MIN_BY_MINUS_ONE, tmp_path)
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-2000:])
    assert proc.stdout.split("\n")[0] == ("[-2147483648, -7, -4] [0, 0, 1] [-2147483648, -7, 7]")


@pytest.mark.parametrize(
    ("source", "destination"),
    [(0, -1), ((0, 1), (-1, -2)), (2, 0), (-1, -1), ((), ()), ((0, 2), (2, 0))],
)
def test_moveaxis_is_numpys_view_on_every_device(
    device: xp.Device, source: Any, destination: Any
) -> None:
    values = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    x = xp.asarray(values, device=device)
    y = xp.moveaxis(x, source, destination)
    expected = np.moveaxis(values, source, destination)
    assert y.shape == expected.shape
    np.testing.assert_array_equal(_copy(y), expected)
    y[...] = -1.0  # a write through the view reaches the array
    assert (_copy(x) == -1.0).all()


@pytest.mark.parametrize(("source", "destination"), [(3, 0), ((0, 0), (1, 2)), ((0, 1), (2,))])
def test_moveaxis_of_bad_axes_raises_and_changes_nothing(
    device: xp.Device, source: Any, destination: Any
) -> None:
    x = xp.zeros((2, 3, 4), device=device)
    with pytest.raises((ValueError, IndexError)):
        xp.moveaxis(x, source, destination)
    assert x.carrier.version == 0
