"""Scatter benchmark: ``CPU.scatter`` of 10**7 Float32 values against NumPy, same run.

Run ``python benchmarks/bench_scatter.py [--repeat N]`` (or ``nox -s bench``).  Each
figure is the best of N runs (``time.perf_counter``); ratios divide the stridewave
time by the NumPy reference measured in the same process, so they hold across
machines better than the absolute times.

Cases (targets in the last column):

* contiguous: mapping ``Layout((n,))`` vs ``numpy.copyto(dst, src)``;
* reversed: mapping ``Layout((n,), (-1,))`` vs ``numpy.copyto(dst, src)`` (the
  bandwidth floor) and vs ``numpy.copyto(dst[::-1], src)``;
* transpose: 2000 x 5000 mapping ``Layout((2000, 5000), (1, 2000))`` vs
  ``numpy.copyto`` into the same ``as_strided`` view;
* overlap: a general overlapping mapping (no zero stride), resolved by
  ``numpy.maximum.at`` (last occurrence per slot), vs the same fancy assignment;
* zero stride: a (1000, 1000) source onto 1000 slots through strides (0, 1) vs
  NumPy's fancy assignment ``dst[idx] = src`` with the same index array (which
  promises no winner; stridewave's last logical index wins).
"""

from __future__ import annotations

import argparse
import os
import platform
from collections.abc import Callable

import numpy as np
from _timing import best_of, print_ratio_table

from stridewave import CPU, DType, Layout, Tensor


def main(argv: list[str] | None = None) -> list[tuple[str, float, str, float, float, str]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="runs per figure (best is kept)")
    parser.add_argument("--n", type=int, default=10**7, help="Float32 values per scatter")
    args = parser.parse_args(argv)
    n, repeat = args.n, args.repeat

    rng = np.random.default_rng(0)
    src_np = rng.random(n, dtype=np.float32)
    dst = CPU(n, dtype=DType.Float32)
    src = Tensor(dst.new_like(src_np), Layout((n,)))
    onto = Tensor(dst, Layout((n,)))
    dst_np = np.zeros(n, np.float32)
    rows, cols = 2000, n // 2000

    results = []

    def case(
        name: str, ours: Callable[[], object], ref_name: str, ref: Callable[[], object], target: str
    ) -> None:
        t_ours = best_of(ours, repeat)
        t_ref = best_of(ref, repeat)
        results.append((name, t_ours, ref_name, t_ref, t_ours / t_ref, target))

    contiguous = Layout((n,))
    case(
        "contiguous",
        lambda: dst.scatter(src, onto, contiguous),
        "copyto(dst, src)",
        lambda: np.copyto(dst_np, src_np),
        "<= 1.2",
    )
    reverse = Layout((n,), (-1,))
    case(
        "reversed",
        lambda: dst.scatter(src, onto, reverse, n - 1),
        "copyto(dst, src)",
        lambda: np.copyto(dst_np, src_np),
        "<= 1.2",
    )
    flipped = dst_np[::-1]
    case(
        "reversed",
        lambda: dst.scatter(src, onto, reverse, n - 1),
        "copyto(dst[::-1], src)",
        lambda: np.copyto(flipped, src_np),
        "",
    )

    tsrc = Tensor(src.carrier, Layout((rows, cols)))
    transpose = Layout((rows, cols), (1, rows))
    view = np.lib.stride_tricks.as_strided(dst_np, (rows, cols), (4, 4 * rows))
    src_2d = src_np[: rows * cols].reshape(rows, cols)
    case(
        "transpose 2000x5000",
        lambda: dst.scatter(tsrc, onto, transpose),
        "copyto(as_strided view)",
        lambda: np.copyto(view, src_2d),
        "<= 0.6",
    )

    side = 1000
    zsrc = Tensor(src.carrier, Layout((side, side)))
    zero = Layout((side, side), (0, 1))
    idx = zero.indices()
    flat = src_np[: side * side]
    small = dst_np[:side]
    case(
        "zero stride 1000x1000->1000",
        lambda: dst.scatter(zsrc, onto, zero),
        "dst[idx] = src (fancy)",
        lambda: small.__setitem__(idx, flat),
        "<= 1.3",
    )

    rows_o, cols_o = n // 4000, 4000
    osrc = Tensor(src.carrier, Layout((rows_o, cols_o)))
    overlap = Layout((rows_o, cols_o), (1000, 1))  # rows overlap by 3000 slots
    oidx = overlap.indices()
    case(
        f"overlap {rows_o}x{cols_o} (1000, 1)",
        lambda: dst.scatter(osrc, onto, overlap),
        "dst[idx] = src (fancy)",
        lambda: dst_np.__setitem__(oidx, src_np[: rows_o * cols_o]),
        "",
    )

    print(
        f"scatter of {n} Float32 values, best of {repeat}; {platform.processor() or platform.machine()}"
        f", {os.cpu_count()} cores, numpy {np.__version__}"
    )
    print_ratio_table(results, case_width=28, ref_width=24)
    return results


if __name__ == "__main__":
    main()
