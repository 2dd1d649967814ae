"""Data types and the data type functions of the standard.

The data types are NumPy's dtype objects (consumers read ``dtype.kind``).
Type promotion is the standard's table; where the standard leaves a
mixed-kind case open (e.g. ``int8`` with ``uint64``, or an integer array with a
Python float), NumPy's rule applies (NEP 50: Python scalars are weak).
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from ._array import Array, expect_array, result
from ._flags import require_behaviour

bool = np.dtype("bool")
int8 = np.dtype("int8")
int16 = np.dtype("int16")
int32 = np.dtype("int32")
int64 = np.dtype("int64")
uint8 = np.dtype("uint8")
uint16 = np.dtype("uint16")
uint32 = np.dtype("uint32")
uint64 = np.dtype("uint64")
float32 = np.dtype("float32")
float64 = np.dtype("float64")
complex64 = np.dtype("complex64")
complex128 = np.dtype("complex128")

ALL_DTYPES = (
    bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
    float32, float64, complex64, complex128,
)  # fmt: skip
_SUPPORTED = frozenset(ALL_DTYPES)


def as_dtype(dtype: Any, op: str) -> np.dtype | None:
    """Validate a ``dtype=`` argument: None or one of the standard's dtype objects.

    The standard's dtypes are the namespace's objects (``strict_array.float64``, which
    is NumPy's ``np.dtype("float64")``); as in array_api_strict, other spellings NumPy
    takes (``"float64"``, ``np.float64``, ``float``) are refused, with the fix: code
    that passes them works on NumPy only.
    """
    if dtype is None:
        return None
    if isinstance(dtype, np.dtype) and dtype in _SUPPORTED:
        return dtype
    raise TypeError(_not_a_dtype(dtype, op))


def _not_a_dtype(dtype: Any, op: str) -> str:
    """The message for a ``dtype=`` that is not one of the standard's dtype objects."""
    if isinstance(dtype, type):  # as written in code: numpy.float64, float
        module = dtype.__module__
        shown = dtype.__qualname__ if module == "builtins" else f"{module}.{dtype.__qualname__}"
    else:
        shown = repr(dtype)
    head = f"{op}: dtype={shown} is not a data type of the array API standard"
    try:
        equivalent = np.dtype(dtype) if isinstance(dtype, (str, type)) else None
    except TypeError:
        equivalent = None
    if isinstance(dtype, str):
        what = "a string"
    elif isinstance(dtype, type) and issubclass(dtype, np.generic):
        what = f"NumPy's scalar type numpy.{dtype.__name__}"
    elif isinstance(dtype, type):
        what = f"the Python type {dtype.__name__}"
    else:
        what = None
    if what is not None and equivalent in _SUPPORTED:
        return (
            f"{head}: it is {what}, which NumPy reads as {equivalent} but the standard "
            f"does not; use the dtype object strict_array.{equivalent} (or x.dtype of an "
            "array)."
        )
    names = ", ".join(str(d) for d in ALL_DTYPES)
    return f"{head}; use one of the namespace's dtype objects ({names}), e.g. strict_array.float64."


def _dtype_of(op: str, x: Any) -> np.dtype:
    if type(x) is Array:
        return x.dtype
    return as_dtype(x, op)  # type: ignore[return-value]


def astype(x: Array, dtype: Any, /, *, copy: builtins.bool = True, device: Any = None) -> Array:
    """Copy of ``x`` cast to ``dtype`` (no copy when ``copy=False`` and nothing changes).

    Parameters
    ----------
    x : Array
    dtype : dtype
    copy : bool, default True
    device : Device, optional
        Move the result to this device.

    Returns
    -------
    Array
    """
    x = expect_array("astype", x)
    dtype = as_dtype(dtype, "astype")
    dev = x._device
    data = dev.ns.astype(x._data, dtype, copy=copy)
    out = result(data, dev)
    if device is not None:
        out = out.to_device(device)
    return out


def can_cast(from_: Any, to: Any, /) -> builtins.bool:
    """Whether ``from_`` (a dtype or array) can be cast to ``to`` by type promotion.

    Returns
    -------
    bool
    """
    f = _dtype_of("can_cast", from_)
    t = as_dtype(to, "can_cast")
    return np.can_cast(f, t, casting="safe")  # type: ignore[arg-type]


class finfo:
    """Machine limits of a floating-point data type.

    Attributes
    ----------
    bits, eps, max, min, smallest_normal : as in the standard
    dtype : dtype
        The real floating dtype (``float32`` for ``complex64``).
    """

    def __init__(self, type: Any, /) -> None:
        dt = _dtype_of("finfo", type)
        if dt.kind not in "fc":
            raise TypeError(f"finfo: {dt} is not a floating-point dtype; use iinfo.")
        info = np.finfo(dt)
        self.bits = int(info.bits)
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.smallest_normal = float(info.smallest_normal)
        self.dtype = np.dtype(info.dtype)

    def __repr__(self) -> str:
        return f"finfo(dtype={self.dtype}, bits={self.bits}, eps={self.eps})"


class iinfo:
    """Machine limits of an integer data type (``bits``, ``max``, ``min``, ``dtype``)."""

    def __init__(self, type: Any, /) -> None:
        dt = _dtype_of("iinfo", type)
        if dt.kind not in "iu":
            raise TypeError(f"iinfo: {dt} is not an integer dtype; use finfo.")
        info = np.iinfo(dt)
        self.bits = int(info.bits)
        self.max = int(info.max)
        self.min = int(info.min)
        self.dtype = dt

    def __repr__(self) -> str:
        return f"iinfo(dtype={self.dtype}, min={self.min}, max={self.max})"


_KINDS = {
    "bool": "b",
    "signed integer": "i",
    "unsigned integer": "u",
    "integral": "iu",
    "real floating": "f",
    "complex floating": "c",
    "numeric": "iufc",
}


#: the dtype kinds each category of the standard's element-wise functions takes,
#: and the dtype an error suggests converting to
CATEGORY_KINDS = {
    "boolean": ("b", "bool"),
    "integer": ("iu", "int64"),
    "integer or boolean": ("biu", "int64"),
    "real numeric": ("iuf", "float64"),
    "numeric": ("iufc", "float64"),
    "real floating-point": ("f", "float64"),
    "complex floating-point": ("c", "complex128"),
    "floating-point": ("fc", "float64"),
    "numeric or boolean": ("biufc", "float64"),
    "real-valued or boolean": ("biuf", "float64"),
}

#: each element-wise, statistical, searching and sorting function's dtype category,
#: as the standard states it ("x: input array. Should have a ... data type"), as in
#: array_api_strict: NumPy computes many others, with dtypes outside the standard
#: (``sqrt`` of a bool is float16), a different result on each device (``round`` of
#: a bool) or no meaning (the order of complex numbers), so they are refused.
#: Not listed: ``equal`` and ``not_equal`` (every dtype), and the arithmetic of
#: ``add``, ``subtract``, ``multiply``, ``divide`` and ``pow``, which follows NumPy for
#: every dtype as mixed-kind promotion does (results of standard dtypes, the same on
#: every device; ``subtract`` of booleans is NumPy's TypeError): they are the hot
#: path, where a dtype check would cost more than all the rest of the wrapper.
FUNCTION_CATEGORIES = {
    **dict.fromkeys(
        ("abs", "conj", "isfinite", "isinf", "isnan", "negative", "positive", "real",
         "round", "sign", "square"),
        "numeric",
    ),
    **dict.fromkeys(
        ("acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "exp", "expm1",
         "log", "log1p", "log2", "log10", "reciprocal", "sin", "sinh", "sqrt", "tan", "tanh"),
        "floating-point",
    ),
    **dict.fromkeys(
        ("signbit", "atan2", "copysign", "hypot", "logaddexp", "nextafter"),
        "real floating-point",
    ),
    **dict.fromkeys(
        ("ceil", "floor", "trunc", "greater", "greater_equal", "less", "less_equal",
         "floor_divide", "maximum", "minimum", "remainder"),
        "real numeric",
    ),
    **dict.fromkeys(("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_invert"),
                    "integer or boolean"),
    **dict.fromkeys(("bitwise_left_shift", "bitwise_right_shift"), "integer"),
    **dict.fromkeys(("logical_and", "logical_or", "logical_not", "logical_xor"), "boolean"),
    "imag": "complex floating-point",
    # Reductions, searching and sorting: the standard asks for numeric (sums) and
    # real-valued (orderings) input and leaves booleans to the library; they count as
    # 0 and 1 on every device, as in NumPy, and consumers rely on it (xarray's rolling
    # windows sum boolean masks). Complex numbers have no order: refused. The moments
    # take floating-point arrays, as the standard says and array_api_strict checks:
    # NumPy's mean of integers is a float64 whatever their width, outside the
    # standard's promotion. var and std of complex numbers (real results, as NumPy's)
    # are kept: the standard asks for real ones, but the result is well defined.
    **dict.fromkeys(("sum", "prod", "cumulative_sum", "cumulative_prod"), "numeric or boolean"),
    **dict.fromkeys(("mean", "var", "std"), "floating-point"),
    **dict.fromkeys(("max", "min", "argmax", "argmin", "sort", "argsort", "nanmax", "nanmin",
                     "nanargmax", "nanargmin"), "real-valued or boolean"),
}  # fmt: skip


def check_category(op: str, dtype: np.dtype, which: str = "x") -> None:
    """Refuse a dtype outside ``op``'s category (TypeError naming the fix)."""
    category = FUNCTION_CATEGORIES.get(op)
    if category is None:
        return
    kinds, suggested = CATEGORY_KINDS[category]
    if dtype.kind in kinds:
        return
    allowed = ", ".join(str(d) for d in ALL_DTYPES if d.kind in kinds)
    raise TypeError(
        f"{op}: {which} has dtype {dtype}, but {op} takes {category} arrays ({allowed}); "
        f"convert first, e.g. strict_array.astype({which}, strict_array.{suggested})."
    )


#: per function, the ids of NumPy's dtype singletons found in its category: the hot
#: paths test ``id(data.dtype)`` against it, much cheaper than reading ``kind``
ACCEPTED_IDS: dict[str, set[int]] = {}


def check_array_category(op: str, x: Array, which: str = "x") -> None:
    """:func:`check_category` of an Array's dtype, remembered per dtype singleton."""
    accepted = ACCEPTED_IDS.get(op)
    if accepted is not None and id(x._data.dtype) in accepted:
        return
    dtype = x.dtype
    check_category(op, dtype, which)
    if x._data.dtype is dtype and dtype is np.dtype(dtype.char):
        # one of NumPy's dtype singletons, which live as long as the process: its id is
        # never reused (other dtype objects are checked each time)
        ACCEPTED_IDS.setdefault(op, set()).add(id(dtype))


def isdtype(dtype: Any, kind: Any) -> builtins.bool:
    """Whether ``dtype`` is of ``kind`` (a dtype, a kind name, or a tuple of them).

    Parameters
    ----------
    dtype : dtype
    kind : dtype, str or tuple
        Kind names: ``"bool"``, ``"signed integer"``, ``"unsigned integer"``,
        ``"integral"``, ``"real floating"``, ``"complex floating"``,
        ``"numeric"``.

    Returns
    -------
    bool
    """
    dt = as_dtype(dtype, "isdtype")
    if isinstance(kind, tuple):
        return any(isdtype(dt, k) for k in kind)
    if isinstance(kind, str):
        if kind not in _KINDS:
            raise ValueError(f"isdtype: unknown kind {kind!r}; use one of {sorted(_KINDS)}.")
        return dt.kind in _KINDS[kind]  # type: ignore[union-attr]
    return dt == as_dtype(kind, "isdtype")


def result_type(*arrays_and_dtypes: Any) -> np.dtype:
    """The dtype type promotion gives for the arguments.

    Parameters
    ----------
    *arrays_and_dtypes : Array, dtype, or Python scalar
        At least one Array or dtype; Python scalars are weak (they take the
        kind's dtype of the other arguments).

    Returns
    -------
    dtype
    """
    args: list[Any] = []
    typed = False  # an array or a dtype among the arguments
    for a in arrays_and_dtypes:
        if type(a) is Array:
            args.append(a.dtype)
            typed = True
        elif isinstance(a, (int, float, complex)):
            require_behaviour("scalar result_type", "result_type")
            args.append(a)
        else:
            d = as_dtype(a, "result_type")
            args.append(d)
            typed = typed or isinstance(d, np.dtype)
    if not typed:
        # a TypeError (the arguments' kinds), which consumers such as xarray catch when
        # they probe a lone Python scalar
        raise TypeError(
            "result_type: at least one argument must be an array or a dtype; Python "
            "scalars alone have no dtype."
        )
    return np.result_type(*args)
