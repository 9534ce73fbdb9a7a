"""NumPy as the standard's namespace, with its few corrections: every host computation's.

``array_api_compat.numpy`` where NumPy answers as the standard does; a shim where it
does not (``clip``, ``floor_divide``, complex ``expm1`` and ``tanh``); every function
quiet (no floating-point warnings: :func:`~stridewave.array_api._backend.quiet`) and
half precision through float32 where NumPy has no loop. The host backend computes
with it, and so does the Metal backend wherever it computes on the host (a dtype MLX
cannot hold there, a function MLX lacks): one set of corrections for both.
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from typing import Any, Final

import array_api_compat.numpy
import numpy as np

from stridewave.array_api._backend import QuietNamespace, quiet, through_float32

__all__ = ["NAMESPACE", "SHIMMED", "UFUNC_NAMES"]

#: ``array_api_compat.numpy`` (typed loosely: its stubs name fewer functions than it has).
cnp: Any = array_api_compat.numpy


def _clip(x: Any, /, min: Any = None, max: Any = None) -> Any:
    """``clip`` on host: integer bounds as copies (compat's clip writes into them).

    ml_dtypes' bfloat16 has no ``clip`` loop: there it is ``maximum`` then ``minimum``
    (NaN propagates, as NumPy's clip), with the bounds in bfloat16 (the standard's
    rule for Python scalar bounds: they take the dtype of ``x``).
    """
    if x.dtype.kind == "V":
        out = x
        for bound, limit in ((min, np.maximum), (max, np.minimum)):
            if bound is not None:
                out = limit(out, np.asarray(bound, dtype=x.dtype))
        return np.array(out, copy=out is x)
    if x.dtype.kind in "iu":  # (every integer dtype: compat clamps such bounds in place)
        min, max = (np.array(b) if isinstance(b, np.ndarray) else b for b in (min, max))
    return cnp.clip(x, min, max)


def _floor_divide(x1: Any, x2: Any, /) -> Any:
    """``floor_divide`` on host: one infinite operand gives the quotient's infinity or zero.

    NumPy answers ``inf // 2`` with NaN and ``1 // -inf`` with -1; the standard asks
    for the signed infinity and the signed zero, which ``x1 / x2`` is there.
    """
    out = cnp.floor_divide(x1, x2)
    if out.dtype.kind == "f":
        one_infinite = np.isinf(x1) != np.isinf(x2)
        if one_infinite.any():
            with np.errstate(all="ignore"):
                out = np.where(one_infinite, np.true_divide(x1, x2, dtype=out.dtype), out)
    return out


def _expm1(x: Any, /) -> Any:
    """``expm1`` on host: a complex zero, or an infinite or NaN part, gives ``exp(x) - 1``.

    NumPy's complex ``expm1`` answers those with NaN parts (and ``-0 + 0j`` for
    ``-0 + 0j``) where the standard's special cases, ``exp``'s less one, have
    infinities, -1 and positive zeros.
    """
    out = cnp.expm1(x)
    if out.dtype.kind == "c":
        special = ~np.isfinite(x) | (x == 0)
        if special.any():
            with np.errstate(all="ignore"):
                out = np.where(special, np.exp(x) - 1, out)
    return out


def _tanh(x: Any, /) -> Any:
    """``tanh`` on host: an infinite real part and a finite imaginary one give ``±1 ± 0j``.

    NumPy gives the zero the sign of ``sin(2 imag)`` (C99's rule); the standard's
    ``tanh(+inf + bj)`` is ``1 + 0j`` for ``b > 0`` (and its symmetries).
    """
    out = cnp.tanh(x)
    if out.dtype.kind == "c":
        limit = np.isinf(x.real) & np.isfinite(x.imag)
        if limit.any():
            out = np.array(out)  # (a 0-d operand's answer is a NumPy scalar)
            out.real[limit] = np.sign(x.real[limit])
            out.imag[limit] = np.copysign(0, x.imag[limit])
    return out


class _HalfThroughFloat32(QuietNamespace):
    """A namespace (``linalg``) whose every function takes half precision via float32."""

    def __getattr__(self, name: str) -> Any:
        found = super().__getattr__(name)
        if callable(found) and not isinstance(found, type):
            found = through_float32(found)
            setattr(self, name, found)
        return found


class _Namespace(QuietNamespace):
    """``array_api_compat.numpy`` with the host's few shims (an attribute each, once).

    Every function computes without NumPy's floating-point warnings
    (:func:`~stridewave.array_api._backend.quiet`).
    """

    def __init__(self) -> None:
        super().__init__(cnp)
        self.clip = quiet(_clip)
        self.floor_divide = quiet(_floor_divide)
        self.expm1 = quiet(_expm1)
        self.tanh = quiet(_tanh)
        for name in ("matmul", "vecdot", "tensordot"):
            setattr(self, name, through_float32(getattr(self, name)))
        self.linalg = _HalfThroughFloat32(cnp.linalg)
        self.fft = QuietNamespace(cnp.fft)


NAMESPACE: Final = _Namespace()
#: The names a host shim answers (set by ``_Namespace.__init__``, before any function
#: of compat's own is cached on the instance): these have no direct call.
SHIMMED: Final = frozenset(vars(NAMESPACE))

#: The NumPy ufuncs a NumPy scalar's operator calls (``np.float32(2) ** x`` calls
#: ``np.power``), each with the namespace function that answers it
#: (``Array.__array_ufunc__``): every binary operator of the standard.
UFUNC_NAMES: Final[Mapping[str, str]] = types.MappingProxyType(
    {
        **{
            name: name
            for name in (
                "add",
                "subtract",
                "multiply",
                "divide",
                "floor_divide",
                "remainder",
                "bitwise_and",
                "bitwise_or",
                "bitwise_xor",
                "less",
                "less_equal",
                "greater",
                "greater_equal",
                "equal",
                "not_equal",
                "logical_and",
                "logical_or",
                "logical_xor",
            )
        },
        "power": "pow",
        "left_shift": "bitwise_left_shift",
        "right_shift": "bitwise_right_shift",
    }
)
