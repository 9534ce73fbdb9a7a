"""How much Python the array API runs before each Metal launch, and in all (issue 15).

What the GPU cannot hide is the Python before the launch: ``mlx.core.async_eval`` is
wrapped to stamp the time of each call, and each case prints the 10th percentile over
many calls of (a) the time from the call's start to its first launch, (b) the whole
call's Python time (not waiting for the device), and the same (a) for the raw MLX
code. Run it here with ``STRIDEWAVE_METAL_DEVICE=cpu`` or on the device machine as an
extra script of ``run_on_h200.sh``. ``--stub``: ``async_eval`` only stamps (the host's
Python alone, nothing computed while it runs; steadier on a shared machine).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import stridewave.array_api as xp
from stridewave.carriers._metal import _import_mlx, _select_device


def main(calls: int = 2000, stub: bool = False) -> None:
    mx = _import_mlx()
    device, name = _select_device(mx)
    print("python", sys.version.split()[0], "mlx", mx.__version__, "device", name)
    stamps: list[float] = []
    real = mx.async_eval

    def stamped(*arrays: Any) -> None:
        stamps.append(time.perf_counter())
        if not stub:
            real(*arrays)

    metal = xp.Device("Metal")
    rng = np.random.default_rng(0)
    a_np = rng.standard_normal(4096, dtype=np.float32)
    p_np = rng.standard_normal((64, 64), dtype=np.float32)
    a, b = xp.asarray(a_np, device=metal), xp.asarray(a_np[::-1].copy(), device=metal)
    p = xp.asarray(p_np, device=metal)
    with mx.stream(device):
        a_mx, b_mx, p_mx = mx.array(a_np), mx.array(a_np[::-1].copy()), mx.array(p_np)
    mx.eval(a_mx, b_mx, p_mx)
    cases: dict[str, tuple[Callable[[], Any], Callable[[], Any]]] = {
        "add": (lambda: xp.add(a, b), lambda: mx.add(a_mx, b_mx)),
        "a + b": (lambda: a + b, lambda: a_mx + b_mx),
        "sum": (lambda: xp.sum(a), lambda: mx.sum(a_mx)),
        "a[::2] * 2": (lambda: a[::2] * 2, lambda: a_mx[::2] * 2),
        "matmul": (lambda: xp.matmul(p, p), lambda: mx.matmul(p_mx, p_mx)),
    }
    mx.async_eval = stamped
    try:
        for label, (ours, raw) in cases.items():
            before: list[float] = []
            whole: list[float] = []
            raw_before: list[float] = []
            for _ in range(calls):
                stamps.clear()
                start = time.perf_counter()
                out = ours()
                end = time.perf_counter()
                before.append(stamps[0] - start)
                whole.append(end - start)
                mx.eval(out._carrier._mx_array)
                stamps.clear()
                start = time.perf_counter()
                with mx.stream(device):
                    result = raw()
                stamped(result)
                raw_before.append(stamps[0] - start)
                mx.eval(result)
            print(
                f"{label:12s} before launch {np.percentile(before, 10) * 1e6:6.2f} us  "
                f"whole call {np.percentile(whole, 10) * 1e6:6.2f} us  "
                f"raw MLX before launch {np.percentile(raw_before, 10) * 1e6:6.2f} us"
            )
    finally:
        mx.async_eval = real
    if not stub:
        settle_paths(mx, device, metal)


def settle_paths(mx: Any, device: Any, metal: Any, rounds: int = 300) -> None:
    """Whether waiting for a scheduled result costs more than ``mx.eval`` of a new one.

    On 10**7 float32 ``add`` and ``sum``, interleaved call by call: raw MLX (op,
    ``mx.eval``), raw MLX scheduled first (op, ``mx.async_eval``, ``mx.eval``: how our
    results settle), raw MLX with the flat form our carriers store (``sum``: the 0-d
    result reshaped to 1-D in the same graph) and the ``stridewave`` call settled;
    best and median per call, in microseconds.
    """
    rng = np.random.default_rng(1)
    a_np = rng.standard_normal(10**7, dtype=np.float32)
    a, b = xp.asarray(a_np, device=metal), xp.asarray(a_np[::-1].copy(), device=metal)
    with mx.stream(device):
        a_mx, b_mx = mx.array(a_np), mx.array(a_np[::-1].copy())
    mx.eval(a_mx, b_mx)

    def raw() -> None:
        with mx.stream(device):
            out = mx.add(a_mx, b_mx)
        mx.eval(out)

    def raw_scheduled() -> None:
        with mx.stream(device):
            out = mx.add(a_mx, b_mx)
        mx.async_eval(out)
        mx.eval(out)

    def ours() -> None:
        mx.eval(xp.add(a, b)._carrier._mx_array)

    def raw_sum() -> None:
        with mx.stream(device):
            out = mx.sum(a_mx)
        mx.eval(out)

    def raw_sum_scheduled() -> None:
        with mx.stream(device):
            out = mx.sum(a_mx)
        mx.async_eval(out)
        mx.eval(out)

    def raw_sum_flat() -> None:
        with mx.stream(device):
            out = mx.sum(a_mx).reshape(-1)
        mx.async_eval(out)
        mx.eval(out)

    def ours_sum() -> None:
        mx.eval(xp.sum(a)._carrier._mx_array)

    paths = {
        "add raw": raw,
        "add raw scheduled": raw_scheduled,
        "xp.add": ours,
        "sum raw": raw_sum,
        "sum raw scheduled": raw_sum_scheduled,
        "sum raw flat": raw_sum_flat,
        "xp.sum": ours_sum,
    }
    times: dict[str, list[float]] = {name: [] for name in paths}
    end = time.perf_counter() + 0.5
    while time.perf_counter() < end:  # the GPU's clock up
        raw()
    for _ in range(rounds):
        for name, fn in paths.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    for name, found in times.items():
        print(
            f"1e7 {name:18s} best {min(found) * 1e6:7.1f} us  "
            f"median {float(np.median(found)) * 1e6:7.1f} us"
        )


if __name__ == "__main__":
    # --stub: async_eval only stamps (nothing computed, nothing waited for; the host's
    # Python alone, steadier on a shared machine), and the settle measurements are off
    main(stub="--stub" in sys.argv[1:])
