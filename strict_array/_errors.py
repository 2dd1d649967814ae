"""The exceptions of strict broadcasting, and the errors every function shares.

Each message names the operation, what it got and the fix.
"""

from __future__ import annotations

from typing import NoReturn

import numpy as np

from ._backends import Device, device_of_native
from ._settings import UNKNOWN_SIZES_FIX
from ._typing import is_scalar

__all__ = [
    "ARRAY",
    "ARRAY_OR_SCALAR",
    "RankPromotionError",
    "RankPromotionWarning",
    "UNKNOWN_SIZES_FIX",
    "mixed_devices",
    "refuse_operand",
]


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
    so the standard :mod:`warnings` filters (by module, once per location,
    ``-W error::...``, pytest's ``filterwarnings``) apply to it.
    """

    __module__ = "strict_array"


#: What most functions accept as an array argument.
ARRAY = "a strict_array.Array"
#: What binary element-wise functions (and a few others) accept as an operand.
ARRAY_OR_SCALAR = "a strict_array.Array or a Python scalar (bool, int, float, complex)"


def refuse_operand(op: str, value: object, accepts: str = ARRAY_OR_SCALAR) -> NoReturn:
    """Raise the TypeError for an argument that is not what ``op`` accepts.

    ``accepts`` says what the function really takes; raw NumPy or Dask arrays
    get the conversion that fixes them.
    """
    if device_of_native(value) is not None and not isinstance(value, np.generic):
        raise TypeError(
            f"{op}: got a raw {type(value).__module__}.{type(value).__name__} of shape "
            f"{getattr(value, 'shape', '?')}; strict_array does not mix array types. "
            "Convert it first with strict_array.asarray(...)."
        )
    if is_scalar(value):
        raise TypeError(
            f"{op}: expected {accepts}, got the {type(value).__name__} {value!r}; make "
            f"it an array first with strict_array.asarray({value!r})."
        )
    raise TypeError(f"{op}: expected {accepts}, got {type(value).__name__}.")


def mixed_devices(op: str, d1: Device, d2: Device) -> ValueError:
    """The error for operands on different devices."""
    return ValueError(
        f"{op}: operands are on different devices ({d1!r} and {d2!r}); move one with "
        "x.to_device(...) first."
    )
