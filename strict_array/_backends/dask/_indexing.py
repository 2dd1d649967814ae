"""Indexing and assignment on Dask: the keys Dask's own indexing gets wrong or refuses.

- Integer index arrays are checked before Dask sees them (:func:`checked_index`):
  Dask's ``take`` quietly returns wrong rows for an out-of-bounds index, and wraps
  negative ones only sometimes.
- Several index arrays (or one of more than one dimension), which Dask refuses,
  become one flat ``take``.
- Assignment builds a new graph (the old one may be shared). A boolean mask with one
  value, or a value broadcast along the selected elements, is a ``where``: Dask's own
  masked assignment broadcasts a size-1 value only within the mask's first chunk.
  An empty region is left alone (dask/dask#11800).
"""

from __future__ import annotations

import math
from typing import Any, cast

import dask.array as da
import numpy as np

from ..._broadcasting import index_shape
from . import _facts, _graph
from ._basics import (
    config_bytes,
    made_from_nothing,
    paired_unknown_blocks,
    rechunk,
    refines,
    remade,
    reshape,
    sliced_in_blocks,
    whole_axes,
    whole_axis,
    without_empty_blocks,
)
from ._basics import flip as flip_axes
from ._basics import unknown as _unknown
from ._graph.fusion import BlockWrite
from ._keep import may_be_kept
from ._namespace import checked_index, take, with_index_length

_INDEX_ARRAYS = (da.Array, np.ndarray)


def _is_integer(k: Any) -> bool:
    return type(k) is int or (isinstance(k, _INDEX_ARRAYS) and k.dtype.kind in "iu")


def _advanced_key(data: da.Array, parts: tuple) -> tuple[tuple, tuple] | None:
    """A key with integer index arrays that Dask's own indexing refuses or gets wrong
    (several, one of another rank than 1, or one with integers), as ``(basic,
    integers)``: the key with integer entries as full slices, and the integer entries
    with others as full slices. None for any other key."""
    arrays = [k for k in parts if isinstance(k, _INDEX_ARRAYS) and k.dtype.kind in "iu"]
    if not arrays or any(k is None for k in parts):
        return None
    if any(isinstance(k, _INDEX_ARRAYS) and k.dtype == bool for k in parts):
        return None
    ints = [k for k in parts if type(k) is int]
    if len(arrays) == 1 and arrays[0].ndim == 1 and not ints:
        return None
    if Ellipsis in [k for k in parts if not isinstance(k, _INDEX_ARRAYS)]:
        i = next(i for i, k in enumerate(parts) if k is Ellipsis)
        fill = (slice(None),) * (data.ndim - (len(parts) - 1))
        parts = parts[:i] + fill + parts[i + 1 :]
    parts = parts + (slice(None),) * (data.ndim - len(parts))
    basic = tuple(slice(None) if _is_integer(k) else k for k in parts)
    integers = tuple(k if _is_integer(k) else slice(None) for k in parts)
    return basic, integers


def _gather_points(data: da.Array, parts: tuple, axes: list[int]) -> da.Array:
    """``data[i, j, ...]`` for integer index arrays (and ints) on the leading axes (the
    array's ``axes``): the broadcast indices one flat index into those axes merged."""
    k = len(parts)
    lead, rest = data.shape[:k], data.shape[k:]
    _check_numpy_indices(parts, lead, axes)
    arrays = [da.asarray(p) for p in parts]
    if any(_unknown(s) for a in arrays for s in a.shape):
        # Dask's broadcast_arrays refuses unknown sizes; the element-wise sum below
        # broadcasts them, its blocks paired, and checks their sizes when computed
        indices = paired_unknown_blocks(*arrays)
    else:  # broadcast first: only the indices that are used are checked (NumPy's order)
        indices = da.broadcast_arrays(*arrays)
    flat = None
    for axis, (index, size) in enumerate(zip(indices, lead)):
        stride = int(np.prod(lead[axis + 1 :], dtype=np.int64))
        term = checked_index(index, size, axes[axis])
        term = term * stride if stride != 1 else term  # (an argsort's result stays itself)
        flat = term if flat is None else flat + term
    assert flat is not None
    points = flat if flat.ndim == 1 else reshape(flat, (-1,))
    if any(_unknown(s) for s in rest):  # block by block (Dask's reshape refuses NaN)
        taken = take(_merge_axes(data, 0, k), points, axis=0)
        out = taken if flat.ndim == 1 else _split_axis(taken, 0, flat.shape)
    else:
        stacked = reshape(data, (int(np.prod(lead, dtype=np.int64)), *rest))
        taken = take(stacked, points, axis=0)
        out = taken if flat.ndim == 1 else reshape(taken, (*flat.shape, *rest))
    if 0 in out.shape and any(isinstance(p, da.Array) for p in parts):
        out = _after_checking(out, flat)  # nothing gathered reads the indices
    return out


def _check_numpy_indices(parts: tuple, lead: tuple, axes: list[int]) -> None:
    """Check NumPy index arrays when the key is built, as CPU does, even where another
    axis is empty: only when the broadcast indices select an element (NumPy's order)."""
    shapes = [np.shape(p) for p in parts]
    if any(_unknown(s) for shape in shapes for s in shape):
        return
    try:
        if 0 in np.broadcast_shapes(*shapes):
            return
    except ValueError:  # the indices do not broadcast: refused below, as before
        return
    for axis, (p, size) in enumerate(zip(parts, lead)):
        if isinstance(p, np.ndarray):
            checked_index(p, size, axes[axis])


def _after_checking(out: da.Array, *indices: da.Array) -> da.Array:
    """``out``, whose computing also computes the (bounds-checked) ``indices``, which
    no task would read where nothing is gathered or written."""
    for index in indices:
        out = da.map_blocks(lambda block, _: block, out, index.sum(), dtype=out.dtype)
    return out


def _gather(data: da.Array, basic: tuple, integers: tuple) -> da.Array:
    """NumPy's advanced integer indexing: the indexed axes are moved to the front and
    gathered in one ``take``; the result's axes go where NumPy puts them (in place
    of adjacent indexed axes, else first)."""
    if any(type(b) is not slice or b != slice(None) for b in basic):
        data = data[basic]
    indexed = [i for i, k in enumerate(integers) if not isinstance(k, slice)]
    for i in indexed:  # an int is checked even where the index arrays select nothing
        n, k = data.shape[i], integers[i]
        if type(k) is int and not _unknown(n) and not -n <= k < n:
            raise IndexError(f"index {k} is out of bounds for axis {i} with size {int(n)}")
    if all(np.ndim(integers[i]) == 0 for i in indexed) and any(_unknown(s) for s in data.shape):
        # only ints and 0-d index arrays: each removes its axis (last first, so the
        # others keep their positions), with no reshape that unknown sizes refuse
        for axis in reversed(indexed):
            index = integers[axis]
            if type(index) is int:
                data = data[(slice(None),) * axis + (index,)]
            else:
                flat = checked_index(da.asarray(index).reshape((1,)), data.shape[axis], axis)
                data = take(data, flat, axis=axis)[(slice(None),) * axis + (0,)]
        return data
    if len(indexed) == 1 and any(_unknown(s) for s in data.shape):
        # one index array, of 2 or more dimensions (of 1, Dask's take serves; of 0, the
        # branch above), among axes of unknown size: the flat take below reshapes, which
        # unknown sizes refuse
        raise ValueError(
            f"an index array of {np.ndim(integers[indexed[0]])} dimensions among axes of "
            f"unknown size ({_show(data.shape)}) cannot be used until the sizes are known "
            "(unknown until computed)."
        )
    others = [i for i in range(data.ndim) if i not in indexed]
    out = _gather_points(
        data.transpose(indexed + others), tuple(integers[i] for i in indexed), indexed
    )
    n_index = out.ndim - len(others)
    if indexed == list(range(indexed[0], indexed[-1] + 1)) and indexed[0] > 0:
        lead = list(range(n_index, n_index + indexed[0]))
        order = lead + list(range(n_index)) + list(range(n_index + indexed[0], out.ndim))
        out = out.transpose(order)
    return out


def _taken(p: Any) -> int:
    """The axes a key entry indexes: a boolean array its rank, None none, others one."""
    if p is None:
        return 0
    if isinstance(p, _INDEX_ARRAYS) and p.dtype == bool:
        return p.ndim
    return 1


def _axis_of(parts: tuple, position: int, ndim: int) -> int:
    """The array axis that key entry ``position`` indexes (after an Ellipsis, from the end)."""
    before = parts[:position]
    if any(p is Ellipsis for p in before):
        return ndim - sum(_taken(p) for p in parts[position:])
    return sum(_taken(p) for p in before)


def _checked_key(data: da.Array, key: Any) -> Any:
    """The key with every integer index array bounds-checked against its axis."""
    parts = key if isinstance(key, tuple) else (key,)
    if not any(isinstance(k, _INDEX_ARRAYS) and k.dtype.kind in "iu" for k in parts):
        return key
    out = []
    for position, k in enumerate(parts):
        if isinstance(k, _INDEX_ARRAYS) and k.dtype.kind in "iu":
            axis = _axis_of(parts, position, data.ndim)
            k = checked_index(k, data.shape[axis], axis)
        out.append(k)
    return tuple(out) if isinstance(key, tuple) else out[0]


def _forward_slices(data: da.Array, parts: tuple) -> tuple[tuple, list[int]]:
    """The key with every negative-step slice on a known axis made a positive-step
    one over the same elements, and the axes of the selection to flip back: Dask's
    slicing mis-counts some (``x[-2::-1]`` of one element gives one, not none), and
    its assignment fails on them."""
    if not any(type(p) is slice and p.step is not None and p.step < 0 for p in parts):
        return parts, []
    out, flip = [], []
    axis, region_axis = 0, 0
    for p in parts:
        if p is Ellipsis:
            skipped = data.ndim - sum(_taken(q) for q in parts if q is not Ellipsis)
            axis += skipped
            region_axis += skipped
        elif p is None:
            region_axis += 1
        elif type(p) is slice:
            size = data.shape[axis]
            if p.step is not None and p.step < 0 and not _unknown(size):
                r = range(*p.indices(int(size)))
                p = slice(r[-1], r[0] + 1, -p.step) if len(r) else slice(0, 0, 1)
                if len(r) > 1:
                    flip.append(region_axis)
            axis += 1
            region_axis += 1
        else:  # an int
            axis += 1
        out.append(p)
    return tuple(out), flip


def getitem(data: da.Array, key: Any) -> da.Array:
    """``data[key]``."""
    parts = key if isinstance(key, tuple) else (key,)
    if all(type(p) in (int, slice) or p is None or p is Ellipsis for p in parts):
        forward, flip = _forward_slices(data, parts)
        data, forward = _read_back(data, forward)
        within = _within_blocks(data, forward, ints=True)
        out = data[forward] if within is None else sliced_in_blocks(data, within)
        return flip_axes(out, axis=tuple(flip)) if flip else out
    advanced = _advanced_key(data, parts)
    if advanced is not None:  # (its indices are checked once broadcast together)
        return _gather(data, *advanced)
    key = _checked_key(data, key)
    parts = key if isinstance(key, tuple) else (key,)
    entries = [p for p in parts if p is not Ellipsis]
    if (
        data.ndim == 1
        and len(entries) == 1
        and getattr(entries[0], "ndim", 0) == 1
        and getattr(entries[0], "dtype", np.dtype(bool)).kind in "iu"
        and not any(map(_unknown, entries[0].shape))
    ):
        # an argsort's result (sorted alike), or indices whose values are here (routed
        # by them), else Dask's take: see take
        return take(data, entries[0], axis=0)
    if isinstance(key, _INDEX_ARRAYS) and key.dtype == bool and 0 in key.shape:
        # an empty mask selects nothing (Dask's broadcast refuses it); the other axes
        # stay as they are, of unknown size too
        k = key.ndim
        if not any(_unknown(s) for s in data.shape[k:]):
            return da.empty((0, *data.shape[k:]), dtype=data.dtype, chunks=-1)
        nothing = data[(slice(0, 0),) * k]
        return da.map_blocks(
            lambda b: b.reshape((0, *b.shape[k:])), nothing, drop_axis=list(range(1, k)),
            chunks=((0,) * nothing.numblocks[0], *nothing.chunks[k:]), dtype=data.dtype,
        )  # fmt: skip
    if isinstance(key, _INDEX_ARRAYS) and key.dtype == bool and key.ndim == 0:
        # a 0-d mask adds an axis of length 0 or 1 (Dask takes only 1-D or full masks)
        return data[None][key.reshape((1,))]
    position = _array_position(parts)
    if position is not None and 0 in parts[position].shape and parts[position].ndim:
        return _merged_mask(data, parts, position)
    if position is not None and parts[position].ndim == data.ndim:
        mask = parts[position]  # Dask takes a full-rank mask alone, not with `...`
        if data.ndim > 1 and any(_unknown(s) for s in (*data.shape, *mask.shape)):
            # Dask selects block by block and joins the blocks in their order, which is
            # not NumPy's (row-major) unless the blocks split the first axis only
            data, mask = (whole_axes(a, range(1, a.ndim)) for a in (data, da.asarray(mask)))
            return da.map_blocks(
                lambda block, m: block[m], data, mask, drop_axis=list(range(1, data.ndim)),
                chunks=((np.nan,) * data.numblocks[0],), dtype=data.dtype,
                meta=np.empty((0,), data.dtype),
            )  # fmt: skip
        return data[mask]
    if position is not None and 1 < parts[position].ndim < data.ndim:
        return _merged_mask(data, parts, position)
    out = data[key]
    p = _array_position(parts, "iu")
    if p is not None and parts[p].ndim == 1:
        out = with_index_length(out, _axis_of(parts, p, data.ndim), parts[p])
    return out


def _one_per_axis(parts: tuple, ndim: int) -> tuple | None:
    """A key of entries that each take one axis (slices and integers) with its ``...``
    and its end filled with full slices, or None (two ``...``, or more entries than axes)."""
    if sum(p is Ellipsis for p in parts) > 1 or len(parts) - (Ellipsis in parts) > ndim:
        return None
    fill = (slice(None),) * (ndim - (len(parts) - (Ellipsis in parts)))
    at = parts.index(Ellipsis) if Ellipsis in parts else len(parts)
    return parts[:at] + fill + parts[at + 1 :]


def _within_blocks(
    data: da.Array, parts: tuple, ints: bool = False
) -> tuple[slice | int, ...] | None:
    """The key as one forward slice per axis (the same in every block), where it is made
    of slices (and ``...``; with ``ints``, integers, made non-negative) and every axis
    it does not take whole is in one block of known size. None for any other key."""
    if any(
        type(p) is not slice and p is not Ellipsis and not (ints and type(p) is int) for p in parts
    ):
        return None
    full = _one_per_axis(parts, data.ndim)
    if full is None:
        return None
    out: list[slice | int] = []
    for s, n, blocks in zip(full, data.shape, data.numblocks):
        if type(s) is int:
            if blocks != 1 or _unknown(n) or not -n <= s < n:
                return None  # (out of bounds: Dask's slicing gives the error)
            out.append(s % int(n))
            continue
        if s == slice(None) or (not _unknown(n) and s.indices(int(n)) == (0, n, 1)):
            # (``::1`` takes the axis whole too: :func:`_split_as_value` may then give
            # it the value's blocks, where a slice of one block would no longer fit)
            out.append(slice(None))
            continue
        if blocks != 1 or _unknown(n) or (s.step is not None and s.step < 0):
            return None
        out.append(slice(*s.indices(int(n))))
    return tuple(out)


def _read_back(data: da.Array, parts: tuple) -> tuple[da.Array, tuple]:
    """The array and basic key that select ``data[parts]`` from the fewest writes: a
    selection inside a region an assignment wrote is its value, one that misses it the
    array written into. Read as written, an array filled by writes that read columns an
    earlier one wrote (``out[:, c:d] = out[:, s:e] * X[:, i:i+1]``) has every version
    with two users (``_graph.fusion.made_per_user``). A small array is read as it is:
    its value may be kept (:mod:`._keep`)."""
    if _facts.of(data).written is None or any(p is None for p in parts):
        return data, parts
    full = _one_per_axis(parts, data.ndim)
    if full is None:
        return data, parts
    parts = full
    # each axis's first and last position selected, and the step (None: an integer)
    spans: list[tuple[int, int, int | None]] = []
    for p, n in zip(parts, data.shape):
        if _unknown(n):
            return data, parts
        if type(p) is int and -n <= p < n:
            spans.append((p % n, p % n, None))
            continue
        r = range(*p.indices(int(n))) if type(p) is slice else range(0)
        if not len(r) or r.step < 0:  # (nothing selected: the general path)
            return data, parts
        spans.append((r[0], r[-1], r.step))
    # (not through a small array: once computed, its value is kept and its history cut)
    while (written := _facts.of(data).written) is not None and not may_be_kept(data):
        base, region, value = written
        if any(last < a or first >= b for (first, last, _), (a, b) in zip(spans, region)):
            data = base  # (the write missed the selection)
            continue
        if not isinstance(value, da.Array) or not all(
            a <= first and last < b for (first, last, _), (a, b) in zip(spans, region)
        ):
            break
        # (inside the region: the value, counted from the region's start)
        spans = [(first - a, last - a, step) for (first, last, step), (a, _) in zip(spans, region)]
        data = value
        parts = tuple(
            first if step is None else slice(first, last + 1, step) for first, last, step in spans
        )
    return data, parts


def _assign_blockwise(data: da.Array, key: tuple[slice, ...], value: Any) -> da.Array:
    """``data[key] = value`` (see :func:`_within_blocks`) in a Blockwise layer, the value
    in ``data``'s blocks along the axes the key takes whole; an array made from nothing
    takes the value's there instead, cut to Dask's ``array.chunk-size`` (an ``empty``
    filled column range by column range from ``X`` pairs with ``X``'s rows)."""
    from dask.base import tokenize

    region = tuple(
        n if k == slice(None) else len(range(k.start, k.stop, k.step))
        for k, n in zip(key, data.shape)
    )
    if isinstance(value, da.Array):
        if value.ndim > len(region):  # (leading axes of one element, as NumPy drops them)
            value = reshape(value, value.shape[value.ndim - len(region) :])
        lead = len(region) - value.ndim
        theirs = {
            a: value.chunks[a - lead]
            for a, k in enumerate(key)
            if k == slice(None) and a >= lead and value.shape[a - lead] == data.shape[a]
            and value.chunks[a - lead] != data.chunks[a]
        }  # fmt: skip
        if remade(data) and not all(refines(data.chunks[a], c) for a, c in theirs.items()):
            first = min(theirs)  # (cut along the first: the rows)
            row = data.itemsize * math.prod(n for a, n in enumerate(data.shape) if a != first)
            # (a task that fills a block holds two versions of it and the value; blocks
            # of a quarter of a chunk halve that on one machine, but a cluster's
            # workers, with four times the tasks, spill: docs/dev/scikit-learn-log.md)
            most = max(1, config_bytes("array.chunk-size") // max(row, 1))
            cut: list[int] = []
            for c in theirs[first]:
                pieces = -(-c // most)
                cut += [c // pieces + (i < c % pieces) for i in range(pieces)]
            data = rechunk(data, {**theirs, first: tuple(cut)})
        else:  # (the value's blocks where they are finer)
            data = _split_as_value(data, key, value, region)
        if value.shape != region:
            value = da.broadcast_to(value, region)
        value = rechunk(value, {
            a: data.chunks[a] if k == slice(None) else (region[a],) for a, k in enumerate(key)
        })  # fmt: skip

    index = tuple(range(data.ndim))
    scalar = not isinstance(value, da.Array)
    name = "setitem-" + tokenize(data.name, key, value if scalar else value.name)
    out = da.blockwise(
        BlockWrite(key), index, data, index, value, None if scalar else index,
        align_arrays=False, name=name, dtype=data.dtype, meta=data._meta,
    )  # fmt: skip
    if all(k.step in (None, 1) for k in key) and not may_be_kept(out):
        # (not on a small array, which is read as it is: its versions would stay alive,
        # each a candidate for ``_keep.pending``; the region a ``(start, stop)`` per axis)
        region = tuple(k.indices(n)[:2] for k, n in zip(key, data.shape))
        _facts.note(out, written=(data, region, value))
    if remade(data) and scalar:
        # (a scalar put in an array made from nothing: made again with it, XP[:, 0] = 1)
        made_from_nothing(
            out, lambda chunks: assign(rechunk(data, dict(enumerate(chunks))), key, value)
        )
    return out


def aligned_mask(data: da.Array, key: Any) -> tuple[int, da.Array] | None:
    """For a key selecting by one 1-D Dask boolean mask (every other entry a full
    slice): the axis, and the mask in the blocks of ``data`` along it (a block of the
    selection per block of ``data``). None for any other key."""
    parts = key if isinstance(key, tuple) else (key,)
    position = _array_position(parts)
    if position is None or not isinstance(parts[position], da.Array):
        return None
    mask = parts[position]
    axis = _axis_of(parts, position, data.ndim)
    if mask.ndim != 1 or _unknown(data.shape[axis]) or mask.shape[0] != data.shape[axis]:
        return None  # (the general path selects, or raises its error)
    return axis, mask.rechunk((data.chunks[axis],))


def select_counted(data: da.Array, axis: int, mask: da.Array, counts: tuple[int, ...]) -> da.Array:
    """``data`` selected along ``axis`` by ``mask`` (blocks aligned by :func:`aligned_mask`),
    whose blocks hold ``counts`` ``True``: the selection, with those sizes."""
    out = data[(slice(None),) * axis + (mask,)]
    chunks = list(out.chunks)
    chunks[axis] = counts
    # (blocks that select nothing go: Dask cannot pair many empty blocks with a few, as
    # a selection of a long vector and one of a broadcast scalar are)
    return without_empty_blocks(_graph.with_chunks(out, chunks))


def _merged_mask(data: da.Array, parts: tuple, position: int) -> da.Array:
    """``data[parts]`` for a k-D boolean mask on some of the axes (Dask takes 1-D or
    full-rank masks): those axes merged into one and the mask raveled."""
    mask = parts[position]
    axis = _axis_of(parts, position, data.ndim)
    k = mask.ndim
    sizes = data.shape[axis : axis + k]
    if any(_unknown(s) for s in sizes):
        raise ValueError(
            f"a {k}-D boolean index on axes of unknown size ({_show(data.shape)}) cannot be "
            "used until the sizes are known (unknown until computed)."
        )
    merged = _merge_axes(data, axis, k)
    if merged.shape[axis] == 0:  # an empty mask selects nothing from nothing
        return merged
    return merged[(slice(None),) * axis + (mask.reshape((-1,)),)]


# --- assignment ---------------------------------------------------------------------
def _array_position(parts: tuple, kinds: str = "b") -> int | None:
    """Where the one index array of a key (of a dtype of ``kinds``: by default a boolean
    mask, which a ``where`` can assign through) sits, if every other entry is a full
    slice (or an Ellipsis)."""
    arrays = [
        i for i, k in enumerate(parts) if isinstance(k, _INDEX_ARRAYS) and k.dtype.kind in kinds
    ]
    if len(arrays) != 1:
        return None
    others = [k for i, k in enumerate(parts) if i != arrays[0]]
    if all(k is Ellipsis or (type(k) is slice and k == slice(None)) for k in others):
        return arrays[0]
    return None


def _as_value(value: Any, dtype: np.dtype) -> Any:
    if isinstance(value, da.Array):
        return value if value.dtype == dtype else value.astype(dtype)
    return np.asarray(value, dtype=dtype)[()]  # a NumPy scalar of the array's dtype


def assign(data: da.Array, key: Any, value: Any) -> da.Array:
    """``data[key] = value`` as a new graph, with ``data``'s dtype (``value`` checked to
    broadcast to the region). A scalar put in an array made from nothing, by a key of
    no Dask array, is made from nothing too (``resp[i, k] = 1`` into ``zeros((n, c))``):
    else it would be computed here where it meets the data's blocks
    (``in_partner_blocks``), its n x c values embedded in the graph."""
    out = _assign(data, key, value)
    parts = key if isinstance(key, tuple) else (key,)
    if (
        remade(data)
        and not remade(out)
        and not isinstance(value, da.Array)
        and not any(isinstance(p, da.Array) for p in parts)
    ):
        made_from_nothing(
            out, lambda chunks: assign(rechunk(data, dict(enumerate(chunks))), key, value)
        )
    return out


def _selected_shape(data: da.Array, key: Any) -> tuple:
    """``data[key].shape``, from the key alone where it is made of ints in bounds, slices,
    ``None`` and ``...`` and the sizes are known; else from Dask's selection, whose graph
    costs as much as the history it joins (``a[i, i] = v[i]`` in a loop: at each write)."""
    parts = key if isinstance(key, tuple) else (key,)
    consuming = [p for p in parts if p is not None and p is not Ellipsis]
    if all(type(p) in (int, slice) for p in consuming) and not any(_unknown(n) for n in data.shape):
        shape = tuple(int(n) for n in data.shape)
        full = _one_per_axis(tuple(p for p in parts if p is not None), data.ndim)
        if full is not None and all(type(p) is not int or -n <= p < n for p, n in zip(full, shape)):
            return index_shape("__setitem__", shape, parts)
    return getitem(data, key).shape


def _assign(data: da.Array, key: Any, value: Any) -> da.Array:
    value = _as_value(value, data.dtype)
    if key is Ellipsis:  # the whole array: also for unknown sizes, which setitem refuses
        return _fill(data, value)
    key = _checked_key(data, key)
    parts = key if isinstance(key, tuple) else (key,)
    region = _selected_shape(data, key)
    if not any(isinstance(p, _INDEX_ARRAYS) for p in parts):  # negative steps made forward
        parts, flip = _forward_slices(data, parts)
        if flip and isinstance(value, da.Array):
            value = flip_axes(da.broadcast_to(value, region), axis=tuple(flip))
        key = parts
    if any(k is None for k in parts):  # Dask's setitem takes no new axes: drop them
        parts = tuple(k for k in parts if k is not None)
        key = parts if len(parts) != 1 else parts[0]
        narrower = _selected_shape(data, key)
        if isinstance(value, da.Array):
            if any(_unknown(s) for s in region):
                raise ValueError(
                    "assigning through a key with new axes (None) needs the region's size, "
                    f"unknown until computed ({_show(region)})."
                )
            value = reshape(da.broadcast_to(value, region), narrower)
        region = narrower
    if any(s == 0 for s in region):  # nothing selected (dask/dask#11800)
        return _after_checking(
            data, *(p for p in parts if isinstance(p, da.Array) and p.dtype.kind in "iu")
        )
    position = _array_position(parts)
    if position is not None:
        return _assign_through_mask(data, parts, position, value, region)
    # (an int on an axis in one block: a slice of one, the value given that axis)
    ints = [i for i, p in enumerate(parts) if type(p) is int]
    as_slices = tuple(slice(p, p + 1 if p != -1 else None) if type(p) is int else p for p in parts)
    ellipsis = any(p is Ellipsis for p in parts)
    sized = not any(_unknown(s) for s in data.shape)
    within = _within_blocks(data, as_slices) if sized and not (ellipsis and ints) else None
    if within is not None:
        if ints and isinstance(value, da.Array):
            if may_be_kept(data) and _in_one_block(data, parts, value):
                # (a small parameter written element by element, ``a[i, i] = v[i]``: one
                # step, as each builds graph that costs as much as the history it joins)
                return _assign_in_one_block(data, key, value)
            value = reshape(da.broadcast_to(value, region), _selected_shape(data, as_slices))
        return _assign_blockwise(data, cast(tuple[slice, ...], within), value)
    if any(_unknown(s) for s in data.shape):
        raise ValueError(
            "assigning through this key needs sizes that are unknown until computed "
            f"(shape {_show(data.shape)}); assign through a boolean mask of the array's "
            "leading axes, or make the sizes known first (strict_array.persist, or "
            "strict_array.known_sizes)."
        )
    advanced = _advanced_key(data, parts)
    if advanced is not None:  # Dask's setitem takes one 1-D index array: one flat index
        positions = da.arange(data.size, chunks=-1).reshape(data.shape)
        flat = _gather(positions.rechunk(data.chunks), *advanced)
        out = reshape(data, (-1,)).copy()
        out[reshape(flat, (-1,))] = (
            reshape(da.broadcast_to(value, flat.shape), (-1,))
            if isinstance(value, da.Array)
            else value
        )
        return reshape(out, data.shape)
    if _in_one_block(data, parts, value):
        return _assign_in_one_block(data, key, value)
    if isinstance(value, da.Array):
        return _setitem_shallow(_split_as_value(data, parts, value, region), key, value)
    out = data.copy()
    out[key] = value
    return out


def _split_as_value(data: da.Array, parts: tuple, value: da.Array, region: tuple) -> da.Array:
    """``data`` rechunked as the value along each axis that the key takes whole and
    that the value splits in more blocks than ``data`` does: Dask's setitem fits the
    value to ``data``'s blocks, and ``log_prob[:, k] = v`` (``log_prob`` made by
    ``empty``, ``v`` in the data's row blocks) gathered many blocks of ``v`` into one
    task, the input's blocks waiting in memory for the last column."""
    whole = _one_per_axis(parts, data.ndim)
    kept = [a for a, p in enumerate(whole or ()) if isinstance(p, slice)]  # the region's axes
    if whole is None or len(kept) != len(region):
        return data
    lead = len(region) - value.ndim
    chunks = {}
    for r, a in enumerate(kept):
        i = r - lead
        if (
            i >= 0
            and whole[a].indices(data.shape[a]) == (0, data.shape[a], 1)
            and value.shape[i] == data.shape[a]
            and value.numblocks[i] > data.numblocks[a]
        ):
            chunks[a] = value.chunks[i]
    return rechunk(data, chunks) if chunks else data


def _in_one_block(data: da.Array, parts: tuple, value: Any) -> bool:
    """Whether ``data[parts] = value`` can be one task: ``data`` and the value each in
    one block, and no index array in the key."""
    return (
        all(n == 1 for n in data.numblocks)
        and not any(isinstance(p, _INDEX_ARRAYS) for p in parts)
        and (not isinstance(value, da.Array) or all(n == 1 for n in value.numblocks))
    )


def _assign_in_one_block(data: da.Array, key: Any, value: Any) -> da.Array:
    """``data[key] = value`` for ``data`` in one block: one task that assigns into a copy
    of the block. Dask's setitem builds a graph of its own, which a loop of element
    writes (a small parameter) pays at every write."""
    from dask.base import tokenize

    def put(block: np.ndarray, v: Any) -> np.ndarray:
        out = np.array(block, copy=True)  # (a 0-d block may be a NumPy scalar)
        out[key] = v
        return out

    scalar = not isinstance(value, da.Array)
    name = "setitem-" + tokenize(data.name, key, value if scalar else value.name)
    index = tuple(range(data.ndim))
    # (the value's axes are others than data's: its one block, whole, goes to the task)
    value_index = None if scalar else tuple(range(data.ndim, data.ndim + value.ndim))
    return da.blockwise(put, index, data, index, value, value_index, concatenate=True,
                        name=name, dtype=data.dtype, meta=data._meta)  # fmt: skip


def _setitem_shallow(data: da.Array, key: Any, value: da.Array) -> da.Array:
    """``data[key] = value`` through Dask's setitem, without its copy of the value's
    whole graph: Dask's ``setitem_array`` materialises ``dict(value.dask)`` into the
    new layer (dask/array/slicing.py): ``a[i, i] = v[i]`` in a loop was quadratic. The
    value is given as one alias task per block; its own layers join the result's graph."""
    out = data.copy()
    out[key] = _graph.aliased(value)
    # (Dask's setitem merges the alias tasks into its own layer, which so reads the value)
    return _graph.joined(out, value)


def _fill(data: da.Array, value: Any) -> da.Array:
    """``data[...] = value`` block by block (Dask's where and setitem broadcast with
    ``broadcast_to``, which refuses unknown sizes)."""
    if not isinstance(value, da.Array):
        return da.map_blocks(_full_like, data, value=value, dtype=data.dtype)
    if not any(_unknown(s) for s in data.shape + value.shape):
        if remade(data):
            # (an array made from nothing holds no value that the write keeps: it takes
            # the value's blocks: ``zeros(n)`` filled by ``mask |= y == c``, kept in one
            # block, would gather all of y's blocks at each step)
            lead = data.ndim - value.ndim
            chunks = tuple(
                value.chunks[a - lead] if a >= lead and value.shape[a - lead] == n else c
                for a, (c, n) in enumerate(zip(data.chunks, data.shape))
            )
            return da.broadcast_to(value, data.shape, chunks=chunks)
        return da.broadcast_to(value, data.shape).rechunk(data.chunks)
    # block by block, each value block checked against its data block when computed; an
    # unknown axis whose blocks differ in number goes into one block in both
    lead = data.ndim - value.ndim
    for i, size in enumerate(value.shape):
        a = lead + i
        if size != 1 and value.numblocks[i] != data.numblocks[a]:
            if _unknown(size) or _unknown(data.shape[a]):
                data, value = whole_axis(data, a), whole_axis(value, i)
    # the value's known axes chunked as data's, its size-1 axes broadcast
    value = value.rechunk(
        {i: data.chunks[lead + i] for i, s in enumerate(value.shape)
         if s != 1 and not _unknown(s) and not any(_unknown(c) for c in data.chunks[lead + i])}
    )  # fmt: skip
    return da.map_blocks(_full_like, data, value, dtype=data.dtype)


def _same_chunks(a: tuple, b: tuple) -> bool:
    return len(a) == len(b) and all(
        len(x) == len(y) and all(p == q or (_unknown(p) and _unknown(q)) for p, q in zip(x, y))
        for x, y in zip(a, b)
    )


def _full_like(block: np.ndarray, value: Any) -> np.ndarray:
    return np.broadcast_to(np.asarray(value, dtype=block.dtype), block.shape).copy()


def _show(shape: tuple) -> str:
    return "(" + ", ".join("?" if _unknown(s) else str(int(s)) for s in shape) + ")"


def _assign_through_mask(
    data: da.Array, parts: tuple, position: int, value: Any, region: tuple
) -> da.Array:
    """``data[..., mask, ...] = value`` for one boolean array among full slices; the
    region has the mask's axes replaced by one axis of the selected elements."""
    mask = parts[position]
    axis = _axis_of(parts, position, data.ndim)
    k, trail = mask.ndim, data.ndim - axis - mask.ndim
    if isinstance(mask, np.ndarray):
        mask = da.from_array(mask, chunks=data.chunks[axis : axis + k])
    condition = mask[(None,) * axis + (Ellipsis,) + (None,) * trail]
    if not isinstance(value, da.Array):
        return da.where(condition, value, data).astype(data.dtype)
    selected = value.ndim - (len(region) - axis)  # the value's axis along the selection
    if selected >= 0 and value.shape[selected] != 1:
        if k == 0:  # a 0-d mask selects all of data or nothing: a value of 0 or 1 rows
            return _assign_all_or_nothing(data, mask, value)
        if selected == axis and k > 1 and not any(_unknown(s) for s in data.shape[axis : axis + k]):
            # the masked axes merged into one: a 1-D mask there, then split back
            # (the raveled mask keeps its blocks: a value from data[mask] has as many)
            merged, flat = _merge_axes(data, axis, k), mask.reshape((-1,))
            out = _assign_through_mask(merged, (slice(None),) * axis + (flat,), axis, value, region)
            return _split_axis(out, axis, data.shape[axis : axis + k], data.chunks)
        if k == 1 and selected == axis:
            if not _unknown(value.shape[axis]):  # a known count: offsets into the value
                return _scatter_with_offsets(data, mask, axis, value)
            return _scatter_blocks(data, mask, axis, value)
        raise ValueError(
            f"assigning values of shape {_show(value.shape)} through a {k}-D mask needs the "
            "number of selected elements, unknown until computed; assign one value per "
            "row through a mask of the leading axis, or make the sizes known first "
            "(strict_array.persist)."
        )
    if selected >= 0:  # one value along the selection: drop that axis
        value = value[(slice(None),) * selected + (0,)]
    if value.ndim > trail:  # the mask's axes come back as size-1 axes
        value = value[(Ellipsis, *(None,) * k, *(slice(None),) * trail)]
    return da.where(condition, value, data).astype(data.dtype)


def _merge_axes(data: da.Array, axis: int, k: int) -> da.Array:
    """Axes ``axis`` to ``axis + k`` (of known sizes) merged into one, in one chunk."""
    n = int(np.prod(data.shape[axis : axis + k]))
    data = data.rechunk({a: -1 for a in range(axis, axis + k)})
    return da.map_blocks(
        lambda block: block.reshape((*block.shape[:axis], n, *block.shape[axis + k :])),
        data, chunks=(*data.chunks[:axis], (n,), *data.chunks[axis + k :]),
        drop_axis=list(range(axis + 1, axis + k)), dtype=data.dtype,
    )  # fmt: skip


def _split_axis(merged: da.Array, axis: int, sizes: tuple, chunks: tuple | None = None) -> da.Array:
    """The inverse of :func:`_merge_axes`: axis ``axis`` split back into ``sizes`` (in
    one block, or rechunked to ``chunks``)."""
    sizes = tuple(int(s) for s in sizes)
    out = da.map_blocks(
        lambda block: block.reshape((*block.shape[:axis], *sizes, *block.shape[axis + 1 :])),
        merged.rechunk({axis: -1}),
        chunks=(*merged.chunks[:axis], *((s,) for s in sizes), *merged.chunks[axis + 1 :]),
        new_axis=list(range(axis + 1, axis + len(sizes))), dtype=merged.dtype,
    )  # fmt: skip
    return out if chunks is None else out.rechunk(chunks)


def _scatter_with_offsets(data: da.Array, mask: da.Array, axis: int, value: da.Array) -> da.Array:
    """Per-element values through a 1-D mask: each block of ``data`` takes, from the
    whole value (in one block), the run after the earlier blocks' selections; a value
    of another length than the selection fails when computed, as on CPU."""
    mask = mask.rechunk((data.chunks[axis],)) if not any(
        _unknown(c) for c in mask.chunks[0]
    ) else mask  # fmt: skip
    data = data.rechunk({axis: mask.chunks[0]})
    counts = da.map_blocks(
        lambda m: np.array([m.sum()], dtype=np.int64), mask, chunks=((1,) * mask.numblocks[0],),
        dtype=np.int64,
    )  # fmt: skip
    offsets = da.cumsum(counts) - counts
    total = counts.sum()
    others = [i for i in range(data.ndim) if i != axis]
    value = whole_axis(value, axis).rechunk({i: data.chunks[i] for i in others})

    def write(
        block: np.ndarray, m: np.ndarray, offset: np.ndarray, v: np.ndarray, n: np.ndarray
    ) -> np.ndarray:
        if v.shape[axis] != int(n):
            raise ValueError(
                f"__setitem__: the value has {v.shape[axis]} elements along the selected "
                f"axis but the mask selects {int(n)}."
            )
        start = int(offset[0])
        out = block.copy()
        run = v[(slice(None),) * axis + (slice(start, start + int(m.sum())),)]
        out[(slice(None),) * axis + (m,)] = run
        return out

    index = tuple(range(data.ndim))
    value_index = tuple(data.ndim if i == axis else i for i in index)  # the whole value axis
    return da.blockwise(
        write, index, data, index, mask, (axis,), offsets, (axis,), value, value_index,
        total, (), dtype=data.dtype, concatenate=True, align_arrays=False,
        meta=np.empty((0,) * data.ndim, data.dtype),
    )  # fmt: skip


def _assign_all_or_nothing(data: da.Array, mask: da.Array, value: da.Array) -> da.Array:
    """``data[mask] = value`` for a 0-d mask: ``value`` has one row (mask True) or none."""
    if value.ndim == data.ndim:  # no selection axis: the value itself broadcasts
        return da.where(mask, value, data).astype(data.dtype)
    if value.numblocks[0] != 1:  # (a value from data[mask] has one block there)
        value = value.rechunk({0: -1})
    if not _same_chunks(value.chunks[1:], data.chunks):
        value = value.rechunk({i + 1: c for i, c in enumerate(data.chunks)})
    index = tuple(range(1, data.ndim + 1))

    def write(block: np.ndarray, m: np.ndarray, v: np.ndarray) -> np.ndarray:
        return np.where(m, v[0], block) if m else block

    return da.blockwise(
        write, index, data, index, mask, (), value, (0, *index),
        dtype=data.dtype, concatenate=True, align_arrays=False,
        meta=np.empty((0,) * data.ndim, data.dtype),
    )  # fmt: skip


def _scatter_blocks(data: da.Array, mask: da.Array, axis: int, value: da.Array) -> da.Array:
    """Per-element values through a 1-D mask, block by block, where ``value``'s selected
    axis comes in one block per block of the mask (as ``f(data[mask])`` does); each
    block's length is checked against the mask's count when computed."""
    if not any(_unknown(c) for c in mask.chunks[0]) and not any(
        _unknown(c) for c in data.chunks[axis]
    ):  # the chunking of data[mask] (the mask's or the data's, as Dask aligned them)
        for chunks in (mask.chunks[0], data.chunks[axis]):
            if len(chunks) == value.numblocks[axis]:
                mask = mask.rechunk((chunks,))
                break
    if value.numblocks[axis] != mask.numblocks[0]:
        # the value's blocks do not pair with the mask's (it is not an expression of
        # data[mask] block for block): its elements in one block, taken run by run
        return _scatter_with_offsets(data, mask, axis, value)
    data = data.rechunk({axis: mask.chunks[0]})
    others = [i for i in range(data.ndim) if i != axis]
    value = value.rechunk({i: data.chunks[i] for i in others})

    def write(block: np.ndarray, m: np.ndarray, v: np.ndarray) -> np.ndarray:
        count = int(m.sum())
        if v.shape[axis] != count:
            raise ValueError(
                f"__setitem__: a block of the value has {v.shape[axis]} elements along the "
                f"selected axis but the mask selects {count} there."
            )
        out = block.copy()
        out[(slice(None),) * axis + (m,)] = v
        return out

    index = tuple(range(data.ndim))
    return da.blockwise(
        write, index, data, index, mask, (axis,), value, index,
        dtype=data.dtype, align_arrays=False, meta=np.empty((0,) * data.ndim, data.dtype),
    )  # fmt: skip
