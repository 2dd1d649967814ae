"""The Dask namespace: ``array_api_compat.dask.array`` plus what it lacks.

Each fix here is lazy and says why Dask needs it; the per-matrix ``linalg``
functions are in :mod:`._linalg`.
"""

from __future__ import annotations

import functools
import math
import types
from collections.abc import Callable
from typing import Any, Literal

import array_api_compat.dask.array as compat
import array_api_compat.numpy as cnp
import dask
import dask.array as da
import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from ..._settings import UNKNOWN_SIZES_FIX
from . import _graph, _keep, _linalg, _reductions, _set, _sorting
from ._basics import (
    as_constant,
    config_bytes,
    cost_of_blocks,
    flip,
    keeping_constant,
    made_constant,
    made_from_nothing,
    noted_block_ranges,
    pair_blocks,
    paired_unknown_blocks,
    permuted,
    reshape,
    shape_with_none,
    unknown,
    whole_axes,
    whole_axis,
    with_block_ranges,
    without_empty_blocks,
)
from ._compute import (
    block_ranges,
    computed_block_ranges,
    counted,
    in_partner_blocks,
    sized,
    sizes_asked,
)
from ._graph import (
    Task,
    TaskRef,
    array_of_tasks,
    block_keys_of,
    is_value,
    tasks_of,
    with_chunks,
)


def with_index_length(out: da.Array, axis: int, index: da.Array) -> da.Array:
    """``out`` with the index's length along ``axis``: Dask reports the input's size
    when the axis is one chunk and the index has length 1 (dask/dask#6709)."""
    n = index.shape[0]
    if n != n or out.shape[axis] == n or out.numblocks[axis] != 1:
        return out
    chunks = out.chunks[:axis] + ((n,),) + out.chunks[axis + 1 :]
    return with_chunks(out, chunks)


def take(x: da.Array, indices: da.Array, /, *, axis: int | None = None) -> da.Array:
    """``take`` of checked (in-bounds, non-negative) indices; along an axis of unknown
    size (which Dask's take refuses), NumPy's take of each block, the axis in one block,
    which checks the indices when computed."""
    axis = 0 if axis is None else axis % x.ndim
    order = _sorting.order_of(indices)
    if order is not None and x.ndim == indices.ndim == 1 and x.shape == order.x.shape:
        # an argsort's result: x sorted by the same buckets (a take pairs every block)
        return _sorting.take_in_order(x, order)
    if x.ndim == 1 and not unknown(x.shape[0]) and not any(map(unknown, indices.shape)):
        asked = sizes_asked()
        # the index's blocks' bounds: noted or made here, else (both in several blocks)
        # computed in one pass over the index
        ranges = block_ranges(indices) if asked else None
        if ranges is None and asked and x.numblocks[0] > 1:
            ranges = computed_block_ranges(indices)
        routed = None if ranges is None else _take_by_known(x, indices, ranges)
        if routed is not None:
            return routed
    if unknown(x.shape[axis]):
        x = whole_axis(x, axis)
        indices = whole_axis(da.asarray(indices), 0)
        index = tuple(range(x.ndim))
        out = tuple(x.ndim if a == axis else a for a in index)  # the indices' axis instead
        return da.blockwise(
            lambda block, i: np.take(block, i, axis=axis), out, x, index,
            indices, (x.ndim,), concatenate=True, dtype=x.dtype, meta=x._meta,
        )  # fmt: skip
    return with_index_length(compat.take(x, indices, axis=axis), axis, indices)  # type: ignore[attr-defined]


def _take_by_known(x: da.Array, index: da.Array, ranges: np.ndarray) -> da.Array | None:
    """``x[index]`` for a 1-D ``x`` and checked indices whose blocks' bounds are known
    (:func:`block_ranges`): each block gathers from the blocks of ``x`` between them.
    Dask's take by a lazy index pairs every block of the index with every block of ``x``
    and holds all of ``x`` (a curve's take by ``nonzero(diff(scores))``). None where the
    index's blocks would each reach most of ``x``: Dask's take, then."""
    from dask.base import tokenize

    offsets = np.cumsum((0, *x.chunks[0]))
    spans = [
        (0, 0) if low > high else
        (int(np.searchsorted(offsets, low, side="right")) - 1,
         int(np.searchsorted(offsets, high, side="right")))
        for low, high in ranges
    ]  # fmt: skip
    if sum(stop - first for first, stop in spans) > 2 * (len(spans) + x.numblocks[0]):
        return None
    name = "take-known-" + tokenize(x.name, index.name)
    made = _made_from_data(index)
    tasks: dict[Any, Any] = {}
    for j, (key, (first, stop)) in enumerate(zip(block_keys_of(index), spans)):
        sources = (TaskRef((x.name, i)) for i in range(first, stop))
        start = int(offsets[first])
        gather = Task((name, j), _gather_from, TaskRef(key), start, x.dtype, *sources)
        chain = made.get(key)
        tasks[(name, j)] = gather if chain is None else Task.fuse(*chain, gather)
    # the fused tasks read the data the index is made from: its layers are this layer's
    # dependencies too, kept when the index's own layer is replaced by kept blocks
    read = {k[0] if isinstance(k, tuple) else k for t in tasks.values() for k in t.dependencies}
    return array_of_tasks(name, tasks, [x, index], index.chunks, meta=x._meta, reads=read)


def _made_from_data(index: da.Array, most: int = 4) -> dict[Any, list[Any]]:
    """For each block of ``index`` made by at most ``most`` tasks from data alone (a
    kept ``nonzero``'s mask, and a ``concat`` of it), those tasks, to fuse into the
    gather of that block: apart, Dask's order runs them late, and what a take gathers
    from waits for them in memory. No entry for a block made from anything else."""
    raw, graph = tasks_of(index)
    out: dict[Any, list[Any]] = {}
    for key in block_keys_of(index):
        chain: dict[Any, Any] = {}
        todo = [key]
        while todo:
            k = todo.pop()
            node = graph.get(k)
            if node is None and k in raw:  # (data on a cluster's workers: a future)
                continue
            if node is None or len(chain) == most:
                break
            if not is_value(node) and k not in chain:
                chain[k] = node
                todo += node.dependencies
        else:
            if chain:
                out[key] = list(chain.values())
    return out


def _gather_from(index: np.ndarray, start: int, dtype: np.dtype, *blocks: np.ndarray) -> np.ndarray:
    if not blocks:
        return np.empty(index.shape, dtype=dtype)
    return np.concatenate(blocks)[index - start]


def checked_index(index: Any, size: float, axis: int) -> Any:
    """``index`` (integers) with negative entries wrapped; an entry outside
    ``[-size, size)`` raises NumPy's IndexError (when built for a NumPy index,
    when computed for a Dask one)."""
    if isinstance(index, np.ndarray):
        return _in_bounds(index, size, axis) if index.size and not unknown(size) else index
    order = _sorting.order_of(index)
    if unknown(size) or (order is not None and order.x.shape[0] <= size):
        return index  # (an argsort's positions are in bounds)
    ranges = block_ranges(index) if sizes_asked() else None
    if ranges is not None:
        # its values are here (a kept nonzero): in bounds, it stays itself, so that a
        # take can route by them (_take_by_known)
        filled = ranges[ranges[:, 0] <= ranges[:, 1]]
        if not filled.size or (filled[:, 0].min() >= 0 and filled[:, 1].max() < size):
            return index
    if size == 0 and index.size and not unknown(index.size):
        # (a known number of indices) every index is out of bounds; an unknown number
        # (nonzero of an empty array: none) is data, checked when computed
        raise IndexError(f"index is out of bounds for axis {axis} with size 0")
    return da.map_blocks(_in_bounds, index, size, axis, dtype=np.int64)


def _in_bounds(index: np.ndarray, size: float, axis: int) -> np.ndarray:
    """``index`` with negative entries wrapped, or NumPy's IndexError for one outside."""
    bad = index[(index < -size) | (index >= size)]
    if bad.size:
        raise IndexError(
            f"index {bad.flat[0]} is out of bounds for axis {axis} with size {int(size)}"
        )
    return np.where(index < 0, index + int(size), index).astype(np.int64)


def _checked_take(x: da.Array, indices: Any, /, *, axis: int | None = None) -> da.Array:
    # Dask's take returns wrong rows for out-of-bounds indices instead of raising
    axis = 0 if axis is None else axis % x.ndim
    return take(x, checked_index(indices, x.shape[axis], axis), axis=axis)


def _take_along_axis(x: da.Array, indices: da.Array, /, *, axis: int = -1) -> da.Array:
    axis %= x.ndim
    indices = checked_index(indices, x.shape[axis], axis)  # NumPy's message, for this axis
    in_order = _sorting.take_along_in_order(x, indices, axis)
    if in_order is not None:
        # an argsort's result: x sorted by the same buckets (a gufunc holds the axis whole)
        return in_order
    a, i = da.moveaxis(x, axis, -1), da.moveaxis(indices, axis, -1)
    out = _linalg.gufunc(
        lambda p, q: np.take_along_axis(p, q, axis=-1),
        "(n),(k)->(k)",
        a,
        i,
        output_dtypes=x.dtype,
    )
    return da.moveaxis(out, -1, axis)


def _searchsorted(
    x1: da.Array,
    x2: Any,
    /,
    *,
    side: Literal["left", "right"] = "left",
    sorter: da.Array | None = None,
) -> da.Array:
    if sorter is not None:  # Dask has no sorter: search the sorted view instead
        x1 = take(x1, sorter)
    if not isinstance(x2, da.Array):
        x2 = da.asarray(np.asarray(x2, dtype=x1.dtype))
    if x2.ndim == 0:
        return _searchsorted(x1, x2.reshape((1,)), side=side).reshape(())
    # x1's blocks are consecutive runs of one sorted array, so an insertion index in x1
    # is the sum of the insertion indices in its blocks. Unlike Dask's searchsorted
    # (offsets from x1's sizes, which may be unknown, and a wrong shape for an empty
    # block of x2), this needs no size and no block of x1 beside another.
    index = tuple(range(1, x2.ndim + 1))
    found = da.blockwise(
        _searched_in_block, (0, *index), x1, (0,), x2, index, side=side, dtype=np.intp,
        adjust_chunks={0: 1}, meta=np.empty((0,) * (x2.ndim + 1), np.intp),
    )  # fmt: skip
    return found.sum(axis=0, dtype=np.intp)


def _searched_in_block(block: np.ndarray, values: np.ndarray, side: str) -> np.ndarray:
    return np.searchsorted(block, values, side=side)[np.newaxis]  # type: ignore[call-overload,no-any-return]


def auto_chunks(shape: tuple, chunks: Any = None) -> Any:
    """The given chunks, else Dask's automatic chunking, except for empty arrays
    (where Dask's "auto" divides by zero)."""
    if chunks is not None:
        return chunks
    return -1 if 0 in shape else "auto"


#: the value of the creation functions (and their ``*_like``) that name theirs
_FILLS = {"zeros": 0, "ones": 1}


def _creation(name: str) -> Any:
    """zeros/ones/empty/full with chunks that also work for empty shapes; all but
    ``empty`` constant (:func:`made_constant`)."""
    make = getattr(da, name)
    value = _FILLS.get(name)

    def create(
        shape: Any, *args: Any, dtype: Any = None, chunks: Any = None, **kwargs: Any
    ) -> da.Array:
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        x = make(shape, *args, dtype=dtype, chunks=auto_chunks(shape, chunks))
        if value is not None or args:
            fill = value if value is not None else args[0]
            return made_constant(shape, fill, x.dtype, x.chunks)
        return made_from_nothing(x, lambda chunks: make(shape, *args, dtype=x.dtype, chunks=chunks))

    return create


def _constant_like(name: str) -> Any:
    """zeros_like/ones_like/full_like, constant (:func:`made_constant`) where ``x``'s
    shape is known, in ``x``'s blocks."""
    own = getattr(compat, name)
    value = _FILLS.get(name.removesuffix("_like"))

    def like(x: da.Array, /, *args: Any, **kwargs: Any) -> da.Array:
        out = own(x, *args, **kwargs)
        fill = value if value is not None else (args[0] if args else kwargs["fill_value"])
        return as_constant(out, np.asarray(fill))  # type: ignore[no-any-return]

    return like


def _permute_dims(x: da.Array, /, axes: tuple[int, ...]) -> da.Array:
    """``permute_dims``; of an array made from nothing, one made from nothing
    (:func:`permuted`)."""
    return permuted(compat.permute_dims(x, axes), x, axes)  # type: ignore[attr-defined]


def _matrix_transpose(x: da.Array, /) -> da.Array:
    """``matrix_transpose``; of an array made from nothing, one made from nothing
    (:func:`permuted`)."""
    out = compat.matrix_transpose(x)  # type: ignore[attr-defined]
    return permuted(out, x, (*range(x.ndim - 2), x.ndim - 1, x.ndim - 2))


#: the functions that rearrange, cast or select by slices their first argument's
#: elements: of a constant array, a constant array (:func:`keeping_constant`)
REARRANGING = ("reshape", "permute_dims", "matrix_transpose", "broadcast_to", "expand_dims",
               "squeeze", "flip", "roll", "moveaxis", "tile", "astype")  # fmt: skip


def _arange(start: Any, /, stop: Any = None, step: Any = 1, **kwargs: Any) -> da.Array:
    """``arange``, made again in other blocks (:func:`made_from_nothing`):
    ``n_classes * arange(n)`` added to labels read from a store, in Dask's own blocks,
    would be rechunked to the labels' (and wait whole in memory)."""
    x = compat.arange(start, stop, step, **kwargs)  # type: ignore[attr-defined]
    kwargs.pop("chunks", None)

    def remake(chunks: tuple) -> da.Array:
        return compat.arange(start, stop, step, **kwargs, chunks=chunks)  # type: ignore[attr-defined,no-any-return]

    return made_from_nothing(x, remake)


def _eye(
    n_rows: int,
    n_cols: int | None = None,
    /,
    *,
    k: int = 0,
    dtype: Any = None,
    chunks: Any = None,
    **kwargs: Any,
) -> da.Array:
    # Dask's eye mis-builds its graph when n_rows != n_cols and divides by zero for
    # empty shapes: build it block by block from NumPy's eye instead
    shape = (n_rows, n_rows if n_cols is None else n_cols)
    dtype = np.dtype(np.float64 if dtype is None else dtype)
    chunks = da.core.normalize_chunks(auto_chunks(shape, chunks), shape, dtype=dtype)

    def block(block_info: Any = None) -> np.ndarray:
        (r0, r1), (c0, c1) = block_info[None]["array-location"]
        return np.eye(r1 - r0, c1 - c0, k=k + r0 - c0, dtype=dtype)

    x = da.map_blocks(block, chunks=chunks, dtype=dtype, meta=np.empty((0, 0), dtype))
    return made_from_nothing(x, lambda again: _eye(*shape, k=k, dtype=dtype, chunks=again))


def _linspace(
    start: Any, stop: Any, /, num: int, *, endpoint: bool = True, **kwargs: Any
) -> da.Array:
    out = compat.linspace(start, stop, num, endpoint=endpoint, **kwargs)  # type: ignore[attr-defined]
    if endpoint and num > 1:  # Dask accumulates steps per block; NumPy ends exactly at stop
        last = da.arange(num, chunks=out.chunks) == num - 1
        out = da.where(last, da.asarray(stop, dtype=out.dtype), out)
    return out


def _repeat(x: da.Array, repeats: Any, /, *, axis: int | None = None) -> da.Array:
    if axis is None:
        x, axis = reshape(x, (-1,)), 0
    if x.shape[axis] == 0:
        return x
    if isinstance(repeats, da.Array):
        return _repeat_counts(x, repeats, axis)
    if any(unknown(s) for s in x.shape):
        # Dask's repeat needs the sizes; repeating each element is block by block
        n = int(repeats)
        chunks = tuple(
            tuple(c * n for c in cs) if i == axis else cs for i, cs in enumerate(x.chunks)
        )
        return da.map_blocks(
            lambda b: np.repeat(b, n, axis=axis), x, chunks=chunks, dtype=x.dtype,
            meta=np.empty((0,) * x.ndim, x.dtype),
        )  # fmt: skip
    return compat.repeat(x, repeats, axis=axis)  # type: ignore[attr-defined]


def _repeat_counts(x: da.Array, repeats: da.Array, axis: int) -> da.Array:
    """``repeat`` with an array of counts (Dask takes only an int): block by block,
    each block of ``x`` with its counts; the sizes along ``axis`` become unknown."""
    chunks = tuple((np.nan,) * len(c) if i == axis else c for i, c in enumerate(x.chunks))
    if repeats.ndim == 0 or repeats.shape[0] == 1:  # one count for all, in one block that
        # every block of x pairs with (also along an axis of unknown size)
        counts = repeats.reshape((1,) * x.ndim)
    else:  # an array of x's rank (size 1 off the axis), so that blocks pair up
        counts = repeats.rechunk((x.chunks[axis],))
        counts = counts.reshape((1,) * axis + (-1,) + (1,) * (x.ndim - axis - 1))
    return da.map_blocks(
        lambda block, c: np.repeat(block, c.ravel(), axis=axis), x, counts,
        chunks=chunks, dtype=x.dtype, meta=np.empty((0,) * x.ndim, x.dtype),
    )  # fmt: skip


def _roll(x: da.Array, /, shift: Any, *, axis: Any = None) -> da.Array:
    if 0 in x.shape:
        return x
    shifts = shift if isinstance(shift, tuple) else (shift,)
    if all(int(s) == 0 for s in shifts):  # nothing moves
        return x
    if not any(unknown(s) for s in x.shape):
        return compat.roll(x, shift, axis=axis)  # type: ignore[attr-defined]
    # Dask's roll concatenates, which unknown sizes refuse: each axis in one block
    if axis is None:  # the flattened array: all in one block
        return da.map_blocks(lambda b: np.roll(b, shift), whole_axes(x), dtype=x.dtype)
    axes = axis if isinstance(axis, tuple) else (axis,)
    shifts = shifts * len(axes) if len(shifts) == 1 else shifts
    for a, n in zip(axes, shifts):
        x = da.map_blocks(lambda b, a=a, n=n: np.roll(b, n, axis=a), whole_axis(x, a),
                          dtype=x.dtype)  # fmt: skip
    return x


def _nonzero(x: da.Array, /) -> tuple[da.Array, ...]:
    """``nonzero`` that also takes unknown sizes (Dask's numbers the elements with
    ``arange`` over the size): NumPy's of the whole array in one task. A 1-D array in
    several blocks, where sizes are asked for: :func:`_nonzero_of_kept_mask`."""
    if x.ndim == 1 and x.numblocks[0] > 1 and not unknown(x.shape[0]) and sizes_asked():
        return (_nonzero_of_kept_mask(x),)
    if not any(unknown(s) for s in x.shape):
        return compat.nonzero(x)  # type: ignore[attr-defined,no-any-return]
    x = whole_axes(x)
    task = dask.delayed(np.nonzero, nout=x.ndim, pure=True)(x.to_delayed().ravel()[0])
    return tuple(da.from_delayed(t, shape=(np.nan,), dtype=np.intp) for t in task)


def _nonzero_of_kept_mask(x: da.Array) -> da.Array:
    """``nonzero(x)[0]`` of a 1-D ``x``, its sizes known: the mask ``x != 0`` is kept
    (:func:`._compute.counted`: one pass), a byte an element where the indices take
    eight, and each block of indices made from it when needed. The blocks' bounds are
    noted (each block's positions), for a take to route by."""
    kept, counts = counted(x != 0)
    starts = np.cumsum((0, *x.chunks[0][:-1]))

    def indices(mask: np.ndarray, block_info: Any = None) -> np.ndarray:
        start = block_info[0]["array-location"][0][0]
        return np.flatnonzero(mask) + start

    out = da.map_blocks(indices, kept, chunks=(counts,), dtype=np.intp)
    filled = np.asarray(counts) > 0
    stops = starts + np.asarray(x.chunks[0]) - 1
    with_block_ranges(
        out, np.stack([np.where(filled, starts, 0), np.where(filled, stops, -1)], axis=1)
    )
    return out


def _tile(x: da.Array, repetitions: Any, /) -> da.Array:
    reps = tuple(repetitions)
    x = x[(None,) * max(0, len(reps) - x.ndim)]  # NumPy's leading axes, if more reps
    reps = (1,) * (x.ndim - len(reps)) + reps
    # an axis repeated 0 times is emptied block by block (Dask's tile fails on empty
    # arrays, and its slicing on unknown sizes)
    for axis, r in enumerate(reps):
        if r == 0:
            x = da.map_blocks(
                lambda b, axis=axis: b[(slice(None),) * axis + (slice(0, 0),)],
                x, chunks=tuple((0,) * len(c) if i == axis else c for i, c in enumerate(x.chunks)),
                dtype=x.dtype,
            )  # fmt: skip
    reps = tuple(max(r, 1) for r in reps)
    if all(r == 1 for r in reps):
        return x
    if any(unknown(s) for s in x.shape):
        # Dask's tile concatenates, which unknown sizes refuse: each axis in one block
        for axis, r in enumerate(reps):
            if r > 1:
                x = whole_axis(x, axis)
                one = tuple(r if a == axis else 1 for a in range(x.ndim))
                chunks = tuple(
                    tuple(c * r for c in cs) if a == axis else cs for a, cs in enumerate(x.chunks)
                )
                x = da.map_blocks(lambda b, one=one: np.tile(b, one), x, chunks=chunks,
                                  dtype=x.dtype)  # fmt: skip
        return x
    if 0 in x.shape:
        return da.zeros(np.tile(np.empty(x.shape, x.dtype), reps).shape, dtype=x.dtype, chunks=-1)
    for axis, r in enumerate(reps):
        if r > 1:
            x = _tile_axis(x, axis, r)
    return x


def _tile_axis(x: da.Array, axis: int, r: int) -> da.Array:
    """``x`` repeated ``r`` times along ``axis``, with known sizes. Dask's ``tile``
    concatenates ``r`` copies, each its blocks: ``xp.tile(y_mean, (n,))`` of a scalar
    made one task per sample. An axis in one block is instead broadcast along a new
    axis before it, in blocks of as many whole copies as fit a chunk, and merged."""
    if x.numblocks[axis] > 1:  # a long axis: its copies are blocks enough
        return da.concatenate([x] * r, axis=axis)
    m = x.shape[axis]

    def tiled(per: tuple[int, ...]) -> da.Array:
        wide = da.broadcast_to(
            x[(slice(None),) * axis + (None,)],
            (*x.shape[:axis], r, *x.shape[axis:]),
            chunks=(*x.chunks[:axis], per, *x.chunks[axis:]),
        )
        return wide.reshape((*x.shape[:axis], r * m, *x.shape[axis + 1 :]))

    block = max(math.prod(max(c) for c in x.chunks) * x.dtype.itemsize, 1)
    copies = max(1, config_bytes("array.chunk-size") // block)
    out = tiled((copies,) * (r // copies) + ((r % copies,) if r % copies else ()))

    def remake(chunks: tuple) -> da.Array:
        # in blocks of whole copies (``xp.tile(quantile, (n, 1))`` met with a target's
        # rows): broadcast again; rechunked, the copies' pieces would wait for their rows
        others = chunks[:axis] + chunks[axis + 1 :]
        if (
            m == 0
            or any(c % m for c in chunks[axis])
            or others != x.chunks[:axis] + x.chunks[axis + 1 :]
        ):
            return out.rechunk(chunks)
        return tiled(tuple(c // m for c in chunks[axis]))

    return made_from_nothing(out, remake)


def _tensordot(x1: da.Array, x2: da.Array, /, *, axes: Any = 2) -> da.Array:
    """Block by block with the CPU's kernel (Dask's ``np.tensordot`` of blocks that
    contract one element gave 0 for ``0 * inf``, numpy/numpy#14788), partial results
    summed as Dask's own does, in the promoted dtype (Dask sums small integers in int64)."""
    from ..numpy import contracted_axes
    from ..numpy import tensordot as kernel

    left, right = contracted_axes(axes, x1.ndim, x2.ndim)
    index1 = tuple(range(x1.ndim))
    index2 = list(range(x1.ndim, x1.ndim + x2.ndim))
    for a, b in zip(left, right):
        index2[b] = index1[a]  # a contracted pair shares its index
    free2 = [i for i in range(x2.ndim) if i not in right]
    out_index = index1 + tuple(index2[i] for i in free2)  # contracted axes kept, size 1
    dtype = np.result_type(x1.dtype, x2.dtype)

    def product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return kernel(a, b, axes=(left, right)).astype(dtype, copy=False)  # type: ignore[no-any-return]

    if left and all(x1.numblocks[a] == 1 and x2.numblocks[b] == 1 for a, b in zip(left, right)):
        # one block along every contracted axis (X @ W): each output block is one
        # product, fused with what uses it (summed as a reduction of one piece, it was
        # copied in tasks of their own, which a cluster's workers kept: Nystroem). Not
        # concatenated: Dask fuses a Blockwise layer only into one of the same
        # ``concatenate``, and element-wise layers have None (GaussianMixture's E-step)
        contracted = {index1[a] for a in left}
        kept = tuple(i for i in out_index if i not in contracted)
        meta = np.empty((0,) * len(kept), dtype)
        carrier = next(
            (
                (label, chunks)
                for x, index in ((x1, index1), (x2, index2))
                for label, chunks in zip(index, x.chunks)
                if label in kept and len(chunks) == 1
            ),
            None,
        )  # (an output index whose axis is one block, and that axis' chunks)
        if carrier is not None:
            # Dask fuses into a Blockwise layer only what it takes along its output's
            # indices (``_optimize_blockwise``): ``exp(...)`` of ``exp(...) @ W`` was a
            # task of its own (Nystroem). Each contracted axis, one block, takes the index
            # of an output axis of one block, which names the same block: the operands'
            # work fuses into the product
            label, chunks = carrier
            i1 = tuple(label if i in contracted else i for i in index1)
            i2 = tuple(label if i in contracted else i for i in index2)
            return da.blockwise(
                product, kept, x1, i1, x2, i2, dtype=dtype, meta=meta, align_arrays=False,
                adjust_chunks={label: chunks},
            )  # fmt: skip

        def one_product(a: Any, b: Any) -> np.ndarray:
            for _ in left:
                (a,), (b,) = a, b
            return product(a, b)

        return da.blockwise(
            one_product, kept, x1, index1, x2, tuple(index2), dtype=dtype, meta=meta
        )

    def block(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.expand_dims(product(a, b), tuple(left))

    partial = da.blockwise(
        block, out_index, x1, index1, x2, tuple(index2),
        adjust_chunks={index1[a]: 1 for a in left}, dtype=dtype,
        meta=np.empty((0,) * len(out_index), dtype),
    )  # fmt: skip
    return da.sum(partial, axis=tuple(left), dtype=dtype) if left else partial


def _contracted_blocks_alike(x1: da.Array, x2: da.Array) -> tuple[da.Array, da.Array]:
    """The smaller operand given the larger's blocks along the contracted axis.

    Dask splits both operands to a common refinement: a large input met with a small
    operand of finer blocks (``w.T @ x``) was re-split, and read again for each piece.
    Between operands of like sizes (``x[1:].T @ x[:-1]``) Dask's refinement stays:
    merging blocks of a large operand would read each of its blocks twice."""
    axis2 = x2.ndim - 2 if x2.ndim > 1 else 0
    c1, c2 = x1.chunks[-1], x2.chunks[axis2]
    if c1 == c2 or any(map(unknown, c1 + c2 + x1.shape + x2.shape)) or not (x1.ndim and x2.ndim):
        return x1, x2
    # (an operand made without reading, e.g. from a consumer's NumPy labels, takes the
    # other's blocks at any size: see in_partner_blocks)
    cost1, cost2 = cost_of_blocks(x1), cost_of_blocks(x2)
    if x2.size * _MUCH_SMALLER <= x1.size or cost2 < cost1:
        return x1, declared(in_partner_blocks(x2, {axis2: c1}))
    if x1.size * _MUCH_SMALLER <= x2.size or cost1 < cost2:
        return declared(in_partner_blocks(x1, {x1.ndim - 1: c2})), x2
    return x1, x2


#: an operand this many times smaller than the other is the one given new blocks
_MUCH_SMALLER = 4


def _matmul(x1: da.Array, x2: da.Array, /) -> da.Array:
    # Dask sums the partial products of several chunks in the default sum dtype
    # (int64 for small integers and booleans): keep the promoted dtype, as NumPy does
    if x1.ndim == x2.ndim > 2:  # stacks: batch blocks of unknown size paired
        x1, x2 = paired_unknown_blocks(x1, x2)
    # (Dask's matmul over a contracted axis of several empty blocks, as xp.tile(x, (0, 0))
    # makes them, adds a placeholder string block into the sum when computed)
    x1, x2 = _contracted_blocks_alike(without_empty_blocks(x1), without_empty_blocks(x2))
    if (x1.ndim <= 2 and x2.ndim <= 2) or 1 in (x1.ndim, x2.ndim):
        # no stacks paired: one blockwise product, fused with the layers that make an
        # operand's blocks. Dask's matmul indexes a vector with None first, a layer that
        # does not fuse: the ones of ``X.T @ ones(n)`` were made last, every product of
        # ``X.T``'s blocks in memory until then (RidgeCV: the whole input)
        return _tensordot(x1, x2, axes=([x1.ndim - 1], [max(x2.ndim - 2, 0)]))
    out = compat.matmul(x1, x2)  # type: ignore[attr-defined]
    dtype = np.result_type(x1.dtype, x2.dtype)
    return out if out.dtype == dtype else out.astype(dtype)


def _sizes_as_asked(func: Any) -> Any:
    """A function whose results may have data-dependent sizes: known at once where
    ``strict_array.known_sizes`` asks for it."""
    return lambda *args, **kwargs: sized(func(*args, **kwargs))


def _where(condition: da.Array, x1: Any, x2: Any, /) -> da.Array:
    # (blocks of unknown size paired element for element: see paired_unknown_blocks)
    return compat.where(*paired_unknown_blocks(condition, x1, x2))  # type: ignore[attr-defined]


def _stack(arrays: Any, /, *, axis: int = 0) -> da.Array:
    # Dask compares the shapes, and NaN equals nothing: block by block instead
    arrays = list(arrays)
    if not any(unknown(s) for a in arrays for s in a.shape):
        return da.stack(arrays, axis=axis)
    arrays = _paired_blocks(arrays)
    first = arrays[0].chunks
    axis %= arrays[0].ndim + 1
    return da.map_blocks(
        lambda *blocks: np.stack(blocks, axis=axis), *arrays, new_axis=axis,
        chunks=(*first[:axis], (len(arrays),), *first[axis:]),
        dtype=np.result_type(*arrays),
    )  # fmt: skip


def _paired_blocks(arrays: list[da.Array], skip: int | None = None) -> list[da.Array]:
    """Arrays of unknown sizes, to join block by block (Dask compares the sizes, and NaN
    equals nothing): known axes rechunked as the first array's, along unknown ones
    (all but ``skip``) the blocks paired (:func:`pair_blocks`). Sizes that differ fail
    when computed, as NumPy's join of the blocks."""
    first = arrays[0]
    out = [first]
    for a in arrays[1:]:
        known = {
            i: c for i, c in enumerate(first.chunks)
            if i != skip and not any(unknown(s) for s in (a.shape[i], first.shape[i]))
        }  # fmt: skip
        out.append(a.rechunk(known) if any(a.chunks[i] != c for i, c in known.items()) else a)
    for i in range(first.ndim):
        if i == skip:
            continue
        pair_blocks(out, [(j, i) for j in range(len(out))])
        if len({a.numblocks[i] for a in out}) > 1:  # (a known size against unknown ones)
            out = [whole_axis(a, i) for a in out]
    return out


def _concat(arrays: Any, /, *, axis: int | None = 0) -> da.Array:
    arrays = list(arrays)
    assert axis is not None  # (the namespace flattens first)
    axis %= arrays[0].ndim
    if not any(unknown(s) for a in arrays for i, s in enumerate(a.shape) if i != axis):
        # (an empty array joined leaves a block of size 0)
        out = without_empty_blocks(compat.concat(arrays, axis=axis))  # type: ignore[attr-defined]
        if any(noted_block_ranges(a) is not None for a in arrays):
            _join_block_ranges(out, arrays)
        return out
    # Dask refuses unknown sizes off the axis: each array's axis in one block, joined
    arrays = [whole_axis(a, axis) for a in _paired_blocks(arrays, skip=axis)]
    dtype = np.result_type(*arrays)
    chunks = list(arrays[0].chunks)
    chunks[axis] = (sum(a.shape[axis] for a in arrays),)
    index = tuple(range(arrays[0].ndim))
    return da.blockwise(
        lambda *blocks: np.concatenate(blocks, axis=axis, dtype=dtype), index,
        *(p for a in arrays for p in (a, index)), adjust_chunks={axis: chunks[axis]},
        dtype=dtype, align_arrays=False, meta=np.empty((0,) * len(index), dtype),
    )  # fmt: skip


def _join_block_ranges(out: da.Array, arrays: list[da.Array]) -> None:
    """Note the bounds of ``out``'s blocks, a ``concat`` of 1-D integer ``arrays`` one of
    which has its bounds noted (a kept ``nonzero``), from each part's
    (:func:`block_ranges`: thresholds joined with ``[n - 1]``), so that a take by them
    gathers by blocks, also on a cluster."""
    if out.dtype.kind not in "iu" or not sizes_asked():
        return
    parts = [block_ranges(a) for a in arrays]
    known = [p for p in parts if p is not None]
    if len(known) < len(parts):
        return
    ranges = np.concatenate(known)
    sizes = [s for a in arrays for s in a.chunks[0]]
    ranges = ranges[np.asarray(sizes) > 0] if 0 in sizes else ranges  # (blocks dropped)
    if len(ranges) == out.numblocks[0]:
        with_block_ranges(out, ranges)


def _diff(x: da.Array, /, *, axis: int = -1, n: int = 1, **ends: Any) -> da.Array:
    # Dask's diff subtracts x[:-1] from x[1:], whose blocks do not line up: what
    # multiplies the result (diff(recall) * precision[:-1]) is rechunked to their cuts
    # and waits in memory. Here each block is differenced with the first element of
    # the next, in x's blocks. Along an unknown size (which Dask slices by), one block.
    axis %= x.ndim
    if n == 0:
        return compat.diff(x, axis=axis, n=n, **ends)  # type: ignore[attr-defined]
    parts = [p for p in (ends.get("prepend"), x, ends.get("append")) if p is not None]
    x = _concat(parts, axis=axis) if len(parts) > 1 else x
    if unknown(x.shape[axis]):
        return da.map_blocks(lambda b: np.diff(b, n, axis=axis), whole_axis(x, axis), dtype=x.dtype)
    for _ in range(n):
        x = _diff_by_blocks(without_empty_blocks(x), axis)
    return x


def _diff_by_blocks(x: da.Array, axis: int) -> da.Array:
    """One difference along a known ``axis``: each block with the first element of the
    next (NumPy's ``diff``: ``!=`` for booleans), in x's blocks, the last one shorter."""
    from dask.base import tokenize

    if x.shape[axis] == 0:  # (differences of nothing: nothing, of x's dtype)
        return x
    name = "diff-" + tokenize(x.name, axis)
    last = x.numblocks[axis] - 1
    # (a last block of one element leaves nothing of its own: it is only the head of
    # the one before, so that diff(concat([v, [w]])) has v's blocks, as v[:-1] has)
    sizes = x.chunks[axis][:-1] if last and x.chunks[axis][-1] == 1 else x.chunks[axis]
    tasks: dict[Any, Any] = {}
    for index in np.ndindex(*x.numblocks):
        if index[axis] >= len(sizes):
            continue
        refs = [TaskRef((x.name, *index))]
        if index[axis] < last:
            refs.append(TaskRef((x.name, *index[:axis], index[axis] + 1, *index[axis + 1 :])))
        tasks[(name, *index)] = Task((name, *index), _diff_with_next, axis, *refs)
    chunks = list(x.chunks)
    chunks[axis] = (*sizes[:-1], sizes[-1] - (len(sizes) == len(x.chunks[axis])))
    meta = np.diff(np.empty((1,) * x.ndim, dtype=x.dtype), axis=axis)
    return array_of_tasks(name, tasks, [x], chunks, meta=meta)


def _diff_with_next(
    axis: int, block: np.ndarray, following: np.ndarray | None = None
) -> np.ndarray:
    if following is None:
        return np.diff(block, axis=axis)
    head = following[(slice(None),) * axis + (slice(0, 1),)]
    return np.diff(np.concatenate([block, head], axis=axis), axis=axis)


def _vecdot(x1: da.Array, x2: da.Array, /, *, axis: int = -1) -> da.Array:
    # array_api_compat broadcasts both operands first (refusing unknown sizes) and
    # multiplies stacks of 1x1 matrices; a product and a sum along the axis (each
    # operand's own, as NumPy's vecdot counts it) is the same and keeps unknown sizes
    dtype = np.result_type(x1.dtype, x2.dtype)
    x1, x2 = (da.moveaxis(x, axis % x.ndim, -1) for x in (x1, x2))
    x1, x2 = paired_unknown_blocks(x1, x2)
    return (da.conj(x1) * x2).sum(axis=-1, dtype=dtype)


def _transformed_known(name: str, x: da.Array, along: Any) -> None:
    """Refuse a transform (or shift) along an axis of unknown size, its length (Dask's
    own fails with its raw error)."""
    for a in sorted(along):
        if unknown(x.shape[a]):
            raise ValueError(
                f"fft.{name}: axis {a} of shape {shape_with_none(x.shape)} has a size unknown until computed, "
                f"which the transform needs; {UNKNOWN_SIZES_FIX}."
            )


def _single_chunk_fft(name: str, func: Any, numpy: Any) -> Any:
    """Dask transforms only along single-chunk axes: gather those axes first (lazily).
    A transform of length 0 (an empty axis, ``n`` or ``s`` of 0, ``irfft``'s default
    ``n`` over one element) raises NumPy's error when built, as on CPU."""
    multi = name.endswith("n")

    def apply(x: da.Array, /, **kwargs: Any) -> da.Array:
        if multi:
            axes = kwargs.get("axes")
            if axes is None:
                s = kwargs.get("s")
                axes = range(x.ndim) if s is None else range(x.ndim - len(s), x.ndim)
                if s is not None:  # the last len(s) axes, as NumPy reads them; Dask's
                    kwargs["axes"] = tuple(axes)  # fftn reads the first ones
        else:
            axes = (kwargs.get("axis", -1),)
        along = {a % x.ndim for a in axes} if x.ndim else set()
        _transformed_known(name, x, along)
        lengths = [x.shape[a] for a in along] + list(kwargs.get("s") or ())
        lengths += [kwargs["n"]] if kwargs.get("n") is not None else []
        if any(not unknown(n) and n <= 1 for n in lengths):
            probe = tuple(n if i in along else 1 for i, n in enumerate(x.shape))
            if not any(unknown(n) for n in probe) and math.prod(probe) <= 1 << 16:
                numpy(np.zeros(probe, x.dtype), **kwargs)
        x = x.rechunk({a: -1 for a in along}) if along else x
        return func(x, **kwargs)

    return apply


def _shift(name: str, func: Any) -> Any:
    """``fftshift`` or ``ifftshift``; where a size is unknown (Dask's own concatenates,
    which it refuses), NumPy's shift of each block, the shifted axes in one."""

    def shift(x: da.Array, /, *, axes: Any = None) -> da.Array:
        along = set(range(x.ndim) if axes is None else normalize_axis_tuple(axes, x.ndim))
        _transformed_known(name, x, along)
        if not any(unknown(s) for s in x.shape):
            return func(x, axes=axes)
        x = x.rechunk({a: -1 for a in along})
        shift_block = getattr(np.fft, name)
        return da.map_blocks(shift_block, x, axes=tuple(along), dtype=x.dtype)

    return shift


def _checked_frequencies(func: Any, numpy: Any) -> Any:
    """``fftfreq`` or ``rfftfreq``; ``n * d == 0`` raises NumPy's error when built, as on
    CPU (Dask's gives an array)."""

    def freq(n: int, /, *, d: float = 1.0, **kwargs: Any) -> da.Array:
        if n * d == 0:
            numpy(n, d)
        return func(n, d=d, **kwargs)

    return freq


def _pow(x1: Any, x2: Any, /) -> da.Array:
    """``pow``; an integer array to a negative integer power fails when computed, for
    non-empty blocks, as on CPU (Dask's own fails when built, for empty arrays too)."""
    if (
        isinstance(x1, da.Array) and x1.dtype.kind in "iu"
        and type(x2) is int and x2 < 0
    ):  # fmt: skip
        dtype = np.result_type(x1.dtype, x2)
        return da.map_blocks(np.power, x1, x2, dtype=dtype, meta=np.empty((0,) * x1.ndim, dtype))
    from ..numpy import power  # (NumPy's, with the standard's special cases at 0.5)

    return da.core.elemwise(power, x1, x2)  # (its dtype NumPy's, inferred by Dask)


def build_namespace() -> types.SimpleNamespace:
    ns = types.SimpleNamespace(**{k: v for k, v in vars(compat).items() if not k.startswith("__")})
    ns.take_along_axis = _take_along_axis
    ns.pow = _pow
    ns.fft = types.SimpleNamespace(
        **{k: v for k, v in vars(compat.fft).items() if not k.startswith("__")}  # type: ignore[attr-defined]
    )
    for name in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fftn", "ifftn", "rfftn",
                 "irfftn"):  # fmt: skip
        own, numpy = getattr(compat.fft, name), getattr(cnp.fft, name)  # type: ignore[attr-defined]
        setattr(ns.fft, name, _single_chunk_fft(name, own, numpy))
    for name in ("fftshift", "ifftshift"):
        setattr(ns.fft, name, _shift(name, getattr(compat.fft, name)))  # type: ignore[attr-defined]
    for name in ("fftfreq", "rfftfreq"):
        own, numpy = getattr(compat.fft, name), getattr(np.fft, name)  # type: ignore[attr-defined]
        setattr(ns.fft, name, _checked_frequencies(own, numpy))
    ns.reshape = reshape
    ns.permute_dims = _permute_dims
    ns.matrix_transpose = _matrix_transpose
    for name in ("zeros", "ones", "empty", "full"):
        setattr(ns, name, _creation(name))
    for name in ("zeros_like", "ones_like", "full_like"):
        setattr(ns, name, _constant_like(name))
    ns.eye = _eye
    ns.arange = _arange
    ns.linspace = _linspace
    ns.repeat = _sizes_as_asked(_repeat)
    ns.roll = _roll
    ns.tensordot = _tensordot
    ns.tile = _tile
    ns.nonzero = _sizes_as_asked(_nonzero)
    for name in ("unique_all", "unique_counts", "unique_inverse", "unique_values"):
        setattr(ns, name, _sizes_as_asked(getattr(_set, name)))
    ns.take = _checked_take
    ns.sort = _sorting.sort_or_argsort(compat.sort, indices=False)  # type: ignore[attr-defined]
    ns.argsort = _sorting.sort_or_argsort(compat.argsort, indices=True)  # type: ignore[attr-defined]
    for name in _reductions.REDUCTIONS:
        setattr(ns, name, _reductions.reduction(name))
    for name in _reductions.NAN_REDUCTIONS:
        setattr(ns, name, _reductions.nan_reduction(name))
    for name in REARRANGING:
        setattr(ns, name, keeping_constant(getattr(ns, name)))
    ns.where = _where
    ns.flip = flip
    ns.stack = _stack
    ns.concat = _concat
    ns.diff = _diff
    ns.matmul = _matmul
    ns.vecdot = _vecdot
    ns.searchsorted = _searchsorted
    ns.linalg = types.SimpleNamespace(
        **{k: v for k, v in vars(compat.linalg).items() if not k.startswith("__")}  # type: ignore[attr-defined]
    )
    for name in _linalg.PER_MATRIX:
        setattr(ns.linalg, name, _linalg.per_matrix(name))
    for name in ("svd", "qr", "svdvals", "pinv", "solve", "cross", "matrix_norm", "vector_norm",
                 "diagonal", "trace"):  # fmt: skip
        setattr(ns.linalg, name, getattr(_linalg, name))
    ns.linalg.matmul = _matmul
    ns.linalg.vecdot = _vecdot
    for space in (ns, ns.fft, ns.linalg):
        for name, value in vars(space).items():
            if isinstance(value, (types.FunctionType, types.BuiltinFunctionType)):
                setattr(space, name, declaring(value))
    return ns


def declared(out: Any) -> Any:
    """``out`` (an array, or a tuple of them) declared (:func:`._graph.declare`), each
    built on the values kept so far (:func:`._keep.track`)."""
    if isinstance(out, da.Array):
        _graph.declare(out)
        return _keep.track(out)
    if isinstance(out, tuple) and any(isinstance(a, da.Array) for a in out):
        arrays = [a for a in out if isinstance(a, da.Array)]
        _graph.declare(*arrays)
        items = [_keep.track(a) if isinstance(a, da.Array) else a for a in out]
        return type(out)(*items) if hasattr(out, "_fields") else type(out)(items)
    return out


def declaring(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` whose results are :func:`declared`."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return declared(fn(*args, **kwargs))

    return wrapper
