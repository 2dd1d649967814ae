"""Explicit broadcasting: ``broadcast_in_dim`` and its exact adjoint, ``sum_to``.

``broadcast_in_dim`` is XLA's ``BroadcastInDim``, the explicit form of every
broadcast; ``sum_to`` is its transpose rule, the gradient of broadcasting
(sections 3 and 5 of the semantics).
"""

from __future__ import annotations

from typing import Any

from . import _policy as policy
from ._array import Array, expect_array, result
from ._broadcasting import as_shape, broadcast_in_dim_key
from ._typing import ShapeLike

__all__ = ["broadcast_in_dim", "sum_to"]


def broadcast_in_dim(x: Array, /, shape: ShapeLike, broadcast_dimensions: Any) -> Array:
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

    See Also
    --------
    sum_to : its adjoint, the gradient of this broadcast.

    Examples
    --------
    >>> import strict_array as xp
    >>> v = xp.asarray([1.0, 2.0, 3.0])
    >>> xp.broadcast_in_dim(v, (3, 2), (0,))  # v down the rows
    Array([[1., 1.],
           [2., 2.],
           [3., 3.]], dtype=float64)
    """
    if type(x) is not Array:
        expect_array("broadcast_in_dim", x)
    target = as_shape(shape, "broadcast_in_dim")
    dev = x._device
    data = x._data
    key = broadcast_in_dim_key("broadcast_in_dim", dev.shape(data), target, broadcast_dimensions)
    # insert the new axes as size-1 axes (a view), then stretch: no copy (the
    # backend's broadcast adds leading axes itself: no key then)
    return result(dev.broadcast_to(data if key is None else data[key], target), dev)


def sum_to(x: Array, /, shape: ShapeLike, broadcast_dimensions: Any = None) -> Array:
    """Sum ``x`` down to ``shape``: the gradient of broadcasting.

    ``sum_to(g, a.shape, bd)`` is the exact adjoint of
    ``broadcast_in_dim(a, g.shape, bd)``: for all valid inputs
    ``vdot(broadcast_in_dim(a, g.shape, bd), g) == vdot(a, sum_to(g, a.shape, bd))``.
    Use it to send a gradient back through a broadcast.

    Parameters
    ----------
    x : Array
        The array to reduce (e.g. the gradient of a broadcast result).
    shape : tuple of int
        Target shape. ``()`` sums everything. With ``x.ndim`` entries, each size
        equals ``x``'s or is 1 (summed, kept as 1). With fewer entries,
        ``broadcast_dimensions`` says which axis of ``x`` each target axis is;
        every other axis is summed away.
    broadcast_dimensions : tuple of int, optional
        As for :func:`broadcast_in_dim`. Without it, a lower-rank target is the
        adjoint of rank promotion, so the rank-promotion mode decides: ``"raise"``
        raises :class:`RankPromotionError`; ``"warn"`` and ``"allow"`` use NumPy's
        trailing alignment.

    Returns
    -------
    Array
        Of ``shape``, with ``x``'s dtype and device (lazy tree reduction on ``DASK``).

    Raises
    ------
    RankPromotionError
        Lower-rank target without ``broadcast_dimensions`` in mode ``"raise"``.
    ValueError
        A target with more axes than ``x``, a size that is neither ``x``'s nor 1,
        or invalid ``broadcast_dimensions``.

    See Also
    --------
    broadcast_in_dim : the broadcast whose gradient this is.

    Examples
    --------
    >>> import strict_array as xp
    >>> g = xp.ones((3, 3))
    >>> xp.sum_to(g, (3,), broadcast_dimensions=(0,))  # gradient of v in X + v along rows
    Array([3., 3., 3.], dtype=float64)
    """
    if type(x) is not Array:
        expect_array("sum_to", x)
    target = as_shape(shape, "sum_to")
    data, dev = x._data, x._device
    dropped, squeezed, _ = policy.sum_to("sum_to", dev.shape(data), target, broadcast_dimensions)
    # integers would be summed in (u)int64 by default; floats already keep their dtype
    dtype: Any = dev.dtype(data)
    if dtype.kind not in "biu":
        dtype = None
    if squeezed:  # some kept axes shrink to 1: keep them, then drop the others
        data = dev.ns.sum(data, axis=dropped + squeezed, keepdims=True, dtype=dtype)
        # (with no axis dropped, the kept axes are the target already)
        return result(dev.reshape(data, target) if dropped else data, dev)
    if dropped:  # only whole axes go: one reduction, no reshape (no extra graph layer)
        data = dev.ns.sum(data, axis=dropped, dtype=dtype)
    return result(data, dev)
