"""Dask: ``dask.array`` over namespace arrays and stridewave Tensors (threaded scheduler),
and ``distributed`` on a ``LocalCluster(processes=True)`` computing a namespace
expression over an opened ``.npy`` file (``stridewave.dask`` registers the dtypes).

Where Dask itself returns NumPy (``from_array`` chunks read through ``__array__``), a
case returns plain Python values; where it computes through the namespace
(``asarray=False``, ``map_blocks`` of namespace functions), it returns the array.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from _case_support import CaseFn, case_decorator, wide

CLIENT = "dask"
CASES: dict[str, CaseFn] = {}
case = case_decorator(CASES)


def _threads() -> Any:
    import dask

    return dask.config.set(scheduler="threads")


def _from_namespace(ctx: Any, x: Any, chunks: Any) -> Any:
    """``from_array`` that keeps the namespace's chunks (no NumPy conversion)."""
    import dask.array as da

    if ctx.is_reference:
        return da.from_array(x, chunks=chunks)
    return da.from_array(
        x, chunks=chunks, asarray=False, meta=x[tuple(slice(0, 0) for _ in x.shape)]
    )


@case
def from_array_sum_to_numpy(xp: Any, ctx: Any) -> Any:
    import dask.array as da

    with _threads():
        return da.from_array(ctx.randn(6, 4), chunks=(2, 4)).sum(axis=0).compute().tolist()


@case
def from_array_mean_std_to_numpy(xp: Any, ctx: Any) -> Any:
    import dask.array as da

    d = da.from_array(ctx.randn(8, 3), chunks=(4, 3))
    with _threads():
        return [float(d.mean().compute()), float(d.std().compute())]


@case
def from_array_keeps_namespace_chunks(xp: Any, ctx: Any) -> Any:
    with _threads():
        return _from_namespace(ctx, ctx.randn(6, 4), (2, 4)).compute()


@case
def map_blocks_namespace_function(xp: Any, ctx: Any) -> Any:
    d = _from_namespace(ctx, ctx.randn(6, 4), (3, 4))
    with _threads():
        return d.map_blocks(xp.exp, dtype=d.dtype).compute()


@case
def blockwise_arithmetic(xp: Any, ctx: Any) -> Any:
    d = _from_namespace(ctx, ctx.randn(6, 4), (3, 4))
    with _threads():
        return (d * 2.0 + 1.0).compute()


@case
def reduction_through_namespace(xp: Any, ctx: Any) -> Any:
    d = _from_namespace(ctx, ctx.randn(6, 4), (3, 4))
    with _threads():
        return d.sum(axis=0).compute()


@case
def matmul_through_namespace(xp: Any, ctx: Any) -> Any:
    a = _from_namespace(ctx, ctx.randn(6, 4), (3, 4))
    b = _from_namespace(ctx, ctx.randn(4, 5), (4, 5))
    with _threads():
        return (a @ b).compute()


@case
def slicing_through_namespace(xp: Any, ctx: Any) -> Any:
    d = _from_namespace(ctx, ctx.randn(6, 4), (3, 2))
    with _threads():
        return d[1:5, ::2].compute()


@case
def from_array_over_stridewave_tensor(xp: Any, ctx: Any) -> Any:
    """The documented hand-off: a Tensor over a CPU carrier goes to Dask without a copy."""
    import dask.array as da
    import numpy as np

    values = np.arange(24, dtype=np.float32)
    if ctx.is_stridewave:
        import stridewave as sw

        source: Any = sw.Tensor(sw.CPU.from_numpy(values), sw.Layout((6, 4)))
    else:
        source = ctx.asarray(values.reshape(6, 4))
    with _threads():
        return da.from_array(source, chunks=(2, 4)).mean(axis=1).compute().tolist()


def _npy(ctx: Any) -> Path:
    import numpy as np

    path: Path = ctx.tmpdir / "data.npy"
    np.save(path, np.random.default_rng(7).standard_normal((64, 8)).astype(np.float32))
    return path


def _open(ctx: Any, xp: Any, path: Path) -> Any:
    """The opened file as an array of the namespace (stridewave: no copy, FileBacked)."""
    import numpy as np

    if ctx.is_stridewave:
        import stridewave as sw

        opened = sw.FileBacked.open(str(path))
        ctx.result_device = xp.Device("FileBacked")
        return xp.asarray(sw.Tensor(opened, sw.Layout(opened.file_shape)))
    return ctx.asarray(np.load(path, mmap_mode="r"))


@case
def opened_npy_is_an_array(xp: Any, ctx: Any) -> Any:
    a = _open(ctx, xp, _npy(ctx))
    return xp.mean(a, axis=0)


def _expression(xp: Any, a: Any) -> Any:
    centered = a - xp.mean(a, axis=0)
    return xp.sum(centered * centered, axis=0) / a.shape[0]


@case
def distributed_namespace_expression_over_opened_npy(xp: Any, ctx: Any) -> Any:
    from distributed import Client, LocalCluster

    path = _npy(ctx)
    with (
        LocalCluster(
            n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        if ctx.is_stridewave:
            import stridewave.dask

            stridewave.dask.register_dtypes(client)
        a = _open(ctx, xp, path)
        return client.submit(_expression, xp, a).result()


@case
def distributed_dask_array_over_opened_npy(xp: Any, ctx: Any) -> Any:
    import dask.array as da
    import numpy as np
    from distributed import Client, LocalCluster

    path = _npy(ctx)
    with (
        LocalCluster(
            n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster),
    ):
        if ctx.is_stridewave:
            import stridewave as sw

            opened = sw.FileBacked.open(str(path))
            source: Any = sw.Tensor(opened, sw.Layout(opened.file_shape))
        else:
            source = np.load(path, mmap_mode="r")
        return da.from_array(source, chunks=(16, 8)).std(axis=0).compute().tolist()


for _name in ("from_array_sum_to_numpy", "reduction_through_namespace"):
    CASES[f"{_name}[float64]"] = wide(CASES[_name])
