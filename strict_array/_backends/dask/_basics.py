"""The two helpers every part of the Dask backend needs."""

from __future__ import annotations

import array_api_compat.dask.array as compat
import dask.array as da
import numpy as np


def unknown(size: float) -> bool:
    """Whether a Dask size is unknown (data-dependent): Dask marks it with NaN."""
    return size != size


def reshape(x: da.Array, /, shape: tuple[int, ...], *, copy: bool | None = None) -> da.Array:
    if 0 in x.shape:  # empty: NumPy resolves the shape (Dask fails on empty arrays)
        return da.zeros(np.empty(x.shape, x.dtype).reshape(shape).shape, dtype=x.dtype, chunks=-1)
    try:
        return compat.reshape(x, shape, copy=copy)  # type: ignore[attr-defined]
    except NotImplementedError:
        # Dask reshapes only by merging or evenly splitting axes: merge all, then split
        return x.reshape((-1,)).reshape(shape)
