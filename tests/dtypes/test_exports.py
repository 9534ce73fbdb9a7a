"""The dtype names are part of the stable top-level surface (CONTRACT section 1)."""

from __future__ import annotations

import subprocess
import sys

import stridewave
import stridewave.dtypes

DTYPE_NAMES = ["DType", "DTypeCategory", "SimpleDType", "CompoundDType", "ScaledDType", "Whole"]
INTEROP_NAMES = ["to_numpy_dtype", "from_numpy_dtype"]


def test_dtype_and_interop_names_are_exported() -> None:
    for name in DTYPE_NAMES + INTEROP_NAMES:
        assert name in stridewave.__all__, name
        assert getattr(stridewave, name) is not None
    for name in DTYPE_NAMES:
        assert getattr(stridewave, name) is getattr(stridewave.dtypes, name)


def test_import_does_not_load_mlx() -> None:
    code = "import sys, stridewave; print('mlx' in sys.modules)"
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"
