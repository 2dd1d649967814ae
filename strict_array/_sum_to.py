"""``sum_to``: the gradient of broadcasting, exact adjoint of ``broadcast_in_dim``."""

from __future__ import annotations

from typing import Any

from ._array import Array, expect_array, result
from ._broadcasting import as_shape, sum_to_plan
from ._modes import effective_mode, promote_or_raise


def sum_to(x: Array, /, shape: Any, broadcast_dimensions: Any = None) -> Array:
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

    Examples
    --------
    >>> import strict_array as xp
    >>> g = xp.ones((3, 3))
    >>> xp.sum_to(g, (3,), broadcast_dimensions=(0,))  # gradient of v in X + v along rows
    Array([3., 3., 3.], dtype=float64)
    """
    x = expect_array("sum_to", x)
    target = as_shape(shape, "sum_to")
    dropped, squeezed, promoted = sum_to_plan(
        "sum_to", x.shape, target, broadcast_dimensions, effective_mode()
    )
    if promoted:
        promote_or_raise("sum_to", x.shape, target)
    data, dev = x._data, x._device
    # integers would be summed in (u)int64 by default; floats already keep their dtype
    dtype = x.dtype if x.dtype.kind in "biu" else None
    if squeezed:  # some kept axes shrink to 1: keep them, then drop the others
        data = dev.ns.sum(data, axis=dropped + squeezed, keepdims=True, dtype=dtype)
        return result(data.reshape(target), dev)
    if dropped:  # only whole axes go: one reduction, no reshape (no extra graph layer)
        data = dev.ns.sum(data, axis=dropped, dtype=dtype)
    return result(data, dev)
