"""The scikit-learn rows: each estimator and metric that declares array-API support,
written once, run on NumPy arrays in memory and on strict_array's ``DASK`` arrays.

Shared by ``benchmarks/bench_sklearn.py`` (2 GiB and 8 GiB Zarr inputs) and
``tests/test_sklearn_rows.py`` (small sizes, several chunkings, unknown sizes), so
that every row of the benchmark's table is tested in CI.

A row's ``run(d)`` takes a :class:`Data` of one namespace and returns named results:
arrays of that namespace (or numbers). Results with one entry per sample are
reduced to a *fingerprint* (column sums of squares, column sums, the first rows),
so that an 8 GiB output is checked without holding it; the fingerprint is computed
by the same namespace, lazily on ``DASK``. scikit-learn runs inside
``config_context(array_api_dispatch=True)`` for strict arrays and without it for
NumPy's.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

os.environ.setdefault("SCIPY_ARRAY_API", "1")  # before SciPy is imported (scikit-learn's too)

FEATURES = 32
CLASSES = 3


@dataclass(frozen=True)
class Data:
    """The inputs of every row, as arrays of one namespace.

    ``X`` (n x FEATURES float64); ``y_class`` labels 0..2 (float64); ``y_bin`` 0/1;
    ``y_reg`` a linear target with noise; ``y_count`` a Poisson count; ``proba`` an
    n x 3 matrix of class probabilities; ``score`` a score for ``y_bin``;
    ``pred_class``, ``pred_reg``, ``pred_count`` (positive): predictions to score.
    """

    X: Any
    y_class: Any
    y_bin: Any
    y_reg: Any
    y_count: Any
    proba: Any
    score: Any
    pred_class: Any
    pred_reg: Any
    pred_count: Any


def make_numpy(n: int, seed: int = 0) -> Data:
    """The inputs as NumPy arrays (every array a function of ``seed``)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, FEATURES))
    return Data(**derived(np, X, rng.standard_normal((n, 4))))


def derived(ns: Any, X: Any, noise: Any) -> dict[str, Any]:
    """The targets and scores, from ``X`` and an n x 4 ``noise`` (NumPy or Dask arrays)."""
    w = np.linspace(-1.0, 1.0, FEATURES) / np.sqrt(FEATURES)
    signal = X @ w
    y_class = (signal > -0.3).astype(np.float64) + (signal > 0.3)
    y_reg = 3.0 * signal + 0.5 * noise[:, 0] + 1.0
    rate = ns.exp(0.3 * signal)
    y_count = ns.floor(rate + ns.abs(noise[:, 1]))
    logits = ns.stack([-signal, 0.0 * signal + 0.1 * noise[:, 2], signal], axis=1)
    e = ns.exp(logits - logits.max(axis=1, keepdims=True))
    proba = e / e.sum(axis=1, keepdims=True)
    score = signal + 0.7 * noise[:, 3]
    pred_class = ns.where(ns.abs(noise[:, 2]) > 1.2, (y_class + 1.0) % CLASSES, y_class)
    return dict(
        X=X, y_class=y_class, y_bin=(y_class > 0).astype(np.float64), y_reg=y_reg,
        y_count=y_count, proba=proba, score=score, pred_class=pred_class,
        pred_reg=y_reg + 0.3 * noise[:, 1], pred_count=rate + 0.1 * ns.abs(noise[:, 3]),
    )  # fmt: skip


def on_dask(d: Data, chunk_rows: int, mask: np.ndarray | None = None) -> Data:
    """``d`` as strict ``DASK`` arrays in row chunks; with ``mask``, every array is the
    rows ``mask`` keeps, selected lazily (sizes unknown until computed)."""
    import strict_array as xp

    out = {}
    for name, value in vars(d).items():
        chunks = (chunk_rows,) + (-1,) * (value.ndim - 1)
        a = xp.asarray(value, device=xp.DASK, chunks=chunks)
        if mask is not None:
            a = a[xp.asarray(mask, device=xp.DASK, chunks=max(1, chunk_rows // 2 + 1))]
        out[name] = a
    return Data(**out)


def namespace_of(a: Any) -> Any:
    import array_api_compat

    return array_api_compat.array_namespace(a)


def fingerprint(a: Any, rows: int = 64) -> dict[str, Any]:
    """A per-sample result reduced: column sums of squares and of absolute values, and
    the first ``rows`` rows in absolute value (signs of components are arbitrary; sums
    of terms of one sign are well conditioned, whatever the order of summation)."""
    xp = namespace_of(a)
    if a.ndim == 1:
        a = xp.reshape(a, (-1, 1))
    a = xp.astype(a, xp.float64)
    return {
        "sumsq": xp.sum(a * a, axis=0),
        "sumabs": xp.sum(xp.abs(a), axis=0),
        "head": xp.abs(a[:rows, ...]),
    }


def values(results: dict[str, Any]) -> dict[str, np.ndarray]:
    """A row's results as float64 NumPy arrays; strict arrays computed together (one
    computation: the work they share is done once)."""
    import strict_array as xp

    arrays = {k: v for k, v in results.items() if isinstance(v, xp.Array)}
    computed = dict(zip(arrays, xp.compute(*arrays.values()))) if arrays else {}
    return {k: np.asarray(computed.get(k, v), dtype=np.float64) for k, v in results.items()}


@contextlib.contextmanager
def dispatching(d: Data) -> Iterator[None]:
    """scikit-learn's array-API dispatch for strict arrays, none for NumPy's."""
    import sklearn

    if isinstance(d.y_bin, np.ndarray):  # (a vector: inputs read on use are not all read)
        yield
        return
    with sklearn.config_context(array_api_dispatch=True):
        yield


@dataclass(frozen=True)
class Row:
    """One estimator or metric: ``run(d)`` -> named results; ``rtol`` for the values
    against NumPy's in memory (1e-9 where the algorithm is the same); ``note`` what
    differs or what scikit-learn refuses."""

    name: str
    kind: str
    run: Callable[[Data], dict[str, Any]]
    rtol: float = 1e-9
    note: str = ""
    iterative: bool = False


ROWS: dict[str, Row] = {}


def row(name: str, kind: str, *, rtol: float = 1e-9, note: str = "", iterative: bool = False):
    def register(fn: Callable[[Data], dict[str, Any]]) -> Callable[[Data], dict[str, Any]]:
        ROWS[name] = Row(name, kind, fn, rtol, note, iterative)
        return fn

    return register


def _transformer(name: str, make: Callable[[], Any], rtol: float = 1e-9, note: str = "") -> None:
    @row(name, "transformer", rtol=rtol, note=note)
    def run(d: Data) -> dict[str, Any]:
        with dispatching(d):
            return fingerprint(make().fit(d.X).transform(d.X))


def _sklearn(module: str, name: str) -> Any:
    import importlib

    return getattr(importlib.import_module(f"sklearn.{module}"), name)


for _name, _module in [("StandardScaler", "preprocessing"), ("MinMaxScaler", "preprocessing"),
                       ("MaxAbsScaler", "preprocessing"), ("Normalizer", "preprocessing")]:  # fmt: skip
    _transformer(_name, lambda _n=_name, _m=_module: _sklearn(_m, _n)())
_transformer("Binarizer", lambda: _sklearn("preprocessing", "Binarizer")(threshold=0.1))
_transformer(
    "PolynomialFeatures", lambda: _sklearn("preprocessing", "PolynomialFeatures")(degree=2)
)
_transformer(
    "Nystroem", lambda: _sklearn("kernel_approximation", "Nystroem")(n_components=40, random_state=0),
    rtol=1e-8,
)  # fmt: skip
for _solver, _note in [
    ("covariance_eigh", "the p x p covariance, one pass"),
    ("full", "TSQR: U lazy, two streaming reads"),
    ("randomized", "power iterations: a few passes"),
]:
    _transformer(
        f"PCA(svd_solver={_solver!r})",
        lambda _s=_solver: _sklearn("decomposition", "PCA")(
            n_components=4, svd_solver=_s, random_state=0,
            **({"power_iteration_normalizer": "QR"} if _s == "randomized" else {})),
        rtol=1e-8, note=_note,
    )  # fmt: skip


@row("KernelCenterer", "transformer", note="of the features' Gram matrix X^T X (p x p)")
def _kernel_centerer(d: Data) -> dict[str, Any]:
    with dispatching(d):
        return fingerprint(_sklearn("preprocessing", "KernelCenterer")().fit_transform(d.X.T @ d.X))


@row("LabelEncoder", "transformer (y)")
def _label_encoder(d: Data) -> dict[str, Any]:
    with dispatching(d):
        enc = _sklearn("preprocessing", "LabelEncoder")().fit(d.y_class)
        return {"classes": enc.classes_, **fingerprint(enc.transform(d.y_class))}


def _predictor(name: str, make: Callable[[], Any], y: str, attrs: tuple[str, ...],
               methods: tuple[str, ...] = ("predict",), rtol: float = 1e-9, note: str = "",
               iterative: bool = False) -> None:  # fmt: skip
    kind = "classifier" if y in ("y_class", "y_bin") else "regressor"

    @row(name, kind, rtol=rtol, note=note, iterative=iterative)
    def run(d: Data) -> dict[str, Any]:
        with dispatching(d):
            target = getattr(d, y)
            est = make().fit(d.X, target)
            out = {a: getattr(est, a) for a in attrs}
            for m in methods:
                out.update({f"{m}.{k}": v for k, v in fingerprint(getattr(est, m)(d.X)).items()})
            if "score" in dir(est):
                out["score"] = est.score(d.X, target)
            return out


_predictor("Ridge(solver='svd')", lambda: _sklearn("linear_model", "Ridge")(solver="svd"),
           "y_reg", ("coef_", "intercept_"), note="TSQR: U lazy")  # fmt: skip
_predictor("Ridge", lambda: _sklearn("linear_model", "Ridge")(), "y_reg", ("coef_", "intercept_"),
           note="solver 'auto' is 'svd' under array-API dispatch")  # fmt: skip
_predictor("RidgeCV", lambda: _sklearn("linear_model", "RidgeCV")(alphas=(0.1, 1.0, 10.0)),
           "y_reg", ("coef_", "alpha_"))  # fmt: skip
_predictor("RidgeClassifier(solver='svd')",
           lambda: _sklearn("linear_model", "RidgeClassifier")(solver="svd"), "y_class",
           ("coef_",))  # fmt: skip
_predictor("RidgeClassifierCV", lambda: _sklearn("linear_model", "RidgeClassifierCV")(
           alphas=(0.1, 1.0, 10.0)), "y_class", ("coef_", "alpha_"))  # fmt: skip
_predictor("LinearDiscriminantAnalysis",
           lambda: _sklearn("discriminant_analysis", "LinearDiscriminantAnalysis")(),
           "y_class", ("coef_", "means_"), ("predict", "predict_proba"), rtol=1e-8,
           note="solver 'svd' (the others are NumPy-only in scikit-learn)")  # fmt: skip
_predictor("GaussianNB", lambda: _sklearn("naive_bayes", "GaussianNB")(), "y_class",
           ("theta_", "var_"), ("predict", "predict_proba"))  # fmt: skip
_predictor("LogisticRegression", lambda: _sklearn("linear_model", "LogisticRegression")(
           max_iter=30, tol=1e-8), "y_class", ("coef_",), ("predict_proba",), rtol=1e-6,
           note="lbfgs: each step reads X for the loss, then for the gradient",
           iterative=True)  # fmt: skip
_predictor("PoissonRegressor", lambda: _sklearn("linear_model", "PoissonRegressor")(
           max_iter=30, tol=1e-8), "y_count", ("coef_", "intercept_"), rtol=1e-6,
           note="lbfgs, as LogisticRegression", iterative=True)  # fmt: skip


@row("GaussianMixture", "density", rtol=1e-7, iterative=True,
     note="init_params='random_from_data' (the default 'kmeans' is NumPy-only)")  # fmt: skip
def _gaussian_mixture(d: Data) -> dict[str, Any]:
    with dispatching(d):
        gm = _sklearn("mixture", "GaussianMixture")(
            n_components=3, init_params="random_from_data", random_state=0, max_iter=10, tol=0.0
        ).fit(d.X)
        return {"means_": gm.means_, "weights_": gm.weights_, **fingerprint(gm.predict_proba(d.X))}


# --- metrics: scikit-learn's array_api_metric_checkers (sklearn/metrics/tests/test_common.py)
def _metric(
    name: str, args: tuple[str, ...], rtol: float = 1e-9, note: str = "", **kwargs: Any
) -> None:
    label = name if not kwargs else f"{name}({', '.join(f'{k}={v!r}' for k, v in kwargs.items())})"

    @row(label, "metric", rtol=rtol, note=note)
    def run(d: Data) -> dict[str, Any]:
        with dispatching(d):
            value = _sklearn("metrics", name)(*(getattr(d, a) for a in args), **kwargs)
        if not isinstance(value, tuple):
            return {"value": value}
        out: dict[str, Any] = {}
        for i, v in enumerate(value):
            if getattr(v, "ndim", 0) == 1:  # a curve: as long as the distinct scores, up to n
                out.update({f"{i}.{k}": f for k, f in fingerprint(v).items()})
            else:
                out[f"{i}"] = v
        return out


for _name, _kw in [("accuracy_score", {}), ("balanced_accuracy_score", {}),
                   ("cohen_kappa_score", {}), ("confusion_matrix", {}),
                   ("f1_score", {"average": "macro"}), ("fbeta_score", {"beta": 2.0, "average": "macro"}),
                   ("jaccard_score", {"average": "macro"}), ("multilabel_confusion_matrix", {}),
                   ("precision_score", {"average": "macro"}), ("recall_score", {"average": "macro"}),
                   ("precision_recall_fscore_support", {"average": "macro"}),
                   ("zero_one_loss", {}), ("hamming_loss", {})]:  # fmt: skip
    _metric(_name, ("y_class", "pred_class"), **_kw)
for _name in ("average_precision_score", "precision_recall_curve", "det_curve"):
    _metric(_name, ("y_bin", "score"))
_metric("confusion_matrix_at_thresholds", ("y_bin", "score"))
_metric("roc_curve", ("y_bin", "score"), drop_intermediate=False,
        note="drop_intermediate=True: scikit-learn calls xp.diff(fps, 2), the standard's n is keyword-only")  # fmt: skip
for _name in ("log_loss", "d2_log_loss_score", "brier_score_loss", "d2_brier_score"):
    _metric(_name, ("y_class", "proba"))
for _name in ("r2_score", "explained_variance_score", "mean_absolute_error", "mean_squared_error",
              "mean_pinball_loss", "median_absolute_error", "d2_absolute_error_score"):  # fmt: skip
    _metric(_name, ("y_reg", "pred_reg"))
for _power in (0.0, -0.5, 1.5):
    _metric("mean_tweedie_deviance", ("y_count", "pred_count"), power=_power)
_metric("mean_squared_log_error", ("y_count", "pred_count"))


# --- scikit-learn's own NumPy steps ------------------------------------------------------
@dataclass(frozen=True)
class Floor:
    """A step of scikit-learn's that leaves the namespace for NumPy in memory, whatever the
    namespace (``docs/scikit-learn.md``, the second table of "The estimators and
    metrics"). ``run(d)`` makes it on NumPy labels alone: the memory it adds is a floor
    under each of ``rows``, which no namespace can lower."""

    name: str
    run: Callable[[Data], Any]
    rows: tuple[str, ...]


FLOORS: dict[str, Floor] = {
    f.name: f
    for f in (
        Floor(
            "LabelBinarizer().fit(y).transform(y)",  # label_binarize: SciPy CSR, densified
            lambda d: (
                _sklearn("preprocessing", "LabelBinarizer")().fit(d.y_class).transform(d.y_class)
            ),
            (
                "log_loss",
                "d2_log_loss_score",
                "brier_score_loss",
                "d2_brier_score",
                "RidgeClassifier(solver='svd')",
                "RidgeClassifierCV",
            ),
        ),
        Floor(
            "confusion_matrix(y, pred)",  # counted with SciPy's coo_matrix, on NumPy
            lambda d: _sklearn("metrics", "confusion_matrix")(d.y_class, d.pred_class),
            ("confusion_matrix", "balanced_accuracy_score", "cohen_kappa_score"),
        ),
    )
}
