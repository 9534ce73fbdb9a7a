"""The one timing helper the benchmark scripts share."""

from __future__ import annotations

import time
from collections.abc import Callable


def best_of(
    fn: Callable[[], object],
    repeat: int,
    *,
    setup: Callable[[], object] | None = None,
    number: int = 1,
    warmup: bool = True,
) -> float:
    """Best wall time per call of ``fn``, in seconds, over ``repeat`` rounds.

    ``setup`` (untimed) runs before each round; each round times ``number`` calls.
    One untimed warm-up call first pages the buffers in, unless ``warmup=False``.
    """
    if warmup:
        if setup is not None:
            setup()
        fn()
    times = []
    for _ in range(repeat):
        if setup is not None:
            setup()
        start = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - start) / number)
    return min(times)
