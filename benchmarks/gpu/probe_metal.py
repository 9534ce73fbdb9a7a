"""Probe (issue 17): where ``new_like``, small scatters and ``set_value`` spend time.

Run on the GPU as an extra script of ``run_on_h200.sh`` (``probe_metal.py [N]``, default
N = 10**8; the scatter section uses N / 10). Not a test: it prints timings of the
carrier beside raw MLX variants, and never fails on a finding.

Sections: the per-call overhead of a scatter of 8 values against MLX's own slice
updates and evals; per-element writes and reads beside a bare method call, NumPy's and
the memoryview's; ``new_like`` against ``mx.array(host)`` + eval timed in alternation,
then after four device buffers of the same size were freed into MLX's cache (MLX moves
each to managed memory before a host-side allocation may use it); the contiguous and
transpose scatters against raw MLX variants.
"""

from __future__ import annotations

import gc
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np


def say(line: str) -> None:
    print(line, flush=True)


def once(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def best(fn: Callable[[], Any], repeat: int = 7, number: int = 1) -> float:
    fn()
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        out.append((time.perf_counter() - start) / number)
    return min(out)


def us(s: float) -> str:
    return f"{s * 1e6:10.1f} us"


def new_like_states(n: int) -> None:
    import mlx.core as mx

    import stridewave as sw

    host = np.random.default_rng(1).standard_normal(n, dtype=np.float32)
    proto = sw.Metal(0)
    say(f"\n== new_like, N = {n:,}; cache {mx.get_cache_memory() / 1e6:.0f} MB")

    def raw() -> None:
        mx.eval(mx.array(host))

    def ours() -> None:
        proto.new_like(host)

    # interleaved, same allocator state for both
    r, c = [], []
    for _ in range(6):
        r.append(once(raw))
        c.append(once(ours))
    say("interleaved raw " + " ".join(f"{x * 1e3:.1f}" for x in r) + " ms")
    say("interleaved ours " + " ".join(f"{x * 1e3:.1f}" for x in c) + " ms")
    say(f"best: ours {min(c) * 1e3:.2f} ms raw {min(r) * 1e3:.2f} ms ratio {min(c) / min(r):.2f}")

    # leave K device buffers of this size in MLX's cache, then time raw calls one by one
    for label, fn in (("raw", raw), ("ours", ours)):
        gpu = mx.default_device()
        keep = [mx.zeros((n,), dtype=mx.float32, stream=gpu) + 1 for _ in range(4)]
        mx.eval(*keep)
        del keep
        gc.collect()
        times = [once(fn) for _ in range(7)]
        say(
            f"after 4 device buffers freed, {label}: "
            + " ".join(f"{x * 1e3:.1f}" for x in times)
            + " ms"
        )
    # steps of ours
    from stridewave.carriers._normalize import materialize, storage_numpy_dtype

    t_mat = best(
        lambda: materialize(
            host, sw.DType.Float32, storage_numpy_dtype(sw.DType.Float32), where="x"
        )
    )
    say(f"materialize {us(t_mat)}")


def scatter_probe(n: int) -> None:
    import mlx.core as mx

    import stridewave as sw
    from stridewave import Layout, Tensor

    say(f"\n== scatter, N = {n:,}")
    gpu = mx.default_device()
    host = np.random.default_rng(0).standard_normal(n, dtype=np.float32)
    source = sw.Metal(0).new_like(host)
    receiver = sw.Metal(n)
    onto = Tensor(receiver, Layout((n,)))
    src = Tensor(source, Layout((n,)))
    a = source._mx_array
    d = mx.zeros((n,), dtype=mx.float32, stream=gpu)
    mx.eval(d)

    def carrier() -> None:
        receiver.scatter(src, onto, Layout((n,)), 0)

    def ceiling() -> None:
        mx.eval(a + 0)

    def two_updates() -> None:
        d[0 : n - 1] = a[: n - 1]
        d[n - 1 : n] = a[n - 1 :]
        mx.eval(d)

    def two_updates_evsrc() -> None:
        s = a[0:n]
        mx.eval(s)
        d[0 : n - 1] = s[: n - 1]
        d[n - 1 : n] = s[n - 1 :]
        mx.eval(d)

    holder = [d]

    def copy_new() -> None:
        with mx.stream(gpu):
            holder[0] = mx.array(a)
        mx.eval(holder[0])

    idx = mx.arange(n, dtype=mx.int32)
    mx.eval(idx)

    def raw_idx() -> None:
        d[idx] = a
        mx.eval(d)

    rows = [
        ("carrier.scatter contiguous", carrier),
        ("ceiling a + 0", ceiling),
        ("two slice updates + eval", two_updates),
        ("eval(src) + two updates + eval", two_updates_evsrc),
        ("copy into new buffer mx.array(a)", copy_new),
        ("raw d[idx] = a", raw_idx),
    ]
    for _ in range(2):
        say("  ".join(f"{name}: {us(best(fn, 9))}" for name, fn in rows))
    rows_x = 1000 if n % 1000 == 0 else 1
    cols = n // rows_x
    tmap = Layout((rows_x, cols), (1, rows_x))
    tsrc = Tensor(source, Layout((rows_x, cols)))
    tidx = mx.array(
        (np.arange(cols)[None, :] * rows_x + np.arange(rows_x)[:, None])
        .reshape(-1)
        .astype(np.int32)
    )
    mx.eval(tidx)

    def carrier_t() -> None:
        receiver.scatter(tsrc, onto, tmap, 0)

    def raw_t() -> None:
        d[tidx] = a
        mx.eval(d)

    def index_on_device() -> None:
        with mx.stream(gpu):
            i = mx.arange(rows_x, dtype=mx.int32).reshape(rows_x, 1) + (
                mx.arange(cols, dtype=mx.int32) * rows_x
            ).reshape(1, cols)
            d[i.reshape(-1)] = a
        mx.eval(d)

    def transposed_copy() -> None:
        with mx.stream(gpu):
            holder[0] = mx.array(a.reshape(rows_x, cols).T).reshape(-1)
        mx.eval(holder[0])

    def transposed_update() -> None:
        with mx.stream(gpu):
            d2 = d.reshape(cols, rows_x)
            d2[0 : cols - 1] = a.reshape(rows_x, cols).T[: cols - 1]
            d2[cols - 1 :] = a.reshape(rows_x, cols).T[cols - 1 :]
            holder[0] = d2.reshape(-1)
        mx.eval(holder[0])

    rows = [
        ("carrier transpose", carrier_t),
        ("raw d[tidx] = a", raw_t),
        ("index built on device + scatter", index_on_device),
        ("transposed copy (new buffer)", transposed_copy),
        ("transposed 2-D slice updates", transposed_update),
    ]
    for _ in range(2):
        say("  ".join(f"{name}: {us(best(fn, 9))}" for name, fn in rows))


def overhead_probe() -> None:
    import mlx.core as mx

    import stridewave as sw
    from stridewave import Layout, Tensor

    say("\n== per-call overhead, N = 8")
    n = 8
    source = sw.Metal(0).new_like(np.arange(n, dtype=np.float32))
    receiver = sw.Metal(n)
    onto = Tensor(receiver, Layout((n,)))
    src = Tensor(source, Layout((n,)))
    a = source._mx_array
    d = mx.zeros((n,))
    mx.eval(d)

    def eval_noop() -> None:
        mx.eval(d)

    def two_updates() -> None:
        d[0 : n - 1] = a[: n - 1]
        d[n - 1 : n] = a[n - 1 :]
        mx.eval(d)

    def one_update() -> None:
        d[0:4] = a[:4]
        mx.eval(d)

    def ceiling() -> None:
        mx.eval(a + 0)

    rows = [
        ("carrier.scatter", lambda: receiver.scatter(src, onto, Layout((n,)), 0)),
        ("eval no-op", eval_noop),
        ("one update + eval", one_update),
        ("two updates + eval", two_updates),
        ("a + 0 + eval", ceiling),
        ("Layout((n,))", lambda: Layout((n,))),
    ]
    for _ in range(2):
        say("  ".join(f"{name}: {us(best(fn, 9, 200))}" for name, fn in rows))


def scalar_probe() -> None:
    import stridewave as sw

    say("\n== set_value / get_value, per element")
    n = 100_000
    k = 20_000
    carrier = sw.Metal(0).new_like(np.arange(n, dtype=np.float32))
    carrier.set_value(0, 0.0)
    view = np.asarray(memoryview(carrier._mx_array))
    mv = memoryview(view)
    cpu = sw.CPU(0).new_like(np.arange(n, dtype=np.float32))

    class Probe:
        def noop(self, index: int, value: float) -> None:
            pass

    p = Probe()

    def loop() -> None:
        for _i in range(k):
            pass

    def noop() -> None:
        for i in range(k):
            p.noop(i, 1.5)

    def set_metal() -> None:
        for i in range(k):
            carrier.set_value(i, 1.5)

    def set_cpu() -> None:
        for i in range(k):
            cpu.set_value(i, 1.5)

    def set_np() -> None:
        for i in range(k):
            view[i] = 1.5

    def set_mv() -> None:
        for i in range(k):
            mv[i] = 1.5

    def get_metal() -> None:
        for i in range(k):
            carrier.get_value(i)

    def get_np() -> None:
        for i in range(k):
            view.item(i)

    rows = [loop, noop, set_metal, set_cpu, set_np, set_mv, get_metal, get_np]
    for _ in range(2):
        say("  ".join(f"{f.__name__}: {best(f, 7) / k * 1e9:.1f} ns" for f in rows))


def main() -> int:
    import mlx.core as mx

    say(f"python {sys.version.split()[0]} mlx {mx.__version__} device {mx.default_device()}")
    overhead_probe()
    scalar_probe()
    big = int(sys.argv[1]) if len(sys.argv) > 1 else 10**8
    small = big // 10
    for n in (small, big):
        new_like_states(n)
    scatter_probe(small)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
