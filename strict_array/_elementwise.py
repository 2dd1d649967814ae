"""Element-wise functions: one core for every unary and every binary function.

Every binary element-wise function of the standard, and every operator that
maps to one (reflected and in-place forms included), goes through
:func:`apply_binary`, which applies the strict broadcasting rules of
``_broadcasting`` and then calls the device's backend function of the same
name. The fast path (two arrays of equal rank, or an array and a scalar) does
no shape work at all: the backend does same-rank size-1 broadcasting, and only
when it refuses do we recompute the shapes to say precisely why.
"""

from __future__ import annotations

import functools
import textwrap
from collections.abc import Callable
from typing import Any

import numpy as np

from . import _policy as policy
from ._array import (
    RESULT,
    Array,
    as_scalar,
    compile_function,
    mutation_lock,
    operands_on_one_device,
    own_lock,
    result,
    store,
)
from ._backends import Device, device_of_native
from ._broadcasting import broadcast_shapes, check_scalar_dimensions
from ._dtypes import ACCEPTED_IDS as _ACCEPTED_IDS
from ._dtypes import FUNCTION_CATEGORIES, check_category
from ._errors import ARRAY, ARRAY_OR_SCALAR, refuse_operand
from ._flags import require_behaviour
from ._typing import PY_SCALARS, Scalar

ArrayOrScalar = Array | Scalar

# name -> one-line summary (the docstrings are built from these)
UNARY = {
    "abs": "Absolute value (modulus for complex numbers).",
    "acos": "Inverse cosine.",
    "acosh": "Inverse hyperbolic cosine.",
    "asin": "Inverse sine.",
    "asinh": "Inverse hyperbolic sine.",
    "atan": "Inverse tangent.",
    "atanh": "Inverse hyperbolic tangent.",
    "bitwise_invert": "Bitwise NOT (integer and boolean arrays).",
    "ceil": "Smallest integer-valued number not less than each element.",
    "conj": "Complex conjugate (identity for real input).",
    "cos": "Cosine.",
    "cosh": "Hyperbolic cosine.",
    "exp": "Exponential, e**x.",
    "expm1": "exp(x) - 1, accurate for small x.",
    "floor": "Largest integer-valued number not greater than each element.",
    "imag": "Imaginary part (real dtype of matching precision).",
    "isfinite": "True where the element is finite.",
    "isinf": "True where the element is infinite.",
    "isnan": "True where the element is NaN.",
    "log": "Natural logarithm.",
    "log1p": "log(1 + x), accurate for small x.",
    "log2": "Base-2 logarithm.",
    "log10": "Base-10 logarithm.",
    "logical_not": "Logical NOT of a boolean array.",
    "negative": "Numerical negative, -x.",
    "positive": "Numerical positive, +x.",
    "real": "Real part (identity for real input).",
    "reciprocal": "1 / x.",
    "round": "Round to the nearest integer-valued number (half to even).",
    "sign": "Sign (``x / |x|`` for complex, 0 at 0).",
    "signbit": "True where the sign bit is set.",
    "sin": "Sine.",
    "sinh": "Hyperbolic sine.",
    "square": "x * x.",
    "sqrt": "Principal square root.",
    "tan": "Tangent.",
    "tanh": "Hyperbolic tangent.",
    "trunc": "Round toward zero.",
}

BINARY = {
    "add": "Sum x1 + x2.",
    "atan2": "Inverse tangent of x1 / x2, using the signs of both for the quadrant.",
    "bitwise_and": "Bitwise AND (integer and boolean arrays).",
    "bitwise_left_shift": "Shift the bits of x1 left by x2.",
    "bitwise_or": "Bitwise OR (integer and boolean arrays).",
    "bitwise_right_shift": "Shift the bits of x1 right by x2.",
    "bitwise_xor": "Bitwise XOR (integer and boolean arrays).",
    "copysign": "Magnitude of x1 with the sign of x2.",
    "divide": "True division x1 / x2.",
    "equal": "x1 == x2.",
    "floor_divide": "Floor division x1 // x2.",
    "greater": "x1 > x2.",
    "greater_equal": "x1 >= x2.",
    "hypot": "sqrt(x1**2 + x2**2) without undue overflow.",
    "less": "x1 < x2.",
    "less_equal": "x1 <= x2.",
    "logaddexp": "log(exp(x1) + exp(x2)) without undue overflow.",
    "logical_and": "Logical AND of boolean arrays.",
    "logical_or": "Logical OR of boolean arrays.",
    "logical_xor": "Logical XOR of boolean arrays.",
    "maximum": "Element-wise maximum (NaN propagates).",
    "minimum": "Element-wise minimum (NaN propagates).",
    "multiply": "Product x1 * x2.",
    "nextafter": "Next representable value after x1 toward x2.",
    "not_equal": "x1 != x2.",
    "pow": "x1 raised to the power x2.",
    "remainder": "Remainder of floor division, with the sign of x2.",
    "subtract": "Difference x1 - x2.",
}


# --- the one code path --------------------------------------------------------------
def check_dtypes(op: str, dev: Device, *operands: Any) -> None:
    """Refuse array operands whose dtype is outside ``op``'s category."""
    if op not in FUNCTION_CATEGORIES:
        return
    accepted = _ACCEPTED_IDS.setdefault(op, set())
    for i, o in enumerate(operands):
        if dev.owns(o) and id(o.dtype) not in accepted:
            which = "x" if len(operands) == 1 else f"x{i + 1}"
            dtype = dev.dtype(o)
            check_category(op, dtype, which)
            if o.dtype is dtype and dtype is np.dtype(dtype.char):
                accepted.add(id(dtype))  # a NumPy singleton (see _dtypes.ACCEPTED_IDS)


def _align(op: str, dev: Device, a: Any, b: Any, dims: object) -> tuple[Any, Any]:
    """Operands of different ranks, or explicit ``broadcast_dimensions``: the plan."""
    plan = policy.binary(op, dev.shape(a), dev.shape(b), dims)
    if plan.low == -1:
        return a, b
    low, high = (a, b) if plan.low == 0 else (b, a)
    if plan.key is not None:
        # insert size-1 axes where nothing is mapped (a view, no copy); trailing
        # alignment needs none: the backend adds leading axes itself
        low = low[plan.key]
    low = dev.align_to(low, high)
    return (low, b) if plan.low == 0 else (a, low)


def backend_error(op: str, error: Exception, dev: Device, *operands: Any) -> Exception:
    """The backend's own error, renamed for ``op``: same type, the operation named first."""
    described = ", ".join(
        f"{dev.dtype(o)} {dev.shape(o)}" if dev.owns(o) else f"{type(o).__name__} {o!r}"
        for o in operands
    )
    return type(error)(f"{op}: operands {described}: {error}")


def apply_binary(op: str, x1: Any, x2: Any, dims: object = None) -> Array:
    """The one code path of every binary element-wise function and operator.

    The inlined fast paths of :func:`make_binary` come here for everything
    else: different ranks or explicit ``broadcast_dimensions`` (planned and
    decided by the policy), scalars of other types, and errors to explain.
    """
    t1, t2 = type(x1), type(x2)
    if t1 is Array:
        dev = x1._device
        a = x1._data
        if t2 is Array:
            if x2._device is not dev:  # (a 0-d host array acts as a scalar)
                dev, (a, b) = operands_on_one_device(op, (x1, x2))
            else:
                b = x2._data
            if dims is not None or x1._ndim != x2._ndim:
                a, b = _align(op, dev, a, b, dims)
        else:
            b = as_scalar(op, x2, ARRAY_OR_SCALAR)
            check_scalar_dimensions(op, dims)
    elif t2 is Array:
        dev = x2._device
        b = x2._data
        a = as_scalar(op, x1, ARRAY_OR_SCALAR)
        check_scalar_dimensions(op, dims)
    else:
        raise TypeError(
            f"{op}: at least one operand must be a strict_array.Array, got "
            f"{t1.__name__} and {t2.__name__}; make one an array with strict_array.asarray."
        )
    check_dtypes(op, dev, a, b)
    try:
        return result(dev.binary(op)(a, b), dev)
    except (ValueError, TypeError, OverflowError) as e:  # e.g. bitwise on floats, int too large
        error = e
    if type(a) is dev.native and type(b) is dev.native:
        broadcast_shapes(op, dev.shape(a), dev.shape(b))  # shapes first, on every device
    raise backend_error(op, error, dev, a, b) from error


def apply_unary(op: str, x: Any) -> Array:
    """The one code path of every unary element-wise function and operator."""
    if type(x) is not Array:
        refuse_operand(op, x, ARRAY)
    dev = x._device
    check_dtypes(op, dev, x._data)
    try:
        r = dev.function(op)(x._data)
    except (TypeError, ValueError) as e:  # e.g. bitwise_invert of a float array
        raise backend_error(op, e, dev, x._data) from e
    return result(r, dev)


def assign_inplace(op: str, x: Array, value: Array) -> Array:
    """Store the result of an in-place operator into ``x`` (section 2).

    The result must keep ``x``'s shape and dtype exactly: an in-place operator
    never reshapes or silently casts its left operand.
    """
    if value.shape != x.shape:
        unknown = any(v is None and s is not None for v, s in zip(value.shape, x.shape))
        raise ValueError(
            f"{op} (in-place): the result has shape {value.shape} but the left operand "
            f"has shape {x.shape}; an in-place operation cannot change the shape of its "
            + (
                "left operand, and a size unknown until computed cannot be checked before "
                "computing. Make the sizes known first (strict_array.known_sizes()), or use "
                "the out-of-place form (x = x op y)."
                if unknown
                else "left operand. Use the out-of-place form (x = x op y)."
            )
        )
    _check_inplace_dtype(op, x, value.dtype)
    store(x, x._device.assign(x._data, Ellipsis, value._data))
    return x


def _check_inplace_dtype(op: str, x: Array, dtype: np.dtype) -> None:
    if dtype != x.dtype:
        raise TypeError(
            f"{op} (in-place): the result has dtype {dtype} but the left operand "
            f"has dtype {x.dtype}; an in-place operation cannot change the dtype of its "
            "left operand. Use the out-of-place form or astype."
        )


_BINARY_DOC = """{summary}

Parameters
----------
x1, x2 : Array or Python scalar
    At least one must be an Array. Arrays of equal rank broadcast size-1 axes;
    a scalar (or 0-d array) always broadcasts.
broadcast_dimensions : tuple of int, optional
    For operands of different ranks: axis ``i`` of the lower-rank operand
    becomes axis ``broadcast_dimensions[i]`` of the result (XLA semantics).
    Required in the default rank-promotion mode; ``None`` or the identity for
    equal ranks.

Returns
-------
Array
    The result, with the dtype given by type promotion.

Raises
------
RankPromotionError
    Operands of different ranks without ``broadcast_dimensions`` in mode
    ``"raise"``.
ValueError
    Incompatible shapes or invalid ``broadcast_dimensions``.
TypeError
    An operand that is not an Array or Python scalar (e.g. a raw NumPy array).
"""

_UNARY_DOC = """{summary}

Parameters
----------
x : Array

Returns
-------
Array
"""


# --- the fast path: one source, compiled for every form --------------------------------
# The common cases: two arrays of one rank on one device, or an array and a Python float
# or int, of dtypes the operation accepted before (checked by identity, as check_dtypes
# keeps them: _dtypes.ACCEPTED_IDS). Then the work is one dictionary lookup for the
# backend function and one new Array, or one write on a device with views. Everything
# else, and every error, takes the form's general path (apply_binary, apply_unary,
# general_inplace), which decides and explains.
#
# The fast path is written once, in the templates below, and compiled for each form: the
# namespace function, the operator, the reflected operator, the in-place operator and the
# unary function. A shared helper would add a Python call to paths only a few calls long
# (benchmarks/bench_namespace.py measures them). tests/test_fast_paths.py runs every form
# of every element-wise function against its general path.
_FAST_ERRORS = (ValueError, TypeError, OverflowError, KeyError)  # KeyError: not cached yet
_FAILED = object()

#: the operands of a binary form: ``a`` and ``b``, the data of ``{x}`` (an Array) and of
#: ``{y}`` (an Array of the same rank and device, a float or an int); else ``{other}``
_TWO_OPERANDS = """\
dev = {x}._device
a = {x}._data
if type({y}) is Array:
    b = {y}._data
    if {y}._device is not dev or {x}._ndim != {y}._ndim:
        return {general}
    if {checked} and (id(a.dtype) not in accepted or id(b.dtype) not in accepted):
        return {general}
elif type({y}) is float or type({y}) is int:
    if {checked} and id(a.dtype) not in accepted:
        return {general}
    b = {y}
else:
    {other}
"""
#: the reflected operator's: ``{y}``, on the left, a float or an int; else ``{other}``
_SCALAR_ON_THE_LEFT = """\
if type({y}) is not float and type({y}) is not int:
    {other}
dev = {x}._device
a = {x}._data
if {checked} and id(a.dtype) not in accepted:
    return {general}
b = {y}
"""
#: the unary function's: ``a``, the data of ``{x}`` (an Array)
_ONE_OPERAND = """\
if type({x}) is not Array:
    return {general}
dev = {x}._device
a = {x}._data
if {checked} and id(a.dtype) not in accepted:
    return {general}
"""
#: the backend's result ``{call}`` as a new Array of ``{x}``'s rank (RESULT follows)
_NEW_ARRAY = """\
try:
    r = {call}
except _FAST_ERRORS:
    r = _FAILED  # explained outside this handler, so that the error is not chained
if r is _FAILED:
    return {general}
"""
#: the backend's result written into ``{x}``, on a device with views (its data stays)
_INTO_X = """\
if dev.views:
    with own_lock({x}):
        try:  # (the device refuses a result of another dtype or shape, writing nothing)
            {x}._data = dev.update(op, a, b)
            return {x}
        except _FAST_ERRORS:
            pass
return {general}
"""


def _compile_form(
    op: str, name: str, params: str, operands: str, action: str, *, general: str,
    other: str = "", call: str = "", prologue: str = "", namespace: dict[str, Any],
) -> Callable[..., Any]:  # fmt: skip
    """One form of ``op``'s fast path: ``def name(params)``, then ``prologue``, the
    ``operands`` template and the ``action`` (a new Array, or a write)."""
    x, _, y = params.partition(", ")  # the Array, then the other operand
    fields = {
        "x": x, "y": y.partition(",")[0], "general": general,
        "other": other or f"return {general}", "call": call,
        "checked": op in FUNCTION_CATEGORIES,
    }  # fmt: skip
    body = prologue + operands.format(**fields) + action.format(**fields)
    if action is _NEW_ARRAY:
        body += RESULT.format(ndim=f"{x}._ndim")
    source = f"def {name}({params}):\n" + textwrap.indent(body, "    ")
    scope = {
        "__name__": __name__, "op": op, "accepted": _ACCEPTED_IDS.setdefault(op, set()),
        "_FAST_ERRORS": _FAST_ERRORS, "_FAILED": _FAILED, "apply_binary": apply_binary,
        "apply_unary": apply_unary, "own_lock": own_lock, "_foreign": _foreign, **namespace,
    }  # fmt: skip
    func = compile_function(name, source, scope)
    func.__qualname__ = name
    return func  # type: ignore[no-any-return]


def make_binary(op: str) -> Callable[..., Array]:
    """The namespace function ``op`` (a binary element-wise function)."""
    func = _compile_form(
        op, op, "x1, x2, /, *, broadcast_dimensions=None", _TWO_OPERANDS, _NEW_ARRAY,
        # (the operators take scalars in every version; the functions from 2024.12)
        prologue="if type(x2) is not Array or type(x1) is not Array:\n"
        "    require_behaviour('scalar operand', op)\n"
        "if broadcast_dimensions is not None or type(x1) is not Array:\n"
        "    return apply_binary(op, x1, x2, broadcast_dimensions)\n",
        general="apply_binary(op, x1, x2)", call="dev.binaries[op](a, b)",
        namespace={"require_behaviour": require_behaviour},
    )  # fmt: skip
    func.__doc__ = _BINARY_DOC.format(summary=BINARY[op])
    func.__annotations__ = {
        "x1": "Array | bool | int | float | complex",
        "x2": "Array | bool | int | float | complex",
        "broadcast_dimensions": "tuple[int, ...] | None", "return": "Array",
    }  # fmt: skip
    return func


def forward_operator(op: str) -> Callable[[Array, Any], Array]:
    """``Array.__op__`` for the binary function ``op``: ``x op other``.

    It returns ``NotImplemented`` for an operand type it does not know, so that
    type's own reflected operator can run.
    """
    return _compile_form(
        op, f"__{_OPERATOR_NAMES.get(op, op)}__", "self, other", _TWO_OPERANDS, _NEW_ARRAY,
        general="apply_binary(op, self, other)",
        other="return NotImplemented if _foreign(op, other) else apply_binary(op, self, other)",
        call="dev.binaries[op](a, b)", namespace={},
    )  # fmt: skip


def reflected_operator(op: str) -> Callable[[Array, Any], Array]:
    """``Array.__rop__`` for the binary function ``op``: ``other op x``."""
    return _compile_form(
        op, f"__r{_OPERATOR_NAMES.get(op, op)}__", "self, other", _SCALAR_ON_THE_LEFT,
        _NEW_ARRAY, general="apply_binary(op, other, self)",
        other="return NotImplemented if type(other) is not Array and _foreign(op, other) "
        "else apply_binary(op, other, self)",
        call="dev.binaries[op](b, a)", namespace={},
    )  # fmt: skip


def inplace_operator(
    op: str, func: Callable[[Array, Any], Array] | None = None
) -> Callable[[Array, Any], Array]:
    """``Array.__iop__``: the operator ``op`` (or ``func``), stored back into ``self``.

    The read, the computation and the store hold the array's mutation lock, so
    in-place operators from several threads lose no update.
    """
    if func is not None:
        compute = func
    elif op in BINARY:  # the operators' path: scalars in every api_version, unlike op()
        compute = functools.partial(apply_binary, op)
    else:
        compute = FUNCTIONS[op]

    def general(self: Array, other: Any) -> Array:
        return general_inplace(op, self, other, compute)

    if func is not None or op not in BINARY:  # no fast path: the general path is all
        general.__name__ = general.__qualname__ = f"__i{_OPERATOR_NAMES.get(op, op)}__"
        return general
    return _compile_form(  # type: ignore[no-any-return]
        op, f"__i{_OPERATOR_NAMES.get(op, op)}__", "self, other", _TWO_OPERANDS, _INTO_X,
        general="general(self, other)", namespace={"general": general},
    )  # fmt: skip


def general_inplace(op: str, x: Array, other: Any, compute: Callable[[Array, Any], Array]) -> Array:
    """The general path of an in-place operator: ``compute(x, other)``, then stored into
    ``x`` keeping its shape and dtype (:func:`assign_inplace`)."""
    if isinstance(other, (np.ndarray, np.generic)):  # NumPy's operator: its ufunc into x
        numpy = getattr(np, op)
        numpy(x, other, out=(x,))
        return x
    if type(other) is not Array:
        other = as_scalar(op, other, ARRAY_OR_SCALAR)
    elif other._ndim == 0 or other.shape == x.shape:
        # the rank and shape rules have nothing to say: the dtype rule next, before
        # any error that depends on the values (section 6)
        _check_inplace_dtype(op, x, np.result_type(x.dtype, other.dtype))
    with mutation_lock(x):
        return assign_inplace(op, x, compute(x, other))


def _foreign(op: str, other: Any) -> bool:
    """Whether an operator should leave ``other`` to its own type (NotImplemented).

    Python scalars are ours. A NumPy array or a NumPy scalar is NumPy's: its reflected
    operator runs NumPy's ufunc, which comes back through NEP 13 with NumPy's meaning
    (section 7: ``f32 * np.float64(2.0)`` is float64, as ``np.float64(2.0) * f32`` is),
    so that ``x * nd`` and ``nd * x`` agree. (The namespace's functions take a NumPy
    scalar as the Python scalar it holds: :func:`~strict_array._typing.is_scalar`.)
    Another backend's raw array is refused with the fix; anything else is foreign.
    """
    if type(other) in PY_SCALARS:
        return False
    if isinstance(other, (np.ndarray, np.generic)):
        return True
    if device_of_native(other) is not None:
        refuse_operand(op, other)
    return True


def _make_unary(op: str, summary: str) -> Callable[[Array], Array]:
    func = _compile_form(
        op, op, "x, /", _ONE_OPERAND, _NEW_ARRAY, general="apply_unary(op, x)",
        call="dev.functions[op](a)", namespace={},
    )  # fmt: skip
    func.__doc__ = _UNARY_DOC.format(summary=summary)
    func.__annotations__ = {"x": "Array", "return": "Array"}
    return func  # type: ignore[no-any-return]


#: the operator suffix of a binary function whose operator Python spells otherwise
_OPERATOR_NAMES = {
    "subtract": "sub", "multiply": "mul", "divide": "truediv", "floor_divide": "floordiv",
    "remainder": "mod", "bitwise_and": "and", "bitwise_or": "or", "bitwise_xor": "xor",
    "bitwise_left_shift": "lshift", "bitwise_right_shift": "rshift", "equal": "eq",
    "not_equal": "ne", "less": "lt", "less_equal": "le", "greater": "gt",
    "greater_equal": "ge", "matmul": "matmul",
}  # fmt: skip


def _complex_expm1(z: np.ndarray) -> np.ndarray:
    """expm1 of complex NumPy data with the standard's special cases.

    NumPy's complex expm1 returns NaN parts for infinite inputs where the
    standard (following C99's cexp) asks for -1 + 0j, +inf + 0j and so on
    (numpy/numpy#21746). Uses expm1(a + bj) = expm1(a) cos b - 2 sin^2(b/2)
    + i e^a sin b, accurate near 0, and patches the infinite and zero cases.
    """
    a, b = z.real, z.imag
    with np.errstate(invalid="ignore", over="ignore"):
        re = np.expm1(a) * np.cos(b) - 2 * np.sin(b / 2) ** 2 + 0.0  # + 0.0: -0 -> +0
        im = np.exp(a) * np.sin(b)
        im = np.where(b == 0, b, im)  # exact zero imaginary part, even for inf/NaN a
        pos_inf, neg_inf = a == np.inf, a == -np.inf
        re = np.where(pos_inf & ~np.isfinite(b), np.inf, re)
        re = np.where(neg_inf, -1.0, re)
        im = np.where(neg_inf, np.where(np.isfinite(b), 0.0 * np.sin(b), 0.0), im)
        im = np.where(pos_inf & ~np.isfinite(b), np.nan, im)
    out = np.empty_like(z)
    out.real, out.imag = re, im
    return out


def expm1(x: Array, /) -> Array:
    if type(x) is Array and x.dtype.kind == "c":
        return result(x._device.map_blocks(_complex_expm1, x._data), x._device)
    return apply_unary("expm1", x)


expm1.__doc__ = _UNARY_DOC.format(
    summary="exp(x) - 1, accurate for small x (with the standard's special cases for complex x)."
)

FUNCTIONS: dict[str, Callable[..., Array]] = {
    **{name: _make_unary(name, s) for name, s in UNARY.items()},
    **{name: make_binary(name) for name in BINARY},
    "expm1": expm1,
}


def clip(
    x: Array,
    /,
    min: ArrayOrScalar | None = None,
    max: ArrayOrScalar | None = None,
) -> Array:
    """Clamp each element to ``[min, max]``.

    Parameters
    ----------
    x : Array
    min, max : Array or Python scalar, optional
        Bounds. ``x`` and array bounds follow the strict rank rule together:
        equal ranks with size-1 broadcasting, a 0-d array broadcasting freely.

    Returns
    -------
    Array
        ``x`` broadcast with the array bounds, with ``x``'s dtype.

    Raises
    ------
    RankPromotionError
        An array bound of another rank than ``x`` (mode ``"raise"``).
    ValueError
        Shapes that do not broadcast.
    """
    if type(x) is not Array:
        refuse_operand("clip (x)", x, ARRAY)
    dev = x._device
    bounds: list[Any] = []
    shapes = [x.shape]
    for name, b in (("min", min), ("max", max)):
        if type(b) is Array:
            shapes.append(b.shape)
            bounds.append(operands_on_one_device("clip", (x, b))[1][1])
        else:
            bounds.append(None if b is None else as_scalar(f"clip ({name})", b, ARRAY_OR_SCALAR))
    if x.dtype.kind not in "iuf":
        # the rank rule, then the dtype, then the sizes: a size unknown until computed
        # (DASK) cannot refuse the call at once, so a dtype error behind it would differ
        policy.ranks("clip", *shapes)
        raise TypeError(
            f"clip: x must have a real numeric dtype, got {x.dtype} (the standard leaves "
            "clip of booleans and complex numbers unspecified)."
        )
    policy.operands("clip", *shapes)
    # maximum, then minimum, in x's dtype: the same on every device (array_api_compat's
    # NumPy clip overflows filling a missing bound of a small integer dtype)
    data = x._data
    lo, hi = bounds
    if lo is not None:
        data = dev.binary("maximum")(data, lo)
    if hi is not None:
        data = dev.binary("minimum")(data, hi)
    return result(dev.ns.astype(data, x.dtype), dev)
