"""Errors a newcomer meets first name a fix that exists."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import stridewave as sw
from stridewave.carriers import _messages


def test_a_dtype_no_carrier_stores_says_so_instead_of_naming_a_kind_that_does_not_exist() -> None:
    with pytest.raises(ValueError, match=r"no spec carrier kind stores DType\.Float64") as info:
        sw.CPU(2, dtype=sw.DType.Float64)
    assert "a carrier kind that stores DType.Float64" not in str(info.value)
    assert "astype(numpy.float32)" in str(info.value)


def test_float64_refused_by_cpu_names_what_stores_it() -> None:
    with pytest.raises(ValueError) as info:
        sw.CPU(2, dtype=sw.DType.Float64)
    text = str(info.value)
    assert "stridewave.array_api.asarray(values, dtype=stridewave.array_api.float64)" in text
    assert "CPUExtension(..., dtype=DType.Float64) from stridewave.carriers._extension" in text
    import stridewave.array_api as xp
    from stridewave.carriers._extension import CPUExtension

    assert xp.asarray([1.5], dtype=xp.float64).dtype is sw.DType.Float64  # both fixes exist
    assert CPUExtension(1, dtype=sw.DType.Float64).dtype() is sw.DType.Float64


@pytest.mark.parametrize(
    ("attr", "meant"),
    [("float32", "DType.Float32"), ("FLOAT64", "DType.Float64"), ("int8", "DType.Int8"),
     ("e4m3", "DType.E4M3")],
)  # fmt: skip
def test_a_misspelt_dtype_attribute_suggests_the_registered_name(attr: str, meant: str) -> None:
    with pytest.raises(
        AttributeError, match=rf"has no attribute '{attr}'\. Did you mean {meant}\?"
    ):
        getattr(sw.DType, attr)
    assert not hasattr(sw.DType, "no_such_dtype_at_all")
    assert not hasattr(sw.DType, "_private_probe")


def test_a_misspelt_extension_dtype_suggests_from_name() -> None:
    import stridewave.array_api  # noqa: F401  (registers Int64)

    with pytest.raises(AttributeError, match=r"Did you mean DType\.from_name\('Int64'\)"):
        getattr(sw.DType, "int64")  # noqa: B009  (an attribute no type checker knows)


def test_asking_metal_for_its_dtypes_where_it_cannot_run_says_why_and_how_to_fix() -> None:
    # An unknown STRIDEWAVE_METAL_DEVICE makes Metal unavailable on any machine, as MLX
    # missing does (simulated with None in sys.modules).
    script = """
import sys
if sys.argv[1] == "no-mlx":
    sys.modules["mlx"] = sys.modules["mlx.core"] = None
import stridewave.array_api as xp
info = xp.__array_namespace_info__()
for ask in (info.dtypes, info.default_dtypes):
    try:
        ask(device="metal")
    except RuntimeError as exc:
        assert type(exc) is RuntimeError, type(exc)
        print(exc)
    else:
        raise SystemExit("no error")
"""
    for case, env_value, why in [
        ("no-mlx", "cpu", "mlx is not installed"),
        ("bad-env", "bogus", "STRIDEWAVE_METAL_DEVICE='bogus' is not understood"),
    ]:
        env = dict(os.environ, STRIDEWAVE_METAL_DEVICE=env_value)
        proc = subprocess.run(
            [sys.executable, "-c", script, case], capture_output=True, text=True,
            timeout=120, env=env, check=False,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        lines = proc.stdout.splitlines()
        assert len(lines) == 2, proc.stdout
        assert lines[0].startswith("cannot give the dtypes of Device('Metal'): Metal cannot run")
        assert all(why in line and "devices() lists" in line for line in lines), lines


@pytest.mark.parametrize(
    ("name", "content", "fix"),
    [
        ("bad.csv", b'a,b\n1,"2\n3,4\n', "numpy.savetxt(path, values, delimiter=',')"),
        ("bad.npz", b"PK\x03\x04 not a zip archive", "numpy.savez(path, values)"),
    ],
)
def test_the_demos_unreadable_file_lines_name_how_to_write_one(
    tmp_path: Path, name: str, content: bytes, fix: str
) -> None:
    from stridewave.cli._datafile import DataFileError, load_table

    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(DataFileError, match="not a readable") as info:
        load_table(str(path))
    assert fix in str(info.value)


def test_the_demo_says_in_plain_words_which_values_were_too_large(tmp_path: Path) -> None:
    path = tmp_path / "large.csv"
    path.write_text("x\n480\n1\n2\n3\n")  # 480 > 448, E4M3's largest, in its block
    proc = subprocess.run(
        [sys.executable, "-m", "stridewave", "demo", str(path), "--no-metal"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    line = next(n for n in proc.stdout.splitlines() if "MXFP8 (E4M3)" in n)
    assert "1 value too large for the element type, stored as its largest value" in line
    assert "clamped" not in proc.stdout and "block's largest" not in proc.stdout


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
        "from stridewave.carriers._mlx_runtime import runtime\nprint(runtime()[1])\n"
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


@pytest.mark.parametrize(
    ("dtype", "low", "high"), [("int8", -128, 127), ("int64", -(2**63), 2**63 - 1)]
)
def test_a_python_int_beyond_an_integer_arrays_range_names_that_range_and_the_cast(
    dtype: str, low: int, high: int
) -> None:
    import stridewave.array_api as xp

    x = xp.asarray([1, 2], dtype=getattr(xp, dtype))
    with pytest.raises(OverflowError) as info:
        x + 2**70
    text = str(info.value)
    assert f"[{low}, {high}]" in text and "xp.astype" in text
    assert "int32 range" not in text and "float32 array" not in text
