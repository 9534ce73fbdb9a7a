"""Bulk paths: ndarray and buffer inputs never go through the scalar normalizer."""

from __future__ import annotations

import array
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stridewave.carriers._normalize as normalize
from stridewave import CPU, DType, Generic, Layout, Tensor
from stridewave.carriers._scatter import ScatterSource

from .conftest import KIND_DTYPES, Kind

_NP: dict[DType, type[np.generic]] = {
    DType.Float32: np.float64,
    DType.Int32: np.int64,
    DType.Bool: np.bool_,
}


def _inaccessible(dtype: DType) -> object:
    raise AssertionError("the scalar normalizer was called on a bulk path")


@pytest.fixture
def no_scalar_path(monkeypatch: pytest.MonkeyPatch) -> Callable[[], None]:
    """Call it to make the scalar normalizer raise from then on."""
    return lambda: monkeypatch.setattr(normalize, "scalar_normalizer", _inaccessible)


@pytest.mark.parametrize(("kind", "dtype"), KIND_DTYPES)
def test_new_like_ndarray_needs_no_scalar_normalizer(
    kind: Kind, dtype: DType, no_scalar_path: Callable[[], None]
) -> None:
    carrier = kind.make([], dtype, True)
    no_scalar_path()
    source: np.ndarray[Any, Any] = np.ones(1000, dtype=_NP[dtype])
    fresh = carrier.new_like(source)
    assert fresh.size() == 1000
    assert np.asarray(fresh).tolist() == source.tolist()
    with pytest.raises(AssertionError, match="scalar normalizer"):
        carrier.new_like(source.tolist())  # the iterable path does use it


def test_generic_and_buffers_need_no_scalar_normalizer(
    no_scalar_path: Callable[[], None],
) -> None:
    no_scalar_path()
    assert list(Generic(np.arange(3), dtype=DType.Int32)) == [0, 1, 2]
    assert list(Generic(array.array("i", [4, 5]), dtype=DType.Int32)) == [4, 5]
    assert list(Generic(memoryview(b"\x01\x02"), dtype=DType.Int32)) == [1, 2]


def test_scatter_source_is_normalized_vectorized(
    kind: Kind, no_scalar_path: Callable[[], None]
) -> None:
    carrier = kind.make([0.0, 0.0], DType.Float32, True)
    source = Tensor(CPU(0, dtype=DType.Int32).new_like([1, 2]), Layout((2,)))
    no_scalar_path()
    out = ScatterSource(source, carrier.dtype()).host()
    assert out.dtype == np.float32 and out.tolist() == [1.0, 2.0]


@settings(max_examples=50)
@given(
    data=st.data(),
    np_dtype=st.sampled_from(["f8", "f4", "f2", "i8", "i4", "i2", "u8", "u4", "u1", "?"]),
)
def test_vectorized_and_scalar_paths_agree(data: st.DataObject, np_dtype: str) -> None:
    from hypothesis.extra.numpy import arrays

    target = data.draw(st.sampled_from([DType.Float32, DType.Int32, DType.Bool]))
    source = data.draw(arrays(np_dtype, st.integers(1, 8)))  # empty arrays: judged by dtype
    outcomes = []
    # The iterable path gets Python scalars: a numpy.bool_ element is refused there
    # (Bool writes require a Python bool) while a bool array is accepted as a whole.
    for values in (source, source.tolist()):
        try:
            outcomes.append(("ok", Generic(values, dtype=target)._array.tobytes()))
        except (TypeError, OverflowError) as error:
            outcomes.append((type(error).__name__, b""))
    assert outcomes[0] == outcomes[1]
