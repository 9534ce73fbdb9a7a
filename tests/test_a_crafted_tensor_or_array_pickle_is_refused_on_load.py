"""An Array or Tensor pickle is checked when it is loaded (CONTRACT section 7).

A pickle whose geometry leaves its carrier, whose dtype is not its carrier's, or whose
parts are of the wrong kind raises ``ValueError`` from ``pickle.loads``, naming the part,
what it was and what was expected; nothing reaches the first use. The pickles stridewave
writes round-trip unchanged.
"""

from __future__ import annotations

import copyreg
import pickle
import uuid
from typing import Any

import numpy as np
import pytest

import stridewave.array_api as xp
from stridewave import CPU, DType, Generic, Layout, ScaledDType, Tensor
from stridewave.array_api._array import _rebuild
from stridewave.carriers import Carrier


class Crafted:
    """Pickles as the given recipe, as an altered or foreign pickle would."""

    def __init__(self, *recipe: Any) -> None:
        self.recipe = recipe

    def __reduce__(self) -> tuple[Any, ...]:
        return self.recipe


def carrier(n: int = 3) -> Carrier:
    return CPU(n, dtype=DType.Int32).new_like(list(range(n)))


def slot_state(**changes: Any) -> tuple[None, dict[str, Any]]:
    """A Tensor's slots as Python's default pickle of a slotted object records them."""
    c = carrier()
    slots: dict[str, Any] = {
        "_carrier": c,
        "_dtype": DType.Int32,
        "_layout": Layout((3,)),
        "_offset": 0,
        "_subtensors": (),
    }
    slots.update(changes)
    return (None, slots)


#: Python's default recipe for a slotted object under pickle protocols 0 and 1.
RECONSTRUCTOR = copyreg._reconstructor  # type: ignore[attr-defined]


def load(*recipe: Any) -> Any:
    return pickle.loads(pickle.dumps(Crafted(*recipe)))


ARRAY_CASES = [
    pytest.param((carrier(), Layout((10,)), 0), r"slots \[0, 9\].*\[0, 3\)", id="too-long"),
    pytest.param((carrier(), Layout((2,)), 2), r"slots \[2, 3\].*\[0, 3\)", id="offset-past"),
    pytest.param((carrier(), Layout((3,), (-1,)), 0), r"slots \[-2, 0\]", id="before-start"),
    pytest.param((carrier(), Layout((3,)), -1), r"offset is -1, expected an int >= 0", id="neg"),
    pytest.param(
        (carrier(), Layout((3,)), 0.5), r"offset is 0.5, expected an int >= 0", id="float"
    ),
    pytest.param(
        (carrier(), Layout((3,)), True), r"offset is True, expected an int >= 0", id="bool"
    ),
    pytest.param(
        (carrier(), (3,), 0), r"layout is tuple \(3,\), expected a stridewave Layout", id="tup"
    ),
    pytest.param((np.arange(3), Layout((3,)), 0), r"carrier is .*ndarray.*Carrier", id="ndarray"),
]


@pytest.mark.parametrize(("args", "message"), ARRAY_CASES)
def test_a_crafted_array_pickle_raises_value_error_on_load(
    args: tuple[Any, ...], message: str
) -> None:
    with pytest.raises(ValueError, match=rf"cannot unpickle a stridewave Array: .*{message}"):
        load(_rebuild, args)


@pytest.mark.parametrize(("args", "message"), ARRAY_CASES)
def test_a_crafted_tensor_pickle_raises_value_error_on_load(
    args: tuple[Any, ...], message: str
) -> None:
    from stridewave.tensor import _rebuild_tensor

    with pytest.raises(ValueError, match=rf"cannot unpickle a stridewave Tensor: .*{message}"):
        load(_rebuild_tensor, args)


SLOT_CASES = [
    pytest.param(
        {"_dtype": DType.Float64},
        r"dtype is SimpleDType SimpleDType\('Float64'\), expected .*Int32",
        id="dt",
    ),
    pytest.param({"_layout": Layout((4,))}, r"slots \[0, 3\].*\[0, 3\)", id="too-long"),
    pytest.param({"_offset": 7}, r"slots \[7, 9\]", id="offset-past"),
    pytest.param(
        {"_subtensors": (1, 2)}, r"subtensors is tuple \(1, 2\), expected \(\)", id="subs"
    ),
    pytest.param({"_carrier": "x"}, r"carrier is str 'x', expected a stridewave Carrier", id="str"),
]


@pytest.mark.parametrize(("changes", "message"), SLOT_CASES)
def test_a_tensor_pickled_as_its_slots_is_checked_on_load(
    changes: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=rf"cannot unpickle a stridewave Tensor: .*{message}"):
        load(RECONSTRUCTOR, (Tensor, object, None), slot_state(**changes))


def test_an_array_pickled_as_its_slots_is_refused() -> None:
    # Array's own recipe is (rebuild, (carrier, layout, offset)); slots are not one.
    with pytest.raises(ValueError, match=r"cannot unpickle a stridewave Array: its state"):
        load(RECONSTRUCTOR, (xp.Array, object, None), slot_state())


def test_a_compound_tensor_pickle_is_checked_on_load() -> None:
    from stridewave.tensor import _rebuild_compound

    with pytest.raises(
        ValueError, match=r"dtype is SimpleDType SimpleDType\('Int32'\), expected a CompoundDType"
    ):
        load(_rebuild_compound, (DType.Int32, (Tensor(carrier(), Layout((3,))),)))
    scaled = ScaledDType(
        f"Crafted{uuid.uuid4().hex}", element=DType.Int32, scale=DType.Float32, block=2
    )
    element = Tensor(carrier(), Layout((3,)))
    scale = Tensor(CPU(2, dtype=DType.Float32), Layout((2,)))
    with pytest.raises(ValueError, match=r"subtensors .*expected one Tensor per plane"):
        load(_rebuild_compound, (scaled, (element,)))
    with pytest.raises(ValueError, match=r"subtensors .*expected one Tensor per plane"):
        load(_rebuild_compound, (scaled, (scale, element)))
    whole = pickle.loads(pickle.dumps(Tensor.compound(scaled, (element, scale))))
    assert whole.dtype is scaled and [t.dtype for t in whole.subtensors] == list(scaled.planes)


def test_the_pickles_stridewave_writes_round_trip() -> None:
    t = Tensor(Generic(list(range(6)), dtype=DType.Int32), Layout((2, 2), (1, 2)), offset=1)
    back = pickle.loads(pickle.dumps(t))
    assert type(back) is Tensor and back.layout == t.layout and back.offset == 1
    assert np.asarray(back).tolist() == np.asarray(t).tolist()
    x = xp.asarray(np.arange(12, dtype=np.int64).reshape(3, 4))[1:, ::-2]
    y = pickle.loads(pickle.dumps(x))
    assert type(y) is xp.Array and y.device == x.device and y.dtype is x.dtype
    assert np.asarray(y).tolist() == np.asarray(x).tolist()
    assert repr(y) == repr(x)


def test_the_repr_of_a_live_array_does_not_hide_an_error_as_released(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    x = xp.asarray([1, 2, 3])
    backend = type(x.device.backend)

    def broken(self: object, value: object) -> object:
        raise IndexError("a fault in the export")

    monkeypatch.setattr(backend, "export", broken)
    with pytest.raises(IndexError, match="a fault in the export"):
        repr(x)


def test_the_repr_of_a_released_array_says_released() -> None:
    c = CPU(3, dtype=DType.Int32)
    x = xp.asarray(Tensor(c, Layout((3,))))
    c.release()
    assert "<released>" in repr(x)
