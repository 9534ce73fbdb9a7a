"""Packed FP4 and FP6 element planes: the layout, round trips, and ``dequantize`` reading them."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from stridewave import mx

PACKED = {"E2M1": (2, 1), "E3M2": (4, 3), "E2M3": (4, 3)}


def np_element(element: str) -> np.dtype:
    return np.dtype(mx._format_of(mx.scaled_dtype(element), where="test").element)


@settings(max_examples=50, deadline=None)
@given(
    data=st.data(),
    lead=st.integers(0, 3),
    groups=st.integers(0, 6),
    axis=st.sampled_from([0, -1]),
)
@pytest.mark.parametrize("element", PACKED)
def test_pack_then_unpack_gives_every_code_back(
    data: st.DataObject, lead: int, groups: int, axis: int, element: str
) -> None:
    count, nbytes = PACKED[element]
    bits = 4 if element == "E2M1" else 6
    shape = (groups * count, lead) if axis == 0 else (lead, groups * count)
    codes = data.draw(hnp.arrays(np.uint8, shape, elements=st.integers(0, 2**bits - 1)))
    plane = codes.view(np_element(element))
    packed = mx.pack_elements(plane, axis=axis)
    assert packed.dtype == np.uint8 and packed.flags.c_contiguous
    assert packed.shape[axis] == groups * nbytes
    back = mx.unpack_elements(packed, element, axis=axis)
    assert back.dtype == plane.dtype and back.shape == plane.shape
    np.testing.assert_array_equal(back.view(np.uint8), codes)


def test_the_packed_layouts_are_low_bits_first() -> None:
    e2m1 = np.array([1, 15, 2, 5], dtype=np.uint8).view(ml_dtypes.float4_e2m1fn)
    assert mx.pack_elements(e2m1).tolist() == [0xF1, 0x52]
    fp6 = np.array([1, 2, 3, 0x3F], dtype=np.uint8).view(ml_dtypes.float6_e3m2fn)
    word = 1 | 2 << 6 | 3 << 12 | 0x3F << 18
    assert mx.pack_elements(fp6).tolist() == [word & 0xFF, word >> 8 & 0xFF, word >> 16]


@settings(max_examples=30, deadline=None)
@given(
    values=hnp.arrays(
        np.float32,
        st.tuples(st.integers(1, 3).map(lambda k: 8 * k), st.integers(1, 3).map(lambda k: 8 * k)),
        elements=st.floats(width=32, allow_nan=False, allow_infinity=False),
    ),
    rule=st.sampled_from(mx.SCALE_RULES),
    axis=st.sampled_from([0, 1]),
)
@pytest.mark.parametrize("element", PACKED)
def test_dequantize_reads_packed_planes_as_the_unpacked_ones(
    values: np.ndarray, rule: str, axis: int, element: str
) -> None:
    fmt = mx.scaled_dtype(element, block=8)
    q = mx.quantize(values, fmt, axis=axis, scale_rule=rule)
    p = mx.quantize(values, fmt, axis=axis, scale_rule=rule, packed=True)
    np.testing.assert_array_equal(p.scales.view(np.uint8), q.scales.view(np.uint8))
    np.testing.assert_array_equal(p.elements, mx.pack_elements(q.elements, axis=axis))
    np.testing.assert_array_equal(
        mx.dequantize(p, fmt, axis=axis).view(np.uint32),
        mx.dequantize(q, fmt, axis=axis).view(np.uint32),
    )
    np.testing.assert_array_equal(
        mx.dequantize(p.elements, p.scales, fmt, axis=axis).view(np.uint32),
        mx.dequantize(q, fmt, axis=axis).view(np.uint32),
    )


def test_packing_takes_half_or_three_quarters_of_the_bytes() -> None:
    values = np.random.default_rng(0).normal(size=(4, 64)).astype(np.float32)
    assert mx.quantize(values, mx.scaled_dtype("E2M1"), packed=True).elements.nbytes == 128
    assert mx.quantize(values, mx.scaled_dtype("E3M2"), packed=True).elements.nbytes == 192


def test_bad_packing_requests_are_refused_and_change_nothing() -> None:
    values = np.ones(30, dtype=np.float32)
    before = values.copy()
    with pytest.raises(ValueError, match="FP4 and FP6 elements"):
        mx.quantize(values, mx.scaled_dtype("E4M3"), packed=True)
    with pytest.raises(ValueError, match="multiple of 4"):
        mx.quantize(values, mx.scaled_dtype("E2M3"), packed=True)
    with pytest.raises(TypeError, match="True or False"):
        mx.quantize(values, mx.scaled_dtype("E2M1"), packed=1)  # type: ignore[arg-type]
    np.testing.assert_array_equal(values, before)
    with pytest.raises(TypeError, match="float4_e2m1fn, float6_e3m2fn or float6_e2m3fn"):
        mx.pack_elements(values)
    with pytest.raises(ValueError, match="multiple of 2"):
        mx.pack_elements(np.zeros(3, dtype=ml_dtypes.float4_e2m1fn))
    with pytest.raises(ValueError, match="packing applies to the FP4 and FP6"):
        mx.unpack_elements(np.zeros(3, dtype=np.uint8), "E4M3")
    with pytest.raises(TypeError, match="uint8"):
        mx.unpack_elements(np.zeros(3, dtype=np.int8), "E2M1")
    with pytest.raises(ValueError, match="every 3 bytes"):
        mx.unpack_elements(np.zeros(4, dtype=np.uint8), "E3M2")
    fmt = mx.scaled_dtype("E3M2")
    with pytest.raises(ValueError, match="every 3 bytes"):
        mx.dequantize(np.zeros(4, np.uint8), np.ones(1, ml_dtypes.float8_e8m0fnu), fmt)
