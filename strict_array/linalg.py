"""The ``linalg`` extension of the array API standard.

Functions that take two stacks of matrices (``solve``, ``cross``, ``matmul``,
``vecdot``) follow the strict rank rule on their batch dimensions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, NamedTuple

import numpy as np

from . import _policy as policy
from . import _public
from ._array import Array, common_device, expect_array, result
from ._broadcasting import normalize_axes, normalize_axis
from ._dtypes import as_dtype
from ._linear_algebra import matmul, matrix_transpose, tensordot, vecdot  # noqa: F401 - re-exported
from ._statistical import accumulation_dtype

if TYPE_CHECKING:
    from ._backends import Device

__all__ = list(_public.LINALG)


class EigResult(NamedTuple):
    eigenvalues: Array
    eigenvectors: Array


class EighResult(NamedTuple):
    eigenvalues: Array
    eigenvectors: Array


class QRResult(NamedTuple):
    Q: Array
    R: Array


class SlogdetResult(NamedTuple):
    sign: Array
    logabsdet: Array


class SVDResult(NamedTuple):
    U: Array
    S: Array
    Vh: Array


#: functions of square matrices (the last two axes)
_SQUARE = {"cholesky", "det", "eig", "eigh", "eigvals", "eigvalsh", "inv", "matrix_power",
           "slogdet", "solve"}  # fmt: skip


def _matrices(op: str, x: Array) -> None:
    """``x`` is a stack of matrices (square ones for ``_SQUARE``): NumPy's errors, when
    built on every device (a lazy one would wait until computing)."""
    if x._ndim < 2:
        raise np.linalg.LinAlgError(
            f"linalg.{op}: {x.ndim}-dimensional array given; the array must be at least "
            "two-dimensional (a stack of matrices)."
        )
    m, n = x.shape[-2:]
    if op in _SQUARE and (m != n or m is None):
        raise np.linalg.LinAlgError(
            f"linalg.{op}: last 2 dimensions of the array must be square, got shape {x.shape}"
            + (" (a size unknown until computed cannot be checked)" if None in (m, n) else "")
            + "."
        )


def _checked(op: str, x: Array) -> Device:
    """The device of ``x``, a stack of matrices (square ones for ``_SQUARE``).

    Each function calls its backend function itself and wraps each result: a generic
    call (``**kwargs``, a lookup by name, a loop over results) costs a microsecond.
    """
    if type(x) is not Array:
        expect_array(f"linalg.{op}", x)
    if x._ndim < 2:  # _matrices' conditions, which it raises for
        _matrices(op, x)
    if op in _SQUARE:
        m, n = x._device.shape(x._data)[-2:]
        if m != n or m is None:
            _matrices(op, x)
    return x._device


def _rtol(rtol: Any) -> Any:
    return rtol._data if type(rtol) is Array else rtol


def cholesky(x: Array, /, *, upper: bool = False) -> Array:
    """Cholesky factor of each Hermitian positive-definite matrix (lower unless ``upper``)."""
    dev = _checked("cholesky", x)
    return result(dev.ns.linalg.cholesky(x._data, upper=upper), dev)


def cross(x1: Array, x2: Array, /, *, axis: int = -1) -> Array:
    """Cross product of 3-vectors along ``axis``; ``x1`` and ``x2`` need equal ranks."""
    dev = common_device("linalg.cross", (x1, x2))
    shape1, shape2 = dev.shape(x1._data), dev.shape(x2._data)  # (each read once)
    policy.operands("linalg.cross", shape1, shape2)
    # (x2 of x1's shape fails where x1 does, which is named first)
    for name, s in (("x1", shape1), ("x2", shape2)) if shape2 != shape1 else (("x1", shape1),):
        size = s[normalize_axis("linalg.cross", axis, len(s))]
        if size != 3:
            raise ValueError(
                f"linalg.cross: {name} of shape {s} has size "
                f"{'unknown until computed' if size is None else size} along axis {axis}; "
                "cross products are of 3-vectors."
            )
    return result(dev.ns.linalg.cross(x1._data, x2._data, axis=axis), dev)


def det(x: Array, /) -> Array:
    """Determinant of each square matrix."""
    dev = _checked("det", x)
    return result(dev.ns.linalg.det(x._data), dev)


def diagonal(x: Array, /, *, offset: int = 0) -> Array:
    """The ``offset``-th diagonal of each matrix (last two axes)."""
    dev = _checked("diagonal", x)
    return result(dev.ns.linalg.diagonal(x._data, offset=offset), dev)


def eig(x: Array, /) -> EigResult:
    """Eigenvalues and right eigenvectors (complex) of each square matrix."""
    dev = _checked("eig", x)
    w, v = dev.ns.linalg.eig(x._data)
    return EigResult(result(w, dev), result(v, dev))


def eigh(x: Array, /) -> EighResult:
    """Eigenvalues (ascending) and eigenvectors of each Hermitian matrix."""
    dev = _checked("eigh", x)
    w, v = dev.ns.linalg.eigh(x._data)
    return EighResult(result(w, dev), result(v, dev))


def eigvals(x: Array, /) -> Array:
    """Eigenvalues (complex) of each square matrix."""
    dev = _checked("eigvals", x)
    return result(dev.ns.linalg.eigvals(x._data), dev)


def eigvalsh(x: Array, /) -> Array:
    """Eigenvalues (ascending) of each Hermitian matrix."""
    dev = _checked("eigvalsh", x)
    return result(dev.ns.linalg.eigvalsh(x._data), dev)


def inv(x: Array, /) -> Array:
    """Inverse of each square matrix."""
    dev = _checked("inv", x)
    return result(dev.ns.linalg.inv(x._data), dev)


def matrix_norm(
    x: Array, /, *, keepdims: bool = False, ord: int | float | Literal["fro", "nuc"] | None = "fro"
) -> Array:
    """Matrix norm of each matrix (``ord``: ``"fro"``, ``"nuc"``, 1, 2, inf, ...)."""
    dev = _checked("matrix_norm", x)
    return result(dev.ns.linalg.matrix_norm(x._data, keepdims=keepdims, ord=ord), dev)


def matrix_power(x: Array, n: int, /) -> Array:
    """``n``-th power of each square matrix (negative ``n`` inverts)."""
    dev = _checked("matrix_power", x)
    return result(dev.ns.linalg.matrix_power(x._data, n), dev)


def matrix_rank(x: Array, /, *, rtol: float | Array | None = None) -> Array:
    """Rank of each matrix (singular values above ``rtol`` times the largest)."""
    dev = _checked("matrix_rank", x)
    return result(dev.index_result(dev.ns.linalg.matrix_rank(x._data, rtol=_rtol(rtol))), dev)


def outer(x1: Array, x2: Array, /) -> Array:
    """Outer product of two 1-D arrays."""
    dev = common_device("linalg.outer", (x1, x2))
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError(
            f"linalg.outer: both inputs must be 1-D, got shapes {x1.shape} and {x2.shape}."
        )
    return result(dev.ns.linalg.outer(x1._data, x2._data), dev)


def pinv(x: Array, /, *, rtol: float | Array | None = None) -> Array:
    """Moore-Penrose pseudo-inverse of each matrix (float64 for integer or boolean input)."""
    x = expect_array("linalg.pinv", x)
    if x.dtype.kind in "biu":  # the backends' default rtol reads finfo(x.dtype), which
        x = result(x._device.ns.astype(x._data, np.float64), x._device)  # ints lack
    dev = _checked("pinv", x)
    return result(dev.ns.linalg.pinv(x._data, rtol=_rtol(rtol)), dev)


def qr(x: Array, /, *, mode: Literal["reduced", "complete"] = "reduced") -> QRResult:
    """QR decomposition ``(Q, R)`` of each matrix."""
    dev = _checked("qr", x)
    if mode != "reduced" and mode != "complete":  # (NumPy's "r" and "raw" give no (Q, R))
        raise ValueError(f"linalg.qr: mode must be 'reduced' or 'complete', got {mode!r}.")
    q, r = dev.ns.linalg.qr(x._data, mode=mode)
    return QRResult(result(q, dev), result(r, dev))


def slogdet(x: Array, /) -> SlogdetResult:
    """Sign and natural log of the absolute determinant of each square matrix."""
    dev = _checked("slogdet", x)
    sign, logabsdet = dev.ns.linalg.slogdet(x._data)
    return SlogdetResult(result(sign, dev), result(logabsdet, dev))


def solve(x1: Array, x2: Array, /) -> Array:
    """Solve ``x1 @ y = x2`` for each stack; ``x2`` of shape ``(M,)`` is one vector.

    Stacks of different ranks are rank promotion (the mode decides).
    """
    dev = common_device("linalg.solve", (x1, x2))
    shape1, shape2 = dev.shape(x1._data), dev.shape(x2._data)  # (each read once)
    if x2._ndim >= 2:
        policy.stacks("linalg.solve", shape1, shape2)
    _checked("solve", x1)
    m, rows = shape1[-1], shape2[0 if x2._ndim == 1 else -2]
    if m != rows:
        raise ValueError(
            f"linalg.solve: x1 of shape {shape1} holds {m}x{m} matrices but x2 of shape "
            f"{shape2} has {rows} rows"
            + (" (a size unknown until computed cannot be checked)" if None in (m, rows) else "")
            + "."
        )
    return result(dev.ns.linalg.solve(x1._data, x2._data), dev)


def svd(x: Array, /, *, full_matrices: bool = True) -> SVDResult:
    """Singular value decomposition ``(U, S, Vh)`` of each matrix."""
    dev = _checked("svd", x)
    u, s, vh = dev.ns.linalg.svd(x._data, full_matrices=full_matrices)
    return SVDResult(result(u, dev), result(s, dev), result(vh, dev))


def svdvals(x: Array, /) -> Array:
    """Singular values (descending) of each matrix."""
    dev = _checked("svdvals", x)
    return result(dev.ns.linalg.svdvals(x._data), dev)


def trace(x: Array, /, *, offset: int = 0, dtype: Any = None) -> Array:
    """Sum of the ``offset``-th diagonal of each matrix."""
    dtype = as_dtype(dtype, "linalg.trace")  # (checked first, as it always was)
    if dtype is None and type(x) is Array:  # (the device's integer dtype, as sum's)
        dtype = accumulation_dtype("linalg.trace", x, None)
    dev = _checked("trace", x)
    return result(dev.ns.linalg.trace(x._data, offset=offset, dtype=dtype), dev)


def vector_norm(
    x: Array,
    /,
    *,
    axis: int | tuple[int, ...] | None = None,
    keepdims: bool = False,
    ord: int | float = 2,
) -> Array:
    """Vector ``ord``-norm along ``axis`` (all axes by default)."""
    if type(x) is not Array:
        expect_array("linalg.vector_norm", x)
    if axis is not None:  # axes checked here, before any backend (which raise differently)
        normalize_axes("linalg.vector_norm", axis, x._ndim)
    dev = x._device
    return result(dev.ns.linalg.vector_norm(x._data, axis=axis, keepdims=keepdims, ord=ord), dev)


def __getattr__(name: str) -> Any:
    # NumPy's spellings (norm, fft2, ...) get the standard's in the error, from the
    # table of strict_array._numpy_api
    from ._numpy_api import missing_attribute

    raise missing_attribute(__name__, name)
