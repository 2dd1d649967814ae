"""What the ``DASK`` device knows of an array beyond what Dask records: one record per
array (:class:`Facts`), and one per layer (:class:`LayerFacts`), written here alone.

Dask's objects are never written to: a record is kept beside its array (or layer),
for as long as that object lives, found by the object's identity. An array made
anew from its graph (``da.Array(graph, name, chunks)``) is another object with no
record: it is what Dask says it is, until :func:`carry` gives it the record of the
array it replaces.
"""

from __future__ import annotations

import dataclasses
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar


@dataclass(frozen=True)
class Facts:
    """What is known of one array (the default: nothing more than Dask says). Its
    origin: data (the default: computed from what was read or given), made from
    nothing (``remake``), a constant (``constant``, made from nothing too), or a slice
    of another array (``slice_of``)."""

    #: made from its blocks' places alone (``zeros``, ``arange``...): ``remake(chunks)``
    #: is the array in other chunks, at no cost
    remake: Callable[[tuple], Any] | None = None
    #: the one value of all its elements (a NumPy scalar of its dtype)
    constant: Any = None
    #: ``(source, key)``: it is ``source[key]``, a key of slices and integers (a rechunk
    #: rechunks ``source`` instead)
    slice_of: tuple[Any, tuple] | None = None
    #: each block's least and greatest value, ``(nblocks, 2)``, of a 1-D integer array
    #: (a take routes by them)
    ranges: Any = None
    #: the buckets of the sample sort an argsort's result was made by (a take by it
    #: carries another array through the same buckets)
    order: Any = None
    #: ``(data, region, value)``: ``value`` written into ``region`` of ``data`` (a read
    #: of that region is the value)
    written: tuple[Any, Any, Any] | None = None


@dataclass(frozen=True)
class LayerFacts:
    """What strict_array vouches for about one layer of a graph."""

    #: ``(shape, chunks, dtype)`` of the array strict_array returned on it
    declared: tuple[Any, Any, Any] | None = None
    #: it computes its blocks from their places alone (no read)
    from_nothing: bool = False


NONE, NO_LAYER_FACTS = Facts(), LayerFacts()
T = TypeVar("T")

#: id(object) -> (weak reference to it, its record): arrays' and layers' alike (Dask's
#: arrays compare element-wise and layers are mappings: neither can key a dict)
_records: dict[int, tuple[weakref.ref, Any]] = {}
_lock = threading.RLock()  # (graphs are built from several threads; a record may go
# while another is written: its weak reference calls back in the same thread)


def _get(obj: Any, default: T) -> T:
    entry = _records.get(id(obj))
    if entry is None or entry[0]() is not obj:
        return default
    return entry[1]  # type: ignore[no-any-return]


def _set(obj: Any, record: Any) -> None:
    key, records, lock = id(obj), _records, _lock  # (bound here: at exit, globals are gone)

    def gone(ref: weakref.ref) -> None:
        with lock:
            entry = records.get(key)
            if entry is not None and entry[0] is ref:
                del records[key]

    with _lock:
        _records[key] = (weakref.ref(obj, gone), record)


def of(x: Any) -> Facts:
    """The record of array ``x`` (:data:`NONE` for an array with none, or any object)."""
    return _get(x, NONE)


def note(x: T, **facts: Any) -> T:
    """``x``, with ``facts`` (fields of :class:`Facts`) added to its record."""
    _set(x, dataclasses.replace(of(x), **facts))
    return x


def carry(new: T, old: Any) -> T:
    """``new``, an array or layer made anew in place of ``old`` (same name, values and
    blocks: renamed, or cut to kept values), with ``old``'s record."""
    record = _get(old, None)
    if record is not None:
        _set(new, record)
    return new


def of_layer(layer: Any) -> LayerFacts:
    """The record of a graph's layer (:data:`NO_LAYER_FACTS` where none)."""
    return _get(layer, NO_LAYER_FACTS)


def note_layer(layer: Any, **facts: Any) -> None:
    """Add ``facts`` (fields of :class:`LayerFacts`) to ``layer``'s record."""
    _set(layer, dataclasses.replace(of_layer(layer), **facts))
