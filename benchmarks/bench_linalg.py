"""Tall-skinny linear algebra on the Metal device against NumPy and torch, in one run.

Run ``python benchmarks/bench_linalg.py [--shapes 400000x64,4000000x128] [--repeat R]
[--skip numpy]`` (or ``nox -s bench -- linalg``). For each float32 ``m x n`` matrix (standard normal)
it times ``qr`` (reduced), ``svd`` (``full_matrices=False``) and ``svdvals`` on:

* NumPy on the host (``numpy.linalg``; its LAPACK's threads), the reference;
* StrideWeave's Metal device (``STRIDEWAVE_METAL_DEVICE``'s MLX device), where the
  tall-skinny path factors through matrix products on the device;
* torch on CUDA where it imports with a GPU (``torch.linalg``), the figure the Metal
  device is held to (within 2x).

Each call runs once untimed (a warm-up), then ``R`` times (default 3), timed from the
call to the end of its device work (``mx.synchronize``, ``torch.cuda.synchronize``),
best of ``R``. The table prints seconds, the ratio to torch's and to NumPy's times,
and each result's error, so speed is never read apart from accuracy: the
reconstruction residual ``|A - QR| / |A|`` (``|A - U S V^T| / |A|``), and for
``svdvals`` the largest deviation from the exact singular values over the largest (the
exact ones from the float64 Gram matrix ``A^T A``, accurate for these well-conditioned
matrices). ``--skip numpy`` leaves the host side out (its SVD of the 4,000,000 x 128
matrix takes the longest of all); the ratio to NumPy then reads ``-``.
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

OPERATIONS = ("qr", "svd", "svdvals")


def _residual(
    a: np.ndarray[Any, Any], parts: tuple[np.ndarray[Any, Any], ...], op: str, exact: Any
) -> float:
    """Return the result's error: reconstruction residual, or singular values' deviation."""
    if op == "qr":
        q, r = parts
        return float(np.linalg.norm(a - q @ r) / np.linalg.norm(a))
    if op == "svd":
        u, s, vt = parts
        return float(np.linalg.norm(a - (u * s) @ vt) / np.linalg.norm(a))
    return float(np.max(np.abs(parts[0] - exact)) / exact[0])


def _best(call: Callable[[], Any], wait: Callable[[], None], repeat: int) -> tuple[float, Any]:
    out = call()
    wait()
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        out = call()
        wait()
        best = min(best, time.perf_counter() - start)
    return best, out


def _sides(
    a: np.ndarray[Any, Any], skip: frozenset[str] = frozenset()
) -> list[
    tuple[
        str,
        Callable[[str], Any],
        Callable[[], None],
        Callable[[Any], tuple[np.ndarray[Any, Any], ...]],
    ]
]:
    """Return ``(name, run(op), wait, to_numpy)`` for each library present."""
    sides: list[Any] = []

    def host(op: str) -> Any:
        if op == "qr":
            return np.linalg.qr(a)
        if op == "svd":
            return np.linalg.svd(a, full_matrices=False)
        return (np.linalg.svd(a, compute_uv=False),)

    if "numpy" not in skip:
        sides.append(("numpy", host, lambda: None, lambda out: tuple(np.asarray(p) for p in out)))

    import stridewave.array_api as xp

    metal = xp.Device("Metal")
    if metal in xp.__array_namespace_info__().devices():
        from stridewave.carriers._mlx_runtime import import_mlx

        mx = import_mlx()
        x = xp.asarray(a, device=metal)

        def ours(op: str) -> Any:
            if op == "qr":
                return tuple(xp.linalg.qr(x))
            if op == "svd":
                return tuple(xp.linalg.svd(x, full_matrices=False))
            return (xp.linalg.svdvals(x),)

        sides.append(
            (
                "stridewave Metal",
                ours,
                mx.synchronize,
                lambda out: tuple(np.asarray(p.to_device("cpu")) for p in out),
            )
        )
    else:
        print("Metal: not available here, not measured", file=sys.stderr)
    try:
        import torch  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        print("torch: not importable, not measured", file=sys.stderr)
        return sides
    if not torch.cuda.is_available():
        print("torch: no CUDA device, not measured", file=sys.stderr)
        return sides
    t = torch.asarray(a, device="cuda")

    def theirs(op: str) -> Any:
        if op == "qr":
            return tuple(torch.linalg.qr(t, mode="reduced"))
        if op == "svd":
            return tuple(torch.linalg.svd(t, full_matrices=False))
        return (torch.linalg.svdvals(t),)

    sides.append(
        (
            "torch CUDA",
            theirs,
            torch.cuda.synchronize,
            lambda out: tuple(p.cpu().numpy() for p in out),
        )
    )
    return sides


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its table.

    Parameters
    ----------
    argv : list of str, optional
        Command-line arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0.
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default="400000x64,4000000x128")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip", default="", help="comma-separated sides to leave out: numpy")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    print("| matrix | op | library | seconds | vs torch | vs NumPy | residual |")
    print("|---|---|---|---|---|---|---|")
    for text in args.shapes.split(","):
        m, n = (int(v) for v in text.lower().split("x"))
        a = rng.standard_normal((m, n), dtype=np.float32)
        sides = _sides(a, frozenset(filter(None, args.skip.split(","))))
        gram = a.astype(np.float64).T @ a.astype(np.float64)
        exact = np.sqrt(np.clip(np.linalg.eigvalsh(gram)[::-1], 0.0, None))
        for op in OPERATIONS:
            times: dict[str, float] = {}
            rows = []
            for name, run, wait, to_numpy in sides:
                seconds, out = _best(functools.partial(run, op), wait, args.repeat)
                times[name] = seconds
                rows.append((name, seconds, _residual(a, to_numpy(out), op, exact)))
            for name, seconds, residual in rows:
                torch_s = times.get("torch CUDA")
                numpy_s = times.get("numpy")
                vs_torch = f"{seconds / torch_s:.2f}x" if torch_s else "-"
                vs_numpy = f"{seconds / numpy_s:.3f}x" if numpy_s else "-"
                print(
                    f"| {m:,} x {n} | {op} | {name} | {seconds:.4f} | {vs_torch} | "
                    f"{vs_numpy} | {residual:.1e} |",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
