"""DASK on a dask.distributed cluster: same results as CPU, and survival of a lost worker."""

from __future__ import annotations

import os
import signal
import threading
import time

import dask.array as da
import numpy as np
import pytest
from dask._task_spec import DataNode, convert_legacy_graph
from dask.core import flatten

import strict_array as xp

distributed = pytest.importorskip("distributed")
pytestmark = pytest.mark.distributed


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        memory_limit="1GiB",
        dashboard_address=None,
    )
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def _slow(block):
    time.sleep(0.15)
    return block


def test_results_equal_cpu_on_cluster(client):
    rng = np.random.default_rng(1)
    a, v = rng.standard_normal((60, 8)), rng.standard_normal(8)
    expected_centred = xp.subtract(xp.asarray(a), xp.asarray(v), broadcast_dimensions=(1,))
    x = xp.asarray(a, device=xp.DASK, chunks=(10, 8))
    centred = xp.subtract(x, xp.asarray(v, device=xp.DASK), broadcast_dimensions=(1,))
    # the active Client runs it: no special code path
    assert distributed.get_client() is client
    np.testing.assert_allclose(np.asarray(centred), np.asarray(expected_centred))
    g = xp.sum_to(centred * centred, (8,), (1,))
    np.testing.assert_allclose(
        np.asarray(g), np.asarray(xp.sum_to(expected_centred * expected_centred, (8,), (1,)))
    )
    np.testing.assert_allclose(float(xp.sum(centred)), float(xp.sum(expected_centred)))


def test_a_take_by_thresholds_from_a_kept_nonzero_gathers_by_blocks_on_a_cluster(client):
    """scikit-learn's thresholds, ``concat([nonzero(diff(scores)), [n - 1]])``: the kept
    mask is on the workers, so no bounds are computed here, but the kept ``nonzero``'s
    are noted and carry through the ``concat``: the take gathers from the blocks each
    block of the index reaches (Dask's take pairs every block of the index with every
    block of the array, holding it whole), each block of the index made in its gather
    from the mask's block on a worker. NumPy's values."""
    rng = np.random.default_rng(2)
    a = np.round(rng.random(3000), 2)
    c = np.cumsum(rng.random(3000))
    x = xp.asarray(a, device=xp.DASK, chunks=300)
    sums = xp.asarray(c, device=xp.DASK, chunks=300)
    with xp.known_sizes():
        index = xp.concat([xp.nonzero(xp.diff(x))[0], xp.asarray([a.size - 1], device=xp.DASK)])
        taken = sums[index]
    layers = taken._data.__dask_graph__().layers
    assert [n for n in layers if n.startswith("take-known")]
    assert not [n for n in layers if n.startswith("slice_with_int_dask_array")]
    # each block of the index is made in its gather, from the mask's block on a worker
    graph = convert_legacy_graph(dict(taken._data.__dask_graph__()))
    index_layers = index._data.__dask_graph__().layers
    index_tasks = {
        k for k, v in graph.items() if k[0] in index_layers and not isinstance(v, DataNode)
    }
    for key in flatten(taken._data.__dask_keys__()):
        assert not graph[key].dependencies & index_tasks
    want = np.concatenate([np.nonzero(np.diff(a))[0], [a.size - 1]])
    np.testing.assert_array_equal(np.asarray(taken), c[want])


def test_a_take_by_labels_read_from_a_store_gathers_by_blocks_on_a_cluster(client, tmp_path):
    """scikit-learn's multinomial loss takes ``ravel(raw_prediction)`` by
    ``y + n_classes * arange(n)``, the labels read from a store: the index's bounds are
    computed on the workers, in one pass over the index alone, and the take gathers
    from the blocks each block of it reaches (Dask's take holds the predictions whole).
    NumPy's values."""
    rng = np.random.default_rng(5)
    labels = rng.integers(0, 3, 3000)
    pred = rng.standard_normal((3000, 3))
    xp.to_zarr(xp.asarray(labels, device=xp.DASK, chunks=250), tmp_path / "y.zarr")
    y = xp.astype(xp.from_zarr(tmp_path / "y.zarr"), xp.int64)
    raw = xp.asarray(pred, device=xp.DASK, chunks=(250, 3))
    with xp.known_sizes():
        taken = xp.take(xp.reshape(raw, (-1,)), y + xp.arange(3000, device=xp.DASK) * 3)
    layers = taken._data.__dask_graph__().layers
    assert [n for n in layers if n.startswith("take-known")]
    assert not [n for n in layers if n.startswith("slice_with_int_dask_array")]
    np.testing.assert_array_equal(np.asarray(taken), pred[np.arange(3000), labels])


def test_survives_a_killed_worker(client):
    raw = da.ones((40, 4), chunks=(1, 4)).map_blocks(_slow, dtype=float)
    y = xp.sum_to(xp.asarray(raw) * 3.0, (4,), (1,))
    result = {}

    def run():
        result["value"] = np.asarray(y)

    worker = threading.Thread(target=run)
    worker.start()
    # wait until tasks are running, then kill one worker process outright
    deadline = time.time() + 30
    while time.time() < deadline and not any(client.processing().values()):
        time.sleep(0.05)
    time.sleep(0.5)
    pids = client.run(os.getpid)
    victim = sorted(pids.values())[0]
    os.kill(victim, signal.SIGKILL)
    worker.join(timeout=120)
    assert not worker.is_alive()
    np.testing.assert_array_equal(result["value"], np.full(4, 120.0))
