"""The one engine of per-block calls on DASK (strict_array._backends.dask._per_block):
a dtype that depends on the values is an error, never a cast; a tuple of results is
computed once per block, its batch blocks kept. Its values against NumPy's, on several
chunkings: tests/dask/test_numpy_calls.py and tests/dask/test_linalg.py."""

from __future__ import annotations

import dask
import numpy as np
import pytest

import strict_array as xp
from strict_array._backends._numpy_ways import Blocks
from strict_array._backends.dask._numpy_calls import numpy_call

STACK = np.random.default_rng(3).standard_normal((6, 3, 3)) + 3 * np.eye(3)


def test_a_dtype_that_depends_on_the_values_is_an_error_not_a_cast():
    """np.linalg.eigvals is complex where an eigenvalue is not real (a rotation), real
    elsewhere (its row refuses it on DASK): per matrix, the blocks' dtypes differ, and
    the engine raises rather than casting."""
    rotation = np.array([[0.0, -1.0], [1.0, 0.0]])
    s = xp.asarray(np.stack([np.eye(2), rotation]), device=xp.DASK, chunks=(1, -1, -1))
    values = numpy_call(np.linalg.eigvals, Blocks(("a",), along=(2,)), (s._data,), {})
    with pytest.raises(TypeError, match="depends on the values"):
        values.compute(scheduler="sync")
    with pytest.raises(TypeError, match="cannot give NumPy's value lazily"):
        np.linalg.eigvals(s)


def test_a_tuple_of_results_calls_numpy_once_per_block_and_keeps_the_blocks():
    calls = []

    def eig(a):
        calls.append(a.shape)
        return np.linalg.eig(a)

    symmetric = STACK + np.swapaxes(STACK, -1, -2)  # (real eigenvalues)
    s = xp.asarray(symmetric, device=xp.DASK, chunks=(2, -1, -1))
    values, vectors = numpy_call(eig, Blocks(("a",), along=(2,)), (s._data,), {})
    assert values.chunks[0] == vectors.chunks[0] == (2, 2, 2)  # the batch blocks kept
    calls.clear()
    got = dask.compute(values, vectors, scheduler="sync")
    assert calls == [(2, 3, 3)] * 3  # once per block, for both results
    want = np.linalg.eig(symmetric)
    np.testing.assert_allclose(got[0], want[0])
    np.testing.assert_allclose(got[1], want[1])


@pytest.mark.parametrize("chunks", [-1, 1])
def test_a_tuple_of_results_broadcasts_a_batch_axis_of_size_one_in_the_lazy_shape(chunks):
    # (np.divmod of (1, 3) and (2, 3) declared the first operand's (1, 3) while each
    # block computed NumPy's (2, 3))
    a = np.arange(1.0, 4.0).reshape(1, 3)
    b = np.arange(2.0, 8.0).reshape(2, 3)
    x, y = (xp.asarray(v, device=xp.DASK, chunks=chunks) for v in (a, b))
    for got, want in zip(np.divmod(x, y), np.divmod(a, b)):
        assert got.shape == want.shape == (2, 3)
        np.testing.assert_array_equal(np.asarray(got), want)
