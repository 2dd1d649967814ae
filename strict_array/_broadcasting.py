"""Shape rules of strict broadcasting, kept apart from execution.

Everything here is pure: functions of shape tuples that either return a shape
(or a plan) or raise an error naming the operation, the shapes and the fix.
Nothing here knows about NumPy, Dask or array objects, so the same rules hold
on every device. Unknown (data-dependent) sizes are ``None``.

The contract is docs/semantics.md: sections 1-3 for broadcasting and
``broadcast_in_dim``, section 5 for ``sum_to``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

Shape = tuple["int | None", ...]

__all__ = [
    "RankPromotionError",
    "RankPromotionWarning",
    "broadcast_dim",
    "broadcast_shapes",
    "broadcast_in_dim_shape",
    "candidate_broadcast_dimensions",
    "check_broadcast_dimensions",
    "insert_axes_key",
    "numpy_trailing_dimensions",
    "rank_promotion_message",
    "sum_to_plan",
]

#: At most this many alternatives are listed in an error message.
_MAX_CANDIDATES = 8


class RankPromotionError(ValueError):
    """An operation between arrays of different ranks without ``broadcast_dimensions``.

    Raised in the default ``"raise"`` rank-promotion mode. The message names the
    operation, both shapes and the ``broadcast_dimensions`` that would make the
    call explicit.
    """

    __module__ = "strict_array"


class RankPromotionWarning(UserWarning):
    """NumPy-style rank promotion happened in the ``"warn"`` rank-promotion mode.

    The warning is attributed to the first stack frame outside ``strict_array``,
    so the standard :mod:`warnings` filters (by module, ``-W error::...``,
    pytest's ``filterwarnings``) apply to it.
    """

    __module__ = "strict_array"


def _fmt(shape: Shape) -> str:
    inner = ", ".join("?" if s is None else str(s) for s in shape)
    return f"({inner},)" if len(shape) == 1 else f"({inner})"


def broadcast_dim(a: int | None, b: int | None) -> int | None:
    """Degenerate broadcasting of one dimension; ``-1`` marks a conflict."""
    if a == b:
        return a
    if a == 1:
        return b
    if b == 1:
        return a
    return -1  # unknown against a known size other than 1 is a conflict, as in Dask


def broadcast_shapes(op: str, shape1: Shape, shape2: Shape) -> Shape:
    """Result shape of degenerate (same-rank, size-1) broadcasting (rule 2).

    Raises
    ------
    RankPromotionError
        If the ranks differ (the caller decides about rank promotion first).
    ValueError
        If a pair of sizes is neither equal nor contains a 1.
    """
    if len(shape1) != len(shape2):
        raise RankPromotionError(rank_promotion_message(op, shape1, shape2, "raise"))
    out = []
    for axis, (a, b) in enumerate(zip(shape1, shape2)):
        d = broadcast_dim(a, b)
        if d == -1:
            raise ValueError(
                f"{op}: shapes {_fmt(shape1)} and {_fmt(shape2)} cannot be broadcast: "
                f"axis {axis} has sizes {_size(a)} and {_size(b)}, which are neither "
                "equal nor 1. Reshape or slice one operand so that every axis has "
                "equal sizes or size 1."
            )
        out.append(d)
    return tuple(out)


def _size(s: int | None) -> str:
    return "unknown" if s is None else str(s)


def numpy_trailing_dimensions(low_ndim: int, high_ndim: int) -> tuple[int, ...]:
    """The ``broadcast_dimensions`` equivalent to NumPy's trailing alignment."""
    return tuple(range(high_ndim - low_ndim, high_ndim))


def _compatible(a: int | None, b: int | None) -> bool:
    return broadcast_dim(a, b) != -1


def candidate_broadcast_dimensions(low: Shape, high: Shape) -> list[tuple[int, ...]]:
    """Every valid ``broadcast_dimensions`` mapping ``low`` into ``high``.

    Trailing (NumPy) alignment comes first when it is valid; at most
    ``_MAX_CANDIDATES + 1`` candidates are returned.
    """
    found = []
    for dims in itertools.combinations(range(len(high)), len(low)):
        if all(_compatible(low[i], high[d]) for i, d in enumerate(dims)):
            found.append(dims)
            if len(found) > _MAX_CANDIDATES:
                break
    trailing = numpy_trailing_dimensions(len(low), len(high))
    if trailing in found:
        found.remove(trailing)
        found.insert(0, trailing)
    return found


def _reduced_axes(low: Shape, high: Shape) -> list[tuple[int, ...]]:
    """Axes of ``high`` whose removal leaves exactly ``low`` (a reduction result)."""
    out = []
    for dims in itertools.combinations(range(len(high)), len(low)):
        if all(low[i] == high[d] for i, d in enumerate(dims)):
            out.append(tuple(a for a in range(len(high)) if a not in dims))
    return out


def rank_promotion_message(
    op: str, shape1: Shape, shape2: Shape, mode: str, *, takes_dims: bool = True
) -> str:
    """The error or warning text for rank promotion between two shapes.

    It names the operation and both shapes, and gives the fix: the candidate
    ``broadcast_dimensions`` (NumPy's trailing alignment first) and
    ``keepdims=True`` where the lower-rank operand looks like a reduction.
    ``takes_dims=False`` is for operations without a ``broadcast_dimensions``
    argument (``where``, ``clip``, ``x[key] = v``, ...): the fix is then
    ``broadcast_in_dim`` on the lower-rank operand.
    """
    low, high = (shape1, shape2) if len(shape1) < len(shape2) else (shape2, shape1)
    which = "first" if low is shape1 else "second"
    head = (
        f"{op}: operands of shapes {_fmt(shape1)} and {_fmt(shape2)} have different "
        f"ranks ({len(shape1)} and {len(shape2)})"
    )
    if mode != "raise":
        head += f"; NumPy-style rank promotion applied (rank-promotion mode {mode!r})"
    elif takes_dims:
        head += " and broadcast_dimensions was not given"
    cands = candidate_broadcast_dimensions(low, high)
    trailing = numpy_trailing_dimensions(len(low), len(high))
    parts = [head + "."]
    if cands:
        shown = [
            f"broadcast_dimensions={c}" + (" (NumPy's trailing alignment)" if c == trailing else "")
            for c in cands[:_MAX_CANDIDATES]
        ]
        more = " (and more)" if len(cands) > _MAX_CANDIDATES else ""
        if takes_dims:
            parts.append(
                f"Say which axes of the {which} (rank-{len(low)}) operand map to which "
                f"axes of the rank-{len(high)} result: " + " or ".join(shown) + more + "."
            )
        else:
            parts.append(
                f"Give the {which} operand rank {len(high)} first with "
                f"strict_array.broadcast_in_dim(operand, {_fmt(high)}, ...) using "
                + " or ".join(shown)
                + more
                + "."
            )
    else:
        parts.append(
            f"No broadcast_dimensions maps shape {_fmt(low)} into {_fmt(high)}: every "
            "mapped size must equal the target size or be 1 (NumPy's trailing "
            f"alignment {trailing} does not fit either)."
        )
    reduced = _reduced_axes(low, high)
    if reduced:
        axes = " or ".join(str(r[0]) if len(r) == 1 else str(r) for r in reduced[:3])
        parts.append(
            f"If the {which} operand is a reduction of the other over axis {axes}, "
            "compute it with keepdims=True instead."
        )
    if mode == "raise" and trailing in cands:
        parts.append(
            "To accept NumPy-style rank promotion instead, use "
            "strict_array.rank_promotion('warn') or ('allow')."
        )
    return " ".join(parts)


def batch_rank_message(
    op: str, shape1: Shape, shape2: Shape, core1: int, core2: int, mode: str
) -> str:
    """The error or warning text for stacks whose batch parts differ in rank.

    ``core1``/``core2`` trailing axes of each operand are its matrix (or vector)
    axes; the axes before them are the batch ("stack") axes.
    """
    b1, b2 = shape1[: len(shape1) - core1], shape2[: len(shape2) - core2]
    low = 1 if len(b1) < len(b2) else 2
    missing = abs(len(b1) - len(b2))
    head = (
        f"{op}: operands of shapes {_fmt(shape1)} and {_fmt(shape2)} have batch shapes "
        f"{_fmt(b1)} and {_fmt(b2)} of different ranks"
    )
    if mode != "raise":
        return head + f"; NumPy-style rank promotion applied (rank-promotion mode {mode!r})."
    lead = "(None,) * " + str(missing) if missing > 1 else "None"
    return (
        f"{head}. Give operand {low} the same number of batch axes first, e.g. "
        f"x{low}[{lead}, ...] or strict_array.expand_dims(x{low}, axis=0) "
        "(or broadcast_in_dim to place them), or use strict_array.rank_promotion('warn') "
        "or ('allow') to accept NumPy-style rank promotion."
    )


def check_dims_tuple(op: str, name: str, dims: object) -> tuple[int, ...]:
    if not isinstance(dims, (tuple, list)):
        raise TypeError(
            f"{op}: {name} must be a tuple of ints, got {type(dims).__name__} {dims!r}."
        )
    for d in dims:
        if isinstance(d, bool) or not isinstance(d, int):
            raise TypeError(
                f"{op}: {name} entries must be ints (not bool), got {d!r} in {tuple(dims)!r}."
            )
    return tuple(int(d) for d in dims)


def check_broadcast_dimensions(
    op: str,
    low: Shape,
    high: Shape,
    dims: object,
    *,
    name: str = "broadcast_dimensions",
    target: str = "the higher-rank operand",
) -> tuple[int, ...]:
    """Validate ``dims`` mapping shape ``low`` into shape ``high`` (section 1.3).

    Checks, in order, each with its own message: the length equals
    ``len(low)``; each entry is an int (not a bool) with
    ``0 <= d < len(high)``; sizes are compatible; entries strictly increase.
    Returns the validated tuple.
    """
    dims = check_dims_tuple(op, name, dims)
    if len(dims) != len(low):
        raise ValueError(
            f"{op}: {name}={dims} has {len(dims)} entries but the operand of shape "
            f"{_fmt(low)} has rank {len(low)}; give one target axis of {target} "
            f"{_fmt(high)} per axis, e.g. {numpy_trailing_dimensions(len(low), len(high))}."
        )
    for d in dims:
        if not 0 <= d < len(high):
            raise ValueError(
                f"{op}: {name}={dims} has entry {d} outside [0, {len(high)}) for "
                f"{target} of shape {_fmt(high)} (negative entries are not wrapped)."
            )
    for i, d in enumerate(dims):
        if not _compatible(low[i], high[d]):
            raise ValueError(
                f"{op}: {name}={dims} maps axis {i} (size {_size(low[i])}) of shape "
                f"{_fmt(low)} to axis {d} (size {_size(high[d])}) of shape {_fmt(high)}; "
                "mapped sizes must be equal or 1." + _suggest(low, high)
            )
    for a, b in itertools.pairwise(dims):
        if not a < b:
            raise ValueError(
                f"{op}: {name}={dims} must be strictly increasing (no repeated or "
                "reordered axes); to reorder axes use permute_dims first."
            )
    return dims


def _suggest(low: Shape, high: Shape) -> str:
    cands = candidate_broadcast_dimensions(low, high)
    if not cands:
        return ""
    return " Valid choices: " + ", ".join(str(c) for c in cands[:_MAX_CANDIDATES]) + "."


def insert_axes_key(high_ndim: int, dims: tuple[int, ...]) -> tuple[slice | None, ...]:
    """Index key viewing an operand at rank ``high_ndim``: its axes go to ``dims``,
    every other position gets a new size-1 axis (``None``)."""
    mapped = set(dims)
    return tuple(slice(None) if d in mapped else None for d in range(high_ndim))


def check_same_rank_dimensions(op: str, ndim: int, dims: object) -> None:
    """Rule 2: with equal ranks, ``dims`` must be None or the identity."""
    if dims is None:
        return
    dims = check_dims_tuple(op, "broadcast_dimensions", dims)
    if dims != tuple(range(ndim)):
        raise ValueError(
            f"{op}: both operands have rank {ndim}, so broadcast_dimensions must be None "
            f"or the identity {tuple(range(ndim))}, got {dims}; use permute_dims to "
            "reorder axes."
        )


def broadcast_in_dim_shape(op: str, shape: Shape, target: Shape, dims: object) -> tuple[int, ...]:
    """Validate ``broadcast_in_dim`` (section 3); return the validated dimensions."""
    if len(shape) > len(target):
        raise ValueError(
            f"{op}: cannot broadcast shape {_fmt(shape)} to the lower-rank shape "
            f"{_fmt(target)}; the target rank must be at least {len(shape)}."
        )
    dims = check_broadcast_dimensions(op, shape, target, dims, target="the target shape")
    for i, d in enumerate(dims):
        if shape[i] != 1 and shape[i] != target[d]:
            raise ValueError(
                f"{op}: axis {i} of shape {_fmt(shape)} has size {_size(shape[i])} but "
                f"maps to axis {d} of size {_size(target[d])} in {_fmt(target)}; only "
                "size 1 may be broadcast."
            )
    return dims


def sum_to_plan(
    op: str, shape: Shape, target: Shape, dims: object, mode: str
) -> tuple[tuple[int, ...], tuple[int, ...], bool]:
    """Plan ``sum_to(x, target, dims)`` for ``x`` of shape ``shape`` (section 5).

    Returns ``(dropped, squeezed, promoted)``: the axes of ``x`` that are not
    in the target (summed away) and the mapped axes whose target size is 1
    (summed, kept as size 1). ``promoted`` is True when the rank-promotion mode
    supplied NumPy's trailing alignment (the caller warns).
    """
    target = tuple(target)
    promoted = False
    if len(target) > len(shape):
        raise ValueError(
            f"{op}: target shape {_fmt(target)} has more axes than the array's shape "
            f"{_fmt(shape)}; sum_to only removes or reduces axes (use broadcast_in_dim "
            "to add them)."
        )
    if len(target) == len(shape):
        check_same_rank_dimensions(op, len(shape), dims)
        dims = tuple(range(len(shape)))
    elif len(target) == 0:
        if dims is not None and check_dims_tuple(op, "broadcast_dimensions", dims):
            raise ValueError(
                f"{op}: target shape () is a scalar, so broadcast_dimensions must be None "
                f"or (), got {tuple(dims)}."  # type: ignore[arg-type]
            )
        dims = ()
    elif dims is None:
        if mode == "raise":
            raise RankPromotionError(
                f"{op}: target shape {_fmt(target)} has lower rank than the array's shape "
                f"{_fmt(shape)} and broadcast_dimensions was not given. Say which axes of "
                "the array the target's axes are, e.g. broadcast_dimensions="
                f"{numpy_trailing_dimensions(len(target), len(shape))} (NumPy's trailing "
                "alignment)"
                + _alternatives(target, shape)
                + ". To accept NumPy-style alignment instead, use "
                "strict_array.rank_promotion('warn') or ('allow')."
            )
        dims = numpy_trailing_dimensions(len(target), len(shape))
        promoted = True
    else:
        dims = check_broadcast_dimensions(op, target, shape, dims, target="the array")
    for i, d in enumerate(dims):
        t, s = target[i], shape[d]
        if t != 1 and t != s:
            raise ValueError(
                f"{op}: cannot sum shape {_fmt(shape)} to {_fmt(target)}"
                + (f" with broadcast_dimensions={dims}" if len(dims) != len(shape) else "")
                + f": target axis {i} has size {_size(t)} but array axis {d} has size "
                f"{_size(s)}; each target size must equal the array's or be 1."
            )
    mapped = set(dims)
    dropped = tuple(a for a in range(len(shape)) if a not in mapped)
    squeezed = tuple(d for i, d in enumerate(dims) if target[i] == 1 and shape[d] != 1)
    return dropped, squeezed, promoted


def _alternatives(target: Shape, shape: Shape) -> str:
    cands = [
        c
        for c in candidate_broadcast_dimensions(target, shape)
        if c != numpy_trailing_dimensions(len(target), len(shape))
    ]
    if not cands:
        return ""
    return "; other valid choices: " + ", ".join(str(c) for c in cands[:_MAX_CANDIDATES])


def as_shape(shape: object, op: str) -> tuple[int, ...]:
    """Normalise a user-given shape (an int or a sequence of ints)."""
    if isinstance(shape, int) and not isinstance(shape, bool):
        return (shape,)
    if not isinstance(shape, Sequence) or isinstance(shape, str):
        raise TypeError(f"{op}: shape must be a tuple of ints, got {shape!r}.")
    out = []
    for s in shape:
        if isinstance(s, bool) or not hasattr(s, "__index__"):
            raise TypeError(f"{op}: shape entries must be ints, got {s!r} in {tuple(shape)!r}.")
        out.append(s.__index__())
    return tuple(out)
