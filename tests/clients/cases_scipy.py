"""SciPy with ``SCIPY_ARRAY_API=1``: ``special``, ``stats``, ``signal``, ``ndimage``,
``fft``, ``cluster``, ``integrate`` and ``differentiate`` functions on float32 arrays.
"""

from __future__ import annotations

from typing import Any

from _case_support import CaseFn, case_decorator, wide

CLIENT = "scipy"
CASES: dict[str, CaseFn] = {}
case = case_decorator(CASES)


# --- special: elementwise on data in each function's domain --------------------------------

_SPECIAL_UNARY = {
    "erf": (-2.0, 2.0),
    "erfc": (-2.0, 2.0),
    "erfinv": (-0.9, 0.9),
    "gammaln": (0.5, 5.0),
    "digamma": (0.5, 5.0),
    "expit": (-4.0, 4.0),
    "logit": (0.05, 0.95),
    "ndtr": (-3.0, 3.0),
    "ndtri": (0.05, 0.95),
    "log_ndtr": (-3.0, 3.0),
    "i0": (0.0, 3.0),
    "i0e": (0.0, 3.0),
    "i1": (0.0, 3.0),
    "entr": (0.01, 2.0),
}

for _name, (_low, _high) in _SPECIAL_UNARY.items():

    def _run(xp: Any, ctx: Any, name: str = _name, low: float = _low, high: float = _high) -> Any:
        import scipy.special

        return getattr(scipy.special, name)(ctx.uniform(12, low=low, high=high))

    CASES[f"special.{_name}"] = _run


@case
def special_xlogy(xp: Any, ctx: Any) -> Any:
    from scipy.special import xlogy

    return xlogy(ctx.uniform(10), ctx.uniform(10, low=0.1, high=2.0))


@case
def special_rel_entr(xp: Any, ctx: Any) -> Any:
    from scipy.special import rel_entr

    return rel_entr(ctx.uniform(10, low=0.1), ctx.uniform(10, low=0.1))


@case
def special_gammainc(xp: Any, ctx: Any) -> Any:
    from scipy.special import gammainc

    return gammainc(ctx.uniform(8, low=0.5, high=3), ctx.uniform(8, low=0.1, high=3))


@case
def special_betainc(xp: Any, ctx: Any) -> Any:
    from scipy.special import betainc

    return betainc(ctx.uniform(6, low=1, high=3), ctx.uniform(6, low=1, high=3), ctx.uniform(6))


@case
def special_logsumexp(xp: Any, ctx: Any) -> Any:
    from scipy.special import logsumexp

    return logsumexp(ctx.randn(5, 6), axis=1)


@case
def special_logsumexp_b(xp: Any, ctx: Any) -> Any:
    from scipy.special import logsumexp

    return logsumexp(ctx.randn(8), b=ctx.uniform(8, low=0.1))


@case
def special_softmax(xp: Any, ctx: Any) -> Any:
    from scipy.special import softmax

    return softmax(ctx.randn(4, 5), axis=-1)


@case
def special_log_softmax(xp: Any, ctx: Any) -> Any:
    from scipy.special import log_softmax

    return log_softmax(ctx.randn(4, 5), axis=0)


# --- stats ---------------------------------------------------------------------------------


@case
def stats_entropy(xp: Any, ctx: Any) -> Any:
    from scipy.stats import entropy

    return entropy(ctx.uniform(10, low=0.1))


@case
def stats_entropy_qk(xp: Any, ctx: Any) -> Any:
    from scipy.stats import entropy

    return entropy(ctx.uniform(10, low=0.1), ctx.uniform(10, low=0.1), base=2)


def _test_result(res: Any) -> Any:
    return res.statistic, res.pvalue


@case
def stats_ttest_ind(xp: Any, ctx: Any) -> Any:
    from scipy.stats import ttest_ind

    return _test_result(ttest_ind(ctx.randn(20), ctx.randn(25) + 0.5))


@case
def stats_ttest_1samp(xp: Any, ctx: Any) -> Any:
    from scipy.stats import ttest_1samp

    return _test_result(ttest_1samp(ctx.randn(20) + 0.3, 0.0))


@case
def stats_ttest_rel(xp: Any, ctx: Any) -> Any:
    from scipy.stats import ttest_rel

    return _test_result(ttest_rel(ctx.randn(20), ctx.randn(20)))


@case
def stats_pearsonr(xp: Any, ctx: Any) -> Any:
    from scipy.stats import pearsonr

    x = ctx.randn(30)
    return _test_result(pearsonr(x, x + ctx.randn(30)))


@case
def stats_zscore(xp: Any, ctx: Any) -> Any:
    from scipy.stats import zscore

    return zscore(ctx.randn(5, 8), axis=1)


@case
def stats_skew(xp: Any, ctx: Any) -> Any:
    from scipy.stats import skew

    return skew(ctx.uniform(40))


@case
def stats_kurtosis(xp: Any, ctx: Any) -> Any:
    from scipy.stats import kurtosis

    return kurtosis(ctx.uniform(40))


@case
def stats_moment(xp: Any, ctx: Any) -> Any:
    from scipy.stats import moment

    return moment(ctx.randn(30), order=3)


@case
def stats_gmean(xp: Any, ctx: Any) -> Any:
    from scipy.stats import gmean

    return gmean(ctx.uniform(4, 6, low=0.5, high=2.0), axis=1)


@case
def stats_hmean(xp: Any, ctx: Any) -> Any:
    from scipy.stats import hmean

    return hmean(ctx.uniform(20, low=0.5, high=2.0))


@case
def stats_variation(xp: Any, ctx: Any) -> Any:
    from scipy.stats import variation

    return variation(ctx.uniform(20, low=0.5, high=2.0))


@case
def stats_sem(xp: Any, ctx: Any) -> Any:
    from scipy.stats import sem

    return sem(ctx.randn(20))


@case
def stats_describe(xp: Any, ctx: Any) -> Any:
    from scipy.stats import describe

    d = describe(ctx.randn(30))
    return d.mean, d.variance, d.skewness, d.kurtosis


@case
def stats_skewtest(xp: Any, ctx: Any) -> Any:
    from scipy.stats import skewtest

    return _test_result(skewtest(ctx.randn(40)))


@case
def stats_normaltest(xp: Any, ctx: Any) -> Any:
    from scipy.stats import normaltest

    return _test_result(normaltest(ctx.randn(40)))


@case
def stats_jarque_bera(xp: Any, ctx: Any) -> Any:
    from scipy.stats import jarque_bera

    return _test_result(jarque_bera(ctx.randn(40)))


@case
def stats_chisquare(xp: Any, ctx: Any) -> Any:
    from scipy.stats import chisquare

    return _test_result(chisquare(ctx.asarray([16, 18, 16, 14, 12, 12], ctx.float_dtype)))


@case
def stats_power_divergence(xp: Any, ctx: Any) -> Any:
    from scipy.stats import power_divergence

    f = ctx.asarray([16, 18, 16, 14, 12, 12], ctx.float_dtype)
    return _test_result(power_divergence(f, lambda_="log-likelihood"))


@case
def stats_bartlett(xp: Any, ctx: Any) -> Any:
    from scipy.stats import bartlett

    return _test_result(bartlett(ctx.randn(20), ctx.randn(20) * 2))


@case
def stats_tmean(xp: Any, ctx: Any) -> Any:
    from scipy.stats import tmean

    return tmean(ctx.randn(30), limits=(-1.0, 1.0))


@case
def stats_circmean(xp: Any, ctx: Any) -> Any:
    from scipy.stats import circmean

    return circmean(ctx.uniform(20, low=0.0, high=3.0))


@case
def stats_quantile(xp: Any, ctx: Any) -> Any:
    from scipy.stats import quantile

    return quantile(ctx.randn(30), ctx.asarray([0.25, 0.5, 0.75], ctx.float_dtype))


@case
def stats_combine_pvalues(xp: Any, ctx: Any) -> Any:
    from scipy.stats import combine_pvalues

    return _test_result(combine_pvalues(ctx.uniform(6, low=0.01, high=0.5)))


# --- signal ---------------------------------------------------------------------------------


@case
def signal_convolve(xp: Any, ctx: Any) -> Any:
    from scipy.signal import convolve

    return convolve(ctx.randn(20), ctx.randn(5), mode="same")


@case
def signal_correlate(xp: Any, ctx: Any) -> Any:
    from scipy.signal import correlate

    return correlate(ctx.randn(20), ctx.randn(5))


@case
def signal_convolve2d(xp: Any, ctx: Any) -> Any:
    from scipy.signal import convolve2d

    return convolve2d(ctx.randn(8, 8), ctx.randn(3, 3), mode="valid")


@case
def signal_fftconvolve(xp: Any, ctx: Any) -> Any:
    from scipy.signal import fftconvolve

    return fftconvolve(ctx.randn(32), ctx.randn(8))


@case
def signal_oaconvolve(xp: Any, ctx: Any) -> Any:
    from scipy.signal import oaconvolve

    return oaconvolve(ctx.randn(64), ctx.randn(6))


@case
def signal_sosfilt(xp: Any, ctx: Any) -> Any:
    from scipy.signal import butter, sosfilt

    sos = ctx.asarray(butter(4, 0.2, output="sos"), ctx.float_dtype)
    return sosfilt(sos, ctx.randn(50))


@case
def signal_lfilter(xp: Any, ctx: Any) -> Any:
    from scipy.signal import lfilter

    return lfilter(
        ctx.asarray([0.2, 0.3], ctx.float_dtype),
        ctx.asarray([1.0, -0.5], ctx.float_dtype),
        ctx.randn(30),
    )


@case
def signal_detrend(xp: Any, ctx: Any) -> Any:
    from scipy.signal import detrend

    return detrend(ctx.randn(30) + ctx.asarray(range(30), ctx.float_dtype))


@case
def signal_get_window(xp: Any, ctx: Any) -> Any:
    from scipy.signal import get_window

    return (
        get_window("hann", 16, xp=xp, device=ctx.device)
        if not ctx.is_reference
        else get_window("hann", 16)
    )


@case
def signal_welch(xp: Any, ctx: Any) -> Any:
    from scipy.signal import welch

    return welch(ctx.randn(256), nperseg=64)


@case
def signal_hilbert(xp: Any, ctx: Any) -> Any:
    from scipy.signal import hilbert

    return hilbert(ctx.randn(32))


@case
def signal_medfilt(xp: Any, ctx: Any) -> Any:
    from scipy.signal import medfilt

    return medfilt(ctx.randn(25), kernel_size=5)


# --- ndimage ---------------------------------------------------------------------------------


@case
def ndimage_gaussian_filter(xp: Any, ctx: Any) -> Any:
    from scipy.ndimage import gaussian_filter

    return gaussian_filter(ctx.randn(10, 10), sigma=1.5)


@case
def ndimage_uniform_filter(xp: Any, ctx: Any) -> Any:
    from scipy.ndimage import uniform_filter

    return uniform_filter(ctx.randn(10, 10), size=3)


@case
def ndimage_median_filter(xp: Any, ctx: Any) -> Any:
    from scipy.ndimage import median_filter

    return median_filter(ctx.randn(10, 10), size=3)


@case
def ndimage_maximum_filter(xp: Any, ctx: Any) -> Any:
    from scipy.ndimage import maximum_filter

    return maximum_filter(ctx.randn(10, 10), size=3)


@case
def ndimage_sobel(xp: Any, ctx: Any) -> Any:
    from scipy.ndimage import sobel

    return sobel(ctx.randn(10, 10), axis=0)


@case
def ndimage_convolve(xp: Any, ctx: Any) -> Any:
    from scipy.ndimage import convolve

    return convolve(ctx.randn(8, 8), ctx.randn(3, 3))


@case
def ndimage_zoom(xp: Any, ctx: Any) -> Any:
    from scipy.ndimage import zoom

    return zoom(ctx.randn(6, 6), 2, order=1)


@case
def ndimage_shift(xp: Any, ctx: Any) -> Any:
    from scipy.ndimage import shift

    return shift(ctx.randn(8, 8), (1.5, -0.5), order=1)


@case
def ndimage_label(xp: Any, ctx: Any) -> Any:
    from scipy.ndimage import label

    labels, n = label(ctx.asarray([[1, 1, 0, 0], [0, 0, 0, 1], [1, 0, 1, 1]], ctx.int_dtype))
    return labels, n


@case
def ndimage_center_of_mass(xp: Any, ctx: Any) -> Any:
    from scipy.ndimage import center_of_mass

    return center_of_mass(ctx.uniform(6, 6))


@case
def ndimage_distance_transform_edt(xp: Any, ctx: Any) -> Any:
    from scipy.ndimage import distance_transform_edt

    return distance_transform_edt(
        ctx.asarray([[0, 1, 1, 1], [0, 1, 1, 1], [0, 0, 1, 1]], ctx.int_dtype)
    )


# --- fft -------------------------------------------------------------------------------------


@case
def fft_fft(xp: Any, ctx: Any) -> Any:
    import scipy.fft

    return scipy.fft.fft(ctx.randn(16))


@case
def fft_ifft_fft_roundtrip(xp: Any, ctx: Any) -> Any:
    import scipy.fft

    return xp.real(scipy.fft.ifft(scipy.fft.fft(ctx.randn(16))))


@case
def fft_rfft(xp: Any, ctx: Any) -> Any:
    import scipy.fft

    return scipy.fft.rfft(ctx.randn(16))


@case
def fft_irfft(xp: Any, ctx: Any) -> Any:
    import scipy.fft

    return scipy.fft.irfft(scipy.fft.rfft(ctx.randn(16)), n=16)


@case
def fft_fft2(xp: Any, ctx: Any) -> Any:
    import scipy.fft

    return scipy.fft.fft2(ctx.randn(8, 8))


@case
def fft_rfftn(xp: Any, ctx: Any) -> Any:
    import scipy.fft

    return scipy.fft.rfftn(ctx.randn(4, 6, 8))


@case
def fft_dct(xp: Any, ctx: Any) -> Any:
    import scipy.fft

    return scipy.fft.dct(ctx.randn(16), type=2)


@case
def fft_fftshift(xp: Any, ctx: Any) -> Any:
    import scipy.fft

    return scipy.fft.fftshift(ctx.randn(10))


@case
def fft_fftfreq(xp: Any, ctx: Any) -> Any:
    import scipy.fft

    if ctx.is_reference:
        return scipy.fft.fftfreq(10, d=0.5)
    return scipy.fft.fftfreq(10, d=0.5, xp=xp, device=ctx.device)


# --- cluster, integrate, differentiate, linalg --------------------------------------------------


@case
def cluster_vq_whiten(xp: Any, ctx: Any) -> Any:
    from scipy.cluster.vq import whiten

    return whiten(ctx.randn(20, 3))


@case
def cluster_vq_vq(xp: Any, ctx: Any) -> Any:
    from scipy.cluster.vq import vq

    codes, dist = vq(ctx.randn(20, 2), ctx.randn(3, 2))
    return codes, dist


@case
def integrate_trapezoid(xp: Any, ctx: Any) -> Any:
    from scipy.integrate import trapezoid

    return trapezoid(ctx.randn(4, 20), dx=0.1, axis=-1)


@case
def integrate_simpson(xp: Any, ctx: Any) -> Any:
    from scipy.integrate import simpson

    return simpson(ctx.randn(21), dx=0.1)


@case
def differentiate_derivative(xp: Any, ctx: Any) -> Any:
    from scipy.differentiate import derivative

    return derivative(xp.sin, ctx.uniform(5, low=0.0, high=3.0)).df


@case
def linalg_expm(xp: Any, ctx: Any) -> Any:
    from scipy.linalg import expm

    return expm(ctx.randn(4, 4) * 0.3)


@case
def linalg_solve(xp: Any, ctx: Any) -> Any:
    from scipy.linalg import solve

    A = ctx.randn(4, 4) + ctx.asarray(4 * __import__("numpy").eye(4), ctx.float_dtype)
    return solve(A, ctx.randn(4))


for _name in (
    "special.erf",
    "special.gammaln",
    "special_logsumexp",
    "stats_entropy",
    "stats_ttest_ind",
    "stats_pearsonr",
    "stats_zscore",
    "signal_convolve",
    "signal_sosfilt",
    "ndimage_gaussian_filter",
    "fft_rfft",
    "integrate_trapezoid",
):
    CASES[f"{_name}[float64]"] = wide(CASES[_name])
