"""Reading and writing on DASK (strict_array._backends.dask._io): Zarr and ``.npy``."""

from __future__ import annotations

import dask
import dask.array as da
import numpy as np
import pytest
from conftest import CountTasks, to_numpy

import strict_array as xp

RNG = np.random.default_rng(0)


def test_zarr_and_npy_round_trips(tmp_path):
    a = RNG.standard_normal((20, 8))
    x = xp.asarray(a, device=xp.DASK, chunks=(6, 4))
    xp.to_zarr(x, tmp_path / "a.zarr")
    z = xp.from_zarr(tmp_path / "a.zarr")
    assert z.device is xp.DASK and z._data.chunks == ((6, 6, 6, 2), (4, 4))
    np.testing.assert_array_equal(to_numpy(z), a)
    xp.to_npy(xp.multiply(z, 2.0), tmp_path / "b.npy")
    np.testing.assert_array_equal(np.load(tmp_path / "b.npy"), a * 2)
    counter = CountTasks()
    with counter:
        n = xp.from_npy(tmp_path / "b.npy", chunks=(5, 8))
        centred = n - xp.mean(n, axis=0, keepdims=True)
    assert counter.count == 0
    np.testing.assert_allclose(to_numpy(centred), a * 2 - (a * 2).mean(0, keepdims=True))
    m = xp.from_npy(tmp_path / "b.npy", device=xp.CPU)
    # a read-only view of the memory map: nothing was read into memory
    assert isinstance(m._data.base, np.memmap) and not m._data.flags.writeable
    xp.to_zarr(xp.asarray(a), tmp_path / "c.zarr")  # a CPU array is chunked to write
    np.testing.assert_array_equal(to_numpy(xp.from_zarr(tmp_path / "c.zarr")), a)


# --- to_zarr when the Dask chunks do not line up with the Zarr chunks (dask/dask#12587) ---
MISALIGNED = {
    "3x5 on 4x4": (3, 5),
    "irregular": ((1, 2, 3, 4, 2), (7, 5)),
    "size-1": (1, 1),
    "one chunk": (12, 12),
}


@pytest.mark.parametrize("sharded", [False, True], ids=["chunks", "shards"])
@pytest.mark.parametrize("data_chunks", list(MISALIGNED.values()), ids=list(MISALIGNED))
def test_to_zarr_with_chunks_off_the_zarr_grid(tmp_path, monkeypatch, data_chunks, sharded):
    zarr = pytest.importorskip("zarr")
    from strict_array._backends.dask import _io

    grid = (8, 8) if sharded else (4, 4)  # the unit one task may write: a shard, or a chunk
    z = zarr.create_array(
        store=str(tmp_path / "z.zarr"), shape=(12, 12), chunks=(4, 4),
        shards=(8, 8) if sharded else None, dtype="float64", fill_value=-1.0,
    )  # fmt: skip
    expected = np.arange(144.0).reshape(12, 12)
    x = xp.asarray(da.from_array(expected, chunks=data_chunks))
    written = []
    real_store = _io.store
    monkeypatch.setattr(_io, "store", lambda d, t: (written.append(d[0].chunks), real_store(d, t)))
    # many threads, so that two tasks writing into one Zarr chunk would race
    with dask.config.set(scheduler="threads", num_workers=8):
        xp.to_zarr(x, z)
    np.testing.assert_array_equal(z[...], expected)
    # every task writes whole chunks (shards) of the grid: its offsets are on the grid
    (chunks,) = written
    for axis_chunks, g in zip(chunks, grid):
        offsets = np.cumsum((0, *axis_chunks[:-1]))
        assert all(o % g == 0 for o in offsets), (chunks, grid)
    assert x._data.chunks == da.from_array(expected, chunks=data_chunks).chunks  # x untouched


def test_to_zarr_new_array_from_irregular_chunks(tmp_path):
    zarr = pytest.importorskip("zarr")
    expected = np.arange(60.0).reshape(12, 5)
    x = xp.asarray(da.from_array(expected, chunks=((1, 5, 2, 4), (2, 3))))
    with dask.config.set(scheduler="threads", num_workers=8):
        xp.to_zarr(x, tmp_path / "n.zarr")
    z = zarr.open_array(str(tmp_path / "n.zarr"), mode="r")
    assert z.chunks == (5, 3)  # one Zarr chunk per largest Dask chunk
    np.testing.assert_array_equal(z[...], expected)
    with pytest.raises(ValueError, match=r"to_zarr: the Zarr array has shape \(12, 12\)"):
        xp.to_zarr(
            x,
            zarr.create_array(
                store=str(tmp_path / "m.zarr"), shape=(12, 12), chunks=(4, 4), dtype="float64"
            ),
        )
