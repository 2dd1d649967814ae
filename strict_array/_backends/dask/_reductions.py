"""Reductions on Dask where Dask's own are wrong or refuse.

- ``axis=()`` (Dask still reduces) and empty arrays (Dask's placeholders for empty
  blocks give wrong shapes, or errors for max and min): each block, or the empty
  array, goes through NumPy.
- Over axes of unknown size, which may hold empty blocks: max and min reduce each
  block from an identity and count the elements (none at all: NumPy's error, when
  computed); argmax and argmin combine each block's best value and index with the
  blocks' lengths, which Dask's own take from the (unknown) chunk sizes.
- argmax and argmin over a whole n-d array run over the flattened array: Dask's flat
  arg-reduction can pick a later one of equal values.
- Cumulative sums and products over blocks that may be empty: Dask carries the last
  element of each block's result to the next, which an empty block does not have
  (wrong values for unknown sizes, an error for known empty blocks), and its scan
  fails on unknown sizes on other axes. Each block is scanned alone and offset by the
  total of the blocks before it.
- Variance and standard deviation over blocks that may be empty: Dask weights each
  block's mean by its count, and an empty block's mean is NaN (dask/dask#3906). Two
  passes instead, as NumPy: the mean, then the squared deviations from it.
- The NaN-skipping reductions (NumPy's) are built on the reductions above: Dask's own
  fail on unknown sizes, and its ``nancumsum`` over them gave a wrong number of elements.
"""

from __future__ import annotations

from typing import Any

import array_api_compat.dask.array as compat
import array_api_compat.numpy as cnp
import dask.array as da
import numpy as np

from ._basics import axes_of, reshape, unknown

REDUCTIONS = (
    "sum", "prod", "max", "min", "mean", "std", "var", "all", "any", "argmax", "argmin",
    "count_nonzero", "cumulative_sum", "cumulative_prod",
)  # fmt: skip


def reduction(name: str) -> Any:
    """The namespace's reduction ``name`` on Dask, right where Dask's is not."""
    own, numpy = getattr(compat, name), getattr(cnp, name)

    def reduce(x: da.Array, /, *, axis: Any = None, **kwargs: Any) -> da.Array:
        if axis == () and not name.startswith("cumulative"):
            meta = numpy(np.empty((1,) * x.ndim, x.dtype), axis=(), **kwargs)
            return da.map_blocks(lambda b: numpy(b, axis=(), **kwargs), x, dtype=meta.dtype)
        # (a cumulative function keeps every axis: none is reduced away)
        reduced = axes_of(axis, x.ndim) if x.ndim and not name.startswith("cumulative") else ()
        if 0 in x.shape and all(not unknown(s) or a in reduced for a, s in enumerate(x.shape)):
            # empty, and every unknown size reduced away: NumPy's result of nothing (an
            # unknown size stands as 1: only a known empty axis decides an error here)
            shape = tuple(1 if unknown(s) else int(s) for s in x.shape)
            out = numpy(np.empty(shape, x.dtype), axis=axis, **kwargs)
            nothing = da.from_array(np.asarray(out), chunks=-1)
            if name not in _NO_IDENTITY:
                return nothing
            # (an unknown reduced size may be 0: then NumPy's error, when computed)
            return _nonempty(name, nothing, [_length(x, a) for a in reduced])
        if not name.startswith(("arg", "cumulative")) and all(n == 1 for n in x.numblocks):
            # all in one block: NumPy's reduction of it, once. Dask's would reduce the one
            # partial result again, which is not always the identity: a product of one
            # complex infinity, (inf+1j), becomes nan+nanj
            return _per_block(numpy, x, reduced, axis, **kwargs)
        if name in ("var", "std") and any(
            unknown(c) or c == 0 for a in reduced for c in x.chunks[a]
        ):
            return _two_pass(name, x, reduced, **kwargs)
        if name in ("max", "min") and (
            any(unknown(s) for s in x.shape) or any(0 in x.chunks[a] for a in reduced)
        ):  # (unknown sizes bring empty blocks, which Dask's max and min fail on)
            return _extremum(name, x, reduced, **kwargs)
        if name in ("argmax", "argmin") and x.ndim:
            keepdims = kwargs.pop("keepdims", False)
            if axis is None and x.ndim > 1:  # (flattened in row-major order, also
                out = _arg(name, reshape(x, (-1,)), 0)  # for unknown sizes)
                return out.reshape((1,) * x.ndim) if keepdims else out
            a = 0 if axis is None else axis % x.ndim
            out = _arg(name, x, a)
            # (indexing with None, which sizes unknown elsewhere do not stop)
            return out[(slice(None),) * a + (None,)] if keepdims else out
        if name.startswith("cumulative") and (x.ndim == 1 or axis is not None):
            a = 0 if axis is None else axis % x.ndim
            blocks = x.chunks[a]
            if (len(blocks) > 1 and any(unknown(c) or c == 0 for c in blocks)) or (
                any(unknown(s) for s in x.shape)
                and (len(blocks) > 1 or kwargs.get("include_initial"))
            ):  # (Dask's include_initial makes an array of the shape, which needs sizes)
                return _cumulative(name, own, x, a, **kwargs)
        return own(x, axis=axis, **kwargs)

    return reduce


def _per_block(
    numpy: Any, x: da.Array, reduced: tuple[int, ...], axis: Any, **kwargs: Any
) -> da.Array:
    """NumPy's reduction ``numpy`` over ``reduced`` axes that are each in one block:
    one task per block, NumPy's bits."""
    keepdims = kwargs.get("keepdims", False)
    meta = numpy(np.empty((1,) * x.ndim, x.dtype), axis=axis, **kwargs)
    chunks = tuple(
        (1,) if a in reduced else cs
        for a, cs in enumerate(x.chunks)
        if keepdims or a not in reduced
    )
    return da.map_blocks(
        lambda b: np.asarray(numpy(b, axis=axis, **kwargs)), x, chunks=chunks,
        drop_axis=[] if keepdims else list(reduced), dtype=meta.dtype, meta=np.asarray(meta)[:0]
        if np.ndim(meta) else np.empty((), meta.dtype),
    )  # fmt: skip


def _cumulative(
    name: str, own: Any, x: da.Array, axis: int, *, include_initial: bool = False, **kwargs: Any
) -> da.Array:
    """A cumulative sum or product along ``axis`` (see the module): every block
    receives the blocks' totals (one small block per block of ``x``) and takes those
    before it."""
    cumulate, total = (np.cumsum, np.sum) if name == "cumulative_sum" else (np.cumprod, np.prod)
    dtype = own(da.zeros((1,) * x.ndim, dtype=x.dtype, chunks=-1), axis=axis, **kwargs).dtype
    identity = 0 if name == "cumulative_sum" else 1
    head = (slice(None),) * axis

    def totals_of(b: np.ndarray) -> np.ndarray:
        return total(b, axis=axis, keepdims=True, dtype=dtype)

    per_block = tuple((1,) * len(cs) if a == axis else cs for a, cs in enumerate(x.chunks))
    totals = da.map_blocks(totals_of, x, chunks=per_block, dtype=dtype)
    n = len(x.chunks[axis])

    def scan(b: np.ndarray, t: np.ndarray, where: np.ndarray) -> np.ndarray:
        j = int(where[0])  # this block's position along the axis
        before = total(t[(*head, slice(0, j))], axis=axis, keepdims=True, dtype=dtype)
        out = cumulate(b, axis=axis, dtype=dtype)
        out = out + before if name == "cumulative_sum" else out * before
        if include_initial and j == 0:
            shape = list(b.shape)
            shape[axis] = 1
            out = np.concatenate([np.full(shape, identity, dtype), out], axis=axis)
        return out.astype(dtype, copy=False)

    index = tuple(range(x.ndim))
    every = tuple(x.ndim if a == axis else a for a in index)  # all blocks along the axis
    sizes = tuple(
        c + (1 if include_initial and i == 0 else 0) for i, c in enumerate(x.chunks[axis])
    )
    return da.blockwise(
        scan, index, x, index, totals, every, da.arange(n, chunks=1), (axis,),
        concatenate=True, align_arrays=False, adjust_chunks={axis: sizes}, dtype=dtype,
    )  # fmt: skip


def _two_pass(
    base: str, x: da.Array, axes: tuple[int, ...], *, keepdims: bool = False,
    correction: float = 0.0, nan: da.Array | None = None,
) -> da.Array:  # fmt: skip
    """mean, var or std in two passes (see the module), of the values that are not NaN
    where ``nan`` marks them."""
    real = np.empty(0, x.dtype).real.dtype  # (the count in it, to keep float32 float32)
    total = reduction("sum")
    if nan is None:
        present = da.map_blocks(lambda b: np.ones(b.shape, real), x, dtype=real)
        values = x
    else:
        present, values = (~nan).astype(real), da.where(nan, x.dtype.type(0), x)
    count = total(present, axis=axes, keepdims=True)
    mean = total(values, axis=axes, keepdims=True) / count
    if base == "mean":
        out = mean.astype(x.dtype)
    else:
        deviation = x - mean if nan is None else da.where(nan, x.dtype.type(0), x - mean)
        squares = (deviation * deviation.conj()).real if x.dtype.kind == "c" else deviation**2
        out = total(squares, axis=axes, keepdims=True) / da.maximum(
            count - real.type(correction), 0
        )
        out = (da.sqrt(out) if base == "std" else out).astype(real)
    return out if keepdims else out[tuple(0 if a in axes else slice(None) for a in range(x.ndim))]


def _identity(name: str, dtype: np.dtype) -> Any:
    """The value no element is below (max) or above (min)."""
    if dtype.kind == "f":
        return -np.inf if name == "max" else np.inf
    if dtype.kind == "b":
        return name != "max"
    info = np.iinfo(dtype)
    return info.min if name == "max" else info.max


def _extremum(name: str, x: da.Array, axes: tuple[int, ...], keepdims: bool = False) -> da.Array:
    """max or min over axes that may hold empty blocks (see the module)."""
    if x.dtype.kind == "c":
        raise TypeError(f"{name}: complex numbers have no order.")
    func = np.max if name == "max" else np.min
    initial = _identity(name, x.dtype)
    values = da.reduction(
        x,
        chunk=lambda b, axis, keepdims: func(b, axis=axis, keepdims=keepdims, initial=initial),
        aggregate=lambda b, axis, keepdims: func(b, axis=axis, keepdims=keepdims, initial=initial),
        axis=axes, keepdims=keepdims, dtype=x.dtype,
    )  # fmt: skip
    return _nonempty(name, values, [_length(x, a) for a in axes])


#: the reductions without an identity: an empty reduced axis is NumPy's error
_NO_IDENTITY = frozenset({"max", "min", "argmax", "argmin"})


def _nonempty(name: str, values: da.Array, lengths: list[Any]) -> da.Array:
    """``values``, or NumPy's error when computed if one of the reduced axes' ``lengths``
    (numbers, or lazy 0-d arrays) is 0: even where the result is empty too (a (0, 0)
    array reduced over axis 0)."""

    def check(v: np.ndarray, *computed: Any) -> np.ndarray:
        if any(int(n) == 0 for n in computed):
            raise ValueError(
                f"{name}: cannot reduce an empty selection (its size was known only when "
                f"computed): {name} has no identity."
            )
        return v

    return da.map_blocks(check, values, *lengths, dtype=values.dtype)


def _length(x: da.Array, axis: int) -> Any:
    """The length of ``x`` along ``axis``: a number where Dask knows it, else a lazy 0-d
    array (the blocks' lengths along that axis, added)."""
    if not unknown(x.shape[axis]):
        return x.shape[axis]
    per_block = da.map_blocks(
        lambda b: np.full((1,) * b.ndim, b.shape[axis], dtype=np.int64), x,
        chunks=tuple((1,) * len(c) for c in x.chunks), dtype=np.int64,
    )  # fmt: skip
    return per_block[tuple(slice(None) if i == axis else 0 for i in range(x.ndim))].sum()


def _arg(name: str, x: da.Array, axis: int) -> da.Array:
    """argmax or argmin along ``axis``, whose blocks may be of unknown length (and empty)."""
    if not any(unknown(s) for s in x.shape) and 0 not in x.chunks[axis]:
        return getattr(compat, name)(x, axis=axis)  # (Dask's fails on unknown sizes
        # anywhere, and on empty blocks along the axis)
    x = da.moveaxis(x, axis, -1)
    func = np.argmax if name == "argmax" else np.argmin
    pick = np.max if name == "argmax" else np.min
    fill = _identity("max" if name == "argmax" else "min", x.dtype)

    def block_best(b: np.ndarray) -> np.ndarray:  # its best value, its index, its length
        out = np.empty((*b.shape[:-1], 3), dtype=object)
        if b.shape[-1]:
            out[..., 1] = func(b, axis=-1)
            out[..., 0] = np.take_along_axis(b, out[..., 1:2].astype(np.int64), -1)[..., 0]
        else:
            out[..., 0], out[..., 1] = fill, 0
        out[..., 2] = b.shape[-1]
        return out

    per_block = da.map_blocks(
        block_best, x, chunks=(*x.chunks[:-1], (3,) * x.numblocks[-1]), dtype=object
    ).rechunk({x.ndim - 1: -1})

    def combine(blocks: np.ndarray) -> np.ndarray:
        parts = blocks.reshape((*blocks.shape[:-1], blocks.shape[-1] // 3, 3))
        values, local = parts[..., 0].astype(x.dtype), parts[..., 1].astype(np.int64)
        lengths = parts[..., 2].astype(np.int64)
        if (lengths.sum(-1) == 0).any():
            raise ValueError(
                f"{name}: cannot reduce an empty selection (its size was known only when "
                f"computed): {name} of nothing has no index."
            )
        offsets = np.cumsum(lengths, axis=-1) - lengths
        valid = lengths > 0
        nan = np.isnan(values) & valid if x.dtype.kind in "fc" else np.zeros_like(valid)
        best = pick(np.where(valid, values, fill), axis=-1, keepdims=True)
        chosen = np.where(nan.any(-1), np.argmax(nan, -1), np.argmax(valid & (values == best), -1))
        index = np.take_along_axis(local + offsets, chosen[..., None], -1)[..., 0]
        return index.astype(np.int64)

    return da.map_blocks(
        combine, per_block, drop_axis=x.ndim - 1, dtype=np.int64,
        meta=np.empty((0,) * (x.ndim - 1), np.int64),
    )  # fmt: skip


NAN_REDUCTIONS = (
    "nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin", "nanargmax",
    "nanargmin", "nancumsum", "nancumprod",
)  # fmt: skip


def nan_reduction(name: str) -> Any:
    """NumPy's ``name`` on Dask: the reduction of ``x`` with NaN left out."""
    base = name[3:]

    def reduce(x: da.Array, /, *, axis: Any = None, **kwargs: Any) -> da.Array:
        if base in ("cumsum", "cumprod"):
            if x.dtype.kind in "fc":
                x = da.where(da.isnan(x), x.dtype.type(base == "cumprod"), x)
            if axis is None and x.ndim != 1:  # NumPy's: of the flattened array
                x, axis = reshape(x, (-1,)), 0
            return reduction("cumulative_" + base[3:])(x, axis=axis, **kwargs)
        if "dtype" in kwargs and base in ("mean", "var", "std"):
            x = x.astype(kwargs.pop("dtype"))
        if x.dtype.kind in "biu":  # nothing is NaN
            if base in ("mean", "var", "std"):
                x = x.astype(np.float64)
            if "ddof" in kwargs:  # NumPy's ddof is the standard's correction
                kwargs["correction"] = kwargs.pop("ddof")
            return reduction(base)(x, axis=axis, **kwargs)
        nan = da.isnan(x)
        if base in ("sum", "prod"):
            return reduction(base)(
                da.where(nan, x.dtype.type(base == "prod"), x), axis=axis, **kwargs
            )
        keepdims = kwargs.pop("keepdims", False)
        if base in ("max", "min", "argmax", "argmin"):
            fill = -np.inf if base in ("max", "argmax") else np.inf
            out = reduction(base)(
                da.where(nan, fill, x).astype(x.dtype), axis=axis, keepdims=keepdims
            )
            none = reduction("all")(nan, axis=axis, keepdims=keepdims)  # an all-NaN slice
            if base.startswith("arg"):
                return da.map_blocks(_no_all_nan, out, none, dtype=out.dtype)
            return da.where(none, np.nan, out).astype(x.dtype)
        return _two_pass(
            base,
            x,
            axes_of(axis, x.ndim),
            keepdims=keepdims,
            correction=kwargs.get("ddof", 0),
            nan=nan,
        )

    return reduce


def _no_all_nan(index: np.ndarray, none: np.ndarray) -> np.ndarray:
    if np.any(none):
        raise ValueError("All-NaN slice encountered")
    return index
