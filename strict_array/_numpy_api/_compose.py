"""NumPy functions written with the namespace's own, for lazy devices: each gives
NumPy's value for every argument NumPy's function takes (data movement, no arithmetic),
chunk by chunk where the namespace's function is.

Rows of the table name them with :class:`~._table.Compose`; an eager host device runs
NumPy's own function instead.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from .._array import Array, _root
from .._indexing import take_along_axis as _take_along_axis
from .._linear_algebra import matrix_transpose as _matrix_transpose
from .._manipulation import reshape
from .._manipulation import unstack as _unstack

__all__ = [
    "matrix_transpose", "memory_question", "splitting", "take_along_axis",
    "unstack",
]  # fmt: skip


def splitting(numpy: Any) -> Any:
    """NumPy's ``split``, ``array_split``, ``hsplit``, ``vsplit`` or ``dsplit`` of a strict
    array: where NumPy cuts, read from its function on a stand-in of the array's shape
    (no data), then those slices."""

    def split(ary: Array, indices_or_sections: Any, axis: int = 0) -> list[Array]:
        if None in ary.shape:
            raise ValueError(
                f"numpy.{numpy.__name__}: an array of shape {ary.shape}, with sizes unknown "
                "until computed, cannot be cut by NumPy's rule; make the sizes known first "
                "(strict_array.known_sizes())."
            )
        stand_in = np.broadcast_to(np.zeros((), dtype=np.int64), ary.shape)  # type: ignore[arg-type]
        if numpy.__name__ in ("split", "array_split"):
            pieces = numpy(stand_in, indices_or_sections, axis)
            along = operator.index(axis) % max(ary.ndim, 1)
        else:
            pieces = numpy(stand_in, indices_or_sections)
            along = {"hsplit": 1 if ary.ndim > 1 else 0, "vsplit": 0, "dsplit": 2}[numpy.__name__]
        out, start = [], 0
        for piece in pieces:
            stop = start + piece.shape[along]
            key = (slice(None),) * along + (slice(start, stop),)
            out.append(ary[key])
            start = stop
        return out

    split.__name__ = numpy.__name__
    return split


def unstack(x: Array, /, *, axis: int = 0) -> tuple[Array, ...]:
    return _unstack(x, axis=axis)


def take_along_axis(arr: Array, indices: Array, axis: int | None = -1) -> Array:
    """``np.take_along_axis``; ``axis=None`` on the flattened array."""
    if axis is None:
        arr, axis = reshape(arr, (-1,)), 0
    return _take_along_axis(arr, indices, axis=axis)


def matrix_transpose(x: Array, /) -> Array:
    return _matrix_transpose(x)


def memory_question(numpy: Any) -> Any:
    """``np.may_share_memory`` or ``np.shares_memory`` of strict arrays: a question about
    memory, not a computation. Where both arguments' data is NumPy's, NumPy answers;
    elsewhere views of one array share it, and a lazy array beside a NumPy one may read
    it."""

    def question(a: Any, b: Any, /, max_work: Any = None) -> bool:
        first, second = (v._data if type(v) is Array and v.device.host else v for v in (a, b))
        if isinstance(first, np.ndarray) and isinstance(second, np.ndarray):
            return bool(numpy(first, second, max_work=max_work))
        if type(a) is Array and type(b) is Array and a.device is b.device:
            return _root(a) is _root(b)
        return (type(a) is Array) != (type(b) is Array)

    question.__name__ = numpy.__name__
    return question
