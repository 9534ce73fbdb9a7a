"""Every backend keeps the backend contract, in the manner of zarr's ``StoreTests``.

:class:`BackendContract` is the contract every backend of ``stridewave.array_api``
keeps, written once; each backend has one subclass that says which devices it
computes for (``device``) and how to make their Arrays (``make``): the host backend
(CPU, FileBacked, Generic) and MLX (Metal, skipped without ``mlx``). The devices come
from the table of places, and every row's backend module has a subclass here, so a new
backend cannot be added without running the contract.

The contract: every member of the ``Backend`` protocol is present; the backend's
dtypes are the row's; ``read`` of an Array gives a native array with the Array's
values, sharing its memory where the backend says ``host_addressable``; adopting a
fresh result gives an Array whose carrier is of the row's extension carrier class (the
spec carrier for the spec's dtypes); a write after a read advances the version once;
a released carrier refuses further reads; mixing devices raises ``DeviceMismatch``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pytest

import stridewave.array_api as xp
from stridewave.array_api._array import Array
from stridewave.array_api._backend import Backend
from stridewave.array_api._messages import DeviceMismatch
from stridewave.array_api._places import PLACES, Place, carrier_for
from stridewave.dtypes import DType, standard_dtypes

from .conftest import place_param

STD = standard_dtypes()

#: The protocol's members: its methods and its declared attributes.
MEMBERS = sorted(
    {name for name in vars(Backend) if not name.startswith("_")} | set(Backend.__annotations__)
)

#: A dtype no spec carrier stores: its results live in the extension carrier.
EXTENSION_DTYPE = STD["uint8"]


def _rows(module: str) -> list[Place]:
    return [row for row in PLACES if row.backend_module == module]


class BackendContract:
    """The contract every backend keeps; a subclass supplies ``device`` (and may ``make``).

    Attributes
    ----------
    backend_module : str
        The module of the backend under test, as the rows name it.
    defaults : tuple of str
        The names of the expected ``"real floating"``, ``"complex floating"`` and
        ``"integral"`` default dtypes (the computing library's own).
    """

    backend_module: ClassVar[str]
    defaults: ClassVar[tuple[str, str, str]]

    @pytest.fixture
    def device(self) -> xp.Device:
        """Each device the backend computes for (a subclass overrides this)."""
        raise NotImplementedError

    def make(self, device: xp.Device, values: Any, dtype: DType) -> Array:
        """Return a fresh writable Array of ``values`` on ``device``."""
        return xp.asarray(np.asarray(values), dtype=dtype, device=device)

    # -- the protocol ------------------------------------------------------------------

    def test_every_member_of_the_protocol_is_present(self, device: xp.Device) -> None:
        backend = device.backend
        missing = [name for name in MEMBERS if not hasattr(backend, name)]
        assert not missing, f"{device}'s backend lacks {missing}"
        assert isinstance(backend.host_addressable, bool)
        assert isinstance(backend.has_direct, bool)
        assert device.has_direct is backend.has_direct is device.place.has_direct
        assert backend.host_addressable is device.place.host_addressable
        assert device.place.backend_module == self.backend_module

    def test_the_dtypes_are_the_rows(self, device: xp.Device) -> None:
        row, backend = device.place, device.backend
        assert tuple(d for d in STD.values() if d in backend.dtypes()) == row.dtypes()
        info = xp.__array_namespace_info__()
        assert tuple(info.dtypes(device=device).values()) == row.dtypes()
        held = frozenset(getattr(backend, "held", ()))  # (only a backend that holds any)
        assert held == row.host_held()
        for dtype in row.device_dtypes():
            assert carrier_for(row.name, dtype) in (row.spec_carrier, row.extension_carrier)
        # The backend also stores float16 and bfloat16, which dtypes() never lists.
        half = {xp.float16, xp.bfloat16}
        assert half <= set(backend.dtypes())
        assert not half & set(info.dtypes(device=device).values())
        for dtype in half:
            assert carrier_for(row.name, dtype) is row.extension_carrier

    def test_the_default_dtypes_are_the_computing_librarys(self, device: xp.Device) -> None:
        defaults = xp.__array_namespace_info__().default_dtypes(device=device)
        assert set(defaults.values()) <= set(device.backend.dtypes())
        found = (defaults["real floating"], defaults["complex floating"], defaults["integral"])
        assert found == tuple(getattr(xp, name) for name in self.defaults)
        assert defaults["indexing"] is defaults["integral"]

    # -- reading and adopting ----------------------------------------------------------

    def test_read_gives_the_values_without_a_copy_where_host_addressable(
        self, device: xp.Device
    ) -> None:
        backend = device.backend
        x = self.make(device, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], DType.Float32)
        for tensor, expected in ((x, [1, 2, 3, 4, 5, 6]), (x[1::2], [2, 4, 6])):
            native = backend.read(tensor)
            np.testing.assert_array_equal(np.asarray(native), expected)
            if backend.host_addressable:
                assert np.shares_memory(native, np.asarray(x.carrier))

    @pytest.mark.parametrize("dtype", [DType.Float32, EXTENSION_DTYPE], ids=lambda d: d.name)
    def test_adopting_a_fresh_result_gives_the_rows_carrier_class(
        self, device: xp.Device, dtype: DType
    ) -> None:
        backend, row = device.backend, device.place
        x = self.make(device, [1, 2, 3], dtype)
        native = backend.ns.add(backend.read(x), backend.read(x))
        carrier, layout, offset, token = backend.adopt(native, (x,))
        if carrier is None:  # (a fresh result whose carrier is made when first asked)
            carrier, token = backend.materialize(token)
        expected = row.spec_carrier if dtype is DType.Float32 else row.extension_carrier
        assert type(carrier) is expected
        assert (layout.shape, offset) == ((3,), 0)
        y = x + x
        assert type(y.carrier) is expected
        assert y.device is device
        np.testing.assert_array_equal(np.asarray(y.to_device(xp.Device("CPU"))), [2, 4, 6])

    # -- versions and release ----------------------------------------------------------

    def test_a_write_after_a_read_advances_the_version_once(self, device: xp.Device) -> None:
        backend = device.backend
        x = self.make(device, [1.0, 2.0, 3.0], DType.Float32)
        before = x.carrier.version
        backend.read(x)
        assert x.carrier.version == before  # (a read is no write)
        x[0] = 5.0
        assert x.carrier.version == before + 1
        np.testing.assert_array_equal(np.asarray(backend.read(x)), [5.0, 2.0, 3.0])
        x += 1.0
        assert x.carrier.version == before + 2
        np.testing.assert_array_equal(np.asarray(backend.read(x)), [6.0, 3.0, 4.0])

    def test_a_released_carrier_refuses_further_reads(self, device: xp.Device) -> None:
        backend = device.backend
        x = self.make(device, [1.0, 2.0, 3.0], DType.Float32)
        backend.read(x)  # (a read before: nothing kept from it may answer after)
        x.carrier.release()
        with pytest.raises(RuntimeError, match="released"):
            backend.read(x)
        with pytest.raises(RuntimeError, match="released"):
            xp.add(x, 1.0)

    # -- devices -----------------------------------------------------------------------

    @pytest.mark.parametrize(
        "shapes", [((3,), (3,)), ((3,), (4,))], ids=["same", "unbroadcastable"]
    )
    def test_mixing_devices_raises_device_mismatch_before_shapes_are_looked_at(
        self, device: xp.Device, shapes: tuple[tuple[int, ...], tuple[int, ...]]
    ) -> None:
        other = xp.Device("Generic" if device.name == "CPU" else "CPU")
        a = self.make(device, np.ones(shapes[0]), DType.Float32)
        b = xp.ones(shapes[1], device=other)
        for call in (xp.add, xp.multiply, lambda x, y: x + y, lambda x, y: y - x):
            with pytest.raises(DeviceMismatch, match="different devices"):
                call(a, b)
        assert issubclass(DeviceMismatch, ValueError)


class TestHostBackend(BackendContract):
    """The host backend (NumPy through ``array_api_compat``): CPU, FileBacked, Generic."""

    backend_module = "stridewave.array_api._host"
    defaults = ("float64", "complex128", "int64")

    @pytest.fixture(params=[place_param(row) for row in _rows(backend_module)])
    def device(self, request: pytest.FixtureRequest) -> xp.Device:
        """Each host device."""
        return xp.Device(request.param)


class TestMLXBackend(BackendContract):
    """The MLX backend (``mlx.core``): Metal, skipped where ``mlx`` is not importable."""

    backend_module = "stridewave.array_api._mlx_backend"
    defaults = ("float32", "complex64", "int64")

    @pytest.fixture(params=[place_param(row) for row in _rows(backend_module)])
    def device(self, request: pytest.FixtureRequest) -> xp.Device:
        """The Metal device."""
        return xp.Device(request.param)


def test_every_rows_backend_has_a_subclass_of_the_contract() -> None:
    covered = {cls.backend_module for cls in BackendContract.__subclasses__()}
    assert {row.backend_module for row in PLACES} == covered
