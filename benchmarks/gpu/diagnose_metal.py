"""Diagnose the Metal carrier's host view and scatter buffers on the current MLX device.

Run ``python benchmarks/gpu/diagnose_metal.py`` (``--n`` to change N, default 10**8
Float32). ``run_on_h200.sh`` runs it before pytest and logs to ``$OUT/diagnose.log``.
Not a test: it prints timings and buffer addresses, and never fails on a finding.

Sections
--------
1. Where ``new_like`` time goes: ``mx.array(host)`` + eval (and a following
   ``mx.synchronize``); ``memoryview`` + ``numpy.asarray`` of a fresh evaluated array,
   first and second time; the first and second full read of that view
   (``view.sum()``); ``Metal(0).new_like(host)`` (now without a host view), then its
   first and second scalar read (the first takes the view).
2. Buffer addresses (``view.ctypes.data``) of a Metal receiver's MLX array before and
   after a full-coverage scatter (contiguous and reversed mapping, Metal and CPU
   source) and a partial one, with whether a NumPy view exported before the scatter
   still shows the stored values (live) or not (stale). Raw MLX rows show what a
   single whole-array slice update does (MLX returns the update: a new buffer).
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np


def say(line: str) -> None:
    print(line, flush=True)


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:10.3f} ms"


def address(mx_array: Any) -> int:
    return int(np.asarray(memoryview(mx_array)).ctypes.data)


def section_new_like(n: int, repeat: int) -> None:
    import mlx.core as mx

    import stridewave as sw

    say(f"\n== 1. new_like and the host view, N = {n:,} Float32 ({n * 4 / 1e6:.0f} MB)")
    host = np.random.default_rng(1).standard_normal(n, dtype=np.float32)
    for i in range(repeat):
        t_array, a = timed(lambda: mx.array(host))
        t_eval, _ = timed(lambda a=a: mx.eval(a))
        t_sync, _ = timed(mx.synchronize)
        say(
            f"[{i}] mx.array(host) {ms(t_array)}  + eval {ms(t_eval)}  + synchronize "
            f"{ms(t_sync)}  = {ms(t_array + t_eval + t_sync)}"
        )
        t_mv1, view = timed(lambda a=a: np.asarray(memoryview(a)))
        t_mv2, _ = timed(lambda a=a: np.asarray(memoryview(a)))
        t_sum1, _ = timed(lambda view=view: view.sum())
        t_sum2, _ = timed(lambda view=view: view.sum())
        say(
            f"    memoryview+asarray first {ms(t_mv1)}  second {ms(t_mv2)} | "
            f"view.sum() first {ms(t_sum1)}  second {ms(t_sum2)}"
        )
        del a, view
        gc.collect()
    proto = sw.Metal(0)
    for i in range(repeat):
        t_new, carrier = timed(lambda: proto.new_like(host))
        t_get1, _ = timed(lambda carrier=carrier: carrier.get_value(0))
        t_get2, _ = timed(lambda carrier=carrier: carrier.get_value(1))
        t_asarray, _ = timed(lambda carrier=carrier: np.asarray(carrier).sum())
        ref = weakref.ref(carrier)
        del carrier
        say(
            f"[{i}] Metal.new_like(host) {ms(t_new)} (view taken: no) | first get_value "
            f"{ms(t_get1)}  second {ms(t_get2)} | np.asarray(carrier).sum() "
            f"{ms(t_asarray)} | freed on del: {ref() is None}"
        )
        gc.collect()
    raw = min(timed(lambda: mx.eval(mx.array(host)))[0] for _ in range(repeat))
    ours = min(timed(lambda: proto.new_like(host))[0] for _ in range(repeat))
    say(
        f"best of {repeat}: new_like {ms(ours)} vs mx.array(host)+eval {ms(raw)}: "
        f"{ours / raw:.2f}x (target <= 1.2x)"
    )


def section_addresses(n: int) -> None:
    import mlx.core as mx

    import stridewave as sw
    from stridewave import Layout, Tensor

    say(f"\n== 2. receiver buffer across scatter, N = {n:,} Float32")
    host = np.arange(n, dtype=np.float32)
    sources = {"Metal": sw.Metal(0).new_like(host), "CPU": sw.CPU(0).new_like(host)}
    cases = [
        ("full contiguous", Layout((n,)), 0, n),
        ("full reversed", Layout((n,), (-1,)), n - 1, n),
        ("partial contiguous (first half)", Layout((n // 2,)), 0, n // 2),
        ("partial reversed (first half)", Layout((n // 2,), (-1,)), n // 2 - 1, n // 2),
    ]
    for kind, source in sources.items():
        for name, mapping, offset, count in cases:
            receiver = sw.Metal(n)
            view = np.asarray(receiver)  # exported before the scatter
            before = address(receiver._mx_array)
            to_scatter = Tensor(source, Layout((count,)))
            onto = Tensor(receiver, Layout((n,)))
            t, _ = timed(
                lambda r=receiver, s=to_scatter, o=onto, m=mapping, k=offset: r.scatter(s, o, m, k)
            )
            after = address(receiver._mx_array)
            probe = [0, count - 1]
            mlx_vals = [receiver._mx_array[i].item() for i in probe]
            live = [float(view[i]) for i in probe] == mlx_vals
            say(
                f"source {kind:<5} {name:<32} {ms(t)}  address before {before:#x} after "
                f"{after:#x} -> {'SAME' if before == after else 'CHANGED'}; exported view "
                f"{'live' if live else 'STALE'} (slots {probe}: view "
                f"{[float(view[i]) for i in probe]}, MLX {mlx_vals})"
            )
            del receiver, view
            gc.collect()
    say("raw MLX (what the carrier avoids): one whole-array slice update d[0:n] = s")
    s = mx.array(host)
    for label, update in (
        ("s", lambda: s),
        ("s[::-1]", lambda: s[::-1]),
        ("mx.array(s)", lambda: mx.array(s)),
    ):
        d = mx.zeros((n,), dtype=mx.float32)
        mx.eval(d)
        before = address(d)
        d[0:n] = update()
        mx.eval(d)
        after = address(d)
        say(
            f"  d[0:n] = {label:<12} address {before:#x} -> {after:#x} "
            f"{'SAME' if before == after else 'CHANGED'}; shares s: {after == address(s)}"
        )
    d = mx.zeros((n,), dtype=mx.float32)
    mx.eval(d)
    before = address(d)
    d[0 : n - 1] = s[: n - 1]
    d[n - 1 : n] = s[n - 1 :]
    mx.eval(d)
    after = address(d)
    say(
        f"  d[0:n-1] = s[:n-1]; d[n-1:n] = s[n-1:] (the carrier's form) address "
        f"{before:#x} -> {after:#x} {'SAME' if before == after else 'CHANGED'}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10**8, help="elements (default 10**8)")
    parser.add_argument("--repeat", type=int, default=3, help="rounds in section 1")
    args = parser.parse_args(argv)

    import mlx.core as mx

    import stridewave as sw

    probe = sw.Metal(1)
    say(
        f"stridewave {sw.__version__}, MLX {mx.__version__}, NumPy {np.__version__}, "
        f"Python {sys.version.split()[0]}; Metal device: {probe.device()}; "
        f"mx.default_device() = {mx.default_device()}; "
        f"STRIDEWAVE_METAL_DEVICE={os.environ.get('STRIDEWAVE_METAL_DEVICE')!r}"
    )
    for section in (
        lambda: section_new_like(args.n, args.repeat),
        lambda: section_addresses(8),
        lambda: section_addresses(args.n),
    ):
        try:
            section()
        except (RuntimeError, ValueError, TypeError, MemoryError) as exc:  # keep going
            say(f"!! section failed: {type(exc).__name__}: {exc}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
