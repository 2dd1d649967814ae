"""The DASK device's hooks (strict_array._backends.dask._device): creation with chunks=,
to_device and rechunking, operators on sizes unknown until computed, the alignment of
a small operand to a large one's blocks, broadcasting against an unknown size, and a
constant selected by data."""

from __future__ import annotations

import dask.array as da
import numpy as np
import pytest
from conftest import CountTasks, to_numpy

import strict_array as xp
from strict_array import RankPromotionError

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


def test_to_device_and_chunks():
    x = xp.asarray(np.arange(10.0))
    d = x.to_device(xp.DASK, chunks=3)
    assert d._data.chunks == ((3, 3, 3, 1),)
    assert xp.asarray(x, device=xp.DASK, chunks=5)._data.chunks == ((5, 5),)
    with pytest.raises(ValueError, match="chunks"):
        xp.asarray(np.ones(3), device=xp.CPU, chunks=2)
    np.testing.assert_array_equal(np.asarray(d.to_device(xp.CPU)), np.arange(10.0))


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


@pytest.mark.parametrize("chunks", [3, 1, 2])
def test_broadcast_arrays_against_a_size_unknown_until_computed(chunks):
    """SEMANTICS section 4: an unknown size against 1 stays unknown, in broadcast_arrays
    too (Dask's broadcast_to cannot target an unknown size); against another size it is
    refused by name."""
    data = np.arange(6.0).reshape(3, 2)
    x = xp.asarray(data, device=xp.DASK, chunks=chunks)
    row = xp.asarray(np.array([[10.0, 20.0]]), device=xp.DASK)
    scalar = xp.asarray(np.float32(5.0), device=xp.DASK)
    for mask in ([True, False, True], [False] * 3, [True] * 3):
        picked = x[xp.asarray(np.array(mask), device=xp.DASK, chunks=chunks)]
        got = xp.broadcast_arrays(picked, row, scalar)
        want = np.broadcast_arrays(data[mask], np.array([[10.0, 20.0]]), np.float32(5.0))
        for g, w in zip(got, want):
            assert g.shape == (None, 2) and g.dtype == w.dtype
            assert np.array_equal(np.asarray(g), w)
        with pytest.raises(ValueError, match=r"broadcast_arrays: .* unknown and 3"):
            xp.broadcast_arrays(picked, xp.asarray(np.ones((3, 2)), device=xp.DASK))


def test_a_constant_gathered_by_data_is_gathered_from_one_element_per_block():
    """A constant selected by an index that is data (``weights[idx, cols]``): NumPy's
    values and NumPy's IndexError, the blocks broadcast from one element (a gather made
    each 128 MiB block of ``ones`` whole)."""
    ones = xp.ones((1000, 1), device=xp.DASK, chunks=(100, 1))
    index = xp.asarray(np.asarray([5, 999, 0]), device=xp.DASK)
    cols = xp.asarray(np.zeros(3, dtype=np.int64), device=xp.DASK)
    picked = ones[index, cols]
    layers = picked._data.__dask_graph__().layers
    assert [n for n in layers if n.startswith("broadcast_to")] and not [
        n for n in layers if n.startswith("full")
    ]
    np.testing.assert_array_equal(np.asarray(picked), np.ones(3))
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 1000"):
        np.asarray(ones[index + 1, cols])
