"""Statistical and utility (``all``, ``any``, ``diff``) functions."""

from __future__ import annotations

from typing import Any

from ._array import Array, common_device, expect_array, result
from ._dtypes import as_dtype

Axis = int | tuple[int, ...] | None


def _reduce(op: str, x: Array, **kwargs: Any) -> Array:
    x = expect_array(op, x)
    return result(getattr(x._device.ns, op)(x._data, **kwargs), x._device)


def max(x: Array, /, *, axis: Axis = None, keepdims: bool = False) -> Array:
    """Maximum along ``axis`` (NaN propagates); real dtypes only."""
    return _reduce("max", x, axis=axis, keepdims=keepdims)


def min(x: Array, /, *, axis: Axis = None, keepdims: bool = False) -> Array:
    """Minimum along ``axis`` (NaN propagates); real dtypes only."""
    return _reduce("min", x, axis=axis, keepdims=keepdims)


def mean(x: Array, /, *, axis: Axis = None, keepdims: bool = False) -> Array:
    """Arithmetic mean along ``axis`` (floating dtypes)."""
    return _reduce("mean", x, axis=axis, keepdims=keepdims)


def prod(x: Array, /, *, axis: Axis = None, dtype: Any = None, keepdims: bool = False) -> Array:
    """Product along ``axis``; integers accumulate in (u)int64 unless ``dtype`` is given."""
    return _reduce("prod", x, axis=axis, dtype=as_dtype(dtype, "prod"), keepdims=keepdims)


def sum(x: Array, /, *, axis: Axis = None, dtype: Any = None, keepdims: bool = False) -> Array:
    """Sum along ``axis``; integers accumulate in (u)int64 unless ``dtype`` is given.

    Use ``keepdims=True`` when the result will meet ``x`` again (``x - sum(x, axis=1,
    keepdims=True)``): equal ranks need no ``broadcast_dimensions``.
    """
    return _reduce("sum", x, axis=axis, dtype=as_dtype(dtype, "sum"), keepdims=keepdims)


def std(
    x: Array, /, *, axis: Axis = None, correction: int | float = 0.0, keepdims: bool = False
) -> Array:
    """Standard deviation along ``axis`` with ``correction`` degrees of freedom removed."""
    return _reduce("std", x, axis=axis, correction=correction, keepdims=keepdims)


def var(
    x: Array, /, *, axis: Axis = None, correction: int | float = 0.0, keepdims: bool = False
) -> Array:
    """Variance along ``axis`` with ``correction`` degrees of freedom removed."""
    return _reduce("var", x, axis=axis, correction=correction, keepdims=keepdims)


def cumulative_sum(
    x: Array, /, *, axis: int | None = None, dtype: Any = None, include_initial: bool = False
) -> Array:
    """Cumulative sum along ``axis`` (required unless ``x`` is 1-D)."""
    return _reduce(
        "cumulative_sum", x, axis=axis, dtype=as_dtype(dtype, "cumulative_sum"),
        include_initial=include_initial,
    )  # fmt: skip


def cumulative_prod(
    x: Array, /, *, axis: int | None = None, dtype: Any = None, include_initial: bool = False
) -> Array:
    """Cumulative product along ``axis`` (required unless ``x`` is 1-D)."""
    return _reduce(
        "cumulative_prod", x, axis=axis, dtype=as_dtype(dtype, "cumulative_prod"),
        include_initial=include_initial,
    )  # fmt: skip


def all(x: Array, /, *, axis: Axis = None, keepdims: bool = False) -> Array:
    """True if every element along ``axis`` is non-zero."""
    return _reduce("all", x, axis=axis, keepdims=keepdims)


def any(x: Array, /, *, axis: Axis = None, keepdims: bool = False) -> Array:
    """True if any element along ``axis`` is non-zero."""
    return _reduce("any", x, axis=axis, keepdims=keepdims)


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
    arrays = [x] + [a for a in (prepend, append) if a is not None]
    dev = common_device("diff", arrays)
    for name, a in (("prepend", prepend), ("append", append)):
        if a is not None and a.ndim != x.ndim:
            raise ValueError(f"diff: {name} of shape {a.shape} must have the rank of x {x.shape}.")
    kwargs = {}
    if prepend is not None:
        kwargs["prepend"] = prepend._data
    if append is not None:
        kwargs["append"] = append._data
    return result(dev.ns.diff(x._data, axis=axis, n=n, **kwargs), dev)
