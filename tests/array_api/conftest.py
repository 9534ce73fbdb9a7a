"""The array-API tests' one list of devices, and the ``device`` fixture over it.

Every device the namespace lists (``__array_namespace_info__().devices()``) is a
parameter; Metal carries the ``needs_mlx`` mark and skips where MLX is not importable.
A test that takes ``device`` runs once per device.
"""

from __future__ import annotations

import importlib.util

import pytest

import stridewave.array_api as xp

HAVE_MLX = importlib.util.find_spec("mlx") is not None

#: Each device as a pytest parameter, with the id the tests' names use.
DEVICE_PARAMS = [
    pytest.param("CPU", id="cpu"),
    pytest.param("FileBacked", id="file"),
    pytest.param("Generic", id="generic"),
    pytest.param(
        "Metal",
        id="metal",
        marks=[
            pytest.mark.needs_mlx,
            pytest.mark.skipif(
                not HAVE_MLX, reason='mlx is not importable: install "stridewave[mlx]"'
            ),
        ],
    ),
]


@pytest.fixture(params=DEVICE_PARAMS)
def device(request: pytest.FixtureRequest) -> xp.Device:
    """Return each device of the namespace in turn."""
    return xp.Device(request.param)
