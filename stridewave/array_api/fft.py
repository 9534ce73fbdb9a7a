"""The ``fft`` extension of :mod:`stridewave.array_api`.

The transforms (``fft``, ``rfft`` ...) run on the complex dtypes of every device
that stores them: complex64 and complex128 on the host devices, complex64 on Metal.
They are delegated to ``array_api_compat.numpy.fft`` (host; float32 and complex64
input gives complex64, float64 and complex128 input complex128); on Metal NumPy
computes them on a host copy and the result is held as complex64 (MLX has no
complex128). ``fftfreq``, ``rfftfreq``, ``fftshift`` and ``ifftshift`` run on the
device (MLX on Metal).
"""

from __future__ import annotations

from typing import Any

from stridewave.array_api import _dtypes
from stridewave.array_api._array import Array
from stridewave.array_api._common import document_all as _document_all
from stridewave.array_api._common import one as _one
from stridewave.array_api._common import wrap_one
from stridewave.array_api._device import as_device, default_device

__all__ = [
    "fft",
    "fftfreq",
    "fftn",
    "fftshift",
    "hfft",
    "ifft",
    "ifftn",
    "ifftshift",
    "ihfft",
    "irfft",
    "irfftn",
    "rfft",
    "rfftfreq",
    "rfftn",
]


def fft(x: Any, /, *, n: Any = None, axis: int = -1, norm: str = "backward") -> Array:
    return _one("fft", (x,), {"n": n, "axis": axis, "norm": norm}, sub="fft")


def ifft(x: Any, /, *, n: Any = None, axis: int = -1, norm: str = "backward") -> Array:
    return _one("ifft", (x,), {"n": n, "axis": axis, "norm": norm}, sub="fft")


def fftn(x: Any, /, *, s: Any = None, axes: Any = None, norm: str = "backward") -> Array:
    return _one("fftn", (x,), {"s": s, "axes": axes, "norm": norm}, sub="fft")


def ifftn(x: Any, /, *, s: Any = None, axes: Any = None, norm: str = "backward") -> Array:
    return _one("ifftn", (x,), {"s": s, "axes": axes, "norm": norm}, sub="fft")


def rfft(x: Any, /, *, n: Any = None, axis: int = -1, norm: str = "backward") -> Array:
    return _one("rfft", (x,), {"n": n, "axis": axis, "norm": norm}, sub="fft")


def irfft(x: Any, /, *, n: Any = None, axis: int = -1, norm: str = "backward") -> Array:
    return _one("irfft", (x,), {"n": n, "axis": axis, "norm": norm}, sub="fft")


def rfftn(x: Any, /, *, s: Any = None, axes: Any = None, norm: str = "backward") -> Array:
    return _one("rfftn", (x,), {"s": s, "axes": axes, "norm": norm}, sub="fft")


def irfftn(x: Any, /, *, s: Any = None, axes: Any = None, norm: str = "backward") -> Array:
    return _one("irfftn", (x,), {"s": s, "axes": axes, "norm": norm}, sub="fft")


def hfft(x: Any, /, *, n: Any = None, axis: int = -1, norm: str = "backward") -> Array:
    return _one("hfft", (x,), {"n": n, "axis": axis, "norm": norm}, sub="fft")


def ihfft(x: Any, /, *, n: Any = None, axis: int = -1, norm: str = "backward") -> Array:
    return _one("ihfft", (x,), {"n": n, "axis": axis, "norm": norm}, sub="fft")


def _freq(name: str, n: int, d: float, dtype: Any, device: Any) -> Array:
    target = default_device() if device is None else as_device(device)
    chosen = (
        target.backend.default_dtypes()["real floating"]
        if dtype is None
        else _dtypes.as_dtype(dtype)
    )
    backend = target.backend
    result = getattr(backend.ns.fft, name)(n, d=d, dtype=backend.native_dtype(chosen))
    return wrap_one(result, target)


def fftfreq(n: int, /, *, d: float = 1.0, dtype: Any = None, device: Any = None) -> Array:
    return _freq("fftfreq", n, d, dtype, device)


def rfftfreq(n: int, /, *, d: float = 1.0, dtype: Any = None, device: Any = None) -> Array:
    return _freq("rfftfreq", n, d, dtype, device)


def fftshift(x: Any, /, *, axes: Any = None) -> Array:
    return _one("fftshift", (x,), {"axes": axes}, sub="fft")


def ifftshift(x: Any, /, *, axes: Any = None) -> Array:
    return _one("ifftshift", (x,), {"axes": axes}, sub="fft")


_document_all(
    (
        (fft, "The one-dimensional discrete Fourier transform (complex result)."),
        (ifft, "The one-dimensional inverse discrete Fourier transform."),
        (fftn, "The n-dimensional discrete Fourier transform."),
        (ifftn, "The n-dimensional inverse discrete Fourier transform."),
        (rfft, "The one-dimensional discrete Fourier transform of real input."),
        (irfft, "The inverse of ``rfft`` (real result)."),
        (rfftn, "The n-dimensional discrete Fourier transform of real input."),
        (irfftn, "The inverse of ``rfftn`` (real result)."),
        (hfft, "The discrete Fourier transform of a Hermitian-symmetric signal (real result)."),
        (ihfft, "The inverse of ``hfft``."),
        (fftfreq, "Sample frequencies of a discrete Fourier transform."),
        (rfftfreq, "Sample frequencies of a real discrete Fourier transform."),
        (fftshift, "Shift the zero-frequency term to the centre."),
        (ifftshift, "Inverse of ``fftshift``."),
    )
)
