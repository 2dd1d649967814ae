"""Indexing: ``x[key]``, ``x[key] = value``, ``take`` and ``take_along_axis``.

Keys are not operands: nothing broadcasts against them, so besides ints,
slices, ``Ellipsis``, ``None`` and integer or boolean strict arrays, NumPy
integer and boolean index arrays are accepted too (scikit-learn and xarray
index with them). The value of an assignment follows the strict rank rule
against the selected region.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from . import _policy as policy
from ._array import (
    Array,
    _object_new,
    as_scalar,
    common_device,
    mutation_lock,
    own_lock,
    store,
    track_view,
)
from ._array import result as _result
from ._broadcasting import basic_key_rank, index_shape
from ._errors import ARRAY_OR_SCALAR, UNKNOWN_SIZES_FIX, RankPromotionError, mixed_devices
from ._flags import MASKS_CHECKED, refuse_boolean_index

__all__ = ["getitem", "setitem", "take", "take_along_axis"]

_BASIC_INDEX_TYPES = frozenset({int, slice, type(Ellipsis), type(None)})
_BOOL = np.dtype(bool)
_BOOL_ID = id(_BOOL)
#: NumPy's integer dtype singletons (index arrays of other dtype objects: the checks)
_INTEGER_IDS = frozenset(id(np.dtype(c)) for c in "bhilqBHILQ")
_FAILED = object()


def getitem(self: Array, key: Any, /) -> Array:
    """``x[key]``: basic, integer-array and boolean indexing (``Array.__getitem__``)."""
    tk = type(key)
    dev = self._device
    if not dev.views:  # a device whose arrays are values: its own indexing, tracked
        return _checked_getitem(self, key)
    # basic keys go straight to the backend (the result's rank counted on the way, as
    # _broadcasting.basic_key_rank counts it, inlined: this is the hot path of indexing);
    # anything else is checked first
    ndim = self._ndim
    if tk is tuple:
        for k in key:
            t = type(k)
            if t is int:
                ndim -= 1
            elif k is None:
                ndim += 1
            elif t is not slice and k is not Ellipsis:
                return _index_arrays_getitem(self, key)
    elif tk is int:
        ndim -= 1
    elif tk is Array:
        return _index_arrays_getitem(self, (key,))
    elif tk is not slice:
        return _checked_getitem(self, key)
    try:
        r = self._data[key]
    except (TypeError, IndexError, ValueError):  # e.g. out of bounds: say so precisely
        r = _FAILED
    if r is _FAILED:  # explained outside the handler, so the error is not chained
        return _checked_getitem(self, key)
    if type(r) is not dev.native:
        r = dev.coerce(r)
    # _array.RESULT, inlined: on this hot path a call is a measurable share of the cost
    # (benchmarks/bench_namespace.py, the core rows)
    out = _object_new(Array)
    out._data = r
    out._device = dev
    out._ndim = ndim
    return out


def _index_arrays_getitem(x: Array, key: tuple[Any, ...]) -> Array:
    """``x[key]`` for the common keys of index arrays, straight to the backend: one
    boolean array of ``x``'s shape, or integer arrays of one rank for the leading axes
    (``getitem``'s fast path, on a device with views). Anything else, and every error
    (an index out of bounds, sizes that do not broadcast), goes through the checks."""
    dev = x._device
    rank = key[0]._ndim if type(key[0]) is Array else -1
    for k in key:
        if type(k) is not Array or k._device is not dev or k._ndim != rank:
            break
        dtype = id(k._data.dtype)
        if dtype not in _INTEGER_IDS and not (
            dtype == _BOOL_ID
            and len(key) == 1
            and k._data.shape == x._data.shape
            and not MASKS_CHECKED[0]
        ):
            break
    else:
        try:
            r = x._data[key[0]._data if len(key) == 1 else tuple(k._data for k in key)]
        except (TypeError, IndexError, ValueError):
            r = _FAILED
        if r is not _FAILED:
            return _result(r, dev)
    # (outside the handler, so that the error explained is not chained)
    return _checked_getitem(x, key if len(key) > 1 else key[0])


def _checked_getitem(x: Array, key: Any) -> Array:
    k = _key("__getitem__", x, key)
    k = _check_key_shapes("__getitem__", x, k)
    dev = x._device
    try:
        data = dev.getitem(x._data, k)
    except (IndexError, TypeError, ValueError) as e:
        raise _index_error("__getitem__", e, x, key) from e
    out = _result(data, dev)
    if not dev.views and _is_basic(k):  # NumPy gives a view: carry writes over
        track_view(x, out, k)
    return out


def _check_key_shapes(op: str, x: Array, key: Any) -> Any:
    """Each key entry against the axes it indexes, before any backend: a boolean
    array's sizes against the axes' (NumPy's IndexError), and positions on axes of
    unknown size, which cannot be found before computing (section 4).

    Returns the key to index with: a boolean array with an axis of size 0 where the
    array's axis is not (which the standard allows: it selects nothing) becomes the
    empty integer arrays of its ``nonzero()``, as NumPy reads it (Dask fails to
    broadcast such a mask against the axis)."""
    parts = key if type(key) is tuple else (key,)
    shape = x.shape
    if None not in shape and _fits_known_sizes(x, parts, shape):
        return key
    consumed = [_axes_taken(x, k) for k in parts]
    if sum(n for n in consumed if n is not None) > len(shape):
        raise IndexError(
            f"{op}: too many indices for an array of shape {shape}: the key {_show(key)} "
            f"indexes {sum(n for n in consumed if n is not None)} axes."
        )
    rewritten: dict[int, tuple[Any, ...]] = {}
    axis = 0
    for position, (k, n) in enumerate(zip(parts, consumed)):
        if n is None:  # Ellipsis: the axes the rest of the key does not take
            axis = len(shape) - sum(m for m in consumed[position + 1 :] if m is not None)
            continue
        sizes = shape[axis : axis + n]
        kind = _kind(x, k)
        if kind == "b" and k.ndim:
            for i, (s, m) in enumerate(zip(sizes, _shape_of(k))):
                if m == 0 and s is not None and s != 0:
                    empty = x._device.index_from_numpy(np.zeros(0, np.intp))
                    rewritten[position] = (empty,) * k.ndim
                    continue
                if s is not None and m is not None and s != m:
                    raise IndexError(
                        f"{op}: boolean index did not match indexed array along axis "
                        f"{axis + i}; size of axis is {s} but size of corresponding "
                        f"boolean axis is {m}."
                    )
                if (s is None) != (m is None):
                    raise ValueError(
                        f"{op}: a boolean index of shape {_shape_of(k)} on axes of sizes "
                        f"{sizes} of an array of shape {shape}: an unknown size (None) "
                        "against a known one cannot be checked before computing."
                    )
        elif (
            sizes
            and sizes[0] is None
            and (type(k) is int or (type(k) is slice and k != slice(None)) or kind in ("i", "u"))
        ):
            raise ValueError(
                f"{op}: the key {_show(key)} takes a position ({k!r}) on axis {axis} of an "
                f"array of shape {shape}, whose size is unknown until computed; select with "
                f"a boolean mask, or {UNKNOWN_SIZES_FIX}."
            )
        axis += n
    if not rewritten:
        return key
    out = [e for position, p in enumerate(parts) for e in rewritten.get(position, (p,))]
    return tuple(out) if type(key) is tuple or len(out) > 1 else out[0]


def _fits_known_sizes(x: Array, parts: tuple[Any, ...], shape: tuple[int | None, ...]) -> bool:
    """Whether the checks of :func:`_check_key_shapes` pass at once for a key on known
    sizes: no more axes taken than there are, each boolean array of exactly the sizes
    of the axes it takes (an Ellipsis anywhere among index arrays: the general path)."""
    axis = 0
    arrays = ellipsis = False
    for k in parts:
        t = type(k)
        if t is int or t is slice:
            axis += 1
        elif k is None:
            continue
        elif k is Ellipsis:
            ellipsis = True
        elif _kind(x, k) == "b":
            arrays = True
            if tuple(k.shape) != shape[axis : axis + k.ndim]:
                return False
            axis += k.ndim
        elif hasattr(k, "shape"):
            arrays = True
            axis += 1
        else:
            return False
    return axis <= len(shape) and not (arrays and ellipsis)


def _kind(x: Array, k: Any) -> str | None:
    """The dtype kind of an index array of ``x``'s backend key, or None for the rest."""
    return x._device.dtype(k).kind if hasattr(k, "shape") else None


def _axes_taken(x: Array, k: Any) -> int | None:
    """How many axes a key entry indexes (None for Ellipsis, which takes the rest)."""
    if k is Ellipsis:
        return None
    if k is None:
        return 0
    return k.ndim if _kind(x, k) == "b" else 1


def _shape_of(k: Any) -> tuple[int | None, ...]:
    return tuple(None if s != s or s is None else int(s) for s in k.shape)


def _is_basic(key: Any) -> bool:
    return all(type(k) in _BASIC_INDEX_TYPES for k in (key if type(key) is tuple else (key,)))


def _index_error(op: str, error: Exception, x: Array, key: Any) -> Exception:
    return type(error)(f"{op}: key {_show(key)} on an array of shape {x.shape}: {error}")


def _show(key: Any) -> str:
    def one(k: Any) -> str:
        return f"<index array of shape {tuple(k.shape)}>" if hasattr(k, "shape") else repr(k)

    return "(" + ", ".join(map(one, key)) + ")" if type(key) is tuple else one(key)


def _key(op: str, x: Array, key: Any) -> Any:
    """The backend's key: Array indices unwrapped, NumPy index arrays placed on the
    device, slice bounds made ints; anything else refused with the fix."""
    parts = key if type(key) is tuple else (key,)
    dev = x._device
    out = []
    for k in parts:
        tk = type(k)
        if tk is Array:
            if k._device is not dev:
                raise mixed_devices(op, dev, k._device)
            if k.dtype.kind not in "biu":
                raise IndexError(
                    f"{op}: index arrays must be integer or boolean, got dtype {k.dtype}."
                )
            if k.dtype.kind == "b":
                refuse_boolean_index(op)
            out.append(k._data)
        elif tk is slice:
            # bounds may be 0-d integer Arrays or NumPy integers (anything with __index__)
            k = slice(
                *(None if b is None else operator.index(b) for b in (k.start, k.stop, k.step))
            )
            if k.step == 0:  # (before any backend: Dask checks the key's integers first)
                raise _index_error(op, ValueError("slice step cannot be zero"), x, key)
            out.append(k)
        elif tk in _BASIC_INDEX_TYPES:
            out.append(k)
        elif isinstance(k, (bool, np.bool_)):
            raise IndexError(
                f"{op}: a Python or NumPy bool is not a valid index; use a boolean Array "
                "of the indexed shape."
            )
        elif isinstance(k, np.ndarray) and k.dtype.kind in "biu":
            # a key, not an operand: no broadcasting to guard, so NumPy arrays are fine
            if k.dtype.kind == "b":
                refuse_boolean_index(op)
            out.append(dev.index_from_numpy(k))
        elif isinstance(k, np.integer) or (hasattr(k, "__index__") and not hasattr(k, "shape")):
            out.append(operator.index(k))
        else:
            raise IndexError(
                f"{op}: unsupported index {type(k).__name__} {k!r}; use ints, slices, "
                "Ellipsis, None, or integer/boolean arrays (strict_array or NumPy; convert "
                "lists with strict_array.asarray)."
            )
    return tuple(out) if type(key) is tuple else out[0]


def setitem(x: Array, key: Any, value: Any, /) -> None:
    """``x[key] = value`` (``Array.__setitem__``).

    ``value`` meets the selected region under the rank rule (section 2 of the
    semantics): a scalar, a 0-d array or an array of the region's rank that
    broadcasts to it. Its dtype must promote to ``x``'s (no silent lossy cast,
    e.g. a float into an integer array), and ``x`` keeps its dtype, shape and
    device. Concurrent writes to one array from several threads lose nothing.
    """
    op = "__setitem__"
    dev = x._device
    if dev.views and _write_in_place(x, key, value):
        return
    k = _key(op, x, key)
    if type(value) is Array:
        if value._device is not dev:
            raise mixed_devices(op, dev, value._device)
        # the rank rule first, then the key against the sizes, then the dtype
        _check_value_shape(op, _region(op, x, k, key, value.shape), value.shape)
        checked = _check_key_shapes(op, x, k)
        if np.result_type(x.dtype, value.dtype) != x.dtype:
            raise TypeError(
                f"{op}: cannot store values of dtype {value.dtype} into an array of dtype "
                f"{x.dtype} without a lossy cast; use astype on the value first."
            )
        v: Any = value._data
    else:
        checked = _check_key_shapes(op, x, k)
        v = as_scalar(op, value, ARRAY_OR_SCALAR)
        _check_scalar_kind(op, x.dtype, v)
    if checked is not k:  # a boolean key with an axis of size 0: nothing is selected
        return
    with mutation_lock(x):
        try:
            store(x, dev.assign(x._data, k, v))
        except (IndexError, TypeError, ValueError) as e:
            raise _index_error(op, e, x, key) from e


def _write_in_place(x: Array, key: Any, value: Any) -> bool:
    """The common writes, done without the general path's steps (``setitem``'s fast
    path, on a device whose writes land in its data): a basic key or a boolean mask
    of ``x``'s shape, and a Python scalar of ``x``'s kind or an array of ``x``'s dtype
    and of the region's rank. Everything else, and every error, returns False for the
    general path (NumPy checks the key and the value before it writes anything)."""
    tk = type(key)
    if tk is Array:  # a mask of x's shape selects a region of rank 1
        data = key._data
        if key._device is not x._device or data.dtype is not _BOOL or data.shape != x._data.shape:
            return False
        if MASKS_CHECKED[0]:  # (the general path checks the boolean_indexing flag)
            return False
        key, rank = data, 1
    else:
        rank = basic_key_rank(x._ndim, key)
        if rank < 0:
            return False
    tv = type(value)
    if tv is Array:  # of x's dtype, and the region's rank or none (size-1 axes broadcast)
        v: Any = value._data
        if value._device is not x._device or (value._ndim and value._ndim != rank):
            return False
        if v.dtype is not x._data.dtype:
            return False
    elif tv is bool or tv not in _SCALARS_FOR.get(id(x._data.dtype), ()):
        return False  # (the general path: bools, lossy kinds, other types)
    else:
        v = value  # (an int out of the dtype's bounds: NumPy's OverflowError, below)
    with own_lock(x):  # (a device with views)
        try:
            x._data = x._device.assign(x._data, key, v)
        except (IndexError, TypeError, ValueError, OverflowError):
            return False
    return True


def _region(
    op: str, x: Array, k: Any, key: Any, value: tuple[int | None, ...]
) -> tuple[int | None, ...]:
    """The shape of ``x[key]`` (``k``: the backend's key). Without boolean arrays it
    follows from the key alone, so that a data-independent error (the value's shape)
    is reported before a data-dependent one (an index out of bounds) on every
    device; with them it is the selection's, counted by the backend."""
    parts = k if type(k) is tuple else (k,)
    if not any(_kind(x, p) == "b" for p in parts):
        return index_shape(op, x.shape, parts)
    try:
        k = _check_key_shapes(op, x, k)  # a mask must fit before the backend selects with it
    except (IndexError, ValueError) as mask_error:
        # The region's rank is known without the mask's sizes (which an unknown size
        # hides on a lazy device): the rank rule is reported first, on every device
        region = index_shape(op, x.shape, _masks_as_positions(x, parts))
        if len(region) != len(value):
            try:
                _check_value_shape(op, region, value)
            except RankPromotionError:
                raise
            except ValueError:
                pass  # (the sizes: the mask's error below says what is wrong)
        raise mask_error
    dev = x._device
    try:
        return dev.shape(dev.getitem(x._data, k))
    except (IndexError, TypeError, ValueError) as e:
        raise _index_error(op, e, x, key) from e


class _Positions:
    """What a k-D boolean mask stands for in a key: k index arrays of one unknown
    length (its ``nonzero()``), for the region's shape without the data."""

    shape = (None,)


def _masks_as_positions(x: Array, parts: tuple) -> tuple:
    out: list[Any] = []
    for p in parts:
        if _kind(x, p) != "b":
            out.append(p)
        else:  # (a 0-d mask adds an axis of length 0 or 1, as None adds one)
            out.extend((_Positions(),) * p.ndim if p.ndim else (None,))
    return tuple(out)


def _check_value_shape(
    op: str, region: tuple[int | None, ...], value: tuple[int | None, ...]
) -> None:
    shape = policy.operands(op, region, value)
    if shape != region:
        raise ValueError(
            f"{op}: a value of shape {value} cannot be stored into the selected region of "
            f"shape {region}: it must broadcast to the region (sizes equal or 1)."
        )


#: kinds of array a Python scalar may be stored into without changing its meaning
_SCALAR_KINDS = {
    "b": (bool,),
    "i": (int,),
    "u": (int,),
    "f": (int, float),
    "c": (int, float, complex),
}
#: the Python scalar types each NumPy dtype takes, by the identity of NumPy's dtype
#: singletons (an array of another dtype object takes the general path)
_SCALARS_FOR = {id(np.dtype(c)): _SCALAR_KINDS[np.dtype(c).kind] for c in "?bhilqBHILQefdFD"}
#: the bounds of each integer dtype (np.iinfo costs a microsecond a call)
_INT_BOUNDS: dict[str, tuple[int, int]] = {}


def _check_scalar_kind(op: str, dtype: np.dtype, v: Any) -> None:
    if type(v) not in _SCALAR_KINDS[dtype.kind] and not (type(v) is bool and dtype.kind in "iufc"):
        raise TypeError(
            f"{op}: cannot store a Python {type(v).__name__} into an array of dtype "
            f"{dtype}; convert the value or the array (astype) first."
        )
    if dtype.kind in "iu" and type(v) is int:
        bounds = _INT_BOUNDS.get(dtype.char)
        if bounds is None:
            info = np.iinfo(dtype)
            bounds = _INT_BOUNDS[dtype.char] = (int(info.min), int(info.max))
        if not bounds[0] <= v <= bounds[1]:
            raise OverflowError(
                f"{op}: the Python int {v} is out of bounds for an array of dtype {dtype} "
                f"([{bounds[0]}, {bounds[1]}])."
            )


def take(x: Array, indices: Array, /, *, axis: int | None = None) -> Array:
    """Elements of ``x`` at integer ``indices`` along ``axis``.

    Parameters
    ----------
    x : Array
    indices : Array
        1-D integer array.
    axis : int, optional
        Required unless ``x`` is 1-D.

    Returns
    -------
    Array
    """
    dev = common_device("take", (x, indices))
    if axis is None:
        if x.ndim != 1:
            raise ValueError(f"take: axis is required for a {x.ndim}-D array.")
        axis = 0
    return _result(dev.ns.take(x._data, indices._data, axis=axis), dev)


def take_along_axis(x: Array, indices: Array, /, *, axis: int = -1) -> Array:
    """Elements of ``x`` at ``indices`` along ``axis``; ``indices`` has ``x``'s rank.

    Parameters
    ----------
    x : Array
    indices : Array
        Integer array of ``x``'s rank.
    axis : int, default -1

    Returns
    -------
    Array
    """
    dev = common_device("take_along_axis", (x, indices))
    if indices.ndim != x.ndim:
        raise ValueError(
            f"take_along_axis: indices of shape {indices.shape} must have the rank of x {x.shape}."
        )
    return _result(dev.ns.take_along_axis(x._data, indices._data, axis=axis), dev)
