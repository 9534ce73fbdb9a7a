"""``stridewave.mx``: planes, shapes, special values, errors (the reference tests are apart)."""

from __future__ import annotations

import doctest
import uuid

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import stridewave as sw
from stridewave import mx


@pytest.fixture(params=mx.ELEMENT_NAMES)
def element(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_the_docstring_examples_run() -> None:
    failures, tried = doctest.testmod(mx, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert tried > 0 and failures == 0


def test_planes_are_the_ml_dtypes_types_of_the_scaled_dtype(element: str) -> None:
    fmt = mx.scaled_dtype(element)
    q = mx.quantize(np.linspace(-3, 3, 70, dtype=np.float32), fmt)
    assert sw.from_numpy_dtype(q.elements.dtype) is fmt.element
    assert sw.from_numpy_dtype(q.scales.dtype) is sw.DType.E8M0
    assert q.elements.dtype == sw.to_numpy_dtype(fmt.element)
    assert q.elements.shape == (70,) and q.scales.shape == (3,)  # 32 + 32 + 6
    assert q.elements.flags.c_contiguous and q.scales.flags.c_contiguous


def test_scaled_dtype_registers_once_and_names_the_format() -> None:
    fmt = mx.scaled_dtype("E4M3")
    assert fmt is mx.scaled_dtype(sw.DType.E4M3)
    assert fmt.name == "MXFP8_E4M3" and fmt.block == 32
    assert fmt.planes == (sw.DType.E4M3, sw.DType.E8M0)
    assert mx.scaled_dtype("E2M1", block=16).name == "MXFP4_E2M1_B16"


def test_scaled_dtype_refuses_bad_arguments() -> None:
    with pytest.raises(ValueError, match="E4M3, E5M2"):
        mx.scaled_dtype("Float32")
    with pytest.raises(TypeError, match="block must be an int"):
        mx.scaled_dtype("E4M3", block=True)
    with pytest.raises(ValueError, match="positive"):
        mx.scaled_dtype("E4M3", block=0)
    with pytest.raises(TypeError, match="SimpleDType or its name"):
        mx.scaled_dtype(3)  # type: ignore[arg-type]


def test_the_block_runs_along_axis_and_a_partial_block_gets_its_own_scale() -> None:
    fmt = mx.scaled_dtype("E4M3", block=4)
    values = np.arange(1, 31, dtype=np.float32).reshape(5, 6) * [[1], [10], [100], [1e3], [1e4]]
    rows = mx.quantize(values, fmt, axis=1)
    assert rows.scales.shape == (5, 2)
    cols = mx.quantize(values, fmt, axis=0)
    assert cols.elements.shape == (5, 6) and cols.scales.shape == (2, 6)
    # axis 0 is the same as quantizing the transpose along its last axis
    t = mx.quantize(np.ascontiguousarray(values.T), fmt)
    np.testing.assert_array_equal(cols.elements.T.view(np.uint8), t.elements.view(np.uint8))
    np.testing.assert_array_equal(cols.scales.T.view(np.uint8), t.scales.view(np.uint8))
    # the last block of each row holds two values; its scale follows them alone
    last = values[:, 4:]
    expected = np.floor(np.log2(np.abs(last).max(axis=1))) - 8
    np.testing.assert_array_equal(np.log2(rows.scales[:, 1].astype(np.float64)), expected)
    back = mx.dequantize(rows.elements, rows.scales, fmt, axis=1)
    np.testing.assert_allclose(back, values, rtol=2**-3)


def test_a_whole_block_is_one_scale_per_lane() -> None:
    fmt = sw.ScaledDType(
        f"MXWhole_{uuid.uuid4().hex}", element=sw.DType.E5M2, scale=sw.DType.E8M0, block=sw.Whole
    )
    values = np.random.default_rng(1).normal(size=(3, 50)).astype(np.float32)
    q = mx.quantize(values, fmt)
    assert q.scales.shape == (3, 1)
    same = mx.quantize(values, mx.scaled_dtype("E5M2", block=50))
    np.testing.assert_array_equal(q.elements.view(np.uint8), same.elements.view(np.uint8))
    back = mx.dequantize(q.elements, q.scales, fmt)
    assert back.dtype == np.float32 and back.shape == (3, 50)


@given(
    values=hnp.arrays(
        np.float32,
        st.integers(1, 200),
        elements=st.floats(width=32, allow_nan=False, allow_infinity=False),
    ),
    chunk_blocks=st.integers(1, 4),
)
def test_quantizing_in_block_aligned_chunks_equals_quantizing_at_once(
    values: np.ndarray, chunk_blocks: int
) -> None:
    fmt = mx.scaled_dtype("E2M1", block=8)
    whole = mx.quantize(values, fmt)
    step = 8 * chunk_blocks
    parts = [mx.quantize(values[i : i + step], fmt) for i in range(0, values.size, step)]
    elements = np.concatenate([p.elements for p in parts])
    scales = np.concatenate([p.scales for p in parts])
    np.testing.assert_array_equal(elements.view(np.uint8), whole.elements.view(np.uint8))
    np.testing.assert_array_equal(scales.view(np.uint8), whole.scales.view(np.uint8))
    back = mx.dequantize(whole.elements, whole.scales, fmt)
    assert np.isfinite(back).all()  # finite input never reads back as inf or NaN
    np.testing.assert_array_equal(np.signbit(back), np.signbit(values))  # -0.0 kept


def test_finite_values_saturate_and_never_become_inf_or_nan(element: str) -> None:
    fmt = mx.scaled_dtype(element, block=2)
    largest = float(ml_dtypes.finfo(sw.to_numpy_dtype(fmt.element)).max)  # type: ignore[no-untyped-call]
    # 1.99 * 2**k has floor(log2) = k: V / X = 1.99 * 2**emax, past the largest element
    values = np.array([1.99 * 2.0**40, -1.99 * 2.0**40], dtype=np.float32)
    q = mx.quantize(values, fmt)
    np.testing.assert_array_equal(q.elements.astype(np.float32), [largest, -largest])


def test_nan_or_inf_in_a_block_gives_the_nan_scale(element: str) -> None:
    fmt = mx.scaled_dtype(element, block=2)
    values = np.array([np.nan, 1.0, np.inf, 2.0, -np.inf, 3.0, 4.0, 6.0], dtype=np.float32)
    q = mx.quantize(values, fmt)
    assert q.scales.view(np.uint8).tolist()[:3] == [255, 255, 255]
    back = mx.dequantize(q.elements, q.scales, fmt)
    assert np.isnan(back[:6]).all() and back[6:].tolist() == [4.0, 6.0]
    has_nan = element in ("E4M3", "E5M2")
    elems = q.elements[:6].astype(np.float32)
    assert np.isnan(elems).all() if has_nan else (elems == 0).all()


def test_all_zero_and_tiny_blocks_use_the_smallest_scale() -> None:
    fmt = mx.scaled_dtype("E4M3", block=4)
    values = np.array([0.0, -0.0, 0.0, 0.0, 1e-45, 0.0, 0.0, 0.0], dtype=np.float32)
    q = mx.quantize(values, fmt)
    assert q.scales.view(np.uint8).tolist() == [0, 0]  # 2**-127
    back = mx.dequantize(q.elements, q.scales, fmt)
    assert np.signbit(back).tolist() == [False, True] + [False] * 6


def test_float16_bfloat16_and_integers_quantize_like_their_float32_values() -> None:
    fmt = mx.scaled_dtype("E3M2", block=4)
    ints = np.array([1, -7, 300, 12, 2**14, 3, 0, -1], dtype=np.int64)
    expected = mx.quantize(ints.astype(np.float32), fmt)
    for values in (ints, ints.astype(np.float16), ints.astype(ml_dtypes.bfloat16)):
        got = mx.quantize(values, fmt)
        np.testing.assert_array_equal(got.elements.view(np.uint8), expected.elements.view(np.uint8))
    assert mx.quantize([1.0, 2.0], fmt).elements.shape == (2,)  # a list is array_like


def test_quantize_leaves_the_input_alone_and_shares_no_memory() -> None:
    values = np.linspace(-1, 1, 64, dtype=np.float32)
    before = values.copy()
    q = mx.quantize(values, mx.scaled_dtype("E4M3"))
    np.testing.assert_array_equal(values, before)
    assert not np.shares_memory(q.elements, values)


def test_float64_beyond_float32_reads_back_as_inf_without_a_warning() -> None:
    fmt = mx.scaled_dtype("E4M3", block=2)
    q = mx.quantize(np.array([1e300, 1.0, 1e40, 1.0]), fmt)
    assert q.scales.view(np.uint8)[0] == 255  # 2**(996 - 8) exceeds E8M0: NaN scale
    back = mx.dequantize(q.elements, q.scales, fmt)
    assert np.isnan(back[:2]).all() and back[2] == np.inf


@pytest.mark.parametrize(
    ("values", "error", "match"),
    [
        (np.array([True, False]), TypeError, "real numbers"),
        (np.array([1 + 2j]), TypeError, "real numbers"),
        (np.array(["1"]), TypeError, "real numbers"),
        (np.array([1.0], dtype=np.longdouble), TypeError, "astype"),
        (np.float32(1.0), ValueError, "at least one dimension"),
    ],
)
def test_quantize_refuses_what_is_not_an_array_of_real_numbers(
    values: np.ndarray, error: type[Exception], match: str
) -> None:
    if values.dtype == np.longdouble and np.finfo(np.longdouble).bits == 64:
        pytest.skip("long double is float64 here")
    with pytest.raises(error, match=match):
        mx.quantize(values, mx.scaled_dtype("E4M3"))


def test_formats_other_than_mx_and_bad_axes_are_refused() -> None:
    with pytest.raises(TypeError, match="ScaledDType"):
        mx.quantize(np.ones(4), sw.DType.E4M3)  # type: ignore[arg-type]
    other = sw.ScaledDType(
        f"NotMX_{uuid.uuid4().hex}", element=sw.DType.Int32, scale=sw.DType.Float32, block=2
    )
    with pytest.raises(ValueError, match="not an OCP MX floating-point format"):
        mx.quantize(np.ones(4), other)
    with pytest.raises(np.exceptions.AxisError):
        mx.quantize(np.ones((2, 2)), mx.scaled_dtype("E4M3"), axis=2)


def test_dequantize_checks_the_planes() -> None:
    fmt = mx.scaled_dtype("E4M3", block=4)
    q = mx.quantize(np.ones(10, dtype=np.float32), fmt)
    with pytest.raises(TypeError, match="float8_e4m3fn"):
        mx.dequantize(q.elements.astype(np.float32), q.scales, fmt)
    with pytest.raises(TypeError, match="float8_e8m0fnu"):
        mx.dequantize(q.elements, q.scales.view(np.uint8), fmt)
    with pytest.raises(ValueError, match=r"expected scales of shape \(3,\)"):
        mx.dequantize(q.elements, q.scales[:2], fmt)
    with pytest.raises(TypeError, match="ScaledDType"):
        mx.dequantize(q.elements, q.scales, "MXFP8")  # type: ignore[call-overload]


def test_dequantize_takes_what_quantize_returned(element: str) -> None:
    fmt = mx.scaled_dtype(element)
    values = np.linspace(-3, 5, 100, dtype=np.float32)
    q = mx.quantize(values, fmt)
    whole = mx.dequantize(q, fmt)
    np.testing.assert_array_equal(whole, mx.dequantize(q.elements, q.scales, fmt))
    rows = mx.quantize(values.reshape(4, 25), fmt, axis=0)
    np.testing.assert_array_equal(
        mx.dequantize(rows, fmt, axis=0), mx.dequantize(rows.elements, rows.scales, fmt, axis=0)
    )


def test_dequantize_without_a_format_says_both_ways_to_call_it() -> None:
    fmt = mx.scaled_dtype("E4M3")
    q = mx.quantize(np.ones(4, dtype=np.float32), fmt)
    with pytest.raises(TypeError, match=r"dequantize\(q, fmt\)"):
        mx.dequantize(q.elements, q.scales)  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="axis by keyword"):
        mx.dequantize(q, fmt, 0)  # type: ignore[call-overload]
