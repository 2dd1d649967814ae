"""Manipulation functions (``broadcast_in_dim`` is with its adjoint in ``_explicit``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _broadcasting
from ._array import Array, _object_new, common_device, expect_array, result
from ._broadcasting import as_shape
from ._typing import Shape, ShapeLike


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


def broadcast_shapes(*shapes: Shape) -> Shape:
    """The shape NumPy-style broadcasting of ``shapes`` gives (``None`` = unknown).

    Parameters
    ----------
    *shapes : tuple of int or None

    Returns
    -------
    tuple of int or None

    Raises
    ------
    ValueError
        If two sizes on one axis are neither equal nor 1 (an unknown size
        broadcasts only against 1 or an unknown size).
    """
    return _broadcasting.broadcast_shapes("broadcast_shapes", *(tuple(s) for s in shapes))


def broadcast_to(x: Array, /, shape: ShapeLike) -> Array:
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
    """Join arrays along an existing axis (``axis=None`` flattens first).

    Parameters
    ----------
    arrays : sequence of Array
        Of one rank, with equal sizes except along ``axis``.
    axis : int or None, default 0

    Returns
    -------
    Array
    """
    dev = common_device("concat", arrays)
    if axis is not None:
        shapes = [a.shape for a in arrays]
        ndim = len(shapes[0])
        if any(len(s) != ndim for s in shapes) or not -ndim <= axis < max(ndim, 1):
            raise ValueError(
                "concat: arrays must have one rank and axis must be one of its axes, got "
                f"axis={axis} and shapes " + ", ".join(str(s) for s in shapes) + "."
            )
        for i in range(ndim):
            sizes: set[int] = set()
            for s in shapes:
                if s[i] is not None:
                    sizes.add(s[i])  # type: ignore[arg-type]
            if i != axis % ndim and len(sizes) > 1:
                raise ValueError(
                    f"concat: the arrays must have equal sizes except along axis {axis}, "
                    f"but axis {i} has sizes {sorted(sizes)} in shapes "
                    + ", ".join(str(s) for s in shapes)
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
    x : Array
    shape : tuple of int
    copy : bool, optional
        ``True`` always copies; ``False`` raises ``ValueError`` if a view is impossible.

    Returns
    -------
    Array
    """
    if type(x) is not Array:
        expect_array("reshape", x)
    dev = x._device
    try:
        if copy is None:  # the common case: the backend's own fastest reshape, no wrapper
            out = _object_new(Array)
            out._data = data = dev.reshape(x._data, shape)
            out._device = dev
            out._ndim = len(shape) if type(shape) is tuple else data.ndim
            return out
        return result(dev.ns.reshape(x._data, shape, copy=copy), dev)
    except (ValueError, TypeError) as e:
        raise type(e)(f"reshape: cannot reshape an array of shape {x.shape} to {shape}: {e}") from e


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
