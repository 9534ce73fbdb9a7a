"""``to_mlx`` / ``from_mlx`` against MLX's own ``mx.quantize`` and ``mx.dequantize``.

Runs on MLX's CPU device where MLX is installed. Which of StrideWeave's rules MLX's
``mx.quantize`` applies is read from MLX itself (one block that tells them apart):
``"ceil"`` for MLX 0.32.4, ``"nearest"`` for the releases up to 0.32.1. For finite
blocks whose scale lies inside E8M0's range the planes are then equal bit for bit,
except for MLX's CPU E2M1 rounding (ties toward zero, ``+0`` for a negative value
that rounds to zero), which the tests pin apart, with MLX's other CPU quirks.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from stridewave import mx as smx

mx: Any = pytest.importorskip("mlx.core", reason="the MLX layout tests need mlx")

MODES = {"mxfp4": "E2M1", "mxfp8": "E4M3"}


@pytest.fixture(scope="module", autouse=True)
def _cpu_device() -> Iterator[None]:
    """Run on MLX's CPU device (the one whose quantize these tests pin), then restore."""
    before = mx.default_device()
    mx.set_default_device(mx.cpu)
    yield
    mx.set_default_device(before)


def mlx_quantize(w: np.ndarray, mode: str) -> tuple[np.ndarray, np.ndarray]:
    w_q, scales = mx.quantize(mx.array(w), mode=mode)
    return np.array(w_q), np.array(scales)


def mlx_dequantize(w_q: np.ndarray, scales: np.ndarray, mode: str) -> np.ndarray:
    out = mx.dequantize(mx.array(w_q), mx.array(scales), mode=mode, dtype=mx.float32)
    return np.array(out)


@functools.cache
def installed_mlx_rule() -> str:
    """The StrideWeave rule the installed MLX's mx.quantize applies (one telling block)."""
    w = np.zeros((1, 32), dtype=np.float32)
    w[0, 0] = 1.2 * 448  # ratio 1.2: nearest gives 2**0, the ceiling 2**1
    code = int(mlx_quantize(w, "mxfp8")[1][0, 0])
    rules = {127: "nearest", 128: "ceil"}
    assert code in rules, f"MLX's mx.quantize follows neither rule: scale code {code}"
    return rules[code]


def mlx_fp4_codes(w_q: np.ndarray) -> np.ndarray:
    return smx.from_mlx(w_q, np.zeros((*w_q.shape[:-1], w_q.shape[-1] // 4), np.uint8), "mxfp4")[
        0
    ].view(np.uint8)


def is_e2m1_tie(x: np.float32) -> bool:
    grid = [Fraction(v) for v in (0, 0.5, 1, 1.5, 2, 3, 4, 6)]
    a = abs(Fraction(float(x)))
    return any((lo + hi) / 2 == a for lo, hi in itertools.pairwise(grid))


#: Blocks whose maximum keeps the scale inside E8M0's range under every rule.
FINITE = st.floats(min_value=-(2.0**100), max_value=2.0**100, allow_nan=False, width=32)
MATRICES = hnp.arrays(
    np.float32,
    st.tuples(st.integers(1, 3), st.integers(1, 3).map(lambda k: 32 * k)),
    elements=FINITE,
)


def with_a_big_value_per_block(w: np.ndarray, big: float) -> np.ndarray:
    w = w.copy()
    w[:, ::32] = np.where(np.abs(w[:, ::32]) < 2.0**-100, np.float32(big), w[:, ::32])
    return w


@settings(max_examples=60, deadline=None)
@given(w=MATRICES, big=st.floats(min_value=2.0**-100, max_value=2.0**100, width=32))
@pytest.mark.parametrize("mode", MODES)
def test_to_mlx_equals_mx_quantize_bit_for_bit_under_mlx_rule(
    w: np.ndarray, big: float, mode: str
) -> None:
    w = with_a_big_value_per_block(w, big)
    fmt = smx.scaled_dtype(MODES[mode])
    q = smx.quantize(w, fmt, scale_rule=installed_mlx_rule())
    ours_wq, ours_scales = smx.to_mlx(q)
    theirs_wq, theirs_scales = mlx_quantize(w, mode)
    np.testing.assert_array_equal(ours_scales, theirs_scales)
    assert ours_wq.dtype == np.uint32 and ours_wq.shape == theirs_wq.shape
    if mode == "mxfp8":
        np.testing.assert_array_equal(ours_wq, theirs_wq)
        return
    ours, theirs = q.elements.view(np.uint8), mlx_fp4_codes(theirs_wq)
    ours_unsigned_zero = np.where(ours == 8, np.uint8(0), ours)  # MLX CPU: +0 only
    for i, j in zip(*np.nonzero(ours_unsigned_zero != theirs), strict=True):
        scaled = w[i, j] / q.scales[i, j // 32].astype(np.float32)
        assert is_e2m1_tie(scaled), (w[i, j], ours[i, j], theirs[i, j])
        assert theirs[i, j] & 7 < ours[i, j] & 7  # MLX's CPU: the tie toward zero


@settings(max_examples=40, deadline=None)
@given(w=MATRICES, big=st.floats(min_value=2.0**-100, max_value=2.0**100, width=32))
@pytest.mark.parametrize("rule", smx.SCALE_RULES)
@pytest.mark.parametrize("mode", MODES)
def test_mlx_dequantizes_every_rule_to_stridewave_values(
    w: np.ndarray, big: float, mode: str, rule: str
) -> None:
    w = with_a_big_value_per_block(w, big)
    fmt = smx.scaled_dtype(MODES[mode])
    q = smx.quantize(w, fmt, scale_rule=rule)
    theirs = mlx_dequantize(*smx.to_mlx(q), mode)
    np.testing.assert_array_equal(theirs.view(np.uint32), smx.dequantize(q, fmt).view(np.uint32))


@settings(max_examples=40, deadline=None)
@given(w=MATRICES, big=st.floats(min_value=2.0**-100, max_value=2.0**100, width=32))
@pytest.mark.parametrize("mode", MODES)
def test_from_mlx_reads_mx_quantize_output_back(w: np.ndarray, big: float, mode: str) -> None:
    w = with_a_big_value_per_block(w, big)
    w_q, scales = mlx_quantize(w, mode)
    q = smx.from_mlx(w_q, scales, mode)
    fmt = smx.scaled_dtype(MODES[mode])
    assert q.elements.shape == w.shape and q.scales.shape == scales.shape
    back = smx.to_mlx(q)
    np.testing.assert_array_equal(back[0], w_q)
    np.testing.assert_array_equal(back[1], scales)
    ours = smx.dequantize(q, fmt)
    np.testing.assert_array_equal(
        ours.view(np.uint32), mlx_dequantize(w_q, scales, mode).view(np.uint32)
    )
    if mode == "mxfp4":
        packed = smx.from_mlx(w_q, scales, mode, packed=True)
        assert packed.elements.dtype == np.uint8 and packed.elements.shape[-1] == w.shape[-1] // 2
        np.testing.assert_array_equal(smx.dequantize(packed, fmt), ours)
        np.testing.assert_array_equal(smx.to_mlx(packed)[0], w_q)


def test_the_layout_puts_the_first_element_in_the_lowest_bits() -> None:
    w = np.zeros((1, 32), dtype=np.float32)
    w[0, :8] = [0.5, 1, 1.5, 2, 3, 4, 6, -0.5]  # E2M1 codes 1..7 and 9, scale 2**0
    w_q, scales = smx.to_mlx(smx.quantize(w, smx.scaled_dtype("E2M1"), scale_rule="ceil"))
    assert int(w_q[0, 0]) == 0x97654321 and scales.tolist() == [[127]]
    q = smx.quantize(w, smx.scaled_dtype("E4M3"), scale_rule="ceil")
    w_q, _ = smx.to_mlx(q)
    codes = q.elements[0, :4].view(np.uint8).astype(np.uint32)
    assert int(w_q[0, 0]) == int(codes[0] | codes[1] << 8 | codes[2] << 16 | codes[3] << 24)
    np.testing.assert_array_equal(w_q, mlx_quantize(w, "mxfp8")[0])


# MLX's CPU quirks, pinned: what MLX does, and what StrideWeave does instead


def test_mlx_writes_scale_127_for_an_all_zero_block() -> None:
    w = np.zeros((1, 64), dtype=np.float32)
    w[0, 32] = 1.0
    for mode, element in MODES.items():
        _, scales = mlx_quantize(w, mode)
        assert scales[0, 0] == 127
        fmt = smx.scaled_dtype(element)
        assert smx.quantize(w, fmt, scale_rule="nearest").scales.view(np.uint8)[0, 0] == 127
        for rule in ("ceil", "rceil", "floor"):  # the smallest scale; the same zeros
            assert smx.quantize(w, fmt, scale_rule=rule).scales.view(np.uint8)[0, 0] == 0


def test_mlx_wraps_an_exponent_below_e8m0_range_and_stridewave_clamps_it() -> None:
    w = np.full((1, 32), 1e-38, dtype=np.float32)  # ratio 2**-135 to 448
    _, scales = mlx_quantize(w, "mxfp8")
    assert scales[0, 0] == (-135 + 127) % 256  # 2**121: MLX reads back 448 * 2**121
    q = smx.quantize(w, smx.scaled_dtype("E4M3"), scale_rule=installed_mlx_rule())
    assert q.scales.view(np.uint8)[0, 0] == 0  # 2**-127: the values read back
    np.testing.assert_allclose(smx.dequantize(q, smx.scaled_dtype("E4M3")), w, rtol=2**-3)


@pytest.mark.parametrize("mode", MODES)
def test_mlx_gives_a_nan_block_scale_128_and_stridewave_the_nan_scale(mode: str) -> None:
    w = np.ones((1, 32), dtype=np.float32)
    w[0, 3] = np.nan
    _, scales = mlx_quantize(w, mode)
    assert scales[0, 0] == 128  # reads back as finite values
    fmt = smx.scaled_dtype(MODES[mode])
    w_q, ours = smx.to_mlx(smx.quantize(w, fmt, scale_rule=installed_mlx_rule()))
    assert ours[0, 0] == 255
    assert np.isnan(mlx_dequantize(w_q, ours, mode)).all()  # MLX reads 255 as NaN too


def test_mlx_cpu_rounds_e2m1_ties_toward_zero_and_stridewave_to_even() -> None:
    w = np.zeros((1, 32), dtype=np.float32)
    w[0, :8] = [6, 0.75, 1.75, 3.5, -0.75, -1.75, -3.5, -0.25]  # scale 2**0
    theirs = mlx_fp4_codes(mlx_quantize(w, "mxfp4")[0])[0, :8]
    q = smx.quantize(w, smx.scaled_dtype("E2M1"), scale_rule=installed_mlx_rule())
    ours = q.elements[0, :8]
    assert theirs.view(ml_dtypes.float4_e2m1fn).astype(np.float32).tolist() == [
        6,
        0.5,
        1.5,
        3,
        -0.5,
        -1.5,
        -3,
        0,
    ]
    assert ours.astype(np.float32).tolist() == [6, 1, 2, 4, -1, -2, -4, -0.0]
    assert np.signbit(ours[7].astype(np.float32)) and theirs[7] == 0  # MLX drops the sign


def test_bad_planes_are_refused_with_what_mlx_needs() -> None:
    values = np.ones((2, 64), dtype=np.float32)
    with pytest.raises(TypeError, match="E2M1 \\(mxfp4\\) or E4M3 \\(mxfp8\\)"):
        smx.to_mlx(smx.quantize(values, smx.scaled_dtype("E5M2")))
    with pytest.raises(ValueError, match="32 values of the last axis"):
        smx.to_mlx(smx.quantize(values, smx.scaled_dtype("E4M3", block=16)))
    with pytest.raises(ValueError, match="32 values of the last axis"):
        smx.to_mlx(smx.quantize(values[:, :40], smx.scaled_dtype("E4M3")))
    with pytest.raises(TypeError, match="a Quantized"):
        smx.to_mlx((values, values))  # type: ignore[arg-type]
    w_q, scales = mlx_quantize(values, "mxfp4")
    with pytest.raises(ValueError, match="'mxfp4' or 'mxfp8'"):
        smx.from_mlx(w_q, scales, "nvfp4")
    with pytest.raises(TypeError, match="uint32 and scales of uint8"):
        smx.from_mlx(w_q.astype(np.int64), scales, "mxfp4")
    with pytest.raises(ValueError, match="do not match"):
        smx.from_mlx(w_q, scales, "mxfp8")
    with pytest.raises(ValueError, match="mode='mxfp4' only"):
        smx.from_mlx(*mlx_quantize(values, "mxfp8"), "mxfp8", packed=True)


def mlx_float32_round_log2(ratio: np.ndarray) -> np.ndarray:
    """MLX's ``round(log2(r))``, evaluated by MLX's own float32 operations."""
    return np.array(mx.round(mx.log2(mx.array(ratio)))).astype(np.int64)


SQRT2_BITS = int(np.float32(np.sqrt(2)).view(np.uint32))


def near_sqrt2_times_448(k: int, step: int) -> float:
    """``sqrt(2) * 448 * 2**k``, moved ``step`` float32 steps: amax where nearest turns."""
    r = np.uint32(SQRT2_BITS + step).view(np.float32) * np.float32(2.0**k)
    return float(np.float32(float(r) * 448))


AMAX = st.one_of(
    st.floats(min_value=448 * 2.0**-126, max_value=2.0**127, width=32),
    st.builds(near_sqrt2_times_448, st.integers(-126, 118), st.integers(-64, 64)),
)


@settings(max_examples=60, deadline=None)
@given(amax=hnp.arrays(np.float32, st.integers(1, 64), elements=AMAX))
def test_nearest_is_mlx_round_log2_except_next_to_sqrt2_where_float32_log2_rounds(
    amax: np.ndarray,
) -> None:
    """StrideWeave's exact nearest exponent against MLX's float32 ``round(log2(r))``.

    MLX's float32 ``log2`` result near ``k + 1/2`` has a float32 step of about
    ``|k| * 2**-23``; only ratios that close to ``sqrt(2) * 2**k`` may round the other way.
    """
    q = smx.quantize(amax, smx.scaled_dtype("E4M3", block=1), scale_rule="nearest")
    ours = q.scales.view(np.uint8).astype(np.int64) - 127
    ratio = amax / np.float32(448)
    theirs = mlx_float32_round_log2(ratio)
    for i in np.flatnonzero(ours != theirs):
        log2 = np.log2(float(ratio[i]))
        k = np.floor(log2)
        assert abs(log2 - (k + 0.5)) < (abs(k) + 1) * 2.0**-22, (ratio[i], ours[i], theirs[i])


def test_mlx_float32_log2_departs_from_exact_nearest_only_next_to_sqrt2() -> None:
    amax = np.array(
        [near_sqrt2_times_448(k, d) for k in (-100, -20, 20, 100) for d in range(-64, 65)],
        dtype=np.float32,
    )
    ours = smx.quantize(amax, smx.scaled_dtype("E4M3", block=1), scale_rule="nearest")
    ours_e = ours.scales.view(np.uint8).astype(np.int64) - 127
    ratio = amax / np.float32(448)
    differ = ours_e != mlx_float32_round_log2(ratio)
    assert 0 < differ.sum() < 0.5 * differ.size  # a few float32 steps either side of sqrt(2)
    log2 = np.log2(ratio[differ].astype(np.float64))
    assert (np.abs(log2 - (np.floor(log2) + 0.5)) < 101 * 2.0**-22).all()
