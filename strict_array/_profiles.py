"""The dtypes of a device: one record per kind of backend simulated.

Kept apart from :mod:`strict_array._dtypes` (which needs the array type) so that the
devices, which the array type needs, can hold one.
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["DEFAULT_DTYPES", "FLOAT32_DEFAULTS", "FULL", "NO_FLOAT64", "NO_X64", "DtypeProfile"]

float32, float64 = np.dtype("float32"), np.dtype("float64")
complex64, complex128 = np.dtype("complex64"), np.dtype("complex128")
int32, int64, uint64 = np.dtype("int32"), np.dtype("int64"), np.dtype("uint64")

DEFAULT_DTYPES: dict[str, np.dtype] = {
    "real floating": float64,
    "complex floating": complex128,
    "integral": int64,
    "indexing": int64,
}


@dataclass(frozen=True)
class DtypeProfile:
    """The dtypes of a device: its defaults and the dtypes it lacks.

    ``CPU`` and ``DASK`` have every dtype and NumPy's defaults (:data:`FULL`); a
    simulated device (``docs/testing.md``) reproduces a backend that has fewer (Apple's
    MPS: no float64; JAX without x64: no 64-bit types) or other defaults (PyTorch:
    float32).

    Attributes
    ----------
    simulates : str
        The backend the profile reproduces, for messages.
    defaults : dict
        ``default_dtypes()``: ``"real floating"``, ``"complex floating"``,
        ``"integral"``, ``"indexing"``.
    lacks : frozenset of dtype
        The dtypes refused on the device (at creation and as results of promotion).
    """

    simulates: str
    defaults: Mapping[str, np.dtype]
    lacks: frozenset[np.dtype] = frozenset()

    def supports(self, dtype: np.dtype) -> builtins.bool:
        """Whether arrays of ``dtype`` can live on the device."""
        return dtype not in self.lacks

    #: the defaults are NumPy's own (a backend infers them without being told)
    numpy_defaults: builtins.bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # (read by every asarray of Python values: decided once)
        object.__setattr__(self, "numpy_defaults", dict(self.defaults) == DEFAULT_DTYPES)

    def default_for(self, values: tuple[Any, ...]) -> np.dtype | None:
        """The dtype of an array made from the Python scalars ``values`` with
        ``dtype=None`` (None: the backend's inference is the profile's)."""
        if self.numpy_defaults:
            return None
        kinds = {type(v) for v in values if v is not None}
        if complex in kinds:
            return self.defaults["complex floating"]
        if float in kinds:
            return self.defaults["real floating"]
        if kinds <= {int, builtins.bool} and int in kinds:
            return self.defaults["integral"]
        return None

    def inferred(self, dtype: np.dtype) -> np.dtype:
        """The dtype of data NumPy inferred from Python values (``asarray([1.0])``),
        on this device: NumPy's default of the kind replaced by the device's."""
        if self.numpy_defaults:
            return dtype
        for kind, default in DEFAULT_DTYPES.items():
            if dtype == default and kind != "indexing":
                return self.defaults[kind]
        return dtype

    def refusal(self, dtype: np.dtype, device: object) -> ValueError:
        """The error for an array of ``dtype``, which the device lacks."""
        return ValueError(
            f"{device!r} has no {dtype} (it simulates {self.simulates}, which lacks "
            f"{', '.join(sorted(str(d) for d in self.lacks))}); make the array (or cast "
            f"the operands) with a dtype of the device: "
            f"__array_namespace_info__().dtypes(device={device!r}) lists them."
        )


#: every dtype, NumPy's defaults (``CPU``, ``DASK``)
FULL = DtypeProfile("NumPy", DEFAULT_DTYPES)
_FLOAT32_DEFAULTS: dict[str, np.dtype] = {
    **DEFAULT_DTYPES,
    "real floating": float32,
    "complex floating": complex64,
}
#: every dtype, float32 and complex64 defaults (PyTorch; array-api-strict's ``device2``)
FLOAT32_DEFAULTS = DtypeProfile("PyTorch's float32 defaults", _FLOAT32_DEFAULTS)
#: no float64 nor complex128 (Apple's MPS; array-api-strict's ``no_float64``)
NO_FLOAT64 = DtypeProfile("Apple's MPS", _FLOAT32_DEFAULTS, frozenset({float64, complex128}))
#: no 64-bit type, int32 indexing (JAX without x64; array-api-strict's ``no_x64``)
NO_X64 = DtypeProfile(
    "JAX without x64",
    {**_FLOAT32_DEFAULTS, "integral": int32, "indexing": int32},
    frozenset({float64, complex128, int64, uint64}),
)
