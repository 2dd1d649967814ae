"""NumPy's joins and selections on DASK: the namespace's own ``concat``, ``stack``,
``where``, ``clip`` and ``nonzero`` (right over unknown sizes, each array's blocks
kept), with NumPy's result dtypes, NumPy's truth of a condition and NumPy's values,
whatever the blocks (SEMANTICS section 6: one block, irregular blocks, blocks of one
element, unknown sizes); NumPy's errors where NumPy raises."""

from __future__ import annotations

import numpy as np
import pytest

import strict_array as xp
from strict_array._numpy_api._table import FUNCTIONS, Compose

RNG = np.random.default_rng(11)
A = RNG.standard_normal((7, 5))
A[1, 2] = np.nan
B = RNG.integers(-3, 9, (7, 5)).astype(np.int32)
V = RNG.standard_normal(5)
U8 = RNG.integers(0, 200, (7, 5)).astype(np.uint8)

CHUNKINGS = {"one block": -1, "irregular": ((2, 4, 1), (3, 2)), "size-1 blocks": 1}

#: name -> NumPy's call of (a float matrix, an int32 matrix, a vector, a uint8 matrix)
CASES = {
    "concatenate": lambda a, b, v, u: np.concatenate([a, b]),
    "concatenate axis=None": lambda a, b, v, u: np.concatenate([a, b], axis=None),
    "concatenate dtype=": lambda a, b, v, u: np.concatenate([a, b], axis=1, dtype=np.float32),
    "concat": lambda a, b, v, u: np.concat((u, b), axis=-1),
    "stack": lambda a, b, v, u: np.stack([a, b], axis=-1),
    "stack dtype=": lambda a, b, v, u: np.stack([b, u], axis=1, dtype=np.int64),
    "hstack of vectors": lambda a, b, v, u: np.hstack([v, v]),
    "hstack": lambda a, b, v, u: np.hstack([a, u]),
    "vstack": lambda a, b, v, u: np.vstack([v, a, b]),
    "dstack": lambda a, b, v, u: np.dstack([a, b]),
    "dstack of vectors": lambda a, b, v, u: np.dstack([v, v]),
    "column_stack": lambda a, b, v, u: np.column_stack([np.sum(a[:, :2], axis=1), b]),
    "append": lambda a, b, v, u: np.append(a, u),
    "append axis=0": lambda a, b, v, u: np.append(b, u, axis=0),
    "where": lambda a, b, v, u: np.where(a > 0, a, 0.0),
    "where of two dtypes": lambda a, b, v, u: np.where(a > 0, a, b),
    "where of a number": lambda a, b, v, u: np.where(b, a, -1),
    "where of a vector": lambda a, b, v, u: np.where(a > 0, v, a),
    "where of scalars": lambda a, b, v, u: np.where(a > 0, 1, 2.5),
    "where of uint8": lambda a, b, v, u: np.where(u > 100, u, 7),
    "where alone": lambda a, b, v, u: np.where(a > 0)[1],
    "nonzero": lambda a, b, v, u: np.nonzero(b)[0],
    "argwhere": lambda a, b, v, u: np.argwhere(a > 0),
    "flatnonzero": lambda a, b, v, u: np.flatnonzero(b),
    "clip": lambda a, b, v, u: np.clip(a, -0.5, 0.5),
    "clip of integers by floats": lambda a, b, v, u: np.clip(b, 0.5, 2),
    "clip by a vector": lambda a, b, v, u: np.clip(a, v, None),
    "clip by keywords": lambda a, b, v, u: np.clip(b, min=0, max=v),
    "clip, min above max": lambda a, b, v, u: np.clip(a, 1, -1),
    "clip of uint8": lambda a, b, v, u: np.clip(u, 10, 100),
}


def _same(got, want):
    assert type(got) is xp.Array and got.device == xp.DASK
    got = np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("chunks", list(CHUNKINGS))
@pytest.mark.parametrize("name", list(CASES))
def test_joins_and_selections_are_numpys(name, chunks):
    f = CASES[name]
    on = [
        xp.asarray(a, device=xp.DASK, chunks=CHUNKINGS[chunks] if a.ndim == 2 else 2)
        for a in (A, B, V, U8)
    ]
    with xp.rank_promotion("allow"):  # (NumPy's broadcasting of a vector: the table's rule)
        _same(f(*on), f(A, B, V, U8))


@pytest.mark.parametrize("chunks", [(2, 5), 1])
@pytest.mark.parametrize(
    "name", ["concatenate", "stack", "hstack", "vstack", "where", "where alone", "clip",
             "nonzero", "argwhere", "append axis=0", "clip of integers by floats"],
)  # fmt: skip
def test_over_unknown_sizes_and_empty_blocks(name, chunks):
    """Rows selected by a mask: sizes unknown until computed, and blocks left empty."""
    keep = A[:, 0] > 0
    f = CASES[name]
    mask = xp.asarray(keep, device=xp.DASK, chunks=2)
    on = [xp.asarray(a, device=xp.DASK, chunks=chunks)[mask] for a in (A, B)]
    on += [xp.asarray(V, device=xp.DASK, chunks=2)]
    on += [xp.asarray(U8, device=xp.DASK, chunks=chunks)[mask]]
    got = f(*on)
    assert None in got.shape
    _same(got, f(A[keep], B[keep], V, U8[keep]))


@pytest.mark.parametrize(
    "call",
    [
        lambda a, b: np.concatenate([a, b], dtype=np.int32),  # (same_kind casting)
        lambda a, b: np.concatenate([a[0, 0], b[0, 0]]),  # (0-d arrays)
        lambda a, b: np.stack([a, b[:3]]),
        lambda a, b: np.where(a > 0, a),
        lambda a, b: np.clip(a, 1, 2, a_min=1),
        lambda a, b: np.where(a > 0, a, b[:3]),
        lambda a, b: np.clip(a, a[:3], 1.0),
    ],
)
def test_numpys_errors_when_built(call):
    with pytest.raises(Exception) as numpys:
        call(A, B)
    x, y = (xp.asarray(a, device=xp.DASK, chunks=3) for a in (A, B))
    with pytest.raises(type(numpys.value)):
        call(x, y)


@pytest.mark.parametrize(
    ("name", "b", "reason"),
    [
        ("concatenate", {"arrays": [V, V], "out": None}, ""),
        ("concatenate", {"arrays": [V, [1.0]], "out": None}, "not a sequence of arrays"),
        ("stack", {"arrays": [V, V.astype(np.float16)], "out": None}, "dtype float16"),
        ("where", {"condition": "lazy", "x": 1.0, "y": V}, ""),
        ("where", {"condition": V > 0, "x": 1.0, "y": 2.0}, "condition not an array of the device"),
        ("clip", {"a": "lazy", "a_min": 0, "a_max": 1, "out": "lazy"}, "out= or a ufunc keyword given"),
        ("clip", {"a": "lazy bool", "a_min": 0, "a_max": 1}, "clip of dtype bool"),
    ],
)  # fmt: skip
def test_the_table_resolves_to_the_namespace_where_it_takes_the_arguments(name, b, reason):
    """Which way a call takes, and the reason on the row where not the namespace's."""
    lazy = FUNCTIONS[name].lazy
    d = xp.asarray(V, device=xp.DASK)._data
    lazy_values = {"lazy": d, "lazy bool": d > 0}
    b = {k: lazy_values[v] if isinstance(v, str) else v for k, v in b.items()}
    assert lazy.why(b) == reason and type(lazy.way) is Compose
