"""The ``DASK`` device: lazy, chunked arrays on ``dask.array``. Dask does all chunking,
scheduling, spilling and distribution (on the active ``dask.distributed`` ``Client``)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import dask.array as da
import numpy as np

from ..._broadcasting import broadcast_shapes
from .. import Device
from . import _compute, _indexing, _io, _numpy_calls
from ._basics import (
    as_constant,
    bounded_broadcast_blocks,
    constant_value,
    made_from_nothing,
    paired_unknown_blocks,
    permuted,
    rechunk,
    remade,
    shape_with_none,
    standing_in_for,
    unknown,
    without_empty_blocks,
)
from ._namespace import auto_chunks, build_namespace, declared, declaring


def _checking_unknown_sizes(op: str, fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """Dask lets an unknown size meet any size; the contract refuses a known size
    other than 1, when the expression is built. Blocks that broadcasting would make
    too large are split first (:func:`bounded_broadcast_blocks`)."""

    def checked(a: Any, b: Any) -> Any:
        if isinstance(a, da.Array) and isinstance(b, da.Array) and a.ndim == b.ndim:
            s1, s2 = a.shape, b.shape
            if any(map(unknown, s1)) or any(map(unknown, s2)):
                broadcast_shapes(op, shape_with_none(s1), shape_with_none(s2))
                a, b = paired_unknown_blocks(a, b)
            else:
                itemsize = np.result_type(a.dtype, b.dtype).itemsize
                a2, b2 = _compute.made_alike(*bounded_broadcast_blocks(a, b, itemsize))
                if a2 is not a or b2 is not b:
                    a, b = declared(a2), declared(b2)
        return made_again_alike(fn, a, b)

    return checked


def made_again_alike(fn: Callable[[Any, Any], Any], a: Any, b: Any) -> Any:
    """``fn(a, b)``, noted as made from nothing (:func:`made_from_nothing`) where every
    operand with axes is made from nothing and of the result's shape, the other one a
    scalar or 0-d (``3 * arange(n)``, ``ones(n) / 2``): in other blocks it is made
    again, not rechunked."""
    out = fn(a, b)
    if not isinstance(out, da.Array):
        return out
    parts = [x for x in (a, b) if isinstance(x, da.Array) and x.ndim]
    if parts and all(remade(x) and x.shape == out.shape for x in parts):
        made_from_nothing(out, lambda chunks: fn(*(
            rechunk(x, dict(enumerate(chunks))) if isinstance(x, da.Array) and x.ndim else x
            for x in (a, b)
        )))  # fmt: skip
    return out


class DaskDevice(Device):
    """Lazy, chunked Dask arrays (out-of-core and distributed)."""

    array_type = da.Array
    lazy = True
    __slots__ = ()

    def _load_namespace(self) -> Any:
        return build_namespace()

    # Every array this device returns is declared to the planner (_namespace.declared):
    # the namespace's functions and the hooks below.
    def _reshape_function(self) -> Callable[[Any, tuple[int, ...]], Any]:
        return self.ns.reshape  # type: ignore[no-any-return]

    def binary(self, name: str) -> Callable[[Any, Any], Any]:
        fn = self.binaries.get(name)
        if fn is None:
            fn = _checking_unknown_sizes(name, getattr(self.ns, name))
            fn = self.binaries[name] = declaring(fn)
        return fn

    def coerce(self, obj: Any) -> da.Array:
        return declared(da.asarray(obj))

    def create(self, name: str, *args: Any, chunks: Any = None, **kwargs: Any) -> da.Array:
        if chunks is not None:
            kwargs["chunks"] = chunks
        return declared(without_empty_blocks(getattr(self.ns, name)(*args, **kwargs)))

    def from_numpy(self, arr: np.ndarray, chunks: Any = None) -> da.Array:
        data = da.from_array(arr, chunks=auto_chunks(arr.shape, chunks))
        return declared(without_empty_blocks(data))

    def compute(self, datas: Sequence[da.Array]) -> list[np.ndarray]:
        return _compute.compute(datas)

    def plan(self, datas: Sequence[da.Array]) -> str:
        return str(_compute.plan(datas))

    def persist(self, datas: Sequence[da.Array]) -> list[da.Array]:
        return _compute.persist(datas)

    def rechunk(self, data: da.Array, chunks: Any) -> da.Array:
        return declared(without_empty_blocks(data if chunks is None else data.rechunk(chunks)))

    def chunks(self, data: da.Array) -> tuple[tuple[int | None, ...], ...]:
        return tuple(shape_with_none(axis) for axis in data.chunks)

    def shape(self, data: da.Array) -> tuple[int | None, ...]:
        return shape_with_none(data.shape)

    def sizes_for_caller(self, data: da.Array) -> da.Array:
        # a streaming pass over what data is computed from: its blocks' sizes only
        return declared(_compute.known_sizes(data)) if _compute.sizes_asked() else data

    def map_blocks(self, kernel: Callable[[np.ndarray], np.ndarray], data: da.Array) -> da.Array:
        return declared(da.map_blocks(kernel, data, dtype=data.dtype))

    def transpose(self, data: da.Array) -> da.Array:
        # not declared to the planner (see Array.T); made from nothing where data is
        return permuted(data.T, data, (1, 0))

    def index_from_numpy(self, index: np.ndarray) -> np.ndarray:
        return index  # Dask takes NumPy index arrays, and then knows the result's size

    def getitem(self, data: da.Array, key: Any) -> da.Array:
        value = constant_value(data)
        if value is None:
            out = _indexing.getitem(data, key)
        elif any(isinstance(k, da.Array) for k in (key if isinstance(key, tuple) else (key,))):
            # a constant selected by data (checked when computed): from blocks that hold
            # one element each, broadcast (a gather made each block whole)
            out = _indexing.getitem(standing_in_for(data, value), key)
        else:  # (a key of slices and NumPy indices, checked here)
            out = as_constant(_indexing.getitem(data, key), value)
        if not _compute.unknown_chunks(out) or not _compute.sizes_asked():
            return declared(out)
        aligned = _indexing.aligned_mask(data, key)
        if aligned is not None:  # sizes from one pass over the mask; the selection stays lazy
            axis, mask = aligned
            mask, counts = _compute.counted(mask)
            return declared(_indexing.select_counted(data, axis, mask, counts))
        return declared(_compute.persisted_with_sizes([out])[0])

    def assign(self, data: da.Array, key: Any, value: Any) -> da.Array:
        return declared(_indexing.assign(data, key, value))

    def broadcast_to(self, data: da.Array, shape: tuple[int, ...]) -> da.Array:
        # mapped axes keep their chunks; new or stretched axes get Dask's automatic
        # chunking, never one chunk spanning a whole large axis
        lead = len(shape) - data.ndim
        auto = auto_chunks(shape)
        spec = [auto] * lead + [
            c if data.shape[i] == shape[lead + i] else auto for i, c in enumerate(data.chunks)
        ]
        chunks = da.core.normalize_chunks(tuple(spec), shape, dtype=data.dtype)
        return declared(
            as_constant(da.broadcast_to(data, shape, chunks=chunks), constant_value(data))
        )

    def broadcast_together(
        self, datas: Sequence[da.Array], shape: tuple[int | None, ...]
    ) -> list[da.Array]:
        if None not in shape:  # (the strict side's unknown size)
            return super().broadcast_together(datas, shape)
        # A size unknown until computed (a mask's) cannot be a target of broadcast_to: each
        # block is broadcast beside its partners' blocks (SEMANTICS section 4: unknown
        # against 1 stays unknown); an array already of the shape is left as it is
        return [
            d if self.shape(d) == shape
            else declared(da.core.elemwise(functools.partial(_broadcast_block, i), *datas,
                                           dtype=d.dtype))
            for i, d in enumerate(datas)
        ]  # fmt: skip

    def align_to(self, low: da.Array, high: Any) -> da.Array:
        if not isinstance(high, da.Array):
            return low
        # match the large operand's chunks on mapped axes of equal size, so that
        # blockwise never re-splits the large operand; size-1 axes are 1-blocks
        lead = high.ndim - low.ndim
        target = tuple(
            hc if ls == hs and ls == ls else lc
            for lc, hc, ls, hs in zip(low.chunks, high.chunks[lead:], low.shape, high.shape[lead:])
        )
        if target == low.chunks:
            return low
        # (an array made from nothing is made again in them: rechunked by Dask, a cluster's
        # scheduler makes its pieces after reading all of the large operand)
        changed = {a: t for a, (t, c) in enumerate(zip(target, low.chunks)) if t != c}
        return declared(rechunk(low, changed))  # type: ignore[no-any-return]

    def numpy_call(self, func: Any, way: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        return _compute.sized(_numpy_calls.numpy_call(func, way, args, kwargs))

    def numpy_write(
        self, func: Any, way: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        return _numpy_calls.numpy_write(func, way, args, kwargs)

    def numpy_ufunc(self, ufunc: Any, method: str, inputs: tuple[Any, ...],
                    kwargs: dict[str, Any], associative: bool = False) -> Any:  # fmt: skip
        return _numpy_calls.numpy_ufunc(ufunc, method, inputs, kwargs, associative)

    def from_npy(self, path: str, chunks: Any) -> da.Array:
        return declared(without_empty_blocks(_io.from_npy(path, chunks)))

    def from_zarr(self, store: Any, component: str | None, chunks: Any) -> da.Array:
        return declared(without_empty_blocks(_io.from_zarr(store, component, chunks)))

    def to_npy(self, data: da.Array, path: str) -> None:
        _io.to_npy(data, path)

    def to_zarr(
        self, data: da.Array, store: Any, component: str | None, *, overwrite: bool, compute: bool
    ) -> Any:
        return _io.to_zarr(data, store, component, overwrite=overwrite, compute=compute)


DASK: Device = DaskDevice("dask", views=False)  # Dask arrays are values


def _broadcast_block(i: int, *blocks: np.ndarray) -> np.ndarray:
    """Block ``i`` of ``blocks`` broadcast to the shape of them all."""
    shape = np.broadcast_shapes(*(np.shape(b) for b in blocks))
    return np.broadcast_to(blocks[i], shape)
