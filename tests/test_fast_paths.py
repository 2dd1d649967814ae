"""Functions whose common case skips work: every other case, and every error, as before."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import on, to_numpy

import strict_array as xp
from strict_array import RankPromotionError


def test_where_arrays_and_scalars(device):
    c = on(device, np.array([[True, False, True], [False, True, False]]))
    x, y = on(device, np.ones((2, 3))), on(device, np.zeros((1, 3)))
    expected = np.where(to_numpy(c), 1.0, 0.0)
    for first, second in ((x, y), (x, 0.0), (1.0, y), (1, y)):
        np.testing.assert_array_equal(to_numpy(xp.where(c, first, second)), expected)


def test_where_checks_in_order(device):
    c = on(device, np.ones((2, 3), dtype=bool))
    x = on(device, np.ones((2, 3)))
    with pytest.raises(TypeError, match="condition must be a boolean"):
        xp.where(on(device, np.ones((2, 3))), x, x)
    with pytest.raises(TypeError, match="at least one of x1 and x2"):
        xp.where(c, 1.0, 2.0)
    # the rank rule before the scalar's type
    for args in ((on(device, np.ones(3)), "a"), ("a", on(device, np.ones(3)))):
        with pytest.raises(RankPromotionError, match="where"):
            xp.where(c, *args)
    with pytest.raises(TypeError):
        xp.where(c, x, "a")
    with pytest.raises(TypeError):
        xp.where(c, "a", x)
    with pytest.raises(ValueError, match=r"where: shapes \(2, 3\), \(2, 3\) and \(2, 4\)"):
        xp.where(c, x, on(device, np.ones((2, 4))))


@pytest.mark.parametrize("axis", [0, 1, -1, -2])
def test_concat_of_one_shape(device, axis):
    a, b = np.arange(6.0).reshape(2, 3), np.arange(6.0, 12.0).reshape(2, 3)
    got = xp.concat((on(device, a), on(device, b)), axis=axis)
    np.testing.assert_array_equal(to_numpy(got), np.concatenate((a, b), axis=axis))


def test_concat_checks_what_one_shape_skips(device):
    x = on(device, np.ones((2, 3)))
    with pytest.raises(ValueError, match="0-d arrays have no axis"):
        xp.concat((on(device, np.asarray(1.0)), on(device, np.asarray(2.0))))
    for axis in (2, -3):
        with pytest.raises(ValueError, match=f"got axis={axis} and shapes"):
            xp.concat((x, x), axis=axis)
    with pytest.raises(ValueError, match="one rank"):
        xp.concat((x, on(device, np.ones(3))))
    with pytest.raises(TypeError):
        xp.concat((x, x), axis=1.0)  # type: ignore[arg-type]
    np.testing.assert_array_equal(
        to_numpy(xp.concat((x, on(device, np.zeros((1, 3)))))), np.r_[np.ones((2, 3)), [[0] * 3]]
    )
    assert xp.concat((x, x), axis=None).shape == (12,)
