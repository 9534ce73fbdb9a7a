"""Carrier.scatter: the carrier-storage Scatter requirement on every carrier kind."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import NoReturn
from unittest import mock

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from stridewave import Carrier, DType, FileBacked, Layout, Tensor
from stridewave.carriers import _normalize
from tests.carriers.conftest import KINDS, Kind
from tests.strategies import injective_layouts, layouts

SCATTER_KINDS = [k for k in KINDS if k.scatters]

#: (receiver, its source tensor, the receiver as a whole tensor)
Setup = tuple[Carrier, Tensor, Tensor]
#: (mapping, onto offset, mapping offset, receiver size, source shares the receiver)
Case = tuple[Layout, int, int, int, bool]


@pytest.fixture(params=SCATTER_KINDS, ids=[k.name for k in SCATTER_KINDS])
def kind(request: pytest.FixtureRequest) -> Kind:
    k: Kind = request.param
    return k


def model(
    dest: Sequence[object], base: int, mapping: Layout, values: Sequence[object]
) -> list[object]:
    """The specification as a list and a loop: later logical indices overwrite."""
    out = list(dest)
    for i in range(mapping.size):
        out[base + mapping.index(i)] = values[i]
    return out


def whole(carrier: Carrier, shape: tuple[int, ...] | None = None) -> Tensor:
    return Tensor(carrier, Layout((carrier.size(),) if shape is None else shape))


# -- Scenario: Scatter through a mapping ---------------------------------------------


def test_scatter_through_a_mapping_stores_values_and_advances_version(kind: Kind) -> None:
    receiver = kind.make([0.0] * 8, DType.Float32, True)
    source = kind.make([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], DType.Float32, True)
    before = receiver.version
    result = receiver.scatter(whole(source, (2, 3)), whole(receiver), Layout((2, 3), (1, 2)), 1)  # type: ignore[func-returns-value]
    assert result is None
    # source (i, j) -> slot 1 + i + 2j
    assert list(receiver) == [0.0, 1.0, 4.0, 2.0, 5.0, 3.0, 6.0, 0.0]
    assert receiver.version == before + 1


def test_scatter_uses_destination_offset(kind: Kind) -> None:
    receiver = kind.make([0] * 6, DType.Int32, True)
    source = kind.make([7, 8], DType.Int32, True)
    onto = Tensor(receiver, Layout((2,)), offset=3)
    receiver.scatter(whole(source), onto, Layout((2,), (-1,)), 1)
    # slot = 3 + 1 + (-1) * i
    assert list(receiver) == [0, 0, 0, 8, 7, 0]


def test_scatter_from_strided_source_view(kind: Kind) -> None:
    receiver = kind.make([0] * 3, DType.Int32, True)
    source = kind.make([1, 2, 3, 4, 5, 6], DType.Int32, True)
    to_scatter = Tensor(source, Layout((3,), (-2,)), offset=5)  # 6, 4, 2
    receiver.scatter(to_scatter, whole(receiver), Layout((3,)))
    assert list(receiver) == [6, 4, 2]


def test_scatter_bool(kind: Kind) -> None:
    if DType.Bool not in kind.dtypes:
        pytest.skip(f"{kind.name} cannot hold Bool (e.g. a FileBacked tier)")
    receiver = kind.make([False] * 3, DType.Bool, True)
    source = kind.make([True, True], DType.Bool, True)
    receiver.scatter(whole(source), whole(receiver), Layout((2,), (2,)))
    assert list(receiver) == [True, False, True]


def test_zero_stride_later_logical_index_wins(kind: Kind) -> None:
    receiver = kind.make([0] * 3, DType.Int32, True)
    source = kind.make(list(range(12)), DType.Int32, True)
    receiver.scatter(whole(source, (4, 3)), whole(receiver), Layout((4, 3), (0, 1)))
    assert list(receiver) == [9, 10, 11]
    wide = kind.make([0] * 4, DType.Int32, True)
    wide.scatter(whole(source, (4, 3)), whole(wide), Layout((4, 3), (1, 0)))
    assert list(wide) == [2, 5, 8, 11]


def test_overlapping_strides_later_logical_index_wins(kind: Kind) -> None:
    receiver = kind.make([0] * 5, DType.Int32, True)
    source = kind.make(list(range(1, 10)), DType.Int32, True)
    receiver.scatter(whole(source, (3, 3)), whole(receiver), Layout((3, 3), (1, 1)))
    assert list(receiver) == [1, 4, 7, 8, 9]


def test_source_sharing_receiver_reads_before_writing(kind: Kind) -> None:
    receiver = kind.make([1, 2, 3, 4, 5], DType.Int32, True)
    to_scatter = Tensor(receiver, Layout((4,)))
    receiver.scatter(to_scatter, whole(receiver), Layout((4,)), 1)
    assert list(receiver) == [1, 1, 2, 3, 4]
    receiver.scatter(whole(receiver), whole(receiver), Layout((5,), (-1,)), 4)
    assert list(receiver) == [4, 3, 2, 1, 1]


def test_zero_size_scatter_writes_nothing(kind: Kind) -> None:
    receiver = kind.make([1.0, 2.0], DType.Float32, True)
    source = kind.make([], DType.Float32, True)
    receiver.scatter(whole(source, (0, 3)), whole(receiver), Layout((0, 3), (5, -9)), 9)
    assert list(receiver) == [1.0, 2.0]


def test_zero_d_scatter(kind: Kind) -> None:
    receiver = kind.make([0.0, 0.0], DType.Float32, True)
    source = kind.make([2.5], DType.Float32, True)
    receiver.scatter(Tensor(source, Layout(())), whole(receiver), Layout(()), 1)
    assert list(receiver) == [0.0, 2.5]


def test_injective_scatter_builds_no_index_array(kind: Kind) -> None:
    receiver = kind.make([0] * 12, DType.Int32, True)
    source = kind.make(list(range(12)), DType.Int32, True)

    def forbidden(*args: object, **kwargs: object) -> NoReturn:
        raise AssertionError("an index array was built for an injective mapping")

    with mock.patch.object(Layout, "indices", forbidden):
        receiver.scatter(whole(source, (3, 4)), whole(receiver), Layout((3, 4), (1, 3)))
    assert np.asarray(receiver).reshape(4, 3).T.ravel().tolist() == list(range(12))


# -- Normalization ---------------------------------------------------------------------


def test_int32_values_scatter_into_float32(kind: Kind) -> None:
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
    kind: Kind,
    source_dtype: DType,
    source_values: list[object],
    receiver_dtype: DType,
    zero: object,
) -> None:
    if source_dtype not in kind.dtypes or receiver_dtype not in kind.dtypes:
        pytest.skip(f"{kind.name} cannot hold {source_dtype!r} and {receiver_dtype!r}")
    receiver = kind.make([zero], receiver_dtype, True)
    source = kind.make(source_values, source_dtype, True)
    with pytest.raises(TypeError):
        receiver.scatter(whole(source), whole(receiver), Layout((1,)))
    assert list(receiver) == [zero]
    assert receiver.version == 0


def test_bulk_path_never_calls_the_scalar_normalizer(kind: Kind) -> None:
    receiver = kind.make([0.0] * 4, DType.Float32, True)
    source = kind.make([1, 2, 3, 4], DType.Int32, True)

    def refuse(*args: object, **kwargs: object) -> NoReturn:
        raise AssertionError("scalar normalizer called on the bulk path")

    with mock.patch.object(_normalize, "scalar_normalizer", refuse):
        receiver.scatter(whole(source), whole(receiver), Layout((4,), (-1,)), 3)
    assert list(receiver) == [4.0, 3.0, 2.0, 1.0]


# -- Bad input: all checked before the first write -------------------------------------


@contextlib.contextmanager
def unchanged(receiver: Carrier) -> Iterator[None]:
    values, version = list(receiver), receiver.version
    yield
    assert list(receiver) == values
    assert receiver.version == version


@pytest.fixture
def setup(kind: Kind) -> Setup:
    receiver = kind.make([0.0] * 4, DType.Float32, True)
    source = kind.make([1.0, 2.0], DType.Float32, True)
    return receiver, whole(source), whole(receiver)


@pytest.mark.parametrize(
    ("args", "pattern"),
    [
        (lambda s, d: ([1.0, 2.0], d, Layout((2,))), "to_scatter must be a stridewave Tensor"),
        (lambda s, d: (s, np.zeros(4), Layout((2,))), "scatter_onto must be a stridewave Tensor"),
        (lambda s, d: (s, d, (2,)), "mapping must be a stridewave Layout"),
        (lambda s, d: (s, d, Layout((2,)), 1.0), "mapping_offset must be an integer"),
        (lambda s, d: (s, d, Layout((2,)), True), "mapping_offset must be an integer"),
        (lambda s, d: (s, d, Layout((2,)), None), "mapping_offset must be an integer"),
    ],
)
def test_wrong_argument_types_raise_type_error(
    setup: Setup, args: Callable[[Tensor, Tensor], tuple[object, ...]], pattern: str
) -> None:
    receiver, source, onto = setup
    with unchanged(receiver), pytest.raises(TypeError, match=pattern):
        receiver.scatter(*args(source, onto))  # type: ignore[arg-type]


def test_mapping_offset_accepts_index_objects(setup: Setup) -> None:
    receiver, source, onto = setup
    receiver.scatter(source, onto, Layout((2,)), np.int64(2))
    assert list(receiver) == [0.0, 0.0, 1.0, 2.0]


def test_compound_argument_raises_value_error(setup: Setup) -> None:
    import uuid

    from stridewave import ScaledDType

    receiver, source, onto = setup
    scaled = ScaledDType(
        f"S_{uuid.uuid4().hex}", element=DType.Float32, scale=DType.Float32, block=2
    )
    compound = Tensor.compound(scaled, (source, source))
    with unchanged(receiver), pytest.raises(ValueError, match="compound"):
        receiver.scatter(compound, onto, Layout((2,)))
    with unchanged(receiver), pytest.raises(ValueError, match="compound"):
        receiver.scatter(source, compound, Layout((2,)))


def test_foreign_destination_raises_value_error(kind: Kind, setup: Setup) -> None:
    receiver, source, _ = setup
    other = kind.make([0.0] * 4, DType.Float32, True)
    with unchanged(receiver), unchanged(other), pytest.raises(ValueError, match="not the receiver"):
        receiver.scatter(source, whole(other), Layout((2,)))


def test_mapping_shape_mismatch_raises_value_error(setup: Setup) -> None:
    receiver, source, onto = setup
    with unchanged(receiver), pytest.raises(ValueError, match=r"shape \(1, 2\)"):
        receiver.scatter(source, onto, Layout((1, 2)))


def test_negative_mapping_offset_raises_value_error(setup: Setup) -> None:
    receiver, source, onto = setup
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
    setup: Setup, mapping: Layout, offset: int, bad: int, element: int
) -> None:
    receiver, source, onto = setup
    with (
        unchanged(receiver),
        pytest.raises(
            IndexError,
            match=rf"physical index {bad} \(source element {element}\) .* 4 slots.*mapping_offset",
        ),
    ):
        receiver.scatter(source, onto, mapping, offset)


def test_immutable_receiver_raises_runtime_error(kind: Kind) -> None:
    receiver = kind.make([0.0, 0.0], DType.Float32, False)
    source = kind.make([1.0, 2.0], DType.Float32, True)
    with unchanged(receiver), pytest.raises(RuntimeError):
        receiver.scatter(whole(source), whole(receiver), Layout((2,)))


def test_released_receiver_raises_runtime_error(kind: Kind) -> None:
    receiver = kind.make([0.0, 0.0], DType.Float32, True)
    source = kind.make([1.0, 2.0], DType.Float32, True)
    onto = whole(receiver)
    receiver.release()
    with pytest.raises(RuntimeError, match="released"):
        receiver.scatter(whole(source), onto, Layout((2,)))
    assert receiver.version == 0


def test_type_errors_come_before_mutability(kind: Kind) -> None:
    receiver = kind.make([0.0, 0.0], DType.Float32, False)
    with pytest.raises(TypeError):
        receiver.scatter(None, whole(receiver), Layout((2,)))  # type: ignore[arg-type]


def test_file_backed_scatter_raises_not_implemented_error() -> None:
    receiver = FileBacked(dtype=DType.Float32)
    try:
        with pytest.raises(NotImplementedError, match="FileBacked"):
            receiver.scatter(whole(receiver), whole(receiver), Layout((0,)))
    finally:
        receiver.release()


# -- Properties against the plain-Python model ------------------------------------------


@st.composite
def cases(draw: st.DrawFn, layout_strategy: st.SearchStrategy[Layout] | None = None) -> Case:
    mapping = draw(layout_strategy if layout_strategy is not None else layouts())
    onto_offset = draw(st.integers(0, 3))
    mapping_offset = max(0, -mapping.min_index - onto_offset) + draw(st.integers(0, 3))
    base = onto_offset + mapping_offset
    size = max(base + mapping.max_index + 1, onto_offset) + draw(st.integers(0, 3))
    share = draw(st.booleans()) and size >= mapping.size
    return mapping, onto_offset, mapping_offset, size, share


@given(cases(), st.sampled_from(SCATTER_KINDS), st.integers(0, 2**20))
def test_scatter_matches_model(case: Case, kind: Kind, seed: int) -> None:
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


@given(cases(injective_layouts()), st.sampled_from(SCATTER_KINDS))
def test_injective_scatter_matches_model_without_index_arrays(case: Case, kind: Kind) -> None:
    mapping, onto_offset, mapping_offset, size, _ = case
    initial = [-1.0] * size
    values = [float(v) for v in range(mapping.size)]
    receiver = kind.make(initial, DType.Float32, True)
    source = Tensor(kind.make(values, DType.Float32, True), Layout(mapping.shape))
    onto = Tensor(receiver, Layout((0,)), offset=onto_offset)

    def forbidden(*args: object, **kwargs: object) -> NoReturn:
        raise AssertionError("index array on the fast path")

    with mock.patch.object(Layout, "indices", forbidden):
        receiver.scatter(source, onto, mapping, mapping_offset)
    assert list(receiver) == model(initial, onto_offset + mapping_offset, mapping, values)


def test_bounds_are_checked_before_mutability(kind: Kind) -> None:
    receiver = kind.make([0.0, 0.0], DType.Float32, False)
    source = kind.make([1.0, 2.0], DType.Float32, True)
    with unchanged(receiver), pytest.raises(IndexError, match="physical index 2"):
        receiver.scatter(whole(source), whole(receiver), Layout((2,)), 1)


def test_owned_receiver_refuses_scatter(kind: Kind) -> None:
    receiver = kind.make([0.0, 0.0], DType.Float32, True)
    source = kind.make([1.0, 2.0], DType.Float32, True)
    owner = type("Owner", (), {})()  # a composite stand-in (weakly referenced)
    receiver._claim_all(owner, [receiver])
    with unchanged(receiver), pytest.raises(RuntimeError):
        receiver.scatter(whole(source), whole(receiver), Layout((2,)))
    with receiver._access(owner):
        receiver.scatter(whole(source), whole(receiver), Layout((2,)))
    assert list(receiver) == [1.0, 2.0]


def test_released_source_raises_runtime_error_and_changes_nothing(kind: Kind) -> None:
    receiver = kind.make([0.0, 0.0], DType.Float32, True)
    source_carrier = kind.make([1.0, 2.0], DType.Float32, True)
    source = whole(source_carrier)
    source_carrier.release()
    with unchanged(receiver), pytest.raises(RuntimeError):
        receiver.scatter(source, whole(receiver), Layout((2,)))
