"""The shared carrier contract (stridewave.testing.CarrierTests), once per built-in kind.

Each class below runs the whole contract, its stateful model test included, against
one entry of the kind table; test names follow the spec's Scenarios where one applies.
"""

from __future__ import annotations

from stridewave.testing import BUILTIN_KINDS, CarrierTests, Kind

_BY_NAME = {k.name: k for k in BUILTIN_KINDS}


def _kind(name: str) -> Kind:
    return _BY_NAME[name]


class TestGeneric(CarrierTests):
    kind = _kind("Generic")


class TestCPU(CarrierTests):
    kind = _kind("CPU")


class TestCPUFromNumpy(CarrierTests):
    kind = _kind("CPU.from_numpy")


class TestFileBacked(CarrierTests):
    kind = _kind("FileBacked")


class TestEvictableCPUOverFileBacked(CarrierTests):
    kind = _kind("Evictable(CPU/FileBacked)")


class TestEvictableCPUOverFileBackedEvicted(CarrierTests):
    kind = _kind("Evictable(CPU/FileBacked)-evicted")


class TestEvictableGenericOverCPU(CarrierTests):
    kind = _kind("Evictable(Generic/CPU)")


class TestEvictableGenericOverCPUEvicted(CarrierTests):
    kind = _kind("Evictable(Generic/CPU)-evicted")


class TestMetal(CarrierTests):
    kind = _kind("Metal")


class TestEvictableMetalOverCPU(CarrierTests):
    kind = _kind("Evictable(Metal/CPU)")


class TestEvictableMetalOverCPUEvicted(CarrierTests):
    kind = _kind("Evictable(Metal/CPU)-evicted")


class TestEvictableMetalOverFileBackedEvicted(CarrierTests):
    kind = _kind("Evictable(Metal/FileBacked)-evicted")


def test_every_builtin_kind_has_a_contract_class() -> None:
    tested = {cls.kind.name for cls in CarrierTests.__subclasses__() if hasattr(cls, "kind")}
    assert tested >= set(_BY_NAME)
