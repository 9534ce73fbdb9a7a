"""``quantize(..., scale_rule=...)``: each rule against exact arithmetic from its definition.

The reference here evaluates each rule in ``fractions.Fraction``: the float32 ratio
``r`` of a block maximum to the element type's largest magnitude is formed by an
exact product or quotient rounded once to float32 (round to nearest, ties to even,
subnormals included), and the exponent is read from ``r`` with exact comparisons
against powers of two (and, for ``"nearest"``, ``r**2`` against ``2**(2k + 1)``).
The elements are ``v / 2**e`` rounded to the element grid, ties to even, saturating.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from stridewave import mx
from tests.mx.exact import exact_element, floor_log2, grid

RULES = ("rceil", "ceil", "nearest")
BLOCK = 8


def _to_float32(x: Fraction) -> Fraction:
    """``x >= 0`` rounded to float32: nearest, ties to even, subnormals included."""
    if x == 0:
        return x
    ulp = Fraction(2) ** (max(floor_log2(x), -126) - 23)
    q = x / ulp
    n = math.floor(q)
    if q - n > Fraction(1, 2) or (q - n == Fraction(1, 2) and n % 2):
        n += 1
    return n * ulp


def exact_exponent(block: list[float], element: str, rule: str) -> int | None:
    """The rule's unbiased scale exponent for a block of float32 values; None: NaN scale."""
    if not all(math.isfinite(v) for v in block):
        return None
    amax = max(abs(Fraction(v)) for v in block)
    largest = grid(element)[-1]
    if rule == "rceil":
        r = _to_float32(amax * _to_float32(1 / largest))
    else:
        r = _to_float32(amax / largest)
    if r == 0:
        return 0 if rule == "nearest" else -127
    k = floor_log2(r)
    if rule == "nearest":
        e = k + 1 if r * r >= Fraction(2) ** (2 * k + 1) else k
    else:
        e = k if Fraction(2) ** k == r else k + 1
    return min(max(e, -127), 127)


def _edges() -> list[float]:
    """Float32 values at the rules' decision points, and one step either side."""
    out: list[float] = [0.0, -0.0, 1e-45, 2.0**-126, float(np.finfo(np.float32).max)]
    for element in mx.ELEMENT_NAMES:
        largest = float(grid(element)[-1])
        for k in (-140, -130, -127, -20, -1, 0, 1, 3, 100, 120):
            for centre in (largest * 2.0**k, largest * math.sqrt(2) * 2.0**k):
                if centre < float(np.finfo(np.float32).max):
                    c = np.float32(centre)
                    out += [float(np.nextafter(c, np.float32(d))) for d in (0, np.inf)]
                    out.append(float(c))
    return out


FLOATS = st.one_of(
    st.floats(width=32, allow_nan=False, allow_infinity=False),
    st.sampled_from(_edges()),
    st.sampled_from(_edges()).map(lambda v: -v),
)


def check_block_rule(values: np.ndarray, element: str, rule: str) -> None:
    fmt = mx.scaled_dtype(element, block=BLOCK)
    q = mx.quantize(values, fmt, scale_rule=rule)
    codes = q.scales.view(np.uint8)
    elements = q.elements.astype(np.float32)
    for b in range(codes.size):
        part = values[b * BLOCK : (b + 1) * BLOCK]
        shared = exact_exponent([float(v) for v in part], element, rule)
        assert int(codes[b]) == (255 if shared is None else shared + 127), (rule, part)
        if shared is None:
            continue
        for v, got in zip(part, elements[b * BLOCK : (b + 1) * BLOCK], strict=True):
            assert Fraction(float(got)) == exact_element(float(v), shared, element), (v, rule)
            assert np.signbit(got) == np.signbit(v)  # IEEE rounding keeps a zero's sign


@settings(max_examples=60, deadline=None)
@given(values=hnp.arrays(np.float32, st.integers(1, 4).map(lambda k: k * BLOCK), elements=FLOATS))
@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("element", mx.ELEMENT_NAMES)
def test_each_rule_matches_its_definition_in_exact_arithmetic(
    values: np.ndarray, element: str, rule: str
) -> None:
    check_block_rule(values, element, rule)


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("element", mx.ELEMENT_NAMES)
def test_each_rule_at_its_decision_points(element: str, rule: str) -> None:
    edges = np.array(_edges(), dtype=np.float32)
    values = np.zeros(edges.size * BLOCK, dtype=np.float32)
    values[::BLOCK] = edges  # one block per edge value, its maximum
    values[1::BLOCK] = edges * np.float32(0.75)
    check_block_rule(values, element, rule)


def test_the_rules_differ_where_their_definitions_do() -> None:
    fmt = mx.scaled_dtype("E4M3", block=1)
    # floor keeps the maximum's exponent: 537.6, 300 and 486 are 2**9, 2**8 and 2**8
    # times a significand; against 448 = 1.75 * 2**8 the ratios are 1.2, 0.67 and 1.08,
    # which nearest rounds to 2**0, 2**-1 and 2**0, and the ceiling rules raise to
    # 2**1, 2**0 and 2**1
    values = np.array([1.2 * 448, 300, 486], dtype=np.float32)
    got = {
        r: (mx.quantize(values, fmt, scale_rule=r).scales.view(np.uint8).astype(int) - 127).tolist()
        for r in mx.SCALE_RULES
    }
    assert got == {
        "floor": [1, 0, 0],
        "nearest": [0, -1, 0],
        "ceil": [1, 0, 1],
        "rceil": [1, 0, 1],
    }


def test_floor_is_the_default_rule() -> None:
    values = np.random.default_rng(3).normal(size=256).astype(np.float32) * 100
    fmt = mx.scaled_dtype("E2M1")
    a, b = mx.quantize(values, fmt), mx.quantize(values, fmt, scale_rule="floor")
    np.testing.assert_array_equal(a.scales.view(np.uint8), b.scales.view(np.uint8))
    np.testing.assert_array_equal(a.elements.view(np.uint8), b.elements.view(np.uint8))


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("element", mx.ELEMENT_NAMES)
def test_nan_and_inf_blocks_get_the_nan_scale_under_every_rule(element: str, rule: str) -> None:
    fmt = mx.scaled_dtype(element, block=4)
    values = np.array([1, np.nan, 2, 3, np.inf, 1, 1, 1, -np.inf, 0, 0, 0, 1, 2, 3, 4])
    q = mx.quantize(values.astype(np.float32), fmt, scale_rule=rule)
    assert q.scales.view(np.uint8).tolist()[:3] == [255, 255, 255]
    back = mx.dequantize(q, fmt)
    assert np.isnan(back[:12]).all() and np.isfinite(back[12:]).all()


def test_float64_blocks_take_the_float32_maximum_and_overflow_to_the_nan_scale() -> None:
    fmt = mx.scaled_dtype("E4M3", block=2)
    values = np.array([1e300, 1.0, 1.0 + 2.0**-40, 0.5])
    for rule in RULES:
        q = mx.quantize(values, fmt, scale_rule=rule)
        codes = q.scales.view(np.uint8).tolist()
        assert codes[0] == 255
        assert (
            codes[1]
            == mx.quantize(values[2:].astype(np.float32), fmt, scale_rule=rule).scales.view(
                np.uint8
            )[0]
        )


def test_an_unknown_rule_is_refused_and_names_the_rules() -> None:
    values = np.ones(32, dtype=np.float32)
    with pytest.raises(ValueError, match="'floor', 'rceil', 'ceil', 'nearest'"):
        mx.quantize(values, mx.scaled_dtype("E4M3"), scale_rule="round")
    with pytest.raises(TypeError, match=r"positional"):
        mx.quantize(values, mx.scaled_dtype("E4M3"), -1, "ceil")  # type: ignore[call-arg]
