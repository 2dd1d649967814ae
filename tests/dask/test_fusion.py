"""Fusion, the graph adapter's optimisation hook (strict_array._backends.dask._graph.fusion):
element-wise layers made per user, small values put in their users' tasks, writes in
place, and the reductions of one block in one task."""

from __future__ import annotations

from typing import Any

import dask
import dask.array as da
import numpy as np
import pytest
from conftest import to_numpy
from dask.callbacks import Callback
from test_indexing import _polynomial_fill

import strict_array as xp


class RunKeys(Callback):
    """The names of the tasks run on Dask's local schedulers."""

    def __init__(self):
        super().__init__()
        self.names = []

    def _pretask(self, key, dsk, state):
        self.names.append(key[0] if isinstance(key, tuple) else key)


@pytest.mark.parametrize("unknown_rows", [False, True], ids=["known", "unknown"])
@pytest.mark.parametrize("row_chunks", [50, (13, 50, 37, 100)])
def test_an_elementwise_array_with_two_users_is_made_in_each(row_chunks, unknown_rows):
    """GaussianMixture's M-step ``(resp[:, k] * diff.T) @ diff``, ``diff = X - means[k]``:
    Dask fuses a layer into its user only when it has one user, so ``diff`` was a task
    of its own and a cluster's workers held its blocks between its two users until
    they spilled. Each user now makes the blocks it needs, and no ``subtract`` task
    runs; NumPy's values, rows of known and of unknown sizes (selected by a mask)."""
    rng = np.random.default_rng(5)
    a, r = rng.standard_normal((200, 4)), rng.random((200, 3))
    X = xp.asarray(a, device=xp.DASK, chunks=(row_chunks, 4))
    resp = xp.asarray(r, device=xp.DASK, chunks=(row_chunks, 3))
    if unknown_rows:  # every row kept, by a mask computed from the data
        keep = X[:, 0] > -100.0
        X, resp = X[keep, :], resp[keep, :]
        assert X.shape[0] is None
    means = xp.asarray(a[:3], device=xp.DASK)
    diff = xp.subtract(X, means[1, :], broadcast_dimensions=(1,))
    cov = xp.multiply(resp[:, 1], diff.T, broadcast_dimensions=(1,)) @ diff
    runs = RunKeys()
    with runs:
        got = to_numpy(cov)
    d = a - a[1]
    np.testing.assert_allclose(got, (r[:, 1] * d.T) @ d, rtol=1e-12)
    assert runs.names and not [n for n in runs.names if n.startswith("subtract")]


def test_a_layer_is_made_per_user_only_where_every_user_fuses_it():
    """Copies are made only of element-wise layers that every user can fuse, whose keys
    are not asked for and that read no data (a copy would read it again)."""
    from strict_array._backends.dask._graph.fusion import made_per_user

    x = da.ones((6, 4), chunks=(2, 4))  # made from Dask's IO dependencies: never copied
    diff = x - 0.5
    out = diff * 2.0 + diff.T.T
    graph = out.__dask_graph__()
    copied = made_per_user(graph, [(out.name, 0, 0)])
    assert diff.name not in copied.layers
    copies = [n for n in copied.layers if n.startswith(diff.name)]
    assert len(copies) == 2 and x.name in copied.layers  # one per user; the data once
    assert all(copied.dependencies[c] == {x.name} for c in copies)
    np.testing.assert_array_equal(
        da.Array(copied, out.name, out.chunks, meta=out._meta).compute(), np.full((6, 4), 1.5)
    )
    assert made_per_user(graph, [(diff.name, 0, 0)]) is graph  # asked for: stays whole
    sliced = diff[::2] + diff[:3]  # a slice is not Blockwise: it cannot fuse diff
    assert made_per_user(sliced.__dask_graph__(), []) is sliced.__dask_graph__()
    gram = da.blockwise(  # contracts over concatenated blocks: Dask does not fuse into it
        lambda a, b: a.T @ b, "ij", diff, "ki", diff * 2.0, "kj", concatenate=True, dtype=float
    )
    assert made_per_user(gram.__dask_graph__(), []) is gram.__dask_graph__()


def _centred_with_values(cols: int) -> tuple[np.ndarray, da.Array, da.Array, Any]:
    """``(x - mean) * 2`` with ``mean`` put in the graph as a value, as the planner does."""
    from strict_array._backends.dask import _graph

    a = np.arange(12.0 * cols).reshape(12, cols)
    x = da.from_array(a, chunks=(3, cols))
    mean = x.mean(axis=0)
    out = (x - mean) * 2.0
    values = {mean.name: ([(mean.name, 0)], [a.mean(axis=0)])}
    return a, mean, out, _graph.substitute(out.__dask_graph__(), values, [out.name])


def test_a_small_value_is_put_in_the_tasks_that_use_it():
    """A value in the graph is a task with no dependencies, which a cluster's scheduler
    queues with the reads of the data, at the priority Dask's order gives it
    (GaussianMixture's ``means[k]``: after every block of X, which waited). A small one
    is put in each task that uses it; a large one, or one asked for, stays a task."""
    from strict_array._backends.dask import _graph
    from strict_array._backends.dask._graph.fusion import INLINE_BYTES, optimize

    a, mean, out, graph = _centred_with_values(4)
    dsk = optimize(graph, out.__dask_keys__())
    assert (mean.name, 0) not in dsk
    got = dask.get(dsk, out.__dask_keys__())
    np.testing.assert_array_equal(np.concatenate([b[0] for b in got]), (a - a.mean(axis=0)) * 2)
    asked = optimize(graph, [*out.__dask_keys__(), (mean.name, 0)])
    assert (mean.name, 0) in asked
    a, mean, out, graph = _centred_with_values(INLINE_BYTES // 8 + 1)
    assert (mean.name, 0) in optimize(graph, out.__dask_keys__())  # too large: a task
    # a large value of one user (sample weights computed here, in X's blocks) moves
    # into that user's task: no byte is copied
    big = np.arange(4.0 * INLINE_BYTES).reshape(-1, 4)  # 512 KiB blocks
    rows = big.shape[0] // 4
    w, v = (da.from_array(b, chunks=(rows, 4)) for b in (big, -big))
    prod = v * w  # each block of each value used by one task, of two values
    values = {
        a.name: (
            [(a.name, i, 0) for i in range(4)],
            [b[i * rows : (i + 1) * rows] for i in range(4)],
        )
        for a, b in ((w, big), (v, -big))
    }
    dsk = optimize(
        _graph.substitute(prod.__dask_graph__(), values, [prod.name]), prod.__dask_keys__()
    )
    assert not [k for k in dsk if isinstance(k, tuple) and k[0] in (w.name, v.name)]
    got = dask.get(dsk, prod.__dask_keys__())
    np.testing.assert_array_equal(np.concatenate([b[0] for b in got]), -big * big)


def test_a_block_that_several_reductions_use_is_reduced_by_all_in_one_task():
    """Dask's order runs the first steps of a second reduction of the same array after
    the first reduction's whole tree, so each block of the array waited in memory for
    them (PolynomialFeatures' output, summed twice: a cluster's workers held 1 GiB of
    it). A block that only reductions use is made and reduced by all of them in one
    task: none is held between them, and the values are the same. A block that
    something else uses too stays a task of its own."""
    from dask._expr import FinalizeCompute

    from strict_array._backends.dask._graph import fusion as _fusion

    a = np.random.default_rng(9).standard_normal((400, 6))
    x = xp.asarray(a, device=xp.DASK, chunks=(20, 6))
    prod = x @ xp.asarray(np.eye(6), device=xp.DASK)  # a contraction: not copied per user
    sums = [xp.sum(prod * prod, axis=0), xp.sum(xp.abs(prod), axis=0), xp.max(prod, axis=0)]
    datas = [s._data for s in sums]
    with dask.config.set({"array_optimize": _fusion.optimize}):
        expr = FinalizeCompute(dask.base.collections_to_expr(datas, True)).optimize()
        dsk = dict(expr.__dask_graph__())
    name = prod._data.name
    assert not [k for k in dsk if isinstance(k, tuple) and k[0] == name]
    assert len([k for k in dsk if isinstance(k, tuple) and k[0] == f"{name}-reduced"]) == 20
    got = xp.compute(*sums)
    for g, w in zip(got, [(a * a).sum(0), np.abs(a).sum(0), a.max(0)]):
        np.testing.assert_allclose(to_numpy(g), w, rtol=1e-12)
    kept = prod * 2.0  # also used whole by another array: not a reduction's first step
    with dask.config.set({"array_optimize": _fusion.optimize}):
        expr = FinalizeCompute(
            dask.base.collections_to_expr([kept._data, datas[0]], True)
        ).optimize()
        dsk = dict(expr.__dask_graph__())
    assert not [k for k in dsk if isinstance(k, tuple) and k[0] == f"{name}-reduced"]


def _block_writes(node: Any) -> list[Any]:
    """The :class:`BlockWrite` steps of a task, also inside the tasks fused in it."""
    from dask._task_spec import Task, _execute_subgraph

    from strict_array._backends.dask._graph.fusion import BlockWrite

    if not isinstance(node, Task):
        return []
    if node.func is _execute_subgraph:
        return [w for step in node.args[0].values() for w in _block_writes(step)]
    return [node.func] if isinstance(node.func, BlockWrite) else []


@pytest.mark.parametrize("chunks", [(40, 5), ((7, 50, 43), 5)])
def test_a_chain_of_writes_fused_in_one_task_copies_the_block_once(chunks):
    """PolynomialFeatures' fill: 7 assignments, fused by Dask into one task per block.
    Each write copied the block the write before had just made (33 copies of 130 MiB
    blocks in scikit-learn's fill, where NumPy writes in place); in the graph the
    scheduler receives, the first write of each task copies and the others write into
    that copy. NumPy's values."""
    from dask._expr import FinalizeCompute

    from strict_array._backends.dask._graph import fusion as _fusion

    a = np.random.default_rng(10).standard_normal((100, 5))
    with dask.config.set({"strict_array.keep-bytes": 1024}):  # (these 16 KiB are large)
        out, want = _polynomial_fill(a, chunks)
    with dask.config.set({"array_optimize": _fusion.optimize}):
        expr = FinalizeCompute(dask.base.collections_to_expr([out._data], True)).optimize()
        dsk = dict(expr.__dask_graph__())
    per_task = [w for w in (_block_writes(node) for node in dsk.values()) if w]
    assert len(per_task) == len(out._data.chunks[0])
    for writes in per_task:
        assert sorted(w.in_place for w in writes) == [False] + [True] * 6
    np.testing.assert_array_equal(to_numpy(out), want)


def test_a_write_copies_a_block_that_another_step_uses_or_the_scheduler_holds():
    """The rule of :func:`written_in_place` on tasks made by hand: a write takes its
    input in place only where that input is a write's copy inside the same fused
    task and no other step uses it. A step that reads the block after (``seen``), a
    write whose value is the block itself, and writes that are tasks of their own
    (keys the scheduler holds, which another computation may share) keep their
    copies, and every step sees the values it would have seen."""
    from dask._task_spec import DataNode, Task, TaskRef

    from strict_array._backends.dask._graph.fusion import BlockWrite, tuple_of, written_in_place

    def write(key: str, into: str, column: int, value: Any) -> Any:
        return Task(key, BlockWrite((slice(None), slice(column, column + 1))), TaskRef(into), value)

    base = DataNode("base", np.zeros((3, 4)))
    chain = Task.fuse(write("w1", "base", 0, 1.0), write("w2", "w1", 1, 2.0), key="chain")
    shared = Task.fuse(
        write("s1", "base", 0, 1.0),
        write("s2", "s1", 1, 2.0),
        Task("seen", np.copy, TaskRef("s1")),
        Task("both", tuple_of, TaskRef("s2"), TaskRef("seen")),
        key="shared",
    )
    itself = Task.fuse(
        write("i1", "base", 0, 1.0),
        Task("i2", BlockWrite((slice(None), slice(0, 4))), TaskRef("i1"), TaskRef("i1")),
        key="itself",
    )
    apart = {"a1": write("a1", "base", 0, 1.0), "a2": write("a2", "a1", 1, 2.0)}
    dsk = {"base": base, "chain": chain, "shared": shared, "itself": itself, **apart}
    out = written_in_place(dsk)
    in_place = {k: [w.in_place for w in _block_writes(out[k])] for k in out}
    assert in_place == {
        "base": [], "chain": [False, True], "shared": [False, False], "itself": [False, False],
        "a1": [False], "a2": [False],
    }  # fmt: skip
    got = dask.get(out, ["chain", "shared", "a1", "a2", "base"])
    one, two = np.zeros((3, 4)), np.zeros((3, 4))
    one[:, 0] = 1.0
    two[:, :2] = [1.0, 2.0]
    np.testing.assert_array_equal(got[0], two)
    np.testing.assert_array_equal(got[1][0], two)
    np.testing.assert_array_equal(got[1][1], one)  # (read before the write after it)
    np.testing.assert_array_equal(got[2], one)
    np.testing.assert_array_equal(got[3], two)
    np.testing.assert_array_equal(got[4], np.zeros((3, 4)))
