"""The shared carrier contract (stridewave.testing.CarrierTests), once per built-in kind.

Each class below runs the whole contract, its stateful model test included, against
one entry of the kind table, and the scatter contract where the kind scatters; test
names follow the spec's Scenarios where one applies.
"""

from __future__ import annotations

from stridewave.testing import BUILTIN_KINDS, NPY_FILE_KIND, CarrierTests, Kind, ScatterTests

_BY_NAME = {k.name: k for k in BUILTIN_KINDS}


def _kind(name: str) -> Kind:
    return _BY_NAME[name]


class TestGeneric(CarrierTests, ScatterTests):
    kind = _kind("Generic")


class TestCPU(CarrierTests, ScatterTests):
    kind = _kind("CPU")


class TestCPUFromNumpy(CarrierTests, ScatterTests):
    kind = _kind("CPU.from_numpy")


class TestFileBacked(CarrierTests):  # FileBacked does not scatter (spec)
    kind = _kind("FileBacked")


class TestNpyFile(CarrierTests, ScatterTests):
    kind = NPY_FILE_KIND


class TestEvictableCPUOverFileBacked(CarrierTests, ScatterTests):
    kind = _kind("Evictable(CPU/FileBacked)")


class TestEvictableCPUOverFileBackedEvicted(CarrierTests, ScatterTests):
    kind = _kind("Evictable(CPU/FileBacked)-evicted")


class TestEvictableGenericOverCPU(CarrierTests, ScatterTests):
    kind = _kind("Evictable(Generic/CPU)")


class TestEvictableGenericOverCPUEvicted(CarrierTests, ScatterTests):
    kind = _kind("Evictable(Generic/CPU)-evicted")


class TestMetal(CarrierTests, ScatterTests):
    kind = _kind("Metal")


class TestEvictableMetalOverCPU(CarrierTests, ScatterTests):
    kind = _kind("Evictable(Metal/CPU)")


class TestEvictableMetalOverCPUEvicted(CarrierTests, ScatterTests):
    kind = _kind("Evictable(Metal/CPU)-evicted")


class TestEvictableMetalOverFileBackedEvicted(CarrierTests, ScatterTests):
    kind = _kind("Evictable(Metal/FileBacked)-evicted")


def _kinds_tested_here(suite: type[object]) -> set[str]:
    # Only this module's classes: the extension carriers' contract classes subclass the
    # same suites in their own module, and a whole-suite run imports both.
    return {
        cls.kind.name
        for cls in suite.__subclasses__()
        if hasattr(cls, "kind") and cls.__module__ == __name__
    }


def test_every_builtin_kind_has_a_contract_class() -> None:
    tested = _kinds_tested_here(CarrierTests)
    assert tested >= set(_BY_NAME)
    scattering = _kinds_tested_here(ScatterTests)
    assert scattering == {k.name for k in (*BUILTIN_KINDS, NPY_FILE_KIND) if k.scatters}
