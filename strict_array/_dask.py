"""The ``DASK`` device: lazy, chunked arrays on Dask.

Dask does all chunking, scheduling, spilling and distribution; when a
``dask.distributed`` ``Client`` is active, computations run on it through
Dask's own default-scheduler mechanism. This module only supplies what
``array_api_compat.dask.array`` lacks, each lazily:

- ``take_along_axis`` and the per-matrix ``linalg`` functions (``det``,
  ``eigh``, ``solve``, ``svd``, ...) through :func:`dask.array.apply_gufunc`,
  which keeps the batch axes chunked and gathers only the matrix axes of each
  matrix into one chunk (so a single matrix must fit in a worker's memory);
- transforms (``fft``) gather the transformed axes into one chunk first, as
  Dask's FFT requires;
- ``reshape`` in two passes (merge, then split) where Dask's one-pass reshape
  refuses an uneven split;
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
import re
import sys
import types
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

import array_api_compat.dask.array as compat
import dask.array as da
import numpy as np

from ._broadcasting import broadcast_shapes
from ._devices import Device
from ._elementwise import BINARY


def _gufunc(func: Any, signature: str, *args: da.Array, **kwargs: Any) -> Any:
    """``da.apply_gufunc`` with the chunks prepared here rather than by Dask.

    Each argument's core axes are gathered into one chunk and the loop (batch)
    axes of all arguments share one chunking. Doing it here rather than with
    ``allow_rechunk=True`` also works when a core axis has size 0 (where Dask's
    own re-chunking divides by zero).
    """
    groups = re.findall(r"\(([^)]*)\)", signature.split("->")[0])
    cores = [0 if not g.strip() else g.count(",") + 1 for g in groups]
    loops = [a.ndim - n for a, n in zip(args, cores)]
    batch = np.broadcast_shapes(*(a.shape[:n] for a, n in zip(args, loops)))
    if 0 in batch:  # Dask refuses a size-1 loop axis against a size-0 one
        args = tuple(
            da.broadcast_to(a, batch + a.shape[n:]) if a.shape[:n] != batch else a
            for a, n in zip(args, loops)
        )
        loops = [len(batch)] * len(args)
    width = max(loops)
    loop_chunks: dict[int, tuple[int, ...]] = {}
    for a, n_loop in zip(args, loops):
        for j in range(n_loop):
            if a.shape[j] != 1:
                loop_chunks.setdefault(width - n_loop + j, a.chunks[j])
    prepared = []
    for a, n_core, n_loop in zip(args, cores, loops):
        spec: dict[int, Any] = {a.ndim - 1 - k: -1 for k in range(n_core)}
        for j in range(n_loop):
            if a.shape[j] != 1:
                spec[j] = loop_chunks[width - n_loop + j]
        prepared.append(a.rechunk(spec) if spec else a)
    return da.apply_gufunc(func, signature, *prepared, allow_rechunk=False, **kwargs)


def _real(dtype: np.dtype) -> np.dtype:
    return np.empty(0, dtype).real.dtype


def _complex(dtype: np.dtype) -> np.dtype:
    return np.result_type(dtype, np.complex64)


def _same(dtype: np.dtype) -> np.dtype:
    return dtype


def _index(dtype: np.dtype) -> np.dtype:
    return np.dtype(np.int64)


#: name -> (gufunc signature, output dtypes from the input dtype); "k" is min(m, n)
_PER_MATRIX = {
    "cholesky": ("(m,m)->(m,m)", (_same,)),
    "det": ("(m,m)->()", (_same,)),
    "eig": ("(m,m)->(m),(m,m)", (_complex, _complex)),
    "eigh": ("(m,m)->(m),(m,m)", (_real, _same)),
    "eigvals": ("(m,m)->(m)", (_complex,)),
    "eigvalsh": ("(m,m)->(m)", (_real,)),
    "inv": ("(m,m)->(m,m)", (_same,)),
    "matrix_power": ("(m,m)->(m,m)", (_same,)),
    "matrix_rank": ("(m,n)->()", (_index,)),
    "pinv": ("(m,n)->(n,m)", (_same,)),
    "slogdet": ("(m,m)->(),()", (_same, _real)),
    "svdvals": ("(m,n)->(k)", (_real,)),
}


def _per_matrix(name: str) -> Any:
    """A lazy per-matrix linalg function: batch axes stay chunked, matrix axes are
    gathered into one chunk, and NumPy (through array_api_compat) does each block."""
    import array_api_compat.numpy as cnp

    signature, out_dtypes = _PER_MATRIX[name]
    kernel = getattr(cnp.linalg, name)

    def apply(x: da.Array, *args: Any, **kwargs: Any) -> Any:
        dtypes = [f(x.dtype) for f in out_dtypes]
        common = {
            "output_dtypes": dtypes if len(dtypes) > 1 else dtypes[0],
            "output_sizes": {"k": min(x.shape[-2:])},
        }
        rtol = kwargs.pop("rtol", None)
        if isinstance(rtol, da.Array):
            # a tolerance per matrix: one more (loop-only) argument, lazily
            inputs, outputs = signature.split("->")
            return _gufunc(
                lambda a, r: _plain(kernel(a, *args, rtol=r, **kwargs)),
                f"{inputs},()->{outputs}",
                x,
                rtol,
                **common,
            )
        if rtol is not None:
            kwargs["rtol"] = rtol
        return _gufunc(lambda a: _plain(kernel(a, *args, **kwargs)), signature, x, **common)

    return apply


def _plain(value: Any) -> Any:
    return tuple(value) if isinstance(value, tuple) else value


def _svd(x: da.Array, /, *, full_matrices: bool = True) -> tuple:
    import array_api_compat.numpy as cnp

    m, n = x.shape[-2:]
    signature = "(m,n)->(m,m),(k),(n,n)" if full_matrices else "(m,n)->(m,k),(k),(k,n)"
    return _gufunc(
        lambda a: tuple(cnp.linalg.svd(a, full_matrices=full_matrices)),
        signature,
        x,
        output_dtypes=(x.dtype, _real(x.dtype), x.dtype),
        output_sizes={"k": min(m, n)},
    )


def _qr(x: da.Array, /, *, mode: str = "reduced") -> tuple:
    import array_api_compat.numpy as cnp

    m, n = x.shape[-2:]
    signature = "(m,n)->(m,k),(k,n)" if mode == "reduced" else "(m,n)->(m,m),(m,n)"
    return _gufunc(
        lambda a: tuple(cnp.linalg.qr(a, mode=mode)),
        signature,
        x,
        output_dtypes=(x.dtype, x.dtype),
        output_sizes={"k": min(m, n)},
    )


def _solve(x1: da.Array, x2: da.Array, /) -> da.Array:
    signature = "(m,m),(m)->(m)" if x2.ndim == 1 else "(m,m),(m,k)->(m,k)"
    return _gufunc(
        np.linalg.solve,
        signature,
        x1,
        x2,
        output_dtypes=np.result_type(x1.dtype, x2.dtype),
    )


def _cross(x1: da.Array, x2: da.Array, /, *, axis: int = -1) -> da.Array:
    a, b = da.moveaxis(x1, axis, -1), da.moveaxis(x2, axis, -1)
    out = _gufunc(
        lambda p, q: np.cross(p, q, axis=-1),
        "(k),(k)->(k)",
        a,
        b,
        output_dtypes=np.result_type(x1.dtype, x2.dtype),
    )
    return da.moveaxis(out, -1, axis)


def _take_along_axis(x: da.Array, indices: da.Array, /, *, axis: int = -1) -> da.Array:
    a, i = da.moveaxis(x, axis, -1), da.moveaxis(indices, axis, -1)
    out = _gufunc(
        lambda p, q: np.take_along_axis(p, q, axis=-1),
        "(n),(k)->(k)",
        a,
        i,
        output_dtypes=x.dtype,
    )
    return da.moveaxis(out, -1, axis)


def _with_index_length(out: da.Array, axis: int, index: da.Array) -> da.Array:
    """Correct the reported shape of integer-array indexing along ``axis``.

    Dask reports the input's size instead of the index's when the indexed axis
    is one chunk and the index has length 1 (dask/dask#6709); the computed
    blocks are right, so only the metadata is rebuilt.
    """
    n = index.shape[0]
    if n != n or out.shape[axis] == n or out.numblocks[axis] != 1:
        return out
    chunks = out.chunks[:axis] + ((n,),) + out.chunks[axis + 1 :]
    return da.Array(out.dask, out.name, chunks, meta=out._meta)


def _take(x: da.Array, indices: da.Array, /, *, axis: int | None = None) -> da.Array:
    axis = 0 if axis is None else axis % x.ndim
    return _with_index_length(compat.take(x, indices, axis=axis), axis, indices)  # type: ignore[attr-defined]


def _searchsorted(
    x1: da.Array, x2: Any, /, *, side: str = "left", sorter: da.Array | None = None
) -> da.Array:
    if sorter is not None:  # Dask has no sorter: search the sorted view instead
        x1 = _take(x1, sorter)
    if not isinstance(x2, da.Array):
        x2 = da.asarray(np.asarray(x2, dtype=x1.dtype))
    if x2.ndim == 0:  # Dask's block search needs at least one axis
        found = compat.searchsorted(x1, x2.reshape((1,)), side=side)  # type: ignore[attr-defined]
        return found.reshape(())
    return compat.searchsorted(x1, x2, side=side)  # type: ignore[attr-defined]


def _auto_chunks(shape: tuple) -> Any:
    """Dask's automatic chunking, except for empty arrays (where it divides by zero)."""
    return -1 if 0 in shape else "auto"


def _creation(name: str) -> Any:
    """zeros/ones/empty/full with chunks that also work for empty shapes."""
    make = getattr(da, name)

    def create(shape: Any, *args: Any, dtype: Any = None, **kwargs: Any) -> da.Array:
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        return make(shape, *args, dtype=dtype, chunks=_auto_chunks(shape))

    return create


def _eye(
    n_rows: int, n_cols: int | None = None, /, *, k: int = 0, dtype: Any = None, **kwargs: Any
) -> da.Array:
    # Dask's eye mis-builds its graph when n_rows != n_cols and divides by zero for
    # empty shapes: build it block by block from NumPy's eye instead
    shape = (n_rows, n_rows if n_cols is None else n_cols)
    dtype = np.dtype(np.float64 if dtype is None else dtype)
    chunks = da.core.normalize_chunks(_auto_chunks(shape), shape, dtype=dtype)

    def block(block_info: Any = None) -> np.ndarray:
        (r0, r1), (c0, c1) = block_info[None]["array-location"]
        return np.eye(r1 - r0, c1 - c0, k=k + r0 - c0, dtype=dtype)

    return da.map_blocks(block, chunks=chunks, dtype=dtype, meta=np.empty((0, 0), dtype))


def _linspace(
    start: Any, stop: Any, /, num: int, *, endpoint: bool = True, **kwargs: Any
) -> da.Array:
    out = compat.linspace(start, stop, num, endpoint=endpoint, **kwargs)  # type: ignore[attr-defined]
    if endpoint and num > 1:  # Dask accumulates steps per block; NumPy ends exactly at stop
        last = da.arange(num, chunks=out.chunks) == num - 1
        out = da.where(last, da.asarray(stop, dtype=out.dtype), out)
    return out


def _repeat(x: da.Array, repeats: Any, /, *, axis: int | None = None) -> da.Array:
    if axis is None:
        x, axis = _reshape(x, (-1,)), 0
    if x.shape[axis] == 0:
        return x
    return compat.repeat(x, repeats, axis=axis)  # type: ignore[attr-defined]


def _roll(x: da.Array, /, shift: Any, *, axis: Any = None) -> da.Array:
    if 0 in x.shape:
        return x
    return compat.roll(x, shift, axis=axis)  # type: ignore[attr-defined]


def _tensordot(x1: da.Array, x2: da.Array, /, *, axes: Any = 2) -> da.Array:
    # Dask contracts the wrong axes for negative entries, and sums small integers
    # in (u)int64: normalise the axes and keep the promoted dtype
    if not isinstance(axes, int):
        axes = (tuple(a % x1.ndim for a in axes[0]), tuple(b % x2.ndim for b in axes[1]))
    out = compat.tensordot(x1, x2, axes=axes)  # type: ignore[attr-defined]
    dtype = np.result_type(x1.dtype, x2.dtype)
    return out if out.dtype == dtype else out.astype(dtype)


def _multi_array_key(parts: tuple) -> bool:
    """A key of ints and integer index arrays that Dask's own indexing refuses
    (several index arrays, or one of more than one dimension)."""
    arrays = [k for k in parts if isinstance(k, da.Array)]
    return (
        bool(arrays)
        and all(type(k) is int or (isinstance(k, da.Array) and k.dtype.kind in "iu") for k in parts)
        and (len(arrays) > 1 or arrays[0].ndim != 1)
    )


def _checked_index(index: da.Array, size: int, axis: int) -> da.Array:
    """Wrap negative indices; an out-of-bounds index raises IndexError when computed."""

    def check(block: np.ndarray) -> np.ndarray:
        if block.size and (block.min() < -size or block.max() >= size):
            raise IndexError(f"index out of bounds for axis {axis} with size {size}")
        return np.where(block < 0, block + size, block).astype(np.int64)

    return da.map_blocks(check, index, dtype=np.int64)


def _gather_points(data: da.Array, parts: tuple) -> da.Array:
    """``data[i, j, ...]`` for integer index arrays (and ints) on the leading axes.

    The indexed axes are flattened into one and the broadcast indices become one
    flat index into it: a single ``take``, lazily, with the result shape known.
    """
    k = len(parts)
    lead, rest = data.shape[:k], data.shape[k:]
    indices = da.broadcast_arrays(*(da.asarray(p) if type(p) is int else p for p in parts))
    flat = None
    for axis, (index, size) in enumerate(zip(indices, lead)):
        stride = int(np.prod(lead[axis + 1 :], dtype=np.int64))
        term = _checked_index(index, size, axis) * stride
        flat = term if flat is None else flat + term
    assert flat is not None
    stacked = _reshape(data, (int(np.prod(lead, dtype=np.int64)), *rest))
    out = _take(stacked, _reshape(flat, (-1,)), axis=0)
    return _reshape(out, (*indices[0].shape, *rest))


def _reshape(x: da.Array, /, shape: tuple[int, ...], *, copy: bool | None = None) -> da.Array:
    try:
        return compat.reshape(x, shape, copy=copy)  # type: ignore[attr-defined]
    except NotImplementedError:
        # Dask reshapes only by merging or evenly splitting axes: merge all, then split
        return x.reshape((-1,)).reshape(shape)


def _single_chunk_fft(func: Any, multi: bool) -> Any:
    """Dask transforms only along single-chunk axes: gather those axes first (lazily)."""

    def apply(x: da.Array, /, **kwargs: Any) -> da.Array:
        if multi:
            axes = kwargs.get("axes")
            if axes is None:
                s = kwargs.get("s")
                axes = range(x.ndim) if s is None else range(x.ndim - len(s), x.ndim)
        else:
            axes = (kwargs.get("axis", -1),)
        x = x.rechunk({a % x.ndim: -1 for a in axes}) if x.ndim else x
        return func(x, **kwargs)

    return apply


def _from_dlpack(x: Any, /, **kwargs: Any) -> da.Array:
    return da.from_array(np.from_dlpack(x, **kwargs))


def _namespace() -> types.SimpleNamespace:
    ns = types.SimpleNamespace(**{k: v for k, v in vars(compat).items() if not k.startswith("__")})
    ns.take_along_axis = _take_along_axis
    ns.from_dlpack = _from_dlpack
    ns.fft = types.SimpleNamespace(
        **{k: v for k, v in vars(compat.fft).items() if not k.startswith("__")}  # type: ignore[attr-defined]
    )
    for name in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"):
        setattr(ns.fft, name, _single_chunk_fft(getattr(compat.fft, name), multi=False))  # type: ignore[attr-defined]
    for name in ("fftn", "ifftn", "rfftn", "irfftn"):
        setattr(ns.fft, name, _single_chunk_fft(getattr(compat.fft, name), multi=True))  # type: ignore[attr-defined]
    ns.reshape = _reshape
    for name in ("zeros", "ones", "empty", "full"):
        setattr(ns, name, _creation(name))
    ns.eye = _eye
    ns.linspace = _linspace
    ns.repeat = _repeat
    ns.roll = _roll
    ns.tensordot = _tensordot
    ns.take = _take
    ns.searchsorted = _searchsorted
    ns.linalg = types.SimpleNamespace(
        **{k: v for k, v in vars(compat.linalg).items() if not k.startswith("__")}  # type: ignore[attr-defined]
    )
    for name in _PER_MATRIX:
        setattr(ns.linalg, name, _per_matrix(name))
    ns.linalg.svd = _svd
    ns.linalg.qr = _qr
    ns.linalg.solve = _solve
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


def _checking_unknown_sizes(op: str, fn: Any, shape: Any) -> Any:
    """Dask lets an unknown size meet any size; the contract (and we) refuse a known
    size other than 1, when the expression is built."""

    def checked(a: Any, b: Any) -> Any:
        if isinstance(a, da.Array) and isinstance(b, da.Array) and a.ndim == b.ndim:
            s1, s2 = shape(a), shape(b)
            if None in s1 or None in s2:
                broadcast_shapes(op, s1, s2)
        return fn(a, b)

    return checked


class DaskDevice(Device):
    """Lazy, chunked Dask arrays (out-of-core and distributed)."""

    array_type = da.Array
    __slots__ = ()

    def _load_namespace(self) -> Any:
        return _namespace()

    def function(self, name: str) -> Any:
        fn = self.functions.get(name)
        if fn is None:
            fn = getattr(self.ns, name)
            if name in BINARY:
                fn = _checking_unknown_sizes(name, fn, self.shape)
            self.functions[name] = fn
        return fn

    def owns(self, obj: object) -> bool:
        return isinstance(obj, da.Array)

    def coerce(self, obj: Any) -> da.Array:
        return da.asarray(obj)

    def map_blocks(self, kernel: Any, data: da.Array) -> da.Array:
        return da.map_blocks(kernel, data, dtype=data.dtype)

    def getitem(self, data: da.Array, key: Any) -> da.Array:
        parts = key if isinstance(key, tuple) else (key,)
        if _multi_array_key(parts):
            return _gather_points(data, parts)
        if isinstance(key, da.Array) and key.dtype == bool and 0 in key.shape:
            # an empty mask selects nothing (Dask's broadcast refuses it)
            return da.empty((0, *data.shape[key.ndim :]), dtype=data.dtype, chunks=-1)
        if isinstance(key, da.Array) and key.dtype == bool and key.ndim == 0:
            # a 0-d mask adds an axis of length 0 or 1 (Dask takes only 1-D or full masks)
            return data[None][key.reshape((1,))]
        out = data[key]
        parts = key if isinstance(key, tuple) else (key,)
        arrays = [i for i, k in enumerate(parts) if isinstance(k, da.Array)]
        rest_is_full = all(
            k is Ellipsis or k == slice(None) for k in parts if not isinstance(k, da.Array)
        )
        if len(arrays) == 1 and rest_is_full and parts[arrays[0]].dtype.kind in "iu":
            (p,) = arrays
            axis = p if Ellipsis not in parts[:p] else data.ndim - (len(parts) - p)
            if parts[p].ndim == 1:
                out = _with_index_length(out, axis, parts[p])
        return out

    def from_numpy(self, arr: np.ndarray, chunks: Any = None) -> da.Array:
        return da.from_array(arr, chunks=_auto_chunks(arr.shape) if chunks is None else chunks)

    def to_numpy(self, data: da.Array) -> np.ndarray:
        return compute(data)

    def rechunk(self, data: da.Array, chunks: Any) -> da.Array:
        return data if chunks is None else data.rechunk(chunks)

    def chunks(self, data: da.Array) -> tuple[tuple[int, ...], ...]:
        return data.chunks

    def shape(self, data: da.Array) -> tuple[int | None, ...]:
        return tuple(None if s != s else s for s in data.shape)  # NaN -> None

    def assign(self, data: da.Array, key: Any, value: Any) -> da.Array:
        # Dask arrays are values: build the assigned array as a new graph rather
        # than mutating a dask.array.Array object another Array may share.
        if key is Ellipsis and getattr(value, "shape", None) == data.shape:
            return value
        if (
            isinstance(key, da.Array)
            and key.dtype == bool
            and key.ndim == data.ndim
            and getattr(value, "ndim", 0) == 0
        ):
            # a full-rank mask with one value (also 0-d, which Dask's setitem refuses)
            return da.where(key, value, data).astype(data.dtype)
        out = data.copy()
        out[key] = value
        return out

    def broadcast_to(self, data: da.Array, shape: tuple[int, ...]) -> da.Array:
        # mapped axes keep their chunks; new or stretched axes get Dask's automatic
        # chunking, never one chunk spanning a whole large axis
        lead = len(shape) - data.ndim
        auto = _auto_chunks(shape)
        spec = [auto] * lead + [
            c if data.shape[i] == shape[lead + i] else auto for i, c in enumerate(data.chunks)
        ]
        chunks = da.core.normalize_chunks(tuple(spec), shape, dtype=data.dtype)
        return da.broadcast_to(data, shape, chunks=chunks)

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
        return low if target == low.chunks else low.rechunk(target)


DASK: Device = DaskDevice("dask")

__all__ = ["DASK", "compute", "progress"]
