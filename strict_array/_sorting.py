"""Sorting functions (on ``DASK``, sorting along an axis gathers that axis into one chunk)."""

from __future__ import annotations

from ._array import Array, expect_array, result


def argsort(x: Array, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> Array:
    """Indices that sort ``x`` along ``axis`` (stable by default)."""
    x = expect_array("argsort", x)
    data = x._device.ns.argsort(x._data, axis=axis, descending=descending, stable=stable)
    return result(data, x._device)


def sort(x: Array, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> Array:
    """Sorted copy of ``x`` along ``axis`` (NaNs last)."""
    x = expect_array("sort", x)
    data = x._device.ns.sort(x._data, axis=axis, descending=descending, stable=stable)
    return result(data, x._device)
