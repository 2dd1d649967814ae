"""NumPy's joins written with the namespace's own, for lazy devices: ``np.concatenate``
(``concat``), ``stack``, ``hstack``, ``vstack``, ``dstack``, ``column_stack`` and
``append`` of strict arrays resolve to the namespace's ``concat`` and ``stack`` of the
arrays' device (on ``DASK``: right over sizes unknown until computed and empty blocks,
each array's blocks kept), with NumPy's result dtype, ``dtype=`` and ``casting=``.

NumPy's function on one-element stand-ins of the arrays' ranks and dtypes (no data)
gives the result's dtype and NumPy's own errors of ranks, axes and casting; the
namespace's function checks the sizes.

Rows of the table (:mod:`._table`) name them with :class:`~._table.Compose` where
:func:`why_not_join` finds no reason against (else Dask's own, as before); an eager host
device runs NumPy's own function.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from .._array import Array
from .._backends._numpy_ways import bound

__all__ = ["at_least", "joining", "why_not_join"]

#: NumPy's name -> its parameter holding the arrays (a sequence), where not ``arrays``
_SEQUENCE = {"hstack": "tup", "vstack": "tup", "dstack": "tup", "column_stack": "tup"}
#: NumPy's parameters passed to its function on the stand-ins (axes, dtype, casting)
_PROBED = ("axis", "dtype", "casting")


def _arrays(name: str, b: dict[str, Any]) -> Any:
    """The arrays joined: the sequence, or ``append``'s two arguments."""
    if name == "append":
        return [b.get("arr"), b.get("values")]
    return b.get(_SEQUENCE.get(name, "arrays"))


def why_not_join(name: str) -> Any:
    """A reason (for ``Unless``) to leave NumPy's ``name`` to Dask's own: the arrays are
    not a non-empty sequence of arrays (NumPy's or the device's; a list of numbers, a
    scalar is NumPy's to read), or one is of a dtype outside the namespace's (float16),
    or ``out=`` is given."""

    def why(b: dict[str, Any]) -> str:
        arrays = _arrays(name, b)
        if not isinstance(arrays, (list, tuple)) or not arrays:
            return "not a sequence of arrays"
        for a in arrays:
            if not hasattr(a, "ndim") or not hasattr(a, "dtype") or isinstance(a, np.generic):
                return "not a sequence of arrays"
            if a.dtype.kind not in "biufc" or a.dtype == np.float16:
                return f"dtype {a.dtype}"
        if b.get("out") is not None:
            return "out= given"
        return ""

    why.description = "not a sequence of arrays, or float16, or out= given"  # type: ignore[attr-defined]
    return why


def at_least(xp: Any, a: Array, ndim: int) -> Array:
    """NumPy's ``atleast_1d``, ``atleast_2d`` or ``atleast_3d`` of one array: a vector
    ``(n,)`` becomes ``(1, n)`` and ``(1, n, 1)``, a matrix ``(m, n, 1)``."""
    if a.ndim >= ndim:
        return a
    if a.ndim == 0:
        return xp.reshape(a, (1,) * ndim)
    if a.ndim == 1:
        a = xp.expand_dims(a, axis=0)
    return a if a.ndim == ndim else xp.expand_dims(a, axis=-1)


@functools.cache
def joining(name: str) -> Any:
    """NumPy's join ``name`` of strict arrays by the namespace's ``concat`` or ``stack``:
    each array cast to NumPy's result dtype first (NumPy's ``dtype=`` and ``casting=``
    checked by NumPy)."""
    numpy = getattr(np, name)

    def join(*args: Any, **kwargs: Any) -> Array:
        b = bound(numpy, args, kwargs)
        arrays: list[Array] = list(_arrays(name, b))
        xp = arrays[0].__array_namespace__()
        probe = {k: b[k] for k in _PROBED if k in b}
        stand_ins = [np.zeros((1,) * a.ndim, a.dtype) for a in arrays]
        if name == "append":
            dtype = numpy(*stand_ins, **probe).dtype
        else:
            dtype = numpy(stand_ins, **probe).dtype
        arrays = [a if a.dtype == dtype else xp.astype(a, dtype) for a in arrays]
        if name in ("concatenate", "concat"):
            return xp.concat(arrays, axis=b["axis"])
        if name == "append":  # (axis=None flattens both, as NumPy's)
            return xp.concat(arrays, axis=b["axis"])
        if name == "stack":
            return xp.stack(arrays, axis=b["axis"])
        if name == "column_stack":
            columns = [xp.reshape(a, (1, 1)) if a.ndim == 0 else a for a in arrays]
            columns = [xp.expand_dims(a, axis=1) if a.ndim == 1 else a for a in columns]
            return xp.concat(columns, axis=1)
        if name == "vstack":
            return xp.concat([at_least(xp, a, 2) for a in arrays], axis=0)
        if name == "dstack":
            return xp.concat([at_least(xp, a, 3) for a in arrays], axis=2)
        arrays = [at_least(xp, a, 1) for a in arrays]  # hstack
        return xp.concat(arrays, axis=0 if arrays[0].ndim == 1 else 1)

    join.__name__ = join.__qualname__ = name
    join.__doc__ = f"""NumPy's ``{name}`` by the namespace's ``concat`` or ``stack``."""
    return join
