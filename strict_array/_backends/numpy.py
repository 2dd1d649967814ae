"""The ``CPU`` device: eager, in-memory NumPy arrays (the host)."""

from __future__ import annotations

import importlib
import math
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import Device


class NumPyDevice(Device):
    """Eager, in-memory NumPy arrays."""

    array_type = np.ndarray
    host = True
    __slots__ = ()

    def _load_namespace(self) -> Any:
        import types

        import array_api_compat.numpy as compat

        ns = types.SimpleNamespace(
            **{k: v for k, v in vars(compat).items() if not k.startswith("__")}
        )
        ns.tensordot = tensordot
        ns.pow = power  # (the standard's special cases where NumPy's loop takes a sqrt)
        vars(ns).update(DIRECT)
        _use_own(ns, NUMPY_OWN)
        return ns

    def _reshape_function(self) -> Callable[[Any, tuple[int, ...]], Any]:
        return np.ndarray.reshape  # the method itself: no Python wrapper on the hot path

    def owns(self, obj: object) -> bool:
        return isinstance(obj, (np.ndarray, np.generic))

    #: NumPy's own function, not a method around it: every reduction to a scalar
    #: (``sum(x)``, ``linalg.det``) passes here
    coerce = staticmethod(np.asarray)  # type: ignore[assignment]

    #: the attributes themselves, read in C (an ndarray's shape is a tuple of ints
    #: already, its dtype one of NumPy's): every check of shapes and dtypes reads them
    shape = staticmethod(operator.attrgetter("shape"))  # type: ignore[assignment]
    dtype = staticmethod(operator.attrgetter("dtype"))  # type: ignore[assignment]

    def from_numpy(self, arr: np.ndarray, chunks: Any = None) -> np.ndarray:
        return arr

    def to_numpy(self, data: np.ndarray) -> np.ndarray:
        return data

    def compute(self, datas: Sequence[Any]) -> list[np.ndarray]:
        return list(datas)

    item = staticmethod(np.ndarray.item)  # type: ignore[assignment]

    def index_from_numpy(self, index: np.ndarray) -> np.ndarray:
        return index

    def map_blocks(self, kernel: Callable[[np.ndarray], np.ndarray], data: Any) -> Any:
        return kernel(data)

    def update(self, name: str, data: np.ndarray, other: Any) -> np.ndarray:
        # the ufunc writes into data: no temporary, no copy. casting="no" refuses any
        # other result dtype (NumPy's default, "same_kind", would cast float64 into a
        # float32 array), and an output operand does not broadcast: both raise before
        # anything is written
        return self.binaries[name](data, other, out=data, casting="no")  # type: ignore[call-arg]

    def broadcast_to(self, data: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
        """``np.broadcast_to``'s read-only view, made by ``ndarray``'s constructor.

        The view has the data's strides on its mapped axes and 0 on new and
        stretched ones, over the data's own memory: NumPy's function finds those
        strides through ``nditer`` in about a microsecond. Only C-contiguous data
        (whose buffer is exactly its memory) takes this path; any other layout,
        and every error, is NumPy's own function's.
        """
        sizes = data.shape
        if sizes == shape and 1 not in sizes:  # nothing to stretch: a read-only view
            view = data.view()
        else:
            lead = len(shape) - len(sizes)
            if lead < 0 or not data.flags.c_contiguous:
                return np.broadcast_to(data, shape)
            strides = [0] * lead
            for size, target, stride in zip(sizes, shape[lead:], data.strides):
                if size == 1:  # (a size-1 axis has stride 0 there too, stretched or not)
                    strides.append(0)
                elif size == target:
                    strides.append(stride)
                else:
                    return np.broadcast_to(data, shape)  # (its error)
            try:
                view = np.ndarray(shape, data.dtype, data, 0, strides)
            except (TypeError, ValueError):  # e.g. a negative size: NumPy's own error
                return np.broadcast_to(data, shape)
        view.setflags(write=False)
        return view


def _std(
    x: np.ndarray, /, *, axis: Any = None, correction: float = 0.0, keepdims: bool = False
) -> Any:
    return np.ndarray.std(x, axis=axis, ddof=correction, keepdims=keepdims)


def _var(
    x: np.ndarray, /, *, axis: Any = None, correction: float = 0.0, keepdims: bool = False
) -> Any:
    return np.ndarray.var(x, axis=axis, ddof=correction, keepdims=keepdims)


def _unstack(x: np.ndarray, /, *, axis: int = 0) -> tuple[np.ndarray, ...]:
    """``np.unstack``: the views along ``axis``, iterated after one ``transpose``
    (NumPy's own spends microseconds in ``moveaxis`` normalising axes)."""
    if x.ndim == 0 or not -x.ndim <= axis < x.ndim:
        return np.unstack(x, axis=axis)  # (its errors)
    axis %= x.ndim
    return tuple(x.transpose([axis, *(i for i in range(x.ndim) if i != axis)]) if axis else x)


def _stack(arrays: Sequence[np.ndarray], /, *, axis: int = 0) -> np.ndarray:
    """``np.stack`` of arrays of one shape: a new axis on each, one ``concatenate``
    (what NumPy's own does after microseconds of argument handling)."""
    first = arrays[0] if arrays else None
    if first is None or not -first.ndim - 1 <= axis <= first.ndim:
        return np.stack(arrays, axis=axis)  # (its errors)
    for a in arrays:
        if a.shape != first.shape:
            return np.stack(arrays, axis=axis)  # (its error)
    key = (slice(None),) * (axis % (first.ndim + 1)) + (None,)
    return np.concatenate([a[key] for a in arrays], axis=axis)


def power(x1: Any, x2: Any, /, **kwargs: Any) -> Any:
    """NumPy's ``power``, with the standard's special cases where NumPy's loop takes a
    square root instead (an exponent of 0.5 broadcast along the loop: ``x ** 0.5``, an
    exponent of size 1, a column): there ``-inf ** 0.5`` is NaN and ``-0.0 ** 0.5`` is
    ``-0.0``, where the standard (and NumPy's loop otherwise) gives ``+inf`` and
    ``+0.0`` (numpy/numpy#21213). The devices' blocks differ in layout, so NumPy alone
    gave them different values. ``kwargs`` are the ufunc's (``out=``, ``casting=``)."""
    special = None
    half = np.equal(x2, 0.5)
    if half.any() and np.asarray(x1).dtype.kind == "f":
        # the masks first (an in-place power overwrites x1); x1 itself goes to NumPy as
        # given, so that a Python scalar keeps NumPy's promotion (2.0 ** float32)
        special = (half & np.isneginf(x1), half & np.equal(x1, 0))
    out = np.power(x1, x2, **kwargs)
    if special is None:
        return out
    if isinstance(out, np.ndarray):
        np.copyto(out, np.inf, where=special[0])
        np.copyto(out, 0.0, where=special[1])
    elif special[0] or special[1]:  # (a NumPy scalar: both inputs 0-d)
        out = out.dtype.type(np.inf if special[0] else 0.0)
    return out


#: NumPy's own callables where array_api_compat's are slower and mean the same for the
#: arguments strict_array passes (every datum on this device is an ``np.ndarray``):
#: NumPy's reductions as ndarray methods skip the ``__array_function__`` dispatch and
#: ``_wrapreduction`` (``np.sum`` on a small array costs about twice ``ndarray.sum``);
#: compat's creation functions, ``matmul`` and ``permute_dims`` are Python wrappers
#: around these very functions (the ``device=`` check they add is strict_array's own)
DIRECT: dict[str, Callable[..., Any]] = {
    "sum": np.ndarray.sum, "prod": np.ndarray.prod, "max": np.ndarray.max,
    "min": np.ndarray.min, "mean": np.ndarray.mean, "all": np.ndarray.all,
    "any": np.ndarray.any, "argmax": np.ndarray.argmax, "argmin": np.ndarray.argmin,
    "std": _std, "var": _var, "matmul": np.matmul, "permute_dims": np.ndarray.transpose,
    "zeros": np.zeros, "ones": np.ones, "empty": np.empty, "full": np.full,
    "zeros_like": np.zeros_like, "ones_like": np.ones_like, "empty_like": np.empty_like,
    "full_like": np.full_like, "eye": np.eye, "arange": np.arange, "linspace": np.linspace,
    "unstack": _unstack, "stack": _stack,
    # (compat's matrix_transpose: a Python function around this method, after a rank
    # check that strict_array's own makes first)
    "matrix_transpose": lambda x: np.ndarray.swapaxes(x, -1, -2),
}  # fmt: skip


# --- NumPy's own linalg, fft, unique_* and cumulative_* ------------------------------
def _eig_always_complex() -> dict[str, Callable[..., Any]]:
    """array_api_compat's ``eig`` and ``eigvals`` (complex results, where NumPy's own
    are real when every eigenvalue is), with their imports of NumPy's helpers made once
    rather than on every call (a microsecond of each call); none if those moved."""
    try:
        from numpy.linalg import _umath_linalg
        from numpy.linalg._linalg import (  # type: ignore[attr-defined]
            _assert_finite,
            _assert_stacked_square,
            _commonType,
            _complexType,
            _makearray,
            _raise_linalgerror_eigenvalues_nonconvergence,
            isComplexType,
        )
    except ImportError:  # pragma: no cover - array_api_compat's functions stay
        return {}

    def call(gufunc: Any, x: np.ndarray, of_real: str, of_complex: str) -> tuple[Any, Any, Any]:
        a, wrap = _makearray(x)
        _assert_stacked_square(a)
        _assert_finite(a)
        t, result_t = _commonType(a)
        with np.errstate(
            call=_raise_linalgerror_eigenvalues_nonconvergence, invalid="call", over="ignore",
            divide="ignore", under="ignore",
        ):  # fmt: skip
            out = gufunc(a, signature=of_complex if isComplexType(t) else of_real)
        return out, _complexType(result_t), wrap

    def eig(x: np.ndarray, /) -> tuple[np.ndarray, np.ndarray]:
        (w, v), result_t, wrap = call(_umath_linalg.eig, x, "d->DD", "D->DD")
        return w.astype(result_t, copy=False), wrap(v.astype(result_t, copy=False))

    def eigvals(x: np.ndarray, /) -> np.ndarray:
        w, result_t, _ = call(_umath_linalg.eigvals, x, "d->D", "D->D")
        return w.astype(result_t, copy=False)  # type: ignore[no-any-return]

    return {"linalg.eig": eig, "linalg.eigvals": eigvals}


def _unique_all(x: np.ndarray, /) -> tuple[np.ndarray, ...]:
    values, indices, inverse, counts = np.unique(
        x, return_index=True, return_inverse=True, return_counts=True, equal_nan=False
    )
    return values, indices, inverse.reshape(x.shape), counts


def _unique_counts(x: np.ndarray, /) -> tuple[np.ndarray, ...]:
    return np.unique(x, return_counts=True, equal_nan=False)  # type: ignore[no-any-return]


def _unique_inverse(x: np.ndarray, /) -> tuple[np.ndarray, ...]:
    values, inverse = np.unique(x, return_inverse=True, equal_nan=False)
    return values, inverse.reshape(x.shape)


def _unique_values(x: np.ndarray, /) -> np.ndarray:
    return np.unique(x, equal_nan=False)  # type: ignore[no-any-return]


#: More of NumPy's own callables in place of array_api_compat's, by dotted name
#: (``"linalg.solve"`` replaces it in a copy of ``ns.linalg``), each the same
#: computation, checked for every dtype by tests/test_numpy_own.py: compat's fft
#: functions cast float32 and complex64 results back from complex128, which NumPy >= 2
#: no longer gives; its eigh, qr, slogdet, svd, svdvals, matrix_norm and cross call
#: these very functions (and re-wrap their named tuples), and its solve is NumPy 2's;
#: its matrix_rank, unique_* and cumulative_* call the same NumPy functions after
#: ``inspect.signature`` or ``array_namespace`` on every call (microseconds; NumPy's
#: own unique_* are not used: their order may change in any release, NumPy says).
#: Where they differ, NumPy's is right: matrix_rank of a matrix whose largest singular
#: value times its size overflows is not 0 (compat's tolerance is inf), and of an
#: empty matrix NumPy >= 2.3's is 0 (compat's raises); the DASK device computes each
#: matrix with these too.
NUMPY_OWN: dict[str, Callable[..., Any]] = {
    "unique_all": _unique_all, "unique_counts": _unique_counts,
    "unique_inverse": _unique_inverse, "unique_values": _unique_values,
    **({"cumulative_sum": np.cumulative_sum, "cumulative_prod": np.cumulative_prod}
       if hasattr(np, "cumulative_sum") else {}),  # (NumPy >= 2.1)
    **{f"fft.{name}": getattr(np.fft, name) for name in (
        "fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft",
        "fftshift", "ifftshift")},
    **{f"linalg.{name}": getattr(np.linalg, name) for name in (
        "eigh", "qr", "slogdet", "svd", "svdvals", "matrix_norm", "matrix_rank", "solve")},
    "linalg.cross": np.cross,
    **_eig_always_complex(),
}  # fmt: skip

# --- the functions of explicit broadcasting, einsum and meshgrid (their own block) ---
#: ``np.einsum`` calls this C function at once when ``optimize`` is False, its default,
#: and strict_array passes nothing but the subscripts and NumPy arrays; NumPy's Python
#: function adds only its ``__array_function__`` dispatch (half a microsecond)
DIRECT["einsum"] = getattr(importlib.import_module("numpy._core.multiarray"), "c_einsum", np.einsum)


def _meshgrid(*arrays: np.ndarray, indexing: str = "xy") -> tuple[np.ndarray, ...]:
    """``np.meshgrid`` of 1-D arrays: each grid a new C-ordered array, filled by one
    broadcasting assignment (NumPy's own broadcasts every input through
    ``np.broadcast_arrays`` and then copies each, several microseconds)."""
    if indexing not in ("xy", "ij") or any(a.ndim != 1 for a in arrays):  # (its errors)
        return tuple(np.meshgrid(*arrays, indexing=indexing))  # type: ignore[call-overload]
    n = len(arrays)
    axes = list(range(n))
    if indexing == "xy" and n > 1:  # the first two inputs vary along axes 1 and 0
        axes[0], axes[1] = 1, 0
    shape = [0] * n
    for axis, a in zip(axes, arrays):
        shape[axis] = a.shape[0]
    grids = []
    for axis, a in zip(axes, arrays):
        grid = np.empty(shape, a.dtype)
        grid[...] = a.reshape([-1 if i == axis else 1 for i in range(n)])
        grids.append(grid)
    return tuple(grids)


DIRECT["meshgrid"] = _meshgrid


def _use_own(ns: Any, table: dict[str, Callable[..., Any]]) -> None:
    """Set ``table``'s functions on ``ns``, a dotted name on a copy of the submodule."""
    import types

    for dotted, fn in table.items():
        *path, name = dotted.split(".")
        target = ns
        for part in path:
            sub = getattr(target, part)
            if not isinstance(sub, types.SimpleNamespace):  # never compat's own module
                sub = types.SimpleNamespace(
                    **{k: v for k, v in vars(sub).items() if not k.startswith("__")}
                )
                setattr(target, part, sub)
            target = sub
        setattr(target, name, fn)


def contracted_axes(axes: Any, ndim1: int, ndim2: int) -> tuple[list[int], list[int]]:
    """``tensordot``'s ``axes`` as the contracted axes of each operand, non-negative."""
    if isinstance(axes, int):
        return list(range(ndim1 - axes, ndim1)), list(range(axes))
    return [a % ndim1 for a in axes[0]], [b % ndim2 for b in axes[1]]


def tensordot(x1: np.ndarray, x2: np.ndarray, /, *, axes: Any = 2) -> np.ndarray:
    """NumPy's ``tensordot`` through ``matmul``, with IEEE products.

    ``np.tensordot`` multiplies with ``np.dot``, whose BLAS call skips ``0 * inf``
    (giving 0, not NaN) when one element is contracted, and not otherwise
    (numpy/numpy#14788): the result depended on the shapes, and so on a lazy device's
    chunks. ``matmul`` computes every product. Chunked devices run it block by block.
    """
    left, right = contracted_axes(axes, x1.ndim, x2.ndim)
    free1 = [i for i in range(x1.ndim) if i not in left]
    free2 = [i for i in range(x2.ndim) if i not in right]
    shape1, shape2 = [x1.shape[i] for i in free1], [x2.shape[i] for i in free2]
    k = math.prod([x1.shape[i] for i in left])  # (Python ints: np.prod costs microseconds)
    a = x1.transpose(free1 + left).reshape(math.prod(shape1), k)
    b = x2.transpose(right + free2).reshape(k, math.prod(shape2))
    return np.matmul(a, b).reshape(shape1 + shape2)


CPU: Device = NumPyDevice("cpu")
