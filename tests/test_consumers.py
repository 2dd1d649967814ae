"""Real array-API consumers on strict arrays: results equal NumPy's; audits name their sites.

scikit-learn and SciPy need ``SCIPY_ARRAY_API=1`` before SciPy is imported
(conftest.py sets it).
"""

from __future__ import annotations

import numpy as np
import pytest

import strict_array as xp

sklearn = pytest.importorskip("sklearn")
scipy = pytest.importorskip("scipy")

from sklearn.decomposition import PCA  # noqa: E402
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis  # noqa: E402
from sklearn.linear_model import LogisticRegression, Ridge  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

RNG = np.random.default_rng(0)
XN = RNG.standard_normal((60, 4)) * [1.0, 2.0, 5.0, 0.5] + [0.0, 1.0, -2.0, 3.0]
Y_CLASS = (XN[:, 0] + 0.3 * RNG.standard_normal(60) > 0).astype(np.int64)
Y_REG = XN @ np.array([1.0, -2.0, 0.5, 3.0]) + 0.1 * RNG.standard_normal(60)


def _both(fit, *arrays):
    """Run ``fit`` on NumPy arrays and (under audit) on strict arrays."""
    expected = fit(*arrays)
    strict = [xp.asarray(a) for a in arrays]
    with sklearn.config_context(array_api_dispatch=True), xp.audit() as report:
        got = fit(*strict)
    assert isinstance(got, xp.Array)
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-6, atol=1e-8)
    return report


@pytest.mark.parametrize(
    "name, fit, min_sites",
    [
        ("StandardScaler", lambda x: StandardScaler().fit_transform(x), 2),
        ("PCA", lambda x: _abs(PCA(n_components=2, svd_solver="full").fit_transform(x)), 1),
        ("Ridge", lambda x: Ridge(solver="svd").fit(x, _like(x, Y_REG)).predict(x), 1),
        (
            "LDA",
            lambda x: LinearDiscriminantAnalysis().fit(x, _like(x, Y_CLASS)).predict_proba(x),
            3,
        ),
        (
            "LogisticRegression",
            lambda x: LogisticRegression().fit(x, _like(x, Y_CLASS)).predict_proba(x),
            1,
        ),
    ],
)
def test_sklearn_estimators(name, fit, min_sites):
    report = _both(fit, XN)
    sites = report.under("sklearn")
    assert len(sites) >= min_sites, str(report)
    assert all("sklearn" in s.filename for s, _ in sites.most_common())


def _abs(a):  # component signs are arbitrary
    return xp.abs(a) if isinstance(a, xp.Array) else np.abs(a)


def _like(x, values):
    return xp.asarray(values) if isinstance(x, xp.Array) else values


def test_sklearn_raise_mode_fails_loudly():
    with (
        sklearn.config_context(array_api_dispatch=True),
        pytest.raises(xp.RankPromotionError, match="subtract"),
    ):
        StandardScaler().fit_transform(xp.asarray(XN))


def test_sklearn_warn_mode_names_the_consumer_lines():
    with sklearn.config_context(array_api_dispatch=True), xp.rank_promotion("warn"):
        with pytest.warns(xp.RankPromotionWarning) as record:
            StandardScaler().fit_transform(xp.asarray(XN))
    assert any("sklearn" in w.filename for w in record)


def test_policy_raises_for_own_code_and_warns_for_sklearn():
    """The recipe of the audit guide: strict for your code, warnings for a dependency."""
    policy = xp.rank_promotion_policy({"sklearn": "warn"}, default="raise")
    with sklearn.config_context(array_api_dispatch=True), policy:
        with pytest.warns(xp.RankPromotionWarning) as record:
            z = StandardScaler().fit_transform(xp.asarray(XN))
        ours = [w for w in record if issubclass(w.category, xp.RankPromotionWarning)]
        assert ours and all("sklearn" in w.filename for w in ours)
        with pytest.raises(xp.RankPromotionError, match="subtract"):
            z - xp.mean(z, axis=0)  # this test's own code
    np.testing.assert_allclose(np.asarray(z), StandardScaler().fit_transform(XN))


def test_scipy_stats_special_signal():
    import scipy.signal
    import scipy.special
    import scipy.stats

    x = xp.asarray(XN)
    with xp.audit() as report:
        z = scipy.stats.zscore(x)
        e = scipy.special.erf(x)
        f = scipy.signal.lfilter(xp.asarray([0.5, 0.5]), xp.asarray([1.0]), x[:, 0])
    np.testing.assert_allclose(np.asarray(z), scipy.stats.zscore(XN))
    np.testing.assert_allclose(np.asarray(e), scipy.special.erf(XN))
    np.testing.assert_allclose(np.asarray(f), scipy.signal.lfilter([0.5, 0.5], [1.0], XN[:, 0]))
    assert isinstance(z, xp.Array) and isinstance(e, xp.Array)
    assert report.total == 0, str(report)


def test_array_api_extra():
    xpx = pytest.importorskip("array_api_extra")
    x = xp.asarray(XN)
    np.testing.assert_allclose(np.asarray(xpx.cov(x.T)), np.cov(XN.T))
    np.testing.assert_allclose(np.asarray(xpx.sinc(x)), np.sinc(XN))
    np.testing.assert_allclose(
        np.asarray(xpx.kron(x[:2, :2], x[:2, :2])), np.kron(XN[:2, :2], XN[:2, :2])
    )
    assert xpx.atleast_nd(x[0], ndim=3).shape == (1, 1, 4)
    y = xpx.at(x)[0].set(1.0)
    assert float(y[0, 0]) == 1.0 and float(x[0, 0]) == XN[0, 0]  # copy, as documented
    assert xpx.pad(x, 1).shape == (62, 6)


def test_einops_array_api():
    ea = pytest.importorskip("einops.array_api")
    x = xp.asarray(XN)
    r = ea.rearrange(x, "(a b) c -> a (b c)", a=6)
    np.testing.assert_array_equal(np.asarray(r), XN.reshape(6, 40))
    m = ea.reduce(x, "(a b) c -> a c", "mean", a=6)
    np.testing.assert_allclose(np.asarray(m), XN.reshape(6, 10, 4).mean(1))
    # list shapes go through reshape where the standard allows sequences
    assert xp.reshape(x, [4, 60]).shape == (4, 60)


XARRAY_CASES = {
    "isel with a list": lambda d: d.isel(sample=[0, 2, 3]),
    "sel with a list": lambda d: d.sel(feature=["a", "c"]),
    "groupby mean": lambda d: d.groupby("group").mean(),
    "rolling mean": lambda d: d.rolling(sample=3).mean(),
    "dot": lambda d: d.dot(d, dim="feature"),
    "where": lambda d: d.where(d > 0),
    "fillna": lambda d: d.fillna(0.0),
    "mean (NaN-skipping)": lambda d: d.mean("sample"),
    "sum (NaN-skipping)": lambda d: d.sum(),
    "std (NaN-skipping)": lambda d: d.std("feature"),
    "max (NaN-skipping)": lambda d: d.max("sample"),
    "argmax (NaN-skipping)": lambda d: d.argmax("sample"),
    "cumsum (NaN-skipping)": lambda d: d.cumsum("sample"),
    "shift": lambda d: d.shift(sample=1),
    "centred, no NaN skipping": lambda d: d - d.mean("sample", skipna=False),
}


@pytest.mark.parametrize("name", sorted(XARRAY_CASES))
def test_xarray_end_to_end(device, name):
    """A DataArray wrapping a strict array: the result stays a strict array on its
    device and equals the NumPy-backed DataArray's."""
    xr = pytest.importorskip("xarray")
    values = XN[:8].copy()
    values[1, 2] = np.nan
    coords = {
        "feature": list("abcd"),
        "group": ("sample", [0, 1, 0, 1, 2, 2, 0, 1]),
    }
    kw = {"chunks": (3, 2)} if device is xp.DASK else {}
    strict = xr.DataArray(xp.asarray(values, device=device, **kw), dims=("sample", "feature"),
                          coords=coords)  # fmt: skip
    plain = xr.DataArray(values, dims=("sample", "feature"), coords=coords)
    got, expected = XARRAY_CASES[name](strict), XARRAY_CASES[name](plain)
    assert isinstance(got.data, xp.Array) and got.data.device is device
    assert got.dims == expected.dims
    np.testing.assert_allclose(np.asarray(got.data), np.asarray(expected.data), equal_nan=True)
