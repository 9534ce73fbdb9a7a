"""Where the array API's per-result time goes on Metal (issue 15), phase by phase.

Run on the device machine as an extra script of ``run_on_h200.sh`` (MLX on the GPU), or
here with ``STRIDEWAVE_METAL_DEVICE=cpu``. For each case it prints, best of several
rounds: raw MLX (op + ``mx.eval``, with and without a stream context), the
``stridewave.array_api`` call, and the pieces of the latter: reading the operands,
the op plus eval on what was read, and adopting an evaluated result. It then prints
MLX's active and cache memory across a loop of each side (whether result buffers go
back to MLX's cache), and a cProfile of the stridewave side (MLX's own calls show up
in their Python callers' own time).
"""

from __future__ import annotations

import cProfile
import io
import pstats
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import stridewave.array_api as xp
from stridewave.array_api._array import read, wrap_one
from stridewave.carriers._metal import _import_mlx, _select_device


def best(fn: Callable[[], Any], number: int, rounds: int = 7) -> float:
    """Best per-call time of ``fn`` in microseconds."""
    fn()
    out = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        out = min(out, (time.perf_counter() - start) / number)
    return out * 1e6


def measure(
    label: str, number: int, ours_fn: Any, raw_fn: Any, raw_args: Any, ours_args: Any, ctx: Any
) -> None:
    """Print one case's phases and memory figures."""
    mx, device, metal, _backend = ctx

    def raw_ctx() -> Any:
        with mx.stream(device):
            out = raw_fn(*raw_args)
        mx.eval(out)
        return out

    def raw_plain() -> Any:
        out = raw_fn(*raw_args)
        mx.eval(out)
        return out

    def raw_flat_twice() -> Any:
        out = raw_fn(*raw_args)
        mx.eval(out)
        flat = out.reshape(-1)
        mx.eval(flat)
        return flat

    def raw_flat_once() -> Any:
        flat = raw_fn(*raw_args).reshape(-1)
        mx.eval(flat)
        return flat

    flat_args = [mx.flatten(x) for x in raw_args]
    mx.eval(*flat_args)
    shapes = [x.shape for x in raw_args]

    def raw_reshaped() -> Any:  # the operands reshaped from 1-D per call, as read() does
        out = raw_fn(*[f.reshape(sh) for f, sh in zip(flat_args, shapes, strict=True)])
        out = out.reshape(-1)
        mx.eval(out)
        return out

    def raw_async() -> Any:  # scheduled, then awaited (what a settled result costs)
        out = raw_fn(*raw_args).reshape(-1)
        mx.async_eval(out)
        mx.eval(out)
        return out

    def ours() -> Any:
        out = ours_fn(*ours_args)
        mx.eval(out._carrier.mlx_array)  # its evaluation is scheduled, not awaited
        return out

    def ours_unsettled() -> Any:
        return ours_fn(*ours_args)

    def reads() -> Any:
        return [read(t, metal) for t in ours_args]

    arrays = reads()

    def op_on_read() -> Any:
        with mx.stream(device):
            out = raw_fn(*arrays)
        mx.eval(out)
        return out

    evaluated = raw_plain()

    def adopt() -> Any:
        return wrap_one(evaluated, metal)

    figures = {
        "raw (stream ctx)": best(raw_ctx, number),
        "raw": best(raw_plain, number),
        "raw+eval+flat+eval": best(raw_flat_twice, number),
        "raw+flat+eval": best(raw_flat_once, number),
        "raw reshaped per call": best(raw_reshaped, number),
        "raw async+eval": best(raw_async, number),
        "ours": best(ours, number),
        "ours, not awaited": best(ours_unsettled, number),
        "read operands": best(reads, number),
        "op+eval on read": best(op_on_read, number),
        "adopt evaluated": best(adopt, number),
    }
    print(f"== {label}")
    print("  " + "  ".join(f"{k}: {v:8.1f} us" for k, v in figures.items()))
    for side, fn in (("raw", raw_plain), ("ours", ours)):
        mx.clear_cache()
        before = mx.get_active_memory(), mx.get_cache_memory()
        for _ in range(number):
            fn()
        after = mx.get_active_memory(), mx.get_cache_memory()
        print(
            f"  memory {side}: active {before[0] / 1e6:.1f} -> {after[0] / 1e6:.1f} MB, "
            f"cache {before[1] / 1e6:.1f} -> {after[1] / 1e6:.1f} MB"
        )


def main() -> None:
    mx = _import_mlx()
    device, name = _select_device(mx)
    print("python", sys.version.split()[0], "mlx", mx.__version__, "device", name)
    metal = xp.Device("Metal")
    backend = metal.backend
    rng = np.random.default_rng(0)
    n, m = 10**7, 2000
    a_np = rng.standard_normal(n, dtype=np.float32)
    p_np = rng.standard_normal((m, m), dtype=np.float32)
    a, b = xp.asarray(a_np, device=metal), xp.asarray(a_np[::-1].copy(), device=metal)
    p, q = xp.asarray(p_np, device=metal), xp.asarray(p_np.T.copy(), device=metal)
    one = xp.ones(1, device=metal)
    with mx.stream(device):
        a_mx, b_mx = mx.array(a_np), mx.array(a_np[::-1].copy())
        p_mx, q_mx = mx.array(p_np), mx.array(p_np.T.copy())
        one_mx = mx.ones((1,), dtype=mx.float32)
    mx.eval(a_mx, b_mx, p_mx, q_mx, one_mx)

    cases: list[tuple[str, int, Any, Any, Any, tuple[Any, ...]]] = [
        ("add 1e7", 20, xp.add, mx.add, (a_mx, b_mx), (a, b)),
        ("sum 1e7", 20, xp.sum, mx.sum, (a_mx,), (a,)),
        ("matmul 2000", 10, xp.matmul, mx.matmul, (p_mx, q_mx), (p, q)),
        (
            "a[::2] * 2 1e7",
            20,
            lambda x: x[::2] * 2,
            lambda x: x[::2] * 2,
            (a_mx,),
            (a,),
        ),
        ("add 1 element", 500, xp.add, mx.add, (one_mx, one_mx), (one, one)),
    ]
    for case in cases:
        measure(*case, ctx=(mx, device, metal, backend))

    prof = cProfile.Profile()
    prof.enable()
    for _ in range(200):
        xp.add(a, b)
    prof.disable()
    text = io.StringIO()
    pstats.Stats(prof, stream=text).sort_stats("tottime").print_stats(18)
    print("== cProfile, 200 x xp.add(a, b) 1e7")
    print(text.getvalue()[-4000:])


if __name__ == "__main__":
    main()
