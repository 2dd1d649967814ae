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

from ._array import _PY_SCALARS, Array, _object_new, _wrap, result
from ._broadcasting import (
    broadcast_shapes,
    check_broadcast_dimensions,
    check_dims_tuple,
    check_same_rank_dimensions,
    insert_axes_key,
    numpy_trailing_dimensions,
)
from ._devices import Device, device_of_native
from ._modes import promote_or_raise

Scalar = bool | int | float | complex
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


# --- operands ------------------------------------------------------------------------
def refuse_operand(op: str, value: object) -> Any:
    """Raise the TypeError for an operand that is neither an Array nor a Python scalar."""
    if device_of_native(value) is not None and not isinstance(value, np.generic):
        raise TypeError(
            f"{op}: got a raw {type(value).__module__}.{type(value).__name__} of shape "
            f"{getattr(value, 'shape', '?')}; strict_array does not mix array types. "
            "Convert it first with strict_array.asarray(...)."
        )
    raise TypeError(
        f"{op}: expected a strict_array.Array or a Python scalar (bool, int, float, "
        f"complex), got {type(value).__name__}."
    )


def as_scalar(op: str, value: object) -> Scalar:
    """A Python scalar operand; NumPy scalars become Python scalars (weak typing)."""
    if type(value) in _PY_SCALARS:
        return value  # type: ignore[return-value]
    if isinstance(value, np.generic) and type(value.item()) in _PY_SCALARS:
        return value.item()
    return refuse_operand(op, value)


def mixed_devices(op: str, d1: Device, d2: Device) -> ValueError:
    return ValueError(
        f"{op}: operands are on different devices ({d1!r} and {d2!r}); move one with "
        "x.to_device(...) first."
    )


def _scalar_with_dims(op: str, dims: object) -> None:
    if dims is not None and check_dims_tuple(op, "broadcast_dimensions", dims):
        raise ValueError(
            f"{op}: broadcast_dimensions={tuple(dims)} was given but one operand is a "  # type: ignore[arg-type]
            "scalar, which always broadcasts; omit broadcast_dimensions."
        )


def _align(op: str, dev: Device, a: Any, b: Any, dims: object) -> tuple[Any, Any]:
    """Operands of different ranks, or explicit ``broadcast_dimensions``."""
    s1, s2 = dev.shape(a), dev.shape(b)
    n1, n2 = len(s1), len(s2)
    if n1 == n2:
        check_same_rank_dimensions(op, n1, dims)
        return a, b
    if n1 == 0 or n2 == 0:  # a 0-d array is a scalar
        _scalar_with_dims(op, dims)
        return a, b
    if dims is None:
        promote_or_raise(op, s1, s2)
        dims = numpy_trailing_dimensions(min(n1, n2), max(n1, n2))
        implicit = True
    else:
        implicit = False
    try:
        if n1 < n2:
            return _map_into(op, dev, a, s1, b, s2, dims), b
        return a, _map_into(op, dev, b, s2, a, s1, dims)
    except ValueError as e:
        if implicit:  # the caller gave no broadcast_dimensions: say what was tried
            raise ValueError(
                f"{op}: shapes {tuple(s1)} and {tuple(s2)} cannot be broadcast with "
                f"NumPy's trailing alignment ({e})"
            ) from None
        raise


def _map_into(
    op: str, dev: Device, low: Any, low_shape: tuple, high: Any, high_shape: tuple, dims: object
) -> Any:
    dims = check_broadcast_dimensions(op, low_shape, high_shape, dims)
    if dims != numpy_trailing_dimensions(len(low_shape), len(high_shape)):
        # insert size-1 axes where nothing is mapped (a view, no copy); trailing
        # alignment needs none: the backend adds leading axes itself
        low = low[insert_axes_key(len(high_shape), dims)]
    return dev.align_to(low, high)


def _explain(op: str, dev: Device, a: Any, b: Any) -> None:
    """After the backend refused to broadcast: raise our precise error for a shape error."""
    s1, s2 = dev.shape(a), dev.shape(b)
    if len(s1) == len(s2):
        broadcast_shapes(op, s1, s2)


def apply_binary(op: str, x1: Any, x2: Any, dims: object = None) -> Array:
    """The one code path of every binary element-wise function and operator."""
    # Fast path: two arrays of one rank on one device, or an array and a Python
    # scalar; the backend does the size-1 broadcasting.
    t1, t2 = type(x1), type(x2)
    if t1 is Array:
        dev = x1._device
        a = x1._data
        if t2 is Array:
            b = x2._data
            if x2._device is not dev or dims is not None or a.ndim != b.ndim:
                if x2._device is not dev:
                    raise mixed_devices(op, dev, x2._device)
                a, b = _align(op, dev, a, b, dims)
        elif t2 in _PY_SCALARS and dims is None:
            b = x2
        else:
            b = as_scalar(op, x2)
            _scalar_with_dims(op, dims)
    elif t2 is Array:
        dev = x2._device
        b = x2._data
        a = as_scalar(op, x1)
        _scalar_with_dims(op, dims)
    else:
        raise TypeError(
            f"{op}: at least one operand must be a strict_array.Array, got "
            f"{t1.__name__} and {t2.__name__}."
        )
    try:
        r = dev.function(op)(a, b)
    except ValueError:
        if type(a) is dev.array_type and type(b) is dev.array_type:
            _explain(op, dev, a, b)
        raise
    return result(r, dev)


def apply_unary(op: str, x: Any) -> Array:
    """The one code path of every unary element-wise function and operator."""
    if type(x) is not Array:
        refuse_operand(op, x)
    dev = x._device
    r = dev.function(op)(x._data)
    if type(r) is not dev.array_type:
        r = dev.coerce(r)
    return _wrap(r, dev)


def assign_inplace(op: str, x: Array, result: Array) -> Array:
    """Store ``result`` into ``x`` for an in-place operator (section 2).

    The result must keep ``x``'s shape and dtype exactly: an in-place operator
    never reshapes or silently casts its left operand.
    """
    if result.shape != x.shape:
        raise ValueError(
            f"{op} (in-place): the result has shape {result.shape} but the left operand "
            f"has shape {x.shape}; an in-place operation cannot change the shape of its "
            "left operand. Use the out-of-place form (x = x op y)."
        )
    if result.dtype != x.dtype:
        raise TypeError(
            f"{op} (in-place): the result has dtype {result.dtype} but the left operand "
            f"has dtype {x.dtype}; an in-place operation cannot change the dtype of its "
            "left operand. Use the out-of-place form or astype."
        )
    x._data = x._device.assign(x._data, Ellipsis, result._data)
    return x


# --- operator and function factories -------------------------------------------------
def inplace_operator(op: str) -> Callable[[Array, Any], Array]:
    """``Array.__iop__``: the namespace function ``op``, stored back into ``self``."""
    func = FUNCTIONS[op]

    def operator(self: Array, other: Any) -> Array:
        if type(other) is not Array:
            other = as_scalar(op, other)
        return assign_inplace(op, self, func(self, other))

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


def make_binary(op: str, operator: str | None = None) -> Callable[..., Any]:
    """The namespace function ``op``, or its operator (``"forward"``/``"reflected"``).

    One body serves both, with the common cases inlined (apply_binary's fast
    path minus a call): arrays of one rank on one device, or an array and a
    Python float/int. An operator returns ``NotImplemented`` for an operand type
    it does not know, so that type's own reflected operator can run.
    """
    reflected = operator == "reflected"

    def func(
        x1: ArrayOrScalar,
        x2: ArrayOrScalar,
        /,
        *,
        broadcast_dimensions: tuple[int, ...] | None = None,
    ) -> Any:
        if reflected:
            x1, x2 = x2, x1
        if type(x1) is Array and broadcast_dimensions is None:
            if type(x2) is Array:
                if x1._device is x2._device and x1._data.ndim == x2._data.ndim:
                    b: Any = x2._data
                else:
                    return apply_binary(op, x1, x2)
            elif type(x2) is float or type(x2) is int:
                b = x2
            else:
                b = _not_array
            if b is not _not_array:
                dev = x1._device
                try:
                    r = dev.functions[op](x1._data, b)
                except (ValueError, KeyError):
                    return apply_binary(op, x1, x2)  # explains, or fills the cache
                if type(r) is not dev.array_type:
                    r = dev.coerce(r)
                out = _object_new(Array)
                out._data = r
                out._device = dev
                return out
        if operator is not None:
            other = x1 if reflected else x2
            if type(other) is not Array and _foreign(op, other):
                return NotImplemented
        return apply_binary(op, x1, x2, broadcast_dimensions)

    if operator is None:
        func.__name__ = func.__qualname__ = op
        func.__doc__ = _BINARY_DOC.format(summary=BINARY[op])
    else:
        func.__name__ = f"__{'r' if reflected else ''}{op}__"
    return func


_not_array = object()


def _foreign(op: str, other: Any) -> bool:
    """Whether an operator should leave ``other`` to its own type (NotImplemented).

    Python and NumPy scalars are ours; raw NumPy/Dask arrays are refused with
    the fix; anything else is foreign.
    """
    if type(other) in _PY_SCALARS or isinstance(other, np.generic):
        return False
    if device_of_native(other) is not None:
        refuse_operand(op, other)
    return True


def _make_unary(op: str, summary: str) -> Callable[[Array], Array]:
    def func(x: Array, /) -> Array:
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
    """
    if type(x) is not Array:
        refuse_operand("clip", x)
    arrays = [b for b in (min, max) if type(b) is Array]
    for b in arrays:
        if b._device is not x._device:
            raise mixed_devices("clip", x._device, b._device)
    check_ranks("clip", x, *arrays)
    bounds = [
        None if b is None else b._data if type(b) is Array else as_scalar(f"clip ({name})", b)
        for name, b in (("min", min), ("max", max))
    ]
    return result(x._device.ns.clip(x._data, *bounds), x._device)


def check_ranks(op: str, *arrays: Array) -> None:
    """The rank rule for operations without broadcast_dimensions (where, clip, ...).

    0-d arrays are scalars and broadcast freely; all others must share one rank,
    or the rank-promotion mode decides.
    """
    ranked = [a for a in arrays if a._data.ndim]
    for other in ranked[1:]:
        if other._data.ndim != ranked[0]._data.ndim:
            s1, s2 = ranked[0].shape, other.shape
            promote_or_raise(op, s1, s2, takes_dims=False)
            return
