"""Hypothesis state machines: carriers against a plain-Python model."""

from __future__ import annotations

import errno
from collections.abc import Callable
from typing import Any
from unittest import mock

import numpy as np
import pytest
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from stridewave.carriers import CPU, Carrier, Evictable
from stridewave.dtypes import DType
from stridewave.layout import Layout
from stridewave.tensor import Tensor
from stridewave.testing import strategies
from stridewave.testing._kinds import ZERO, Kind, raw_values

__all__ = ["carrier_machine", "evictable_machine"]

F32 = DType.Float32
VALUES = strategies.values(F32)


def carrier_machine(kind: Kind, dtype: DType) -> type[RuleBasedStateMachine]:
    """Build a state machine that runs one kind against a plain-Python model.

    Rules interleave valid writes, failing writes (bad index, refused value), reads,
    release, ``new_like`` and ``allocate_like`` (which switch the machine to the fresh
    carrier); after every step the carrier's values, raw storage and version agree
    with the model (a list and a version count).

    Parameters
    ----------
    kind : Kind
        The kind under test.
    dtype : DType
        One of ``kind.dtypes``.

    Returns
    -------
    type
        A :class:`hypothesis.stateful.RuleBasedStateMachine` subclass; run it with
        :func:`hypothesis.stateful.run_state_machine_as_test` (``CarrierTests`` does).
    """
    values = strategies.values(dtype)

    class CarrierMachine(RuleBasedStateMachine):
        carrier: Carrier
        model: list[object]
        version: int
        released: bool
        mutable: bool

        def _adopt(self, carrier: Carrier, model: list[object], mutable: bool) -> None:
            self.carrier, self.model, self.mutable = carrier, model, mutable
            self.version, self.released = 0, False

        @initialize(initial=st.lists(values, max_size=6), mutable=st.booleans())
        def start(self, initial: list[object], mutable: bool) -> None:
            self._adopt(kind.make(initial, dtype, mutable), list(initial), mutable)

        @rule(data=st.data(), value=values, use_setitem=st.booleans())
        def write(self, data: st.DataObject, value: object, use_setitem: bool) -> None:
            n = len(self.model)
            index = data.draw(st.integers(-2, n + 1))
            ok = not self.released and self.mutable and 0 <= index < n
            try:
                if use_setitem:
                    self.carrier[index] = value
                else:
                    assert self.carrier.set_value(index, value) is None  # type: ignore[func-returns-value]
            except RuntimeError:
                assert self.released or not self.mutable
            except IndexError:
                assert not (0 <= index < n)
                assert not self.released
                assert self.mutable
            else:
                assert ok
                self.model[index] = value
                self.version += 1

        @rule(data=st.data(), value=strategies.refused_values(dtype))
        def failing_write(self, data: st.DataObject, value: object) -> None:
            n = len(self.model)
            index = data.draw(st.integers(0, max(n - 1, 0)))
            with pytest.raises((RuntimeError, IndexError, TypeError, OverflowError)):
                self.carrier[index] = value

        @precondition(lambda self: not self.released and self.model)
        @rule(data=st.data())
        def read(self, data: st.DataObject) -> None:
            index = data.draw(st.integers(0, len(self.model) - 1))
            assert self.carrier[index] == self.model[index]

        @rule()
        def release(self) -> None:
            self.carrier.release()
            self.released = True

        @rule(fresh=st.lists(st.one_of(st.none(), values), max_size=6), mutable=st.booleans())
        def new_like(self, fresh: list[object], mutable: bool) -> None:
            old_version = self.carrier.version
            result = self.carrier.new_like(fresh, mutable=mutable)
            assert self.carrier.version == old_version
            assert type(result) is type(self.carrier)
            model = [ZERO[dtype] if v is None else v for v in fresh]
            self._adopt(result, model, mutable)

        @rule(size=st.integers(0, 6), mutable=st.booleans())
        def allocate_like(self, size: int, mutable: bool) -> None:
            result = self.carrier.allocate_like(size, mutable=mutable)
            self._adopt(result, [ZERO[dtype]] * size, mutable)

        @invariant()
        def agrees_with_model(self) -> None:
            assert self.carrier.version == self.version
            assert self.carrier.is_released() is self.released
            assert self.carrier.dtype() is dtype
            if self.released:
                assert self.carrier.size() == 0
                assert not self.carrier.is_mutable()
                return
            assert self.carrier.is_mutable() is self.mutable
            assert self.carrier.size() == len(self.model)
            assert list(self.carrier) == self.model
            assert kind.raw_values(self.carrier) == self.model

    CarrierMachine.__name__ = f"{kind.name}{dtype.name}Machine"
    return CarrierMachine


def evictable_machine(
    make_tiers: Callable[[list[float]], tuple[Carrier, Carrier]], name: str = "Evictable"
) -> type[RuleBasedStateMachine]:
    """Build a state machine that runs an Evictable over two tiers against a model.

    Rules interleave writes, scatter, evict, promote, ``new_like`` and release, with
    injected faults: a flag that makes the next provision of the secondary raise
    ``OSError(ENOSPC)`` (a failed eviction) and a primary factory that raises
    ``MemoryError`` (a failed promotion). After every step the values (read around
    the API, from the tier where they live), the version and the residency agree
    with the model: no value is ever lost.

    Parameters
    ----------
    make_tiers : callable
        ``make_tiers(values) -> (primary, secondary)``: a Float32 primary holding
        ``values`` and an empty Float32 secondary (a kind's carriers may be either).
    name : str, default "Evictable"
        The machine's name in hypothesis's reports.

    Returns
    -------
    type
        A :class:`hypothesis.stateful.RuleBasedStateMachine` subclass.
    """

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
            self._adopt(Evictable(*make_tiers(list(initial))), list(initial))

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
            assert not fresh.is_evicted()
            assert fresh.secondary.size() == 0
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
                assert e.primary.is_released()
                assert e.secondary.is_released()
                return
            assert e.is_evicted() is self.evicted
            assert e.size() == len(self.model)
            assert e.dtype() is F32
            assert raw_values(e) == self.model
            if self.evicted:
                assert e.primary.is_released()
                assert e.secondary.size() == len(self.model)
            else:
                assert not e.primary.is_released()
                assert e.secondary.size() == 0

        def teardown(self) -> None:
            if hasattr(self, "e"):
                self.e.release()

    EvictableMachine.__name__ = f"{name}Machine"
    return EvictableMachine
