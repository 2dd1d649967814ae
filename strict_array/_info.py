"""``__array_namespace_info__``: what this namespace supports."""

from __future__ import annotations

from typing import Any

from . import _dtypes
from ._backends import Device, available_devices
from ._devices import as_device, get_default_device


class Info:
    """Inspection of the namespace's capabilities, devices and data types."""

    __module__ = "strict_array"

    def capabilities(self) -> dict[str, Any]:
        """Boolean indexing and data-dependent shapes are supported on every device."""
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 64}

    def default_device(self) -> Device:
        """The device creation functions use when ``device=None``."""
        return get_default_device()

    def devices(self) -> tuple[Device, ...]:
        """``(CPU, DASK)``, or ``(CPU,)`` when Dask is not installed."""
        return available_devices()

    def default_dtypes(self, *, device: Any = None) -> dict[str, Any]:
        """Default dtypes: float64, complex128, int64 (integral and indexing)."""
        if device is not None:
            as_device(device, "default_dtypes")
        return dict(_dtypes.DEFAULT_DTYPES)

    def dtypes(self, *, device: Any = None, kind: Any = None) -> dict[str, Any]:
        """The supported dtypes by name, optionally of one ``kind`` (see ``isdtype``)."""
        if device is not None:
            as_device(device, "dtypes")
        return {d.name: d for d in _dtypes.ALL_DTYPES if kind is None or _dtypes.isdtype(d, kind)}


def __array_namespace_info__() -> Info:
    """Return the namespace's inspection object (array API ``__array_namespace_info__``)."""
    return Info()
