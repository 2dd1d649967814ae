"""Bounded memory on DASK, in bytes read and held (never wall time).

The common out-of-core patterns, written as a user writes them on an input that
streams from a store (each read a fresh buffer, as ``from_zarr``'s), are computed
through the planner on Dask's synchronous scheduler (the order Dask's priorities
give, the same at every run). Measured: the blocks read, and the largest number of
bytes the scheduler holds at once, counted by the buffers its values keep alive (a
view of a block keeps the whole block: a column sliced from a block and kept as a
cut point's value kept its block, every block of the input at once). The bound is a
few blocks of the input; one graph without the planner holds all of them.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from typing import Any

import dask
import dask.array as da
import numpy as np
import pytest
from dask.callbacks import Callback

import strict_array as xp

N_BLOCKS, ROWS, COLS = 12, 256, 64
BLOCK_BYTES = ROWS * COLS * 8


class Store:
    """An on-disk-like array: each read returns a fresh block; counts the reads."""

    def __init__(self, data: np.ndarray) -> None:
        self.data = data
        self.shape, self.dtype, self.ndim = data.shape, data.dtype, data.ndim
        self._token = uuid.uuid4().hex
        self._lock = threading.Lock()
        self.reads = 0

    def __dask_tokenize__(self) -> str:
        return self._token

    def __getitem__(self, key: Any) -> np.ndarray:
        block = np.array(self.data[key])
        if block.size:  # (an empty read is Dask's metadata probe)
            with self._lock:
                self.reads += 1
        return block


def _buffers(value: Any, into: dict[int, int]) -> None:
    """The NumPy buffers ``value`` keeps alive (a view keeps its base's), by id."""
    if isinstance(value, np.ndarray):
        while isinstance(value.base, np.ndarray):
            value = value.base
        into[id(value)] = value.nbytes
    elif isinstance(value, (tuple, list)):
        for v in value:
            _buffers(v, into)
    elif isinstance(value, dict):
        for v in value.values():
            _buffers(v, into)


class HeldBytes(Callback):
    """The most bytes the local scheduler's values keep alive at once, over every
    computation run inside the block (the planner's passes included)."""

    def __init__(self) -> None:
        super().__init__()
        self.peak = 0

    def _posttask(self, key: Any, result: Any, dsk: Any, state: Any, id: Any) -> None:
        alive: dict[int, int] = {}
        _buffers(list(state["cache"].values()), alive)
        self.peak = max(self.peak, sum(alive.values()))


def _measure(
    make: Callable[[Any], Any], planned: bool = True, rows: int = ROWS, cols: int = COLS
) -> tuple[Any, int, int]:
    """``make(x)`` computed on a streaming input of blocks of ``rows`` x ``cols``: its
    value, the blocks read and the peak bytes held."""
    rng = np.random.default_rng(7)
    store = Store(rng.standard_normal((N_BLOCKS * rows, cols)))
    x = xp.asarray(da.from_array(store, chunks=(rows, cols), asarray=False))
    out = make(x)
    held = HeldBytes()
    # (results up to ``keep-bytes`` are kept between computations, by design: here
    # every array is a few KiB, so the bound is scaled with the blocks)
    block_bytes = rows * cols * 8
    settings = {"scheduler": "sync", "strict_array.keep-bytes": block_bytes // 16}
    with dask.config.set(settings), held:
        with xp.planning(planned, threshold=4 * block_bytes):
            value = np.asarray(out)
    return value, store.reads, held.peak


def _mean0(x: Any) -> Any:
    return xp.mean(x, axis=0, keepdims=True)


def _centred(x: Any) -> Any:
    return xp.subtract(x, xp.mean(x, axis=0), broadcast_dimensions=(1,))


def _least_squares_residual(x: Any) -> Any:
    """Least squares on centred data, then the residual: a column and the rest of a
    centred input, a product by the solution (one contracted block)."""
    xc = _centred(x)
    a, y = xc[:, 1:], xc[:, 0]
    beta = xp.linalg.solve(a.T @ a, a.T @ y)
    r = y - a @ beta
    return xp.sum(r * r)


def _small_matrix() -> Any:
    return xp.asarray(np.linspace(-1.0, 1.0, COLS * 3).reshape(COLS, 3), device=xp.DASK)


#: name -> (passes over the input, natural code)
PATTERNS: dict[str, tuple[int, Callable[[Any], Any]]] = {
    "centred sum of squares": (2, lambda x: xp.sum(_centred(x) ** 2, axis=0)),
    "z-score": (2, lambda x: xp.sum((x - _mean0(x)) / xp.std(x, axis=0, keepdims=True), axis=0)),
    "least squares on centred data, then the residual": (3, _least_squares_residual),
    "a column, centred": (2, lambda x: xp.sum((x[:, 2] - xp.mean(x[:, 2])) ** 2)),
    "covariance": (2, lambda x: (x - _mean0(x)).mT @ (x - _mean0(x))),
    "Gram matrix": (1, lambda x: x.mT @ x),
    "product by a small matrix, centred": (
        2,
        lambda x: xp.sum((lambda p: (p - _mean0(p)) ** 2)(x @ _small_matrix()), axis=0),
    ),
    "centred, then a product by a small matrix": (
        2,
        lambda x: xp.sum(xp.abs((x - _mean0(x)) @ _small_matrix()), axis=0),
    ),
    "product by a vector, then its mean": (
        2,
        lambda x: (lambda v: xp.sum((v - xp.mean(v)) ** 2))(
            x @ xp.linspace(0, 1, COLS, device=xp.DASK)
        ),
    ),
    "column softmax": (
        3,
        lambda x: xp.sum(
            (lambda e: e / xp.sum(e, axis=0, keepdims=True))(
                xp.exp(x - xp.max(x, axis=0, keepdims=True))
            ),
            axis=0,
        ),
    ),
}


@pytest.mark.parametrize("name", list(PATTERNS))
def test_out_of_core_patterns_hold_a_few_blocks(name):
    """Each pattern reads its input once a pass and holds at most four blocks' bytes
    at once, with one graph's values."""
    passes, make = PATTERNS[name]
    want, raw_reads, _ = _measure(make, planned=False)
    got, reads, held = _measure(make)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)
    assert raw_reads == N_BLOCKS
    assert reads <= passes * N_BLOCKS, f"{name}: {reads / N_BLOCKS:.1f} passes, not {passes}"
    assert held <= 4 * BLOCK_BYTES, f"{name}: {held / BLOCK_BYTES:.1f} blocks held"


def test_the_measure_sees_one_graph_hold_its_input():
    """Without the planner, centring holds every block for the mean (dask/dask#874):
    the measure counts them."""
    _, reads, held = _measure(PATTERNS["centred sum of squares"][1], planned=False)
    assert reads == N_BLOCKS and held >= N_BLOCKS * BLOCK_BYTES


def test_a_column_of_a_block_does_not_keep_its_block():
    """A slice of a block kept beyond its task (a cut point's value, persisted) is a
    copy when it is less than half of its block, as Dask's own slicing makes it
    (``dask.array.chunk.getitem``): a view kept the whole block."""
    x = xp.asarray(np.arange(64.0 * 8).reshape(64, 8), device=xp.DASK, chunks=(16, 8))
    column = (x * 2)[:, 3]
    blocks = dask.compute(*column._data.to_delayed().ravel(), scheduler="sync")
    for b in blocks:
        assert b.base is None or b.base.nbytes <= 2 * b.nbytes
    np.testing.assert_array_equal(
        np.concatenate(blocks), np.arange(64.0 * 8).reshape(64, 8)[:, 3] * 2
    )


# --- factorizations of a tall matrix: NumPy's names and the namespace's --------------------
def _sums(*outs: Any) -> Any:
    """The outputs as one vector, each matrix reduced to its column (or row) sums: what
    is held is then the computation's, not the outputs' (U, Q and the pseudo-inverse
    are as large as the input)."""
    parts = []
    for o in outs:
        if o.ndim == 2:
            o = xp.sum(xp.abs(o), axis=0 if o.shape[0] >= o.shape[1] else 1)
        parts.append(xp.reshape(o, (-1,)))
    return xp.concat(parts)


#: the blocks of the tall matrix: each block's R factor a small fraction of the block,
#: and all of them (TSQR's stacked R) below the planner's small results
TALL_ROWS, TALL_COLS = 1024, 8

#: name -> (passes over the input, the call)
FACTORIZATIONS: dict[str, tuple[int, Callable[[Any], Any]]] = {
    "xp.linalg.svd": (2, lambda x: _sums(*xp.linalg.svd(x, full_matrices=False))),
    "np.linalg.svd": (2, lambda x: _sums(*np.linalg.svd(x, full_matrices=False))),
    "np.linalg.svd, values": (1, lambda x: np.linalg.svd(x, compute_uv=False)),
    "xp.linalg.qr": (2, lambda x: _sums(*xp.linalg.qr(x))),
    "np.linalg.qr": (2, lambda x: _sums(*np.linalg.qr(x))),
    "np.linalg.qr, r": (1, lambda x: np.linalg.qr(x, mode="r")),
    "np.cov, rowvar=False": (2, lambda x: np.cov(x, rowvar=False)),
    "np.cov of the transpose": (2, lambda x: np.cov(x.mT)),
    "np.linalg.lstsq": (3, lambda x: _sums(*np.linalg.lstsq(x, x[:, 0] + 1.0)[:2])),
    "np.linalg.pinv": (2, lambda x: _sums(np.linalg.pinv(x))),
    "xp.linalg.pinv": (2, lambda x: _sums(xp.linalg.pinv(x))),
}


@pytest.mark.parametrize("name", list(FACTORIZATIONS))
def test_factorizations_of_a_tall_matrix_stream(name):
    """The SVD, QR, covariance, least squares and pseudo-inverse of a tall matrix in row
    blocks, by NumPy's names as by the namespace's: a few reads of the input, at most
    four blocks' bytes held, NumPy's values (NumPy's own function, per matrix in one
    block, held the whole matrix at once)."""
    passes, make = FACTORIZATIONS[name]
    block_bytes = TALL_ROWS * TALL_COLS * 8
    want, _, _ = _measure(make, planned=False, rows=TALL_ROWS, cols=TALL_COLS)
    got, reads, held = _measure(make, rows=TALL_ROWS, cols=TALL_COLS)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9)
    assert reads <= passes * N_BLOCKS, f"{name}: {reads / N_BLOCKS:.1f} passes, not {passes}"
    assert held <= 4 * block_bytes, f"{name}: {held / block_bytes:.1f} blocks held"


# --- NumPy's names on a tall array: the namespace's functions, not one block ---------------
#: name -> (passes over the input, the call by NumPy's name)
NUMPY_PATTERNS: dict[str, tuple[int, Callable[[Any], Any]]] = {
    "np.cumulative_sum along the tall axis": (
        1,
        lambda x: np.sum(np.abs(np.cumulative_sum(x, axis=0)), axis=0),
    ),
    "np.cumsum along the tall axis": (1, lambda x: np.max(np.cumsum(x, axis=0), axis=0)),
    "np.average along the tall axis, centred": (
        2,
        lambda x: np.sum((x - np.average(x, axis=0, keepdims=True)) ** 2, axis=0),
    ),
    "np.concatenate of two tall arrays, then a sum": (
        1,
        lambda x: np.sum(np.concatenate([x, x * 2.0]), axis=0),
    ),
    "np.where, then a sum": (1, lambda x: np.sum(np.where(x > 0, x, 0.0), axis=0)),
    "np.clip, then a sum": (1, lambda x: np.sum(np.clip(x, -0.5, 0.5), axis=0)),
    "np.count_nonzero": (1, lambda x: np.count_nonzero(x > 0, axis=0)),
    "np.linalg.vector_norm along the tall axis": (
        1,
        lambda x: np.linalg.vector_norm(x, axis=0, ord=3),
    ),
    "np.ptp": (1, lambda x: np.ptp(x, axis=0)),
}


@pytest.mark.parametrize("name", list(NUMPY_PATTERNS))
def test_numpys_names_on_a_tall_array_hold_a_few_blocks(name):
    """NumPy's running totals, averages, joins and selections of a tall array resolve to
    the namespace's functions: a few blocks held, NumPy's values (NumPy's function on
    each lane, the lane the whole tall axis in one block, held all of the input)."""
    passes, make = NUMPY_PATTERNS[name]
    got, reads, held = _measure(make)
    want = make(np.random.default_rng(7).standard_normal((N_BLOCKS * ROWS, COLS)))  # NumPy's
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)
    assert reads <= passes * N_BLOCKS, f"{name}: {reads / N_BLOCKS:.1f} passes, not {passes}"
    assert held <= 4 * BLOCK_BYTES, f"{name}: {held / BLOCK_BYTES:.1f} blocks held"


def test_the_measure_sees_numpys_function_per_lane_hold_its_input():
    """The way the running total took before, NumPy's function on each lane (the tall
    axis in one block): the measure counts every block held at once."""
    from strict_array._backends._numpy_ways import Blocks
    from strict_array._backends.dask._numpy_calls import numpy_call

    def per_lane(x: Any) -> Any:
        lanes = numpy_call(np.cumulative_sum, Blocks(("x",), along="axis"), (x._data,), {"axis": 0})
        return xp.sum(xp.asarray(lanes), axis=0)

    _, _, held = _measure(per_lane)
    assert held >= N_BLOCKS * BLOCK_BYTES
