"""docs/semantics.md section 5: sum_to is the exact adjoint of broadcast_in_dim."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import on, to_numpy
from hypothesis import assume, given
from hypothesis import strategies as st

import strict_array as xp
from strict_array import RankPromotionError


@st.composite
def adjoint_cases(draw):
    big = tuple(draw(st.lists(st.integers(1, 4), min_size=0, max_size=4)))
    ndim = draw(st.integers(0, len(big)))
    dims = (
        tuple(
            sorted(
                draw(st.sets(st.integers(0, max(len(big) - 1, 0)), min_size=ndim, max_size=ndim))
            )
        )
        if big
        else ()
    )
    small = tuple(draw(st.sampled_from([big[d], 1])) for d in dims)
    return big, small, dims


def numpy_sum_to(g: np.ndarray, small: tuple, dims: tuple) -> np.ndarray:
    """Independent reference: sum every axis not kept, then the size-1 kept ones."""
    unmapped = tuple(a for a in range(g.ndim) if a not in dims)
    out = g.sum(axis=unmapped) if unmapped else g
    ones = tuple(i for i, s in enumerate(small) if s == 1 and out.shape[i] != 1)
    return out.sum(axis=ones, keepdims=True).reshape(small) if ones else out.reshape(small)


@given(case=adjoint_cases(), seed=st.integers(0, 2**16), data=st.data())
def test_adjoint_of_broadcast_in_dim(case, seed, data):
    big, small, dims = case
    device = data.draw(st.sampled_from([xp.CPU, xp.DASK]))
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(small)
    g = rng.standard_normal(big)
    lhs = np.sum(to_numpy(xp.broadcast_in_dim(on(device, a), big, dims)) * g)
    s = xp.sum_to(on(device, g), small, dims)
    assert s.shape == small and s.device is device
    rhs = np.sum(a * to_numpy(s))
    np.testing.assert_allclose(lhs, rhs, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(to_numpy(s), numpy_sum_to(g, small, dims), rtol=1e-12, atol=1e-12)


def test_dezero_example(device):
    g = on(device, np.ones((3, 4, 5)))
    with pytest.raises(RankPromotionError, match=r"\(1,\).*\(3, 4, 5\).*\(2,\)"):
        xp.sum_to(g, (1,))
    r = xp.sum_to(g, (1,), broadcast_dimensions=(2,))
    np.testing.assert_array_equal(to_numpy(r), [60.0])
    with xp.rank_promotion("allow"):
        np.testing.assert_array_equal(to_numpy(xp.sum_to(g, (1,))), [60.0])


def test_column_case_is_exact(device):
    """(3,3) + v(3,) with (0,): the gradient of v sums each row, not each column."""
    g = np.arange(9.0).reshape(3, 3)
    r = xp.sum_to(on(device, g), (3,), (0,))
    np.testing.assert_array_equal(to_numpy(r), g.sum(axis=1))
    assert not np.array_equal(g.sum(axis=1), g.sum(axis=0))


def test_same_rank_and_scalar_targets(device):
    g = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(
        to_numpy(xp.sum_to(on(device, g), (2, 1, 4))), g.sum(1, keepdims=True)
    )
    np.testing.assert_array_equal(to_numpy(xp.sum_to(on(device, g), ())), g.sum())
    np.testing.assert_array_equal(to_numpy(xp.sum_to(on(device, g), (2, 3, 4))), g)


def test_warn_mode_uses_trailing_alignment():
    with xp.rank_promotion("warn"), pytest.warns(xp.RankPromotionWarning, match="sum_to"):
        r = xp.sum_to(xp.ones((3, 4)), (4,))
    np.testing.assert_array_equal(to_numpy(r), np.full(4, 3.0))


@pytest.mark.parametrize(
    "shape, target, dims, exc, pattern",
    [
        ((3,), (3, 1), None, ValueError, "more axes"),
        ((3, 4), (2, 4), None, ValueError, "target axis 0 has size 2"),
        ((3, 4), (3,), (1,), ValueError, "size 3.*size 4"),
        ((3, 4, 5), (4, 3), (1, 0), ValueError, "strictly increasing"),
        ((3, 4), (3, 4), (1, 0), ValueError, "identity"),
        ((3, 4), (), (0,), ValueError, "scalar"),
        ((3, 4), (3,), (0, 1), ValueError, "2 entries"),
        ((3, 4), (3,), (True,), TypeError, "never booleans"),
        ((3, 4), (3,), (-2,), ValueError, "outside"),
    ],
)
def test_invalid_targets(device, shape, target, dims, exc, pattern):
    for mode in ("raise", "warn", "allow"):
        with xp.rank_promotion(mode), pytest.raises(exc, match=pattern):
            xp.sum_to(on(device, np.ones(shape)), target, dims)


@given(
    big=st.lists(st.integers(1, 4), min_size=1, max_size=4).map(tuple),
    small=st.lists(st.integers(0, 5), max_size=4).map(tuple),
    dims=st.one_of(st.none(), st.lists(st.integers(-1, 4), max_size=4).map(tuple)),
)
def test_random_invalid_targets_raise(big, small, dims):
    def valid():
        if len(small) > len(big):
            return False
        d = tuple(range(len(big))) if len(small) == len(big) and dims is None else dims
        if len(small) == 0:
            return dims in (None, ())
        if d is None:
            return False  # raise mode
        if len(d) != len(small) or any(not 0 <= i < len(big) for i in d):
            return False
        if any(a >= b for a, b in itertools.pairwise(d)):
            return False
        if len(small) == len(big) and d != tuple(range(len(big))):
            return False
        return all(small[i] in (1, big[j]) for i, j in enumerate(d))

    assume(not valid())
    with pytest.raises((ValueError, TypeError)):
        xp.sum_to(xp.ones(big), small, dims)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64, np.complex128])
def test_dtypes_kept(device, dtype):
    g = on(device, (np.arange(12) % 5).reshape(3, 4).astype(dtype))
    r = xp.sum_to(g, (4,), (1,))
    assert r.dtype == np.dtype(dtype) and r.device is device
    np.testing.assert_array_equal(
        to_numpy(r), ((np.arange(12) % 5).reshape(3, 4).astype(dtype)).sum(0)
    )


def test_dask_sum_to_is_lazy_tree_reduction():
    import dask.array as da

    g = xp.asarray(da.ones((64, 8), chunks=(8, 8)))
    r = xp.sum_to(g, (8,), (1,))
    assert isinstance(r._data, da.Array)
    raw = da.ones((64, 8), chunks=(8, 8)).sum(axis=0)  # the hand-written reduction
    assert len(r._data.__dask_graph__()) == len(raw.__dask_graph__())
    np.testing.assert_array_equal(to_numpy(r), np.full(8, 64.0))
