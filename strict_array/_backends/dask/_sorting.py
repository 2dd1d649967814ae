"""``sort`` and ``argsort`` of a long 1-D array on ``DASK``: a sample sort.

Dask's (through ``array_api_compat``) put the whole axis in one block and sort it there
("This can be extremely inefficient and can lead to out-of-memory errors"): a curve's
``argsort(y_score, stable=True, descending=True)`` held the scores whole in one block,
with the indices and the gathered copies beside them.

Here a 1-D array of known size in several blocks, sorted where sizes are asked for
(:func:`._compute.sizes_asked`), is sorted in a few blocks (:func:`buckets`):

1. splitters: each block's sorted values sampled at evenly spaced ranks, the samples
   merged and sampled again (one pass over ``x``, computed at once);
2. bucket sizes: each block's values counted per bucket (a second pass, computed at
   once, so that the result's chunks are known);
3. the result, lazy: each block split by bucket, in block order, and each bucket
   gathered and sorted by NumPy, stably, in groups of buckets (:func:`groups`).

An ``argsort`` result remembers its buckets (:func:`order_of`): taking another array
by it (``y_true[argsort(y_score)]``, as a curve does next) sorts that array by the same
buckets (:func:`take_in_order`), where Dask's ``take`` by a lazy index pairs every
block of the index with every block of the array.

Equal values fall in one bucket and keep their order of appearance within it, so a
stable sort of each bucket is a stable sort of the whole; NaN sorts last (first when
descending) in every step, as NumPy sorts it. The values are NumPy's, bit for bit.
Values with many ties (a score of few distinct values) can make one bucket hold a
large part of ``x``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import array_api_compat.numpy as cnp
import dask
import dask.array as da
import numpy as np

from . import _facts
from ._basics import as_constant, config_bytes, constant_value, unknown, whole_axis
from ._compute import compute, sizes_asked
from ._graph import clone

__all__ = ["order_of", "sample_sortable", "sort_or_argsort", "take_along_in_order", "take_in_order"]

#: values sampled from each block to choose the splitters
SAMPLES_PER_BLOCK = 64


def sample_sortable(x: da.Array) -> bool:
    """Whether ``x`` is sorted by buckets: 1-D, of known size, in several blocks, and
    where sizes are asked for (the buckets' sizes are computed now)."""
    return x.ndim == 1 and x.numblocks[0] > 1 and not unknown(x.shape[0]) and sizes_asked()


def buckets(x: da.Array) -> int:
    """How many buckets: each about a sixteenth of Dask's ``array.chunk-size`` (a
    bucket's values, positions, order and sorted result are in memory together, in each
    of the scheduler's threads), at least 2, at most one per block (the benchmarks)."""
    part = max(config_bytes("array.chunk-size") // 16, 1)
    return max(2, min(x.numblocks[0], -(-x.nbytes // part)))


def groups(x: da.Array, carried_itemsize: int, n_buckets: int) -> int:
    """In how many groups the buckets are gathered, each from its own reading of ``x``
    (a Zarr vector read once per group): a group's pieces (its buckets' values, and
    what they carry, of ``carried_itemsize`` bytes an element) are in memory together
    until sorted, about Dask's ``array.chunk-size`` (one group: a copy of ``x``)."""
    grouped = x.nbytes + x.size * carried_itemsize
    return int(max(1, min(n_buckets, -(-grouped // max(config_bytes("array.chunk-size"), 1)))))


def _sample(block: np.ndarray) -> np.ndarray:
    ordered = np.sort(block)
    if ordered.size == 0:
        return ordered
    return ordered[
        np.linspace(0, ordered.size - 1, min(SAMPLES_PER_BLOCK, ordered.size)).astype(np.intp)
    ]


def _bucket_of(block: np.ndarray, splitters: np.ndarray) -> np.ndarray:
    # (NumPy's searchsorted orders as its sort does: NaN after every number)
    return np.searchsorted(splitters, block, side="right")


def _split(
    block: np.ndarray,
    splitters: np.ndarray,
    carried: np.ndarray | int | None,
    first: int,
    stop: int,
) -> tuple:
    """The block's values of each bucket from ``first`` up to ``stop`` (excluded), each
    with what they carry: nothing (``carried`` None), their positions in ``x``
    (``carried`` the block's offset), or ``carried``'s elements at the same places."""
    bucket = _bucket_of(block, splitters)
    order = np.argsort(bucket, kind="stable")  # (positions in order within each bucket)
    bounds = np.searchsorted(bucket[order], np.arange(first, stop + 1))
    parts: list[tuple[np.ndarray, np.ndarray | None]] = []
    for j in range(stop - first):
        take = order[bounds[j] : bounds[j + 1]]
        if carried is None:
            parts.append((block[take], None))
        elif isinstance(carried, int):
            parts.append((block[take], take + carried))
        else:
            parts.append((block[take], carried[take]))
    return tuple(parts)


def _sorted_bucket(splits: list, j: int, descending: bool, carry: bool) -> np.ndarray:
    """Bucket ``j`` of a group (its ``j``-th part in each block's split) sorted."""
    values = np.concatenate([s[j][0] for s in splits])
    if not carry:
        return cnp.sort(values, descending=descending, stable=True)  # type: ignore[attr-defined,no-any-return]
    carried = np.concatenate([s[j][1] for s in splits])
    return carried[cnp.argsort(values, descending=descending, stable=True)]  # type: ignore[attr-defined,no-any-return]


@dataclass(frozen=True)
class _Buckets:
    """How a sample sort of ``x`` divided it: the splitters, and each bucket's size."""

    x: da.Array
    splitters: np.ndarray
    sizes: np.ndarray
    descending: bool


def order_of(indices: Any) -> _Buckets | None:
    """The buckets of ``indices`` if it is an argsort result of this module (its record
    of facts, :attr:`._facts.Facts.order`), else None (an array made anew from its
    graph: a take by it is Dask's, the same values)."""
    return _facts.of(indices).order  # type: ignore[no-any-return]


def _buckets_of(x: da.Array, descending: bool) -> _Buckets:
    """Splitters and bucket sizes: two passes over ``x``, computed now."""
    nb = x.numblocks[0]
    samples = da.map_blocks(_sample, x, chunks=((np.nan,) * nb,), dtype=x.dtype)
    (pooled,) = compute([samples])
    pooled = np.sort(pooled)
    picks = np.linspace(0, pooled.size - 1, buckets(x) + 1)[1:-1].astype(np.intp)
    splitters = pooled[picks] if pooled.size else pooled[:0]
    counts = da.map_blocks(
        lambda b: np.bincount(_bucket_of(b, splitters), minlength=splitters.size + 1)[None, :],
        x, chunks=((1,) * nb, (splitters.size + 1,)), new_axis=1, dtype=np.intp,
    )  # fmt: skip
    (per_block,) = compute([counts])
    return _Buckets(x, splitters, per_block.sum(axis=0), descending)


def take_in_order(y: da.Array, order: _Buckets) -> da.Array:
    """``y[argsort(x)]`` for the argsort whose buckets are ``order``: ``y`` (as long as
    ``x``) carried beside ``x``'s values through the same buckets."""
    # (a constant y, default weights, is itself in the buckets' blocks)
    return as_constant(_in_buckets(order, y, positions=False), constant_value(y))


def _in_buckets(b: _Buckets, carried: da.Array | None, positions: bool) -> da.Array:
    """Each bucket of ``b.x`` gathered and sorted: its values (``carried`` is ``x``),
    their positions (``positions``), or ``carried`` in their order."""
    x = b.x
    carry = positions or carried is not x
    offsets = np.cumsum((0, *x.chunks[0][:-1]))
    dtype = np.dtype(np.intp) if positions else carried.dtype  # type: ignore[union-attr]
    bucket = dask.delayed(_sorted_bucket, pure=True)
    n_buckets = b.splitters.size + 1
    n_groups = groups(x, dtype.itemsize if carry else 0, n_buckets)
    blocks = []  # (in ascending order of buckets)
    for g in range(n_groups):
        first, stop = g * n_buckets // n_groups, (g + 1) * n_buckets // n_groups
        # (each group reads x anew: its pieces are released when its buckets are sorted)
        seed = (x.name, g)
        carried_blocks: list[Any]
        if carry and not positions:
            assert carried is not None
            xg, cg = (x, carried) if g == 0 else clone((x, carried), seed)
            carried_blocks = list(cg.rechunk({0: x.chunks[0]}).to_delayed().ravel())
        else:
            (xg,) = (x,) if g == 0 else clone((x,), seed)
            carried_blocks = [int(o) for o in offsets] if positions else [None] * len(offsets)
        split = dask.delayed(_split, pure=True)
        splits = [
            split(v, b.splitters, c, first, stop)
            for v, c in zip(xg.to_delayed().ravel(), carried_blocks)
        ]
        blocks += [
            da.from_delayed(
                bucket(splits, j - first, b.descending, carry),
                shape=(int(b.sizes[j]),),
                dtype=dtype,
                meta=np.empty((0,), dtype),
            )
            for j in range(first, stop)
            if b.sizes[j]
        ]
    if b.descending:
        blocks.reverse()
    if not blocks:
        return da.zeros((0,), dtype=dtype, chunks=-1)
    return da.concatenate(blocks) if len(blocks) > 1 else blocks[0]


def sort_or_argsort(own: Any, indices: bool) -> Any:
    """The namespace's ``sort`` (or ``argsort``, ``indices``): a sample sort where
    :func:`sample_sortable`, else ``own`` (array_api_compat's), which puts the axis in
    one block (and refuses unknown sizes, which are put in one block first)."""

    def call(
        x: da.Array, /, *, axis: int = -1, descending: bool = False, stable: bool = True
    ) -> da.Array:
        line = _as_line(x, axis)
        if line is None or not sample_sortable(line):
            if any(unknown(s) for s in x.shape):
                x = whole_axis(x, axis)
            return own(x, axis=axis, descending=descending, stable=stable)  # type: ignore[no-any-return]
        b = _buckets_of(line, descending)
        out = _in_buckets(b, None if indices else line, positions=indices)
        out = out if line is x else out.reshape(x.shape)
        if indices:
            _facts.note(out, order=b)
        return out

    return call


def _as_line(x: da.Array, axis: int) -> da.Array | None:
    """``x`` as a 1-D array along ``axis`` where every other axis has extent 1 (a
    weighted percentile sorts a column), else None. Dask keeps the blocks of the long
    axis in both reshapes."""
    if x.ndim == 0 or not -x.ndim <= axis < x.ndim:
        return None
    if any(extent != 1 for a, extent in enumerate(x.shape) if a != axis % x.ndim):
        return None
    return x if x.ndim == 1 else x.reshape((x.shape[axis % x.ndim],))


def take_along_in_order(x: da.Array, indices: da.Array, axis: int) -> da.Array | None:
    """``take_along_axis(x, indices, axis=axis)`` where ``indices`` is an argsort result
    of this module of ``x``'s shape: :func:`take_in_order`; else None."""
    order = order_of(indices)
    line = _as_line(x, axis) if order is not None and x.shape == indices.shape else None
    if order is None or line is None or line.shape != order.x.shape:
        return None
    out = take_in_order(line, order)
    return as_constant(out if line is x else out.reshape(x.shape), constant_value(x))
