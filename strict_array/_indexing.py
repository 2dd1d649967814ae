"""Indexing: ``x[key]``, ``x[key] = value``, ``take`` and ``take_along_axis``."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from ._array import _BASIC_INDEX_TYPES, Array, common_device, result
from ._elementwise import as_scalar, check_ranks, mixed_devices


def _key(op: str, x: Array, key: Any) -> Any:
    """Unwrap Array indices; refuse raw arrays and lists (say how to fix)."""
    parts = key if type(key) is tuple else (key,)
    out = []
    for k in parts:
        if type(k) is Array:
            if k._device is not x._device:
                raise mixed_devices(op, x._device, k._device)
            if k.dtype.kind not in "biu":
                raise IndexError(f"{op}: index arrays must be integer or boolean, got {k.dtype}.")
            out.append(k._data)
        elif type(k) is slice:
            # bounds may be 0-d integer Arrays (anything with __index__)
            out.append(
                slice(
                    *(None if b is None else operator.index(b) for b in (k.start, k.stop, k.step))
                )
            )
        elif type(k) in _BASIC_INDEX_TYPES:
            out.append(k)
        elif isinstance(k, np.integer):
            out.append(int(k))
        elif isinstance(k, bool):
            raise IndexError(
                f"{op}: a Python bool is not a valid index; use a boolean Array of the "
                "indexed shape."
            )
        elif hasattr(k, "__index__") and not hasattr(k, "shape"):
            out.append(k.__index__())
        else:
            raise IndexError(
                f"{op}: unsupported index {type(k).__name__} {k!r}; use ints, slices, "
                "Ellipsis, None, or integer/boolean strict_array Arrays (convert lists and "
                "NumPy arrays with strict_array.asarray)."
            )
    return tuple(out) if type(key) is tuple else out[0]


def getitem(x: Array, key: Any) -> Array:
    """``x[key]``: basic, integer-array and boolean indexing."""
    return result(x._device.getitem(x._data, _key("__getitem__", x, key)), x._device)


def setitem(x: Array, key: Any, value: Any) -> None:
    """``x[key] = value``: ``value`` meets the selected region under the rank rule.

    The value's dtype must promote to ``x``'s dtype (no silent casts, e.g. a
    float into an integer array).
    """
    op = "__setitem__"
    k = _key(op, x, key)
    dev = x._device
    if type(value) is Array:
        if value._device is not dev:
            raise mixed_devices(op, dev, value._device)
        region = result(dev.getitem(x._data, k), dev)
        check_ranks(op, region, value)
        if np.result_type(x.dtype, value.dtype) != x.dtype:
            raise TypeError(
                f"{op}: cannot store values of dtype {value.dtype} into an array of dtype "
                f"{x.dtype} without a lossy cast; use astype on the value first."
            )
        v = value._data
    else:
        v = as_scalar(op, value)
        _check_scalar_kind(op, x.dtype, v)
    x._data = dev.assign(x._data, k, v)


def _check_scalar_kind(op: str, dtype: np.dtype, v: Any) -> None:
    # kinds of array a Python scalar may be stored into without changing its meaning
    allowed = {
        "b": (bool,),
        "i": (int,),
        "u": (int,),
        "f": (int, float),
        "c": (int, float, complex),
    }
    if type(v) not in allowed[dtype.kind] and not (type(v) is bool and dtype.kind in "iufc"):
        raise TypeError(
            f"{op}: cannot store a Python {type(v).__name__} into an array of dtype "
            f"{dtype}; convert the value or the array (astype) first."
        )


def take(x: Array, indices: Array, /, *, axis: int | None = None) -> Array:
    """Elements of ``x`` at integer ``indices`` along ``axis`` (required unless ``x`` is 1-D)."""
    dev = common_device("take", (x, indices))
    if axis is None:
        if x.ndim != 1:
            raise ValueError(f"take: axis is required for a {x.ndim}-D array.")
        axis = 0
    return result(dev.ns.take(x._data, indices._data, axis=axis), dev)


def take_along_axis(x: Array, indices: Array, /, *, axis: int = -1) -> Array:
    """Elements of ``x`` at ``indices`` along ``axis``; ``indices`` has ``x``'s rank."""
    dev = common_device("take_along_axis", (x, indices))
    if indices.ndim != x.ndim:
        raise ValueError(
            f"take_along_axis: indices of shape {indices.shape} must have the rank of x {x.shape}."
        )
    return result(dev.ns.take_along_axis(x._data, indices._data, axis=axis), dev)
