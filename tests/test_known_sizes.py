"""Data-dependent sizes on DASK: known where a consumer needs them (docs/dask.md, "Unknown sizes").

A consumer package (scikit-learn, SciPy, array-api-extra by default; the rank-promotion
policy's ``known_sizes``) gets the sizes of masks, ``nonzero`` and
``unique_*`` as numbers; other code gets ``None`` unless it asks. A mask's sizes come
from one pass over the mask alone: the selected array stays lazy.
"""

from __future__ import annotations

import warnings

import dask
import dask.array as da
import numpy as np
import pytest
from conftest import run_as
from dask.core import flatten

import strict_array as xp


def _never_read(shape, chunks):
    """A DASK array whose blocks fail when computed: proof that something is not read."""

    def fail(block_info=None):
        raise AssertionError("the selected array was read to know the sizes")

    return xp.asarray(
        da.map_blocks(
            fail,
            chunks=da.core.normalize_chunks(chunks, shape),
            dtype=np.float64,
            meta=np.empty((0,) * len(shape)),
        )
    )


RNG = np.random.default_rng(0)
A = RNG.standard_normal((60, 5))
Y = RNG.integers(0, 3, 60).astype(np.float64)


@pytest.mark.parametrize(
    "package", ["sklearn.utils.multiclass", "scipy.stats", "array_api_extra._lib"]
)
def test_a_consumer_package_gets_sizes_as_numbers(package):
    x = xp.asarray(A, device=xp.DASK, chunks=(13, 5))
    y = xp.asarray(Y, device=xp.DASK, chunks=7)
    made = run_as(
        package,
        "(x[y == 1], xp.unique_values(y), xp.nonzero(y)[0], xp.unique_inverse(y), np.unique(y))",
        x=x,
        y=y,
    )
    selected, values, where, inverse, numpy_unique = made
    assert selected.shape == A[Y == 1].shape and values.shape == (3,) and numpy_unique.shape == (3,)
    assert where.shape == np.nonzero(Y)[0].shape and inverse.values.shape == (3,)
    np.testing.assert_array_equal(np.asarray(selected), A[Y == 1])
    np.testing.assert_array_equal(np.asarray(values), np.unique(Y))
    np.testing.assert_array_equal(
        np.asarray(inverse.inverse_indices), np.unique(Y, return_inverse=True)[1]
    )
    # sklearn's own use: the size is a number, compared with one
    assert run_as(package, "xp.unique_values(y).shape[0] > 2", y=y) is True
    # the same code elsewhere keeps Dask's laziness
    assert x[y == 1].shape == (None, 5) and xp.unique_values(y).shape == (None,)


def test_the_packages_are_the_policys_and_a_block_decides_over_them():
    y = xp.asarray(Y, device=xp.DASK, chunks=7)
    n = int((Y > 0).sum())
    assert xp.get_rank_promotion_policy().known_sizes == {"sklearn", "scipy", "array_api_extra"}
    with xp.rank_promotion_policy({"mypkg": "warn"}, known_sizes=["mypkg"]):
        assert run_as("mypkg.sub", "y[y > 0].shape", y=y) == (n,)
        assert run_as("sklearn", "y[y > 0].shape", y=y) == (None,)
        assert run_as("mypkg_other", "y[y > 0].shape", y=y) == (None,)  # a package, not a prefix
        with xp.rank_promotion("allow"):  # (a mode for all code keeps the packages)
            assert run_as("mypkg", "y[y > 0].shape", y=y) == (n,)
    with xp.rank_promotion_policy({}, known_sizes=[]):
        assert run_as("sklearn", "y[y > 0].shape", y=y) == (None,)
    with xp.known_sizes(False):  # a block's setting decides for every package in it
        assert run_as("sklearn", "y[y > 0].shape", y=y) == (None,)
    with xp.known_sizes():
        assert y[y > 0].shape == (n,)
    with pytest.raises(TypeError, match="known_sizes must be a collection of package names"):
        xp.rank_promotion_policy({}, known_sizes="mypkg")


def test_the_old_dask_config_key_is_a_deprecated_alias():
    y = xp.asarray(Y, device=xp.DASK, chunks=7)
    n = int((Y > 0).sum())
    with pytest.warns(DeprecationWarning, match="rank-promotion policy"):
        with dask.config.set({"strict_array.known-sizes-packages": ["mypkg"]}):
            assert run_as("mypkg.sub", "y[y > 0].shape", y=y) == (n,)
            assert run_as("sklearn", "y[y > 0].shape", y=y) == (None,)
        with dask.config.set({"strict_array.known-sizes-packages": "mypkg, other"}):
            assert run_as("other", "y[y > 0].shape", y=y) == (n,)  # the environment's form
        with dask.config.set({"strict_array.known-sizes-packages": []}):
            assert run_as("sklearn", "y[y > 0].shape", y=y) == (None,)


@pytest.mark.parametrize(
    ("shape", "chunks", "mask_chunks", "axis"),
    [((60, 5), (13, 5), 7, 0), ((60, 5), (60, 5), 60, 0), ((60, 5), (10, 2), 25, 0),
     ((5, 60), (5, 11), 9, 1), ((4, 60, 3), (2, 16, 3), 31, 1), ((60,), (8,), 5, 0),
     ((60, 5), (1, 5), 1, 0)],
)  # fmt: skip
def test_a_mask_sizes_from_the_mask_alone(shape, chunks, mask_chunks, axis):
    a = RNG.standard_normal(shape)
    keep = RNG.random(shape[axis]) < 0.4
    key = (slice(None),) * axis + (xp.asarray(keep, device=xp.DASK, chunks=mask_chunks),)
    with xp.known_sizes():
        out = xp.asarray(a, device=xp.DASK, chunks=chunks)[key]
        np_key = (slice(None),) * axis + (keep,)
        assert out.shape == a[np_key].shape
        assert sum(out.chunks[axis]) == keep.sum()
        np.testing.assert_array_equal(np.asarray(out), a[np_key])
        # the array selected from is not read: one pass over the mask only
        never = _never_read(shape, chunks)[key]
        assert never.shape == a[np_key].shape
        with pytest.raises(AssertionError, match="was read"):
            np.asarray(never)


def test_a_full_rank_mask_and_the_data_dependent_functions_agree_with_numpy():
    a = RNG.standard_normal((12, 5))
    x = xp.asarray(a, device=xp.DASK, chunks=(5, 2))
    with xp.known_sizes():
        for got, want in [
            (x[x > 0], a[a > 0]),
            (xp.nonzero(x > 0)[1], np.nonzero(a > 0)[1]),
            (xp.unique_counts(xp.round(x)).counts, np.unique(np.round(a), return_counts=True)[1]),
        ]:
            assert got.shape == want.shape
            np.testing.assert_array_equal(np.asarray(got), want)


def test_the_first_use_of_an_unknown_size_names_the_setting():
    y = xp.asarray(Y, device=xp.DASK, chunks=7)
    unknown = y[y > 0]
    for use in (
        lambda: len(unknown),
        lambda: unknown[0],
        lambda: unknown + xp.ones(3, device=xp.DASK),
    ):
        with pytest.raises((TypeError, ValueError), match=r"policy's known_sizes"):
            use()


def test_a_consumer_reading_an_unknown_size_gets_it_computed_then():
    """An array made with unknown sizes outside the consumer (the user's own mask) has
    them computed when the consumer first reads them, and keeps them."""
    x = xp.asarray(A, device=xp.DASK, chunks=(13, 5))
    keep = xp.asarray(A[:, 0] > 0, device=xp.DASK, chunks=11)
    selected = x[keep]
    assert selected.shape == (None, 5) and selected.size is None  # the user's code: lazy
    rows = int((A[:, 0] > 0).sum())
    assert run_as("sklearn.utils.validation", "x.shape", x=selected) == (rows, 5)
    assert selected.shape == (rows, 5)  # known from then on, same graph
    np.testing.assert_array_equal(np.asarray(selected), A[A[:, 0] > 0])
    for use in ("len(x)", "x.size"):
        again = x[keep]
        assert run_as("array_api_extra._lib._utils", use, x=again) == (
            rows if use == "len(x)" else rows * 5
        )
    # strict_array's own functions take unknown sizes as they are: nothing computed
    assert xp.sum(x[keep], axis=0).shape == (5,)
    assert run_as("mypkg", "x.shape", x=x[keep]) == (None, 5)


def test_a_counted_mask_is_kept_so_the_selection_waits_for_no_computation():
    """The mask is computed once, with its counts, and kept: computing the selection reads
    the mask's source no more (Dask's scheduler, given a lazy mask compared with a lazy
    label, read all of X before the masks: 2.4 GiB held on a 2 GiB X)."""
    reads = []

    def labels(block_info=None):
        reads.append(block_info[None]["chunk-location"])
        return Y[slice(*block_info[None]["array-location"][0])]

    y = xp.asarray(da.map_blocks(labels, chunks=((15,) * 4,), dtype=np.float64))
    x = xp.asarray(A, device=xp.DASK, chunks=(15, 5))
    with xp.known_sizes():
        label = xp.unique_values(y)[1]  # a lazy 0-d label, as scikit-learn's
        after_unique = len(reads)
        selected = x[y == label]
    assert len(reads) == after_unique + 4  # one pass over y for the mask and its counts
    np.testing.assert_allclose(
        np.asarray(xp.sum(selected, axis=0)), A[Y == 1.0].sum(axis=0), rtol=1e-12
    )
    assert len(reads) == after_unique + 4  # the kept mask: y is not read again


@pytest.mark.parametrize("x_chunks", [100, 333])
def test_a_take_by_a_kept_nonzero_gathers_from_the_blocks_it_reaches(x_chunks):
    """scikit-learn's curves take the cumulative sums and the sorted scores by
    ``concat([nonzero(diff(scores)), [n - 1]])``: with the index's values here (a kept
    nonzero), each block of the result gathers from the blocks of x between its least
    and greatest index (Dask's take by a lazy index pairs every block of the index with
    every block of x, holding x whole); NumPy's values, and NumPy's IndexError."""
    a = np.round(RNG.random(3000), 2)
    c = np.cumsum(RNG.random(3000))
    x = xp.asarray(a, device=xp.DASK, chunks=x_chunks)
    sums = xp.asarray(c, device=xp.DASK, chunks=x_chunks)
    with xp.known_sizes():
        kept = xp.nonzero(xp.diff(x))[0]
    index = xp.concat([kept, xp.asarray([a.size - 1], device=xp.DASK)])
    want = np.concatenate([np.nonzero(np.diff(a))[0], [a.size - 1]])
    with xp.known_sizes():  # (the ranges are computed now: where sizes are asked for)
        taken = [sums[index], xp.take(sums, index), x[index]]
    for t in taken:
        layers = t._data.__dask_graph__().layers
        assert [n for n in layers if n.startswith("take-known")]
        assert not [n for n in layers if n.startswith("slice_with_int_dask_array")]
    np.testing.assert_array_equal(np.asarray(taken[0]), c[want])
    np.testing.assert_array_equal(np.asarray(taken[2]), a[want])
    elsewhere = sums[index]  # lazy: Dask's take
    assert not [n for n in elsewhere._data.__dask_graph__().layers if n.startswith("take-known")]
    np.testing.assert_array_equal(np.asarray(elsewhere), c[want])
    # indices in no order reach every block: Dask's take, the same values
    shuffled = xp.asarray(RNG.permutation(3000), device=xp.DASK, chunks=100)
    with warnings.catch_warnings():  # (Dask's: more blocks than the index's)
        warnings.simplefilter("ignore", dask.array.PerformanceWarning)
        np.testing.assert_array_equal(np.asarray(sums[shuffled]), c[np.asarray(shuffled)])
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 100"):
        with xp.known_sizes():
            shorter = xp.asarray(c[:100], device=xp.DASK, chunks=30)[index]
        np.asarray(shorter)


@pytest.mark.parametrize(
    "values",
    [
        np.round(RNG.random(3000), 1),  # (zeros here and there)
        np.concatenate([np.zeros(700), RNG.random(2300)]),  # (blocks with none)
        np.where(RNG.random(3000) < 0.5, np.nan, 1.0),  # (NaN is nonzero, as in NumPy)
        np.zeros(3000),
        RNG.random(3000) < 0.3,
        RNG.integers(-2, 3, 3000),
    ],
    ids=["float", "empty blocks", "nan", "none", "bool", "int"],
)
@pytest.mark.parametrize("chunks", [100, 333])
def test_a_kept_nonzero_keeps_its_mask_not_its_indices(values, chunks):
    """A 1-D ``nonzero`` where sizes are asked for keeps the mask (a byte an element),
    not the indices (eight): scikit-learn's curves keep ``nonzero(diff(scores))``, as
    long as the data when the scores are distinct. Each block of indices is made from
    its block of the mask; the sizes are known, and the blocks' bounds too, without
    computing the indices; NumPy's values."""
    from strict_array._backends.dask._basics import bytes_in_memory
    from strict_array._backends.dask._compute import block_ranges

    x = xp.asarray(values, device=xp.DASK, chunks=chunks)
    with xp.known_sizes():
        (index,) = xp.nonzero(x)
    want = np.nonzero(values)[0]
    assert index.shape == want.shape
    assert not any(c != c for c in index._data.chunks[0])
    held = bytes_in_memory(index._data, made_below=0)
    assert held is not None and held <= values.size  # (the indices: 8 x their number)
    ranges = block_ranges(index._data)
    assert ranges is not None
    blocks = np.split(want, np.cumsum(index._data.chunks[0])[:-1])
    for (low, high), block in zip(ranges, blocks):
        assert (
            (low, high) == (0, -1) if not block.size else low <= block.min() <= block.max() <= high
        )
    np.testing.assert_array_equal(np.asarray(index), want)
    with xp.known_sizes():
        taken = x[index]
    np.testing.assert_array_equal(np.asarray(taken), values[want])


def test_a_take_by_a_kept_nonzero_makes_each_block_of_indices_in_its_gather():
    """Each block of a kept ``nonzero``'s indices (and of a ``concat`` of them) is made
    in the task that gathers by it, from its block of the mask: apart, Dask's order
    ran those small tasks late, and the arrays gathered from waited for them
    (scikit-learn's curves on 8 GiB held their sorted scores and cumulative sums
    whole). NumPy's values."""
    from dask._task_spec import DataNode, convert_legacy_graph

    a = np.round(RNG.random(3000), 2)
    c = np.cumsum(RNG.random(3000))
    x = xp.asarray(a, device=xp.DASK, chunks=300)
    sums = xp.asarray(c, device=xp.DASK, chunks=300)
    with xp.known_sizes():
        kept = xp.nonzero(xp.diff(x))[0]
        index = xp.concat([kept, xp.asarray([a.size - 1], device=xp.DASK)])
        taken = sums[index]
    want = np.concatenate([np.nonzero(np.diff(a))[0], [a.size - 1]])
    data = taken._data
    graph = convert_legacy_graph(dict(data.__dask_graph__()))
    index_layers = set(index._data.__dask_graph__().layers)
    for key in flatten(data.__dask_keys__()):
        for dep in graph[key].dependencies:
            made = graph[dep]
            # from the index: only its data (the mask's blocks), no task of it
            assert dep[0] not in index_layers or isinstance(made, DataNode), dep
    np.testing.assert_array_equal(np.asarray(taken), c[want])


@pytest.mark.parametrize("label_chunks", [100, 250, (300, 700, 500, 1500)])
@pytest.mark.parametrize("classes", [2, 3])
def test_a_take_by_labels_read_from_a_store_gathers_from_the_blocks_it_reaches(
    tmp_path, label_chunks, classes
):
    """scikit-learn's multinomial loss takes ``ravel(raw_prediction)`` by
    ``y + n_classes * arange(n)``, the labels read from a store: the index's values are
    not here, so Dask's take paired every block of it with every block of the
    predictions and held them whole (19K tasks and 762 MiB on 8 GiB of data). Where
    sizes are asked for, the index's bounds are computed in one pass over it (the
    labels, not the predictions), and each block gathers from the blocks it reaches.
    NumPy's values; the index is made again in the gathers; NumPy's IndexError."""
    n = 3000
    labels = RNG.integers(0, classes, n)
    pred = RNG.standard_normal((n, classes))
    xp.to_zarr(xp.asarray(labels, device=xp.DASK, chunks=500), tmp_path / "y.zarr")
    y = xp.from_zarr(tmp_path / "y.zarr")
    y = xp.asarray(xp.asarray(y._data.rechunk(label_chunks)), dtype=xp.int64)
    raw = xp.asarray(pred, device=xp.DASK, chunks=(250, classes))
    with xp.known_sizes():
        index = y + xp.arange(n, device=xp.DASK) * classes
        taken = xp.take(xp.reshape(raw, (-1,)), index)
    layers = taken._data.__dask_graph__().layers
    assert [name for name in layers if name.startswith("take-known")]
    assert not [name for name in layers if name.startswith("slice_with_int_dask_array")]
    # the arange made in the labels' blocks, not rechunked to them
    (made,) = [layer for name, layer in layers.items() if name.startswith("arange")]
    assert len(made) == y._data.numblocks[0]
    np.testing.assert_array_equal(np.asarray(taken), pred[np.arange(n), labels])
    with xp.known_sizes(), pytest.raises(IndexError, match=f"with size {n * classes}"):
        xp.take(xp.reshape(raw, (-1,)), index + classes)  # (the last one past the end)
    # elsewhere (nothing computed while the expression is built): Dask's take, the same
    with warnings.catch_warnings():  # (Dask's: more blocks than the index's)
        warnings.simplefilter("ignore", dask.array.PerformanceWarning)
        elsewhere = xp.take(xp.reshape(raw, (-1,)), index)
    assert not [n for n in elsewhere._data.__dask_graph__().layers if n.startswith("take-known")]
    np.testing.assert_array_equal(np.asarray(elsewhere), pred[np.arange(n), labels])


def test_a_take_by_one_block_of_data_gathers_from_the_blocks_it_reaches(tmp_path):
    """A take by a small index that is data (one block: scikit-learn's percentile
    positions) from an array in many blocks computes the index's bounds in one pass
    over it and gathers from the blocks it reaches, where sizes are asked for: Dask's
    take paired it with every block and computed them all at once."""
    a = RNG.standard_normal(3000)
    x = xp.asarray(a, device=xp.DASK, chunks=100)
    xp.to_zarr(xp.asarray(np.asarray([2500, 2510, 2999]), device=xp.DASK), tmp_path / "i.zarr")
    index = xp.from_zarr(tmp_path / "i.zarr") - 10  # (its values are not here)
    taken = run_as("sklearn.utils", "xp.take(x, i)", x=x, i=index)
    layers = taken._data.__dask_graph__().layers
    assert [n for n in layers if n.startswith("take-known")]
    np.testing.assert_array_equal(np.asarray(taken), a[[2490, 2500, 2989]])
    with pytest.raises(IndexError, match="with size 3000"):
        run_as("sklearn.utils", "xp.take(x, i)", x=x, i=index + 20)
