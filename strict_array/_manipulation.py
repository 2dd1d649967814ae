"""Manipulation functions (``broadcast_in_dim`` is with its adjoint in ``_explicit``)."""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from . import _broadcasting
from ._array import Array, _object_new, common_device, expect_array, result
from ._broadcasting import as_shape, normalize_axes, normalize_axis
from ._flags import arrays_of_version, refuse_data_dependent
from ._typing import Shape, ShapeLike


def broadcast_arrays(*arrays: Array) -> tuple[Array, ...]:
    """Broadcast arrays against each other (NumPy rules: an explicit request).

    Returns
    -------
    tuple of Array
        Read-only views on ``CPU``.
    """
    if not arrays:
        return arrays_of_version(())
    dev = common_device("broadcast_arrays", arrays)
    datas = [a._data for a in arrays]
    shape: Any = _broadcasting.broadcast_shapes("broadcast_arrays", *map(dev.shape, datas))
    return arrays_of_version([result(d, dev) for d in dev.broadcast_together(datas, shape)])


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
        If two sizes on one axis are neither equal nor 1 (a size unknown until
        computed broadcasts only against 1 or another unknown size).
    """
    return _broadcasting.broadcast_shapes("broadcast_shapes", *(tuple(s) for s in shapes))


def broadcast_to(x: Array, /, shape: ShapeLike) -> Array:
    """Broadcast ``x`` to ``shape`` with NumPy's trailing alignment (an explicit request).

    Use :func:`broadcast_in_dim` to say which axes map where.
    """
    if type(x) is not Array:
        expect_array("broadcast_to", x)
    shape = as_shape(shape, "broadcast_to")
    # trailing alignment: each of x's sizes equals the target's or is 1 (an unknown size
    # equals neither)
    fits = len(shape) >= x._ndim
    if fits:
        for s, t in zip(x.shape, shape[len(shape) - x._ndim :]):
            if s != t and s != 1:
                fits = False
                break
    if not fits and len(shape) >= x.ndim:
        pairs = list(zip(x.shape[::-1], shape[::-1]))
        if any(s is None for s, _ in pairs) and all(s in (None, 1, t) for s, t in pairs):
            raise ValueError(
                f"broadcast_to: x has shape {x.shape}, with sizes unknown until computed; "
                f"broadcasting it to {shape} needs them (section 4 of the contract). Make "
                "them known first: strict_array.known_sizes() or strict_array.persist."
            )
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
    if axis is None:  # flattened by the device's reshape (Dask's fails on empty chunks)
        return result(dev.ns.concat([dev.reshape(a._data, (-1,)) for a in arrays], axis=0), dev)
    datas = [a._data for a in arrays]
    shape = dev.shape
    first = shape(datas[0])
    ndim = len(first)
    if type(axis) is int and -ndim <= axis < ndim:
        for d in datas:
            if shape(d) != first:
                break
        else:  # arrays of one shape, and an axis of theirs: every check passes
            return result(dev.ns.concat(datas, axis=axis), dev)
    _check_concat([shape(d) for d in datas], axis, ndim)
    return result(dev.ns.concat(datas, axis=axis), dev)


def _check_concat(shapes: list[tuple[int | None, ...]], axis: int, ndim: int) -> None:
    """One rank, ``axis`` one of its axes, and equal sizes off ``axis``."""
    if ndim == 0:
        raise ValueError(
            f"concat: 0-d arrays have no axis to join along (axis={axis}); use "
            "axis=None, or stack them."
        )
    k = axis % ndim if -ndim <= axis < ndim else 0
    head, tail = shapes[0][:k], shapes[0][k + 1 :]
    agree = None not in head and None not in tail
    for s in shapes:  # one pass: the ranks, and whether the sizes off axis agree
        if len(s) != ndim or not -ndim <= axis < ndim:
            raise ValueError(
                "concat: arrays must have one rank and axis must be one of its axes, "
                f"got axis={axis} and shapes " + ", ".join(str(s) for s in shapes) + "."
            )
        if agree and (s[:k] != head or s[k + 1 :] != tail):
            agree = False
    if not agree:
        _check_concat_sizes(shapes, axis, ndim)


def _check_concat_sizes(shapes: list[tuple[int | None, ...]], axis: int, ndim: int) -> None:
    """The sizes off ``axis`` agree, and none is unknown against a known one."""
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
        if i != axis % ndim and sizes and any(s[i] is None for s in shapes):
            raise ValueError(
                f"concat: axis {i} has a size unknown until computed against a known one "
                "(" + ", ".join(str(s) for s in shapes) + "), which cannot be checked "
                "before computing; make the sizes known first (strict_array.known_sizes())."
            )


def stack(arrays: tuple[Array, ...] | list[Array], /, *, axis: int = 0) -> Array:
    """Join arrays of one shape along a new axis.

    Parameters
    ----------
    arrays : sequence of Array
        Of one shape (an unknown size must meet an unknown size, not a known one:
        that cannot be checked before computing).
    axis : int, default 0
        The new axis' position in the result.

    Returns
    -------
    Array
    """
    dev = common_device("stack", arrays)
    datas = [a._data for a in arrays]
    shapes = list(map(dev.shape, datas))
    ndim = len(shapes[0])
    # one shape without unknown sizes passes every check below at once
    uniform = None not in shapes[0] and shapes.count(shapes[0]) == len(shapes)
    for s in () if uniform else shapes[1:]:
        if len(s) != ndim or any(
            p != q and p is not None and q is not None for p, q in zip(s, shapes[0])
        ):
            raise ValueError(
                "stack: the arrays must have one shape, got " + ", ".join(map(str, shapes)) + "."
            )
        if any((p is None) != (q is None) for p, q in zip(s, shapes[0])):
            raise ValueError(
                "stack: shapes " + ", ".join(map(str, shapes)) + " have a size unknown until "
                "computed against a known one, which cannot be checked before computing."
            )
    axis = normalize_axis("stack", axis, ndim + 1)
    return result(dev.function("stack")(datas, axis=axis), dev)


def unstack(x: Array, /, *, axis: int = 0) -> tuple[Array, ...]:
    """Split ``x`` into the tuple of its slices along ``axis``.

    Parameters
    ----------
    x : Array
        At least 1-D, with a known size along ``axis``.
    axis : int, default 0

    Returns
    -------
    tuple of Array
    """
    x = expect_array("unstack", x)
    axis = normalize_axis("unstack", axis, x.ndim)
    if x.shape[axis] is None:
        raise ValueError(
            f"unstack: axis {axis} of shape {x.shape} has a size unknown until computed: "
            "the number of results is not known."
        )
    dev = x._device
    return tuple([result(d, dev) for d in dev.function("unstack")(x._data, axis=axis)])


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
    """Reverse the order of elements along ``axis``.

    Parameters
    ----------
    x : Array
    axis : int or tuple of int, optional
        All axes by default.

    Returns
    -------
    Array
    """
    x = expect_array("flip", x)
    axes = normalize_axes("flip", axis, x.ndim)
    return result(x._device.ns.flip(x._data, axis=None if axis is None else axes), x._device)


def moveaxis(
    x: Array, source: int | tuple[int, ...], destination: int | tuple[int, ...], /
) -> Array:
    """Move axes to new positions; the others keep their order.

    Parameters
    ----------
    x : Array
    source, destination : int or tuple of int
        As many destinations as sources, each list without repeats.

    Returns
    -------
    Array
    """
    x = expect_array("moveaxis", x)
    src = _axis_list("moveaxis", source, x.ndim, "source")
    dst = _axis_list("moveaxis", destination, x.ndim, "destination")
    if len(src) != len(dst):
        raise ValueError(
            f"moveaxis: source {source!r} and destination {destination!r} must have the "
            "same number of axes."
        )
    # NumPy's permutation, from the validated axes: one permute_dims
    order = [n for n in range(x._ndim) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return result(x._device.function("permute_dims")(x._data, tuple(order)), x._device)


def _axis_list(op: str, axes: object, ndim: int, name: str) -> tuple[int, ...]:
    """Axes in the given order (not sorted), each in bounds, none repeated."""
    if type(axes) is int and -ndim <= axes < ndim:
        return (axes % ndim,)
    many = axes if isinstance(axes, (tuple, list)) else (axes,)
    out = tuple(normalize_axis(op, a, ndim, name) for a in many)
    if len(set(out)) != len(out):
        raise ValueError(f"{op}: {name}={axes!r} repeats an axis.")
    return out


def permute_dims(x: Array, /, axes: tuple[int, ...]) -> Array:
    """Permute the axes of ``x``.

    Parameters
    ----------
    x : Array
    axes : tuple of int
        A permutation of ``range(x.ndim)`` (negative axes allowed).

    Returns
    -------
    Array
    """
    x = expect_array("permute_dims", x)
    order = _axis_list("permute_dims", tuple(axes), x.ndim, "axes") if axes else ()
    if len(order) != x.ndim:
        raise ValueError(
            f"permute_dims: axes={tuple(axes)!r} must list each of the {x.ndim} axes of an "
            f"array of shape {x.shape} once."
        )
    return result(x._device.ns.permute_dims(x._data, order), x._device)


def repeat(x: Array, repeats: int | Array, /, *, axis: int | None = None) -> Array:
    """Repeat each element ``repeats`` times along ``axis``.

    Parameters
    ----------
    x : Array
    repeats : int or Array
        One count for every element, or an integer array of one count per element
        along ``axis`` (or of one count). With an array the result's size depends
        on the data: unknown (``None``) on a lazy device until computed.
    axis : int, optional
        ``None`` flattens ``x`` first.

    Returns
    -------
    Array
    """
    if type(x) is not Array:
        expect_array("repeat", x)
    if axis is not None:
        axis = normalize_axis("repeat", axis, x._ndim)
    if type(repeats) is int and repeats >= 0:
        pass  # one count for every element: nothing more to check
    elif type(repeats) is Array:
        refuse_data_dependent("repeat (an array of repeats)")
        n = x.size if axis is None else x.shape[axis]
        common_device("repeat", (x, repeats))
        if repeats.dtype.kind not in "iu" or repeats.ndim > 1:
            raise ValueError(
                f"repeat: an array of repeats must be 1-D of integers, got shape "
                f"{repeats.shape} and dtype {repeats.dtype}."
            )
        count = repeats.shape[0] if repeats.ndim else 1
        if count not in (1, n) and count is not None and n is not None:
            raise ValueError(
                f"repeat: {count} repeats for {n} elements along the axis; give one count "
                "per element, or one for all."
            )
        if (count is None) != (n is None) and 1 not in (count, n):
            raise ValueError(
                f"repeat: {count if count is not None else 'an unknown number of'} counts "
                f"for {n if n is not None else 'a number'} of elements unknown until "
                "computed, which cannot be checked before computing; give one count for all, "
                "or make the sizes known first (strict_array.known_sizes())."
            )
        repeats = repeats._data
    elif isinstance(repeats, (bool, np.bool_)) or not hasattr(repeats, "__index__"):
        raise TypeError(f"repeat: repeats must be an int or an integer Array, got {repeats!r}.")
    elif operator.index(repeats) < 0:
        raise ValueError(f"repeat: repeats must be non-negative, got {repeats}.")
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
    if copy is None:  # the common case: the backend's own fastest reshape, no wrapper
        try:
            data = dev.reshape(x._data, shape)
        except (ValueError, TypeError, IndexError) as e:
            raise _reshape_error(x, shape, e) from e
        if type(shape) is tuple and data.shape == shape:  # no -1, no other negative size
            # _array.RESULT, inlined: on this hot path a call is a measurable share of the cost
            # (benchmarks/bench_namespace.py, the core rows)
            out = _object_new(Array)
            out._data = data
            out._device = dev
            out._ndim = len(shape)
            return out
        # a -1 the backend resolved, or a negative size NumPy takes as one: the rule
        _check_reshape(x.shape, shape)
        return result(data, dev)
    _check_reshape(x.shape, shape)
    try:
        return result(dev.ns.reshape(x._data, shape, copy=copy), dev)
    except (ValueError, TypeError, IndexError) as e:
        raise _reshape_error(x, shape, e) from e


def _reshape_error(x: Array, shape: Any, error: Exception) -> Exception:
    """The backend's refusal as the standard's: the rule's ValueError first (backends
    raise different types for one invalid shape), then the backend's own reason."""
    _check_reshape(x.shape, shape)
    if None in x.shape:
        return ValueError(
            f"reshape: cannot reshape an array of shape {x.shape} to {shape}: its size is "
            "unknown until computed (only the first size may be unknown, with -1 there; "
            "or make the sizes known first: strict_array.known_sizes())."
        )
    return type(error)(f"reshape: cannot reshape an array of shape {x.shape} to {shape}: {error}")


def _check_reshape(old: tuple[int | None, ...], new: Any) -> None:
    """A shape ``x`` of shape ``old`` can take: the same number of elements, at most one
    -1 (an unknown size makes the check the data's, on a lazy device)."""
    new = as_shape(new, "reshape")
    if sum(1 for s in new if s == -1) > 1 or any(s < -1 for s in new):
        raise ValueError(f"reshape: {new} may have one -1 and no other negative size.")
    if None in old and 0 not in old:
        return
    size = 0 if 0 in old else math.prod(old)  # type: ignore[arg-type]
    known = math.prod(s for s in new if s != -1)
    if (-1 in new and (known == 0 or size % known)) or (-1 not in new and known != size):
        raise ValueError(
            f"reshape: cannot reshape an array of shape {old} ({size} elements) to {new}."
        )


def roll(
    x: Array, /, shift: int | tuple[int, ...], *, axis: int | tuple[int, ...] | None = None
) -> Array:
    """Roll elements along ``axis``, wrapping around.

    Parameters
    ----------
    x : Array
    shift : int or tuple of int
        One shift, or one per axis.
    axis : int or tuple of int, optional
        ``None`` rolls the flattened array (and restores the shape).

    Returns
    -------
    Array
    """
    x = expect_array("roll", x)
    if axis is not None:
        many = axis if isinstance(axis, (tuple, list)) else (axis,)
        axis = tuple(normalize_axis("roll", a, x.ndim) for a in many)
        shifts = shift if isinstance(shift, (tuple, list)) else (shift,) * len(axis)
        if len(shifts) != len(axis):
            raise ValueError(
                f"roll: {len(shifts)} shifts for {len(axis)} axes; give one shift per axis."
            )
        shift = tuple(shifts)
    return result(x._device.ns.roll(x._data, shift, axis=axis), x._device)


def squeeze(x: Array, /, axis: int | tuple[int, ...]) -> Array:
    """Remove the given size-1 axes.

    Parameters
    ----------
    x : Array
    axis : int or tuple of int
        Each of size 1.

    Returns
    -------
    Array
    """
    x = expect_array("squeeze", x)
    axes = _axis_list("squeeze", axis, x._ndim, "axis")
    shape = x.shape
    for a in axes:
        if shape[a] != 1:
            size = "unknown until computed" if shape[a] is None else str(shape[a])
            raise ValueError(
                f"squeeze: axis {a} of shape {shape} has size {size}; only axes of "
                "size 1 can be removed."
            )
    return result(x._device.function("squeeze")(x._data, axis=axes), x._device)


def tile(x: Array, repetitions: tuple[int, ...], /) -> Array:
    """Repeat ``x`` as whole blocks ``repetitions[i]`` times along each axis."""
    x = expect_array("tile", x)
    return result(x._device.ns.tile(x._data, tuple(repetitions)), x._device)
