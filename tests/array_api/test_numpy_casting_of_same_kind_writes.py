"""In-place operators and writes cast a wider result of the same kind, as NumPy does.

NumPy's in-place operators use ``casting="same_kind"`` and its assignment casts:
``float32 += float64`` and ``x32[k] = float64_array`` keep float32 (SciPy and
scikit-learn rely on it where Metal's floating default is float32); an integer array
still refuses ``+= 1.5`` (another kind). Also NumPy's reading of a 0-d array as a
scalar bound of ``arange``, and float64 transforms without narrowing on every device.
"""

from __future__ import annotations

import numpy as np
import pytest

import stridewave.array_api as xp


def test_an_in_place_operator_casts_a_wider_result_of_the_same_kind(device: xp.Device) -> None:
    x = xp.asarray([1.0, 2.0], dtype=xp.float32, device=device)
    version = x.carrier.version
    x += xp.asarray([0.5, 0.25], dtype=xp.float64, device=device)
    assert x.dtype is xp.float32
    assert x.carrier.version == version + 1
    np.testing.assert_array_equal(np.array(x, copy=True), [1.5, 2.25])
    i = xp.asarray([1, 2], dtype=xp.int32, device=device)
    i *= xp.asarray([3, 4], dtype=xp.int64, device=device)
    assert i.dtype is xp.int32
    with pytest.raises(TypeError, match="dtype"):
        i += 1.5


def test_a_wider_array_of_the_same_kind_is_written_into_a_narrower_one(
    device: xp.Device,
) -> None:
    x = xp.zeros(3, dtype=xp.float32, device=device)
    x[1:] = xp.asarray([0.1, 2.5], dtype=xp.float64, device=device)
    np.testing.assert_array_equal(np.array(x, copy=True), np.array([0, 0.1, 2.5], np.float32))
    z = xp.zeros(1, dtype=xp.complex64, device=device)
    z[0] = xp.asarray(1 + 2j, dtype=xp.complex128, device="cpu").to_device(device)
    assert complex(z[0]) == 1 + 2j
    b = xp.asarray([True], device=device)
    with pytest.raises(TypeError):
        b[0] = xp.asarray(2, device=device)


def test_arange_reads_a_0d_array_bound_as_its_value(device: xp.Device) -> None:
    got = xp.arange(xp.asarray(3, device=device), device=device)
    np.testing.assert_array_equal(np.array(got, copy=True), [0, 1, 2])
    assert xp.arange(xp.asarray(0.5, device=device), 2, device=device).shape == (2,)


def test_a_float64_transform_is_complex128_on_every_device(device: xp.Device) -> None:
    signal = np.sin(np.arange(8.0))
    spectrum = xp.fft.rfft(xp.asarray(signal, device=device))
    assert spectrum.dtype is xp.complex128
    np.testing.assert_allclose(np.array(spectrum, copy=True), np.fft.rfft(signal), atol=1e-12)
