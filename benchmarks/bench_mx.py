"""Microscaling benchmark: ``stridewave.mx`` on 2**24 float32 against NumPy's own cost.

Run ``python benchmarks/bench_mx.py [--repeat N] [--n N]`` (or ``nox -s bench``). Each
figure is the best of N runs (``time.perf_counter``), both sides in the same process;
the ratio divides the stridewave time by the NumPy one.

Cases (target in the last column):

* ``quantize`` then ``dequantize`` (MXFP8_E4M3, blocks of 32), once per scale rule,
  and MXFP4_E2M1 packed under MLX's rule, vs NumPy's
  ``x.astype(ml_dtypes.float8_e4m3fn)`` plus the blockwise maximum
  ``abs(x).reshape(-1, 32).max(axis=1)`` of the same data; target <= 2x.

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
    parser.add_argument("--n", type=int, default=2**24, help="float32 values (a multiple of 32)")
    args = parser.parse_args(argv)
    values = np.random.default_rng(0).normal(size=args.n).astype(np.float32)
    rows = []
    e4m3 = mx.scaled_dtype("E4M3")
    cast = sw.to_numpy_dtype(e4m3.element)

    def numpy_side() -> None:
        values.astype(cast)
        np.abs(values).reshape(-1, 32).max(axis=1)

    ref = best_of(numpy_side, args.repeat)
    for rule in mx.SCALE_RULES:
        ours = best_of(
            lambda rule=rule: mx.dequantize(mx.quantize(values, e4m3, scale_rule=rule), e4m3),
            args.repeat,
        )
        rows.append(
            (f"round trip E4M3 {rule}", ours, "astype(e4m3) + block max", ref, ours / ref, "<= 2x")
        )
    e2m1 = mx.scaled_dtype("E2M1")
    ours = best_of(
        lambda: mx.dequantize(mx.quantize(values, e2m1, scale_rule="ceil", packed=True), e2m1),
        args.repeat,
    )
    rows.append(("round trip E2M1 packed", ours, "astype(e4m3) + block max", ref, ours / ref, ""))
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
    print_ratio_table(rows, case_width=26, ref_width=26)
    return rows


if __name__ == "__main__":
    main()
