"""A compute planner for Dask arrays: reductions that a large input waits for run first.

The problem (dask/dask#874): in

.. code-block:: python

    x = da.from_zarr(path)        # larger than memory
    m = x.mean(axis=0)
    s = ((x - m) ** 2).sum(axis=0)
    s.compute()

every chunk of ``x`` feeds both ``m`` and ``x - m``, no chunk can be subtracted before
``m`` is complete, and Dask never recomputes a task: the whole of ``x`` ends up in memory.

:func:`plan` finds *cut points* in the graph of the arrays to compute (one node per
layer, sized by what :func:`._graph.declare` vouched for: Dask's own layer metadata is
not promised to describe a layer's blocks): small layers (a reduction's result) that a
large ancestor waits for through another path. :func:`execute` computes them first, in
streaming passes (all the cut points of one level in one ``dask.compute``: the large
input is read once per pass), puts their values into the graph in place of their
layers, and computes the rest; the values are those of the one-graph computation, bit
for bit. :func:`rewrite` stops before the last pass and returns the rewritten lazy
arrays (for ``persist``, ``da.store``, ``to_zarr``). Each graph submitted runs under
keys of its own, so that a cluster never sees one key with two tasks.

Nothing is computed while planning (layer metadata only); while a plan runs,
:func:`fold` computes chains of small values in this thread (:func:`._graph.computed_here`).

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

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import reduce
from operator import or_
from typing import Any

import dask
import dask.array as da
from dask.base import tokenize

from ._graph import (
    Blocks,
    LayerInfo,
    array_info,
    block_keys,
    computed_here,
    dependencies_of,
    fmt_bytes,
    layer_info,
    layers_of,
    merged_graph,
    own_graph,
    reachable,
    rename_graph,
    renamed_arrays,
    resident_bytes,
    root_layer,
    substitutable,
    substitute,
    toposort,
    users_of,
)

__all__ = [
    "CHECKS_KEY",
    "Pass",
    "Plan",
    "execute",
    "plan",
    "rewrite",
]

#: the default for ``small_bytes`` is ``threshold_bytes // 16``, at most this: values
#: of cut points are embedded in the graph (and sent with it to a cluster)
SMALL_BYTES_CAP = 64 * 2**20


@dataclass(frozen=True)
class Pass:
    """One computation of a plan: a reduction pass computes ``layers``, the cut points of
    one level, together, whose values then replace them in the graph (``shared``: the
    large layers they were cut from, read again later); the ``final`` pass computes the
    requested arrays (``layers``) from the rewritten graph."""

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
            f"{s.label} ({fmt_bytes(s.nbytes)})" if s.nbytes is not None else s.label
            for s in self.shared
        )
        return f"{head}: {n} reduction{'s' * (n != 1)} over {over}"

    def __str__(self) -> str:
        return "\n".join([self.title, *("  " + li.describe() for li in self.layers)])


@dataclass(frozen=True)
class Plan:
    """The passes that compute ``arrays`` (the ``asked`` ones, then the optional ones taken
    along): zero or more reduction passes, then the final one."""

    passes: tuple[Pass, ...]
    threshold_bytes: int
    small_bytes: int
    output_names: tuple[str, ...]
    arrays: tuple[da.Array, ...] = field(repr=False, compare=False)
    asked: int = field(compare=False)

    @property
    def taken(self) -> tuple[da.Array, ...]:
        """The optional arrays computed along (see :func:`plan`)."""
        return self.arrays[self.asked :]

    @property
    def reductions(self) -> tuple[Pass, ...]:
        """The passes before the final one (empty: one graph, as Dask would run it)."""
        return self.passes[:-1]

    def __str__(self) -> str:
        n = len(self.passes)
        head = (
            f"Plan: {n} pass{'es' * (n != 1)} (cut when >= {fmt_bytes(self.threshold_bytes)}"
            f" of input waits for a result <= {fmt_bytes(self.small_bytes)})"
        )
        lines = [head]
        for p in self.passes:
            lines.extend("  " + line for line in str(p).splitlines())
        if not self.reductions:
            lines.append("  (no large input waits for a reduction: one graph)")
        return "\n".join(lines)


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
        anc[n] = reduce(or_, (anc[d] | bit[d] for d in deps[n] & live), 0)
    desc: dict[str, int] = {}  # strict descendants
    for n in reversed(order):
        desc[n] = reduce(or_, (desc[d] | bit[d] for d in dependents[n]), 0)

    def is_small(n: str) -> bool:
        nb = info[n].nbytes
        return nb is not None and nb <= small

    # a layer that is not known to be small may hold data (unknown sizes count as large)
    large = [n for n in order if (info[n].nbytes or 0) >= threshold]
    smalls = [n for n in order if is_small(n)]
    blocks = {n: info[n].nblocks or 1 for n in smalls}
    # carries[L]: the layers L's data reaches through layers that may hold data, i.e. not
    # through a reduction to something small
    carries: dict[str, int] = {}
    for big in large:
        b, stack = 0, [big]
        while stack:
            for d in dependents[stack.pop()]:
                if not b & bit[d]:
                    # (a small layer made from that data waits with it too: ``X @ coef``,
                    # one column, may be small, and X's blocks wait whole for
                    # ``coef``; the data stops there)
                    b |= bit[d]
                    if not is_small(d):
                        stack.append(d)
        carries[big] = b

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
    reached = reduce(or_, carries.values(), 0)  # what large data reaches
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
            if not carries[big] & desc[c]:
                continue
            if not anc[c] & bit[big]:
                # c is computed from other data in blocks (the mean of ``y`` beside
                # ``X``), which Dask's order may read after L's blocks: all of them
                # wait for c where it is one block wide, by a small layer that
                # gathers data in blocks (not a parameter computed from small values
                # alone: a mask in X's row blocks built from kept parameters would be
                # cut, a pass of its own at every step of an iteration)
                if (
                    anc[c] & in_blocks
                    and (info[big].nbytes or 0) / narrowest((anc[c] & gathering) | bit[c])
                    >= threshold
                ):
                    triggers.append(big)
                continue
            # L's data waits in memory until c is done, by a layer that waits for c. How much
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
    cut_bits = sum(bit[c] for c in cuts)
    # a cut point waits for another only where data that waits for the other feeds it
    # (a layer not known to be small between them): max - min waits for min through
    # small layers only, and shares min's pass (one read of the input for both)
    behind: dict[str, int] = {}  # what the layers not known to be small above n wait for
    for n in order:
        behind[n] = reduce(
            or_, (behind[d] | (0 if is_small(d) else anc[d]) for d in deps[n] & live), 0
        )
    level = [c for c in order if c in cuts and not behind[c] & cut_bits]
    # small layers computed on the way that the rest still needs: keep their values too
    # (downstream first, so that a reduction's partial layers are not taken)
    after = dict(deps)
    for c in level:
        after[c] = set()
    live_after = reachable(outputs, after)
    level_anc = reduce(or_, (anc[c] for c in level), 0)
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
    optional: Sequence[Sequence[da.Array]] = (),
) -> Plan:
    """Plan the computation of ``arrays`` in passes (nothing is computed).

    Parameters
    ----------
    arrays : sequence of dask.array.Array
        The arrays to compute together.
    threshold_bytes : int
        A cut is made when at least this much data of one layer would wait, in memory,
        for a small result computed from it: the large layer's bytes over the blocks of
        the narrowest small layer between them (a reduction over a whole axis waits for
        the whole input; a row-wise one, of an array chunked in rows, for one chunk).
    small_bytes : int, optional
        Largest result that can be a cut point (its value is computed, kept and
        embedded in the graph). Default: ``threshold_bytes // 16``, at most 64 MiB.
    trust_dask : bool, default False
        Read the sizes of layers that :func:`declare` did not vouch for from Dask's
        ``collection_annotations`` too (for graphs built with ``dask.array`` alone;
        Dask does not promise them, so a plan may misjudge sizes, never values).
    optional : sequence of sequences of dask.array.Array, optional
        Groups of arrays to compute along, each where it adds no pass (``Plan.taken``).

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
    """
    arrays = tuple(arrays)
    for a in arrays:
        if not isinstance(a, da.Array):
            raise TypeError(f"expected dask.array.Array, got {type(a).__name__}")
    if not arrays:
        raise ValueError("no arrays to compute")
    threshold_bytes = int(threshold_bytes)
    if threshold_bytes <= 0:
        raise ValueError("threshold_bytes must be positive")
    small_bytes = int(default_small_bytes(threshold_bytes) if small_bytes is None else small_bytes)
    groups = [tuple(g) for g in optional]
    graph = merged_graph([*arrays, *(a for g in groups for a in g)])
    chosen, levels = list(arrays), []
    info: dict[str, LayerInfo] = {}
    if graph is not None and all(root_layer(a) in layers_of(graph) for a in arrays):
        layers = layers_of(graph)
        deps = dependencies_of(graph)
        info = {k: layer_info(k, layer, trust_dask) for k, layer in layers.items()}
        cuttable = {
            k
            for k in layers
            if (info[k].nbytes or 0) <= small_bytes and substitutable(info[k], layers[k])
        }

        def levels_of(outputs: Sequence[da.Array]) -> list[tuple[list[str], list[str]]]:
            after, candidates = dict(deps), set(cuttable)
            found: list[tuple[list[str], list[str]]] = []
            roots = [root_layer(a) for a in outputs]
            while True:
                level, shared = _next_level(
                    after, info, roots, candidates, threshold_bytes, small_bytes
                )
                if not level:
                    return found
                found.append((level, shared))
                for c in level:
                    after[c] = set()
                    candidates.discard(c)

        levels = levels_of(chosen)
        passes_alone = len(levels)
        for group in groups:
            taken = {id(a) for a in chosen}
            more = [a for a in group if id(a) not in taken and root_layer(a) in layers]
            if more:
                tried = levels_of([*chosen, *more])
                if len(tried) == passes_alone:  # (adds no pass: taken along)
                    chosen, levels = [*chosen, *more], tried
    total = len(levels) + 1
    passes = [
        Pass(i + 1, total, tuple(info[c] for c in level), tuple(info[s] for s in shared))
        for i, (level, shared) in enumerate(levels)
    ]
    final_info = tuple(array_info(a) for a in chosen)
    passes.append(Pass(total, total, final_info, final=True))
    return Plan(tuple(passes), threshold_bytes, small_bytes, tuple(a.name for a in chosen),
                tuple(chosen), len(arrays))  # fmt: skip


# --- small results from values in this process ----------------------------------------


def fold(graph: Any, roots: Sequence[str], small: int) -> tuple[Any, list[str]]:
    """``graph`` with its small layers computed from small values in this process alone
    (and small arrays made from nothing) computed now, in this thread, and put in the
    graph as values; returns the graph and the names of the layers computed.

    Such a chain reads nothing but may be hundreds of small tasks (parameters updated
    element by element from the pass before), which a ``dask.distributed`` scheduler runs
    one round trip per task while idle workers read blocks of the large input that wait
    for its end. Of the layers of at most ``small`` declared bytes whose dependencies are
    all such layers, those a layer of another kind uses are computed (the same tasks, so
    the same values, bit for bit).
    """
    layers = layers_of(graph)
    deps = dependencies_of(graph)
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
        resident = resident_bytes(layers[n], from_shapes=n in declared)
        if resident is not None and resident <= small:
            pure.add(n)
    users = users_of(order, deps)
    # where such a chain meets data, or a layer Dask made inside an operation (of no
    # declared size) on its way there: a small matrix transposed inside Dask's matmul
    # (a computation from values alone is Dask's to run)
    meets: dict[str, bool] = {}
    for n in reversed(order):
        meets[n] = any(u not in pure or (u not in declared and meets[u]) for u in users[n])
    targets = [n for n in order if n in pure and n in declared and deps[n] and meets[n]]
    if not targets:
        return graph, []
    return substitute(graph, computed_here(graph, targets), roots), targets


#: the ``dask.config`` key that turns on the planner's consistency checks (the test
#: suite turns it on): each computed block of a cut point has its declared shape
CHECKS_KEY = "strict_array.planning-checks"


def _check_blocks(info: LayerInfo, keys: list, blocks: Sequence) -> None:
    """With :data:`CHECKS_KEY` set, assert that the blocks are those declared (a mismatch
    is a wrong declaration where the array was made: users never see it, tests do)."""
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


def _passes(
    p: Plan,
    compute: Callable[[Pass, Sequence[Any]], Sequence[Any]] | None,
    kwargs: dict[str, Any],
) -> tuple[tuple[da.Array, ...], Callable]:
    if compute is not None and kwargs:
        raise TypeError("pass either compute= or keyword arguments for dask.compute, not both")
    arrays = p.arrays
    run = compute if compute is not None else (lambda _, cs: dask.compute(*cs, **kwargs))
    graph = merged_graph(arrays)
    if graph is None:
        return tuple(arrays), run
    roots = [root_layer(a) for a in arrays]
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
        current, new_name = rename_graph(part, ("pass", step.index, history))
        names = [new_name.get(li.name, li.name) for li in step.layers]
        collections = [Blocks(own_graph(current, n), n, li) for n, li in zip(names, step.layers)]
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
    return renamed_arrays(graph, arrays, ("final", history)), run


def rewrite(
    p: Plan,
    *,
    compute: Callable[[Pass, Sequence[Any]], Sequence[Any]] | None = None,
    **compute_kwargs: Any,
) -> tuple[da.Array, ...]:
    """Run the reduction passes of ``p`` and return the requested arrays, still lazy, on
    the rewritten graph: for ``dask.persist``, ``da.store`` or ``da.to_zarr``, which
    stream them in one more pass (the originals' shapes, chunks and dtypes; new names
    where there was a reduction pass).

    ``compute(step, collections)`` computes one pass (a :class:`Pass` and a list of Dask
    collections; their values in order): default ``dask.compute(*collections,
    **compute_kwargs)``, which uses an active ``distributed.Client``; e.g. for a progress
    bar per pass.
    """
    return _passes(p, compute, compute_kwargs)[0]


def execute(
    p: Plan,
    *,
    compute: Callable[[Pass, Sequence[Any]], Sequence[Any]] | None = None,
    **compute_kwargs: Any,
) -> tuple[Any, ...]:
    """Run all passes of ``p``; return the values of the arrays (as ``dask.compute``).

    See :func:`rewrite` for ``compute`` and ``compute_kwargs``.
    """
    final, run = _passes(p, compute, compute_kwargs)
    return tuple(run(p.passes[-1], list(final)))
