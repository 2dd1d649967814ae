"""Manipulation functions, and the explicit broadcasts (``broadcast_in_dim``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._array import Array, _object_new, common_device, expect_array, result
from ._broadcasting import as_shape, broadcast_dim, broadcast_in_dim_shape, insert_axes_key


def broadcast_in_dim(x: Array, /, shape: Any, broadcast_dimensions: Any) -> Array:
    """Broadcast ``x`` to ``shape``, axis ``i`` of ``x`` becoming axis ``broadcast_dimensions[i]``.

    XLA's ``BroadcastInDim``: the explicit form of every broadcast. Unmapped
    axes of the result are new; mapped axes of size 1 are stretched.

    Parameters
    ----------
    x : Array
    shape : tuple of int
        Target shape, of rank at least ``x.ndim``.
    broadcast_dimensions : tuple of int
        Strictly increasing, one entry per axis of ``x``, each in
        ``[0, len(shape))``, with ``x.shape[i]`` equal to
        ``shape[broadcast_dimensions[i]]`` or 1.

    Returns
    -------
    Array
        On ``CPU`` a read-only view (no copy); on ``DASK`` lazy, chunked to
        match.

    Raises
    ------
    ValueError, TypeError
        Invalid ``broadcast_dimensions`` or incompatible sizes, naming both shapes.

    Examples
    --------
    >>> import strict_array as xp
    >>> v = xp.asarray([1.0, 2.0, 3.0])
    >>> xp.broadcast_in_dim(v, (3, 2), (0,))  # v down the rows
    Array([[1., 1.],
           [2., 2.],
           [3., 3.]], dtype=float64)
    """
    x = expect_array("broadcast_in_dim", x)
    shape = as_shape(shape, "broadcast_in_dim")
    dev = x._device
    dims = broadcast_in_dim_shape("broadcast_in_dim", x.shape, shape, broadcast_dimensions)
    # insert the new axes as size-1 axes (a view), then stretch: no copy
    key = insert_axes_key(len(shape), dims)
    return result(dev.broadcast_to(x._data[key], shape), dev)


def broadcast_arrays(*arrays: Array) -> tuple[Array, ...]:
    """Broadcast arrays against each other (NumPy rules: an explicit request).

    Returns
    -------
    tuple of Array
        Read-only views on ``CPU``.
    """
    if not arrays:
        return ()
    dev = common_device("broadcast_arrays", arrays)
    shape: Any = broadcast_shapes(*(a.shape for a in arrays))
    return tuple(result(dev.broadcast_to(a._data, shape), dev) for a in arrays)


def broadcast_shapes(*shapes: tuple[int | None, ...]) -> tuple[int | None, ...]:
    """The shape NumPy-style broadcasting of ``shapes`` gives (``None`` = unknown).

    Raises
    ------
    ValueError
        If two sizes on one axis are neither equal nor 1.
    """
    ndim = max((len(s) for s in shapes), default=0)
    out: list[int | None] = [1] * ndim
    for s in shapes:
        padded = (1,) * (ndim - len(s)) + tuple(s)
        for axis, size in enumerate(padded):
            d = broadcast_dim(out[axis], size)
            if d == -1:
                raise ValueError(
                    f"broadcast_shapes: shapes {', '.join(str(tuple(t)) for t in shapes)} "
                    f"cannot be broadcast: axis {axis - ndim} has sizes {_size(out[axis])} "
                    f"and {_size(size)} (an unknown size only broadcasts against 1 or unknown)."
                )
            out[axis] = d
    return tuple(out)


def _size(s: int | None) -> str:
    return "unknown" if s is None else str(s)


def broadcast_to(x: Array, /, shape: Any) -> Array:
    """Broadcast ``x`` to ``shape`` with NumPy's trailing alignment (an explicit request).

    Use :func:`broadcast_in_dim` to say which axes map where.
    """
    x = expect_array("broadcast_to", x)
    shape = as_shape(shape, "broadcast_to")
    try:
        fits = len(shape) >= x.ndim and broadcast_shapes(x.shape, shape) == shape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(
            f"broadcast_to: cannot broadcast shape {x.shape} to {shape} with NumPy's "
            "trailing alignment: each of x's sizes must equal the target's last sizes "
            "or be 1. Use broadcast_in_dim to map x's axes elsewhere."
        )
    return result(x._device.broadcast_to(x._data, shape), x._device)


def concat(arrays: tuple[Array, ...] | list[Array], /, *, axis: int | None = 0) -> Array:
    """Join arrays along an existing axis (``axis=None`` flattens first)."""
    dev = common_device("concat", arrays)
    if axis is not None:
        ranks = {a.ndim for a in arrays}
        if len(ranks) > 1:
            raise ValueError(
                "concat: arrays must have the same rank, got shapes "
                + ", ".join(str(a.shape) for a in arrays)
                + "."
            )
    return result(dev.ns.concat([a._data for a in arrays], axis=axis), dev)


def stack(arrays: tuple[Array, ...] | list[Array], /, *, axis: int = 0) -> Array:
    """Join arrays of one shape along a new axis."""
    dev = common_device("stack", arrays)
    return result(dev.ns.stack([a._data for a in arrays], axis=axis), dev)


def unstack(x: Array, /, *, axis: int = 0) -> tuple[Array, ...]:
    """Split ``x`` into the tuple of its slices along ``axis``."""
    x = expect_array("unstack", x)
    return tuple(result(d, x._device) for d in x._device.ns.unstack(x._data, axis=axis))


def expand_dims(x: Array, /, axis: int | tuple[int, ...] = 0) -> Array:
    """Insert size-1 axes at ``axis`` (positions in the result)."""
    x = expect_array("expand_dims", x)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    ndim = x.ndim + len(axes)
    new = set()
    for a in axes:
        if not -ndim <= a < ndim:
            raise np.exceptions.AxisError(
                f"expand_dims: axis {a} is out of bounds for the result's {ndim} axes."
            )
        new.add(a % ndim)
    if len(new) != len(axes):
        raise ValueError(f"expand_dims: repeated axis in {axes}.")
    # indexing with None inserts the axes as a view, also for unknown Dask sizes
    key = tuple(None if d in new else slice(None) for d in range(ndim))
    return result(x._data[key], x._device)


def flip(x: Array, /, *, axis: int | tuple[int, ...] | None = None) -> Array:
    """Reverse the order of elements along ``axis`` (all axes by default)."""
    x = expect_array("flip", x)
    return result(x._device.ns.flip(x._data, axis=axis), x._device)


def moveaxis(
    x: Array, source: int | tuple[int, ...], destination: int | tuple[int, ...], /
) -> Array:
    """Move axes to new positions; the others keep their order."""
    x = expect_array("moveaxis", x)
    return result(x._device.ns.moveaxis(x._data, source, destination), x._device)


def permute_dims(x: Array, /, axes: tuple[int, ...]) -> Array:
    """Permute the axes of ``x`` (negative axes allowed)."""
    x = expect_array("permute_dims", x)
    return result(x._device.ns.permute_dims(x._data, tuple(axes)), x._device)


def repeat(x: Array, repeats: int | Array, /, *, axis: int | None = None) -> Array:
    """Repeat each element ``repeats`` times (``axis=None`` flattens first)."""
    x = expect_array("repeat", x)
    if type(repeats) is Array:
        common_device("repeat", (x, repeats))
        repeats = repeats._data
    return result(x._device.ns.repeat(x._data, repeats, axis=axis), x._device)


def reshape(x: Array, /, shape: tuple[int, ...], *, copy: bool | None = None) -> Array:
    """Same data with a new shape (one entry may be -1).

    Parameters
    ----------
    copy : bool, optional
        ``False`` raises ``ValueError`` if a view is impossible.
    """
    if type(x) is not Array:
        expect_array("reshape", x)
    if copy is None:  # the common case: the backend's own method, no wrapper
        try:
            data = x._data.reshape(shape)
        except NotImplementedError:  # a layout the method refuses (uneven Dask chunks)
            data = x._device.ns.reshape(x._data, shape)
        out = _object_new(Array)
        out._data = data
        out._device = x._device
        return out
    return result(x._device.ns.reshape(x._data, shape, copy=copy), x._device)


def roll(
    x: Array, /, shift: int | tuple[int, ...], *, axis: int | tuple[int, ...] | None = None
) -> Array:
    """Roll elements along ``axis`` (flattened when None), wrapping around."""
    x = expect_array("roll", x)
    return result(x._device.ns.roll(x._data, shift, axis=axis), x._device)


def squeeze(x: Array, /, axis: int | tuple[int, ...]) -> Array:
    """Remove the given size-1 axes."""
    x = expect_array("squeeze", x)
    return result(x._device.ns.squeeze(x._data, axis=axis), x._device)


def tile(x: Array, repetitions: tuple[int, ...], /) -> Array:
    """Repeat ``x`` as whole blocks ``repetitions[i]`` times along each axis."""
    x = expect_array("tile", x)
    return result(x._device.ns.tile(x._data, tuple(repetitions)), x._device)
