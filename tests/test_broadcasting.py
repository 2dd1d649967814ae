"""docs/semantics.md sections 1-3 on both devices: every XLA example, and property tests."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from conftest import on, to_numpy
from hypothesis import assume, given
from hypothesis import strategies as st

import strict_array as xp
from strict_array import RankPromotionError


def reference(low: np.ndarray, high_shape: tuple, dims: tuple) -> np.ndarray:
    """Independent NumPy model of broadcast_dimensions: reshape, then broadcast_to."""
    expanded = [1] * len(high_shape)
    for i, d in enumerate(dims):
        expanded[d] = low.shape[i]
    return low.reshape(expanded)


# --- rule 2: equal ranks --------------------------------------------------------------
@pytest.mark.parametrize(
    "s1, s2, out",
    [
        ((2, 1), (2, 3), (2, 3)),
        ((1, 2, 5), (7, 2, 5), (7, 2, 5)),
        ((7, 2, 5), (7, 1, 5), (7, 2, 5)),
        ((2, 1), (1, 3), (2, 3)),
        ((0, 3), (1, 3), (0, 3)),
    ],
)
def test_degenerate_broadcasting(device, s1, s2, out):
    a, b = np.arange(np.prod(s1)).reshape(s1) * 1.0, np.arange(np.prod(s2)).reshape(s2) + 1.0
    r = on(device, a) + on(device, b)
    assert r.shape == out
    np.testing.assert_array_equal(to_numpy(r), a + b)
    r2 = xp.add(on(device, a), on(device, b), broadcast_dimensions=tuple(range(len(s1))))
    np.testing.assert_array_equal(to_numpy(r2), a + b)


def test_equal_rank_mismatch_names_both_shapes(device):
    with pytest.raises(ValueError, match=r"add: shapes \(7, 2, 5\) and \(7, 2, 6\).*axis 2"):
        on(device, np.ones((7, 2, 5))) + on(device, np.ones((7, 2, 6)))


@pytest.mark.parametrize("dims", [(1, 0), (0,), (0, 1, 2), (0, 0)])
def test_equal_rank_dims_must_be_identity(device, dims):
    with pytest.raises(ValueError, match="identity"):
        xp.add(on(device, np.ones((2, 2))), on(device, np.ones((2, 2))), broadcast_dimensions=dims)


def test_zero_d_dims(device):
    a = on(device, np.float64(2.0))
    assert float(xp.add(a, a, broadcast_dimensions=())) == 4.0


# --- rule 1: scalars --------------------------------------------------------------------
def test_scalars_broadcast_freely(device):
    x = on(device, np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(to_numpy(x * 2), np.arange(6.0).reshape(2, 3) * 2)
    np.testing.assert_array_equal(to_numpy(2 - x), 2 - np.arange(6.0).reshape(2, 3))
    zero_d = on(device, np.float64(3.0))
    np.testing.assert_array_equal(to_numpy(x + zero_d), np.arange(6.0).reshape(2, 3) + 3)
    assert xp.add(x, 1.0, broadcast_dimensions=()).shape == (2, 3)


def test_scalar_with_dims_is_error(device):
    x = on(device, np.ones((2, 3)))
    with pytest.raises(ValueError, match="scalar"):
        xp.add(x, 1.0, broadcast_dimensions=(0,))
    with pytest.raises(ValueError, match="scalar"):
        xp.add(on(device, np.float64(1)), x, broadcast_dimensions=(1,))


def test_shape_one_is_not_a_scalar(device):
    with pytest.raises(RankPromotionError):
        on(device, np.ones((2, 3))) + on(device, np.ones(1))


# --- rule 3: XLA's examples ------------------------------------------------------------
@pytest.mark.parametrize(
    "s_first, s_second, dims, out",
    [
        ((2, 3), (3,), (1,), (2, 3)),
        ((3, 3), (3,), (0,), (3, 3)),
        ((4,), (1, 2), (0,), (4, 2)),
        ((1, 2), (4, 3, 1), (1, 2), (4, 3, 2)),
        ((2, 3), (2, 1, 4), (0, 1), (2, 3, 4)),
    ],
)
def test_xla_examples(device, s_first, s_second, dims, out):
    a = np.arange(np.prod(s_first), dtype=float).reshape(s_first)
    b = np.arange(np.prod(s_second), dtype=float).reshape(s_second) * 10
    r = xp.add(on(device, a), on(device, b), broadcast_dimensions=dims)
    assert r.shape == out
    if a.ndim < b.ndim:
        expected = reference(a, b.shape, dims) + b
    else:
        expected = a + reference(b, a.shape, dims)
    np.testing.assert_array_equal(to_numpy(r), expected)


def test_column_broadcast_differs_from_numpy(device):
    """(3,3) + (3,) with (0,) adds the vector down the columns, not along rows."""
    m, v = np.zeros((3, 3)), np.array([1.0, 2.0, 3.0])
    r = xp.add(on(device, m), on(device, v), broadcast_dimensions=(0,))
    np.testing.assert_array_equal(to_numpy(r), v[:, None] + m)


def test_classic_outer_product_bug_is_refused(device):
    n = 5
    col = on(device, np.ones((n, 1)))
    row = on(device, np.ones(n))
    with pytest.raises(RankPromotionError, match=r"\(5, 1\) and \(5,\)"):
        col - row


@pytest.mark.parametrize("name", sorted(xp._elementwise.BINARY))
def test_every_binary_function_is_strict(device, name):
    func = getattr(xp, name)
    dtype = bool if name.startswith("logical") else (np.int64 if "bitwise" in name else float)
    a = on(device, np.ones((2, 3), dtype=dtype))
    b = on(device, np.ones(3, dtype=dtype))
    with pytest.raises(RankPromotionError, match=name):
        func(a, b)
    with pytest.raises(RankPromotionError, match=name):
        func(b, a)
    r = func(a, b, broadcast_dimensions=(1,))
    assert r.shape == (2, 3)


# --- validation order and messages (section 1.3) ----------------------------------------
@pytest.mark.parametrize(
    "dims, exc, pattern",
    [
        ((0, 1), ValueError, "has 2 entries"),
        ((True,), TypeError, "never booleans"),
        ((1.0,), TypeError, "entries must be integers"),
        ((-1,), ValueError, "outside"),
        ((2,), ValueError, "outside"),
        ((0,), ValueError, r"maps axis 0 \(size 3\).*axis 0 \(size 2\)"),
        ("ab", TypeError, "tuple of ints"),
    ],
)
def test_invalid_dims(device, dims, exc, pattern):
    x, v = on(device, np.ones((2, 3))), on(device, np.ones(3))
    with pytest.raises(exc, match=pattern):
        xp.add(x, v, broadcast_dimensions=dims)
    with pytest.raises(exc, match=pattern):
        xp.add(v, x, broadcast_dimensions=dims)


def test_not_increasing(device):
    x, m = on(device, np.ones((3, 3, 3))), on(device, np.ones((3, 3)))
    with pytest.raises(ValueError, match="strictly increasing"):
        xp.multiply(x, m, broadcast_dimensions=(1, 0))
    with pytest.raises(ValueError, match="strictly increasing"):
        xp.multiply(x, m, broadcast_dimensions=(1, 1))


def test_error_lists_all_candidates_and_keepdims():
    x, v = xp.ones((3, 3)), xp.ones(3)
    with pytest.raises(RankPromotionError) as info:
        x - v
    msg = str(info.value)
    assert "subtract" in msg and "(3, 3)" in msg and "(3,)" in msg
    assert "broadcast_dimensions=(1,) (NumPy's trailing alignment)" in msg
    assert "broadcast_dimensions=(0,)" in msg
    assert "keepdims=True" in msg


def test_reduction_result_suggests_keepdims():
    x = xp.ones((5, 3))
    with pytest.raises(RankPromotionError, match=r"broadcast_dimensions=\(0,\).*keepdims=True"):
        x - xp.mean(x, axis=1)
    centred = x - xp.mean(x, axis=1, keepdims=True)
    assert centred.shape == (5, 3)


# --- properties ---------------------------------------------------------------------------
sizes = st.integers(0, 4)


@st.composite
def promotion_cases(draw):
    high = tuple(draw(st.lists(sizes, min_size=1, max_size=4)))
    low_ndim = draw(st.integers(1, len(high) - 1)) if len(high) > 1 else 0
    assume(low_ndim >= 1)
    dims = tuple(
        sorted(draw(st.sets(st.integers(0, len(high) - 1), min_size=low_ndim, max_size=low_ndim)))
    )
    low = tuple(draw(st.sampled_from([high[d], 1])) for d in dims)
    swap = draw(st.booleans())
    return high, low, dims, swap


@given(case=promotion_cases(), data=st.data())
def test_valid_dims_match_numpy_reference(case, data):
    high, low, dims, swap = case
    device = data.draw(st.sampled_from([xp.CPU, xp.DASK]))
    a = np.arange(int(np.prod(high)), dtype=float).reshape(high)
    b = np.arange(int(np.prod(low)), dtype=float).reshape(low) * 7 - 3
    expected_b = np.broadcast_to(reference(b, high, dims), high)
    if swap:
        r = xp.subtract(on(device, b), on(device, a), broadcast_dimensions=dims)
        expected = expected_b - a
    else:
        r = xp.subtract(on(device, a), on(device, b), broadcast_dimensions=dims)
        expected = a - expected_b
    assert r.shape == high
    np.testing.assert_array_equal(to_numpy(r), expected)


def _is_valid(low, high, dims):
    if len(dims) != len(low) or any(not 0 <= d < len(high) for d in dims):
        return False
    if any(low[i] not in (1, high[d]) and high[d] != 1 for i, d in enumerate(dims)):
        return False
    return all(a < b for a, b in itertools.pairwise(dims))


@given(
    high=st.lists(sizes, min_size=2, max_size=4).map(tuple),
    low=st.lists(sizes, min_size=1, max_size=3).map(tuple),
    dims=st.lists(st.integers(-2, 4), max_size=4).map(tuple),
    mode=st.sampled_from(["raise", "warn", "allow"]),
)
def test_invalid_dims_always_raise_in_every_mode(high, low, dims, mode):
    assume(len(low) < len(high))
    assume(not _is_valid(low, high, dims))
    a, b = xp.ones(high), xp.ones(low)
    with xp.rank_promotion(mode), pytest.raises((ValueError, TypeError)):
        xp.add(a, b, broadcast_dimensions=dims)


@given(
    high=st.lists(sizes, min_size=2, max_size=4).map(tuple),
    low=st.lists(sizes, min_size=1, max_size=3).map(tuple),
)
def test_missing_dims_raise_with_every_valid_candidate(high, low):
    assume(len(low) < len(high))
    with pytest.raises(RankPromotionError) as info:
        xp.ones(high) * xp.ones(low)
    msg = str(info.value)
    valid = [
        c for c in itertools.combinations(range(len(high)), len(low)) if _is_valid(low, high, c)
    ]
    for c in valid[:8]:
        assert f"broadcast_dimensions={c}" in msg


# --- broadcast_in_dim (section 3) --------------------------------------------------------
def test_broadcast_in_dim_is_read_only_view():
    v = xp.asarray([1.0, 2.0, 3.0])
    b = xp.broadcast_in_dim(v, (3, 4), (0,))
    assert np.shares_memory(b._data, v._data)
    assert not b._data.flags.writeable
    np.testing.assert_array_equal(to_numpy(b), np.repeat([[1.0], [2.0], [3.0]], 4, axis=1))


def test_broadcast_in_dim_equal_rank_and_lazy(device):
    x = on(device, np.arange(3.0).reshape(1, 3))
    b = xp.broadcast_in_dim(x, (4, 3), (0, 1))
    np.testing.assert_array_equal(to_numpy(b), np.broadcast_to(np.arange(3.0), (4, 3)))


@pytest.mark.parametrize(
    "shape, target, dims, pattern",
    [
        ((3,), (3,), (1,), "outside"),
        ((2, 3), (3,), (0, 1), "lower-rank"),
        ((3,), (3, 4), (1,), "size 3"),
        ((4, 4), (3, 4, 4), (2, 1), "strictly increasing"),
        ((3,), (4, 3), (), "has 0 entries"),
    ],
)
def test_broadcast_in_dim_invalid(device, shape, target, dims, pattern):
    with pytest.raises(ValueError, match=pattern):
        xp.broadcast_in_dim(on(device, np.ones(shape)), target, dims)


@given(case=promotion_cases())
def test_broadcast_in_dim_matches_reference(case):
    high, low, dims, _ = case
    b = np.arange(int(np.prod(low)), dtype=float).reshape(low)
    r = xp.broadcast_in_dim(xp.asarray(b), high, dims)
    np.testing.assert_array_equal(to_numpy(r), np.broadcast_to(reference(b, high, dims), high))


# --- section 2: other places -----------------------------------------------------------
def test_where_and_clip(device):
    c = on(device, np.array([[True, False, True]]))
    x = on(device, np.ones((2, 3)))
    assert xp.where(c, x, 0.0).shape == (2, 3)
    with pytest.raises(RankPromotionError, match="where"):
        xp.where(on(device, np.array([True, False, True])), x, 0.0)
    with pytest.raises(RankPromotionError, match="clip"):
        xp.clip(x, on(device, np.zeros(3)), 1.0)
    with pytest.raises(RankPromotionError, match="clip"):  # min against max, too
        xp.clip(on(device, np.float64(0.5)), on(device, np.zeros(3)), x)
    np.testing.assert_array_equal(
        to_numpy(xp.clip(x, on(device, np.zeros((1, 3))), 0.5)), np.full((2, 3), 0.5)
    )
    # x broadcasts with same-rank bounds, as the standard says
    assert xp.clip(on(device, np.zeros((2, 1))), on(device, np.ones((1, 3)))).shape == (2, 3)


def test_inplace_keeps_shape_and_dtype(device):
    x = on(device, np.ones((1, 3)))
    with pytest.raises(ValueError, match="cannot change the shape"):
        x += on(device, np.ones((2, 3)))
    i = on(device, np.ones(3, dtype=np.int64))
    with pytest.raises(TypeError, match="cannot change the dtype"):
        i += 1.5
    y = on(device, np.ones((2, 3)))
    with pytest.raises(RankPromotionError):
        y += on(device, np.ones(3))
    y += on(device, np.ones((1, 3)))
    y *= 2
    np.testing.assert_array_equal(to_numpy(y), np.full((2, 3), 4.0))


def test_refused_writes_write_nothing(device):
    """The writes' fast paths (in-place operators, ``x[key] = v``) refuse what the
    general path refuses, with its error, and leave the array as it was."""
    for dt in (np.float32, np.float64, np.int8):  # (the fast paths take the dtypes that
        on(device, np.ones(1, dt)) + on(device, np.ones(1, dt))  # the general path saw)
    f32 = on(device, np.ones(3, dtype=np.float32))
    with pytest.raises(TypeError, match="cannot change the dtype"):
        f32 += on(device, np.full(3, 2.0))  # float64 would be cast into float32
    i8 = on(device, np.ones(3, dtype=np.int8))
    with pytest.raises((OverflowError, TypeError), match=r"int8|out of bounds"):
        i8 += 300
    with pytest.raises(OverflowError, match="out of bounds"):
        i8[0] = 300
    with pytest.raises(TypeError, match="float"):
        i8[1:] = 1.5
    with pytest.raises(TypeError, match="lossy cast"):
        i8[0] = on(device, np.ones((), dtype=np.int16))
    mask = on(device, np.array([True, False, True]))
    with pytest.raises(ValueError):
        f32[mask] = on(device, np.ones(3, dtype=np.float32))  # 3 values into 2 places
    with pytest.raises(RankPromotionError, match="__setitem__"):
        on(device, np.ones((2, 3)))[0:1] = on(device, np.ones(3))
    np.testing.assert_array_equal(to_numpy(f32), np.ones(3, dtype=np.float32))
    np.testing.assert_array_equal(to_numpy(i8), np.ones(3, dtype=np.int8))
    # what they accept: a wider dtype on the left, a mask of x's shape, an int
    f64 = on(device, np.ones(3))
    f64 += on(device, np.full(3, 2.0, dtype=np.float32))
    f64[mask] = 0.5
    f64[1] = 7
    np.testing.assert_array_equal(to_numpy(f64), [0.5, 7.0, 0.5])


def test_inplace_mutates_views_on_cpu():
    x = xp.zeros((2, 3))
    row = x[0]
    row += 1.0
    np.testing.assert_array_equal(to_numpy(x), [[1, 1, 1], [0, 0, 0]])


def test_setitem_rank_rule(device):
    x = on(device, np.zeros((3, 4)))
    x[0:2, :] = on(device, np.ones((1, 4)))
    with pytest.raises(RankPromotionError, match="__setitem__"):
        x[0:2, :] = on(device, np.ones(4))
    x[0] = on(device, np.full(4, 2.0))
    x[...] = x + 0.0
    with pytest.raises(TypeError, match="float"):
        on(device, np.zeros(3, dtype=np.int64))[0] = 1.5
    expected = np.zeros((3, 4))
    expected[0:2] = 1
    expected[0] = 2
    np.testing.assert_array_equal(to_numpy(x), expected)


def test_matmul_batch_ranks(device):
    a = on(device, np.ones((2, 3, 4)))
    m = on(device, np.ones((4, 5)))
    with pytest.raises(RankPromotionError, match="matmul"):
        a @ m
    assert (a @ on(device, np.ones((1, 4, 5)))).shape == (2, 3, 5)
    assert (a @ on(device, np.ones(4))).shape == (2, 3)  # a vector keeps its meaning
    with pytest.raises(RankPromotionError, match="vecdot"):
        xp.vecdot(a, on(device, np.ones(4)))
    with pytest.raises(RankPromotionError, match="solve"):
        xp.linalg.solve(on(device, np.eye(3)[None]), on(device, np.ones((3, 2))))


# --- remembered plans: every call still checked and decided ----------------------------
def test_remembered_plans_raise_every_invalid_call(device):
    """A plan is kept only for valid arguments in normal form: an invalid spelling that
    equals a kept key (``True == 1``) still raises, at every call."""
    x, v = on(device, np.ones((2, 3))), on(device, np.arange(3.0))
    expected = np.ones((2, 3)) + np.arange(3.0)
    for _ in range(2):
        np.testing.assert_array_equal(to_numpy(xp.add(x, v, broadcast_dimensions=(1,))), expected)
        for bad in ((True,), (np.True_,)):
            with pytest.raises(TypeError, match="never booleans"):
                xp.add(x, v, broadcast_dimensions=bad)
        with pytest.raises(ValueError, match="outside"):
            xp.add(x, v, broadcast_dimensions=(2,))
        for other in ([1], (np.int64(1),)):  # other valid spellings: planned each time
            np.testing.assert_array_equal(
                to_numpy(xp.add(x, v, broadcast_dimensions=other)), expected
            )
    m = on(device, np.ones((2, 1)))
    for _ in range(2):
        assert xp.broadcast_in_dim(v, (2, 3), (1,)).shape == (2, 3)
        with pytest.raises(TypeError, match="never booleans"):
            xp.broadcast_in_dim(v, (2, 3), (True,))
        with pytest.raises(ValueError, match=r"size 3\) of shape \(3,\) to axis 0 \(size 2\)"):
            xp.broadcast_in_dim(v, (2, 2), (0,))
        assert xp.broadcast_in_dim(m, (2, 3), (0, 1)).shape == (2, 3)
        assert xp.sum_to(x, (3,), broadcast_dimensions=(1,)).shape == (3,)
        with pytest.raises(TypeError, match="never booleans"):
            xp.sum_to(x, (3,), broadcast_dimensions=(True,))


def test_remembered_plans_leave_every_promotion_to_the_policy(device):
    """The shape rules' plan is kept; the policy's decision is taken at every call."""
    x, v = on(device, np.ones((2, 3))), on(device, np.arange(3.0))
    with xp.audit() as report:
        for _ in range(3):
            _ = x - v
            _ = xp.sum_to(x, (3,))
    assert report.total == 6
    for _ in range(2):
        with pytest.raises(RankPromotionError):
            _ = x - v
        with pytest.raises(RankPromotionError):
            xp.sum_to(x, (3,))
    with xp.rank_promotion("warn"), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            _ = x - v
    assert [w.category for w in caught] == [xp.RankPromotionWarning] * 3


def test_remembered_plans_are_bounded(monkeypatch):
    from strict_array import _broadcasting

    monkeypatch.setattr(_broadcasting, "_MAX_PLANS", 4)
    plans = _broadcasting.binary_plan.plans
    for n in range(1, 12):
        x = xp.ones((2, n))
        _ = xp.add(x, xp.ones(n), broadcast_dimensions=(1,))
        assert len(plans) <= 4
    a, b = xp.ones((2, 11)), xp.ones(11)  # a kept plan gives the same result as a new one
    np.testing.assert_array_equal(to_numpy(xp.add(a, b, broadcast_dimensions=(1,))), 2.0)
