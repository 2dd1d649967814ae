"""Kept values: small results kept between computations, so that iterative code does
not recompute its history.

An iterative algorithm written for eager arrays (EM, Lloyd, a fixed point) converts a
scalar (``bool(change < tol)``) once per iteration. On ``DASK`` the graph of iteration
``k`` holds the ``k`` before it, and Dask keeps no result between two ``compute``
calls: each conversion would compute them all again.

So each computation also computes the *small* layers of its graph (declared, at most
``strict_array.keep-bytes`` each, computed from something not small) and keeps their
blocks, for a later graph that holds the very same layer object, or a layer of that
name rebuilt on the very same input layers (the same name alone is not enough: a Zarr
store opened again may have changed). A kept value lives as long as its layer, or its
inputs; the total is bounded (``strict_array.keep-total``, oldest dropped first). Each
array strict_array makes is built on the kept values (:func:`track`), before the
program sees it (an array the program holds is never rewritten).

Where a computation reads only values in memory, the arrays of its graph the program
still holds are kept too, whatever their size (:func:`held`): NumPy would hold them as
long, and a loss and its gradient, each from one ``X @ coef``, would each compute it
again. They have their own bound, ``strict_array.keep-held-total``."""

from __future__ import annotations

import functools
import threading
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import dask.array as da
import numpy as np

from . import _graph
from ._basics import bytes_in_memory, config_bytes, unknown
from ._graph import LayerInfo

if TYPE_CHECKING:
    from ._plan import Pass

KEEP_KEY, TOTAL_KEY = "strict_array.keep-bytes", "strict_array.keep-total"
DEFAULT_KEEP, DEFAULT_TOTAL = "1 MiB", "256 MiB"
HELD_KEY, DEFAULT_HELD = "strict_array.keep-held-total", "1 GiB"
#: the two bounds: small results (``keep-total``), and held arrays (``keep-held-total``)
SMALL, HELD = "small", "held"
_BOUNDS = {SMALL: (TOTAL_KEY, DEFAULT_TOTAL), HELD: (HELD_KEY, DEFAULT_HELD)}

#: name -> the small arrays strict_array returned (candidates for :func:`pending`)
_tracked: weakref.WeakValueDictionary[str, da.Array] = weakref.WeakValueDictionary()

#: name -> weak references to every array of that name strict_array returned, for
#: :func:`held` (``asarray(a, copy=True)`` is another of ``a``'s name, which may go first)
_made: dict[str, list[weakref.ref]] = {}


@dataclass(frozen=True)
class Kept:
    """The computed blocks of one layer, kept."""

    #: a weak reference to the layer object whose blocks these are
    layer: weakref.ref
    keys: list
    blocks: list
    nbytes: int
    #: weak references to the input layers it is computed from, by name (:func:`_inputs`)
    inputs: dict[str, weakref.ref] | None
    #: the bound it counts under: :data:`SMALL` or :data:`HELD`
    bound: str


class Candidate(NamedTuple):
    """An array to compute with a computation and keep: a layer of its graph (or of a
    held array's), as an array of its own."""

    array: da.Array
    layer: Any
    info: LayerInfo


#: layer name -> its kept blocks, the oldest first
_kept: OrderedDict[str, Kept] = OrderedDict()
_total = {SMALL: 0, HELD: 0}
_lock = threading.RLock()  # computations run from several threads


def _drop(name: str) -> None:
    with _lock:
        entry = _kept.pop(name, None)
        if entry is not None:
            _total[entry.bound] -= entry.nbytes


def track(a: da.Array) -> da.Array:
    """``a``, just made by strict_array, built on kept values (a new array where some are
    kept), and followed: the program may hold it (:func:`held`), and a small one may be
    computed with a later computation (:func:`pending`)."""
    if _kept:
        (a,) = substitute([a])
    if may_be_kept(a):
        _tracked[a.name] = a
    name = a.name

    def gone(ref: weakref.ref) -> None:
        with _lock:
            refs = [r for r in _made.get(name, ()) if r is not ref]
            if refs:
                _made[name] = refs
            else:
                _made.pop(name, None)

    with _lock:
        _made.setdefault(name, []).append(weakref.ref(a, gone))
    return a


def _held_layer(name: str, layer: Any) -> bool:
    """Whether an array strict_array returned, still held, is the layer ``layer``."""
    with _lock:
        refs = list(_made.get(name, ()))
    for ref in refs:
        a = ref()
        graph = None if a is None else _graph.graph_of(a)
        if graph is not None and _graph.layers_of(graph).get(name) is layer:
            return True
    return False


def may_be_kept(a: da.Array) -> bool:
    """Whether ``a`` is small enough to be kept once computed (its graph then cut to its
    blocks): at most ``strict_array.keep-bytes``, of known size."""
    return not any(map(unknown, a.shape)) and a.nbytes <= config_bytes(KEEP_KEY, DEFAULT_KEEP)


def _hits(graph: Any) -> dict[str, tuple[list[Any], Sequence[Any]]]:
    """The layers of ``graph`` whose blocks are kept (the very layer objects)."""
    hits: dict[str, tuple[list[Any], Sequence[Any]]] = {}
    with _lock:
        for name, layer in _graph.layers_of(graph).items():
            entry = _kept.get(name)
            if entry is not None and (
                entry.layer() is layer or _same_inputs(graph, name, entry.inputs)
            ):
                hits[name] = (entry.keys, entry.blocks)
                _kept.move_to_end(name)
    return hits


def substitute(datas: Sequence[da.Array]) -> list[da.Array]:
    """``datas`` on a graph with every layer whose blocks are kept replaced by them (and
    what fed only them dropped): new arrays (with their facts) where anything is
    replaced; ``datas`` themselves are never rewritten."""
    graph = _graph.merged_graph(datas) if _kept else None
    roots = [_graph.root_layer(d) for d in datas]
    if graph is None or not all(r in _graph.layers_of(graph) for r in roots):
        return list(datas)
    hits = _hits(graph)
    if not hits:
        return list(datas)
    new = _graph.substitute(graph, hits, roots)
    return [_graph.with_graph(d, _graph.own_graph(new, r)) for d, r in zip(datas, roots)]


def candidates(datas: Sequence[da.Array]) -> list[Candidate]:
    """The small layers of ``datas``' graph worth keeping, as arrays to compute too."""
    limit = config_bytes(KEEP_KEY, DEFAULT_KEEP)
    graph = _graph.merged_graph(datas) if limit > 0 else None
    if graph is None:
        return []
    layers = _graph.layers_of(graph)
    deps = _graph.dependencies_of(graph)
    info = {k: _graph.layer_info(k, layer, False) for k, layer in layers.items()}
    small = {k for k, i in info.items() if i.nbytes is not None and i.nbytes <= limit}
    # a layer whose blocks are data already (an input, a kept value) costs nothing
    data_layers = {k for k in layers if not deps[k]}
    # costly: reached from a layer that is not known to be small
    costly: dict[str, bool] = {}
    for k in _graph.toposort(set(layers), deps):
        costly[k] = any(costly[d] or (d not in small and d not in data_layers) for d in deps[k])
    outs = {d.name for d in datas}
    found = [
        _candidate(graph, layers[k], info[k])
        for k in small
        if k not in outs and costly[k] and k not in _kept
    ]
    return [c for c in found if c is not None]


def _candidate(graph: Any, layer: Any, info: LayerInfo) -> Candidate | None:
    """Layer ``info.name`` of ``graph`` as an array of its own, where its computed blocks
    can replace its tasks (:func:`._graph.substitutable`)."""
    if info.chunks is None or not _graph.substitutable(info, layer):
        return None
    own = _graph.own_graph(graph, info.name)
    return Candidate(_graph.array_on(own, info.name, info.chunks, dtype=info.dtype), layer, info)


def held(datas: Sequence[da.Array], large: int) -> list[Candidate]:
    """The arrays the program still holds (strict_array made them, the very layer is in
    ``datas``' graph) larger than ``strict_array.keep-bytes``, where computing ``datas``
    reads only values in memory (arrays made from nothing below ``large`` bytes
    included), each at most a quarter of them (a transposed ``X`` is a copy of the data)."""
    small = config_bytes(KEEP_KEY, DEFAULT_KEEP)
    if small <= 0 or config_bytes(*_BOUNDS[HELD]) <= 0:
        return []
    in_memory = bytes_in_memory(*datas, made_below=large) if _made else None
    if in_memory is None:
        return []  # (a read from a file, a store or a cluster: streamed, not kept)
    graph = _graph.merged_graph(datas)
    assert graph is not None  # (values in memory are in a graph of layers)
    outs = {d.name for d in datas}
    deps = _graph.dependencies_of(graph)
    found = []
    for k, layer in _graph.layers_of(graph).items():
        if k in outs or not deps[k] or k in _kept:
            continue
        if not _held_layer(k, layer):
            continue  # (not held, or another array of that name: a rebuilt graph)
        info = _graph.layer_info(k, layer, False)
        if info.nbytes is not None and small < info.nbytes <= in_memory // 4:
            found.append(_candidate(graph, layer, info))
    return [c for c in found if c is not None]


def forget_pending(arrays: Sequence[da.Array]) -> None:
    """Leave ``arrays`` out of :func:`pending` from now on (computing them failed)."""
    with _lock:
        for a in arrays:
            _tracked.pop(a.name, None)


#: at most this many of the arrays still held, the latest made, are looked at by
#: :func:`pending` (each is planned with the computation)
MOST_PENDING = 32


def pending(datas: Sequence[da.Array], large: int) -> list[Candidate]:
    """The small arrays strict_array made that the program still holds, not computed yet,
    which use a layer of at least ``large`` bytes that ``datas`` use: to compute in the
    same passes. An iterative algorithm builds the next step's parameters before it asks
    for the scalar that ends this step (EM's ``abs(change) < tol``): computed with it, in
    the pass that reads the data anyway, they are there when the next step needs them."""
    graph = _graph.merged_graph(datas)
    if graph is None or not _tracked:
        return []
    layers = _graph.layers_of(graph)
    inputs = {  # (the large layers: the data read, and what is computed from it)
        k for k, layer in layers.items()
        if (_graph.layer_info(k, layer, False).nbytes or 0) >= large
    }  # fmt: skip
    if not inputs:
        return []
    with _lock:
        held = [a for a in list(_tracked.values())[-MOST_PENDING:] if a.name not in _kept]
    found = []
    for a in held:
        theirs = _graph.graph_of(a)
        if a.name in layers or theirs is None:
            continue
        layer = _graph.layers_of(theirs).get(a.name)
        if layer is None or not inputs & _graph.layers_of(theirs).keys():
            continue
        info = _graph.layer_info(a.name, layer, False)
        if info.chunks is None or not _graph.substitutable(info, layer):
            continue
        (a,) = substitute([a])
        found.append(Candidate(a, layer, info))
    return found


def _inputs(graph: Any, name: str) -> dict[str, Any] | None:
    """The layers without dependencies that ``name`` is computed from in ``graph``, by
    name; None where there is none, or one is a kept value (never the same object twice)."""
    deps = _graph.dependencies_of(graph)
    roots = {n for n in _graph.reachable([name], deps) if n != name and not deps[n]}
    if not roots or roots & _kept.keys():
        return None
    return {n: _graph.layers_of(graph)[n] for n in roots}


def _same_inputs(graph: Any, name: str, inputs: dict[str, Any] | None) -> bool:
    """Whether ``name`` in ``graph`` is computed from the very layer objects ``inputs``
    refers to (then, of the same name, it is the same computation of the same data)."""
    if not inputs:
        return False
    now = _inputs(graph, name)
    return (
        now is not None and now.keys() == inputs.keys() and all(inputs[k]() is now[k] for k in now)
    )


def _release(name: str, ref: Any) -> None:
    """``ref``, a weak reference of ``name``'s entry, is dead: the layer, while its
    inputs live, leaves the value to be found by them; an input takes it with it."""
    with _lock:
        entry = _kept.get(name)
        if entry is None:
            return
        inputs = entry.inputs or {}
        alive = inputs and all(i() is not None for i in inputs.values())
        if (ref is entry.layer and not alive) or any(ref is i for i in inputs.values()):
            _drop(name)


def keep(items: Sequence[Candidate], values: Sequence[Any]) -> None:
    """Keep the computed ``values`` of ``items``: under ``strict_array.keep-held-total``
    those larger than ``strict_array.keep-bytes`` (:func:`held`), else ``keep-total``."""
    small = config_bytes(KEEP_KEY, DEFAULT_KEEP)
    for (a, layer, info), value in zip(items, values):
        value = np.asarray(value)
        assert info.chunks is not None  # (a candidate's chunks are known)
        offsets = [np.cumsum((0, *c)) for c in info.chunks]
        blocks = [
            value[tuple(slice(o[i], o[i + 1]) for o, i in zip(offsets, k[1:]))]
            for k in _graph.block_keys(info)
        ]
        bound = HELD if value.nbytes > small else SMALL
        _store(info, layer, _graph.graph_of(a), blocks, value.nbytes, bound)


def keep_pass(arrays: Sequence[da.Array], step: Pass, results: Sequence[Any]) -> None:
    """Keep the cut points a planned pass computed (small by the plan's own rule, and
    computed anyway): a later computation does not read the large input for them again."""
    limit = config_bytes(KEEP_KEY, DEFAULT_KEEP)
    graph = _graph.merged_graph(arrays) if limit > 0 else None
    if graph is None:
        return
    deps = _graph.dependencies_of(graph)
    for info, blocks in zip(step.layers, results):
        layer = _graph.layers_of(graph).get(info.name)
        # (a layer without dependencies is data already: an input, or a kept value a pass
        # takes along where a cut point needs it; kept again, its entry would follow that
        # copy, gone with this computation, not the layer and inputs that computed it)
        if layer is None or not deps[info.name]:
            continue
        if info.nbytes is not None and info.nbytes <= limit:
            _store(info, layer, graph, list(blocks), info.nbytes, SMALL)


def _store(info: LayerInfo, layer: Any, graph: Any, blocks: list, nbytes: int, bound: str) -> None:
    """Keep ``blocks``, the computed blocks of ``layer`` (``info``) of ``graph``, under
    ``bound``: while the layer lives, or while the inputs it is computed from do."""
    name, keys, inputs = info.name, _graph.block_keys(info), _inputs(graph, info.name)
    total = config_bytes(*_BOUNDS[bound])
    _drop(name)
    release = functools.partial(_release, name)
    ref = weakref.ref(layer, release)  # (Dask's layers, as the facts' records, are weak-referenced)
    refs = {k: weakref.ref(i, release) for k, i in (inputs or {}).items()}
    with _lock:
        _kept[name] = Kept(ref, keys, blocks, nbytes, refs or None, bound)
        _total[bound] += nbytes
        while _total[bound] > total:  # (the oldest under the same bound first)
            _drop(next(n for n, e in _kept.items() if e.bound == bound))
