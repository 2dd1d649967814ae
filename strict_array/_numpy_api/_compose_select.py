"""NumPy's selections written with the namespace's own, for lazy devices: ``np.where``
(of three arguments, and of a condition alone), ``clip``, ``nonzero``, ``argwhere`` and
``flatnonzero`` of strict arrays resolve to the namespace's ``where``, ``clip`` and
``nonzero`` of the arrays' device (on ``DASK``: block by block over sizes unknown until
computed, where NumPy's function per block needed those axes whole), with NumPy's
result dtype, NumPy's truth of a condition that is not boolean (non-zero), and NumPy's
broadcasting of lower ranks (the NumPy table's rank rule decided it first).

NumPy's function on one-element stand-ins of the arguments' ranks and dtypes (Python
scalars as they are: NumPy's weak scalars) gives the result's dtype and NumPy's own
errors of dtypes (an integer out of an unsigned dtype's range).

Rows of the table (:mod:`._table`) name them with :class:`~._table.Compose` where
:func:`why_not_select` finds no reason against (else NumPy's function per block, or
Dask's own, as before); an eager host device runs NumPy's own function.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from .._array import Array
from .._backends._numpy_ways import bound

__all__ = ["selecting", "why_not_select"]

#: NumPy's name -> its parameters that take an array or a Python scalar
_OPERANDS = {"where": ("condition", "x", "y"), "clip": ("a", "a_min", "a_max", "min", "max"),
             "nonzero": ("a",), "argwhere": ("a",), "flatnonzero": ("a",)}  # fmt: skip
_SCALARS = (bool, int, float, complex)


def _absent(value: Any) -> bool:
    return value is None or value is np._NoValue


def why_not_select(name: str) -> Any:
    """A reason (for ``Unless``) to leave NumPy's ``name`` as before: an operand is not an
    array (NumPy's or the device's) or a Python scalar, or is of a dtype outside the
    namespace's (float16); the first operand is not the device's array; ``out=`` or a
    ufunc keyword is given (``clip``); ``clip`` of booleans or complex numbers (no
    order); ``nonzero`` of a 0-d array (NumPy's error). (``where`` with one of ``x``
    and ``y`` is NumPy's error, raised when built.)"""
    operands = _OPERANDS[name]

    def why(b: dict[str, Any]) -> str:
        first: Any = b.get(operands[0])
        if not hasattr(first, "ndim") or isinstance(first, (np.ndarray, np.generic)):
            return f"{operands[0]} not an array of the device"
        for p in operands:
            v: Any = b.get(p)
            if _absent(v) or type(v) in _SCALARS:
                continue
            if not hasattr(v, "dtype") or isinstance(v, np.generic):
                return f"{p} not an array or a Python scalar"
            if v.dtype.kind not in "biufc" or v.dtype == np.float16:
                return f"dtype {v.dtype}"
        if b.get("out") is not None or b.get("kwargs"):
            return "out= or a ufunc keyword given"
        if name == "clip" and first.dtype.kind not in "iuf":
            return f"clip of dtype {first.dtype}"
        if name in ("nonzero", "flatnonzero", "argwhere") and first.ndim == 0:
            return "a 0-d array"
        if name == "where" and _absent(b.get("x")) and first.ndim == 0:
            return "a 0-d array"
        return ""

    parts = [f"{operands[0]} not an array of the device", "an operand not an array or a Python "
             "scalar", "float16"]  # fmt: skip
    parts += {"clip": ["out= or a ufunc keyword", "booleans or complex numbers"],
              "where": ["a 0-d condition alone"]}.get(name, ["a 0-d array"])  # fmt: skip
    why.description = ", or ".join(parts)  # type: ignore[attr-defined]
    return why


def _stand_in(v: Any) -> Any:
    """One element of ``v``'s rank and dtype; a Python scalar (or None) as it is."""
    return v if v is None or type(v) in _SCALARS else np.zeros((1,) * v.ndim, v.dtype)


def _operand(xp: Any, v: Any, dtype: np.dtype, ndim: int, device: Any) -> Array:
    """``v`` in ``dtype`` and of rank ``ndim`` (NumPy's broadcasting of a lower rank made
    explicit: leading axes of size 1; a 0-d array broadcasts as it is)."""
    a: Array = xp.asarray(v, dtype=dtype, device=device) if type(v) in _SCALARS else v
    if a.dtype != dtype:
        a = xp.astype(a, dtype)
    if 0 < a.ndim < ndim:
        a = xp.expand_dims(a, axis=tuple(range(ndim - a.ndim)))
    return a


@functools.cache
def selecting(name: str) -> Any:
    """NumPy's ``name`` of strict arrays by the namespace's ``where``, ``clip`` or
    ``nonzero``."""
    numpy = getattr(np, name)

    def select(*args: Any, **kwargs: Any) -> Any:
        b = bound(numpy, args, kwargs)
        first: Array = b[_OPERANDS[name][0]]
        xp = first.__array_namespace__()
        if name == "nonzero" or (name == "where" and _absent(b.get("x"))):
            return xp.nonzero(first)
        if name == "flatnonzero":
            return xp.nonzero(xp.reshape(first, (-1,)))[0]
        if name == "argwhere":
            return xp.stack(xp.nonzero(first), axis=-1)
        given = {p: b[p] for p in _OPERANDS[name] if b.get(p) is not np._NoValue}
        if name == "where":  # (positional only; one of x and y alone: NumPy's error)
            dtype = numpy(*(_stand_in(v) for v in given.values() if v is not None)).dtype
        else:
            dtype = numpy(**{p: _stand_in(v) for p, v in given.items()}).dtype
        ndim = max(getattr(v, "ndim", 0) for v in given.values())
        if name == "where":
            condition = first if first.dtype == xp.bool else first != 0  # (NumPy's truth)
            x, y = (_operand(xp, b[p], dtype, ndim, first.device) for p in ("x", "y"))
            if 0 < condition.ndim < ndim:
                condition = xp.expand_dims(condition, axis=tuple(range(ndim - condition.ndim)))
            return xp.where(condition, x, y)
        lo = b["min"] if _absent(b.get("a_min")) else b["a_min"]
        hi = b["max"] if _absent(b.get("a_max")) else b["a_max"]
        bounds = [None if _absent(v) else _operand(xp, v, dtype, ndim, first.device)
                  for v in (lo, hi)]  # fmt: skip
        return xp.clip(_operand(xp, first, dtype, ndim, first.device), *bounds)

    select.__name__ = select.__qualname__ = name
    select.__doc__ = f"""NumPy's ``{name}`` by the namespace's."""
    return select
