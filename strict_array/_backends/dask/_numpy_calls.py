"""NumPy's functions and ufuncs on Dask data, with NumPy's value: the ways of
:mod:`.._numpy_ways`, interpreted lazily.

Every way ends in NumPy's own function on NumPy blocks, or in Dask's own function where
the table vouches that its value is NumPy's (``Own``, each exception with its reason).
``Blocks`` and ``Whole`` are one call of the per-block engine
(:func:`._per_block.per_block`); a size that depends on the values (``np.unique``) is
unknown until computed, as for the namespace's own functions.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any

import dask.array as da
import numpy as np

from .._numpy_ways import (
    Blocks,
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
from ._basics import axes_of, unknown
from ._namespace import declared
from ._per_block import _call, _each_lazy, _stand_in, per_block

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
        return _whole(func, Whole(()), bound(func, args, kwargs))
    if type(way) is Blocks:
        return _blocks(func, way, bound(func, args, kwargs))
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


def _any_0d(value: Any) -> bool:
    """Whether a 0-d Dask array is among the arguments: Dask's functions refuse, or
    mistake, many that NumPy takes (``axis=0``, ``argwhere``'s sizes): NumPy's own
    serves."""
    return any(a.ndim == 0 for a in _flat_lazy(value))


def _stand_ins(value: Any, fill: Any = 0) -> Any:
    def stand_in(a: da.Array) -> np.ndarray:
        if any(unknown(s) for s in a.shape):
            raise NoLazyValue("an array whose size is unknown until computed")
        return _stand_in(a, fill)

    return _each_lazy(value, stand_in)


def _computed(value: Any) -> Any:
    """``value`` with every Dask array in it computed, through the planner, at once."""
    from . import _compute

    found = _flat_lazy(value)
    results = dict(zip(map(id, found), _compute.compute(found))) if found else {}
    return _each_lazy(value, lambda a: results[id(a)])


# --- Blocks and Whole: NumPy's function on each block ---------------------------------------------
def _array_like(value: Any) -> bool:
    if _is_lazy(value) or isinstance(value, np.ndarray):
        return True
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(v, (int, float, complex, bool, list)) for v in value)
    )


def _blocks(func: Any, way: Blocks, b: dict[str, Any]) -> Any:
    # the arrays: a parameter, or each element of a sequence one ("*condlist")
    slots: list[tuple[str, int | None]] = []
    for param in way.arrays:
        name = param.lstrip("*")
        value = b.get(name)
        if param.startswith("*") and isinstance(value, (list, tuple)):
            slots += [(name, i) for i, item in enumerate(value) if _array_like(item)]
        elif _array_like(value):
            slots.append((name, None))
    if not _flat_lazy(b):
        return _call(func, b)
    arrays = [da.asarray(b[n] if i is None else b[n][i]) for n, i in slots]
    lanes = _lanes(way.along, b, arrays)
    kept = [j for j, axes in enumerate(lanes) if axes is not None]  # (others go whole)
    if not kept or any(unknown(arrays[j].shape[i]) for j in kept for i in lanes[j]):
        return _whole(func, Whole(tuple(b)), b)
    return per_block(func, b, [slots[j] for j in kept], [arrays[j] for j in kept],
                     [lanes[j] for j in kept], finish=declared)  # fmt: skip


def _lanes(along: Any, b: dict[str, Any], arrays: list[da.Array]) -> list[Any]:
    """The axes of each array ``along`` puts in one block (:class:`Blocks`); None for an
    array that goes whole (not of the first's shape)."""
    if along is None:
        return [()] * len(arrays)
    if isinstance(along, tuple):
        return [tuple(range(max(a.ndim - n, 0), a.ndim)) for a, n in zip(arrays, along)]
    if not arrays or arrays[0].ndim == 0:  # (NumPy's axis 0 or -1 of a 0-d array: whole)
        return [None] * len(arrays)
    axes = axes_of(b.get(along) if isinstance(along, str) else along, arrays[0].ndim)
    return [axes if a.shape == arrays[0].shape else None for a in arrays]


def _whole(func: Any, way: Whole, b: dict[str, Any]) -> Any:
    if not _flat_lazy(b):
        return _call(func, b)
    return per_block(func, b, [], [], [], way, finish=declared)


def _flat_lazy(value: Any) -> list[da.Array]:
    found: list[da.Array] = []
    _each_lazy(value, found.append)
    return found


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
        if where is not True and np.ndim(where) and _is_lazy(inputs[0]):
            where = da.broadcast_to(da.asarray(where), inputs[0].shape)  # (as NumPy's is)
        rest = tuple(f"r{i}" for i in range(len(inputs) - 1))
        along.__signature__ = _positional(  # type: ignore[attr-defined]
            ("a", *rest), axis=0, where=True, **kwargs
        )
        # NumPy's fold of a non-associative ufunc depends on the memory layout it iterates
        # (np.power.reduce of a column is not that of the same column in a matrix): the
        # whole array, as NumPy holds it; an associative one, lane by lane
        way = Blocks(("a", "where"), along="axis") if associative and not rest \
            else Whole(("a", "where", *rest))  # fmt: skip
        return numpy_call(along, way, inputs, {"axis": axis, "where": where, **kwargs})
    if method == "outer":
        a, b = (da.asarray(v) for v in inputs)
        expanded = a[(...,) + (None,) * b.ndim]
        return numpy_ufunc(ufunc, "__call__", (expanded, b), {**kwargs, "out": out})
    raise NoLazyValue(f"ufunc.{method}")


def _positional(names: Sequence[str], **keywords: Any) -> Any:
    params = [inspect.Parameter(n, inspect.Parameter.POSITIONAL_ONLY) for n in names]
    params += [inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY, default=v)
               for k, v in keywords.items()]  # fmt: skip
    return inspect.Signature(params)
