"""Stateful hypothesis test: Evictable against a plain-Python model (list + version).

Rules interleave writes, scatter, evict, promote, new_like and release, with
injected faults: a flag that makes the next provision of the secondary raise
``OSError(ENOSPC)`` (a failed eviction) and a primary factory that raises
``MemoryError`` (a failed promotion). After every step the values (read around the
API, from the tier where they live), the version and the residency agree with the
model: no value is ever lost.
"""

from __future__ import annotations

import errno
from typing import Any
from unittest import mock

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from stridewave import CPU, Carrier, DType, Evictable, FileBacked, Generic, Layout, Tensor

from .conftest import _raw_evictable

F32 = DType.Float32
VALUES = st.floats(width=32, allow_nan=False)


def _tiers(kind: str, values: list[float]) -> tuple[Carrier, Carrier]:
    if kind == "CPU/FileBacked":
        return CPU(0, dtype=F32).new_like(values), FileBacked(dtype=F32)
    return Generic(values, dtype=F32), CPU(0, dtype=F32)


def machine_for(kind: str) -> type[RuleBasedStateMachine]:
    class EvictableMachine(RuleBasedStateMachine):
        e: Evictable
        model: list[float]
        version: int
        evicted: bool
        released: bool
        fail_next_provision: bool

        def _adopt(self, e: Evictable, model: list[float]) -> None:
            self.e, self.model, self.version = e, model, 0
            self.evicted = self.released = False
            self.fail_next_provision = False
            secondary = e.secondary
            original = type(secondary)._raw_load

            def flaky_load(values: Any) -> None:
                if self.fail_next_provision and values.shape[0]:
                    self.fail_next_provision = False
                    raise OSError(errno.ENOSPC, "No space left on device (injected)")
                original(secondary, values)

            secondary._raw_load = flaky_load  # type: ignore[method-assign]

        @initialize(initial=st.lists(VALUES, max_size=6))
        def start(self, initial: list[float]) -> None:
            self._adopt(Evictable(*_tiers(kind, initial)), list(initial))

        # -- values ----------------------------------------------------------------

        @precondition(lambda self: not self.released and self.model)
        @rule(data=st.data(), value=VALUES)
        def write(self, data: st.DataObject, value: float) -> None:
            i = data.draw(st.integers(0, len(self.model) - 1))
            self.e[i] = value
            self.model[i] = value
            self.version += 1
            self.evicted = False  # a write on an evicted wrapper promotes first

        @precondition(lambda self: not self.released and self.model)
        @rule(data=st.data())
        def read(self, data: st.DataObject) -> None:
            i = data.draw(st.integers(0, len(self.model) - 1))
            assert self.e[i] == self.model[i]
            self.evicted = False

        @precondition(lambda self: not self.released and self.model)
        @rule(data=st.data(), reverse=st.booleans())
        def scatter(self, data: st.DataObject, reverse: bool) -> None:
            n = len(self.model)
            count = data.draw(st.integers(1, n))
            source_values = data.draw(st.lists(VALUES, min_size=count, max_size=count))
            source = CPU(0, dtype=F32).new_like(source_values)
            mapping = Layout((count,), (-1,)) if reverse else Layout((count,))
            offset = count - 1 if reverse else 0
            self.e.scatter(
                Tensor(source, Layout((count,))), Tensor(self.e, Layout((n,))), mapping, offset
            )
            for i, v in enumerate(source_values):
                self.model[offset - i if reverse else i] = v
            self.version += 1
            self.evicted = False

        @precondition(lambda self: not self.released)
        @rule()
        def failing_write(self) -> None:
            with pytest.raises(IndexError):
                self.e[len(self.model)] = 1.0

        # -- residency -------------------------------------------------------------

        @precondition(lambda self: not self.released)
        @rule()
        def evict(self) -> None:
            if self.fail_next_provision and not self.evicted and self.model:
                with pytest.raises(OSError, match="injected"):
                    self.e.evict()
                return  # stays promoted, values and version intact
            self.e.evict()
            self.evicted = True

        @precondition(lambda self: not self.released)
        @rule()
        def promote(self) -> None:
            self.e.promote()
            self.evicted = False

        @precondition(lambda self: not self.released and self.evicted)
        @rule()
        def failing_promote(self) -> None:
            primary_kind = type(self.e.primary)
            with (
                mock.patch.object(primary_kind, "_raw_new_like", side_effect=MemoryError),
                pytest.raises(MemoryError),
            ):
                self.e.promote()

        @precondition(lambda self: not self.released)
        @rule()
        def disk_fills_up(self) -> None:
            self.fail_next_provision = True

        # -- factories and release -------------------------------------------------

        @rule(values=st.lists(VALUES, max_size=6), release_old=st.booleans())
        def new_like(self, values: list[float], release_old: bool) -> None:
            fresh = self.e.new_like(np.array(values, dtype=np.float32))
            assert not fresh.is_evicted() and fresh.secondary.size() == 0
            if release_old:
                self.e.release()
            self._adopt(fresh, list(values))

        @rule()
        def release(self) -> None:
            self.e.release()
            self.released = True

        @precondition(lambda self: self.released)
        @rule()
        def moves_after_release_fail(self) -> None:
            for action in (self.e.evict, self.e.promote):
                with pytest.raises(RuntimeError, match="released"):
                    action()

        # -- invariants ------------------------------------------------------------

        @invariant()
        def agrees_with_model(self) -> None:
            e = self.e
            assert e.version == self.version
            assert e.is_released() is self.released
            if self.released:
                assert e.primary.is_released() and e.secondary.is_released()
                return
            assert e.is_evicted() is self.evicted
            assert e.size() == len(self.model) and e.dtype() is F32
            assert _raw_evictable(e) == self.model
            if self.evicted:
                assert e.primary.is_released() and e.secondary.size() == len(self.model)
            else:
                assert not e.primary.is_released() and e.secondary.size() == 0

        def teardown(self) -> None:
            if hasattr(self, "e"):
                self.e.release()

    EvictableMachine.__name__ = f"Evictable{kind.replace('/', 'Over')}Machine"
    return EvictableMachine


@pytest.mark.parametrize("kind", ["CPU/FileBacked", "Generic/CPU"])
def test_evictable_agrees_with_model(kind: str) -> None:
    run_state_machine_as_test(
        machine_for(kind),
        settings=settings(max_examples=60, stateful_step_count=30, deadline=None),
    )
