"""NumPy's reductions and running totals written with the namespace's own functions, for
lazy devices: ``np.sum``, ``prod``, ``mean``, ``std``, ``var``, ``max``, ``min``,
``argmax``, ``argmin``, their NaN-skipping variants, ``all``, ``any``,
``count_nonzero``, ``ptp`` (``max - min``), ``average`` (unweighted: ``mean``), ``cumsum``, ``cumprod``, ``nancumsum``,
``nancumprod``, ``cumulative_sum`` and ``cumulative_prod`` of one array resolve to the
namespace's reductions of
the array's device, with NumPy's defaults, dtype rules and values (to rounding). On
``DASK`` those are repaired where Dask's own are wrong: unknown sizes, empty blocks,
the first of equal values for ``argmax``, variance over empty blocks (dask/dask#3906).

Rows of the table (:mod:`._table`) name them with :class:`~._table.Compose`, each where
its arguments are ones the namespace takes (:func:`why_not_reduction` says where not:
then Dask's own or NumPy's per lane, as before); an eager host device runs NumPy's own
function.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

import numpy as np

from .._array import Array
from .._backends._numpy_ways import bound

__all__ = ["reduction", "why_not_reduction"]

#: NumPy's name -> the namespace's
_NAMESPACE = {"amax": "max", "amin": "min", "average": "mean", "cumsum": "cumulative_sum",
              "cumprod": "cumulative_prod"}  # fmt: skip
#: NumPy's name of the array parameter, where not ``a``
_ARRAY = {"cumulative_sum": "x", "cumulative_prod": "x"}
#: reductions whose result's dtype is not the input's accumulated: no cast first
_UNCAST = ("arg", "max", "min", "all", "any", "count_nonzero", "ptp")
#: running totals: an array of at least one axis; ``axis=None`` flattens (``cumsum``) or
#: takes a vector only (``cumulative_sum``, as NumPy's)
_RUNNING = ("cumsum", "cumprod", "cumulative_sum", "cumulative_prod")
#: the dtype kinds each reduction takes in the namespace as NumPy computes them (a
#: complex variance is real, complex numbers have no order, booleans have no moments)
_KINDS = {"std": "iuf", "var": "iuf", "max": "iuf", "min": "iuf", "argmax": "iuf",
          "argmin": "iuf", "ptp": "iuf"}  # fmt: skip
_MOMENTS = ("mean", "std", "var")
#: NumPy's parameters the namespace has no counterpart of: given, NumPy's own way
_UNSHARED = ("out", "where", "initial", "mean", "correction")


def _base(name: str) -> str:
    name = _NAMESPACE.get(name, name)
    return name[3:] if name.startswith("nan") else name


def why_not_reduction(name: str) -> Any:
    """A reason (for ``Unless``) to leave NumPy's ``name`` to Dask's own function or to
    NumPy per lane: its array is not one array of the device, of a dtype kind the
    namespace's reduction takes as NumPy computes it (not float16: NumPy accumulates it
    in float32); or one of ``out=``, ``where=``, ``initial=``, ``mean=``,
    ``correction=`` is given; or a 0-d array along an axis (NumPy's axis 0 or -1)."""
    kinds = _KINDS.get(_base(name), "biufc")
    array = _ARRAY.get(name, "a")

    def why(b: dict[str, Any]) -> str:
        a: Any = b.get(array)
        dtype = getattr(a, "dtype", None)
        if dtype is None or not hasattr(a, "ndim") or isinstance(a, (np.ndarray, np.generic)):
            return f"{array} not an array of the device"
        if name == "average" and (b.get("weights") is not None or b.get("returned")):
            # (NumPy raises ZeroDivisionError where the weights sum to zero: a check of
            # the values no function of the namespace makes)
            return "weights= or returned= given"
        given = [
            p
            for p in _UNSHARED  # (by identity: where= may be an array)
            if not any(b.get(p) is v for v in (None, np._NoValue, True))
        ]
        if given:
            return f"{given[0]}= given"
        for d in (dtype, b.get("dtype")):
            if d is not None and (np.dtype(d).kind not in kinds or np.dtype(d) == np.float16):
                return f"dtype {np.dtype(d)}"
        if _base(name) in _MOMENTS and np.dtype(b.get("dtype") or "f8").kind not in "fc":
            return "an integer dtype="  # (NumPy's mean cast to it, unsafe)
        if a.ndim == 0 and b.get("axis") is not None:  # (NumPy's axis 0 of a 0-d array)
            return "a 0-d array along an axis"
        if name in ("cumulative_sum", "cumulative_prod") and (
            a.ndim == 0 or (a.ndim > 1 and b.get("axis") is None)
        ):  # (NumPy's own error)
            return "a 0-d array, or axis=None of an array of more than one axis"
        return ""

    params = inspect.signature(getattr(np, name)).parameters
    parts = [
        f"{array} not an array of the device",
        "weights= or returned= (NumPy's error where the weights sum to zero)"
        if name == "average"
        else "",
        " or ".join(f"{p}=" for p in _UNSHARED if p in params),
    ]
    if _base(name) in _MOMENTS and "dtype" in params:
        parts.append("an integer dtype=")
    parts.append("float16" + ("" if kinds == "biufc" else " or a complex or boolean array"))
    parts.append("a 0-d array along an axis")
    if name in ("cumulative_sum", "cumulative_prod"):
        parts.append("axis=None of an array of more than one axis")
    why.description = ", or ".join(p for p in parts if p)  # type: ignore[attr-defined]
    return why


@functools.cache
def reduction(name: str) -> Any:
    """NumPy's reduction or running total ``name`` of one strict array by the namespace's
    function: the array first cast to NumPy's result dtype (integers sum in int64, their
    mean is a float64), then NumPy's axes and ``keepdims`` (``ddof`` as ``correction``)."""
    numpy = getattr(np, name)
    base = _base(name)
    own = _NAMESPACE.get(name, name)

    def reduce(*args: Any, **kwargs: Any) -> Array:
        b = bound(numpy, args, kwargs)
        a: Array = b[_ARRAY.get(name, "a")]
        xp = a.__array_namespace__()
        axis, dtype = b.get("axis"), b.get("dtype")
        keepdims = b.get("keepdims", False) is True
        options = {"dtype": dtype} if dtype is not None else {}
        if base in _RUNNING:
            result = numpy(np.ones((1,) * a.ndim, a.dtype), axis=axis, **options).dtype
        elif base.startswith(("arg", "count_nonzero")):
            result = np.dtype(np.intp)
        else:  # (NumPy's dtype rules, read from its function on one element)
            result = numpy(np.ones((1,) * a.ndim, a.dtype), **options).dtype
        if not base.startswith(_UNCAST):
            accumulate = result if base not in ("std", "var") or dtype is not None else None
            if accumulate is None and a.dtype.kind in "biu":
                accumulate = np.dtype(np.float64)
            if accumulate is not None and a.dtype != accumulate:
                a = xp.astype(a, accumulate)
        call: dict[str, Any] = {}
        if name in ("cumsum", "cumprod"):
            if axis is None:
                a, axis = xp.reshape(a, (-1,)), 0
            return getattr(xp, own)(a, axis=axis)
        if name in ("nancumsum", "nancumprod"):
            return getattr(xp, own)(a, axis=axis)
        if name in ("cumulative_sum", "cumulative_prod"):
            return getattr(xp, own)(a, axis=axis, include_initial=bool(b["include_initial"]))
        if name == "ptp":
            high = xp.max(a, axis=axis, keepdims=keepdims)
            return high - xp.min(a, axis=axis, keepdims=keepdims)
        if base in ("std", "var"):
            ddof = b.get("ddof", 0)  # (NumPy's ddof: the standard's correction)
            call = (
                ({"ddof": ddof} if ddof else {}) if name.startswith("nan") else {"correction": ddof}
            )
        out = getattr(xp, own)(a, axis=axis, keepdims=keepdims, **call)
        return out if out.dtype == result else xp.astype(out, result)

    reduce.__name__ = reduce.__qualname__ = name
    reduce.__doc__ = f"""NumPy's ``{name}`` by the namespace's ``{own}``."""
    return reduce
