"""Computing (strict_array._backends.dask._compute): the one place where graphs become
values; an error of an array not asked for is not lost."""

from __future__ import annotations

import dask
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


def test_a_compute_plans_once_with_what_it_takes_along(monkeypatch):
    """One compute reads its graph and plans it once, the small layers and the held
    small arrays it may take along included (an iteration's next parameters, built
    before the scalar asked for), and takes them along: they are kept. Each compute
    planned the arrays alone, then with the small layers, then with the held arrays."""
    from strict_array._backends.dask import _plan

    runs = []
    plan = _plan.plan

    def counted(*args, **kwargs):
        runs.append(1)
        return plan(*args, **kwargs)

    monkeypatch.setattr(_plan, "plan", counted)
    a = np.random.default_rng(2).standard_normal((4000, 4))
    with xp.planning(threshold=a.nbytes // 4):
        x = xp.asarray(da.from_array(a, chunks=(500, 4)))
        c = xp.mean(x, axis=0)
        for _ in range(3):
            d = xp.subtract(x, c, broadcast_dimensions=(1,))
            following = xp.mean(xp.abs(d), axis=0)  # (built first, still held)
            runs.clear()
            total = float(xp.sum(d * d))
            assert len(runs) == 1
            assert following._data.name in _keep._kept
            np.testing.assert_allclose(total, ((a - np.asarray(c)) ** 2).sum(), rtol=1e-12)
            c = following


def _building(seed: int) -> list:
    """Arrays whose sizes depend on the data, or that route by the data: a mask's
    selection, nonzero, unique values, a sort of a long array, a take by a lazy index,
    an operand computed from a consumer's NumPy values met with another's blocks."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(4000)
    x = xp.asarray(a, device=xp.DASK, chunks=500)
    labels = xp.asarray(rng.integers(0, 5, 4000), device=xp.DASK, chunks=700)
    index = xp.argsort(x)
    return [
        x[x > 0],
        xp.nonzero(x > 0)[0],
        xp.unique_values(labels),
        xp.sort(x),
        xp.take(x, index[:100]),
        xp.asarray(a, device=xp.DASK, chunks=700) * x,
    ]


def test_building_computes_only_where_sizes_are_asked_and_only_through_compute():
    """The data-dependent-size rule is the one computation while a graph is built:
    where sizes are not asked for, building computes nothing; where they are, every
    computation runs inside the computing module (none in sorting, sets, indexing or
    the namespace on their own)."""
    import inspect

    from dask.callbacks import Callback

    from strict_array._backends.dask import _compute

    started: list[bool] = []

    def start(dsk):
        started.append(
            any(f.frame.f_globals.get("__name__") == _compute.__name__ for f in inspect.stack())
        )

    with Callback(start=start), dask.config.set(scheduler="sync"):
        with xp.known_sizes(False):
            lazy = _building(3)
        assert started == []
        with xp.known_sizes():
            known = _building(3)
    assert started and all(started)
    assert any(None in v.shape for v in lazy) and all(None not in v.shape for v in known)
    for v, w in zip(lazy, known):
        np.testing.assert_array_equal(np.asarray(v), np.asarray(w))
