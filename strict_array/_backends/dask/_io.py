"""On-disk arrays on Dask: Zarr stores and ``.npy`` files, read and written chunk by chunk.

Reading gives lazy arrays whose chunks are loaded only when computed; writing
streams (``dask.array.store``), so neither direction holds the whole array in
memory.
"""

from __future__ import annotations

import itertools
import math
import os
from typing import Any

import dask.array as da
import numpy as np

from ._compute import known_sizes, store


class NpyFile:
    """A ``.npy`` file seen as an array: each read maps just the requested region. It
    pickles as its path: Dask's workers open the file themselves, not receive data."""

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


def from_npy(path: str, chunks: Any) -> da.Array:
    return da.from_array(NpyFile(path), chunks="auto" if chunks is None else chunks, asarray=False)


def to_npy(data: da.Array, path: str) -> None:
    data = known_sizes(data)
    np.lib.format.open_memmap(path, mode="w+", dtype=data.dtype, shape=data.shape).flush()
    # chunks write disjoint byte ranges of the file: no lock needed
    store([data], [NpyFile(path, mode="r+")])


def from_zarr(source: Any, component: str | None, chunks: Any) -> da.Array:
    return da.from_zarr(source, component=component, chunks=chunks)  # (None: Zarr's chunks)


def aligned_chunks(
    chunks: tuple[tuple[int, ...], ...], write: tuple[int, ...]
) -> tuple[int, ...] | None:
    """Regular chunks whose boundaries all fall on the write grid ``write``, or None
    when ``chunks`` already does (each Dask chunk covers whole write chunks)."""
    if all(
        offset % w == 0
        for axis_chunks, w in zip(chunks, write)
        for offset in itertools.accumulate(axis_chunks[:-1])
    ):
        return None
    # the largest chunk rounded to whole write chunks, so the bytes per task stay similar
    return tuple(
        max(w, math.ceil(max(axis_chunks, default=1) / w) * w)
        for axis_chunks, w in zip(chunks, write)
    )


def to_zarr(
    data: da.Array, target: Any, component: str | None, *, overwrite: bool, compute: bool
) -> Any:
    """Write to a Zarr array with every Dask chunk covering whole Zarr chunks (or shards):
    two tasks writing parts of one race, and one update is lost (dask/dask#12587).
    Dask's own ``to_zarr`` only warns where it cannot align to an existing array."""
    import zarr

    data = known_sizes(data)
    if isinstance(target, zarr.Array):
        z = target
        if tuple(z.shape) != tuple(data.shape):
            raise ValueError(
                f"to_zarr: the Zarr array has shape {tuple(z.shape)} but the data has "
                f"shape {tuple(data.shape)}; write to an array of the same shape."
            )
    else:
        path = os.fspath(target) if isinstance(target, os.PathLike) else target
        # one Zarr chunk per (largest) Dask chunk: regular, as Zarr requires
        chunk_shape = tuple(max(max(c, default=1), 1) for c in data.chunks)
        z = zarr.create_array(
            store=path, name=component, shape=data.shape, chunks=chunk_shape,
            dtype=data.dtype, overwrite=overwrite,
        )  # fmt: skip
    write_grid = tuple(getattr(z, "shards", None) or z.chunks)
    target_chunks = aligned_chunks(data.chunks, write_grid)
    if target_chunks is not None:
        data = data.rechunk(target_chunks)
    if not compute:
        return da.store(data, z, lock=False, compute=False)  # type: ignore[arg-type]
    store([data], [z])
    return None
