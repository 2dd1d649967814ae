"""The standard's ``unique_*`` functions on ``DASK``, block by block.

Each block's unique values (with their first positions and counts) are found in a
task of their own; one small task merges them. A long label vector is never gathered
into one block and sorted whole (a consumer that checks the kind of every target it
is given calls ``unique_values`` on a vector as long as its data). Inverse indices are
a lazy array chunked like ``x``, each block mapped through the merged result.

Dask's own ``unique`` does not serve: it counts each NaN 0 times (the standard counts
each NaN as a distinct value, once), fails on NaN for ``return_index``, builds an
``n x k`` matrix for the inverse, and needs known sizes (it numbers the elements with
``arange``). Here the values, positions and counts are NumPy's, bit for bit: NaNs
distinct (``equal_nan=False``, as ``array_api_compat`` asks of NumPy), and in order of
appearance in every block and in the merge: every ``np.unique`` here has
``return_index=True``, which selects a stable sort.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import array_api_compat.numpy as cnp
import dask.array as da
import numpy as np

from ._basics import whole_axes
from ._compute import persist, sizes_asked

__all__ = ["unique", "unique_all", "unique_counts", "unique_inverse", "unique_values"]


class _Merged(NamedTuple):
    values: np.ndarray
    indices: np.ndarray
    counts: np.ndarray
    #: for each per-block unique value, in block order, its position in ``values``
    where: np.ndarray
    #: where each block's own unique values start in ``where`` (one more than blocks)
    starts: np.ndarray


def _one(value: Any, ndim: int = 1) -> np.ndarray:
    """An object array of one element, ``value`` (a block of an object array)."""
    out = np.empty((1,) * ndim, dtype=object)
    out[(0,) * ndim] = value
    return out


def _block_unique(block: np.ndarray) -> np.ndarray:
    """A block's unique values, their first positions in the block, counts and its size."""
    flat = block.ravel()
    values, first, counts = np.unique(flat, return_counts=True, equal_nan=False, return_index=True)
    return _one((values, first, counts, flat.size))


def _merge(per_block: np.ndarray) -> np.ndarray:
    """Every block's unique values merged: the whole array's values, first positions
    (blocks are in flat order) and counts."""
    parts = list(per_block.ravel())
    values = np.concatenate([p[0] for p in parts])
    offsets = np.cumsum([0] + [p[3] for p in parts[:-1]])
    positions = np.concatenate([p[1] + o for p, o in zip(parts, offsets)])
    counts = np.concatenate([p[2] for p in parts])
    merged, first, where = np.unique(
        values, return_index=True, return_inverse=True, equal_nan=False
    )
    total = np.zeros(merged.size, dtype=counts.dtype)
    np.add.at(total, where, counts)
    starts = np.cumsum([0] + [p[0].size for p in parts])
    return _one(_Merged(merged, positions[first].astype(np.intp), total, where.ravel(), starts), 0)


def _inverse_block(block: np.ndarray, merged: np.ndarray, block_id: tuple[int, ...]) -> np.ndarray:
    """A block's inverse indices: its own unique values' positions in the merged ones."""
    m: _Merged = merged[()]  # type: ignore[assignment]  # (the object array's one element)
    _, _, local = np.unique(block.ravel(), return_index=True, return_inverse=True, equal_nan=False)
    j = block_id[0]
    return m.where[m.starts[j] : m.starts[j + 1]][local.ravel()].reshape(block.shape)


def unique(x: da.Array, *, index: bool, inverse: bool, counts: bool) -> tuple[da.Array, ...]:
    """``x``'s unique values and, as asked, their first (flat) positions, the inverse
    indices (shaped like ``x``) and the counts, in that order; their sizes unknown."""
    meta = cnp.unique_all(np.empty((0,) * x.ndim, x.dtype))  # type: ignore[attr-defined]
    shape = x.shape
    # each block a run of rows of whole trailing axes: blocks are then in flat order
    x = whole_axes(x, range(1, x.ndim)) if x.ndim > 1 else x
    if x.ndim == 0:
        x = x[None]
    n = x.numblocks[0]
    obj = np.empty((0,), dtype=object)
    per_block = da.map_blocks(
        _block_unique, x, drop_axis=list(range(1, x.ndim)), chunks=((1,) * n,), dtype=object,
        meta=obj,
    )  # fmt: skip
    merged = da.blockwise(_merge, "", per_block, "i", concatenate=True, dtype=object, meta=obj)
    if sizes_asked():
        # computed now, one pass over x, and kept: the results' sizes are read from it,
        # and the inverse indices stream over x's blocks instead of waiting for the merge
        # with every block of x in memory
        (merged,) = persist([merged])

    def field(name: str, like: np.ndarray) -> da.Array:
        return da.blockwise(
            lambda m: getattr(m[()], name), "i", merged, "", new_axes={"i": (np.nan,)},
            dtype=like.dtype, meta=like[:0],
        )  # fmt: skip

    out = [field("values", meta.values)]
    if index:
        out.append(field("indices", meta.indices))
    if inverse:
        meta_inverse = np.empty((0,) * x.ndim, np.intp)
        indices = da.map_blocks(_inverse_block, x, merged, dtype=np.intp, meta=meta_inverse)
        out.append(indices if shape else indices.reshape(()))
    if counts:
        out.append(field("counts", meta.counts))
    return tuple(out)


def unique_all(x: da.Array, /) -> tuple[da.Array, ...]:
    return unique(x, index=True, inverse=True, counts=True)


def unique_counts(x: da.Array, /) -> tuple[da.Array, ...]:
    return unique(x, index=False, inverse=False, counts=True)


def unique_inverse(x: da.Array, /) -> tuple[da.Array, ...]:
    return unique(x, index=False, inverse=True, counts=False)


def unique_values(x: da.Array, /) -> da.Array:
    return unique(x, index=False, inverse=False, counts=False)[0]
