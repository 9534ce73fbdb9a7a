"""Exact reference arithmetic of the MX tests: element grids and rounding in Fractions.

Shared by the OCP reference tests and the scale-rule tests; written from the
definitions (the element types' values, round to nearest with ties to even,
saturation), never from :mod:`stridewave.mx`'s own code path.
"""

from __future__ import annotations

import functools
from fractions import Fraction

import ml_dtypes
import numpy as np

from stridewave import mx


@functools.cache
def grid(element: str) -> tuple[Fraction, ...]:
    """Non-negative finite values of an element type, indexed by their code."""
    np_dtype = mx._format_of(mx.scaled_dtype(element), where="test").element
    bits = int(ml_dtypes.finfo(np_dtype).bits)  # type: ignore[no-untyped-call]
    values = np.arange(2 ** (bits - 1), dtype=np.uint8).view(np_dtype).astype(np.float64)
    return tuple(Fraction(float(v)) for v in values if np.isfinite(v))


def floor_log2(a: Fraction) -> int:
    """``floor(log2(a))`` of a positive Fraction, exactly."""
    e = a.numerator.bit_length() - a.denominator.bit_length()
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    return e


def exact_element(value: float, shared: int, element: str) -> Fraction:
    """``value / 2**shared`` rounded to nearest, ties to even, saturating: exactly."""
    values = grid(element)
    v = Fraction(value) / Fraction(2) ** shared
    a = abs(v)
    if a >= values[-1]:
        q = values[-1]
    else:
        hi = next(k for k, g in enumerate(values) if g > a)
        lo = hi - 1
        below, above = a - values[lo], values[hi] - a
        pick = lo if below < above else hi if above < below else (lo if lo % 2 == 0 else hi)
        q = values[pick]
    return -q if v < 0 else q
