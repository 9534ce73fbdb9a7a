"""The elementwise functions of :mod:`stridewave.array_api` (the standard's section of that name).

Each is one call of the dispatch step (:mod:`~stridewave.array_api._dispatch`): ``unary`` for
one operand, ``binary`` for two; the Array's operators call the same step.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, Final

from stridewave.array_api._array import Array, binary_call
from stridewave.array_api._common import document, one
from stridewave.array_api._dispatch import devices_of, unary

_P = inspect.Parameter
_POS: Final = _P.POSITIONAL_ONLY


def _unary(name: str, summary: str) -> Callable[[Any], Array]:
    def func(x: Any, /) -> Array:
        return Array._new(*unary(name, x))

    func.__name__ = func.__qualname__ = name
    func.__signature__ = inspect.Signature([_P("x", _POS)])  # type: ignore[attr-defined]
    document(func, summary)
    return func


def _binary(name: str, summary: str) -> Callable[[Any, Any], Array]:
    func = binary_call(name)  # (the one call itself: a function of its own per name)

    func.__name__ = func.__qualname__ = name
    func.__signature__ = inspect.Signature([_P("x1", _POS), _P("x2", _POS)])  # type: ignore[attr-defined]
    document(func, summary)
    return func


_UNARY: Final = {
    "abs": "Absolute value, elementwise.",
    "acos": "Inverse cosine, elementwise.",
    "acosh": "Inverse hyperbolic cosine, elementwise.",
    "asin": "Inverse sine, elementwise.",
    "asinh": "Inverse hyperbolic sine, elementwise.",
    "atan": "Inverse tangent, elementwise.",
    "atanh": "Inverse hyperbolic tangent, elementwise.",
    "bitwise_invert": "Bitwise NOT, elementwise.",
    "ceil": "Round towards +infinity, elementwise.",
    "conj": "Complex conjugate (the identity for real dtypes), elementwise.",
    "cos": "Cosine, elementwise.",
    "cosh": "Hyperbolic cosine, elementwise.",
    "exp": "Exponential, elementwise.",
    "expm1": "``exp(x) - 1``, elementwise.",
    "floor": "Round towards -infinity, elementwise.",
    "imag": "Imaginary part (zero for real dtypes), elementwise.",
    "isfinite": "Whether each element is finite.",
    "isinf": "Whether each element is infinite.",
    "isnan": "Whether each element is NaN.",
    "log": "Natural logarithm, elementwise.",
    "log1p": "``log(1 + x)``, elementwise.",
    "log2": "Base-2 logarithm, elementwise.",
    "log10": "Base-10 logarithm, elementwise.",
    "logical_not": "Logical NOT, elementwise.",
    "negative": "Numerical negative, elementwise.",
    "positive": "Numerical positive (a copy), elementwise.",
    "real": "Real part (the identity for real dtypes), elementwise.",
    "reciprocal": "``1 / x``, elementwise.",
    "round": "Round to the nearest integer (half to even), elementwise.",
    "sign": "Sign (-1, 0, 1), elementwise.",
    "signbit": "Whether the sign bit is set, elementwise.",
    "sin": "Sine, elementwise.",
    "sinh": "Hyperbolic sine, elementwise.",
    "square": "``x * x``, elementwise.",
    "sqrt": "Square root, elementwise.",
    "tan": "Tangent, elementwise.",
    "tanh": "Hyperbolic tangent, elementwise.",
    "trunc": "Round towards zero, elementwise.",
}

_BINARY: Final = {
    "add": "Sum ``x1 + x2``, elementwise.",
    "atan2": "Inverse tangent of ``x1 / x2`` by quadrant, elementwise.",
    "bitwise_and": "Bitwise AND, elementwise.",
    "bitwise_left_shift": "Shift the bits of ``x1`` left by ``x2``, elementwise.",
    "bitwise_or": "Bitwise OR, elementwise.",
    "bitwise_right_shift": "Shift the bits of ``x1`` right by ``x2``, elementwise.",
    "bitwise_xor": "Bitwise XOR, elementwise.",
    "copysign": "``x1`` with the sign of ``x2``, elementwise.",
    "divide": "Quotient ``x1 / x2``, elementwise.",
    "equal": "Whether ``x1 == x2``, elementwise.",
    "floor_divide": "Floored quotient ``x1 // x2``, elementwise.",
    "greater": "Whether ``x1 > x2``, elementwise.",
    "greater_equal": "Whether ``x1 >= x2``, elementwise.",
    "hypot": "``sqrt(x1**2 + x2**2)``, elementwise.",
    "less": "Whether ``x1 < x2``, elementwise.",
    "less_equal": "Whether ``x1 <= x2``, elementwise.",
    "logaddexp": "``log(exp(x1) + exp(x2))``, elementwise.",
    "logical_and": "Logical AND, elementwise.",
    "logical_or": "Logical OR, elementwise.",
    "logical_xor": "Logical XOR, elementwise.",
    "maximum": "Larger of ``x1`` and ``x2`` (NaN propagates), elementwise.",
    "minimum": "Smaller of ``x1`` and ``x2`` (NaN propagates), elementwise.",
    "multiply": "Product ``x1 * x2``, elementwise.",
    "nextafter": "Next representable value after ``x1`` towards ``x2``, elementwise.",
    "not_equal": "Whether ``x1 != x2``, elementwise.",
    "pow": "``x1`` raised to ``x2``, elementwise.",
    "remainder": "Remainder of ``x1 / x2`` with the sign of ``x2``, elementwise.",
    "subtract": "Difference ``x1 - x2``, elementwise.",
}

for _name, _summary in _UNARY.items():
    globals()[_name] = _unary(_name, _summary)
for _name, _summary in _BINARY.items():
    globals()[_name] = _binary(_name, _summary)

# Names the generated globals above bind, for type checkers and the operators.
abs: Callable[[Any], Array]
acos: Callable[[Any], Array]
acosh: Callable[[Any], Array]
asin: Callable[[Any], Array]
asinh: Callable[[Any], Array]
atan: Callable[[Any], Array]
atanh: Callable[[Any], Array]
bitwise_invert: Callable[[Any], Array]
ceil: Callable[[Any], Array]
conj: Callable[[Any], Array]
cos: Callable[[Any], Array]
cosh: Callable[[Any], Array]
exp: Callable[[Any], Array]
expm1: Callable[[Any], Array]
floor: Callable[[Any], Array]
imag: Callable[[Any], Array]
isfinite: Callable[[Any], Array]
isinf: Callable[[Any], Array]
isnan: Callable[[Any], Array]
log: Callable[[Any], Array]
log1p: Callable[[Any], Array]
log2: Callable[[Any], Array]
log10: Callable[[Any], Array]
logical_not: Callable[[Any], Array]
negative: Callable[[Any], Array]
positive: Callable[[Any], Array]
real: Callable[[Any], Array]
reciprocal: Callable[[Any], Array]
round: Callable[[Any], Array]
sign: Callable[[Any], Array]
signbit: Callable[[Any], Array]
sin: Callable[[Any], Array]
sinh: Callable[[Any], Array]
square: Callable[[Any], Array]
sqrt: Callable[[Any], Array]
tan: Callable[[Any], Array]
tanh: Callable[[Any], Array]
trunc: Callable[[Any], Array]
add: Callable[[Any, Any], Array]
atan2: Callable[[Any, Any], Array]
bitwise_and: Callable[[Any, Any], Array]
bitwise_left_shift: Callable[[Any, Any], Array]
bitwise_or: Callable[[Any, Any], Array]
bitwise_right_shift: Callable[[Any, Any], Array]
bitwise_xor: Callable[[Any, Any], Array]
copysign: Callable[[Any, Any], Array]
divide: Callable[[Any, Any], Array]
equal: Callable[[Any, Any], Array]
floor_divide: Callable[[Any, Any], Array]
greater: Callable[[Any, Any], Array]
greater_equal: Callable[[Any, Any], Array]
hypot: Callable[[Any, Any], Array]
less: Callable[[Any, Any], Array]
less_equal: Callable[[Any, Any], Array]
logaddexp: Callable[[Any, Any], Array]
logical_and: Callable[[Any, Any], Array]
logical_or: Callable[[Any, Any], Array]
logical_xor: Callable[[Any, Any], Array]
maximum: Callable[[Any, Any], Array]
minimum: Callable[[Any, Any], Array]
multiply: Callable[[Any, Any], Array]
nextafter: Callable[[Any, Any], Array]
not_equal: Callable[[Any, Any], Array]
pow: Callable[[Any, Any], Array]
remainder: Callable[[Any, Any], Array]
subtract: Callable[[Any, Any], Array]


def clip(x: Any, /, min: Any = None, max: Any = None) -> Array:
    device = devices_of((x, min, max))
    return one("clip", (x,), {"min": min, "max": max}, device=device)


document(clip, "Clamp each element to ``[min, max]``.")
