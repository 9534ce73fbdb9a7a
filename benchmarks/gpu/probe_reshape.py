"""Does the flat reshape of a 0-d or 2-D MLX result cost a device round trip? (issue 15)

Interleaved rounds after a one-second warm-up that lets the GPU raise its clocks;
best per-call time of 100 calls per round, in microseconds.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

import stridewave.array_api as xp
from stridewave.carriers._metal import _import_mlx


def main() -> None:
    mx = _import_mlx()
    rng = np.random.default_rng(0)
    a_np = rng.standard_normal(10**7, dtype=np.float32)
    p_np = rng.standard_normal((2000, 2000), dtype=np.float32)
    a_mx, p_mx = mx.array(a_np), mx.array(p_np)
    mx.eval(a_mx, p_mx)
    metal = xp.Device("Metal")
    a, p = xp.asarray(a_np, device=metal), xp.asarray(p_np, device=metal)
    end = time.perf_counter() + 1.0
    while time.perf_counter() < end:  # warm-up: clocks up
        mx.eval(mx.matmul(p_mx, p_mx))

    def settle(out: Any) -> Any:
        mx.eval(out)
        return out

    def ours(fn: Callable[[], Any]) -> Callable[[], Any]:
        def run() -> Any:
            out = fn()
            mx.eval(out._carrier._mx_array)
            return out

        return run

    cases: dict[str, Callable[[], Any]] = {
        "sum raw": lambda: settle(mx.sum(a_mx)),
        "sum keepdims raw": lambda: settle(mx.sum(a_mx, keepdims=True)),
        "sum reshape(-1) raw": lambda: settle(mx.sum(a_mx).reshape(-1)),
        "sum async, reshape, async, eval": lambda: _two(mx, mx.sum(a_mx)),
        "sum ours": ours(lambda: xp.sum(a)),
        "matmul raw": lambda: settle(mx.matmul(p_mx, p_mx)),
        "matmul reshape(-1) raw": lambda: settle(mx.matmul(p_mx, p_mx).reshape(-1)),
        "matmul async, reshape, async, eval": lambda: _two(mx, mx.matmul(p_mx, p_mx)),
        "matmul ours": ours(lambda: xp.matmul(p, p)),
    }
    best = dict.fromkeys(cases, float("inf"))
    for _ in range(7):
        for name, fn in cases.items():
            fn()
            start = time.perf_counter()
            for _ in range(100):
                fn()
            best[name] = min(best[name], (time.perf_counter() - start) / 100 * 1e6)
    for name, us in best.items():
        print(f"{name:40s} {us:8.1f} us")


def _two(mx: Any, out: Any) -> Any:
    mx.async_eval(out)
    flat = out.reshape(-1)
    mx.async_eval(flat)
    mx.eval(flat)
    return flat


if __name__ == "__main__":
    main()
