"""The DASK device: laziness, equality with CPU, chunk alignment, unknown sizes, I/O."""

from __future__ import annotations

import collections
import math
import time
import warnings
from typing import Any

import dask
import dask.array as da
import numpy as np
import pytest
from conftest import on, to_numpy
from dask.callbacks import Callback
from hypothesis import given
from hypothesis import strategies as st

import strict_array as xp
from strict_array import RankPromotionError
from strict_array._backends.dask._basics import remade


class CountTasks(Callback):
    """Counts task executions on Dask's local schedulers."""

    def __init__(self):
        super().__init__()
        self.count = 0

    def _pretask(self, key, dsk, state):
        self.count += 1


RNG = np.random.default_rng(0)
X = RNG.standard_normal((4, 6))
V = RNG.standard_normal(6)
SQ = RNG.standard_normal((2, 3, 3)) + 3 * np.eye(3)
SPD = SQ @ np.swapaxes(SQ, -1, -2)
IDX = np.array([0, 2])

# every namespace function family, as a function of (namespace inputs) -> result
CASES = {
    "add_bd": lambda x, v, sq, spd, i: xp.add(x, v, broadcast_dimensions=(1,)),
    "sum": lambda x, v, sq, spd, i: xp.sum(x, axis=0),
    "std": lambda x, v, sq, spd, i: xp.std(x, correction=1),
    "argmax": lambda x, v, sq, spd, i: xp.argmax(x, axis=1),
    "cumulative_sum": lambda x, v, sq, spd, i: xp.cumulative_sum(x, axis=1, include_initial=True),
    "sort": lambda x, v, sq, spd, i: xp.sort(x, axis=1, descending=True),
    "argsort": lambda x, v, sq, spd, i: xp.argsort(x, axis=0),
    "unique_values": lambda x, v, sq, spd, i: xp.unique_values(xp.round(x)),
    "nonzero": lambda x, v, sq, spd, i: xp.nonzero(x > 0)[1],
    "searchsorted": lambda x, v, sq, spd, i: xp.searchsorted(xp.sort(v), v),
    "take": lambda x, v, sq, spd, i: xp.take(x, i, axis=1),
    "where": lambda x, v, sq, spd, i: xp.where(x > 0, x, 0.0),
    "isin": lambda x, v, sq, spd, i: xp.isin(xp.round(x), xp.round(v)),
    "diff": lambda x, v, sq, spd, i: xp.diff(x, axis=0, n=2),
    "matmul": lambda x, v, sq, spd, i: x @ x.mT,
    "tensordot": lambda x, v, sq, spd, i: xp.tensordot(x, x, axes=([0], [0])),
    "vecdot": lambda x, v, sq, spd, i: xp.vecdot(x, x),
    "mask": lambda x, v, sq, spd, i: x[x > 0],
    "reshape": lambda x, v, sq, spd, i: xp.reshape(x, (6, 4)),
    "roll": lambda x, v, sq, spd, i: xp.roll(x, 2, axis=1),
    "tile": lambda x, v, sq, spd, i: xp.tile(x, (2, 1)),
    "clip": lambda x, v, sq, spd, i: xp.clip(x, -0.5, 0.5),
    "det": lambda x, v, sq, spd, i: xp.linalg.det(sq),
    "inv": lambda x, v, sq, spd, i: xp.linalg.inv(sq),
    "solve": lambda x, v, sq, spd, i: xp.linalg.solve(sq, spd),
    "cholesky": lambda x, v, sq, spd, i: xp.linalg.cholesky(spd),
    "eigvalsh": lambda x, v, sq, spd, i: xp.linalg.eigvalsh(spd),
    "svdvals": lambda x, v, sq, spd, i: xp.linalg.svdvals(x),
    "slogdet": lambda x, v, sq, spd, i: xp.linalg.slogdet(sq).logabsdet,
    "pinv": lambda x, v, sq, spd, i: xp.linalg.pinv(x),
    "matrix_rank": lambda x, v, sq, spd, i: xp.linalg.matrix_rank(sq),
    "matrix_rank_rtol_array": lambda x, v, sq, spd, i: xp.linalg.matrix_rank(
        sq, rtol=xp.abs(sq[:, 0, 0]) * 0.0 + 0.5
    ),
    "pinv_rtol_array": lambda x, v, sq, spd, i: xp.linalg.pinv(sq, rtol=xp.abs(sq[:, 0, 0]) * 0.1),
    "qr_R_abs": lambda x, v, sq, spd, i: xp.abs(xp.linalg.qr(sq).R),
    "vector_norm": lambda x, v, sq, spd, i: xp.linalg.vector_norm(x, axis=1),
    "cross": lambda x, v, sq, spd, i: xp.linalg.cross(sq, sq[:, ::-1, :]),
    "fft": lambda x, v, sq, spd, i: xp.fft.fft(x),
    "rfftn": lambda x, v, sq, spd, i: xp.fft.rfftn(x),
    "sum_to": lambda x, v, sq, spd, i: xp.sum_to(x, (6,), (1,)),
    "broadcast_in_dim": lambda x, v, sq, spd, i: xp.broadcast_in_dim(v, (3, 6), (1,)),
    "take_along_axis": lambda x, v, sq, spd, i: xp.take_along_axis(
        x, xp.argsort(x, axis=1), axis=1
    ),
}


def _inputs(device, chunks):
    kw = {"chunks": chunks} if device is xp.DASK else {}
    return (
        xp.asarray(X, device=device, **kw),
        xp.asarray(V, device=device, **({"chunks": 2} if kw else {})),
        xp.asarray(SQ, device=device, **({"chunks": (1, 2, 2)} if kw else {})),
        xp.asarray(SPD, device=device, **({"chunks": (1, 3, 3)} if kw else {})),
        xp.asarray(IDX, device=device),
    )


@pytest.mark.parametrize("name", sorted(CASES))
def test_dask_is_lazy_and_equals_cpu(name):
    expected = to_numpy(CASES[name](*_inputs(xp.CPU, None)))
    counter = CountTasks()
    with counter:
        lazy = CASES[name](*_inputs(xp.DASK, (2, 3)))
    assert counter.count == 0, f"{name} computed {counter.count} tasks while building"
    assert lazy.device is xp.DASK and isinstance(lazy._data, da.Array)
    np.testing.assert_allclose(to_numpy(lazy), expected, rtol=1e-10, atol=1e-10)


@given(
    shape=st.lists(st.integers(1, 6), min_size=2, max_size=3).map(tuple),
    data=st.data(),
)
def test_random_chunkings_and_dims_match_cpu(shape, data):
    chunks = tuple(data.draw(st.integers(1, s)) for s in shape)
    low_ndim = data.draw(st.integers(1, len(shape) - 1))
    dims = tuple(
        sorted(
            data.draw(st.sets(st.integers(0, len(shape) - 1), min_size=low_ndim, max_size=low_ndim))
        )
    )
    low_shape = tuple(data.draw(st.sampled_from([shape[d], 1])) for d in dims)
    low_chunks = tuple(data.draw(st.integers(1, s)) for s in low_shape)
    a = np.arange(int(np.prod(shape)), dtype=float).reshape(shape)
    b = np.arange(int(np.prod(low_shape)), dtype=float).reshape(low_shape) + 0.5
    cpu = xp.multiply(xp.asarray(a), xp.asarray(b), broadcast_dimensions=dims)
    lazy = xp.multiply(
        xp.asarray(a, device=xp.DASK, chunks=chunks),
        xp.asarray(b, device=xp.DASK, chunks=low_chunks),
        broadcast_dimensions=dims,
    )
    np.testing.assert_array_equal(to_numpy(lazy), to_numpy(cpu))
    # the large operand keeps its chunks: nothing re-split it
    assert lazy._data.chunks == xp.asarray(a, device=xp.DASK, chunks=chunks)._data.chunks
    g = xp.sum_to(lazy, low_shape, dims)
    np.testing.assert_allclose(to_numpy(g), to_numpy(xp.sum_to(cpu, low_shape, dims)))


def test_rank_errors_raised_at_build_time():
    x = xp.asarray(da.ones((1000, 10), chunks=(100, 10)))
    counter = CountTasks()
    with counter, pytest.raises(RankPromotionError):
        x - xp.mean(x, axis=0)
    assert counter.count == 0


def test_unknown_sizes():
    x = xp.asarray(da.arange(10, chunks=3).astype(float))
    y = x[x > 4]
    assert y.shape == (None,) and y.size is None
    z = y * 2 + y  # unknown against unknown stays unknown
    assert z.shape == (None,)
    col = xp.expand_dims(y, axis=1)
    assert (col + xp.ones((1, 3), device=xp.DASK)).shape == (None, 3)  # unknown against 1
    with pytest.raises(RankPromotionError):
        y + xp.ones((2, 5), device=xp.DASK)  # ranks are always known
    np.testing.assert_array_equal(to_numpy(z), np.arange(5, 10) * 3.0)
    assert xp.zeros_like(y).shape == (None,) and xp.full_like(y, 2.0).chunks == y.chunks
    with pytest.raises(ValueError, match="unknown"):
        xp.broadcast_shapes((None, 3), (4, 3))
    counter = CountTasks()
    with counter, pytest.raises(ValueError, match=r"add: shapes \(\?, 1\) and \(4, 3\).*unknown"):
        xp.add(col, xp.ones((4, 3), device=xp.DASK))  # unknown against a known size > 1
    assert counter.count == 0


def test_chunk_alignment_keeps_large_operand_chunks():
    raw_x = da.ones((4096, 64), chunks=(512, 64))
    x = xp.asarray(raw_x)
    v = xp.asarray(np.arange(64.0), device=xp.DASK, chunks=7)  # deliberately misaligned
    y = xp.subtract(x, v, broadcast_dimensions=(1,))
    assert y._data.chunks == raw_x.chunks
    col = xp.asarray(np.arange(4096.0), device=xp.DASK, chunks=1000)
    z = xp.multiply(x, col, broadcast_dimensions=(0,))
    assert z._data.chunks == raw_x.chunks


@pytest.mark.parametrize(
    "dims, raw_broadcast",
    [((1,), lambda v: v), ((0,), lambda w: w[:, None])],
    ids=["trailing", "leading"],
)
def test_no_extra_graph_layers(dims, raw_broadcast):
    raw_x = da.ones((256, 64), chunks=(32, 64))
    raw_v = da.ones(raw_x.shape[dims[0]], chunks=raw_x.chunks[dims[0]])
    ours, theirs = xp.asarray(raw_x), raw_x
    for _ in range(10):
        ours = xp.add(ours, xp.asarray(raw_v), broadcast_dimensions=dims)
        theirs = theirs + raw_broadcast(raw_v)
    assert len(dict(ours._data.__dask_graph__())) == len(dict(theirs.__dask_graph__()))
    np.testing.assert_array_equal(to_numpy(ours), theirs.compute())


def test_default_device_switch():
    with xp.default_device(xp.DASK):
        assert xp.zeros(3).device is xp.DASK
        assert xp.asarray([1, 2]).device is xp.DASK
    assert xp.zeros(3).device is xp.CPU


def test_to_device_and_chunks():
    x = xp.asarray(np.arange(10.0))
    d = x.to_device(xp.DASK, chunks=3)
    assert d._data.chunks == ((3, 3, 3, 1),)
    assert xp.asarray(x, device=xp.DASK, chunks=5)._data.chunks == ((5, 5),)
    with pytest.raises(ValueError, match="chunks"):
        xp.asarray(np.ones(3), device=xp.CPU, chunks=2)
    np.testing.assert_array_equal(np.asarray(d.to_device(xp.CPU)), np.arange(10.0))


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


def test_progress_switch(capsys):
    x = xp.ones((10,), device=xp.DASK)
    with xp.progress(False):
        float(xp.sum(x))
    assert capsys.readouterr().err == ""
    with xp.progress(True):
        from strict_array._settings import show_progress

        assert show_progress()


def test_graph_building_time_close_to_raw():
    raw_x, raw_v = da.ones((256, 64), chunks=(32, 64)), da.ones(64, chunks=64)
    x, v = xp.asarray(raw_x), xp.asarray(raw_v)

    def timed(f):
        best = float("inf")
        for _ in range(5):
            t = time.perf_counter()
            f()
            best = min(best, time.perf_counter() - t)
        return best

    ours = timed(lambda: [xp.add(x, v, broadcast_dimensions=(1,)) for _ in range(50)])
    theirs = timed(lambda: [raw_x + raw_v[None, :] for _ in range(50)])
    # generous bound here (shared CI machine); benchmarks/ measures the 1.1x target
    assert ours < 3 * theirs


def test_dask_config_untouched():
    assert dask.config.get("array.chunk-size") is not None


def test_rechunking_on_dask_stays_lazy():
    x = xp.asarray(da.ones((12, 4), chunks=(4, 4)))
    counter = CountTasks()
    with counter:
        y = x.to_device(xp.DASK, chunks=(6, 2))
        z = xp.asarray(x._data, chunks=(3, 4))
    assert counter.count == 0
    assert y.chunks == ((6, 6), (2, 2)) and z.chunks == ((3, 3, 3, 3), (4,))
    assert xp.asarray(np.ones(3)).chunks is None
    with pytest.raises(
        ValueError, match=r"to_device: chunks=2 only applies to a chunked \(lazy\) device"
    ):
        xp.ones(3).to_device(xp.CPU, chunks=2)


def test_dask_indexing_workarounds():
    """Length-1 index arrays (dask/dask#6709), scalar and sorter searches, empty matrices."""
    a = xp.asarray(np.arange(6.0).reshape(2, 3), device=xp.DASK)
    i = xp.asarray(np.array([1]), device=xp.DASK)
    for r, expected in [
        (xp.take(a, i, axis=0), (1, 3)),
        (xp.take(a, i, axis=1), (2, 1)),
        (a[i], (1, 3)),
        (a[:, i], (2, 1)),
        (a[..., i], (2, 1)),
    ]:
        assert r.shape == expected == np.asarray(r).shape
    v = xp.asarray(np.array([3.0, 1.0, 2.0]), device=xp.DASK)
    found = xp.searchsorted(v, xp.asarray(np.array([2.5]), device=xp.DASK), sorter=xp.argsort(v))
    np.testing.assert_array_equal(np.asarray(found), [2])
    assert int(xp.searchsorted(xp.sort(v), 2.0, side="right")) == 2
    empty = xp.zeros((2, 0, 0), device=xp.DASK)
    assert np.asarray(xp.linalg.inv(empty)).shape == (2, 0, 0)


EDGE_CASES = {
    "broadcast_to empty": lambda d: xp.broadcast_to(xp.ones((1, 3), device=d), (0, 3)),
    "tensordot negative axes": lambda d: xp.tensordot(
        xp.reshape(xp.arange(4.0, device=d), (1, 2, 2)),
        xp.reshape(xp.arange(2.0, device=d), (2, 1, 1, 1)),
        axes=((-2,), (0,)),
    ),
    "tensordot uint8": lambda d: xp.tensordot(
        xp.ones(2, dtype=xp.uint8, device=d), xp.ones(2, dtype=xp.uint8, device=d), axes=((), ())
    ),
    "eye rectangular": lambda d: xp.eye(7, 9, k=2, device=d),
    "eye empty": lambda d: xp.eye(0, device=d),
    "linspace end": lambda d: xp.linspace(0, 127, 159, device=d),
    "repeat flat": lambda d: xp.repeat(xp.reshape(xp.arange(4.0, device=d), (2, 2)), 2),
    "repeat empty": lambda d: xp.repeat(xp.ones((0, 2), device=d), 2, axis=0),
    "slice with array bounds": lambda d: xp.arange(5.0, device=d)[xp.asarray(1) : xp.asarray(3)],
    "empty mask": lambda d: xp.ones((0,), device=d)[xp.zeros(0, dtype=xp.bool, device=d)],
    "zeros empty": lambda d: xp.zeros((0, 2, 0, 40), device=d),
    "roll empty": lambda d: xp.roll(xp.ones((2, 0), device=d), 1),
    "solve empty batch": lambda d: xp.linalg.solve(
        xp.ones((0, 0, 0), device=d), xp.ones((1, 0, 0), device=d)
    ),
}


@pytest.mark.parametrize("name", sorted(EDGE_CASES))
def test_dask_edge_cases_match_cpu(name):
    expected = EDGE_CASES[name](xp.CPU)
    got = EDGE_CASES[name](xp.DASK)
    assert got.shape == expected.shape and got.dtype == expected.dtype
    np.testing.assert_array_equal(to_numpy(got), to_numpy(expected))


def test_masked_setitem_and_copy_false_on_dask():
    x = xp.asarray(np.float64(1.0), device=xp.DASK)
    x[xp.asarray(True, device=xp.DASK)] = 5.0
    assert float(x) == 5.0
    y = xp.ones(3, device=xp.DASK)
    z = xp.asarray(y, copy=False)
    y[0] = 7.0
    assert float(z[0]) == 7.0  # the same array, as on CPU


def test_matmul_contracted_sizes_checked_when_built(device):
    with pytest.raises(ValueError, match=r"matmul: the contracted axes differ.*\(2, 1\).*\(3, 2\)"):
        xp.ones((2, 1), device=device) @ xp.ones((3, 2), device=device)


def test_several_index_arrays_on_dask():
    a = np.arange(60.0).reshape(3, 4, 5)
    x = xp.asarray(a, device=xp.DASK, chunks=(2, 3, 5))
    i = xp.asarray(np.array([0, 2, -1]), device=xp.DASK)
    j = xp.asarray(np.array([[1], [3]]), device=xp.DASK)
    counter = CountTasks()
    with counter:
        got = {"i, j": x[i, j], "0, j": x[0, j], "i, 1, 2": x[i, 1, 2]}
    assert counter.count == 0
    expected = {
        "i, j": a[[0, 2, -1], [[1], [3]]],
        "0, j": a[0, [[1], [3]]],
        "i, 1, 2": a[[0, 2, -1], 1, 2],
    }
    for name, r in got.items():
        assert r.shape == expected[name].shape
        np.testing.assert_array_equal(to_numpy(r), expected[name])
    bad = x[i, xp.asarray(np.array([0, 7, 1]), device=xp.DASK)]
    with pytest.raises(IndexError, match="out of bounds for axis 1"):
        to_numpy(bad)


def test_zero_d_masks(device):
    x = xp.asarray(np.float64(2.0), device=device)
    assert np.asarray(x[xp.asarray(True, device=device)]).shape == (1,)
    assert np.asarray(x[xp.asarray(False, device=device)]).shape == (0,)
    x[xp.asarray(True, device=device)] = xp.asarray(5.0, device=device)
    assert float(x) == 5.0


# --- chunks= on every creation function ------------------------------------------------
CREATION_WITH_CHUNKS = [
    ("zeros", lambda **kw: xp.zeros((7, 5), **kw), ((3, 3, 1), (2, 2, 1))),
    ("ones", lambda **kw: xp.ones((7, 5), **kw), ((3, 3, 1), (2, 2, 1))),
    ("full", lambda **kw: xp.full((7, 5), 2.5, **kw), ((3, 3, 1), (2, 2, 1))),
    ("empty", lambda **kw: xp.empty((7, 5), **kw), ((3, 3, 1), (2, 2, 1))),
    ("arange", lambda **kw: xp.arange(1.0, 11.0, 1.5, **kw), ((3, 3, 1),)),
    ("linspace", lambda **kw: xp.linspace(0.0, 1.0, 7, **kw), ((3, 3, 1),)),
    ("eye", lambda **kw: xp.eye(7, 5, k=1, **kw), ((3, 3, 1), (2, 2, 1))),
    ("zeros_like", lambda **kw: xp.zeros_like(xp.ones((7, 5)), **kw), ((3, 3, 1), (2, 2, 1))),
    ("ones_like", lambda **kw: xp.ones_like(xp.ones((7, 5)), **kw), ((3, 3, 1), (2, 2, 1))),
    ("full_like", lambda **kw: xp.full_like(xp.ones((7, 5)), 4, **kw), ((3, 3, 1), (2, 2, 1))),
    ("empty_like", lambda **kw: xp.empty_like(xp.ones((7, 5)), **kw), ((3, 3, 1), (2, 2, 1))),
]


@pytest.mark.parametrize(
    ("name", "make", "want"), CREATION_WITH_CHUNKS, ids=[c[0] for c in CREATION_WITH_CHUNKS]
)
def test_chunks_on_every_creation_function(name, make, want):
    chunks = tuple(c[0] for c in want)  # e.g. (3, 2): regular blocks, the last ones shorter
    x = make(device=xp.DASK, chunks=chunks)
    assert x.device is xp.DASK
    assert x._data.chunks == want
    assert x.chunks == want
    host = make(device=xp.CPU)
    assert x.shape == host.shape and x.dtype == host.dtype
    if not name.startswith("empty"):
        np.testing.assert_array_equal(to_numpy(x), to_numpy(host))
    # chunks=None: Dask's default chunking; chunks= on an eager device is an error
    assert make(device=xp.DASK).shape == host.shape
    with pytest.raises(ValueError, match=rf"{name}: .*chunks"):
        make(device=xp.CPU, chunks=chunks)


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


# --- found by the differential suite's other seeds ----------------------------------------
@pytest.mark.parametrize(
    ("shape", "key_shape"), [((3,), (0,)), ((3, 2), (0, 2)), ((3, 2), (3, 0)), ((2, 3), (0,))]
)
def test_a_boolean_key_may_have_size_0_on_an_axis(device, shape, key_shape):
    """The standard: each size of a boolean key equals the array's or is 0 (it selects
    nothing); Dask fails to broadcast such a mask, NumPy reads it as nonzero()."""
    a = np.arange(float(np.prod(shape))).reshape(shape)
    x, key = on(device, a), on(device, np.zeros(key_shape, bool))
    expected = a[np.zeros(key_shape, bool)]
    assert x[key].shape == expected.shape
    np.testing.assert_array_equal(to_numpy(x[key]), expected)
    x[key] = 7.0
    np.testing.assert_array_equal(to_numpy(x), a)
    with pytest.raises(IndexError, match="boolean index did not match"):
        x[on(device, np.zeros((1, *key_shape[1:]), bool))]


@pytest.mark.parametrize("name", ["cumulative_sum", "cumulative_prod"])
@pytest.mark.parametrize("include_initial", [False, True])
def test_cumulative_over_empty_and_unknown_blocks(name, include_initial):
    """Dask carries each block's last element to the next; an empty block has none
    (wrong values with unknown sizes, an error with known ones)."""
    a = np.arange(1.0, 13.0).reshape(4, 3)
    expected = getattr(xp, name)(xp.asarray(a[[0, 1, 3]]), axis=0, include_initial=include_initial)
    x = xp.asarray(a, device=xp.DASK, chunks=(1, 2))
    masked = x[xp.asarray([True, True, False, True], device=xp.DASK, chunks=1)]
    assert masked.shape == (None, 3)
    for axis in (0, 1):
        want = getattr(xp, name)(
            xp.asarray(a[[0, 1, 3]]), axis=axis, include_initial=include_initial
        )
        got = getattr(xp, name)(masked, axis=axis, include_initial=include_initial)
        np.testing.assert_array_equal(to_numpy(got), to_numpy(want))
    known_empty = xp.asarray(da.from_array(a[[0, 1, 3]], chunks=((1, 0, 2), 3)))
    got = getattr(xp, name)(known_empty, axis=0, include_initial=include_initial)
    np.testing.assert_array_equal(to_numpy(got), to_numpy(expected))


def test_repeat_one_count_along_an_axis_of_unknown_size():
    a = np.arange(12.0).reshape(4, 3)
    x = xp.asarray(a, device=xp.DASK, chunks=(1, 2))
    u = x[x[:, 0] > 2.0]
    got = xp.repeat(u, xp.asarray([2], device=xp.DASK), axis=0)
    np.testing.assert_array_equal(to_numpy(got), np.repeat(a[a[:, 0] > 2.0], 2, axis=0))
    for n in (0, 3):  # an int count too (Dask's own repeat needs the sizes)
        got = xp.repeat(x[x > 1.0], n, axis=None)
        np.testing.assert_array_equal(to_numpy(got), np.repeat(a[a > 1.0], n))


def test_broadcast_to_from_an_unknown_size_is_refused_as_section_4_says():
    x = xp.asarray(np.arange(4.0), device=xp.DASK, chunks=2)
    u = x[x > 2.0]
    with pytest.raises(ValueError, match=r"x has shape \(None,\), with sizes unknown until"):
        xp.broadcast_to(u, (1,))
    with xp.known_sizes():
        v = x[x > 2.0]
    np.testing.assert_array_equal(to_numpy(xp.broadcast_to(v, (1,))), [3.0])


def test_max_of_an_empty_selection_fails_when_computed_naming_max():
    x = xp.asarray(np.arange(4.0), device=xp.DASK, chunks=2)
    empty = xp.max(x[x > 10.0])
    with pytest.raises(ValueError, match=r"^max: cannot reduce an empty selection"):
        to_numpy(empty)


def test_empty_arrays_with_many_empty_axes():
    """Dask's automatic chunking divides by zero for shapes with ten or more size-0
    axes; strict_array gives empty results one chunk."""
    shape = (0,) * 11 + (5,)
    x = xp.zeros((0,), dtype=xp.bool, device=xp.DASK)
    assert xp.reshape(x, shape).shape == shape
    assert to_numpy(xp.reshape(x, shape)).shape == shape
    assert xp.tile(xp.reshape(x, shape), (2,)).shape == (*shape[:-1], 10)
    assert xp.zeros(shape, device=xp.DASK).shape == shape


def test_known_sizes_makes_data_dependent_sizes_numbers():
    a = np.array([3.0, 1.0, 3.0, 0.0, 2.0, 1.0])
    x = xp.asarray(a, device=xp.DASK, chunks=2)
    counts = xp.asarray([1, 0, 2, 1, 1, 3], device=xp.DASK, chunks=3)
    lazy = (x[x > 1.0], xp.nonzero(x)[0], xp.unique_values(x), xp.repeat(x, counts))
    assert [v.shape for v in lazy] == [(None,)] * 4  # Dask's own: unknown until computed
    with xp.known_sizes():
        known = (x[x > 1.0], xp.nonzero(x)[0], xp.unique_values(x), xp.repeat(x, counts))
    expected = (a[a > 1.0], np.nonzero(a)[0], np.unique(a), np.repeat(a, [1, 0, 2, 1, 1, 3]))
    for k, v, e in zip(known, lazy, expected):
        assert k.shape == e.shape and k.device is xp.DASK
        np.testing.assert_array_equal(to_numpy(k), e)
        np.testing.assert_array_equal(to_numpy(v), e)
    # sizes that are numbers work where unknown ones are refused (section 4)
    assert int(known[0].shape[0]) == 3 and to_numpy(known[0][-1]) == 2.0
    with dask.config.set({"strict_array.known-sizes": True}):
        assert x[x > 1.0].shape == (3,)
    assert x[x > 1.0].shape == (None,)


def test_numpy_index_arrays_as_keys_for_reading_and_writing(device):
    x = on(device, np.arange(6.0).reshape(3, 2))
    rows, mask = np.array([2, 0]), np.array([True, False, True])
    np.testing.assert_array_equal(to_numpy(x[rows]), [[4.0, 5.0], [0.0, 1.0]])
    np.testing.assert_array_equal(to_numpy(x[mask]), [[0.0, 1.0], [4.0, 5.0]])
    x[np.array([False, True, False])] = 9.0
    if device in (xp.CPU, xp.DASK):  # (the standard's writes take no integer arrays, and
        # the array_api_strict backend refuses them)
        x[rows, 0] = on(device, np.array([-1.0, -2.0]))
        np.testing.assert_array_equal(to_numpy(x), [[-2.0, 1.0], [9.0, 9.0], [-1.0, 5.0]])
    else:
        np.testing.assert_array_equal(to_numpy(x), [[0.0, 1.0], [9.0, 9.0], [4.0, 5.0]])
    with pytest.raises(TypeError, match="asarray"):
        xp.add(x, np.ones(2))  # as an operand of the namespace's function, refused
    with pytest.raises(xp.RankPromotionError, match=r"numpy\.add"):
        x + np.ones(2)  # NumPy's operator, under the rank rule


@pytest.mark.parametrize("target", [(-2, 3), (4, -1), (-1, -1), (3, -3)])
def test_reshape_refuses_negative_sizes_other_than_one_minus_one(device, target):
    """NumPy reads -2 as -1 and Dask raises IndexError for (4, -1): both devices give
    the standard's ValueError."""
    with pytest.raises(ValueError, match=r"^reshape: "):
        xp.reshape(on(device, np.zeros(6)), target)
    assert xp.reshape(on(device, np.zeros(6)), (2, -1)).shape == (2, 3)


def test_deeper_differential_search_findings(device):
    """Found by HYPOTHESIS_PROFILE=dev runs of tests/test_differential.py."""
    # concat(axis=None) of empty arrays in several chunks (Dask's reshape failed)
    empty = on(device, np.zeros((2, 2, 0)))
    assert xp.concat([empty, empty], axis=None).shape == (0,)
    # an in-place operator's dtype is checked before any value (CPU raised NumPy's
    # negative-power ValueError first, DASK the dtype TypeError)
    v = on(device, np.array(1, dtype=np.int32))
    with pytest.raises(TypeError, match=r"pow \(in-place\): the result has dtype int64"):
        v **= on(device, np.array(-1, dtype=np.int64))


def test_unknown_sizes_refused_by_explicit_broadcasts_not_by_integer_indexing():
    x = xp.asarray(np.ones((1, 2, 2)), device=xp.DASK)
    u = x[xp.asarray([True], device=xp.DASK)]
    with pytest.raises(ValueError, match=r"size unknown until computed, which must be 1 to"):
        xp.broadcast_in_dim(u, (1, 2, 2), (0, 1, 2))
    e = xp.asarray(np.zeros((1, 2, 0)), device=xp.DASK)
    masked = e[xp.asarray(np.array(False), device=xp.DASK)]  # shape (None, 1, 2, 0)
    assert to_numpy(masked[:, xp.asarray(np.array([0]), device=xp.DASK), 0, ...]).shape == (0, 1, 0)
    # index arrays on known axes beside unknown ones: gathered block by block
    a = np.random.default_rng(3).random((4, 3, 2, 5))
    rows = np.array([True, False, True, True])
    v = xp.asarray(a, device=xp.DASK, chunks=(2, 2, 1, 3))[xp.asarray(rows, device=xp.DASK)]
    i, j = np.array([[0], [2]]), np.array([1, 0])
    got = v[:, xp.asarray(i, device=xp.DASK), xp.asarray(j, device=xp.DASK)]
    np.testing.assert_array_equal(to_numpy(got), a[rows][:, i, j])
    got = v[:, xp.asarray(np.array(1), device=xp.DASK), xp.asarray([1, 0, 1], device=xp.DASK), ...]
    np.testing.assert_array_equal(to_numpy(got), a[rows][:, 1, [1, 0, 1], ...])


def test_integer_power_and_empty_gathers_fail_only_where_cpu_does(device):
    """An integer array to a negative power fails per element, so not when empty (Dask
    refused it when built); an out-of-bounds index still fails when the result is empty
    (on DASK no task read the indices)."""
    empty = on(device, np.zeros((1, 0), dtype=np.int64))
    assert (empty**-1).shape == (1, 0)
    empty **= -1
    with pytest.raises(ValueError, match="Integers to negative integer powers"):
        to_numpy(on(device, np.array([1, 2])) ** -1)
    x = on(device, np.zeros((2, 2, 0)))
    assert to_numpy(x[on(device, np.array([[1], [0]])), 1, ...]).shape == (2, 1, 0)
    with pytest.raises(IndexError, match="out of bounds"):
        to_numpy(x[on(device, np.array([[4], [4]])), 1, ...])


# (not the test backend over array_api_strict: its pow is NumPy's loop, as reported there)
@pytest.mark.parametrize("device", [xp.CPU, xp.DASK], ids=["cpu", "dask"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_the_square_root_power_keeps_the_standards_special_cases(device, dtype):
    """NumPy's loop takes a square root for an exponent of 0.5 broadcast along it (a
    scalar, a size-1 array, a column), where ``-inf ** 0.5`` is NaN and ``-0.0 ** 0.5``
    is ``-0.0``; an exponent array as long as the base gives the standard's ``+inf`` and
    ``+0.0`` (numpy/numpy#21213). Each form gives the standard's values, on each device
    (their blocks differ in layout, so NumPy alone made them differ), in place too."""
    base = np.array([-np.inf, -0.0, 0.0, 4.0, -4.0, np.nan, np.inf], dtype=dtype)
    want = np.array([np.inf, 0.0, 0.0, 2.0, np.nan, np.nan, np.inf], dtype=dtype)
    half = np.full(base.shape, 0.5, dtype=dtype)
    x = on(device, base.copy())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (NumPy's: invalid value)
        got = [
            x**0.5,
            xp.pow(x, 0.5),
            x ** on(device, half[:1]),
            x ** on(device, half),
            xp.pow(x, on(device, np.asarray(0.5, dtype=dtype))),
        ]
        inplace = on(device, base.copy())
        inplace **= 0.5
        got.append(inplace)
        inplace = on(device, base.copy())
        inplace **= on(device, half[:1])
        got.append(inplace)
        column = on(device, base.reshape(-1, 1)) ** on(device, half.reshape(-1, 1)[:1])
        got.append(xp.reshape(column, (-1,)))
        for g in got:
            values = to_numpy(g)
            assert values.dtype == want.dtype
            np.testing.assert_array_equal(values, want)
            signed = ~np.isnan(want)  # (a NaN's sign means nothing)
            np.testing.assert_array_equal(np.signbit(values[signed]), np.signbit(want[signed]))
        for value, expected in zip(base, want):  # 0-d: NumPy's loop gives a scalar
            zero_d = on(device, np.asarray(value))
            got_0d = [zero_d**0.5, xp.pow(zero_d, on(device, np.asarray(0.5, dtype=dtype)))]
            zero_d **= 0.5
            for g in [*got_0d, zero_d]:
                np.testing.assert_array_equal(to_numpy(g), expected)
                if not np.isnan(expected):
                    assert np.signbit(to_numpy(g)) == np.signbit(expected)
        # a Python scalar base keeps NumPy's promotion where the exponent holds 0.5
        assert (2.0 ** on(device, half)).dtype == want.dtype
        assert to_numpy(2.0 ** on(device, half)).dtype == want.dtype
        squares = to_numpy(x**2.0)  # (other exponents: NumPy's values as they are)
    np.testing.assert_array_equal(squares, base**2.0)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_arg_reductions_along_known_axes_of_arrays_with_unknown_sizes(name):
    a = np.random.default_rng(0).random((4, 2, 3))
    x = xp.asarray(a, device=xp.DASK, chunks=(1, 1, 2))
    rows = np.array([True, False, True, True])
    u = x[xp.asarray(rows, device=xp.DASK)]
    for axis in (-1, 1, 0):
        for keepdims in (False, True):
            got = getattr(xp, name)(u, axis=axis, keepdims=keepdims)
            want = getattr(np, name)(a[rows], axis=axis, keepdims=keepdims)
            np.testing.assert_array_equal(to_numpy(got), want)


def test_vector_norm_axes_and_roll_by_nothing(device):
    with pytest.raises(np.exceptions.AxisError, match=r"linalg.vector_norm: axis -4 is out"):
        xp.linalg.vector_norm(on(device, np.ones((1, 0, 1))), axis=-4)
    a = on(device, np.arange(8.0).reshape(4, 2, 1))
    u = a[a[:, 0, 0] > 1.0]  # an unknown size on DASK
    np.testing.assert_array_equal(
        to_numpy(xp.roll(u, 0, axis=1)), np.arange(8.0).reshape(4, 2, 1)[1:]
    )


#: functions of an array with an unknown size on DASK (after masking): each must give
#: CPU's shape, dtype and values (Dask's own number, rechunk or concatenate by size)
UNKNOWN_SIZE_FUNCTIONS = {
    "reshape flat": lambda u: xp.reshape(u, (-1,)),
    "reshape rows": lambda u: xp.reshape(
        u, (-1, *([math.prod(u.shape[1:])] if u.ndim > 1 else []))
    ),
    "repeat flat": lambda u: xp.repeat(u, 2, axis=None),
    "concat flat": lambda u: xp.concat([u, u], axis=None),
    "tile": lambda u: xp.tile(u, (2,) * u.ndim),
    "sort": lambda u: xp.sort(u, axis=0),
    "sort descending": lambda u: xp.sort(u, axis=-1, descending=True),
    "argsort": lambda u: xp.argsort(u, axis=0, descending=True),
    "roll": lambda u: xp.roll(u, 1, axis=0),
    "roll flat": lambda u: xp.roll(u, -2),
    "take": lambda u: xp.take(u, xp.asarray([0, -1], device=u.device), axis=0),
    "nonzero": lambda u: xp.stack(xp.nonzero(u)),
    "unique_values": xp.unique_values,
    "unique_counts": lambda u: xp.unique_counts(u).counts,
    "unique_inverse": lambda u: xp.unique_inverse(u).inverse_indices,
    "unique_all": lambda u: xp.unique_all(u).indices,
    "searchsorted": lambda u: xp.searchsorted(
        xp.sort(xp.reshape(u, (-1,))), xp.asarray([1.0, 2.5], device=u.device)
    ),
    "cumulative_sum": lambda u: xp.cumulative_sum(u, axis=0, include_initial=True),
    # Dask's full-rank mask joins the blocks' selections in block order, not row-major
    "mask of all axes": lambda u: u[u > 1.0],
    "concat along the last axis": lambda u: xp.concat([u, u * 2.0], axis=-1),
    "stack": lambda u: xp.stack([u, u * 2.0], axis=-1),
}


@pytest.mark.parametrize("name", sorted(UNKNOWN_SIZE_FUNCTIONS))
@pytest.mark.parametrize(
    ("shape", "chunks"),
    [((6,), 2), ((6, 3), (2, 2)), ((5, 2, 3), (2, 1, 2)), ((4, 3), 1), ((2, 2, 0), 1)],
)
def test_functions_of_unknown_sizes_agree_with_cpu(name, shape, chunks):
    a = np.random.default_rng(1).integers(0, 4, shape).astype(float)
    rows = np.array([True, False, True, True, False, True])[: shape[0]]
    f = UNKNOWN_SIZE_FUNCTIONS[name]
    x = xp.asarray(a, device=xp.DASK, chunks=chunks)
    u = x[xp.asarray(rows, device=xp.DASK, chunks=2)]
    assert None in u.shape
    try:
        want = f(xp.asarray(a)[xp.asarray(rows)])
    except ValueError as e:  # (a reshape of 0 elements to (-1, 0)): the same error
        with pytest.raises(ValueError, match=str(e)[:20]):
            f(u)
        return
    got = f(u)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(to_numpy(got), to_numpy(want))


@pytest.mark.parametrize("device", [xp.CPU, xp.DASK], ids=["cpu", "dask"])
def test_assignment_checks_the_rank_rule_before_unknown_sizes_and_bounds_when_empty(device):
    x = on(device, np.ones((3, 4)))
    u = x[on(device, np.array([True] * 10 + [False] * 2).reshape(3, 4))]
    # the region's rank is known, whether or not its size is: the rank rule first
    with pytest.raises(RankPromotionError, match="has rank 2 but the selected region"):
        u[on(device, np.zeros(10, bool))] = on(device, np.ones((1, 0)))
    # nothing selected, but the index is out of bounds: raised (DASK: when computed)
    e = on(device, np.zeros((2, 2, 0)))
    with pytest.raises(IndexError, match="index 2 is out of bounds for axis 1 with size 2"):
        e[:, on(device, np.array(2)), ...] = 0.5
        to_numpy(e)


def test_per_element_values_through_a_mask_of_several_axes_and_blocks(device):
    a = np.random.default_rng(2).standard_normal((4, 6, 3))
    for lead in (2, 3):
        x = on(device, a)
        mask = x > 0 if lead == 3 else x[:, :, 0] > 0
        y = xp.asarray(x, copy=True)
        y[mask] = y[mask] * 2.0 + 1.0
        want = a.copy()
        m = a > 0 if lead == 3 else a[:, :, 0] > 0
        want[m] = want[m] * 2.0 + 1.0
        np.testing.assert_array_equal(to_numpy(y), want)


def test_concat_of_unknown_and_known_sizes_and_of_0d_arrays(device):
    x = on(device, np.ones((4, 3)))
    u = x[on(device, np.array([True, False, True, True]))]
    if device is xp.DASK:
        with pytest.raises(ValueError, match="axis 0 has a size unknown until computed"):
            xp.concat([u, x], axis=1)
    with pytest.raises(ValueError, match="concat: 0-d arrays have no axis to join along"):
        xp.concat([x[0, 0], x[0, 0]], axis=0)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # (NumPy's, for the empty selection)
@pytest.mark.parametrize("name", ["var", "std"])
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
def test_moments_over_empty_blocks(name, dtype):
    """Dask weights each block's mean by its count, and an empty block's mean is NaN:
    its var and std were NaN (dask/dask#3906)."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((6, 3)).astype(dtype)
    if dtype == "complex128":
        a = a + 1j * rng.standard_normal((6, 3))
    rows = np.array([True, False, False, True, True, False])
    x = xp.asarray(a, device=xp.DASK, chunks=(1, 2))
    u = x[xp.asarray(rows, device=xp.DASK, chunks=1)]  # empty blocks, unknown sizes
    f = getattr(xp, name)
    for kwargs in ({}, {"axis": 0, "correction": 1}, {"axis": -1, "keepdims": True}):
        got = f(u, **kwargs)
        want = f(xp.asarray(a[rows]), **kwargs)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(to_numpy(got), to_numpy(want), rtol=1e-5)
    np.testing.assert_allclose(to_numpy(f(x[:0:1], axis=0)), np.full(3, np.nan))


NAN_REDUCTIONS = ["nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin",
                  "nanargmax", "nanargmin", "nancumsum", "nancumprod"]  # fmt: skip


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # (NumPy's, for all-NaN slices)
@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "bool"])
@pytest.mark.parametrize("name", NAN_REDUCTIONS)
def test_nan_reductions_over_empty_blocks_and_unknown_sizes(name, dtype):
    """Dask's own failed on unknown sizes, and its nancumsum over them returned one
    element where there were three."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((6, 3))
    a = a > 0 if dtype == "bool" else a.astype(dtype)
    if dtype.startswith("float"):
        a[1, 1] = np.nan
        a[3, 0] = np.nan
    rows = np.array([True, False, False, True, True, False])
    f = getattr(xp, name)
    for kwargs in ({}, {"axis": 0}, {"axis": -1}):
        x = xp.asarray(a, device=xp.DASK, chunks=(1, 2))
        for arr, values in ((x, a), (x[xp.asarray(rows, device=xp.DASK, chunks=1)], a[rows])):
            want = f(xp.asarray(values), **kwargs)
            got = f(arr, **kwargs)
            assert got.dtype == want.dtype
            np.testing.assert_allclose(to_numpy(got), to_numpy(want), rtol=1e-5)


def test_nan_orderings_refuse_complex_as_max_does(device):
    with pytest.raises(TypeError, match="nanmax: x has dtype complex128, but nanmax takes real"):
        xp.nanmax(on(device, np.array([1 + 1j, 2 - 1j])))


LINALG_OF_UNKNOWN_SIZES = {
    "diagonal": lambda u: xp.linalg.diagonal(u, offset=1),
    "trace": xp.linalg.trace,
    "matrix_rank": xp.linalg.matrix_rank,
    "pinv": xp.linalg.pinv,
    "svdvals": xp.linalg.svdvals,
    "svd": lambda u: xp.linalg.svd(u, full_matrices=False)[1],
    "qr R": lambda u: abs(xp.linalg.qr(u)[1]),
    "vector_norm": xp.linalg.vector_norm,
    "vector_norm inf": lambda u: xp.linalg.vector_norm(u, axis=0, ord=xp.inf, keepdims=True),
    "vector_norm 0": lambda u: xp.linalg.vector_norm(u, axis=-1, ord=0),
    "vector_norm 3": lambda u: xp.linalg.vector_norm(u, ord=3, keepdims=True),
    "matrix_norm": lambda u: xp.linalg.matrix_norm(u, ord="nuc"),
    "diff": lambda u: xp.diff(u, axis=0),
    "diff appended": lambda u: xp.diff(u, axis=0, n=2, append=xp.ones((1, 3), device=u.device)),
}


@pytest.mark.parametrize("name", sorted(LINALG_OF_UNKNOWN_SIZES))
def test_matrices_and_vectors_of_unknown_sizes(name):
    a = np.random.default_rng(0).standard_normal((6, 3))
    rows = np.array([True, False, False, True, True, True])
    f = LINALG_OF_UNKNOWN_SIZES[name]
    x = xp.asarray(a, device=xp.DASK, chunks=(1, 2))
    u = x[xp.asarray(rows, device=xp.DASK, chunks=1)]
    want = f(xp.asarray(a[rows]))
    got = f(u)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(to_numpy(got), to_numpy(want), rtol=1e-10, atol=1e-12)


EMPTY_BLOCKS = {
    "x[::-1]": lambda x: x[::-1],
    "x[4:0:-2]": lambda x: x[4:0:-2, ::-1],
    "flip": xp.flip,
    "max": lambda x: xp.max(x, axis=0),
    "min": xp.min,
    "argmax": lambda x: xp.argmax(x, axis=0),
    "argmin": lambda x: xp.argmin(x[:, 0]),
    "nanmax": xp.nanmax,
    "diff of booleans": lambda x: xp.diff(x > 0.0, axis=0),
    "unique_counts": lambda x: xp.unique_counts(x).counts,
    "unique_all": lambda x: xp.unique_all(x).inverse_indices,
    "svdvals of integers": lambda x: xp.linalg.svdvals(xp.astype(x > 0.0, xp.int64)),
}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", sorted(EMPTY_BLOCKS))
def test_known_empty_blocks_and_nan(name):
    """Blocks of size 0 (as concatenating empty arrays gives): Dask's step -1 slicing
    returned nothing over them, its max, min and arg-reductions failed; its unique
    counted a NaN 0 times; its linalg labelled the float results of integers int."""
    a = np.random.default_rng(0).standard_normal((6, 3))
    a[1, 1] = a[4, 2] = np.nan
    f = EMPTY_BLOCKS[name]
    got = f(xp.asarray(a, device=xp.DASK, chunks=((2, 0, 3, 0, 1), (2, 0, 1))))
    want = f(xp.asarray(a))
    assert got.dtype == want.dtype
    np.testing.assert_allclose(to_numpy(got), to_numpy(want))


def test_tril_and_triu_take_matrices_only(device):
    with pytest.raises(ValueError, match="tril: x must have at least two dimensions"):
        xp.tril(on(device, np.ones(3)))
    with pytest.raises(ValueError, match="triu: x must have at least two dimensions"):
        xp.triu(on(device, np.ones(3)))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_empty_selections_in_linalg():
    """A selection that turns out empty on DASK: NumPy's results of nothing."""
    for dev in (xp.CPU, xp.DASK):
        v = xp.asarray(np.zeros((3, 0)), device=dev)[xp.asarray([True] * 3, device=dev)]
        assert float(xp.linalg.vector_norm(v, ord=xp.inf)) == 0.0
        m = xp.add(
            xp.expand_dims(v, axis=(2, 3)), xp.asarray([[2.0]], device=dev),
            broadcast_dimensions=(2, 3),
        )  # fmt: skip
        assert to_numpy(xp.linalg.solve(m, xp.asarray([1.0], device=dev))).shape == (3, 0, 1)
        for ord in ("fro", "nuc", 1, 2, -xp.inf):  # (DASK failed on the unknown batch size)
            assert to_numpy(xp.linalg.matrix_norm(m, ord=ord)).shape == (3, 0)


def test_rank_rule_before_a_mask_mismatch_and_ints_checked_beside_empty_index_arrays(device):
    """The region's rank is known without the mask's sizes: a rank error first, on
    every device (DASK could not check the mask against an unknown size); an int
    beside index arrays that select nothing is still checked, as NumPy does."""
    v = on(device, np.ones(6))
    u = v[on(device, np.array([1, 0, 1, 0, 1, 0], bool))]
    with pytest.raises(RankPromotionError, match="has rank 2 but the selected region"):
        u[on(device, np.ones(2, bool))] = on(device, np.ones((1, 3)))
    x = on(device, np.zeros((2, 0, 2)))
    with pytest.raises(IndexError, match="index 0 is out of bounds for axis 1 with size 0"):
        x[on(device, np.zeros((0, 1), np.int64)), 0, ...]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("chunks", [-1, 1, (2, 1)])
def test_tensordot_multiplies_zero_by_infinity_whatever_the_chunks(chunks):
    """NumPy's tensordot (np.dot) gives 0 for 0 * inf when one element is contracted and
    NaN otherwise (numpy/numpy#14788): on DASK the result followed the chunks."""
    a = np.array([[np.inf, 1.5, -np.inf, 6.0, 0.0]] * 2)
    b = np.array([[0.0, 1.5, 3.0, 1.0, -4.0]])
    for dev, kw in ((xp.CPU, {}), (xp.DASK, {"chunks": chunks})):
        got = xp.tensordot(xp.asarray(a, device=dev, **kw), xp.asarray(b, device=dev, **kw),
                           axes=((1,), (1,)))  # fmt: skip
        assert np.isnan(to_numpy(got)).all()
    one = xp.tensordot(xp.asarray([[np.inf]]), xp.asarray([[0.0]]), axes=((1,), (1,)))
    assert np.isnan(to_numpy(one)).all()  # (np.tensordot gives 0 here)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int8, np.complex128])
@pytest.mark.parametrize("contracted_chunks", [-1, 2])
def test_a_product_over_one_contracted_block_needs_no_sum(dtype, contracted_chunks):
    """``X @ W`` with the contracted axis in one block (a few features): each output
    block is one product, fused by Dask with what makes and uses its operands; summed
    as a reduction of one piece, it was copied twice in tasks of their own, which a
    cluster's workers held apart from their consumers (Nystroem's kernel). In several
    blocks, the partial products are summed. NumPy's values and dtype."""
    rng = np.random.default_rng(3)
    a = (rng.standard_normal((60, 5)) * 3).astype(dtype)
    b = (rng.standard_normal((5, 4)) * 3).astype(dtype)
    x = xp.asarray(a, device=xp.DASK, chunks=(10, contracted_chunks))
    w = xp.asarray(b, device=xp.DASK, chunks=(contracted_chunks, -1))
    got = x @ w
    np.testing.assert_allclose(to_numpy(got), a @ b, rtol=1e-5 if dtype == np.float32 else 1e-12)
    assert to_numpy(got).dtype == (a @ b).dtype
    layers = list(got._data.dask.layers)
    summed = [n for n in layers if n.startswith("sum")]
    assert (not summed) if contracted_chunks == -1 else summed
    if contracted_chunks == -1 and dtype == np.float64:
        (fused,) = dask.optimize(xp.sum(xp.exp(x * 0.1) @ w, axis=0)._data)
        assert not [n for n in fused.dask.layers if n.startswith(("exp", "product"))]
        # what makes an operand fuses into the product too (Nystroem's kernel
        # ``exp(...) @ W``: a cluster's workers held the kernel's blocks for it)
        kernel = xp.exp(x * 0.1) @ w
        (fused,) = dask.optimize(kernel._data)
        assert not [k for k in dict(fused.dask) if k[0].startswith(("exp", "mul"))]
        np.testing.assert_allclose(to_numpy(kernel), np.exp(a * 0.1) @ b, rtol=1e-12)
        # and into the element-wise work that uses it (GaussianMixture's E-step,
        # sum((X @ P - mu @ P) ** 2, axis=1)): Dask fuses only layers of one
        # ``concatenate``, and a cluster's workers held the products apart
        mu = xp.asarray(a[0], device=xp.DASK)
        e_step = xp.sum(xp.square(xp.subtract(x @ w, mu @ w, broadcast_dimensions=(1,))), axis=1)
        (fused,) = dask.optimize(e_step._data)
        assert not [k for k in dict(fused.dask) if k[0].startswith(("product", "subtract"))]
        np.testing.assert_allclose(
            to_numpy(e_step), np.sum((a @ b - a[0] @ b) ** 2, axis=1), rtol=1e-12
        )


def test_elementwise_operands_of_unknown_sizes_from_different_masks():
    """Dask pairs blocks by position and NumPy broadcasts a one-element block: x + y of
    selections with other blocks gave 6 values for 3 (silently), or failed for equal sizes."""
    a = np.arange(1.0, 7.0).reshape(1, 6)
    x = xp.asarray(a, device=xp.DASK, chunks=-1)
    one_block = x[x != 0]  # 6 values, one block
    m = np.array([[True, False, True, True, False, True]])
    two_blocks = x[xp.asarray(m, device=xp.DASK, chunks=((1,), (2, 4)))]  # 4 values, 2 blocks
    m3 = np.array([[True, True, True, True, True, False]])
    three = x[xp.asarray(m3, device=xp.DASK, chunks=((1,), (1, 2, 3)))][:, None]  # (5, 1)
    with pytest.raises(ValueError, match="could not be broadcast"):
        to_numpy(one_block + two_blocks)
    same_count = x[xp.asarray(m, device=xp.DASK, chunks=((1,), (3, 3)))]
    np.testing.assert_array_equal(to_numpy(two_blocks * same_count), a[m] * a[m])
    np.testing.assert_array_equal(
        to_numpy(xp.where(two_blocks > 3.0, same_count, two_blocks)), a[m]
    )
    np.testing.assert_array_equal(to_numpy(xp.clip(two_blocks, same_count, same_count)), a[m])
    assert to_numpy(three + xp.ones((1, 2), device=xp.DASK)).shape == (5, 2)


def test_stacks_of_unknown_sizes_from_different_masks():
    a = np.random.default_rng(0).standard_normal((6, 2, 2)) + 3 * np.eye(2)
    m1, m2 = np.array([1, 0, 1, 1, 0, 1], bool), np.array([1, 1, 0, 1, 0, 1], bool)
    x = xp.asarray(a, device=xp.DASK, chunks=(2, 2, 2))
    u = x[xp.asarray(m1, device=xp.DASK, chunks=2)]
    v = x[xp.asarray(m2, device=xp.DASK, chunks=3)]
    np.testing.assert_allclose(to_numpy(xp.matmul(u, v)), a[m1] @ a[m2])
    np.testing.assert_allclose(to_numpy(xp.linalg.solve(u, v)), np.linalg.solve(a[m1], a[m2]))
    np.testing.assert_allclose(to_numpy(xp.vecdot(u, v)), np.sum(a[m1] * a[m2], axis=-1))


@pytest.mark.parametrize("device", [xp.CPU, xp.DASK], ids=["cpu", "dask"])
def test_vecdot_axis_per_operand_and_empty_masks_beside_unknown_sizes(device):
    """A non-negative vecdot axis for operands of different ranks is ambiguous (NumPy
    counts it in each operand, the standard from the end; DASK differed from CPU); an
    empty mask beside an axis of unknown size selects nothing (DASK failed)."""
    a = on(device, np.arange(10.0).reshape(2, 5))
    with xp.rank_promotion("allow"):
        with pytest.raises(ValueError, match=r"give a negative axis, e\.g\. axis=-2"):
            xp.vecdot(a, on(device, np.array([0.5, 1.0])), axis=0)
        got = xp.vecdot(a, on(device, np.array([[0.5], [1.0]])), axis=0)
    np.testing.assert_array_equal(
        to_numpy(got), np.array([0.5, 1.0]) @ np.arange(10.0).reshape(2, 5)
    )
    v = on(device, np.zeros((0, 2)))[:, on(device, np.array([True, False]))]
    assert to_numpy(v[on(device, np.zeros(0, bool))]).shape == (0, 1)


def test_per_element_values_through_a_mask_from_other_selections(device):
    """A value that is not an expression of x[mask] block for block (it combines
    selections by masks of other chunks) is taken run by run from one block; a value
    of the wrong length fails (DASK refused the first and wrote the second)."""
    a = np.arange(12.0)
    m = np.array([1, 0, 1, 1, 0, 1, 1, 1, 0, 0, 1, 1], bool)
    x, w = on(device, a), on(device, a * 10)
    mask = on(device, m)
    y = xp.asarray(x, copy=True)
    y[mask] = y[mask] * w[xp.asarray(mask, copy=True)]
    want = a.copy()
    want[m] = a[m] * a[m] * 10
    np.testing.assert_array_equal(to_numpy(y), want)
    with pytest.raises(ValueError):
        y[mask] = (x[mask] * 2.0)[x[mask] > 100.0]
        to_numpy(y)


def test_in_place_operators_of_unknown_sizes_keep_the_shape():
    """x op= y with sizes unknown on both: the blocks of the result pair with x's, and
    a result of another size fails when computed (DASK gave x the result's size, or
    failed where CPU computed)."""
    a = np.arange(1.0, 7.0)
    m = np.array([1, 0, 1, 1, 0, 1], bool)
    x = xp.asarray(a, device=xp.DASK, chunks=3)
    u = x[xp.asarray(m, device=xp.DASK, chunks=3)]
    u += x[xp.asarray(m, device=xp.DASK, chunks=2)]
    np.testing.assert_array_equal(to_numpy(u), 2 * a[m])
    one = xp.asarray([-1.0], device=xp.DASK)
    v = one[one != 0.0]
    v //= one[xp.asarray([False], device=xp.DASK)]  # 1 element against none
    with pytest.raises(ValueError, match="could not be broadcast"):
        to_numpy(v)


@pytest.mark.parametrize("chunks", [-1, 1, 2])
def test_indexing_by_nonzero_of_several_axes(chunks):
    """x[nonzero(mask)] for x of rank >= 2: index arrays of one unknown length each
    (DASK refused them: Dask's broadcast_arrays refuses NaN sizes, even equal ones);
    index arrays whose lengths differ fail when computed."""
    a = np.array([[0.0, 2.0, 3.0], [4.0, 0.0, 1.0]])
    x = xp.asarray(a, device=xp.DASK, chunks=chunks)
    got = x[xp.nonzero(x > 0.5)] - xp.min(x)
    np.testing.assert_array_equal(to_numpy(got), a[np.nonzero(a > 0.5)] - a.min())
    rows, _ = xp.nonzero(x > 0.5)
    _, cols = xp.nonzero(x > 2.5)
    with pytest.raises(ValueError, match="could not be broadcast"):
        to_numpy(x[rows, cols])


def test_take_of_unknown_length_along_an_axis_of_unknown_size():
    """take(values, indices) where both sizes are unknown (unique_all's values and its
    inverse indices): DASK failed building it (Dask's rechunk refuses NaN sizes)."""
    x = xp.asarray([3.0, 1.0, 3.0, 2.0], device=xp.DASK, chunks=2)
    u = xp.unique_all(x[x > 0.0])
    got = xp.take(u.values, xp.reshape(u.inverse_indices, (-1,)), axis=0)
    np.testing.assert_array_equal(to_numpy(got), [3.0, 1.0, 3.0, 2.0])


def _outcome(f):
    try:
        return ("value", np.asarray(f()).tolist())
    except Exception as e:
        return (type(e).__name__, str(e))


@pytest.mark.parametrize(
    "make",
    [
        lambda dev: xp.fft.fftfreq(0, device=dev),
        lambda dev: xp.fft.rfftfreq(3, d=0.0, device=dev),
        lambda dev: xp.fft.fft(xp.zeros((3, 0), device=dev), axis=1),
        lambda dev: xp.fft.irfft(xp.ones((2, 1), device=dev, dtype=xp.complex128)),
        lambda dev: xp.fft.fftn(xp.zeros((2, 3), device=dev), s=(2, 0), axes=(0, 1)),
        lambda dev: xp.ones((3, 0), device=dev)[np.array(5)],
        lambda dev: xp.ones((3, 0), device=dev)[np.array([5]), np.array([0])],
    ],
    ids=["fftfreq(0)", "rfftfreq d=0", "fft of an empty axis", "irfft of one element",
         "fftn s with 0", "0-d index into an empty region", "index arrays, empty region"],
)  # fmt: skip
def test_errors_that_do_not_depend_on_data_are_raised_when_built(make):
    """NumPy's error, when the expression is built (DASK computed an empty result, or
    failed only when computing)."""
    cpu = _outcome(lambda: make(xp.CPU))
    assert cpu[0] != "value"
    with pytest.raises(Exception) as raised:
        make(xp.DASK)  # built, not computed
    assert type(raised.value).__name__ == cpu[0]


@pytest.mark.parametrize("chunks", [-1, 1, ((1, 0, 3),)])
def test_empty_selections_of_unknown_size(chunks):
    """Arrays of unknown size that are empty when computed: stacked with arrays from
    other masks (blocks that differ in number: DASK refused them), repeated along a
    known axis beside the unknown one (Dask's repeat failed joining its pieces), and
    taken by nonzero's indices of such an array (DASK raised out-of-bounds when built)."""
    a = np.arange(12.0).reshape(4, 3)
    x = xp.asarray(a, device=xp.DASK, chunks=chunks if chunks != ((1, 0, 3),) else ((1, 0, 3), 3))
    flat = xp.asarray(a[:, 0], device=xp.DASK, chunks=chunks)
    none, some = flat[flat > 100.0], flat[flat > 2.0]
    other = xp.asarray(a[:, 0], device=xp.DASK, chunks=-1)
    for axis in (0, -1):
        got = xp.stack([none, other[other > 100.0]], axis=axis)
        assert to_numpy(got).shape == ((2, 0) if axis == 0 else (0, 2))
        got = xp.concat([some, other[other > 2.0], none])
        np.testing.assert_array_equal(to_numpy(got), [3.0, 6.0, 9.0] * 2)
    rows = x[xp.asarray(a[:, 0] > 100.0, device=xp.DASK)]
    np.testing.assert_array_equal(to_numpy(xp.repeat(rows, 2, axis=1)), np.zeros((0, 6)))
    np.testing.assert_array_equal(
        to_numpy(xp.repeat(x[flat > 2.0], 2, axis=1)), np.repeat(a[a[:, 0] > 2.0], 2, axis=1)
    )
    empty = xp.asarray(np.zeros(0), device=xp.DASK)
    got = xp.take(empty, xp.nonzero(empty >= 0.0)[0], axis=0)
    assert to_numpy(got).shape == (0,)
    with pytest.raises(IndexError, match="out of bounds"):
        to_numpy(xp.take(empty, xp.nonzero(some > 0.0)[0], axis=0))


def test_complex_products_with_an_infinite_part_pinned():
    """docs/dask.md, "Complex infinities in products": NumPy's complex multiplication
    is not associative once a part is infinite (no C99 Annex G recovery of infinities),
    so the grouping of the factors decides between -inf+infj and nan+nanj. CPU is
    NumPy's ``prod`` (left to right); DASK groups the factors by its reduction tree
    across blocks (within one block it is NumPy's).
    Finite products agree to rounding; where one device gives a non-finite value, so
    does the other."""
    a = np.array([1 + 1j, 2j, complex(np.inf, 1)])
    with np.errstate(invalid="ignore"):
        left, right = (a[0] * a[1]) * a[2], a[0] * (a[1] * a[2])  # NumPy's two answers
        assert complex(to_numpy(xp.prod(xp.asarray(a)))) == np.prod(a) == left
        assert left == complex(-np.inf, np.inf) and np.isnan(right.real)
        # in one block DASK is NumPy's prod, once (not the one partial result reduced
        # again: (inf+1j) alone became nan+nanj)
        assert complex(to_numpy(xp.prod(xp.asarray(a, device=xp.DASK)))) == left
        one = to_numpy(xp.prod(xp.asarray(a[2:], device=xp.DASK)))
        np.testing.assert_array_equal(one, np.prod(a[2:]))  # inf+nanj, NumPy's bits
        got = complex(to_numpy(xp.prod(xp.asarray(a, device=xp.DASK, chunks=1))))
        assert np.isnan(got.real) and np.isnan(got.imag)  # the other grouping
        finite = a[:2]
        np.testing.assert_allclose(
            to_numpy(xp.prod(xp.asarray(finite, device=xp.DASK, chunks=1))), np.prod(finite)
        )


def test_broadcasting_keeps_blocks_within_the_chunk_size():
    """A size-1 axis meeting long blocks (``x[:, None, :] - c[None]``, a k-means step)
    would make output blocks k times the input's: they are split to fit Dask's
    ``array.chunk-size``; values, shape and dtype are those of the one-block result."""
    values = np.random.default_rng(0).random((4000, 16))
    x = xp.asarray(values, device=xp.DASK, chunks=(2000, 16))  # blocks of 250 kB
    with dask.config.set({"array.chunk-size": "200kB"}):
        d = x[:, None, :] - x[:3][None, :, :]  # blocks of 750 kB unsplit
        blocks = d._data.chunks
        block_bytes = math.prod(max(c) for c in blocks) * d.dtype.itemsize
        assert block_bytes <= 200_000, blocks
        assert blocks[1:] == ((3,), (16,))
        same = x[:, None, :] - x[:, None, :]  # no broadcast: the blocks stay
        assert same._data.chunks == ((2000, 2000), (1,), (16,))
        # an axis both span is cut at both's boundaries, not as if paired as they are:
        # weights in one long block times x's rows keep x's blocks (RidgeClassifier's
        # ``X * sqrt(sample_weight)[:, None]`` was cut 32 times finer on 8 GiB)
        w = xp.asarray(values[:, :1], device=xp.DASK, chunks=(4000, 1))
        assert (x * w)._data.chunks == ((2000, 2000), (16,))
    expected = values[:, None, :] - values[:3][None, :, :]
    np.testing.assert_array_equal(to_numpy(d), expected)
    assert d.shape == expected.shape and d.dtype == xp.float64


def test_contractions_keep_the_large_operands_blocks():
    """``w.T @ x`` with ``w`` in finer row blocks than ``x`` (as the split above makes
    them): ``w`` is given ``x``'s blocks, so ``x`` is not re-split (and re-read for each
    piece); the product is the one-block product."""
    from strict_array._backends.dask._namespace import _contracted_blocks_alike

    values = np.random.default_rng(1).random((4000, 16))
    x = da.from_array(values, chunks=(2000, 16))
    w = da.from_array(values[:, :3], chunks=(500, 3))
    wt, same = _contracted_blocks_alike(w.T, x)
    assert same is x and wt.chunks == ((3,), (2000, 2000))
    xT = x.T
    xt, w_again = _contracted_blocks_alike(xT, w)  # the larger on the left, too
    assert xt is xT and w_again.chunks[0] == (2000, 2000)
    head, tail = x[1:].T, x[:-1]  # like sizes: Dask's own pairing of blocks
    assert _contracted_blocks_alike(head, tail) == (head, tail)
    product = xp.asarray(w, device=xp.DASK).mT @ xp.asarray(x, device=xp.DASK)
    np.testing.assert_allclose(to_numpy(product), values[:, :3].T @ values, rtol=1e-12)


# --- regressions the differential suite's random programs found ------------------------------------
@pytest.mark.parametrize(
    ("shape", "mask", "axis", "op"),
    [((1, 0), [False], 0, "max"), ((1, 0), [False], 0, "argmax"), ((1, 0), [True], 1, "argmin"),
     ((2, 0), [True, True], 1, "min"), ((2, 3), [False, False], None, "max"),
     ((2, 0), [True, True], 0, "max"), ((2, 3), [False, False], 1, "max"),
     ((1, 0), [False], 0, "sum")],
)  # fmt: skip
def test_reductions_over_sizes_known_when_computed_agree_with_cpu(shape, mask, axis, op):
    """A reduction without an identity over an axis whose size is unknown until computed
    and turns out 0 is NumPy's error, even where the result is empty too ((0, 0) over
    axis 0); with an identity, or over a non-empty axis, NumPy's value."""
    outcomes = []
    for dev in (xp.CPU, xp.DASK):
        x = xp.asarray(np.arange(np.prod(shape), dtype=float).reshape(shape), device=dev)
        selected = x[xp.asarray(np.array(mask), device=dev)]
        try:
            r = np.asarray(getattr(xp, op)(selected, axis=axis))
            outcomes.append((r.shape, r.tolist()))
        except ValueError:
            outcomes.append("ValueError")
    assert outcomes[0] == outcomes[1]


def test_clip_decides_the_rank_rule_then_the_dtype_then_the_sizes():
    """The same error on both devices where a size is known only when computed."""
    for dev in (xp.CPU, xp.DASK):
        v = xp.asarray(np.ones(4, bool), device=dev)
        unknown = v[v]  # a size known only when computed on DASK
        with pytest.raises(TypeError, match="real numeric dtype"):
            xp.clip(unknown, 0, max=xp.asarray(np.ones(3), device=dev))
        with xp.rank_promotion("raise"), pytest.raises(xp.RankPromotionError):
            xp.clip(unknown, xp.asarray(np.ones((1, 1)), device=dev))


@pytest.mark.parametrize("kwargs", [{}, {"axis": -1}, {"axis": (0, 2), "keepdims": True}])
def test_vector_norm_of_nan_and_infinite_parts_is_numpys(kwargs):
    """NumPy's 2-norm of a complex element of NaN and infinite parts is NaN (the sum of
    (x.conj() * x).real), on every chunking and with sizes known only when computed."""
    x = np.ones((2, 2, 3), complex)
    x[-1, -1, -1], x[0, 0, 0] = complex(np.nan, np.inf), 3 - 4j
    want = np.asarray(xp.linalg.vector_norm(xp.asarray(x), **kwargs))
    for chunks in (-1, 1):
        lazy = xp.asarray(x, device=xp.DASK, chunks=chunks)
        got = np.asarray(xp.linalg.vector_norm(lazy, **kwargs))
        np.testing.assert_allclose(got, want, equal_nan=True)
    keep = xp.asarray(np.array([True, True]), device=xp.DASK)
    unknown = xp.asarray(x, device=xp.DASK)[keep]
    np.testing.assert_allclose(np.asarray(xp.linalg.vector_norm(unknown, **kwargs)), want,
                               equal_nan=True)  # fmt: skip


def test_contractions_over_several_empty_blocks():
    """xp.tile(x, (0, 0)) gives blocks of size 0 along the contracted axis: the products
    are NumPy's (zeros), as Dask's matmul alone fails when computed."""
    x = xp.tile(xp.asarray(np.ones((2, 4)), device=xp.DASK, chunks=1), (0, 0))
    a = xp.matmul(x, xp.asarray(np.zeros((0, 1)), device=xp.DASK))  # (0, 1), blocks (0, 0)
    for got in (a.mT @ a, xp.matmul(a.mT, a), xp.tensordot(a.mT, a, axes=1),
                xp.vecdot(a, a, axis=0)):  # fmt: skip
        want = np.zeros(got.shape)
        np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize(
    ("shape", "chunks", "dtype"),
    [((400, 6), (50, 6), "float64"), ((400, 6), (50, 2), "float64"), ((40, 6), (4, 6), "float64"),
     ((6, 400), (6, 70), "float64"), ((300, 5), (60, 5), "complex128"), ((300, 5), (60, 5), "float32"),
     ((300, 5), (60, 5), "int64"), ((12, 12), (5, 12), "float64"), ((7, 3), (1, 3), "float64")],
)  # fmt: skip
def test_tall_and_skinny_svd_and_qr_through_tsqr(shape, chunks, dtype):
    """A matrix in several row blocks (or, for svd, column blocks) is factored by TSQR:
    the values are NumPy's (singular vectors up to sign), and U and Q stay lazy."""
    rng = np.random.default_rng(1)
    a = rng.standard_normal(shape) * 10
    a = a + 1j * rng.standard_normal(shape) if dtype == "complex128" else a.astype(dtype)
    x = xp.asarray(a, device=xp.DASK, chunks=chunks)
    tol = 1e-4 if dtype == "float32" else 1e-12
    u, s, vh = xp.linalg.svd(x, full_matrices=False)
    want_s = np.linalg.svd(a, compute_uv=False)
    assert (u.shape, s.shape, vh.shape) == (
        (shape[0], len(want_s)),
        want_s.shape,
        (len(want_s), shape[1]),
    )
    assert u.dtype == xp.linalg.svd(xp.asarray(a), full_matrices=False).U.dtype
    un, sn, vn = (np.asarray(t) for t in (u, s, vh))
    np.testing.assert_allclose(sn, want_s, rtol=tol, atol=tol * want_s[0])
    np.testing.assert_allclose((un * sn) @ vn, a, atol=tol * want_s[0] * 10)
    np.testing.assert_allclose(un.conj().T @ un, np.eye(len(want_s)), atol=tol * 10)
    np.testing.assert_allclose(
        np.asarray(xp.linalg.svdvals(x)), want_s, rtol=tol, atol=tol * want_s[0]
    )
    if shape[0] >= shape[1]:
        q, r = xp.linalg.qr(x)
        qn, rn = np.asarray(q), np.asarray(r)
        np.testing.assert_allclose(qn @ rn, a, atol=tol * want_s[0] * 10)
        np.testing.assert_allclose(
            np.abs(rn), np.abs(np.linalg.qr(a)[1]), atol=tol * want_s[0] * 10
        )
        np.testing.assert_allclose(qn.conj().T @ qn, np.eye(shape[1]), atol=tol * 10)


def test_tsqr_is_computed_in_two_streaming_passes():
    """U's large blocks wait only for small factors, which the planner computes ahead:
    the one-graph alternative keeps every block's Q in memory."""
    x = xp.asarray(da.random.default_rng(0).standard_normal((20_000, 8), chunks=(2_000, 8)))
    u = xp.linalg.svd(x, full_matrices=False).U
    with xp.planning(threshold="256 KiB"):
        plan = xp.compute_plan(u)
        assert plan.startswith("Plan: 2 passes"), plan
        q = xp.linalg.qr(x).Q
        assert xp.compute_plan(q).startswith("Plan: 2 passes")
        np.testing.assert_allclose(np.asarray(q).T @ np.asarray(q), np.eye(8), atol=1e-12)


def test_a_matrix_in_one_block_is_factored_as_numpy_does():
    a = np.random.default_rng(2).standard_normal((30, 4))
    x = xp.asarray(a, device=xp.DASK, chunks=-1)
    for got, want in zip(
        xp.linalg.svd(x, full_matrices=False), np.linalg.svd(a, full_matrices=False)
    ):
        np.testing.assert_array_equal(np.asarray(got), want)


class _TaskCount(dask.callbacks.Callback):
    """The number of tasks Dask runs inside the block."""

    def __init__(self):
        super().__init__()
        self.n = 0

    def _posttask(self, key, result, dsk, state, id):
        self.n += 1


def test_an_iteration_on_lazy_parameters_costs_the_same_each_time():
    """EM-like code keeps its parameters lazy and converts one scalar per step: the
    small results computed before are kept, so step k does not compute steps 1..k-1
    again (the tasks run per step stay flat)."""
    x = xp.asarray(
        np.random.default_rng(3).standard_normal((4000, 3)), device=xp.DASK, chunks=(500, 3)
    )
    centre = xp.zeros(3, device=xp.DASK)
    runs = []
    for _ in range(8):
        d = xp.subtract(x, centre, broadcast_dimensions=(1,))
        centre = centre + 0.5 * xp.mean(d, axis=0)
        with _TaskCount() as count:
            float(xp.sum(centre * centre))
        runs.append(count.n)
    assert max(runs[2:]) <= runs[1] + 2, runs
    expected = np.zeros(3)
    for _ in range(8):
        expected = expected + 0.5 * (np.asarray(x) - expected).mean(axis=0)
    np.testing.assert_allclose(np.asarray(centre), expected, rtol=1e-12)


def test_assigning_a_lazy_value_does_not_copy_its_graph():
    """Dask's setitem merges the value's whole graph into the new layer: element by element
    assignment of a value with a long history was quadratic (sklearn's _add_to_diagonal)."""
    v = xp.ones(6, device=xp.DASK, chunks=2)
    for _ in range(30):
        v = v * 1.0 + 0.0
    a = xp.zeros((6, 6), device=xp.DASK, chunks=3)
    sizes = []
    for i in range(6):
        a[i, i] = v[i]
        graph = a._data.__dask_graph__()
        sizes.append(len(graph.layers[a._data.name]))
    assert max(sizes) < 20, sizes  # the assignment's own tasks, not the value's history
    np.testing.assert_array_equal(np.asarray(a), np.eye(6))


def test_a_small_parameter_written_element_by_element_grows_by_one_layer_a_write():
    """``a[i, i] = v[i]`` into a view of a small array in one block, as scikit-learn's
    ``_add_to_diagonal`` adds to each covariance of GaussianMixture: one layer for the
    view and one for the array it is a view of, per write. Each layer made costs as much
    as the history it joins: the region's shape reckoned by selecting, and the value
    reshaped to the key's axes, were three more per write."""
    covariances = xp.zeros((3, 4, 4), device=xp.DASK)
    expected = np.zeros((3, 4, 4))
    for k in range(3):
        covariances[k, :, :] = xp.ones((4, 4), device=xp.DASK) * float(k)
        expected[k, :, :] = float(k)
        view = covariances[k, :, :]
        value = xp.linalg.diagonal(view) + 0.5
        before = len(
            covariances._data.__dask_graph__().layers.keys() | value._data.dask.layers.keys()
        )
        for i in range(4):
            view[i, i] = value[i]
        # per write: the value's element, the view's write, the array's write
        assert len(covariances._data.__dask_graph__().layers) - before == 3 * 4
        expected[k] += 0.5 * np.eye(4)
    np.testing.assert_array_equal(np.asarray(covariances), expected)


@pytest.mark.parametrize(
    "key",
    [(1, 2), (-1, slice(None)), (slice(1, None, 2), -3), (Ellipsis, 0), (None, 1, Ellipsis),
     (slice(None), None, slice(2, 0, -1)), (0, 0, 0), (slice(5, 9),), ()],
)  # fmt: skip
def test_a_writes_region_is_the_selections_shape_reckoned_from_the_key(key):
    from strict_array._backends.dask._indexing import _selected_shape

    data = da.zeros((4, 5, 3), chunks=2)
    expected = data[key].shape
    assert _selected_shape(data, key) == expected


def test_a_writes_region_out_of_bounds_is_dasks_error():
    from strict_array._backends.dask._indexing import _selected_shape

    with pytest.raises(IndexError):
        _selected_shape(da.zeros((4, 5), chunks=2), (4, 0))


@pytest.mark.parametrize("target_chunks", [-1, (3000, 1000)])
def test_columns_assigned_from_row_blocks_stream_with_their_input(target_chunks):
    """``log_prob[:, k] = v_k`` into an array of Dask's own blocks (GaussianMixture's
    E-step): the target takes the values' row blocks, so that the assignment goes block
    by block with the input. Fitted to the target's one or two blocks, each column
    gathered all its row blocks into one task, and in GaussianMixture's graph the input's
    products waited in memory for the last column (5 GiB held for 2 GiB of data). The
    target, made by ``empty``, is made again in the new blocks rather than rechunked."""

    def block(block_info=None):  # x read block by block, as from a file
        return np.random.default_rng(block_info[None]["chunk-location"][0]).random((250, 8))

    x = xp.asarray(da.map_blocks(block, chunks=((250,) * 16, (8,)), dtype=np.float64))
    xn = np.concatenate([np.random.default_rng(i).random((250, 8)) for i in range(16)])
    projections = np.random.default_rng(0).standard_normal((3, 8, 8))
    log_prob = xp.empty((4000, 3), device=xp.DASK, chunks=target_chunks)
    for k in range(3):
        y = x @ xp.asarray(projections[k], device=xp.DASK)
        log_prob[:, k] = xp.sum(y * y, axis=1)
    assert log_prob._data.chunks[0] == x._data.chunks[0]
    # made again in those blocks, not rechunked: each block made when it is used
    assert not [n for n in log_prob._data.__dask_graph__().layers if n.startswith("rechunk")]
    got = np.asarray(log_prob)
    want = np.stack([((xn @ p) ** 2).sum(axis=1) for p in projections], axis=1)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    # the value's row blocks are the target's where it is already split more finely
    fine = xp.zeros((4000, 3), device=xp.DASK, chunks=(125, 3))
    fine[:, 0] = log_prob[:, 0]
    assert fine._data.chunks[0] == (125,) * 32
    np.testing.assert_array_equal(np.asarray(fine)[:, 0], want[:, 0])
    filled = xp.full((4000, 3), 7.0, device=xp.DASK, chunks=target_chunks)  # made again
    filled[:, 1] = log_prob[:, 1]
    assert filled._data.chunks[0] == x._data.chunks[0]
    np.testing.assert_array_equal(
        np.asarray(filled), np.insert(np.full((4000, 2), 7.0), 1, want[:, 1], axis=1)
    )


@pytest.mark.parametrize("degree", [2, 3])
def test_an_array_filled_column_range_by_column_range_streams_block_by_block(degree):
    """scikit-learn's PolynomialFeatures fills ``empty((n, n_out))`` column range by
    column range: ``XP[:, 0] = 1``, ``XP[:, 1:p + 1] = X``, then ``XP[:, a:b] =
    XP[:, c:d] * X[:, i:i + 1]`` for each feature. The target takes ``X``'s row blocks,
    each cut to hold at most Dask's chunk size; the slices and assignments are
    Blockwise, and the column slices of ``X`` share one rechunk of ``X``: after Dask's
    optimisation, one task per row block of the target and one per piece of ``X``
    (at 0.5 GiB, 20725 tasks and 1.8 GiB at the peak where it is 1 task a block and
    852 MiB). NumPy's values."""
    sklearn = pytest.importorskip("sklearn")
    from sklearn.preprocessing import PolynomialFeatures

    a = RNG.standard_normal((4000, 4))
    x = xp.asarray(a, device=xp.DASK, chunks=(1000, 4))
    with (
        dask.config.set({"array.chunk-size": "40KiB"}),
        sklearn.config_context(array_api_dispatch=True),
        xp.rank_promotion("allow"),
    ):
        out = PolynomialFeatures(degree=degree).fit_transform(x)
    rows = out._data.chunks[0]
    assert set(np.cumsum(x._data.chunks[0])) <= set(np.cumsum(rows))  # X's rows, cut
    assert max(rows) * out.shape[1] * 8 <= 40 * 1024
    (optimized,) = dask.optimize(out._data)
    graph = dict(optimized.__dask_graph__())
    named = collections.Counter(
        (k[0] if isinstance(k, tuple) else k).rsplit("-", 1)[0] for k in graph
    )
    assert sum(named.values()) <= 2 * len(rows) + x._data.numblocks[0], named
    np.testing.assert_allclose(
        np.asarray(out), PolynomialFeatures(degree=degree).fit_transform(a), rtol=1e-14
    )


def test_slices_within_blocks_are_blockwise_and_rechunked_as_their_source():
    """A slice along axes each in one block (the others taken whole) is a Blockwise
    layer, fused with its consumer; rechunked along the axes it takes whole, it is its
    source rechunked then sliced, so that slices of one array share one rechunk of it.
    Two operands whose blocks refine one another meet in the finer blocks. NumPy's
    values, for negative steps too."""
    from dask.blockwise import Blockwise

    a = RNG.standard_normal((300, 5))
    x = xp.asarray(a, device=xp.DASK, chunks=(100, 5))
    fine = xp.asarray(RNG.standard_normal((300, 1)), device=xp.DASK, chunks=(50, 1))
    columns = [x[:, i : i + 1] for i in range(5)]
    for c in columns:
        assert isinstance(c._data.__dask_graph__().layers[c._data.name], Blockwise)
    products = [c * fine for c in columns]
    rechunks = {
        name
        for p in products
        for name in p._data.__dask_graph__().layers
        if name.startswith("rechunk")
    }
    assert len(rechunks) <= 2  # (one rechunk of x: split and merge layers)
    for i, p in enumerate(products):
        assert p._data.chunks[0] == fine._data.chunks[0]
        np.testing.assert_array_equal(np.asarray(p), a[:, i : i + 1] * np.asarray(fine))
    np.testing.assert_array_equal(np.asarray(x[:, 3:0:-2]), a[:, 3:0:-2])
    np.testing.assert_array_equal(np.asarray(x[10:20, 1:4]), a[10:20, 1:4])


@pytest.mark.parametrize("make", ["ones", "full"])
def test_an_array_made_from_nothing_takes_its_partners_blocks(make):
    """``ones(n)`` in Dask's default blocks met with an input's rows, element-wise or in
    a product (RidgeCV's ``sqrt_sw``): made again in the rows' blocks, no rechunk,
    and fused into the tasks that use it (no layer of its own left after Dask's
    optimisation), so that no piece waits in memory for its rows."""
    n = 4000
    x = xp.asarray(da.from_array(np.arange(n * 3.0).reshape(n, 3), chunks=(250, 3)))
    y = xp.asarray(da.from_array(np.arange(n, dtype=np.float64), chunks=250))
    w = (
        xp.ones(n, device=xp.DASK, chunks=n) if make == "ones"
        else xp.full(n, 2.0, device=xp.DASK, chunks=n)
    )  # fmt: skip
    fill = 1.0 if make == "ones" else 2.0
    for out, want in [
        (y * w, np.arange(n) * fill),
        (w - y, fill - np.arange(n)),
        (x.mT @ w, np.arange(n * 3.0).reshape(n, 3).T @ np.full(n, fill)),
    ]:
        graph = out._data.__dask_graph__()
        assert not [name for name in graph.layers if name.startswith("rechunk")]
        optimised = dask.optimize(out._data)[0].__dask_graph__()
        assert not [name for name in optimised.layers if name.startswith(("ones", "full"))]
        np.testing.assert_array_equal(np.asarray(out), want)
    assert (y * w)._data.chunks == y._data.chunks


def test_local_computations_give_blas_one_thread_per_dask_thread():
    threadpoolctl = pytest.importorskip("threadpoolctl")

    def blas_threads(block):
        info = [
            i["num_threads"] for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"
        ]
        return np.full(block.shape, max(info, default=1))

    x = xp.asarray(da.map_blocks(blas_threads, da.zeros(4, chunks=2), dtype=int))
    assert set(np.asarray(x).tolist()) == {1}


def test_the_graph_of_a_loop_does_not_grow_with_its_steps():
    """As in EM: the next parameters are built before this step's scalar is computed, from
    parameters not yet computed; the graphs still stay the size of one or two steps."""
    x = xp.asarray(
        np.random.default_rng(4).standard_normal((2000, 3)), device=xp.DASK, chunks=(500, 3)
    )
    params = xp.ones(3, device=xp.DASK)
    sizes = []
    for _ in range(10):
        resp = xp.exp(-(xp.multiply(x, params, broadcast_dimensions=(1,)) ** 2))  # the E step
        new = xp.mean(resp * x, axis=0) / xp.mean(resp, axis=0)  # the M step
        bool(xp.sum(resp) > 0)  # the convergence test computes this step's E step
        params = new
        sizes.append(len(params._data.__dask_graph__().layers))
    assert max(sizes[3:]) <= sizes[2], sizes
    expected = np.ones(3)
    xn = np.asarray(x)
    for _ in range(10):
        r = np.exp(-((xn * expected) ** 2))
        expected = (r * xn).mean(axis=0) / r.mean(axis=0)
    np.testing.assert_allclose(np.asarray(params), expected, rtol=1e-12)


def test_a_statistic_computed_in_a_planned_pass_is_not_read_again():
    """The reductions a planned pass computes first are kept: the next computation that
    needs them (scikit-learn centres X once, then asks twice) reads X once, not twice."""
    reads = []

    def block(block_info=None):
        reads.append(block_info[None]["chunk-location"])
        return np.random.default_rng(block_info[None]["chunk-location"][0]).standard_normal(
            (500, 4)
        )

    x = xp.asarray(da.map_blocks(block, chunks=((500,) * 8, (4,)), dtype=np.float64))
    centred = xp.subtract(x, xp.mean(x, axis=0), broadcast_dimensions=(1,))
    # (x, 128 KiB, is larger than what is kept: else the centred x is kept too)
    with xp.planning(threshold="8 KiB"), dask.config.set({"strict_array.keep-bytes": "16 KiB"}):
        first = float(xp.sum(centred * centred))
        assert len(reads) == 16  # the mean first, then the rest: two reads of x
        second = float(xp.max(xp.abs(centred)))
    assert len(reads) == 24  # the mean is kept: one read
    xn = np.concatenate([np.random.default_rng(i).standard_normal((500, 4)) for i in range(8)])
    np.testing.assert_allclose(
        [first, second], [((xn - xn.mean(0)) ** 2).sum(), np.abs(xn - xn.mean(0)).max()]
    )


@pytest.mark.parametrize(
    "shape, chunks, axis",
    [((10,), 3, 0), ((10,), (1, 9), 0), ((10,), (9, 1), 0), ((7, 5), (2, 3), 0),
     ((7, 5), (2, 3), 1), ((7, 5), (7, 2), 1), ((3,), 1, 0), ((1,), 1, 0), ((0,), 1, 0)],
)  # fmt: skip
@pytest.mark.parametrize("dtype", [np.float64, np.int8, np.uint8, bool])
@pytest.mark.parametrize("n", [1, 2, 4, 11])
def test_diff_keeps_the_blocks_of_its_input(shape, chunks, axis, dtype, n):
    """Each block is differenced with the first element of the next, so the result has
    x's blocks (the last one shorter, a last block of one element gone): Dask's
    ``x[1:] - x[:-1]`` cuts both at each other's boundaries, and what meets the result
    (scikit-learn's ``diff(recall) * precision[:-1]``) was rechunked to them. NumPy's
    values and dtype (``!=`` for booleans, wrapping for unsigned integers)."""
    a = np.random.default_rng(0).standard_normal(shape) * 10
    a = a > 0 if dtype is bool else a.astype(dtype)
    x = xp.asarray(a, device=xp.DASK, chunks=chunks)
    got = xp.diff(x, axis=axis, n=n)
    want = np.diff(a, axis=axis, n=n)
    assert got.shape == want.shape and got.dtype == xp.asarray(want).dtype
    np.testing.assert_array_equal(np.asarray(got), want)
    if n == 1 and a.shape[axis] > 1:
        sizes = x._data.chunks[axis]
        kept = sizes[:-1] if sizes[-1] == 1 else (*sizes[:-1], sizes[-1] - 1)
        assert got._data.chunks[axis] == kept
        assert (
            got._data.chunks[axis]
            == x[(slice(None),) * axis + (slice(None, -1),)]._data.chunks[axis]
        )
        layers = (got * x[(slice(None),) * axis + (slice(None, -1),)])._data.dask.layers
        assert not [name for name in layers if name.startswith("rechunk")]


@pytest.mark.parametrize(
    "shape, chunks, reps",
    [((), -1, (100_000,)), ((3,), -1, (7,)), ((2, 3), (1, 3), (4, 2)), ((4,), 2, (3,)),
     ((2, 2), -1, (1, 3, 2)), ((5,), -1, (0,))],
)  # fmt: skip
def test_tile_repeats_whole_blocks_not_one_block_per_copy(shape, chunks, reps):
    """NumPy's tile, in blocks of as many copies as fit a chunk: scikit-learn's GLM score
    tiles a 0-d mean to n samples (``xp.tile(y_mean, (n,))``), which Dask's tile made
    one block per sample (222 s for 262144 samples)."""
    a = np.arange(math.prod(shape), dtype=np.float64).reshape(shape)
    out = xp.tile(xp.asarray(a, device=xp.DASK, chunks=chunks), reps)
    np.testing.assert_array_equal(to_numpy(out), np.tile(a, reps))
    x = xp.asarray(a, device=xp.DASK, chunks=chunks)._data
    x = x[(None,) * (len(reps) - x.ndim)] if len(reps) > x.ndim else x
    # an axis in one block stays in one (its copies fit a chunk); a long axis is copied
    copied = math.prod(r for r, n in zip(reps[::-1], x.numblocks[::-1]) if n > 1 and r > 1)
    assert math.prod(out._data.numblocks) <= math.prod(x.numblocks) * copied


def _polynomial_fill(a: np.ndarray, chunks: Any) -> tuple[xp.Array, np.ndarray]:
    """scikit-learn's PolynomialFeatures (degree 2, with the bias) on DASK and NumPy:
    ``empty`` filled column range by column range, each range the product of columns
    that the first range wrote, read back from the array."""
    n, p = a.shape
    X = xp.asarray(a, device=xp.DASK, chunks=chunks)
    out = xp.empty((n, 1 + p + p * (p + 1) // 2), dtype=xp.float64, device=xp.DASK)
    want = np.empty(out.shape)
    for arr, x in ((out, X), (want, a)):
        arr[:, 0] = 1.0
        arr[:, 1 : 1 + p] = x
        col = 1 + p
        for i in range(p):
            arr[:, col : col + p - i] = arr[:, 1 + i : 1 + p] * x[:, i : i + 1]
            col += p - i
    return out, want


@pytest.mark.parametrize("chunks", [(40, 5), ((7, 50, 43), 5), (100, 5), (1, 5)])
def test_a_selection_of_what_an_assignment_wrote_is_read_from_its_value(chunks):
    """A selection inside the region an assignment wrote is the value assigned, and one
    that misses it is the array before: PolynomialFeatures' reads of the columns the
    first range wrote no longer use the later versions of the array, so each version
    has one user and Dask fuses the whole fill into one task per block (each version
    had two users: the chain was made once for each, 4x the time). NumPy's values for
    selections inside, across and outside the written regions, of every kind of key."""
    a = np.random.default_rng(8).standard_normal((100, 5))
    with dask.config.set({"strict_array.keep-bytes": 1024}):  # (these 16 KiB are large)
        out, want = _polynomial_fill(a, chunks)
    np.testing.assert_array_equal(to_numpy(out), want)
    graph = out._data.__dask_graph__()
    users = collections.Counter(d for deps in graph.dependencies.values() for d in deps)
    versions = [n for n in graph.layers if n.startswith("setitem") and n != out._data.name]
    assert len(versions) == 6 and all(users[n] == 1 for n in versions)
    with dask.config.set({"strict_array.keep-bytes": 1024}):
        read = out[:, 2:4]  # inside the first range: X's columns, no version of the array
        assert not any(n.startswith("setitem") for n in read._data.__dask_graph__().layers)
        reads = [(key, out[key]) for key in KEYS_READ_BACK]
    # a small array is read as it is (once computed, its value is kept)
    assert any(n.startswith("setitem") for n in out[:, 2:4]._data.__dask_graph__().layers)
    for key, got in reads:
        np.testing.assert_array_equal(to_numpy(got), want[key], err_msg=str(key))


KEYS_READ_BACK = [
    (slice(None), slice(2, 4)), (slice(10, 60), slice(1, 6)), (..., 3), (slice(None), slice(4, 9)),
    (slice(None, None, -3), slice(6, 9)), (5, 0), (slice(None), slice(15, None)),
    (slice(0, 0), slice(1, 3)), (..., slice(1, 21, 2)), (-1, Ellipsis), (slice(None), 20),
]  # fmt: skip


def test_an_assigned_region_read_back_after_another_write_over_it():
    """A later write over part of the region read: the read stops at that write (the
    value is no longer the first assignment's)."""
    a = np.arange(400.0).reshape(80, 5)
    x = xp.asarray(a, device=xp.DASK, chunks=(30, 5))
    y = xp.zeros((80, 5), device=xp.DASK, chunks=(30, 5))
    y[:, 1:4] = x[:, 1:4]
    y[2:5, 2] = -1.0
    want = np.zeros((80, 5))
    want[:, 1:4] = a[:, 1:4]
    want[2:5, 2] = -1.0
    for key in [
        (slice(None), slice(1, 4)),
        (slice(5, None), slice(1, 4)),
        (3, 2),
        (slice(None), 1),
    ]:
        with dask.config.set({"strict_array.keep-bytes": 1024}):  # (these 3 KiB are large)
            got = y[key]
        np.testing.assert_array_equal(to_numpy(got), want[key], err_msg=str(key))


@pytest.mark.parametrize("shape", [(4000,), (4000, 3)])
def test_an_array_made_from_nothing_written_whole_takes_the_values_blocks(shape):
    """scikit-learn's ``_isin``: ``mask = zeros(n)`` (one block), then ``mask |= y == c``
    for each class, ``y`` in blocks. Kept in its one block, each step gathered every
    block of ``y`` (and what they are computed from) into one task, and split it again
    for the next step: on a cluster, all of ``X``'s blocks waited. Written whole, an
    array made from nothing takes the value's blocks: no rechunk, NumPy's values."""
    y = np.random.default_rng(3).integers(0, 4, shape).astype(float)
    Y = xp.asarray(y, device=xp.DASK, chunks=500)
    mask = xp.zeros(shape, dtype=xp.bool, device=xp.DASK)
    assert mask._data.numblocks[0] == 1
    for c in (0.0, 2.0, 3.0):
        mask |= Y == c
    assert not [n for n in mask._data.__dask_graph__().layers if n.startswith("rechunk")]
    assert mask._data.chunks == Y._data.chunks
    np.testing.assert_array_equal(to_numpy(mask), np.isin(y, [0.0, 2.0, 3.0]))
    low = xp.zeros((4000, 3), device=xp.DASK)  # a size-1 axis of the value, broadcast
    low[...] = xp.asarray(np.arange(3.0)[None, :], device=xp.DASK)
    np.testing.assert_array_equal(to_numpy(low), np.broadcast_to(np.arange(3.0), (4000, 3)))


@pytest.mark.parametrize(
    "key",
    [(None, slice(None, None, 1)), (slice(0, 6, 1), slice(None)), (slice(None, 100), Ellipsis)],
)
@pytest.mark.parametrize("value_chunks", [1, 2, -1])
def test_a_slice_that_takes_the_axis_whole_assigns_a_value_in_finer_blocks(key, value_chunks):
    """``x[None, ::1] = v`` with ``v`` in finer blocks than ``x`` (found by the
    differential suite): ``::1`` was taken for a part of an axis in one block, then the
    array was split as the value, and each block's task put the whole value in."""
    a = np.arange(24.0).reshape(6, 4)
    region = a[key]
    v = -np.arange(region.size, dtype=float).reshape(region.shape)
    x = xp.asarray(a, device=xp.DASK)
    x[key] = xp.asarray(v, device=xp.DASK, chunks=value_chunks)
    want = a.copy()
    want[key] = v
    np.testing.assert_array_equal(to_numpy(x), want)


def _mixture_start(rows: int) -> tuple[np.ndarray, xp.Array, xp.Array, np.ndarray]:
    """GaussianMixture's start on 4000 x 3 data in blocks of ``rows``: the data, as
    NumPy and DASK, and ``resp = zeros((n, 3))`` with a one put in each column, as
    DASK and NumPy."""
    n = 4000
    a = np.arange(n * 3.0).reshape(n, 3)
    x = xp.asarray(da.from_array(a, chunks=(rows, 3)))
    resp = xp.zeros((n, 3), device=xp.DASK, chunks=(n // 2, 3))
    want = np.zeros((n, 3))
    for col, i in enumerate([5, 2500, n - 1]):
        resp[i, col] = 1.0
        want[i, col] = 1.0
    return a, x, resp, want


def _made_again_beside(out: xp.Array, partner: xp.Array) -> bool:
    """Whether ``out`` added no rechunk and no values computed here (``array-``
    layers) to its partner's graph: its other operand was made again in its blocks."""
    made = set(out._data.__dask_graph__().layers) - set(partner._data.__dask_graph__().layers)
    return not [name for name in made if name.startswith(("rechunk", "array-"))]


def test_a_scalar_put_in_an_array_made_from_nothing_is_made_again_in_other_blocks():
    """GaussianMixture's initial ``resp = zeros((n, c)); resp[i, k] = 1``: no longer
    made from nothing after the assignment, it was computed here where it met the
    data's blocks in a consumer's call, and its n x c values were embedded in the
    graph (the mixture meets the data with ``resp.T``: the test below). It is made
    again in the data's blocks, with the assignment; NumPy's values."""
    a, x, resp, want = _mixture_start(rows=250)
    with xp.known_sizes():  # (as in a consumer's call)
        out = resp * x
    assert _made_again_beside(out, x)
    assert out._data.chunks == x._data.chunks
    np.testing.assert_array_equal(np.asarray(out), want * a)
    np.testing.assert_array_equal(np.asarray(resp), want)


@pytest.mark.parametrize("rows", [250, 1000, 3000])
@pytest.mark.parametrize(
    "transpose",
    [lambda r: r.T, lambda r: r.mT, lambda r: xp.permute_dims(r, (1, 0)),
     lambda r: xp.permute_dims(r, (-1, 0))],
    ids=["T", "mT", "permute_dims", "permute_dims-negative"],
)  # fmt: skip
def test_a_transposed_array_made_from_nothing_is_made_again_in_its_partners_blocks(rows, transpose):
    """GaussianMixture's start, ``resp.T @ X`` with ``resp`` zeros and a one put in
    each column: transposed, ``resp`` was no longer made from nothing, and in a
    consumer's call it was computed here to meet X's blocks, its values embedded in
    the graph (192 MiB on 2 GiB of data, sent to a cluster at every computation). It
    is made again in X's blocks; NumPy's values, as a product and element-wise."""
    a, x, resp, want = _mixture_start(rows)
    with xp.known_sizes():  # (as in a consumer's call)
        product = transpose(resp) @ x
        elementwise = transpose(resp) * x.T
    for out in (product, elementwise):
        assert _made_again_beside(out, x)
    assert elementwise._data.chunks == x._data.T.chunks
    np.testing.assert_array_equal(np.asarray(product), want.T @ a)
    np.testing.assert_array_equal(np.asarray(elementwise), want.T * a.T)


@pytest.mark.parametrize("rows", [250, 1000, 3000])
@pytest.mark.parametrize("column", [0, 2, -1])
def test_a_column_of_an_array_made_from_nothing_is_made_again_in_its_partners_blocks(rows, column):
    """GaussianMixture's first M-step, ``(resp[:, k] * diff.T) @ diff``: the column of
    ``resp`` (zeros with a one put in each column) was no longer made from nothing,
    and NumPy's alignment of it against ``diff.T``'s blocks rechunked it. A cluster's
    scheduler made the rechunk's pieces after reading all of X (2 GiB held on 2 GiB).
    It is made again in X's blocks, aligned or not; NumPy's values."""
    a, x, resp, want = _mixture_start(rows)
    col = resp[:, column]
    assert remade(col._data)
    diff = x - xp.mean(x, axis=0, keepdims=True)
    d = a - a.mean(axis=0)
    with xp.rank_promotion("allow"):
        aligned = col * diff.T  # (n,) against (3, n): NumPy's alignment
    same_rank = col * diff[:, 1]
    for out in (aligned, same_rank):
        assert _made_again_beside(out, diff)
    np.testing.assert_allclose(np.asarray(aligned @ diff), (want[:, column] * d.T) @ d)
    np.testing.assert_array_equal(np.asarray(same_rank), want[:, column] * d[:, 1])
    np.testing.assert_array_equal(np.asarray(resp[3999, column]), want[3999, column])


def test_a_permuted_array_made_from_nothing_is_made_again_axis_by_axis():
    """Of three axes, each axis of the permuted array is made again in the blocks of
    its partner's matching axis; NumPy's values."""
    z = xp.zeros((4, 6, 8), device=xp.DASK, chunks=(4, 6, 8))
    z[1, 2, 3] = 5.0
    want = np.zeros((4, 6, 8))
    want[1, 2, 3] = 5.0
    b = np.arange(8 * 4 * 6.0).reshape(8, 4, 6)
    y = xp.asarray(da.from_array(b, chunks=(2, 1, 3)))
    with xp.known_sizes():
        out = xp.permute_dims(z, (2, 0, 1)) * y
    assert _made_again_beside(out, y)
    assert out._data.chunks == y._data.chunks
    np.testing.assert_array_equal(np.asarray(out), np.transpose(want, (2, 0, 1)) * b)
