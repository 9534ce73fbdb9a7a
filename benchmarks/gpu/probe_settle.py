"""Where the GPU time of one array API call goes, against raw MLX variants (issue 15).

For ``add``, ``a[::2] * 2`` and ``sum`` on 10**7 float32 and ``matmul`` of 2000 x 2000, times
call by call, interleaved in a rotating order, ``--rounds`` rounds (default 2000):

* ``raw``: the MLX operation, then ``mx.eval`` (what the benchmark's reference does);
* ``raw async``: the operation, ``mx.async_eval``, then ``mx.eval`` of the scheduled
  array (how a stridewave result is launched and then waited for);
* ``raw async + Xus``: as ``raw async`` with X microseconds of Python between the
  launch and the wait (the Python that adopts a result: does it cost device time?);
* ``ours``: the stridewave call, then ``mx.eval`` of the result carrier's array;
* ``raw sync`` (``+ 25us``), ``ours sync``: the same, waiting with
  ``mx.synchronize`` of the device's stream instead of ``mx.eval``.

Prints the 10th, 50th and 90th percentiles (us) and the median's ratio to ``raw``.
"""

from __future__ import annotations

import functools
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import stridewave.array_api as xp
from stridewave.carriers._metal import _import_mlx, _select_device


def _spin(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def main(rounds: int = 2000) -> None:
    mx = _import_mlx()
    device, name = _select_device(mx)
    print("python", sys.version.split()[0], "mlx", mx.__version__, "device", name)
    metal = xp.Device("Metal")
    rng = np.random.default_rng(0)
    a_np = rng.standard_normal(10**7, dtype=np.float32)
    p_np = rng.standard_normal((2000, 2000), dtype=np.float32)
    a = xp.asarray(a_np, device=metal)
    b = xp.asarray(a_np[::-1].copy(), device=metal)
    p = xp.asarray(p_np, device=metal)
    with mx.stream(device):
        a_mx, b_mx, p_mx = mx.array(a_np), mx.array(a_np[::-1].copy()), mx.array(p_np)
    mx.eval(a_mx, b_mx, p_mx)
    stream = mx.default_stream(device)  # (where both sides run: mx.stream(device))
    cases: dict[str, tuple[Callable[[], Any], Callable[[], Any]]] = {
        "add": (lambda: xp.add(a, b), lambda: mx.add(a_mx, b_mx)),
        "a[::2] * 2": (lambda: a[::2] * 2, lambda: a_mx[::2] * 2),
        "matmul": (lambda: xp.matmul(p, p), lambda: mx.matmul(p_mx, p_mx)),
        "sum": (lambda: xp.sum(a), lambda: mx.sum(a_mx)),
    }
    #: Other raw forms of a case's graph, waited for with mx.synchronize (sum: the
    #: (1,)-shaped keepdims form our 1-D reductions schedule, and the 0-d result
    #: reshaped to (1,), the form they scheduled before).
    forms: dict[str, dict[str, Callable[[], Any]]] = {
        "sum": {
            "raw sync keepdims": lambda: mx.sum(a_mx, keepdims=True),
            "raw sync reshaped": lambda: mx.sum(a_mx).reshape(-1),
        }
    }
    for label, (ours, op) in cases.items():

        def raw(op: Callable[[], Any] = op) -> None:
            with mx.stream(device):
                out = op()
            mx.eval(out)

        def raw_async(op: Callable[[], Any] = op, pause: float = 0.0, sync: bool = False) -> None:
            # launched, ``pause`` seconds of Python, then waited for: mx.eval of the
            # result, or mx.synchronize of the stream (``sync``)
            with mx.stream(device):
                out = op()
            mx.async_eval(out)
            if pause:
                _spin(pause)
            if sync:
                mx.synchronize(stream)
            else:
                mx.eval(out)

        def settled(ours: Callable[[], Any] = ours) -> None:
            mx.eval(ours()._carrier._mx_array)

        raw_sync = functools.partial(raw_async, sync=True)

        def ours_sync(ours: Callable[[], Any] = ours) -> None:
            ours()
            mx.synchronize(stream)

        variants: dict[str, Callable[[], None]] = {
            "raw": raw,
            "raw async": raw_async,
            "raw async + 10us": lambda: raw_async(pause=10e-6),
            "raw async + 25us": lambda: raw_async(pause=25e-6),
            "ours": settled,
            "raw sync": raw_sync,
            "raw sync + 25us": functools.partial(raw_sync, pause=25e-6),
            "ours sync": ours_sync,
        }
        for key, form in forms.get(label, {}).items():
            variants[key] = functools.partial(raw_async, form, sync=True)
        times: dict[str, list[float]] = {key: [] for key in variants}
        order = list(variants)
        end = time.perf_counter() + 0.5
        while time.perf_counter() < end:
            raw()  # the GPU's clock up
        for round_ in range(rounds):
            shift = round_ % len(order)
            for key in order[shift:] + order[:shift]:
                start = time.perf_counter()
                variants[key]()
                times[key].append(time.perf_counter() - start)
        base = float(np.median(times["raw"]))
        print(f"== {label}: p10 / median / p90 (us), median / raw median")
        for key, found in times.items():
            p10, p50, p90 = np.percentile(found, [10, 50, 90]) * 1e6
            print(f"  {key:18s} {p10:8.1f} {p50:8.1f} {p90:8.1f}   {p50 / (base * 1e6):5.2f}")


if __name__ == "__main__":
    main(*(int(arg) for arg in sys.argv[1:]))
