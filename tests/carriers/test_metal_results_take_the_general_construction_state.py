"""A scheduled array API result's Metal carrier has the state the general path gives.

``Metal.adopt_array(..., mutable=True, scheduled=True)`` sets a fresh result's state
flat, without the calls of ``_adopt`` and ``Carrier._init_carrier`` (the per-call
cost of every operation on the Metal device). Its state must stay exactly what those
calls give, attribute for attribute, C accelerator members included, or a field added
to the lifecycle or the carrier later would be missing from every result. Then both
carriers must behave alike: write, version, release.
"""

from __future__ import annotations

from typing import Any

import pytest

from stridewave import DType, Metal
from stridewave.carriers._extension import MetalExtension

from .conftest import needs_mlx

pytestmark = needs_mlx

#: State that is a fresh object per carrier: compared by type, not by value.
_PER_CARRIER = {"_lock", "_gate", "_slot_store"}
#: The C accelerator's members (not in ``vars()``).
_MEMBERS = ("_gate", "_released", "_version", "_slots", "_fast_type", "_fast_low", "_fast_high")


def _state(carrier: Metal) -> dict[str, Any]:
    state = dict(vars(carrier))
    for name in _MEMBERS:
        state[name] = getattr(carrier, name)
    state["_slot_store"] = carrier._slot_store
    return state


def _pair(kind: type[Metal], dtype: DType) -> tuple[Metal, Metal]:
    """Adopt one scheduled MLX array through the general path and the flat one."""
    import mlx.core as mx

    from stridewave.carriers._mlx_runtime import select_device

    device, name = select_device(mx)
    mx_dtype = {"Float32": mx.float32, "Int32": mx.int32, "Bool": mx.bool_}[dtype.name]
    values = mx.zeros((5,), dtype=mx_dtype, stream=device)
    mx.async_eval(values)  # type: ignore[no-untyped-call]
    general = kind.__new__(kind)
    general._adopt(values, device, name, dtype, mutable=True, evaluate=False)
    flat = kind.adopt_array(values, device, name, dtype, mutable=True, scheduled=True)
    return general, flat


@pytest.mark.parametrize("kind", [Metal, MetalExtension], ids=lambda k: k.__name__)
@pytest.mark.parametrize("dtype", [DType.Float32, DType.Int32, DType.Bool], ids=str)
def test_flat_adoption_sets_every_attribute_the_general_path_sets(
    kind: type[Metal], dtype: DType
) -> None:
    general, flat = _pair(kind, dtype)
    want, got = _state(general), _state(flat)
    assert sorted(got) == sorted(want)
    for name in want:
        if name in _PER_CARRIER:
            assert type(got[name]) is type(want[name]), name
            assert got[name] is not want[name], name
        else:
            assert got[name] is want[name] or got[name] == want[name], name
    assert flat._gate is not None  # the scalar fast path is open, as on the general path


@pytest.mark.parametrize("dtype", [DType.Float32, DType.Int32], ids=str)
def test_a_flat_adopted_carrier_writes_versions_and_releases_as_the_general_one(
    dtype: DType,
) -> None:
    for carrier in _pair(Metal, dtype):
        carrier[2] = 7
        carrier.set_value(3, 1)
        assert carrier.version == 2
        assert [carrier.get_value(i) for i in range(5)] == [0, 0, 7, 1, 0]
        carrier.release()
        assert carrier.is_released()
        with pytest.raises(RuntimeError):
            carrier[0] = 1
