"""NumPy's functions that move data, written with the namespace's own, for lazy devices:
``np.sort``, ``argsort`` (stable), ``expand_dims``, ``squeeze``, ``flip``, ``fliplr``,
``flipud``, ``moveaxis``, ``swapaxes``, ``transpose``, ``permute_dims``, ``reshape``,
``ravel``, ``roll``, ``tile``, ``repeat``, ``broadcast_to``, ``tril``, ``triu``,
``take`` and ``tensordot`` of a strict array resolve to the namespace's function of
the array's device (on ``DASK``: right over sizes unknown until computed and empty
blocks, what the planner knows of the array kept: a constant, a slice), with NumPy's
values: the same elements, in NumPy's order and dtype.

Rows of the table (:mod:`._table`) name them with :class:`~._table.Compose` where
:func:`why_not_move` finds no reason against (else Dask's own, or NumPy's per lane, as
before); an eager host device runs NumPy's own function.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from .._array import Array
from .._backends._numpy_ways import bound
from ._compose_linalg import common

__all__ = ["moving", "why_not_move"]


def _axes(axes: Any, ndim: int, name: str) -> list[int]:
    """NumPy's axes (an int or a sequence) as non-negative ints; NumPy's AxisError past
    the rank."""
    out = []
    for a in axes if isinstance(axes, (tuple, list)) else (axes,):
        a = operator.index(a)
        if not -ndim <= a < ndim:
            raise np.exceptions.AxisError(a, ndim, f"numpy.{name}")
        out.append(a % ndim)
    return out


def _squeeze(xp: Any, a: Array, axis: Any) -> Array:
    if axis is None:  # (every axis of size 1: a size unknown until computed is not known 1)
        axis = tuple(i for i, s in enumerate(a.shape) if s == 1)
    return xp.squeeze(a, axis=axis)


def _swapaxes(xp: Any, a: Array, axis1: Any, axis2: Any) -> Array:
    i, j = _axes((axis1, axis2), a.ndim, "swapaxes")
    order = list(range(a.ndim))
    order[i], order[j] = j, i
    return xp.permute_dims(a, tuple(order))


def _transpose(xp: Any, a: Array, axes: Any) -> Array:
    if axes is None:
        return xp.permute_dims(a, tuple(reversed(range(a.ndim))))
    return xp.permute_dims(a, tuple(axes))


def _reshape(xp: Any, a: Array, shape: Any, copy: Any) -> Array:
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    return xp.reshape(a, shape, copy=copy)


def _take(xp: Any, a: Array, indices: Array, axis: Any) -> Array:
    if axis is None:
        a, axis = xp.reshape(a, (-1,)), 0
    return xp.take(a, indices, axis=axis)


def _tensordot(xp: Any, a: Array, b: Array, axes: Any) -> Array:
    a, b = common(a, b)
    if not isinstance(axes, (int, np.integer)):
        first, second = axes
        axes = (_listed(first), _listed(second))
    return xp.tensordot(a, b, axes=axes)


def _listed(axes: Any) -> list[int]:
    return [operator.index(a) for a in (axes if isinstance(axes, (tuple, list)) else (axes,))]


def _sort(xp: Any, a: Array, axis: Any, indices: bool) -> Array:
    if axis is None:
        a, axis = xp.reshape(a, (-1,)), 0
    return (xp.argsort if indices else xp.sort)(a, axis=axis, stable=True)


#: NumPy's name -> its array parameters, and the call of the namespace's function on
#: (the namespace, the bound arguments)
_MOVES: dict[str, tuple[tuple[str, ...], Callable[[Any, dict[str, Any]], Array]]] = {
    "sort": (("a",), lambda xp, b: _sort(xp, b["a"], b["axis"], indices=False)),
    "argsort": (("a",), lambda xp, b: _sort(xp, b["a"], b["axis"], indices=True)),
    "expand_dims": (("a",), lambda xp, b: xp.expand_dims(b["a"], axis=b["axis"])),
    "squeeze": (("a",), lambda xp, b: _squeeze(xp, b["a"], b["axis"])),
    "flip": (("m",), lambda xp, b: xp.flip(b["m"], axis=b["axis"])),
    "fliplr": (("m",), lambda xp, b: xp.flip(b["m"], axis=1)),
    "flipud": (("m",), lambda xp, b: xp.flip(b["m"], axis=0)),
    "moveaxis": (("a",), lambda xp, b: xp.moveaxis(b["a"], b["source"], b["destination"])),
    "swapaxes": (("a",), lambda xp, b: _swapaxes(xp, b["a"], b["axis1"], b["axis2"])),
    "transpose": (("a",), lambda xp, b: _transpose(xp, b["a"], b["axes"])),
    "permute_dims": (("a",), lambda xp, b: _transpose(xp, b["a"], b["axes"])),
    "reshape": (("a",), lambda xp, b: _reshape(xp, b["a"], b["shape"], b["copy"])),
    "ravel": (("a",), lambda xp, b: xp.reshape(b["a"], (-1,))),
    "roll": (("a",), lambda xp, b: xp.roll(b["a"], b["shift"], axis=b["axis"])),
    "tile": (("A",), lambda xp, b: xp.tile(b["A"], tuple(np.atleast_1d(b["reps"]).tolist()))),
    "repeat": (("a", "repeats"), lambda xp, b: xp.repeat(b["a"], b["repeats"], axis=b["axis"])),
    "broadcast_to": (("array",), lambda xp, b: xp.broadcast_to(b["array"], b["shape"])),
    "tril": (("m",), lambda xp, b: xp.tril(b["m"], k=operator.index(b["k"]))),
    "triu": (("m",), lambda xp, b: xp.triu(b["m"], k=operator.index(b["k"]))),
    "take": (("a", "indices"), lambda xp, b: _take(xp, b["a"], b["indices"], b["axis"])),
    "tensordot": (("a", "b"), lambda xp, b: _tensordot(xp, b["a"], b["b"], b["axes"])),
}


def _reason(name: str, b: dict[str, Any], first: Any) -> str:
    """What of NumPy's arguments the namespace's function does not take as NumPy means
    it, past the arrays' own checks."""
    if name in ("sort", "argsort"):
        if b.get("order") is not None:
            return "order= given"
        if first.dtype.kind == "c" or first.ndim == 0:
            return "complex numbers (no order in the namespace), or a 0-d array"
        stable = b.get("stable") is True or b.get("kind") in ("stable", "mergesort")
        if name == "argsort" and not stable:  # (NumPy's introsort orders ties its own way)
            return "an argsort not asked to be stable"
    if name in ("reshape", "ravel") and b.get("order", "C") != "C":
        return f"order={b.get('order')!r}"
    if name in ("tril", "triu") and first.ndim < 2:
        return "a vector (NumPy makes it a matrix)"
    if name == "take" and (b.get("out") is not None or b.get("mode", "raise") != "raise"):
        return "out= or mode= given"
    if name == "take" and getattr(b.get("indices"), "dtype", np.dtype("f")).kind not in "iu":
        return "indices not an integer array"
    if name == "take" and b.get("axis") is None and first.ndim == 0:
        return "a 0-d array"
    if name == "repeat" and getattr(b.get("repeats"), "ndim", 0) > 1:
        return "repeats of more than one axis"
    return ""


#: the reasons :func:`_reason` gives, for the docs' table
_DESCRIBED = {
    "sort": ", or order=, or complex", "argsort": ", or order=, or complex, or not stable",
    "reshape": ", or order= other than 'C'", "ravel": ", or order= other than 'C'",
    "tril": ", or a vector", "triu": ", or a vector",
    "take": ", or out= or mode=, or indices not integers",
}  # fmt: skip


def why_not_move(name: str) -> Any:
    """A reason (for ``Unless``) to leave NumPy's ``name`` as before: its first array not
    the device's array, another not an array (a list, a scalar: where the namespace
    takes one, a Python int), a dtype outside the namespace's (float16), or an argument
    the namespace takes otherwise than NumPy (``order=``, an unstable ``argsort``, a
    vector to ``tril``...)."""
    arrays = _MOVES[name][0]

    def why(b: dict[str, Any]) -> str:
        first: Any = b.get(arrays[0])
        if not hasattr(first, "ndim") or isinstance(first, (np.ndarray, np.generic)):
            return f"{arrays[0]} not an array of the device"
        for p in arrays:
            v: Any = b.get(p)
            if p == "repeats" and type(v) is int:
                continue
            if not hasattr(v, "dtype") or isinstance(v, np.generic):
                return f"{p} not an array"
            if v.dtype.kind not in "biufc" or v.dtype == np.float16:
                return f"dtype {v.dtype}"
        return _reason(name, b, first)

    why.description = (  # type: ignore[attr-defined]
        f"{arrays[0]} not an array of the device, or "
        + (f"{' or '.join(arrays[1:])} not an array, or " if arrays[1:] else "")
        + "float16"
        + _DESCRIBED.get(name, "")
    )
    return why


@functools.cache
def moving(name: str) -> Any:
    """NumPy's ``name`` of a strict array by the namespace's function."""
    numpy = getattr(np, name)
    call = _MOVES[name][1]

    def move(*args: Any, **kwargs: Any) -> Array:
        b = bound(numpy, args, kwargs)
        xp = b[_MOVES[name][0][0]].__array_namespace__()
        return call(xp, b)

    move.__name__ = move.__qualname__ = name
    move.__doc__ = f"""NumPy's ``{name}`` by the namespace's."""
    return move
