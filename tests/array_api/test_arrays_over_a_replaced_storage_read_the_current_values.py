"""An Array reads its carrier's current storage, even where the storage is replaced.

The host backend keeps an Array's NumPy view between operations, and takes a new one
when the carrier's ``version`` moves or its storage is replaced. An Evictable's
secondary tier is replaced at each eviction (a fresh buffer of the same size, loaded
with the values) without a version step of the tier: an Array over the secondary must
read the values of the latest eviction, not those of the first.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import stridewave as sw
import stridewave.array_api as xp


@pytest.mark.parametrize(
    "secondary",
    [lambda: sw.CPU(0), lambda: sw.Generic([], dtype=sw.DType.Float32)],
    ids=["CPU", "Generic"],
)
def test_an_array_over_an_evictables_secondary_reads_the_latest_eviction(
    secondary: Callable[[], sw.Carrier],
) -> None:
    tiers = sw.Evictable(sw.CPU(4), secondary())
    for i in range(4):
        tiers[i] = float(i)
    tiers.evict()
    x = xp.asarray(sw.Tensor(tiers.secondary, sw.Layout((4,))))
    assert x.carrier is tiers.secondary
    assert np.asarray(x + 0).tolist() == [0.0, 1.0, 2.0, 3.0]
    version, size = tiers.secondary.version, tiers.secondary.size()
    tiers.promote()
    tiers[0] = 10.0
    tiers.evict()
    # the same version and size, in a new buffer
    assert (tiers.secondary.version, tiers.secondary.size()) == (version, size)
    assert np.asarray(x + 0).tolist() == [10.0, 1.0, 2.0, 3.0]
    assert float(xp.sum(x)) == 16.0
    assert np.asarray(x).tolist() == [10.0, 1.0, 2.0, 3.0]
