"""Chunked on-disk arrays: Zarr stores and ``.npy`` files, read and written lazily.

Reading gives ``DASK`` arrays whose chunks are loaded only when computed;
writing streams chunk by chunk (``dask.array.store``), so neither direction
needs the whole array in memory. Dask (the ``dask`` extra) is required.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ._array import Array, _wrap, expect_array


def _dask() -> Any:
    try:
        import dask.array as da
    except ImportError as e:  # pragma: no cover - exercised without the extra
        raise ImportError(
            "strict_array's on-disk I/O needs Dask: pip install 'strict_array[dask]'."
        ) from e
    return da


def _dask_device() -> Any:
    from ._dask import DASK

    return DASK


def from_zarr(store: Any, component: str | None = None, *, chunks: Any = None) -> Array:
    """Open a Zarr array lazily as a ``DASK`` array (nothing is read until computed).

    Parameters
    ----------
    store : str, os.PathLike or zarr store/array
        Path or URL of the Zarr store, or an opened ``zarr.Array``.
    component : str, optional
        Path of the array inside a group.
    chunks : optional
        Dask chunks; by default the Zarr chunks.

    Returns
    -------
    Array
        On ``strict_array.DASK``.
    """
    da = _dask()
    kwargs = {} if chunks is None else {"chunks": chunks}
    data = da.from_zarr(os.fspath(store) if isinstance(store, os.PathLike) else store,
                        component=component, **kwargs)  # fmt: skip
    return _wrap(data, _dask_device())


def to_zarr(
    x: Array,
    store: Any,
    component: str | None = None,
    *,
    overwrite: bool = False,
    compute: bool = True,
) -> Any:
    """Write ``x`` to a Zarr store chunk by chunk (streamed; never whole in memory).

    Parameters
    ----------
    x : Array
        On any device (a ``CPU`` array is chunked first).
    store : str, os.PathLike or zarr store
    component : str, optional
        Path of the array inside a group.
    overwrite : bool, default False
        Replace an existing array.
    compute : bool, default True
        ``False`` returns the Dask delayed write for the caller to compute.
    """
    da = _dask()
    x = expect_array("to_zarr", x)
    data = x.to_device(_dask_device())._data
    if any(c != c for chunks in data.chunks for c in chunks):
        data = data.compute_chunk_sizes()  # Zarr needs known chunk sizes
    return da.to_zarr(
        data,
        os.fspath(store) if isinstance(store, os.PathLike) else store,
        component=component,
        overwrite=overwrite,
        compute=compute,
    )


class _NpyFile:
    """A ``.npy`` file seen as an array: each read maps just the requested region.

    It pickles as its path, so Dask workers (also on a distributed cluster on
    the same file system) open the file themselves instead of receiving data.
    """

    def __init__(self, path: str, mode: str = "r") -> None:
        self.path = path
        self.mode = mode
        mm = np.load(path, mmap_mode="r")
        self.shape, self.dtype, self.ndim = mm.shape, mm.dtype, mm.ndim

    def __getitem__(self, key: Any) -> np.ndarray:
        return np.array(np.load(self.path, mmap_mode="r")[key])

    def __setitem__(self, key: Any, value: Any) -> None:
        mm = np.load(self.path, mmap_mode="r+")
        mm[key] = value
        mm.flush()


def from_npy(path: str | os.PathLike, *, chunks: Any = "auto", device: Any = None) -> Array:
    """Open a ``.npy`` file memory-mapped, without loading it.

    Parameters
    ----------
    path : str or os.PathLike
    chunks : optional
        Dask chunks (default ``"auto"``).
    device : Device, optional
        ``DASK`` (default): lazy chunks read on compute. ``CPU``: a read-only
        memory-mapped NumPy array.

    Returns
    -------
    Array
    """
    from ._devices import CPU, as_device

    target = _dask_device() if device is None else as_device(device, "from_npy")
    path = os.fspath(path)
    if target is CPU:
        return _wrap(np.load(path, mmap_mode="r"), CPU)
    da = _dask()
    return _wrap(da.from_array(_NpyFile(path), chunks=chunks, asarray=False), target)


def to_npy(x: Array, path: str | os.PathLike) -> None:
    """Write ``x`` to a ``.npy`` file chunk by chunk (streamed; never whole in memory)."""
    da = _dask()
    x = expect_array("to_npy", x)
    path = os.fspath(path)
    data = x.to_device(_dask_device())._data
    if any(s != s for s in data.shape):
        data = data.compute_chunk_sizes()
    np.lib.format.open_memmap(path, mode="w+", dtype=data.dtype, shape=data.shape).flush()
    da.store(data, _NpyFile(path, mode="r+"), lock=False)
