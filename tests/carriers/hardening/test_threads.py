"""Thread safety: registry lookups under registration, concurrent writes keep
an exact version and whole values, release racing reads and writes gives RuntimeError.

Every test forces frequent thread switches with ``sys.setswitchinterval(1e-6)`` so that
a read-modify-write race, if the code had one, shows up in a few thousand operations.
"""

from __future__ import annotations

import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator

import numpy as np
import pytest

from stridewave import DType, DTypeCategory, SimpleDType

from ..conftest import KINDS, Kind  # noqa: TID252  (the shared Kind table)

I32 = DType.Int32


@pytest.fixture(autouse=True)
def _fast_switching() -> Iterator[None]:
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(old)


def run_threads(n: int, target: Callable[[int], None]) -> list[BaseException]:
    """Start ``n`` threads on ``target(k)`` behind a barrier; return what they raised."""
    barrier = threading.Barrier(n)
    errors: list[BaseException] = []

    def body(k: int) -> None:
        barrier.wait()
        try:
            target(k)
        except BaseException as exc:  # noqa: BLE001  (collected, asserted by the caller)
            errors.append(exc)

    threads = [threading.Thread(target=body, args=(k,)) for k in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)
    return errors


def test_registry_lookup_during_registration_sees_whole_descriptors() -> None:
    names = [f"HR_{uuid.uuid4().hex}" for _ in range(300)]
    done = threading.Event()
    found_any = threading.Event()
    registrars = 2

    def registrar(k: int) -> None:
        for i, name in enumerate(names[k::registrars]):
            if i % 2:
                DTypeCategory(name, supertype=DType.Floating)
            else:
                SimpleDType(name, bits=8, supertype=DType.Any)

    def reader() -> None:
        # Every name is either absent (LookupError) or a complete, registered descriptor.
        while not done.is_set():
            for name in names[::7]:
                try:
                    found = DType.from_name(name)
                except LookupError:
                    continue
                assert found.name == name and found in DType.registered()
                found_any.set()
            snapshot = DType.registered()
            assert len(set(snapshot)) == len(snapshot)

    def work(k: int) -> None:
        if k < registrars:
            registrar(k)
        else:
            reader()

    def body(k: int) -> None:
        try:
            work(k)
        finally:
            if k < registrars:
                finished.append(k)
                if len(finished) == registrars:
                    done.set()

    finished: list[int] = []
    assert run_threads(registrars + 4, body) == []
    # Whether a reader caught a name mid-run depends on scheduling (found_any tells);
    # what must hold either way: every lookup saw a whole descriptor, and all resolve.
    for name in names:
        assert DType.from_name(name).name == name
    assert [DType.from_name(n).name for n in names] == names


WRITERS, WRITES = 8, 2_000


@pytest.mark.parametrize("kind", [k for k in KINDS if I32 in k.dtypes], ids=lambda k: k.name)
def test_concurrent_writes_count_exactly_and_never_tear(kind: Kind) -> None:
    # Each thread writes bit patterns 0x0101_0101 * byte: a torn write would mix bytes.
    patterns = [0x01010101 * (k + 1) for k in range(WRITERS)]
    carrier = kind.make([0] * 16, I32, True)
    valid = {0, *patterns}
    torn: list[int] = []

    def writer(k: int) -> None:
        value = patterns[k]
        for j in range(WRITES):
            if j % 2:
                carrier[j % 16] = value
            else:
                carrier.set_value(j % 16, value)
            read = carrier[(j * 7) % 16]
            if read not in valid:
                torn.append(read)

    assert run_threads(WRITERS, writer) == []
    assert torn == []
    assert carrier.version == WRITERS * WRITES
    assert set(np.asarray(carrier).tolist()) <= valid
    carrier.release()


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_release_racing_reads_and_writes_raises_runtime_error_only(kind: Kind) -> None:
    # Indices arrive as NumPy integers, so each access makes a Python call
    # (``__index__`` conversion) between its released check and the slot access: the
    # window where a thread switch lets release() run in between.
    at = [np.intp(i) for i in (5, 37, 63)]
    for round_ in range(60):
        _race_release_once(kind, at, pause=0.001 * (round_ % 3))


def _race_release_once(kind: Kind, at: list[np.intp], pause: float) -> None:
    carrier = kind.make([1.0] * 64, DType.Float32, True)
    started = threading.Barrier(4)
    unexpected: list[BaseException] = []

    def reader() -> None:
        started.wait()
        try:
            while True:
                value = carrier[at[1]]
                assert value == 1.0 or value == 2.0
                carrier.get_value(at[2])
                np.asarray(carrier)
        except RuntimeError as exc:
            assert "released" in str(exc)
        except BaseException as exc:  # noqa: BLE001  (asserted empty below)
            unexpected.append(exc)

    def writer() -> None:
        started.wait()
        try:
            while True:
                carrier[at[0]] = 2.0
                carrier.set_value(at[2], 2.0)
        except RuntimeError as exc:
            assert "released" in str(exc)
        except BaseException as exc:  # noqa: BLE001  (asserted empty below)
            unexpected.append(exc)

    threads = [threading.Thread(target=f) for f in (reader, reader, writer)]
    for thread in threads:
        thread.start()
    started.wait()
    time.sleep(pause)
    carrier.release()
    for thread in threads:
        thread.join(timeout=60)
    assert unexpected == []
    assert carrier.is_released() and carrier.size() == 0
