"""Dask on ``distributed.LocalCluster(processes=True)``: few tests, one cluster, timeouts.

Workers are separate processes (spawned), with a private ``TMPDIR``; every wait is
bounded, so a regression fails instead of hanging the suite.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import stridewave as sw

from .conftest import has

pytestmark = [
    pytest.mark.skipif(not has("distributed"), reason="distributed is not installed"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::UserWarning"),
]

WAIT = 120  # seconds: generous on a loaded machine, finite everywhere


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from distributed import Client, LocalCluster

    mp = pytest.MonkeyPatch()
    mp.setenv("TMPDIR", str(tmp_path_factory.mktemp("workers-tmp")))
    cluster = LocalCluster(  # type: ignore[no-untyped-call,unused-ignore]
        processes=True,
        n_workers=2,
        threads_per_worker=1,
        dashboard_address=None,
        timeout=WAIT,
        local_directory=str(tmp_path_factory.mktemp("dask-space")),
    )
    try:
        with Client(cluster, timeout=WAIT) as connected:  # type: ignore[no-untyped-call,unused-ignore]
            yield connected
    finally:
        cluster.close(timeout=WAIT)
        mp.undo()


def _values(n: int) -> np.ndarray:
    return (np.arange(n, dtype=np.float32) % 97) - 48.0


def test_reductions_over_an_opened_file_match_numpy(client: Any, tmp_path: Path) -> None:
    import dask.array as da

    expected = _values(200_000).reshape(400, 500)
    np.save(tmp_path / "data.npy", expected)
    opened = sw.FileBacked.open(tmp_path / "data.npy")
    lazy = da.from_array(sw.Tensor(opened, sw.Layout((400, 500))), chunks=(100, 250))  # type: ignore[no-untyped-call,unused-ignore]
    graph_bytes = len(pickle.dumps(dict(lazy.__dask_graph__())))
    assert graph_bytes < 50_000 < expected.nbytes  # a reference to the file, not its data
    total = client.compute(lazy.sum(dtype=np.float64)).result(timeout=WAIT)
    assert total == pytest.approx(expected.sum(dtype=np.float64))
    means = client.compute(lazy.mean(axis=0)).result(timeout=WAIT)
    np.testing.assert_allclose(means, expected.mean(axis=0), rtol=1e-6)
    top = client.compute(lazy.max(axis=1)).result(timeout=WAIT)
    np.testing.assert_array_equal(top, expected.max(axis=1))


def test_a_tensor_over_memory_ships_its_values(client: Any) -> None:
    import dask.array as da

    expected = _values(1000)
    tensor = sw.Tensor(sw.CPU.from_numpy(expected.copy()), sw.Layout((1000,)))
    lazy = da.from_array(tensor, chunks=250)  # type: ignore[no-untyped-call,unused-ignore]
    assert client.compute(lazy.sum()).result(timeout=WAIT) == pytest.approx(expected.sum())


def _describe(dtype: Any) -> tuple[object, str]:
    return (dtype.block, dtype.name)


def test_unknown_compound_dtype_fails_clearly_then_registers_in_one_call(client: Any) -> None:
    import stridewave.dask as swd

    scaled = sw.ScaledDType("DistMXFP8", element=sw.DType.E4M3, scale=sw.DType.E8M0, block=32)
    future = client.submit(_describe, scaled, pure=False)
    with pytest.raises(LookupError, match="register_dtypes"):
        future.result(timeout=WAIT)  # a clear error, not a hang
    assert swd.register_dtypes(client, [scaled]) == ["DistMXFP8"]  # built-in planes stay
    assert client.submit(_describe, scaled, pure=False).result(timeout=WAIT) == (32, "DistMXFP8")
    # pickles outside distributed follow the spec unchanged
    assert pickle.loads(pickle.dumps(scaled)) is scaled


def test_an_array_api_array_of_any_standard_dtype_unpickles_on_a_worker(client: Any) -> None:
    # CONTRACT section 9: the worker imports nothing first; unpickling the Array
    # registers the standard's dtypes there.
    import stridewave.array_api as xp

    for name in ("int64", "uint8", "complex128", "float64", "bool"):
        local = xp.asarray(np.arange(3).astype(name))
        remote = client.submit(repr, local, pure=False).result(timeout=WAIT)
        assert remote == repr(local), name
