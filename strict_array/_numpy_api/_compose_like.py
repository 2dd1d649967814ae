"""NumPy's ``zeros_like``, ``ones_like``, ``empty_like`` and ``full_like`` of a strict
array written with the namespace's own, for lazy devices: the same dtype rules and
values, and on ``DASK`` an array the planner knows as a constant (made again where
needed, never held), in the blocks of the array given.

Rows of the table (:mod:`._table`) name them with :class:`~._table.Compose` where
:func:`why_not_like` finds no reason against (else Dask's own, as before).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from .._array import Array
from .._backends._numpy_ways import bound

__all__ = ["like", "why_not_like"]

#: the fill values' kinds each dtype kind takes as NumPy casts them (a float into an
#: integer array is truncated, a negative into an unsigned one wraps: left to NumPy)
_FILL_KINDS = {"b": "b", "i": "bi", "u": "b", "f": "biuf", "c": "biufc"}


def _array_argument(name: str) -> str:
    return "prototype" if name == "empty_like" else "a"


def why_not_like(name: str) -> Any:
    """A reason (for ``Unless``) to leave NumPy's ``name`` to Dask's own: its array is not
    one array of the device, ``shape=`` or ``device=`` is given, the dtype is not one of
    the namespace's, or ``full_like``'s fill value is not a scalar its dtype holds as
    it is (a float into integers, a negative or ``True`` into unsigned ones...)."""
    array = _array_argument(name)

    def why(b: dict[str, Any]) -> str:
        a: Any = b.get(array)
        if not hasattr(a, "ndim") or isinstance(a, (np.ndarray, np.generic)):
            return f"{array} not an array of the device"
        for p in ("shape", "device"):
            if b.get(p) is not None:
                return f"{p}= given"
        dtype = np.dtype(b.get("dtype") or a.dtype)
        if dtype.kind not in _FILL_KINDS or dtype == np.float16:
            return f"dtype {dtype}"
        if name == "full_like":
            fill: Any = b.get("fill_value")
            kind = np.asarray(fill).dtype.kind if np.ndim(fill) == 0 else "O"
            if kind not in _FILL_KINDS[dtype.kind] or (dtype.kind == "u" and fill is True):
                return "fill_value not a scalar of the dtype's kind"
            if dtype.kind in "iu" and not (np.iinfo(dtype).min <= int(fill) <= np.iinfo(dtype).max):
                return "fill_value outside the dtype's range"
        return ""

    parts = [f"{array} not an array of the device", "shape= or device=", "float16"]
    if name == "full_like":
        parts.append("fill_value not a scalar the dtype holds as it is")
    why.description = ", or ".join(parts)  # type: ignore[attr-defined]
    return why


@functools.cache
def like(name: str) -> Any:
    """NumPy's ``name`` of one strict array by the namespace's function of that name, in
    the array's dtype unless ``dtype=`` is given."""
    numpy = getattr(np, name)

    def make(*args: Any, **kwargs: Any) -> Array:
        b = bound(numpy, args, kwargs)
        a: Array = b[_array_argument(name)]
        xp = a.__array_namespace__()
        dtype = np.dtype(b.get("dtype") or a.dtype)
        fill = (np.asarray(b["fill_value"]).astype(dtype).item(),) if name == "full_like" else ()
        return getattr(xp, name)(a, *fill, dtype=dtype)

    make.__name__ = make.__qualname__ = name
    make.__doc__ = f"""NumPy's ``{name}`` by the namespace's."""
    return make
