"""Microscaling benchmark: ``stridewave.mx`` on 2**24 float32 against NumPy and MLX.

Run ``python benchmarks/bench_mx.py [--repeat N] [--size N] [--parts host,metal]`` (or
``nox -s bench``; ``--n`` is ``--size``). Each figure is the best of N runs
(``time.perf_counter``), both sides in the same process; the ratio divides the
stridewave time by the reference's. With ``STRIDEWAVE_METAL_DEVICE=cpu`` the Metal part
runs on MLX's CPU device; ``--size 1048576`` takes well under a minute there.

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

Metal part (skipped, saying so, where MLX is not installed or has no device here): the
values as an ``mlx.core.array`` of shape ``(size // 1024, 1024)`` on the MLX device the
Metal carriers use (``STRIDEWAVE_METAL_DEVICE``), against MLX's own
``mlx.core.quantize(x, mode="mxfp8" / "mxfp4")`` on that array, every result waited for
(``mlx.core.eval``). The stridewave side reads the array on the host
(``numpy.asarray``), quantizes under the scale rule MLX 0.32.4 applies (``"ceil"``),
puts the planes in MLX's layout (``mx.to_mlx``) and hands them to MLX
(``mlx.core.array``); dequantizing goes back the same way (``mx.from_mlx``,
``mx.dequantize``, ``mlx.core.array``) against ``mlx.core.dequantize(..., dtype=float32)``.
A last column says whether the planes are MLX's bit for bit (docs/microscaling.md lists
where MLX's CPU kernels depart from the rule: E2M1 ties and signed zeros).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import numpy as np
from _timing import best_of, print_ratio_table

import stridewave as sw
from stridewave import mx

Row = tuple[str, float, str, float, float, str]

#: Values per row of the Metal part's matrix (MLX quantizes along the last axis).
_ROW = 1024


def main(argv: list[str] | None = None) -> list[Row]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure (best is kept)")
    parser.add_argument(
        "--size",
        "--n",
        dest="n",
        type=int,
        default=2**24,
        help="float32 values (a multiple of 1024)",
    )
    parser.add_argument(
        "--parts",
        default="host,metal",
        help="comma-separated: host (against NumPy), metal (against MLX)",
    )
    args = parser.parse_args(argv)
    parts = {p.strip() for p in args.parts.split(",") if p.strip()}
    if not parts <= {"host", "metal"} or args.n <= 0 or args.n % _ROW:
        parser.error(
            f"--parts takes host and metal, --size a positive multiple of {_ROW}; got "
            f"--parts {args.parts!r}, --size {args.n}"
        )
    values = np.random.default_rng(0).normal(size=args.n).astype(np.float32)
    rows: list[Row] = []
    if "host" in parts:
        rows = _host_rows(values, args.repeat)
        print(f"{args.n:,} float32 values, best of {args.repeat}")
        print_ratio_table(rows, case_width=26, ref_width=26)
    if "metal" in parts:
        metal = _metal_rows(values, args.repeat)
        if metal:
            print()
            print_ratio_table(metal, case_width=30, ref_width=34, reference="MLX")
        rows += metal
    return rows


def _host_rows(values: np.ndarray[Any, Any], repeat: int) -> list[Row]:
    """The host part: ``stridewave.mx`` against NumPy's cast and blockwise maximum."""
    rows: list[Row] = []
    e4m3 = mx.scaled_dtype("E4M3")
    cast = sw.to_numpy_dtype(e4m3.element)

    def numpy_side() -> None:
        values.astype(cast)
        np.abs(values).reshape(-1, 32).max(axis=1)

    ref = best_of(numpy_side, repeat)
    for rule in mx.SCALE_RULES:
        ours = best_of(
            lambda rule=rule: mx.dequantize(mx.quantize(values, e4m3, scale_rule=rule), e4m3),
            repeat,
        )
        rows.append(
            (f"round trip E4M3 {rule}", ours, "astype(e4m3) + block max", ref, ours / ref, "<= 2x")
        )
    e2m1 = mx.scaled_dtype("E2M1")
    ours = best_of(
        lambda: mx.dequantize(mx.quantize(values, e2m1, scale_rule="ceil", packed=True), e2m1),
        repeat,
    )
    rows.append(("round trip E2M1 packed", ours, "astype(e4m3) + block max", ref, ours / ref, ""))
    for element in mx.ELEMENT_NAMES:
        fmt = mx.scaled_dtype(element)
        np_element = sw.to_numpy_dtype(fmt.element)
        ours = best_of(lambda fmt=fmt: mx.quantize(values, fmt), repeat)
        ref = best_of(lambda t=np_element: values.astype(t), repeat)
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
    ours = best_of(lambda: mx.dequantize(q.elements, q.scales, fmt), repeat)
    ref = best_of(lambda: q.elements.astype(np.float32), repeat)
    rows.append(("dequantize MXFP8_E4M3", ours, "astype(float32)", ref, ours / ref, ""))
    return rows


def _metal_rows(values: np.ndarray[Any, Any], repeat: int) -> list[Row]:
    """The Metal part: ``stridewave.mx`` through MLX's layout against ``mlx.core.quantize``.

    Returns no row, and says why on stderr, where MLX is not installed or cannot run.
    """
    from stridewave.carriers._mlx_runtime import import_mlx, select_device

    try:
        mlx = import_mlx()
        device, device_name = select_device(mlx)
    except RuntimeError as exc:
        print(f"Metal part skipped: {exc}", file=sys.stderr)
        return []
    matrix = values.reshape(-1, _ROW)
    with mlx.stream(device):
        x = mlx.array(matrix)
        mlx.eval(x)
    rows: list[Row] = []
    same: list[str] = []
    for mode, element in (("mxfp8", "E4M3"), ("mxfp4", "E2M1")):
        mode_rows, agreement = _metal_mode(mlx, device, x, mode, element, repeat)
        rows += mode_rows
        same.append(f"{mode}: {agreement}")
    print(
        f"Metal part: {values.size:,} float32 values as ({values.size // _ROW}, {_ROW}) on "
        f"{device_name}, MLX {getattr(mlx, '__version__', '?')}, best of {repeat}; "
        f"planes vs MLX's: {'; '.join(same)}"
    )
    return rows


def _metal_mode(
    mlx: Any, device: Any, x: Any, mode: str, element: str, repeat: int
) -> tuple[list[Row], str]:
    """Quantize and dequantize rows for one MLX mode, and whether the planes agree."""
    fmt = mx.scaled_dtype(element)
    packed = element == "E2M1"

    def ours_quantize() -> tuple[Any, Any]:
        q = mx.quantize(np.asarray(x), fmt, scale_rule="ceil", packed=packed)
        w_q, scales = mx.to_mlx(q)
        with mlx.stream(device):
            planes = mlx.array(w_q), mlx.array(scales)
            mlx.eval(*planes)
        return planes

    def mlx_quantize() -> tuple[Any, Any]:
        with mlx.stream(device):
            planes = mlx.quantize(x, mode=mode)[:2]
            mlx.eval(*planes)
        return planes

    (our_w, our_s), (ref_w, ref_s) = ours_quantize(), mlx_quantize()
    words = np.asarray(our_w) != np.asarray(ref_w)
    scales_equal = np.array_equal(np.asarray(our_s), np.asarray(ref_s))
    agreement = (
        "bit for bit"
        if scales_equal and not words.any()
        else f"scales {'equal' if scales_equal else 'DIFFER'}, "
        f"{words.mean():.1%} of element words differ"
    )

    def ours_dequantize() -> Any:
        q = mx.from_mlx(np.asarray(ref_w), np.asarray(ref_s), mode, packed=packed)
        with mlx.stream(device):
            out = mlx.array(mx.dequantize(q, fmt))
            mlx.eval(out)
        return out

    def mlx_dequantize() -> Any:
        with mlx.stream(device):
            out = mlx.dequantize(ref_w, ref_s, mode=mode, dtype=mlx.float32)
            mlx.eval(out)
        return out

    rows: list[Row] = []
    for case, ours_fn, ref_code, ref_fn in (
        (f"quantize {fmt.name} ceil", ours_quantize, f'mlx.quantize(mode="{mode}")', mlx_quantize),
        (
            f"dequantize {fmt.name}",
            ours_dequantize,
            f'mlx.dequantize(mode="{mode}")',
            mlx_dequantize,
        ),
    ):
        ours, ref = best_of(ours_fn, repeat), best_of(ref_fn, repeat)
        rows.append((case, ours, ref_code, ref, ours / ref, ""))
    return rows, agreement


if __name__ == "__main__":
    main()
