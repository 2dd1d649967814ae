"""``__array_namespace_info__``: what this namespace supports, under the flags in force."""

from __future__ import annotations

from typing import Any

from . import _dtypes, _flags
from ._backends import Device, available_devices
from ._devices import as_device, get_default_device


class Info:
    """Inspection of the namespace's capabilities, devices and data types.

    Every answer is read when asked: it follows the flags in force
    (:func:`strict_array.set_array_api_strict_flags`) and the device asked about.
    """

    __module__ = "strict_array"

    def capabilities(self) -> dict[str, Any]:
        """What the flags in force allow.

        Returns
        -------
        dict
            ``"boolean indexing"`` and ``"data-dependent shapes"`` (the flags of those
            names), and from version 2024.12 of the standard ``"max dimensions"`` (64).
        """
        flags = _flags.current()
        out: dict[str, Any] = {  # (for the calling code, where flags.packages names some)
            "boolean indexing": flags.allows("boolean_indexing"),
            "data-dependent shapes": flags.allows("data_dependent_shapes"),
        }
        if flags.api_version >= "2024.12":
            out["max dimensions"] = 64
        return out

    def default_device(self) -> Device:
        """The device creation functions use when ``device=None``."""
        return get_default_device()

    def devices(self) -> tuple[Device, ...] | list[Device]:
        """Every device: ``CPU`` and ``DASK`` (when Dask is installed), then the
        simulated devices of each (see ``docs/testing.md``); a list before version
        2025.12 of the standard, as it specified then."""
        found = available_devices()
        return found if _flags.current().api_version >= "2025.12" else list(found)

    def default_dtypes(self, *, device: Any = None) -> dict[str, Any]:
        """The default dtypes of ``device`` (the default device if None).

        Returns
        -------
        dict
            ``"real floating"``, ``"complex floating"``, ``"integral"`` and
            ``"indexing"``: float64, complex128, int64 and int64 on ``CPU`` and ``DASK``;
            a simulated device may have others (float32 defaults, int32 indexing).
        """
        dev = get_default_device() if device is None else as_device(device, "default_dtypes")
        return dict(dev.profile.defaults)

    def dtypes(self, *, device: Any = None, kind: Any = None) -> dict[str, Any]:
        """The dtypes ``device`` (the default device if None) supports, by name,
        optionally only those of ``kind`` (a kind of ``isdtype``, or a tuple of kinds)."""
        dev = get_default_device() if device is None else as_device(device, "dtypes")
        if kind is not None:
            _dtypes.isdtype(_dtypes.float64, kind)  # (refuses an unknown kind)
        return {
            d.name: d
            for d in _dtypes.ALL_DTYPES
            if dev.profile.supports(d) and (kind is None or _dtypes.isdtype(d, kind))
        }


def __array_namespace_info__() -> Info:
    """Return the namespace's inspection object (array API ``__array_namespace_info__``)."""
    return Info()
