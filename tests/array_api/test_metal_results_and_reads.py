"""Metal results: their dtypes, their buffers, and the device reads they record.

Sums of bool give the default integer dtype; a result never shares its operand's
buffer; strided reads of results give their values; a device read recorded on a
carrier is kept until it is waited for, and forgotten when its thread ends; a
released carrier records none (it would hold a later result's buffer). The
thread scenarios run in a subprocess with a private ``TMPDIR`` and MLX's CPU device
(``STRIDEWAVE_METAL_DEVICE=cpu``); their interleavings are forced with Events.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import stridewave.array_api as xp
from stridewave.carriers import Metal
from tests.metal_scripts import host as _host
from tests.metal_scripts import last_line as _last_line
from tests.metal_scripts import requires_mlx

pytestmark = requires_mlx

METAL = xp.Device("Metal")
CPU = xp.Device("CPU")


# -- sum/prod of bool with MLX's own accumulator: no axis reduced keeps bool -------------


_BOOL_SUMS: list[tuple[str, Any]] = [
    ("sum(0-d bool)", lambda b: xp.sum(xp.reshape(b[:1], ()))),
    ("prod(0-d bool)", lambda b: xp.prod(xp.reshape(b[:1], ()))),
    ("sum(bool, axis=())", lambda b: xp.sum(b, axis=())),
    ("prod(bool, axis=())", lambda b: xp.prod(b, axis=())),
]


@pytest.mark.parametrize("call", [c[1] for c in _BOOL_SUMS], ids=[c[0] for c in _BOOL_SUMS])
def test_sum_and_prod_of_bool_give_the_default_integer_dtype_on_metal(call: Any) -> None:
    # The standard: sum/prod of a bool array without dtype= give the default integer
    # dtype. MLX reduces no axis of a 0-d array (or with axis=()), so without an
    # accumulator dtype its result would stay bool. Each device answers its own default
    # integer: int64 on both (Metal's integer default is int64, as the host's).
    values = np.array([True, False, True])
    on_cpu = call(xp.asarray(values, device=CPU))
    on_metal = call(xp.asarray(values, device=METAL))
    assert on_cpu.dtype == xp.int64
    assert on_metal.dtype == xp.int64, on_metal.dtype
    np.testing.assert_array_equal(_host(on_metal), _host(on_cpu))


def test_sum_and_prod_honour_dtype_bool_on_metal() -> None:
    # ``sum(x, dtype=xp.bool)`` returns a bool array on the CPU device (NumPy's sum in
    # bool); Metal must not drop the requested dtype (MLX sums bool in int32).
    values = np.array([1.5, 0.0, 3.0], dtype=np.float32)
    for func in (xp.sum, xp.prod):
        on_cpu = func(xp.asarray(values, device=CPU), dtype=xp.bool)
        on_metal = func(xp.asarray(values, device=METAL), dtype=xp.bool)
        assert on_cpu.dtype == xp.bool
        assert on_metal.dtype == xp.bool, (func.__name__, on_metal.dtype)
        np.testing.assert_array_equal(_host(on_metal), _host(on_cpu))


# -- results adopted straight from MLX share their operand's buffer -------------------------


def _whole(x: xp.Array) -> xp.Array:
    return x


def _zero_d(x: xp.Array) -> xp.Array:
    return xp.reshape(x[:1], ())  # a 0-d array with a carrier of its own


def _one_element(x: xp.Array) -> xp.Array:
    return x[2:3]  # a 1-element view of x


_SHARING: list[tuple[str, Any, Any, Any]] = [
    ("sum(x, axis=())", np.float32, _whole, lambda x: xp.sum(x, axis=())),
    ("max(x, axis=())", np.float32, _whole, lambda x: xp.max(x, axis=())),
    ("min(x, axis=())", np.int32, _whole, lambda x: xp.min(x, axis=())),
    ("sum(bool, axis=())", np.bool_, _whole, lambda x: xp.sum(x, axis=())),
    ("abs(bool)", np.bool_, _whole, lambda x: xp.abs(x)),
    ("abs(uint8)", np.uint8, _whole, lambda x: xp.abs(x)),
    ("abs(uint16)", np.uint16, _whole, lambda x: xp.abs(x)),
    ("abs(uint32)", np.uint32, _whole, lambda x: xp.abs(x)),
    ("abs(uint64)", np.uint64, _whole, lambda x: xp.abs(x)),
    ("diff(x, n=0)", np.float32, _whole, lambda x: xp.diff(x, n=0)),
    ("sign(bool)", np.bool_, _whole, lambda x: xp.sign(x)),
    ("sum(0-d)", np.float32, _zero_d, lambda x: xp.sum(x)),
    ("max(0-d)", np.float32, _zero_d, lambda x: xp.max(x)),
    ("prod(0-d)", np.float32, _zero_d, lambda x: xp.prod(x)),
    ("sum(x[2:3])", np.float32, _one_element, lambda x: xp.sum(x)),
    ("prod(x[2:3])", np.int32, _one_element, lambda x: xp.prod(x)),
    ("max(x[2:3])", np.float32, _one_element, lambda x: xp.max(x)),
    ("min(x[2:3])", np.bool_, _one_element, lambda x: xp.min(x)),
    ("all(x[2:3])", np.bool_, _one_element, lambda x: xp.all(x)),
    ("any(x[2:3])", np.bool_, _one_element, lambda x: xp.any(x)),
    ("max(x[2:3], axis=0)", np.int32, _one_element, lambda x: xp.max(x, axis=0)),
    ("sum(x[2:3], keepdims=True)", np.float32, _one_element, lambda x: xp.sum(x, keepdims=True)),
]


@pytest.mark.parametrize(
    ("dtype", "operand_of", "call"), [c[1:] for c in _SHARING], ids=[c[0] for c in _SHARING]
)
def test_a_metal_result_never_shares_its_operand_buffer(
    dtype: Any, operand_of: Any, call: Any
) -> None:
    # A Metal carrier owns its buffer and writes scalars into it in place, so a result
    # must never adopt an MLX array that is its operand's storage (the rule behind
    # _SHARES_INPUT). MLX returns its input itself where nothing is computed (a
    # reduction over no axis, of a 0-d array, of one element with keepdims (the direct
    # reduction of a 1-D operand whole), abs/sign of bool), and the Metal path adopts
    # that array, or a slice view of the operand's buffer, as the result's storage: a
    # scalar write into the result changes the operand, whose version does not move.
    x = xp.asarray(np.array([1, 0, 1, 1]).astype(dtype), device=METAL)
    operand = operand_of(x)
    y = call(operand)
    assert y.carrier is not operand.carrier  # (not a view by design)
    before = x.carrier.get_value(2), operand.carrier.get_value(0)
    y.carrier.set_value(0, type(y.carrier.get_value(0))(0))
    after = x.carrier.get_value(2), operand.carrier.get_value(0)
    assert after == before, "a write into the result changed its operand"


@pytest.mark.parametrize(
    ("dtype", "operand_of", "call"), [c[1:] for c in _SHARING], ids=[c[0] for c in _SHARING]
)
def test_a_write_into_the_operand_after_a_metal_result_leaves_the_result(
    dtype: Any, operand_of: Any, call: Any
) -> None:
    # The other face of the sharing above: ``y = xp.max(x[2:3]); x.carrier.set_value(2,
    # v)`` changes y, a write ordered after the operation (docs/threads-and-processes.md,
    # "A host write waits for the device reads scheduled before it").
    x = xp.asarray(np.array([1, 0, 1, 1]).astype(dtype), device=METAL)
    operand = operand_of(x)
    y = call(operand)
    expected = _host(y)
    carrier = operand.carrier
    slot = 2 if operand_of is _one_element else 0
    carrier.set_value(slot, type(carrier.get_value(slot))(0))
    np.testing.assert_array_equal(_host(y), expected)


#: A strided 1-D read of a carrier whose MLX storage is itself a strided view (what the
#: sharing above adopts): read through ``mx.as_strided``, MLX would refuse the launch
#: ("AsStrided must be used with row contiguous arrays only"); a slice gives the
#: values. (name, the call on (bool b, float32 f)).
_STRIDED_OF_STRIDED: list[tuple[str, Any]] = [
    ("abs(b[::2])[::2]", lambda b, f: xp.logical_and(xp.abs(b[::2])[::2], True)),
    ("abs(b[::-1])[::2]", lambda b, f: xp.logical_not(xp.abs(b[::-1])[::2])),
    ("sum(f[::3], axis=())[::2] * 1", lambda b, f: xp.sum(f[::3], axis=())[::2] * 1),
    ("max(f[::-2], axis=())[::2] + 0", lambda b, f: xp.max(f[::-2], axis=())[::2] + 0),
]


@pytest.mark.parametrize(
    "call", [c[1] for c in _STRIDED_OF_STRIDED], ids=[c[0] for c in _STRIDED_OF_STRIDED]
)
def test_a_strided_read_of_a_metal_result_gives_its_values(call: Any) -> None:
    b = np.array([0, 1, 1, 0, 1, 1, 0, 0, 1, 0, 1, 1], dtype=bool)
    f = np.arange(12, dtype=np.float32)
    expected = _host(call(xp.asarray(b, device=CPU), xp.asarray(f, device=CPU)))
    got = _host(call(xp.asarray(b, device=METAL), xp.asarray(f, device=METAL)))
    np.testing.assert_array_equal(got, expected)


# -- a host access forgets a read recorded while it was forgetting the ones it waited for ---


#: The main thread takes x's host view after waiting for the worker's first operation;
#: it is held between its check ``pending.get(thread) is scheduled`` and the
#: ``pending.pop(thread)`` that follows (a dict whose ``pop`` waits on an Event: the
#: thread switch a 1 µs switch interval allows there) while the worker, on the same
#: thread id, launches a second operation reading x and records it. The pop then
#: removes the *second* record, which nobody waited for; the view is set, the re-check
#: finds no record, and a write ordered after the second operation (the Event
#: ``recorded``) goes through the view into the buffer it still reads. (The waits are
#: bounded, so a fix that never calls ``pop`` there, or holds a lock around it, passes.)
LOST_RECORD = """
import sys, threading
import numpy as np
import stridewave.array_api as xp
from stridewave.carriers import Metal
sys.setswitchinterval(1e-6)
METAL = xp.Device("Metal")
n = 2_000_000
big = xp.asarray(np.ones((1500, 1500), dtype=np.float32), device=METAL)
stale = 0
for _ in range(int(sys.argv[1])):
    x = xp.asarray(np.ones(n, dtype=np.float32), device=METAL)
    x.carrier.get_value(0)  # the host view exists
    ready, inside, recorded = threading.Event(), threading.Event(), threading.Event()
    class Held(dict):
        def pop(self, *args):
            if threading.current_thread() is threading.main_thread() and not inside.is_set():
                inside.set()
                recorded.wait(2)  # (bounded: a fix may hold a lock here)
            return super().pop(*args)
    x.carrier._pending = Held(x.carrier._pending)
    box = {}
    def compute():
        xp.multiply(x, 1.0)  # recorded on x for this thread (drops the view)
        ready.set()
        inside.wait(2)  # the main thread waited for it and is about to forget it
        xp.matmul(big, big)  # keeps this thread's stream busy
        box["y"] = xp.multiply(x, 2.0)  # recorded on x for this thread again
        recorded.set()
    worker = threading.Thread(target=compute)
    worker.start()
    ready.wait()
    x.carrier.get_value(0)  # a read: takes the view, waiting for the first operation
    recorded.wait(60)  # the second operation returned (a happens-before edge)
    x.carrier.set_value(n - 1, 1000.0)
    worker.join()
    stale += box["y"].carrier.get_value(n - 1) != 2.0
print("stale", stale)
"""


@pytest.mark.parametrize("speedups", [True, False], ids=["c-accelerator", "pure-python"])
def test_a_read_recorded_while_a_host_access_forgets_the_waited_ones_is_kept(
    speedups: bool, tmp_path: Path
) -> None:
    # Metal._take_view: ``if pending.get(thread) is scheduled: pending.pop(thread)``
    # is a check then an act; a record made between them by the same thread's next
    # operation is popped unwaited. (A fix: pop only what was waited for, atomically,
    # e.g. under the carrier's lock with _note_device_read, or compare-and-delete.)
    assert _last_line(LOST_RECORD, "2", tmp_path=tmp_path, speedups=speedups) == "stale 0"


# -- a host export's read note is recorded by the thread's next, unrelated launch ---------


#: ``x.to_device(CPU)`` (or ``numpy.asarray(x)``) reads x through ``MLXBackend.read``,
#: which notes x in the thread's list (``_note_read``); the export launches nothing, so
#: the note stays, and the thread's next general-path launch (here ``concat([a, a])``,
#: which never reads x) records its result on x. x then keeps that result's MLX array
#: alive (200 MB here) after the result is deleted and its real operand ``a`` has
#: forgotten it, until x's next host access, and x's next host write waits for an
#: operation that never read it.
STALE_NOTE = """
import gc, sys
import numpy as np
import mlx.core as mx
import stridewave.array_api as xp
from stridewave.carriers import Metal
METAL, CPU = xp.Device("Metal"), xp.Device("CPU")
x = xp.asarray(np.ones(10, dtype=np.float32), device=METAL)
a = xp.asarray(np.ones(25_000_000, dtype=np.float32), device=METAL)  # 100 MB
def active():
    mx.synchronize()
    gc.collect()
    return mx.get_active_memory()
if sys.argv[1] == "to_device":
    x.to_device(CPU)
else:
    np.asarray(x)
before = active()
y = xp.concat([a, a])  # 200 MB, the general path; does not read x
del y
a.carrier.get_value(0)  # a forgets the operation that read it (it waits for it)
print("retained_mb", round((active() - before) / 1e6))
"""


@pytest.mark.parametrize("export", ["to_device", "asarray"])
def test_an_export_does_not_make_a_later_operation_record_on_its_carrier(
    export: str, tmp_path: Path
) -> None:
    assert _last_line(STALE_NOTE, export, tmp_path=tmp_path) == "retained_mb 0"


# -- records of threads that have exited keep their results alive --------------------------


#: 100 short-lived threads (20 at a time) each compute ``w * 2.0`` (10 MB) and drop it.
#: Each thread's record on ``w`` (``Metal._pending``, keyed by thread id) holds its
#: result's MLX array until w's next host access, which weights never get: after every
#: thread has exited and all work is done, w still holds one 10 MB result per distinct
#: thread id (hundreds of MB). A record whose array has been
#: computed (or whose thread is gone) protects no write and need not be kept.
THREAD_RECORDS = """
import gc, threading
import numpy as np
import mlx.core as mx
import stridewave.array_api as xp
from stridewave.carriers import Metal
METAL = xp.Device("Metal")
def active():
    mx.synchronize()
    gc.collect()
    return mx.get_active_memory()
w = xp.asarray(np.ones(2_500_000, dtype=np.float32), device=METAL)  # 10 MB
before = active()
for _ in range(5):
    barrier = threading.Barrier(20)
    def request():
        y = w * 2.0  # 10 MB, dropped at once
        barrier.wait()
        del y
    threads = [threading.Thread(target=request) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
print("retained_mb", round((active() - before) / 1e6))
"""


def test_a_released_carrier_keeps_no_read_of_a_later_operation() -> None:
    # A call refused on a released carrier leaves its read noted until the next
    # launch; that launch must not be recorded on the released carrier, where it
    # would hold the next result's buffer for as long as the carrier lives.
    x = xp.asarray(np.arange(1000, dtype=np.float32), device=METAL)
    carrier = x._carrier
    assert isinstance(carrier, Metal)
    carrier.release()
    with pytest.raises(RuntimeError, match="released"):
        x * 2
    y = xp.asarray(np.arange(1000, dtype=np.float32), device=METAL)
    np.testing.assert_array_equal(_host(xp.sum(y) * 1), np.arange(1000).sum())
    assert carrier._pending == {}


def test_exited_threads_do_not_keep_their_results_alive(tmp_path: Path) -> None:
    line = _last_line(THREAD_RECORDS, tmp_path=tmp_path)
    retained = int(line.split()[-1])
    assert retained <= 10, f"{retained} MB of dropped results kept alive by w's read records"


# -- fresh results: read without a carrier, recorded where the carrier finds the read -----


def test_a_fresh_result_read_before_its_carrier_is_made_has_the_read_recorded_on_it() -> None:
    w = xp.asarray(np.ones(1000, dtype=np.float32), device=METAL) * 1
    token = w._native
    y = w * 2  # read through the token: no carrier is made
    assert w._native is token and token[6][0] is y._native[1]
    carrier = w.carrier  # made now; its first host access records that read
    assert carrier._unrecorded_reads is token[6] and not carrier._pending
    carrier.get_value(0)
    assert carrier._unrecorded_reads is None and not carrier._pending  # (waited, forgotten)
    np.testing.assert_array_equal(_host(y), np.full(1000, 2.0, dtype=np.float32))


def test_a_read_whose_token_lost_the_race_to_the_carrier_is_recorded_on_the_carrier() -> None:
    # The direct call keeps the read in the token, then looks at the Array: a carrier
    # made meanwhile (by another thread) gets the read recorded as any carrier does.
    from stridewave.array_api._mlx_namespace import fresh

    w = xp.asarray(np.ones(1000, dtype=np.float32), device=METAL) * 1
    token = w._native
    y = xp.asarray(np.ones(1000, dtype=np.float32), device=METAL) * 3  # any launch
    carrier = w.carrier  # the carrier, made between the read and its record
    fresh(w, token, (None, y._layout, 0, y._native))
    assert list(carrier._pending.values()) == [y._native[1]]


_ZERO_D_USES: list[tuple[str, Any]] = [
    ("1.0 / s", lambda s: 1.0 / s),
    ("s * 2", lambda s: s * 2),
    ("s + s", lambda s: s + s),
    ("-s", lambda s: -s),
    ("exp(s)", lambda s: xp.exp(s)),
    ("sum(s)", lambda s: xp.sum(s)),
]


@pytest.mark.parametrize("use", [c[1] for c in _ZERO_D_USES], ids=[c[0] for c in _ZERO_D_USES])
@pytest.mark.parametrize("reduce", [xp.sum, xp.mean, xp.max], ids=lambda f: f"{f.__name__}(x)")
def test_a_fresh_0d_result_stays_0d_in_the_operations_that_read_it(use: Any, reduce: Any) -> None:
    # A whole-array reduction is computed in MLX's (1,)-shaped keepdims form; the
    # operations reading the fresh 0-d result must see shape () (scikit-learn's PCA:
    # 1.0 / noise_variance_ added to a diagonal).
    values = np.array([1.0, 2.0, 4.0], dtype=np.float32)
    got = use(reduce(xp.asarray(values, device=METAL)))
    want = use(reduce(xp.asarray(values, device=CPU)))
    assert got.shape == want.shape == ()
    np.testing.assert_allclose(_host(got), _host(want), rtol=1e-6)


#: Without the GIL the token path's ordering argument does not hold: every direct call
#: reads a fresh operand through its carrier (made first), as other threads do.
NO_GIL_TOKENS = """
import sys
import numpy as np
sys._is_gil_enabled = lambda: False  # (as a free-threaded interpreter answers)
import stridewave.array_api as xp
from stridewave.carriers import Metal
y = xp.asarray(np.ones(8, dtype=np.float32), device=xp.Device("Metal")) * 1
token = y._native
z = y * 2
print("carrier made", y._native is not token, float(xp.sum(z)))
"""


def test_without_the_gil_a_fresh_result_is_read_through_its_carrier(tmp_path: Path) -> None:
    assert _last_line(NO_GIL_TOKENS, tmp_path=tmp_path) == "carrier made True 16.0"
