"""Errors a newcomer meets first name a fix that exists."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import stridewave as sw
from stridewave.carriers import _messages


def test_a_dtype_no_carrier_stores_says_so_instead_of_naming_a_kind_that_does_not_exist() -> None:
    with pytest.raises(ValueError, match=r"no shipped carrier kind stores DType\.Float64") as info:
        sw.CPU(2, dtype=sw.DType.Float64)
    assert "a carrier kind that stores DType.Float64" not in str(info.value)
    assert "astype(numpy.float32)" in str(info.value)


def test_a_dtype_another_carrier_stores_names_the_kinds_that_store_it() -> None:
    with pytest.raises(ValueError, match="a carrier kind that stores it: Generic, CPU, Metal"):
        sw.FileBacked(dtype=sw.DType.Bool)


ALIASES = {"cpu": "CPU", "host": "CPU", "filebacked": "FileBacked", "metal": "Metal"}


@pytest.mark.parametrize("word", ["gpu", "GPU", "cuda", "mps", "metl"])
def test_an_accelerator_device_name_suggests_metal(word: str) -> None:
    text = _messages.unknown_device(word, ("CPU", "FileBacked", "Generic", "Metal"), ALIASES)
    assert f"device {word!r}" in text
    assert "Did you mean 'Metal'?" in text
    assert "expected 'CPU', 'FileBacked', 'Generic' or 'Metal'" in text


def test_a_device_name_far_from_every_device_gets_no_guess() -> None:
    text = _messages.unknown_device("xyz", ("CPU", "Metal"), ALIASES)
    assert "Did you mean" not in text
    assert _messages.unknown_device("cpu0", ("CPU", "Metal"), ALIASES).endswith(
        "Did you mean 'CPU'?"
    )


def test_slicing_a_carrier_as_plotting_libraries_do_says_to_wrap_it() -> None:
    carrier = sw.CPU.from_numpy(np.arange(4, dtype=np.float32))
    for index in (slice(None), (slice(None), None)):
        with pytest.raises(TypeError) as info:
            carrier[index]
        assert "numpy.asarray(carrier)" in str(info.value)
        assert "wrap it in a Tensor" in str(info.value)


def test_plotting_a_carrier_with_matplotlib_says_to_wrap_it() -> None:
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    axes = Figure().add_subplot()
    with pytest.raises(TypeError, match="wrap it in a Tensor"):
        axes.plot(sw.CPU.from_numpy(np.arange(4, dtype=np.float32)))


def test_without_mlx_the_metal_hint_names_the_cpu_device_setting_for_linux() -> None:
    script = (
        "import sys; sys.modules['mlx'] = None; sys.modules['mlx.core'] = None\n"
        "import stridewave as sw\n"
        "try:\n    sw.Metal(2)\nexcept RuntimeError as exc:\n    print(exc)\n"
        "from stridewave.carriers._metal import metal_runtime\nprint(metal_runtime()[1])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    ).stdout.splitlines()
    assert len(out) == 2
    for line in out:
        assert "Linux without a GPU" in line and "STRIDEWAVE_METAL_DEVICE=cpu" in line


def test_handing_a_carrier_to_dask_says_to_wrap_it() -> None:
    da = pytest.importorskip("dask.array")
    # Dask reads carrier.dtype (a method) as a NumPy dtype: NumPy's conversion error
    # (a ValueError) then carries the fix
    with pytest.raises((TypeError, ValueError)) as info:
        da.from_array(sw.CPU.from_numpy(np.arange(4, dtype=np.float32)))
    assert "numpy.asarray(carrier)" in str(info.value)
    assert "wrap it in a Tensor" in str(info.value)
    assert sw.CPU(2).dtype() is sw.DType.Float32  # still the method the spec names
