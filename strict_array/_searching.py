"""Searching functions."""

from __future__ import annotations

from typing import Any

from . import _policy as policy
from ._array import (
    Array,
    as_scalar,
    common_device,
    expect_array,
    operands_on_one_device,
    result,
)
from ._broadcasting import normalize_axes, normalize_axis
from ._dtypes import check_array_category
from ._errors import ARRAY_OR_SCALAR
from ._flags import refuse_data_dependent
from ._statistical import check_nonempty
from ._typing import Scalar


def _arg_reduce(op: str, x: Array, axis: int | None, keepdims: bool) -> Array:
    if type(x) is not Array:
        expect_array(op, x)
    check_array_category(op, x)
    if axis is None:
        check_nonempty(op, x.shape, normalize_axes(op, None, x._ndim))
        backend_axis = None
    else:
        backend_axis = normalize_axis(op, axis, x._ndim)
        check_nonempty(op, x.shape, (backend_axis,))
    dev = x._device
    return result(
        dev.index_result(dev.function(op)(x._data, axis=backend_axis, keepdims=keepdims)), dev
    )


def argmax(x: Array, /, *, axis: int | None = None, keepdims: bool = False) -> Array:
    """Index of the first maximum along ``axis`` (of the flattened array if None).

    Parameters
    ----------
    x : Array
    axis : int, optional
    keepdims : bool, default False

    Returns
    -------
    Array
        Of the default indexing dtype (int64).
    """
    return _arg_reduce("argmax", x, axis, keepdims)


def argmin(x: Array, /, *, axis: int | None = None, keepdims: bool = False) -> Array:
    """Index of the first minimum along ``axis`` (of the flattened array if None).

    Parameters
    ----------
    x : Array
    axis : int, optional
    keepdims : bool, default False

    Returns
    -------
    Array
        Of the default indexing dtype (int64).
    """
    return _arg_reduce("argmin", x, axis, keepdims)


def count_nonzero(
    x: Array, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False
) -> Array:
    """Number of non-zero elements along ``axis`` (default dtype int64).

    Parameters
    ----------
    x : Array
    axis : int or tuple of int, optional
    keepdims : bool, default False

    Returns
    -------
    Array
    """
    x = expect_array("count_nonzero", x)
    axes = normalize_axes("count_nonzero", axis, x.ndim)
    data = x._device.ns.count_nonzero(
        x._data, axis=None if axis is None else axes, keepdims=keepdims
    )
    return result(x._device.index_result(data), x._device)


def nonzero(x: Array, /) -> tuple[Array, ...]:
    """Indices of the non-zero elements, one array per axis (``x`` at least 1-D).

    On a lazy device the result has an unknown size (``None`` in ``shape``).
    """
    x = expect_array("nonzero", x)
    refuse_data_dependent("nonzero")
    if x.ndim == 0:
        raise ValueError("nonzero: x must be at least 1-D; use bool(x) or x[None].")
    dev = x._device
    return tuple(result(dev.index_result(i), dev) for i in dev.ns.nonzero(x._data))


def searchsorted(
    x1: Array,
    x2: Array | int | float,
    /,
    *,
    side: str = "left",
    sorter: Array | None = None,
) -> Array:
    """Indices at which ``x2`` would be inserted into the sorted 1-D ``x1``."""
    x1 = expect_array("searchsorted", x1, "x1")
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}.")
    dev = x1._device
    if type(x2) is Array:
        common_device("searchsorted", (x1, x2))
        v = x2._data
    else:
        v = as_scalar("searchsorted (x2)", x2, ARRAY_OR_SCALAR)
    s = None
    if sorter is not None:
        common_device("searchsorted", (x1, sorter))
        s = sorter._data
    return result(dev.index_result(dev.ns.searchsorted(x1._data, v, side=side, sorter=s)), dev)


def where(condition: Array, x1: Array | Scalar, x2: Array | Scalar, /) -> Array:
    """Elements of ``x1`` where ``condition`` is True, else of ``x2``.

    Parameters
    ----------
    condition : Array
        Boolean.
    x1, x2 : Array or Python scalar
        At least one must be an array. Arrays follow the strict rank rule with
        ``condition`` (equal ranks with size-1 broadcasting; 0-d arrays broadcast
        freely).

    Returns
    -------
    Array

    Raises
    ------
    RankPromotionError
        Arrays of different ranks (mode ``"raise"``).
    """
    if type(condition) is not Array:
        expect_array("where", condition, "condition")
    dev = condition._device
    c = condition._data
    if dev.dtype(c).kind != "b":
        raise TypeError(
            f"where: condition must be a boolean strict_array.Array, got dtype {condition.dtype}."
        )
    arrays1, arrays2 = type(x1) is Array, type(x2) is Array
    if not arrays1 and not arrays2:
        raise TypeError(
            "where: at least one of x1 and x2 must be a strict_array.Array (the other may "
            f"be a Python scalar), got {type(x1).__name__} and {type(x2).__name__}."
        )
    a1: Any = x1  # (an Array where arrays1 says so)
    a2: Any = x2
    if (not arrays1 or a1._device is dev) and (not arrays2 or a2._device is dev):
        # the arrays on one device (what operands_on_one_device gives then): the rank
        # rule, then the scalars
        shape = dev.shape
        if arrays1 and arrays2:
            first, second = a1._data, a2._data
            policy.operands("where", shape(c), shape(first), shape(second))
        elif arrays1:
            first = a1._data
            policy.operands("where", shape(c), shape(first))
            second = as_scalar("where (x2)", x2, ARRAY_OR_SCALAR)
        else:
            second = a2._data
            policy.operands("where", shape(c), shape(second))
            first = as_scalar("where (x1)", x1, ARRAY_OR_SCALAR)
        return result(dev.function("where")(c, first, second), dev)
    # arrays on several devices: a 0-d host array among them acts as a scalar
    arrays = [condition] + [a for a in (x1, x2) if type(a) is Array]
    policy.operands("where", *(a.shape for a in arrays))
    dev, datas = operands_on_one_device("where", arrays)
    rest = iter(datas[1:])
    first = next(rest) if type(x1) is Array else as_scalar("where (x1)", x1, ARRAY_OR_SCALAR)
    second = next(rest) if type(x2) is Array else as_scalar("where (x2)", x2, ARRAY_OR_SCALAR)
    return result(dev.function("where")(datas[0], first, second), dev)
