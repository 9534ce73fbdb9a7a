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


def print_ratio_table(
    rows: list[tuple[str, float, str, float, float, str]],
    *,
    case_width: int,
    ref_width: int,
    reference: str = "NumPy",
) -> None:
    """Print ``(case, ours s, reference code, reference s, ratio, target)`` rows as Markdown.

    ``reference`` names the library the ratios are against (``NumPy``, ``MLX``).
    """
    print(
        f"| {'case':<{case_width}} | {'stridewave ms':>13} | {reference + ' reference':<{ref_width}} "
        f"| {reference + ' ms':>8} | {'ratio':>6} | {'target':<6} |"
    )
    print(
        f"|{'-' * (case_width + 2)}|{'-' * 15}|{'-' * (ref_width + 2)}|{'-' * 10}|"
        f"{'-' * 8}|{'-' * 8}|"
    )
    for name, ours, ref_name, ref, ratio, target in rows:
        print(
            f"| {name:<{case_width}} | {ours * 1e3:13.2f} | {ref_name:<{ref_width}} "
            f"| {ref * 1e3:8.2f} | {ratio:6.2f} | {target:<6} |"
        )
