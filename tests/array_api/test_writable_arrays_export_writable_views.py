"""A writable Array exports a writable zero-copy view; a read-only one exports read-only.

CONTRACT section 9, version 3: ``numpy.asarray(x)`` and ``__dlpack__`` of a writable
Array on a host device give a view of its storage that the consumer may write (SciPy
writes into ``output=`` arrays that way); taking it counts as one write (one version
step); a read-only Array exports read-only; ``numpy.asarray(carrier)`` stays read-only.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import stridewave.array_api as xp
from stridewave import CPU, DType, Evictable, FileBacked, Layout, Tensor

from .conftest import HOST_DEVICE_PARAMS

#: The devices whose storage is host memory (the table of places).
HOST_DEVICES = HOST_DEVICE_PARAMS

#: NumPy 2.1 imports a DLPack capsule writable; NumPy 2.0 marks every import read-only.
NUMPY_IMPORTS_WRITABLE = np.lib.NumpyVersion(np.__version__) >= "2.1.0"


def _host_copy(x: xp.Array) -> Any:
    """Return a copy of ``x``'s values that takes no export of ``x`` (no version step)."""
    return np.asarray(x.to_device(xp.Device("CPU")))


@pytest.mark.parametrize("device", HOST_DEVICES)
def test_numpy_asarray_of_a_writable_array_is_a_writable_view_and_one_version_step(
    device: str,
) -> None:
    x = xp.asarray([1.0, 2.0, 3.0], device=xp.Device(device))
    before = x.carrier.version
    view = np.asarray(x)
    assert view.flags.writeable
    assert x.carrier.version == before + 1
    view[0] = 9.0  # the consumer's write, outside the counter
    assert x.carrier.version == before + 1
    np.testing.assert_array_equal(np.asarray(x.carrier), [9.0, 2.0, 3.0])
    np.testing.assert_array_equal(np.asarray(x + 0), [9.0, 2.0, 3.0])


def test_a_fresh_result_exports_its_own_storage_writable() -> None:
    x = xp.asarray(np.arange(4, dtype=np.float32))
    y = x * 2
    view = np.asarray(y)
    view[:] = -1
    np.testing.assert_array_equal(np.asarray(y + 0), [-1, -1, -1, -1])
    np.testing.assert_array_equal(np.asarray(x.carrier), [0, 1, 2, 3])
    assert y.carrier.version == 1


def test_a_strided_view_exports_exactly_its_elements() -> None:
    x = xp.reshape(xp.arange(12, dtype=xp.float64), (3, 4))
    view = np.asarray(x[:, ::2].mT)
    assert view.shape == (2, 3)
    view[...] = 0
    np.testing.assert_array_equal(np.asarray(x.carrier), [0, 1, 0, 3, 0, 5, 0, 7, 0, 9, 0, 11])


def test_scipy_style_output_arrays_receive_the_values() -> None:
    # SciPy's ndimage and signal write into numpy.asarray(output).
    out = xp.zeros(5)
    np.copyto(np.asarray(out), np.arange(5.0))
    np.testing.assert_array_equal(np.asarray(out.carrier), [0, 1, 2, 3, 4])


def test_dlpack_of_a_writable_array_is_a_writable_view() -> None:
    x = xp.asarray([1, 2, 3], dtype=xp.int32)
    before = x.carrier.version
    y = np.from_dlpack(x)
    assert np.shares_memory(y, np.asarray(x.carrier))
    assert x.carrier.version == before + 1
    if NUMPY_IMPORTS_WRITABLE:
        assert y.flags.writeable
        y[1] = 7
        assert xp.asarray(x)[1] == 7


def test_a_read_only_array_exports_read_only_and_steps_no_version() -> None:
    carrier = CPU.from_numpy(np.arange(3, dtype=np.float32), mutable=False)
    x = xp.asarray(Tensor(carrier, Layout((3,))))
    view = np.asarray(x)
    assert not view.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        view[0] = 1.0
    assert carrier.version == 0
    assert not np.from_dlpack(x).flags.writeable


def test_numpy_asarray_of_a_carrier_stays_read_only() -> None:
    x = xp.asarray([1.0, 2.0])
    assert not np.asarray(x.carrier).flags.writeable
    assert x.carrier.version == 0


def test_a_copy_requested_is_a_private_copy_and_no_version_step() -> None:
    x = xp.asarray([1.0, 2.0])
    copied = x.__array__(copy=True)  # (NumPy 2.0's np.array does not pass copy on)
    copied[0] = 5.0
    assert x.carrier.version == 0
    np.testing.assert_array_equal(np.asarray(x.carrier), [1.0, 2.0])


def test_an_evicted_array_promotes_before_it_exports_a_writable_view() -> None:
    evictable = Evictable(
        CPU.from_numpy(np.arange(3.0, dtype=np.float32)), FileBacked(dtype=DType.Float32)
    )
    x = xp.asarray(Tensor(evictable, Layout((3,))))
    evictable.evict()
    view = np.asarray(x)
    assert not evictable.is_evicted()
    view[2] = 8.0
    np.testing.assert_array_equal(np.asarray(evictable), [0.0, 1.0, 8.0])


def test_an_array_over_a_file_opened_read_only_refuses_writes_and_names_the_fix(
    tmp_path: Path,
) -> None:
    path = os.fspath(tmp_path / "a.npy")
    np.save(path, np.arange(4, dtype=np.float32))
    x = xp.asarray(Tensor(FileBacked.open(path), Layout((4,))))
    assert not np.asarray(x).flags.writeable
    with pytest.raises(RuntimeError, match=r"mode='r\+'"):
        x[0] = 1.0
    np.testing.assert_array_equal(np.load(path), [0, 1, 2, 3])


def test_an_array_over_a_file_opened_for_writing_writes_the_file(tmp_path: Path) -> None:
    path = os.fspath(tmp_path / "a.npy")
    np.save(path, np.arange(4, dtype=np.float32))
    x = xp.asarray(Tensor(FileBacked.open(path, mode="r+"), Layout((4,))))
    x[1] = 10.0
    np.asarray(x)[2] = 20.0
    x.carrier.release()
    np.testing.assert_array_equal(np.load(path), [0, 10, 20, 3])


@pytest.mark.needs_mlx
def test_a_metal_array_of_a_dtype_held_in_host_memory_exports_a_writable_view() -> None:
    pytest.importorskip("mlx")
    z = xp.asarray(np.array([1 + 2j, 3 - 1j]), device=xp.Device("Metal"))
    assert z.dtype is xp.complex128
    before = z.carrier.version
    view = np.asarray(z)
    view[0] = 0
    assert z.carrier.version == before + 1
    assert complex(z[0]) == 0
    assert np.from_dlpack(z).flags.writeable or not NUMPY_IMPORTS_WRITABLE


@pytest.mark.needs_mlx
def test_a_metal_array_exports_a_writable_view_of_its_mlx_buffer() -> None:
    # SciPy's output= arrays on Metal: the values written through numpy.asarray(out)
    # reach the Array (unified or managed memory; a copy would leave zeros).
    pytest.importorskip("mlx")
    metal = xp.Device("Metal")
    out = xp.zeros(5, device=metal)
    before = out.carrier.version
    view = np.asarray(out)
    assert view.flags.writeable
    assert out.carrier.version == before + 1
    np.copyto(view, np.arange(5.0))
    assert float(xp.sum(out)) == 10.0
    strided = np.asarray(out[::2])
    strided[:] = -1.0
    np.testing.assert_array_equal(_host_copy(out), [-1.0, 1.0, -1.0, 3.0, -1.0])


STANDARD_NAMES = [
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64", "complex64", "complex128",
]  # fmt: skip


@pytest.mark.parametrize("name", STANDARD_NAMES)
def test_numpy_views_of_every_device_carry_numpys_own_dtype(device: xp.Device, name: str) -> None:
    # MLX's buffer format for int64 is "q" (C long long), which compares equal to
    # NumPy's int64 ("l") but is another type number: C code that switches on it,
    # SciPy's ndimage.value_indices, took it for no integer type and found nothing
    x = xp.asarray([[1, 0], [0, 2]], dtype=getattr(xp, name), device=device)
    for view in (np.asarray(x), np.asarray(x[1:])):
        assert view.dtype.num == np.dtype(name).num, (view.dtype.char, np.dtype(name).char)


@pytest.mark.needs_mlx
def test_metal_host_operands_carry_numpys_own_dtype() -> None:
    pytest.importorskip("mlx.core")
    from stridewave.array_api._mlx_namespace import host_operand
    from stridewave.carriers._mlx_runtime import import_mlx

    mx = import_mlx()
    backend = xp.Device("Metal").backend
    for mx_dtype, name in ((mx.int64, "int64"), (mx.uint64, "uint64"), (mx.int32, "int32")):
        view = host_operand(backend, mx.array([1, 2, 3], dtype=mx_dtype))
        assert view.dtype.num == np.dtype(name).num
        assert view.tolist() == [1, 2, 3] and not view.flags.writeable
