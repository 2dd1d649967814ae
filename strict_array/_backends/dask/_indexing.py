"""Indexing and assignment on Dask: the keys Dask's own indexing gets wrong or refuses."""

from __future__ import annotations

from typing import Any

import dask.array as da
import numpy as np

from ._namespace import reshape, take, with_index_length

_INDEX_ARRAYS = (da.Array, np.ndarray)


def _multi_array_key(parts: tuple) -> bool:
    """A key of ints and integer index arrays that Dask's own indexing refuses
    (several index arrays, or one of more than one dimension)."""
    arrays = [k for k in parts if isinstance(k, _INDEX_ARRAYS)]
    return (
        bool(arrays)
        and all(
            type(k) is int or (isinstance(k, _INDEX_ARRAYS) and k.dtype.kind in "iu") for k in parts
        )
        and (len(arrays) > 1 or arrays[0].ndim != 1)
    )


def _checked_index(index: da.Array, size: int, axis: int) -> da.Array:
    """Wrap negative indices; an out-of-bounds index raises IndexError when computed."""

    def check(block: np.ndarray) -> np.ndarray:
        if block.size and (block.min() < -size or block.max() >= size):
            raise IndexError(f"index out of bounds for axis {axis} with size {size}")
        return np.where(block < 0, block + size, block).astype(np.int64)

    return da.map_blocks(check, index, dtype=np.int64)


def _gather_points(data: da.Array, parts: tuple) -> da.Array:
    """``data[i, j, ...]`` for integer index arrays (and ints) on the leading axes.

    The indexed axes are flattened into one and the broadcast indices become one
    flat index into it: a single ``take``, lazily, with the result shape known.
    """
    k = len(parts)
    lead, rest = data.shape[:k], data.shape[k:]
    indices = da.broadcast_arrays(*(da.asarray(p) for p in parts))
    flat = None
    for axis, (index, size) in enumerate(zip(indices, lead)):
        stride = int(np.prod(lead[axis + 1 :], dtype=np.int64))
        term = _checked_index(index, size, axis) * stride
        flat = term if flat is None else flat + term
    assert flat is not None
    stacked = reshape(data, (int(np.prod(lead, dtype=np.int64)), *rest))
    out = take(stacked, reshape(flat, (-1,)), axis=0)
    return reshape(out, (*indices[0].shape, *rest))


def getitem(data: da.Array, key: Any) -> da.Array:
    """``data[key]`` for keys holding index arrays."""
    parts = key if isinstance(key, tuple) else (key,)
    if _multi_array_key(parts):
        return _gather_points(data, parts)
    if isinstance(key, da.Array) and key.dtype == bool and 0 in key.shape:
        # an empty mask selects nothing (Dask's broadcast refuses it)
        return da.empty((0, *data.shape[key.ndim :]), dtype=data.dtype, chunks=-1)
    if isinstance(key, da.Array) and key.dtype == bool and key.ndim == 0:
        # a 0-d mask adds an axis of length 0 or 1 (Dask takes only 1-D or full masks)
        return data[None][key.reshape((1,))]
    out = data[key]
    arrays = [i for i, k in enumerate(parts) if isinstance(k, _INDEX_ARRAYS)]
    rest_is_full = all(
        k is Ellipsis or (type(k) is slice and k == slice(None))
        for k in parts
        if not isinstance(k, _INDEX_ARRAYS)
    )
    if len(arrays) == 1 and rest_is_full and parts[arrays[0]].dtype.kind in "iu":
        (p,) = arrays
        axis = p if Ellipsis not in parts[:p] else data.ndim - (len(parts) - p)
        if parts[p].ndim == 1:
            out = with_index_length(out, axis, parts[p])
    return out


def assign(data: da.Array, key: Any, value: Any) -> da.Array:
    """``data[key] = value`` as a new graph (Dask arrays are values: another Array
    may share the old ``dask.array.Array`` object, so it is never mutated)."""
    if key is Ellipsis and getattr(value, "shape", None) == data.shape:
        return value
    if (
        isinstance(key, da.Array)
        and key.dtype == bool
        and key.ndim == data.ndim
        and getattr(value, "ndim", 0) == 0
    ):
        # a full-rank mask with one value (also 0-d, which Dask's setitem refuses)
        return da.where(key, value, data).astype(data.dtype)
    out = data.copy()
    out[key] = value
    return out
