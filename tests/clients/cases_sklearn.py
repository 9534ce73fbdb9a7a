"""scikit-learn with ``array_api_dispatch=True``: the estimators, metrics and tools it lists
as array-API-supported, called as a user calls them (float32 features, int32 labels).
"""

from __future__ import annotations

from typing import Any

from _case_support import CaseFn, case_decorator, wide

CLIENT = "sklearn"
CASES: dict[str, CaseFn] = {}
case = case_decorator(CASES)


# --- classification metrics --------------------------------------------------------------


def _binary(ctx: Any) -> tuple[Any, Any]:
    return ctx.integers(2, 40), ctx.integers(2, 40)


def _multiclass(ctx: Any) -> tuple[Any, Any]:
    return ctx.integers(3, 40), ctx.integers(3, 40)


def _label_metric(name: str, labels: str, **kwargs: Any) -> None:
    def run(xp: Any, ctx: Any) -> Any:
        import sklearn.metrics

        y_true, y_pred = _binary(ctx) if labels == "binary" else _multiclass(ctx)
        return getattr(sklearn.metrics, name)(y_true, y_pred, **kwargs)

    suffix = "".join(f"_{k}={v}" for k, v in kwargs.items())
    CASES[f"{name}[{labels}{suffix}]"] = run


for _labels in ("binary", "multiclass"):
    _label_metric("accuracy_score", _labels)
    _label_metric("balanced_accuracy_score", _labels)
    _label_metric("cohen_kappa_score", _labels)
    _label_metric("confusion_matrix", _labels)
    _label_metric("zero_one_loss", _labels)
    _label_metric("hamming_loss", _labels)
    _label_metric("multilabel_confusion_matrix", _labels)
_label_metric("f1_score", "binary")
_label_metric("f1_score", "multiclass", average="macro")
_label_metric("fbeta_score", "multiclass", beta=0.5, average="weighted")
_label_metric("precision_score", "binary")
_label_metric("precision_score", "multiclass", average="micro")
_label_metric("recall_score", "multiclass", average="macro")
_label_metric("jaccard_score", "multiclass", average="macro")
_label_metric("accuracy_score", "multiclass", normalize=False)


def _score_metric(name: str) -> None:
    def run(xp: Any, ctx: Any) -> Any:
        import sklearn.metrics

        y_true = ctx.asarray([0, 1] * 15, ctx.int_dtype)
        y_score = ctx.uniform(30)
        return getattr(sklearn.metrics, name)(y_true, y_score)

    CASES[f"{name}[binary]"] = run


for _name in (
    "average_precision_score",
    "roc_curve",
    "precision_recall_curve",
    "det_curve",
    "brier_score_loss",
    "log_loss",
    "d2_brier_score",
    "d2_log_loss_score",
):
    _score_metric(_name)


@case
def log_loss_multiclass(xp: Any, ctx: Any) -> Any:
    from sklearn.metrics import log_loss

    y = ctx.asarray([0, 1, 2, 1, 0, 2, 2, 1], ctx.int_dtype)
    p = ctx.asarray([[0.7, 0.2, 0.1]] * 4 + [[0.2, 0.3, 0.5]] * 4, ctx.float_dtype)
    return log_loss(y, p)


# --- regression metrics -----------------------------------------------------------------

for _name in (
    "r2_score",
    "explained_variance_score",
    "mean_absolute_error",
    "mean_squared_error",
    "root_mean_squared_error",
    "mean_squared_log_error",
    "root_mean_squared_log_error",
    "median_absolute_error",
    "max_error",
    "mean_absolute_percentage_error",
    "mean_pinball_loss",
    "mean_poisson_deviance",
    "mean_gamma_deviance",
    "mean_tweedie_deviance",
    "d2_absolute_error_score",
    "d2_pinball_score",
    "d2_tweedie_score",
):

    def _run(xp: Any, ctx: Any, name: str = _name) -> Any:
        import sklearn.metrics

        y_true = ctx.uniform(30, low=0.5, high=3.0)
        y_pred = ctx.uniform(30, low=0.5, high=3.0)
        return getattr(sklearn.metrics, name)(y_true, y_pred)

    CASES[_name] = _run


@case
def r2_score_multioutput_raw(xp: Any, ctx: Any) -> Any:
    from sklearn.metrics import r2_score

    return r2_score(ctx.randn(20, 3), ctx.randn(20, 3), multioutput="raw_values")


@case
def mean_squared_error_sample_weight(xp: Any, ctx: Any) -> Any:
    from sklearn.metrics import mean_squared_error

    return mean_squared_error(ctx.randn(20), ctx.randn(20), sample_weight=ctx.uniform(20))


# --- pairwise -----------------------------------------------------------------------------

for _name in (
    "cosine_similarity",
    "cosine_distances",
    "euclidean_distances",
    "manhattan_distances",
    "linear_kernel",
    "laplacian_kernel",
    "polynomial_kernel",
    "rbf_kernel",
    "sigmoid_kernel",
    "additive_chi2_kernel",
    "chi2_kernel",
    "paired_cosine_distances",
    "paired_euclidean_distances",
    "paired_manhattan_distances",
):

    def _run(xp: Any, ctx: Any, name: str = _name) -> Any:
        import sklearn.metrics.pairwise as pw

        return getattr(pw, name)(ctx.uniform(8, 5), ctx.uniform(8, 5))

    CASES[_name] = _run


for _metric in ("euclidean", "cosine", "manhattan"):

    def _distances(xp: Any, ctx: Any, metric: str = _metric) -> Any:
        from sklearn.metrics import pairwise_distances

        return pairwise_distances(ctx.randn(10, 4), ctx.randn(6, 4), metric=metric)

    CASES[f"pairwise_distances[{_metric}]"] = _distances


@case
def pairwise_kernels_rbf(xp: Any, ctx: Any) -> Any:
    from sklearn.metrics.pairwise import pairwise_kernels

    return pairwise_kernels(ctx.randn(10, 4), metric="rbf", gamma=0.3)


@case
def pairwise_distances_argmin(xp: Any, ctx: Any) -> Any:
    from sklearn.metrics import pairwise_distances_argmin

    return pairwise_distances_argmin(ctx.randn(12, 3), ctx.randn(5, 3))


@case
def euclidean_distances_squared_self(xp: Any, ctx: Any) -> Any:
    from sklearn.metrics.pairwise import euclidean_distances

    return euclidean_distances(ctx.randn(9, 3), squared=True)


# --- estimators ------------------------------------------------------------------------------


@case
def StandardScaler(xp: Any, ctx: Any) -> Any:
    from sklearn.preprocessing import StandardScaler

    s = StandardScaler().fit(ctx.randn(30, 4) * 3 + 1)
    return s.transform(ctx.randn(5, 4)), s.mean_, s.scale_, s.var_


@case
def StandardScaler_inverse_transform(xp: Any, ctx: Any) -> Any:
    from sklearn.preprocessing import StandardScaler

    X = ctx.randn(30, 4)
    s = StandardScaler().fit(X)
    return s.inverse_transform(s.transform(X))


@case
def StandardScaler_sample_weight(xp: Any, ctx: Any) -> Any:
    from sklearn.preprocessing import StandardScaler

    return StandardScaler().fit_transform(ctx.randn(30, 3), sample_weight=ctx.uniform(30))


@case
def StandardScaler_partial_fit(xp: Any, ctx: Any) -> Any:
    from sklearn.preprocessing import StandardScaler

    s = StandardScaler()
    s.partial_fit(ctx.randn(10, 3))
    s.partial_fit(ctx.randn(12, 3))
    return s.mean_, s.var_


@case
def MinMaxScaler(xp: Any, ctx: Any) -> Any:
    from sklearn.preprocessing import MinMaxScaler

    s = MinMaxScaler(feature_range=(-1, 1)).fit(ctx.randn(20, 3))
    return s.transform(ctx.randn(4, 3)), s.data_min_, s.data_max_


@case
def MaxAbsScaler(xp: Any, ctx: Any) -> Any:
    from sklearn.preprocessing import MaxAbsScaler

    return MaxAbsScaler().fit_transform(ctx.randn(20, 3))


@case
def Normalizer(xp: Any, ctx: Any) -> Any:
    from sklearn.preprocessing import Normalizer

    return Normalizer().fit_transform(ctx.randn(10, 4))


@case
def normalize_l1(xp: Any, ctx: Any) -> Any:
    from sklearn.preprocessing import normalize

    return normalize(ctx.randn(10, 4), norm="l1")


@case
def Binarizer(xp: Any, ctx: Any) -> Any:
    from sklearn.preprocessing import Binarizer

    return Binarizer(threshold=0.1).fit_transform(ctx.randn(10, 4))


@case
def KernelCenterer(xp: Any, ctx: Any) -> Any:
    from sklearn.metrics.pairwise import linear_kernel
    from sklearn.preprocessing import KernelCenterer

    X = ctx.randn(10, 3)
    return KernelCenterer().fit_transform(linear_kernel(X))


@case
def PolynomialFeatures(xp: Any, ctx: Any) -> Any:
    from sklearn.preprocessing import PolynomialFeatures

    return PolynomialFeatures(degree=2).fit_transform(ctx.randn(6, 3))


@case
def LabelEncoder(xp: Any, ctx: Any) -> Any:
    from sklearn.preprocessing import LabelEncoder

    enc = LabelEncoder().fit(ctx.asarray([3, 1, 3, 7, 1], ctx.int_dtype))
    return enc.classes_, enc.transform(ctx.asarray([7, 3, 1], ctx.int_dtype))


@case
def LabelEncoder_inverse_transform(xp: Any, ctx: Any) -> Any:
    from sklearn.preprocessing import LabelEncoder

    enc = LabelEncoder().fit(ctx.asarray([3, 1, 3, 7, 1], ctx.int_dtype))
    return enc.inverse_transform(ctx.asarray([0, 2, 1], ctx.int_dtype))


@case
def LabelBinarizer(xp: Any, ctx: Any) -> Any:
    from sklearn.preprocessing import LabelBinarizer

    return LabelBinarizer().fit_transform(ctx.asarray([0, 2, 1, 2, 0], ctx.int_dtype))


@case
def label_binarize(xp: Any, ctx: Any) -> Any:
    from sklearn.preprocessing import label_binarize

    return label_binarize(ctx.asarray([1, 6, 4, 1], ctx.int_dtype), classes=[1, 2, 4, 6])


@case
def PCA_full(xp: Any, ctx: Any) -> Any:
    from sklearn.decomposition import PCA

    pca = PCA(n_components=2, svd_solver="full").fit(
        ctx.randn(40, 5) * ctx.asarray([5, 3, 1, 0.5, 0.1], ctx.float_dtype)
    )
    return pca.transform(ctx.randn(3, 5)), pca.explained_variance_ratio_


@case
def PCA_covariance_eigh(xp: Any, ctx: Any) -> Any:
    from sklearn.decomposition import PCA

    X = ctx.randn(40, 5) * ctx.asarray([5, 3, 1, 0.5, 0.1], ctx.float_dtype)
    return PCA(n_components=2, svd_solver="covariance_eigh").fit_transform(X)


@case
def PCA_randomized(xp: Any, ctx: Any) -> Any:
    from sklearn.decomposition import PCA

    X = ctx.randn(40, 6) * ctx.asarray([9, 5, 1, 0.5, 0.1, 0.05], ctx.float_dtype)
    pca = PCA(n_components=2, svd_solver="randomized", random_state=0).fit(X)
    return pca.explained_variance_


@case
def PCA_whiten_inverse_transform(xp: Any, ctx: Any) -> Any:
    from sklearn.decomposition import PCA

    X = ctx.randn(30, 4)
    pca = PCA(whiten=True, svd_solver="full").fit(X)
    return pca.inverse_transform(pca.transform(X))


@case
def Ridge(xp: Any, ctx: Any) -> Any:
    from sklearn.linear_model import Ridge

    X, y = ctx.regression()
    r = Ridge(alpha=1.0).fit(X, y)
    return r.predict(X[:5, ...]), r.coef_, r.intercept_


@case
def Ridge_svd_solver(xp: Any, ctx: Any) -> Any:
    from sklearn.linear_model import Ridge

    X, y = ctx.regression()
    return Ridge(alpha=0.5, solver="svd").fit(X, y).coef_


@case
def RidgeCV(xp: Any, ctx: Any) -> Any:
    from sklearn.linear_model import RidgeCV

    X, y = ctx.regression()
    return RidgeCV(alphas=(0.1, 1.0, 10.0)).fit(X, y).coef_


@case
def RidgeClassifierCV(xp: Any, ctx: Any) -> Any:
    from sklearn.linear_model import RidgeClassifierCV

    X, y = ctx.classification()
    return RidgeClassifierCV(alphas=(0.1, 1.0)).fit(X, y).predict(X[:6, ...])


@case
def LinearDiscriminantAnalysis(xp: Any, ctx: Any) -> Any:
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

    X, y = ctx.classification()
    lda = LinearDiscriminantAnalysis().fit(X, y)
    return lda.predict(X[:8, ...]), lda.predict_proba(X[:3, ...])


@case
def LinearDiscriminantAnalysis_transform(xp: Any, ctx: Any) -> Any:
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

    X, y = ctx.classification()
    return LinearDiscriminantAnalysis(solver="svd").fit(X, y).explained_variance_ratio_


@case
def GaussianNB(xp: Any, ctx: Any) -> Any:
    from sklearn.naive_bayes import GaussianNB

    X, y = ctx.classification()
    nb = GaussianNB().fit(X, y)
    return nb.predict(X[:8, ...]), nb.theta_


@case
def LogisticRegression(xp: Any, ctx: Any) -> Any:
    from sklearn.linear_model import LogisticRegression

    X, y = ctx.classification()
    return LogisticRegression().fit(X, y).predict(X[:8, ...])


@case
def PoissonRegressor(xp: Any, ctx: Any) -> Any:
    from sklearn.linear_model import PoissonRegressor

    X = ctx.uniform(40, 3)
    y = ctx.uniform(40, low=0.5, high=4.0)
    return PoissonRegressor(alpha=0.1).fit(X, y).predict(X[:5, ...])


@case
def Nystroem(xp: Any, ctx: Any) -> Any:
    from sklearn.kernel_approximation import Nystroem

    X = ctx.randn(20, 3)
    return Nystroem(n_components=20, random_state=0).fit_transform(X)[:, :1].shape


@case
def GaussianMixture(xp: Any, ctx: Any) -> Any:
    from sklearn.mixture import GaussianMixture

    X, _ = ctx.classification(n=60, features=2, classes=2)
    gm = GaussianMixture(n_components=2, init_params="random_from_data", random_state=0)
    return gm.fit(X).predict(X[:5, ...]).shape


# --- tools ----------------------------------------------------------------------------------


@case
def train_test_split(xp: Any, ctx: Any) -> Any:
    from sklearn.model_selection import train_test_split

    X, y = ctx.classification(n=20)
    return train_test_split(X, y, test_size=0.25, shuffle=False)


@case
def unique_labels(xp: Any, ctx: Any) -> Any:
    from sklearn.utils.multiclass import unique_labels

    return unique_labels(
        ctx.asarray([3, 1, 2, 1], ctx.int_dtype), ctx.asarray([5, 1], ctx.int_dtype)
    )


@case
def type_of_target(xp: Any, ctx: Any) -> Any:
    from sklearn.utils.multiclass import type_of_target

    return type_of_target(ctx.asarray([0, 2, 1, 1], ctx.int_dtype))


@case
def is_multilabel(xp: Any, ctx: Any) -> Any:
    from sklearn.utils.multiclass import is_multilabel

    return is_multilabel(ctx.asarray([[0, 1], [1, 1]], ctx.int_dtype))


@case
def randomized_svd(xp: Any, ctx: Any) -> Any:
    from sklearn.utils.extmath import randomized_svd

    X = ctx.randn(30, 6) * ctx.asarray([9, 5, 1, 0.5, 0.1, 0.05], ctx.float_dtype)
    _, s, _ = randomized_svd(X, n_components=2, random_state=0)
    return s


@case
def cross_val_predict_Ridge(xp: Any, ctx: Any) -> Any:
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import cross_val_predict

    X, y = ctx.regression(n=30)
    return cross_val_predict(Ridge(), X, y, cv=3)


@case
def cross_val_score_LDA(xp: Any, ctx: Any) -> Any:
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.model_selection import cross_val_score

    X, y = ctx.classification()
    return cross_val_score(LinearDiscriminantAnalysis(), X, y, cv=3)


@case
def GridSearchCV_Ridge(xp: Any, ctx: Any) -> Any:
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import GridSearchCV

    X, y = ctx.regression(n=30)
    search = GridSearchCV(Ridge(), {"alpha": [0.01, 1.0, 100.0]}, cv=3).fit(X, y)
    return search.best_params_["alpha"]


@case
def Pipeline_scaler_pca_ridge(xp: Any, ctx: Any) -> Any:
    from sklearn.decomposition import PCA
    from sklearn.linear_model import Ridge
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = ctx.regression(n=40, features=5)
    pipe = make_pipeline(StandardScaler(), PCA(n_components=3, svd_solver="full"), Ridge())
    return pipe.fit(X, y).predict(X[:5, ...])


@case
def CalibratedClassifierCV_temperature(xp: Any, ctx: Any) -> Any:
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

    X, y = ctx.classification()
    clf = CalibratedClassifierCV(LinearDiscriminantAnalysis(), method="temperature", cv=3)
    return clf.fit(X, y).predict(X[:6, ...])


# --- the same calls on float64 data and int64 labels, as NumPy users make them ----------------

for _name in (
    "accuracy_score[multiclass]",
    "confusion_matrix[multiclass]",
    "f1_score[multiclass_average=macro]",
    "r2_score",
    "mean_squared_error",
    "euclidean_distances",
    "rbf_kernel",
    "pairwise_distances_argmin",
    "StandardScaler",
    "MinMaxScaler",
    "PCA_full",
    "PCA_randomized",
    "Ridge",
    "LinearDiscriminantAnalysis",
    "LabelEncoder",
    "GaussianNB",
    "train_test_split",
):
    CASES[f"{_name}[float64]"] = wide(CASES[_name])
