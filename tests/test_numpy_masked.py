"""numpy.ma's functions on strict arrays: the rank rule on CPU, a refusal by name on a
device whose data is not NumPy's (strict_array/_numpy_api/_masked.py)."""

from __future__ import annotations

import numpy as np
import pytest

import strict_array as xp

CALLS = {
    "numpy.ma.add": lambda a, b: np.ma.add(a, b),
    "numpy.ma.multiply": lambda a, b: np.ma.multiply(a, b),
    "numpy.ma.where": lambda a, b: np.ma.where(True, a, b),
}


@pytest.mark.parametrize("name", CALLS)
def test_numpy_ma_on_strict_arrays_follows_the_rank_rule(name):
    call = CALLS[name]
    col, row, same = np.arange(3.0)[:, None], np.arange(1.0, 4.0), np.ones((3, 1))
    x, y, z = (xp.asarray(v) for v in (col, row, same))
    with xp.rank_promotion("raise"):
        with pytest.raises(xp.RankPromotionError, match=f"^{name}: operands of shapes"):
            call(x, y)
        got = call(x, z)  # one rank: NumPy's value
    np.testing.assert_array_equal(got, call(col, same))
    assert type(got) is np.ma.MaskedArray
    with xp.rank_promotion("allow"):
        got = call(x, y)
    np.testing.assert_array_equal(got, call(col, row))
    with xp.audit() as report:
        call(x, y)
    assert report.total == 1 and name in str(report)


def test_numpy_ma_on_a_lazy_device_is_refused_by_name():
    x = xp.asarray(np.ones((3, 1)), device=xp.DASK)
    y = xp.asarray(np.ones((3, 1)), device=xp.DASK)
    for name, call in CALLS.items():
        with pytest.raises(TypeError, match=f"^{name}: numpy.ma computes on an operand's data"):
            call(x, y)
    with pytest.raises(TypeError, match=r"^numpy.ma.array: .*x.to_device\(strict_array.CPU\)"):
        np.ma.array(x)
    np.testing.assert_array_equal(np.ma.array(np.asarray(x)), np.ones((3, 1)))  # the fix


def test_a_strict_array_has_no_mask_outside_numpy_ma():
    x = xp.ones(3)
    with pytest.raises(AttributeError):
        x._mask  # noqa: B018
    assert not hasattr(x, "_mask")
    assert np.ma.getmask(x) is np.ma.nomask  # np.ma's own question: no mask
