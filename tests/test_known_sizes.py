"""Data-dependent sizes on DASK: known where a consumer needs them (docs/dask.md, "Unknown sizes").

A consumer package (scikit-learn, SciPy, array-api-extra by default; the rank-promotion
policy's ``known_sizes``) gets the sizes of masks, ``nonzero`` and
``unique_*`` as numbers; other code gets ``None`` unless it asks. A mask's sizes come
from one pass over the mask alone: the selected array stays lazy.

Here the rule itself (strict_array._backends.dask._compute.sizes_asked): who asks, the
policy's packages, the deprecated config key, the first use of an unknown size, counted
masks. What each function does where sizes are asked is tested beside its module:
``unique_*`` in tests/dask/test_set.py, the sample sort in tests/dask/test_sorting.py,
takes by known block ranges and a kept ``nonzero`` in tests/dask/test_dask_namespace.py.
"""

from __future__ import annotations

import dask
import dask.array as da
import numpy as np
import pytest
from conftest import run_as

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
