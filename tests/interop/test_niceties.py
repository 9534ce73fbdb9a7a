"""Descriptors as NumPy dtypes, the value-previewing repr, _repr_html_, ``with`` blocks."""

from __future__ import annotations

import numpy as np
import pytest

import stridewave as sw

from .conftest import VALUES, Kind


@pytest.mark.parametrize(
    ("dtype", "expected"),
    [
        (d, sw.to_numpy_dtype(d))
        for d in (
            sw.DType.Float32,
            sw.DType.Int32,
            sw.DType.Bool,
            sw.DType.E4M3,
            sw.DType.E8M0,
            sw.DType.E2M1,
        )
    ],
)
def test_simple_descriptors_are_numpy_dtypes(dtype: sw.DType, expected: np.dtype) -> None:
    assert np.dtype(dtype) == expected
    assert np.zeros(3, dtype).dtype == expected
    assert np.ones(2, dtype=dtype).dtype == expected
    assert dtype.dtype == expected


def test_numpy_zeros_of_e4m3_holds_float8() -> None:
    import ml_dtypes

    zeros = np.zeros(3, sw.DType.E4M3)
    assert zeros.dtype == ml_dtypes.float8_e4m3fn and zeros.tolist() == [0.0] * 3


def test_categories_compounds_and_bare_extensions_are_not_numpy_dtypes(
    make_simple: sw.DType,
) -> None:
    scaled = sw.ScaledDType("NicetyMX", element=sw.DType.E4M3, scale=sw.DType.E8M0, block=32)
    for descriptor in (sw.DType.Any, sw.DType.Floating, sw.DType.Integer, scaled, make_simple):
        with pytest.raises(TypeError, match="no NumPy dtype"):
            np.dtype(descriptor)
        with pytest.raises(TypeError, match="no NumPy dtype"):
            descriptor.dtype


@pytest.fixture
def make_simple() -> sw.DType:
    return sw.SimpleDType("NicetyPosit16", bits=16, supertype=sw.DType.Floating)


def test_repr_previews_values_as_numpy_does(carrier: sw.Carrier) -> None:
    text = repr(carrier)
    assert text.startswith(type(carrier).__name__)
    if isinstance(carrier, sw.Evictable):  # never pages in for a repr
        return
    assert "size=10" in text and "live" in text
    assert "[ 1.5 , -2.  ,  3.25, ...,  9.5 , 10.  , 11.  ]" in text  # first and last three


def test_repr_of_small_and_released_carriers() -> None:
    small = sw.Generic([1, 2, 3], dtype=sw.DType.Int32)
    assert repr(small) == "Generic(DType.Int32, size=3, live, [1, 2, 3])"
    small.release()
    assert repr(small) == "Generic(DType.Int32, size=0, released)"


def test_repr_html_is_escaped_and_complete(carrier: sw.Carrier) -> None:
    page = carrier._repr_html_()
    assert page.startswith(f"<b>{type(carrier).__name__}</b><table>")
    for word in ("dtype", "DType.Float32", "40 bytes", "version"):
        assert word in page
    assert "<tr>" in page and "'" not in page.split("<code>")[1].split("</code>")[0]


def test_with_block_releases_on_exit(kind: Kind, tmp_path: object) -> None:
    with kind.make(tmp_path) as carrier:  # type: ignore[arg-type]
        assert not carrier.is_released()
    assert carrier.is_released()
    with pytest.raises(ZeroDivisionError), sw.CPU(3) as other:
        raise ZeroDivisionError
    assert other.is_released()


def test_with_block_on_an_owned_carrier_refuses_to_release() -> None:
    tier = sw.CPU(2)
    wrapper = sw.Evictable(tier, sw.FileBacked(dtype=sw.DType.Float32))
    with pytest.raises(RuntimeError, match="own"), tier:
        pass
    assert not tier.is_released()
    wrapper.release()
    assert VALUES.dtype == np.float32


def test_retained_nbytes_tells_when_evict_could_not_give_memory_back() -> None:
    wrapper = sw.Evictable(sw.CPU(0).new_like(VALUES), sw.FileBacked(dtype=sw.DType.Float32))
    assert wrapper.retained_nbytes() == 0
    view = np.asarray(wrapper)
    capsule_view = np.from_dlpack(wrapper)
    wrapper.evict()
    assert wrapper.is_evicted()
    assert wrapper.retained_nbytes() == VALUES.nbytes  # the exports hold the old buffer
    np.testing.assert_array_equal(view, VALUES)  # and stay valid
    del view
    assert wrapper.retained_nbytes() == VALUES.nbytes
    del capsule_view
    assert wrapper.retained_nbytes() == 0  # the last export went: memory is back
    wrapper.release()
