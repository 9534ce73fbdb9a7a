"""The ``fft`` extension of :mod:`stridewave.array_api`: its real-valued functions.

The transforms themselves (``fft``, ``rfft`` ...) take or return complex arrays,
and this namespace has no complex dtype, so they are absent. What remains,
``fftfreq``, ``rfftfreq``, ``fftshift`` and ``ifftshift``, is delegated to
``array_api_compat.numpy.fft`` (host) or computed on the device by MLX (Metal).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from stridewave.array_api import _dtypes
from stridewave.array_api._array import Array, wrap_one
from stridewave.array_api._device import as_device, default_device
from stridewave.array_api._functions import _document_all, _one
from stridewave.dtypes import DType

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


def _complex(name: str) -> TypeError:
    return TypeError(
        f"fft.{name} takes or returns complex arrays, and stridewave.array_api has no "
        "complex dtype (carriers store bool, int32 and float32); use NumPy or MLX directly."
    )


def fft(x: Any, /, *, n: Any = None, axis: int = -1, norm: str = "backward") -> Array:
    raise _complex("fft")


def ifft(x: Any, /, *, n: Any = None, axis: int = -1, norm: str = "backward") -> Array:
    raise _complex("ifft")


def fftn(x: Any, /, *, s: Any = None, axes: Any = None, norm: str = "backward") -> Array:
    raise _complex("fftn")


def ifftn(x: Any, /, *, s: Any = None, axes: Any = None, norm: str = "backward") -> Array:
    raise _complex("ifftn")


def rfft(x: Any, /, *, n: Any = None, axis: int = -1, norm: str = "backward") -> Array:
    raise _complex("rfft")


def irfft(x: Any, /, *, n: Any = None, axis: int = -1, norm: str = "backward") -> Array:
    raise _complex("irfft")


def rfftn(x: Any, /, *, s: Any = None, axes: Any = None, norm: str = "backward") -> Array:
    raise _complex("rfftn")


def irfftn(x: Any, /, *, s: Any = None, axes: Any = None, norm: str = "backward") -> Array:
    raise _complex("irfftn")


def hfft(x: Any, /, *, n: Any = None, axis: int = -1, norm: str = "backward") -> Array:
    raise _complex("hfft")


def ihfft(x: Any, /, *, n: Any = None, axis: int = -1, norm: str = "backward") -> Array:
    raise _complex("ihfft")


_COMPLEX_FUNCS: tuple[Callable[..., Any], ...] = (
    fft,
    ifft,
    fftn,
    ifftn,
    rfft,
    irfft,
    rfftn,
    irfftn,
    hfft,
    ihfft,
)
for _complex_func in _COMPLEX_FUNCS:
    _keywords = (
        ("s", "axes", "norm") if _complex_func.__name__.endswith("n") else ("n", "axis", "norm")
    )
    _complex_func.__doc__ = f"""Not available: ``{_complex_func.__name__}`` needs complex arrays.

    Parameters
    ----------
    x : array
        Ignored.
    {_keywords[0]} : object, optional
        Ignored (the standard's keyword).
    {_keywords[1]} : object, optional
        Ignored (the standard's keyword).
    {_keywords[2]} : str, optional
        Ignored (the standard's keyword).

    Returns
    -------
    Array
        Never returns.

    Raises
    ------
    TypeError
        Always: the namespace has no complex dtype.
    """


def _freq(name: str, n: int, d: float, dtype: Any, device: Any) -> Array:
    target = default_device() if device is None else as_device(device)
    chosen = DType.Float32 if dtype is None else _dtypes.as_dtype(dtype)
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
        (fftfreq, "Sample frequencies of a discrete Fourier transform."),
        (rfftfreq, "Sample frequencies of a real discrete Fourier transform."),
        (fftshift, "Shift the zero-frequency term to the centre."),
        (ifftshift, "Inverse of ``fftshift``."),
    )
)
