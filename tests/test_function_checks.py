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
