"""Element-wise layers made once for each user, so that Dask fuses them into every user.

Dask's ``optimize_blockwise`` fuses a Blockwise layer into its user only when it has
one (``dask/blockwise.py``, ``_optimize_blockwise``: ``len(dependents[d]) <= 1``): an
element-wise array used twice (``diff = X - m`` in ``diff.T`` and in ``(w * diff.T) @
diff``) is a task of its own, whose blocks wait in memory until both users have run
(a cluster's workers spill them; measured in docs/dev/scikit-learn-log.md). Before
Dask optimises a graph the ``DASK`` device computes, each element-wise Blockwise layer
whose users can all take it in is made once for each user (:func:`made_per_user`):
its work is done once per user, and no block waits between its users. It is not
copied when it reads data (a copy would read it again), when its keys are asked for,
when it contracts or concatenates blocks, or when a user could not fuse it.

After Dask's optimisation, three rewrites of the graph of tasks:
:func:`written_in_place`, :func:`small_values_inlined` and :func:`reduced_together`."""

from __future__ import annotations

import math
import operator
from collections import defaultdict
from typing import Any, TypeGuard

import numpy as np

# tasks are objects; a value is a DataNode; _execute_subgraph is the function of a task
# made by fusing others, whose steps it holds
from dask._task_spec import DataNode, Task, TaskRef, _execute_subgraph
from dask.array.optimization import optimize as dask_optimize
from dask.blockwise import Blockwise
from dask.core import flatten
from dask.highlevelgraph import HighLevelGraph

from . import VALUE_TYPES, toposort, users_of

#: a layer with more users than this is left shared (each copy repeats its work)
MOST_USERS = 8

#: a value in the graph (a NumPy array or number) of at most this many bytes is put
#: in each task that uses it, where all its copies together are at most ``INLINE_TOTAL``
INLINE_BYTES, INLINE_TOTAL = 64 * 2**10, 8 * 2**20


def optimize(dsk: Any, keys: Any, **kwargs: Any) -> Any:
    """Dask's array optimisation, after :func:`made_per_user`, then
    :func:`small_values_inlined` (the ``array_optimize`` hook)."""
    sizes: dict[Any, int] = {}
    if isinstance(dsk, HighLevelGraph):
        dsk = made_per_user(dsk, keys)
        sizes = block_bytes(dsk)
    out = dask_optimize(dsk, keys, **kwargs)
    if not isinstance(out, dict):
        return out
    return reduced_together(small_values_inlined(written_in_place(out), keys), keys, sizes)


class BlockWrite:
    """The task function of ``block[key] = value`` on one block: a copy of the block
    with the value put in (the block may be another task's too), or, made ``in_place``
    by :func:`written_in_place`, the block itself written into."""

    __slots__ = ("in_place", "key")

    def __init__(self, key: tuple[slice, ...], in_place: bool = False) -> None:
        self.key, self.in_place = key, in_place

    def __call__(self, block: np.ndarray, value: Any) -> np.ndarray:
        out = block if self.in_place else np.array(block, copy=True)
        out[self.key] = value
        return out

    def __repr__(self) -> str:
        return f"BlockWrite({self.key!r}{', in_place=True' if self.in_place else ''})"


def written_in_place(dsk: dict) -> dict:
    """``dsk``, a graph of tasks, with each write that Dask fused after another write
    made to write into that write's copy of the block rather than copy it again.

    An array filled by many assignments (``out[:, i:j] = ...`` for each range of
    columns) is fused by Dask into one task per block, in which each :class:`BlockWrite`
    copied the block the one before had just made, where NumPy writes in place. A write
    takes its input in place only where it is a step of the same fused task (not a key
    the scheduler holds, which another computation may share), made by a write (a copy
    nothing else has) and used by no other step. The values computed are the same."""
    out = dict(dsk)
    for k, node in dsk.items():
        steps = _steps_written_in_place(node)
        if steps is not None:
            out[k] = steps
    return out


def _steps_written_in_place(node: Any) -> Any:
    """A fused task (``_execute_subgraph``) with its chains of writes made in place,
    also in the fused tasks among its steps; None where nothing changes."""
    if not (isinstance(node, Task) and node.func is _execute_subgraph):
        return None
    steps: dict = node.args[0]
    users = users_of(list(steps), _dependencies(steps))
    new = {}
    for k, step in steps.items():
        inner = _steps_written_in_place(step)
        if inner is not None:
            new[k] = step = inner
        if not (isinstance(step, Task) and isinstance(step.func, BlockWrite)):
            continue
        first, *rest = step.args
        if step.func.in_place or not isinstance(first, TaskRef):
            continue
        before = steps.get(first.key)
        if (
            isinstance(before, Task)
            and isinstance(before.func, BlockWrite)
            and len(users[first.key]) == 1
            and not any(_refers_to(a, first.key) for a in (*rest, *step.kwargs.values()))
        ):
            new[k] = Task(k, BlockWrite(step.func.key, in_place=True), *step.args, **step.kwargs)
    if not new:
        return None
    return Task(
        node.key, _execute_subgraph, {**steps, **new}, *node.args[1:],
        _data_producer=node.data_producer, **node.kwargs,
    )  # fmt: skip


def block_bytes(graph: HighLevelGraph) -> dict[Any, int]:
    """The bytes of the largest block of each array layer of ``graph``, by layer name,
    from the chunks Dask records on the layer; a layer whose users all combine its blocks
    into fewer counts as large as theirs (Dask records a reduction's first step with its
    input's chunks: ``tmp._chunks = ...`` in ``dask/array/reductions.py``)."""
    recorded: dict[Any, tuple[int, int]] = {}  # name: (bytes of a block, number of blocks)
    for name, layer in graph.layers.items():
        info = layer.collection_annotations or {}
        chunks, dtype = info.get("chunks"), info.get("dtype")
        if chunks is None or dtype is None or any(n != n for c in chunks for n in c):
            continue
        block = math.prod(max(c, default=0) for c in chunks) * np.dtype(dtype).itemsize
        recorded[name] = (block, math.prod(len(c) for c in chunks))
    users = users_of(list(graph.dependencies), graph.dependencies)
    out = {}
    for name, (block, blocks) in recorded.items():
        theirs = [recorded.get(u) for u in users.get(name, ())]
        if theirs and all(t is not None and t[1] < blocks for t in theirs):
            block = min(block, max(t[0] for t in theirs if t is not None))
        out[name] = block
    return out


def reduced_together(dsk: dict, keys: Any, sizes: dict[Any, int]) -> dict:
    """``dsk``, a graph of tasks, with each block that several users reduce and that
    nothing else uses made and reduced by all of them in one task.

    The users take the block alone, and their results (by ``sizes``) are together at
    most half of it: the first steps of reductions. Dask's order runs the users of a
    block apart when they belong to different reductions, and the block waits in memory
    for them (an array summed twice: a cluster's workers hold its blocks until they
    spill). One task makes the block and all their first steps, each result under its
    own key (XLA's sibling multi-output fusion). The values computed are the same."""
    wanted = set(flatten(keys))
    users = users_of(list(dsk), _dependencies(dsk))

    def size(key: Any) -> int | None:
        return sizes.get(key[0] if isinstance(key, tuple) else key)

    out = dict(dsk)
    for k, us in users.items():
        block = size(k)
        if not (1 < len(us) <= MOST_USERS) or k in wanted or k not in out or block is None:
            continue
        if any(u not in out or out[u].dependencies != {k} for u in us):
            continue
        results = [size(u) for u in us]
        if any(r is None for r in results) or 2 * sum(results) > block:  # type: ignore[arg-type]
            continue
        name = k[0] if isinstance(k, tuple) else k
        together = (f"{name}-reduced", *k[1:]) if isinstance(k, tuple) else f"{k}-reduced"
        gather = Task(together, tuple_of, *(TaskRef(u) for u in us))
        out[together] = Task.fuse(out.pop(k), *(out[u] for u in us), gather, key=together)
        for i, u in enumerate(us):
            out[u] = Task(u, operator.getitem, TaskRef(together), i)
    return out


def tuple_of(*values: Any) -> tuple[Any, ...]:
    """The users' results of one :func:`reduced_together` task."""
    return values


def small_values_inlined(dsk: dict, keys: Any) -> dict:
    """``dsk``, a graph of tasks, with each small value in it (the planner's, or one
    computed here: :func:`.._plan.fold`) put in the tasks that use it.

    A value is a task with no dependencies, which a ``dask.distributed`` scheduler
    queues with the reads of the data, perhaps after all of them (a mean put in the graph
    by the planner: each block of the data waits in memory for its turn). A value of one
    user moves into its task whatever its size (no byte is copied). The values computed
    are the same."""
    wanted = set(flatten(keys))
    values = {
        k: node for k, node in dsk.items()
        if isinstance(node, DataNode) and k not in wanted and isinstance(node.value, VALUE_TYPES)
    }  # fmt: skip
    if not values:
        return dsk
    users = {
        d: us for d, us in users_of(list(dsk), _dependencies(dsk)).items()
        if d in values and us
    }  # fmt: skip
    inline = {
        d for d, us in users.items()
        if len(us) == 1 or (
            _nbytes(values[d].value) <= INLINE_BYTES
            and _nbytes(values[d].value) * len(us) <= INLINE_TOTAL
        )
    }  # fmt: skip
    if not inline:
        return dsk
    out = {}
    for k, node in dsk.items():
        if k in inline:
            continue
        subs = {d: values[d] for d in getattr(node, "dependencies", ()) if d in inline}
        out[k] = node.substitute(subs, key=k) if subs else node
    return out


def _dependencies(dsk: dict) -> dict[Any, frozenset]:
    """Each task's dependencies (none for a value)."""
    return {k: frozenset(getattr(node, "dependencies", ())) for k, node in dsk.items()}


def _refers_to(arg: Any, key: Any) -> bool:
    """Whether a task's argument is, or uses, the step ``key``."""
    if isinstance(arg, TaskRef):
        return bool(arg.key == key)
    return key in getattr(arg, "dependencies", ())


def _nbytes(value: Any) -> int:
    return int(getattr(value, "nbytes", 8))


def made_per_user(graph: HighLevelGraph, keys: Any) -> HighLevelGraph:
    """``graph`` with every element-wise layer used by several Blockwise layers that
    could all fuse it made once for each of them (see the module's docstring), visited
    from the outputs back: the chain from the data to each user becomes that user's alone."""
    wanted = {k[0] if isinstance(k, tuple) else k for k in flatten(keys)}
    # (a layer's name may be a key, a tuple: a graph made from a delayed value's keys)
    layers: dict[Any, Any] = dict(graph.layers)
    deps: dict[Any, set[Any]] = {name: set(d) for name, d in graph.dependencies.items()}
    users: defaultdict[Any, set[Any]] = defaultdict(set)
    for name, ds in deps.items():
        for d in ds:
            users[d].add(name)
    changed = False
    for name in reversed(toposort(set(deps), deps)):  # the users first
        layer = layers.get(name)
        mine = users[name]
        if not (1 < len(mine) <= MOST_USERS and name not in wanted and _copyable(layer)):
            continue
        if not all(_fuses(layers.get(u), name, layer) for u in mine):
            continue
        for user in sorted(mine, key=str):
            copy = f"{name}-for-{user}"
            layers[copy] = _rebuilt(layer, output=copy)
            layers[user] = _rebuilt(layers[user], inputs={name: copy})
            deps[copy] = set(deps[name])
            users[copy] = {user}
            deps[user] = (deps[user] - {name}) | {copy}
            for d in deps[name]:
                users[d].add(copy)
        for d in deps.pop(name):
            users[d].discard(name)
        del layers[name], users[name]
        changed = True
    return HighLevelGraph(layers, deps) if changed else graph


def _elementwise(layer: Blockwise) -> bool:
    """Each output block made from the blocks of its own index (no contraction)."""
    out = set(layer.output_indices)
    return all(i in out for _, ind in layer.indices if ind is not None for i in ind)


def _copyable(layer: Any) -> TypeGuard[Blockwise]:
    return (
        isinstance(layer, Blockwise)
        and not layer.io_deps
        and not layer.new_axes
        and layer.concatenate is None
        and _elementwise(layer)
    )


def _fuses(user: Any, name: str, layer: Blockwise) -> bool:
    """Dask's conditions for fusing ``layer`` into ``user`` (``_optimize_blockwise``) but
    the number of users: Blockwise, the same ``concatenate``, ``name`` used once and by
    its blocks, element-wise (Dask does not fuse into a contraction), same annotations."""
    if not isinstance(user, Blockwise) or user.concatenate != layer.concatenate:
        return False
    uses = [ind for dep, ind in user.indices if dep == name]
    return (
        len(uses) == 1
        and uses[0] is not None
        and _elementwise(user)
        and (user.annotations or None) == (layer.annotations or None)
    )


def _rebuilt(
    layer: Blockwise, *, output: str | None = None, inputs: dict[str, str] | None = None
) -> Blockwise:
    """``layer`` under another output name, or with inputs renamed."""
    name = layer.output if output is None else output
    task = layer.task if output is None else layer.task.substitute({}, key=output)
    rename: dict[Any, str] = inputs or {}
    return Blockwise(
        name,
        layer.output_indices,
        task,
        # (an input taken whole, ``ind`` None, may be a literal: a slice, unhashable)
        [(dep if ind is None else rename.get(dep, dep), ind) for dep, ind in layer.indices],
        {rename.get(k, k): v for k, v in layer.numblocks.items()},
        concatenate=layer.concatenate,
        new_axes=layer.new_axes,
        output_blocks=layer.output_blocks,
        annotations=layer.annotations,
        io_deps=layer.io_deps,
    )
