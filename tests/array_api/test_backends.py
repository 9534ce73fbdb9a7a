"""Each device computes through one backend, and the backends keep the protocol.

The layers above the backends ask no device which kind it is: a device finds its
backend in a table, both backends implement every member of the ``Backend``
protocol, a device's dtypes come from its backend, and mixing devices raises the
one ``DeviceMismatch`` (a ``ValueError``) whatever the operands' shapes.
"""

from __future__ import annotations

import importlib.util
import pickle
from typing import Any

import numpy as np
import pytest

import stridewave.array_api as xp
from stridewave.array_api._backend import Backend
from stridewave.array_api._messages import DeviceMismatch

HAVE_MLX = importlib.util.find_spec("mlx") is not None
needs_mlx = pytest.mark.skipif(
    not HAVE_MLX, reason='mlx is not importable: install "stridewave[mlx]"'
)

HOST_KINDS = ["CPU", "FileBacked", "Generic"]

#: The protocol's members: its methods and its declared attributes.
MEMBERS = sorted(
    {name for name in vars(Backend) if not name.startswith("_")} | set(Backend.__annotations__)
)


def _kinds() -> list[Any]:
    return [*HOST_KINDS, pytest.param("Metal", marks=needs_mlx)]


@pytest.mark.parametrize("kind", _kinds())
def test_every_backend_implements_every_member_of_the_protocol(kind: str) -> None:
    backend = xp.Device(kind).backend
    missing = [name for name in MEMBERS if not hasattr(backend, name)]
    assert not missing, f"{kind}'s backend lacks {missing}"
    assert isinstance(backend.host_addressable, bool)
    assert isinstance(backend.has_direct, bool)
    assert xp.Device(kind).has_direct is backend.has_direct


@pytest.mark.parametrize("name", ["cpu", "CPU", " host ", "file", "generic", "metal", "MLX"])
def test_there_is_one_device_per_kind_and_it_pickles_as_itself(name: str) -> None:
    device = xp.Device(name)
    assert xp.Device(device.kind) is device
    assert pickle.loads(pickle.dumps(device)) is device
    with pytest.raises(AttributeError):
        device.kind = "CPU"


@pytest.mark.parametrize("kind", _kinds())
def test_the_dtypes_of_a_device_come_from_its_backend(kind: str) -> None:
    device = xp.Device(kind)
    info = xp.__array_namespace_info__()
    stored = device.backend.dtypes()
    # (the backend also stores float16 and bfloat16, which dtypes() never lists)
    half = {xp.float16, xp.bfloat16}
    assert half <= set(stored)
    assert set(info.dtypes(device=device).values()) == set(stored) - half
    defaults = info.default_dtypes(device=device)
    assert set(defaults.values()) <= set(stored)
    # The computing library's own defaults: NumPy's on host, MLX's on Metal.
    expected = (
        ("float32", "complex64", "int64") if kind == "Metal" else ("float64", "complex128", "int64")
    )
    found = (defaults["real floating"], defaults["complex floating"], defaults["integral"])
    assert found == tuple(getattr(xp, name) for name in expected)
    assert defaults["indexing"] is defaults["integral"]


@needs_mlx
@pytest.mark.parametrize("shapes", [((3,), (3,)), ((3,), (4,))], ids=["same", "unbroadcastable"])
def test_mixing_devices_raises_device_mismatch_before_shapes_are_looked_at(
    shapes: tuple[tuple[int, ...], tuple[int, ...]],
) -> None:
    a = xp.ones(shapes[0], device=xp.Device("CPU"))
    b = xp.ones(shapes[1], device=xp.Device("Metal"))
    for call in (xp.add, xp.multiply, lambda x, y: x + y, lambda x, y: y - x):
        with pytest.raises(DeviceMismatch, match="different devices"):
            call(a, b)
    assert issubclass(DeviceMismatch, ValueError)


def test_a_view_reaching_past_its_shrunk_carrier_raises_index_error() -> None:
    from stridewave import DType, FileBacked, Layout, Tensor

    carrier = FileBacked(dtype=DType.Float32).new_like(np.arange(6, dtype=np.float32))
    view = xp.asarray(Tensor(carrier, Layout((3,), (2,))))  # slots 0, 2, 4
    np.testing.assert_array_equal(np.asarray(xp.add(view, 1.0)), [1.0, 3.0, 5.0])
    carrier.resize(4)  # slot 4 is gone
    with pytest.raises(IndexError, match="outside its carrier of 4 slots"):
        xp.add(view, 1.0)
