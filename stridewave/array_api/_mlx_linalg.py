"""Linear algebra on the Metal device: tall-skinny QR and SVD by Cholesky QR.

MLX runs its ``linalg`` functions on its CPU stream only. A tall-skinny matrix
(``m >= 4 n`` rows, :data:`MIN_COLUMNS` to :data:`MAX_COLUMNS` columns, at
least :data:`MIN_ELEMENTS` elements) is factored here through matrix products on the
device instead, with only the ``n x n`` steps on the host (NumPy, float64):

* the Gram matrix ``A^T A`` on the device, in blocks of ``max(64, n)`` rows whose
  partial products are summed pairwise (the rounding grows with the block length and
  the tree's depth, not with ``m``);
* its Cholesky factor ``R`` on the host; if it fails, or ``R``'s condition number is
  past Cholesky QR's reach, the shifted Cholesky factor of ``A^T A + s I`` (Fukaya et
  al., "Shifted Cholesky QR for computing the QR factorization of ill-conditioned
  matrices", SIAM J. Sci. Comput. 2020), the least ``s`` that succeeds from
  ``(n + 1) u ||A||_F^2`` upward by factors of ten to their bound
  ``11 (m n + n (n + 1)) u ||A||_F^2``;
* ``Q = A R^{-1}`` on the device: a recursive triangular solve (matrix products and
  column scalings, backward stable like substitution) while ``R`` is ill
  conditioned, one product with the host's inverse once it is close to orthogonal;
* repeated on ``Q`` until the Gram matrix of ``Q`` is within 0.5 of the identity,
  then once more (Cholesky QR2; shifted Cholesky QR3 after a shift).

The SVD is this QR followed by the SVD of ``R`` on the host; ``U = Q U_R`` on the
device. Each step checks what it computed: a failed Cholesky, a Gram matrix with a
non-finite entry, no convergence within :data:`MAX_PASSES` passes, or a numerically
rank-deficient ``R`` (smallest singular value below ``sqrt(n) u`` times the largest)
raises :class:`~stridewave.array_api._mlx_shims.NeedsHost`, and the call runs on the
host's LAPACK as before. Everything else (square and small matrices, stacks,
``mode="complete"``, ``full_matrices=True``, other dtypes) is delegated likewise.
docs/array-api.md, "Linear algebra on Metal", gives the accuracy.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Final

import numpy as np
from array_api_compat.common._linalg import QRResult, SVDResult

from stridewave.array_api._mlx_shims import NeedsHost
from stridewave.carriers._mlx_runtime import import_mlx

mx: Any = import_mlx()

__all__ = [
    "LINALG",
    "MAX_COLUMNS",
    "MAX_PASSES",
    "MIN_COLUMNS",
    "MIN_ELEMENTS",
    "cholesky_qr",
    "finish",
]

#: The fewest elements a matrix factored on the device has (smaller ones: the host).
MIN_ELEMENTS: Final = 4096
#: The fewest columns: Householder QR of fewer columns is cheap on the host and more
#: accurate than a Gram matrix in float32.
MIN_COLUMNS: Final = 8
#: The most columns (the host's ``n x n`` steps grow as ``n**3``).
MAX_COLUMNS: Final = 512
#: The least ratio of rows to columns.
MIN_ASPECT: Final = 4
#: The most Cholesky QR passes before the host takes the call.
MAX_PASSES: Final = 6

#: The NumPy dtype of each MLX floating dtype the device path takes.
_FLOATING: Final[dict[Any, type[np.floating[Any]]]] = {
    mx.float32: np.float32,
    mx.float64: np.float64,
}


def _eligible(x: Any) -> bool:
    """Whether ``x`` is a tall-skinny floating matrix the device path takes."""
    if x.ndim != 2 or x.dtype not in _FLOATING:
        return False
    m, n = x.shape
    return bool(MIN_COLUMNS <= n <= MAX_COLUMNS and m >= MIN_ASPECT * n and m * n >= MIN_ELEMENTS)


def _block_rows(n: int) -> int:
    """Return the rows per block of the Gram product: 64, or ``n`` rounded up to a power of 2.

    Short blocks keep the float32 rounding of each partial product small; at least
    ``n`` rows keep the partial products (``m / b`` of ``n x n``) within ``A``'s size.
    """
    return max(64, 1 << max(0, n - 1).bit_length())


def _gram(a: Any) -> np.ndarray[Any, Any]:
    """Return ``a^T a`` in float64 on the host, computed on the device in blocks of rows.

    The partial products of blocks of :func:`_block_rows` rows are summed pairwise
    (a tree of ``log2(m / b)`` additions), so the rounding grows with the block
    length and the tree's depth, not with ``m``.
    """
    m, n = a.shape
    b = _block_rows(n)
    full = k = m // b
    total = None
    if k:
        blocks = mx.reshape(a[: k * b], (k, b, n))
        parts = mx.matmul(mx.swapaxes(blocks, 1, 2), blocks)
        while k > 1:
            half = k // 2
            paired = parts[:half] + parts[half : 2 * half]
            parts = mx.concatenate([paired, parts[2 * half :]]) if k % 2 else paired
            k = half + k % 2
        total = parts[0]
    if full * b < m:
        rest = a[full * b :]
        tail = mx.matmul(rest.T, rest)
        total = tail if total is None else total + tail
    g = np.array(total, dtype=np.float64)
    symmetric: np.ndarray[Any, Any] = (g + g.T) / 2
    return symmetric


def _cholesky_upper(g: np.ndarray[Any, Any]) -> np.ndarray[Any, Any] | None:
    """Return the upper Cholesky factor of ``g``, or ``None`` where it breaks down."""
    try:
        r = np.linalg.cholesky(g).T
    except np.linalg.LinAlgError:
        return None
    good = bool(np.all(np.isfinite(r)) and np.all(np.diagonal(r) > 0))
    return r if good else None


def _solve_upper(a: Any, r: np.ndarray[Any, Any], dtype: Any) -> Any:
    """Return ``a r^{-1}`` on the device by recursive blocks (products and scalings).

    Splits ``r`` into ``[[r11, r12], [0, r22]]``: ``x1 = a1 r11^{-1}``, then
    ``x2 = (a2 - x1 r12) r22^{-1}``; a single column is a division. No inverse is
    formed, so the residual is that of substitution (backward stable).
    """
    n = r.shape[0]
    if n == 1:
        return a / mx.array(r[0, 0], dtype=dtype)
    h = n // 2
    x1 = _solve_upper(a[:, :h], r[:h, :h], dtype)
    rest = a[:, h:] - mx.matmul(x1, mx.array(r[:h, h:], dtype=dtype))
    x2 = _solve_upper(rest, r[h:, h:], dtype)
    return mx.concatenate([x1, x2], axis=1)


def _times_inverse(a: Any, r: np.ndarray[Any, Any], dtype: Any) -> Any:
    """Return ``a r^{-1}``: a product with the inverse when ``r`` is near orthogonal."""
    if np.linalg.cond(r) <= 4.0:
        inverse = np.linalg.solve(r, np.eye(r.shape[0]))  # (float64: its error is u64)
        return mx.matmul(a, mx.array(inverse, dtype=dtype))
    return _solve_upper(a, r, dtype)


def _factor(g: np.ndarray[Any, Any], unit: float, m: int) -> np.ndarray[Any, Any]:
    """Return the (shifted) upper Cholesky factor of the Gram matrix ``g`` of ``m`` rows.

    The plain factor where it exists and its condition number is within Cholesky
    QR's reach (``0.1 / sqrt(u)``); else that of ``g + s I``, trying ``s`` from
    ``(n + 1) u ||A||_F^2`` upward by factors of ten up to Fukaya's bound
    ``11 (m n + n (n + 1)) u ||A||_F^2``: the least shift that dominates the Gram
    matrix's rounding leaves the best conditioned ``A R^{-1}``.

    Raises
    ------
    NeedsHost
        If even the largest shift breaks down.
    """
    n = g.shape[0]
    r = _cholesky_upper(g)
    if r is not None and np.linalg.cond(r) <= 0.1 / math.sqrt(unit):
        return r
    frobenius2 = float(np.trace(g))
    shift = (n + 1) * unit * frobenius2
    bound = 11.0 * (m * n + n * (n + 1)) * unit * frobenius2
    eye = np.eye(n)
    while shift <= bound:
        r = _cholesky_upper(g + shift * eye)
        if r is not None:
            return r
        shift *= 10.0
    raise NeedsHost


def cholesky_qr(a: Any) -> tuple[Any, np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Return the (shifted) Cholesky QR of the tall-skinny MLX matrix ``a``, unfinished.

    Parameters
    ----------
    a : mlx.core.array
        An ``m x n`` float32 or float64 matrix, ``m >= n``.

    Returns
    -------
    tuple
        ``(P, S, R)``: ``P`` an MLX array of ``a``'s dtype, ``S`` and ``R`` upper
        triangular float64 NumPy arrays with positive diagonals, with
        ``Q = P S^{-1}`` orthonormal and ``A = QR``. ``S`` is within a factor of
        two of orthogonal, so ``Q W = P (S^{-1} W)`` costs one product on the device
        for any ``W`` (``svdvals`` needs ``R`` only, ``svd`` ``Q U_R``):
        :func:`finish` forms it.

    Raises
    ------
    NeedsHost
        If the device path cannot meet the host's accuracy on this matrix: a
        Cholesky breakdown even with the shift, a non-finite value, no convergence,
        or numerical rank deficiency. The caller delegates to the host.
    """
    dtype = a.dtype
    unit = float(np.finfo(_FLOATING[dtype]).eps) / 2
    m, n = a.shape
    g = _gram(a)
    if not np.all(np.isfinite(g)):
        raise NeedsHost
    if float(np.trace(g)) == 0.0:
        raise NeedsHost  # (the zero matrix: rank 0)
    r = _factor(g, unit, m)
    factors = [r]
    q = _times_inverse(a, r, dtype)
    for _ in range(MAX_PASSES - 1):
        g = _gram(q)
        if not np.all(np.isfinite(g)):
            raise NeedsHost
        r = _factor(g, unit, m)
        factors.append(r)
        if np.linalg.norm(g - np.eye(n), 2) <= 0.5:
            # Q is well conditioned: one more pass makes it orthogonal to rounding.
            break
        q = _times_inverse(q, r, dtype)
    else:
        raise NeedsHost
    total = factors[-1]
    for factor in reversed(factors[:-1]):
        total = total @ factor
    s = np.linalg.svd(total, compute_uv=False)
    if not s[-1] > math.sqrt(n) * unit * s[0]:
        raise NeedsHost  # (numerically rank deficient: Q cannot be trusted)
    return q, r, total


def finish(p: Any, s: np.ndarray[Any, Any], w: np.ndarray[Any, Any] | None = None) -> Any:
    """Return ``Q W`` (``Q`` where ``w`` is ``None``) of :func:`cholesky_qr`'s ``(P, S)``."""
    w = np.linalg.solve(s, np.eye(s.shape[0]) if w is None else w)
    return mx.matmul(p, mx.array(w, dtype=p.dtype))


def qr(x: Any, mode: str = "reduced") -> Any:
    """``linalg.qr`` on the device for a tall-skinny matrix (else the host)."""
    if mode != "reduced" or not _eligible(x):
        raise NeedsHost
    p, last, r = cholesky_qr(x)
    return QRResult(finish(p, last), mx.array(np.triu(r), dtype=x.dtype))


def _svd_parts(x: Any) -> tuple[Any, Any, Any]:
    p, last, r = cholesky_qr(x)
    u_r, s, vh = np.linalg.svd(r)
    return finish(p, last, u_r), s, vh


def svd(x: Any, full_matrices: bool = True) -> Any:
    """``linalg.svd`` on the device for a tall-skinny matrix, ``full_matrices=False``."""
    if full_matrices or not _eligible(x):
        raise NeedsHost
    u, s, vh = _svd_parts(x)
    return SVDResult(u, mx.array(s, dtype=x.dtype), mx.array(vh, dtype=x.dtype))


def _singular_values(x: Any) -> np.ndarray[Any, Any]:
    _p, _last, r = cholesky_qr(x)
    s: np.ndarray[Any, Any] = np.linalg.svd(r, compute_uv=False)
    return s


def svdvals(x: Any) -> Any:
    """``linalg.svdvals`` on the device for a tall-skinny matrix (else the host)."""
    if not _eligible(x):
        raise NeedsHost
    return mx.array(_singular_values(x), dtype=x.dtype)


def _rtol(x: Any, rtol: Any) -> Any:
    """Return the standard's default ``rtol``: ``max(m, n)`` times the dtype's epsilon."""
    if rtol is None:
        return max(x.shape) * float(np.finfo(_FLOATING[x.dtype]).eps)
    if isinstance(rtol, (int, float)):
        return float(rtol)
    raise NeedsHost  # (an array of tolerances: the host broadcasts it)


def pinv(x: Any, rtol: Any = None) -> Any:
    """``linalg.pinv`` on the device for a tall-skinny matrix: ``V diag(1/s) U^T``."""
    if not _eligible(x):
        raise NeedsHost
    tolerance = _rtol(x, rtol)
    u, s, vh = _svd_parts(x)
    keep = s > tolerance * s[0]
    scaled = vh.T * np.where(keep, 1.0 / np.where(keep, s, 1.0), 0.0)
    return mx.matmul(mx.array(scaled, dtype=x.dtype), u.T)


def matrix_rank(x: Any, rtol: Any = None) -> Any:
    """``linalg.matrix_rank`` on the device for a tall-skinny matrix (else the host)."""
    if not _eligible(x):
        raise NeedsHost
    tolerance = _rtol(x, rtol)
    s = _singular_values(x)
    return mx.array(int(np.count_nonzero(s > tolerance * s[0])), dtype=mx.int64)


def matrix_norm(x: Any, keepdims: bool = False, ord: Any = "fro") -> Any:
    """``linalg.matrix_norm``: 2, -2 and nuclear norms of a tall-skinny matrix here."""
    if ord not in (2, -2, "nuc") or not _eligible(x):
        raise NeedsHost
    s = _singular_values(x)
    value = s[0] if ord == 2 else s[-1] if ord == -2 else np.sum(s)
    out = mx.array(value, dtype=x.dtype)
    return mx.reshape(out, (1, 1)) if keepdims else out


#: The linalg functions with a device path here (the MLX backend's linalg table).
LINALG: Final[dict[str, Callable[..., Any]]] = {
    "matrix_norm": matrix_norm,
    "matrix_rank": matrix_rank,
    "pinv": pinv,
    "qr": qr,
    "svd": svd,
    "svdvals": svdvals,
}
