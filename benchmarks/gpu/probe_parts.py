"""The pieces of ``a[::2] * 2``'s Python before its launch, one by one (issue 15).

Each line is the best of 5 repeats of ``timeit`` (microseconds per call) of one piece
on the selected MLX device, with ``mlx.core.async_eval`` replaced by a no-op that
stamps the time (nothing is computed: this is the host's work only). Run it here with
``STRIDEWAVE_METAL_DEVICE=cpu`` or on the device machine as an extra script of
``run_on_h200.sh``; compare the pieces across machines to find where a GPU call's
Python goes.
"""

from __future__ import annotations

import sys
import time
import timeit
from collections.abc import Callable
from typing import Any

import numpy as np

import stridewave.array_api as xp
from stridewave.array_api import _array
from stridewave.carriers._metal import _import_mlx, _select_device


def _us(fn: Callable[[], Any], number: int = 20000) -> float:
    return min(timeit.repeat(fn, number=number, repeat=5)) / number * 1e6


def main(n: int = 4096) -> None:
    mx = _import_mlx()
    device, name = _select_device(mx)
    print("python", sys.version.split()[0], "mlx", mx.__version__, "device", name)
    metal = xp.Device("Metal")
    a = xp.asarray(np.arange(n, dtype=np.float32), device=metal)
    backend = _array.backend_for(metal)
    storage = a._carrier._mx_array  # type: ignore[union-attr]
    stamps: list[float] = []
    mx.async_eval = lambda *arrays: stamps.append(time.perf_counter())
    view = a[::2]
    two = mx.array(2, dtype=mx.float32)
    mx.eval(two)
    half = slice(None, None, 2)

    def raw() -> None:
        with mx.stream(device):
            out = storage[::2] * 2
        mx.async_eval(out)

    def stream() -> None:
        with mx.stream(device):
            pass

    pieces: dict[str, Callable[[], Any]] = {
        "a[::2] (ours)": lambda: a[::2],
        "_one_slice": lambda: _array._one_slice(a, half),
        "read(a)": lambda: backend.read(a),
        "read(a[::2])": lambda: backend.read(view),
        "mlx st[::2]": lambda: storage[::2],
        "mlx st[0:n-1:2]": lambda: storage[0 : n - 1 : 2],
        "mlx as_strided": lambda: mx.as_strided(storage, (n // 2,), (2,), 0),
        "mlx.array(2)": lambda: mx.array(2),
        "mlx st * 2": lambda: storage * 2,
        "mlx st * two": lambda: storage * two,
        "with mx.stream": stream,
        "a * 2 (ours)": lambda: a * 2,
        "view * 2 (ours)": lambda: view * 2,
        "a[::2] * 2 (ours)": lambda: a[::2] * 2,
        "a[::2] * 2 (raw)": raw,
    }
    for label, fn in pieces.items():
        print(f"{label:20s} {_us(fn):7.2f} us")


if __name__ == "__main__":
    main(*(int(arg) for arg in sys.argv[1:]))
