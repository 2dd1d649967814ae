"""Functions with a fast path for their common case (``diff``, the NaN-skipping
reductions) keep every check of their general path: the same results, and the same
errors for every argument the fast path leaves to it."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import on, to_numpy

import strict_array as xp


@pytest.mark.parametrize("axis", [0, 1, -1, -2])
@pytest.mark.parametrize("n", [0, 1, 2, 5])
def test_diff_gives_numpys_values(device, axis, n):
    a = np.random.default_rng(0).standard_normal((3, 4))
    # (booleans differ by !=, as NumPy's; array_api_strict refuses them)
    for values in (a, a > 0) if device in (xp.CPU, xp.DASK) else (a,):
        got = xp.diff(on(device, values), axis=axis, n=n)
        want = np.diff(values, axis=axis, n=n)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(to_numpy(got), want)


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda v: xp.diff(v[0]), ValueError, "diff: x must have at least one axis, got a 0-d"),
        (lambda v: xp.diff(v, axis=1), np.exceptions.AxisError,
         r"diff: axis 1 is out of bounds for array of dimension 1 \(valid: -1 to 0\)"),
        (lambda v: xp.diff(v, axis=-2), np.exceptions.AxisError, "diff: axis -2 is out of"),
        (lambda v: xp.diff(v, axis=0.0), TypeError, "diff: axis must be an integer, got float"),
        (lambda v: xp.diff(v, axis=True), TypeError, "diff: axis must be an integer, got bool"),
        (lambda v: xp.diff(v, n=-1), ValueError, r"diff: n must be non-negative, got -1\."),
        (lambda v: xp.diff(np.ones(3)), TypeError, r"diff \(argument 0\): got a raw numpy.ndarray"),
        (lambda v: xp.diff(v, prepend=v[:1][None]), ValueError,
         r"diff: prepend of shape \(1, 1\) must have the rank of x \(4,\)"),
    ],
)  # fmt: skip
def test_diff_errors(device, call, error, message):
    with pytest.raises(error, match=message):
        call(on(device, np.arange(4.0)))


NAN_REDUCTIONS = ["nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin",
                  "nanargmax", "nanargmin"]  # fmt: skip


@pytest.mark.parametrize("name", NAN_REDUCTIONS)
@pytest.mark.parametrize(
    "kwargs",
    [{}, {"keepdims": False}, {"keepdims": True}, {"axis": 1}, {"axis": -2, "keepdims": True},
     {"axis": None, "keepdims": True}, {"axis": (1,)}, {"axis": [0, 1]}],
)  # fmt: skip
def test_nan_reductions_give_numpys_values(device, name, kwargs):
    a = np.random.default_rng(1).standard_normal((3, 4))
    a[0, 1] = a[2, 3] = np.nan
    if name.startswith("nanarg") and isinstance(kwargs.get("axis"), (tuple, list)):
        return  # (one axis: test_nan_reduction_errors)
    for values in (a, (a > 0).astype(np.int32)):
        got = getattr(xp, name)(on(device, values), **kwargs)
        axis = kwargs.get("axis")  # (NumPy takes no list)
        want = np.asarray(
            getattr(np, name)(
                values, **{**kwargs, "axis": axis if type(axis) is not list else tuple(axis)}
            )
        )
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(to_numpy(got), want, rtol=1e-12)


def test_nan_reductions_pass_numpys_other_arguments(device):
    a = np.arange(12.0).reshape(3, 4)
    for name, kwargs in (("nansum", {"dtype": xp.float32}), ("nanstd", {"ddof": 1}),
                         ("nanvar", {"axis": 0, "ddof": 2}),
                         ("nanmean", {"axis": 1, "dtype": xp.float32, "keepdims": True})):  # fmt: skip
        got = getattr(xp, name)(on(device, a), **kwargs)
        want = np.asarray(getattr(np, name)(a, **kwargs))
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(to_numpy(got), want, rtol=1e-6)


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda a: xp.nansum(a, axis=2), np.exceptions.AxisError,
         r"nansum: axis 2 is out of bounds for array of dimension 2 \(valid: -2 to 1\)"),
        (lambda a: xp.nanmax(a, axis=(0, 2)), np.exceptions.AxisError, "nanmax: axis 2 is out"),
        (lambda a: xp.nanmean(a, axis=(1, -1)), ValueError, r"nanmean: axis=\(1, -1\) repeats"),
        (lambda a: xp.nanmin(a, axis=1.0), TypeError, "nanmin: axis must be an integer, got float"),
        (lambda a: xp.nanstd(a, axis=True), TypeError, "nanstd: axis must be an integer, got bool"),
        (lambda a: xp.nanargmax(a, axis=(0,)), TypeError,
         "nanargmax: axis must be an integer, got tuple"),
        (lambda a: xp.nanargmin(a, axis=-3), np.exceptions.AxisError, "nanargmin: axis -3 is"),
        (lambda a: xp.nansum(a, dtype="float"), TypeError, "nansum"),
        (lambda a: xp.nanmax(a + 1j), TypeError,
         "nanmax: x has dtype complex128, but nanmax takes real"),
        (lambda a: xp.nanmax(np.ones(3)), TypeError, r"nanmax \(x\): got a raw numpy.ndarray"),
    ],
)  # fmt: skip
def test_nan_reduction_errors(device, call, error, message):
    with pytest.raises(error, match=message):
        call(on(device, np.ones((2, 3))))
