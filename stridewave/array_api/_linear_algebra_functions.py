"""The linear algebra functions of the main namespace of :mod:`stridewave.array_api`.

``matmul``, ``matrix_transpose``, ``tensordot`` and ``vecdot``; the ``linalg`` extension is
:mod:`stridewave.array_api.linalg`.
"""

from __future__ import annotations

from typing import Any

from stridewave.array_api import _messages
from stridewave.array_api._array import Array, permuted
from stridewave.array_api._common import document_all, one
from stridewave.array_api._dispatch import binary
from stridewave.tensor import Tensor

# -- linear algebra in the main namespace -------------------------------------------------


def matmul(x1: Any, x2: Any, /) -> Array:
    if not (isinstance(x1, Tensor) and isinstance(x2, Tensor)):
        raise TypeError(_messages.matmul_needs_arrays())
    return Array._new(*binary("matmul", x1, x2))


def matrix_transpose(x: Any, /) -> Array:
    if type(x) is Array and x.ndim >= 2:
        return permuted(x, (*range(x.ndim - 2), x.ndim - 1, x.ndim - 2))
    return one("matrix_transpose", (x,))


def tensordot(x1: Any, x2: Any, /, *, axes: Any = 2) -> Array:
    return one("tensordot", (x1, x2), {"axes": axes})


def vecdot(x1: Any, x2: Any, /, *, axis: int = -1) -> Array:
    return one("vecdot", (x1, x2), {"axis": axis})


document_all(
    (
        (matmul, "Matrix product of (stacks of) matrices and vectors."),
        (matrix_transpose, "Transpose the last two axes (a view on host carriers)."),
        (tensordot, "Tensor contraction over ``axes``."),
        (vecdot, "Vector dot product over ``axis``."),
    )
)
