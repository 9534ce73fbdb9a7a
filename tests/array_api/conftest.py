"""The array-API tests' one list of devices, and the ``device`` fixture over it.

The list is the table of places (``stridewave.array_api._places.PLACES``): one
parameter per row, with the row's short spelling as its id (``cpu``, ``file``,
``generic``, ``metal``). A row that needs a module (Metal: ``mlx``) carries the
``needs_<module>`` mark and skips where the module is not importable. A test that
takes ``device`` runs once per device.
"""

from __future__ import annotations

import importlib.util
from typing import Any

import pytest

import stridewave.array_api as xp
from stridewave.array_api._places import PLACES, Place

HAVE_MLX = importlib.util.find_spec("mlx") is not None


def place_param(row: Place, value: Any = None) -> Any:
    """Return ``value`` (the row's name by default) as a pytest parameter of the row.

    The id is the row's short spelling; a row that needs a module is marked
    ``needs_<module>`` and skipped where the module is not importable.
    """
    marks: list[Any] = []
    if row.needs is not None:
        missing = importlib.util.find_spec(row.needs) is None
        marks = [
            getattr(pytest.mark, f"needs_{row.needs}"),
            pytest.mark.skipif(
                missing, reason=f'{row.needs} is not importable: install "stridewave[{row.needs}]"'
            ),
        ]
    return pytest.param(row.name if value is None else value, id=row.short, marks=marks)


#: Each device as a pytest parameter, with the id the tests' names use.
DEVICE_PARAMS = [place_param(row) for row in PLACES]

#: The devices whose storage is host memory (``Place.host_addressable``).
HOST_DEVICE_PARAMS = [place_param(row) for row in PLACES if row.host_addressable]


#: One device per backend (the first row naming each backend module): CPU and Metal.
def _first_per_backend() -> list[Place]:
    first: dict[str, Place] = {}
    for row in PLACES:
        first.setdefault(row.backend_module, row)
    return list(first.values())


BACKEND_DEVICE_PARAMS = [place_param(row) for row in _first_per_backend()]


@pytest.fixture(params=DEVICE_PARAMS)
def device(request: pytest.FixtureRequest) -> xp.Device:
    """Return each device of the namespace in turn."""
    return xp.Device(request.param)
