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


#: np.ma's calls that read an operand's data before its mask (``getdata`` first)
DATA_FIRST = {
    "numpy.ma.getdata": lambda a: np.ma.getdata(a),
    "numpy.ma.sqrt": lambda a: np.ma.sqrt(a),
    "numpy.ma.allclose": lambda a: np.ma.allclose(a, a),
    "numpy.ma.ndim": lambda a: np.ma.ndim(a),
}


@pytest.mark.parametrize("name", DATA_FIRST)
def test_numpy_ma_reading_the_data_first_is_refused_by_name_on_a_lazy_device(name):
    call = DATA_FIRST[name]
    plain = np.arange(6.0).reshape(2, 3)
    x = xp.asarray(plain, device=xp.DASK)
    with pytest.raises(TypeError, match=f"^{name}: numpy.ma computes on an operand's data"):
        call(x)  # (not the lazy data itself, given out or computed on)
    cpu = call(xp.asarray(plain))  # CPU: NumPy's value, as for np.asarray(x)
    np.testing.assert_array_equal(cpu, call(plain))
    assert type(cpu) is type(call(plain))


def test_numpy_ma_getdata_on_cpu_is_numpys_array_of_the_data():
    plain = np.arange(6.0).reshape(2, 3)
    x = xp.asarray(plain)
    for subok in (True, False):
        got = np.ma.getdata(x, subok=subok)
        assert type(got) is np.ndarray
        np.testing.assert_array_equal(got, np.asarray(x))
    with pytest.raises(TypeError, match=r"^numpy.ma.getdata: .*compute first"):
        np.ma.getdata(xp.asarray(plain, device=xp.DASK), subok=False)
    assert np.ma.getdata is np.ma.core.getdata is np.ma.extras.getdata  # (one, everywhere)
    assert np.ma.getdata.__name__ == "getdata" and np.ma.getdata.__module__ == "numpy.ma.core"
