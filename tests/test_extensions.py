"""Extensions beyond the standard (einsum, pad, NaN-skipping reductions, sliding
windows): NumPy's results on every device, and the rank rule under einsum's ``...``."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import on, to_numpy

import strict_array as xp

RNG = np.random.default_rng(3)
A = RNG.standard_normal((4, 5))
A[1, 2] = A[3, 0] = np.nan


@pytest.mark.parametrize(
    "name, kwargs",
    [(f, kw) for f in ("nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin")
     for kw in ({}, {"axis": 0}, {"axis": (0, 1), "keepdims": True}, {"axis": -1})]
    + [("nanvar", {"axis": 1, "ddof": 1}), ("nanargmax", {"axis": 1}), ("nanargmin", {}),
       ("nancumsum", {"axis": 0}), ("nancumprod", {"axis": 1}), ("nancumsum", {})],
)  # fmt: skip
def test_nan_reductions_match_numpy(device, name, kwargs):
    got = getattr(xp, name)(on(device, A), **kwargs)
    expected = getattr(np, name)(A, **kwargs)
    assert got.device is device and got.dtype == expected.dtype
    np.testing.assert_allclose(to_numpy(got), expected, rtol=1e-12)


def test_nan_reductions_check_axes(device):
    with pytest.raises(np.exceptions.AxisError, match="nansum: axis 2"):
        xp.nansum(on(device, A), axis=2)


def test_einsum(device):
    a, b = RNG.standard_normal((3, 4)), RNG.standard_normal((4, 2))
    got = xp.einsum("ij,jk->ik", on(device, a), on(device, b))
    np.testing.assert_allclose(to_numpy(got), a @ b)
    stack, other = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((2, 4, 2))
    got = xp.einsum("...ij,...jk->...ik", on(device, stack), on(device, other))
    np.testing.assert_allclose(to_numpy(got), np.einsum("...ij,...jk->...ik", stack, other))
    with pytest.raises(ValueError, match="names 2 axes but the operand has shape"):
        xp.einsum("ij->i", on(device, stack))


def test_einsum_ellipsis_follows_the_rank_rule(device):
    stack, matrix = on(device, np.ones((2, 3, 4))), on(device, np.ones((4, 5)))
    with pytest.raises(xp.RankPromotionError, match="einsum"):
        xp.einsum("...ij,...jk->...ik", stack, matrix)  # batch shapes (2,) and ()
    with xp.rank_promotion("allow"):
        assert xp.einsum("...ij,...jk->...ik", stack, matrix).shape == (2, 3, 5)


@pytest.mark.parametrize(
    "subscripts, shapes",
    [("ii", [(3, 3)]), ("ij->ji", [(2, 3)]), ("i,i", [(4,), (4,)]), ("i j, j ->i", [(2, 3), (3,)]),
     ("...i,...i->...", [(2, 3), (2, 3)]), ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)])],
)  # fmt: skip
def test_einsum_is_numpys(device, subscripts, shapes):
    arrays = [RNG.standard_normal(s) for s in shapes]
    for _ in range(2):  # the subscripts parsed once, the operands checked every time
        got = xp.einsum(subscripts, *(on(device, a) for a in arrays))
        np.testing.assert_allclose(to_numpy(got), np.einsum(subscripts, *arrays))


def test_einsum_checks_every_call(device):
    vector, matrix = on(device, np.ones(3)), on(device, np.ones((3, 3)))
    for _ in range(2):
        with pytest.raises(ValueError, match=r"'\.\.\.ij' names 2 axes but the operand has"):
            xp.einsum("...ij->...", vector)
        with pytest.raises(ValueError, match="names 2 operands but 1 were given"):
            xp.einsum("ij,jk->ik", matrix)
        with pytest.raises(ValueError, match="'jk' names 2 axes"):
            xp.einsum("ij,jk->ik", matrix, vector)
        with pytest.raises(TypeError, match="subscripts must be a string"):
            xp.einsum(b"ij", matrix)  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "wrap", "symmetric"])
def test_pad(device, mode):
    a = np.arange(12.0).reshape(3, 4)
    got = xp.pad(on(device, a), ((1, 2), (0, 3)), mode=mode)
    np.testing.assert_array_equal(to_numpy(got), np.pad(a, ((1, 2), (0, 3)), mode=mode))
    with pytest.raises(ValueError, match="pad: mode must be one of"):
        xp.pad(on(device, a), 1, mode="bogus")


def test_sliding_window_view(device):
    a = np.arange(20.0).reshape(4, 5)
    got = xp.lib.stride_tricks.sliding_window_view(on(device, a), 3, axis=1)
    expected = np.lib.stride_tricks.sliding_window_view(a, 3, axis=1)
    assert got.shape == expected.shape
    np.testing.assert_array_equal(to_numpy(got), expected)
    assert xp.sliding_window_view is xp.lib.stride_tricks.sliding_window_view
