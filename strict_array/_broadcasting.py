"""Shape rules of strict broadcasting, kept apart from execution and from policy.

Everything here is pure: functions of shape tuples that return a shape or a
plan, or raise an error naming the operation, the shapes and the fix when the
arguments themselves are invalid. Nothing here knows about backends or array
objects, so the same rules hold on every device; unknown (data-dependent)
sizes are ``None``.

Where an operation would *promote ranks* (operands of different ranks without
``broadcast_dimensions``), a plan carries a :class:`Promotion`; deciding what
happens to it (raise, warn, record, allow) is the policy's job
(:mod:`strict_array._policy`), never this module's.

The contract is the "Semantics" page of the documentation (``docs/semantics.md``):
sections 1-3 for broadcasting and ``broadcast_in_dim``, section 5 for ``sum_to``.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, TypeVar

import numpy as np

from ._typing import Shape

__all__ = [
    "basic_key_rank",
    "BinaryPlan",
    "Promotion",
    "SumToPlan",
    "as_shape",
    "batch_plan",
    "binary_plan",
    "broadcast_dim",
    "broadcast_in_dim_key",
    "broadcast_in_dim_shape",
    "broadcast_shapes",
    "candidate_broadcast_dimensions",
    "check_broadcast_dimensions",
    "index_shape",
    "insert_axes_key",
    "normalize_axes",
    "normalize_axis",
    "numpy_trailing_dimensions",
    "operands_plan",
    "promotion_message",
    "remembered",
    "stretches_both",
    "sum_to_plan",
]

#: At most this many alternatives are listed in an error message.
_MAX_CANDIDATES = 8


def _fmt(shape: Shape) -> str:
    inner = ", ".join("?" if s is None else str(s) for s in shape)
    return f"({inner},)" if len(shape) == 1 else f"({inner})"


def _and(shapes: Sequence[Shape]) -> str:
    shown = [_fmt(s) for s in shapes]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def _size(s: int | None) -> str:
    return "unknown" if s is None else str(s)


# --- degenerate (size-1) broadcasting -----------------------------------------------
def broadcast_dim(a: int | None, b: int | None) -> int | None:
    """Degenerate broadcasting of one dimension; ``-1`` marks a conflict.

    Unknown against 1 or unknown stays unknown; unknown against a known size
    other than 1 is a conflict (section 4), as Dask's own checks should but do not say.
    """
    if a == b:
        return a
    if a == 1:
        return b
    if b == 1:
        return a
    return -1


#: Section 4, where an unknown size meets a known one other than 1
_UNKNOWN_SIZE_NOTE = (
    " (a size unknown until computed broadcasts only against 1 or another unknown size; "
    "make the sizes known first: strict_array.known_sizes(), or the calling package in "
    "the rank-promotion policy's known_sizes)"
)


def broadcast_shapes(op: str, *shapes: Shape) -> Shape:
    """The shape NumPy-style broadcasting of ``shapes`` gives (``None`` = unknown).

    Shapes of lower rank are aligned with the trailing axes: callers apply the
    rank rule first, so for them this is degenerate broadcasting of equal ranks.

    Raises
    ------
    ValueError
        A pair of sizes on one axis is neither equal nor 1, naming ``op``, the
        shapes and the axis.
    """
    if shapes and type(shapes[0]) is tuple and shapes.count(shapes[0]) == len(shapes):
        return shapes[0]  # equal shapes broadcast to themselves (the common case)
    ndim = max(map(len, shapes)) if shapes else 0
    out: list[int | None] = [1] * ndim
    for s in shapes:
        for axis, size in enumerate(s, ndim - len(s)):
            d = out[axis]  # broadcast_dim(d, size), inlined
            if d == size or size == 1:
                continue
            if d == 1:
                out[axis] = size
                continue
            unknown = _UNKNOWN_SIZE_NOTE if d is None or size is None else ""
            same_rank = all(len(t) == ndim for t in shapes)
            raise ValueError(
                f"{op}: shapes {_and(shapes)} cannot be broadcast: axis "
                f"{axis if same_rank else axis - ndim} has sizes {_size(d)} and "
                f"{_size(size)}, which are neither equal nor 1{unknown}. Reshape or "
                "slice an operand so that every axis has equal sizes or size 1."
            )
    return tuple(out)


# --- broadcast_dimensions -----------------------------------------------------------
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


def _ints(obj: object) -> bool:
    """Whether ``obj`` is a tuple of Python ints (never bools): the normal form of a
    shape or of ``broadcast_dimensions``, which needs no conversion."""
    if type(obj) is not tuple:
        return False
    for d in obj:
        if type(d) is not int:
            return False
    return True


def _as_dims(op: str, name: str, dims: object, length: int) -> tuple[int, ...]:
    """A ``broadcast_dimensions`` argument as a tuple of ints, checked in the
    contract's order: a sequence, then its length, then each entry's type."""
    if not isinstance(dims, (tuple, list)):
        raise TypeError(
            f"{op}: {name} must be a tuple of ints, got {type(dims).__name__} {dims!r}."
        )
    if len(dims) != length:
        return tuple(dims)  # the caller reports the length with the shapes
    if _ints(dims):
        return dims  # type: ignore[return-value]  # already what the loop below makes
    out = []
    for d in dims:
        if isinstance(d, (bool, np.bool_)):
            raise TypeError(
                f"{op}: {name}={tuple(dims)!r} has the boolean entry {d!r}; entries must be "
                "integers (Python ints or NumPy integers), never booleans."
            )
        try:
            out.append(operator.index(d))  # type: ignore[arg-type]
        except TypeError:
            raise TypeError(
                f"{op}: {name}={tuple(dims)!r} has the entry {d!r} of type "
                f"{type(d).__name__}; entries must be integers (Python ints or NumPy "
                "integers, anything operator.index accepts), never booleans."
            ) from None
    return tuple(out)


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

    Checks, in order, each with its own message: a sequence whose length equals
    ``len(low)``; integer entries (never booleans); ``0 <= d < len(high)``;
    compatible sizes; strictly increasing. Returns the validated tuple.
    """
    checked = _as_dims(op, name, dims, len(low))
    if len(checked) != len(low):
        raise ValueError(
            f"{op}: {name}={checked} has {len(checked)} entries but the operand of shape "
            f"{_fmt(low)} has rank {len(low)}; give one target axis of {target} "
            f"{_fmt(high)} per axis, e.g. {numpy_trailing_dimensions(len(low), len(high))}."
        )
    for d in checked:
        if not 0 <= d < len(high):
            raise ValueError(
                f"{op}: {name}={checked} has entry {d} outside [0, {len(high)}) for "
                f"{target} of shape {_fmt(high)} (negative entries are not wrapped)."
            )
    for i, d in enumerate(checked):
        if not _compatible(low[i], high[d]):
            raise ValueError(
                f"{op}: {name}={checked} maps axis {i} (size {_size(low[i])}) of shape "
                f"{_fmt(low)} to axis {d} (size {_size(high[d])}) of shape {_fmt(high)}; "
                "mapped sizes must be equal or 1." + _suggest(low, high)
            )
    for a, b in itertools.pairwise(checked):
        if not a < b:
            raise ValueError(
                f"{op}: {name}={checked} must be strictly increasing (no repeated or "
                "reordered axes); to reorder axes use permute_dims first."
            )
    return checked


def _suggest(low: Shape, high: Shape) -> str:
    cands = candidate_broadcast_dimensions(low, high)
    if not cands:
        return ""
    return " Valid choices: " + ", ".join(str(c) for c in cands[:_MAX_CANDIDATES]) + "."


def check_same_rank_dimensions(op: str, ndim: int, dims: object) -> None:
    """Rule 2: with equal ranks, ``dims`` must be None or the identity."""
    if dims is None:
        return
    checked = _as_dims(op, "broadcast_dimensions", dims, ndim)
    if checked != tuple(range(ndim)):
        raise ValueError(
            f"{op}: both operands have rank {ndim}, so broadcast_dimensions must be None "
            f"or the identity {tuple(range(ndim))}, got {checked}; use permute_dims to "
            "reorder axes."
        )


def check_scalar_dimensions(op: str, dims: object) -> None:
    """Rule 1: a scalar operand always broadcasts; a non-empty ``dims`` is an error."""
    if dims is None:
        return
    checked = _as_dims(op, "broadcast_dimensions", dims, 0)
    if checked:
        raise ValueError(
            f"{op}: broadcast_dimensions={checked} was given but one operand is a "
            "scalar (a Python scalar or a 0-d array), which always broadcasts; omit "
            "broadcast_dimensions."
        )


def basic_key_rank(ndim: int, key: Any) -> int:
    """The rank of ``x[key]`` for an ``ndim``-axis ``x`` and a basic key (ints, slices,
    ``...``, None, or a tuple of them); -1 for any other key."""
    rank = ndim
    for part in key if type(key) is tuple else (key,):
        t = type(part)
        if t is int:
            rank -= 1
        elif part is None:
            rank += 1
        elif t is not slice and part is not Ellipsis:
            return -1
    return rank


def insert_axes_key(high_ndim: int, dims: tuple[int, ...]) -> tuple[slice | None, ...]:
    """Index key viewing an operand at rank ``high_ndim``: its axes go to ``dims``,
    every other position gets a new size-1 axis (``None``)."""
    mapped = set(dims)
    return tuple(slice(None) if d in mapped else None for d in range(high_ndim))


# --- promotions: what the policy decides about -----------------------------------------
class Promotion(NamedTuple):
    """A rank promotion about to happen; the policy raises, warns, records or allows it.

    ``kind`` says which rule: ``"binary"`` (element-wise functions, which take
    ``broadcast_dimensions``), ``"operands"`` (``where``, ``clip``, ``x[key] = v``,
    ``linalg.cross``: no ``broadcast_dimensions``), ``"batch"`` (stacks of
    matrices or vectors; ``core`` counts each operand's matrix axes) or
    ``"sum_to"`` (the adjoint of a promotion). ``failure`` is the error NumPy's
    trailing alignment would meet, raised instead of promoting.
    """

    op: str
    shape1: Shape
    shape2: Shape
    kind: str
    core: tuple[int, int] = (0, 0)
    failure: str | None = None


def stretches_both(kind: str, shape1: Shape, shape2: Shape, core: tuple[int, int] = (0, 0)) -> bool:
    """Whether NumPy's trailing alignment makes a result larger than both operands.

    Each operand is then stretched along some axis, as in an outer product:
    ``(n, 1) - (n,)`` is ``(n, n)``, where ``(n, 3) - (3,)`` only repeats the lower
    rank operand. These are the promotions most likely to be bugs (the audit table
    marks them). Only batch axes count for stacks (``kind="batch"``, ``core`` matrix
    axes each); ``sum_to`` reduces and never stretches. An unknown size (``None``)
    is not counted as a stretch.
    """
    if kind == "sum_to":
        return False
    if kind == "batch":
        shape1, shape2 = shape1[: len(shape1) - core[0]], shape2[: len(shape2) - core[1]]
    n = max(len(shape1), len(shape2))
    aligned = [(1,) * (n - len(s)) + tuple(s) for s in (shape1, shape2)]
    try:
        out = broadcast_shapes("", shape1, shape2)
    except ValueError:
        return False
    return all(
        any(size == 1 and r is not None and r > 1 for size, r in zip(a, out)) for a in aligned
    )


def promotion_message(p: Promotion, mode: str) -> str:
    """The error (``mode="raise"``) or warning text for a promotion, with the fix."""
    if p.kind == "batch":
        return _batch_message(p, mode)
    if p.kind == "sum_to":
        return _sum_to_message(p, mode)
    return _rank_message(p, mode)


def _applied(mode: str) -> str:
    return f"; NumPy-style rank promotion applied (rank-promotion mode {mode!r})"


def _rank_message(p: Promotion, mode: str) -> str:
    shape1, shape2 = p.shape1, p.shape2
    takes_dims = p.kind == "binary"
    low, high = (shape1, shape2) if len(shape1) < len(shape2) else (shape2, shape1)
    which = "first" if low is shape1 else "second"
    assigning = p.op == "__setitem__"  # (shape1: the selected region, shape2: the value)
    head = (
        f"{p.op}: the value of shape {_fmt(shape2)} has rank {len(shape2)} but the selected "
        f"region of shape {_fmt(shape1)} has rank {len(shape1)}"
        if assigning
        else f"{p.op}: operands of shapes {_fmt(shape1)} and {_fmt(shape2)} have different "
        f"ranks ({len(shape1)} and {len(shape2)})"
    )
    if mode != "raise":
        head += _applied(mode)
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
            # a size-1 axis where the operand has none fits any size there, also one
            # that depends on the data (the rows a mask selects): index, not a shape
            name = "value" if p.op == "__setitem__" else f"the {which} operand"
            var = "value" if p.op == "__setitem__" else "operand"
            keys = [
                f"{var}[" + ", ".join(":" if a is not None else "None" for a in
                                      insert_axes_key(len(high), c)) + "]"
                + (" (NumPy's trailing alignment)" if c == trailing else "")
                for c in cands[:_MAX_CANDIDATES]
            ]  # fmt: skip
            parts.append(
                f"Give {name} rank {len(high)} first, with size-1 axes where it has none: "
                + " or ".join(keys)
                + more
                + " (or strict_array.expand_dims)."
            )
    else:
        parts.append(
            f"No broadcast_dimensions maps shape {_fmt(low)} into {_fmt(high)}: every "
            "mapped size must equal the target size or be 1 (NumPy's trailing "
            f"alignment {trailing} does not fit either)."
        )
    reduced = [] if assigning else _reduced_axes(low, high)
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


def _reduced_axes(low: Shape, high: Shape) -> list[tuple[int, ...]]:
    """Axes of ``high`` whose removal leaves exactly ``low`` (a reduction result)."""
    out = []
    for dims in itertools.combinations(range(len(high)), len(low)):
        if all(low[i] == high[d] for i, d in enumerate(dims)):
            out.append(tuple(a for a in range(len(high)) if a not in dims))
    return out


def _batch_message(p: Promotion, mode: str) -> str:
    """Stacks whose batch ("stack") parts differ in rank: name the valid placements."""
    (core1, core2), shape1, shape2 = p.core, p.shape1, p.shape2
    b1, b2 = shape1[: len(shape1) - core1], shape2[: len(shape2) - core2]
    head = (
        f"{p.op}: operands of shapes {_fmt(shape1)} and {_fmt(shape2)} have batch shapes "
        f"{_fmt(b1)} and {_fmt(b2)} of different ranks"
    ) + ("" if mode == "raise" else _applied(mode))
    low_is_1 = len(b1) < len(b2)
    name = "x1" if low_is_1 else "x2"
    low, high = (b1, b2) if low_is_1 else (b2, b1)
    places = candidate_broadcast_dimensions(low, high)
    if not places:
        fix = (
            f"No placement of {name}'s batch axes {_fmt(low)} among the batch axes "
            f"{_fmt(high)} fits (each size must equal the other's or be 1); check the "
            "operands' shapes."
        )
    else:
        keys = [
            f"{name}[" + ", ".join(":" if a is not None else "None" for a in key) + ", ...]"
            for key in (insert_axes_key(len(high), dims) for dims in places[:_MAX_CANDIDATES])
        ]
        more = " (and more)" if len(places) > _MAX_CANDIDATES else ""
        axes = f"{len(high)} batch ax{'is' if len(high) == 1 else 'es'}"
        where = f", placing its batch axes {_fmt(low)} among {_fmt(high)}" if low else ""
        fix = f"Give {name} {axes} first{where}: " + " or ".join(keys) + more + "."
    if mode != "raise":  # the fix, without the modes that accept it (one is in force)
        return f"{head}. {fix}"
    return (
        f"{head}. {fix} To accept NumPy-style rank promotion instead, use "
        "strict_array.rank_promotion('warn') or ('allow')."
    )


def _sum_to_message(p: Promotion, mode: str) -> str:
    shape, target = p.shape1, p.shape2
    head = (
        f"{p.op}: target shape {_fmt(target)} has lower rank than the array's shape {_fmt(shape)}"
    )
    trailing = numpy_trailing_dimensions(len(target), len(shape))
    others = [c for c in candidate_broadcast_dimensions(target, shape) if c != trailing]
    alternatives = (
        "; other valid choices: " + ", ".join(str(c) for c in others[:_MAX_CANDIDATES])
        if others
        else ""
    )
    fix = (
        "Say which axes of the array the target's axes are, e.g. "
        f"broadcast_dimensions={trailing} (NumPy's trailing alignment){alternatives}."
    )
    if mode != "raise":
        return (
            f"{head}; NumPy's trailing alignment {trailing} applied (rank-promotion mode "
            f"{mode!r}). {fix}"
        )
    return (
        f"{head} and broadcast_dimensions was not given. {fix} To accept NumPy-style "
        "alignment instead, use strict_array.rank_promotion('warn') or ('allow')."
    )


# --- plans ---------------------------------------------------------------------------
_Plan = TypeVar("_Plan")

#: Plans kept per rule; a program past this many distinct calls starts afresh.
_MAX_PLANS = 1024
_UNPLANNED: Any = object()


def remembered(
    rule: Callable[[str, Shape, Shape, Any], _Plan],
) -> Callable[[str, Shape, Shape, Any], _Plan]:
    """``rule(op, shape1, shape2, dims)``, its plans kept by their arguments.

    A rule is a pure function of shapes and dimensions, and a program applies one
    operation to the same shapes again and again: a plan is made once and then
    looked up. Only a successful plan is kept, so every invalid call raises its
    error each time. ``dims`` is a key only as ``None`` or a tuple of Python ints:
    ``True`` equals ``1`` and hashes like it, so ``(True,)`` would find the plan of
    ``(1,)`` and miss its error; other spellings are planned at every call.
    """
    plans: dict[tuple[Any, ...], _Plan] = {}

    def plan(op: str, shape1: Shape, shape2: Shape, dims: Any) -> _Plan:
        if dims is not None:  # (_ints, inlined: this is every explicit broadcast's path)
            if type(dims) is not tuple:
                return rule(op, shape1, shape2, dims)
            for d in dims:
                if type(d) is not int:
                    return rule(op, shape1, shape2, dims)
        key = (op, shape1, shape2, dims)
        found = plans.get(key, _UNPLANNED)
        if found is _UNPLANNED:
            found = rule(op, shape1, shape2, dims)
            if len(plans) >= _MAX_PLANS:
                plans.clear()
            plans[key] = found
        return found

    plan.__name__, plan.__qualname__, plan.__doc__ = rule.__name__, rule.__qualname__, rule.__doc__
    plan.__wrapped__ = rule  # type: ignore[attr-defined]
    plan.plans = plans  # type: ignore[attr-defined]  # (for tests)
    return plan


class BinaryPlan(NamedTuple):
    """How a binary element-wise operation broadcasts its operands.

    ``low`` is the operand (0 or 1) viewed at the higher rank, or -1 when no
    operand is mapped; ``key`` inserts its unmapped axes (None when NumPy's
    trailing alignment does it by itself); ``promotion`` is set when the ranks
    differ and ``broadcast_dimensions`` was not given.
    """

    low: int
    key: tuple[slice | None, ...] | None
    promotion: Promotion | None


_NO_MAPPING = BinaryPlan(-1, None, None)


@remembered
def binary_plan(op: str, shape1: Shape, shape2: Shape, dims: object) -> BinaryPlan:
    """Plan a binary element-wise operation (section 1)."""
    n1, n2 = len(shape1), len(shape2)
    if n1 == n2:
        check_same_rank_dimensions(op, n1, dims)
        return _NO_MAPPING
    if n1 == 0 or n2 == 0:  # a 0-d array is a scalar
        check_scalar_dimensions(op, dims)
        return _NO_MAPPING
    low, (low_shape, high_shape) = (0, (shape1, shape2)) if n1 < n2 else (1, (shape2, shape1))
    trailing = numpy_trailing_dimensions(len(low_shape), len(high_shape))
    if dims is not None:
        checked = check_broadcast_dimensions(op, low_shape, high_shape, dims)
        key = None if checked == trailing else insert_axes_key(len(high_shape), checked)
        return BinaryPlan(low, key, None)
    failure = None
    try:
        check_broadcast_dimensions(op, low_shape, high_shape, trailing)
    except ValueError as e:
        failure = (
            f"{op}: shapes {_fmt(shape1)} and {_fmt(shape2)} cannot be broadcast with "
            f"NumPy's trailing alignment ({e})"
        )
    return BinaryPlan(low, None, Promotion(op, shape1, shape2, "binary", failure=failure))


def operands_plan(op: str, *shapes: Shape) -> tuple[Shape, Promotion | None]:
    """The result shape of operands that broadcast without ``broadcast_dimensions``
    (``where``, ``clip``, ``x[key] = v``, ``linalg.cross``: section 2), and the
    promotion when their ranks differ (0-d operands are scalars)."""
    pair = mixed_ranks(shapes)
    if pair is None:
        return broadcast_shapes(op, *shapes), None
    try:
        shape = broadcast_shapes(op, *shapes)
    except ValueError as e:
        return (), Promotion(op, *pair, "operands", failure=str(e))
    return shape, Promotion(op, *pair, "operands")


def mixed_ranks(shapes: Sequence[Shape]) -> tuple[Shape, Shape] | None:
    """The first operand of rank at least 1 and the first of another rank, if any (0-d
    operands are scalars)."""
    ranked = [s for s in shapes if len(s)]
    for other in ranked[1:]:
        if len(other) != len(ranked[0]):
            return ranked[0], other
    return None


def batch_plan(
    op: str, shape1: Shape, shape2: Shape, core1: int = 2, core2: int = 2
) -> Promotion | None:
    """Stacks of matrices (``core`` axes each): the promotion when the batch parts'
    ranks differ (section 2). Batch sizes are checked by :func:`batch_shape`."""
    if len(shape1) - core1 == len(shape2) - core2 >= 0:
        return None  # batch parts of one rank (the slices below, without making them)
    b1, b2 = shape1[: len(shape1) - core1], shape2[: len(shape2) - core2]
    if len(b1) == len(b2):
        return None
    failure = None
    try:
        broadcast_shapes(op, b1, b2)
    except ValueError as e:
        failure = str(e)
    return Promotion(op, shape1, shape2, "batch", (core1, core2), failure)


def batch_shape(op: str, shape1: Shape, shape2: Shape, core1: int, core2: int) -> Shape:
    """The broadcast batch shape of two stacks (after the policy allowed any promotion)."""
    b1, b2 = shape1[: len(shape1) - core1], shape2[: len(shape2) - core2]
    try:
        return broadcast_shapes(op, b1, b2)
    except ValueError:
        raise ValueError(
            f"{op}: the batch shapes {_fmt(b1)} and {_fmt(b2)} of operands of shapes "
            f"{_fmt(shape1)} and {_fmt(shape2)} cannot be broadcast: each batch size must "
            "equal the other's or be 1" + (_UNKNOWN_SIZE_NOTE if None in (*b1, *b2) else "") + "."
        ) from None


# --- broadcast_in_dim and its adjoint -------------------------------------------------
def broadcast_in_dim_shape(op: str, shape: Shape, target: Shape, dims: object) -> tuple[int, ...]:
    """Validate ``broadcast_in_dim`` (section 3); return the validated dimensions."""
    if len(shape) > len(target):
        raise ValueError(
            f"{op}: cannot broadcast shape {_fmt(shape)} to the lower-rank shape "
            f"{_fmt(target)}; the target rank must be at least {len(shape)}."
        )
    checked = check_broadcast_dimensions(op, shape, target, dims, target="the target shape")
    for i, d in enumerate(checked):
        if shape[i] is None:  # (section 4: whether it is 1 or target[d] is the data's)
            raise ValueError(
                f"{op}: axis {i} of shape {_fmt(shape)} has a size unknown until computed, "
                f"which must be {'1' if target[d] == 1 else f'1 or {_size(target[d])}'} to "
                f"map to axis {d} of "
                f"{_fmt(target)}; make it known first (strict_array.known_sizes() or "
                "strict_array.persist)."
            )
        if shape[i] != 1 and shape[i] != target[d]:
            raise ValueError(
                f"{op}: axis {i} of shape {_fmt(shape)} has size {_size(shape[i])} but "
                f"maps to axis {d} of size {_size(target[d])} in {_fmt(target)}; only "
                "size 1 may be broadcast."
            )
    return checked


@remembered
def broadcast_in_dim_key(
    op: str, shape: Shape, target: Shape, dims: object
) -> tuple[slice | None, ...] | None:
    """Validate ``broadcast_in_dim`` (section 3): the key viewing the operand at the
    target's rank, or None where NumPy's trailing alignment places its axes."""
    checked = broadcast_in_dim_shape(op, shape, target, dims)
    if checked == numpy_trailing_dimensions(len(shape), len(target)):
        return None
    return insert_axes_key(len(target), checked)


class SumToPlan(NamedTuple):
    """How ``sum_to`` reduces: ``dropped`` axes are summed away, ``squeezed``
    (mapped axes whose target size is 1) are summed and kept; ``promotion`` is
    set when the target's placement was not given (the adjoint of a promotion)."""

    dropped: tuple[int, ...]
    squeezed: tuple[int, ...]
    promotion: Promotion | None


@remembered
def sum_to_plan(op: str, shape: Shape, target: Shape, dims: object) -> SumToPlan:
    """Plan ``sum_to(x, target, dims)`` for ``x`` of shape ``shape`` (section 5)."""
    promotion = None
    if len(target) > len(shape):
        raise ValueError(
            f"{op}: target shape {_fmt(target)} has more axes than the array's shape "
            f"{_fmt(shape)}; sum_to only removes or reduces axes (use broadcast_in_dim "
            "to add them)."
        )
    if len(target) == len(shape):
        check_same_rank_dimensions(op, len(shape), dims)
        checked = tuple(range(len(shape)))
    elif len(target) == 0:
        if dims is not None and _as_dims(op, "broadcast_dimensions", dims, 0):
            raise ValueError(
                f"{op}: target shape () is a scalar, so broadcast_dimensions must be None "
                f"or (), got {tuple(dims)}."  # type: ignore[arg-type]
            )
        checked = ()
    elif dims is None:
        checked = numpy_trailing_dimensions(len(target), len(shape))
        promotion = Promotion(op, shape, target, "sum_to")
    else:
        checked = check_broadcast_dimensions(op, target, shape, dims, target="the array")
    for i, d in enumerate(checked):
        t, s = target[i], shape[d]
        if t != 1 and t != s:
            message = (
                f"{op}: cannot sum shape {_fmt(shape)} to {_fmt(target)}"
                + (f" with broadcast_dimensions={checked}" if len(checked) != len(shape) else "")
                + f": target axis {i} has size {_size(t)} but array axis {d} has size "
                f"{_size(s)}; each target size must equal the array's or be 1."
            )
            if promotion is None:
                raise ValueError(message)
            promotion = promotion._replace(failure=message)
            break
    mapped = set(checked)
    dropped = tuple(a for a in range(len(shape)) if a not in mapped)
    squeezed = tuple(d for i, d in enumerate(checked) if target[i] == 1 and shape[d] != 1)
    return SumToPlan(dropped, squeezed, promotion)


def as_shape(shape: object, op: str) -> tuple[int, ...]:
    """Normalise a user-given shape (an int or a sequence of ints)."""
    if type(shape) is tuple:  # (_ints, inlined: every creation function comes here)
        for s in shape:
            if type(s) is not int:
                break
        else:
            return shape  # already what the loop below makes
    if type(shape) is int:
        return (shape,)
    if isinstance(shape, (bool, np.bool_)):
        raise TypeError(f"{op}: shape must be a tuple of ints, got {shape!r}.")
    if hasattr(shape, "__index__") and not isinstance(shape, Sequence):
        return (operator.index(shape),)  # type: ignore[arg-type]
    if not isinstance(shape, Sequence) or isinstance(shape, str):
        raise TypeError(f"{op}: shape must be a tuple of ints, got {shape!r}.")
    out = []
    for s in shape:
        if isinstance(s, (bool, np.bool_)) or not hasattr(s, "__index__"):
            raise TypeError(f"{op}: shape entries must be ints, got {s!r} in {tuple(shape)!r}.")
        out.append(operator.index(s))
    return tuple(out)


# --- axes ------------------------------------------------------------------------------
def normalize_axis(op: str, axis: object, ndim: int, name: str = "axis") -> int:
    """``axis`` as a non-negative int for an array of ``ndim`` axes.

    Raises
    ------
    TypeError
        ``axis`` is not an integer.
    numpy.exceptions.AxisError
        ``axis`` is outside ``[-ndim, ndim)`` (an IndexError and a ValueError).
    """
    if type(axis) is int and -ndim <= axis < ndim:
        return axis % ndim
    if isinstance(axis, (bool, np.bool_)) or not hasattr(axis, "__index__"):
        raise TypeError(f"{op}: {name} must be an integer, got {type(axis).__name__} {axis!r}.")
    a = operator.index(axis)  # type: ignore[arg-type]
    if not -ndim <= a < ndim:
        # NumPy's wording ("axis 3 is out of bounds for array of dimension 2"), which
        # consumers' tests match
        what = "axis" if name == "axis" else f"{name} axis"
        raise np.exceptions.AxisError(
            f"{op}: {what} {a} is out of bounds for array of dimension {ndim} "
            f"(valid: {-ndim} to {ndim - 1})."
        )
    return a % ndim


_ALL_AXES = tuple(tuple(range(n)) for n in range(65))


def normalize_axes(op: str, axis: object, ndim: int, name: str = "axis") -> tuple[int, ...]:
    """``axis`` (None for all axes, an int or a tuple of ints) as sorted, distinct,
    non-negative axes; a repeated axis is a ValueError."""
    if axis is None:
        return _ALL_AXES[ndim] if ndim < len(_ALL_AXES) else tuple(range(ndim))
    if type(axis) is int and -ndim <= axis < ndim:
        return (axis % ndim,)
    many = axis if isinstance(axis, (tuple, list)) else (axis,)
    out = tuple(normalize_axis(op, a, ndim, name) for a in many)
    if len(set(out)) != len(out):
        raise ValueError(f"{op}: {name}={axis!r} repeats an axis.")
    return tuple(sorted(out))


def _is_advanced(p: object) -> bool:
    return type(p) is int or hasattr(p, "shape")


def _index_array_shape(p: object) -> Shape:
    return tuple(None if s != s or s is None else int(s) for s in getattr(p, "shape", ()))


def index_shape(op: str, shape: Shape, parts: tuple[object, ...]) -> Shape:
    """The shape ``x[key]`` has, for a key of ints, slices, ``None``, ``Ellipsis`` and
    integer index arrays (anything with a ``shape``), without indexing: NumPy's rules,
    index values not looked at (their bounds are the data's business).
    """
    consuming = [p for p in parts if p is not None and p is not Ellipsis]
    if len(consuming) > len(shape):
        raise IndexError(
            f"{op}: too many indices ({len(consuming)}) for an array of shape {_fmt(shape)}."
        )
    if not any(p is Ellipsis for p in parts):
        parts = (*parts, Ellipsis)
    i = next(j for j, p in enumerate(parts) if p is Ellipsis)
    parts = (*parts[:i], *(slice(None),) * (len(shape) - len(consuming)), *parts[i + 1 :])
    arrays = any(hasattr(p, "shape") for p in parts)
    advanced = [j for j, p in enumerate(parts) if arrays and _is_advanced(p)]
    before: list[int | None] = []
    after: list[int | None] = []
    axis = 0
    for j, p in enumerate(parts):
        into = after if advanced and j > advanced[0] else before
        if p is None:
            into.append(1)
            continue
        size = shape[axis]
        axis += 1
        if type(p) is slice:
            into.append(None if size is None else len(range(*p.indices(size))))
        # an int without index arrays removes its axis; advanced entries come below
    if not advanced:
        return tuple(before)
    index = broadcast_shapes(op, *(_index_array_shape(p) for p in parts if _is_advanced(p)))
    if advanced == list(range(advanced[0], advanced[-1] + 1)):  # adjacent: in their place
        return (*before, *index, *after)
    return (*index, *before, *after)  # separated by a slice or None: first, as NumPy does
