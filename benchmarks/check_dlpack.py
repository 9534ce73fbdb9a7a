"""Check DLPack from a Metal carrier where MLX runs on CUDA (run on the GPU).

Builds ``sw.Metal`` on the GPU (``STRIDEWAVE_METAL_DEVICE`` unset), prints what
``__dlpack_device__`` reports, and imports it into every DLPack consumer present
on the machine (PyTorch, CuPy, JAX, MLX, NumPy), printing for each: the device the
consumer placed the result on, whether the values are right, whether the result is a
snapshot (a later carrier write does not show), and the time of the import. Exit
status: 0 when ``__dlpack_device__`` names a CUDA device and at least one consumer on
that device read the right values, 2 when MLX is not on a GPU, 1 otherwise.

Run with MLX's CUDA build installed (``pip install "mlx[cuda13]"``):
``python benchmarks/check_dlpack.py [--size N]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import stridewave as sw

KDL = {1: "kDLCPU", 2: "kDLCUDA", 3: "kDLCUDAHost", 13: "kDLCUDAManaged"}


def _host(values: Any) -> np.ndarray:
    for attempt in (
        lambda v: v.cpu().numpy(),  # torch
        lambda v: v.get(),  # cupy
        lambda v: np.asarray(v),  # jax, mlx, numpy
    ):
        try:
            return np.asarray(attempt(values))
        except Exception:  # noqa: BLE001, S112 (try the next spelling)
            continue
    raise TypeError(f"cannot bring {type(values).__name__} to the host")


def _consumers() -> list[tuple[str, Callable[[Any], Any], Callable[[Any], str]]]:
    found: list[tuple[str, Callable[[Any], Any], Callable[[Any], str]]] = []
    try:
        import torch

        if torch.cuda.is_available():
            found.append(("torch.from_dlpack", torch.from_dlpack, lambda r: str(r.device)))
    except ImportError:
        pass
    try:
        import cupy

        found.append(("cupy.from_dlpack", cupy.from_dlpack, lambda r: f"cuda:{r.device.id}"))
    except ImportError:
        pass
    try:
        import jax

        found.append(("jax.dlpack.from_dlpack", jax.dlpack.from_dlpack, lambda r: str(r.devices())))
    except ImportError:
        pass
    import mlx.core as mx

    found.append(("mlx.core.array", mx.array, lambda r: str(mx.default_device())))
    found.append(("numpy.from_dlpack", np.from_dlpack, lambda r: "cpu"))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", type=int, default=10_000_000)
    parser.add_argument("--cpu", action="store_true", help="dry run on MLX's CPU device")
    args = parser.parse_args()
    if args.cpu:
        os.environ["STRIDEWAVE_METAL_DEVICE"] = "cpu"
    else:
        os.environ.pop("STRIDEWAVE_METAL_DEVICE", None)
    import mlx.core as mx

    print(f"mlx {mx.__version__}, default device {mx.default_device()}")
    ok, why = sw.carriers._metal.metal_runtime()
    if not ok:
        print(f"Metal has no GPU here: {why}")
        return 2
    expected = (np.arange(args.size, dtype=np.float32) % 251) - 125.0
    carrier = sw.Metal(0).new_like(expected)
    print(f"carrier: {carrier!r} on {carrier.device()}")
    device = carrier.__dlpack_device__()
    print(f"__dlpack_device__() = {device} ({KDL.get(device[0], 'other')})")
    on_gpu = device[0] in (2, 13)
    readers = 0
    for name, consume, where in _consumers():
        try:
            start = time.perf_counter()
            result = consume(carrier)
            _host(result)  # includes the device synchronization
            took = time.perf_counter() - start
            values = _host(result)
            right = bool(np.array_equal(values.ravel(), expected))
            carrier[0] = 1234.0
            snapshot = float(_host(result).ravel()[0]) == float(expected[0])
            carrier[0] = float(expected[0])
            place = where(result)
            print(
                f"{name:<24} placed on {place:<24} values {'ok' if right else 'WRONG'}, "
                f"snapshot {snapshot}, {took * 1e3:.2f} ms"
            )
            if right and on_gpu and "cpu" not in place.lower():
                readers += 1
        except Exception as exc:  # noqa: BLE001 (report every consumer, go on)
            print(f"{name:<24} failed: {type(exc).__name__}: {exc}")
    tensor = sw.Tensor(carrier, sw.Layout((args.size,)))
    print(f"Tensor over Metal: __dlpack_device__() = {tensor.__dlpack_device__()} (host snapshot)")
    carrier.release()
    try:
        carrier.__dlpack_device__()
    except RuntimeError:
        print("released: __dlpack_device__ raises RuntimeError (ok)")
    status = 0 if on_gpu and readers else 1
    print(f"result: {'PASS' if status == 0 else 'FAIL'} ({readers} GPU consumer(s) read it)")
    return status


if __name__ == "__main__":
    sys.exit(main())
