"""A view reaching past the end of its carrier after a resize raises IndexError, not garbage."""

from __future__ import annotations

import numpy as np
import pytest

import stridewave.array_api as xp
from stridewave import DType, FileBacked, Layout, Tensor


def test_a_view_reaching_past_its_shrunk_carrier_raises_index_error() -> None:
    carrier = FileBacked(dtype=DType.Float32).new_like(np.arange(6, dtype=np.float32))
    view = xp.asarray(Tensor(carrier, Layout((3,), (2,))))  # slots 0, 2, 4
    np.testing.assert_array_equal(np.asarray(xp.add(view, 1.0)), [1.0, 3.0, 5.0])
    carrier.resize(4)  # slot 4 is gone
    with pytest.raises(IndexError, match="outside its carrier of 4 slots"):
        xp.add(view, 1.0)
