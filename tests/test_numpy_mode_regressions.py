"""The NumPy-code mode gives NumPy's own results in cases met outside its own tests.

Each case is plain NumPy code that works without the mode; with checked arrays (as
``--rank-promotion-numpy`` makes them) it must give the same values, with no promotion
involved (the operands have equal ranks, or a scalar fills a region).
"""

from __future__ import annotations

import numpy as np
import pytest

import strict_array as xp

# the module arrives with the NumPy-code mode; before it, nothing to check
import strict_array.numpy as snp


def test_a_checked_mask_as_where_of_a_ufunc_call():
    # the idiom "divide where the divisor is not zero": every array in it is checked
    # when NumPy's creation functions return checked arrays
    x, b = np.arange(4.0), np.array([0.0, 1.0, 0.0, 2.0])
    want = np.divide(x, b, out=np.zeros_like(x), where=b != 0)
    cx, cb = snp.asarray(x), snp.asarray(b)
    with xp.rank_promotion("raise"):
        got = np.divide(cx, cb, out=snp.asarray(np.zeros(4)), where=cb != 0)
        np.testing.assert_array_equal(got, want)
        # a plain operand beside a checked mask
        got = np.divide(x, b, out=np.zeros(4), where=cb != 0)
    np.testing.assert_array_equal(got, want)


def test_a_checked_mask_as_where_of_a_reduction():
    x = snp.asarray(np.arange(4.0))
    with xp.rank_promotion("raise"):
        assert x.sum(where=x > 1) == 5.0
        assert np.add.reduce(x, where=x > 1) == 5.0


def test_assigning_a_field_of_a_structured_array():
    with snp.checking(), xp.rank_promotion("raise"):
        s = np.zeros(3, dtype=[("x", float), ("y", int)])
        s["x"] = np.arange(3.0)
        s[["x", "y"]] = np.ones(3, dtype=[("x", float), ("y", int)])
        s["y"][1:] = np.arange(2)
    np.testing.assert_array_equal(s["x"], np.ones(3))
    np.testing.assert_array_equal(s["y"], [1, 0, 1])


def test_a_gufunc_of_one_input():
    # NumPy's linalg gufuncs take one operand, (m,m)->() for det: nothing to pair
    det = np.linalg._umath_linalg.det
    x = snp.asarray(np.eye(3) * 2.0)
    with xp.rank_promotion("raise"):
        assert det(x) == pytest.approx(8.0)


def test_asarray_of_a_checked_array_is_that_array():
    # NumPy returns its argument itself when nothing is to convert; code relies on it
    # (PyWavelets' WaveletPacketND asserts ``wp.data is x``: "no unnecessary copy")
    with snp.checking():
        x = np.zeros(3)
        assert np.asarray(x) is x
        assert np.asarray(x, dtype=float) is x
        assert np.ascontiguousarray(x) is x
        assert np.array(x, copy=False) is x
        assert np.asanyarray(x) is x


def test_the_type_names_numpy_as_its_library():
    # opt_einsum (and autoray) pick the backend of an operand from the top-level module of
    # its type, ``type(x).__module__.split(".")[0]``: "strict_array" sent checked NumPy
    # arrays to strict_array's namespace, which refuses them (TypeError in tensordot)
    import pickle

    x = snp.asarray(np.arange(3.0))
    assert type(x).__module__.split(".")[0] == "numpy"
    y = pickle.loads(pickle.dumps(x))  # NumPy's own pickle: a plain array
    assert type(y) is np.ndarray
    np.testing.assert_array_equal(y, x)


def test_random_generators_run_on_plain_arrays_inside():
    # multivariate_normal broadcasts inside NumPy's compiled code (``v.T * s`` in its
    # positive-semidefinite check, ``x += mean``): with checked arguments, raise mode
    # failed emcee's WalkMove and GaussianMove at NumPy's lines, not emcee's
    mean, cov = np.zeros(3), np.eye(3) * 2.0
    want = [
        np.random.default_rng(0).multivariate_normal(mean, cov),
        np.random.RandomState(0).multivariate_normal(mean, cov),
    ]
    with snp.checking(), xp.rank_promotion("raise"):
        cmean, ccov = np.zeros(3), np.eye(3) * 2.0  # checked
        got = [
            np.random.default_rng(0).multivariate_normal(cmean, ccov),
            np.random.RandomState(0).multivariate_normal(cmean, ccov),
        ]
        np.random.seed(0)
        got.append(np.random.multivariate_normal(cmean, ccov))
    np.random.seed(0)
    want.append(np.random.multivariate_normal(mean, cov))
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
        assert type(g) is snp.CheckedArray


def test_random_generators_made_by_any_name_run_on_plain_arrays_inside():
    # emcee makes its generator as np.random.mtrand.RandomState(), the same class under its
    # module's name; Generator(PCG64(...)) is the other spelling of default_rng(...): both
    # classes stand in NumPy's module while checking, instances of NumPy's own to isinstance
    mean, cov = np.zeros(3), np.eye(3) * 2.0
    want = [
        np.random.mtrand.RandomState(0).multivariate_normal(mean, cov),
        np.random.Generator(np.random.PCG64(0)).multivariate_normal(mean, cov),
    ]
    with snp.checking(), xp.rank_promotion("raise"):
        cmean, ccov = np.zeros(3), np.eye(3) * 2.0  # checked
        got = [
            np.random.mtrand.RandomState(0).multivariate_normal(cmean, ccov),
            np.random.Generator(np.random.PCG64(0)).multivariate_normal(cmean, ccov),
        ]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
        assert type(g) is snp.CheckedArray


def test_numpys_private_lerp_on_0d_checked_arrays():
    # NumPy's own test (TestLerp) calls np.percentile's private _lerp on 0-d arrays; its
    # add(..., out=...) reaches no __array_ufunc__ with out=... (numpy/numpy#28576)
    from numpy.lib import _function_base_impl as nfb

    plain = nfb._lerp(np.array(2), np.array(5), np.array(0.2))
    with snp.checking(), xp.rank_promotion("raise"):
        a, b, t = np.array(2), np.array(5), np.array(0.2)
        got = nfb._lerp(a, b, t)
        assert got == plain == 2.6
        assert type(got) is type(plain)
        vectors = nfb._lerp(np.arange(3.0), np.arange(3.0) + 1, np.array([0.2, 0.6, 0.9]))
        assert type(vectors) is snp.CheckedArray
        np.testing.assert_allclose(vectors, [0.2, 1.6, 2.9])
        # its operands broadcast as an element-wise function's: a promotion is decided
        with pytest.raises(xp.RankPromotionError, match=r"_lerp: operands of shapes \(3, 1\)"):
            nfb._lerp(np.ones((3, 1)), np.ones(3), 0.5)
        assert np.percentile(np.arange(10.0), 37) == pytest.approx(3.33)
    assert nfb._lerp is not None and not hasattr(nfb._lerp, "_function")  # NumPy's again


def test_allocations_are_checked_and_own_their_data():
    # np.empty, np.zeros, ... allocate the checked array itself (no copy): NumPy's
    # values, dtypes and layout, an array that owns its data
    proto = np.arange(6.0).reshape(2, 3)
    calls = [
        ("empty", ((2, 3),), {}), ("zeros", ((2, 3),), {"dtype": int}),
        ("zeros", (3, "U3"), {}), ("zeros", (2,), {"dtype": object}),
        ("ones", ((2, 2),), {"order": "F"}), ("ones", (2, "U3"), {}),
        ("full", ((2,), 2.5, np.float32), {}), ("full", (3, 5), {}), ("full", (2, None), {}),
        ("zeros_like", (proto,), {}), ("ones_like", (proto,), {"dtype": int}),
        ("empty_like", (np.asfortranarray(proto),), {}), ("full_like", (proto, 7), {}),
        ("zeros_like", (proto,), {"shape": (4,)}), ("ones_like", ([1, 2],), {}),
        # (flexible and DType-class dtypes: NumPy's own sizes them, "U" as "<U1")
        ("ones", (2, "U"), {}), ("empty", (2, "S"), {}), ("zeros", (2, "U"), {}),
        ("ones", ((2,),), {"dtype": np.dtypes.StrDType}),
        ("full", ((2,), 1), {"dtype": np.dtypes.Float64DType}),
    ]  # fmt: skip
    want = [getattr(np, name)(*args, **kwargs) for name, args, kwargs in calls]
    with snp.checking():
        got = [getattr(np, name)(*args, **kwargs) for name, args, kwargs in calls]
        with pytest.raises(ValueError, match="negative dimensions"):
            np.zeros(-1)
        np.empty(3).resize(6)
    for (name, _, _), w, g in zip(calls, want, got):
        assert type(g) is snp.CheckedArray and g.flags.owndata, name
        assert g.dtype == w.dtype and g.shape == w.shape and g.strides == w.strides, name
        if name != "empty" and name != "empty_like":
            np.testing.assert_array_equal(g, w)
