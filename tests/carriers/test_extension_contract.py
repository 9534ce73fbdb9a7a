"""The shared carrier contract on the extension carriers, every standard dtype they store.

The extension carriers (one per device) hold the array API standard's dtypes that the
five spec carriers do not; each runs the whole contract (and the scatter contract
where it scatters) through stridewave.testing, once per dtype it stores.
"""

from __future__ import annotations

from stridewave.testing import CarrierTests, Kind, ScatterTests, extension_kinds

_BY_NAME = {k.name: k for k in extension_kinds()}


def _kind(name: str) -> Kind:
    return _BY_NAME[name]


class TestGenericExtension(CarrierTests, ScatterTests):
    kind = _kind("GenericExtension")


class TestCPUExtension(CarrierTests, ScatterTests):
    kind = _kind("CPUExtension")


class TestCPUExtensionFromNumpy(CarrierTests, ScatterTests):
    kind = _kind("CPUExtension.from_numpy")


class TestFileBackedExtension(CarrierTests):  # like FileBacked, it does not scatter
    kind = _kind("FileBackedExtension")


class TestEvictableCPUExtensionOverFileBackedExtension(CarrierTests, ScatterTests):
    kind = _kind("Evictable(CPUExtension/FileBackedExtension)")


class TestEvictableCPUExtensionOverFileBackedExtensionEvicted(CarrierTests, ScatterTests):
    kind = _kind("Evictable(CPUExtension/FileBackedExtension)-evicted")


class TestMetalExtension(CarrierTests, ScatterTests):
    kind = _kind("MetalExtension")


def test_every_extension_kind_has_a_contract_class() -> None:
    tested = {cls.kind.name for cls in CarrierTests.__subclasses__() if hasattr(cls, "kind")}
    assert tested >= set(_BY_NAME)
