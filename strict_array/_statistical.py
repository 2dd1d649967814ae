"""Statistical and utility (``all``, ``any``, ``diff``) functions."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _flags
from ._array import Array, common_device, expect_array, result
from ._broadcasting import normalize_axes, normalize_axis
from ._dtypes import as_dtype, check_array_category
from ._typing import Axis, DTypeLike


def _reduce(op: str, x: Array, axis: Axis, keepdims: bool, **kwargs: Any) -> Array:
    """A reduction over ``axis``: axes validated here, the rest by the backend."""
    if type(x) is not Array:
        expect_array(op, x)
    check_array_category(op, x)
    axes = normalize_axes(op, axis, x._ndim)
    if op in _NO_IDENTITY:
        check_nonempty(op, x.shape, axes)
    dev = x._device
    backend_axis = None if axis is None else axes
    return result(dev.function(op)(x._data, axis=backend_axis, keepdims=keepdims, **kwargs), dev)


#: reductions without an identity: an empty reduced axis has no result
_NO_IDENTITY = {"max": "maximum", "min": "minimum", "argmax": "argmax", "argmin": "argmin"}


def check_nonempty(op: str, shape: tuple[int | None, ...], axes: tuple[int, ...]) -> None:
    """A reduction without an identity (max, argmax, ...) over an axis of known size 0
    is an error when built, as NumPy raises it (on a lazy device it would wait)."""
    if 0 not in shape:
        return
    empty = [a for a in axes if shape[a] == 0]
    if empty:
        raise ValueError(
            f"{op}: cannot reduce axis {empty[0]} of shape {shape}, which is empty: "
            f"{op} has no identity (NumPy: zero-size array to reduction operation "
            f"{_NO_IDENTITY[op]} which has no identity)."
        )


_REDUCTION_DOC = """{summary}

    Parameters
    ----------
    x : Array
    axis : int or tuple of int, optional
        The axes to reduce; all by default.
    {extra}keepdims : bool, default False
        Keep the reduced axes as size 1 (then the result broadcasts against ``x``
        with no ``broadcast_dimensions``).

    Returns
    -------
    Array
    """


def max(x: Array, /, *, axis: Axis = None, keepdims: bool = False) -> Array:
    return _reduce("max", x, axis, keepdims)


def min(x: Array, /, *, axis: Axis = None, keepdims: bool = False) -> Array:
    return _reduce("min", x, axis, keepdims)


def mean(x: Array, /, *, axis: Axis = None, keepdims: bool = False) -> Array:
    if type(x) is Array and x.dtype.kind == "c":
        _flags.require_behaviour("complex mean", "mean")
    return _reduce("mean", x, axis, keepdims)


def prod(
    x: Array, /, *, axis: Axis = None, dtype: DTypeLike | None = None, keepdims: bool = False
) -> Array:
    return _reduce("prod", x, axis, keepdims, dtype=accumulation_dtype("prod", x, dtype))


def sum(
    x: Array, /, *, axis: Axis = None, dtype: DTypeLike | None = None, keepdims: bool = False
) -> Array:
    return _reduce("sum", x, axis, keepdims, dtype=accumulation_dtype("sum", x, dtype))


_INT64 = np.dtype("int64")
#: the functions whose floats accumulated in the default floating dtype before 2023.12
_UPCAST_BEFORE_2023 = ("sum", "prod", "linalg.trace")


def accumulation_dtype(op: str, x: Array, dtype: DTypeLike | None) -> Any:
    """``dtype=`` of a sum or product: as given, else None (the backend's rule:
    integers in (u)int64), or on a device without 64-bit integers its default
    integer dtype (uint32 for unsigned), as JAX without x64 accumulates; under an
    api_version before 2023.12, floats in the device's default floating dtype."""
    dtype = as_dtype(dtype, op)
    if dtype is not None or type(x) is not Array:
        return dtype
    profile = x._device.profile
    kind = x.dtype.kind
    if kind in "biu" and not profile.supports(_INT64):
        return np.dtype("uint32") if kind == "u" else profile.defaults["integral"]
    if kind in "fc" and op in _UPCAST_BEFORE_2023 and _flags.current().api_version < "2023.12":
        # before 2023.12 the standard had sums and products of floats in the default
        # floating dtype (as array-api-strict keeps it under that api_version)
        return profile.defaults["real floating" if kind == "f" else "complex floating"]
    return None


def std(
    x: Array, /, *, axis: Axis = None, correction: int | float = 0.0, keepdims: bool = False
) -> Array:
    return _reduce("std", x, axis, keepdims, correction=correction)


def var(
    x: Array, /, *, axis: Axis = None, correction: int | float = 0.0, keepdims: bool = False
) -> Array:
    return _reduce("var", x, axis, keepdims, correction=correction)


def all(x: Array, /, *, axis: Axis = None, keepdims: bool = False) -> Array:
    return _reduce("all", x, axis, keepdims)


def any(x: Array, /, *, axis: Axis = None, keepdims: bool = False) -> Array:
    return _reduce("any", x, axis, keepdims)


_DTYPE = """dtype : dtype, optional
        Accumulate (and return) in this dtype; integers accumulate in (u)int64
        by default.
    """
_CORRECTION = """correction : int or float, default 0
        Degrees of freedom removed (1 for the unbiased sample estimate).
    """
for _f, _summary, _extra in (
    (max, "Maximum along ``axis`` (NaN propagates); an empty axis is an error.", ""),
    (min, "Minimum along ``axis`` (NaN propagates); an empty axis is an error.", ""),
    (mean, "Arithmetic mean along ``axis`` (floating dtypes).", ""),
    (prod, "Product along ``axis``.", _DTYPE),
    (sum, "Sum along ``axis``.", _DTYPE),
    (std, "Standard deviation along ``axis``.", _CORRECTION),
    (var, "Variance along ``axis``.", _CORRECTION),
    (all, "True if every element along ``axis`` is non-zero.", ""),
    (any, "True if any element along ``axis`` is non-zero.", ""),
):
    _f.__doc__ = _REDUCTION_DOC.format(summary=_summary, extra=_extra)


def _cumulative(
    op: str, x: Array, axis: int | None, dtype: DTypeLike | None, include_initial: bool
) -> Array:
    if type(x) is not Array:
        expect_array(op, x)
    check_array_category(op, x)
    if x.ndim == 0:
        raise ValueError(f"{op}: x must have at least one axis, got a 0-d array.")
    if axis is None:
        if x.ndim > 1:
            raise ValueError(
                f"{op}: axis is required for an array of {x.ndim} dimensions (shape {x.shape})."
            )
        axis = 0
    axis = normalize_axis(op, axis, x.ndim)
    data = x._device.function(op)(
        x._data, axis=axis, dtype=accumulation_dtype(op, x, dtype), include_initial=include_initial
    )
    return result(data, x._device)


def cumulative_sum(
    x: Array,
    /,
    *,
    axis: int | None = None,
    dtype: DTypeLike | None = None,
    include_initial: bool = False,
) -> Array:
    """Cumulative sum along ``axis``.

    Parameters
    ----------
    x : Array
        At least 1-D.
    axis : int, optional
        Required unless ``x`` is 1-D.
    dtype : dtype, optional
        Accumulate (and return) in this dtype.
    include_initial : bool, default False
        Start with the sum of nothing (0): the result is one longer along ``axis``.

    Returns
    -------
    Array
    """
    return _cumulative("cumulative_sum", x, axis, dtype, include_initial)


def cumulative_prod(
    x: Array,
    /,
    *,
    axis: int | None = None,
    dtype: DTypeLike | None = None,
    include_initial: bool = False,
) -> Array:
    """Cumulative product along ``axis``.

    Parameters
    ----------
    x : Array
        At least 1-D.
    axis : int, optional
        Required unless ``x`` is 1-D.
    dtype : dtype, optional
        Accumulate (and return) in this dtype.
    include_initial : bool, default False
        Start with the product of nothing (1): the result is one longer along ``axis``.

    Returns
    -------
    Array
    """
    return _cumulative("cumulative_prod", x, axis, dtype, include_initial)


def diff(
    x: Array,
    /,
    *,
    axis: int = -1,
    n: int = 1,
    prepend: Array | None = None,
    append: Array | None = None,
) -> Array:
    """``n``-th discrete difference along ``axis``.

    ``prepend``/``append`` must have ``x``'s rank (and shape off ``axis``).
    """
    if type(x) is Array and prepend is None and append is None:
        # the common case, each check of the general path passing at once
        ndim = x._ndim
        if ndim and type(axis) is int and -ndim <= axis < ndim and type(n) is int and n >= 0:
            dev = x._device
            return result(dev.ns.diff(x._data, axis=axis % ndim, n=n), dev)
    arrays = [x] + [a for a in (prepend, append) if a is not None]
    dev = common_device("diff", arrays)
    if x.ndim == 0:
        raise ValueError("diff: x must have at least one axis, got a 0-d array.")
    axis = normalize_axis("diff", axis, x.ndim)
    if n < 0:
        raise ValueError(f"diff: n must be non-negative, got {n}.")
    for name, a in (("prepend", prepend), ("append", append)):
        if a is not None and a.ndim != x.ndim:
            raise ValueError(f"diff: {name} of shape {a.shape} must have the rank of x {x.shape}.")
    kwargs = {}
    if prepend is not None:
        kwargs["prepend"] = prepend._data
    if append is not None:
        kwargs["append"] = append._data
    return result(dev.ns.diff(x._data, axis=axis, n=n, **kwargs), dev)
