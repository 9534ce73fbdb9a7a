"""Array API benchmark: ``stridewave.array_api`` against NumPy and raw MLX, in one run.

Run ``python benchmarks/bench_array_api.py [--device cpu|metal] [--rounds R] [--n N]
[--matrix M] [--processes P] [--wait synchronize|eval] [--dtype float32|float64|both]``
(or ``nox -s bench``). Every case runs on float32 operands, then on float64 ones
(``--dtype`` picks one), each case named with its dtype (``f32``, ``f64``). Both
sides run in the same process, timed (``time.perf_counter``) round by round,
interleaved: each round times one call of each side (200 calls for the 1-element
case), the side that goes first alternates, and a case gets up to ``R`` rounds
(default 300 on cpu, 1000 per process on metal; about 4 s per side, at least 5).
The table shows each side's best round and the ratio of the bests; the medians of
the rounds and their ratio follow it. The median ratio is the figure held to the
targets: a drift of the machine (a GPU's clock between bursts, a neighbour on a
shared CPU) reaches both sides alike there, where one lucky round decides a best
(pyperf's documentation makes the same case against minimums).

``--device cpu`` (default), the targets in the last column:

* ``xp.add(a, b)``, ``xp.sum(a)``, ``a[::2] * 2`` on 10**7 elements vs the same
  NumPy code: <= 1.1x.
* ``xp.matmul`` of 2000 x 2000 vs ``numpy.matmul``: <= 1.05x.
* ``(a*2 + 1)**2 - a/3`` on 10**7 elements (a chain: its temporaries and adoptions
  between operations) vs the same NumPy code: <= 1.05x.
* a 1-element ``xp.add`` and ``x + y``: the per-call cost, <= 3x NumPy's.

``--device metal``: the same cases on Metal carriers against raw ``mlx.core`` on
the same MLX device (``STRIDEWAVE_METAL_DEVICE``: MLX's CPU device with ``cpu``;
the GPU after half a second of warm-up that raises its clock; float64 only where
the device stores it, not on a GPU), target <= 1.1x, in 5 fresh processes of up to 1000 rounds each by default
(``--processes``: a GPU run's sides can sit 10% apart for all its rounds, one way
in one process and the other way in the next; each case's figure is then the
median of the per-process ratios). Both sides launch their result
with ``mx.async_eval`` (stridewave does it inside the call) and wait for it inside
the timed call the same way: ``--wait synchronize`` (default) with
``mx.synchronize`` of the device's stream, ``--wait eval`` with ``mx.eval`` of the
result (the carrier's MLX array on stridewave's side).

Why ``synchronize``: on MLX's CUDA backend ``mx.eval`` waits on an atomic with
libcu++'s backoff, which sleeps longer the longer it has waited, so the time of a
call of 50-150 us depends on *when* its wait starts. Raw MLX that spins 25 us of
Python between the launch and ``mx.eval`` finishes sooner than raw MLX that
waits at once (3-39% by case); with ``mx.synchronize`` the same 25 us change nothing
(measured on an NVIDIA H200 with MLX's CUDA build). Under
``eval`` the ratio measured the wait's phase as much as the work.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np
from _timing import print_ratio_table

import stridewave.array_api as xp


def _interleaved(ours_fn, ref_fn, rounds, warm_s=0.0, number=1):  # type: ignore[no-untyped-def]
    """Best and median times of both sides, timed call by call, interleaved.

    Each round times ``number`` calls of one side, then of the other; the side that
    goes first alternates. A drift of the machine (a GPU's clock between bursts, a
    neighbour on a shared CPU) then reaches both sides alike, where rounds of many
    calls of one side each catch it on one side only. ``rounds`` at most: a case is
    given about 4 s per side, and at least 5 rounds. ``warm_s`` seconds of the
    reference run untimed first (a GPU raises its clock). Returns the best time per
    call of each side; the medians go to ``_MEDIANS``.
    """
    start = time.perf_counter()
    for _ in range(number):
        ref_fn()
    per_round = max(time.perf_counter() - start, 1e-9)
    rounds = max(5, min(rounds, int(4.0 / per_round)))
    end = time.perf_counter() + warm_s
    ours_fn()
    while time.perf_counter() < end:
        ref_fn()
    ours: list[float] = []
    ref: list[float] = []
    clock = time.perf_counter
    for round_ in range(rounds):
        for fn, found in ((ours_fn, ours), (ref_fn, ref))[:: 1 if round_ % 2 == 0 else -1]:
            start = clock()
            for _ in range(number):
                fn()
            found.append((clock() - start) / number)
    ours.sort()
    ref.sort()
    _MEDIANS.append((ours[len(ours) // 2], ref[len(ref) // 2]))
    return ours[0], ref[0]


#: Median times per call (ours, reference) of each case, in table order.
_MEDIANS: list[tuple[float, float]] = []


#: The dtypes ``--dtype both`` measures, with the suffix of their case names.
_DTYPES = {"float32": "f32", "float64": "f64"}


def _cpu_rows(
    n: int, m: int, rounds: int, dtype: str
) -> list[tuple[str, float, str, float, float, str]]:
    rng = np.random.default_rng(0)
    a_np = rng.standard_normal(n).astype(dtype)
    b_np = rng.standard_normal(n).astype(dtype)
    a, b = xp.asarray(a_np), xp.asarray(b_np)
    p_np = rng.standard_normal((m, m)).astype(dtype)
    q_np = rng.standard_normal((m, m)).astype(dtype)
    p, q = xp.asarray(p_np), xp.asarray(q_np)
    assert a.dtype == getattr(xp, dtype), f"xp.asarray gave {a.dtype} for {dtype} data"
    one_np = np.ones(1, dtype)
    one = xp.asarray(one_np)
    cases = [
        (
            "xp.add(a, b) 1e7",
            lambda: xp.add(a, b),
            "np.add(a, b)",
            lambda: np.add(a_np, b_np),
            "<= 1.1x",
        ),
        ("xp.sum(a) 1e7", lambda: xp.sum(a), "np.sum(a)", lambda: np.sum(a_np), "<= 1.1x"),
        ("a[::2] * 2 1e7", lambda: a[::2] * 2, "a[::2] * 2", lambda: a_np[::2] * 2, "<= 1.1x"),
        (
            f"xp.matmul {m}x{m}",
            lambda: xp.matmul(p, q),
            "np.matmul",
            lambda: np.matmul(p_np, q_np),
            "<= 1.05x",
        ),
        (
            "(a*2 + 1)**2 - a/3 1e7",
            lambda: (a * 2 + 1) ** 2 - a / 3,
            "the same on NumPy",
            lambda: (a_np * 2 + 1) ** 2 - a_np / 3,
            "<= 1.05x",
        ),
    ]
    rows = []
    suffix = _DTYPES[dtype]
    for name, ours_fn, ref_name, ref_fn, target in cases:
        ours, ref = _interleaved(ours_fn, ref_fn, rounds)
        rows.append((f"{name} {suffix}", ours, ref_name, ref, ours / ref, target))
    for name, ours_fn, ref_name, ref_fn in (
        (
            "xp.add 1 element",
            lambda: xp.add(one, one),
            "np.add 1 element",
            lambda: np.add(one_np, one_np),
        ),
        ("x + y 1 element", lambda: one + one, "x + y 1 element", lambda: one_np + one_np),
    ):
        ours, ref = _interleaved(ours_fn, ref_fn, rounds, number=200)
        rows.append((f"{name} {suffix}", ours, ref_name, ref, ours / ref, "<= 3x"))
    return rows


def _metal_rows(
    n: int, m: int, rounds: int, wait: str, dtype: str
) -> list[tuple[str, float, str, float, float, str]]:
    from stridewave.carriers._mlx_runtime import import_mlx, select_device

    mx = import_mlx()
    device, _name = select_device(mx)
    gpu = os.environ.get("STRIDEWAVE_METAL_DEVICE", "").strip().lower() != "cpu"
    target = "<= 1.1x"
    metal = xp.Device("Metal")
    if getattr(xp, dtype) not in xp.__array_namespace_info__().dtypes(device=metal).values():
        print(f"{dtype}: not stored by {metal} on this MLX device, not measured", file=sys.stderr)
        return []
    rng = np.random.default_rng(0)
    a_np = rng.standard_normal(n).astype(dtype)
    b_np = rng.standard_normal(n).astype(dtype)
    p_np = rng.standard_normal((m, m)).astype(dtype)
    q_np = rng.standard_normal((m, m)).astype(dtype)
    a, b = xp.asarray(a_np, device=metal), xp.asarray(b_np, device=metal)
    p, q = xp.asarray(p_np, device=metal), xp.asarray(q_np, device=metal)
    assert a.dtype == getattr(xp, dtype), f"xp.asarray gave {a.dtype} for {dtype} data"
    mx_dtype = getattr(mx, dtype)  # (MLX reads float64 NumPy data as float32 untold)
    with mx.stream(device):
        a_mx, b_mx = mx.array(a_np, dtype=mx_dtype), mx.array(b_np, dtype=mx_dtype)
        p_mx, q_mx = mx.array(p_np, dtype=mx_dtype), mx.array(q_np, dtype=mx_dtype)
        one_mx = mx.ones((1,), dtype=mx_dtype)
    assert a_mx.dtype == mx_dtype == p_mx.dtype, "raw MLX would compute in another dtype"
    mx.eval(a_mx, b_mx, p_mx, q_mx, one_mx)
    one = xp.ones(1, dtype=getattr(xp, dtype), device=metal)

    stream = mx.default_stream(device)  # where both sides run (mx.stream(device))
    if wait == "synchronize":

        def done(out):  # type: ignore[no-untyped-def]
            mx.synchronize(stream)

    else:

        def done(out):  # type: ignore[no-untyped-def]
            mx.eval(out)

    def raw(fn):  # type: ignore[no-untyped-def]
        def run():  # type: ignore[no-untyped-def]
            with mx.stream(device):
                out = fn()
            mx.async_eval(out)  # (launched as a stridewave result is launched)
            done(out)
            return out

        return run

    def settled(fn):  # type: ignore[no-untyped-def]
        # A result's evaluation is scheduled, not awaited (docs/array-api.md, "Lazy
        # results"): wait for it here, as the raw side waits for its own, so both sides
        # time the computation done. (The scheduled MLX array, read from a fresh
        # result's token without making its carrier: a benchmark's liberty.)
        def run():  # type: ignore[no-untyped-def]
            out = fn()
            token = out._native
            done(token[1] if token is not None and len(token) == 7 else out._carrier._mx_array)
            return out

        return run

    cases = [
        ("xp.add(a, b) 1e7", lambda: xp.add(a, b), "mx.add", lambda: mx.add(a_mx, b_mx), target),
        ("xp.sum(a) 1e7", lambda: xp.sum(a), "mx.sum", lambda: mx.sum(a_mx), target),
        ("a[::2] * 2 1e7", lambda: a[::2] * 2, "a[::2] * 2", lambda: a_mx[::2] * 2, target),
        (
            f"xp.matmul {m}x{m}",
            lambda: xp.matmul(p, q),
            "mx.matmul",
            lambda: mx.matmul(p_mx, q_mx),
            target,
        ),
        (
            "xp.add 1 element",
            lambda: xp.add(one, one),
            "mx.add 1 element",
            lambda: mx.add(one_mx, one_mx),
            "",
        ),
    ]
    rows = []
    suffix = _DTYPES[dtype]
    for name, ours_fn, ref_name, ref_fn, goal in cases:
        ours, ref = _interleaved(
            settled(ours_fn),
            raw(ref_fn),
            rounds,
            warm_s=0.5 if gpu else 0.0,
            number=1 if goal else 20,
        )
        rows.append((f"{name} {suffix}", ours, ref_name, ref, ours / ref, goal))
    return rows


def main(argv: list[str] | None = None) -> list[tuple[str, float, str, float, float, str]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", choices=("cpu", "metal"), default="cpu")
    parser.add_argument(
        "--rounds",
        type=int,
        default=None,
        help="interleaved rounds per case, at most (default 300 on cpu, 2000 on metal)",
    )
    parser.add_argument(
        "--wait",
        choices=("synchronize", "eval"),
        default="synchronize",
        help="metal: how both sides wait for their result (default synchronize)",
    )
    parser.add_argument(
        "--processes",
        type=int,
        default=None,
        help="measure in N fresh processes, one after another (default 1 on cpu, 5 on "
        "metal); the figure held to a target is the median of their ratios",
    )
    parser.add_argument(
        "--dtype",
        choices=(*_DTYPES, "both"),
        default="both",
        help="the dtype of the operands (default both: float32's cases, then float64's)",
    )
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--n", type=int, default=10**7, help="elements (1-D cases)")
    parser.add_argument("--matrix", type=int, default=2000, help="matmul edge")
    args = parser.parse_args(argv)
    if args.processes is None:
        args.processes = 5 if args.device == "metal" else 1
    if args.rounds is None:
        args.rounds = 1000 if args.device == "metal" else 300
    if args.processes > 1:
        return _in_processes(args)
    dtypes = list(_DTYPES) if args.dtype == "both" else [args.dtype]
    rows = []
    for dtype in dtypes:
        if args.device == "metal":
            rows += _metal_rows(args.n, args.matrix, args.rounds, args.wait, dtype)
        else:
            rows += _cpu_rows(args.n, args.matrix, args.rounds, dtype)
    reference = "raw MLX" if args.device == "metal" else "NumPy"
    if args.json:
        found = zip(rows, _MEDIANS, strict=True)
        print(json.dumps([[row[0], *medians, row[5]] for row, medians in found]))
        return rows
    waits = f", both sides waiting with mx.{args.wait}" if args.device == "metal" else ""
    print(f"stridewave.array_api on {args.device}, reference: {reference}{waits}")
    print_ratio_table(
        rows, case_width=22, ref_width=16, reference="MLX" if args.device == "metal" else "NumPy"
    )
    print(f"medians of up to {args.rounds} interleaved rounds per side (us), and their ratio:")
    for (name, *_rest), (ours, ref) in zip(rows, _MEDIANS, strict=True):
        print(f"  {name:<22} {ours * 1e6:10.2f} / {ref * 1e6:10.2f} = {ours / ref:5.2f}")
    return rows


def _in_processes(args: argparse.Namespace) -> list[tuple[str, float, str, float, float, str]]:
    """Run the measurement in ``args.processes`` fresh processes; print and return medians.

    Each process allocates its arrays and results afresh, at other addresses: on the
    GPU a run's two sides can sit 10% apart for all its rounds one way in one process
    and the other way in the next (seen on an NVIDIA H200). pyperf spawns
    worker processes for the same reason (memory layout). Each case's figure is the
    median of the per-process ratios of medians.
    """
    command = [sys.executable, __file__, "--device", args.device, "--wait", args.wait]
    command += ["--rounds", str(args.rounds), "--n", str(args.n), "--matrix", str(args.matrix)]
    command += ["--dtype", args.dtype]
    runs = []
    for _ in range(args.processes):
        done = subprocess.run(
            [*command, "--processes", "1", "--json"], capture_output=True, text=True, check=True
        )
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    reference = "raw MLX" if args.device == "metal" else "NumPy"
    waits = f", both sides waiting with mx.{args.wait}" if args.device == "metal" else ""
    print(f"stridewave.array_api on {args.device}, reference: {reference}{waits}")
    print(
        f"{args.processes} processes, up to {args.rounds} interleaved rounds per side each; "
        "per process the ratio of the medians, then their median (held to the target):"
    )
    rows = []
    for index, (name, *_rest, goal) in enumerate(runs[0]):
        ours = [run[index][1] for run in runs]
        ref = [run[index][2] for run in runs]
        ratios = sorted(o / r for o, r in zip(ours, ref, strict=True))
        middle = ratios[len(ratios) // 2]
        shown = " ".join(f"{ratio:4.2f}" for ratio in ratios)
        print(f"  {name:<22} {shown}  -> {middle:4.2f}  {goal}")
        rows.append((name, float(np.median(ours)), reference, float(np.median(ref)), middle, goal))
    return rows


if __name__ == "__main__":
    main()
