"""Type aliases shared by the package's signatures.

These are what the standard's signatures call ``Scalar``, a shape, a device and a
dtype, spelled once so that every function says the same thing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, SupportsIndex, TypeAlias, Union

import numpy as np

if TYPE_CHECKING:
    from ._backends import Device

#: A Python scalar operand: it broadcasts against anything and is weakly typed.
Scalar: TypeAlias = bool | int | float | complex

#: The types of :data:`Scalar`, for ``type(x) in PY_SCALARS`` checks.
PY_SCALARS: frozenset[type] = frozenset({bool, int, float, complex})


def is_scalar(value: object) -> bool:
    """Whether ``value`` is a scalar operand of the namespace's functions: a Python
    scalar, or a NumPy scalar of a number or a bool, which counts as the Python scalar it
    holds (``xp.multiply(np.float64(2), x)`` is ``xp.multiply(2.0, x)``: weakly typed,
    broadcasting freely). An operator leaves a NumPy scalar to NumPy (section 7).

    The one place this rule is written; :func:`python_scalar` converts.
    """
    return type(value) in PY_SCALARS or (
        isinstance(value, np.generic) and value.dtype.kind in "biufc"
    )


def python_scalar(value: object) -> Scalar:
    """The Python scalar a scalar operand (:func:`is_scalar`) stands for."""
    if type(value) in PY_SCALARS:
        return value  # type: ignore[return-value]
    return value.item()  # type: ignore[attr-defined,no-any-return]


#: A shape as users give it: one size or a sequence of sizes.
ShapeLike: TypeAlias = SupportsIndex | Sequence[SupportsIndex]

#: A shape as arrays report it: ``None`` is a size unknown until computed.
Shape: TypeAlias = tuple[int | None, ...]

#: A device, or its name (``"cpu"``, ``"dask"``).
DeviceLike: TypeAlias = Union["Device", str]

#: A data type: one of the namespace's dtype objects, or anything ``numpy.dtype``
#: accepts that names one of them (``"float64"``, ``numpy.int32``).
DTypeLike: TypeAlias = np.dtype | str | type

#: Axes of a reduction: one axis, several, or all (``None``).
Axis: TypeAlias = int | tuple[int, ...] | None

__all__ = [
    "PY_SCALARS", "Axis", "DTypeLike", "DeviceLike", "Scalar", "Shape", "ShapeLike", "is_scalar",
    "python_scalar",
]  # fmt: skip
