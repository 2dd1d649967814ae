"""NumPy's functions and ufuncs on strict arrays (NEP 18 ``__array_function__``, NEP 13
``__array_ufunc__``): NumPy's value under NumPy's name (section 7 of the contract).

A call is checked by its row's rules (:mod:`._rules`: the rank rule on every pair of
arguments NumPy broadcasts together, decided by the mode and policy), then computed on
the device of its strict arrays: NumPy's own function on the data where the data is
NumPy's, the row's way on a lazy device. NumPy's array-likes beside strict arrays
(``ndarray``, lists, NumPy scalars) are taken as NumPy takes them, on that device. The
result is a strict array on the device (NumPy's ``out=`` arrays themselves where given).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from .. import _array
from .._array import Array, result, store
from .._backends import Device, device_of_native
from .._backends._numpy_ways import NoLazyValue, Whole, Writes, bound, numpy_name, signature
from .._errors import mixed_devices, refuse_operand
from .._typing import PY_SCALARS
from . import _rules
from ._table import ASSOCIATIVE, Compose, Row, Unless, by_function

__all__ = ["array_function", "array_ufunc", "row_of"]

_ROWS: dict[Any, Row] = {}


def row_of(func: Any) -> Row | None:
    """The row of a NumPy function object, or None."""
    if not _ROWS:
        _ROWS.update(by_function())
    return _ROWS.get(func)


# --- operands --------------------------------------------------------------------------------
def _foreign(value: Any) -> bool:
    """Another library's array (it decides for itself: NotImplemented); a raw array of
    a backend that is not NumPy's is refused with its fix."""
    t = type(value)
    if (
        t is Array
        or t in PY_SCALARS
        or value is None
        or isinstance(value, (np.ndarray, np.generic))
    ):
        return False
    if t in (list, tuple):
        return any(_foreign(v) for v in value)
    if device_of_native(value) is not None:
        return False  # (refused when the device is chosen)
    return hasattr(value, "__array_function__") or hasattr(value, "__array_ufunc__")


def _arrays_in(value: Any, found: list[Array]) -> None:
    if type(value) is Array:
        found.append(value)
    elif type(value) in (list, tuple) or isinstance(value, tuple):
        for v in value:
            _arrays_in(v, found)
    elif type(value) is dict:
        for v in value.values():
            _arrays_in(v, found)


def _device_of(op: str, arrays: list[Array]) -> Device:
    """The one device of a call's strict arrays: a 0-d host array acts as a scalar."""
    devices = list(dict.fromkeys(a._device for a in arrays if a._ndim or not a._device.host))
    if len(devices) > 1:
        raise mixed_devices(op, devices[0], devices[1])
    return devices[0] if devices else arrays[0]._device


def _on(dev: Device, op: str, value: Any) -> Any:
    """``value`` with each strict array in it as its data on ``dev``."""
    t = type(value)
    if t is Array:
        if value._device is dev:
            return value._data
        return dev.from_numpy(value._device.to_numpy(value._data))
    if t is list or t is tuple:
        return t(_on(dev, op, v) for v in value)
    if t is dict:
        return {k: _on(dev, op, v) for k, v in value.items()}
    if (
        t not in PY_SCALARS
        and device_of_native(value) is not None
        and not isinstance(value, (np.ndarray, np.generic))
    ):
        refuse_operand(op, value)  # a raw Dask array: strict_array.asarray(...) first
    return value


def _as_strict(dev: Device, value: Any) -> Any:
    """``value`` with NumPy's array-likes in it as strict arrays on ``dev`` (for the
    namespace's functions, which take strict arrays only)."""
    if type(value) is Array:
        return value if value._device is dev or value._ndim else result(
            dev.from_numpy(value._device.to_numpy(value._data)), dev)  # fmt: skip
    if isinstance(value, np.ndarray):
        return result(dev.from_numpy(value), dev)
    if type(value) in (list, tuple):
        return type(value)(_as_strict(dev, v) for v in value)
    return value


# --- results ---------------------------------------------------------------------------------
def _wrap(dev: Device, value: Any, given: dict[int, Array]) -> Any:
    """NumPy's result on ``dev`` as strict arrays: each array of the device's (an argument
    given back is that very strict array), NumPy's scalars as 0-d arrays, tuples, named
    tuples and lists item by item. An array of a dtype outside the standard's (dates,
    strings, objects) comes back as NumPy's."""
    if isinstance(value, tuple):
        items = [_wrap(dev, v, given) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    if type(value) is list:
        return [_wrap(dev, v, given) for v in value]
    same = given.get(id(value))
    if same is not None:
        return same
    if dev.owns(value) or isinstance(value, (np.ndarray, np.generic)):
        dtype = dev.dtype(value) if dev.owns(value) else value.dtype
        if dtype.kind not in "biufc":
            return dev.to_numpy(value) if dev.owns(value) else value
        if not dev.owns(value):
            value = dev.from_numpy(np.asarray(value))
        return result(value, dev)
    return value


def _given(arrays: list[Array], dev: Device) -> dict[int, Array]:
    return {id(a._data): a for a in arrays if a._device is dev}


def _onto_device(
    op: str, args: Any, kwargs: dict[str, Any]
) -> tuple[Device, Any, dict[str, Any], dict[int, Array]]:
    """The strict arrays' device, the arguments as its native values, and which native value
    came from which strict array (so a result that is an input comes back as that input)."""
    found: list[Array] = []
    _arrays_in((args, kwargs), found)
    dev = _device_of(op, found)
    return dev, _on(dev, op, args), _on(dev, op, kwargs), _given(found, dev)


# --- NEP 18 --------------------------------------------------------------------------------
def array_function(self: Array, func: Any, types: Any, args: tuple[Any, ...],
                   kwargs: dict[str, Any]) -> Any:  # fmt: skip
    """``Array.__array_function__``: NumPy's ``func``, NumPy's value, on the device."""
    for t in types:
        if t is not Array and not issubclass(t, np.ndarray) and device_of_native_type(t) is None:
            return NotImplemented
    row = row_of(func)
    name = row.numpy if row is not None else numpy_name(func)
    op = f"numpy.{name}"
    if row is not None:
        _rules.check(op, row.rules, func, args, kwargs)
        if type(row.lazy) is Compose and row.lazy.any_device:  # a question, not a value
            return row.lazy.fn(*args, **kwargs)
    dev, on_args, on_kwargs, given = _onto_device(op, args, kwargs)
    if dev.host:
        return _wrap(dev, func(*on_args, **on_kwargs), given)
    way = row.lazy if row is not None else None
    if way is None:
        raise _no_lazy_value(op, dev, "it has no row in strict_array's table of NumPy names")
    b = bound(func, on_args, on_kwargs) if type(way) is Unless else {}
    while type(way) is Unless:
        way = way.instead if way.why(b) else way.way
    if type(way) is Compose:
        return way.fn(*_as_strict(dev, args), **_as_strict(dev, kwargs))
    if type(way) is Writes:
        target = bound(func, args, kwargs)[way.target]
        if type(target) is not Array:
            raise TypeError(f"{op}: writes into {way.target}, which is a "
                            f"{type(target).__name__}, not a strict array.")  # fmt: skip
        return _written(target, dev.numpy_write(func, way, on_args, on_kwargs))
    out = _out_arrays(func, args, kwargs)
    if any(type(o) is Array for o in out):
        on_args, on_kwargs = _without_out(func, on_args, on_kwargs)
    value = _lazily(op, dev, dev.numpy_call, func, way, on_args, on_kwargs)
    if any(type(o) is Array for o in out):
        return _store_out(dev, out, value, given)
    return _wrap(dev, value, given)


def _written(target: Array, new: Any) -> None:
    """``new`` stored as ``target``'s data, as ``x[...] = v`` stores it (its views see it);
    NumPy's writing functions return None."""
    with _array.mutation_lock(target):
        store(target, new)


def _lazily(op: str, dev: Device, compute: Any, *args: Any) -> Any:
    """``compute(*args)`` on a lazy device; where it cannot give NumPy's value, the error
    that names the operation and the fix."""
    try:
        return compute(*args)
    except NoLazyValue as e:
        raise _no_lazy_value(op, dev, str(e)) from None


def device_of_native_type(t: type) -> Any:
    """The device whose native arrays are of type ``t``, or None."""
    return _native_types().get(t)


@functools.cache
def _native_types() -> dict[type, Device]:
    from .._backends import available_devices

    return {d.native: d for d in available_devices()}


def _no_lazy_value(op: str, dev: Device, why: str) -> TypeError:
    return TypeError(
        f"{op}: {dev!r} cannot give NumPy's value lazily ({why}); compute first: "
        f"{op}(np.asarray(x)), or move the array: x.to_device(strict_array.CPU)."
    )


def _out_arrays(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
    """What a function's ``out=`` holds, as a tuple."""
    try:
        out = bound(func, args, kwargs).get("out")
    except TypeError:
        return ()
    return out if isinstance(out, tuple) else (out,)


def _without_out(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
                 ) -> tuple[tuple[Any, ...], dict[str, Any]]:  # fmt: skip
    b = signature(func).bind(*args, **kwargs)
    b.arguments["out"] = None
    return b.args, b.kwargs


def _store_out(dev: Device, out: tuple[Any, ...], value: Any, given: dict[int, Array]) -> Any:
    """NumPy's result written into the strict arrays given as ``out=`` (NumPy's identity:
    those arrays are returned); an output given as None comes back new."""
    values = value if isinstance(value, tuple) else (value,)
    results = []
    for o, v in zip(out, values):
        if type(o) is not Array:
            results.append(_wrap(dev, v, given))
            continue
        data = v if dev.owns(v) else dev.from_numpy(np.asarray(v))
        if dev.shape(data) != o.shape:  # (NumPy's out= takes a broadcast result)
            data = dev.broadcast_to(data, o.shape)  # type: ignore[arg-type]
        if dev.dtype(data) != o.dtype:
            data = dev.ns.astype(data, o.dtype)
        with _array.mutation_lock(o):
            store(o, dev.assign(o._data, Ellipsis, data) if dev.views else data)
        results.append(o)
    return results[0] if len(results) == 1 else tuple(results)


# --- NEP 13 --------------------------------------------------------------------------------
def array_ufunc(self: Array, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
    """``Array.__array_ufunc__``: NumPy's ``ufunc``, NumPy's value, on the device."""
    if method == "__call__" and not kwargs and self._device.host:
        # the common case: arrays of one device and rank, and scalars, nothing to decide
        rank, datas = -1, []
        for v in inputs:
            t = type(v)
            if t is Array:
                if v._device is not self._device or (v._ndim and rank >= 0 and v._ndim != rank):
                    break
                if v._ndim:
                    rank = v._ndim
                datas.append(v._data)
            elif t in PY_SCALARS or (t is np.ndarray and (not v.ndim or v.ndim == rank)):
                datas.append(v)
            else:
                break
        else:
            if ufunc.signature is None:
                return _wrap(self._device, ufunc(*datas), {})
    out = kwargs.get("out")
    for v in (*inputs, *(out if isinstance(out, tuple) else ())):
        if _foreign(v):
            return NotImplemented
    _rules.check_ufunc(ufunc, method, inputs, kwargs)
    op = _rules.ufunc_name(ufunc) + ("" if method == "__call__" else f".{method}")
    dev, on_inputs, on_kwargs, given = _onto_device(op, inputs, kwargs)
    if dev.host:
        return _wrap(dev, getattr(ufunc, method)(*on_inputs, **on_kwargs), given)
    outs = out if isinstance(out, tuple) else ()
    if method == "at":
        target = inputs[0]
        if type(target) is not Array:
            raise TypeError(f"{op}: writes into its first argument, a {type(target).__name__}.")

        def at(a: Any, *rest: Any) -> None:
            ufunc.at(a, *rest)

        return _written(
            target, dev.numpy_write(at, Writes("a", Whole(("a", "rest"))), on_inputs, {})
        )
    value = _lazily(
        op, dev, dev.numpy_ufunc, ufunc, method, on_inputs, on_kwargs, ufunc.__name__ in ASSOCIATIVE
    )
    if any(type(o) is Array for o in outs):
        _check_out_casting(ufunc, method, inputs, kwargs, dev)
        return _store_out(dev, outs, value, given)
    return _wrap(dev, value, given)


def _check_out_casting(ufunc: Any, method: str, inputs: tuple[Any, ...],
                       kwargs: dict[str, Any], dev: Device) -> None:  # fmt: skip
    """NumPy's own error where a lazy result would not cast into ``out=`` (its ufunc on
    one element of each operand's dtype, into outputs of the outputs' dtypes)."""

    def one(v: Any) -> Any:
        if type(v) is Array:
            return np.ones((1,) * max(v._ndim, 1), v.dtype)
        if dev.owns(v) or isinstance(v, np.ndarray):
            return np.ones((1,) * max(v.ndim, 1), v.dtype)
        return v

    out = kwargs["out"]
    probe = {k: (tuple(None if o is None else one(o) for o in out) if k == "out" else one(v))
             for k, v in kwargs.items()}  # fmt: skip
    with np.errstate(all="ignore"):
        getattr(ufunc, method)(*(one(v) for v in inputs), **probe)
