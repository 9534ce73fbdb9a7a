"""Tensor: a typed strided view of a carrier (CONTRACT section 5)."""

from __future__ import annotations

import uuid

import numpy as np
import pytest

from stridewave import CPU, DType, Generic, Layout, ScaledDType, Tensor


@pytest.fixture
def carrier() -> Generic:
    return Generic(list(range(6)), dtype=DType.Int32)


def test_single_subtensor_properties(carrier: Generic) -> None:
    layout = Layout((2, 2))
    t = Tensor(carrier, layout, offset=1)
    assert t.carrier is carrier
    assert t.layout is layout
    assert t.offset == 1
    assert t.shape == (2, 2)
    assert t.dtype is DType.Int32
    assert t.subtensors == (t,)
    assert t.subtensors[0] is t


def test_offset_defaults_to_zero_and_accepts_index_objects(carrier: Generic) -> None:
    assert Tensor(carrier, Layout((3,))).offset == 0
    assert Tensor(carrier, Layout((3,)), offset=np.int64(3)).offset == 3


def test_asarray_gives_logical_values_in_shape(carrier: Generic) -> None:
    t = Tensor(carrier, Layout((2, 3), (1, 2)))
    out = np.asarray(t)
    assert out.shape == (2, 3)
    assert out.tolist() == [[0, 2, 4], [1, 3, 5]]


def test_asarray_is_a_read_only_view_that_follows_writes(carrier: Generic) -> None:
    t = Tensor(carrier, Layout((3,), (-2,)), offset=5)
    out = np.asarray(t)
    assert out.tolist() == [5, 3, 1]
    assert not out.flags.writeable
    with pytest.raises(ValueError):
        out[0] = 7
    carrier[3] = 30
    assert out.tolist() == [5, 30, 1]


def test_asarray_copy_true_is_writable_and_independent(carrier: Generic) -> None:
    t = Tensor(carrier, Layout((2,)), offset=2)
    out = np.array(t, copy=True)
    out[0] = 99
    assert out.flags.writeable
    assert carrier[2] == 2


def test_asarray_with_dtype_converts(carrier: Generic) -> None:
    out = np.asarray(Tensor(carrier, Layout((2,))), dtype=np.float64)
    assert out.dtype == np.float64
    assert out.tolist() == [0.0, 1.0]
    with pytest.raises(ValueError, match="copy"):
        Tensor(carrier, Layout((2,))).__array__(np.float64, copy=False)


def test_zero_d_and_zero_size_views(carrier: Generic) -> None:
    assert np.asarray(Tensor(carrier, Layout(()), offset=4)).tolist() == 4
    empty = Tensor(carrier, Layout((0, 3)), offset=100)  # addresses no slot
    assert np.asarray(empty).shape == (0, 3)


def test_broadcast_view_with_zero_stride(carrier: Generic) -> None:
    out = np.asarray(Tensor(carrier, Layout((2, 3), (0, 1)), offset=3))
    assert out.tolist() == [[3, 4, 5], [3, 4, 5]]


def test_cpu_view() -> None:
    c = CPU(4, dtype=DType.Float32)
    c[2] = 1.5
    assert np.asarray(Tensor(c, Layout((2,)), offset=1)).tolist() == [0.0, 1.5]


@pytest.mark.parametrize("carrier_arg", [None, [1, 2], np.zeros(3)])
def test_non_carrier_raises_type_error(carrier_arg: object) -> None:
    with pytest.raises(TypeError, match="Carrier"):
        Tensor(carrier_arg, Layout((1,)))  # type: ignore[arg-type]


@pytest.mark.parametrize("layout", [(3,), None, "3"])
def test_non_layout_raises_type_error(carrier: Generic, layout: object) -> None:
    with pytest.raises(TypeError, match="Layout"):
        Tensor(carrier, layout)  # type: ignore[arg-type]


@pytest.mark.parametrize("offset", [1.0, "1", None, True])
def test_non_integer_offset_raises_type_error(carrier: Generic, offset: object) -> None:
    with pytest.raises(TypeError, match="offset"):
        Tensor(carrier, Layout((1,)), offset=offset)  # type: ignore[arg-type]


def test_offset_is_keyword_only(carrier: Generic) -> None:
    with pytest.raises(TypeError):
        Tensor(carrier, Layout((1,)), 1)  # type: ignore[call-arg]


def test_negative_offset_raises_value_error(carrier: Generic) -> None:
    with pytest.raises(ValueError, match=">= 0"):
        Tensor(carrier, Layout((1,)), offset=-1)


@pytest.mark.parametrize(
    ("shape", "strides", "offset", "bad"),
    [
        ((7,), None, 0, 6),
        ((3,), None, 4, 6),
        ((3,), (-1,), 1, -1),
        ((2, 2), (4, 2), 0, 6),
    ],
)
def test_view_outside_carrier_raises_index_error(
    carrier: Generic, shape: tuple[int, ...], strides: tuple[int, ...] | None, offset: int, bad: int
) -> None:
    with pytest.raises(IndexError, match=rf"physical index {bad} .* 6 slots"):
        Tensor(carrier, Layout(shape, strides), offset=offset)


def test_view_of_released_carrier_raises_runtime_error(carrier: Generic) -> None:
    carrier.release()
    with pytest.raises(RuntimeError, match="released"):
        Tensor(carrier, Layout((0,)))


def test_asarray_after_release_raises_runtime_error(carrier: Generic) -> None:
    t = Tensor(carrier, Layout((2,)))
    carrier.release()
    with pytest.raises(RuntimeError):
        np.asarray(t)


def test_repr_names_carrier_layout_offset(carrier: Generic) -> None:
    text = repr(Tensor(carrier, Layout((2,)), offset=1))
    assert "Layout(shape=(2,), strides=(1,))" in text
    assert "offset=1" in text
    assert "Generic" in text


# -- compound -----------------------------------------------------------------------


@pytest.fixture
def scaled(unique_name: str) -> ScaledDType:
    return ScaledDType(unique_name, element=DType.Int32, scale=DType.Float32, block=2)


@pytest.fixture
def unique_name() -> str:
    return f"Scaled_{uuid.uuid4().hex}"


def test_compound_tensor_groups_one_subtensor_per_plane(scaled: ScaledDType) -> None:
    elements = Tensor(Generic([1, 2, 3, 4], dtype=DType.Int32), Layout((4,)))
    scales = Tensor(Generic([0.5, 2.0], dtype=DType.Float32), Layout((2,)))
    t = Tensor.compound(scaled, (elements, scales))
    assert t.dtype is scaled
    assert t.subtensors == (elements, scales)
    assert t.shape == (4,)
    assert "compound" in repr(t)
    with pytest.raises(ValueError, match="subtensors"):
        t.carrier
    with pytest.raises(ValueError, match="subtensors"):
        t.layout
    with pytest.raises(ValueError, match="subtensors"):
        t.offset
    with pytest.raises(ValueError, match="plane"):
        np.asarray(t)


def test_compound_with_wrong_count_raises_value_error(scaled: ScaledDType) -> None:
    elements = Tensor(Generic([1], dtype=DType.Int32), Layout((1,)))
    with pytest.raises(ValueError, match="2 planes"):
        Tensor.compound(scaled, (elements,))


def test_compound_with_wrong_plane_dtype_raises_value_error(scaled: ScaledDType) -> None:
    a = Tensor(Generic([1.0], dtype=DType.Float32), Layout((1,)))
    with pytest.raises(ValueError, match="plane 0"):
        Tensor.compound(scaled, (a, a))


def test_compound_of_compound_raises_value_error(scaled: ScaledDType) -> None:
    elements = Tensor(Generic([1, 2], dtype=DType.Int32), Layout((2,)))
    scales = Tensor(Generic([1.0], dtype=DType.Float32), Layout((1,)))
    inner = Tensor.compound(scaled, (elements, scales))
    with pytest.raises(ValueError, match="multi-subtensor"):
        Tensor.compound(scaled, (inner, scales))


def test_compound_type_errors(scaled: ScaledDType) -> None:
    t = Tensor(Generic([1], dtype=DType.Int32), Layout((1,)))
    with pytest.raises(TypeError, match="CompoundDType"):
        Tensor.compound(DType.Int32, (t, t))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="Tensors"):
        Tensor.compound(scaled, (t, "x"))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="Tensors"):
        Tensor.compound(scaled, t)  # type: ignore[arg-type]


def test_a_tensor_whose_carrier_shrank_refuses_instead_of_reading_foreign_memory() -> None:
    import numpy as np
    import pytest

    from stridewave import CPU, DType, FileBacked, Layout, Tensor

    carrier = FileBacked(dtype=DType.Float32)
    carrier.resize(1 << 12)
    stale = Tensor(carrier, Layout((1 << 12,)))
    carrier.resize(0)  # NumPy would not check a view's extent on an empty buffer
    with pytest.raises(IndexError, match="Build a new Tensor"):
        np.asarray(stale)
    receiver = CPU(1 << 12)
    with pytest.raises(IndexError, match="Build a new Tensor"):
        receiver.scatter(stale, Tensor(receiver, Layout((1 << 12,))), Layout((1 << 12,)))
    assert receiver.version == 0 and not np.asarray(receiver).any()
    carrier.resize(8)  # shrunk, not empty: the same clear error, not NumPy's
    with pytest.raises(IndexError, match="now holds 8"):
        np.asarray(stale)
