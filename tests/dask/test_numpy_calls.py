"""NumPy's functions on DASK data (strict_array._backends.dask._numpy_calls): where
Dask's own function is NumPy's value, it is called, and where it refuses arguments
NumPy takes, NumPy's own serves, decided before the call; an error of a bad input is
raised, never taken for a refusal."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import to_numpy

import strict_array as xp

M = np.arange(12.0).reshape(3, 4)
V = np.arange(3.0)

#: Dask's own refuses these arguments NumPy takes: NumPy's value all the same
REFUSED = {
    "dot of a vector and a scalar": lambda m, v: np.dot(v, 2.0),
    "dot of a scalar and a matrix": lambda m, v: np.dot(np.float64(2.0), m),
    "insert of NumPy values": lambda m, v: np.insert(m, 2, np.array([7.0, 8.0, 9.0]), axis=1),
    "insert of a list": lambda m, v: np.insert(m, 1, [7.0, 8.0, 9.0], axis=1),
    "insert at the end and before the last": lambda m, v: np.insert(m, [4, -1], 0.5, axis=1),
    "insert by a mask": lambda m, v: np.insert(m, np.array([1, 0, 0, 1], bool), 0.5, axis=1),
    "linspace between arrays": lambda m, v: np.linspace(v, v + 1, num=4),
    "tril of a vector": lambda m, v: np.tril(v),
    "triu of a vector": lambda m, v: np.triu(v, k=1),
}

#: bad inputs: NumPy's error type, raised by Dask's own or NumPy's
BAD = {
    "dot of unequal lengths": lambda m, v: np.dot(m, v),
    "insert out of bounds": lambda m, v: np.insert(m, 9, 1.0, axis=1),
    "insert along a missing axis": lambda m, v: np.insert(m, 1, 1.0, axis=2),
    "linspace of a negative number": lambda m, v: np.linspace(0.0, 1.0, num=-1),
    "insert past the end": lambda m, v: np.insert(m, [0, 9], 1.0, axis=1),
}


@pytest.mark.parametrize("chunks", [-1, 1, (2, 1)])
@pytest.mark.parametrize("name", sorted(REFUSED))
def test_arguments_dask_refuses_get_numpys_value(name, chunks):
    call = REFUSED[name]
    m = xp.asarray(M, device=xp.DASK, chunks=chunks)
    v = xp.asarray(V, device=xp.DASK, chunks=chunks if chunks == -1 else 2)
    got = call(m, v)
    np.testing.assert_array_equal(to_numpy(got), call(M, V))


@pytest.mark.parametrize("name", sorted(BAD))
def test_a_bad_input_raises_numpys_error_type(name):
    call = BAD[name]
    with pytest.raises(Exception) as numpy_error:
        call(M, V)
    m = xp.asarray(M, device=xp.DASK, chunks=2)
    v = xp.asarray(V, device=xp.DASK, chunks=2)
    with pytest.raises(numpy_error.type):
        to_numpy(call(m, v))


# --- the one engine: NumPy's function on each block, the named axes in one block -------------
STACK = np.random.default_rng(3).standard_normal((6, 3, 3)) + 3 * np.eye(3)
ROWS = np.random.default_rng(4).standard_normal((7, 5))

#: NumPy calls whose way is Blocks: element-wise, lanes, matrices (several arrays, a
#: tuple of results, results nested in results, lanes whose result leads with new axes)
PER_BLOCK = {
    "isclose": lambda r, s: np.isclose(r, r + 1e-9 * (r > 0)),
    "median along the blocks' axis": lambda r, s: np.median(r, axis=0),
    "percentile, q's axis first": lambda r, s: np.percentile(r, [10, 50, 90], axis=1),
    "unwrap": lambda r, s: np.unwrap(r, axis=0),
    "eigh of a stack": lambda r, s: np.linalg.eigh(s),
    "svd of a stack": lambda r, s: np.linalg.svd(s),
    "solve of a stack": lambda r, s: np.linalg.solve(s, s[:, :, :1]),
    "histogramdd": lambda r, s: np.histogramdd(r[:, :2], bins=3),
}


def _unknown_rows(x: np.ndarray, chunks: int) -> xp.Array:
    """``x`` on DASK with its first size unknown (a selection by a mask)."""
    d = xp.asarray(x, device=xp.DASK, chunks=(chunks,) + x.shape[1:])
    return d[xp.asarray(np.ones(x.shape[0], bool), device=xp.DASK, chunks=chunks)]


@pytest.mark.parametrize("chunks", ["one block", "irregular", "size-1 blocks", "unknown sizes"])
@pytest.mark.parametrize("name", sorted(PER_BLOCK))
def test_numpys_function_per_block_gives_numpys_value(name, chunks):
    call = PER_BLOCK[name]
    if chunks == "unknown sizes":
        r, s = _unknown_rows(ROWS, 3), _unknown_rows(STACK, 4)
    else:
        size = {"one block": -1, "irregular": 4, "size-1 blocks": 1}[chunks]
        r = xp.asarray(ROWS, device=xp.DASK, chunks=(size, -1))
        s = xp.asarray(STACK, device=xp.DASK, chunks=(size, -1, -1))
    got, want = call(r, s), call(ROWS, STACK)
    flat_got = got if isinstance(got, tuple) else (got,)
    flat_want = want if isinstance(want, tuple) else (want,)
    for g, w in zip(flat_got, flat_want):
        for gi, wi in zip(*((g, w) if isinstance(w, list) else ((g,), (w,)))):
            np.testing.assert_allclose(to_numpy(gi), wi, rtol=1e-12, atol=1e-12)
