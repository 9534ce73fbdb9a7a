"""Stateful hypothesis tests: every kind against a plain-Python model (list + version).

Rules interleave valid writes, failing writes (bad index, refused value), reads,
release, new_like and allocate_like (which switch the machine to the fresh carrier);
after every step the carrier's values, raw storage and version agree with the model.
"""

from __future__ import annotations

from typing import Any

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

from stridewave import Carrier, DType

from .conftest import KIND_DTYPES, ZERO, Kind

F32, I32, BOOL = DType.Float32, DType.Int32, DType.Bool

VALUES: dict[DType, st.SearchStrategy[Any]] = {
    F32: st.floats(width=32, allow_nan=False),
    I32: st.integers(-(2**31), 2**31 - 1),
    BOOL: st.booleans(),
}
REFUSED: dict[DType, st.SearchStrategy[Any]] = {
    F32: st.sampled_from([True, "1.0", None, 1j, 1e39, -3.5e38]),
    I32: st.sampled_from([1.0, True, "1", None, 2**31, -(2**31) - 1]),
    BOOL: st.sampled_from([0, 1, 1.0, "True", None]),
}


def machine_for(kind: Kind, dtype: DType) -> type[RuleBasedStateMachine]:
    values = VALUES[dtype]

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
                assert not (0 <= index < n) and not self.released and self.mutable
            else:
                assert ok
                self.model[index] = value
                self.version += 1

        @rule(data=st.data(), value=REFUSED[dtype])
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


@pytest.mark.parametrize(("kind", "dtype"), KIND_DTYPES)
def test_carrier_agrees_with_model(kind: Kind, dtype: DType) -> None:
    run_state_machine_as_test(
        machine_for(kind, dtype),
        settings=settings(max_examples=40, stateful_step_count=20, deadline=None),
    )
