"""One frozen row per place answers every question about a device.

The table of places (``stridewave.array_api._places.PLACES``) is the one source: the
device names and spellings, which carrier class stores a dtype there
(``carrier_for``), which place a carrier's storage is (``device_of``), the devices
``__array_namespace_info__`` lists, and where each dtype computes.
"""

from __future__ import annotations

import dataclasses
import pickle
from typing import Any

import numpy as np
import pytest

import stridewave.array_api as xp
from stridewave import CPU, DType, FileBacked, Generic, Metal
from stridewave.array_api._places import (
    NAMES,
    PLACES,
    SPELLINGS,
    carrier_for,
    device_of,
    device_storage_dtypes,
    place,
)
from stridewave.carriers._extension import (
    CPUExtension,
    FileBackedExtension,
    GenericExtension,
    MetalExtension,
)
from stridewave.dtypes import standard_dtypes

STD = standard_dtypes()


def test_a_row_is_frozen_and_names_one_place() -> None:
    row = place("CPU")
    with pytest.raises(dataclasses.FrozenInstanceError):
        row.name = "GPU"  # type: ignore[misc]
    assert NAMES == ("CPU", "FileBacked", "Generic", "Metal")
    assert len({p.short for p in PLACES}) == len(PLACES)
    for p in PLACES:
        assert issubclass(p.extension_carrier, p.spec_carrier)
        assert SPELLINGS[p.short] == SPELLINGS[p.name.lower()] == p.name
        assert all(SPELLINGS[alias] == p.name for alias in p.aliases)
    with pytest.raises(ValueError, match="unknown device"):
        place("cpu")  # (the exact name; Device() takes the spellings)


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_every_spelling_of_the_table_gives_its_one_device(spelling: str) -> None:
    device = xp.Device(spelling.upper() if spelling == "cpu" else f" {spelling} ")
    assert device.name == SPELLINGS[spelling]
    assert device.place is place(device.name)
    assert device.has_direct is device.place.has_direct
    assert pickle.loads(pickle.dumps(device)) is device
    assert device.__reduce__() == (xp.Device, (device.name,))
    with pytest.raises(AttributeError):
        device.name = "CPU"
    assert not hasattr(device, "kind")  # ("kind" is a carrier kind, a dtype kind)


def test_the_listed_devices_are_the_rows_that_can_run_here() -> None:
    listed = xp.__array_namespace_info__().devices()
    assert listed == [xp.Device(p.name) for p in PLACES if p.available()[0]]
    assert listed[:3] == [xp.Device("CPU"), xp.Device("FileBacked"), xp.Device("Generic")]


def test_the_device_of_a_carrier_class_is_the_row_that_lists_it() -> None:
    from stridewave.array_api._device import as_device

    for p in PLACES:
        for kind in p.kinds:
            assert as_device(kind) is xp.Device(p.name)


def test_every_place_stores_all_thirteen_and_says_where_each_computes() -> None:
    for p in PLACES:
        assert p.dtypes() == tuple(STD.values())
        for dtype in STD.values():
            expected = "host" if dtype in p.host_held() else "device"
            assert p.computes_on(dtype) == expected
    assert all(not p.host_held() for p in PLACES if p.host_addressable)
    assert STD["complex128"] in place("Metal").host_held()  # (MLX has no complex128)
    with pytest.raises(TypeError, match="thirteen standard dtypes"):
        place("CPU").computes_on(DType.E4M3)


def test_carrier_for_gives_the_spec_carrier_first_then_the_extension() -> None:
    assert carrier_for("CPU", STD["float32"]) is CPU
    assert carrier_for("CPU", STD["float64"]) is CPUExtension
    assert carrier_for("Generic", STD["bool"]) is Generic
    assert carrier_for("Generic", STD["int8"]) is GenericExtension
    assert carrier_for("FileBacked", STD["bool"]) is FileBackedExtension
    assert carrier_for("FileBacked", STD["int32"]) is FileBacked
    assert carrier_for("Metal", STD["int32"]) is Metal
    assert carrier_for("Metal", STD["uint8"]) is MetalExtension
    for device in ("CPU", "FileBacked", "Generic"):
        assert device_storage_dtypes(device) == tuple(STD.values())


def test_carrier_for_names_the_device_its_dtypes_and_one_that_has_the_dtype() -> None:
    with pytest.raises(TypeError) as info:
        carrier_for("Metal", STD["complex128"])
    text = str(info.value)
    assert "'Metal'" in text and "Complex64" in text and "'CPU'" in text
    with pytest.raises(ValueError, match="unknown device"):
        carrier_for("GPU", STD["float32"])
    with pytest.raises(TypeError, match="takes a DType"):
        carrier_for("CPU", np.float32)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="does not store"):
        carrier_for("CPU", DType.E4M3)


def test_device_of_names_the_place_whatever_class_holds_the_dtype(tmp_path: Any) -> None:
    from stridewave import Evictable
    from stridewave.carriers import NpyFile

    np.save(tmp_path / "a.npy", np.arange(3, dtype=np.float32))
    assert device_of(CPU(1)) == device_of(CPUExtension(1, dtype=STD["int64"])) == "CPU"
    assert device_of(GenericExtension([1j], dtype=STD["complex64"])) == "Generic"
    assert device_of(FileBackedExtension(dtype=STD["uint8"])) == "FileBacked"
    assert device_of(NpyFile(str(tmp_path / "a.npy"))) == "FileBacked"
    tiers = Evictable(CPUExtension(1, dtype=STD["int16"]), FileBackedExtension(dtype=STD["int16"]))
    assert device_of(tiers) == "CPU"
    with pytest.raises(TypeError, match="shipped kind"):
        device_of(object())  # type: ignore[arg-type]


def test_a_carrier_of_no_place_is_refused_naming_the_places_kinds() -> None:
    from stridewave.array_api._device import carrier_device

    with pytest.raises(TypeError) as info:
        carrier_device(object())  # type: ignore[arg-type]
    text = str(info.value)
    assert "no device for carrier kind object" in text
    assert all(row.spec_carrier.__name__ in text for row in PLACES)
