"""Interop matrix, part 2: PyTorch, JAX, pandas, xarray, pyarrow (``nox -s interop``).

Each consumer is imported with ``pytest.importorskip``: absent, its tests skip. For
each kind: the values arrive in the right dtype, zero-copy where the table of
``docs/interop.md`` promises it, and no write through the consumer reaches the carrier
or skips its version.
"""

from __future__ import annotations

import contextlib
import sys
import warnings

import numpy as np
import pytest

import stridewave as sw

from .conftest import VALUES, Kind, assert_untouched

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


# -- PyTorch (CPU) ------------------------------------------------------------------------


@pytest.mark.parametrize("entry", ["from_dlpack", "asarray", "as_tensor", "tensor"])
def test_torch_gets_a_private_copy(carrier: sw.Carrier, entry: str) -> None:
    torch = pytest.importorskip("torch")
    version = carrier.version
    try:
        with warnings.catch_warnings():
            # Python 3.12+: torch.asarray asks for a writable buffer, is refused, takes a
            # raw-bytes buffer instead (a private copy) and warns that it is not writable.
            warnings.filterwarnings("ignore", "The given buffer is not writable", UserWarning)
            tensor = getattr(torch, entry)(carrier)
    except RuntimeError as exc:
        # Python 3.12+: torch.asarray asks the buffer protocol for a writable buffer,
        # which carriers refuse, and may fail its raw-bytes retry while that refusal is
        # pending: an error, never an alias (docs/interop.md).
        assert entry == "asarray" and sys.version_info >= (3, 12), exc
        assert "could not retrieve buffer" in str(exc)
        assert_untouched(carrier, version)
        return
    assert tensor.dtype == torch.float32 and tuple(tensor.shape) == (10,)
    np.testing.assert_array_equal(tensor.numpy(), VALUES)
    # PyTorch accepts DLPack 1.x capsules but ignores their read-only flag, so it
    # gets a copy (docs/interop.md): writing through it never reaches the carrier.
    assert not np.shares_memory(tensor.numpy(), np.asarray(carrier))
    tensor[0] = 99.0
    tensor.add_(1.0)
    assert_untouched(carrier, version)


def test_torch_int32_and_bool_keep_their_dtype() -> None:
    torch = pytest.importorskip("torch")
    ints = sw.Generic([1, -2, 3], dtype=sw.DType.Int32)
    flags = sw.CPU(0, dtype=sw.DType.Bool).new_like([True, False])
    assert torch.as_tensor(ints).dtype == torch.int32
    assert torch.from_dlpack(flags).tolist() == [True, False]


def test_torch_refuses_nothing_but_copy_false() -> None:
    torch = pytest.importorskip("torch")
    with pytest.raises(BufferError, match="read-only"):
        torch.from_dlpack(sw.CPU(3), copy=False)


def test_torch_tensor_view(kind: Kind, carrier: sw.Carrier) -> None:
    torch = pytest.importorskip("torch")
    view = sw.Tensor(carrier, sw.Layout((2, 5)))
    version = carrier.version
    imported = torch.from_dlpack(view)
    np.testing.assert_array_equal(imported.numpy(), VALUES.reshape(2, 5))
    imported.zero_()
    assert_untouched(carrier, version)


# -- JAX (CPU) ------------------------------------------------------------------------------


@pytest.mark.parametrize("entry", ["from_dlpack", "asarray", "array"])
def test_jax_gets_values_and_cannot_write_back(carrier: sw.Carrier, entry: str) -> None:
    pytest.importorskip("jax")
    import jax.numpy as jnp

    version = carrier.version
    imported = getattr(jnp, entry)(carrier)
    assert imported.dtype == jnp.float32
    np.testing.assert_array_equal(np.asarray(imported), VALUES)
    changed = imported.at[0].set(99.0)  # JAX arrays are immutable: a new array
    assert float(changed[0]) == 99.0
    assert_untouched(carrier, version)
    carrier[0] = 42.0  # and JAX's array is a copy: a later write leaves it as it was
    assert float(imported[0]) == VALUES[0]


def test_jax_refuses_a_released_carrier(carrier: sw.Carrier) -> None:
    pytest.importorskip("jax")
    import jax.numpy as jnp

    carrier.release()
    with pytest.raises(RuntimeError, match="released"):
        jnp.asarray(carrier)


def test_jax_dlpack_module_function(carrier: sw.Carrier) -> None:
    jax = pytest.importorskip("jax")
    imported = jax.dlpack.from_dlpack(carrier)
    np.testing.assert_array_equal(np.asarray(imported), VALUES)


# -- pandas, xarray -------------------------------------------------------------------------


def test_pandas_series_and_frame(carrier: sw.Carrier) -> None:
    pd = pytest.importorskip("pandas")
    version = carrier.version
    series = pd.Series(carrier)
    assert series.dtype == np.float32
    np.testing.assert_array_equal(series.to_numpy(), VALUES)
    with contextlib.suppress(ValueError):  # copy-on-write, or a read-only buffer
        series.iloc[0] = 99.0
    frame = pd.DataFrame({"x": carrier})
    frame.loc[1, "x"] = -1.0
    assert_untouched(carrier, version)


def test_xarray_dataarray(carrier: sw.Carrier) -> None:
    xr = pytest.importorskip("xarray")
    version = carrier.version
    array = xr.DataArray(carrier, dims=["slot"])
    assert array.dtype == np.float32
    assert float(array.sum()) == pytest.approx(float(VALUES.sum()))
    with pytest.raises(ValueError):  # "read-only" / "destination is a view"
        array[0] = 99.0
    (array + 1).values[0] = 5.0  # a computed result is a new array
    assert_untouched(carrier, version)


# -- pyarrow --------------------------------------------------------------------------------


def test_pyarrow_keeps_float32_zero_copy(kind: Kind, carrier: sw.Carrier) -> None:
    pa = pytest.importorskip("pyarrow")
    version = carrier.version
    array = pa.array(carrier)
    assert array.type == pa.float32()
    np.testing.assert_array_equal(array.to_numpy(), VALUES)
    data = array.buffers()[1]
    if kind.views:  # wrapped, not copied (Arrow arrays are immutable)
        assert data.address == np.asarray(carrier).ctypes.data
    assert_untouched(carrier, version)


def test_pyarrow_int32_and_bool_keep_their_types() -> None:
    pa = pytest.importorskip("pyarrow")
    assert pa.array(sw.Generic([1, 2], dtype=sw.DType.Int32)).type == pa.int32()
    flags = pa.array(sw.Generic([True, False, True], dtype=sw.DType.Bool))
    assert flags.type == pa.bool_() and flags.to_pylist() == [True, False, True]
    assert pa.array(sw.CPU(2), type=pa.float64()).type == pa.float64()


def test_torch_shares_a_writable_arrays_memory_and_the_export_is_one_version_step() -> None:
    # CONTRACT section 9, version 3: a writable Array exports a writable zero-copy
    # view (as torch.Tensor.numpy() does); a carrier itself still exports read-only.
    torch = pytest.importorskip("torch")
    import stridewave.array_api as xp

    array = xp.asarray(VALUES)
    version = array.carrier.version
    imported = torch.from_dlpack(array)
    assert array.carrier.version == version + 1
    imported[0] = 99.0
    assert float(array[0]) == 99.0
    np.testing.assert_array_equal(np.asarray(array.carrier)[1:], VALUES[1:])
