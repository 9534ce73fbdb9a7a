"""Microscaling benchmark: ``stridewave.mx.quantize`` on 10**7 float32 against a plain cast.

Run ``python benchmarks/bench_mx.py [--repeat N] [--n N]`` (or ``nox -s bench``). Each
figure is the best of N runs (``time.perf_counter``), both sides in the same process;
the ratio divides the stridewave time by the NumPy one.

Cases (target in the last column):

* ``quantize(x, MXFP8_E4M3)``: block maxima, E8M0 scales, scaled elements rounded to
  E4M3 (blocks of 32) vs ``x.astype(ml_dtypes.float8_e4m3fn)``, the element cast
  alone with no scaling; target <= 3x.
* the other element types, each against the cast to its own element type (shown,
  no target: the cast's own cost varies fivefold between types).
* ``dequantize`` (MXFP8_E4M3) vs ``elements.astype(numpy.float32)``.
"""

from __future__ import annotations

import argparse

import numpy as np
from _timing import best_of, print_ratio_table

import stridewave as sw
from stridewave import mx


def main(argv: list[str] | None = None) -> list[tuple[str, float, str, float, float, str]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure (best is kept)")
    parser.add_argument("--n", type=int, default=10**7, help="float32 values")
    args = parser.parse_args(argv)
    values = np.random.default_rng(0).normal(size=args.n).astype(np.float32)
    rows = []
    for element in mx.ELEMENT_NAMES:
        fmt = mx.scaled_dtype(element)
        np_element = sw.to_numpy_dtype(fmt.element)
        ours = best_of(lambda fmt=fmt: mx.quantize(values, fmt), args.repeat)
        ref = best_of(lambda t=np_element: values.astype(t), args.repeat)
        target = "<= 3x" if element == "E4M3" else ""
        rows.append(
            (
                f"quantize {fmt.name}",
                ours,
                f"astype({np_element})",
                ref,
                ours / ref,
                target,
            )
        )
    fmt = mx.scaled_dtype("E4M3")
    q = mx.quantize(values, fmt)
    ours = best_of(lambda: mx.dequantize(q.elements, q.scales, fmt), args.repeat)
    ref = best_of(lambda: q.elements.astype(np.float32), args.repeat)
    rows.append(("dequantize MXFP8_E4M3", ours, "astype(float32)", ref, ours / ref, ""))
    print(f"{args.n:,} float32 values, best of {args.repeat}")
    print_ratio_table(rows, case_width=24, ref_width=24)
    return rows


if __name__ == "__main__":
    main()
