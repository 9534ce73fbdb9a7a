"""Atomic, thread-safe registration (spec: "Every dtype has one registered descriptor
identity"; CONTRACT section 2, "Finalization is owned by the model")."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest

from stridewave import DType, DTypeCategory, ScaledDType, SimpleDType

THREADS = 32


def race(build: Callable[[int], DType]) -> tuple[list[DType], list[BaseException]]:
    barrier = threading.Barrier(THREADS)
    successes: list[DType] = []
    failures: list[BaseException] = []
    lock = threading.Lock()

    def worker(i: int) -> None:
        barrier.wait()
        try:
            result = build(i)
        except (ValueError, TypeError) as exc:  # anything else fails the count below
            with lock:
                failures.append(exc)
        else:
            with lock:
                successes.append(result)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads)
    return successes, failures


@pytest.mark.parametrize("round_", range(10))
def test_many_threads_registering_one_name_exactly_one_wins(make_name, round_: int) -> None:  # type: ignore[no-untyped-def]
    name = make_name()
    before = DType.registered()

    def build(i: int) -> DType:
        if i % 3 == 0:
            return DTypeCategory(name, supertype=DType.Any)
        if i % 3 == 1:
            return SimpleDType(name, bits=8 + i, supertype=DType.Floating)
        return ScaledDType(name, element=DType.E4M3, scale=DType.E8M0, block=i + 1)

    successes, failures = race(build)
    assert len(successes) == 1, successes
    assert len(failures) == THREADS - 1
    assert all(type(exc) is ValueError for exc in failures), failures
    winner = successes[0]
    assert DType.from_name(name) is winner
    assert DType.registered() == (*before, winner)
    assert [d for d in DType.registered() if d.name == name] == [winner]


def test_many_threads_registering_distinct_names_all_succeed(make_name) -> None:  # type: ignore[no-untyped-def]
    names = [make_name() for _ in range(THREADS)]
    before = DType.registered()
    successes, failures = race(lambda i: SimpleDType(names[i], bits=8, supertype=DType.Any))
    assert failures == []
    assert len(successes) == THREADS
    after = DType.registered()
    assert after[: len(before)] == before
    assert set(after[len(before) :]) == set(successes)
    for name in names:
        assert DType.from_name(name).name == name
