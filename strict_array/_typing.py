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

__all__ = ["PY_SCALARS", "Axis", "DTypeLike", "DeviceLike", "Scalar", "Shape", "ShapeLike"]
