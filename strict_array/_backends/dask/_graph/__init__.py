"""The graph adapter: the one package of the ``DASK`` device that touches Dask's graph.

Everything the device knows of how Dask represents a computation lives here: the
:class:`~dask.highlevelgraph.HighLevelGraph` and its layers, layer annotations,
``dask._task_spec``'s tasks, the ``array_optimize`` hook (:mod:`.fusion`, run by
:func:`optimising`) and the ``dask.array.Array(graph, name, chunks)`` constructor.
The planner (``_plan``), the kept values (``_keep``), indexing and the namespace speak
only this package's vocabulary:

graph
    The layers a set of arrays is computed from, with their dependencies
    (:func:`merged_graph`, :func:`graph_of`, :func:`layers_of`,
    :func:`dependencies_of`, :func:`own_graph`).
layer
    One node of a graph, named as the array it makes (:func:`root_layer`); what is
    known of it is a :class:`LayerInfo` (:func:`layer_info`), vouched for by
    :func:`declare` and kept in its record of facts (``_facts.LayerFacts``), never on
    the layer.
block
    One task's output of a layer, keyed ``(name, i, j, ...)`` (:func:`block_keys`,
    :func:`block_keys_of`).
task
    What computes a block (``Task``, ``TaskRef``: Dask's); an array of tasks is made by
    :func:`array_of_tasks`.
substitute
    Put computed blocks in place of a layer's tasks (:func:`substitute`); a layer is
    *substitutable* when its tasks are exactly its blocks (:func:`substitutable`).
rename
    The same layers under new keys (:func:`clone`, :func:`rename_graph`,
    :func:`renamed_arrays`), so that a cluster never sees one key with two tasks.

Every function here makes a new graph or array; none rewrites one it is given (an
array the program holds keeps its graph: :func:`with_graph` makes another). Dask's
expression arrays (dask/dask#11941) have no such graph: :func:`require_graph_arrays`.
"""

from __future__ import annotations

import contextlib
import functools
import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any

import dask
import dask.array as da
import dask.local
import numpy as np

# tasks are objects, a value is a DataNode (tasks and references to blocks, for
# array_of_tasks: Dask's own, re-exported)
from dask._task_spec import Alias, Task, TaskRef  # noqa: F401
from dask._task_spec import DataNode as _DataNode
from dask._task_spec import GraphNode as _GraphNode
from dask._task_spec import convert_legacy_graph as _convert_legacy_graph
from dask.base import clone_key
from dask.blockwise import Blockwise
from dask.core import flatten
from dask.highlevelgraph import HighLevelGraph, MaterializedLayer
from dask.layers import ArrayChunkShapeDep

from .. import _facts

#: the values a graph may hold in this process: NumPy arrays and numbers
VALUE_TYPES = (np.ndarray, np.generic, int, float, complex, bool)

#: the ``dask.config`` key of Dask's expression arrays, and its environment variable
QUERY_PLANNING_KEY = "array.query-planning"
QUERY_PLANNING_ENV = "DASK_ARRAY__QUERY_PLANNING"


class ExpressionArraysError(ImportError):
    """The ``DASK`` device cannot run here (Dask's expression arrays are on): an
    :class:`ImportError`, as for a missing Dask (``strict_array.CPU`` still runs)."""


def require_graph_arrays() -> None:
    """Refuse to load the ``DASK`` device where ``dask.array`` makes expression arrays.

    With ``array.query-planning`` on, Dask builds expressions and optimises them itself:
    the device's planner (dask/dask#874 is solved on the graph of layers), kept values
    and fusion would be silently off. Dask reads the setting once, when ``dask.array``
    is first imported; :class:`ExpressionArraysError` names it and how to turn it off.
    """
    if da.array_expr_enabled():
        raise ExpressionArraysError(
            "strict_array.DASK runs on Dask's graph arrays, and Dask's expression arrays "
            f"are on here (the dask.config setting {QUERY_PLANNING_KEY!r}, or the environment "
            f"variable {QUERY_PLANNING_ENV}=True): the device's plan of passes, kept values "
            "and fusion would be silently off. Turn it off before dask.array is first "
            f"imported: unset {QUERY_PLANNING_ENV} (or set it to False), or call "
            f"dask.config.set({{{QUERY_PLANNING_KEY!r}: False}}); or use strict_array.CPU.",
            name="dask.array",
        )


# --- layer metadata --------------------------------------------------------------------
@dataclass(frozen=True)
class LayerInfo:
    """What is known of one layer (:func:`layer_info`); nothing where ``shape`` is None."""

    name: str
    shape: tuple[float, ...] | None = None
    dtype: np.dtype | None = None
    chunks: tuple[tuple[float, ...], ...] | None = None

    @functools.cached_property
    def nbytes(self) -> int | None:
        """None where the size is unknown (nothing known, unknown sizes, object dtype)."""
        if self.shape is None or self.dtype is None or self.dtype.kind in "OV":
            return None
        if any(s != s for s in self.shape):
            return None
        return math.prod(map(int, self.shape)) * self.dtype.itemsize

    @property
    def numblocks(self) -> tuple[int, ...] | None:
        return None if self.chunks is None else tuple(len(c) for c in self.chunks)

    @property
    def nblocks(self) -> int | None:
        nb = self.numblocks
        return None if nb is None else math.prod(nb)

    @property
    def label(self) -> str:
        """The layer's name with its token shortened (``mean_agg-aggregate-2c5b1d1``)."""
        return _short(self.name)

    def describe(self) -> str:
        if self.shape is None:
            return f"{self.label}  (no array metadata)"
        shape = "(" + ", ".join("?" if s != s else str(int(s)) for s in self.shape)
        shape += ",)" if len(self.shape) == 1 else ")"
        size = "? B" if self.nbytes is None else fmt_bytes(self.nbytes)
        n = self.nblocks
        return f"{self.label}  {shape} {self.dtype}  {size}  {n} chunk{'s' * (n != 1)}"


def _short(name: str) -> str:
    m = re.fullmatch(r"(.*-)([0-9a-f]{32})", name)
    return m.group(1) + m.group(2)[:7] if m else name


def fmt_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024:
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"


def declare(*arrays: da.Array) -> None:
    """Vouch for the shape, chunks and dtype of ``arrays``: the planner may cut their layers.

    Dask's ``collection_annotations`` describe the last array built on a layer, which
    Dask does not promise to match its blocks (indexing by a Dask array, the per-loop
    results of ``apply_gufunc``); :func:`plan` reads only what is declared here unless
    asked to trust Dask's (strict_array declares each array it returns).
    """
    for a in arrays:
        graph = a.__dask_graph__()
        layer = graph.layers.get(a.name) if isinstance(graph, HighLevelGraph) else None
        if layer is None:  # a graph without layers, or an array not named after its layer
            continue
        _facts.note_layer(layer, declared=(a.shape, a.chunks, a.dtype))


def layer_info(name: str, layer: Any, trust_dask: bool) -> LayerInfo:
    """What is known of layer ``name``: what :func:`declare` vouched for, else (with
    ``trust_dask``) what Dask records."""
    declared = _facts.of_layer(layer).declared
    if declared is None and trust_dask:
        ann = getattr(layer, "collection_annotations", None) or {}
        declared = (ann.get("shape"), ann.get("chunks"), ann.get("dtype"))
    if declared is None or any(v is None for v in declared):
        return LayerInfo(name)
    try:
        dtype = np.dtype(declared[2])
        return LayerInfo(name, tuple(declared[0]), dtype, tuple(tuple(c) for c in declared[1]))
    except TypeError:
        return LayerInfo(name)


def array_info(a: da.Array) -> LayerInfo:
    """What ``a`` says of its own layer."""
    return LayerInfo(a.name, tuple(a.shape), a.dtype, tuple(a.chunks))


def block_keys(info: LayerInfo) -> list[tuple]:
    assert info.numblocks is not None
    return [(info.name, *idx) for idx in np.ndindex(*info.numblocks)]


def substitutable(info: LayerInfo, layer: Any) -> bool:
    """Whether the layer's tasks are exactly one per block of its annotated chunks
    (so that its computed blocks can replace it)."""
    if info.nbytes is None or info.chunks is None:  # (a known size: every chunk known)
        return False
    return set(layer.get_output_keys()) == set(block_keys(info))  # (every Layer has them)


# --- the plan --------------------------------------------------------------------------
def merged_graph(arrays: Sequence[da.Array]) -> HighLevelGraph | None:
    graphs = [a.__dask_graph__() for a in arrays]
    hlgs = [g for g in graphs if isinstance(g, HighLevelGraph)]
    if len(hlgs) != len(graphs):
        return None
    return hlgs[0] if len(hlgs) == 1 else HighLevelGraph.merge(*hlgs)


def reachable(roots: Iterable[str], deps: Mapping[str, AbstractSet[str]]) -> set[str]:
    """``roots`` and every layer they depend on, directly or not."""
    seen: set[str] = set()
    stack = [r for r in roots if r in deps]
    while stack:
        n = stack.pop()
        if n not in seen:
            seen.add(n)
            stack.extend(deps[n] - seen)
    return seen


def _by_name(node: Any) -> str:
    """A layer's name to sort by: a delayed value's layer may be named by a tuple."""
    return node if type(node) is str else repr(node)


def users_of(
    nodes: Sequence[Any] | set[Any], deps: Mapping[Any, AbstractSet[Any]]
) -> dict[Any, list[Any]]:
    """Each of ``nodes`` (layer names, or a graph's keys) with the ones among them that
    depend on it (in ``nodes``' order)."""
    within = set(nodes)
    users: dict[str, list[str]] = {n: [] for n in nodes}
    for n in nodes:
        for d in deps[n] & within:
            users[d].append(n)
    return users


def toposort(nodes: set[str], deps: dict[str, set[str]]) -> list[str]:
    """Dependencies before dependents (deterministic: ties by name)."""
    indegree = {n: len(deps[n] & nodes) for n in nodes}
    dependents = users_of(nodes, deps)
    ready = sorted((n for n, k in indegree.items() if k == 0), key=_by_name, reverse=True)
    order = []
    while ready:
        n = ready.pop()
        order.append(n)
        for m in sorted(dependents[n], key=_by_name, reverse=True):
            indegree[m] -= 1
            if indegree[m] == 0:
                ready.append(m)
    if len(order) != len(nodes):  # pragma: no cover - a HighLevelGraph is acyclic
        raise ValueError("the layer graph has a cycle")
    return order


def resident_bytes(layer: Any, *, from_shapes: bool = True) -> int | None:
    """The bytes of the values resident in ``layer``, a layer with no dependencies, when
    they are values in this process (NumPy arrays and numbers in a materialised layer); 0 for a
    layer made from its blocks' shapes alone (``ones(n)``), unless ``from_shapes`` is
    false; None for any other (a read from a file or store, an unusual layer)."""
    if _facts.of_layer(layer).from_nothing:
        return 0 if from_shapes else None
    if isinstance(layer, Blockwise):  # made from its blocks' shapes alone: no input but those
        shapes = all(isinstance(d, ArrayChunkShapeDep) for d in layer.io_deps.values())
        alone = all(n in layer.io_deps for n, ind in layer.indices if ind is not None)
        return 0 if from_shapes and shapes and alone else None
    if not isinstance(layer, MaterializedLayer):
        return None
    values = [getattr(v, "value", v) for v in layer.values()]  # (a DataNode holds it)
    if not all(isinstance(v, VALUE_TYPES) for v in values):
        return None
    return sum(getattr(v, "nbytes", 8) for v in values)


def note_made_from_nothing(a: da.Array) -> None:
    """Vouch that ``a``'s layer, if it depends on no other, computes its blocks from their
    shapes and places alone (no read): :func:`resident_bytes` counts no bytes for it."""
    graph = a.__dask_graph__()
    if not isinstance(graph, HighLevelGraph) or graph.dependencies.get(a.name):
        return
    layer = graph.layers.get(a.name)
    if layer is not None:
        _facts.note_layer(layer, from_nothing=True)


# --- running a plan --------------------------------------------------------------------
class Blocks:
    """The blocks of one layer as a Dask collection: computed as they are (no
    concatenation), optimised together with Dask arrays (same optimiser)."""

    def __init__(self, graph: HighLevelGraph, name: str, info: LayerInfo) -> None:
        self.graph = graph
        self.name = name
        self.info = info
        self.keys = [(name, *k[1:]) for k in block_keys(info)]

    @property
    def __dask_optimize__(self) -> Callable:
        return da.Array.__dask_optimize__  # the optimiser in force when it is computed

    def __dask_graph__(self) -> HighLevelGraph:
        return self.graph

    def __dask_keys__(self) -> list:
        return list(self.keys)

    def __dask_layers__(self) -> tuple[str, ...]:
        return (self.name,)

    def __dask_tokenize__(self) -> Any:
        return ("strict_array-plan-blocks", self.name)

    __dask_scheduler__ = staticmethod(da.Array.__dask_scheduler__)

    def __dask_postcompute__(self) -> tuple[Callable, tuple]:
        return tuple, ()

    def __repr__(self) -> str:
        return f"<blocks of {self.info.describe()}>"


def rename_graph(graph: HighLevelGraph, seed: Any) -> tuple[HighLevelGraph, dict[str, str]]:
    """``graph`` with every layer under a new name (a function of ``seed``); returns the
    graph and the new names.

    Every graph the planner submits runs under keys of its own: a cluster may still know
    a key (from the previous pass, or the user's own computation) as another task (a cut
    point's keys become values; Dask's fusion gives a key another task), and would keep
    the old one (dask/dask#9888). Blockwise layers stay Blockwise (and fusable);
    materialised layers get their tasks renamed; with a layer of another kind the graph
    is left as it is.
    """
    deps = dependencies_of(graph)
    keys = set().union(*(layer.get_output_keys() for layer in graph.layers.values()))
    subs = {k: clone_key(k, seed) for k in keys}
    new_name = {n: clone_key(n, seed) for n in graph.layers}
    layers: dict[str, Any] = {}
    new_deps: dict[str, set[str]] = {}
    for n, layer in graph.layers.items():
        new: Any
        if isinstance(layer, Blockwise):
            new = layer.clone(keys, seed)[0]
        elif isinstance(layer, MaterializedLayer):
            tasks = dict(layer)
            if not all(isinstance(t, _GraphNode) for t in tasks.values()):
                tasks = _convert_legacy_graph(tasks, keys)  # (tasks of the older, tuple, form)
                if tasks.keys() != layer.keys():
                    return graph, {}
            mapping = {subs[k]: t.substitute(subs, key=subs[k]) for k, t in tasks.items()}
            new = MaterializedLayer(mapping, annotations=layer.annotations)
        else:
            return graph, {}
        if layer.collection_annotations:  # (Dask's own: fusion reads its chunks)
            new.collection_annotations = dict(layer.collection_annotations)
        _facts.carry(new, layer)
        layers[new_name[n]] = new
        new_deps[new_name[n]] = {new_name[d] for d in deps[n]}
    return HighLevelGraph(layers, new_deps), new_name


def clone(arrays: Sequence[da.Array], seed: Any) -> tuple[da.Array, ...]:
    """The arrays computed anew: every layer they depend on under new keys (a function of
    ``seed``). Dask's ``graph_manipulation.clone`` keeps old keys inside tasks of the newer
    form (dask/dask#12455); with a layer :func:`rename_graph` cannot rename, the arrays
    are returned as they are (the same values, computed once)."""
    graph = merged_graph(arrays)
    return tuple(arrays) if graph is None else renamed_arrays(graph, arrays, seed)


def renamed_arrays(
    graph: HighLevelGraph, arrays: Sequence[da.Array], seed: Any
) -> tuple[da.Array, ...]:
    """The arrays, whose layers are in ``graph``, with every layer of it under new keys
    (:func:`rename_graph`): each array gets only its own layers."""
    renamed, new_name = rename_graph(graph, seed)
    names = [new_name.get(root_layer(a), root_layer(a)) for a in arrays]
    return tuple(
        array_on(own_graph(renamed, n), n, a.chunks, meta=a._meta) for a, n in zip(arrays, names)
    )


def own_graph(graph: HighLevelGraph, *name: str) -> HighLevelGraph:
    """The layers ``name`` depends on, and it. (Each collection gets only its own
    layers: this Dask's single-collection compute makes the finalize task depend on
    the graph's leaf layers, and could fuse away a requested layer that is not one.)"""
    layers, dependencies = graph.layers, graph.dependencies
    keep: set[str] = set()
    todo = list(name)
    while todo:  # (only the ancestors are visited: this runs once per layer kept)
        k = todo.pop()
        if k not in keep and k in layers:
            keep.add(k)
            todo.extend(dependencies.get(k, ()))
    return HighLevelGraph(
        {k: layers[k] for k in keep}, {k: set(dependencies.get(k, ())) & keep for k in keep}
    )


def substitute(
    graph: HighLevelGraph, values: dict[str, tuple[list, Sequence]], roots: Sequence[str]
) -> HighLevelGraph:
    """``graph`` with each layer in ``values`` replaced by its computed blocks (no
    dependencies), and the layers that only fed them dropped."""
    layers, deps = dict(graph.layers), dependencies_of(graph)
    for name, (keys, blocks) in values.items():
        old = layers[name]
        mapping = {k: _DataNode(k, v) for k, v in zip(keys, blocks)}
        ann = dict(old.collection_annotations) if old.collection_annotations else None
        layers[name] = _facts.carry(MaterializedLayer(mapping, collection_annotations=ann), old)
        deps[name] = set()
    keep = reachable(roots, deps)
    return HighLevelGraph({k: layers[k] for k in keep}, {k: deps[k] & keep for k in keep})


# --- the vocabulary's own words: graphs, arrays, tasks ---------------------------------
def graph_of(a: Any) -> HighLevelGraph | None:
    """``a``'s graph of layers, or None (a collection whose graph is a plain mapping)."""
    graph = a.__dask_graph__()
    return graph if isinstance(graph, HighLevelGraph) else None


def layers_of(graph: HighLevelGraph) -> Mapping[str, Any]:
    """The layers of ``graph``, by name."""
    return graph.layers


def dependencies_of(graph: HighLevelGraph) -> dict[str, set[str]]:
    """Each layer of ``graph`` with the layers of ``graph`` it depends on."""
    layers = graph.layers
    return {k: set(graph.dependencies.get(k, ())) & layers.keys() for k in layers}


def root_layer(a: Any) -> str:
    """The name of the layer that makes ``a`` (its blocks' keys start with it)."""
    return a.__dask_layers__()[0]  # type: ignore[no-any-return]


def array_on(
    graph: HighLevelGraph, name: str, chunks: Any, *, meta: Any = None, dtype: Any = None
) -> da.Array:
    """The Dask array of layer ``name`` of ``graph``, in ``chunks`` (Dask's constructor)."""
    return da.Array(graph, name, chunks, meta=meta, dtype=dtype)


def with_graph(a: da.Array, graph: HighLevelGraph) -> da.Array:
    """``a`` on another graph of the same values (its layers cut to kept blocks): a new
    array with ``a``'s record of facts. ``a`` itself is never rewritten."""
    return _facts.carry(array_on(graph, a.name, a.chunks, meta=a._meta), a)


def with_chunks(a: da.Array, chunks: Any) -> da.Array:
    """``a``'s graph and name under other declared chunks (where Dask's are wrong, and
    the blocks are right)."""
    return array_on(a.dask, a.name, tuple(chunks), meta=a._meta)


def array_of_tasks(
    name: str,
    tasks: dict[Any, Any],
    inputs: Sequence[da.Array],
    chunks: Any,
    *,
    meta: Any,
    reads: AbstractSet[str] = frozenset(),
) -> da.Array:
    """The array of layer ``name``, whose ``tasks`` (one per block) use the blocks of
    ``inputs``, and the layers ``reads`` of their graphs (tasks fused into these)."""
    graph = HighLevelGraph.from_collections(name, tasks, dependencies=list(inputs))  # type: ignore[arg-type]
    if reads:
        deps = {k: set(v) for k, v in graph.dependencies.items()}
        deps[name] |= reads & graph.layers.keys()
        graph = HighLevelGraph(dict(graph.layers), deps)
    return array_on(graph, name, tuple(chunks), meta=meta)


def computed_here(
    graph: HighLevelGraph, names: Sequence[str]
) -> dict[str, tuple[list, Sequence[Any]]]:
    """The blocks of layers ``names`` of ``graph``, computed in this thread, by name:
    ``(keys, blocks)`` (for :func:`substitute`). Only the planner's fold calls it, while
    a computation runs (never while a graph is built)."""
    part = own_graph(graph, *names)
    keys = {n: list(graph.layers[n].get_output_keys()) for n in names}
    wanted: Any = [keys[n] for n in names]  # (nested lists of keys: Dask's form)
    values = dask.local.get_sync(dict(part), wanted)
    return {n: (keys[n], list(v)) for n, v in zip(names, values)}


@contextlib.contextmanager
def optimising(hook: Callable[..., Any]) -> Iterator[None]:
    """Dask's ``array_optimize`` hook set to ``hook`` while computing (fusion's)."""
    with dask.config.set({"array_optimize": hook}):
        yield


def block_keys_of(a: da.Array) -> list[Any]:
    """The keys of ``a``'s blocks, in order (C order of the block grid)."""
    return list(flatten(a.__dask_keys__()))


def tasks_of(a: da.Array) -> tuple[dict[Any, Any], dict[Any, Any]]:
    """``a``'s graph of tasks as Dask holds it, and as ``dask._task_spec`` tasks (a
    key of the first missing from the second is data that lives elsewhere: a future)."""
    raw = dict(a.__dask_graph__())
    return raw, _convert_legacy_graph(raw)


def is_value(node: Any) -> bool:
    """Whether a task of :func:`tasks_of` is a value (no computation)."""
    return isinstance(node, _DataNode)


def aliased(value: da.Array) -> da.Array:
    """``value`` as one alias task per block, in a layer ``alias-<name>`` that holds none of
    its graph: what Dask's setitem may copy without ``value``'s history (:func:`joined`)."""
    alias = "alias-" + value.name
    tasks = {(alias, *k[1:]): Alias((alias, *k[1:]), k) for k in block_keys_of(value)}
    graph = HighLevelGraph({alias: MaterializedLayer(tasks)}, {alias: set()})
    return array_on(graph, alias, value.chunks, meta=value._meta)


def joined(out: da.Array, value: da.Array) -> da.Array:
    """``out``, whose layer refers to the blocks of ``value`` (through :func:`aliased`),
    with ``value``'s layers in its graph and its layer depending on ``value``'s."""
    g, vg = out.__dask_graph__(), value.__dask_graph__()
    assert isinstance(g, HighLevelGraph) and isinstance(vg, HighLevelGraph)
    layers = {**vg.layers, **g.layers}
    deps = {k: set(v) for k, v in {**vg.dependencies, **g.dependencies}.items()}
    deps[out.name] = deps.get(out.name, set()) | {value.name}
    return array_on(HighLevelGraph(layers, deps), out.name, out.chunks, meta=out._meta)
