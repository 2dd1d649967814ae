"""NumPy's reductions and running totals on DASK: the namespace's own reductions (right
over unknown sizes and empty blocks), with NumPy's defaults, dtypes and values, whatever
the blocks (SEMANTICS section 6: one block, irregular blocks, blocks of one element,
unknown sizes); NumPy's ``out=``, ``where=``, ``initial=`` as before."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import strict_array as xp
from strict_array._numpy_api._table import FUNCTIONS, Compose

NAMES = (
    "sum prod mean std var max min amax amin nansum nanprod nanmean nanstd nanvar nanmax "
    "nanmin argmax argmin nanargmax nanargmin cumsum cumprod nancumsum nancumprod all any "
    "count_nonzero ptp cumulative_sum cumulative_prod average"
).split()
CHUNKINGS = {"one block": -1, "irregular": ((2, 4, 1), (3, 2)), "size-1 blocks": 1}
KWARGS = (
    {}, {"axis": 0}, {"axis": -1, "keepdims": True}, {"axis": (0, 1)}, {"ddof": 1},
    {"dtype": np.float64}, {"dtype": np.int64}, {"axis": 1, "dtype": np.float32},
)  # fmt: skip


FLOAT64 = np.dtype(np.float64)


def _data(dtype: str) -> np.ndarray:
    rng = np.random.default_rng(7)
    a = rng.standard_normal((7, 5)) * 3
    if dtype == "complex128":
        return a + 1j * a[::-1]
    if dtype == "float64":
        a[2, 3] = np.nan
        a[4, 1] = a[0, 0]  # (a tie for the arg-reductions)
    return a.astype(dtype)


def _numpy(f, a, kwargs):
    """NumPy's value, or None where NumPy refuses the arguments."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return f(a, **kwargs)
        except (TypeError, ValueError):
            return None


def _same(got, want, of: np.dtype = FLOAT64) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    tol = 1e-4 if min(want.dtype.itemsize, of.itemsize) <= 4 else 1e-10
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol, equal_nan=True)


@pytest.mark.parametrize("chunks", list(CHUNKINGS))
@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "uint8", "bool", "complex128"])
def test_reductions_are_numpys(chunks, dtype):
    a = _data(dtype)
    x = xp.asarray(a, device=xp.DASK, chunks=CHUNKINGS[chunks])
    for name in NAMES:
        for kwargs in KWARGS:
            if np.isnan(a).any() and kwargs.get("dtype") is np.int64:
                continue  # (NaN cast to an integer: no value, which the platform decides)
            want = _numpy(getattr(np, name), a, kwargs)
            if want is None:
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                got = getattr(np, name)(x, **kwargs)
            assert type(got) is xp.Array and got.device == xp.DASK, name
            _same(got, want, a.dtype)


@pytest.mark.parametrize("name", NAMES)
def test_reductions_over_unknown_sizes_and_empty_blocks_are_numpys(name):
    """A boolean mask leaves sizes unknown and blocks empty, where Dask's own variance
    is NaN (dask/dask#3906) and its running totals lose their carry."""
    a = np.arange(24.0).reshape(12, 2) - 5
    a[3, 0] = np.nan
    keep = np.array([True] * 4 + [False] * 4 + [True] * 4)  # (the middle block empty)
    x = xp.asarray(a, device=xp.DASK, chunks=(4, 2))[xp.asarray(keep, device=xp.DASK, chunks=4)]
    assert x.shape[0] is None
    for kwargs in ({}, {"axis": 0}, {"axis": 1}, {"axis": 0, "keepdims": True}):
        want = _numpy(getattr(np, name), a[keep], kwargs)
        if want is None:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _same(getattr(np, name)(x, **kwargs), want)


def test_numpys_keywords_the_namespace_lacks_keep_the_old_way():
    a = _data("float64")
    x = xp.asarray(a, device=xp.DASK, chunks=(3, 2))
    mask = a > 0
    m = xp.asarray(mask, device=xp.DASK, chunks=(3, 2))
    _same(np.sum(x, where=m), np.sum(a, where=mask))
    _same(np.max(x, axis=0, initial=100.0), np.max(a, axis=0, initial=100.0))
    _same(np.nanmean(x, axis=1, where=m), np.nanmean(a, axis=1, where=mask))
    _same(np.std(x, axis=0, mean=np.mean(x, axis=0, keepdims=True)), np.std(a, axis=0))
    out = xp.zeros((5,), device=xp.DASK)
    assert np.sum(x, axis=0, out=out) is out
    _same(out, np.sum(a, axis=0))
    _same(np.var(x, dtype=np.int64), np.var(a, dtype=np.int64))  # (NumPy's truncated mean)


@pytest.mark.parametrize("name", ["sum", "var", "argmax", "cumsum", "nanstd", "amax"])
def test_the_table_resolves_to_the_namespace_where_it_takes_the_arguments(name):
    """Which way a call takes, and the reason on the row where not the namespace's."""
    lazy = FUNCTIONS[name].lazy
    x = xp.asarray(_data("float64"), device=xp.DASK, chunks=2)._data
    b = {"a": x, "axis": None, "out": None, "dtype": None}
    assert lazy.why(b) == "" and type(lazy.way) is Compose
    assert lazy.why({**b, "out": x}) == "out= given"
    assert lazy.why({**b, "a": [x]}) == "a not an array of the device"
    assert lazy.why({**b, "a": x.astype(np.float16)}) == "dtype float16"
    assert "float16" in lazy.why.description


LIKE_CASES = (
    ("zeros_like", (), {}), ("ones_like", (), {"dtype": np.float32}), ("empty_like", (), {}),
    ("full_like", (3,), {}), ("full_like", (2.5,), {}), ("full_like", (-1,), {}),
    ("full_like", (True,), {}), ("full_like", (1j,), {}), ("full_like", (7,), {"dtype": "int16"}),
    ("zeros_like", (), {"shape": (2, 3)}), ("full_like", (300,), {}),
)  # fmt: skip


@pytest.mark.parametrize("chunks", [*CHUNKINGS, "unknown sizes"])
@pytest.mark.parametrize("dtype", ["float64", "int32", "uint8", "bool", "complex128"])
def test_like_creators_are_numpys(chunks, dtype):
    """The namespace's where the fill value is one the dtype holds as it is; NumPy's
    unsafe casts (a float into integers, a negative into unsigned ones) as before."""
    a = (np.arange(35).reshape(7, 5) - 10).astype(dtype)
    if chunks == "unknown sizes":
        rows = np.arange(7) % 2 == 0
        x = xp.asarray(a, device=xp.DASK, chunks=3)[xp.asarray(rows, device=xp.DASK, chunks=3)]
        a = a[rows]
    else:
        x = xp.asarray(a, device=xp.DASK, chunks=CHUNKINGS[chunks])
    for name, args, kwargs in LIKE_CASES:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                want = getattr(np, name)(a, *args, **kwargs)
            except OverflowError:  # (-1 or 300 into uint8: NumPy refuses)
                continue
            got = getattr(np, name)(x, *args, **kwargs)
        assert type(got) is xp.Array and got.device == xp.DASK
        got = np.asarray(got)
        assert got.dtype == want.dtype and got.shape == want.shape, (name, args, kwargs)
        if name != "empty_like":
            np.testing.assert_array_equal(got, want)


def test_like_creators_resolve_to_the_namespace_where_the_fill_is_the_dtypes():
    x = xp.asarray(np.ones((3, 3), np.int32), device=xp.DASK, chunks=2)._data
    b = {"a": x, "dtype": None, "shape": None, "device": None}
    assert FUNCTIONS["zeros_like"].lazy.why(b) == ""
    assert type(FUNCTIONS["zeros_like"].lazy.way) is Compose
    assert FUNCTIONS["zeros_like"].lazy.why({**b, "shape": (2,)}) == "shape= given"
    full = FUNCTIONS["full_like"].lazy.why
    assert full({**b, "fill_value": 2}) == ""
    assert full({**b, "fill_value": 2.5}) == "fill_value not a scalar of the dtype's kind"
    assert full({**b, "fill_value": 2**40}) == "fill_value outside the dtype's range"
