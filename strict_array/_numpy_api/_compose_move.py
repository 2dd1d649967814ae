"""NumPy's functions that move data, written with the namespace's own, for lazy devices:
``np.sort``, ``argsort`` (stable), ``expand_dims``, ``squeeze``, ``flip``, ``fliplr``,
``flipud``, ``moveaxis``, ``swapaxes``, ``transpose``, ``permute_dims``, ``reshape``,
``ravel``, ``roll``, ``tile``, ``repeat``, ``broadcast_to``, ``tril``, ``triu``,
``take``, ``tensordot``, ``atleast_1d`` (``2d``, ``3d``), ``broadcast_arrays``,
``meshgrid``, ``diff``, ``ediff1d``, ``rollaxis``, ``rot90``, ``compress``, ``extract``,
``pad``, ``diag`` (of a matrix), ``real``, ``imag``, ``round``, ``astype``, ``copy``,
``searchsorted`` and ``isin`` of a strict array resolve to the namespace's function of
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
from ._compose_linalg import tensordot

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


def _sort(xp: Any, a: Array, axis: Any, indices: bool) -> Array:
    if axis is None:
        a, axis = xp.reshape(a, (-1,)), 0
    return (xp.argsort if indices else xp.sort)(a, axis=axis, stable=True)


def _at_least(xp: Any, arrays: Any, ndim: int) -> Any:
    from ._compose_join import at_least

    out = tuple(at_least(xp, a, ndim) for a in arrays)
    return out[0] if len(out) == 1 else out


def _aligned(xp: Any, arrays: Any) -> list[Array]:
    """The arrays with leading axes of size 1 to one rank (NumPy's broadcasting of lower
    ranks made explicit; the NumPy table's rank rule decided it first)."""
    ndim = max(a.ndim for a in arrays)
    return [xp.reshape(a, (1,) * ndim) if a.ndim == 0 else
            xp.expand_dims(a, axis=tuple(range(ndim - a.ndim))) if a.ndim < ndim else a
            for a in arrays]  # fmt: skip


def _rollaxis(xp: Any, a: Array, axis: Any, start: Any) -> Array:
    """NumPy's ``rollaxis``: ``axis`` moved to before ``start``, as NumPy's own does it."""
    n = a.ndim
    (axis,) = _axes(axis, n, "rollaxis")
    start = operator.index(start)
    if start < 0:
        start += n
    if not 0 <= start < n + 1:
        raise np.exceptions.AxisError(f"numpy.rollaxis: start={start} is out of range for {n} axes")
    if axis < start:
        start -= 1
    order = [i for i in range(n) if i != axis]
    order.insert(start, axis)
    return xp.permute_dims(a, tuple(order))


def _rot90(xp: Any, m: Array, k: Any, axes: Any) -> Array:
    """NumPy's ``rot90``: flips and a transposition of ``axes``, as NumPy's own does it."""
    first, second = _axes(tuple(axes), m.ndim, "rot90")
    k = operator.index(k) % 4
    if k == 0:
        return m
    if k == 2:
        return xp.flip(xp.flip(m, axis=first), axis=second)
    order = list(range(m.ndim))
    order[first], order[second] = second, first
    if k == 1:
        return xp.permute_dims(xp.flip(m, axis=second), tuple(order))
    return xp.flip(xp.permute_dims(m, tuple(order)), axis=second)


def _compress(xp: Any, condition: Array, a: Array, axis: Any) -> Array:
    """NumPy's ``compress``: the slices where ``condition`` is non-zero (a shorter
    condition leaves the rest out), as ``take`` of its ``nonzero``."""
    if axis is None:
        a, axis = xp.reshape(a, (-1,)), 0
    return xp.take(a, xp.nonzero(condition)[0], axis=axis)


def _extract(xp: Any, condition: Array, arr: Array) -> Array:
    flat = xp.reshape(condition, (-1,))
    return xp.take(xp.reshape(arr, (-1,)), xp.nonzero(flat)[0], axis=0)


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
    "tensordot": (("a", "b"), lambda xp, b: tensordot(b["a"], b["b"], axes=b["axes"])),
    "atleast_1d": (("arys",), lambda xp, b: _at_least(xp, b["arys"], 1)),
    "atleast_2d": (("arys",), lambda xp, b: _at_least(xp, b["arys"], 2)),
    "atleast_3d": (("arys",), lambda xp, b: _at_least(xp, b["arys"], 3)),
    "broadcast_arrays": (("args",), lambda xp, b: xp.broadcast_arrays(*_aligned(xp, b["args"]))),
    "meshgrid": (("xi",), lambda xp, b: xp.meshgrid(*b["xi"], indexing=b["indexing"])),
    "diff": (("a",), lambda xp, b: xp.diff(b["a"], axis=b["axis"], n=operator.index(b["n"]))),
    "rollaxis": (("a",), lambda xp, b: _rollaxis(xp, b["a"], b["axis"], b["start"])),
    "rot90": (("m",), lambda xp, b: _rot90(xp, b["m"], b["k"], b["axes"])),
    "compress": (
        ("a", "condition"),
        lambda xp, b: _compress(xp, b["condition"], b["a"], b["axis"]),
    ),
    "extract": (("arr", "condition"), lambda xp, b: _extract(xp, b["condition"], b["arr"])),
    "pad": (("array",), lambda xp, b: xp.pad(b["array"], b["pad_width"], b["mode"], **b["kwargs"])),
    "ediff1d": (("ary",), lambda xp, b: xp.diff(xp.reshape(b["ary"], (-1,)))),
    "diag": (("v",), lambda xp, b: xp.linalg.diagonal(b["v"], offset=operator.index(b["k"]))),
    "real": (("val",), lambda xp, b: xp.real(b["val"])),
    "imag": (("val",), lambda xp, b: xp.imag(b["val"])),
    "round": (("a",), lambda xp, b: xp.round(b["a"])),
    "around": (("a",), lambda xp, b: xp.round(b["a"])),
    "astype": (("x",), lambda xp, b: xp.astype(b["x"], np.dtype(b["dtype"]), copy=b["copy"])),
    "copy": (("a",), lambda xp, b: xp.asarray(b["a"], copy=True)),
    "searchsorted": (
        ("a", "v"),
        lambda xp, b: xp.searchsorted(b["a"], b["v"], side=b["side"], sorter=b["sorter"]),
    ),
    "isin": (
        ("element", "test_elements"),
        lambda xp, b: xp.isin(b["element"], b["test_elements"], invert=bool(b["invert"])),
    ),
}
#: the names whose arrays are NumPy's ``*args``
_VARIADIC = ("atleast_1d", "atleast_2d", "atleast_3d", "broadcast_arrays", "meshgrid")


#: the names whose namespace function takes a 0-d array as NumPy's does (NumPy's others
#: take axis 0 of a 0-d array, which the namespace refuses: NumPy's own way)
_TAKE_0D = ("atleast_1d", "atleast_2d", "atleast_3d", "expand_dims", "reshape", "ravel",
            "broadcast_to", "broadcast_arrays", "meshgrid")  # fmt: skip


def _reason(name: str, b: dict[str, Any], first: Any) -> str:
    """What of NumPy's arguments the namespace's function does not take as NumPy means
    it, past the arrays' own checks."""
    if first.ndim == 0 and name not in _TAKE_0D:
        return "a 0-d array"
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
    if name == "take" and (
        getattr(b.get("indices"), "dtype", np.dtype("f")).kind not in "iu" or b["indices"].ndim != 1
    ):
        return "indices not an integer vector"
    if name == "take" and b.get("axis") is None and first.ndim == 0:
        return "a 0-d array"
    if name == "repeat" and getattr(b.get("repeats"), "ndim", 0) > 1:
        return "repeats of more than one axis"
    if name == "broadcast_arrays" and any(s is None or s != s for v in b["args"] for s in v.shape):
        return "a size unknown until computed"  # (the namespace's broadcast_to refuses it)
    if name == "pad" and not isinstance(b.get("mode"), str):
        return "a mode that is a function"
    if name == "ediff1d" and (
        first.dtype.kind == "b" or b.get("to_end") is not None or b.get("to_begin") is not None
    ):  # (NumPy subtracts: booleans are its error)
        return "booleans, or to_end= or to_begin= given"
    if name == "diag" and first.ndim != 2:
        return "a vector (NumPy makes a matrix of it)"
    if name in ("real", "imag") and first.dtype.kind != "c":
        return "a real array (NumPy's is itself, or zeros)"
    if name in ("round", "around") and (
        b.get("decimals", 0) != 0 or b.get("out") is not None or first.dtype.kind == "b"
    ):
        return "decimals= or out= given, or booleans"
    if name == "astype" and (
        b.get("device") is not None or np.dtype(b["dtype"]).kind not in "biufc"
        or np.dtype(b["dtype"]) == np.float16
    ):  # fmt: skip
        return "device= given, or a dtype outside the namespace's"
    if name == "copy" and b.get("subok"):
        return "subok=True"
    if name in ("searchsorted", "isin"):
        other: Any = b.get(_MOVES[name][0][1])
        if other.dtype != first.dtype or "c" in (first.dtype.kind, other.dtype.kind):
            return "two dtypes (NumPy compares across them), or complex numbers"
        if name == "searchsorted" and (first.ndim != 1 or not _absent_or_array(b.get("sorter"))):
            return "a not a vector, or a sorter not an array"
        if (
            name == "searchsorted"
            and other.ndim > 1
            and any(s != s or s is None for s in other.shape)
        ):
            # (the namespace's searchsorted of such a v gave no values: NumPy's per block)
            return "v of more than one axis with a size unknown until computed"
    if name == "diff" and any(b.get(p) is not np._NoValue for p in ("prepend", "append")):
        return "prepend= or append= given"
    if name == "meshgrid" and (
        b.get("sparse") or any(v.ndim != 1 for v in b["xi"]) or len({v.dtype for v in b["xi"]}) > 1
    ):  # (NumPy's results keep each array's dtype; the namespace's take one)
        return "sparse=True, or arrays not vectors of one dtype"
    if name == "compress" and (b.get("out") is not None or b["condition"].ndim != 1):
        return "out= given, or a condition not a vector"
    if name == "rot90" and (first.ndim < 2 or len(tuple(b.get("axes", ()))) != 2):
        return "an array of fewer than two axes, or axes not two"
    return ""


#: the reasons :func:`_reason` gives, for the docs' table
_DESCRIBED = {
    "sort": ", or order=, or complex", "argsort": ", or order=, or complex, or not stable",
    "reshape": ", or order= other than 'C'", "ravel": ", or order= other than 'C'",
    "tril": ", or a vector", "triu": ", or a vector",
    "take": ", or out= or mode=, or indices not an integer vector",
    "diff": ", or prepend= or append=", "meshgrid": ", or sparse=True, or not vectors of one dtype",
    "compress": ", or out=, or a condition not a vector", "rot90": ", or fewer than two axes",
    "broadcast_arrays": ", or a size unknown until computed", "pad": ", or a mode function",
    "ediff1d": ", or booleans, or to_end= or to_begin=", "diag": ", or a vector",
    "real": ", or a real array", "imag": ", or a real array",
    "round": ", or decimals= or out=, or booleans", "around": ", or decimals= or out=, or booleans",
    "astype": ", or device=, or a dtype outside the namespace's", "copy": ", or subok=True",
    "searchsorted": ", or two dtypes, or complex numbers, or a not a vector, or v of more than "
                    "one axis with a size unknown",
    "isin": ", or two dtypes, or complex numbers",
}  # fmt: skip


def _absent_or_array(value: Any) -> bool:
    return value is None or (hasattr(value, "dtype") and not isinstance(value, np.ndarray))


def why_not_move(name: str) -> Any:
    """A reason (for ``Unless``) to leave NumPy's ``name`` as before: its first array not
    the device's array, another not an array (a list, a scalar: where the namespace
    takes one, a Python int), a dtype outside the namespace's (float16), or an argument
    the namespace takes otherwise than NumPy (``order=``, an unstable ``argsort``, a
    vector to ``tril``...)."""
    arrays = _MOVES[name][0]

    def why(b: dict[str, Any]) -> str:
        named: list[tuple[str, Any]] = (
            [(arrays[0], v) for v in b.get(arrays[0], ())] if name in _VARIADIC
            else [(p, b.get(p)) for p in arrays]
        )  # fmt: skip
        first: Any = named[0][1] if named else None
        if not hasattr(first, "ndim") or isinstance(first, (np.ndarray, np.generic)):
            return f"{arrays[0]} not an array of the device"
        for p, v in named:
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
        + ("" if name in _TAKE_0D else ", or a 0-d array")
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
        first = b[_MOVES[name][0][0]]
        xp = (first[0] if name in _VARIADIC else first).__array_namespace__()
        return call(xp, b)

    move.__name__ = move.__qualname__ = name
    move.__doc__ = f"""NumPy's ``{name}`` by the namespace's."""
    return move
