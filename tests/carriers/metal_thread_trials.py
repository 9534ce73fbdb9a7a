"""Thread trials for Metal carriers, run in a subprocess by ``test_metal_threads.py``.

``python metal_thread_trials.py NAME TRIALS`` runs ``TRIALS`` trials of scenario
``NAME`` with ``sys.setswitchinterval(1e-6)`` and prints ``OK NAME TRIALS`` when no
trial broke a rule, else one line per problem (and exits 1). A subprocess, because on
MLX 0.32.4 the failure this guards against can be a segmentation fault: an MLX graph
left unevaluated in a carrier, which another thread then schedules too.

Each trial checks its carrier against a plain-Python model: the values every slot
must hold, what a concurrent reader may see (an old or a new state, never a mix),
and the version (one step per acknowledged write).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from stridewave import CPU, DType, Evictable, Layout, Metal, Tensor

I32 = DType.Int32
#: slots per carrier, and the stepped run the writers scatter into (every 4th slot)
SLOTS = 64
STEP = 4
RUN = SLOTS // STEP
#: writes per writer thread in one trial
WRITES = 12


def race(*actors: Callable[[], object]) -> list[str]:
    """Run the actors at once (behind a barrier); return what they raised, in words."""
    barrier = threading.Barrier(len(actors))
    errors: list[str] = []

    def body(actor: Callable[[], object]) -> None:
        barrier.wait()
        try:
            actor()
        except BaseException as exc:  # noqa: BLE001  (reported by the trial)
            errors.append(f"{type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=body, args=(actor,)) for actor in actors]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    if any(thread.is_alive() for thread in threads):
        errors.append("a thread hung (deadlock?)")
    return errors


def initial() -> list[int]:
    """The model's starting values: slot ``i`` holds ``1000 + i``."""
    return [1000 + i for i in range(SLOTS)]


def write_run(carrier: Metal | Evictable, first: int, value: int) -> None:
    """Scatter ``value`` into slots ``first, first + STEP, ...`` (one stepped MLX update)."""
    source = CPU(0, dtype=I32).new_like(np.full(RUN, value, dtype=np.int32))
    carrier.scatter(
        Tensor(source, Layout((RUN,))),
        Tensor(carrier, Layout((carrier.size(),))),
        Layout((RUN,), (STEP,)),
        first,
    )


def check_state(seen: list[int], runs: tuple[int, ...], where: str) -> list[str]:
    """Check one observed state: each run holds one value, every other slot its start.

    A concurrent reader sees each scatter wholly or not at all: all slots of a run
    hold the same value (the initial values count as value 0 of each run here only
    when they were never overwritten, so a run is either untouched or uniform).
    """
    start = initial()
    problems: list[str] = []
    touched = {first + STEP * i for first in runs for i in range(RUN)}
    for slot in range(SLOTS):
        if slot not in touched and seen[slot] != start[slot]:
            problems.append(f"{where}: untouched slot {slot} holds {seen[slot]}, not {start[slot]}")
    for first in runs:
        values = {seen[first + STEP * i] for i in range(RUN)}
        untouched = [start[first + STEP * i] for i in range(RUN)]
        if len(values) != 1 and [seen[first + STEP * i] for i in range(RUN)] != untouched:
            problems.append(f"{where}: run at {first} is torn: {sorted(values)[:4]}")
    return problems


def fresh_metal() -> Metal:
    """A viewed Metal carrier holding the model's initial values."""
    carrier = Metal(0, dtype=I32).new_like(np.array(initial(), dtype=np.int32))
    carrier.get_value(0)  # take the host view: scatters then update a viewed buffer
    return carrier


def writers_and_reader(
    carrier: Metal | Evictable,
    runs: tuple[int, ...],
    read: Callable[[], list[int]],
    *others: Callable[[], object],
) -> list[str]:
    """One writer thread per run (values 1..WRITES), one reader thread checking states."""
    problems: list[str] = []
    done = threading.Event()

    def writer(first: int) -> None:
        for value in range(1, WRITES + 1):
            write_run(carrier, first, value)

    def writers() -> None:
        try:
            problems.extend(race(*(lambda first=first: writer(first) for first in runs)))
        finally:
            done.set()

    def reader() -> None:
        while not done.is_set():
            problems.extend(check_state(read(), runs, "concurrent read"))

    version = carrier.version
    problems.extend(race(writers, reader, *others))
    final = [int(v) for v in np.asarray(carrier).tolist()]
    expected = initial()
    for first in runs:
        for i in range(RUN):
            expected[first + STEP * i] = WRITES
    if final != expected:
        problems.append(f"final values {final} != model {expected}")
    if carrier.version != version + WRITES * len(runs):
        problems.append(
            f"version stepped {carrier.version - version} times, model {WRITES * len(runs)}"
        )
    return problems


def mlx_snapshot(carrier: Metal) -> Callable[[], list[int]]:
    """A reader through MLX: ``mlx.core.array(carrier)`` (the carrier's own export)."""
    import mlx.core as mx

    def read() -> list[int]:
        snapshot = mx.array(carrier)  # evaluated by the export, on this thread
        values: list[int] = np.asarray(snapshot).tolist()
        return values

    return read


def trial_mlx_reader() -> list[str]:
    """One writer scatters stepped runs; a reader exports MLX snapshots meanwhile."""
    carrier = fresh_metal()
    return writers_and_reader(carrier, (1,), mlx_snapshot(carrier))


def trial_two_writers() -> list[str]:
    """Two writers scatter disjoint stepped runs into one carrier; an MLX reader."""
    carrier = fresh_metal()
    return writers_and_reader(carrier, (0, 2), mlx_snapshot(carrier))


def trial_array_api_reader() -> list[str]:
    """A writer scatters into the storage of an Array another thread computes with."""
    import stridewave.array_api as xp

    array = xp.asarray(np.array(initial(), dtype=np.int32), device=xp.Device("Metal"))
    carrier = array.carrier
    assert isinstance(carrier, Metal)
    carrier.get_value(0)

    def read() -> list[int]:
        result = array + 0  # an MLX graph over the carrier's storage, run on this thread
        values: list[int] = np.asarray(result).tolist()
        return values

    return writers_and_reader(carrier, (3,), read)


def trial_cross_thread() -> list[str]:
    """Storage made on one thread, written and read on others; the threads then end."""
    import stridewave.array_api as xp

    made: dict[str, object] = {}

    def make() -> None:
        made["carrier"] = Metal(0, dtype=I32).new_like(np.array(initial(), dtype=np.int32))
        # an Array API result: scheduled on this thread, evaluated by its first reader
        made["array"] = xp.asarray(np.arange(SLOTS, dtype=np.int32), device=xp.Device("Metal")) * 3

    problems = race(make)
    carrier = made["carrier"]
    assert isinstance(carrier, Metal)
    problems += race(lambda: write_run(carrier, 1, 7))
    problems += check_state(mlx_snapshot(carrier)(), (1,), "after the threads ended")
    result = made["array"]
    assert isinstance(result, xp.Array)
    stored = result.carrier
    assert isinstance(stored, Metal)
    seen: list[list[int]] = []
    problems += race(lambda: seen.append(np.asarray(stored).tolist()))
    if seen and seen[0] != [3 * i for i in range(SLOTS)]:
        problems.append(f"a result made on another thread reads {seen[0][:4]}...")
    problems += race(lambda: write_run(stored, 0, -1))
    expected = [-1 if i % STEP == 0 else 3 * i for i in range(SLOTS)]
    if np.asarray(stored).tolist() != expected:
        problems.append("a scatter into another thread's result was lost")
    return problems


def trial_evictable() -> list[str]:
    """Scatters and MLX reads through an Evictable over Metal while it is evicted/promoted."""
    wrapper = Evictable(fresh_metal(), CPU(0, dtype=I32))
    stop = threading.Event()

    def mover() -> None:
        while not stop.is_set():
            wrapper.evict()
            wrapper.promote()

    def read() -> list[int]:
        values: list[int] = np.asarray(wrapper).tolist()
        return values

    def body() -> list[str]:
        try:
            return writers_and_reader(wrapper, (1, 2), read)
        finally:
            stop.set()

    out: list[list[str]] = []
    problems = race(lambda: out.append(body()), mover)
    return problems + (out[0] if out else ["the trial did not finish"])


def _pipeline_stages() -> list[Callable[[Any], Any]]:
    """Array API steps, each building a lazy result from the previous one (any thread)."""
    import stridewave.array_api as xp

    return [
        lambda a: xp.cos(a) * 1.5 + 2,
        lambda a: xp.reshape(xp.exp(a), (8, 8)).T,
        lambda a: a @ xp.ones((8, 8), dtype=xp.float32, device=a.device) + a[2:3, :],
        lambda a: xp.sum(xp.sin(a), axis=0) + xp.max(a),
    ]


def _pipeline_input() -> Any:
    import stridewave.array_api as xp

    carrier = Metal(SLOTS)
    carrier.scatter(
        Tensor(CPU(0).new_like(np.linspace(-1, 1, SLOTS, dtype=np.float32)), Layout((SLOTS,))),
        Tensor(carrier, Layout((0,))),
        Layout((SLOTS,)),
    )
    return xp.asarray(Tensor(carrier, Layout((SLOTS,))))


_REFERENCE: list[list[float]] = []


def trial_same_values_any_thread() -> list[str]:
    """Each step of a lazy pipeline on its own thread (some ended before the next reads).

    Every stage builds on the previous stage's result, built and scheduled by another
    thread, which has ended for half of them; the last is read on yet another thread,
    while two writers scatter into disjoint slots of a second carrier whose untouched
    slots must stay as they were. The values must be the ones one thread computes.
    """
    stages = _pipeline_stages()
    if not _REFERENCE:
        value = _pipeline_input()
        for stage in stages:
            value = stage(value)
        _REFERENCE.append(np.asarray(value).tolist())
    expected = _REFERENCE[0]
    problems: list[str] = []
    handoff: list[Any] = [_pipeline_input()]

    def step(stage: Callable[[Any], Any], keep_alive: threading.Event | None) -> None:
        handoff.append(stage(handoff[-1]))
        if keep_alive is not None:
            keep_alive.wait(5)  # this builder is still alive while the next one builds

    def pipeline() -> None:
        gates = []
        for index, stage in enumerate(stages):
            gate = threading.Event() if index % 2 else None
            thread = threading.Thread(target=step, args=(stage, gate))
            thread.start()
            if gate is None:
                thread.join()  # ended before the next stage reads its result
            else:
                while len(handoff) < index + 2 and thread.is_alive():
                    thread.join(0.001)
                gates.append((gate, thread))
        seen: list[list[float]] = []
        reader = threading.Thread(target=lambda: seen.append(np.asarray(handoff[-1]).tolist()))
        reader.start()
        reader.join(60)
        for gate, thread in gates:
            gate.set()
            thread.join(60)
        if seen != [expected]:
            problems.append(f"same_values_any_thread: {seen[:1]} != one thread's {expected}")

    target = fresh_metal()
    problems += race(pipeline, lambda: write_run(target, 1, 7), lambda: write_run(target, 2, 9))
    values = np.asarray(target).tolist()
    for slot, value in enumerate(values):
        wanted = {1: 7, 2: 9}.get(slot % STEP, 1000 + slot)
        if value != wanted:
            problems.append(f"same_values_any_thread: slot {slot} holds {value}, not {wanted}")
    return problems


TRIALS: dict[str, Callable[[], list[str]]] = {
    "same_values_any_thread": trial_same_values_any_thread,
    "mlx_reader": trial_mlx_reader,
    "two_writers": trial_two_writers,
    "array_api_reader": trial_array_api_reader,
    "cross_thread": trial_cross_thread,
    "evictable": trial_evictable,
}


def main(name: str, trials: int) -> int:
    """Run ``trials`` trials of scenario ``name``; print the verdict; return the exit code."""
    sys.setswitchinterval(1e-6)
    problems: list[str] = []
    for _ in range(trials):
        problems.extend(TRIALS[name]())
    for problem in dict.fromkeys(problems):  # first occurrences, in order
        print(problem[:300])
    if problems:
        print(f"FAILED {name}: {len(problems)} problems in {trials} trials")
        return 1
    print(f"OK {name} {trials}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2])))
