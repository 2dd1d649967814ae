"""The ``DASK`` device: lazy, chunked arrays on Dask.

Dask does all chunking, scheduling, spilling and distribution; when a
``dask.distributed`` ``Client`` is active, computations run on it through
Dask's own default-scheduler mechanism. This module only supplies what
``array_api_compat.dask.array`` lacks, each lazily:

- ``take_along_axis`` and the per-matrix ``linalg`` functions (``det``,
  ``eigh``, ``slogdet``, ...) through :func:`dask.array.apply_gufunc`, which
  keeps the batch axes chunked and gathers only the matrix axes into one chunk;
- chunk alignment for explicit broadcasts, so that a lower-rank operand meeting
  a chunked array never re-splits the large one.

Computing (``to_device(CPU)``, ``np.asarray``, ``bool``/``int``/``float``,
DLPack) shows Dask's progress bar when a person is watching (stderr is a
terminal); ``STRICT_ARRAY_PROGRESS=0`` or :func:`strict_array.progress` turn it
off or on.
"""

from __future__ import annotations

import contextlib
import os
import sys
import types
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

import array_api_compat.dask.array as compat
import dask.array as da
import numpy as np

from ._devices import Device


def _gufunc(func: Any, signature: str, *, nout: int = 1, dtype: Any = None, out_dtypes: Any = None):
    """A lazy per-matrix function: batch axes stay chunked, core axes are gathered."""

    def apply(x: da.Array, *args: Any) -> Any:
        dt = out_dtypes(x) if out_dtypes else (dtype or x.dtype)
        return da.apply_gufunc(
            func,
            signature,
            x,
            *args,
            output_dtypes=dt,
            allow_rechunk=True,
            vectorize=False,
        )

    return apply


def _real(x: da.Array) -> np.dtype:
    return np.empty(0, x.dtype).real.dtype


def _complex(x: da.Array) -> np.dtype:
    return np.result_type(x.dtype, np.complex64)


def _eigh(x: da.Array) -> Any:
    w, v = _gufunc(np.linalg.eigh, "(m,m)->(m),(m,m)", out_dtypes=lambda a: (_real(a), a.dtype))(x)
    return compat.linalg.EighResult(w, v) if hasattr(compat.linalg, "EighResult") else (w, v)


def _eig(x: da.Array) -> Any:
    w, v = _gufunc(np.linalg.eig, "(m,m)->(m),(m,m)", out_dtypes=lambda a: (_complex(a),) * 2)(x)
    return _EigResult(w, v)


def _slogdet(x: da.Array) -> Any:
    sign, logabs = _gufunc(
        lambda a: tuple(np.linalg.slogdet(a)),
        "(m,m)->(),()",
        out_dtypes=lambda a: (a.dtype, _real(a)),
    )(x)
    return _SlogdetResult(sign, logabs)


def _eigvals(x: da.Array) -> da.Array:
    return _gufunc(np.linalg.eigvals, "(m,m)->(m)", out_dtypes=_complex)(x)


def _pinv(x: da.Array, *, rtol: Any = None) -> da.Array:
    import array_api_compat.numpy as cnp

    if isinstance(rtol, da.Array):
        rtol = rtol.compute()  # a tolerance array is small; the matrices stay lazy

    def f(a: np.ndarray) -> np.ndarray:
        return cnp.linalg.pinv(a, rtol=rtol)

    return da.apply_gufunc(f, "(m,n)->(n,m)", x, output_dtypes=x.dtype, allow_rechunk=True)


def _matrix_power(x: da.Array, n: int) -> da.Array:
    return _gufunc(lambda a: np.linalg.matrix_power(a, n), "(m,m)->(m,m)")(x)


def _cross(x1: da.Array, x2: da.Array, *, axis: int = -1) -> da.Array:
    import array_api_compat.numpy as cnp

    a, b = da.moveaxis(x1, axis, -1), da.moveaxis(x2, axis, -1)
    out = da.apply_gufunc(
        lambda p, q: cnp.linalg.cross(p, q, axis=-1),
        "(k),(k)->(k)",
        a,
        b,
        output_dtypes=np.result_type(x1.dtype, x2.dtype),
        allow_rechunk=True,
    )
    return da.moveaxis(out, -1, axis)


def _take_along_axis(x: da.Array, indices: da.Array, /, *, axis: int = -1) -> da.Array:
    a, i = da.moveaxis(x, axis, -1), da.moveaxis(indices, axis, -1)
    out = da.apply_gufunc(
        lambda p, q: np.take_along_axis(p, q, axis=-1),
        "(n),(k)->(k)",
        a,
        i,
        output_dtypes=x.dtype,
        allow_rechunk=True,
    )
    return da.moveaxis(out, -1, axis)


def _from_dlpack(x: Any, /, **kwargs: Any) -> da.Array:
    return da.from_array(np.from_dlpack(x, **kwargs))


class _EigResult(tuple):
    __slots__ = ()
    _fields = ("eigenvalues", "eigenvectors")

    def __new__(cls, *values: Any) -> _EigResult:
        return super().__new__(cls, values)

    eigenvalues = property(lambda self: self[0])
    eigenvectors = property(lambda self: self[1])


class _SlogdetResult(tuple):
    __slots__ = ()
    _fields = ("sign", "logabsdet")

    def __new__(cls, *values: Any) -> _SlogdetResult:
        return super().__new__(cls, values)

    sign = property(lambda self: self[0])
    logabsdet = property(lambda self: self[1])


def _namespace() -> types.SimpleNamespace:
    ns = types.SimpleNamespace(**{k: v for k, v in vars(compat).items() if not k.startswith("__")})
    ns.take_along_axis = _take_along_axis
    ns.from_dlpack = _from_dlpack
    ns.linalg = types.SimpleNamespace(
        **{k: v for k, v in vars(compat.linalg).items() if not k.startswith("__")}
    )
    ns.linalg.det = _gufunc(np.linalg.det, "(m,m)->()")
    ns.linalg.eigvalsh = _gufunc(np.linalg.eigvalsh, "(m,m)->(m)", out_dtypes=_real)
    ns.linalg.eigh = _eigh
    ns.linalg.eig = _eig
    ns.linalg.eigvals = _eigvals
    ns.linalg.slogdet = _slogdet
    ns.linalg.pinv = _pinv
    ns.linalg.matrix_power = _matrix_power
    ns.linalg.cross = _cross
    return ns


PROGRESS_ENV_VAR = "STRICT_ARRAY_PROGRESS"
_progress: ContextVar[bool | None] = ContextVar("strict_array_progress", default=None)


def _show_progress() -> bool:
    setting = _progress.get()
    if setting is not None:
        return setting
    env = os.environ.get(PROGRESS_ENV_VAR)
    if env is not None:
        return env.strip().lower() not in ("0", "false", "no", "off", "")
    return sys.stderr is not None and sys.stderr.isatty()  # a person is watching


@contextlib.contextmanager
def progress(show: bool = True) -> Iterator[None]:
    """Show (or hide) a progress bar for Dask computations inside the block.

    By default a bar is shown when stderr is a terminal; the environment
    variable ``STRICT_ARRAY_PROGRESS=0`` (or ``1``) overrides that globally.
    Local schedulers use :class:`dask.diagnostics.ProgressBar`; on a
    ``dask.distributed`` cluster the distributed progress bar is used.
    """
    token = _progress.set(bool(show))
    try:
        yield
    finally:
        _progress.reset(token)


def compute(data: da.Array) -> np.ndarray:
    """Compute a Dask array on the active scheduler (a distributed Client if any)."""
    if not _show_progress():
        return np.asarray(data.compute())
    client = _active_client()
    if client is not None:
        from distributed import progress as dist_progress

        future = client.compute(data)
        dist_progress(future)
        return np.asarray(future.result())
    from dask.diagnostics import ProgressBar

    with ProgressBar(minimum=1.0):
        return np.asarray(data.compute())


def _active_client() -> Any:
    if "distributed" not in sys.modules:
        return None
    from distributed import get_client

    try:
        return get_client()
    except ValueError:
        return None


class DaskDevice(Device):
    """Lazy, chunked Dask arrays (out-of-core and distributed)."""

    array_type = da.Array
    __slots__ = ()

    def _load_namespace(self) -> Any:
        return _namespace()

    def owns(self, obj: object) -> bool:
        return isinstance(obj, da.Array)

    def coerce(self, obj: Any) -> da.Array:
        return da.asarray(obj)

    def from_numpy(self, arr: np.ndarray, chunks: Any = None) -> da.Array:
        return da.from_array(arr, chunks="auto" if chunks is None else chunks)

    def to_numpy(self, data: da.Array) -> np.ndarray:
        return compute(data)

    def shape(self, data: da.Array) -> tuple[int | None, ...]:
        return tuple(None if s != s else s for s in data.shape)  # NaN -> None

    def assign(self, data: da.Array, key: Any, value: Any) -> da.Array:
        # Dask arrays are values: build the assigned array as a new graph rather
        # than mutating a dask.array.Array object another Array may share.
        if key is Ellipsis and getattr(value, "shape", None) == data.shape:
            return value
        out = data.copy()
        out[key] = value
        return out

    def broadcast_to(self, data: da.Array, shape: tuple[int, ...]) -> da.Array:
        # mapped axes keep their chunks; new or stretched axes get Dask's automatic
        # chunking, never one chunk spanning a whole large axis
        lead = len(shape) - data.ndim
        spec = ["auto"] * lead + [
            c if data.shape[i] == shape[lead + i] else "auto" for i, c in enumerate(data.chunks)
        ]
        chunks = da.core.normalize_chunks(tuple(spec), shape, dtype=data.dtype)
        return da.broadcast_to(data, shape, chunks=chunks)

    def align_to(self, low: da.Array, high: Any, dims: tuple[int, ...]) -> da.Array:
        if not isinstance(high, da.Array):
            return low
        # match the large operand's chunks on mapped axes of equal size, so that
        # blockwise never re-splits the large operand; size-1 axes are 1-blocks
        target = tuple(
            hc if ls == hs and ls == ls else lc
            for lc, hc, ls, hs in zip(low.chunks, high.chunks, low.shape, high.shape)
        )
        return low if target == low.chunks else low.rechunk(target)


DASK: Device = DaskDevice("dask")

__all__ = ["DASK", "compute", "progress"]
