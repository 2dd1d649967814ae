"""Indexing on DASK (strict_array._backends.dask._indexing): keys, masks, index arrays,
writes and what they read back, against CPU."""

from __future__ import annotations

import collections
from typing import Any

import dask
import dask.array as da
import numpy as np
import pytest
from conftest import CountTasks, on, to_numpy

import strict_array as xp
from strict_array import RankPromotionError
from strict_array._backends.dask._basics import remade

RNG = np.random.default_rng(0)


X = RNG.standard_normal((4, 6))


def test_dask_indexing_workarounds():
    """Length-1 index arrays (dask/dask#6709), scalar and sorter searches, empty matrices."""
    a = xp.asarray(np.arange(6.0).reshape(2, 3), device=xp.DASK)
    i = xp.asarray(np.array([1]), device=xp.DASK)
    for r, expected in [
        (xp.take(a, i, axis=0), (1, 3)),
        (xp.take(a, i, axis=1), (2, 1)),
        (a[i], (1, 3)),
        (a[:, i], (2, 1)),
        (a[..., i], (2, 1)),
    ]:
        assert r.shape == expected == np.asarray(r).shape
    v = xp.asarray(np.array([3.0, 1.0, 2.0]), device=xp.DASK)
    found = xp.searchsorted(v, xp.asarray(np.array([2.5]), device=xp.DASK), sorter=xp.argsort(v))
    np.testing.assert_array_equal(np.asarray(found), [2])
    assert int(xp.searchsorted(xp.sort(v), 2.0, side="right")) == 2
    empty = xp.zeros((2, 0, 0), device=xp.DASK)
    assert np.asarray(xp.linalg.inv(empty)).shape == (2, 0, 0)


def test_masked_setitem_and_copy_false_on_dask():
    x = xp.asarray(np.float64(1.0), device=xp.DASK)
    x[xp.asarray(True, device=xp.DASK)] = 5.0
    assert float(x) == 5.0
    y = xp.ones(3, device=xp.DASK)
    z = xp.asarray(y, copy=False)
    y[0] = 7.0
    assert float(z[0]) == 7.0  # the same array, as on CPU


def test_several_index_arrays_on_dask():
    a = np.arange(60.0).reshape(3, 4, 5)
    x = xp.asarray(a, device=xp.DASK, chunks=(2, 3, 5))
    i = xp.asarray(np.array([0, 2, -1]), device=xp.DASK)
    j = xp.asarray(np.array([[1], [3]]), device=xp.DASK)
    counter = CountTasks()
    with counter:
        got = {"i, j": x[i, j], "0, j": x[0, j], "i, 1, 2": x[i, 1, 2]}
    assert counter.count == 0
    expected = {
        "i, j": a[[0, 2, -1], [[1], [3]]],
        "0, j": a[0, [[1], [3]]],
        "i, 1, 2": a[[0, 2, -1], 1, 2],
    }
    for name, r in got.items():
        assert r.shape == expected[name].shape
        np.testing.assert_array_equal(to_numpy(r), expected[name])
    bad = x[i, xp.asarray(np.array([0, 7, 1]), device=xp.DASK)]
    with pytest.raises(IndexError, match="out of bounds for axis 1"):
        to_numpy(bad)


def test_zero_d_masks(device):
    x = xp.asarray(np.float64(2.0), device=device)
    assert np.asarray(x[xp.asarray(True, device=device)]).shape == (1,)
    assert np.asarray(x[xp.asarray(False, device=device)]).shape == (0,)
    x[xp.asarray(True, device=device)] = xp.asarray(5.0, device=device)
    assert float(x) == 5.0


# --- found by the differential suite's other seeds ----------------------------------------
@pytest.mark.parametrize(
    ("shape", "key_shape"), [((3,), (0,)), ((3, 2), (0, 2)), ((3, 2), (3, 0)), ((2, 3), (0,))]
)
def test_a_boolean_key_may_have_size_0_on_an_axis(device, shape, key_shape):
    """The standard: each size of a boolean key equals the array's or is 0 (it selects
    nothing); Dask fails to broadcast such a mask, NumPy reads it as nonzero()."""
    a = np.arange(float(np.prod(shape))).reshape(shape)
    x, key = on(device, a), on(device, np.zeros(key_shape, bool))
    expected = a[np.zeros(key_shape, bool)]
    assert x[key].shape == expected.shape
    np.testing.assert_array_equal(to_numpy(x[key]), expected)
    x[key] = 7.0
    np.testing.assert_array_equal(to_numpy(x), a)
    with pytest.raises(IndexError, match="boolean index did not match"):
        x[on(device, np.zeros((1, *key_shape[1:]), bool))]


def test_numpy_index_arrays_as_keys_for_reading_and_writing(device):
    x = on(device, np.arange(6.0).reshape(3, 2))
    rows, mask = np.array([2, 0]), np.array([True, False, True])
    np.testing.assert_array_equal(to_numpy(x[rows]), [[4.0, 5.0], [0.0, 1.0]])
    np.testing.assert_array_equal(to_numpy(x[mask]), [[0.0, 1.0], [4.0, 5.0]])
    x[np.array([False, True, False])] = 9.0
    if device in (xp.CPU, xp.DASK):  # (the standard's writes take no integer arrays, and
        # the array_api_strict backend refuses them)
        x[rows, 0] = on(device, np.array([-1.0, -2.0]))
        np.testing.assert_array_equal(to_numpy(x), [[-2.0, 1.0], [9.0, 9.0], [-1.0, 5.0]])
    else:
        np.testing.assert_array_equal(to_numpy(x), [[0.0, 1.0], [9.0, 9.0], [4.0, 5.0]])
    with pytest.raises(TypeError, match="asarray"):
        xp.add(x, np.ones(2))  # as an operand of the namespace's function, refused
    with pytest.raises(xp.RankPromotionError, match=r"numpy\.add"):
        x + np.ones(2)  # NumPy's operator, under the rank rule


def test_unknown_sizes_refused_by_explicit_broadcasts_not_by_integer_indexing():
    x = xp.asarray(np.ones((1, 2, 2)), device=xp.DASK)
    u = x[xp.asarray([True], device=xp.DASK)]
    with pytest.raises(ValueError, match=r"size unknown until computed, which must be 1 to"):
        xp.broadcast_in_dim(u, (1, 2, 2), (0, 1, 2))
    e = xp.asarray(np.zeros((1, 2, 0)), device=xp.DASK)
    masked = e[xp.asarray(np.array(False), device=xp.DASK)]  # shape (None, 1, 2, 0)
    assert to_numpy(masked[:, xp.asarray(np.array([0]), device=xp.DASK), 0, ...]).shape == (0, 1, 0)
    # index arrays on known axes beside unknown ones: gathered block by block
    a = np.random.default_rng(3).random((4, 3, 2, 5))
    rows = np.array([True, False, True, True])
    v = xp.asarray(a, device=xp.DASK, chunks=(2, 2, 1, 3))[xp.asarray(rows, device=xp.DASK)]
    i, j = np.array([[0], [2]]), np.array([1, 0])
    got = v[:, xp.asarray(i, device=xp.DASK), xp.asarray(j, device=xp.DASK)]
    np.testing.assert_array_equal(to_numpy(got), a[rows][:, i, j])
    got = v[:, xp.asarray(np.array(1), device=xp.DASK), xp.asarray([1, 0, 1], device=xp.DASK), ...]
    np.testing.assert_array_equal(to_numpy(got), a[rows][:, 1, [1, 0, 1], ...])


def test_integer_power_and_empty_gathers_fail_only_where_cpu_does(device):
    """An integer array to a negative power fails per element, so not when empty (Dask
    refused it when built); an out-of-bounds index still fails when the result is empty
    (on DASK no task read the indices)."""
    empty = on(device, np.zeros((1, 0), dtype=np.int64))
    assert (empty**-1).shape == (1, 0)
    empty **= -1
    with pytest.raises(ValueError, match="Integers to negative integer powers"):
        to_numpy(on(device, np.array([1, 2])) ** -1)
    x = on(device, np.zeros((2, 2, 0)))
    assert to_numpy(x[on(device, np.array([[1], [0]])), 1, ...]).shape == (2, 1, 0)
    with pytest.raises(IndexError, match="out of bounds"):
        to_numpy(x[on(device, np.array([[4], [4]])), 1, ...])


@pytest.mark.parametrize("device", [xp.CPU, xp.DASK], ids=["cpu", "dask"])
def test_assignment_checks_the_rank_rule_before_unknown_sizes_and_bounds_when_empty(device):
    x = on(device, np.ones((3, 4)))
    u = x[on(device, np.array([True] * 10 + [False] * 2).reshape(3, 4))]
    # the region's rank is known, whether or not its size is: the rank rule first
    with pytest.raises(RankPromotionError, match="has rank 2 but the selected region"):
        u[on(device, np.zeros(10, bool))] = on(device, np.ones((1, 0)))
    # nothing selected, but the index is out of bounds: raised (DASK: when computed)
    e = on(device, np.zeros((2, 2, 0)))
    with pytest.raises(IndexError, match="index 2 is out of bounds for axis 1 with size 2"):
        e[:, on(device, np.array(2)), ...] = 0.5
        to_numpy(e)


def test_per_element_values_through_a_mask_of_several_axes_and_blocks(device):
    a = np.random.default_rng(2).standard_normal((4, 6, 3))
    for lead in (2, 3):
        x = on(device, a)
        mask = x > 0 if lead == 3 else x[:, :, 0] > 0
        y = xp.asarray(x, copy=True)
        y[mask] = y[mask] * 2.0 + 1.0
        want = a.copy()
        m = a > 0 if lead == 3 else a[:, :, 0] > 0
        want[m] = want[m] * 2.0 + 1.0
        np.testing.assert_array_equal(to_numpy(y), want)


def test_rank_rule_before_a_mask_mismatch_and_ints_checked_beside_empty_index_arrays(device):
    """The region's rank is known without the mask's sizes: a rank error first, on
    every device (DASK could not check the mask against an unknown size); an int
    beside index arrays that select nothing is still checked, as NumPy does."""
    v = on(device, np.ones(6))
    u = v[on(device, np.array([1, 0, 1, 0, 1, 0], bool))]
    with pytest.raises(RankPromotionError, match="has rank 2 but the selected region"):
        u[on(device, np.ones(2, bool))] = on(device, np.ones((1, 3)))
    x = on(device, np.zeros((2, 0, 2)))
    with pytest.raises(IndexError, match="index 0 is out of bounds for axis 1 with size 0"):
        x[on(device, np.zeros((0, 1), np.int64)), 0, ...]


def test_per_element_values_through_a_mask_from_other_selections(device):
    """A value that is not an expression of x[mask] block for block (it combines
    selections by masks of other chunks) is taken run by run from one block; a value
    of the wrong length fails (DASK refused the first and wrote the second)."""
    a = np.arange(12.0)
    m = np.array([1, 0, 1, 1, 0, 1, 1, 1, 0, 0, 1, 1], bool)
    x, w = on(device, a), on(device, a * 10)
    mask = on(device, m)
    y = xp.asarray(x, copy=True)
    y[mask] = y[mask] * w[xp.asarray(mask, copy=True)]
    want = a.copy()
    want[m] = a[m] * a[m] * 10
    np.testing.assert_array_equal(to_numpy(y), want)
    with pytest.raises(ValueError):
        y[mask] = (x[mask] * 2.0)[x[mask] > 100.0]
        to_numpy(y)


@pytest.mark.parametrize("chunks", [-1, 1, 2])
def test_indexing_by_nonzero_of_several_axes(chunks):
    """x[nonzero(mask)] for x of rank >= 2: index arrays of one unknown length each
    (DASK refused them: Dask's broadcast_arrays refuses NaN sizes, even equal ones);
    index arrays whose lengths differ fail when computed."""
    a = np.array([[0.0, 2.0, 3.0], [4.0, 0.0, 1.0]])
    x = xp.asarray(a, device=xp.DASK, chunks=chunks)
    got = x[xp.nonzero(x > 0.5)] - xp.min(x)
    np.testing.assert_array_equal(to_numpy(got), a[np.nonzero(a > 0.5)] - a.min())
    rows, _ = xp.nonzero(x > 0.5)
    _, cols = xp.nonzero(x > 2.5)
    with pytest.raises(ValueError, match="could not be broadcast"):
        to_numpy(x[rows, cols])


def test_take_of_unknown_length_along_an_axis_of_unknown_size():
    """take(values, indices) where both sizes are unknown (unique_all's values and its
    inverse indices): DASK failed building it (Dask's rechunk refuses NaN sizes)."""
    x = xp.asarray([3.0, 1.0, 3.0, 2.0], device=xp.DASK, chunks=2)
    u = xp.unique_all(x[x > 0.0])
    got = xp.take(u.values, xp.reshape(u.inverse_indices, (-1,)), axis=0)
    np.testing.assert_array_equal(to_numpy(got), [3.0, 1.0, 3.0, 2.0])


def test_assigning_a_lazy_value_does_not_copy_its_graph():
    """Dask's setitem merges the value's whole graph into the new layer: element by element
    assignment of a value with a long history was quadratic (sklearn's _add_to_diagonal)."""
    v = xp.ones(6, device=xp.DASK, chunks=2)
    for _ in range(30):
        v = v * 1.0 + 0.0
    a = xp.zeros((6, 6), device=xp.DASK, chunks=3)
    sizes = []
    for i in range(6):
        a[i, i] = v[i]
        graph = a._data.__dask_graph__()
        sizes.append(len(graph.layers[a._data.name]))
    assert max(sizes) < 20, sizes  # the assignment's own tasks, not the value's history
    np.testing.assert_array_equal(np.asarray(a), np.eye(6))


def test_a_small_parameter_written_element_by_element_grows_by_one_layer_a_write():
    """``a[i, i] = v[i]`` into a view of a small array in one block, as scikit-learn's
    ``_add_to_diagonal`` adds to each covariance of GaussianMixture: one layer for the
    view and one for the array it is a view of, per write. Each layer made costs as much
    as the history it joins: the region's shape reckoned by selecting, and the value
    reshaped to the key's axes, were three more per write."""
    covariances = xp.zeros((3, 4, 4), device=xp.DASK)
    expected = np.zeros((3, 4, 4))
    for k in range(3):
        covariances[k, :, :] = xp.ones((4, 4), device=xp.DASK) * float(k)
        expected[k, :, :] = float(k)
        view = covariances[k, :, :]
        value = xp.linalg.diagonal(view) + 0.5
        before = len(
            covariances._data.__dask_graph__().layers.keys() | value._data.dask.layers.keys()
        )
        for i in range(4):
            view[i, i] = value[i]
        # per write: the value's element, the view's write, the array's write
        assert len(covariances._data.__dask_graph__().layers) - before == 3 * 4
        expected[k] += 0.5 * np.eye(4)
    np.testing.assert_array_equal(np.asarray(covariances), expected)


@pytest.mark.parametrize(
    "key",
    [(1, 2), (-1, slice(None)), (slice(1, None, 2), -3), (Ellipsis, 0), (None, 1, Ellipsis),
     (slice(None), None, slice(2, 0, -1)), (0, 0, 0), (slice(5, 9),), ()],
)  # fmt: skip
def test_a_writes_region_is_the_selections_shape_reckoned_from_the_key(key):
    from strict_array._backends.dask._indexing import _selected_shape

    data = da.zeros((4, 5, 3), chunks=2)
    expected = data[key].shape
    assert _selected_shape(data, key) == expected


def test_a_writes_region_out_of_bounds_is_dasks_error():
    from strict_array._backends.dask._indexing import _selected_shape

    with pytest.raises(IndexError):
        _selected_shape(da.zeros((4, 5), chunks=2), (4, 0))


@pytest.mark.parametrize("target_chunks", [-1, (3000, 1000)])
def test_columns_assigned_from_row_blocks_stream_with_their_input(target_chunks):
    """``log_prob[:, k] = v_k`` into an array of Dask's own blocks (GaussianMixture's
    E-step): the target takes the values' row blocks, so that the assignment goes block
    by block with the input. Fitted to the target's one or two blocks, each column
    gathered all its row blocks into one task, and in GaussianMixture's graph the input's
    products waited in memory for the last column (5 GiB held for 2 GiB of data). The
    target, made by ``empty``, is made again in the new blocks rather than rechunked."""

    def block(block_info=None):  # x read block by block, as from a file
        return np.random.default_rng(block_info[None]["chunk-location"][0]).random((250, 8))

    x = xp.asarray(da.map_blocks(block, chunks=((250,) * 16, (8,)), dtype=np.float64))
    xn = np.concatenate([np.random.default_rng(i).random((250, 8)) for i in range(16)])
    projections = np.random.default_rng(0).standard_normal((3, 8, 8))
    log_prob = xp.empty((4000, 3), device=xp.DASK, chunks=target_chunks)
    for k in range(3):
        y = x @ xp.asarray(projections[k], device=xp.DASK)
        log_prob[:, k] = xp.sum(y * y, axis=1)
    assert log_prob._data.chunks[0] == x._data.chunks[0]
    # made again in those blocks, not rechunked: each block made when it is used
    assert not [n for n in log_prob._data.__dask_graph__().layers if n.startswith("rechunk")]
    got = np.asarray(log_prob)
    want = np.stack([((xn @ p) ** 2).sum(axis=1) for p in projections], axis=1)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    # the value's row blocks are the target's where it is already split more finely
    fine = xp.zeros((4000, 3), device=xp.DASK, chunks=(125, 3))
    fine[:, 0] = log_prob[:, 0]
    assert fine._data.chunks[0] == (125,) * 32
    np.testing.assert_array_equal(np.asarray(fine)[:, 0], want[:, 0])
    filled = xp.full((4000, 3), 7.0, device=xp.DASK, chunks=target_chunks)  # made again
    filled[:, 1] = log_prob[:, 1]
    assert filled._data.chunks[0] == x._data.chunks[0]
    np.testing.assert_array_equal(
        np.asarray(filled), np.insert(np.full((4000, 2), 7.0), 1, want[:, 1], axis=1)
    )


@pytest.mark.parametrize("degree", [2, 3])
def test_an_array_filled_column_range_by_column_range_streams_block_by_block(degree):
    """scikit-learn's PolynomialFeatures fills ``empty((n, n_out))`` column range by
    column range: ``XP[:, 0] = 1``, ``XP[:, 1:p + 1] = X``, then ``XP[:, a:b] =
    XP[:, c:d] * X[:, i:i + 1]`` for each feature. The target takes ``X``'s row blocks,
    each cut to hold at most Dask's chunk size; the slices and assignments are
    Blockwise, and the column slices of ``X`` share one rechunk of ``X``: after Dask's
    optimisation, one task per row block of the target and one per piece of ``X``
    (at 0.5 GiB, 20725 tasks and 1.8 GiB at the peak where it is 1 task a block and
    852 MiB). NumPy's values."""
    sklearn = pytest.importorskip("sklearn")
    from sklearn.preprocessing import PolynomialFeatures

    a = RNG.standard_normal((4000, 4))
    x = xp.asarray(a, device=xp.DASK, chunks=(1000, 4))
    with (
        dask.config.set({"array.chunk-size": "40KiB"}),
        sklearn.config_context(array_api_dispatch=True),
        xp.rank_promotion("allow"),
    ):
        out = PolynomialFeatures(degree=degree).fit_transform(x)
    rows = out._data.chunks[0]
    assert set(np.cumsum(x._data.chunks[0])) <= set(np.cumsum(rows))  # X's rows, cut
    assert max(rows) * out.shape[1] * 8 <= 40 * 1024
    (optimized,) = dask.optimize(out._data)
    graph = dict(optimized.__dask_graph__())
    named = collections.Counter(
        (k[0] if isinstance(k, tuple) else k).rsplit("-", 1)[0] for k in graph
    )
    assert sum(named.values()) <= 2 * len(rows) + x._data.numblocks[0], named
    np.testing.assert_allclose(
        np.asarray(out), PolynomialFeatures(degree=degree).fit_transform(a), rtol=1e-14
    )


def test_slices_within_blocks_are_blockwise_and_rechunked_as_their_source():
    """A slice along axes each in one block (the others taken whole) is a Blockwise
    layer, fused with its consumer; rechunked along the axes it takes whole, it is its
    source rechunked then sliced, so that slices of one array share one rechunk of it.
    Two operands whose blocks refine one another meet in the finer blocks. NumPy's
    values, for negative steps too."""
    from dask.blockwise import Blockwise

    a = RNG.standard_normal((300, 5))
    x = xp.asarray(a, device=xp.DASK, chunks=(100, 5))
    fine = xp.asarray(RNG.standard_normal((300, 1)), device=xp.DASK, chunks=(50, 1))
    columns = [x[:, i : i + 1] for i in range(5)]
    for c in columns:
        assert isinstance(c._data.__dask_graph__().layers[c._data.name], Blockwise)
    products = [c * fine for c in columns]
    rechunks = {
        name
        for p in products
        for name in p._data.__dask_graph__().layers
        if name.startswith("rechunk")
    }
    assert len(rechunks) <= 2  # (one rechunk of x: split and merge layers)
    for i, p in enumerate(products):
        assert p._data.chunks[0] == fine._data.chunks[0]
        np.testing.assert_array_equal(np.asarray(p), a[:, i : i + 1] * np.asarray(fine))
    np.testing.assert_array_equal(np.asarray(x[:, 3:0:-2]), a[:, 3:0:-2])
    np.testing.assert_array_equal(np.asarray(x[10:20, 1:4]), a[10:20, 1:4])


def _polynomial_fill(a: np.ndarray, chunks: Any) -> tuple[xp.Array, np.ndarray]:
    """scikit-learn's PolynomialFeatures (degree 2, with the bias) on DASK and NumPy:
    ``empty`` filled column range by column range, each range the product of columns
    that the first range wrote, read back from the array."""
    n, p = a.shape
    X = xp.asarray(a, device=xp.DASK, chunks=chunks)
    out = xp.empty((n, 1 + p + p * (p + 1) // 2), dtype=xp.float64, device=xp.DASK)
    want = np.empty(out.shape)
    for arr, x in ((out, X), (want, a)):
        arr[:, 0] = 1.0
        arr[:, 1 : 1 + p] = x
        col = 1 + p
        for i in range(p):
            arr[:, col : col + p - i] = arr[:, 1 + i : 1 + p] * x[:, i : i + 1]
            col += p - i
    return out, want


@pytest.mark.parametrize("chunks", [(40, 5), ((7, 50, 43), 5), (100, 5), (1, 5)])
def test_a_selection_of_what_an_assignment_wrote_is_read_from_its_value(chunks):
    """A selection inside the region an assignment wrote is the value assigned, and one
    that misses it is the array before: PolynomialFeatures' reads of the columns the
    first range wrote no longer use the later versions of the array, so each version
    has one user and Dask fuses the whole fill into one task per block (each version
    had two users: the chain was made once for each, 4x the time). NumPy's values for
    selections inside, across and outside the written regions, of every kind of key."""
    a = np.random.default_rng(8).standard_normal((100, 5))
    with dask.config.set({"strict_array.keep-bytes": 1024}):  # (these 16 KiB are large)
        out, want = _polynomial_fill(a, chunks)
    np.testing.assert_array_equal(to_numpy(out), want)
    graph = out._data.__dask_graph__()
    users = collections.Counter(d for deps in graph.dependencies.values() for d in deps)
    versions = [n for n in graph.layers if n.startswith("setitem") and n != out._data.name]
    assert len(versions) == 6 and all(users[n] == 1 for n in versions)
    with dask.config.set({"strict_array.keep-bytes": 1024}):
        read = out[:, 2:4]  # inside the first range: X's columns, no version of the array
        assert not any(n.startswith("setitem") for n in read._data.__dask_graph__().layers)
        reads = [(key, out[key]) for key in KEYS_READ_BACK]
    # a small array is read as it is (once computed, its value is kept)
    assert any(n.startswith("setitem") for n in out[:, 2:4]._data.__dask_graph__().layers)
    for key, got in reads:
        np.testing.assert_array_equal(to_numpy(got), want[key], err_msg=str(key))


KEYS_READ_BACK = [
    (slice(None), slice(2, 4)), (slice(10, 60), slice(1, 6)), (..., 3), (slice(None), slice(4, 9)),
    (slice(None, None, -3), slice(6, 9)), (5, 0), (slice(None), slice(15, None)),
    (slice(0, 0), slice(1, 3)), (..., slice(1, 21, 2)), (-1, Ellipsis), (slice(None), 20),
]  # fmt: skip


def test_an_assigned_region_read_back_after_another_write_over_it():
    """A later write over part of the region read: the read stops at that write (the
    value is no longer the first assignment's)."""
    a = np.arange(400.0).reshape(80, 5)
    x = xp.asarray(a, device=xp.DASK, chunks=(30, 5))
    y = xp.zeros((80, 5), device=xp.DASK, chunks=(30, 5))
    y[:, 1:4] = x[:, 1:4]
    y[2:5, 2] = -1.0
    want = np.zeros((80, 5))
    want[:, 1:4] = a[:, 1:4]
    want[2:5, 2] = -1.0
    for key in [
        (slice(None), slice(1, 4)),
        (slice(5, None), slice(1, 4)),
        (3, 2),
        (slice(None), 1),
    ]:
        with dask.config.set({"strict_array.keep-bytes": 1024}):  # (these 3 KiB are large)
            got = y[key]
        np.testing.assert_array_equal(to_numpy(got), want[key], err_msg=str(key))


@pytest.mark.parametrize("shape", [(4000,), (4000, 3)])
def test_an_array_made_from_nothing_written_whole_takes_the_values_blocks(shape):
    """scikit-learn's ``_isin``: ``mask = zeros(n)`` (one block), then ``mask |= y == c``
    for each class, ``y`` in blocks. Kept in its one block, each step gathered every
    block of ``y`` (and what they are computed from) into one task, and split it again
    for the next step: on a cluster, all of ``X``'s blocks waited. Written whole, an
    array made from nothing takes the value's blocks: no rechunk, NumPy's values."""
    y = np.random.default_rng(3).integers(0, 4, shape).astype(float)
    Y = xp.asarray(y, device=xp.DASK, chunks=500)
    mask = xp.zeros(shape, dtype=xp.bool, device=xp.DASK)
    assert mask._data.numblocks[0] == 1
    for c in (0.0, 2.0, 3.0):
        mask |= Y == c
    assert not [n for n in mask._data.__dask_graph__().layers if n.startswith("rechunk")]
    assert mask._data.chunks == Y._data.chunks
    np.testing.assert_array_equal(to_numpy(mask), np.isin(y, [0.0, 2.0, 3.0]))
    low = xp.zeros((4000, 3), device=xp.DASK)  # a size-1 axis of the value, broadcast
    low[...] = xp.asarray(np.arange(3.0)[None, :], device=xp.DASK)
    np.testing.assert_array_equal(to_numpy(low), np.broadcast_to(np.arange(3.0), (4000, 3)))


@pytest.mark.parametrize(
    "key",
    [(None, slice(None, None, 1)), (slice(0, 6, 1), slice(None)), (slice(None, 100), Ellipsis)],
)
@pytest.mark.parametrize("value_chunks", [1, 2, -1])
def test_a_slice_that_takes_the_axis_whole_assigns_a_value_in_finer_blocks(key, value_chunks):
    """``x[None, ::1] = v`` with ``v`` in finer blocks than ``x`` (found by the
    differential suite): ``::1`` was taken for a part of an axis in one block, then the
    array was split as the value, and each block's task put the whole value in."""
    a = np.arange(24.0).reshape(6, 4)
    region = a[key]
    v = -np.arange(region.size, dtype=float).reshape(region.shape)
    x = xp.asarray(a, device=xp.DASK)
    x[key] = xp.asarray(v, device=xp.DASK, chunks=value_chunks)
    want = a.copy()
    want[key] = v
    np.testing.assert_array_equal(to_numpy(x), want)


def _mixture_start(rows: int) -> tuple[np.ndarray, xp.Array, xp.Array, np.ndarray]:
    """GaussianMixture's start on 4000 x 3 data in blocks of ``rows``: the data, as
    NumPy and DASK, and ``resp = zeros((n, 3))`` with a one put in each column, as
    DASK and NumPy."""
    n = 4000
    a = np.arange(n * 3.0).reshape(n, 3)
    x = xp.asarray(da.from_array(a, chunks=(rows, 3)))
    resp = xp.zeros((n, 3), device=xp.DASK, chunks=(n // 2, 3))
    want = np.zeros((n, 3))
    for col, i in enumerate([5, 2500, n - 1]):
        resp[i, col] = 1.0
        want[i, col] = 1.0
    return a, x, resp, want


def _made_again_beside(out: xp.Array, partner: xp.Array) -> bool:
    """Whether ``out`` added no rechunk and no values computed here (``array-``
    layers) to its partner's graph: its other operand was made again in its blocks."""
    made = set(out._data.__dask_graph__().layers) - set(partner._data.__dask_graph__().layers)
    return not [name for name in made if name.startswith(("rechunk", "array-"))]


def test_a_scalar_put_in_an_array_made_from_nothing_is_made_again_in_other_blocks():
    """GaussianMixture's initial ``resp = zeros((n, c)); resp[i, k] = 1``: no longer
    made from nothing after the assignment, it was computed here where it met the
    data's blocks in a consumer's call, and its n x c values were embedded in the
    graph (the mixture meets the data with ``resp.T``: the test below). It is made
    again in the data's blocks, with the assignment; NumPy's values."""
    a, x, resp, want = _mixture_start(rows=250)
    with xp.known_sizes():  # (as in a consumer's call)
        out = resp * x
    assert _made_again_beside(out, x)
    assert out._data.chunks == x._data.chunks
    np.testing.assert_array_equal(np.asarray(out), want * a)
    np.testing.assert_array_equal(np.asarray(resp), want)


@pytest.mark.parametrize("rows", [250, 1000, 3000])
@pytest.mark.parametrize("column", [0, 2, -1])
def test_a_column_of_an_array_made_from_nothing_is_made_again_in_its_partners_blocks(rows, column):
    """GaussianMixture's first M-step, ``(resp[:, k] * diff.T) @ diff``: the column of
    ``resp`` (zeros with a one put in each column) was no longer made from nothing,
    and NumPy's alignment of it against ``diff.T``'s blocks rechunked it. A cluster's
    scheduler made the rechunk's pieces after reading all of X (2 GiB held on 2 GiB).
    It is made again in X's blocks, aligned or not; NumPy's values."""
    a, x, resp, want = _mixture_start(rows)
    col = resp[:, column]
    assert remade(col._data)
    diff = x - xp.mean(x, axis=0, keepdims=True)
    d = a - a.mean(axis=0)
    with xp.rank_promotion("allow"):
        aligned = col * diff.T  # (n,) against (3, n): NumPy's alignment
    same_rank = col * diff[:, 1]
    for out in (aligned, same_rank):
        assert _made_again_beside(out, diff)
    np.testing.assert_allclose(np.asarray(aligned @ diff), (want[:, column] * d.T) @ d)
    np.testing.assert_array_equal(np.asarray(same_rank), want[:, column] * d[:, 1])
    np.testing.assert_array_equal(np.asarray(resp[3999, column]), want[3999, column])


@pytest.mark.parametrize("rows", [250, 1000, 3000])
@pytest.mark.parametrize(
    "transpose",
    [lambda r: r.T, lambda r: r.mT, lambda r: xp.permute_dims(r, (1, 0)),
     lambda r: xp.permute_dims(r, (-1, 0))],
    ids=["T", "mT", "permute_dims", "permute_dims-negative"],
)  # fmt: skip
def test_a_transposed_array_made_from_nothing_is_made_again_in_its_partners_blocks(rows, transpose):
    """GaussianMixture's start, ``resp.T @ X`` with ``resp`` zeros and a one put in
    each column: transposed, ``resp`` was no longer made from nothing, and in a
    consumer's call it was computed here to meet X's blocks, its values embedded in
    the graph (192 MiB on 2 GiB of data, sent to a cluster at every computation). It
    is made again in X's blocks; NumPy's values, as a product and element-wise."""
    a, x, resp, want = _mixture_start(rows)
    with xp.known_sizes():  # (as in a consumer's call)
        product = transpose(resp) @ x
        elementwise = transpose(resp) * x.T
    for out in (product, elementwise):
        assert _made_again_beside(out, x)
    assert elementwise._data.chunks == x._data.T.chunks
    np.testing.assert_array_equal(np.asarray(product), want.T @ a)
    np.testing.assert_array_equal(np.asarray(elementwise), want.T * a.T)


def test_a_permuted_array_made_from_nothing_is_made_again_axis_by_axis():
    """Of three axes, each axis of the permuted array is made again in the blocks of
    its partner's matching axis; NumPy's values."""
    z = xp.zeros((4, 6, 8), device=xp.DASK, chunks=(4, 6, 8))
    z[1, 2, 3] = 5.0
    want = np.zeros((4, 6, 8))
    want[1, 2, 3] = 5.0
    b = np.arange(8 * 4 * 6.0).reshape(8, 4, 6)
    y = xp.asarray(da.from_array(b, chunks=(2, 1, 3)))
    with xp.known_sizes():
        out = xp.permute_dims(z, (2, 0, 1)) * y
    assert _made_again_beside(out, y)
    assert out._data.chunks == y._data.chunks
    np.testing.assert_array_equal(np.asarray(out), np.transpose(want, (2, 0, 1)) * b)
