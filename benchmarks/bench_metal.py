"""Metal carrier benchmarks: each figure beside the raw MLX/NumPy op, same run.

Run ``python benchmarks/bench_metal.py`` (``--big`` adds N = 10**8). The carrier runs on
the GPU when MLX has one, else set ``STRIDEWAVE_METAL_DEVICE=cpu`` for MLX's CPU
device. Not a test: nothing fails; the figures go to docs/metal.md.

Rows
----
* scatter of N Float32 through a contiguous mapping, a reversed mapping and a
  transpose (a strided permutation: a Layout is strided, so a random permutation is
  not expressible; raw MLX's random ``d[perm] = a`` is shown for scale), each vs
  raw ``d[idx] = a`` + eval with ``a`` already in MLX, and vs the same with the
  host-to-MLX transfer of ``a`` included (what a host-resident source costs); the
  source is a Metal carrier, read on the device; the copy ceiling is ``a + 0`` + eval;
* ``new_like`` from a host ndarray vs ``mx.array(host)`` + eval, the two timed in
  alternation (see :func:`new_like_row`);
* ``take`` of N random int32 indices from N Float32 through ``stridewave.array_api``
  (with its bounds check of the indices) vs raw ``mx.take`` + eval, and the check
  alone (:func:`gather_rows`);
* ``get_value`` / ``set_value`` per element vs NumPy ``item`` / ``view[i] = v`` on
  the same buffer, and vs MLX ``a[i].item()`` / ``a[i] = v`` + eval;
* host reads of a part of a fresh N-element array API result ``y = x * 2 + 1``
  (``float(y[0])``, ``numpy.array(y[10:20])``, the writable export
  ``numpy.asarray(y[:1])``), each against computing ``y`` (a read of a part should
  cost a small fraction of it, whatever N), and raw MLX's ``numpy.array(y_mx[:1])``
  beside them (:func:`read_rows`).
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from _timing import best_of


def best(fn: Callable[[], object], repeat: int, number: int = 1) -> float:
    """Best wall time per call over ``repeat`` rounds of ``number`` calls, after a warm-up.

    The warm-up matters on the GPU: without it, whichever side runs first pays for
    fresh device allocations that the other then finds in MLX's buffer cache.
    """
    return best_of(fn, repeat, number=number, warmup=True)


def fmt(seconds: float) -> str:
    if seconds >= 1e-3:
        return f"{seconds * 1e3:9.2f} ms"
    if seconds >= 1e-6:
        return f"{seconds * 1e6:9.2f} us"
    return f"{seconds * 1e9:9.1f} ns"


def scatter_rows(n: int, repeat: int) -> list[tuple[str, float, float, float]]:
    import mlx.core as mx

    import stridewave as sw
    from stridewave import Layout, Tensor

    rng = np.random.default_rng(0)
    host = rng.standard_normal(n, dtype=np.float32)
    source = sw.Metal(0).new_like(host)
    receiver = sw.Metal(n)
    onto = Tensor(receiver, Layout((n,)))
    rows_x = 1000 if n % 1000 == 0 else 1
    cases = {
        "contiguous": (Layout((n,)), 0, np.arange(n)),
        "reversed": (Layout((n,), (-1,)), n - 1, np.arange(n)[::-1]),
        f"transpose {rows_x}x{n // rows_x}": (
            Layout((rows_x, n // rows_x), (1, rows_x)),
            0,
            (np.arange(n // rows_x)[None, :] * rows_x + np.arange(rows_x)[:, None]).reshape(-1),
        ),
    }
    a = mx.array(host)
    d = mx.zeros((n,), dtype=mx.float32)
    mx.eval(a, d)
    out = []
    for name, (mapping, offset, indices) in cases.items():
        src = Tensor(source, Layout(mapping.shape))
        idx = mx.array(indices.astype(np.int32 if n < 2**31 else np.int64))
        mx.eval(idx)

        def carrier(src: Tensor = src, mapping: Layout = mapping, offset: int = offset) -> None:
            receiver.scatter(src, onto, mapping, offset)

        def raw(idx: object = idx) -> None:
            d[idx] = a
            mx.eval(d)

        def raw_host(idx: object = idx) -> None:
            d[idx] = mx.array(host)
            mx.eval(d)

        out.append(
            (f"scatter {name}", best(carrier, repeat), best(raw, repeat), best(raw_host, repeat))
        )
    perm = mx.array(rng.permutation(n).astype(np.int32))
    mx.eval(perm)

    def raw_perm() -> None:
        d[perm] = a
        mx.eval(d)

    out.append(("raw MLX d[random perm] = a", float("nan"), best(raw_perm, repeat), float("nan")))

    def copy() -> None:
        mx.eval(a + 0)

    out.append(("copy ceiling: a + 0", float("nan"), best(copy, repeat), float("nan")))
    return out


def new_like_row(n: int, repeat: int) -> tuple[str, float, float]:
    """``new_like(host)`` against ``mx.array(host)`` + eval, timed in alternation.

    Each round times one call of each side, so both meet MLX's buffer cache in the same
    state. Timing one side's rounds first would not: after GPU work (the scatter rows
    before this one) the cache holds device-memory buffers of this size, and MLX's
    allocator hands each to the next host-side allocation only after moving it to
    managed memory (a fresh allocation plus a device-to-host copy), so whichever side
    runs first pays those moves (about 2.5x at 10**7, 4x at 10**8 on the H200).
    """
    import mlx.core as mx

    import stridewave as sw

    host = np.random.default_rng(1).standard_normal(n, dtype=np.float32)
    proto = sw.Metal(0)

    def ours() -> None:
        proto.new_like(host)

    def raw() -> None:
        mx.eval(mx.array(host))

    times: tuple[list[float], list[float]] = ([], [])
    for round_ in range(repeat + 3):  # the first rounds drain the cache of device buffers
        pair = (ours, raw) if round_ % 2 == 0 else (raw, ours)
        for fn in pair:
            start = time.perf_counter()
            fn()
            times[fn is raw].append(time.perf_counter() - start)
    return ("new_like(host ndarray)", min(times[0]), min(times[1]))


def scalar_rows(repeat: int) -> list[tuple[str, float, float, float]]:
    import mlx.core as mx

    import stridewave as sw

    n = 100_000
    carrier = sw.Metal(0).new_like(np.arange(n, dtype=np.float32))
    view = np.asarray(memoryview(carrier._mx_array))  # the same buffer, no checks
    a = mx.array(np.arange(n, dtype=np.float32))
    mx.eval(a)
    k = 20_000
    get_c = best(lambda: [carrier.get_value(i) for i in range(k)], repeat) / k
    get_np = best(lambda: [view.item(i) for i in range(k)], repeat) / k
    get_mx = best(lambda: [a[i].item() for i in range(200)], repeat) / 200

    def set_carrier() -> None:
        for i in range(k):
            carrier.set_value(i, 1.5)

    def set_numpy() -> None:
        for i in range(k):
            view[i] = 1.5

    def set_mlx() -> None:
        for i in range(50):
            a[i] = 1.5
            mx.eval(a)

    return [
        ("get_value (per element)", get_c, get_np, get_mx),
        (
            "set_value (per element)",
            best(set_carrier, repeat) / k,
            best(set_numpy, repeat) / k,
            best(set_mlx, repeat) / 50,
        ),
    ]


def gather_rows(n: int, repeat: int) -> list[tuple[str, float, float]]:
    """``take`` on Metal (bounds-checked) and the check alone, each vs raw ``mx.take``."""
    import mlx.core as mx

    import stridewave.array_api as xp
    from stridewave.array_api._mlx_shims import check_indices

    rng = np.random.default_rng(0)
    host = rng.standard_normal(n, dtype=np.float32)
    positions = rng.integers(0, n, n, dtype=np.int32)
    metal = xp.Device("Metal")
    x = xp.asarray(host, device=metal)
    idx = xp.asarray(positions, device=metal)
    a, i = mx.array(host), mx.array(positions)
    mx.eval(a, i)

    def ours() -> None:
        np.asarray(xp.take(x, idx).to_device(xp.Device("CPU")))[:1]  # (waits)

    def raw() -> None:
        mx.eval(mx.take(a, i, axis=0))

    def check() -> None:
        check_indices(i, n, 0)

    raw_time = best(raw, repeat)
    return [
        ("take (array API, checked)", best(ours, repeat), raw_time),
        ("  of which the bounds check", best(check, repeat), raw_time),
    ]


def read_rows(n: int, repeat: int) -> tuple[float, float, list[tuple[str, float]]]:
    """Host reads of a part of a fresh Metal result, and computing that result.

    Each round reads a fresh ``y = x * 2 + 1`` (computed, untimed, in the setup), as a
    program reads the result it just computed: the first host access of a buffer is
    the one that costs (on MLX's CUDA GPU a host view first moves the whole buffer to
    managed memory). Returns ``(compute y, raw MLX numpy.array(y_mx[:1]), rows)``.
    """
    import mlx.core as mx

    import stridewave.array_api as xp

    metal = xp.Device("Metal")
    x = xp.ones(n, dtype=xp.float32, device=metal)
    a = mx.ones((n,), dtype=mx.float32)
    mx.eval(a)
    fresh: list[Any] = [None]

    def compute() -> None:
        y = x * 2 + 1
        mx.eval(y._carrier.mlx_array)
        fresh[0] = y

    def compute_raw() -> None:
        y = a * 2 + 1
        mx.eval(y)
        fresh[0] = y

    reads: dict[str, Callable[[Any], object]] = {
        "float(y[0])": lambda y: float(y[0]),
        "numpy.array(y[10:20])": lambda y: np.array(y[10:20]),
        "numpy.asarray(y[:1]) (writable view)": lambda y: np.asarray(y[:1]),
        "float(sum(y[:1000]))": lambda y: float(xp.sum(y[:1000])),
    }
    rows = [
        (name, best_of(lambda read=read: read(fresh[0]), repeat, setup=compute))
        for name, read in reads.items()
    ]
    compute_time = best_of(compute, repeat)
    raw = best_of(lambda: np.array(fresh[0][:1]), repeat, setup=compute_raw)
    return compute_time, raw, rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--big", action="store_true", help="also run N = 10**8")
    parser.add_argument("--n", type=int, default=10**7, help="elements (default 10**7)")
    parser.add_argument("--repeat", type=int, default=5, help="rounds per figure (best)")
    args, _unknown = parser.parse_known_args(argv)  # benchmarks/run.py passes its own

    import stridewave as sw

    try:
        probe = sw.Metal(1)
    except RuntimeError as exc:
        print(f"bench_metal: skipped, Metal is not available here: {exc}")
        return 0
    import mlx.core as mx

    print(
        f"stridewave {sw.__version__}, MLX {mx.__version__}, NumPy {np.__version__}, "
        f"Python {platform.python_version()}, {platform.machine()}"
    )
    print(f"Metal device: {probe.device()}; mx.default_device() = {mx.default_device()}")
    from stridewave.carriers._base import SCALAR_PATH

    print(f"scalar paths: {SCALAR_PATH}")
    sizes = [args.n] + ([10**8] if args.big and args.n != 10**8 else [])
    for n in sizes:
        print(f"\n== N = {n:,} Float32 ({n * 4 / 1e6:.0f} MB)")
        print(
            f"{'operation':<34}{'Metal':>13}{'raw MLX':>13}{'ratio':>8}"
            f"{'raw+host->MLX':>16}{'ratio':>8}"
        )
        rows = scatter_rows(n, args.repeat)
        ceiling = rows[-1][2]
        for name, ours, raw, raw_host in rows:
            if np.isnan(ours):
                print(f"{name:<34}{'':>13}{fmt(raw):>13}")
                continue
            print(
                f"{name:<34}{fmt(ours):>13}{fmt(raw):>13}{ours / raw:>7.2f}x"
                f"{fmt(raw_host):>16}{ours / raw_host:>7.2f}x"
            )
        contiguous = rows[0][1]
        gbps = 2 * 4 * n / contiguous / 1e9
        print(
            f"contiguous scatter: {gbps:.1f} GB/s read+write = "
            f"{ceiling / contiguous * 100:.0f}% of the copy ceiling"
        )
        name, ours, raw = new_like_row(n, args.repeat)
        print(f"{name:<34}{fmt(ours):>13}{fmt(raw):>13}{ours / raw:>7.2f}x")
    print(f"\n== take of N = {args.n:,} int32 indices from N Float32 (raw: mx.take + eval)")
    print(f"{'operation':<34}{'Metal':>13}{'raw MLX':>13}{'ratio':>8}")
    for name, ours, raw in gather_rows(args.n, args.repeat):
        print(f"{name:<34}{fmt(ours):>13}{fmt(raw):>13}{ours / raw:>7.2f}x")
    for n in sizes:
        compute_time, raw, reads = read_rows(n, args.repeat)
        print(f"\n== host reads of a part of a fresh N = {n:,} Float32 result y = x * 2 + 1")
        print(f"{'operation':<40}{'Metal':>13}{'/ compute y':>13}{'/ raw MLX':>11}")
        print(f"{'compute y (x * 2 + 1, waited for)':<40}{fmt(compute_time):>13}")
        print(f"{'raw MLX numpy.array(y_mx[:1])':<40}{fmt(raw):>13}{raw / compute_time:>12.3f}x")
        for name, ours in reads:
            print(f"{name:<40}{fmt(ours):>13}{ours / compute_time:>12.3f}x{ours / raw:>10.2f}x")
    print("\n== per element, 100,000-slot Float32 (raw: NumPy on the same buffer; MLX)")
    print(f"{'operation':<34}{'Metal':>13}{'NumPy':>13}{'ratio':>8}{'MLX':>16}{'ratio':>8}")
    for name, ours, numpy_, mlx_ in scalar_rows(args.repeat):
        print(
            f"{name:<34}{fmt(ours):>13}{fmt(numpy_):>13}{ours / numpy_:>7.2f}x"
            f"{fmt(mlx_):>16}{ours / mlx_:>7.3f}x"
        )
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
