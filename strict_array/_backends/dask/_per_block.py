"""The one engine of per-block calls on Dask: a function on each block of some arrays,
the axes it names in one block, every other Dask array among its arguments whole; one
Dask ``blockwise`` call (for a tuple of results, one of the tuples, then one per
result).

It runs NumPy's functions on Dask data (:mod:`._numpy_calls`, the ways ``Blocks`` and
``Whole``) and the per-matrix ``linalg`` of the namespace (:func:`._linalg.gufunc`).
The results' shapes, and which of their axes follow the blocks, come from the function
on zero-strided stand-ins of the inputs (no data is read, nothing computes), or are
given (a generalized ufunc's signature).
"""

from __future__ import annotations

import inspect
import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import dask.array as da
import numpy as np

from .._numpy_ways import NoLazyValue, Whole, signature
from ._basics import unknown, whole_axes, whole_axis

__all__ = ["FILLS", "per_block"]


def _call(func: Any, b: dict[str, Any]) -> Any:
    """``func`` called with bound arguments ``b`` (by NumPy's signature)."""
    sig = signature(func)
    call = inspect.BoundArguments(sig, {n: b[n] for n in sig.parameters if n in b})
    return func(*call.args, **call.kwargs)


# --- stand-ins: NumPy's own function tells the shapes, on no data --------------------------------
#: the values a stand-in may hold, tried in turn until NumPy's function takes them: ones,
#: an identity in the last two axes (a matrix NumPy inverts), distinct values (a matrix
#: of ones is singular), zeros
FILLS = (1, "eye", "distinct", 0)


def _stand_in(x: Any, fill: Any = 0, shape: Sequence[int] | None = None) -> np.ndarray:
    """A read-only array of ``x``'s dtype and ``shape`` (``x``'s own by default) that
    holds no data (zero strides) but ``fill``: one value, an identity in the last two
    axes (``"eye"``), or distinct small values (``"distinct"``, made for small shapes
    only)."""
    shape = tuple(x.shape if shape is None else shape)
    dtype = x.dtype
    if fill == "eye" and len(shape) >= 2:
        eye = np.eye(shape[-2], shape[-1], dtype=dtype)
        return np.broadcast_to(eye, shape)
    if fill == "distinct" and math.prod(shape) <= 1 << 16:
        values = (np.arange(math.prod(shape)) * 7 % 11 + 1).reshape(shape)
        return values.astype(dtype) if dtype.kind != "b" else values % 2 == 1
    if fill in ("eye", "distinct"):
        fill = 1
    return np.broadcast_to(np.asarray(fill, dtype=dtype), shape)


def _each_lazy(value: Any, change: Callable[[Any], Any], kind: type = da.Array) -> Any:
    """``value`` with ``change(a)`` for each Dask array ``a`` (each object of ``kind``)
    in it (in lists, tuples and dicts, as NumPy's arguments hold them)."""
    if isinstance(value, kind):
        return change(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_each_lazy(v, change, kind) for v in value)
    if isinstance(value, dict):
        return {k: _each_lazy(v, change, kind) for k, v in value.items()}
    return value


#: what NumPy raises where a stand-in's values are not ones it takes (a singular
#: matrix: LinAlgError, a ValueError; a read-only stand-in written to: ValueError)
_NUMPY_REFUSALS = (ValueError, TypeError, IndexError, ArithmeticError)


def per_block(func: Any, b: dict[str, Any], slots: list[tuple[str, int | None]],
              arrays: list[da.Array], lanes: list[tuple[int, ...]],
              whole: Whole | None = None, structure: Any = None,
              finish: Callable[[da.Array], da.Array] = lambda a: a) -> Any:  # fmt: skip
    """NumPy's ``func`` on each block of ``arrays`` (in ``slots`` of its arguments ``b``),
    each array's ``lanes`` in one block, every other Dask array in ``b`` whole (all of
    them, in one task, for ``whole``): one Dask ``blockwise`` call (for a tuple of
    results, one of the tuples, then one per result). The results' ``structure`` (see
    :func:`_structure`) is read from NumPy's function on stand-ins unless given; each
    result is passed through ``finish`` (the device's declaration)."""
    # the arguments, each array's block marked in them, and every other Dask array in
    # them given whole to each block (in one block, each axis its own index)
    rest = dict(b)
    for j, (n, i) in enumerate(slots):
        rest[n] = _Block(j) if i is None else type(rest[n])(
            _Block(j) if k == i else v for k, v in enumerate(rest[n]))  # fmt: skip
    wholes: list[da.Array] = []

    def given_whole(a: da.Array) -> _Block:
        wholes.append(whole_axes(a))
        return _Block(len(arrays) + len(wholes) - 1)

    rest = _each_lazy(rest, given_whole)
    known = not any(unknown(s) for w in wholes for s in w.shape)
    # the result's sizes: from NumPy's function on stand-ins of the arguments' shapes,
    # else (where that would cost as much as the function, or depends on the values) on
    # tiny ones: ``whole.shape``'s sizes, or unknown
    by_shapes = whole is None or (whole.sizes == "shapes" and whole.shape is None)
    sizes = None if known and by_shapes else "unknown"
    if known and whole is not None and whole.sizes == "shapes" and whole.shape is not None:
        sizes = whole.shape(b)
    # the batch axes (all but the lanes') of every array, aligned from the end
    batch = [[i for i in range(a.ndim) if i not in axes] for a, axes in zip(arrays, lanes)]
    nbatch = max((len(axes) for axes in batch), default=0)
    if structure is None:
        structure = _structure(func, rest, arrays, wholes, batch, nbatch, tiny=not by_shapes)
    followed = set.intersection(*[set(follows.values()) for _, _, follows in _flat(structure)])
    index = []
    for j, a in enumerate([*arrays, *wholes]):
        ind = [-1 - 64 * j - i for i in range(a.ndim)]  # batch axis k is k; others their own
        for m, i in enumerate(batch[j] if j < len(arrays) else ()):
            ind[i] = nbatch - len(batch[j]) + m
        index.append(tuple(ind))
    spec: list[Any] = [func, None, rest, None]
    for a, axes in zip(_aligned([*arrays, *wholes], index, followed), index):
        spec += [a, axes]
    if structure[0] == "one":
        return _result(structure, _run_block, spec, sizes, finish)
    tuples = da.blockwise(_run_block, tuple(range(nbatch)), *spec, concatenate=False,
                          align_arrays=False, adjust_chunks=_batch_blocks(spec, range(nbatch)),
                          meta=np.empty((0,) * nbatch, dtype=object))  # fmt: skip
    return _results(structure, tuples, nbatch, sizes, (), finish)


def _batch_blocks(spec: list[Any], axes: Any) -> dict[int, Any] | None:
    """The blocks of each batch axis in ``axes`` of ``spec``'s arrays, from an array not
    of size 1 there (Dask's blockwise, not aligning, takes the first array's: a (1, 3)
    beside a (2, 3) made a (1, 3))."""
    chunks: dict[int, Any] = {}
    for a, ind in zip(spec[4::2], spec[5::2]):
        for c, k in zip(a.chunks, ind):
            if k in axes and c != (1,) and k not in chunks:
                chunks[k] = c
    return chunks or None


def _results(structure: Any, tuples: da.Array, nbatch: int, sizes: Any,
             path: tuple[int, ...], finish: Callable[[da.Array], da.Array]) -> Any:  # fmt: skip
    """The results of :func:`_structure` taken from the blocks of ``tuples``, each one
    by its ``path`` in them."""
    if structure[0] == "one":
        return _result(structure, _item, [tuples, tuple(range(nbatch)), path, None], sizes,
                       finish)  # fmt: skip
    _, kind, parts = structure
    outs = [_results(part, tuples, nbatch, sizes if sizes in (None, "unknown") else sizes[i],
                     (*path, i), finish) for i, part in enumerate(parts)]  # fmt: skip
    if kind is list:
        return outs
    return kind(*outs) if hasattr(kind, "_fields") else tuple(outs)


@dataclass(frozen=True)
class _Block:
    """Where the block of the ``index``-th array goes among NumPy's arguments."""

    index: int


def _one(block: Any) -> Any:
    """A block Dask gives in a list (one per axis it has in one block), out of them."""
    while isinstance(block, list):
        block = block[0]
    return block


def _run_block(func: Any, rest: dict[str, Any], *blocks: Any) -> Any:
    return _call(func, _each_lazy(rest, lambda m: _one(blocks[m.index]), _Block))


def _item(tuples: Any, path: tuple[int, ...]) -> Any:
    out = _one(tuples)
    for i in path:
        out = out[i]
    return out


def _structure(func: Any, rest: dict[str, Any], arrays: list[da.Array], wholes: list[da.Array],
               batch: list[list[int]], nbatch: int, tiny: bool) -> Any:  # fmt: skip
    """The shape and dtype of ``func``'s result(s) on one block, and which of its axes
    follow each batch axis, from NumPy's function on stand-ins (no warning shown):
    batch sizes 1, then each 2; the arrays given whole as stand-ins of their own shapes
    (2 where unknown; at most 2, ``tiny``). NumPy's first error where it takes no fill
    of :data:`FILLS` (an error of the arguments' shapes or types, NumPy's own)."""
    # a batch axis of size 0 is probed at 0, then 1 (a value given whole may broadcast
    # against it); any other at 1, then 2
    least = [1] * nbatch
    for a, axes in zip(arrays, batch):
        for m, i in enumerate(axes):
            least[nbatch - len(axes) + m] &= a.shape[i] != 0

    def probe(sizes: list[int], fill: Any) -> Any:
        parts = []
        for a, axes in zip(arrays, batch):
            shape = list(a.shape)  # the lanes' sizes, and each batch axis's below
            lead = nbatch - len(axes)
            for m, i in enumerate(axes):
                shape[i] = sizes[lead + m] if a.shape[i] != 1 else 1
            parts.append(_stand_in(a, fill, shape))
        for w in wholes:
            shape = [2 if unknown(s) else min(int(s), 2) if tiny else s for s in w.shape]
            parts.append(_stand_in(w, fill, shape))
        return _run_block(func, rest, *parts)

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        first: Exception | None = None
        for fill in FILLS:
            try:
                base = probe(least, fill)
                break
            except _NUMPY_REFUSALS as e:  # (NumPy's own error, kept for the end)
                first = first or e
        else:
            assert first is not None
            raise first
        grown = [probe([n + (j == k) for j, n in enumerate(least)], fill)
                 for k in range(nbatch)]  # fmt: skip

    def describe(out: Any, more: list[Any]) -> Any:
        if isinstance(out, (tuple, list)):
            parts = [describe(o, [m[i] for m in more]) for i, o in enumerate(out)]
            return ("many", type(out), parts)
        out = np.asarray(out)
        follows: dict[int, int] = {}
        for k, m in enumerate(more):
            m = np.asarray(m)
            if m.ndim != out.ndim:
                raise NoLazyValue("a result whose rank depends on the batch sizes")
            for axis, (s1, s2) in enumerate(zip(out.shape, m.shape)):
                if (s1, s2) == (least[k], least[k] + 1):
                    follows[axis] = k
                elif s1 != s2:
                    raise NoLazyValue("a result whose sizes are not its blocks'")
        return ("one", out.shape, out.dtype, follows)

    return describe(base, grown)


def _flat(structure: Any) -> list[Any]:
    """The results' ``(shape, dtype, follows)`` of a :func:`_structure`, flat."""
    if structure[0] == "many":
        return [one for part in structure[2] for one in _flat(part)]
    return [structure[1:]]


def _result(structure: Any, run: Any, spec: list[Any], sizes: Any,
            finish: Callable[[da.Array], da.Array]) -> Any:  # fmt: skip
    """One result of :func:`_structure`: ``run`` on each block of ``spec``'s arrays, each
    of its axes a batch axis it follows or a new one, of the size ``sizes`` gives (the
    stand-ins' for None, or unknown)."""
    _, shape, dtype, follows = structure
    if sizes is not None:
        shape = tuple(np.nan for _ in shape) if sizes == "unknown" else tuple(sizes)
    out_ind = tuple(follows.get(axis, 1000 + axis) for axis in range(len(shape)))
    new = {1000 + axis: s for axis, s in enumerate(shape) if axis not in follows}
    return finish(da.blockwise(_checked, out_ind, run, None, dtype, None, *spec,
                                 new_axes=new, concatenate=False, align_arrays=False,
                                 adjust_chunks=_batch_blocks(spec, set(follows.values())),
                                 meta=np.empty((0,) * len(shape), dtype=dtype)))  # fmt: skip


def _checked(run: Any, dtype: np.dtype, *args: Any) -> np.ndarray:
    """``run(*args)``, a block of a result declared of ``dtype`` (NumPy's on the
    stand-ins): an error where NumPy's dtype depends on the values (``np.linalg.eig``'s
    is complex where an eigenvalue is), never a silent cast."""
    out = np.asarray(run(*args))
    if out.dtype != dtype:
        raise NoLazyValue(
            f"NumPy's result is {out.dtype} on some blocks and {dtype} on others: its dtype "
            "depends on the values; compute first (np.asarray(x)), or move the array: "
            "x.to_device(strict_array.CPU)"
        )
    return out


def _aligned(arrays: list[da.Array], index: list[tuple[int, ...]],
             followed: set[int]) -> list[da.Array]:  # fmt: skip
    """``arrays`` for one blockwise call by ``index``: each axis whose index is not a
    batch axis ``followed`` in one block; each batch axis in the most blocks an array
    of another size than 1 has there; an axis of unknown size met by another array's,
    in one block."""
    arrays = list(arrays)
    for k in followed:  # (Dask pairs blocks by position: unknown sizes are not paired)
        places = [(j, ind.index(k)) for j, ind in enumerate(index)
                  if k in ind and arrays[j].shape[ind.index(k)] != 1]  # fmt: skip
        if (
            any(unknown(arrays[j].shape[i]) for j, i in places)
            and len({arrays[j].name for j, _ in places}) > 1
        ):
            for j, i in places:
                arrays[j] = whole_axis(arrays[j], i)
    chunks: dict[int, tuple[float, ...]] = {}
    for a, ind in zip(arrays, index):
        for i, k in enumerate(ind):
            if k in followed and a.shape[i] != 1 and len(a.chunks[i]) > len(chunks.get(k, ())):
                chunks[k] = a.chunks[i]
    out = []
    for a, ind in zip(arrays, index):
        spec: dict[int, Any] = {}
        for i, k in enumerate(ind):
            if k not in followed and unknown(a.shape[i]):
                a = whole_axis(a, i)  # (Dask's rechunk refuses an unknown size)
            elif k not in followed:
                spec[i] = -1
            elif a.shape[i] != 1 and not unknown(a.shape[i]) and a.chunks[i] != chunks[k]:
                spec[i] = chunks[k]
        out.append(a.rechunk(spec) if spec else a)
    return out
