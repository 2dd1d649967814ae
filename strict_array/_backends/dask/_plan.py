"""A compute planner for Dask arrays: reductions that a large input waits for run first.

The problem (dask/dask#874): in

.. code-block:: python

    x = da.from_zarr(path)        # larger than memory
    m = x.mean(axis=0)
    s = ((x - m) ** 2).sum(axis=0)
    s.compute()

every chunk of ``x`` feeds both ``m`` and ``x - m``, no chunk can be subtracted before
``m`` is complete, and Dask never recomputes a task: every chunk read for ``m`` is kept
for the subtraction, so the whole of ``x`` ends up in memory.

:func:`plan` looks at the :class:`~dask.highlevelgraph.HighLevelGraph` of the arrays to
compute (one node per layer, with the shape, chunks and dtype declared for it by
:func:`declare`, which strict_array calls on each array it returns: Dask's own
layer metadata is not promised to describe a layer's blocks) and finds *cut points*:
small layers (a reduction's result) that a large ancestor waits for through another
path of the graph. :func:`execute` computes the cut points first, in streaming passes (all the
cut points of one level in one ``dask.compute``, so the large input is read once per
pass), puts their values into the graph in place of their layers, and computes the
rest. The values are those of the one-graph computation, bit for bit: the same tasks
compute the reductions, only at another time. :func:`rewrite` stops before the last
pass and returns the rewritten lazy arrays (for ``persist``, ``da.store``, ``to_zarr``).

Each graph the planner submits (a pass, or the rewritten arrays) runs under keys of
its own, derived from the original keys and the values substituted so far, so that
a cluster that still knows the original keys never sees one key with two tasks.

Nothing is computed while planning: :func:`plan` reads layer metadata only (it does
not materialise the graph). This module depends on Dask and NumPy only.

Example (a 2-pass plan; sizes in bytes, thresholds tiny for the example)::

    >>> import dask.array as da
    >>> x = da.ones((1000, 4), chunks=(100, 4))
    >>> s = ((x - x.mean(axis=0)) ** 2).sum(axis=0)
    >>> p = plan([s], threshold_bytes=8000, trust_dask=True)  # a raw Dask graph
    >>> print(p)
    Plan: 2 passes (cut when >= 7.8 KiB of input waits for a result <= 500 B)
      pass 1/2: 1 reduction over ones_like-... (31.2 KiB)
        mean_agg-aggregate-...  (4,) float64  32 B  1 chunk
      pass 2/2: 1 output (rewritten graph)
        sum-aggregate-...  (4,) float64  32 B  1 chunk
    >>> execute(p)
    (array([0., 0., 0., 0.]),)
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any

import dask
import dask.array as da
import dask.local
import numpy as np
from dask.base import clone_key, tokenize
from dask.blockwise import Blockwise
from dask.highlevelgraph import HighLevelGraph, MaterializedLayer
from dask.layers import ArrayChunkShapeDep

_DataNode: Any
_GraphNode: Any
_convert_legacy_graph: Any
try:  # Dask >= 2024.12: tasks are objects; a value is a DataNode
    from dask._task_spec import DataNode as _DataNode
    from dask._task_spec import GraphNode as _GraphNode
    from dask._task_spec import convert_legacy_graph as _convert_legacy_graph
except ImportError:  # pragma: no cover - older Dask: a graph value is the value itself
    _DataNode = _GraphNode = _convert_legacy_graph = None

__all__ = [
    "CHECKS_KEY",
    "LayerInfo",
    "Pass",
    "Plan",
    "block_keys",
    "clone",
    "compute",
    "declare",
    "execute",
    "layer_info",
    "merged_graph",
    "own_graph",
    "plan",
    "rewrite",
    "substitutable",
    "substitute",
    "toposort",
]

#: the default for ``small_bytes`` is ``threshold_bytes // 16``, at most this: values
#: of cut points are embedded in the graph (and sent with it to a cluster)
SMALL_BYTES_CAP = 64 * 2**20


# --- layer metadata --------------------------------------------------------------------
@dataclass(frozen=True)
class LayerInfo:
    """What the graph says about one layer (from its ``collection_annotations``).

    ``nbytes`` is ``None`` when the size is unknown: a layer without annotations (not
    the layer of a Dask array), unknown (NaN) sizes, or an object dtype.
    """

    name: str
    shape: tuple[float, ...] | None
    dtype: np.dtype | None
    chunks: tuple[tuple[float, ...], ...] | None
    nbytes: int | None

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
        size = "? B" if self.nbytes is None else _fmt_bytes(self.nbytes)
        n = self.nblocks
        return f"{self.label}  {shape} {self.dtype}  {size}  {n} chunk{'s' * (n != 1)}"


def _short(name: str) -> str:
    m = re.fullmatch(r"(.*-)([0-9a-f]{32})", name)
    return m.group(1) + m.group(2)[:7] if m else name


def _fmt_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError  # pragma: no cover


#: the key, in a layer's ``collection_annotations``, of the metadata that :func:`declare`
#: wrote there (Dask's own keys there are not promised to describe the layer's blocks)
DECLARED = "strict_array"


def declare(*arrays: da.Array) -> None:
    """Vouch for the shape, chunks and dtype of ``arrays``: the planner may cut their layers.

    Dask records in each layer's ``collection_annotations`` the metadata of the
    last :class:`dask.array.Array` built on it, which Dask does not promise to
    describe the layer's blocks: its helpers build arrays whose declared chunks
    are not their blocks' (the offsets of indexing by a Dask array, the per-loop
    results of ``apply_gufunc``). The metadata declared here is that of arrays
    the caller holds and vouches for (strict_array declares each array it
    returns); :func:`plan` reads only this unless asked to trust Dask's.
    """
    for a in arrays:
        graph = a.__dask_graph__()
        layer = graph.layers.get(a.name) if isinstance(graph, HighLevelGraph) else None
        if layer is None:  # a graph without layers, or an array not named after its layer
            continue
        ann = dict(layer.collection_annotations or {})
        ann[DECLARED] = (a.shape, a.chunks, a.dtype)
        layer.collection_annotations = ann


def layer_info(name: str, layer: Any, trust_dask: bool) -> LayerInfo:
    ann = getattr(layer, "collection_annotations", None) or {}
    declared = ann.get(DECLARED)
    if declared is not None:
        shape, chunks, dtype = declared
    elif trust_dask:
        shape, chunks, dtype = ann.get("shape"), ann.get("chunks"), ann.get("dtype")
    else:
        return LayerInfo(name, None, None, None, None)
    if shape is None or chunks is None or dtype is None:
        return LayerInfo(name, None, None, None, None)
    try:
        dtype = np.dtype(dtype)
        shape = tuple(shape)
        chunks = tuple(tuple(c) for c in chunks)
    except TypeError:
        return LayerInfo(name, None, None, None, None)
    known = all(s == s for s in shape) and dtype.kind not in "OV"
    nbytes = int(math.prod(int(s) for s in shape)) * dtype.itemsize if known else None
    return LayerInfo(name, shape, dtype, chunks, nbytes)


def _array_info(a: da.Array) -> LayerInfo:
    known = all(s == s for s in a.shape) and a.dtype.kind not in "OV"
    nbytes = int(math.prod(int(s) for s in a.shape)) * a.dtype.itemsize if known else None
    return LayerInfo(a.name, tuple(a.shape), a.dtype, tuple(a.chunks), nbytes)


def block_keys(info: LayerInfo) -> list[tuple]:
    assert info.numblocks is not None
    return [(info.name, *idx) for idx in np.ndindex(*info.numblocks)]


def substitutable(info: LayerInfo, layer: Any) -> bool:
    """Whether the layer's tasks are exactly one per block of its annotated chunks
    (so that its computed blocks can replace it)."""
    if info.nbytes is None or info.chunks is None:
        return False
    if any(c != c for cs in info.chunks for c in cs):
        return False
    try:
        keys = set(layer.get_output_keys())
    except Exception:  # an unusual layer: do not touch it
        return False
    return keys == set(block_keys(info))


# --- the plan --------------------------------------------------------------------------
@dataclass(frozen=True)
class Pass:
    """One computation of a plan.

    A reduction pass (``final`` false) computes ``layers``, the cut points of one level,
    together; their values then replace them in the graph. ``shared`` are the large
    layers they were cut from: read in this pass and again in a later one. The last
    pass (``final``) computes the requested arrays (``layers``) from the rewritten
    graph.
    """

    index: int  # 1-based
    total: int
    layers: tuple[LayerInfo, ...]
    shared: tuple[LayerInfo, ...] = ()
    final: bool = False

    @property
    def title(self) -> str:
        """One line, e.g. for a progress bar: ``pass 1/3: 1 reduction over from-zarr-a63...``."""
        head = f"pass {self.index}/{self.total}"
        n = len(self.layers)
        if self.final:
            what = f"{n} output{'s' * (n != 1)}"
            return f"{head}: {what}" + (" (rewritten graph)" if self.index > 1 else "")
        over = ", ".join(
            f"{s.label} ({_fmt_bytes(s.nbytes)})" if s.nbytes is not None else s.label
            for s in self.shared
        )
        return f"{head}: {n} reduction{'s' * (n != 1)} over {over}"

    def __str__(self) -> str:
        return "\n".join([self.title, *("  " + li.describe() for li in self.layers)])


@dataclass(frozen=True)
class Plan:
    """The passes that compute ``arrays``: zero or more reduction passes, then the final one."""

    passes: tuple[Pass, ...]
    threshold_bytes: int
    small_bytes: int
    output_names: tuple[str, ...]
    arrays: tuple[da.Array, ...] = field(repr=False, compare=False)

    @property
    def reductions(self) -> tuple[Pass, ...]:
        """The passes before the final one (empty: one graph, as Dask would run it)."""
        return self.passes[:-1]

    def __str__(self) -> str:
        n = len(self.passes)
        head = (
            f"Plan: {n} pass{'es' * (n != 1)} (cut when >= {_fmt_bytes(self.threshold_bytes)}"
            f" of input waits for a result <= {_fmt_bytes(self.small_bytes)})"
        )
        lines = [head]
        for p in self.passes:
            lines.extend("  " + line for line in str(p).splitlines())
        if not self.reductions:
            lines.append("  (no large input waits for a reduction: one graph)")
        return "\n".join(lines)


def merged_graph(arrays: Sequence[da.Array]) -> HighLevelGraph | None:
    graphs = [a.__dask_graph__() for a in arrays]
    hlgs = [g for g in graphs if isinstance(g, HighLevelGraph)]
    if len(hlgs) != len(graphs):
        return None
    return hlgs[0] if len(hlgs) == 1 else HighLevelGraph.merge(*hlgs)


def _check_arrays(arrays: Iterable[da.Array]) -> tuple[da.Array, ...]:
    arrays = tuple(arrays)
    for a in arrays:
        if not isinstance(a, da.Array):
            raise TypeError(f"expected dask.array.Array, got {type(a).__name__}")
    if not arrays:
        raise ValueError("no arrays to compute")
    return arrays


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


def _next_level(
    deps: dict[str, set[str]],
    info: dict[str, LayerInfo],
    outputs: Sequence[str],
    candidates: set[str],
    threshold: int,
    small: int,
) -> tuple[list[str], list[str]]:
    """The cut points of the next pass, and the large layers they are cut from."""
    live = reachable(outputs, deps)
    order = toposort(live, deps)
    bit = {n: 1 << i for i, n in enumerate(order)}
    dependents = users_of(order, deps)
    anc: dict[str, int] = {}  # strict ancestors, as bit sets
    for n in order:
        b = 0
        for d in deps[n] & live:
            b |= anc[d] | bit[d]
        anc[n] = b
    desc: dict[str, int] = {}  # strict descendants
    for n in reversed(order):
        b = 0
        for d in dependents[n]:
            b |= desc[d] | bit[d]
        desc[n] = b

    def is_small(n: str) -> bool:
        nb = info[n].nbytes
        return nb is not None and nb <= small

    # a layer that is not known to be small may hold data (unknown sizes count as large)
    large = [n for n in order if (info[n].nbytes or 0) >= threshold]
    smalls = [n for n in order if is_small(n)]
    blocks = {n: info[n].nblocks or 1 for n in smalls}
    # held[L]: the layers L's data reaches through layers that may hold data, i.e. not
    # through a reduction to something small
    held: dict[str, int] = {}
    for big in large:
        b, stack = 0, [big]
        while stack:
            for d in dependents[stack.pop()]:
                if not b & bit[d]:
                    # (a small layer made from that data waits with it too: Ridge's
                    # ``X @ coef``, n x 1, is small on 0.5 GiB, and X's blocks waited
                    # whole for ``coef``; the data stops there)
                    b |= bit[d]
                    if not is_small(d):
                        stack.append(d)
        held[big] = b

    in_blocks = sum(bit[n] for n in order if (info[n].nblocks or 1) > 1)
    # the small layers by their number of blocks, fewest first, as bit sets: the
    # narrowest small layer of a set is the first group it meets
    by_blocks: dict[int, int] = {}
    for m in smalls:
        by_blocks[blocks[m]] = by_blocks.get(blocks[m], 0) | bit[m]
    groups = sorted(by_blocks.items())

    def narrowest(among: int) -> int:
        return next(k for k, members in groups if among & members)

    # the small layers that gather data in blocks (not parameters of small values alone)
    gathering = sum(bit[m] for m in smalls if anc[m] & in_blocks)
    reached = 0  # every layer some large layer's data reaches
    for b in held.values():
        reached |= b
    outs = set(outputs)
    cuts: dict[str, list[str]] = {}
    for c in smalls:
        if c not in candidates or not reached & desc[c]:
            continue
        # as far downstream as possible: the last small layer before data joins again
        # (at a small layer too, that the data reaches: ``X @ coef``)
        if c not in outs and all(is_small(d) and not reached & bit[d] for d in dependents[c]):
            continue
        triggers = []
        for big in large:
            if not held[big] & desc[c]:
                continue
            if not anc[c] & bit[big]:
                # c is computed from other data in blocks (the mean of ``y`` beside
                # ``X``), which Dask's order may read after L's blocks: all of them
                # wait for c where it is one block wide, by a small layer that
                # gathers data in blocks (not a parameter computed from small values
                # alone: GaussianMixture's E-step mask, in X's row blocks, built with
                # its kept precisions, was cut, a pass of its own at every step)
                if (
                    anc[c] & in_blocks
                    and (info[big].nbytes or 0) / narrowest((anc[c] & gathering) | bit[c])
                    >= threshold
                ):
                    triggers.append(big)
                continue
            # L's data is held until c is done, by a layer that waits for c. How much
            # of it: L's bytes over the blocks of the narrowest small layer between L
            # and c, c included (a reduction along an axis that is one chunk wide
            # holds one chunk)
            width = narrowest((anc[c] & desc[big]) | bit[c])
            if (info[big].nbytes or 0) / width >= threshold:
                triggers.append(big)
        if triggers:
            cuts[c] = triggers
    if not cuts:
        return [], []
    cut_bits = 0
    for c in cuts:
        cut_bits |= bit[c]
    # a cut point waits for another only where data that waits for the other feeds it
    # (a layer not known to be small between them): max - min waits for min through
    # small layers only, and shares min's pass (one read of the input for both)
    behind: dict[str, int] = {}  # what the layers not known to be small above n wait for
    for n in order:
        b = 0
        for d in deps[n] & live:
            b |= behind[d] | (0 if is_small(d) else anc[d])
        behind[n] = b
    level = [c for c in order if c in cuts and not behind[c] & cut_bits]
    # small layers computed on the way that the rest still needs: keep their values too
    # (downstream first, so that a reduction's partial layers are not taken)
    after = dict(deps)
    for c in level:
        after[c] = set()
    live_after = reachable(outputs, after)
    level_anc = 0
    for c in level:
        level_anc |= anc[c]
    for s in reversed(order):
        if level_anc & bit[s] and s in candidates and is_small(s) and s in live_after:
            level.append(s)
            after[s] = set()
            live_after = reachable(outputs, after)
    level.sort(key=order.index)
    trig = {t for c in level if c in cuts for t in cuts[c]}
    top = [t for t in order if t in trig and not any(anc[t] & bit[u] for u in trig)]
    return level, top


def default_small_bytes(threshold_bytes: int) -> int:
    """The largest cut point for ``threshold_bytes``: a sixteenth, at most 64 MiB."""
    return max(1, min(int(threshold_bytes) // 16, SMALL_BYTES_CAP))


def plan(
    arrays: Sequence[da.Array],
    *,
    threshold_bytes: int,
    small_bytes: int | None = None,
    trust_dask: bool = False,
) -> Plan:
    """Plan the computation of ``arrays`` in passes (nothing is computed).

    Parameters
    ----------
    arrays : sequence of dask.array.Array
        The arrays to compute together.
    threshold_bytes : int
        A cut is made when at least this much data of one layer would wait, in
        memory, for a small result computed from it (the estimate is the large
        layer's bytes over the number of blocks of the narrowest small layer between
        them: a reduction over a whole axis waits for the whole input; a row-wise
        reduction of an array chunked in rows only for one chunk).
    small_bytes : int, optional
        Largest result that can be a cut point (its value is computed, kept and
        embedded in the graph). Default: ``threshold_bytes // 16``, at most 64 MiB.
    trust_dask : bool, default False
        Read the sizes of layers that :func:`declare` did not vouch for from Dask's
        ``collection_annotations`` too (for graphs built with ``dask.array`` alone;
        Dask does not promise them, so a plan may misjudge sizes, never values).

    Returns
    -------
    Plan
        ``print(plan)`` shows the passes.

    A *cut point* is a layer C whose known size is at most ``small_bytes``, such that

    - C has a large ancestor L (known size >= ``threshold_bytes``), and L's data also
      reaches a layer J that depends on C, through layers that are not known to be
      small (so L's chunks, or data derived from them, wait in memory for C); J itself
      may be small (``X @ coef``, one column, waits with X's blocks for ``coef``);
    - or C is computed from other data in several blocks, one block wide (the mean of
      ``y`` in ``X.T @ (y - mean(y))``), and a large L's data reaches such a J: Dask's
      order may compute C after L's blocks, which then all wait for it;
    - C is the last small layer on its way to J (or is itself requested): e.g.
      ``sqrt`` of a variance rather than the variance;
    - its tasks are one per block of its annotated chunks (it can be replaced).

    Cut points with no other cut point among their ancestors form a pass; the
    planning is repeated on the graph as it will be once they are replaced.

    The plan changes when blocks are computed, never their values: a cut point's
    blocks are computed by its own tasks and replace them key for key.
    """
    arrays = _check_arrays(arrays)
    threshold_bytes = int(threshold_bytes)
    if threshold_bytes <= 0:
        raise ValueError("threshold_bytes must be positive")
    if small_bytes is None:
        small_bytes = default_small_bytes(threshold_bytes)
    small_bytes = int(small_bytes)
    names = tuple(a.name for a in arrays)
    graph = merged_graph(arrays)
    out_layers = [a.__dask_layers__()[0] for a in arrays]
    levels: list[tuple[list[str], list[str]]] = []
    info: dict[str, LayerInfo] = {}
    if graph is not None and all(n in graph.layers for n in out_layers):
        layers = graph.layers
        deps = {k: set(graph.dependencies.get(k, ())) & layers.keys() for k in layers}
        info = {k: layer_info(k, layer, trust_dask) for k, layer in layers.items()}
        live = reachable(out_layers, deps)
        candidates = {
            k
            for k in live
            if (info[k].nbytes or 0) <= small_bytes and substitutable(info[k], layers[k])
        }
        while True:
            level, shared = _next_level(
                deps, info, out_layers, candidates, threshold_bytes, small_bytes
            )
            if not level:
                break
            levels.append((level, shared))
            for c in level:
                deps[c] = set()
                candidates.discard(c)
    total = len(levels) + 1
    passes = [
        Pass(i + 1, total, tuple(info[c] for c in level), tuple(info[s] for s in shared))
        for i, (level, shared) in enumerate(levels)
    ]
    final_info = tuple(_array_info(a) for a in arrays)
    passes.append(Pass(total, total, final_info, final=True))
    return Plan(tuple(passes), threshold_bytes, small_bytes, names, arrays)


# --- small results from values in this process ----------------------------------------
def held_bytes(layer: Any, *, from_shapes: bool = True) -> int | None:
    """The bytes of the values held by ``layer``, a layer with no dependencies, when they
    are values in this process (NumPy arrays and numbers in a materialised layer); 0 for a
    layer made from its blocks' shapes alone (``ones(n)``), unless ``from_shapes`` is
    false; None for any other (a read from a file or store, an unusual layer)."""
    if (layer.collection_annotations or {}).get(MADE_FROM_NOTHING):
        return 0 if from_shapes else None
    if isinstance(layer, Blockwise):
        if not from_shapes:
            return None
        if not all(isinstance(d, ArrayChunkShapeDep) for d in layer.io_deps.values()):
            return None
        if any(n not in layer.io_deps for n, ind in layer.indices if ind is not None):
            return None
        return 0
    if not isinstance(layer, MaterializedLayer):
        return None
    held = 0
    for value in layer.values():
        value = getattr(value, "value", value)  # (a DataNode holds it)
        if not isinstance(value, (np.ndarray, np.generic, int, float, complex, bool)):
            return None
        held += getattr(value, "nbytes", 8)
    return held


#: the key, in a layer's ``collection_annotations``, that :func:`mark_made_from_nothing`
#: sets: the layer computes its blocks from their places alone (``eye``, ``arange``)
MADE_FROM_NOTHING = "strict_array-made-from-nothing"


def mark_made_from_nothing(a: da.Array) -> None:
    """Vouch that ``a``'s layer, if it depends on no other, computes its blocks from their
    shapes and places alone (no read): :func:`held_bytes` counts it as holding nothing."""
    graph = a.__dask_graph__()
    if not isinstance(graph, HighLevelGraph) or graph.dependencies.get(a.name):
        return
    layer = graph.layers.get(a.name)
    if layer is not None:
        layer.collection_annotations = {
            **(layer.collection_annotations or {}),
            MADE_FROM_NOTHING: True,
        }


def fold(
    graph: HighLevelGraph, roots: Sequence[str], small: int
) -> tuple[HighLevelGraph, list[str]]:
    """``graph`` with its small layers that are computed from small values in this process
    alone (and small arrays made from nothing) computed now, in this thread, and put in
    the graph as values; returns the graph and the names of the layers computed.

    Such a chain reads nothing, but it may be long: a Gaussian mixture's precisions are
    hundreds of small tasks (``setitem``, ``diagonal``, ``add``, ``solve``) from the
    covariances of the pass before. Dask's local order runs it first, in milliseconds;
    a ``dask.distributed`` scheduler runs it one round trip per task, and meanwhile
    gives the idle workers blocks of the large input to read, which wait for its end
    (on 0.5 GiB, every block a worker held waited for it). A layer is
    computed here when every layer it depends on is such a layer, and its declared
    size is at most ``small``; only those that a layer of another kind uses are
    computed (the same tasks, so the same values, bit for bit).
    """
    layers = graph.layers
    deps = {k: set(graph.dependencies.get(k, ())) & layers.keys() for k in layers}
    live = reachable(roots, deps)
    order = toposort(live, deps)
    pure: set[str] = set()
    declared: set[str] = set()
    for n in order:
        # (a layer with no dependencies made by Dask inside an operation, ``empty_like``,
        # is not declared: its size is Dask's)
        info = layer_info(n, layers[n], not deps[n])
        if info.shape is not None:
            if info.nbytes is None or info.nbytes > small:
                continue  # large, or of unknown size
            declared.add(n)
        if deps[n]:
            if deps[n] <= pure:
                pure.add(n)
            continue
        held = held_bytes(layers[n], from_shapes=n in declared)
        if held is not None and held <= small:
            pure.add(n)
    users = users_of(order, deps)
    # where such a chain meets data, or a layer Dask made inside an operation (of no
    # declared size) on its way there: Nystroem's normalisation, transposed inside
    # Dask's matmul (a computation from values alone is Dask's to run)
    meets: dict[str, bool] = {}
    for n in reversed(order):
        meets[n] = any(u not in pure or (u not in declared and meets[u]) for u in users[n])
    targets = [n for n in order if n in pure and n in declared and deps[n] and meets[n]]
    if not targets:
        return graph, []
    part = own_graph(graph, *targets)
    keys: dict[str, list[Any]] = {n: list(layers[n].get_output_keys()) for n in targets}
    wanted: Any = [keys[n] for n in targets]  # (nested lists of keys: Dask's form)
    values = dask.local.get_sync(dict(part), wanted)
    computed: dict[str, tuple[list[Any], Sequence[Any]]] = {
        n: (keys[n], list(v)) for n, v in zip(targets, values)
    }
    return substitute(graph, computed, roots), targets


# --- running a plan --------------------------------------------------------------------
class _Blocks:
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


def _rename(
    graph: HighLevelGraph, changed: set[str], seed: Any
) -> tuple[HighLevelGraph, dict[str, str]]:
    """``graph`` with the layers in ``changed``, and all that depend on them, under new
    names (a function of ``seed``); returns the graph and the new names.

    Every graph the planner submits runs under keys of its own. Dask identifies a
    task by its key, and a cluster may still know a key from the previous pass or
    from the user's own computation of the same arrays, as another task: a cut
    point's keys become values, what depends on them other tasks, and Dask's own
    fusion gives the same key another task in a subgraph (fused roots). The
    scheduler would keep the old task and its dependencies (dask/dask#9888).
    Blockwise layers stay Blockwise (and fusable); materialised layers get their
    tasks renamed. With a layer of another kind the graph is left as it is.
    """
    deps = {k: set(graph.dependencies.get(k, ())) & graph.layers.keys() for k in graph.layers}
    renamed = set(changed) & graph.layers.keys()
    if not renamed:
        return graph, {}
    for n in toposort(set(graph.layers), deps):
        if deps[n] & renamed:
            renamed.add(n)
    keys: set = set()
    for n in renamed:
        keys |= set(graph.layers[n].get_output_keys())
    subs = {k: clone_key(k, seed) for k in keys}
    layers = {k: v for k, v in graph.layers.items() if k not in renamed}
    new_deps = {k: deps[k] for k in layers}
    new_name = {n: clone_key(n, seed) for n in renamed}
    all_keys: set | None = None
    for n in renamed:
        layer = graph.layers[n]
        new: Any
        if isinstance(layer, Blockwise):
            new = layer.clone(keys, seed)[0]
        elif isinstance(layer, MaterializedLayer) and _GraphNode is not None:
            tasks = dict(layer)
            if not all(isinstance(t, _GraphNode) for t in tasks.values()):
                if all_keys is None:  # what a task of the older (tuple) form may refer to
                    all_keys = set()
                    for other in graph.layers.values():
                        all_keys |= set(other.get_output_keys())
                tasks = _convert_legacy_graph(tasks, all_keys)
                if tasks.keys() != layer.keys():
                    return graph, {}
            mapping = {subs[k]: t.substitute(subs, key=subs[k]) for k, t in tasks.items()}
            new = MaterializedLayer(mapping, annotations=layer.annotations)
        else:
            return graph, {}
        if layer.collection_annotations:
            new.collection_annotations = dict(layer.collection_annotations)
        layers[new_name[n]] = new
        new_deps[new_name[n]] = {new_name.get(d, d) for d in deps[n]}
    return HighLevelGraph(layers, new_deps), new_name


def clone(arrays: Sequence[da.Array], seed: Any) -> tuple[da.Array, ...]:
    """The arrays computed anew: every layer they depend on under new keys (a function
    of ``seed``), so that Dask computes them again rather than sharing their tasks with
    the originals. Dask's ``graph_manipulation.clone`` keeps the old keys inside tasks of
    the newer form (``from_array``'s, then a ``getitem`` of it, fails with a missing
    dependency: dask/dask#12455); with a layer :func:`_rename` cannot rename, the arrays
    are returned as they are (the same values, computed once)."""
    graph = merged_graph(arrays)
    return tuple(arrays) if graph is None else _renamed(graph, arrays, seed)


def _renamed(graph: HighLevelGraph, arrays: Sequence[da.Array], seed: Any) -> tuple[da.Array, ...]:
    """The arrays, whose layers are in ``graph``, with every layer of it under new keys
    (:func:`_rename`): each array gets only its own layers."""
    renamed, new_name = _rename(graph, set(graph.layers), seed)
    out = []
    for a in arrays:
        layer = a.__dask_layers__()[0]
        name = new_name.get(layer, layer)
        out.append(da.Array(own_graph(renamed, name), name, a.chunks, meta=a._meta))
    return tuple(out)


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
    layers = dict(graph.layers)
    deps = {k: set(graph.dependencies.get(k, ())) & layers.keys() for k in layers}
    for name, (keys, blocks) in values.items():
        old = layers[name]
        mapping = {
            k: (_DataNode(k, v) if _DataNode is not None else v) for k, v in zip(keys, blocks)
        }
        ann = dict(old.collection_annotations) if old.collection_annotations else None
        layers[name] = MaterializedLayer(mapping, collection_annotations=ann)
        deps[name] = set()
    keep = reachable(roots, deps)
    return HighLevelGraph({k: layers[k] for k in keep}, {k: deps[k] & keep for k in keep})


#: the ``dask.config`` key that turns on the planner's consistency checks (the test
#: suite turns it on): each computed block of a cut point has its declared shape
CHECKS_KEY = "strict_array.planning-checks"


def _check_blocks(info: LayerInfo, keys: list, blocks: Sequence) -> None:
    """With :data:`CHECKS_KEY` set, assert that the blocks are those declared.

    A mismatch is a wrong declaration (a bug where the array was made), not a wrong
    value: the blocks replace their own tasks key for key whatever their shape, so
    users never see it as an error; tests do.
    """
    if not dask.config.get(CHECKS_KEY, False):
        return
    assert len(blocks) == len(keys), f"{info.label}: {len(blocks)} blocks, {len(keys)} keys"
    assert info.chunks is not None
    for key, block in zip(keys, blocks):
        shape = getattr(block, "shape", None)
        want = tuple(int(c[i]) for c, i in zip(info.chunks, key[1:]))
        assert shape is None or tuple(shape) == want, (
            f"{info.label}: block {key[1:]} has shape {shape}, not the declared {want}"
        )


def _default_compute(**kwargs: Any) -> Callable[[Pass, Sequence[Any]], Sequence[Any]]:
    def run(step: Pass, collections: Sequence[Any]) -> Sequence[Any]:
        return dask.compute(*collections, **kwargs)

    return run


def _passes(
    p: Plan,
    arrays: Sequence[da.Array] | None,
    compute: Callable[[Pass, Sequence[Any]], Sequence[Any]] | None,
    kwargs: dict[str, Any],
) -> tuple[tuple[da.Array, ...], Callable]:
    if compute is not None and kwargs:
        raise TypeError("pass either compute= or keyword arguments for dask.compute, not both")
    arrays = p.arrays if arrays is None else _check_arrays(arrays)
    if tuple(a.name for a in arrays) != p.output_names:
        raise ValueError("these are not the arrays the plan was made for")
    run = compute if compute is not None else _default_compute(**kwargs)
    graph = merged_graph(arrays)
    if graph is None:
        return tuple(arrays), run
    roots = [a.__dask_layers__()[0] for a in arrays]
    # (the cut points of the passes stay in the graph: a chain from values may pass
    # through one on its way to the data)
    cuts = [li.name for step in p.reductions for li in step.layers]
    graph, folded = fold(graph, [*roots, *cuts], p.small_bytes)
    if not p.reductions and not folded:
        return tuple(arrays), run
    history = tokenize("strict_array-plan", p.output_names, folded)
    for step in p.reductions:
        # this pass's part of the graph, under new keys
        part = own_graph(graph, *(li.name for li in step.layers))
        current, new_name = _rename(part, set(part.layers), ("pass", step.index, history))
        collections = []
        for li in step.layers:
            name = new_name.get(li.name, li.name)
            collections.append(_Blocks(own_graph(current, name), name, li))
        results = run(step, collections)
        values = {}
        for coll, blocks in zip(collections, results):
            keys = block_keys(coll.info)
            _check_blocks(coll.info, keys, blocks)
            values[coll.info.name] = (keys, blocks)
        cuts = cuts[len(step.layers) :]
        graph = substitute(graph, values, [*roots, *cuts])
        graph, folded = fold(graph, [*roots, *cuts], p.small_bytes)
        history = tokenize(history, [(k, v[1]) for k, v in sorted(values.items())], folded)
    return _renamed(graph, arrays, ("final", history)), run


def rewrite(
    p: Plan,
    arrays: Sequence[da.Array] | None = None,
    *,
    compute: Callable[[Pass, Sequence[Any]], Sequence[Any]] | None = None,
    **compute_kwargs: Any,
) -> tuple[da.Array, ...]:
    """Run the reduction passes of ``p`` and return the requested arrays, still lazy,
    on the rewritten graph (the cut points' values in it): for ``dask.persist``,
    ``da.store`` or ``da.to_zarr``, which stream them in one more pass. They have
    the shapes, chunks and dtypes of the originals, and new names (without reduction
    passes they are the original arrays).

    ``arrays`` default to the ones the plan was made for (if given, they must be
    those). ``compute(step, collections)`` computes one pass: it receives the
    :class:`Pass` and a list of Dask collections and returns their values in order
    (default ``dask.compute(*collections, **compute_kwargs)``, which uses an active
    ``distributed.Client``); use it to show a progress bar per pass.
    """
    return _passes(p, arrays, compute, compute_kwargs)[0]


def execute(
    p: Plan,
    arrays: Sequence[da.Array] | None = None,
    *,
    compute: Callable[[Pass, Sequence[Any]], Sequence[Any]] | None = None,
    **compute_kwargs: Any,
) -> tuple[Any, ...]:
    """Run all passes of ``p``; return the values of the arrays (as ``dask.compute``).

    See :func:`rewrite` for ``arrays``, ``compute`` and ``compute_kwargs``.
    """
    final, run = _passes(p, arrays, compute, compute_kwargs)
    return tuple(run(p.passes[-1], list(final)))


def compute(
    *arrays: da.Array,
    threshold_bytes: int,
    small_bytes: int | None = None,
    **compute_kwargs: Any,
) -> tuple[Any, ...]:
    """``dask.compute(*arrays)`` through a plan: ``execute(plan(arrays, ...))``."""
    p = plan(arrays, threshold_bytes=threshold_bytes, small_bytes=small_bytes)
    return execute(p, **compute_kwargs)
