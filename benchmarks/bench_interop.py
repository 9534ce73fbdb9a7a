"""Interop costs against the NumPy hand-off measured in the same run.

* ``torch.from_dlpack(c)`` against ``torch.from_numpy(ndarray)`` on 1e7 Float32
  (target <= 1.5x, or the reason a copy is required). PyTorch accepts DLPack 1.x
  capsules but ignores their read-only flag, so a carrier gives PyTorch a private
  copy (a zero-copy export would be a writable alias that bypasses the version):
  the ratio is the cost of that copy. ``numpy.from_dlpack(c)``, a consumer that
  honours the flag, is zero-copy and is shown against ``numpy.from_dlpack(ndarray)``.
* ``dask.array.from_array(Tensor(FileBacked.open(npy))).sum()`` against the same over
  ``numpy.load(npy, mmap_mode="r")`` (target <= 1.2x), threaded scheduler, the graph
  build included.

Run: ``python benchmarks/bench_interop.py [--size N] [--dask-size N]``.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import warnings

import numpy as np
from _timing import best_of, print_ratio_table

import stridewave as sw


def torch_rows(size: int, repeat: int) -> list[tuple[str, float, str, float, float, str]]:
    rows: list[tuple[str, float, str, float, float, str]] = []
    values = np.random.default_rng(0).random(size, dtype=np.float32)
    carrier = sw.CPU.from_numpy(values.copy())
    plain = values.copy()
    ours = best_of(lambda: np.from_dlpack(carrier), repeat, number=100)
    ref = best_of(lambda: np.from_dlpack(plain), repeat, number=100)
    rows.append(
        ("numpy.from_dlpack(c), zero-copy", ours, "numpy.from_dlpack(arr)", ref, ours / ref, "1.5")
    )
    try:
        import torch
    except ImportError:
        print("(torch is not installed: skipping the PyTorch rows)")
        return rows
    ours = best_of(lambda: torch.from_dlpack(carrier), repeat)
    ref = best_of(lambda: torch.from_numpy(plain), repeat, number=100)
    rows.append(
        ("torch.from_dlpack(c), a copy", ours, "torch.from_numpy(arr)", ref, ours / ref, "copy")
    )
    copy = best_of(lambda: torch.from_numpy(plain.copy()), repeat)
    rows.append(
        (
            "torch.from_dlpack(c), a copy",
            ours,
            "torch.from_numpy(arr.copy())",
            copy,
            ours / copy,
            "1.5",
        )
    )
    return rows


def dask_rows(size: int, repeat: int) -> list[tuple[str, float, str, float, float, str]]:
    import dask
    import dask.array as da

    values = (np.arange(size, dtype=np.float32) % 1000) / 7
    chunks = max(size // 8, 1)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "values.npy")
        np.save(path, values)
        opened = sw.FileBacked.open(path)
        tensor = sw.Tensor(opened, sw.Layout((size,)))
        mapped = np.load(path, mmap_mode="r")
        expected = float(values.sum(dtype=np.float64))
        with dask.config.set(scheduler="threads"):
            got = float(da.from_array(tensor, chunks=chunks).sum(dtype=np.float64).compute())
            assert abs(got - expected) <= 1e-6 * abs(expected), (got, expected)
            ours = best_of(
                lambda: da.from_array(tensor, chunks=chunks).sum(dtype=np.float64).compute(),
                repeat,
            )
            ref = best_of(
                lambda: da.from_array(mapped, chunks=chunks).sum(dtype=np.float64).compute(),
                repeat,
            )
            # Without Dask's tokenization (name=False): scheduling and reading alone.
            bare = best_of(
                lambda: da.from_array(tensor, chunks=chunks, name=False).sum().compute(), repeat
            )
            bare_ref = best_of(
                lambda: da.from_array(mapped, chunks=chunks, name=False).sum().compute(), repeat
            )
        opened.release()
    return [
        (
            "dask from_array(open npy).sum()",
            ours,
            "same, numpy.load(mmap_mode='r')",
            ref,
            ours / ref,
            "1.2",
        ),
        ("  the same, name=False", bare, "the same, name=False", bare_ref, bare / bare_ref, "1.2"),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", type=int, default=10_000_000)
    parser.add_argument("--dask-size", type=int, default=25_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    warnings.simplefilter("ignore", DeprecationWarning)
    rows = torch_rows(args.size, args.repeat) + dask_rows(args.dask_size, args.repeat)
    print(f"Float32, {args.size:.1e} slots (DLPack), {args.dask_size:.1e} slots (Dask)")
    print_ratio_table(rows, case_width=40, ref_width=34)
    first = rows[0]
    print(
        f"(per call: {first[0]} {first[1] * 1e6:.2f} us, {first[2]} {first[3] * 1e6:.2f} us: "
        f"a fixed cost of the Python-level export, not of the data)"
    )


if __name__ == "__main__":
    main()
