"""Interop matrix, part 1 (default suite): carrier kind x NumPy, DLPack, MLX, Dask.

For every kind and consumer: the values arrive, the export is zero-copy where promised
(host kinds; Metal exports snapshots), and no write through the consumer's result
reaches the carrier or skips its version (CONTRACT sections 3 and 8).
"""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import pytest

import stridewave as sw

from .conftest import DLPACK_VIEWS, VALUES, Kind, assert_untouched, has, needs_numpy_2_1

# -- NumPy ----------------------------------------------------------------------------


def test_numpy_asarray_is_a_read_only_view_or_snapshot(kind: Kind, carrier: sw.Carrier) -> None:
    version = carrier.version
    view = np.asarray(carrier)
    np.testing.assert_array_equal(view, VALUES)
    assert np.shares_memory(view, np.asarray(carrier)) is kind.views
    assert not view.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        view[0] = 99.0
    if kind.views:  # on a read-only buffer: the flag cannot be turned back on
        with pytest.raises(ValueError):
            view.flags.writeable = True
    else:  # Metal: a private snapshot, writable once asked, never reaching the carrier
        view.flags.writeable = True
        view[0] = 99.0
    assert_untouched(carrier, version)


def test_numpy_array_is_a_private_writable_copy(carrier: sw.Carrier) -> None:
    version = carrier.version
    copy = np.array(carrier)
    copy[0] = 99.0
    assert_untouched(carrier, version)


def test_array_likeness(carrier: sw.Carrier) -> None:
    assert carrier.shape == (10,) == np.asarray(carrier).shape
    assert carrier.ndim == 1
    assert carrier.itemsize == 4
    assert carrier.nbytes == 40 == np.asarray(carrier).nbytes
    assert carrier.size() == 10 and carrier.dtype() is sw.DType.Float32  # spec methods kept


# -- DLPack into NumPy ------------------------------------------------------------------


def test_from_dlpack_is_zero_copy_and_read_only_on_host(kind: Kind, carrier: sw.Carrier) -> None:
    version = carrier.version
    imported = np.from_dlpack(carrier)
    np.testing.assert_array_equal(imported, VALUES)
    assert np.shares_memory(imported, np.asarray(carrier)) is (kind.views and DLPACK_VIEWS)
    if imported.flags.writeable:  # NumPy 2.0: a private copy
        assert not DLPACK_VIEWS
        imported[0] = 99.0
    else:
        with pytest.raises(ValueError, match="read-only"):
            imported[0] = 99.0
    assert_untouched(carrier, version)
    if kind.views and DLPACK_VIEWS:  # a live view: later writes show, versioned
        carrier[1] = 4.0
        assert imported[1] == 4.0
        assert carrier.version == version + 1


@needs_numpy_2_1
def test_from_dlpack_copy_true_is_writable_and_private(kind: Kind, carrier: sw.Carrier) -> None:
    version = carrier.version
    imported = np.from_dlpack(carrier, copy=True)
    assert not np.shares_memory(imported, np.asarray(carrier))
    if kind.views:
        assert imported.flags.writeable  # (MLX flags even its copies read-only)
    if imported.flags.writeable:
        imported[:] = 99.0
    assert_untouched(carrier, version)


class _Legacy:
    """A consumer that only understands legacy (pre-1.0) DLPack capsules."""

    def __init__(self, producer: Any, **kwargs: Any) -> None:
        self.capsule = producer.__dlpack__(**kwargs)
        self.device = producer.__dlpack_device__()

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self.capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        return self.device  # type: ignore[no-any-return]


def test_a_legacy_consumer_gets_a_copy_never_a_writable_alias(
    kind: Kind, carrier: sw.Carrier
) -> None:
    version = carrier.version
    imported = np.from_dlpack(_Legacy(carrier))
    np.testing.assert_array_equal(imported, VALUES)
    assert not np.shares_memory(imported, np.asarray(carrier))
    if imported.flags.writeable:
        imported[:] = 99.0
    assert_untouched(carrier, version)


def test_a_legacy_consumer_asking_for_no_copy_is_refused(carrier: sw.Carrier) -> None:
    with pytest.raises(BufferError, match="copy"):
        carrier.__dlpack__(copy=False)


def test_dlpack_device_is_the_host(kind: Kind, carrier: sw.Carrier) -> None:
    assert carrier.__dlpack_device__() == (1, 0)  # MLX's CPU device in CI
    with pytest.raises(BufferError):
        carrier.__dlpack__(max_version=(1, 0), dl_device=(2, 0))


def test_released_carriers_refuse_every_export(carrier: sw.Carrier) -> None:
    carrier.release()
    for export in (
        lambda: carrier.__dlpack__(max_version=(1, 0)),
        carrier.__dlpack_device__,
        lambda: carrier.__buffer__(0),
        lambda: np.from_dlpack(carrier),
        carrier.__mlx_array__,
        lambda: carrier.save("never.npy"),
    ):
        with pytest.raises(RuntimeError, match="released"):
            export()


FULL_RO = 0x11C  # PyBUF_FULL_RO: what memoryview(c) asks for (Python 3.12+)


def test_buffer_protocol_is_read_only(kind: Kind, carrier: sw.Carrier) -> None:
    if not kind.views:  # Metal: no buffer (NumPy then takes __array__'s snapshot)
        with pytest.raises(BufferError, match="MLX device"):
            carrier.__buffer__(FULL_RO)
        return
    view = carrier.__buffer__(FULL_RO)
    assert view.readonly and view.format == "f" and view.shape == (10,)
    np.testing.assert_array_equal(np.asarray(view), VALUES)
    assert np.shares_memory(np.asarray(view), np.asarray(carrier)) is kind.views
    with pytest.raises(BufferError, match="read-only"):
        carrier.__buffer__(1)  # PyBUF_WRITABLE


def test_a_raw_bytes_buffer_request_gets_a_private_copy(kind: Kind, carrier: sw.Carrier) -> None:
    # PyBUF_SIMPLE (0): no format, and a consumer (PyTorch's asarray) that wraps the
    # buffer in a writable tensor whatever its read-only flag says.
    if not kind.views:
        with pytest.raises(BufferError, match="MLX device"):
            carrier.__buffer__(0)
        return
    version = carrier.version
    raw = carrier.__buffer__(0)
    copy = np.asarray(raw)
    np.testing.assert_array_equal(copy, VALUES)
    assert not np.shares_memory(copy, np.asarray(carrier))
    copy[0] = 99.0  # writes stay in the copy
    assert_untouched(carrier, version)


# -- single-subtensor Tensors ----------------------------------------------------------


def test_tensor_dlpack_is_a_strided_read_only_view(kind: Kind, carrier: sw.Carrier) -> None:
    tensor = sw.Tensor(carrier, sw.Layout((2, 5), (1, 2)))  # a transposed view
    expected = VALUES.reshape(5, 2).T
    imported = np.from_dlpack(tensor)
    np.testing.assert_array_equal(imported, expected)
    if DLPACK_VIEWS:
        assert not imported.flags.writeable
    assert np.shares_memory(imported, np.asarray(carrier)) is (kind.views and DLPACK_VIEWS)
    assert tensor.__dlpack_device__() == (1, 0)
    assert not np.shares_memory(np.from_dlpack(_Legacy(tensor)), np.asarray(carrier))
    np.testing.assert_array_equal(tensor[1, 1:3], expected[1, 1:3])
    assert tensor.ndim == 2


def test_compound_tensor_has_no_single_dlpack_export() -> None:
    scaled = sw.ScaledDType("InteropMX", element=sw.DType.Float32, scale=sw.DType.Float32, block=2)
    plane = sw.Tensor(sw.CPU(4), sw.Layout((4,)))
    scale = sw.Tensor(sw.CPU(2), sw.Layout((2,)))
    compound = sw.Tensor.compound(scaled, (plane, scale))
    with pytest.raises(ValueError, match="subtensor"):
        compound.__dlpack__()


# -- MLX --------------------------------------------------------------------------------


@pytest.mark.skipif(not has("mlx"), reason="mlx is not installed")
def test_mlx_array_of_every_carrier_is_a_copy(carrier: sw.Carrier) -> None:
    import mlx.core as mx

    version = carrier.version
    array = mx.array(carrier)
    assert array.dtype == mx.float32 and array.shape == (10,)
    np.testing.assert_array_equal(np.array(array), VALUES)
    array[0] = 99.0
    mx.eval(array)
    assert_untouched(carrier, version)


# -- Dask (threaded scheduler) ------------------------------------------------------------


@pytest.mark.skipif(not has("dask"), reason="dask is not installed")
def test_dask_threaded_reductions_match_numpy(carrier: sw.Carrier) -> None:
    import dask
    import dask.array as da

    tensor = sw.Tensor(carrier, sw.Layout((2, 5)))
    lazy = da.from_array(tensor, chunks=(1, 2))  # type: ignore[no-untyped-call,unused-ignore]
    expected = VALUES.reshape(2, 5)
    with dask.config.set(scheduler="threads"):
        np.testing.assert_allclose(lazy.sum().compute(), expected.sum())
        np.testing.assert_allclose(lazy.mean(axis=0).compute(), expected.mean(axis=0))
        np.testing.assert_array_equal(lazy.max(axis=1).compute(), expected.max(axis=1))
        np.testing.assert_array_equal(lazy.compute(), expected)
    assert lazy.dtype == np.float32
    graph = dict(lazy.__dask_graph__())
    assert not any(isinstance(v, np.ndarray) for v in graph.values())  # no copy in the graph


@pytest.mark.skipif(not has("dask"), reason="dask is not installed")
def test_dask_graph_over_an_opened_file_holds_a_reference_not_the_data(tmp_path: Any) -> None:
    import dask.array as da

    big = np.arange(1_000_000, dtype=np.float32)
    np.save(tmp_path / "big.npy", big)
    opened = sw.FileBacked.open(tmp_path / "big.npy")
    lazy = da.from_array(sw.Tensor(opened, sw.Layout((opened.size(),))), chunks=250_000)  # type: ignore[no-untyped-call,unused-ignore]
    payload = pickle.dumps(dict(lazy.__dask_graph__()))
    assert len(payload) < 20_000 < big.nbytes  # path, mode, dtype, size: not 4 MB of data
    assert float(lazy.sum().compute()) == pytest.approx(float(big.sum(dtype=np.float64)))


@pytest.mark.skipif(not has("dask"), reason="dask is not installed")
def test_dask_token_follows_the_version(carrier: sw.Carrier) -> None:
    from dask.base import tokenize

    before = tokenize(carrier)
    assert tokenize(carrier) == before
    carrier[0] = 5.0
    assert tokenize(carrier) != before


def test_memoryview_of_a_carrier_needs_python_3_12(kind: Kind, carrier: sw.Carrier) -> None:
    import sys

    if tuple(sys.version_info[:2]) < (3, 12):  # PEP 688: __buffer__ is called from 3.12
        with pytest.raises(TypeError):
            memoryview(carrier)
        return
    if not kind.views:
        with pytest.raises(BufferError):
            memoryview(carrier)
        return
    view = memoryview(carrier)
    assert view.readonly and view.tolist() == VALUES.tolist()
