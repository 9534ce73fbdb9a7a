"""A fresh CPU result makes its carrier on first use, once, whichever thread asks first."""

from __future__ import annotations

import sys
import threading

import numpy as np

import stridewave.array_api as xp
from stridewave import Carrier


def test_a_fresh_result_makes_its_carrier_over_its_own_values_at_version_zero() -> None:
    x = xp.asarray(np.arange(4, dtype=np.float32))
    y = x + 1
    carrier = y.carrier
    assert carrier is y.carrier
    assert carrier.version == 0
    np.testing.assert_array_equal(np.asarray(carrier), [1, 2, 3, 4])
    y[0] = 10.0
    assert carrier.version == 1
    np.testing.assert_array_equal(np.asarray(y + 0), [10, 2, 3, 4])


def test_threads_racing_for_a_fresh_results_carrier_all_get_the_same_one() -> None:
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        x = xp.asarray(np.arange(64, dtype=np.float32))
        for _ in range(50):
            y = x * 2
            barrier = threading.Barrier(4)
            seen: list[Carrier] = []

            def take(
                y: xp.Array = y, barrier: threading.Barrier = barrier, seen: list[Carrier] = seen
            ) -> None:
                barrier.wait()
                seen.append(y.carrier)

            threads = [threading.Thread(target=take) for _ in range(4)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            assert len(seen) == 4
            assert all(c is seen[0] for c in seen)
            y[0] = -1.0  # a write lands in the one carrier every thread saw
            assert seen[0].version == 1
            assert float(y[0]) == -1.0
    finally:
        sys.setswitchinterval(old)
