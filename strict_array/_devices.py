"""Choosing a device: ``device=`` arguments and the default device.

The devices themselves (one per backend, and its simulated devices: ``docs/testing.md``)
are in :mod:`strict_array._backends`.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from contextvars import ContextVar

from ._backends import Device, available_devices, device, host_device, registered_names
from ._typing import DeviceLike

__all__ = [
    "as_device",
    "available_devices",
    "default_device",
    "get_default_device",
    "set_default_device",
]


def as_device(dev: object, where: str) -> Device:
    """Normalise a ``device=`` argument (a Device or its name)."""
    if isinstance(dev, Device):
        return dev
    if isinstance(dev, str) and dev.lower() in registered_names():
        return device(dev)
    names = ", ".join(f"strict_array.{n.upper()}" for n in registered_names())
    raise ValueError(
        f"{where}: unknown device {dev!r}; use one of {names} (or its name in lower "
        "case; see __array_namespace_info__().devices())."
    )


DEVICE_ENV_VAR = "STRICT_ARRAY_DEVICE"
# the host unless the environment says otherwise (an empty value counts as unset)
_default_device_name: list[str] = [os.environ.get(DEVICE_ENV_VAR, "").strip()]
_device_override: ContextVar[Device | None] = ContextVar(
    "strict_array_default_device", default=None
)


def get_default_device() -> Device:
    """The device creation functions use when ``device=None``.

    Set process-wide by the environment variable ``STRICT_ARRAY_DEVICE``
    (``cpu``, ``dask`` or a simulated device's name such as ``cpu_no_x64``; read at
    import) or :func:`set_default_device`, and per
    thread or asyncio task by the :func:`default_device` context manager.

    Returns
    -------
    Device
    """
    name = _default_device_name[0]
    return _device_override.get() or (as_device(name, DEVICE_ENV_VAR) if name else host_device())


def set_default_device(device: DeviceLike) -> None:
    """Set the process-wide default device (see :func:`get_default_device`).

    Parameters
    ----------
    device : Device or str
    """
    _default_device_name[0] = as_device(device, "set_default_device").name


@contextlib.contextmanager
def default_device(device: DeviceLike) -> Iterator[Device]:
    """Context manager: creation functions default to ``device`` inside the block.

    Parameters
    ----------
    device : Device or str

    Yields
    ------
    Device
        The chosen device.

    Examples
    --------
    >>> import strict_array as xp
    >>> with xp.default_device(xp.CPU):
    ...     xp.zeros(3).device
    strict_array.CPU
    """
    chosen = as_device(device, "default_device")
    token = _device_override.set(chosen)
    try:
        yield chosen
    finally:
        _device_override.reset(token)
