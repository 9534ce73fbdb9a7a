"""Metal-only behaviour (spec: carrier-storage, "Metal owns typed accelerator storage").

The shared contract suite runs on Metal through the ``Kind`` table; this file covers
what only Metal has: lazy MLX, runtime detection, memory safety in front of MLX, the
host view's coherence with MLX-side writes, MLX interop and the no-host-view fallback.
Tests run on MLX's CPU device unless the machine has a GPU runtime (tests/conftest.py).
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from stridewave import CPU, DType, Layout, Metal, Tensor
from stridewave.carriers import _metal, _mlx_runtime

from .conftest import HAVE_MLX, needs_mlx

F32, I32, BOOL = DType.Float32, DType.Int32, DType.Bool


def mlx_only(test: Any) -> Any:
    """Mark ``test`` needs_mlx: skipped, with the reason, where mlx is not importable."""
    for mark in needs_mlx:
        test = mark(test)
    return test


def run_python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != _mlx_runtime.DEVICE_ENV}
    environ.update(env)
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=environ,
    )


def whole(carrier: Any, shape: tuple[int, ...] | None = None) -> Tensor:
    return Tensor(carrier, Layout((carrier.size(),) if shape is None else shape))


def mlx_values(carrier: Metal) -> list[object]:
    """The stored values as MLX itself reads them (not through the NumPy view)."""
    values: list[object] = carrier._mx_array.tolist()
    return values


# -- Scenario: Preserve CPU-only use without accelerator dependencies (no mlx needed) --

BLOCK_MLX = """
import sys
sys.modules["mlx"] = None        # import mlx -> ImportError, as if not installed
sys.modules["mlx.core"] = None
"""


def test_preserve_cpu_only_use_without_accelerator_dependencies() -> None:
    proc = run_python(
        BLOCK_MLX
        + textwrap.dedent(
            """
        import numpy as np
        import stridewave as sw
        from stridewave import CPU, DType, Layout, Tensor
        c = CPU(4, dtype=DType.Int32)
        c[1] = 7
        src = CPU(0, dtype=DType.Int32).new_like([1, 2])
        c.scatter(Tensor(src, Layout((2,))), Tensor(c, Layout((4,))), Layout((2,), (2,)))
        assert list(c) == [1, 7, 2, 0], list(c)
        assert sys.modules["mlx"] is None  # never really imported
        # argument errors still come first, without MLX
        for bad, exc in ((1.5, TypeError), (-1, ValueError)):
            try:
                sw.Metal(bad)
            except exc:
                pass
        try:
            sw.Metal(2, dtype=DType.Float64)
        except ValueError:
            pass
        try:
            sw.Metal(2)
        except RuntimeError as e:
            print("REFUSED:", e)
        """
        )
    )
    assert proc.returncode == 0, proc.stderr
    assert 'pip install "stridewave[mlx]"' in proc.stdout
    assert "CPU carriers work without it" in proc.stdout


def test_importing_stridewave_does_not_import_mlx() -> None:
    proc = run_python(
        """
        import sys
        import stridewave
        stridewave.CPU(3)[0] = 1.0
        print("mlx" in sys.modules)
        """
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"


def test_info_names_metal_availability_without_mlx() -> None:
    proc = run_python(BLOCK_MLX + "from stridewave.cli._main import main; main(['info'])")
    assert proc.returncode == 0, proc.stderr
    assert 'Metal       unavailable: mlx is not installed; pip install "stridewave[mlx]"' in (
        proc.stdout
    )


# -- argument checks before MLX -------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"size": 1.0}, TypeError, "size"),
        ({"size": "3"}, TypeError, "size"),
        ({"size": -1}, ValueError, "negative"),
        ({"size": 3, "dtype": "Float32"}, TypeError, "DType"),
        ({"size": 3, "dtype": DType.Float64}, ValueError, "Float64"),
        ({"size": 3, "dtype": DType.Floating}, ValueError, "Floating"),
        ({"size": 3, "mutable": 1}, TypeError, "mutable"),
        ({"size": 3, "empty": None}, TypeError, "empty"),
    ],
)
def test_arguments_are_checked_before_mlx_is_touched(
    monkeypatch: pytest.MonkeyPatch, kwargs: dict[str, Any], exc: type[Exception], match: str
) -> None:
    def forbidden() -> None:
        raise AssertionError("MLX touched before the argument checks")

    monkeypatch.setattr(_metal, "import_mlx", forbidden)
    with pytest.raises(exc, match=match):
        Metal(**kwargs)


def test_compound_dtype_is_explained(compound: DType) -> None:
    with pytest.raises(ValueError, match=r"(?i)plane|compound"):
        Metal(3, dtype=compound)


# -- Scenario: Refuse unavailable Metal construction -----------------------------------


@mlx_only
def test_refuse_unavailable_metal_construction(monkeypatch: pytest.MonkeyPatch) -> None:
    import mlx.core as mx

    monkeypatch.delenv(_mlx_runtime.DEVICE_ENV, raising=False)
    if _mlx_runtime.gpu_backend(mx) is not None:
        pytest.skip("this machine has a GPU runtime; see the simulated case below")
    with pytest.raises(RuntimeError, match=r"no GPU runtime.*mlx\[cuda13\].*=cpu"):
        Metal(3)


@mlx_only
def test_refuse_unavailable_metal_construction_simulated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import mlx.core as mx

    carrier = Metal(2)  # made while a device is available
    monkeypatch.delenv(_mlx_runtime.DEVICE_ENV, raising=False)
    monkeypatch.setattr(_mlx_runtime, "gpu_backend", lambda mx: None)
    allocations: list[object] = []
    real_zeros = mx.zeros

    def counting_zeros(*a: Any, **k: Any) -> Any:
        allocations.append(a)
        return real_zeros(*a, **k)

    monkeypatch.setattr(mx, "zeros", counting_zeros)
    makers: tuple[Callable[[], object], ...] = (
        lambda: Metal(3),
        lambda: carrier.allocate_like(3),
        lambda: carrier.new_like([1.0]),
    )
    for make in makers:
        with pytest.raises(RuntimeError, match="no GPU runtime"):
            make()
    assert allocations == []  # refused before any storage exists
    monkeypatch.setenv(_mlx_runtime.DEVICE_ENV, "tpu")
    with pytest.raises(RuntimeError, match="not understood"):
        Metal(3)


# -- Scenario: Allocate initialized Metal storage --------------------------------------


@mlx_only
@pytest.mark.parametrize("empty", [False, True])
def test_allocate_initialized_metal_storage(empty: bool) -> None:
    carrier = Metal(3, dtype=F32, empty=empty)
    assert not carrier.is_released() and carrier.is_mutable()
    assert carrier.size() == 3 and carrier.dtype() is F32
    assert [carrier[i] for i in range(3)] == [0.0, 0.0, 0.0]
    assert all(type(carrier[i]) is float for i in range(3))
    assert list(Metal(2, dtype=I32)) == [0, 0]
    assert list(Metal(2, dtype=BOOL)) == [False, False]
    assert Metal(0).size() == 0
    assert carrier.supports_storage_dtype(DType.Int32)  # structural, allocation-free
    assert "MLX" in carrier.device()


# -- memory safety: nothing invalid reaches MLX ------------------------------------------


@mlx_only
@pytest.mark.parametrize(
    ("dtype", "index", "value", "exc"),
    [
        (I32, 3, 1, IndexError),
        (I32, -1, 1, IndexError),
        (I32, 2**63, 1, IndexError),
        (I32, 1.0, 1, TypeError),
        (I32, 0, 3.9, TypeError),
        (I32, 0, math.nan, TypeError),
        (I32, 0, np.float64("nan"), TypeError),
        (I32, 0, 2**31, OverflowError),
        (I32, 0, -(2**31) - 1, OverflowError),
        (I32, 0, 10**30, OverflowError),
        (F32, 0, 1e39, OverflowError),
        (F32, 0, True, TypeError),
        (BOOL, 0, 1, TypeError),
    ],
)
def test_invalid_writes_are_refused_before_mlx(
    dtype: DType, index: object, value: object, exc: type[Exception]
) -> None:
    carrier = Metal(3, dtype=dtype)
    before = mlx_values(carrier)
    with pytest.raises(exc):
        carrier[index] = value
    with pytest.raises(exc):
        carrier.set_value(index, value)
    assert mlx_values(carrier) == before
    assert carrier.version == 0


@mlx_only
@pytest.mark.parametrize(
    ("values", "exc"),
    [
        ([3.9], TypeError),
        (np.array([3.9]), TypeError),
        (np.array([np.nan], dtype=np.float32), TypeError),
        ([2**31], OverflowError),
        (np.array([2**40]), OverflowError),
    ],
)
def test_invalid_values_never_reach_mlx_in_new_like(values: object, exc: type[Exception]) -> None:
    with pytest.raises(exc):
        Metal(0, dtype=I32).new_like(values)


# -- Scenario: Fail Metal scatter atomically ---------------------------------------------


@mlx_only
def test_fail_metal_scatter_atomically_on_validation() -> None:
    receiver = Metal(0, dtype=I32).new_like([1, 2, 3, 4])
    ints = Metal(0, dtype=I32).new_like([9, 9])
    floats = Metal(0, dtype=F32).new_like([3.9, 1.0])
    before = mlx_values(receiver)
    attempts: list[tuple[Callable[[], object], type[Exception]]] = [
        # out of range: slot 4 + 2*1 = 6 >= 4
        (lambda: receiver.scatter(whole(ints), whole(receiver), Layout((2,), (2,)), 4), IndexError),
        # Float32 into Int32 is refused by the receiver's normalization
        (lambda: receiver.scatter(whole(floats), whole(receiver), Layout((2,))), TypeError),
        # mapping shape mismatch
        (lambda: receiver.scatter(whole(ints), whole(receiver), Layout((3,))), ValueError),
    ]
    for attempt, exc in attempts:
        with pytest.raises(exc):
            attempt()
    frozen = receiver.new_like(before, mutable=False)
    with pytest.raises(RuntimeError):
        frozen.scatter(whole(ints), whole(frozen), Layout((2,)))
    assert mlx_values(receiver) == before == [1, 2, 3, 4]
    assert receiver.version == 0 and frozen.version == 0


class _FailingMLX:
    """``mlx.core`` whose ``failing`` call (host transfer or eval) fails: out of memory."""

    def __init__(self, mx: Any, failing: str) -> None:
        self._mx = mx
        self._failing = failing

    def __getattr__(self, name: str) -> Any:
        if name == self._failing:
            raise MemoryError(f"simulated: device out of memory in mx.{name}")
        return getattr(self._mx, name)


@mlx_only
@pytest.mark.parametrize(
    "mapping",
    [Layout((2,), (1,)), Layout((2, 2), (1, 2)), Layout((2, 2), (0, 1))],
    ids=["slice", "injective-2d", "repeats"],
)
@pytest.mark.parametrize(
    ("source_kind", "failing"),
    [("CPU", "array"), ("CPU", "eval"), ("Metal", "eval")],
    ids=["host-source-transfer", "host-source-eval", "device-source-eval"],
)
def test_fail_metal_scatter_atomically_on_execution(
    monkeypatch: pytest.MonkeyPatch, mapping: Layout, source_kind: str, failing: str
) -> None:
    import mlx.core as mx

    receiver = Metal(0, dtype=F32).new_like([1.0, 2.0, 3.0, 4.0])
    prototype = CPU(0) if source_kind == "CPU" else Metal(0)
    source = prototype.new_like([5.0, 6.0, 7.0, 8.0][: mapping.size])
    monkeypatch.setattr(_metal, "import_mlx", lambda: _FailingMLX(mx, failing))
    monkeypatch.setattr(_mlx_runtime, "import_mlx", lambda: _FailingMLX(mx, failing))
    with pytest.raises(MemoryError):
        receiver.scatter(whole(source, mapping.shape), whole(receiver), mapping)
    monkeypatch.undo()
    assert mlx_values(receiver) == [1.0, 2.0, 3.0, 4.0]
    assert list(receiver) == [1.0, 2.0, 3.0, 4.0]
    assert receiver.version == 0


def scatter_model(dest: list[Any], base: int, mapping: Layout, values: list[Any]) -> list[Any]:
    out = list(dest)
    for i in range(mapping.size):
        out[base + mapping.index(i)] = values[i]
    return out


@mlx_only
@pytest.mark.parametrize(
    ("mapping", "mapping_offset"),
    [
        (Layout((4,)), 1),
        (Layout((4,), (-1,)), 4),
        (Layout((4,), (2,)), 0),
        (Layout((2, 3), (1, 2)), 1),
        (Layout((2, 3), (3, -1)), 2),
        (Layout((3, 2), (0, 1)), 0),
        (Layout((2, 2), (1, 1)), 3),
    ],
    ids=["slice", "reversed", "stepped", "transpose", "mixed-signs", "zero-stride", "overlap"],
)
@pytest.mark.parametrize("source_offset", [0, 2])
def test_scatter_from_a_metal_source_stays_on_the_device(
    monkeypatch: pytest.MonkeyPatch, mapping: Layout, mapping_offset: int, source_offset: int
) -> None:
    import mlx.core as mx

    initial = [-1] * 9
    values = list(range(10, 10 + mapping.size + source_offset))
    receiver = Metal(0, dtype=I32).new_like(initial)
    source = Metal(0, dtype=I32).new_like(values)
    to_scatter = Tensor(source, Layout(mapping.shape), offset=source_offset)
    expected = scatter_model(initial, mapping_offset, mapping, values[source_offset:])
    if mapping.is_injective():  # no host-to-MLX transfer of values at all
        monkeypatch.setattr(_metal, "import_mlx", lambda: _FailingMLX(mx, "array"))
    receiver.scatter(to_scatter, whole(receiver), mapping, mapping_offset)
    monkeypatch.undo()
    assert list(receiver) == expected
    assert mlx_values(receiver) == expected
    assert receiver.version == 1 and list(source) == values


@mlx_only
@pytest.mark.parametrize(("mapping", "offset"), [(Layout((5,)), 0), (Layout((5,), (-1,)), 4)])
@pytest.mark.parametrize("source_kind", ["Metal", "CPU"])
def test_full_coverage_scatter_leaves_the_receiver_its_own_contiguous_buffer(
    mapping: Layout, offset: int, source_kind: str
) -> None:
    # MLX adopts the update's buffer when a slice update covers the whole array
    values = [1, 2, 3, 4, 5]
    source = (Metal(0, dtype=I32) if source_kind == "Metal" else CPU(0, dtype=I32)).new_like(values)
    receiver = Metal(5, dtype=I32)
    view = np.asarray(receiver)
    receiver.scatter(whole(source), whole(receiver), mapping, offset)
    receiver[0] = 0
    assert list(source) == values  # no write reached the source
    assert receiver._host  # still host-viewable (C-contiguous)
    expected = [0, *(values[1:] if offset == 0 else values[::-1][1:])]
    assert list(receiver) == mlx_values(receiver) == expected
    assert np.asarray(receiver).tolist() == expected
    assert list(view) == [0] * 5  # an export is a snapshot: never stale, never dangling


@mlx_only
@pytest.mark.parametrize(
    ("mapping", "offset", "size"),
    [
        (Layout((3, 4), (1, 3)), 0, 12),  # a transpose covering every slot
        (Layout((3, 4), (1, 3)), 2, 15),  # the same block, inside a larger receiver
        (Layout((3, 4), (-1, 3)), 2, 12),  # reversed inner axis
        (Layout((3, 4), (1, -3)), 9, 12),  # reversed outer axis
        (Layout((3, 4), (-1, -3)), 11, 13),  # both reversed
        (Layout((2, 3, 4), (1, 8, 2)), 0, 24),  # three axes, permuted
        (Layout((2, 3), (3, 1)), 1, 7),  # row-major block: a plain run
    ],
    ids=["transpose", "inside", "flip-inner", "flip-outer", "flip-both", "3d", "run"],
)
@pytest.mark.parametrize("source_kind", ["Metal", "CPU"])
@pytest.mark.parametrize("viewed", [False, True], ids=["no-view", "host-view"])
def test_dense_block_scatter_matches_the_model_and_shares_no_buffer(
    mapping: Layout, offset: int, size: int, source_kind: str, viewed: bool
) -> None:
    initial = [-1] * size
    values = list(range(100, 100 + mapping.size))
    prototype = Metal(0, dtype=I32) if source_kind == "Metal" else CPU(0, dtype=I32)
    source = prototype.new_like(values)
    receiver = Metal(0, dtype=I32).new_like(initial)
    if viewed:
        assert receiver[0] == -1  # takes the host view: the scatter must keep it coherent
    receiver.scatter(whole(source, mapping.shape), whole(receiver), mapping, offset)
    expected = scatter_model(initial, offset, mapping, values)
    # A scatter never takes the view; it drops one it finds (MLX wrote a new buffer,
    # which the next host access views)
    assert not receiver._viewed
    assert list(receiver) == mlx_values(receiver) == expected
    assert receiver.version == 1
    source[0] = 7  # neither carrier sees the other's later writes
    receiver[size - 1] = 8
    assert list(source) == [7, *values[1:]]
    assert list(receiver) == [*expected[:-1], 8]


@mlx_only
@pytest.mark.parametrize("reverse", [False, True])
def test_full_coverage_scatter_without_a_host_view_adopts_an_independent_buffer(
    reverse: bool,
) -> None:
    # No host view: the storage becomes a fresh copy of the values (one device copy)
    values = [1.5, 2.5, 3.5, 4.5]
    source = Metal(0).new_like(values)
    receiver = Metal(4)
    mapping = Layout((4,), (-1,)) if reverse else Layout((4,))
    receiver.scatter(whole(source), whole(receiver), mapping, 3 if reverse else 0)
    assert not receiver._viewed
    expected = values[::-1] if reverse else values
    other = Metal(0).new_like([9.0, 9.0, 9.0, 9.0])
    source.scatter(whole(other), whole(source), Layout((4,)))  # an MLX write to the source
    source[1] = -1.0  # and a host write
    assert list(receiver) == mlx_values(receiver) == expected
    receiver[2] = 0.0
    assert list(source) == [9.0, -1.0, 9.0, 9.0]
    assert receiver.version == 2 and source.version == 2


@mlx_only
@pytest.mark.parametrize("n", [1, 2, 7])
@pytest.mark.parametrize("reverse", [False, True])
def test_scatter_keeps_scalar_access_and_exports_coherent_with_mlx(n: int, reverse: bool) -> None:
    # MLX may or may not write a slice update in place (on CUDA it sometimes moves the
    # buffer): the carrier's own host view follows, and exports are snapshots.
    values = list(range(1, n + 1))
    source = Metal(0, dtype=I32).new_like(values)
    receiver = Metal(n, dtype=I32)
    before = np.asarray(receiver)
    assert receiver[0] == 0  # the host view is taken now
    mapping = Layout((n,), (-1,)) if reverse else Layout((n,))
    receiver.scatter(whole(source), whole(receiver), mapping, n - 1 if reverse else 0)
    expected = values[::-1] if reverse else values
    assert list(receiver) == mlx_values(receiver) == np.asarray(receiver).tolist() == expected
    receiver.scatter(whole(source, (1,)), whole(receiver), Layout((1,)), 0)  # partial
    assert receiver[0] == 1 and list(receiver) == mlx_values(receiver)
    receiver[n - 1] = 42
    assert mlx_values(receiver)[n - 1] == 42 == np.asarray(receiver)[n - 1]
    assert before.tolist() == [0] * n


def _viewed(carrier: Metal) -> bool:
    """Read the flag afresh (a plain attribute read would stay narrowed for mypy)."""
    return carrier._viewed


@mlx_only
def test_host_view_is_taken_lazily_on_first_host_access() -> None:
    carrier = Metal(0).new_like(np.arange(4, dtype=np.float32))
    assert not _viewed(carrier)  # new_like takes no host view
    source = Metal(0).new_like([9.0])
    carrier.scatter(whole(source), whole(carrier), Layout((1,)), 2)
    assert not _viewed(carrier)  # nor does a scatter
    assert carrier[2] == 9.0 and _viewed(carrier)
    store = carrier._slot_store  # the view's own accessor now: a memoryview of it
    assert isinstance(store, memoryview)
    owner: object = store.obj
    assert owner is carrier._array


@mlx_only
def test_scatter_from_itself_reads_the_old_values() -> None:
    receiver = Metal(0, dtype=I32).new_like([1, 2, 3, 4, 5])
    receiver.scatter(Tensor(receiver, Layout((4,))), whole(receiver), Layout((4,)), 1)
    assert list(receiver) == [1, 1, 2, 3, 4]


@mlx_only
def test_scatter_last_logical_index_wins_with_many_repeats() -> None:
    n = 10_000
    receiver = Metal(4, dtype=I32)
    source = Metal(0, dtype=I32).new_like(np.arange(n, dtype=np.int32))
    receiver.scatter(whole(source, (n // 4, 4)), whole(receiver), Layout((n // 4, 4), (0, 1)))
    assert list(receiver) == [n - 4, n - 3, n - 2, n - 1]


# -- per-element writes keep the normalization table, before and after the host view ----

_F32_MAX = float(np.finfo(np.float32).max)
_F32_OVERFLOW = 2.0**128 - 2.0**103


@mlx_only
@pytest.mark.parametrize("spelling", ["set_value", "setitem"])
@pytest.mark.parametrize("viewed", [False, True], ids=["no-view", "host-view"])
@pytest.mark.parametrize(
    ("dtype", "index", "value", "outcome"),
    [
        (F32, 1, 1.5, 1.5),
        (F32, 1, math.nextafter(_F32_OVERFLOW, 0.0), _F32_MAX),  # rounds down to FLT_MAX
        (F32, 1, -math.nextafter(_F32_OVERFLOW, 0.0), -_F32_MAX),
        (F32, 1, math.inf, math.inf),
        (F32, 1, _F32_OVERFLOW, OverflowError),  # rounds to infinity: refused
        (F32, 1, -1e300, OverflowError),
        (F32, 1, True, TypeError),
        (F32, 3, 1.0, IndexError),  # one past the end
        (F32, -1, 1.0, IndexError),  # never wraps around
        (F32, True, 1.0, TypeError),
        (I32, 1, -(2**31), -(2**31)),
        (I32, 1, 2**31, OverflowError),
        (I32, 1, -(2**31) - 1, OverflowError),
        (I32, 1, 2.0, TypeError),
        (BOOL, 1, True, True),
        (BOOL, 1, 1, TypeError),
    ],
)
def test_scalar_writes_keep_the_table_and_the_version_rules(
    spelling: str, viewed: bool, dtype: DType, index: Any, value: Any, outcome: Any
) -> None:
    carrier = Metal(3, dtype=dtype)
    if viewed:
        carrier.get_value(0)  # takes the host view: writes go to the view's memoryview
    assert carrier._viewed == viewed
    before = mlx_values(carrier)

    def write() -> None:
        if spelling == "set_value":
            carrier.set_value(index, value)
        else:
            carrier[index] = value

    if isinstance(outcome, type) and issubclass(outcome, Exception):
        where = "carrier\\[index\\]" if spelling == "setitem" else "set_value"
        with pytest.raises(outcome, match=where if outcome is IndexError else None):
            write()
        assert mlx_values(carrier) == before and carrier.version == 0
    else:
        write()
        assert carrier[index] == outcome == mlx_values(carrier)[index]
        assert carrier.version == 1


@mlx_only
def test_scalar_writes_honour_mutability_and_release_after_the_host_view() -> None:
    frozen = Metal(0).new_like([1.0, 2.0], mutable=False)
    assert frozen[0] == 1.0  # host view taken
    with pytest.raises(RuntimeError):
        frozen.set_value(0, 5.0)
    with pytest.raises(RuntimeError):
        frozen[0] = 5.0
    carrier = Metal(2)
    carrier[0] = 1.0  # host view taken
    carrier.release()
    with pytest.raises(RuntimeError):
        carrier.set_value(0, 5.0)
    with pytest.raises(RuntimeError):
        carrier[0] = 5.0
    assert frozen.version == 0 and carrier.version == 1


# -- coherence of the host view with MLX -------------------------------------------------


@mlx_only
def test_host_writes_are_seen_by_mlx_and_mlx_writes_by_host_reads() -> None:
    carrier = Metal(6, dtype=F32)
    carrier[1] = 1.5  # host view -> MLX buffer
    assert mlx_values(carrier)[1] == 1.5
    source = Metal(0).new_like([7.0, 8.0])
    carrier.scatter(whole(source), whole(carrier), Layout((2,), (3,)), 2)  # MLX write
    assert [carrier[i] for i in range(6)] == [0.0, 1.5, 7.0, 0.0, 0.0, 8.0]
    carrier[5] = -1.0  # host again, after MLX wrote
    assert mlx_values(carrier) == [0.0, 1.5, 7.0, 0.0, 0.0, -1.0]
    assert list(np.asarray(carrier)) == mlx_values(carrier)


@mlx_only
def test_view_is_rebound_when_mlx_allocates_a_new_buffer() -> None:
    import mlx.core as mx

    carrier = Metal(4, dtype=I32)
    sharer = mx.reshape(carrier._mx_array, (2, 2))  # shares the buffer: no donation
    mx.eval(sharer)
    source = Metal(0, dtype=I32).new_like([5, 6])
    carrier.scatter(whole(source), whole(carrier), Layout((2,), (2,)))
    assert [carrier[i] for i in range(4)] == [5, 0, 6, 0]
    carrier[1] = 9
    assert mlx_values(carrier) == [5, 9, 6, 0]
    assert sharer.tolist() == [[0, 0], [0, 0]]  # the old buffer kept its values


@mlx_only
def test_numpy_export_is_a_read_only_snapshot_never_a_view() -> None:
    carrier = Metal(3, dtype=I32)
    snapshot = np.asarray(carrier)
    assert not snapshot.flags.writeable
    carrier[0] = 4
    assert snapshot[0] == 0  # a snapshot: MLX may move the buffer, a view could dangle
    assert np.asarray(carrier)[0] == 4
    with pytest.raises(ValueError, match="never exports a view"):
        np.asarray(carrier, copy=False)
    copy = np.asarray(carrier, copy=True)
    copy[1] = 5
    assert carrier[1] == 0


# -- MLX interop --------------------------------------------------------------------------


@mlx_only
@pytest.mark.parametrize(
    ("dtype", "values"), [(F32, [1.5, -2.0]), (I32, [3, -4]), (BOOL, [True, False])]
)
def test_mlx_array_of_metal_is_an_independent_copy(dtype: DType, values: list[object]) -> None:
    import mlx.core as mx

    carrier = Metal(0, dtype=dtype).new_like(values)
    exported = mx.array(carrier)  # MLX's stubs omit __mlx_array__
    assert exported.shape == (2,)
    assert exported.dtype == carrier._mx_array.dtype
    assert exported.tolist() == values
    carrier[0] = values[1]
    assert exported.tolist() == values  # a snapshot, not shared
    carrier.release()
    # MLX prefers __dlpack__ (CONTRACT section 8) and reports a failure of it as
    # RuntimeError("std::bad_cast"), hiding our message; the direct calls keep it.
    with pytest.raises(RuntimeError, match=r"released|bad_cast"):
        mx.array(carrier)
    with pytest.raises(RuntimeError, match="released"):
        carrier.__mlx_array__()


@mlx_only
def test_new_like_from_ndarray_copies_into_fresh_storage() -> None:
    host = np.arange(5, dtype=np.float32)
    carrier = Metal(0).new_like(host)
    host[0] = 99.0
    assert carrier[0] == 0.0 and carrier.size() == 5
    other = Metal(0).new_like(CPU(0).new_like([1.0, 2.0]))
    assert list(other) == [1.0, 2.0]
    assert isinstance(carrier.allocate_like(2, dtype=BOOL), Metal)


# -- release --------------------------------------------------------------------------------


class _RecordingMLX:
    """``mlx.core`` that records the arguments of ``mx.array``."""

    def __init__(self, mx: Any) -> None:
        self._mx = mx
        self.arrays: list[object] = []

    def array(self, values: object, *args: Any, **kwargs: Any) -> Any:
        self.arrays.append(values)
        return self._mx.array(values, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._mx, name)


@mlx_only
@pytest.mark.parametrize(
    ("dtype", "values"),
    [
        (F32, np.linspace(-1, 1, 7, dtype=np.float32)),
        (I32, np.arange(-3, 4, dtype=np.int32)),
        (BOOL, np.array([True, False, True])),
    ],
    ids=["float32", "int32", "bool"],
)
def test_new_like_hands_a_ready_input_to_mlx_untouched(
    monkeypatch: pytest.MonkeyPatch, dtype: DType, values: np.ndarray[Any, Any]
) -> None:
    # Already in the storage dtype and C-contiguous: no normalization copy, no
    # conversion, no host view; MLX's own transfer is the one pass over the data.
    import mlx.core as mx

    recording = _RecordingMLX(mx)
    monkeypatch.setattr(_metal, "import_mlx", lambda: recording)
    monkeypatch.setattr(_mlx_runtime, "import_mlx", lambda: recording)
    carrier = Metal(0, dtype=dtype).new_like(values)
    monkeypatch.undo()
    assert len(recording.arrays) == 1 and recording.arrays[0] is values
    assert not carrier._viewed
    assert mlx_values(carrier) == values.tolist()


@mlx_only
@pytest.mark.parametrize(
    "values",
    [
        np.arange(6, dtype=np.float32)[::2],  # stepped
        np.arange(3, dtype=np.float32)[::-1],  # reversed
        np.arange(3, dtype=np.float32)[::-1][:1],  # one element, negative stride
        np.arange(12, dtype=np.float32).reshape(3, 4)[:, 1],  # a column
    ],
    ids=["stepped", "reversed", "one-negative", "column"],
)
def test_new_like_from_a_strided_ndarray_gets_contiguous_host_viewable_storage(
    values: np.ndarray[Any, Any],
) -> None:
    carrier = Metal(0).new_like(values)
    assert list(carrier) == values.tolist() == mlx_values(carrier)
    assert carrier._host  # the MLX array is C-contiguous: the host view exists
    carrier[0] = -1.0
    assert mlx_values(carrier)[0] == -1.0 and values[0] != -1.0


@mlx_only
def test_release_drops_the_mlx_array_and_the_view() -> None:
    carrier = Metal(0).new_like([1.0, 2.0])
    carrier.release()
    carrier.release()
    assert carrier._mx_array is None and carrier.size() == 0
    with pytest.raises(RuntimeError, match="released"):
        carrier.get_value(0)
    assert list(carrier.new_like([3.0])) == [3.0]
    assert "MLX" in carrier.device()


# -- a device without a host view: the slower MLX path ----------------------------------


@mlx_only
def test_fallback_without_host_view_is_correct(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_metal, "_host_view", lambda array, dtype: None)
    carrier = Metal(0, dtype=I32).new_like([1, 2, 3])
    carrier[0] = 7  # the first host access finds no view
    assert not carrier._host
    assert carrier.get_value(0) == 7 and carrier.version == 1
    source = Metal(0, dtype=I32).new_like([8, 9])
    carrier.scatter(whole(source), whole(carrier), Layout((2,), (-1,)), 2)
    assert list(carrier) == [7, 9, 8]
    assert mlx_values(carrier) == [7, 9, 8]
    assert list(np.asarray(carrier)) == [7, 9, 8]
    with pytest.raises(IndexError):
        carrier[3] = 1


def test_have_mlx_matches_the_import() -> None:
    try:
        import mlx.core  # noqa: F401
    except ImportError:
        assert not HAVE_MLX
    else:
        assert HAVE_MLX


@mlx_only
@pytest.mark.parametrize(
    ("source", "mapping", "offset"),
    [
        (((2,), (-1,), 8), ((2,), (0,)), 0),  # reversed source, repeated destination
        (((2, 2), (0, 0), 0), ((2, 2), (-3, -1)), 4),  # broadcast source
        (((3,), (2,), 1), ((3,), (1,)), 2),  # stepped source
    ],
)
def test_scatter_from_a_strided_cpu_source_matches_the_cpu_receiver(
    source: tuple[tuple[int, ...], tuple[int, ...], int],
    mapping: tuple[tuple[int, ...], tuple[int, ...]],
    offset: int,
) -> None:
    shape, strides, start = source
    values = CPU(0).new_like(np.arange(10, dtype=np.float32))
    src = Tensor(values, Layout(shape, strides), offset=start)
    metal, cpu = Metal(6), CPU(6)
    for receiver in (metal, cpu):
        receiver.scatter(src, Tensor(receiver, Layout((0,))), Layout(*mapping), offset)
    assert list(metal) == list(cpu) == mlx_values(metal)
