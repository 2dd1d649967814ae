"""Chunked on-disk arrays: Zarr stores and ``.npy`` files, read and written lazily.

Reading opens the data on a lazy device by default (``DASK``), whose chunks are
loaded only when computed; writing streams chunk by chunk there, so neither
direction needs the whole array in memory. Each device does the work through
its own hooks; an array on an eager device is written to Zarr through the lazy
device, which wraps its data without a copy (and lines its chunks up with the
store's), and to ``.npy`` by NumPy, from memory.
"""

from __future__ import annotations

import os
from typing import Any

from ._array import Array, expect_array, result
from ._backends import Device, lazy_device
from ._devices import as_device
from ._typing import DeviceLike

__all__ = ["from_npy", "from_zarr", "to_npy", "to_zarr"]


def _reading_device(device: DeviceLike | None, op: str) -> Device:
    return lazy_device() if device is None else as_device(device, op)


def _writing(x: Array, op: str) -> tuple[Device, Any]:
    """The device that writes ``x`` (its own if lazy, else the lazy one) and the data."""
    x = expect_array(op, x)
    dev = x._device if x._device.lazy else lazy_device()
    return dev, x.to_device(dev)._data


def from_zarr(
    store: Any,
    component: str | None = None,
    *,
    chunks: Any = None,
    device: DeviceLike | None = None,
) -> Array:
    """Open a Zarr array (lazily by default: nothing is read until computed).

    Parameters
    ----------
    store : str, os.PathLike or zarr store/array
        Path or URL of the Zarr store, or an opened ``zarr.Array``.
    component : str, optional
        Path of the array inside a group.
    chunks : optional
        Chunks on a chunked device; by default the Zarr chunks.
    device : Device, optional
        Default ``DASK``. ``CPU`` reads the whole array into memory.

    Returns
    -------
    Array
    """
    dev = _reading_device(device, "from_zarr")
    dev.check_chunks("from_zarr", chunks)
    source = os.fspath(store) if isinstance(store, os.PathLike) else store
    return result(dev.from_zarr(source, component, chunks), dev)


def to_zarr(
    x: Array,
    store: Any,
    component: str | None = None,
    *,
    overwrite: bool = False,
    compute: bool = True,
) -> Any:
    """Write ``x`` to a Zarr store chunk by chunk (streamed; never whole in memory).

    Every Dask chunk written covers whole Zarr chunks (or shards): where the
    chunkings do not line up, the data are re-chunked first, so that no two
    tasks write parts of one Zarr chunk (which loses data: dask/dask#12587).

    Parameters
    ----------
    x : Array
        On any device (a ``CPU`` array is chunked first, without a copy).
    store : str, os.PathLike, zarr store or zarr.Array
        Where to write; an existing ``zarr.Array`` of ``x``'s shape is written into.
    component : str, optional
        Path of the array inside a group.
    overwrite : bool, default False
        Replace an existing array.
    compute : bool, default True
        ``False`` returns the Dask delayed write for the caller to compute (the
        computation then runs as one graph, without strict_array's plan of passes).

    Returns
    -------
    None, or the delayed write when ``compute=False``.
    """
    dev, data = _writing(x, "to_zarr")
    target = os.fspath(store) if isinstance(store, os.PathLike) else store
    return dev.to_zarr(data, target, component, overwrite=overwrite, compute=compute)


def from_npy(
    path: str | os.PathLike[str], *, chunks: Any = None, device: DeviceLike | None = None
) -> Array:
    """Open a ``.npy`` file memory-mapped, without loading it.

    Parameters
    ----------
    path : str or os.PathLike
    chunks : optional
        Chunks on a chunked device (default ``"auto"``).
    device : Device, optional
        ``DASK`` (default): lazy chunks read on compute. ``CPU``: a read-only
        memory-mapped NumPy array.

    Returns
    -------
    Array
    """
    dev = _reading_device(device, "from_npy")
    dev.check_chunks("from_npy", chunks)
    return result(dev.from_npy(os.fspath(path), chunks), dev)


def to_npy(x: Array, path: str | os.PathLike[str]) -> None:
    """Write ``x`` to a ``.npy`` file: chunk by chunk from a lazy device (streamed;
    never whole in memory), by NumPy from an eager one (already in memory).

    Parameters
    ----------
    x : Array
        On any device.
    path : str or os.PathLike
    """
    # (an array in memory is written as it is, by NumPy; a lazy one streams its chunks)
    x = expect_array("to_npy", x)
    x._device.to_npy(x._data, os.fspath(path))
