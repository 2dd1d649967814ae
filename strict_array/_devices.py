"""Devices: each one knows its backend, and nothing else branches on it.

A device holds an array-API namespace for its backend (``ns``: from
``array_api_compat``) and the few operations where backends differ in kind
rather than in name (conversion, computing, assignment, chunk alignment).
``CPU`` is eager NumPy; ``DASK`` (in :mod:`strict_array._dask`) is lazy Dask.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

import numpy as np


class Device:
    """A place where arrays live, bound to one backend.

    Compare devices with ``==``; ``x.device`` and the ``device=`` argument of
    creation functions use these objects. ``str`` names are accepted where a
    device is expected (``"cpu"``, ``"dask"``).
    """

    name: str
    #: the backend's array type (results of other types are coerced)
    array_type: type
    __slots__ = ("__weakref__", "functions", "name", "ns")

    def __init__(self, name: str) -> None:
        self.name = name
        #: the backend's array-API namespace (from ``array_api_compat``)
        self.ns = self._load_namespace()
        #: backend functions by name, resolved once (the hot path reads this dict)
        self.functions: dict[str, Any] = {}

    def __repr__(self) -> str:
        return f"strict_array.{self.name.upper()}"

    def __reduce__(self) -> str:
        return self.name.upper()  # pickle by reference to the module constant

    def function(self, name: str) -> Any:
        """The backend's function ``name``, cached in :attr:`functions`."""
        fn = self.functions.get(name)
        if fn is None:
            fn = self.functions[name] = getattr(self.ns, name)
        return fn

    # --- what each backend provides -------------------------------------------------
    def _load_namespace(self) -> Any:
        raise NotImplementedError

    def owns(self, obj: object) -> bool:
        """Whether ``obj`` is a native array of this backend."""
        raise NotImplementedError

    def coerce(self, obj: Any) -> Any:
        """Turn a backend result that is not an array (e.g. a NumPy scalar) into one."""
        raise NotImplementedError

    def from_numpy(self, arr: np.ndarray, chunks: Any = None) -> Any:
        """Place NumPy data on this device."""
        raise NotImplementedError

    def to_numpy(self, data: Any) -> np.ndarray:
        """Materialise data as a NumPy array (computes on lazy devices)."""
        raise NotImplementedError

    def rechunk(self, data: Any, chunks: Any) -> Any:
        """The same data with new chunks (lazily, on a chunked device)."""
        raise NotImplementedError

    def chunks(self, data: Any) -> tuple[tuple[int, ...], ...] | None:
        """The chunk sizes along each axis, or None on an unchunked device."""
        return None

    def shape(self, data: Any) -> tuple[int | None, ...]:
        """Shape with unknown sizes as ``None``."""
        return data.shape

    def map_blocks(self, kernel: Any, data: Any) -> Any:
        """Apply an element-wise NumPy ``kernel`` (same shape and dtype out)."""
        return kernel(data)

    def getitem(self, data: Any, key: Any) -> Any:
        """``data[key]`` for keys holding index arrays (basic keys skip this)."""
        return data[key]

    def assign(self, data: Any, key: Any, value: Any) -> Any:
        """``data[key] = value``; returns the array now holding the result."""
        data[key] = value
        return data

    def broadcast_to(self, data: Any, shape: tuple[int, ...]) -> Any:
        """Broadcast, read-only, no copy where the backend allows."""
        return self.ns.broadcast_to(data, shape)

    def align_to(self, low: Any, high: Any) -> Any:
        """Adapt ``low`` (aligned with ``high``'s trailing axes) to ``high``'s layout."""
        return low


class NumPyDevice(Device):
    """Eager, in-memory NumPy arrays."""

    array_type = np.ndarray
    __slots__ = ()

    def _load_namespace(self) -> Any:
        import array_api_compat.numpy as ns

        return ns

    def owns(self, obj: object) -> bool:
        return isinstance(obj, (np.ndarray, np.generic))

    def coerce(self, obj: Any) -> np.ndarray:
        return np.asarray(obj)

    def from_numpy(self, arr: np.ndarray, chunks: Any = None) -> np.ndarray:
        return self.rechunk(arr, chunks)

    def rechunk(self, data: np.ndarray, chunks: Any) -> np.ndarray:
        if chunks is not None:
            raise ValueError(
                f"chunks={chunks!r} only applies to a chunked device such as "
                "strict_array.DASK, not strict_array.CPU."
            )
        return data

    def to_numpy(self, data: np.ndarray) -> np.ndarray:
        return data

    def broadcast_to(self, data: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
        return np.broadcast_to(data, shape)  # a read-only view


CPU: Device = NumPyDevice("cpu")


def _dask_device() -> Device:
    from ._dask import DASK

    return DASK


def all_devices() -> tuple[Device, ...]:
    """The devices this installation can use (DASK only when Dask is installed)."""
    try:
        return (CPU, _dask_device())
    except ImportError:
        return (CPU,)


def as_device(device: object, where: str) -> Device:
    """Normalise a ``device=`` argument (a Device or its name)."""
    if isinstance(device, Device):
        return device
    if isinstance(device, str):
        name = device.lower()
        if name == "cpu":
            return CPU
        if name == "dask":
            return _dask_device()
    raise ValueError(
        f"{where}: unknown device {device!r}; use strict_array.CPU or strict_array.DASK "
        "(see __array_namespace_info__().devices())."
    )


def device_of_native(obj: object) -> Device | None:
    """The device owning a backend-native array, if any (without importing Dask)."""
    if isinstance(obj, (np.ndarray, np.generic)):
        return CPU
    if type(obj).__module__.startswith("dask."):
        dev = _dask_device()
        if dev.owns(obj):
            return dev
    return None


DEVICE_ENV_VAR = "STRICT_ARRAY_DEVICE"
_default_device_name: list[str] = [os.environ.get(DEVICE_ENV_VAR, "cpu")]
_device_override: ContextVar[Device | None] = ContextVar(
    "strict_array_default_device", default=None
)


def get_default_device() -> Device:
    """The device creation functions use when ``device=None``.

    Set process-wide by the environment variable ``STRICT_ARRAY_DEVICE``
    (``cpu`` or ``dask``, read at import) or :func:`set_default_device`, and per
    thread or asyncio task by the :func:`default_device` context manager.
    """
    return _device_override.get() or as_device(_default_device_name[0], DEVICE_ENV_VAR)


def set_default_device(device: Device | str) -> None:
    """Set the process-wide default device (see :func:`get_default_device`)."""
    _default_device_name[0] = as_device(device, "set_default_device").name


@contextlib.contextmanager
def default_device(device: Device | str) -> Iterator[Device]:
    """Context manager: creation functions default to ``device`` inside the block.

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
