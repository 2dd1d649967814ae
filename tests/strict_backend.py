"""A third backend, over ``array_api_strict`` arrays, registered in this one file.

It proves the seam: strict_array knows backends only through the registry and
the :class:`~strict_array._backends.Device` hooks, so a backend is this much
code. ``array_api_strict`` is the standard's reference namespace; what this
file adds is only where it is stricter or more minimal than the standard
requires of strict_array's devices:

- its data types are its own objects, so dtypes are translated to and from
  NumPy's (strict_array's data types) at the boundary;
- the standard leaves mixed-kind type promotion (an integer array with a
  floating one) open and array_api_strict refuses it; strict_array's devices
  promote as NumPy does, so binary functions promote first; likewise sums and
  products of booleans count them, and FFTs take real input;
- integer index arrays, which array_api_strict takes only with integers (not
  with slices or several arrays of several dimensions, as strict_array's devices
  do), go through NumPy; a key for fewer axes than the array has gets its
  trailing Ellipsis.

Importing this module registers ``strict_array.STRICT`` (``conftest.py`` does,
and adds it to the device-parametrised tests).
"""

from __future__ import annotations

import types
from collections.abc import Callable, Sequence
from typing import Any

import array_api_strict as aas
import numpy as np
from array_api_strict._array_object import Array as StrictArray

from strict_array._backends import Device, register

_TO_STRICT = {
    np.dtype(d._np_dtype): d
    for d in (
        aas.bool, aas.int8, aas.int16, aas.int32, aas.int64, aas.uint8, aas.uint16,
        aas.uint32, aas.uint64, aas.float32, aas.float64, aas.complex64, aas.complex128,
    )
}  # fmt: skip


def _strict_dtype(value: Any) -> Any:
    if isinstance(value, np.dtype):
        return _TO_STRICT[value]
    return value


def _translating(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` taking NumPy dtypes where array_api_strict takes its own."""

    def call(*args: Any, **kwargs: Any) -> Any:
        return fn(*map(_strict_dtype, args), **{k: _strict_dtype(v) for k, v in kwargs.items()})

    return call


def _promoting(fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """A binary function that first promotes mixed kinds as NumPy does (Python
    scalars are weak, as in NumPy)."""

    def call(a: Any, b: Any) -> Any:
        dtypes = [_numpy_dtype(o) if isinstance(o, StrictArray) else o for o in (a, b)]
        common = _TO_STRICT[np.result_type(*dtypes)]
        a, b = (
            aas.astype(o, common) if isinstance(o, StrictArray) and o.dtype != common else o
            for o in (a, b)
        )
        return fn(a, b)

    return call


def _numpy_dtype(x: Any) -> np.dtype:
    return np.dtype(x.dtype._np_dtype)


def _complex_input(fn: Callable[..., Any]) -> Callable[..., Any]:
    def call(x: Any, /, **kwargs: Any) -> Any:
        if not aas.isdtype(x.dtype, "complex floating"):
            x = aas.astype(x, aas.complex64 if x.dtype == aas.float32 else aas.complex128)
        return fn(x, **kwargs)

    return call


def _counting_booleans(fn: Callable[..., Any]) -> Callable[..., Any]:
    def call(x: Any, /, **kwargs: Any) -> Any:
        if x.dtype == aas.bool:
            x = aas.astype(x, aas.int64)
        return fn(x, **kwargs)

    return call


def _namespace(module: Any) -> types.SimpleNamespace:
    return types.SimpleNamespace(
        **{
            name: _translating(value) if callable(value) and not isinstance(value, type) else value
            for name, value in vars(module).items()
            if not name.startswith("_")
        }
    )


def _complete(key: Any) -> Any:
    """The key with a trailing Ellipsis: NumPy (and strict_array) index the leading
    axes when fewer are given; the standard leaves that unspecified."""
    parts = key if isinstance(key, tuple) else (key,)
    if any(k is Ellipsis or (isinstance(k, StrictArray) and k.dtype == aas.bool) for k in parts):
        return key
    return (*parts, Ellipsis)


def _integer_arrays(key: Any) -> bool:
    parts = key if isinstance(key, tuple) else (key,)
    return any(isinstance(k, StrictArray) and k.dtype != aas.bool for k in parts)


class StrictDevice(Device):
    """Eager ``array_api_strict`` arrays."""

    array_type = StrictArray
    __slots__ = ()

    def _load_namespace(self) -> Any:
        ns = _namespace(aas)
        ns.linalg, ns.fft = _namespace(aas.linalg), _namespace(aas.fft)
        for name in ("fft", "ifft", "fftn", "ifftn"):  # NumPy takes real input too
            setattr(ns.fft, name, _complex_input(getattr(ns.fft, name)))
        for name in ("sum", "prod", "cumulative_sum", "cumulative_prod"):  # and booleans
            setattr(ns, name, _counting_booleans(getattr(ns, name)))
        return ns

    def binary(self, name: str) -> Callable[[Any, Any], Any]:
        fn = self.binaries.get(name)
        if fn is None:
            fn = self.binaries[name] = _promoting(getattr(self.ns, name))
        return fn

    def dtype(self, data: Any) -> np.dtype:
        return _numpy_dtype(data)

    def coerce(self, obj: Any) -> Any:
        return aas.asarray(obj)

    def from_numpy(self, arr: np.ndarray, chunks: Any = None) -> Any:
        return aas.asarray(np.array(arr))  # its own copy: strict arrays are not views of ours

    def compute(self, datas: Sequence[Any]) -> list[np.ndarray]:
        return [np.from_dlpack(d) for d in datas]

    def getitem(self, data: Any, key: Any) -> Any:
        if _integer_arrays(key):  # array_api_strict takes them only with integers
            numpy_key = tuple(
                np.from_dlpack(k) if isinstance(k, StrictArray) else k
                for k in (key if isinstance(key, tuple) else (key,))
            )
            return aas.asarray(np.from_dlpack(data)[numpy_key])
        return data[_complete(key)]

    def assign(self, data: Any, key: Any, value: Any) -> Any:
        if isinstance(value, StrictArray) and value.dtype != data.dtype:
            value = aas.astype(value, data.dtype)
        data[_complete(key)] = value
        return data


STRICT = StrictDevice("strict")
register("strict", f"{__name__}:STRICT", lambda obj: isinstance(obj, StrictArray))
