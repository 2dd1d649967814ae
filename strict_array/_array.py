"""The array object: one type, ``strict_array.Array``, on every device.

An ``Array`` holds backend data (a NumPy or Dask array) and its device. Every
operator funnels into the same code path as the namespace function it maps to
(``x + y`` is ``add(x, y)``), so strict broadcasting cannot differ between
them. Arrays are made by the namespace (``asarray``, ``zeros``, ...), never by
calling ``Array`` directly.
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any

import numpy as np

from ._devices import CPU, Device, as_device

__all__ = ["Array"]

_PY_SCALARS = frozenset({bool, int, float, complex})
_Scalar = bool | int | float | complex


class Array:
    """An n-dimensional array of the array API standard with strict broadcasting.

    Create arrays with :func:`strict_array.asarray` and the other creation
    functions. Operations between arrays of different ranks need
    ``broadcast_dimensions=`` (see :func:`strict_array.add`); Python scalars and
    same-rank size-1 broadcasting work as usual.

    Attributes
    ----------
    dtype : numpy.dtype
        The data type (NumPy dtype objects are the namespace's data types).
    device : Device
        ``strict_array.CPU`` (eager NumPy) or ``strict_array.DASK`` (lazy Dask).
    shape : tuple of int or None
        ``None`` marks a size not known until computed (lazy devices only).
    ndim, size, T, mT
        As in the standard.
    """

    __slots__ = ("__weakref__", "_data", "_device")
    # NumPy must not treat an Array as an operand of its ufuncs or operators:
    # `ndarray + Array` then reaches Array.__radd__, which refuses the mix.
    __array_ufunc__ = None
    __array_priority__ = 1000
    __hash__ = None  # type: ignore[assignment]

    _data: Any
    _device: Device

    def __new__(cls, *args: object, **kwargs: object) -> Array:
        raise TypeError(
            "strict_array.Array cannot be constructed directly; use strict_array.asarray(obj)."
        )

    if TYPE_CHECKING:
        # The operators are attached by _install_operators (each calls its namespace
        # function); these declarations let type checkers see them.
        def __add__(self, other: Array | _Scalar, /) -> Array: ...
        def __radd__(self, other: Array | _Scalar, /) -> Array: ...
        def __iadd__(self, other: Array | _Scalar, /) -> Array: ...
        def __sub__(self, other: Array | _Scalar, /) -> Array: ...
        def __rsub__(self, other: Array | _Scalar, /) -> Array: ...
        def __isub__(self, other: Array | _Scalar, /) -> Array: ...
        def __mul__(self, other: Array | _Scalar, /) -> Array: ...
        def __rmul__(self, other: Array | _Scalar, /) -> Array: ...
        def __imul__(self, other: Array | _Scalar, /) -> Array: ...
        def __truediv__(self, other: Array | _Scalar, /) -> Array: ...
        def __rtruediv__(self, other: Array | _Scalar, /) -> Array: ...
        def __itruediv__(self, other: Array | _Scalar, /) -> Array: ...
        def __floordiv__(self, other: Array | _Scalar, /) -> Array: ...
        def __rfloordiv__(self, other: Array | _Scalar, /) -> Array: ...
        def __ifloordiv__(self, other: Array | _Scalar, /) -> Array: ...
        def __mod__(self, other: Array | _Scalar, /) -> Array: ...
        def __rmod__(self, other: Array | _Scalar, /) -> Array: ...
        def __imod__(self, other: Array | _Scalar, /) -> Array: ...
        def __pow__(self, other: Array | _Scalar, /) -> Array: ...
        def __rpow__(self, other: Array | _Scalar, /) -> Array: ...
        def __ipow__(self, other: Array | _Scalar, /) -> Array: ...
        def __and__(self, other: Array | _Scalar, /) -> Array: ...
        def __rand__(self, other: Array | _Scalar, /) -> Array: ...
        def __iand__(self, other: Array | _Scalar, /) -> Array: ...
        def __or__(self, other: Array | _Scalar, /) -> Array: ...
        def __ror__(self, other: Array | _Scalar, /) -> Array: ...
        def __ior__(self, other: Array | _Scalar, /) -> Array: ...
        def __xor__(self, other: Array | _Scalar, /) -> Array: ...
        def __rxor__(self, other: Array | _Scalar, /) -> Array: ...
        def __ixor__(self, other: Array | _Scalar, /) -> Array: ...
        def __lshift__(self, other: Array | _Scalar, /) -> Array: ...
        def __rlshift__(self, other: Array | _Scalar, /) -> Array: ...
        def __ilshift__(self, other: Array | _Scalar, /) -> Array: ...
        def __rshift__(self, other: Array | _Scalar, /) -> Array: ...
        def __rrshift__(self, other: Array | _Scalar, /) -> Array: ...
        def __irshift__(self, other: Array | _Scalar, /) -> Array: ...
        def __eq__(self, other: Array | _Scalar, /) -> Array: ...  # type: ignore[override]
        def __ne__(self, other: Array | _Scalar, /) -> Array: ...  # type: ignore[override]
        def __lt__(self, other: Array | _Scalar, /) -> Array: ...  # type: ignore[override]
        def __le__(self, other: Array | _Scalar, /) -> Array: ...  # type: ignore[override]
        def __gt__(self, other: Array | _Scalar, /) -> Array: ...  # type: ignore[override]
        def __ge__(self, other: Array | _Scalar, /) -> Array: ...  # type: ignore[override]
        def __neg__(self) -> Array: ...
        def __pos__(self) -> Array: ...
        def __abs__(self) -> Array: ...
        def __invert__(self) -> Array: ...
        def __matmul__(self, other: Array, /) -> Array: ...
        def __rmatmul__(self, other: Array, /) -> Array: ...
        def __imatmul__(self, other: Array, /) -> Array: ...

    # --- attributes -----------------------------------------------------------------
    @property
    def dtype(self) -> np.dtype:
        """Data type of the array elements."""
        return self._data.dtype

    @property
    def device(self) -> Device:
        """The device the array lives on."""
        return self._device

    @property
    def ndim(self) -> int:
        """Number of axes."""
        return self._data.ndim

    @property
    def shape(self) -> tuple[int | None, ...]:
        """Array dimensions; ``None`` for sizes unknown until computed."""
        return self._device.shape(self._data)

    @property
    def size(self) -> int | None:
        """Number of elements, or ``None`` if any size is unknown."""
        n = 1
        for s in self.shape:
            if s is None:
                return None
            n *= s
        return n

    @property
    def chunks(self) -> tuple[tuple[int, ...], ...] | None:
        """Chunk sizes along each axis on a chunked device (``DASK``); None on ``CPU``.

        Not part of the standard. Choose chunks with ``asarray(..., chunks=)`` or
        ``to_device(..., chunks=)``.
        """
        return self._device.chunks(self._data)

    @property
    def T(self) -> Array:
        """Transpose of a 2-D array (use :attr:`mT` or ``permute_dims`` for other ranks)."""
        if self.ndim != 2:
            raise ValueError(
                f"Array.T: x.T is only defined for 2-D arrays, got shape {self.shape}; use "
                "x.mT to transpose the last two axes or permute_dims for any order."
            )
        return _wrap(self._data.T, self._device)

    @property
    def mT(self) -> Array:
        """Transpose of the last two axes (a stack of matrices)."""
        from ._linear_algebra import matrix_transpose

        return matrix_transpose(self)

    # --- interchange ----------------------------------------------------------------
    def __array_namespace__(self, /, *, api_version: str | None = None) -> types.ModuleType:
        """Return the ``strict_array`` namespace (the array API entry point)."""
        if api_version is not None and api_version not in _SUPPORTED_VERSIONS:
            raise ValueError(
                f"__array_namespace__: api_version {api_version!r} is not supported; "
                f"supported versions are {', '.join(_SUPPORTED_VERSIONS)}."
            )
        return _namespace

    def to_device(
        self, device: Device | str, /, *, stream: None = None, chunks: Any = None
    ) -> Array:
        """Copy the array to ``device``.

        Parameters
        ----------
        device : Device
            Target device. Moving to ``CPU`` computes a lazy array.
        stream : None
            Not used (no device here has streams); must be None.
        chunks : optional
            Chunking on a chunked device (Dask's ``chunks`` argument; default
            ``"auto"``).
        """
        if stream is not None:
            raise ValueError("to_device: stream must be None; no strict_array device has streams.")
        target = as_device(device, "to_device")
        if target is self._device:  # at most a lazy re-chunking
            return self if chunks is None else _wrap(target.rechunk(self._data, chunks), target)
        return _wrap(target.from_numpy(self._device.to_numpy(self._data), chunks), target)

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        # Lets NumPy-only code (np.asarray(x)) read the data; lazy arrays compute.
        data = self._device.to_numpy(self._data)
        if copy is True:
            return np.array(data, dtype=dtype, copy=True)
        return np.asarray(data, dtype=dtype)

    def __dlpack__(
        self,
        /,
        *,
        stream: Any = None,
        max_version: tuple[int, int] | None = None,
        dl_device: tuple[int, int] | None = None,
        copy: bool | None = None,
    ) -> Any:
        """Export the data through DLPack (lazy arrays compute first)."""
        data = self._device.to_numpy(self._data)
        kwargs: dict[str, Any] = {"stream": stream}
        if max_version is not None:
            kwargs["max_version"] = max_version
        if dl_device is not None:
            kwargs["dl_device"] = dl_device
        if copy is not None:
            kwargs["copy"] = copy
        return data.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        """DLPack device: the host CPU (``(1, 0)``) for every strict_array device."""
        return (1, 0)

    # --- Python scalars -------------------------------------------------------------
    def _scalar(self, kind: str, allowed: str) -> Any:
        if self.ndim != 0:
            raise TypeError(
                f"{kind}(x) needs a 0-d array, got shape {self.shape}; index a single "
                "element first (e.g. x[0, 1]) or reduce (e.g. xp.all(x))."
            )
        if self.dtype.kind not in allowed:
            raise TypeError(
                f"{kind}(x) is not defined for an array of dtype {self.dtype}; use astype first."
            )
        return self._device.to_numpy(self._data).item()

    def __bool__(self) -> bool:
        return bool(self._scalar("bool", "biufc"))

    def __int__(self) -> int:
        return int(self._scalar("int", "biuf"))

    def __float__(self) -> float:
        return float(self._scalar("float", "biuf"))

    def __complex__(self) -> complex:
        return complex(self._scalar("complex", "biufc"))

    def __index__(self) -> int:
        return int(self._scalar("operator.index", "iu"))

    # --- display --------------------------------------------------------------------
    def __repr__(self) -> str:
        dev = "" if self._device is CPU else f", device={self._device!r}"
        if self._device is CPU:
            body = np.array2string(self._data, separator=", ", prefix="Array(")
            return f"Array({body}, dtype={self.dtype}{dev})"
        return f"Array(<lazy, shape={self.shape}>, dtype={self.dtype}{dev})"

    def __str__(self) -> str:
        return self.__repr__()

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d array")
        n = self.shape[0]
        if n is None:
            raise TypeError("len(): the first axis has unknown size until computed")
        return n

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(len(self)))

    def __reduce__(self) -> tuple[Any, tuple[Any, str]]:
        return (_rebuild, (self._data, self._device.name))

    # --- indexing -------------------------------------------------------------------
    def __getitem__(self, key: Any, /) -> Array:
        tk = type(key)
        # basic indexing goes straight to the backend; anything else is checked
        if tk is tuple:
            for k in key:
                if type(k) not in _BASIC_INDEX_TYPES:
                    return _indexing.getitem(self, key)
        elif tk is not slice and tk is not int:
            return _indexing.getitem(self, key)
        try:
            r = self._data[key]
        except TypeError:  # e.g. Array slice bounds a backend will not __index__
            return _indexing.getitem(self, key)
        dev = self._device
        if type(r) is not dev.array_type:
            r = dev.coerce(r)
        out = _object_new(Array)
        out._data = r
        out._device = dev
        return out

    def __setitem__(self, key: Any, value: Any, /) -> None:
        _indexing.setitem(self, key, value)


_SUPPORTED_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")

_object_new = object.__new__
# set by _install_operators once the package is imported (they import this module)
_indexing: types.ModuleType
_namespace: types.ModuleType
_BASIC_INDEX_TYPES = frozenset({int, slice, type(Ellipsis), type(None)})


def _wrap(data: Any, device: Device) -> Array:
    """Make an Array from backend data (internal; no checks)."""
    a = _object_new(Array)
    a._data = data
    a._device = device
    return a


def _rebuild(data: Any, device_name: str) -> Array:
    return _wrap(data, as_device(device_name, "unpickle"))


def _install_operators() -> None:
    """Attach every operator, each calling the namespace function it maps to."""
    global _indexing, _namespace
    import strict_array as _namespace

    from . import _elementwise as ew
    from . import _indexing
    from ._linear_algebra import matmul

    binary = {
        "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "divide",
        "floordiv": "floor_divide", "mod": "remainder", "pow": "pow",
        "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
        "lshift": "bitwise_left_shift", "rshift": "bitwise_right_shift",
    }  # fmt: skip
    for short, name in binary.items():
        setattr(Array, f"__{short}__", ew.make_binary(name, "forward"))
        setattr(Array, f"__r{short}__", ew.make_binary(name, "reflected"))
        setattr(Array, f"__i{short}__", ew.inplace_operator(name))
    comparisons = {
        "eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal",
        "gt": "greater", "ge": "greater_equal",
    }  # fmt: skip
    for short, name in comparisons.items():
        setattr(Array, f"__{short}__", ew.make_binary(name, "forward"))
    for short, name in {
        "neg": "negative",
        "pos": "positive",
        "abs": "abs",
        "invert": "bitwise_invert",
    }.items():
        setattr(Array, f"__{short}__", ew.FUNCTIONS[name])

    def __matmul__(self: Array, other: Any) -> Array:
        if type(other) is not Array:
            return ew.refuse_operand("matmul", other)
        return matmul(self, other)

    def __rmatmul__(self: Array, other: Any) -> Array:
        if type(other) is not Array:
            return ew.refuse_operand("matmul", other)
        return matmul(other, self)

    def __imatmul__(self: Array, other: Any) -> Array:
        if type(other) is not Array:
            return ew.refuse_operand("matmul", other)
        return ew.assign_inplace("matmul", self, matmul(self, other))

    Array.__matmul__ = __matmul__  # type: ignore[method-assign]
    Array.__rmatmul__ = __rmatmul__  # type: ignore[method-assign]
    Array.__imatmul__ = __imatmul__  # type: ignore[method-assign]


def expect_array(op: str, x: object, name: str = "x") -> Array:
    """``x`` if it is an Array, else the TypeError naming the operation."""
    if type(x) is Array:
        return x
    from ._elementwise import refuse_operand

    return refuse_operand(f"{op} ({name})", x)


def common_device(op: str, arrays: Any) -> Device:
    """The one device of ``arrays`` (all must be Arrays on the same device)."""
    dev = None
    for i, a in enumerate(arrays):
        expect_array(op, a, f"argument {i}")
        if dev is None:
            dev = a._device
        elif a._device is not dev:
            from ._elementwise import mixed_devices

            raise mixed_devices(op, dev, a._device)
    if dev is None:
        raise ValueError(f"{op}: at least one array is required.")
    return dev


def result(data: Any, device: Device) -> Array:
    """Wrap a backend result, turning NumPy scalars into 0-d arrays."""
    if type(data) is not device.array_type:
        data = device.coerce(data)
    return _wrap(data, device)
