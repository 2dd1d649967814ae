"""Array's operators, indexing and ``mT``: each is the namespace function it maps to.

Kept apart from :mod:`strict_array._array` so that the array type imports no
operation (the operations import it), and attached once by :func:`install`
when the package is imported.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np

from . import _array
from . import _elementwise as ew
from ._array import Array
from ._errors import ARRAY, refuse_operand
from ._indexing import getitem, setitem
from ._linear_algebra import matmul, matrix_transpose

#: operator suffix -> binary element-wise function (forward, reflected and in-place)
ARITHMETIC = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "divide",
    "floordiv": "floor_divide", "mod": "remainder", "pow": "pow",
    "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
    "lshift": "bitwise_left_shift", "rshift": "bitwise_right_shift",
}  # fmt: skip
#: operator suffix -> comparison (forward only: Python reflects them itself)
COMPARISONS = {
    "eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal",
    "gt": "greater", "ge": "greater_equal",
}  # fmt: skip
#: operator suffix -> unary element-wise function
UNARY = {"neg": "negative", "pos": "positive", "abs": "abs", "invert": "bitwise_invert"}


def _matmul_operand(other: Any) -> Array:
    if type(other) is not Array:
        refuse_operand("matmul", other, ARRAY)
    return other


def __matmul__(self: Array, other: Any) -> Array:
    if type(other) is not Array:
        if isinstance(other, np.ndarray):  # NumPy's: its reflected operator (section 7)
            return NotImplemented
        refuse_operand("matmul", other, ARRAY)
    return matmul(self, other)


def __rmatmul__(self: Array, other: Any) -> Array:
    if type(other) is not Array:
        if isinstance(other, np.ndarray):
            return NotImplemented
        refuse_operand("matmul", other, ARRAY)
    return matmul(other, self)


def _imatmul(x: Array, y: Any) -> Array:
    # (a NumPy array never reaches here: general_inplace runs NumPy's ufunc into x)
    return matmul(x, _matmul_operand(y))


def install(namespace: types.ModuleType) -> None:
    """Attach every operator to :class:`Array`; ``namespace`` is ``strict_array``."""
    _array._namespace = namespace
    for short, name in ARITHMETIC.items():
        setattr(Array, f"__{short}__", ew.forward_operator(name))
        setattr(Array, f"__r{short}__", ew.reflected_operator(name))
        setattr(Array, f"__i{short}__", ew.inplace_operator(name))
    for short, name in COMPARISONS.items():
        setattr(Array, f"__{short}__", ew.forward_operator(name))
    for short, name in UNARY.items():
        setattr(Array, f"__{short}__", ew.FUNCTIONS[name])
    Array.__matmul__ = __matmul__  # type: ignore[method-assign]
    Array.__rmatmul__ = __rmatmul__  # type: ignore[method-assign]
    Array.__imatmul__ = ew.inplace_operator("matmul", _imatmul)  # type: ignore[method-assign]
    Array.__getitem__ = getitem  # type: ignore[method-assign]
    Array.__setitem__ = setitem  # type: ignore[method-assign]
    setattr(  # noqa: B010 - declared as a property for type checkers in _array
        Array,
        "mT",
        property(matrix_transpose, doc="Transpose of the last two axes (a stack of matrices)."),
    )
