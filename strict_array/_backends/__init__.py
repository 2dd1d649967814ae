"""The backend seam: the :class:`Device` base class and the registry of backends.

Everything that knows a backend lives under this package: ``numpy.py`` (the
eager ``CPU`` device) and ``dask/`` (the lazy ``DASK`` device). The rest of
strict_array talks to a backend only through a :class:`Device`: its array-API
namespace (``ns``, from ``array_api_compat``) and the hooks below, where
backends differ in kind rather than in name (laziness, computing, chunks,
unknown sizes, assignment, on-disk I/O).

Backends are registered by name with a loader (``"module:attribute"``) and a
cheap detector of native arrays; a backend is imported the first time one of
its arrays or its device is needed, so ``import strict_array`` never imports
Dask. Adding a backend is one call to :func:`register` and one module with a
:class:`Device` subclass (see ``docs/dev/adding-a-backend.md``).
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import array_api_compat
import numpy as np

from .._profiles import FLOAT32_DEFAULTS, FULL, NO_FLOAT64, NO_X64, DtypeProfile
from ._numpy_ways import bound, dotted

__all__ = [
    "Device",
    "available_devices",
    "device",
    "device_of_native",
    "host_device",
    "lazy_device",
    "register",
    "registered_names",
    "simulate",
]


class Device:
    """A place where arrays live, bound to one backend.

    Compare devices with ``==``; ``x.device`` and the ``device=`` argument of
    creation functions use these objects. Names are accepted where a device is
    expected (``"cpu"``, ``"dask"``).

    The base class implements the hooks for an eager array-API backend whose
    data converts to and from NumPy; a backend overrides what it does
    differently.
    """

    #: the backend's array type (results of other types are coerced)
    array_type: ClassVar[type]
    #: arrays are lazy: building an expression never computes
    lazy: ClassVar[bool] = False
    #: arrays are NumPy's own (shown without a device, viewed without a copy)
    host: ClassVar[bool] = False
    #: the DLPack ``(device_type, device_id)`` of exported data (1 = kDLCPU)
    dlpack_device: ClassVar[tuple[int, int]] = (1, 0)
    #: a 0-d array of the host device meets this device's arrays as a scalar would
    #: (moved here); a simulated device refuses it, as a second real device would
    takes_host_scalars: ClassVar[bool] = True

    __slots__ = (
        "__weakref__", "binaries", "functions", "name", "native", "ns", "profile", "reshape",
        "views",
    )  # fmt: skip

    name: str
    #: the backend's array-API namespace (from ``array_api_compat``)
    ns: Any
    #: backend functions by name, resolved once
    functions: dict[str, Callable[..., Any]]
    #: binary element-wise functions by name, resolved once (the hot path reads this dict)
    binaries: dict[str, Callable[[Any, Any], Any]]
    #: ``reshape(data, shape)``: the fastest spelling the backend has
    reshape: Callable[[Any, tuple[int, ...]], Any]
    native: type
    #: basic indexing gives views: a write through ``x[key]`` reaches ``x`` (and back);
    #: where the backend's arrays are values, strict_array carries the writes over
    views: bool
    #: the device's dtypes: its defaults and those it lacks
    profile: DtypeProfile

    def __init__(self, name: str, *, views: bool = True, profile: DtypeProfile = FULL) -> None:
        self.name = name
        self.views = views
        self.profile = profile
        #: ``array_type`` read from the instance's slot: the hot paths compare result
        #: types with it, and a class attribute read through an instance is slower
        self.native = self.array_type
        self.ns = self._load_namespace()
        self.functions = {}
        self.binaries = {}
        self.reshape = self._reshape_function()

    def __repr__(self) -> str:
        return f"strict_array.{self.name.upper()}"

    def __reduce__(self) -> tuple[Callable[[str], Device], tuple[str]]:
        return (device, (self.name,))  # pickles by name: one device object per process

    def simulated(self, name: str, profile: DtypeProfile) -> Device:
        """Another device of this backend, ``name``, with the dtypes of ``profile``: its
        arrays do not mix with this device's, and a dtype it lacks is refused wherever
        an array of it would be made (creation, casts, promotion, moves)."""
        return _simulated_class(type(self))(name, views=self.views, profile=profile)

    def index_result(self, data: Any) -> Any:
        """Indices the backend computed (``argmax``, ``nonzero``, ``unique_inverse``...)
        in the device's indexing dtype (int32 on a device without 64-bit types)."""
        indexing = self.profile.defaults["indexing"]
        if self.dtype(data) == indexing:
            return data
        return self.ns.astype(data, indexing)

    # --- the backend's functions ----------------------------------------------------
    def _load_namespace(self) -> Any:
        raise NotImplementedError

    def _reshape_function(self) -> Callable[[Any, tuple[int, ...]], Any]:
        return self.ns.reshape

    def function(self, name: str) -> Callable[..., Any]:
        """The backend's function ``name``, cached in :attr:`functions`."""
        fn = self.functions.get(name)
        if fn is None:
            fn = self.functions[name] = getattr(self.ns, name)
        return fn

    def extension(self, name: str) -> Callable[..., Any]:
        """The backend's function of NumPy's ``name``, beyond the standard (``einsum``,
        ``pad``, ``nansum``, a dotted path such as ``lib.stride_tricks.sliding_window_view``),
        cached in :attr:`functions`.

        Where the backend lacks it, NumPy's own serves: as it is on the host device, whose
        data is NumPy's, and elsewhere through a round trip (to NumPy and back).
        """
        fn = self.functions.get(name)
        if fn is None:
            fn = self.functions[name] = self._own_or_numpys(name)
        return fn

    def _own_or_numpys(self, name: str) -> Callable[..., Any]:
        own = dotted(self.ns, name)
        if own is not None:
            return own  # type: ignore[no-any-return]
        numpys = dotted(np, name)
        if self.host:
            return numpys  # type: ignore[no-any-return]

        def round_trip(*args: Any, **kwargs: Any) -> Any:
            args = tuple(self.to_numpy(a) if self.owns(a) else a for a in args)
            return self.from_numpy(np.asarray(numpys(*args, **kwargs)))

        return round_trip

    def binary(self, name: str) -> Callable[[Any, Any], Any]:
        """The backend's binary element-wise function ``name`` (cached).

        Strict broadcasting has been decided when it is called; a lazy backend
        adds its unknown-size checks here.
        """
        fn = self.binaries.get(name)
        if fn is None:
            fn = self.binaries[name] = getattr(self.ns, name)
        return fn

    # --- data in and out ------------------------------------------------------------
    def owns(self, obj: object) -> bool:
        """Whether ``obj`` is a native array of this backend."""
        return isinstance(obj, self.array_type)

    def coerce(self, obj: Any) -> Any:
        """Turn a backend result that is not an array (e.g. a NumPy scalar) into one."""
        return self.ns.asarray(obj)

    def create(self, name: str, *args: Any, chunks: Any = None, **kwargs: Any) -> Any:
        """Call the namespace's creation function ``name`` (``chunks`` on chunked devices)."""
        if chunks is not None:
            self.check_chunks(name, chunks)
        return self.function(name)(*args, **kwargs)

    def from_numpy(self, arr: np.ndarray, chunks: Any = None) -> Any:
        """Place NumPy data on this device (``chunks`` checked by :meth:`check_chunks`)."""
        return self.ns.asarray(arr)

    def to_numpy(self, data: Any) -> np.ndarray:
        """Materialise data as a NumPy array (computes on lazy devices)."""
        return self.compute([data])[0]

    def item(self, data: Any) -> Any:
        """The one element of 0-d ``data`` as a Python scalar (computes on lazy devices)."""
        return self.to_numpy(data).item()

    def compute(self, datas: Sequence[Any]) -> list[np.ndarray]:
        """Materialise several arrays as NumPy arrays, sharing work between them.

        This is the one place where a lazy device computes; every entry point
        that needs values (``np.asarray``, ``float``, ``to_device``, DLPack,
        writes to disk, :func:`strict_array.compute`) comes here.
        """
        return [np.asarray(d) for d in datas]

    def plan(self, datas: Sequence[Any]) -> str:
        """The passes :meth:`compute` would run for ``datas``, as text (nothing computes)."""
        return f"{self!r}: eager arrays, already computed: nothing to plan."

    def persist(self, datas: Sequence[Any]) -> list[Any]:
        """Compute several arrays and keep them on the device (eager: as they are)."""
        return list(datas)

    # --- data types, chunks and sizes --------------------------------------------------
    def dtype(self, data: Any) -> np.dtype:
        """The data type of ``data`` as strict_array's data types (NumPy's dtypes)."""
        return data.dtype

    def check_chunks(self, op: str, chunks: Any) -> None:
        """Refuse ``chunks=`` for ``op`` on a device whose arrays have no chunks.

        Every public function that takes ``chunks=`` calls this before asking the
        device for data; lazy devices accept any value their backend accepts.
        """
        if chunks is not None and not self.lazy:
            raise ValueError(
                f"{op}: chunks={chunks!r} only applies to a chunked (lazy) device, not "
                f"{self!r}; drop chunks={_lazy_hint()}."
            )

    def rechunk(self, data: Any, chunks: Any) -> Any:
        """The same data with new chunks (lazily, on a chunked device)."""
        return data

    def chunks(self, data: Any) -> tuple[tuple[int | None, ...], ...] | None:
        """The chunk sizes along each axis (``None`` where unknown), or None if unchunked."""
        return None

    def shape(self, data: Any) -> tuple[int | None, ...]:
        """Shape with unknown (data-dependent) sizes as ``None``."""
        return tuple(data.shape)

    # --- operations where backends differ in kind -----------------------------------
    def sizes_for_caller(self, data: Any) -> Any:
        """``data`` with its sizes unknown until computed made known, where the code
        asking for them is to get them as numbers (a lazy device's setting); else
        ``data`` itself. An eager device knows every size."""
        return data

    def map_blocks(self, kernel: Callable[[np.ndarray], np.ndarray], data: Any) -> Any:
        """Apply an element-wise NumPy ``kernel`` (same shape and dtype out)."""
        return self.from_numpy(kernel(self.to_numpy(data)))

    def transpose(self, data: Any) -> Any:
        """``data.T`` of a 2-D array, for :attr:`Array.T`."""
        return data.T

    def index_from_numpy(self, index: np.ndarray) -> Any:
        """A NumPy integer or boolean index array as this backend takes it in a key."""
        return self.from_numpy(index)

    def getitem(self, data: Any, key: Any) -> Any:
        """``data[key]`` for keys holding index arrays (basic keys skip this)."""
        return data[key]

    def assign(self, data: Any, key: Any, value: Any) -> Any:
        """``data[key] = value`` (``value`` already of ``data``'s dtype and
        broadcastable to the region); returns the array now holding the result."""
        data[key] = value
        return data

    def update(self, name: str, data: Any, other: Any) -> Any:
        """``data op= other`` for the binary function ``name``, on a device with
        ``views`` (its writes land in ``data``), when the result keeps ``data``'s
        dtype and shape; otherwise ``TypeError`` or ``ValueError``, and nothing is
        written (the caller then takes its general path, which explains why)."""
        r = self.binary(name)(data, other)
        if type(r) is not self.native or self.dtype(r) != self.dtype(data):
            raise TypeError(f"{name}: the result's dtype is not the updated array's")
        if self.shape(r) != self.shape(data):
            raise ValueError(f"{name}: the result's shape is not the updated array's")
        return self.assign(data, Ellipsis, r)

    def broadcast_to(self, data: Any, shape: tuple[int, ...]) -> Any:
        """Broadcast, read-only, no copy where the backend allows."""
        return self.ns.broadcast_to(data, shape)

    def broadcast_together(self, datas: Sequence[Any], shape: tuple[int | None, ...]) -> list[Any]:
        """``datas`` broadcast to their common ``shape`` (``broadcast_arrays``)."""
        return [self.broadcast_to(d, shape) for d in datas]  # type: ignore[arg-type]

    def align_to(self, low: Any, high: Any) -> Any:
        """Adapt ``low`` (aligned with ``high``'s trailing axes) to ``high``'s layout."""
        return low

    # --- NumPy's own functions and ufuncs (section 7) ----------------------------------
    # NumPy's value under NumPy's name: on the host, NumPy's own function on the data;
    # on an eager device of another backend, NumPy's function on the data made NumPy's
    # and back; a lazy device builds it the way its row of the NumPy table names
    # (_numpy_ways). The arguments hold this device's data, NumPy's arrays, lists and
    # scalars; ``out=`` targets are the caller's to fill.
    def numpy_call(self, func: Any, way: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """NumPy's ``func(*args, **kwargs)`` on this device's data, NumPy's value."""
        if self.host:
            return func(*args, **kwargs)
        return self._from_numpy_results(
            func(*self._to_numpy_args(args), **self._to_numpy_args(kwargs))
        )

    def numpy_write(
        self, func: Any, way: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        """NumPy's ``func`` that writes into ``way.target`` (``np.copyto``, ``np.put``):
        the target's new data (on a device with views: the target itself, written)."""
        if self.host:
            func(*args, **kwargs)
            return _bound_target(func, way.target, args, kwargs)
        args2, kwargs2 = self._to_numpy_args(args), self._to_numpy_args(kwargs)
        func(*args2, **kwargs2)
        return self.from_numpy(_bound_target(func, way.target, args2, kwargs2))

    def numpy_ufunc(self, ufunc: Any, method: str, inputs: tuple[Any, ...],
                    kwargs: dict[str, Any], associative: bool = False) -> Any:  # fmt: skip
        """NumPy's ``ufunc`` (``method`` of it) on this device's data, NumPy's value;
        ``associative``: its fold does not depend on the order NumPy iterates (a lazy
        device may fold it block by block)."""
        if self.host:
            return getattr(ufunc, method)(*inputs, **kwargs)
        out = getattr(ufunc, method)(*self._to_numpy_args(inputs), **self._to_numpy_args(kwargs))
        return self._from_numpy_results(out)

    def _to_numpy_args(self, value: Any) -> Any:
        if self.owns(value):
            return self.to_numpy(value)
        if isinstance(value, (list, tuple)):
            return type(value)(self._to_numpy_args(v) for v in value)
        if isinstance(value, dict):
            return {k: self._to_numpy_args(v) for k, v in value.items()}
        return value

    def _from_numpy_results(self, value: Any) -> Any:
        if isinstance(value, (np.ndarray, np.generic)):
            return self.from_numpy(np.asarray(value))
        if isinstance(value, tuple):
            items = [self._from_numpy_results(v) for v in value]
            return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
        if isinstance(value, list):
            return [self._from_numpy_results(v) for v in value]
        return value

    # --- on-disk arrays -------------------------------------------------------------
    def from_npy(self, path: str, chunks: Any) -> Any:
        """A ``.npy`` file's data on this device."""
        return self.from_numpy(np.load(path, mmap_mode="r"), chunks)

    def from_zarr(self, store: Any, component: str | None, chunks: Any) -> Any:
        """A Zarr array's data on this device."""
        import zarr

        return self.from_numpy(
            np.asarray(zarr.open_array(store, mode="r", path=component or "")[...])
        )

    def to_npy(self, data: Any, path: str) -> None:
        """Write ``data`` to a ``.npy`` file."""
        np.save(path, self.to_numpy(data))

    def to_zarr(
        self, data: Any, store: Any, component: str | None, *, overwrite: bool, compute: bool
    ) -> Any:
        """Write ``data`` to a Zarr store (``compute=False`` is for lazy devices)."""
        import zarr

        if not compute:
            raise ValueError(f"to_zarr: compute=False needs a lazy device, not {self!r}.")
        arr = self.to_numpy(data)
        z = zarr.open_array(
            store, mode="w" if overwrite else "w-", path=component or "", shape=arr.shape,
            dtype=arr.dtype,
        )  # fmt: skip
        z[...] = arr
        return None


def _bound_target(func: Any, target: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    return bound(func, args, kwargs)[target]


_SIMULATED_CLASSES: dict[type[Device], type[Device]] = {}


class _Checked:
    """No backend's array type: a simulated device that lacks dtypes gives it as
    ``native``, so that the one constructor of arrays (``_array.RESULT``) passes each
    result through its ``coerce``, which checks the dtype; other devices pay nothing."""


def _simulated_class(backend: type[Device]) -> type[Device]:
    """The class of the simulated devices of ``backend``'s class: the backend's own
    code, plus the dtype check of results and a distinct identity."""

    known = _SIMULATED_CLASSES.get(backend)
    if known is not None:
        return known

    class Simulated(backend):  # type: ignore[valid-type,misc]
        __slots__ = ()
        host = False  # (its arrays show their device; NumPy's data reaches it by a move)
        takes_host_scalars = False

        def __init__(self, name: str, *, views: bool = True, profile: DtypeProfile = FULL):
            super().__init__(name, views=views, profile=profile)
            if profile.lacks:
                self.native = _Checked  # type: ignore[misc]

        def coerce(self, obj: Any) -> Any:
            if type(obj) is not self.array_type:
                obj = super().coerce(obj)
            dtype = self.dtype(obj)
            if dtype in self.profile.lacks:
                raise self.profile.refusal(dtype, self)
            return obj

    Simulated.__name__ = Simulated.__qualname__ = f"Simulated{backend.__name__}"
    _SIMULATED_CLASSES[backend] = Simulated
    return Simulated


# --- the registry -------------------------------------------------------------------
@dataclass
class _Backend:
    name: str
    loader: str  # "module:attribute" of the Device instance
    detect: Callable[[object], bool]  # is this object a native array? (must not import)
    host: bool = False  # its arrays are NumPy's own
    loaded: Device | None = None
    #: a simulated device: the backend it runs on and its dtypes
    simulates: tuple[str, DtypeProfile] | None = None


_BACKENDS: dict[str, _Backend] = {}
#: (re-entrant: a backend may load another while it loads, e.g. DASK the host, whose
#: linalg functions compute its per-matrix blocks)
_LOADING = threading.RLock()


def register(
    name: str, loader: str, detect: Callable[[object], bool], *, host: bool = False
) -> None:
    """Register a backend: its device's name, where the device lives, and a detector.

    Parameters
    ----------
    name : str
        The device name (lower case); ``strict_array.NAME`` (upper case) is the device.
    loader : str
        ``"package.module:ATTRIBUTE"``, the Device instance, imported on first use.
    detect : callable
        ``detect(obj)`` tells whether ``obj`` is one of the backend's native arrays
        without importing the backend (``array_api_compat``'s ``is_*_array``).
    host : bool, default False
        The backend's arrays are NumPy's own (one backend, NumPy's, is the host:
        computed results land there).
    """
    name = name.lower()
    if name in _BACKENDS and _BACKENDS[name].loader != loader:
        raise ValueError(f"register: a backend named {name!r} is already registered.")
    _BACKENDS[name] = _Backend(name, loader, detect, host)
    _HOST[0] = None


def simulate(name: str, backend: str, profile: DtypeProfile) -> None:
    """Register a simulated device: ``name`` on backend ``backend``, with ``profile``'s
    dtypes (see ``docs/testing.md``). It is made from the backend's device on first use.
    """
    name = name.lower()
    if name in _BACKENDS and _BACKENDS[name].simulates != (backend, profile):
        raise ValueError(f"simulate: a device named {name!r} is already registered.")
    _BACKENDS[name] = _Backend(name, "", _never, simulates=(backend, profile))


def _never(obj: object) -> bool:
    return False  # (a simulated device's arrays are its backend's: they detect as those)


def registered_names() -> tuple[str, ...]:
    """Names of the registered backends, in registration order."""
    return tuple(_BACKENDS)


def device(name: str) -> Device:
    """The device of backend ``name`` (imports the backend on first use).

    Raises
    ------
    KeyError
        No backend of that name is registered.
    ImportError
        The backend's library is not installed.
    """
    backend = _BACKENDS[name.lower()]
    if backend.loaded is None:
        with _LOADING:
            if backend.loaded is None and backend.simulates is not None:
                base, profile = backend.simulates
                backend.loaded = device(base).simulated(backend.name, profile)
            elif backend.loaded is None:
                module, _, attribute = backend.loader.partition(":")
                backend.loaded = getattr(importlib.import_module(module), attribute)
    return backend.loaded


def available_devices() -> tuple[Device, ...]:
    """The devices whose backend library is installed."""
    found = []
    for name in _BACKENDS:
        try:
            found.append(device(name))
        except ImportError:
            pass
    return tuple(found)


def host_device() -> Device:
    """The device whose arrays are NumPy's own (computed results land there)."""
    host = _HOST[0]
    if host is None:
        host = _HOST[0] = device(next(b.name for b in _BACKENDS.values() if b.host))
    return host


#: the host device once loaded (creation functions ask for it on every call)
_HOST: list[Device | None] = [None]


def _lazy_hint() -> str:
    try:
        return f" or pass device={lazy_device()!r}"
    except ImportError:
        return ""


def lazy_device() -> Device:
    """The first registered lazy device (on-disk arrays open there by default)."""
    for d in available_devices():
        if d.lazy:
            return d
    raise ImportError(
        "no lazy (chunked) device is available; install one, e.g. pip install 'strict_array[dask]'."
    )


def device_of_native(obj: object) -> Device | None:
    """The device owning a backend-native array, if any (without importing backends)."""
    for backend in _BACKENDS.values():
        if backend.detect(obj):
            return device(backend.name)
    return None


register("cpu", "strict_array._backends.numpy:CPU", array_api_compat.is_numpy_array, host=True)
register("dask", "strict_array._backends.dask:DASK", array_api_compat.is_dask_array)
# the simulated devices of each backend (array-api-strict's device1, device2,
# no_float64 and no_x64): a second device of the kind, float32 defaults, no float64
# (Apple's MPS), no 64-bit types (JAX without x64)
for _base in ("cpu", "dask"):
    simulate(f"{_base}1", _base, FULL)
    simulate(f"{_base}_float32", _base, FLOAT32_DEFAULTS)
    simulate(f"{_base}_no_float64", _base, NO_FLOAT64)
    simulate(f"{_base}_no_x64", _base, NO_X64)
