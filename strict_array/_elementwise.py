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

from collections.abc import Callable
from typing import Any

import numpy as np

from . import _policy as policy
from ._array import (
    Array,
    _object_new,
    as_scalar,
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
from ._typing import Scalar, is_scalar

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


# --- operator and function factories -------------------------------------------------
def inplace_operator(
    op: str, func: Callable[[Array, Any], Array] | None = None
) -> Callable[[Array, Any], Array]:
    """``Array.__iop__``: the namespace function ``op``, stored back into ``self``.

    The read, the computation and the store hold the array's mutation lock, so
    in-place operators from several threads lose no update.
    """
    compute = FUNCTIONS[op] if func is None else func
    # the fast path (a binary element-wise function only): as make_binary's, on a device
    # whose writes land in its data (``views``: no data to swap, no view links to follow)
    fast = func is None and op in BINARY
    checked = op in FUNCTION_CATEGORIES
    accepted = _ACCEPTED_IDS.setdefault(op, set())

    def operator(self: Array, other: Any) -> Array:
        dev = self._device
        if fast and dev.views:
            a = self._data
            if type(other) is Array:
                b: Any = other._data
                same = other._device is dev and other._ndim == self._ndim
                if checked and same:
                    same = id(b.dtype) in accepted
            else:
                b = other
                same = type(other) is float or type(other) is int
            if same and (not checked or id(a.dtype) in accepted):
                with own_lock(self):  # (a device with views)
                    try:  # (the device refuses a result of another dtype or shape)
                        self._data = dev.update(op, a, b)
                        return self
                    except _FAST_ERRORS:
                        pass
            # anything else, every error included: the general path below
        if type(other) is not Array:
            other = as_scalar(op, other, ARRAY_OR_SCALAR)
        elif other._ndim == 0 or other.shape == self.shape:
            # the rank and shape rules have nothing to say: the dtype rule next, before
            # any error that depends on the values (section 6)
            _check_inplace_dtype(op, self, np.result_type(self.dtype, other.dtype))
        with mutation_lock(self):
            return assign_inplace(op, self, compute(self, other))

    operator.__name__ = f"__i{op}__"
    return operator


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


# The factories below inline apply_binary's common cases (arrays of one rank on one
# device, or an array and a Python float or int): one dictionary lookup for the
# backend function and one new Array, nothing else. Everything else, and every
# error, goes through apply_binary.
_FAST_ERRORS = (ValueError, TypeError, OverflowError, KeyError)  # KeyError: not cached yet
_FAILED = object()


def make_binary(op: str) -> Callable[..., Array]:
    """The namespace function ``op`` (a binary element-wise function)."""
    checked = op in FUNCTION_CATEGORIES
    accepted = _ACCEPTED_IDS.setdefault(op, set())

    def func(
        x1: ArrayOrScalar,
        x2: ArrayOrScalar,
        /,
        *,
        broadcast_dimensions: tuple[int, ...] | None = None,
    ) -> Array:
        if broadcast_dimensions is None and type(x1) is Array:
            dev = x1._device
            a = x1._data
            if type(x2) is Array:
                b: Any = x2._data
                if x2._device is not dev or x1._ndim != x2._ndim:
                    return apply_binary(op, x1, x2)
                if checked and (id(a.dtype) not in accepted or id(b.dtype) not in accepted):
                    return apply_binary(op, x1, x2)
            elif type(x2) is float or type(x2) is int:
                if checked and id(a.dtype) not in accepted:
                    return apply_binary(op, x1, x2)
                b = x2
            else:
                return apply_binary(op, x1, x2)
            try:
                r = dev.binaries[op](a, b)
            except _FAST_ERRORS:
                r = _FAILED  # explained outside this handler, so the error is not chained
            if r is _FAILED:
                return apply_binary(op, x1, x2)
            if type(r) is not dev.native:
                r = dev.coerce(r)
            out = _object_new(Array)
            out._data = r
            out._device = dev
            out._ndim = x1._ndim
            return out
        return apply_binary(op, x1, x2, broadcast_dimensions)

    func.__name__ = func.__qualname__ = op
    func.__doc__ = _BINARY_DOC.format(summary=BINARY[op])
    return func


def forward_operator(op: str) -> Callable[[Array, Any], Array]:
    """``Array.__op__`` for the binary function ``op``: ``x op other``.

    It returns ``NotImplemented`` for an operand type it does not know, so that
    type's own reflected operator can run.
    """
    checked = op in FUNCTION_CATEGORIES
    accepted = _ACCEPTED_IDS.setdefault(op, set())

    def operator(self: Array, other: Any) -> Array:
        dev = self._device
        a = self._data
        if type(other) is Array:
            b: Any = other._data
            if other._device is not dev or self._ndim != other._ndim:
                return apply_binary(op, self, other)
            if checked and (id(a.dtype) not in accepted or id(b.dtype) not in accepted):
                return apply_binary(op, self, other)
        elif type(other) is float or type(other) is int:
            if checked and id(a.dtype) not in accepted:
                return apply_binary(op, self, other)
            b = other
        elif _foreign(op, other):
            return NotImplemented
        else:
            return apply_binary(op, self, other)
        try:
            r = dev.binaries[op](a, b)
        except _FAST_ERRORS:
            r = _FAILED
        if r is _FAILED:
            return apply_binary(op, self, other)
        if type(r) is not dev.native:
            r = dev.coerce(r)
        out = _object_new(Array)
        out._data = r
        out._device = dev
        out._ndim = self._ndim
        return out

    operator.__name__ = f"__{op}__"
    return operator


def reflected_operator(op: str) -> Callable[[Array, Any], Array]:
    """``Array.__rop__`` for the binary function ``op``: ``other op x``."""
    checked = op in FUNCTION_CATEGORIES
    accepted = _ACCEPTED_IDS.setdefault(op, set())

    def operator(self: Array, other: Any) -> Array:
        if type(other) is float or type(other) is int:
            dev = self._device
            if checked and id(self._data.dtype) not in accepted:
                return apply_binary(op, other, self)
            try:
                r = dev.binaries[op](other, self._data)
            except _FAST_ERRORS:
                r = _FAILED
            if r is _FAILED:
                return apply_binary(op, other, self)
            if type(r) is not dev.native:
                r = dev.coerce(r)
            out = _object_new(Array)
            out._data = r
            out._device = dev
            out._ndim = self._ndim
            return out
        if type(other) is not Array and _foreign(op, other):
            return NotImplemented
        return apply_binary(op, other, self)

    operator.__name__ = f"__r{op}__"
    return operator


def _foreign(op: str, other: Any) -> bool:
    """Whether an operator should leave ``other`` to its own type (NotImplemented).

    Python and NumPy scalars are ours; raw NumPy/Dask arrays are refused with
    the fix; anything else is foreign.
    """
    if is_scalar(other):
        return False
    if device_of_native(other) is not None:
        refuse_operand(op, other)
    return True


def _make_unary(op: str, summary: str) -> Callable[[Array], Array]:
    checked = op in FUNCTION_CATEGORIES
    accepted = _ACCEPTED_IDS.setdefault(op, set())

    # apply_unary inlined for an Array whose dtype was accepted before (the dtype check
    # by identity, as in make_binary); the first call, errors and the rest go there
    def func(x: Array, /) -> Array:
        if type(x) is Array and (not checked or id(x._data.dtype) in accepted):
            dev = x._device
            try:
                r = dev.functions[op](x._data)
            except _FAST_ERRORS:
                r = _FAILED
            if r is not _FAILED:
                if type(r) is not dev.native:
                    r = dev.coerce(r)
                out = _object_new(Array)
                out._data = r
                out._device = dev
                out._ndim = x._ndim
                return out
        return apply_unary(op, x)

    func.__name__ = func.__qualname__ = op
    func.__doc__ = _UNARY_DOC.format(summary=summary)
    return func


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
    policy.operands("clip", *shapes)  # the rank rule first, then the dtype
    if x.dtype.kind not in "iuf":
        raise TypeError(
            f"clip: x must have a real numeric dtype, got {x.dtype} (the standard leaves "
            "clip of booleans and complex numbers unspecified)."
        )
    # maximum, then minimum, in x's dtype: the same on every device (array_api_compat's
    # NumPy clip overflows filling a missing bound of a small integer dtype)
    data = x._data
    lo, hi = bounds
    if lo is not None:
        data = dev.binary("maximum")(data, lo)
    if hi is not None:
        data = dev.binary("minimum")(data, hi)
    return result(dev.ns.astype(data, x.dtype), dev)
