"""scikit-learn benchmark: the same estimators on every array namespace present, in one run.

Run ``python benchmarks/bench_sklearn.py [--rows N] [--columns C] [--only NAME ...]``
(or ``nox -s bench``). On a ``N x C`` float32 matrix (default 400,000 x 64, a
standard normal one with a linear signal in it) it fits, with
``sklearn.set_config(array_api_dispatch=True)`` and ``SCIPY_ARRAY_API=1``:

* ``StandardScaler`` (``mean_``, ``scale_``);
* ``PCA(n_components=8, svd_solver="full")`` (``components_``, signs aligned with
  NumPy's, which any SVD leaves free);
* ``Ridge(solver="svd")`` (``coef_``);
* ``LinearDiscriminantAnalysis(solver="svd")`` (``coef_``), two classes;
* ``LogisticRegression(solver="lbfgs")`` (``coef_``), two classes;
* ``pairwise_distances`` of the first 2,000 rows with the first 2,000 rows.

on each namespace that imports: NumPy without dispatch (the reference), NumPy with
dispatch (``array_api_compat.numpy``), ``array_api_strict``, StrideWeave's CPU and
Metal devices (Metal on ``STRIDEWAVE_METAL_DEVICE``'s MLX device), and torch (CUDA
where it has one) and CuPy through ``array_api_compat``. Each fit runs once
untimed (a warm-up: compilation, caches, the device's clock) and once timed, the
time including the transfer of the fitted attribute to a NumPy array (which waits for
lazy or asynchronous results). The table prints seconds, the ratio to NumPy's time
and the largest absolute difference from NumPy's result.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from typing import Any

os.environ.setdefault("SCIPY_ARRAY_API", "1")  # (before SciPy is first imported)

import numpy as np

PAIRWISE_ROWS = 2000


def _namespaces() -> list[tuple[str, Callable[[np.ndarray[Any, Any]], Any]]]:
    """Return ``(name, to_namespace)`` for each namespace that imports here."""
    found: list[tuple[str, Callable[[np.ndarray[Any, Any]], Any]]] = []
    try:
        import array_api_compat.numpy as cnp

        found.append(("numpy+dispatch", lambda a: cnp.asarray(a)))
    except ImportError:
        pass
    try:
        import array_api_strict as strict

        found.append(("array_api_strict", lambda a: strict.asarray(a)))
    except ImportError:
        pass
    import stridewave.array_api as xp

    for device in xp.__array_namespace_info__().devices():
        if str(device) in ("Device('CPU')", "Device('Metal')"):
            name = "stridewave " + ("CPU" if "CPU" in str(device) else "Metal")
            found.append((name, lambda a, d=device: xp.asarray(a, device=d)))
    try:
        import torch

        where = "cuda" if torch.cuda.is_available() else "cpu"
        found.append((f"torch {where}", lambda a: torch.asarray(a, device=where)))
    except ImportError:
        pass
    try:
        import cupy

        if cupy.cuda.runtime.getDeviceCount():
            found.append(("cupy", lambda a: cupy.asarray(a)))
    except (ImportError, RuntimeError) as exc:  # (no CuPy, or no CUDA device for it)
        print(f"cupy: not run ({type(exc).__name__}: {exc})"[:200])
    return found


def _to_numpy(value: Any) -> np.ndarray[Any, Any]:
    """Return a fitted attribute of any namespace as a float64 NumPy array."""
    if hasattr(value, "get") and type(value).__module__.startswith("cupy"):
        value = value.get()
    elif type(value).__module__.startswith("torch"):
        value = value.detach().cpu().numpy()
    elif type(value).__module__.startswith("array_api_strict"):
        value = np.asarray(value._array)
    return np.asarray(value, dtype=np.float64)


def _cases(rows: int) -> list[tuple[str, Callable[[Any, Any], Any]]]:
    from sklearn.decomposition import PCA
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.linear_model import LogisticRegression, Ridge
    from sklearn.metrics import pairwise_distances
    from sklearn.preprocessing import StandardScaler

    def scaler(x: Any, y: Any) -> Any:
        fitted = StandardScaler().fit(x)
        return [fitted.mean_, fitted.scale_]

    def pairwise(x: Any, y: Any) -> Any:
        part = x[: min(PAIRWISE_ROWS, rows)]
        return [pairwise_distances(part, part)]

    return [
        ("StandardScaler", scaler),
        ("PCA(8, full)", lambda x, y: [PCA(n_components=8, svd_solver="full").fit(x).components_]),
        ("Ridge(svd)", lambda x, y: [Ridge(solver="svd").fit(x, y).coef_]),
        ("LDA(svd)", lambda x, y: [LinearDiscriminantAnalysis(solver="svd").fit(x, y > 0).coef_]),
        ("LogisticRegression", lambda x, y: [LogisticRegression(solver="lbfgs").fit(x, y > 0).coef_]),
        ("pairwise_distances", pairwise),
    ]  # fmt: skip


def _run(case: Callable[[Any, Any], Any], x: Any, y: Any) -> tuple[float, list[Any]]:
    case(x, y)  # warm-up
    start = time.perf_counter()
    out = [_to_numpy(v) for v in case(x, y)]
    return time.perf_counter() - start, out


def _difference(name: str, got: list[Any], reference: list[Any]) -> float:
    if name.startswith("PCA"):  # (each component's sign is free)
        signs = np.sign(np.sum(got[0] * reference[0], axis=1, keepdims=True))
        got = [got[0] * signs]
    return max(float(np.max(np.abs(g - r))) for g, r in zip(got, reference, strict=True))


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its table.

    Parameters
    ----------
    argv : list of str, optional
        The command-line arguments (default ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status: 0, or 1 where scikit-learn is not installed.
    """
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rows", type=int, default=400_000, help="rows of X (400,000)")
    parser.add_argument("--columns", type=int, default=64, help="columns of X (64)")
    parser.add_argument("--only", nargs="*", default=None, help="namespaces to run")
    args = parser.parse_args(argv)
    try:
        import sklearn
    except ImportError:
        print('skipped: scikit-learn is not installed (pip install "stridewave[clients]")')
        return 0
    rng = np.random.default_rng(0)
    x = rng.standard_normal((args.rows, args.columns), dtype=np.float32)
    weights = rng.standard_normal(args.columns).astype(np.float32)
    y = (x @ weights + 0.5 * rng.standard_normal(args.rows)).astype(np.float32)
    cases = _cases(args.rows)
    print(f"X: {args.rows} x {args.columns} float32; scikit-learn {sklearn.__version__}")
    reference: dict[str, tuple[float, list[Any]]] = {}
    with sklearn.config_context(array_api_dispatch=False):
        for name, case in cases:
            reference[name] = _run(case, x, y)
    rows = [("numpy", name, seconds, 1.0, 0.0) for name, (seconds, _) in reference.items()]
    namespaces = _namespaces()
    if args.only:
        namespaces = [(n, f) for n, f in namespaces if any(o in n for o in args.only)]
    with sklearn.config_context(array_api_dispatch=True):
        for space, convert in namespaces:
            xs, ys = convert(x), convert(y)
            for name, case in cases:
                try:
                    seconds, got = _run(case, xs, ys)
                except (TypeError, ValueError, IndexError, AttributeError, RuntimeError) as exc:
                    # (a namespace a scikit-learn path does not support)
                    print(f"{space:18} {name:20} failed: {type(exc).__name__}: {exc}"[:200])
                    continue
                base, expected = reference[name]
                rows.append(
                    (space, name, seconds, seconds / base, _difference(name, got, expected))
                )
    print(f"{'namespace':18} {'estimator':20} {'seconds':>10} {'/ numpy':>8} {'max |diff|':>11}")
    for space, name, seconds, ratio, diff in sorted(rows, key=lambda r: (r[1], r[0] != "numpy")):
        print(f"{space:18} {name:20} {seconds:10.4f} {ratio:8.2f} {diff:11.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
