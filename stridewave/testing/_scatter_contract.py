"""The scatter contract as a base class: for kinds that implement scatter.

Subclass :class:`ScatterTests` beside :class:`~stridewave.testing.CarrierTests` for a
kind whose ``Kind.scatters`` is true (a kind without scatter shows instead, in
``CarrierTests``, that ``scatter`` raises ``NotImplementedError`` first). The tests
check the carrier-storage spec's Scatter requirement: the mapping, offsets, strided
and shared sources, later-logical-index-wins, normalization of the source, every
refusal before the first write, and a hypothesis property against a plain-Python
model of the specification.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stridewave.carriers import Carrier
from stridewave.dtypes import DType, ScaledDType
from stridewave.layout import Layout
from stridewave.tensor import Tensor
from stridewave.testing._base import KindTests
from stridewave.testing._kinds import fresh_name
from stridewave.testing.strategies import layouts

__all__ = ["ScatterTests"]

#: (receiver, its source tensor, the receiver as a whole tensor)
Setup = tuple[Carrier, Tensor, Tensor]
#: (mapping, onto offset, mapping offset, receiver size, source shares the receiver)
Case = tuple[Layout, int, int, int, bool]


def model(
    dest: Sequence[object], base: int, mapping: Layout, values: Sequence[object]
) -> list[object]:
    """Apply the specification as a list and a loop: later logical indices overwrite."""
    out = list(dest)
    for i in range(mapping.size):
        out[base + mapping.index(i)] = values[i]
    return out


def whole(carrier: Carrier, shape: tuple[int, ...] | None = None) -> Tensor:
    """View all of ``carrier`` as a Tensor, of ``shape`` if given."""
    return Tensor(carrier, Layout((carrier.size(),) if shape is None else shape))


@contextlib.contextmanager
def unchanged(receiver: Carrier) -> Iterator[None]:
    """Check that the block leaves ``receiver``'s values and version as they were."""
    values, version = list(receiver), receiver.version
    yield
    assert list(receiver) == values
    assert receiver.version == version


@st.composite
def cases(draw: st.DrawFn, layout_strategy: st.SearchStrategy[Layout] | None = None) -> Case:
    """Draw one valid scatter: a mapping, offsets and a receiver size that fit."""
    mapping = draw(layout_strategy if layout_strategy is not None else layouts())
    onto_offset = draw(st.integers(0, 3))
    mapping_offset = max(0, -mapping.min_index - onto_offset) + draw(st.integers(0, 3))
    base = onto_offset + mapping_offset
    size = max(base + mapping.max_index + 1, onto_offset) + draw(st.integers(0, 3))
    share = draw(st.booleans()) and size >= mapping.size
    return mapping, onto_offset, mapping_offset, size, share


class ScatterTests(KindTests):
    """The scatter contract, for the kind in the subclass's ``kind``.

    Notes
    -----
    ``kind.make`` must give carriers of ``DType.Float32`` and ``DType.Int32`` (and of
    ``DType.Bool`` where ``kind.dtypes`` lists it); tests that need a dtype the kind
    does not hold skip with the reason.
    """

    @pytest.fixture
    def scatter_setup(self) -> Setup:
        """Return a Float32 receiver of 4 slots and a 2-slot source, as tensors."""
        receiver = self.kind.make([0.0] * 4, DType.Float32, True)
        source = self.kind.make([1.0, 2.0], DType.Float32, True)
        return receiver, whole(source), whole(receiver)

    # -- Scenario: Scatter through a mapping ------------------------------------------------

    def test_scatter_through_a_mapping_stores_values_and_advances_version(self) -> None:
        kind = self.kind
        receiver = kind.make([0.0] * 8, DType.Float32, True)
        source = kind.make([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], DType.Float32, True)
        before = receiver.version
        result = receiver.scatter(whole(source, (2, 3)), whole(receiver), Layout((2, 3), (1, 2)), 1)  # type: ignore[func-returns-value]
        assert result is None
        # source (i, j) -> slot 1 + i + 2j
        assert list(receiver) == [0.0, 1.0, 4.0, 2.0, 5.0, 3.0, 6.0, 0.0]
        assert receiver.version == before + 1

    def test_scatter_uses_destination_offset(self) -> None:
        kind = self.kind
        receiver = kind.make([0] * 6, DType.Int32, True)
        source = kind.make([7, 8], DType.Int32, True)
        onto = Tensor(receiver, Layout((2,)), offset=3)
        receiver.scatter(whole(source), onto, Layout((2,), (-1,)), 1)
        # slot = 3 + 1 + (-1) * i
        assert list(receiver) == [0, 0, 0, 8, 7, 0]

    def test_scatter_from_strided_source_view(self) -> None:
        kind = self.kind
        receiver = kind.make([0] * 3, DType.Int32, True)
        source = kind.make([1, 2, 3, 4, 5, 6], DType.Int32, True)
        to_scatter = Tensor(source, Layout((3,), (-2,)), offset=5)  # 6, 4, 2
        receiver.scatter(to_scatter, whole(receiver), Layout((3,)))
        assert list(receiver) == [6, 4, 2]

    def test_scatter_bool(self) -> None:
        kind = self.kind
        if DType.Bool not in kind.dtypes:
            pytest.skip(f"{kind.name} cannot hold Bool (e.g. a FileBacked tier)")
        receiver = kind.make([False] * 3, DType.Bool, True)
        source = kind.make([True, True], DType.Bool, True)
        receiver.scatter(whole(source), whole(receiver), Layout((2,), (2,)))
        assert list(receiver) == [True, False, True]

    def test_zero_stride_later_logical_index_wins(self) -> None:
        kind = self.kind
        receiver = kind.make([0] * 3, DType.Int32, True)
        source = kind.make(list(range(12)), DType.Int32, True)
        receiver.scatter(whole(source, (4, 3)), whole(receiver), Layout((4, 3), (0, 1)))
        assert list(receiver) == [9, 10, 11]
        wide = kind.make([0] * 4, DType.Int32, True)
        wide.scatter(whole(source, (4, 3)), whole(wide), Layout((4, 3), (1, 0)))
        assert list(wide) == [2, 5, 8, 11]

    def test_overlapping_strides_later_logical_index_wins(self) -> None:
        kind = self.kind
        receiver = kind.make([0] * 5, DType.Int32, True)
        source = kind.make(list(range(1, 10)), DType.Int32, True)
        receiver.scatter(whole(source, (3, 3)), whole(receiver), Layout((3, 3), (1, 1)))
        assert list(receiver) == [1, 4, 7, 8, 9]

    def test_source_sharing_receiver_reads_before_writing(self) -> None:
        kind = self.kind
        receiver = kind.make([1, 2, 3, 4, 5], DType.Int32, True)
        to_scatter = Tensor(receiver, Layout((4,)))
        receiver.scatter(to_scatter, whole(receiver), Layout((4,)), 1)
        assert list(receiver) == [1, 1, 2, 3, 4]
        receiver.scatter(whole(receiver), whole(receiver), Layout((5,), (-1,)), 4)
        assert list(receiver) == [4, 3, 2, 1, 1]

    def test_zero_size_scatter_writes_nothing(self) -> None:
        kind = self.kind
        receiver = kind.make([1.0, 2.0], DType.Float32, True)
        source = kind.make([], DType.Float32, True)
        receiver.scatter(whole(source, (0, 3)), whole(receiver), Layout((0, 3), (5, -9)), 9)
        assert list(receiver) == [1.0, 2.0]

    def test_zero_d_scatter(self) -> None:
        kind = self.kind
        receiver = kind.make([0.0, 0.0], DType.Float32, True)
        source = kind.make([2.5], DType.Float32, True)
        receiver.scatter(Tensor(source, Layout(())), whole(receiver), Layout(()), 1)
        assert list(receiver) == [0.0, 2.5]

    # -- Normalization ----------------------------------------------------------------------

    def test_int32_values_scatter_into_float32(self) -> None:
        kind = self.kind
        receiver = kind.make([0.0] * 2, DType.Float32, True)
        source = kind.make([3, -4], DType.Int32, True)
        receiver.scatter(whole(source), whole(receiver), Layout((2,)))
        assert list(receiver) == [3.0, -4.0]
        assert all(type(v) is float for v in receiver)

    @pytest.mark.parametrize(
        ("source_dtype", "source_values", "receiver_dtype", "zero"),
        [
            (DType.Float32, [1.0], DType.Int32, 0),
            (DType.Bool, [True], DType.Float32, 0.0),
            (DType.Bool, [True], DType.Int32, 0),
            (DType.Int32, [1], DType.Bool, False),
            (DType.Float32, [1.0], DType.Bool, False),
        ],
    )
    def test_refused_normalization_raises_type_error_and_changes_nothing(
        self, source_dtype: DType, source_values: list[object], receiver_dtype: DType, zero: object
    ) -> None:
        kind = self.kind
        if source_dtype not in kind.dtypes or receiver_dtype not in kind.dtypes:
            pytest.skip(f"{kind.name} cannot hold {source_dtype!r} and {receiver_dtype!r}")
        receiver = kind.make([zero], receiver_dtype, True)
        source = kind.make(source_values, source_dtype, True)
        with pytest.raises(TypeError):
            receiver.scatter(whole(source), whole(receiver), Layout((1,)))
        assert list(receiver) == [zero]
        assert receiver.version == 0

    @pytest.mark.parametrize(
        ("args", "pattern"),
        [
            (lambda s, d: ([1.0, 2.0], d, Layout((2,))), "to_scatter must be a stridewave Tensor"),
            (
                lambda s, d: (s, np.zeros(4), Layout((2,))),
                "scatter_onto must be a stridewave Tensor",
            ),
            (lambda s, d: (s, d, (2,)), "mapping must be a stridewave Layout"),
            (lambda s, d: (s, d, Layout((2,)), 1.0), "mapping_offset must be an integer"),
            (lambda s, d: (s, d, Layout((2,)), True), "mapping_offset must be an integer"),
            (lambda s, d: (s, d, Layout((2,)), None), "mapping_offset must be an integer"),
        ],
    )
    def test_wrong_argument_types_raise_type_error(
        self,
        scatter_setup: Setup,
        args: Callable[[Tensor, Tensor], tuple[object, ...]],
        pattern: str,
    ) -> None:
        receiver, source, onto = scatter_setup
        with unchanged(receiver), pytest.raises(TypeError, match=pattern):
            receiver.scatter(*args(source, onto))  # type: ignore[arg-type]

    def test_mapping_offset_accepts_index_objects(self, scatter_setup: Setup) -> None:
        receiver, source, onto = scatter_setup
        receiver.scatter(source, onto, Layout((2,)), np.int64(2))
        assert list(receiver) == [0.0, 0.0, 1.0, 2.0]

    def test_compound_argument_raises_value_error(self, scatter_setup: Setup) -> None:
        receiver, source, onto = scatter_setup
        scaled = ScaledDType(fresh_name("S"), element=DType.Float32, scale=DType.Float32, block=2)
        compound = Tensor.compound(scaled, (source, source))
        with unchanged(receiver), pytest.raises(ValueError, match="compound"):
            receiver.scatter(compound, onto, Layout((2,)))
        with unchanged(receiver), pytest.raises(ValueError, match="compound"):
            receiver.scatter(source, compound, Layout((2,)))

    def test_foreign_destination_raises_value_error(self, scatter_setup: Setup) -> None:
        kind = self.kind
        receiver, source, _ = scatter_setup
        other = kind.make([0.0] * 4, DType.Float32, True)
        with (
            unchanged(receiver),
            unchanged(other),
            pytest.raises(ValueError, match="not the receiver"),
        ):
            receiver.scatter(source, whole(other), Layout((2,)))

    def test_mapping_shape_mismatch_raises_value_error(self, scatter_setup: Setup) -> None:
        receiver, source, onto = scatter_setup
        with unchanged(receiver), pytest.raises(ValueError, match=r"shape \(1, 2\)"):
            receiver.scatter(source, onto, Layout((1, 2)))

    def test_negative_mapping_offset_raises_value_error(self, scatter_setup: Setup) -> None:
        receiver, source, onto = scatter_setup
        with unchanged(receiver), pytest.raises(ValueError, match=">= 0"):
            receiver.scatter(source, onto, Layout((2,)), -1)

    @pytest.mark.parametrize(
        ("mapping", "offset", "bad", "element"),
        [
            (Layout((2,)), 3, 4, 1),
            (Layout((2,), (3,)), 2, 5, 1),
            (Layout((2,), (-1,)), 0, -1, 1),
            (Layout((2,), (5,)), 0, 5, 1),
        ],
    )
    def test_destination_out_of_range_raises_index_error(
        self, scatter_setup: Setup, mapping: Layout, offset: int, bad: int, element: int
    ) -> None:
        receiver, source, onto = scatter_setup
        with (
            unchanged(receiver),
            pytest.raises(
                IndexError,
                match=rf"physical index {bad} \(source element {element}\) .* 4 slots.*mapping_offset",
            ),
        ):
            receiver.scatter(source, onto, mapping, offset)

    def test_immutable_receiver_raises_runtime_error(self) -> None:
        kind = self.kind
        receiver = kind.make([0.0, 0.0], DType.Float32, False)
        source = kind.make([1.0, 2.0], DType.Float32, True)
        with unchanged(receiver), pytest.raises(RuntimeError):
            receiver.scatter(whole(source), whole(receiver), Layout((2,)))

    def test_released_receiver_raises_runtime_error(self) -> None:
        kind = self.kind
        receiver = kind.make([0.0, 0.0], DType.Float32, True)
        source = kind.make([1.0, 2.0], DType.Float32, True)
        onto = whole(receiver)
        receiver.release()
        with pytest.raises(RuntimeError, match="released"):
            receiver.scatter(whole(source), onto, Layout((2,)))
        assert receiver.version == 0

    def test_type_errors_come_before_mutability(self) -> None:
        kind = self.kind
        receiver = kind.make([0.0, 0.0], DType.Float32, False)
        with pytest.raises(TypeError):
            receiver.scatter(None, whole(receiver), Layout((2,)))  # type: ignore[arg-type]

    # One method, one subclass per kind: hypothesis sees a different executor (self)
    # per kind, by design; the examples it saves suit every kind alike. No deadline and
    # no speed health check: a project's own pytest session (no profile of ours) on a
    # loaded machine must not fail on timing.
    @settings(
        deadline=None,
        suppress_health_check=[HealthCheck.differing_executors, HealthCheck.too_slow],
    )
    @given(cases(), st.integers(0, 2**20))
    def test_scatter_matches_model(self, case: Case, seed: int) -> None:
        kind = self.kind
        mapping, onto_offset, mapping_offset, size, share = case
        rng = np.random.default_rng(seed)
        initial = rng.integers(-100, 100, size).tolist()
        receiver = kind.make(initial, DType.Int32, True)
        if share:
            # the source is a view of the receiver itself
            source_offset = int(rng.integers(0, size - mapping.size + 1))
            to_scatter = Tensor(receiver, Layout(mapping.shape), offset=source_offset)
            source_values = initial[source_offset : source_offset + mapping.size]
        else:
            source_values = rng.integers(-100, 100, mapping.size).tolist()
            to_scatter = Tensor(kind.make(source_values, DType.Int32, True), Layout(mapping.shape))
        onto = Tensor(receiver, Layout((0,)), offset=onto_offset)
        expected = model(initial, onto_offset + mapping_offset, mapping, source_values)
        receiver.scatter(to_scatter, onto, mapping, mapping_offset)
        assert list(receiver) == expected
        assert receiver.version == 1

    def test_bounds_are_checked_before_mutability(self) -> None:
        kind = self.kind
        receiver = kind.make([0.0, 0.0], DType.Float32, False)
        source = kind.make([1.0, 2.0], DType.Float32, True)
        with unchanged(receiver), pytest.raises(IndexError, match="physical index 2"):
            receiver.scatter(whole(source), whole(receiver), Layout((2,)), 1)

    def test_owned_receiver_refuses_scatter(self) -> None:
        kind = self.kind
        receiver = kind.make([0.0, 0.0], DType.Float32, True)
        source = kind.make([1.0, 2.0], DType.Float32, True)
        owner = type("Owner", (), {})()  # a composite stand-in (weakly referenced)
        receiver._claim_all(owner, [receiver])
        with unchanged(receiver), pytest.raises(RuntimeError):
            receiver.scatter(whole(source), whole(receiver), Layout((2,)))
        with receiver._access(owner):
            receiver.scatter(whole(source), whole(receiver), Layout((2,)))
        assert list(receiver) == [1.0, 2.0]

    def test_released_source_raises_runtime_error_and_changes_nothing(self) -> None:
        kind = self.kind
        receiver = kind.make([0.0, 0.0], DType.Float32, True)
        source_carrier = kind.make([1.0, 2.0], DType.Float32, True)
        source = whole(source_carrier)
        source_carrier.release()
        with unchanged(receiver), pytest.raises(RuntimeError):
            receiver.scatter(source, whole(receiver), Layout((2,)))
