"""The array object: one type, ``strict_array.Array``, on every device.

An ``Array`` holds backend data and its device. Operators are attached by
:mod:`strict_array._operators`, each calling the namespace function it maps to
(``x + y`` is ``add(x, y)``), so strict broadcasting cannot differ between
them. Arrays are made by the namespace (``asarray``, ``zeros``, ...), never by
calling ``Array`` directly; inside the package, :func:`result` is the one
constructor from backend data.
"""

from __future__ import annotations

import linecache
import os
import sys
import textwrap
import threading
import types
import weakref
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ._backends import Device
from ._caller import ours
from ._errors import ARRAY, UNKNOWN_SIZES_FIX, mixed_devices, refuse_operand
from ._flags import require_behaviour
from ._typing import DeviceLike, Scalar, is_scalar, python_scalar

__all__ = [
    "RESULT", "Array", "as_scalar", "common_device", "compile_function", "expect_array",
    "mutation_lock", "operands_on_one_device", "own_lock", "result", "store", "track_view",
]  # fmt: skip


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

    # the rank is kept beside the data: reading it from a NumPy array is a slow generic
    # attribute lookup, from a Dask array a computation of its shape
    # (_base and _views: the view links of arrays on devices whose indexing copies;
    # unset on every other array)
    __slots__ = ("__weakref__", "_base", "_data", "_device", "_ndim", "_views")
    __array_priority__ = 1000
    __hash__ = None  # type: ignore[assignment]

    _data: Any
    _device: Device
    _ndim: int
    _base: tuple[Array, Any]
    _views: list[weakref.ref[Array]]

    def __new__(cls, *args: object, **kwargs: object) -> Array:
        raise TypeError(
            "strict_array.Array cannot be constructed directly; use strict_array.asarray(obj)."
        )

    if TYPE_CHECKING:
        # Attached by strict_array._operators (each calls its namespace function);
        # these declarations let type checkers see them.
        def __getitem__(self, key: Any, /) -> Array: ...
        def __setitem__(self, key: Any, value: Array | Scalar, /) -> None: ...
        @property
        def mT(self) -> Array: ...
        def __add__(self, other: Array | Scalar, /) -> Array: ...
        def __radd__(self, other: Array | Scalar, /) -> Array: ...
        def __iadd__(self, other: Array | Scalar, /) -> Array: ...
        def __sub__(self, other: Array | Scalar, /) -> Array: ...
        def __rsub__(self, other: Array | Scalar, /) -> Array: ...
        def __isub__(self, other: Array | Scalar, /) -> Array: ...
        def __mul__(self, other: Array | Scalar, /) -> Array: ...
        def __rmul__(self, other: Array | Scalar, /) -> Array: ...
        def __imul__(self, other: Array | Scalar, /) -> Array: ...
        def __truediv__(self, other: Array | Scalar, /) -> Array: ...
        def __rtruediv__(self, other: Array | Scalar, /) -> Array: ...
        def __itruediv__(self, other: Array | Scalar, /) -> Array: ...
        def __floordiv__(self, other: Array | Scalar, /) -> Array: ...
        def __rfloordiv__(self, other: Array | Scalar, /) -> Array: ...
        def __ifloordiv__(self, other: Array | Scalar, /) -> Array: ...
        def __mod__(self, other: Array | Scalar, /) -> Array: ...
        def __rmod__(self, other: Array | Scalar, /) -> Array: ...
        def __imod__(self, other: Array | Scalar, /) -> Array: ...
        def __pow__(self, other: Array | Scalar, /) -> Array: ...
        def __rpow__(self, other: Array | Scalar, /) -> Array: ...
        def __ipow__(self, other: Array | Scalar, /) -> Array: ...
        def __and__(self, other: Array | Scalar, /) -> Array: ...
        def __rand__(self, other: Array | Scalar, /) -> Array: ...
        def __iand__(self, other: Array | Scalar, /) -> Array: ...
        def __or__(self, other: Array | Scalar, /) -> Array: ...
        def __ror__(self, other: Array | Scalar, /) -> Array: ...
        def __ior__(self, other: Array | Scalar, /) -> Array: ...
        def __xor__(self, other: Array | Scalar, /) -> Array: ...
        def __rxor__(self, other: Array | Scalar, /) -> Array: ...
        def __ixor__(self, other: Array | Scalar, /) -> Array: ...
        def __lshift__(self, other: Array | Scalar, /) -> Array: ...
        def __rlshift__(self, other: Array | Scalar, /) -> Array: ...
        def __ilshift__(self, other: Array | Scalar, /) -> Array: ...
        def __rshift__(self, other: Array | Scalar, /) -> Array: ...
        def __rrshift__(self, other: Array | Scalar, /) -> Array: ...
        def __irshift__(self, other: Array | Scalar, /) -> Array: ...
        def __eq__(self, other: Array | Scalar, /) -> Array: ...  # type: ignore[override]
        def __ne__(self, other: Array | Scalar, /) -> Array: ...  # type: ignore[override]
        def __lt__(self, other: Array | Scalar, /) -> Array: ...
        def __le__(self, other: Array | Scalar, /) -> Array: ...
        def __gt__(self, other: Array | Scalar, /) -> Array: ...
        def __ge__(self, other: Array | Scalar, /) -> Array: ...
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
        return self._device.dtype(self._data)

    @property
    def device(self) -> Device:
        """The device the array lives on."""
        return self._device

    @property
    def ndim(self) -> int:
        """Number of axes."""
        return self._ndim

    @property
    def shape(self) -> tuple[int | None, ...]:
        """Array dimensions; ``None`` for sizes unknown until computed."""
        shape = self._device.shape(self._data)
        return shape if None not in shape else self._shape_for(sys._getframe(1))

    def _shape_for(self, frame: types.FrameType) -> tuple[int | None, ...]:
        """The shape, as the code of ``frame`` asks for it: a consumer that reads sizes as
        numbers gets unknown ones computed now, where the setting asks for it (the data
        keeps its graph, with its sizes known); strict_array's own code takes unknown
        sizes as they are."""
        shape = self._device.shape(self._data)
        if None in shape and not ours(frame):
            self._data = self._device.sizes_for_caller(self._data)
            shape = self._device.shape(self._data)
        return shape

    @property
    def size(self) -> int | None:
        """Number of elements, or ``None`` if any size is unknown."""
        n = 1
        for s in self._shape_for(sys._getframe(1)):
            if s is None:
                return None
            n *= s
        return n

    @property
    def chunks(self) -> tuple[tuple[int | None, ...], ...] | None:
        """Chunk sizes along each axis on a chunked device (``DASK``); None on ``CPU``.

        Not part of the standard. An unknown (data-dependent) chunk size is
        ``None``, as in :attr:`shape`. Choose chunks with the ``chunks=`` argument
        of the creation functions and of :meth:`to_device`.
        """
        return self._device.chunks(self._data)

    @property
    def T(self) -> Array:
        """Transpose of a 2-D array (use :attr:`mT` or ``permute_dims`` for other ranks)."""
        if self._ndim != 2:
            raise ValueError(
                f"Array.T: x.T is only defined for 2-D arrays, got shape {self.shape}; use "
                "x.mT to transpose the last two axes or permute_dims for any order."
            )
        # (the device's transpose, not its permute_dims: on DASK that one's result is
        # declared to the planner, which would then cut a computation at the transposed
        # products rather than at the small result they make, and hold more memory;
        # docs/dev/scikit-learn-log.md has the run that showed it)
        return result(self._device.transpose(self._data), self._device)

    # --- interchange ----------------------------------------------------------------
    def __array_namespace__(self, /, *, api_version: str | None = None) -> types.ModuleType:
        """Return the ``strict_array`` namespace (the array API entry point)."""
        if api_version is not None and api_version not in SUPPORTED_VERSIONS:
            raise ValueError(
                f"__array_namespace__: api_version {api_version!r} is not supported; "
                f"supported versions are {', '.join(SUPPORTED_VERSIONS)}."
            )
        return _namespace

    def to_device(self, device: DeviceLike, /, *, stream: None = None, chunks: Any = None) -> Array:
        """Copy the array to ``device``.

        Parameters
        ----------
        device : Device or str
            Target device. Moving to ``CPU`` computes a lazy array.
        stream : None
            Not used (no device here has streams); must be None.
        chunks : optional
            Chunking on a chunked device (Dask's ``chunks`` argument; default
            ``"auto"``).

        Returns
        -------
        Array
        """
        from ._devices import as_device

        if stream is not None:
            raise ValueError("to_device: stream must be None; no strict_array device has streams.")
        target = as_device(device, "to_device")
        target.check_chunks("to_device", chunks)
        if target is self._device:  # at most a lazy re-chunking
            return self if chunks is None else result(target.rechunk(self._data, chunks), target)
        return result(target.from_numpy(self._device.to_numpy(self._data), chunks), target)

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
        if max_version is not None or dl_device is not None or copy is not None:
            require_behaviour("__dlpack__ keywords", "__dlpack__")
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
        """DLPack device of the exported data (``(1, 0)``, the host CPU, here)."""
        return self._device.dlpack_device

    # --- Python scalars -------------------------------------------------------------
    def _scalar(self, kind: str, allowed: str) -> Any:
        if self._ndim != 0:
            element = "x[" + ", ".join("0" * self.ndim) + "]"
            raise TypeError(
                f"{kind}(x) needs a 0-d array, got shape {self.shape}; index a single "
                f"element first (e.g. {element}) or reduce (e.g. strict_array.all(x))."
            )
        dev = self._device
        if dev.dtype(self._data).kind not in allowed:
            raise TypeError(
                f"{kind}(x) is not defined for an array of dtype {self.dtype}; use astype first."
            )
        return dev.item(self._data)

    def __bool__(self) -> bool:
        if self._ndim == 0:  # (the hot path of `if x > 0:`; every standard dtype converts)
            return bool(self._device.item(self._data))
        return bool(self._scalar("bool", "biufc"))  # (its error)

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
        dev = self._device
        suffix = "" if dev.host else f", device={dev!r}"
        if dev.lazy:
            return f"Array(<lazy, shape={self.shape}>, dtype={self.dtype}{suffix})"
        body = np.array2string(dev.to_numpy(self._data), separator=", ", prefix="Array(")
        return f"Array({body}, dtype={self.dtype}{suffix})"

    def __str__(self) -> str:
        return self.__repr__()

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d array")
        n = self._shape_for(sys._getframe(1))[0]
        if n is None:
            raise TypeError(
                f"len(): the first axis has a size unknown until computed; {UNKNOWN_SIZES_FIX}."
            )
        return n

    def __iter__(self) -> Iterator[Array]:
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(len(self)))

    def __reduce__(self) -> tuple[Any, tuple[Any, Device]]:
        return (result, (self._data, self._device))

    # --- NumPy's own calls ----------------------------------------------------------
    # __array_function__ (NEP 18), __array_ufunc__ (NEP 13) and the NumPy methods' hints
    # are attached by strict_array._numpy_api.install, from its one table of NumPy names.
    if TYPE_CHECKING:

        def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any: ...
        def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any: ...


SUPPORTED_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")

#: the strict_array module (set by strict_array._operators.install)
_namespace = types.ModuleType("strict_array")
_object_new = object.__new__
#: the package's folder: generated code is named inside it
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


#: How the Array of backend data ``r`` on device ``dev`` is made, ``{ndim}`` its rank: the
#: one source of :func:`result`, inlined into the hot paths compiled from templates (the
#: element-wise fast path, :mod:`strict_array._elementwise`), where a call would be a
#: large share of the operation; three more hot paths inline it by hand (``getitem``,
#: ``reshape``, ``matmul``; benchmarks/bench_namespace.py measures each)
RESULT = """\
if type(r) is not dev.native:
    r = dev.coerce(r)
out = _object_new(Array)
out._data = r
out._device = dev
out._ndim = {ndim}
return out"""


def compile_function(name: str, source: str, namespace: dict[str, Any]) -> Any:
    """The function ``name`` defined by ``source``, compiled with ``namespace`` (plus
    :class:`Array` and the constructor's names) as its globals; it belongs to the module
    ``namespace["__name__"]`` (this one by default: pickles find it there)."""
    scope = {"__name__": __name__, "Array": Array, "_object_new": _object_new, **namespace}
    # (a file name inside the package, as tools that tell a library's frames from its
    # caller's by path expect (pytest, coverage, consumers' site finders); its source in
    # linecache, as attrs does for its generated methods, so that tracebacks show it)
    filename = os.path.join(_PACKAGE_DIR, f"<generated {name}>")
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), scope)
    return scope[name]


def _indented(source: str, spaces: int = 4) -> str:
    return textwrap.indent(source, " " * spaces)


if TYPE_CHECKING:

    def result(data: Any, device: Device) -> Array:
        """The Array of backend ``data`` on ``device`` (NumPy scalars become 0-d arrays)."""

else:
    result = compile_function(
        "result", "def result(r, dev):\n" + _indented(RESULT.format(ndim="r.ndim")), {}
    )
    result.__doc__ = "The Array of backend ``r`` on ``dev`` (NumPy scalars become 0-d arrays)."


def expect_array(op: str, x: object, name: str = "x") -> Array:
    """``x`` if it is an Array, else the TypeError naming the operation."""
    if type(x) is Array:
        return x
    refuse_operand(f"{op} ({name})", x, ARRAY)


def common_device(op: str, arrays: Sequence[object]) -> Device:
    """The one device of ``arrays`` (all must be Arrays on the same device)."""
    dev = None
    for item in arrays:
        # (the argument's position is formatted for the error alone)
        a = item if type(item) is Array else expect_array(op, item, f"argument {_at(arrays, item)}")
        if dev is None:
            dev = a._device
        elif a._device is not dev:
            raise mixed_devices(op, dev, a._device)
    if dev is None:
        raise ValueError(f"{op}: at least one array is required.")
    return dev


def _at(items: Sequence[object], item: object) -> int:
    """The position of ``item`` in ``items``, by identity (``==`` of arrays is elementwise)."""
    return next(i for i, other in enumerate(items) if other is item)


def operands_on_one_device(op: str, arrays: Sequence[Array]) -> tuple[Device, list[Any]]:
    """The one device of ``arrays`` and their data there.

    A 0-d array on the host device acts as a scalar, as a Python scalar would:
    with arrays of another device it is moved there (code such as xarray's makes
    its fill values with ``asarray(scalar)``, on the default device). Any other
    mix of devices is an error.
    """
    devices = list(dict.fromkeys(a._device for a in arrays if a._ndim or not a._device.host))
    if len(devices) > 1:
        raise mixed_devices(op, devices[0], devices[1])
    dev = devices[0] if devices else arrays[0]._device
    if not dev.takes_host_scalars:  # (a simulated device: every mix is refused)
        for a in arrays:
            if a._device is not dev:
                raise mixed_devices(op, dev, a._device)
    return dev, [
        a._data if a._device is dev else dev.from_numpy(a._device.to_numpy(a._data)) for a in arrays
    ]


def as_scalar(op: str, value: object, accepts: str = ARRAY) -> Scalar:
    """A Python scalar argument; NumPy scalars become Python scalars (weak typing)."""
    if is_scalar(value):
        return python_scalar(value)
    refuse_operand(op, value, accepts)


# Writes to one array (x[key] = v, in-place operators) read, compute and store its
# data; concurrent writers from threads must not interleave there, or updates are
# lost. A fixed table of locks, picked by the identity of the array that owns the
# data (the root of its views), costs nothing per array and lets writes to
# different arrays proceed in parallel.
_MUTATION_LOCKS = tuple(threading.RLock() for _ in range(64))


def _root(x: Array) -> Array:
    base = getattr(x, "_base", None)
    while base is not None:
        x = base[0]
        base = getattr(x, "_base", None)
    return x


def mutation_lock(x: Array) -> threading.RLock:
    """The lock every write to ``x`` (or to an array ``x`` is a view of) holds."""
    return own_lock(_root(x))


def own_lock(x: Array) -> threading.RLock:
    """:func:`mutation_lock` of an array that is its own root: every array on a device
    with views (no view links kept), where the writes' fast paths call this directly."""
    return _MUTATION_LOCKS[id(x) >> 4 & 63]


# NumPy's basic indexing gives views: a write through v = x[0] is seen in x, and a
# write to x in v. Where a device's arrays are values (Dask), strict_array keeps
# the link itself: the view remembers its parent and key, the parent its live
# views (weakly); a write goes up to the root and comes down to every view.
def track_view(parent: Array, view: Array, key: Any) -> None:
    """Record that ``view`` is ``parent[key]`` (a basic key) on a device without views."""
    view._base = (parent, key)
    views = getattr(parent, "_views", None)
    if views is None:
        views = parent._views = []
    elif len(views) > 64:  # drop the views no one holds any more (arrays are unhashable:
        views[:] = [r for r in views if r() is not None]  # a list of weak references)
    views.append(weakref.ref(view))


def store(x: Array, data: Any) -> None:
    """Make ``data`` the new data of ``x`` (a write), and of everything sharing it."""
    x._data = data
    base = getattr(x, "_base", None)
    if base is None and getattr(x, "_views", None) is None:
        return  # no views: the common case, and every array on a device with views
    root = x
    while base is not None:  # up: each parent gets its view's new data at its key
        parent, key = base
        parent._data = parent._device.assign(parent._data, key, root._data)
        root, base = parent, getattr(parent, "_base", None)
    stack = [root]
    while stack:  # down: every live view is read again from its parent
        parent = stack.pop()
        for ref in list(getattr(parent, "_views", None) or ()):
            view = ref()
            if view is not None:
                if view is not x:
                    view._data = parent._data[view._base[1]]
                stack.append(view)
