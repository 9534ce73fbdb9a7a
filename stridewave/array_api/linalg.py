"""The ``linalg`` extension of :mod:`stridewave.array_api`.

Delegated to ``array_api_compat.numpy.linalg`` for host carriers and to
``mlx.core.linalg`` for Metal (functions MLX lacks raise ``NotImplementedError``
there; see docs/array-api.md).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from stridewave.array_api._array import Array
from stridewave.array_api._common import apply as _apply
from stridewave.array_api._common import document as _document
from stridewave.array_api._common import document_all as _document_all
from stridewave.array_api._linear_algebra_functions import (
    matmul,
    matrix_transpose,
    tensordot,
    vecdot,
)
from stridewave.array_api._statistical_functions import _acc_dtype

__all__ = [
    "cholesky",
    "cross",
    "det",
    "diagonal",
    "eigh",
    "eigvalsh",
    "inv",
    "matmul",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "matrix_transpose",
    "outer",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "svd",
    "svdvals",
    "tensordot",
    "trace",
    "vecdot",
    "vector_norm",
]


def _la(name: str, args: tuple[Any, ...], kwargs: dict[str, Any] | None = None) -> Any:
    try:
        return _apply(name, args, kwargs, sub="linalg")
    except np.linalg.LinAlgError as exc:
        # NumPy says only "Singular matrix" or "Matrix is not positive definite":
        # name the call, the shapes and a way out.
        shapes = " and ".join(str(tuple(getattr(a, "shape", ()))) for a in args)
        shapes = f"input shape{'s' if len(args) > 1 else ''} {shapes}"
        text = str(exc)
        if "singular" in text.lower():
            hint = (
                "it has no inverse and the system no unique solution; xp.linalg.pinv "
                "gives the least-squares answer"
            )
        elif "positive definite" in text.lower():
            hint = "cholesky needs a symmetric positive-definite matrix"
        else:
            hint = "check the input's values"
        raise np.linalg.LinAlgError(f"{name}: {text} (input shape {shapes}): {hint}.") from exc


def _one_la(name: str, args: tuple[Any, ...], kwargs: dict[str, Any] | None = None) -> Array:
    result: Array = _la(name, args, kwargs)
    return result


def cholesky(x: Any, /, *, upper: bool = False) -> Array:
    return _one_la("cholesky", (x,), {"upper": upper})


def cross(x1: Any, x2: Any, /, *, axis: int = -1) -> Array:
    return _one_la("cross", (x1, x2), {"axis": axis})


def det(x: Any, /) -> Array:
    return _one_la("det", (x,))


def diagonal(x: Any, /, *, offset: int = 0) -> Array:
    return _one_la("diagonal", (x,), {"offset": offset})


def eigh(x: Any, /) -> Any:
    return _la("eigh", (x,))


def eigvalsh(x: Any, /) -> Array:
    return _one_la("eigvalsh", (x,))


def inv(x: Any, /) -> Array:
    return _one_la("inv", (x,))


def matrix_norm(x: Any, /, *, keepdims: bool = False, ord: Any = "fro") -> Array:
    return _one_la("matrix_norm", (x,), {"keepdims": keepdims, "ord": ord})


def matrix_power(x: Any, n: int, /) -> Array:
    return _one_la("matrix_power", (x, n))


def matrix_rank(x: Any, /, *, rtol: Any = None) -> Array:
    return _one_la("matrix_rank", (x,), {"rtol": rtol})


def outer(x1: Any, x2: Any, /) -> Array:
    return _one_la("outer", (x1, x2))


def pinv(x: Any, /, *, rtol: Any = None) -> Array:
    return _one_la("pinv", (x,), {"rtol": rtol})


def qr(x: Any, /, *, mode: str = "reduced") -> Any:
    return _la("qr", (x,), {"mode": mode})


def slogdet(x: Any, /) -> Any:
    return _la("slogdet", (x,))


def solve(x1: Any, x2: Any, /) -> Array:
    return _one_la("solve", (x1, x2))


def svd(x: Any, /, *, full_matrices: bool = True) -> Any:
    return _la("svd", (x,), {"full_matrices": full_matrices})


def svdvals(x: Any, /) -> Array:
    return _one_la("svdvals", (x,))


def trace(x: Any, /, *, offset: int = 0, dtype: Any = None) -> Array:
    return _one_la("trace", (x,), {"offset": offset, "dtype": _acc_dtype(x, dtype)})


def vector_norm(x: Any, /, *, axis: Any = None, keepdims: bool = False, ord: Any = 2) -> Array:
    return _one_la("vector_norm", (x,), {"axis": axis, "keepdims": keepdims, "ord": ord})


_document_all(
    (
        (cholesky, "Cholesky factor of (a stack of) symmetric positive-definite matrices."),
        (cross, "Cross product of 3-vectors along ``axis``."),
        (det, "Determinant."),
        (diagonal, "The ``offset``-th diagonal of (a stack of) matrices."),
        (eigvalsh, "Eigenvalues of symmetric matrices."),
        (inv, "Matrix inverse."),
        (matrix_norm, "Matrix norm."),
        (matrix_power, "Integer power of a square matrix."),
        (matrix_rank, "Matrix rank (from singular values)."),
        (outer, "Outer product of two vectors."),
        (pinv, "Moore-Penrose pseudo-inverse."),
        (solve, "Solve ``x1 @ y = x2``."),
        (svdvals, "Singular values."),
        (trace, "Sum along the ``offset``-th diagonal."),
        (vector_norm, "Vector norm."),
    )
)
_document(eigh, "Eigenvalues and eigenvectors of symmetric matrices.", returns="namedtuple")
_document(qr, "QR factorization.", returns="namedtuple")
_document(slogdet, "Sign and log of the absolute determinant.", returns="namedtuple")
_document(svd, "Singular value decomposition.", returns="namedtuple")
