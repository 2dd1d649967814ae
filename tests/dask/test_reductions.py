"""Reductions on DASK (strict_array._backends.dask._reductions): empty blocks, unknown
sizes, NaN, against CPU."""

from __future__ import annotations

import dask
import dask.array as da
import numpy as np
import pytest
from conftest import on, to_numpy

import strict_array as xp


@pytest.mark.parametrize("name", ["cumulative_sum", "cumulative_prod"])
@pytest.mark.parametrize("include_initial", [False, True])
def test_cumulative_over_empty_and_unknown_blocks(name, include_initial):
    """Dask carries each block's last element to the next; an empty block has none
    (wrong values with unknown sizes, an error with known ones)."""
    a = np.arange(1.0, 13.0).reshape(4, 3)
    expected = getattr(xp, name)(xp.asarray(a[[0, 1, 3]]), axis=0, include_initial=include_initial)
    x = xp.asarray(a, device=xp.DASK, chunks=(1, 2))
    masked = x[xp.asarray([True, True, False, True], device=xp.DASK, chunks=1)]
    assert masked.shape == (None, 3)
    for axis in (0, 1):
        want = getattr(xp, name)(
            xp.asarray(a[[0, 1, 3]]), axis=axis, include_initial=include_initial
        )
        got = getattr(xp, name)(masked, axis=axis, include_initial=include_initial)
        np.testing.assert_array_equal(to_numpy(got), to_numpy(want))
    known_empty = xp.asarray(da.from_array(a[[0, 1, 3]], chunks=((1, 0, 2), 3)))
    got = getattr(xp, name)(known_empty, axis=0, include_initial=include_initial)
    np.testing.assert_array_equal(to_numpy(got), to_numpy(expected))


def test_max_of_an_empty_selection_fails_when_computed_naming_max():
    x = xp.asarray(np.arange(4.0), device=xp.DASK, chunks=2)
    empty = xp.max(x[x > 10.0])
    with pytest.raises(ValueError, match=r"^max: cannot reduce an empty selection"):
        to_numpy(empty)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_arg_reductions_along_known_axes_of_arrays_with_unknown_sizes(name):
    a = np.random.default_rng(0).random((4, 2, 3))
    x = xp.asarray(a, device=xp.DASK, chunks=(1, 1, 2))
    rows = np.array([True, False, True, True])
    u = x[xp.asarray(rows, device=xp.DASK)]
    for axis in (-1, 1, 0):
        for keepdims in (False, True):
            got = getattr(xp, name)(u, axis=axis, keepdims=keepdims)
            want = getattr(np, name)(a[rows], axis=axis, keepdims=keepdims)
            np.testing.assert_array_equal(to_numpy(got), want)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # (NumPy's, for the empty selection)
@pytest.mark.parametrize("name", ["var", "std"])
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
def test_moments_over_empty_blocks(name, dtype):
    """Dask weights each block's mean by its count, and an empty block's mean is NaN:
    its var and std were NaN (dask/dask#3906)."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((6, 3)).astype(dtype)
    if dtype == "complex128":
        a = a + 1j * rng.standard_normal((6, 3))
    rows = np.array([True, False, False, True, True, False])
    x = xp.asarray(a, device=xp.DASK, chunks=(1, 2))
    u = x[xp.asarray(rows, device=xp.DASK, chunks=1)]  # empty blocks, unknown sizes
    f = getattr(xp, name)
    for kwargs in ({}, {"axis": 0, "correction": 1}, {"axis": -1, "keepdims": True}):
        got = f(u, **kwargs)
        want = f(xp.asarray(a[rows]), **kwargs)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(to_numpy(got), to_numpy(want), rtol=1e-5)
    np.testing.assert_allclose(to_numpy(f(x[:0:1], axis=0)), np.full(3, np.nan))


NAN_REDUCTIONS = ["nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin",
                  "nanargmax", "nanargmin", "nancumsum", "nancumprod"]  # fmt: skip


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # (NumPy's, for all-NaN slices)
@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "bool"])
@pytest.mark.parametrize("name", NAN_REDUCTIONS)
def test_nan_reductions_over_empty_blocks_and_unknown_sizes(name, dtype):
    """Dask's own failed on unknown sizes, and its nancumsum over them returned one
    element where there were three."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((6, 3))
    a = a > 0 if dtype == "bool" else a.astype(dtype)
    if dtype.startswith("float"):
        a[1, 1] = np.nan
        a[3, 0] = np.nan
    rows = np.array([True, False, False, True, True, False])
    f = getattr(xp, name)
    for kwargs in ({}, {"axis": 0}, {"axis": -1}):
        x = xp.asarray(a, device=xp.DASK, chunks=(1, 2))
        for arr, values in ((x, a), (x[xp.asarray(rows, device=xp.DASK, chunks=1)], a[rows])):
            want = f(xp.asarray(values), **kwargs)
            got = f(arr, **kwargs)
            assert got.dtype == want.dtype
            np.testing.assert_allclose(to_numpy(got), to_numpy(want), rtol=1e-5)


def test_nan_orderings_refuse_complex_as_max_does(device):
    with pytest.raises(TypeError, match="nanmax: x has dtype complex128, but nanmax takes real"):
        xp.nanmax(on(device, np.array([1 + 1j, 2 - 1j])))


def test_complex_products_with_an_infinite_part_pinned():
    """docs/dask.md, "Complex infinities in products": NumPy's complex multiplication
    is not associative once a part is infinite (no C99 Annex G recovery of infinities),
    so the grouping of the factors decides between -inf+infj and nan+nanj. CPU is
    NumPy's ``prod`` (left to right); DASK groups the factors by its reduction tree
    across blocks (within one block it is NumPy's).
    Finite products agree to rounding; where one device gives a non-finite value, so
    does the other."""
    a = np.array([1 + 1j, 2j, complex(np.inf, 1)])
    with np.errstate(invalid="ignore"):
        left, right = (a[0] * a[1]) * a[2], a[0] * (a[1] * a[2])  # NumPy's two answers
        assert complex(to_numpy(xp.prod(xp.asarray(a)))) == np.prod(a) == left
        assert left == complex(-np.inf, np.inf) and np.isnan(right.real)
        # in one block DASK is NumPy's prod, once (not the one partial result reduced
        # again: (inf+1j) alone became nan+nanj)
        assert complex(to_numpy(xp.prod(xp.asarray(a, device=xp.DASK)))) == left
        one = to_numpy(xp.prod(xp.asarray(a[2:], device=xp.DASK)))
        np.testing.assert_array_equal(one, np.prod(a[2:]))  # inf+nanj, NumPy's bits
        got = complex(to_numpy(xp.prod(xp.asarray(a, device=xp.DASK, chunks=1))))
        assert np.isnan(got.real) and np.isnan(got.imag)  # the other grouping
        finite = a[:2]
        np.testing.assert_allclose(
            to_numpy(xp.prod(xp.asarray(finite, device=xp.DASK, chunks=1))), np.prod(finite)
        )


# --- regressions the differential suite's random programs found ------------------------------------
@pytest.mark.parametrize(
    ("shape", "mask", "axis", "op"),
    [((1, 0), [False], 0, "max"), ((1, 0), [False], 0, "argmax"), ((1, 0), [True], 1, "argmin"),
     ((2, 0), [True, True], 1, "min"), ((2, 3), [False, False], None, "max"),
     ((2, 0), [True, True], 0, "max"), ((2, 3), [False, False], 1, "max"),
     ((1, 0), [False], 0, "sum")],
)  # fmt: skip
def test_reductions_over_sizes_known_when_computed_agree_with_cpu(shape, mask, axis, op):
    """A reduction without an identity over an axis whose size is unknown until computed
    and turns out 0 is NumPy's error, even where the result is empty too ((0, 0) over
    axis 0); with an identity, or over a non-empty axis, NumPy's value."""
    outcomes = []
    for dev in (xp.CPU, xp.DASK):
        x = xp.asarray(np.arange(np.prod(shape), dtype=float).reshape(shape), device=dev)
        selected = x[xp.asarray(np.array(mask), device=dev)]
        try:
            r = np.asarray(getattr(xp, op)(selected, axis=axis))
            outcomes.append((r.shape, r.tolist()))
        except ValueError:
            outcomes.append("ValueError")
    assert outcomes[0] == outcomes[1]


def test_a_statistic_computed_in_a_planned_pass_is_not_read_again():
    """The reductions a planned pass computes first are kept: the next computation that
    needs them (scikit-learn centres X once, then asks twice) reads X once, not twice."""
    reads = []

    def block(block_info=None):
        reads.append(block_info[None]["chunk-location"])
        return np.random.default_rng(block_info[None]["chunk-location"][0]).standard_normal(
            (500, 4)
        )

    x = xp.asarray(da.map_blocks(block, chunks=((500,) * 8, (4,)), dtype=np.float64))
    centred = xp.subtract(x, xp.mean(x, axis=0), broadcast_dimensions=(1,))
    # (x, 128 KiB, is larger than what is kept: else the centred x is kept too)
    with xp.planning(threshold="8 KiB"), dask.config.set({"strict_array.keep-bytes": "16 KiB"}):
        first = float(xp.sum(centred * centred))
        assert len(reads) == 16  # the mean first, then the rest: two reads of x
        second = float(xp.max(xp.abs(centred)))
    assert len(reads) == 24  # the mean is kept: one read
    xn = np.concatenate([np.random.default_rng(i).standard_normal((500, 4)) for i in range(8)])
    np.testing.assert_allclose(
        [first, second], [((xn - xn.mean(0)) ** 2).sum(), np.abs(xn - xn.mean(0)).max()]
    )
