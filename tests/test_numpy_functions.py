"""NumPy's own functions and ufuncs on strict arrays (NEP 18, NEP 13; contract section 7).

A NumPy name keeps NumPy's meaning (every row against NumPy: tests/test_numpy_meaning.py);
here: the rank rule through NumPy's calls, its modes, policy, audit and devices,
NumPy's keywords and identities (``out=``), NumPy's writes, NumPy's array-likes beside
strict arrays, and the namespace's answer to NumPy's spellings.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import strict_array as xp
from strict_array import _numpy_api

DEVICES = ["cpu", "dask"]

# --- sample arguments ----------------------------------------------------------------------
M = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.25, 2.0]])  # SPD, well conditioned
V = np.array([0.25, 0.5, 0.75])
I = np.array([[3, 1, 2], [0, 2, 1], [1, 0, 2]])  # noqa: E741
IV = np.array([2, 0, 1])
B = I > 1
for _sample in (M, V, I, IV, B):
    _sample.setflags(write=False)  # a positional out= argument must not change the samples

#: NumPy's conversion functions: the explicit exit, which returns NumPy arrays by design
CONVERSIONS = frozenset(_numpy_api.CONVERSIONS)


def _to_strict(value: Any, device: str) -> Any:
    if isinstance(value, (list, tuple)) and any(isinstance(v, np.ndarray) for v in value):
        return type(value)(_to_strict(v, device) for v in value)
    if isinstance(value, np.ndarray):
        a = xp.asarray(value.copy())
        return a.to_device(xp.DASK, chunks=2) if device == "dask" else a
    return value


def _numpy_of(value: Any) -> Any:
    if isinstance(value, xp.Array):
        return np.asarray(value)
    if isinstance(value, list):
        return [_numpy_of(v) for v in value]
    return value


def _assert_same(name: str, got: Any, want: Any) -> None:
    """``got`` (from strict inputs) holds strict arrays equal to NumPy's ``want``."""
    if isinstance(want, (tuple, list)) and not isinstance(got, xp.Array):
        assert isinstance(got, (tuple, list)), f"{name}: {type(got)} for NumPy's {type(want)}"
        assert len(got) == len(want), name
        for g, w in zip(got, want):
            _assert_same(name, g, w)
        return
    assert not isinstance(got, (np.ndarray, np.generic)), f"{name} returned a NumPy result"
    if isinstance(want, (np.ndarray, np.generic)) or isinstance(got, xp.Array):
        assert isinstance(got, xp.Array), f"{name}: {type(got).__name__}, not a strict array"
        computed = np.asarray(got)
        assert computed.shape == np.shape(want), (name, computed.shape, np.shape(want))
        assert computed.dtype == np.asarray(want).dtype, (name, computed.dtype)
        np.testing.assert_allclose(computed, want, rtol=1e-12, atol=1e-12, err_msg=name)
    else:
        assert got == want, (name, got, want)


@pytest.mark.parametrize("name", sorted(CONVERSIONS))
def test_conversions_are_the_explicit_exit(name):
    x = xp.asarray(M).to_device(xp.DASK, chunks=2)
    out = getattr(np, name)(x)
    assert isinstance(out, np.ndarray)
    np.testing.assert_array_equal(out, M)


# --- the rank rules, modes, policy, audit and device through NumPy's calls ---------------------
def test_numpy_where_refuses_rank_promotion():
    cond, a, b = xp.ones((3, 1)) > 0, xp.ones((3, 1)), xp.zeros(3)
    with pytest.raises(xp.RankPromotionError, match=r"numpy\.where: operands of shapes \(3, 1\)"):
        np.where(cond, a, b)
    with xp.rank_promotion("allow"):
        assert np.where(cond, a, b).shape == (3, 3)
    with pytest.warns(xp.RankPromotionWarning), xp.rank_promotion("warn"):
        np.where(cond, a, b)


def test_ufuncs_and_operators_share_the_rank_rule():
    x, v = xp.ones((3, 1)), xp.ones(3)
    with pytest.raises(xp.RankPromotionError, match="subtract"):
        np.subtract(x, v)
    with xp.audit() as report:
        np.subtract(x, v)
        np.add.outer(v, v)  # explicit: no promotion
    assert report.total == 1
    [(site, count)] = [(s, c) for s, c in report.counts.items()]
    assert count == 1 and Path(__file__).name in str(site)


def test_policy_sees_the_caller_of_the_numpy_function():
    x, v = xp.ones((3, 1)), xp.ones(3)
    with xp.rank_promotion_policy({__name__: "allow"}, default="raise"):
        assert np.maximum(x, v).shape == (3, 3)
        assert np.clip(x, v, 2.0).shape == (3, 3)


@pytest.mark.parametrize("device", DEVICES)
def test_results_stay_on_the_device_and_lazy(device):
    x = _to_strict(M, device)
    for out in (np.mean(x), np.mean(x, axis=0), np.concatenate([x, x]), np.exp(x),
                np.where(x > 1, x, 0.0), np.linalg.norm(x), np.transpose(x)):  # fmt: skip
        assert isinstance(out, xp.Array) and out.device == x.device
    if device == "dask":
        assert xp.DASK.lazy and "lazy" in repr(np.mean(x))


@pytest.mark.parametrize("device", DEVICES)
def test_numpys_keywords_are_numpys(device):
    x = _to_strict(M, device)
    cases: list[tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]] = [
        (np.sum, (x,), {"where": np.asarray(B), "initial": 1.0}),
        (np.mean, (x,), {"dtype": np.float32}),
        (np.concatenate, ([x, x],), {"dtype": np.float32}),
        (np.add.reduce, (x,), {"initial": 1.0}),
        (np.round, (x, 2), {}),
        (np.sort, (x,), {"kind": "mergesort"}),
        (np.einsum, ("ii", x), {"optimize": True}),
        (np.linalg.svd, (x,), {"hermitian": True}),
        (np.linalg.pinv, (x,), {"rcond": 0.5}),
        (np.std, (x,), {"ddof": 1, "axis": 0, "mean": M.mean(axis=0, keepdims=True)}),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for f, args, kwargs in cases:
            want = f(*[_numpy_of(v) for v in args], **kwargs)
            _assert_same(getattr(f, "__name__", str(f)), f(*args, **kwargs), want)


@pytest.mark.parametrize("device", DEVICES)
def test_out_is_the_array_given(device):
    x = _to_strict(M, device)
    out = _to_strict(np.zeros((3, 3)), device)
    assert np.add(x, 1.0, out=out) is out
    np.testing.assert_array_equal(np.asarray(out), M + 1.0)
    assert np.multiply(x, 2.0, out=(out,)) is out
    total = _to_strict(np.zeros(3), device)
    assert np.sum(x, axis=0, out=total) is total
    np.testing.assert_allclose(np.asarray(total), M.sum(axis=0))
    assert np.clip(x, 0.5, 1.0, out=out) is out
    np.testing.assert_array_equal(np.asarray(out), np.clip(M, 0.5, 1.0))
    whole = _to_strict(np.zeros((3, 3)), device)
    got = np.modf(x * 1.5, out=(None, whole))
    assert got[1] is whole and type(got[0]) is xp.Array
    np.testing.assert_array_equal(np.asarray(got[0]), np.modf(M * 1.5)[0])
    np.testing.assert_array_equal(np.asarray(whole), np.modf(M * 1.5)[1])
    ints = _to_strict(np.zeros((3, 3), dtype=np.int64), device)
    with pytest.raises(TypeError):  # NumPy's own casting rule: float64 into int64 refused
        np.add(x, 1.0, out=ints)
    np.testing.assert_array_equal(np.asarray(ints), 0)  # nothing written


@pytest.mark.parametrize("device", DEVICES)
def test_numpys_writes_write_the_strict_array(device):
    x = _to_strict(M, device)
    view = x[0]
    np.copyto(x, 7.0, where=_to_strict(B, device))
    want = M.copy()
    np.copyto(want, 7.0, where=B)
    np.testing.assert_array_equal(np.asarray(x), want)
    np.testing.assert_array_equal(np.asarray(view), want[0])  # its views see the write
    np.add.at(x, _to_strict(IV, device), 1.0)
    np.add.at(want, IV, 1.0)
    np.testing.assert_array_equal(np.asarray(x), want)
    np.fill_diagonal(x, -1.0)
    np.fill_diagonal(want, -1.0)
    np.testing.assert_array_equal(np.asarray(x), want)


def test_nan_reductions_bind_numpys_own_positions():
    # NumPy's signature: ddof is nanstd's fifth positional argument, out nanmax's third
    a = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, 6.0]])
    x = xp.asarray(a)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        np.testing.assert_allclose(
            np.asarray(np.nanstd(x, 0, None, None, 1)), np.nanstd(a, 0, None, None, 1)
        )
    out = xp.zeros(3)
    assert np.nanmax(x, 0, out) is out
    np.testing.assert_array_equal(np.asarray(out), np.nanmax(a, 0))


def test_numpy_names_the_standard_lacks_give_numpys_value():
    x = xp.asarray(M)
    assert np.allclose(x, x) is True
    counts, _ = np.histogram(x)
    np.testing.assert_array_equal(np.asarray(counts), np.histogram(M)[0])
    np.testing.assert_array_equal(np.asarray(np.fmod(x, 0.7)), np.fmod(M, 0.7))
    np.testing.assert_allclose(np.asarray(np.dot(xp.ones((2, 3, 3)), x)),
                               np.dot(np.ones((2, 3, 3)), M))  # fmt: skip
    nan = xp.asarray([1.0, np.nan, np.nan])
    assert np.unique(nan).shape == (2,)  # NumPy's equal_nan=True
    np.testing.assert_array_equal(np.asarray(np.linalg.pinv(xp.asarray(np.diag([1, 7e-16])))),
                                  np.diag([1.0, 0.0]))  # NumPy's rcond=1e-15  # fmt: skip
    clipped = np.clip(xp.asarray([0, 2, 5]), 1.5, 3.5)
    assert clipped.dtype == xp.float64  # NumPy's dtype rule
    np.testing.assert_array_equal(np.asarray(clipped), [1.5, 2.0, 3.5])
    np.testing.assert_array_equal(np.asarray(np.diff(xp.asarray([1.0, 4.0, 9.0]), 1)), [3.0, 5.0])
    assert np.cov(xp.asarray(np.arange(12.0).reshape(3, 4))).shape == (3, 3)


@pytest.mark.parametrize("device", DEVICES)
def test_numpys_array_likes_beside_strict_arrays(device):
    x = _to_strict(M, device)
    for nd in (M, M.tolist(), np.float64(2.0), np.ones((1, 3))):
        got = np.add(x, nd)
        assert type(got) is xp.Array and got.device == x.device
        np.testing.assert_array_equal(np.asarray(got), M + np.asarray(nd))
    got = np.concatenate([x, M])
    assert type(got) is xp.Array and got.device == x.device
    assert np.average(M, weights=x).shape == ()  # scikit-learn's metrics do this
    # an operator with an ndarray defers to NumPy: x * nd and nd * x agree
    for a, b in ((x * M, M * x), (x == M, M == x), (x @ M, np.asarray(M @ x)), (x - M, -(M - x))):
        assert type(a) is xp.Array
        np.testing.assert_allclose(np.asarray(a), np.asarray(b))
    with pytest.raises(xp.RankPromotionError, match=r"numpy\.multiply"):
        x * V  # the rank rule, as for any operand
    with pytest.raises(xp.RankPromotionError, match=r"numpy\.multiply"):
        V * x
    y = _to_strict(M, device)
    z = y
    y += M  # NumPy's in-place operator: its ufunc into y
    assert y is z
    np.testing.assert_array_equal(np.asarray(y), 2 * M)
    # the namespace's own functions keep refusing NumPy's arrays (the standard's rule)
    with pytest.raises(TypeError, match=r"raw numpy\.ndarray .*strict_array\.asarray"):
        xp.multiply(x, M)
    with pytest.raises(TypeError, match=r"raw numpy\.ndarray"):
        xp.concat([x, M])


def test_numpy_scalars_in_numpys_calls_are_numpys():
    x = xp.asarray([1.0, 2.0], dtype=xp.float32)
    assert (np.float64(2.0) * x).dtype == xp.float64  # NumPy's ufunc: NumPy's rule (NEP 50)
    assert (x * np.float64(2.0)).dtype == xp.float64  # the same, whichever side (section 7)
    assert xp.multiply(x, np.float64(2.0)).dtype == xp.float32  # the namespace's: a scalar


def test_ufunc_methods_map_to_reductions_and_explicit_broadcasts():
    x, v = xp.asarray(M), xp.asarray(V)
    np.testing.assert_allclose(np.asarray(np.add.reduce(x)), np.add.reduce(M))
    np.testing.assert_allclose(np.asarray(np.maximum.reduce(x, axis=1)), M.max(axis=1))
    np.testing.assert_allclose(np.asarray(np.multiply.accumulate(x)), np.multiply.accumulate(M))
    np.testing.assert_allclose(np.asarray(np.multiply.outer(x, v)), np.multiply.outer(M, V))
    np.testing.assert_allclose(np.asarray(np.subtract.outer(v, 2.0)), np.subtract.outer(V, 2.0))


@pytest.mark.parametrize("device", DEVICES)
def test_norm_follows_numpy_meaning(device):
    x = _to_strict(M, device)
    for kwargs in ({}, {"ord": 1}, {"ord": "fro"}, {"ord": np.inf}, {"axis": 0},
                   {"axis": 1, "ord": 3}, {"axis": (0, 1), "keepdims": True}, {"ord": -np.inf}):  # fmt: skip
        np.testing.assert_allclose(
            np.asarray(np.linalg.norm(x, **kwargs)),
            np.linalg.norm(M, **kwargs),
            err_msg=str(kwargs),
        )


def test_asarray_computes_a_lazy_array():
    x = xp.asarray(M).to_device(xp.DASK, chunks=2)
    out = np.asarray(np.mean(x, axis=0))
    assert isinstance(out, np.ndarray)
    np.testing.assert_allclose(out, M.mean(axis=0))


# --- the namespace's answer to NumPy's spellings -----------------------------------------------
@pytest.mark.parametrize(
    ("module", "name", "hint"),
    [
        (xp, "concatenate", "strict_array.concat"),
        (xp, "transpose", "strict_array.permute_dims"),
        (xp, "dot", "strict_array.matmul"),
        (xp, "array", "strict_array.asarray"),
        (xp, "unique", "strict_array.unique_values, strict_array.unique_counts"),
        (xp, "arccos", "strict_array.acos"),
        (xp, "power", "strict_array.pow"),
        (xp, "amax", "strict_array.max"),
        (xp, "vstack", "strict_array.concat"),
        (xp.linalg, "norm", "strict_array.linalg.vector_norm or strict_array.linalg.matrix_norm"),
        (xp.fft, "fft2", "strict_array.fft.fftn"),
    ],
)
def test_namespace_names_the_standard_spelling(module, name, hint):
    with pytest.raises(AttributeError, match=re.escape(hint)):
        getattr(module, name)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"axis": 1},
        {"weights": M},
        {"weights": V, "axis": 1},
        {"weights": V, "axis": 0, "returned": True},
        {"weights": V, "axis": 1, "keepdims": True, "returned": True},
        {"axis": 0, "returned": True},
    ],
)
def test_average_follows_numpy_meaning(device, kwargs):
    want = np.average(I, **kwargs)  # integers: a floating result, as NumPy's
    got = np.average(_to_strict(I, device), **{k: _to_strict(v, device) for k, v in kwargs.items()})
    _assert_same("average", got, want)


def test_average_and_may_share_memory_errors_and_answers():
    x = xp.asarray(M)
    with pytest.raises(ZeroDivisionError, match="Weights sum to zero"):  # NumPy's own
        np.average(x, weights=xp.zeros((3, 3)))
    with pytest.raises(TypeError, match="Axis must be specified"):
        np.average(x, weights=xp.asarray(V))
    assert np.may_share_memory(x, x[0]) is True
    assert np.may_share_memory(x, xp.asarray(M, copy=True)) is False
    lazy = x.to_device(xp.DASK)
    assert np.may_share_memory(lazy, lazy[0]) is True and np.may_share_memory(x, lazy) is False
    assert np.may_share_memory(lazy, x.to_device(xp.DASK)) is False
    # a NumPy array beside a strict one (scikit-learn's validation compares its NumPy
    # copy with the array it was given): a question about memory, answered
    m = M.copy()
    assert np.may_share_memory(m, xp.asarray(m)) is True
    assert np.may_share_memory(M.copy(), x) is False
    assert np.may_share_memory(m, xp.asarray(m).to_device(xp.DASK)) is True
