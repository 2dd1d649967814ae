"""Which arguments of a NumPy call broadcast together: the rule kinds and their one
interpreter.

A row of the table (:mod:`._table`) names its NumPy function's rules, each a small
typed value below; :func:`check` reads the call's arguments by NumPy's own parameter
names and asks the policy (:mod:`strict_array._policy`) to decide every rank promotion
(sections 1, 2 and 4 of the contract). The rules of a ufunc come from the ufunc itself
(:func:`check_ufunc`: its operands, a gufunc's core axes, ``out=``, ``where=``, its
methods). Both callers use these two functions and name an operation the same way:
NumPy functions and ufuncs on strict arrays (:mod:`._dispatch`) and NumPy code under the
NumPy-code mode (:mod:`strict_array.numpy`).

Adding a kind of rule: a frozen dataclass here, its branch in :func:`check`, and rows
that use it (``docs/dev/adding-a-numpy-function.md``).
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

import numpy as np

from .. import _policy as policy
from .._array import Array
from .._backends._numpy_ways import signature
from .._broadcasting import basic_key_rank
from .._extensions import check_ellipsis_axes
from .._typing import PY_SCALARS, Shape

__all__ = [
    "Assign", "Broadcast", "Callbacks", "Einsum", "Rule", "Stacks", "ToShape", "check",
    "check_setitem", "check_ufunc", "gufunc_cores", "region_shape", "shape_of", "ufunc_name",
    "with_callbacks",
]  # fmt: skip


@dataclass(frozen=True)
class Broadcast:
    """Arrays that broadcast together, as the operands of an element-wise function
    (section 2): ``np.where``'s three, ``np.clip``'s bounds, a reduction's ``where=``.

    ``params`` are NumPy's parameter names; ``"*name"`` stands for each element of a
    sequence argument (``np.select``'s ``condlist``). A 1-D array given for one of
    ``vectors`` is one NumPy maps along an axis it is told (``np.trapezoid``'s ``x``), an
    explicit broadcast, not a promotion.
    """

    params: tuple[str, ...]
    vectors: tuple[str, ...] = ()
    #: NumPy answers without broadcasting where the shapes do not broadcast
    #: (``np.array_equiv``: False): only a broadcast that happens is decided
    tries: bool = False


@dataclass(frozen=True)
class ToShape:
    """An array broadcast to a shape given as an argument (``np.broadcast_to``)."""

    array: str
    shape: str


@dataclass(frozen=True)
class Assign:
    """Values written into a region of ``target`` (``np.copyto``, ``np.put_along_axis``),
    as ``x[key] = value`` (section 2): each value against the target's shape."""

    target: str
    values: tuple[str, ...]


@dataclass(frozen=True)
class Stacks:
    """Two stacks of ``cores``-axis operands whose batch axes broadcast (``np.cross``'s
    vectors, ``np.linalg.solve``'s matrices); an operand with fewer axes than its core
    is not a stack (``matmul``'s vectors). Vectors (cores of 1) may lie along the axes
    that the parameters ``axes`` name (``np.cross``'s ``axisa`` and ``axisb``; ``axis``,
    where given, for both)."""

    first: str
    second: str
    cores: tuple[int, int]
    axes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Einsum:
    """The axes under ``...`` of ``np.einsum``'s operands are batch axes (the named
    axes pair by name), in both of its forms: subscripts, or operands with sublists."""


@dataclass(frozen=True)
class Callbacks:
    """User functions that NumPy calls (``np.apply_along_axis``'s ``func1d``,
    ``np.piecewise``'s ``funclist``): the checks stay in force inside them."""

    params: tuple[str, ...]


Rule: TypeAlias = Broadcast | ToShape | Assign | Stacks | Einsum | Callbacks


# --- the shapes of NumPy's operands ----------------------------------------------------------
def shape_of(value: Any) -> Shape | None:
    """The shape ``value`` takes part in broadcasting with, as NumPy reads it: ``()`` for
    a scalar, a list's nested lengths; None for ``None`` (an argument not given) and for
    what NumPy cannot make an array of (its own error follows)."""
    t = type(value)
    if t is Array:
        return value.shape  # type: ignore[no-any-return]
    if isinstance(value, np.ndarray):
        return value.shape
    if t in PY_SCALARS or isinstance(value, np.generic):
        return ()
    if value is None:
        return None
    if t in (list, tuple):
        try:
            return np.shape(_plain_items(value))
        except (ValueError, TypeError):  # a ragged list: NumPy's own error follows
            return None
    shape = getattr(value, "shape", None)  # another array library's array
    return tuple(shape) if isinstance(shape, tuple) else ()


def _plain_items(value: Any) -> Any:
    """A sequence with each strict array in it as its shape's stand-in (``np.shape`` of a
    list holding lazy arrays would compute them)."""
    if type(value) in (list, tuple):
        return [_plain_items(v) for v in value]
    if type(value) is Array:
        if None in value.shape:
            raise ValueError("unknown size")
        return np.broadcast_to(np.empty((), value.dtype), value.shape)  # type: ignore[arg-type]
    return value


def region_shape(shape: Sequence[int | None], key: Any) -> Shape:
    """The shape of ``x[key]`` for an ``x`` of ``shape``, without reading ``x`` (an
    index of a zero-strided stand-in); a field name, or a list of them, selects every
    element."""
    if isinstance(key, str) or (type(key) is list and key and isinstance(key[0], str)):
        return tuple(shape)
    basic = _basic_region(shape, key)
    if basic is not None:
        return basic
    return np.broadcast_to(np.empty((), bool), tuple(shape))[key].shape  # type: ignore[arg-type]


def _basic_region(shape: Sequence[int | None], key: Any) -> Shape | None:
    """``region_shape`` for a basic key (ints, slices, one ``...``, None) whose ints are in
    range, computed from the key alone; None for any other key (NumPy decides, or raises)."""
    parts = key if type(key) is tuple else (key,)
    axes, ellipses = 0, 0
    for part in parts:
        if part is Ellipsis:
            ellipses += 1
        elif type(part) is int or type(part) is slice:
            axes += 1
        elif part is not None:
            return None
    if axes > len(shape) or ellipses > 1 or None in shape:
        return None
    region: list[int] = []
    axis = 0
    for part in parts:
        if part is None:
            region.append(1)
        elif part is Ellipsis:
            region.extend(shape[axis : axis + len(shape) - axes])  # type: ignore[arg-type]
            axis += len(shape) - axes
        else:
            size: int = shape[axis]  # type: ignore[assignment]
            axis += 1
            if type(part) is slice:
                region.append(len(range(*part.indices(size))))
            elif not -size <= part < size:
                return None  # NumPy's IndexError follows
    region.extend(shape[axis:])  # type: ignore[arg-type]
    return tuple(region)


# --- where each parameter arrives ------------------------------------------------------------
_ABSENT: Any = object()


@functools.cache
def _places(func: Any, params: tuple[str, ...]) -> tuple[tuple[int | None, str | None, bool], ...]:
    """Where each of ``params`` arrives in a call of ``func``: (position or None, keyword
    or None, many: ``*args`` or ``"*name"``), read once from NumPy's signature."""
    parameters = list(signature(func).parameters.values())
    places: list[tuple[int | None, str | None, bool]] = []
    for param in params:
        name = param.lstrip("*")
        found = [(i, p) for i, p in enumerate(parameters) if p.name == name]
        if not found:
            raise LookupError(f"numpy.{func.__name__} has no parameter {name!r}")
        i, p = found[0]
        if p.kind is p.VAR_POSITIONAL:
            places.append((i, None, True))
        else:
            positional = p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
            keyword = None if p.kind is p.POSITIONAL_ONLY else name
            places.append((i if positional else None, keyword, param.startswith("*")))
    return tuple(places)


def _values(func: Any, params: tuple[str, ...], args: Sequence[Any],
            kwargs: dict[str, Any]) -> list[tuple[str, Any]]:  # fmt: skip
    """The arguments of ``params`` in a call, as (parameter, value) pairs; a sequence
    parameter (``"*name"``, ``*args``) gives one pair per element."""
    found: list[tuple[str, Any]] = []
    for param, (position, keyword, many) in zip(params, _places(func, params)):
        value = _ABSENT if keyword is None or not kwargs else kwargs.get(keyword, _ABSENT)
        if value is _ABSENT:
            if keyword is None and many:  # *args
                value = tuple(args[position:])  # type: ignore[index]
            elif position is not None and position < len(args):
                value = args[position]
            else:
                continue
        name = param.lstrip("*")
        if many:
            found.extend((name, v) for v in (value if isinstance(value, (list, tuple)) else ()))
        else:
            found.append((name, value))
    return found


# --- the interpreter -----------------------------------------------------------------------
#: arguments that are never an operand of another rank: a scalar's rank broadcasts freely
_INERT = frozenset({*PY_SCALARS, type(None), str, type, np.dtype})


def _ranks_decide(rules: Sequence[Rule]) -> bool:
    """Whether ``rules`` have nothing to decide when all array arguments have one rank:
    operands that broadcast together, values written into a target (a promotion is
    between ranks); not stacks (their cores may differ) nor the others. Kept per rules
    object (a table row's), by its id: hashing the rules would cost more than this."""
    hit = _RANKS_DECIDE.get(id(rules))
    if hit is not None and hit[0] is rules:
        return hit[1]
    decides = all(type(rule) is Broadcast or type(rule) is Assign for rule in rules)
    _RANKS_DECIDE[id(rules)] = (rules, decides)  # (the rules kept: their id stays theirs)
    return decides


_RANKS_DECIDE: dict[int, tuple[Sequence[Rule], bool]] = {}


def _one_rank(args: Sequence[Any], kwargs: dict[str, Any]) -> bool:
    """Whether every argument is an array of one rank (0-d ones aside) or a scalar; False
    for anything else (a list: its shape is NumPy's to read), where :func:`check` reads
    the call."""
    rank = 0
    for v in (*args, *kwargs.values()) if kwargs else args:
        t = type(v)
        if t in _INERT:
            continue
        if t is Array or isinstance(v, np.ndarray):
            n = v.ndim
            if n and n != rank:
                if rank:
                    return False
                rank = n
        elif not isinstance(v, np.generic):
            return False
    return True


def check(op: str, rules: Sequence[Rule], func: Any, args: Sequence[Any],
          kwargs: dict[str, Any]) -> None:  # fmt: skip
    """Decide every rank promotion of a call of NumPy's ``func`` by its ``rules``
    (``op`` names it in errors and audits: ``"numpy.where"``)."""
    if _ranks_decide(rules) and _one_rank(args, kwargs):
        return  # (the common call: arrays of one rank and scalars, nothing to decide)
    for rule in rules:
        if type(rule) is Broadcast:
            pairs = _values(func, rule.params, args, kwargs)
            if len(pairs) < 2:
                continue  # one operand given: nothing broadcasts with it
            shapes = [
                s for name, v in pairs
                if (s := shape_of(v)) and not (name in rule.vectors and len(s) == 1)
            ]  # fmt: skip
            if len({len(s) for s in shapes}) > 1:  # scalars and one rank: nothing to decide
                if rule.tries and not _broadcast(shapes):
                    continue
                policy.operands(op, *shapes)
        elif type(rule) is ToShape:
            values = dict(_values(func, (rule.array, rule.shape), args, kwargs))
            shape, target = shape_of(values.get(rule.array)), values.get(rule.shape)
            if shape and target is not None:
                target = (target,) if isinstance(target, (int, np.integer)) else tuple(target)
                if len(target) != len(shape):
                    policy.operands(op, target, shape)
        elif type(rule) is Assign:
            pairs = _values(func, (rule.target, *rule.values), args, kwargs)
            if pairs and pairs[0][0] == rule.target:
                region = shape_of(pairs[0][1])
                for _, value in pairs[1:]:
                    shape = shape_of(value)
                    if shape and region is not None and len(shape) != len(region):
                        policy.operands(op, region, shape)
        elif type(rule) is Stacks:
            values = dict(_values(func, (rule.first, rule.second, *rule.axes), args, kwargs))
            s1, s2 = shape_of(values.get(rule.first)), shape_of(values.get(rule.second))
            if rule.axes and s1 is not None and s2 is not None:
                moved = _vectors_last(rule.axes, values, s1, s2)
                if moved is None:
                    continue  # an axis out of range: NumPy's AxisError follows
                s1, s2 = moved
            c1, c2 = rule.cores
            if s1 is not None and s2 is not None and len(s1) >= c1 and len(s2) >= c2:
                policy.stacks(op, s1, s2, c1, c2)
        elif type(rule) is Einsum:
            labels, shapes = _einsum_operands(args)
            if any("..." in lab for lab in labels):
                check_ellipsis_axes(f"{op} (...)", labels, shapes)


def _vectors_last(axes: tuple[str, ...], values: dict[str, Any], s1: Shape,
                  s2: Shape) -> tuple[Shape, Shape] | None:  # fmt: skip
    """Two stacks' shapes with each one's vector axis (named by ``axes``: the first's, the
    second's, then one for both) moved last; None for an axis out of range."""
    both = values.get(axes[2]) if len(axes) > 2 else None
    out = []
    for shape, name in ((s1, axes[0]), (s2, axes[1])):
        axis = both if both is not None else values.get(name, -1)
        if not shape:
            out.append(shape)
            continue
        if axis is None or not -len(shape) <= int(axis) < len(shape):
            return None
        axis = int(axis) % len(shape)
        out.append((*shape[:axis], *shape[axis + 1 :], shape[axis]))
    return out[0], out[1]


def _broadcast(shapes: list[Shape]) -> bool:
    """Whether NumPy's trailing alignment broadcasts ``shapes``."""
    try:
        np.broadcast_shapes(*[tuple(1 if d is None else d for d in s) for s in shapes])
    except ValueError:
        return False
    return True


def with_callbacks(rules: Sequence[Rule], func: Any, args: tuple[Any, ...],
                   kwargs: dict[str, Any],
                   wrap: Callable[[Callable[..., Any]], Callable[..., Any]],
                   ) -> tuple[tuple[Any, ...], dict[str, Any]]:  # fmt: skip
    """``args`` and ``kwargs`` with each user function of a :class:`Callbacks` rule
    replaced by ``wrap(function)`` (a list of functions, each)."""
    for rule in rules:
        if type(rule) is not Callbacks:
            continue
        for position, keyword, _ in _places(func, rule.params):
            if keyword is not None and keyword in kwargs:
                kwargs = {**kwargs, keyword: _wrapped(kwargs[keyword], wrap)}
            elif position is not None and position < len(args):
                args = (*args[:position], _wrapped(args[position], wrap), *args[position + 1 :])
    return args, kwargs


def _wrapped(value: Any, wrap: Callable[[Callable[..., Any]], Callable[..., Any]]) -> Any:
    if isinstance(value, (list, tuple)):
        return type(value)(_wrapped(v, wrap) for v in value)
    return wrap(value) if callable(value) else value


def _einsum_operands(args: Sequence[Any]) -> tuple[list[str], list[Shape]]:
    """Each operand's labels (``"...ij"``) and shape, from either form of a call."""
    if args and isinstance(args[0], str):
        inputs = args[0].replace(" ", "").split("->")[0].split(",")
        operands = list(args[1 : len(inputs) + 1])
    else:  # einsum(op0, sublist0, op1, sublist1, ..., [sublistout])
        operands, inputs = list(args[0::2]), []
        for sublist in args[1::2]:
            inputs.append("".join("..." if s is Ellipsis else f"[{s}]" for s in sublist))
        operands = operands[: len(inputs)]
    shapes = [shape_of(a) or () for a in operands]
    return inputs[: len(shapes)], shapes


def check_setitem(op: str, shape: Shape, key: Any, value: Any) -> None:
    """``x[key] = value`` (section 2): ``value`` against the selected region; a scalar or
    0-d value fills any region, one of the region's rank is NumPy's to check (sizes)."""
    vshape = shape_of(value)
    if vshape and len(vshape) != basic_key_rank(len(shape), key):
        region = region_shape(shape, key)
        if len(region) != len(vshape):
            policy.operands(op, region, vshape)


# --- ufuncs: the rules come from the ufunc -----------------------------------------------------
@functools.cache
def _core_dims(signature: str) -> tuple[tuple[tuple[str, ...], ...], tuple[tuple[str, ...], ...]]:
    """The core axes of a gufunc's inputs and outputs by name, ``(m,n),(n)->(m)``:
    ((("m", "n"), ("n",)), (("m",),)); an optional axis keeps its ``?``."""

    def parts(spec: str) -> tuple[tuple[str, ...], ...]:
        return tuple(tuple(d for d in p.strip("()").split(",") if d)
                     for p in spec.replace("),(", ")|(").split("|"))  # fmt: skip

    ins, outs = signature.replace(" ", "").split("->")
    return parts(ins), parts(outs)


@functools.cache
def ufunc_name(ufunc: np.ufunc) -> str:
    """A ufunc's dotted name in errors and audit rows, by the module that holds it:
    ``numpy.add``, ``scipy.special.erf``; a ufunc that no loaded module holds under its
    name is named by that name alone."""
    name = ufunc.__name__
    module = getattr(ufunc, "__module__", None)  # (NumPy's own ufuncs say "numpy")
    if module and getattr(sys.modules.get(module), name, None) is ufunc:
        return f"{module}.{name}"
    holders = [m for m, mod in list(sys.modules.items())
               if mod is not None and getattr(mod, name, None) is ufunc]  # fmt: skip
    if not holders:
        return name
    # the public spelling first (no "_private" part), then the shortest
    best = min(holders, key=lambda m: (any(p.startswith("_") for p in m.split(".")),
                                       m.count("."), m))  # fmt: skip
    return f"{best}.{name}"


@functools.cache
def gufunc_cores(signature: str) -> tuple[int, ...] | None:
    """The number of core axes of each input of a gufunc of this signature, or None
    where one is optional (``matmul``'s ``n?``: its count depends on the operand)."""
    ins, _ = _core_dims(signature)
    if any(d.endswith("?") for dims in ins for d in dims):
        return None
    return tuple(len(dims) for dims in ins)


def check_ufunc(ufunc: np.ufunc, method: str, inputs: Sequence[Any],
                kwargs: dict[str, Any], name: str | None = None) -> None:  # fmt: skip
    """Decide every rank promotion of a ufunc call: its operands (section 1), a gufunc's
    batch axes (section 2), ``out=`` and ``where=`` as ``x[key] = value``, ``at``'s
    values against the selected region; ``outer`` is explicit (its ``out=`` is checked).
    ``name`` names the operation (the ufunc's own dotted name by default)."""
    if name is None:
        name = ufunc_name(ufunc)
    out = kwargs.get("out")
    outs = out if isinstance(out, tuple) else (out,) if out is not None else ()
    if method == "__call__":
        shapes = [shape_of(v) for v in inputs[: ufunc.nin]]
        if ufunc.signature is not None:
            result = _check_gufunc(name, ufunc.signature, shapes, outs)
            if result is None:
                return
            region = result
        else:
            arrays = [s for s in shapes if s]
            result = policy.operands(name, *arrays) if len(arrays) > 1 else (arrays or [()])[0]
            region = result
        for o in outs:  # the result into each output, as an assignment
            if isinstance(o, (np.ndarray, Array)) and result and len(o.shape) != len(result):
                policy.operands(f"{name} (out=)", o.shape, result)
                region = o.shape
            elif isinstance(o, (np.ndarray, Array)):
                region = o.shape
        where = shape_of(kwargs.get("where"))
        if where and region is not None and len(where) != len(region):
            policy.operands(f"{name} (where=)", region, where)
    elif method in ("reduce", "accumulate", "reduceat"):
        where = shape_of(kwargs.get("where"))
        first = shape_of(inputs[0]) if inputs else None
        if where and first is not None and len(where) != len(first):
            policy.operands(f"{name}.{method} (where=)", first, where)
    elif method == "outer" and len(inputs) == 2:
        s1, s2 = shape_of(inputs[0]), shape_of(inputs[1])
        if s1 is not None and s2 is not None:
            result = (*s1, *s2)
            for o in outs:
                if isinstance(o, (np.ndarray, Array)) and len(o.shape) != len(result):
                    policy.operands(f"{name}.outer (out=)", o.shape, result)
    elif method == "at" and len(inputs) > 2:
        target, values = shape_of(inputs[0]), shape_of(inputs[2])
        if target is not None and values:
            region = region_shape(target, inputs[1])
            if len(region) != len(values):
                policy.operands(f"{name}.at", region, values)


def _check_gufunc(name: str, signature: str, shapes: list[Shape | None],
                  outs: Sequence[Any]) -> Shape | None:  # fmt: skip
    """The loop (batch) axes of a gufunc's operands, whatever their number, and of its
    outputs (NumPy's ``matmul``, ``vecdot``, ``matvec``, ``vecmat``, any library's
    gufunc); the result's shape, or None where it cannot be told (a shape unknown, an
    operand with fewer axes than its core: NumPy's own error follows)."""
    ins, results = _core_dims(signature)
    if not shapes or len(shapes) != len(ins) or any(s is None for s in shapes):
        return None
    known: list[Shape] = [s for s in shapes if s is not None]
    sizes: dict[str, int | None] = {}
    cores = []
    for shape, dims in zip(known, ins):
        present = [d for d in dims if not d.endswith("?")] if len(shape) < len(dims) else list(dims)
        if len(shape) < len(present):
            return None  # NumPy's own error follows
        cores.append(len(present))
        for d, size in zip(present, shape[len(shape) - len(present) :]):
            sizes[d.rstrip("?")] = size
    # every operand's loop axes against those of the operand with the most of them
    widest = max(range(len(known)), key=lambda i: len(known[i]) - cores[i])
    batch = known[widest][: len(known[widest]) - cores[widest]]
    for i in range(len(known)):
        if i != widest:  # (the pair in the call's order, as errors name it)
            a, b = min(i, widest), max(i, widest)
            batch = policy.stacks(name, known[a], known[b], cores[a], cores[b])
    if len(known) > 2:  # (the pairs above each broadcast against the widest only)
        try:
            batch = np.broadcast_shapes(*(s[: len(s) - c] for s, c in zip(known, cores)))  # type: ignore[arg-type]
        except ValueError:
            return None  # NumPy's own error follows
    out_dims = [d.rstrip("?") for d in results[0] if d.rstrip("?") in sizes] if results else []
    result = (*batch, *(sizes[d] for d in out_dims))
    for o in outs:
        if isinstance(o, (np.ndarray, Array)) and len(o.shape) >= len(out_dims):
            policy.stacks(f"{name} (out=)", o.shape, result, len(out_dims), len(out_dims))
    return result
