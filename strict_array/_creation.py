"""Creation functions.

``device=None`` means the default device (``STRICT_ARRAY_DEVICE``,
:func:`strict_array.set_default_device`, :func:`strict_array.default_device`),
except that an input which already lives on a device keeps it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._array import Array, common_device, expect_array, result
from ._backends import Device, device_of_native
from ._broadcasting import as_shape
from ._devices import as_device, get_default_device
from ._dtypes import as_dtype
from ._flags import arrays_of_version, require_behaviour
from ._typing import DeviceLike, DTypeLike, Scalar, ShapeLike

_CHUNKS_DOC = """chunks : optional
        Chunking on a chunked device (Dask's ``chunks``: sizes per axis, a
        chunk shape, ``-1`` for one chunk, or ``"auto"``, the default); an error
        on ``CPU``."""


def _device(device: DeviceLike | None, op: str) -> Device:
    return get_default_device() if device is None else as_device(device, op)


def asarray(
    obj: Any,
    /,
    *,
    dtype: DTypeLike | None = None,
    device: DeviceLike | None = None,
    copy: bool | None = None,
    chunks: Any = None,
) -> Array:
    """Convert ``obj`` to an Array.

    Parameters
    ----------
    obj : Array, NumPy or Dask array, buffer, DLPack object, nested sequence or scalar
        A Dask array is wrapped without computing it (device ``DASK``).
    dtype : dtype, optional
        Default: inferred (``bool``, ``int64``, ``float64`` or ``complex128`` for
        Python values).
    device : Device, optional
        Default: the input's device, else the default device.
    copy : bool, optional
        ``True`` always copies, ``False`` never does (``ValueError`` if it
        would have to), ``None`` copies only if needed.
    chunks : optional
        Chunking when the result is on a chunked device (Dask's ``chunks``).

    Returns
    -------
    Array
    """
    dtype = as_dtype(dtype, "asarray")
    target: Device | None = None if device is None else as_device(device, "asarray")
    src: Device | None
    if type(obj) is Array:
        src, data = obj._device, obj._data
    else:
        src = device_of_native(obj)
        data = obj
    if (
        type(obj) is Array
        and copy is not True
        and chunks is None
        # not `dtype in (None, ...)`: a NumPy float64 dtype compares equal to None
        and (dtype is None or dtype == obj.dtype)
        and (target is None or target is obj._device)
    ):
        return obj  # nothing to change: the same array (writes through it stay visible)
    if src is not None and (target is None or target is src):
        # already on its device: convert dtype / copy / chunks there, lazily if lazy
        src.check_chunks("asarray", chunks)
        out = src.rechunk(src.ns.asarray(data, dtype=dtype, copy=copy), chunks)
        _check_kind(src.dtype(out), obj)
        return result(out, src)
    if copy is False and src is not None:
        raise ValueError(
            f"asarray: copy=False but moving data from {src!r} to {target!r} needs a copy."
        )
    if src is not None:
        data = src.to_numpy(data)
    if target is None:
        target = get_default_device()
    arr = (
        np.asarray(data, dtype=dtype)
        if copy is not True
        else np.array(data, dtype=dtype, copy=True)
    )
    if dtype is None and not target.profile.numpy_defaults:
        # dtypes inferred from Python values: the device's defaults (the test ordered
        # so that a device of NumPy's defaults pays one attribute read)
        if src is None and not hasattr(data, "dtype"):
            arr = arr.astype(target.profile.inferred(arr.dtype), copy=False)
    if copy is False and arr is not data and not np.shares_memory(arr, np.asarray(data)):
        raise ValueError("asarray: copy=False but the input cannot be used without a copy.")
    _check_kind(arr.dtype, obj)
    target.check_chunks("asarray", chunks)
    return result(target.from_numpy(arr, chunks), target)


def _check_kind(dtype: np.dtype, obj: Any) -> None:
    if dtype.kind not in "biufc" or dtype.itemsize > 16 or dtype == np.float16:
        raise TypeError(
            f"asarray: cannot make an array of dtype {dtype} from {type(obj).__name__}; "
            "strict_array supports the standard's dtypes: bool, (u)int8-64, float32/64 "
            "and complex64/128. Convert with astype or numpy first."
        )


def arange(
    start: int | float,
    /,
    stop: int | float | None = None,
    step: int | float = 1,
    *,
    dtype: DTypeLike | None = None,
    device: DeviceLike | None = None,
    chunks: Any = None,
) -> Array:
    """Evenly spaced values in the half-open interval ``[start, stop)``.

    Parameters
    ----------
    start, stop, step : int or float
        With one argument it is ``stop`` and ``start`` is 0.
    dtype : dtype, optional
    device : Device, optional
    {chunks}

    Returns
    -------
    Array
        1-D.
    """
    dtype = as_dtype(dtype, "arange")
    dev = _device(device, "arange")
    if dtype is None:
        dtype = dev.profile.default_for((start, stop, step))
    return result(dev.create("arange", start, stop, step, chunks=chunks, dtype=dtype), dev)


def _filled(
    op: str, shape: ShapeLike, dtype: DTypeLike | None, device: DeviceLike | None, chunks: Any,
    *args: Any,
) -> Array:  # fmt: skip
    shape = as_shape(shape, op)
    dtype = as_dtype(dtype, op)
    dev = _device(device, op)
    if dtype is None:  # (full: the kind of its fill value; the others: floats)
        dtype = dev.profile.default_for(args or (0.0,))
    return result(dev.create(op, shape, *args, chunks=chunks, dtype=dtype), dev)


def empty(
    shape: ShapeLike,
    *,
    dtype: DTypeLike | None = None,
    device: DeviceLike | None = None,
    chunks: Any = None,
) -> Array:
    """Uninitialised array of ``shape``.

    Parameters
    ----------
    shape : int or tuple of int
    dtype : dtype, optional
        Default float64.
    device : Device, optional
    {chunks}

    Returns
    -------
    Array
    """
    return _filled("empty", shape, dtype, device, chunks)


def zeros(
    shape: ShapeLike,
    *,
    dtype: DTypeLike | None = None,
    device: DeviceLike | None = None,
    chunks: Any = None,
) -> Array:
    """Array of ``shape`` filled with zeros.

    Parameters
    ----------
    shape : int or tuple of int
    dtype : dtype, optional
        Default float64.
    device : Device, optional
    {chunks}

    Returns
    -------
    Array
    """
    return _filled("zeros", shape, dtype, device, chunks)


def ones(
    shape: ShapeLike,
    *,
    dtype: DTypeLike | None = None,
    device: DeviceLike | None = None,
    chunks: Any = None,
) -> Array:
    """Array of ``shape`` filled with ones.

    Parameters
    ----------
    shape : int or tuple of int
    dtype : dtype, optional
        Default float64.
    device : Device, optional
    {chunks}

    Returns
    -------
    Array
    """
    return _filled("ones", shape, dtype, device, chunks)


def _check_fill(op: str, fill_value: object) -> None:
    if not isinstance(fill_value, (bool, int, float, complex)):
        raise TypeError(
            f"{op}: fill_value must be a Python scalar (bool, int, float, complex), got "
            f"{type(fill_value).__name__}."
        )


def full(
    shape: ShapeLike,
    fill_value: Scalar,
    *,
    dtype: DTypeLike | None = None,
    device: DeviceLike | None = None,
    chunks: Any = None,
) -> Array:
    """Array of ``shape`` filled with ``fill_value``.

    Parameters
    ----------
    shape : int or tuple of int
    fill_value : bool, int, float or complex
    dtype : dtype, optional
        Default: the kind of ``fill_value`` (bool, int64, float64, complex128).
    device : Device, optional
    {chunks}

    Returns
    -------
    Array
    """
    _check_fill("full", fill_value)
    return _filled("full", shape, dtype, device, chunks, fill_value)


def _like(
    op: str, x: Array, dtype: DTypeLike | None, device: DeviceLike | None, chunks: Any,
    *args: Any,
) -> Array:  # fmt: skip
    x = expect_array(op, x)
    dev = x._device if device is None else as_device(device, op)
    dtype = x.dtype if dtype is None else as_dtype(dtype, op)
    if dev is x._device:  # the backend's own *_like keeps chunks and unknown sizes
        return result(dev.create(op, x._data, *args, chunks=chunks, dtype=dtype), dev)
    base = op[: -len("_like")]
    return result(dev.create(base, tuple(x.shape), *args, chunks=chunks, dtype=dtype), dev)


_LIKE_DOC = """{summary}

    Parameters
    ----------
    x : Array
    {fill}dtype : dtype, optional
        Default: ``x``'s.
    device : Device, optional
        Default: ``x``'s.
    {chunks}

    Returns
    -------
    Array
    """


def empty_like(
    x: Array, /, *, dtype: DTypeLike | None = None, device: DeviceLike | None = None,
    chunks: Any = None,
) -> Array:  # fmt: skip
    return _like("empty_like", x, dtype, device, chunks)


def zeros_like(
    x: Array, /, *, dtype: DTypeLike | None = None, device: DeviceLike | None = None,
    chunks: Any = None,
) -> Array:  # fmt: skip
    return _like("zeros_like", x, dtype, device, chunks)


def ones_like(
    x: Array, /, *, dtype: DTypeLike | None = None, device: DeviceLike | None = None,
    chunks: Any = None,
) -> Array:  # fmt: skip
    return _like("ones_like", x, dtype, device, chunks)


def full_like(
    x: Array, /, fill_value: Scalar, *, dtype: DTypeLike | None = None,
    device: DeviceLike | None = None, chunks: Any = None,
) -> Array:  # fmt: skip
    _check_fill("full_like", fill_value)
    return _like("full_like", x, dtype, device, chunks, fill_value)


for _like_func, _summary, _fill in (
    (empty_like, "Uninitialised array with the shape of ``x``.", ""),
    (zeros_like, "Zeros with the shape of ``x``.", ""),
    (ones_like, "Ones with the shape of ``x``.", ""),
    (full_like, "``fill_value`` with the shape of ``x``.",
     "fill_value : bool, int, float or complex\n    "),
):  # fmt: skip
    _like_func.__doc__ = _LIKE_DOC.format(summary=_summary, fill=_fill, chunks=_CHUNKS_DOC)


def eye(
    n_rows: int,
    n_cols: int | None = None,
    /,
    *,
    k: int = 0,
    dtype: DTypeLike | None = None,
    device: DeviceLike | None = None,
    chunks: Any = None,
) -> Array:
    """2-D array with ones on the ``k``-th diagonal and zeros elsewhere.

    Parameters
    ----------
    n_rows : int
    n_cols : int, optional
        Default: ``n_rows``.
    k : int, default 0
        The diagonal: 0 the main one, positive above, negative below.
    dtype : dtype, optional
        Default float64.
    device : Device, optional
    {chunks}

    Returns
    -------
    Array
    """
    dtype = as_dtype(dtype, "eye")
    dev = _device(device, "eye")
    if dtype is None:
        dtype = dev.profile.default_for((0.0,))
    return result(dev.create("eye", n_rows, n_cols, chunks=chunks, k=k, dtype=dtype), dev)


def linspace(
    start: int | float | complex,
    stop: int | float | complex,
    /,
    num: int,
    *,
    dtype: DTypeLike | None = None,
    device: DeviceLike | None = None,
    endpoint: bool = True,
    chunks: Any = None,
) -> Array:
    """``num`` evenly spaced numbers over ``[start, stop]`` (or ``[start, stop)``).

    Parameters
    ----------
    start, stop : int, float or complex
    num : int
    dtype : dtype, optional
    device : Device, optional
    endpoint : bool, default True
        Whether ``stop`` is the last value.
    {chunks}

    Returns
    -------
    Array
    """
    dtype = as_dtype(dtype, "linspace")
    dev = _device(device, "linspace")
    if dtype is None:
        dtype = dev.profile.default_for((start, stop, 0.0))
    return result(
        dev.create("linspace", start, stop, num, chunks=chunks, dtype=dtype, endpoint=endpoint), dev
    )


for _f in (arange, empty, zeros, ones, full, eye, linspace):
    _f.__doc__ = _f.__doc__.replace("{chunks}", _CHUNKS_DOC)  # type: ignore[union-attr]


def from_dlpack(x: Any, /, *, device: DeviceLike | None = None, copy: bool | None = None) -> Array:
    """Array from an object supporting DLPack (``__dlpack__``), on the CPU host.

    Parameters
    ----------
    x : object with ``__dlpack__`` and ``__dlpack_device__``
    device : Device, optional
        Default: ``CPU``; ``DASK`` wraps the imported data lazily.
    copy : bool, optional
    """
    if device is not None or copy is not None:
        require_behaviour("dlpack keywords", "from_dlpack")
    data = np.from_dlpack(x, copy=copy)
    target = as_device(device, "from_dlpack") if device is not None else get_default_device()
    return result(target.from_numpy(data), target)


def meshgrid(*arrays: Array, indexing: str = "xy") -> tuple[Array, ...]:
    """Coordinate matrices from 1-D coordinate vectors (an explicit broadcast).

    Parameters
    ----------
    *arrays : Array
        1-D arrays, all of one dtype and device.
    indexing : {"xy", "ij"}

    Returns
    -------
    tuple of Array
    """
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}.")
    if not arrays:
        return arrays_of_version(())
    dev = common_device("meshgrid", arrays)
    for a in arrays:
        if a._ndim != 1:
            raise ValueError(f"meshgrid: every input must be 1-D, got shape {a.shape}.")
    datas = [a._data for a in arrays]
    dtype = dev.dtype(datas[0])
    for d in datas:
        if dev.dtype(d) != dtype:
            raise TypeError(
                "meshgrid: inputs must share one dtype, got "
                + ", ".join(str(a.dtype) for a in arrays)
                + "; use astype first."
            )
    return arrays_of_version([result(o, dev) for o in dev.ns.meshgrid(*datas, indexing=indexing)])


def tril(x: Array, /, *, k: int = 0) -> Array:
    """Lower triangle of each matrix in ``x`` (elements above diagonal ``k`` zeroed)."""
    x = _matrices("tril", x)
    return result(x._device.ns.tril(x._data, k=k), x._device)


def triu(x: Array, /, *, k: int = 0) -> Array:
    """Upper triangle of each matrix in ``x`` (elements below diagonal ``k`` zeroed)."""
    x = _matrices("triu", x)
    return result(x._device.ns.triu(x._data, k=k), x._device)


def _matrices(op: str, x: Any) -> Array:
    x = expect_array(op, x)
    if x.ndim < 2:  # (NumPy makes a matrix of a vector: a rank promotion)
        raise ValueError(
            f"{op}: x must have at least two dimensions (a stack of matrices), got shape "
            f"{x.shape}; give a matrix, e.g. x[None, :]."
        )
    return x
