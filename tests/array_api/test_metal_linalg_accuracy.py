"""Metal's tall-skinny factorizations are as accurate as float32 LAPACK, or fall back.

``qr``, ``svd``, ``svdvals``, ``pinv`` and ``matrix_rank`` of a tall-skinny float32
matrix run on the device by (shifted) Cholesky QR (:mod:`stridewave.array_api._mlx_linalg`).
On float32 matrices with condition numbers from 1 to 1e6, rank-deficient ones and
ones with a zero or constant column, the device's reconstruction residual, the
orthogonality of Q, U and V and the singular values (against a float64 reference,
relative to the largest) stay within ten times float32 LAPACK's on the same matrix.

The reference is ``scipy.linalg`` in float32 (``sgeqrf``, ``sgesdd``): NumPy's
``linalg`` computes a float32 matrix in float64 and rounds the result, which is not
float32 LAPACK's accuracy. A matrix the device path cannot meet the bar on (past its
condition number, rank-deficient, non-finite) is factored on the host instead.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import scipy.linalg
from hypothesis import given, settings
from hypothesis import strategies as st

import stridewave.array_api as xp
from tests.metal_scripts import requires_mlx

pytestmark = requires_mlx

METAL = xp.Device("Metal")
#: float32's unit roundoff: the floor of the bar where LAPACK's error is below it.
UNIT = float(np.finfo(np.float32).eps) / 2
KINDS = ("conditioned", "rank_deficient", "zero_column", "constant_column")

F64 = np.ndarray[Any, Any]


def _matrix(seed: int, m: int, n: int, log_cond: float, kind: str) -> np.ndarray[Any, Any]:
    """Return an ``m x n`` float32 matrix of condition number ``10**log_cond`` (or ``kind``)."""
    rng = np.random.default_rng(seed)
    u = np.linalg.qr(rng.standard_normal((m, n)))[0]
    v = np.linalg.qr(rng.standard_normal((n, n)))[0]
    s = np.logspace(0.0, -log_cond, n)
    if kind == "rank_deficient":
        s[max(1, n // 2) :] = 0.0
    a = (u * s) @ v.T * 10.0 ** rng.uniform(-3, 3)
    column = int(rng.integers(n))
    if kind == "zero_column":
        a[:, column] = 0.0
    elif kind == "constant_column":
        a[:, column] = rng.uniform(-2, 2)
    single: np.ndarray[Any, Any] = a.astype(np.float32)
    return single


def _host(a: Any) -> F64:
    host: F64 = np.asarray(a).astype(np.float64)
    return host


def _residual(a: F64, product: F64) -> float:
    return float(np.linalg.norm(a - product) / max(np.linalg.norm(a), np.finfo(float).tiny))


def _orthogonality(q: F64) -> float:
    return float(np.linalg.norm(q.T @ q - np.eye(q.shape[1])))


def _singular_error(s: F64, reference: F64) -> float:
    return float(np.max(np.abs(s - reference)) / max(reference[0], np.finfo(float).tiny))


def _within_bar(device: float, lapack: float) -> bool:
    return device <= 10.0 * max(lapack, UNIT)


matrices = st.builds(
    lambda seed, n, extra, log_cond, kind: (
        seed,
        max(4 * n, -(-4096 // n)) + extra,
        n,
        log_cond,
        kind,
    ),
    st.integers(0, 2**32 - 1),
    st.integers(2, 40),
    st.integers(0, 300),
    st.floats(0.0, 6.0),
    st.sampled_from(KINDS),
)


@settings(max_examples=40)
@given(matrices)
def test_tall_qr_on_metal_is_within_ten_times_float32_lapack(case: tuple[Any, ...]) -> None:
    a = _matrix(*case)
    a64 = a.astype(np.float64)
    q, r = xp.linalg.qr(xp.asarray(a, device=METAL))
    q64, r64 = _host(q), _host(r)
    q_ref, r_ref = scipy.linalg.qr(a, mode="economic")
    assert q.dtype == xp.float32 and q.shape == a.shape and r.shape == (a.shape[1],) * 2
    assert np.all(np.tril(r64, -1) == 0)
    residual, lapack_residual = _residual(a64, q64 @ r64), _residual(a64, _host(q_ref) @ r_ref)
    assert _within_bar(residual, lapack_residual), (residual, lapack_residual)
    orthogonality, lapack_orthogonality = _orthogonality(q64), _orthogonality(_host(q_ref))
    assert _within_bar(orthogonality, lapack_orthogonality), (orthogonality, lapack_orthogonality)


@settings(max_examples=40)
@given(matrices)
def test_tall_svd_on_metal_is_within_ten_times_float32_lapack(case: tuple[Any, ...]) -> None:
    a = _matrix(*case)
    a64 = a.astype(np.float64)
    reference = np.linalg.svd(a64, compute_uv=False)
    u, s, vh = (_host(t) for t in xp.linalg.svd(xp.asarray(a, device=METAL), full_matrices=False))
    u_ref, s_ref, vh_ref = (_host(t) for t in scipy.linalg.svd(a, full_matrices=False))
    values = _host(xp.linalg.svdvals(xp.asarray(a, device=METAL)))
    n = a.shape[1]
    assert u.shape == a.shape and s.shape == (n,) and vh.shape == (n, n)
    for mine, lapack in [
        (_residual(a64, (u * s) @ vh), _residual(a64, (u_ref * s_ref) @ vh_ref)),
        (_orthogonality(vh.T), _orthogonality(vh_ref.T)),
        (_singular_error(s, reference), _singular_error(s_ref, reference)),
        (_singular_error(values, reference), _singular_error(s_ref, reference)),
    ]:
        assert _within_bar(mine, lapack), (mine, lapack)
    # U's columns of zero singular values are arbitrary: orthogonality over the rest
    kept = s_ref > n * UNIT * s_ref[0]
    mine, lapack = _orthogonality(u[:, kept]), _orthogonality(u_ref[:, kept])
    assert _within_bar(mine, lapack), (mine, lapack)


@settings(max_examples=20)
@given(matrices)
def test_tall_pinv_and_matrix_rank_on_metal_match_the_host(case: tuple[Any, ...]) -> None:
    a = _matrix(*case)
    x = xp.asarray(a, device=METAL)
    rank = int(xp.linalg.matrix_rank(x))
    s64 = np.linalg.svd(a.astype(np.float64), compute_uv=False)
    tolerance = max(a.shape) * np.finfo(np.float32).eps * s64[0]
    # (a singular value within rounding of the tolerance may fall either side of it)
    assert np.count_nonzero(s64 > 2 * tolerance) <= rank <= np.count_nonzero(s64 > tolerance / 2)
    pinv = _host(xp.linalg.pinv(x))
    assert pinv.shape == a.shape[::-1]
    if rank == a.shape[1] and s64[0] / s64[-1] < 1e3:
        # full rank and well conditioned: pinv is the least-squares solution operator
        expected = np.linalg.pinv(a.astype(np.float64))
        assert np.linalg.norm(pinv - expected) <= 1e-4 * np.linalg.norm(expected)


@pytest.mark.parametrize("log_cond", [0.0, 2.0, 4.0])
def test_well_conditioned_tall_matrices_factor_on_the_device(
    log_cond: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    from stridewave.array_api import _mlx_linalg

    taken = []
    original = _mlx_linalg.cholesky_qr

    def spy(a: Any) -> Any:
        out = original(a)
        taken.append(a.shape)
        return out

    monkeypatch.setattr(_mlx_linalg, "cholesky_qr", spy)
    a = _matrix(7, 2000, 16, log_cond, "conditioned")
    x = xp.asarray(a, device=METAL)
    xp.linalg.qr(x)
    xp.linalg.svd(x, full_matrices=False)
    xp.linalg.svdvals(x)
    assert taken == [a.shape] * 3


@pytest.mark.parametrize(
    "kind", ["condition 1e9", "rank deficient", "zero column", "zero matrix", "nan"]
)
def test_a_matrix_past_the_device_path_is_factored_on_the_host(kind: str) -> None:
    import mlx.core as mx

    from stridewave.array_api import _mlx_linalg, _mlx_shims

    a = _matrix(3, 3000, 12, 9.0 if kind == "condition 1e9" else 2.0, "conditioned")
    if kind == "rank deficient":
        a = _matrix(3, 3000, 12, 2.0, "rank_deficient")
    elif kind == "zero column":
        a[:, 5] = 0.0
    elif kind == "zero matrix":
        a[:] = 0.0
    elif kind == "nan":
        a[17, 3] = np.nan
    with mx.stream(mx.cpu), pytest.raises(_mlx_shims.NeedsHost):
        _mlx_linalg.cholesky_qr(mx.array(a))
    if kind == "nan":
        return
    # The call itself answers from the host, as accurately as float32 LAPACK.
    a64 = a.astype(np.float64)
    q, r = (_host(t) for t in xp.linalg.qr(xp.asarray(a, device=METAL)))
    q_ref, r_ref = scipy.linalg.qr(a, mode="economic")
    assert _within_bar(_residual(a64, q @ r), _residual(a64, _host(q_ref) @ r_ref))
    assert _within_bar(_orthogonality(q), _orthogonality(_host(q_ref)))
    s = _host(xp.linalg.svdvals(xp.asarray(a, device=METAL)))
    assert np.all(np.isfinite(s))
    reference = np.linalg.svd(a64, compute_uv=False)
    assert _within_bar(
        _singular_error(s, reference), _singular_error(scipy.linalg.svdvals(a), reference)
    )


@pytest.mark.parametrize("shape", [(64, 64), (100, 40), (40, 100), (20, 5)])
def test_square_wide_and_small_matrices_stay_on_the_host(shape: tuple[int, int]) -> None:
    import mlx.core as mx

    from stridewave.array_api import _mlx_linalg

    a = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    assert not _mlx_linalg._eligible(mx.array(a))
    q, r = (_host(t) for t in xp.linalg.qr(xp.asarray(a, device=METAL)))
    _, expected_r = np.linalg.qr(a)
    np.testing.assert_allclose(q @ r, a, atol=1e-5)
    np.testing.assert_allclose(np.abs(r), np.abs(expected_r), atol=1e-5)


def test_float64_tall_matrices_factor_to_float64_accuracy() -> None:
    dtypes = xp.__array_namespace_info__().dtypes(device=METAL)
    if "float64" not in dtypes:
        pytest.skip("this Metal device stores no float64")
    rng = np.random.default_rng(5)
    a = rng.standard_normal((3000, 20)) @ np.diag(np.logspace(0, -8, 20))
    q, r = (np.asarray(t) for t in xp.linalg.qr(xp.asarray(a, device=METAL)))
    assert q.dtype == np.float64
    assert _residual(a, q @ r) < 1e-14
    assert _orthogonality(q) < 1e-13
    s = np.asarray(xp.linalg.svdvals(xp.asarray(a, device=METAL)))
    assert _singular_error(s, np.linalg.svd(a, compute_uv=False)) < 1e-14
