"""The standard's unique_* functions on DASK, block by block (strict_array._backends.dask._set):
NumPy's values, positions, inverse and counts whatever the blocks, no task holding more
than a block of the input, and a consumer's inverse left lazy."""

from __future__ import annotations

import dask.array as da
import numpy as np
import pytest
from conftest import LargestResult, run_as

import strict_array as xp

RNG = np.random.default_rng(0)


def _cases():
    labels = RNG.integers(0, 4, 203).astype(np.float64)
    with_nan = labels.copy()
    with_nan[[3, 50, 51, 190]] = np.nan
    complex_nan = (labels + 1j * RNG.integers(0, 2, 203)).astype(np.complex128)
    complex_nan[[7, 90]] = complex(np.nan, 1)
    return [
        (labels, 17),
        (with_nan, 20),
        (with_nan, 203),
        (complex_nan, 31),
        (labels.astype(np.int8), 1),
        (np.array([True, False, True]), 1),
        (labels.reshape(7, 29), (2, 5)),
        (with_nan.reshape(29, 7), (3, 7)),
        (np.array(2.5), ()),
        (np.empty(0), 1),
    ]


@pytest.mark.parametrize("unknown", [False, True], ids=["known", "unknown-sizes"])
@pytest.mark.parametrize("case", range(10))
def test_unique_block_by_block_gives_numpys_values_positions_inverse_and_counts(case, unknown):
    """Each NaN distinct and in order of appearance, positions in flat order across blocks
    of an n-d array, the inverse shaped like x: NumPy's unique_all, whatever the blocks."""
    values, chunks = _cases()[case]
    x = xp.asarray(values, device=xp.DASK, chunks=chunks)
    if unknown and values.ndim:
        x = x[xp.ones(values.shape[0], dtype=xp.bool, device=xp.DASK)]  # sizes now unknown
    cpu = xp.unique_all(xp.asarray(values))
    got = xp.unique_all(x)
    for name, want, have in zip(cpu._fields, cpu, got):
        have = np.asarray(have)
        assert have.dtype == np.asarray(want).dtype, name
        np.testing.assert_array_equal(have, np.asarray(want), err_msg=name)
    np.testing.assert_array_equal(np.asarray(xp.unique_values(x)), np.asarray(cpu.values))
    counts = xp.unique_counts(x)
    np.testing.assert_array_equal(np.asarray(counts.counts), np.asarray(cpu.counts))
    inverse = xp.unique_inverse(x).inverse_indices
    assert inverse.shape == x.shape
    np.testing.assert_array_equal(np.asarray(inverse), np.asarray(cpu.inverse_indices))


def test_unique_never_holds_more_than_a_block_of_the_input():
    """A label vector is reduced block by block: no task makes a result as large as the
    whole vector (the unique of it in one block sorted a 256 MiB vector on 8 GiB)."""
    n, block = 40_000, 4_000
    y = xp.asarray(RNG.integers(0, 5, n).astype(np.float64), device=xp.DASK, chunks=block)
    with LargestResult() as largest:
        values, counts = xp.unique_counts(y)
        np.asarray(values), np.asarray(counts)
        np.asarray(xp.unique_inverse(y).inverse_indices)
    assert 0 < largest.nbytes <= block * 8


def test_a_consumer_gets_the_inverse_lazy_and_reads_the_labels_once_for_the_values():
    """unique_inverse in a consumer's call: the values (and sizes) from one pass, kept; the
    inverse, as large as the labels, stays lazy and streams from the kept merge."""
    reads = [0]
    labels = RNG.integers(0, 3, 600).astype(np.float64)

    def read(block):
        reads[0] += 1
        return block

    y = xp.asarray(da.from_array(labels, chunks=100).map_blocks(read, meta=labels[:0]))
    values, inverse = run_as("sklearn.utils", "xp.unique_inverse(y)", y=y)
    assert values.shape == (3,) and reads[0] == 6  # one pass for the values
    assert reads[0] == 6  # the inverse is not computed with them
    np.testing.assert_array_equal(np.asarray(inverse), np.unique(labels, return_inverse=True)[1])
    assert reads[0] == 12  # one more pass, for the inverse alone
