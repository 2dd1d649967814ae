"""Functions beyond the standard that consumers reach for, and that fit the strict model.

xarray, for one, calls NumPy's names on the namespace of the arrays it wraps:
``einsum`` (for ``dot``), ``pad`` (for ``rolling`` and ``shift``) and the
NaN-skipping reductions (its default for floating data). Each here has NumPy's
signature and meaning, works on every device (the backend's own function, or NumPy's:
``Device.extension``), and adds no broadcasting: ``einsum`` names every axis, and its
``...`` follows the rank rule.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from . import _policy as policy
from ._array import Array, common_device, expect_array, result
from ._broadcasting import normalize_axes, normalize_axis
from ._dtypes import ACCEPTED_IDS, FUNCTION_CATEGORIES, as_dtype, check_array_category
from ._typing import Axis, DTypeLike, Shape

__all__ = [
    "check_ellipsis_axes", "einsum", "nanargmax", "nanargmin", "nancumprod", "nancumsum",
    "nanmax", "nanmean", "nanmin", "nanprod", "nanstd", "nansum", "nanvar", "pad", "sliding_window_view",
]  # fmt: skip


def check_ellipsis_axes(op: str, inputs: Sequence[str], shapes: Sequence[Shape]) -> None:
    """The axes under ``...`` of einsum's operands are batch axes: the rank rule (the
    named axes pair by name). ``inputs`` are the operands' labels, ``"...ij"``."""
    stacked = [(shape, len(labels.replace("...", "")))
               for labels, shape in zip(inputs, shapes) if "..." in labels]  # fmt: skip
    for shape, named in stacked[1:]:
        policy.stacks(op, stacked[0][0], shape, stacked[0][1], named)


def einsum(subscripts: str, /, *operands: Array) -> Array:
    """Einstein summation over labelled axes (NumPy's ``einsum``; not in the standard).

    Every axis is named in ``subscripts``, so nothing broadcasts by position, except
    under ``...``: there the operands' unnamed axes follow the rank rule (equal
    ranks with size-1 broadcasting; different ranks are rank promotion, decided
    by the rank-promotion mode).

    Parameters
    ----------
    subscripts : str
        ``"ij,jk->ik"``: the labels of each operand's axes, and of the result's.
    *operands : Array

    Returns
    -------
    Array

    Examples
    --------
    >>> import strict_array as xp
    >>> a = xp.asarray([[1.0, 2.0], [3.0, 4.0]])
    >>> xp.einsum("ij,j->i", a, xp.asarray([1.0, 1.0]))
    Array([3., 7.], dtype=float64)
    """
    if not isinstance(subscripts, str):
        raise TypeError(f"einsum: subscripts must be a string, got {type(subscripts).__name__}.")
    dev = common_device("einsum", operands)
    inputs = _SUBSCRIPTS.get(subscripts)
    if inputs is None:
        inputs = _operand_labels(subscripts)
    if len(inputs) != len(operands):
        raise ValueError(
            f"einsum: {subscripts!r} names {len(inputs)} operands but {len(operands)} were given."
        )
    stacked = False
    for (labels, named, dots), x in zip(inputs, operands):
        if (not dots and named != x._ndim) or named > x._ndim:
            raise ValueError(
                f"einsum: {labels!r} names {named} axes but the operand has shape {x.shape}."
            )
        stacked = stacked or dots
    if stacked:
        check_ellipsis_axes("einsum", [i[0] for i in inputs], [x.shape for x in operands])
    return result(dev.extension("einsum")(subscripts, *[x._data for x in operands]), dev)


#: each operand's labels, how many axes they name and whether they have ``...``, by
#: subscripts (a program repeats a few; parsing them is most of einsum's own time)
_SUBSCRIPTS: dict[str, tuple[tuple[str, int, bool], ...]] = {}


def _operand_labels(subscripts: str) -> tuple[tuple[str, int, bool], ...]:
    inputs = subscripts.replace(" ", "").split("->")[0].split(",")
    parsed = tuple((labels, len(labels.replace("...", "")), "..." in labels) for labels in inputs)
    if len(_SUBSCRIPTS) >= 256:
        _SUBSCRIPTS.clear()
    _SUBSCRIPTS[subscripts] = parsed
    return parsed


_PAD_MODES = {"constant", "edge", "linear_ramp", "maximum", "mean", "median", "minimum",
              "reflect", "symmetric", "wrap", "empty"}  # fmt: skip


def pad(x: Array, /, pad_width: Any, mode: str = "constant", **kwargs: Any) -> Array:
    """Pad ``x`` along each axis (NumPy's ``pad``; not in the standard).

    Parameters
    ----------
    x : Array
    pad_width : int or sequence
        Before and after each axis, as NumPy takes it: ``((1, 2), (0, 0))``, ``(1, 2)``
        for every axis, or ``1``.
    mode : str, default "constant"
        One of NumPy's modes that Dask has too: ``"constant"``, ``"edge"``,
        ``"linear_ramp"``, ``"maximum"``, ``"mean"``, ``"median"``, ``"minimum"``,
        ``"reflect"``, ``"symmetric"``, ``"wrap"``, ``"empty"``.
    **kwargs
        ``constant_values``, ``end_values``, ``reflect_type`` as for NumPy.

    Returns
    -------
    Array
        Of ``x``'s dtype.

    Examples
    --------
    >>> import strict_array as xp
    >>> xp.pad(xp.asarray([1.0, 2.0]), (1, 2))
    Array([0., 1., 2., 0., 0.], dtype=float64)
    """
    x = expect_array("pad", x)
    if mode not in _PAD_MODES:
        raise ValueError(f"pad: mode must be one of {sorted(_PAD_MODES)}, got {mode!r}.")
    return result(x._device.extension("pad")(x._data, pad_width, mode=mode, **kwargs), x._device)


def _nan_reduction(name: str, summary: str, *, index: bool = False) -> Callable[..., Array]:
    accepted = ACCEPTED_IDS.setdefault(name, set())  # (check_array_category's cache)

    def reduce(x: Array, /, *, axis: Axis = None, keepdims: bool = False, **kwargs: Any) -> Array:
        if type(x) is not Array:
            expect_array(name, x)
        if id(x._data.dtype) not in accepted:
            check_array_category(name, x)
        dev = x._device
        # The backend's defaults are not passed (NumPy's functions take keywords through
        # their dispatch, at a cost), and one axis is passed as an int
        if axis is None and not keepdims and not kwargs:
            return result((dev.functions.get(name) or dev.extension(name))(x._data), dev)
        if axis is not None:
            kwargs["axis"] = (
                normalize_axis(name, axis, x._ndim)
                if index or type(axis) is int
                else normalize_axes(name, axis, x._ndim)
            )
        if keepdims:
            kwargs["keepdims"] = keepdims
        if "dtype" in kwargs:
            kwargs["dtype"] = as_dtype(kwargs["dtype"], name)
        return result(dev.extension(name)(x._data, **kwargs), dev)

    reduce.__name__ = reduce.__qualname__ = name
    reduce.__doc__ = f"""{summary} (NumPy's ``{name}``; not in the standard).

    NaN values are left out; xarray's default reductions of floating data call it.{
        " Complex numbers have no order: refused, as by ``max``."
        if name in FUNCTION_CATEGORIES
        else ""
    }

    Parameters
    ----------
    x : Array
    axis : int{"" if index else " or tuple of int"}, optional
        All axes by default.
    keepdims : bool, default False
    **kwargs
        As for NumPy's ``{name}`` (``dtype``, ``ddof``).

    Returns
    -------
    Array
    """
    return reduce


nansum = _nan_reduction("nansum", "Sum, NaN counted as zero")
nanprod = _nan_reduction("nanprod", "Product, NaN counted as one")
nanmean = _nan_reduction("nanmean", "Mean of the values that are not NaN")
nanvar = _nan_reduction("nanvar", "Variance of the values that are not NaN")
nanstd = _nan_reduction("nanstd", "Standard deviation of the values that are not NaN")
nanmax = _nan_reduction("nanmax", "Maximum of the values that are not NaN")
nanmin = _nan_reduction("nanmin", "Minimum of the values that are not NaN")
nanargmax = _nan_reduction("nanargmax", "Index of the maximum, NaN left out", index=True)
nanargmin = _nan_reduction("nanargmin", "Index of the minimum, NaN left out", index=True)


def _nan_cumulative(name: str, summary: str) -> Callable[..., Array]:
    def accumulate(
        x: Array, /, *, axis: int | None = None, dtype: DTypeLike | None = None
    ) -> Array:
        x = expect_array(name, x)
        if axis is not None:
            axis = normalize_axis(name, axis, x.ndim)
        func = x._device.extension(name)
        return result(func(x._data, axis=axis, dtype=as_dtype(dtype, name)), x._device)

    accumulate.__name__ = accumulate.__qualname__ = name
    accumulate.__doc__ = f"""{summary} (NumPy's ``{name}``; not in the standard).

    Parameters
    ----------
    x : Array
    axis : int, optional
        ``None`` accumulates over the flattened array.
    dtype : dtype, optional

    Returns
    -------
    Array
    """
    return accumulate


nancumsum = _nan_cumulative("nancumsum", "Cumulative sum, NaN counted as zero")
nancumprod = _nan_cumulative("nancumprod", "Cumulative product, NaN counted as one")


def sliding_window_view(
    x: Array, /, window_shape: int | tuple[int, ...], axis: int | tuple[int, ...] | None = None
) -> Array:
    """Windows of ``window_shape`` sliding along ``axis`` (NumPy's
    ``lib.stride_tricks.sliding_window_view``; not in the standard).

    Read-only windows: a view on ``CPU``, lazy on ``DASK``. xarray's ``rolling`` calls
    it at NumPy's location, which ``strict_array.lib.stride_tricks`` provides.

    Parameters
    ----------
    x : Array
    window_shape : int or tuple of int
        The window's size along each of ``axis``.
    axis : int or tuple of int, optional
        All axes by default.

    Returns
    -------
    Array
        ``x``'s axes shortened by the window, then one axis per window axis.

    Examples
    --------
    >>> import strict_array as xp
    >>> xp.lib.stride_tricks.sliding_window_view(xp.arange(4.0), 2)
    Array([[0., 1.],
           [1., 2.],
           [2., 3.]], dtype=float64)
    """
    x = expect_array("sliding_window_view", x)
    if axis is not None:
        many = axis if isinstance(axis, (tuple, list)) else (axis,)
        axis = tuple(normalize_axis("sliding_window_view", a, x.ndim) for a in many)
    func = x._device.extension("lib.stride_tricks.sliding_window_view")
    return result(func(x._data, window_shape, axis=axis), x._device)
