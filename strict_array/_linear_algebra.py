"""Linear algebra functions of the main namespace.

The batch ("stack") dimensions of ``matmul`` and ``vecdot`` follow the strict
rank rule: operands of rank >= 2 must have equal rank (a 1-D ``matmul``
operand keeps its vector meaning).
"""

from __future__ import annotations

from collections.abc import Sequence

from ._array import Array, common_device, expect_array, result
from ._modes import promote_or_raise


def check_batch_ranks(op: str, x1: Array, x2: Array, core1: int = 2, core2: int = 2) -> None:
    """Stacks of matrices (``core`` axes each) whose batch parts differ in rank."""
    if x1.ndim - core1 != x2.ndim - core2:
        promote_or_raise(op, x1.shape, x2.shape, core=(core1, core2))


def matmul(x1: Array, x2: Array, /) -> Array:
    """Matrix product; stacks of matrices must have equal rank.

    Parameters
    ----------
    x1, x2 : Array
        A 1-D operand is a vector (a 1 is prepended/appended and then removed).

    Returns
    -------
    Array

    Raises
    ------
    RankPromotionError
        Stacks of different ranks (e.g. ``(2, 3, 4) @ (4, 5)``) in mode ``"raise"``.
    """
    dev = common_device("matmul", (x1, x2))
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError(
            f"matmul: operands must be at least 1-D, got shapes {x1.shape} and {x2.shape}; "
            "use multiply for scalars."
        )
    if x1.ndim >= 2 and x2.ndim >= 2:
        check_batch_ranks("matmul", x1, x2)
    k1, k2 = x1.shape[-1], x2.shape[0 if x2.ndim == 1 else -2]
    if k1 != k2 and k1 is not None and k2 is not None:
        raise ValueError(
            f"matmul: the contracted axes differ: x1 of shape {x1.shape} has {k1} columns "
            f"but x2 of shape {x2.shape} has {k2} rows."
        )
    return result(dev.ns.matmul(x1._data, x2._data), dev)


def matrix_transpose(x: Array, /) -> Array:
    """Transpose the last two axes of ``x`` (at least 2-D)."""
    x = expect_array("matrix_transpose", x)
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose: x must be at least 2-D, got shape {x.shape}.")
    return result(x._device.ns.matrix_transpose(x._data), x._device)


def tensordot(
    x1: Array, x2: Array, /, *, axes: int | tuple[Sequence[int], Sequence[int]] = 2
) -> Array:
    """Tensor contraction over ``axes`` (an int: the last/first ``axes`` axes)."""
    dev = common_device("tensordot", (x1, x2))
    return result(dev.ns.tensordot(x1._data, x2._data, axes=axes), dev)


def vecdot(x1: Array, x2: Array, /, *, axis: int = -1) -> Array:
    """Dot product of vectors along ``axis`` (conjugating ``x1``); equal ranks required."""
    dev = common_device("vecdot", (x1, x2))
    if x1.ndim != x2.ndim:
        check_batch_ranks("vecdot", x1, x2, 1, 1)
    return result(dev.ns.vecdot(x1._data, x2._data, axis=axis), dev)
