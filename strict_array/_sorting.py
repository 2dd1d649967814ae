"""Sorting functions (on ``DASK``, sorting along an axis gathers that axis into one chunk)."""

from __future__ import annotations

from ._array import Array, expect_array, result
from ._broadcasting import normalize_axis
from ._dtypes import check_category


def _sort(op: str, x: Array, axis: int, descending: bool, stable: bool) -> Array:
    x = expect_array(op, x)
    check_category(op, x.dtype)
    axis = normalize_axis(op, axis, x.ndim)
    dev = x._device
    data = getattr(dev.ns, op)(x._data, axis=axis, descending=descending, stable=stable)
    return result(dev.index_result(data) if op == "argsort" else data, dev)


def argsort(x: Array, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> Array:
    """Indices that sort ``x`` along ``axis``.

    Parameters
    ----------
    x : Array
    axis : int, default -1
    descending : bool, default False
    stable : bool, default True
        Equal elements keep their order.

    Returns
    -------
    Array
        Of the default indexing dtype (int64).
    """
    return _sort("argsort", x, axis, descending, stable)


def sort(x: Array, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> Array:
    """Sorted copy of ``x`` along ``axis`` (NaNs last).

    Parameters
    ----------
    x : Array
    axis : int, default -1
    descending : bool, default False
    stable : bool, default True
        Equal elements keep their order.

    Returns
    -------
    Array
    """
    return _sort("sort", x, axis, descending, stable)
