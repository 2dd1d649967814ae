"""The sample sort (strict_array._backends.dask._sorting): a consumer's sort and argsort of
a long vector (or a column) in buckets, NumPy's values bit for bit, no whole copy held,
groups of buckets each reading x anew; arrays taken by such an argsort sorted in its
buckets (take_in_order, order_of), and NumPy's take otherwise."""

from __future__ import annotations

import dask
import dask.array as da
import numpy as np
import pytest
from conftest import LargestResult, run_as

import strict_array as xp

RNG = np.random.default_rng(0)


def _sort_cases():
    r = np.random.default_rng(1)
    some_nan = r.standard_normal(1000)
    some_nan[[0, 10, 500, 999]] = np.nan
    return [
        r.standard_normal(1000),
        r.integers(0, 5, 1000).astype(np.float64),  # many ties
        some_nan,
        np.full(1000, np.nan),
        np.zeros(1000),
        r.integers(-50, 50, 1000),
        r.integers(0, 2, 1000).astype(bool),
    ]


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize(
    ("chunks", "groups"),
    # (blocks of 7 in groups: 143 blocks split 63 ways 8 times, 10 s a case)
    [(100, "one"), (100, "several"), (333, "one"), (333, "several"), (7, "one")],
)
@pytest.mark.parametrize("case", range(7))
def test_a_consumer_sorts_a_long_vector_in_buckets_with_numpys_values(
    case, chunks, descending, groups
):
    """A consumer's sort of a 1-D array in several blocks (scikit-learn's curves:
    argsort(y_score, stable=True, descending=True)) is a sample sort: as many blocks as
    x, known sizes, NumPy's stable order bit for bit (ties in order of appearance, NaN
    last, or first when descending)."""
    import array_api_compat.numpy as cnp

    a = _sort_cases()[case]
    x = xp.asarray(a, device=xp.DASK, chunks=chunks)
    # (a chunk of 2 KiB: each group of buckets reads x anew, in 4 to 8 groups)
    with dask.config.set({"array.chunk-size": "128MiB" if groups == "one" else "2KiB"}):
        indices = run_as(
            "sklearn.metrics", "xp.argsort(x, stable=True, descending=d)", x=x, d=descending
        )
        values = run_as("sklearn.metrics", "xp.sort(x, descending=d)", x=x, d=descending)
    assert indices.shape == values.shape == a.shape
    if np.unique(a).size > 2:  # (equal values share a bucket: two values may fill one)
        assert indices._data.numblocks[0] > 1 and values._data.numblocks[0] > 1
    np.testing.assert_array_equal(
        np.asarray(indices), cnp.argsort(a, stable=True, descending=descending)
    )
    np.testing.assert_array_equal(np.asarray(values), cnp.sort(a, descending=descending))


def test_a_sort_in_buckets_holds_no_whole_copy_and_stays_lazy_elsewhere():
    n, block = 40_000, 4_000
    x = xp.asarray(RNG.standard_normal(n), device=xp.DASK, chunks=block)
    # buckets of a sixteenth of a chunk: here 16 KiB, half a block
    with LargestResult() as largest, dask.config.set({"array.chunk-size": "256KiB"}):
        order = run_as("sklearn.metrics", "xp.argsort(x, descending=True)", x=x)
        assert order._data.numblocks == (n // block,)  # (at most one per block)
        np.asarray(order)
    assert 0 < largest.nbytes <= 2 * block * 8  # (a bucket: about a block, by the splitters)
    assert xp.argsort(x)._data.numblocks == (1,)  # not a consumer's call: lazy, one block


@pytest.mark.parametrize("descending", [False, True])
def test_a_long_sort_gathers_its_buckets_in_groups_each_reading_x_anew(descending):
    """The pieces of a group of buckets (every block's values of them, with their
    positions) are held until its buckets are sorted: all of x in one group held a copy
    of x and its positions (average_precision_score on 8 GiB: 1.2 GiB). A group holds
    about a chunk, and reads x anew."""
    n, block = 40_000, 1_000
    a = RNG.standard_normal(n)
    reads = []

    def read(b, block_info=None):
        reads.append(block_info[0]["chunk-location"])
        return b

    x = xp.asarray(da.from_array(a, chunks=block).map_blocks(read, dtype=a.dtype))
    held = {}
    for name, size in (("one group", "1GiB"), ("groups", "64KiB")):
        reads.clear()
        # 64 KiB: buckets of 4 KiB (one per block: 40), positions and values of x
        # (640 KB) in groups of 64 KiB: 10 groups
        with LargestResult() as largest, dask.config.set({"array.chunk-size": size}):
            order = run_as("sklearn.metrics", "xp.argsort(x, descending=d)", x=x, d=descending)
            got = np.asarray(order)
        np.testing.assert_array_equal(got, np.argsort(-a if descending else a, stable=True))
        held[name] = largest.held
        if name == "groups":  # samples, counts, then each group's reading
            assert len(reads) == (2 + 10) * (n // block)
    # the result itself (320 KB of positions) is held whole when computed
    assert held["groups"] < n * 8 + 2 * 64 * 1024 < held["one group"]


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize(("size", "y_chunks"), [("128MiB", 100), ("2KiB", 100), ("2KiB", 77)])
@pytest.mark.parametrize("case", [0, 1, 2, 6])
def test_arrays_taken_by_a_consumers_argsort_are_sorted_alike(case, size, y_chunks, descending):
    """``y_true[argsort(y_score)]`` (scikit-learn's curves take the labels, the scores and
    the weights by the score's order): each array is sorted in the argsort's buckets,
    carried beside the key, block by block (Dask's take by a lazy index pairs every
    block of the index with every block of the array); NumPy's values, ties in order."""
    import array_api_compat.numpy as cnp

    a = _sort_cases()[case]
    carried = [np.arange(a.size) * 1.5, RNG.integers(0, 2, a.size).astype(bool), a]
    x = xp.asarray(a, device=xp.DASK, chunks=100)
    with dask.config.set({"array.chunk-size": size}):
        order = run_as(
            "sklearn.metrics", "xp.argsort(x, stable=True, descending=d)", x=x, d=descending
        )
        want_order = cnp.argsort(a, stable=True, descending=descending)
        for c in carried:
            y = xp.asarray(c, device=xp.DASK, chunks=y_chunks)
            for taken in (y[order], xp.take(y, order), y[order, ...]):
                layers = taken._data.__dask_graph__().layers
                assert not [n for n in layers if n.startswith("slice_with_int_dask_array")]
                np.testing.assert_array_equal(np.asarray(taken), c[want_order])


def test_a_sort_in_groups_of_a_column_of_a_matrix():
    """Each group reads x anew under new keys: with Dask's clone, a score taken from a
    matrix (``proba[:, 1]``, a getitem of ``from_array``) failed with a missing
    dependency (dask/dask#12455); then its take in the argsort's order."""
    proba = RNG.random((1000, 2))
    labels = RNG.integers(0, 2, 1000)
    p = xp.asarray(proba, device=xp.DASK, chunks=(100, 2))
    y = xp.asarray(labels, device=xp.DASK, chunks=100)
    with dask.config.set({"array.chunk-size": "2KiB"}):
        order = run_as("sklearn.metrics", "xp.argsort(p[:, 1] * 2, descending=True)", p=p)
        taken = y[order]
    want = np.argsort(-proba[:, 1], stable=True)
    np.testing.assert_array_equal(np.asarray(order), want)
    np.testing.assert_array_equal(np.asarray(taken), labels[want])


def test_an_argsort_taken_from_another_length_or_forgotten_is_numpys_take():
    """Only an array as long as the argsort's is sorted alike: a longer one is taken
    (every position is in it), a shorter one raises NumPy's IndexError; a take by an
    argsort whose buckets are not known is Dask's, with the same values."""
    from strict_array._backends.dask import _facts

    a = RNG.standard_normal(1000)
    x = xp.asarray(a, device=xp.DASK, chunks=100)
    order = run_as("sklearn.metrics", "xp.argsort(x)", x=x)
    longer = np.arange(1500.0)
    np.testing.assert_array_equal(
        np.asarray(xp.asarray(longer, device=xp.DASK, chunks=100)[order]), longer[np.argsort(a)]
    )
    shorter = xp.asarray(np.arange(900.0), device=xp.DASK, chunks=100)
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 900"):
        np.asarray(shorter[order])
    _facts.note(order._data, order=None)  # (as an array made anew from its graph)
    taken = xp.asarray(a * 2, device=xp.DASK, chunks=300)[order]
    np.testing.assert_array_equal(np.asarray(taken), (a * 2)[np.argsort(a)])


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize(("shape", "axis"), [((1000, 1), 0), ((1, 1000), -1), ((1, 1000, 1), 1)])
def test_a_column_is_sorted_in_buckets_and_taken_along_in_its_order(shape, axis, descending):
    """scikit-learn's ``_weighted_percentile`` sorts a target as a column, ``(n, 1)``
    along axis 0, and takes the weights along that order: the column is sorted in
    buckets as a vector (the axis was put in one block, 256 MiB on 8 GiB of data, and
    the take along it too), and a take along it is sorted in the same buckets. NumPy's
    values, ties in order, NaN last."""
    import array_api_compat.numpy as cnp

    a = np.round(RNG.standard_normal(shape), 1)
    a.flat[7] = np.nan
    w = RNG.random(shape)
    chunks = tuple(100 if s > 1 else 1 for s in shape)
    x = xp.asarray(a, device=xp.DASK, chunks=chunks)
    weights = xp.asarray(w, device=xp.DASK, chunks=chunks)
    with dask.config.set({"array.chunk-size": "2KiB"}):
        order, ordered, taken = run_as(
            "sklearn.utils",
            "(xp.argsort(x, axis=a, descending=d), xp.sort(x, axis=a, descending=d),"
            " xp.take_along_axis(w, xp.argsort(x, axis=a, descending=d), axis=a))",
            x=x, w=weights, a=axis, d=descending,
        )  # fmt: skip
    want = cnp.argsort(a, axis=axis, descending=descending, stable=True)
    for out in (order, ordered, taken):
        layers = out._data.__dask_graph__().layers
        assert [n for n in layers if n.startswith("_sorted_bucket")], layers.keys()
        assert not [n for n in layers if "gufunc" in n or n.startswith("rechunk-merge")]
    np.testing.assert_array_equal(np.asarray(order), want)
    np.testing.assert_array_equal(np.asarray(ordered), np.take_along_axis(a, want, axis))
    np.testing.assert_array_equal(np.asarray(taken), np.take_along_axis(w, want, axis))
    # a matrix of several columns: the axis in one block, the same values
    m = RNG.standard_normal((300, 3))
    mx = xp.asarray(m, device=xp.DASK, chunks=(100, 3))
    got = run_as("sklearn.utils", "xp.argsort(x, axis=0)", x=mx)
    np.testing.assert_array_equal(np.asarray(got), np.argsort(m, axis=0, kind="stable"))
