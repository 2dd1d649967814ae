"""What every part of the DASK device relies on (strict_array._backends.dask._basics):
arrays made from nothing made again in their partners' blocks (not rechunked),
constants kept constant through what rearranges them, blocks of unknown sizes paired
element for element, broadcast blocks kept within the chunk size, and blocks that
select nothing dropped."""

from __future__ import annotations

import math

import dask
import dask.array as da
import numpy as np
import pytest
from conftest import run_as, to_numpy

import strict_array as xp

RNG = np.random.default_rng(0)


def test_arange_and_what_scalars_make_of_it_take_their_partners_blocks():
    """``arange`` (and ``3 * arange(n)``, ``arange(n) + 1``) is made again in its
    partner's blocks, not rechunked: in Dask's 128 MiB blocks, rechunked to a store's
    labels, it was made whole first (256 MiB held on 8 GiB of data). NumPy's values;
    an operand read from data keeps its blocks as Dask pairs them."""
    labels = xp.asarray(RNG.integers(0, 3, 1000), device=xp.DASK, chunks=70)
    for make in (
        lambda: xp.arange(1000, device=xp.DASK),
        lambda: 3 * xp.arange(1000, device=xp.DASK),
        lambda: xp.arange(1000, device=xp.DASK) * 3 + 1,
        lambda: xp.arange(5, 2005, 2, device=xp.DASK, dtype=xp.float64),
    ):
        made = make()  # (in one block of Dask's, the labels in blocks of 70)
        assert made._data.chunks != labels._data.chunks
        out = labels + made
        assert out._data.chunks == labels._data.chunks
        assert not [n for n in out._data.__dask_graph__().layers if n.startswith("rechunk")]
        np.testing.assert_array_equal(np.asarray(out), np.asarray(labels) + np.asarray(make()))
    weighted = xp.asarray(RNG.random(1000), device=xp.DASK, chunks=400)
    out = labels + weighted  # (neither is made from nothing: Dask pairs them)
    np.testing.assert_allclose(np.asarray(out), np.asarray(labels) + np.asarray(weighted))


def test_a_tiled_small_array_is_made_again_in_its_partners_blocks():
    """``xp.tile(quantile, (n, 1))`` (scikit-learn's ``d2_pinball_score``) is made in
    blocks of Dask's chunk size; met with a target's rows it is broadcast again in
    their blocks, not rechunked (its pieces were made at once and waited for their
    rows: 248 MiB on 8 GiB of data). NumPy's values."""
    n = 1000
    y = xp.asarray(RNG.standard_normal((n, 1)), device=xp.DASK, chunks=(70, 1))
    q = xp.asarray(np.asarray([0.25]), device=xp.DASK)
    with dask.config.set({"array.chunk-size": "2KiB"}):
        tiled = xp.tile(q, (n, 1))
    assert tiled._data.chunks != y._data.chunks
    out = y - tiled
    assert out._data.chunks == y._data.chunks
    assert not [n for n in out._data.__dask_graph__().layers if n.startswith("rechunk")]
    np.testing.assert_array_equal(np.asarray(out), np.asarray(y) - 0.25)
    pair = xp.asarray(np.asarray([[1.0, 2.0]]), device=xp.DASK)
    wide = xp.tile(pair, (n, 1))  # (copies of two columns: the other axis differs)
    z = xp.asarray(RNG.standard_normal((n, 2)), device=xp.DASK, chunks=(70, 1))
    np.testing.assert_array_equal(np.asarray(z + wide), np.asarray(z) + np.asarray([[1.0, 2.0]]))


def test_a_constant_stays_constant_through_what_rearranges_it():
    """``ones(n)``, ``zeros``, ``full`` and ``*_like``, and what only rearranges, casts or
    slices them, are constant arrays made from nothing, in the result's blocks: a
    sorted, tiled and transposed ``ones(n)`` (scikit-learn's default weights in
    ``_weighted_percentile``) is ``ones`` again, not a gather of a sort, and meets a
    partner's blocks without a rechunk. NumPy's values; ``empty`` is not constant."""
    from strict_array._backends.dask._basics import constant_value

    n = 1000
    ones = xp.ones(n, device=xp.DASK)
    weights = xp.permute_dims(xp.tile(ones, (1, 1)), (1, 0))  # (n, 1)
    x = xp.asarray(RNG.standard_normal((n, 1)), device=xp.DASK, chunks=(70, 1))
    with dask.config.set({"array.chunk-size": "2KiB"}):
        sorted_weights = run_as(
            "sklearn.utils", "xp.take_along_axis(w, xp.argsort(x, axis=0), axis=0)", w=weights, x=x
        )
    made = {
        "tiled and transposed": (weights, np.ones((n, 1))),
        "reshaped, cast": (xp.astype(xp.reshape(weights, (-1,)), xp.float32), np.ones(n, np.float32)),
        "sliced": (weights[10:-5:3, ...], np.ones((n, 1))[10:-5:3, ...]),
        "by a NumPy index": (ones[np.asarray([3, 1, 3])], np.ones(3)),
        "taken along a sort": (sorted_weights, np.ones((n, 1))),
        "zeros_like": (xp.zeros_like(x), np.zeros((n, 1))),
        "full_like": (xp.full_like(x, 2.5), np.full((n, 1), 2.5)),
        "full, broadcast": (xp.broadcast_to(xp.full((1, 3), 7, device=xp.DASK), (4, 3)), np.full((4, 3), 7)),
        "permuted": (xp.permute_dims(xp.zeros((2, 3, 4), device=xp.DASK), (2, 0, 1)), np.zeros((4, 2, 3))),
    }  # fmt: skip
    for what, (made_array, want) in made.items():
        data = made_array._data
        assert constant_value(data) == want.flat[0], what
        # made from nothing: one layer, no task of another array's
        assert len(data.__dask_graph__().layers) == 1, (what, list(data.__dask_graph__().layers))
        assert made_array.dtype == xp.asarray(want).dtype
        np.testing.assert_array_equal(np.asarray(made_array), want)
    out = x * weights  # (the partner's blocks, made there)
    assert out._data.chunks == x._data.chunks
    assert not [n for n in out._data.__dask_graph__().layers if n.startswith("rechunk")]
    assert constant_value(xp.empty(n, device=xp.DASK)._data) is None
    assert constant_value((ones * 2)._data) is None  # (arithmetic: made again, not constant)


def test_selections_that_select_nothing_pair_whatever_their_blocks():
    """array-api-extra's isclose selects both operands by a mask that is all False: 128
    empty blocks of a long vector beside 2 of a broadcast scalar (log_loss on 8 GiB).
    Blocks that select nothing are dropped, so the two pair as NumPy's would."""
    a = xp.asarray(np.ones(1280), device=xp.DASK, chunks=10)
    b = xp.asarray(da.broadcast_to(da.asarray(1.0), (1280,), chunks=640))
    cond = xp.isinf(a)
    ta, tb = run_as("array_api_extra._lib", "(a[cond], b[cond])", a=a, b=b, cond=cond)
    both = xp.isinf(ta) & xp.isinf(tb)
    assert both.shape == (0,) and np.asarray(both).shape == (0,)
    half = xp.asarray(np.arange(1280) >= 600, device=xp.DASK, chunks=10)
    picked = run_as("sklearn.utils", "a[half]", a=a, half=half)
    assert picked.shape == (680,) and 0 not in picked._data.chunks[0]
    assert float(xp.sum(picked)) == 680.0


@pytest.mark.parametrize("make", ["ones", "full"])
def test_an_array_made_from_nothing_takes_its_partners_blocks(make):
    """``ones(n)`` in Dask's default blocks met with an input's rows, element-wise or in
    a product (RidgeCV's ``sqrt_sw``): made again in the rows' blocks, no rechunk,
    and fused into the tasks that use it (no layer of its own left after Dask's
    optimisation), so that no piece waits in memory for its rows."""
    n = 4000
    x = xp.asarray(da.from_array(np.arange(n * 3.0).reshape(n, 3), chunks=(250, 3)))
    y = xp.asarray(da.from_array(np.arange(n, dtype=np.float64), chunks=250))
    w = (
        xp.ones(n, device=xp.DASK, chunks=n) if make == "ones"
        else xp.full(n, 2.0, device=xp.DASK, chunks=n)
    )  # fmt: skip
    fill = 1.0 if make == "ones" else 2.0
    for out, want in [
        (y * w, np.arange(n) * fill),
        (w - y, fill - np.arange(n)),
        (x.mT @ w, np.arange(n * 3.0).reshape(n, 3).T @ np.full(n, fill)),
    ]:
        graph = out._data.__dask_graph__()
        assert not [name for name in graph.layers if name.startswith("rechunk")]
        optimised = dask.optimize(out._data)[0].__dask_graph__()
        assert not [name for name in optimised.layers if name.startswith(("ones", "full"))]
        np.testing.assert_array_equal(np.asarray(out), want)
    assert (y * w)._data.chunks == y._data.chunks


def test_elementwise_operands_of_unknown_sizes_from_different_masks():
    """Dask pairs blocks by position and NumPy broadcasts a one-element block: x + y of
    selections with other blocks gave 6 values for 3 (silently), or failed for equal sizes."""
    a = np.arange(1.0, 7.0).reshape(1, 6)
    x = xp.asarray(a, device=xp.DASK, chunks=-1)
    one_block = x[x != 0]  # 6 values, one block
    m = np.array([[True, False, True, True, False, True]])
    two_blocks = x[xp.asarray(m, device=xp.DASK, chunks=((1,), (2, 4)))]  # 4 values, 2 blocks
    m3 = np.array([[True, True, True, True, True, False]])
    three = x[xp.asarray(m3, device=xp.DASK, chunks=((1,), (1, 2, 3)))][:, None]  # (5, 1)
    with pytest.raises(ValueError, match="could not be broadcast"):
        to_numpy(one_block + two_blocks)
    same_count = x[xp.asarray(m, device=xp.DASK, chunks=((1,), (3, 3)))]
    np.testing.assert_array_equal(to_numpy(two_blocks * same_count), a[m] * a[m])
    np.testing.assert_array_equal(
        to_numpy(xp.where(two_blocks > 3.0, same_count, two_blocks)), a[m]
    )
    np.testing.assert_array_equal(to_numpy(xp.clip(two_blocks, same_count, same_count)), a[m])
    assert to_numpy(three + xp.ones((1, 2), device=xp.DASK)).shape == (5, 2)


def test_broadcasting_keeps_blocks_within_the_chunk_size():
    """A size-1 axis meeting long blocks (``x[:, None, :] - c[None]``, a k-means step)
    would make output blocks k times the input's: they are split to fit Dask's
    ``array.chunk-size``; values, shape and dtype are those of the one-block result."""
    values = np.random.default_rng(0).random((4000, 16))
    x = xp.asarray(values, device=xp.DASK, chunks=(2000, 16))  # blocks of 250 kB
    with dask.config.set({"array.chunk-size": "200kB"}):
        d = x[:, None, :] - x[:3][None, :, :]  # blocks of 750 kB unsplit
        blocks = d._data.chunks
        block_bytes = math.prod(max(c) for c in blocks) * d.dtype.itemsize
        assert block_bytes <= 200_000, blocks
        assert blocks[1:] == ((3,), (16,))
        same = x[:, None, :] - x[:, None, :]  # no broadcast: the blocks stay
        assert same._data.chunks == ((2000, 2000), (1,), (16,))
        # an axis both span is cut at both's boundaries, not as if paired as they are:
        # weights in one long block times x's rows keep x's blocks (RidgeClassifier's
        # ``X * sqrt(sample_weight)[:, None]`` was cut 32 times finer on 8 GiB)
        w = xp.asarray(values[:, :1], device=xp.DASK, chunks=(4000, 1))
        assert (x * w)._data.chunks == ((2000, 2000), (16,))
    expected = values[:, None, :] - values[:3][None, :, :]
    np.testing.assert_array_equal(to_numpy(d), expected)
    assert d.shape == expected.shape and d.dtype == xp.float64
