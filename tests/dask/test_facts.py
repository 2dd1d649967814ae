"""The record of facts (strict_array._backends.dask._facts): written beside Dask's
objects, never on them; an array the program holds is never rewritten."""

from __future__ import annotations

import gc

import dask.array as da
import numpy as np

import strict_array as xp
from strict_array._backends.dask import _facts


def _own_attributes(x: da.Array) -> set[str]:
    return {k for k in vars(x) if "strict_array" in k}


def test_facts_are_kept_beside_the_array_not_on_it():
    ones = xp.ones(12, device=xp.DASK, chunks=4)
    sliced = xp.zeros((12, 3), device=xp.DASK, chunks=(4, 3))[:, 1]
    order = xp.argsort(xp.asarray(np.arange(12.0)[::-1], device=xp.DASK, chunks=4))
    for a in (ones, sliced, order):
        assert not _own_attributes(a._data)
    facts = _facts.of(ones._data)
    assert facts.constant == 1 and facts.remake is not None  # (a constant: made from nothing)
    assert _facts.of(sliced._data).remake is not None  # (a slice of zeros: made from nothing)
    layers = ones._data.__dask_graph__().layers.values()
    assert not any("strict_array" in str(layer.collection_annotations) for layer in layers)
    assert _facts.of(da.ones(3)) is _facts.NONE  # (an array Dask made alone)


def test_a_record_goes_with_its_array():
    x = da.ones(4, chunks=2)
    _facts.note(x, constant=np.float64(1.0))
    key = id(x)
    assert key in _facts._records
    del x
    gc.collect()
    assert key not in _facts._records


def test_an_array_the_program_holds_is_never_rewritten():
    """A small parameter computed with the scalar that ends a step is kept; the array
    the program holds keeps its own graph, and what is built on it starts from the
    kept value."""
    x = xp.asarray(np.random.default_rng(0).standard_normal((400, 3)), device=xp.DASK,
                   chunks=(100, 3))  # fmt: skip
    params = xp.mean(x, axis=0) * 2.0
    graph = params._data.__dask_graph__()
    layers = dict(graph.layers)
    bool(xp.sum(x) > -1e9)  # (computes, and keeps params with it)
    bool(xp.sum(params) > -1e9)
    assert params._data.__dask_graph__() is graph and dict(graph.layers) == layers
    after = params + 1.0
    assert len(after._data.__dask_graph__().layers) <= len(layers) + 1
    np.testing.assert_allclose(
        np.asarray(after), np.asarray(x).mean(axis=0) * 2.0 + 1.0, rtol=1e-12
    )
