"""Carrier benchmarks: each a ratio against NumPy measured in the same run.

Run with ``nox -s bench`` or ``python benchmarks/bench_carriers.py``. Prints a table; the
targets are the project's performance bars (Metal's per-element ``set_value`` within 2x).
Not a test: nothing fails, the numbers are recorded in docs/performance.md.
``--scalar`` runs only the per-element rows (every host-addressable kind, Metal on
MLX's device where MLX is installed: ``STRIDEWAVE_METAL_DEVICE=cpu`` for its CPU);
``--both`` first runs them on the pure-Python path (``STRIDEWAVE_NO_SPEEDUPS=1``).
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import tempfile
import timeit
import tracemalloc
from collections.abc import Callable

import numpy as np

import stridewave as sw
from stridewave import DType

N_BULK = 10**7


def best(stmt: Callable[[], object], number: int, repeat: int = 7) -> float:
    """Best time per call, in seconds."""
    return min(timeit.repeat(stmt, number=number, repeat=repeat)) / number


def _scalar_kinds() -> list[tuple[str, sw.Carrier, np.ndarray]]:
    """One 1024-slot Float32 carrier of each host-addressable kind, and its own buffer.

    The NumPy side of every scalar row indexes that same buffer (a writable ndarray
    over the carrier's memory, taken around the API), so both sides touch one cache
    line and differ only by what runs in front of it.
    """
    cpu = sw.CPU(1024)
    filed = sw.FileBacked(dtype=DType.Float32)
    filed.resize(1024)
    evictable = sw.Evictable(sw.CPU(1024), sw.FileBacked(dtype=DType.Float32))
    kinds = [
        ("CPU", cpu, cpu._array),
        ("FileBacked", filed, filed._array),
        ("Evictable(CPU/FileBacked)", evictable, evictable._primary._array),
    ]
    try:
        metal = sw.Metal(1024)
    except RuntimeError:
        return kinds  # no MLX here
    metal[0] = 0.0  # takes the host view (lazy), as any first scalar access does
    if metal._viewed:
        print(f"Metal: {metal.device()}")
        kinds.append(("Metal", metal, metal._array))
    return kinds


def scalar_rows() -> list[tuple[str, float, float, float]]:
    """Statements timed as source text (no lambda call in the measurement)."""
    # Many short repeats: each fits in one scheduler time slice even on a shared
    # machine, so the best of them is the statement's own cost.
    n, repeat = 2_000, 400

    def t(stmt: str, env: dict[str, object]) -> float:
        return min(timeit.repeat(stmt, globals=env, number=n, repeat=repeat)) / n

    rows = []
    for name, carrier, array in _scalar_kinds():
        env = {
            "array": array,
            "carrier": carrier,
            # bound methods on both sides (the bound-method bars): no attribute lookup timed
            "item": array.item,
            "put": array.__setitem__,
            "get_value": carrier.get_value,
            "set_value": carrier.set_value,
        }
        item, setitem = t("array.item(17)", env), t("array[17] = 1.5", env)
        if name == "CPU":
            # off the fast path: values that need the normalization table, and an index
            # that is not an exact int, run the Python method (from C, when active)
            env.update(two=2, f32=np.float32(1.5), i64=np.int64(17))
            rows += [
                (
                    "CPU.set_value(i, 2) (int into Float32) / ndarray[i] = 2",
                    t("carrier.set_value(17, two)", env),
                    t("array[17] = two", env),
                    math.nan,
                ),
                (
                    "CPU.set_value(i, np.float32) / ndarray[i] = np.float32",
                    t("carrier.set_value(17, f32)", env),
                    t("array[17] = f32", env),
                    math.nan,
                ),
                (
                    "CPU.get_value(np.int64) / ndarray.item(np.int64)",
                    t("carrier.get_value(i64)", env),
                    t("array.item(i64)", env),
                    math.nan,
                ),
            ]
            bound_item, bound_put = t("item(17)", env), t("put(17, 1.5)", env)
            rows += [
                (
                    "bound CPU.get_value(i) / bound ndarray.item(i)",
                    t("get_value(17)", env),
                    bound_item,
                    1.5,
                ),
                (
                    "bound CPU.set_value(i, v) / bound ndarray[i] = v",
                    t("set_value(17, 1.5)", env),
                    bound_put,
                    1.5,
                ),
            ]
        rows += [
            (f"{name}.get_value(i) / ndarray.item(i)", t("carrier.get_value(17)", env), item, 1.5),
            (f"{name}[i] / ndarray.item(i)", t("carrier[17]", env), item, 1.5),
            (
                f"{name}.set_value(i, v) / ndarray[i] = v",
                t("carrier.set_value(17, 1.5)", env),
                setitem,
                2.0 if name.startswith("Metal") else 1.5,
            ),
            (f"{name}[i] = v / ndarray[i] = v", t("carrier[17] = 1.5", env), setitem, 1.5),
        ]
        carrier.release()
    return rows


def bulk_rows() -> list[tuple[str, float, float, float]]:
    data = np.random.default_rng(0).random(N_BULK, dtype=np.float32)
    proto = sw.CPU(0)
    rows = []
    base = best(lambda: np.array(data, copy=True), 1, 5)
    ours = best(lambda: proto.new_like(data), 1, 5)
    rows.append(("CPU.new_like(10**7 f32) / numpy.array(copy=True)", ours, base, 1.2))

    base = best(lambda: np.zeros(N_BULK, np.float32).sum(), 1, 5)
    ours = best(lambda: np.asarray(proto.allocate_like(N_BULK)).sum(), 1, 5)
    rows.append(("allocate_like(10**7) + read all / numpy.zeros + read all", ours, base, 1.2))

    directory = tempfile.mkdtemp(prefix="sw-bench-")
    counter = iter(range(10**6))

    def raw_memmap() -> None:
        path = os.path.join(directory, f"raw-{next(counter)}.f32")
        mapped = np.memmap(path, dtype="<f4", mode="w+", shape=(N_BULK,))
        mapped[:] = data
        del mapped
        os.unlink(path)

    file_proto = sw.FileBacked(dtype=DType.Float32)

    def ours_file() -> None:
        file_proto.new_like(data).release()

    base = best(raw_memmap, 1, 5)
    ours = best(ours_file, 1, 5)
    rows.append(("FileBacked.new_like(10**7 f32) / raw numpy.memmap write", ours, base, 1.2))
    os.rmdir(directory)
    return rows


def peak_memory_ratio() -> float:
    data = np.ones(N_BULK, dtype=np.float32)
    proto = sw.CPU(0)
    tracemalloc.start()
    result = proto.new_like(data)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del result
    return peak / data.nbytes


def main() -> int:
    from stridewave.carriers._base import SCALAR_PATH

    if "--both" in sys.argv[1:]:  # the scalar rows again on the pure-Python path
        env = {**os.environ, "STRIDEWAVE_NO_SPEEDUPS": "1"}
        args = [a for a in sys.argv[1:] if a != "--both"]
        subprocess.run([sys.executable, __file__, "--scalar", *args], env=env, check=True)
        print()
    print(f"scalar paths: {SCALAR_PATH}")
    rows = scalar_rows() + ([] if "--scalar" in sys.argv[1:] else bulk_rows())
    print(f"{'benchmark':<60} {'ours':>10} {'numpy':>10} {'ratio':>7} {'target':>7}")
    for name, ours, base, target in rows:
        unit = 1e9 if ours < 1e-3 else 1e3
        suffix = "ns" if unit == 1e9 else "ms"
        print(
            f"{name:<60} {ours * unit:>8.1f}{suffix} {base * unit:>8.1f}{suffix} "
            f"{ours / base:>6.2f}x {'-' if math.isnan(target) else f'{target:.1f}x':>7}"
        )
    print(
        f"{'CPU.new_like(10**7 f32) peak memory / data size':<60} "
        f"{'':>10} {'':>10} {peak_memory_ratio():>6.2f}x {1.1:>6.1f}x"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
