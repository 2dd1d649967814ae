"""Computing (strict_array._backends.dask._compute): the one place where graphs become
values; an error of an array not asked for is not lost."""

from __future__ import annotations

import dask.array as da
import numpy as np
import pytest

import strict_array as xp
from strict_array._array import result
from strict_array._backends.dask import _keep
from strict_array._backends.dask._namespace import declared


def test_a_held_array_that_fails_is_not_tried_again_and_raises_when_asked_for():
    """A small held array computed with a later computation (``_keep.pending``) whose
    tasks fail: the asked-for value is computed without it, it is left out of later
    computations (each would run twice), and its own error is raised when it is asked
    for."""
    calls = []

    def fails(block: np.ndarray) -> np.ndarray:
        calls.append(1)
        raise FloatingPointError("the held array's own error")

    a = np.random.default_rng(1).standard_normal((4000, 4))
    with xp.planning(threshold=a.nbytes // 4):
        x = xp.asarray(a, device=xp.DASK, chunks=(1000, 4))
        m = x._data.mean(axis=0)
        held = result(declared(da.map_blocks(fails, m, dtype=m.dtype)), xp.DASK)
        assert held._data.name in _keep._tracked
        total = float(xp.sum(x))
        tried = len(calls)
        assert tried >= 1  # (computed with the sum, which it failed)
        assert held._data.name not in _keep._tracked
        assert float(xp.sum(x * 2.0)) == pytest.approx(2 * total)
        assert len(calls) == tried
    np.testing.assert_allclose(total, a.sum(), rtol=1e-12)
    with pytest.raises(FloatingPointError, match="the held array's own error"):
        np.asarray(held)
