"""The ``CPU`` device: eager, in-memory NumPy arrays (the host)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import Device


class NumPyDevice(Device):
    """Eager, in-memory NumPy arrays."""

    array_type = np.ndarray
    host = True
    __slots__ = ()

    def _load_namespace(self) -> Any:
        import array_api_compat.numpy as ns

        return ns

    def _reshape_function(self) -> Callable[[Any, tuple[int, ...]], Any]:
        return np.ndarray.reshape  # the method itself: no Python wrapper on the hot path

    def owns(self, obj: object) -> bool:
        return isinstance(obj, (np.ndarray, np.generic))

    def coerce(self, obj: Any) -> np.ndarray:
        return np.asarray(obj)

    def from_numpy(self, arr: np.ndarray, chunks: Any = None) -> np.ndarray:
        return arr

    def to_numpy(self, data: np.ndarray) -> np.ndarray:
        return data

    def compute(self, datas: Sequence[Any]) -> list[np.ndarray]:
        return list(datas)

    def index_from_numpy(self, index: np.ndarray) -> np.ndarray:
        return index

    def map_blocks(self, kernel: Callable[[np.ndarray], np.ndarray], data: Any) -> Any:
        return kernel(data)

    def broadcast_to(self, data: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
        return np.broadcast_to(data, shape)  # a read-only view


CPU: Device = NumPyDevice("cpu")
