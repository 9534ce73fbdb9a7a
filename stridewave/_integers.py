"""The one integer-argument coercion of the package: ``__index__``, never a bool.

Slot indices, sizes, pointers, offsets, layout shapes and strides, descriptor widths
and blocks all take "an integer": any object with ``__index__`` (``int``,
``numpy.int64``, ...), but not ``bool`` or ``numpy.bool_`` (a truth value is not a
count). Each caller supplies the text of its own ``TypeError`` and checks its own
range; the rule itself lives here once. It imports nothing of the package, so every
layer can use it.
"""

from __future__ import annotations

import operator
from collections.abc import Callable

import numpy as np

__all__ = ["as_integer"]


def as_integer(value: object, refusal: Callable[[object], str]) -> int:
    """Return ``value`` as a Python ``int`` through ``__index__``.

    Parameters
    ----------
    value : object
        The argument; an ``int`` passes unchanged.
    refusal : callable
        ``refusal(value) -> str``, the caller's message for a refused value.

    Returns
    -------
    int
        ``operator.index(value)``.

    Raises
    ------
    TypeError
        If ``value`` is a ``bool``/``numpy.bool_`` or has no ``__index__``, with the
        text ``refusal(value)``.
    """
    if type(value) is int:
        return value
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(refusal(value))
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(refusal(value)) from None
