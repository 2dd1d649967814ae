"""NumPy's functions and ufuncs on Dask data, with NumPy's value: the ways of
:mod:`.._numpy_ways`, interpreted lazily.

Every way ends in NumPy's own function on NumPy blocks, or in Dask's own function where
the table vouches that its value is NumPy's (``Own``, each exception with its reason).
Shapes come from the arguments' shapes: a lane's or a whole result's shape from NumPy's
function on a zero-strided stand-in of the input (no data is read, nothing computes);
a size that depends on the values (``np.unique``) is unknown until computed, as for the
namespace's own functions.
"""

from __future__ import annotations

import functools
import inspect
import itertools
import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import dask
import dask.array as da
import numpy as np

from .._numpy_ways import (
    Blocks,
    Lanes,
    Matrices,
    NoLazyValue,
    Own,
    Refuse,
    Value,
    Way,
    Whole,
    Writes,
    bound,
    dotted,
    numpy_name,
    signature,
)
from ._basics import axes_of, unknown, whole_axes, without_empty_blocks
from ._namespace import declared

__all__ = ["numpy_call", "numpy_ufunc"]


def _is_lazy(v: Any) -> bool:
    return isinstance(v, da.Array)


def numpy_call(func: Any, way: Way, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """NumPy's ``func(*args, **kwargs)`` on Dask arrays (among NumPy arrays, lists and
    scalars), lazily, by ``way``."""
    if type(way) is Own:
        own = dotted(da, way.name or numpy_name(func))
        if (
            own is not None
            and _takes(own, func, args, kwargs)
            and not _any_0d((args, kwargs))
            and not _refused_by_dask(func, args, kwargs)
        ):
            return declared(own(*args, **kwargs))  # (an error of Dask's own is raised)
        return numpy_call(func, _whole_of(func, args, kwargs), args, kwargs)
    if type(way) is Blocks:
        return _blocks(func, way, bound(func, args, kwargs))
    if type(way) is Lanes:
        b = bound(func, args, kwargs)
        x = b[way.array]
        if not _is_lazy(x):
            return func(*args, **kwargs)
        if x.ndim == 0:
            return _whole(func, Whole((way.array,)), b)
        axis = b.get(way.axis) if isinstance(way.axis, str) else way.axis
        axes = axes_of(axis, x.ndim)
        lanes = {way.array: axes}
        for name in way.others:  # (of x's shape: lane by lane too; else whole)
            other = b.get(name)
            if isinstance(other, (da.Array, np.ndarray)) and other.shape == x.shape:
                b[name] = da.asarray(other)
                lanes[name] = axes
        return _lanes(func, b, lanes, fill=0)
    if type(way) is Matrices:
        b = bound(func, args, kwargs)
        lanes = {}
        for name, core in zip(way.arrays, way.cores):
            a = b.get(name)
            if a is not None and _is_lazy(a):
                lanes[name] = tuple(range(a.ndim - core, a.ndim))
        return _lanes(func, b, lanes, fill="eye")
    if type(way) is Whole:
        return _whole(func, way, bound(func, args, kwargs))
    if type(way) is Value:
        if way.shapes_only:
            args, kwargs = _stand_ins(args), _stand_ins(kwargs)
        else:
            args, kwargs = _computed((args, kwargs))
        return func(*args, **kwargs)
    if type(way) is Writes:
        raise TypeError("Writes is carried out by numpy_write")
    if type(way) is Refuse:
        raise NoLazyValue(way.why)
    raise TypeError(f"unknown way {way!r}")


def numpy_write(func: Any, way: Writes, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The new data of ``way.target`` after NumPy's ``func`` writes into it, lazily: the
    writing function applied to a copy of each block (or of the whole target)."""

    def writing(*call_args: Any, **call_kwargs: Any) -> Any:
        b = bound(func, call_args, call_kwargs)
        target = np.array(b[way.target], copy=True)
        b[way.target] = target
        _call(func, b)
        return target

    functools.update_wrapper(writing, func)
    writing.__signature__ = signature(func)  # type: ignore[attr-defined]
    return numpy_call(writing, way.how, args, kwargs)


def _takes(own: Any, func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """Whether Dask's ``own`` takes this call of NumPy's ``func``: every argument given
    other than NumPy's default is one of its parameters (by position or by name)."""
    try:
        theirs = signature(own).parameters
        mine = signature(func).parameters
    except (TypeError, ValueError):
        return True
    if any(p.kind is p.VAR_KEYWORD for p in theirs.values()):
        return True
    positional = [p for p in theirs.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]  # fmt: skip
    if len(args) > len(positional) and not any(p.kind is p.VAR_POSITIONAL for p in theirs.values()):
        return False
    b = bound(func, args, kwargs)
    for i, p in enumerate(mine.values()):
        if p.name not in b or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        value, default = b[p.name], p.default
        if (
            value is default
            or value is np._NoValue
            or (default is not p.empty and type(value) is type(default) and _same(value, default))
        ):
            continue
        if i >= len(args) and p.name not in theirs:  # given by name, or NumPy's own default
            return False
    return all(k in theirs for k in kwargs)


def _tril_refused(b: dict[str, Any]) -> bool:
    return bool(np.ndim(b["m"]) < 2)


def _insert_refused(b: dict[str, Any]) -> bool:
    """da.insert reads ``.chunks`` of array values (and broadcasts a list of them
    otherwise), takes increasing indices only, and puts an index past the end at the
    end (NumPy's IndexError)."""
    values, obj, shape = b["values"], b["obj"], b["arr"].shape
    if (np.ndim(values) > 0 and not _is_lazy(values)) or _is_lazy(obj):
        return True
    if not -len(shape) <= b["axis"] < len(shape):  # (NumPy's AxisError)
        return True
    if isinstance(obj, slice):
        return False
    n, index = shape[b["axis"]], np.asarray(obj)
    if index.dtype.kind not in "iu" or np.any((index < -n) | (index > n)):
        return True
    return bool(np.any(np.diff(np.where(index < 0, index + n, index).ravel()) < 0))


#: The arguments NumPy's function takes and Dask's own refuses (decided before the
#: call, so that an error of Dask's is never taken for a refusal): NumPy's own serves.
_REFUSED_BY_DASK: dict[str, Callable[[dict[str, Any]], bool]] = {
    # da.dot reads both operands' last axes: a scalar has none (NumPy multiplies)
    "dot": lambda b: min(np.ndim(b["a"]), np.ndim(b["b"])) == 0,
    "insert": _insert_refused,
    # da.linspace takes scalar bounds only
    "linspace": lambda b: np.ndim(b["start"]) > 0 or np.ndim(b["stop"]) > 0,
    # da.tril and da.triu take matrices only; NumPy's read a vector as rows of it
    "tril": _tril_refused,
    "triu": _tril_refused,
}


def _refused_by_dask(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    refused = _REFUSED_BY_DASK.get(numpy_name(func))
    return refused is not None and refused(bound(func, args, kwargs))


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def _whole_of(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Whole:
    b = bound(func, args, kwargs)
    return Whole(tuple(k for k, v in b.items() if _flat_lazy(v)))


def _any_0d(value: Any) -> bool:
    """Whether a 0-d Dask array is among the arguments: Dask's functions refuse, or
    mistake, many that NumPy takes (``axis=0``, ``argwhere``'s sizes): NumPy's own
    serves."""
    return any(a.ndim == 0 for a in _flat_lazy(value))


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


def _each_lazy(value: Any, change: Callable[[da.Array], Any]) -> Any:
    """``value`` with ``change(a)`` for each Dask array ``a`` in it (in lists, tuples
    and dicts, as NumPy's arguments hold them)."""
    if _is_lazy(value):
        return change(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_each_lazy(v, change) for v in value)
    if isinstance(value, dict):
        return {k: _each_lazy(v, change) for k, v in value.items()}
    return value


def _stand_ins(value: Any, fill: Any = 0) -> Any:
    def stand_in(a: da.Array) -> np.ndarray:
        if any(unknown(s) for s in a.shape):
            raise NoLazyValue("an array whose size is unknown until computed")
        return _stand_in(a, fill)

    return _each_lazy(value, stand_in)


#: what NumPy raises where a stand-in's values are not ones it takes (a singular
#: matrix: LinAlgError, a ValueError; a read-only stand-in written to: ValueError)
_NUMPY_REFUSALS = (ValueError, TypeError, IndexError, ArithmeticError)


def _probing_in(run: Callable[[Any], Any], fills: Sequence[Any]) -> Any:
    first: Exception | None = None
    for fill in fills:
        try:
            return run(fill)
        except _NUMPY_REFUSALS as e:  # (NumPy's own error, kept for the end)
            first = first or e
    assert first is not None
    raise first


def _probing(run: Callable[[Any], Any]) -> Any:
    """``run(fill)`` with the first of :data:`FILLS` NumPy's function takes (no warning
    shown); NumPy's first error where it takes none (an error of the arguments' shapes
    or types, NumPy's own)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return _probing_in(run, FILLS)


def _computed(value: Any) -> Any:
    """``value`` with every Dask array in it computed, through the planner, at once."""
    from . import _compute

    found = _flat_lazy(value)
    results = dict(zip(map(id, found), _compute.compute(found))) if found else {}
    return _each_lazy(value, lambda a: results[id(a)])


# --- Blocks: element-wise ------------------------------------------------------------------------
def _array_like(value: Any) -> bool:
    if _is_lazy(value) or isinstance(value, np.ndarray):
        return True
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(v, (int, float, complex, bool, list)) for v in value)
    )


def _blocks(func: Any, way: Blocks, b: dict[str, Any]) -> Any:
    # the array arguments: a parameter, or each element of a sequence one ("*condlist")
    slots: list[tuple[str, int | None]] = []
    for param in way.arrays:
        name = param.lstrip("*")
        value = b.get(name)
        if param.startswith("*") and isinstance(value, (list, tuple)):
            slots += [(name, i) for i, item in enumerate(value) if _array_like(item)]
        elif _array_like(value):
            slots.append((name, None))
    wholes = [n for n in way.whole if _is_lazy(b.get(n))]
    values = [b[n] if i is None else b[n][i] for n, i in slots]
    if not any(_is_lazy(v) for v in values) and not wholes:
        return _call(func, b)
    arrays = [da.asarray(v) for v in values]
    if any(unknown(s) for a in arrays for s in a.shape):
        arrays = [whole_axes(a) for a in arrays]
    if len(arrays) > 1:
        arrays = list(da.broadcast_arrays(*arrays))
        spec = itertools.chain(*[(a, tuple(range(a.ndim))) for a in arrays])
        arrays = list(da.core.unify_chunks(*spec)[1])
    whole = [whole_axes(b[n]) for n in wholes]

    def kernel(*blocks: np.ndarray) -> Any:
        call = dict(b)
        for (name, i), block in zip(slots, blocks):
            if i is None:
                call[name] = block
            else:
                items = list(call[name])
                items[i] = block
                call[name] = type(b[name])(items)
        for name, block in zip(wholes, blocks[len(slots) :]):
            call[name] = block
        return _call(func, call)

    # NumPy's dtype (and structure) from its function on one element of each
    meta = _probing(
        lambda fill: kernel(
            *[_stand_in(a, fill, (1,) * a.ndim) for a in arrays],
            *[_stand_in(w, fill, (1,) * w.ndim) for w in whole],
        )
    )
    out_ind = tuple(range(arrays[0].ndim)) if arrays else ()
    spec2: list[Any] = []
    for a in arrays:
        spec2 += [a, out_ind]
    for i, w in enumerate(whole):
        spec2 += [w, tuple(100 + 10 * i + k for k in range(w.ndim))]
    if isinstance(meta, tuple):
        outs = [
            declared(da.blockwise(lambda *bl, i=i: kernel(*bl)[i], out_ind, *spec2,
                                  concatenate=True, dtype=np.asarray(m).dtype))
            for i, m in enumerate(meta)
        ]  # fmt: skip
        return type(meta)(*outs) if hasattr(meta, "_fields") else tuple(outs)
    return declared(da.blockwise(kernel, out_ind, *spec2, concatenate=True,
                                 dtype=np.asarray(meta).dtype))  # fmt: skip


# --- Lanes and Matrices: NumPy's function on each lane ------------------------------------------
def _lanes(func: Any, b: dict[str, Any], lanes: dict[str, tuple[int, ...]], fill: Any) -> Any:
    """NumPy's ``func`` on each block of the arrays named in ``lanes``, each with its lane
    axes in one block; the other (batch) axes of all of them broadcast and chunk alike."""
    if not lanes:
        return _call(func, b)
    arrays = {n: b[n] for n in lanes}
    # the batch axes of each array (all but its lanes'), aligned from the end, broadcast
    # together
    batch_axes = {n: [i for i in range(a.ndim) if i not in lanes[n]] for n, a in arrays.items()}
    batch_shapes = [tuple(a.shape[i] for i in batch_axes[n]) for n, a in arrays.items()]
    if any(unknown(s) for n, a in arrays.items() for i, s in enumerate(a.shape) if i in lanes[n]):
        return _whole(func, Whole(tuple(arrays)), b)
    nbatch = max(len(s) for s in batch_shapes)
    batch = np.broadcast_shapes(*[tuple(1 if unknown(s) else s for s in bs) for bs in batch_shapes])
    prepared: dict[str, da.Array] = {}
    for n, a in arrays.items():
        a = (
            a.rechunk({i: -1 for i in lanes[n]})
            if not any(unknown(s) for s in a.shape)
            else whole_axes(a, lanes[n])
        )
        prepared[n] = a
    # the batch chunks: the first array's, where it spans the batch axis
    lead = {n: nbatch - len(bs) for n, bs in zip(arrays, batch_shapes)}
    batch_chunks: list[tuple[int, ...]] = []
    for k in range(nbatch):
        chosen: tuple[int, ...] | None = None
        for n, a in prepared.items():
            j = k - lead[n]
            if j >= 0:
                axis = batch_axes[n][j]
                if a.shape[axis] == batch[k] and (chosen is None or len(a.chunks[axis]) > 1):
                    chosen = a.chunks[axis]
        batch_chunks.append(chosen or (batch[k],))
    blocks: dict[str, Any] = {}
    for n, a in prepared.items():
        spec = {}
        for j, axis in enumerate(batch_axes[n]):
            k = j + lead[n]
            if a.shape[axis] == batch[k]:
                spec[axis] = batch_chunks[k]
        if spec:
            a = a.rechunk(spec)
        prepared[n] = a
        blocks[n] = a.to_delayed()
    # every other Dask array among the arguments goes whole to each lane's task
    others = {n: v for n, v in b.items() if n not in prepared and _flat_lazy(v)}
    structure = _lane_structure(func, b, prepared, batch_axes, lead, nbatch, fill, others)
    whole_others = {n: _delayed_whole(v) for n, v in others.items()}

    def run(*parts: np.ndarray, **other_parts: Any) -> Any:
        call = {**b, **other_parts}
        for n, part in zip(prepared, parts):
            call[n] = part
        return _call(func, call)

    grid = tuple(len(c) for c in batch_chunks)
    tasks: dict[tuple[int, ...], Any] = {}
    for index in itertools.product(*(range(g) for g in grid)):
        parts = []
        for n, a in prepared.items():
            where = [0] * a.ndim
            for j, axis in enumerate(batch_axes[n]):
                k = j + lead[n]
                where[axis] = index[k] if a.numblocks[axis] > 1 else 0
            parts.append(blocks[n][tuple(where)])
        tasks[index] = dask.delayed(run, pure=True)(*parts, **whole_others)
    return _assemble(structure, tasks, batch_chunks)


def _lane_structure(func: Any, b: dict[str, Any], arrays: dict[str, da.Array],
                    batch_axes: dict[str, list[int]], lead: dict[str, int], nbatch: int,
                    fill: Any, others: dict[str, Any]) -> Any:  # fmt: skip
    """The shape of ``func``'s result(s) for one lane, and which of its axes follow each
    batch axis, from NumPy's function on stand-ins: batch sizes 1, then each 2 (the
    ``others``, arrays given whole, as stand-ins of their own shapes)."""

    def probe(sizes: list[int], fill: Any) -> Any:
        call = {**b, **{n: _stand_ins(v, fill) for n, v in others.items()}}
        for n, a in arrays.items():
            shape = list(a.shape)  # the lanes' sizes, and each batch axis's below
            for j, i in enumerate(batch_axes[n]):
                shape[i] = sizes[j + lead[n]] if a.shape[i] != 1 else 1
            call[n] = _stand_in(a, fill, shape)
        return _call(func, call)

    fills = (fill, *(f for f in FILLS if f != fill))
    used = []

    def first(fill: Any) -> Any:
        out = probe([1] * nbatch, fill)
        used.append(fill)
        return out

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        base = _probing_in(first, fills)
        grown = [probe([2 if j == k else 1 for j in range(nbatch)], used[0])
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
                if s1 != s2:
                    follows[axis] = k
        return ("one", out.shape, out.dtype, follows)

    return describe(base, grown)


def _assemble(structure: Any, tasks: dict[tuple[int, ...], Any],
              batch_chunks: list[tuple[int, ...]]) -> Any:  # fmt: skip
    if structure[0] == "many":
        _, kind, parts = structure
        outs = [
            _assemble(p, {k: t[i] for k, t in tasks.items()}, batch_chunks)
            for i, p in enumerate(parts)
        ]
        if kind is list:
            return outs
        return kind(*outs) if hasattr(kind, "_fields") else tuple(outs)
    _, shape, dtype, follows = structure
    ndim = len(shape)
    by_batch = {k: axis for axis, k in follows.items()}

    def piece(index: tuple[int, ...]) -> da.Array:
        size = list(shape)
        for axis, k in follows.items():
            size[axis] = batch_chunks[k][index[k]]
        return da.from_delayed(tasks[index], shape=tuple(size), dtype=dtype)

    grid = [len(c) for c in batch_chunks]

    def nest(axis: int, index: list[int]) -> Any:
        if axis == ndim:
            return piece(tuple(index))
        k = follows.get(axis)
        if k is None:
            return [nest(axis + 1, index)]
        out = []
        for i in range(grid[k]):
            index2 = list(index)
            index2[k] = i
            out.append(nest(axis + 1, index2))
        return out

    unassigned = [k for k in range(len(grid)) if k not in by_batch and grid[k] > 1]
    if unassigned:  # a batch axis the result does not keep (a reduction of it)
        raise NoLazyValue("a result that combines lanes")
    if ndim == 0:
        return declared(piece(tuple(0 for _ in grid)))
    return declared(without_empty_blocks(da.block(nest(0, [0] * len(grid)))))


# --- Whole: one task ------------------------------------------------------------------------------
def _whole(func: Any, way: Whole, b: dict[str, Any]) -> Any:
    names = [n for n in way.arrays if _flat_lazy(b.get(n))]
    if not names:
        return _call(func, b)
    values = {n: b[n] for n in names}
    known = not any(unknown(s) for v in _flat_lazy(values) for s in v.shape)
    by_shapes = known and way.sizes == "shapes"
    # NumPy's function on stand-ins gives the result's structure and dtype, and its
    # sizes where they follow from the inputs' shapes (on stand-ins of those shapes)
    full = by_shapes and way.shape is None

    def probe(fill: Any) -> Any:
        call = dict(b)
        for n in names:
            call[n] = _stand_ins(values[n], fill) if full else _tiny(values[n], fill)
        return _call(func, call)

    meta = _probing(probe)
    shape = way.shape(b) if by_shapes and way.shape is not None else None

    def run(*parts: Any) -> Any:
        call = dict(b)
        for n, part in zip(names, parts):
            call[n] = part
        return _call(func, call)

    task = dask.delayed(run, pure=True)(*[_delayed_whole(values[n]) for n in names])

    def out(m: Any, t: Any, shape: Any) -> Any:
        if isinstance(m, (tuple, list)):
            items = [out(mi, t[i], None if shape is None else shape[i]) for i, mi in enumerate(m)]
            if isinstance(m, list):
                return items
            return type(m)(*items) if hasattr(m, "_fields") else tuple(items)
        m = np.asarray(m)
        if shape is None:
            shape = m.shape if full else tuple(np.nan for _ in m.shape)
        return declared(da.from_delayed(t, shape=tuple(shape), dtype=m.dtype))

    return out(meta, task, shape)


def _flat_lazy(value: Any) -> list[da.Array]:
    found: list[da.Array] = []
    _each_lazy(value, found.append)
    return found


def _tiny(value: Any, fill: Any = 1) -> Any:
    return _each_lazy(
        value, lambda a: _stand_in(a, fill, [2 if unknown(s) else min(int(s), 2) for s in a.shape])
    )


def _delayed_whole(value: Any) -> Any:
    return _each_lazy(value, lambda a: whole_axes(a).to_delayed().ravel()[0])


# --- ufuncs ------------------------------------------------------------------------------------------
def numpy_ufunc(
    ufunc: np.ufunc, method: str, inputs: tuple[Any, ...], kwargs: dict[str, Any],
    associative: bool = False,
) -> Any:  # fmt: skip
    """NumPy's ``ufunc`` (a method of it) on Dask data, lazily. ``out=`` holds the outputs'
    data where ``where=`` leaves some of it as it is; the caller stores the result.
    ``associative``: its fold does not depend on the order NumPy iterates."""
    kwargs = dict(kwargs)
    out = kwargs.pop("out", None)
    if method == "__call__":
        if ufunc.signature is not None:
            if ufunc is np.matmul:
                return declared(da.matmul(*inputs, **kwargs))
            return declared(da.apply_gufunc(ufunc, ufunc.signature, *inputs, allow_rechunk=True,
                                            **kwargs))  # fmt: skip
        where = kwargs.pop("where", True)
        names = tuple(f"x{i}" for i in range(len(inputs)))
        kept = tuple(f"out{i}" for i in range(ufunc.nout)) if (
            where is not True and out is not None and all(o is not None for o in out)
        ) else ()  # fmt: skip

        def elementwise(*arrays: Any, where: Any = True, **outs: Any) -> Any:
            kw = dict(kwargs)
            if where is not True:
                kw["where"] = where
            if outs:  # (NumPy leaves out's elements where ``where`` is False)
                kw["out"] = tuple(np.array(outs[k], copy=True) for k in kept)
            return ufunc(*arrays, **kw)

        elementwise.__signature__ = _positional(  # type: ignore[attr-defined]
            names, where=True, **dict.fromkeys(kept)
        )
        call_kwargs: dict[str, Any] = {"where": where} if where is not True else {}
        call_kwargs.update(zip(kept, out or ()))
        arrays = names + (("where",) if where is not True else ()) + kept
        return numpy_call(elementwise, Blocks(arrays), inputs, call_kwargs)
    if method in ("reduce", "accumulate", "reduceat"):
        axis = kwargs.pop("axis", 0)

        def along(a: Any, *rest: Any, axis: Any = 0, where: Any = True, **kw: Any) -> Any:
            if where is not True:
                kw["where"] = where
            return getattr(ufunc, method)(a, *rest, axis=axis, **kw)

        where = kwargs.pop("where", True)
        if (
            where is not True
            and (where.ndim if hasattr(where, "ndim") else np.ndim(where))
            and _is_lazy(inputs[0])
        ):
            where = da.broadcast_to(da.asarray(where), inputs[0].shape)  # (as NumPy's is)
        rest = tuple(f"r{i}" for i in range(len(inputs) - 1))
        along.__signature__ = _positional(  # type: ignore[attr-defined]
            ("a", *rest), axis=0, where=True, **kwargs
        )
        # NumPy's fold of a non-associative ufunc depends on the memory layout it iterates
        # (np.power.reduce of a column is not that of the same column in a matrix): the
        # whole array, as NumPy holds it; an associative one, lane by lane
        way = Lanes("a", others=("where",)) if associative and not rest \
            else Whole(("a", "where", *rest))  # fmt: skip
        return numpy_call(along, way, inputs, {"axis": axis, "where": where, **kwargs})
    if method == "outer":
        a, b = (da.asarray(v) for v in inputs)
        expanded = a[(...,) + (None,) * b.ndim]
        return numpy_ufunc(ufunc, "__call__", (expanded, b), {**kwargs, "out": out})
    raise NoLazyValue(f"ufunc.{method}")


def _positional(names: Sequence[str], **keywords: Any) -> Any:
    import inspect

    params = [inspect.Parameter(n, inspect.Parameter.POSITIONAL_ONLY) for n in names]
    params += [inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY, default=v)
               for k, v in keywords.items()]  # fmt: skip
    return inspect.Signature(params)
