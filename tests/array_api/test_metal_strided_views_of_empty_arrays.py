"""A strided view of an empty Metal Array is an empty Array, as on the CPU device.

``x[::-1]`` and ``x[::2]`` of an empty Metal Array raised ``RuntimeError`` from MLX
(``as_strided`` of an empty slice) when read, and ``repr`` said ``<released>``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import stridewave.array_api as xp
from tests.metal_scripts import host, requires_mlx

pytestmark = requires_mlx

_VIEWS: dict[str, tuple[tuple[int, ...], Callable[[Any], Any]]] = {
    "[::-1]": ((0,), lambda x: x[::-1]),
    "[::2]": ((0,), lambda x: x[::2]),
    "[::-2] of 2-D": ((0, 3), lambda x: x[::-2]),
    "[:, ::-1] of 2-D": ((2, 0), lambda x: x[:, ::-1]),
    ".mT[::-1]": ((0, 3), lambda x: x.mT[::-1]),
    "[5:2]": ((4,), lambda x: x[5:2]),
}


@pytest.mark.parametrize(("shape", "view"), list(_VIEWS.values()), ids=list(_VIEWS))
def test_a_strided_view_of_an_empty_metal_array_reads_as_empty(
    shape: tuple[int, ...], view: Callable[[Any], Any]
) -> None:
    x = xp.zeros(shape, dtype=xp.float32, device=xp.Device("Metal"))
    expected = view(np.zeros(shape, dtype=np.float32))
    got = view(x)
    assert got.shape == expected.shape
    np.testing.assert_array_equal(host(got), expected)
    np.testing.assert_array_equal(host(got + 1), expected + 1)
    assert "released" not in repr(got)
