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


def test_repeat_counts(device):
    a = np.arange(6.0).reshape(2, 3)
    x = on(device, a)
    for counts in (2, 0, on(device, np.asarray([1, 2]))):
        expected = np.repeat(a, np.asarray(counts), axis=0)
        np.testing.assert_array_equal(to_numpy(xp.repeat(x, counts, axis=0)), expected)
    np.testing.assert_array_equal(to_numpy(xp.repeat(x, 2)), np.repeat(a, 2))
    with pytest.raises(ValueError, match="repeats must be non-negative, got -1"):
        xp.repeat(x, -1)
    for bad in (True, 2.0, "2"):
        with pytest.raises(TypeError, match="repeats must be an int or an integer Array"):
            xp.repeat(x, bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="3 repeats for 2 elements"):
        xp.repeat(x, on(device, np.asarray([1, 2, 3])), axis=0)
    with pytest.raises(np.exceptions.AxisError, match="repeat: axis 2"):
        xp.repeat(x, 2, axis=2)


def test_creation_checks_in_order(device):
    with pytest.raises(TypeError, match="zeros: shape entries must be ints"):
        xp.zeros((2, 2.0), dtype="float64", device="nowhere")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="zeros: dtype='float64'"):
        xp.zeros((2, 2), dtype="float64", device="nowhere")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="zeros: unknown device 'nowhere'"):
        xp.zeros((2, 2), device="nowhere")
    with pytest.raises(TypeError, match="full: fill_value must be a Python scalar"):
        xp.full((2, 2.0), "a")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="linspace: dtype="):
        xp.linspace(0, 1, 3, dtype=float, device="nowhere")  # type: ignore[arg-type]
    for make, expected in (
        (lambda: xp.zeros(3, device=device), np.zeros(3)),
        (lambda: xp.full((2, 1), 2, device=device), np.full((2, 1), 2)),
        (lambda: xp.linspace(0.0, 1.0, 5, endpoint=False, device=device), np.linspace(0, 1, 5, endpoint=False)),
        (lambda: xp.arange(1, 7, 2, device=device), np.arange(1, 7, 2)),
        (lambda: xp.eye(3, 4, k=1, device=device), np.eye(3, 4, k=1)),
    ):  # fmt: skip
        got = make()
        assert got.device == device and got.dtype == expected.dtype
        np.testing.assert_array_equal(to_numpy(got), expected)
