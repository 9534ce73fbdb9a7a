"""The standard's thirteen dtypes on every device that stores them (CONTRACT section 9).

Devices are places: each stores what its backend computes and answers its own default
dtypes; data keeps its dtype (no silent narrowing); an Array iterates and pickles as
clients expect; the fft transforms run on complex dtypes.
"""

from __future__ import annotations

import importlib.util
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import stridewave.array_api as xp
from stridewave import DType, FileBacked, Layout, Tensor
from stridewave.array_api._places import PLACES, carrier_for, place

from .conftest import DEVICE_PARAMS, HOST_DEVICE_PARAMS

HAVE_MLX = importlib.util.find_spec("mlx") is not None
needs_mlx = [
    pytest.mark.needs_mlx,
    pytest.mark.skipif(not HAVE_MLX, reason='mlx is not importable: install "stridewave[mlx]"'),
]

NAMES = (
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float32",
    "float64",
    "complex64",
    "complex128",
)
HOST = HOST_DEVICE_PARAMS
ALL = DEVICE_PARAMS


def _stored(kind: str) -> list[str]:
    # Every listed device stores all thirteen (CONTRACT section 9, version 3).
    return list(NAMES)


def _carrier_kind(kind: str, dtype: DType) -> type:
    # Metal holds the dtypes MLX lacks on its device in a host carrier.
    if dtype in place(kind).host_held():
        return carrier_for("CPU", dtype)
    return carrier_for(kind, dtype)


def test_the_namespace_has_all_thirteen_and_the_built_ins_are_identical() -> None:
    for name in NAMES:
        assert isinstance(getattr(xp, name), DType), name
    assert xp.float32 is DType.Float32 and xp.float64 is DType.Float64
    assert xp.int8 is DType.Int8 and xp.int32 is DType.Int32 and xp.bool is DType.Bool


@pytest.mark.parametrize("kind", ALL)
def test_info_lists_what_the_device_stores_by_kind(kind: str) -> None:
    info = xp.__array_namespace_info__()
    device = xp.Device(kind)
    assert list(info.dtypes(device=device)) == _stored(kind)
    assert list(info.dtypes(device=device, kind="unsigned integer")) == [
        "uint8",
        "uint16",
        "uint32",
        "uint64",
    ]
    complex_names = list(info.dtypes(device=device, kind="complex floating"))
    assert complex_names == [n for n in ("complex64", "complex128") if n in _stored(kind)]


@pytest.mark.parametrize("kind", ALL)
def test_every_stored_dtype_round_trips_and_computes_on_its_device(kind: str) -> None:
    device = xp.Device(kind)
    for name in _stored(kind):
        dtype = getattr(xp, name)
        values = np.array([1, 0, 1]).astype(name)
        x = xp.asarray(values, device=device)
        assert x.dtype is dtype and x.device == device, name
        assert type(x.carrier) is _carrier_kind(kind, dtype), name
        y = xp.equal(x, xp.asarray(values, device=device))
        assert y.device == device and bool(xp.all(y)), name
        np.testing.assert_array_equal(np.asarray(x), values)


@pytest.mark.parametrize("name", ["complex128", "float64"])
def test_metal_holds_what_mlx_lacks_in_host_memory_and_computes_it_in_numpy(name: str) -> None:
    if not HAVE_MLX:
        pytest.skip("needs MLX")
    dtype = getattr(xp, name)
    if place("Metal").computes_on(dtype) == "device":
        pytest.skip(f"MLX holds {name} on this device")
    values = np.array([1.5, -2.0, 3.25], dtype=name) * (1 + 1j if name == "complex128" else 1)
    x = xp.asarray(values, device="metal")
    assert x.dtype is dtype and x.device == xp.Device("Metal")
    assert type(x.carrier) is carrier_for("CPU", dtype)
    y = xp.exp(x) * 2 - x
    assert y.dtype is dtype and y.device == x.device
    np.testing.assert_array_equal(np.asarray(y), np.exp(values) * 2 - values)
    z = xp.zeros(3, dtype=dtype, device="metal")
    z[1] = values[1]
    z += x
    np.testing.assert_array_equal(np.asarray(z), values + np.array([0, values[1], 0]))


def test_the_default_dtypes_are_numpys_on_host_devices() -> None:
    for kind in (row.name for row in PLACES if row.host_addressable):
        defaults = xp.__array_namespace_info__().default_dtypes(device=xp.Device(kind))
        assert defaults == {
            "real floating": xp.float64,
            "complex floating": xp.complex128,
            "integral": xp.int64,
            "indexing": xp.int64,
        }


@pytest.mark.parametrize("kind", HOST)
def test_asarray_keeps_float64_data_float64_and_python_scalars_take_the_defaults(
    kind: str,
) -> None:
    data = np.array([0.1, 1e-300])
    x = xp.asarray(data, device=kind)
    assert x.dtype is xp.float64
    np.testing.assert_array_equal(np.asarray(x), data)  # not rounded through float32
    assert xp.asarray([1, 2], device=kind).dtype is xp.int64
    assert xp.asarray([1.5], device=kind).dtype is xp.float64
    assert xp.asarray(2j, device=kind).dtype is xp.complex128


@pytest.mark.needs_mlx
@pytest.mark.skipif(not HAVE_MLX, reason='mlx is not importable: install "stridewave[mlx]"')
def test_metal_takes_mlxs_floating_defaults_int64_and_keeps_complex128_data() -> None:
    assert xp.asarray([1, 2], device="metal").dtype is xp.int64
    assert xp.asarray([1.5], device="metal").dtype is xp.float32
    assert xp.asarray([1.5j], device="metal").dtype is xp.complex64
    assert xp.asarray(np.array([1j]), device="metal").dtype is xp.complex128
    assert xp.asarray(np.array([1j]), device="metal", dtype=xp.complex64).dtype is xp.complex64


def test_promotion_follows_the_standard_inside_kinds_and_numpy_across_them() -> None:
    assert xp.result_type(xp.int8, xp.uint8) is xp.int16
    assert xp.result_type(xp.uint32, xp.int32) is xp.int64
    assert xp.result_type(xp.float32, xp.complex64) is xp.complex64
    assert xp.result_type(xp.float64, xp.complex64) is xp.complex128
    assert xp.result_type(xp.int32, xp.float32) is xp.float64  # NumPy's mixed kinds
    assert xp.result_type(xp.float32, 1j) is xp.complex64
    with pytest.raises(TypeError):
        xp.result_type(xp.int32, 1.5)
    assert xp.can_cast(xp.int8, xp.int64) and not xp.can_cast(xp.int64, xp.float64)
    for kind, name in (("complex floating", "complex64"), ("unsigned integer", "uint16")):
        assert xp.isdtype(getattr(xp, name), kind)
    assert not xp.isdtype(xp.complex64, "real floating")
    assert xp.finfo(xp.complex64).dtype is xp.float32
    assert xp.iinfo(xp.uint8).max == 255


@pytest.mark.parametrize("kind", ALL)
def test_an_array_iterates_over_its_first_axis(kind: str) -> None:
    x = xp.reshape(xp.arange(6, device=kind), (3, 2))
    rows = list(x)
    assert len(rows) == 3 and all(r.shape == (2,) and r.device == x.device for r in rows)
    np.testing.assert_array_equal(np.stack([np.asarray(r) for r in rows]), np.asarray(x))
    with pytest.raises(TypeError, match="0-d"):
        iter(xp.asarray(1.0, device=kind)).__next__()


def test_an_array_of_any_dtype_unpickles_in_a_fresh_process(tmp_path: Path) -> None:
    arrays = [xp.asarray(np.arange(3).astype(name), device="CPU") for name in NAMES]
    arrays.append(xp.reshape(xp.arange(6, dtype=xp.uint16), (2, 3)).T)
    path = tmp_path / "arrays.pkl"
    path.write_bytes(pickle.dumps(arrays))
    script = (
        "import pickle, sys, numpy\n"
        f"arrays = pickle.loads(open({str(path)!r}, 'rb').read())\n"
        "print(';'.join(f'{type(a).__name__},{a.dtype.name},{a.device.name},"
        "{numpy.asarray(a).tolist()}' for a in arrays))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    ).stdout.strip()
    expected = [f"Array,{a.dtype.name},CPU,{np.asarray(a).tolist()}" for a in arrays]
    assert out.split(";") == expected


@pytest.mark.parametrize("kind", ALL)
def test_fft_runs_on_the_complex_dtypes_of_the_device(kind: str) -> None:
    signal = np.sin(np.arange(16) / 3.0)
    for real in [n for n in ("float32", "float64") if n in _stored(kind)]:
        x = xp.asarray(signal, dtype=getattr(xp, real), device=kind)
        spectrum = xp.fft.fft(x)
        assert xp.isdtype(spectrum.dtype, "complex floating") and spectrum.device == x.device
        np.testing.assert_allclose(np.asarray(spectrum), np.fft.fft(signal), atol=1e-4)
        back = xp.fft.irfft(xp.fft.rfft(x), n=16)
        np.testing.assert_allclose(np.asarray(back), signal, atol=1e-5)
    # float64 input gives complex128 on every device (no narrowing); float32, complex64
    assert xp.fft.fft(xp.asarray(signal, device=kind)).dtype is xp.complex128
    single = xp.asarray(signal.astype(np.float32), device=kind)
    assert xp.fft.fft(single).dtype is xp.complex64


def test_a_tensor_over_an_opened_npy_file_is_an_array_on_filebacked(tmp_path: Path) -> None:
    path = tmp_path / "data.npy"
    np.save(path, np.arange(6, dtype=np.float32))
    carrier = FileBacked.open(str(path))
    x = xp.asarray(Tensor(carrier, Layout((2, 3))))
    assert x.device == xp.Device("FileBacked") and x.carrier is carrier
    total = xp.sum(x, axis=0)
    assert total.device == x.device
    np.testing.assert_array_equal(np.asarray(total), [3.0, 5.0, 7.0])


def test_an_unknown_device_name_guesses_the_one_meant() -> None:
    with pytest.raises(ValueError, match="Did you mean 'Metal'"):
        xp.Device("gpu")
    with pytest.raises(ValueError, match="Did you mean 'CPU'"):
        xp.Device("cpuu")
