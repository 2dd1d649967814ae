"""Linear algebra functions of the main namespace.

The batch ("stack") dimensions of ``matmul`` and ``vecdot`` follow the strict
rank rule (section 2 of the semantics): operands of rank >= 2 must have equal
rank (a 1-D ``matmul`` operand keeps its vector meaning); the policy decides
otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import _policy as policy
from ._array import Array, _object_new, common_device, expect_array, result
from ._broadcasting import normalize_axis

__all__ = ["matmul", "matrix_transpose", "tensordot", "vecdot"]


def _sizes_agree(a: int | None, b: int | None) -> bool:
    """Contracted sizes never broadcast: equal, or both unknown (then the data decides);
    an unknown size against a known one cannot be checked before computing."""
    return a == b


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
    ValueError
        Contracted axes of different sizes, or batch shapes that do not broadcast.
    """
    if type(x1) is Array and type(x2) is Array:
        # vectors and matrices on one device: no batch axes, so the one check is the
        # contracted sizes' (read from the data: an unknown size, NaN on Dask, equals
        # nothing and takes the general path below, which also says what is wrong)
        dev = x1._device
        n1, n2 = x1._ndim, x2._ndim
        if x2._device is dev and 0 < n1 <= 2 and 0 < n2 <= 2:
            a, b = x1._data, x2._data
            if a.shape[-1] == b.shape[0 if n2 == 1 else -2]:
                fn = dev.functions.get("matmul") or dev.function("matmul")
                r = fn(a, b)
                if type(r) is not dev.native:  # (a vector's dot product: a scalar)
                    r = dev.coerce(r)
                # _array.RESULT, inlined: on this hot path a call is a measurable share of the cost
                # (benchmarks/bench_namespace.py, the core rows)
                out = _object_new(Array)
                out._data = r
                out._device = dev
                out._ndim = n1 + n2 - 2
                return out
    dev = common_device("matmul", (x1, x2))
    n1, n2 = x1._ndim, x2._ndim
    if n1 == 0 or n2 == 0:
        raise ValueError(
            f"matmul: operands must be at least 1-D, got shapes {x1.shape} and {x2.shape}; "
            "use multiply for scalars."
        )
    s1, s2 = x1.shape, x2.shape
    if n1 >= 2 and n2 >= 2:
        policy.stacks("matmul", s1, s2)
    k1, k2 = s1[-1], s2[0 if n2 == 1 else -2]
    if not _sizes_agree(k1, k2):
        raise ValueError(
            f"matmul: the contracted axes differ: x1 of shape {s1} has {k1} columns "
            f"but x2 of shape {s2} has {k2} rows"
            + (
                " (an unknown size, None, cannot be checked before computing)."
                if None in (k1, k2)
                else "."
            )
        )
    return result(dev.function("matmul")(x1._data, x2._data), dev)


def matrix_transpose(x: Array, /) -> Array:
    """Transpose the last two axes of ``x`` (at least 2-D).

    Parameters
    ----------
    x : Array

    Returns
    -------
    Array
    """
    if type(x) is not Array:
        expect_array("matrix_transpose", x)
    if x._ndim < 2:
        raise ValueError(f"matrix_transpose: x must be at least 2-D, got shape {x.shape}.")
    dev = x._device
    return result(dev.function("matrix_transpose")(x._data), dev)


def tensordot(
    x1: Array, x2: Array, /, *, axes: int | tuple[Sequence[int], Sequence[int]] = 2
) -> Array:
    """Tensor contraction over ``axes``.

    Parameters
    ----------
    x1, x2 : Array
    axes : int or pair of sequences of int
        An int ``n``: the last ``n`` axes of ``x1`` with the first ``n`` of ``x2``;
        a pair: the axes of each to contract, in order.

    Returns
    -------
    Array
    """
    dev = common_device("tensordot", (x1, x2))
    s1, s2 = x1.shape, x2.shape
    if isinstance(axes, int):
        if not 0 <= axes <= min(len(s1), len(s2)):
            raise ValueError(
                f"tensordot: axes={axes} must be between 0 and the smaller rank "
                f"({min(len(s1), len(s2))}) of shapes {s1} and {s2}."
            )
        pairs = list(zip(range(len(s1) - axes, len(s1)), range(axes)))
    else:
        first, second = (tuple(a) for a in axes)
        if len(first) != len(second):
            raise ValueError(f"tensordot: axes={axes!r} must pair up as many axes of each.")
        pairs = [
            (normalize_axis("tensordot", a, len(s1)), normalize_axis("tensordot", b, len(s2)))
            for a, b in zip(first, second)
        ]
    for a, b in pairs:
        if not _sizes_agree(s1[a], s2[b]):
            raise ValueError(
                f"tensordot: axis {a} of x1 (shape {s1}) has size {s1[a]} but axis {b} of "
                f"x2 (shape {s2}) has size {s2[b]}; contracted axes must have equal sizes "
                "(an unknown size, None, cannot be checked before computing)."
            )
    return result(dev.ns.tensordot(x1._data, x2._data, axes=axes), dev)


def vecdot(x1: Array, x2: Array, /, *, axis: int = -1) -> Array:
    """Dot product of vectors along ``axis`` (conjugating ``x1``).

    Parameters
    ----------
    x1, x2 : Array
        Stacks of vectors of equal rank (the policy decides otherwise).
    axis : int, default -1
        The axis of the vectors.

    Returns
    -------
    Array
    """
    dev = common_device("vecdot", (x1, x2))
    s1, s2 = x1.shape, x2.shape
    if s1 == s2 and None not in s1 and type(axis) is int and -len(s1) <= axis < 0:
        # one shape, every size known, an axis counted from the end: each check below
        # passes (equal batch shapes broadcast, the vectors have one length)
        return result(dev.function("vecdot")(x1._data, x2._data, axis=axis), dev)
    policy.stacks("vecdot", s1, s2, 1, 1)
    for name, s in (("x1", s1), ("x2", s2)):
        if not (type(axis) is int and -len(s) <= axis < len(s)):  # (the name costs)
            normalize_axis("vecdot", axis, len(s), f"axis (of {name}, shape {s})")
    if axis >= 0 and len(s1) != len(s2):
        raise ValueError(
            f"vecdot: axis={axis} for operands of shapes {s1} and {s2} of different ranks: "
            "the standard counts the axis from the end of the broadcast shape, NumPy from "
            f"the start of each operand; give a negative axis, e.g. axis={axis - len(s1)} "
            "for x1's."
        )
    axis = axis - len(s1) if axis >= 0 else axis  # (the standard's form: from the end)
    if not _sizes_agree(s1[axis], s2[axis]):  # the vectors' axis never broadcasts
        raise ValueError(
            f"vecdot: the vectors along axis {axis} differ in length: shapes {s1} and {s2} "
            "(an unknown size, None, cannot be checked before computing)."
        )
    return result(dev.ns.vecdot(x1._data, x2._data, axis=axis), dev)
