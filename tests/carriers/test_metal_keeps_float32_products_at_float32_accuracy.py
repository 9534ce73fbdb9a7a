"""StrideWeave asks MLX for full float32 matrix products (no TF32) unless the user chose.

MLX runs float32 GEMMs in TF32 on tensor-core GPUs by default (``MLX_ENABLE_TF32``);
``import_mlx`` sets the variable to ``"0"`` before MLX is first imported, and keeps a
value the user set. Each case runs in a fresh interpreter (the variable is read when MLX
starts).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.metal_scripts import requires_mlx

pytestmark = requires_mlx

SCRIPT = """
import os
from stridewave.carriers._mlx_runtime import import_mlx
import_mlx()
print(os.environ["MLX_ENABLE_TF32"])
"""


@pytest.mark.parametrize(("given", "expected"), [(None, "0"), ("1", "1"), ("0", "0")])
def test_tf32_is_off_unless_the_user_set_it(
    tmp_path: Path, given: str | None, expected: str
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "MLX_ENABLE_TF32"}
    env["TMPDIR"] = str(tmp_path)
    if given is not None:
        env["MLX_ENABLE_TF32"] = given
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [expected]
