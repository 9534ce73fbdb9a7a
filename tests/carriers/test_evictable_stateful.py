"""The Evictable state machine (stridewave.testing.EvictableTests), per pair of tiers.

Writes, scatter, evict, promote, new_like and release interleave with injected faults
(a full disk on eviction, a failed allocation on promotion); after every step the
values, version and residency agree with a plain-Python model.
"""

from __future__ import annotations

from stridewave import CPU, Carrier, DType, FileBacked, Generic
from stridewave.testing import EvictableTests

F32 = DType.Float32


class TestEvictableCPUOverFileBacked(EvictableTests):
    def make_tiers(self, values: list[float]) -> tuple[Carrier, Carrier]:
        return CPU(0, dtype=F32).new_like(values), FileBacked(dtype=F32)


class TestEvictableGenericOverCPU(EvictableTests):
    def make_tiers(self, values: list[float]) -> tuple[Carrier, Carrier]:
        return Generic(values, dtype=F32), CPU(0, dtype=F32)
