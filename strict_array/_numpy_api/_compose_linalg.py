"""NumPy's factorizations and statistics of matrices written with the namespace's own
functions, for lazy devices: ``np.linalg.svd``, ``qr``, ``pinv``, ``lstsq`` and
``np.cov`` of a 2-D array resolve to ``linalg.svd``, ``linalg.qr``, ``linalg.pinv``,
``mean`` and ``matmul`` of the array's device, with NumPy's defaults and NumPy's
values (to rounding; singular vectors and the rows of ``R`` up to sign, as NumPy's own
differ between LAPACK builds). On ``DASK`` a tall matrix in row blocks is factored by
TSQR in streaming passes, where NumPy's function on the whole matrix in one block held
it several times over.

Rows of the table (:mod:`._table`) name them with :class:`~._table.Compose`, each
where its arguments are a 2-D matrix of a dtype NumPy's ``linalg`` takes (else NumPy's
function per matrix, as before); an eager host device runs NumPy's own function.
"""

from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from .._array import Array
from .._backends._numpy_ways import bound

__all__ = [
    "cov", "lstsq", "per_matrix", "pinv", "qr", "svd", "why_not_one_matrix", "why_not_per_matrix",
    "why_not_plain_cov",
]  # fmt: skip

#: the dtype kinds NumPy's linalg takes (integers and booleans as float64)
_KINDS = "biufc"


def why_not_one_matrix(*names: str, ranks: dict[str, tuple[int, ...]] | None = None,
                       per_matrix: dict[str, tuple[Any, ...]] | None = None,
                       qr_first: bool = False) -> Any:  # fmt: skip
    """A reason (for ``Unless``) to leave a call to NumPy's function per matrix: one of the
    bound arguments ``names`` is not one non-empty 2-D array of known sizes and of a dtype
    NumPy's ``linalg`` takes (or has another rank than ``ranks`` gives), or a parameter of
    ``per_matrix`` has one of its values there (``hermitian=True``, ``mode="raw"``).
    With ``qr_first``, also a matrix less than 11/6 times as tall as wide: LAPACK's SVD
    (``gesdd``) factors the R of its QR only from there on, and bidiagonalises the
    matrix itself below (other singular vectors' signs than the namespace's)."""
    ranks = dict(ranks or {})
    per_matrix = dict(per_matrix or {})

    def why(b: dict[str, Any]) -> str:
        for name in (*names, *ranks):
            if not _one_matrix(b.get(name), ranks.get(name, (2,))):
                return f"{name} not one non-empty matrix of float, complex or integer dtype"
        for name, values in per_matrix.items():
            if any(b.get(name) is v or b.get(name) == v for v in values):
                return f"{name}={b.get(name)!r}"
        if qr_first:
            m, n = b[names[0]].shape
            if not m >= int(n * 11 / 6):  # (NaN, a size unknown: not known to be)
                return f"{names[0]} less than 11/6 times as tall as wide"
        return ""

    parts = [f"{' or '.join(names)} not one non-empty 2-D matrix"]
    if qr_first:
        parts[0] += ", or less than 11/6 times as tall as wide"
    parts += [f"{k} of rank other than {' or '.join(map(str, r))}" for k, r in ranks.items()]
    parts += [f"{k}={v!r}" for k, values in per_matrix.items() for v in values]
    why.description = ", or ".join(parts)  # type: ignore[attr-defined]
    return why


def why_not_plain_cov(b: dict[str, Any]) -> str:
    """A reason (for ``Unless``) to leave ``np.cov`` to NumPy in one task: ``y`` or
    weights given, or ``m`` not one non-empty 2-D array."""
    for name in ("y", "fweights", "aweights"):
        if b.get(name) is not None:
            return f"{name} given"
    return "" if _one_matrix(b.get("m"), (2,)) else "m not one non-empty 2-D matrix"


why_not_plain_cov.description = "y or weights given, or m not 2-D"  # type: ignore[attr-defined]


def _one_matrix(a: Any, ranks: tuple[int, ...]) -> bool:
    dtype, shape = getattr(a, "dtype", None), getattr(a, "shape", None)
    if dtype is None or shape is None or len(shape) not in ranks:
        return False
    try:
        dtype = np.dtype(dtype)
    except TypeError:  # (another library's dtype object: its name)
        dtype = np.dtype(str(dtype).rsplit(".", 1)[-1])
    known = all(s is not None and s == s for s in shape)  # (None, NaN: known once computed)
    return dtype.kind in _KINDS and dtype != np.float16 and known and 0 not in shape


def _floating(*arrays: Array) -> list[Array]:
    """The arrays in NumPy's common linalg type (integers and booleans as float64)."""
    xp = _namespace(arrays[0])
    dtype = np.result_type(*(a.dtype for a in arrays))
    if dtype.kind in "biu":
        dtype = np.dtype(np.float64)
    return [a if a.dtype == dtype else xp.astype(a, dtype) for a in arrays]


def _known(shape: tuple[int | None, ...]) -> tuple[int, ...]:
    """The sizes of a shape the table's reasons let through (all known)."""
    assert None not in shape
    return cast(tuple[int, ...], shape)


def _namespace(a: Array) -> Any:
    """The array's namespace (``__array_namespace__``: the package, which imports this
    module's table while it loads)."""
    return a.__array_namespace__()


@functools.cache
def _result_type(name: str) -> Any:
    """NumPy's named tuple for ``np.linalg.<name>``'s results (``SVDResult``)."""
    return type(getattr(np.linalg, name)(np.eye(1)))


def svd(a: Array, full_matrices: bool = True, compute_uv: bool = True,
        hermitian: bool = False) -> Any:  # fmt: skip
    """``np.linalg.svd`` of one matrix: the namespace's ``linalg.svd`` (or ``svdvals``)."""
    xp = _namespace(a)
    (a,) = _floating(a)
    if not compute_uv:
        return xp.linalg.svdvals(a)
    u, s, vh = xp.linalg.svd(a, full_matrices=full_matrices)
    return _result_type("svd")(u, s, vh)


def qr(a: Array, mode: str = "reduced") -> Any:
    """``np.linalg.qr`` of one matrix, modes ``"reduced"``, ``"complete"`` and ``"r"``."""
    xp = _namespace(a)
    if mode not in ("reduced", "complete", "r"):  # ("raw" is NumPy's per matrix)
        raise ValueError(f"numpy.linalg.qr: unrecognized mode {mode!r}")
    (a,) = _floating(a)
    q, r = xp.linalg.qr(a, mode="complete" if mode == "complete" else "reduced")
    return r if mode == "r" else _result_type("qr")(q, r)


def pinv(a: Array, rcond: Any = None, hermitian: bool = False, *, rtol: Any = np._NoValue) -> Any:
    """``np.linalg.pinv`` of one matrix: the namespace's ``linalg.pinv``, with NumPy's
    tolerance (``rcond=1e-15`` when neither is given, ``max(m, n) * eps`` for
    ``rtol=None``)."""
    xp = _namespace(a)
    if rcond is None:
        if rtol is np._NoValue:
            rcond = 1e-15
        elif rtol is None:  # (NumPy's eps of a's own dtype: an integer one has none)
            rcond = max(_known(a.shape)) * np.finfo(a.dtype).eps
        else:
            rcond = rtol
    elif rtol is not np._NoValue:
        raise ValueError("`rtol` and `rcond` can't be both set.")
    (a,) = _floating(a)
    return xp.linalg.pinv(a, rtol=rcond)


def lstsq(a: Array, b: Array, rcond: Any = None) -> tuple[Array, Array, Array, Array]:
    """``np.linalg.lstsq``: the solution from the namespace's SVD of ``a``
    (``V S^+ U^H b``, singular values at most ``rcond`` times the largest dropped, default
    ``max(m, n) * eps``), the sums of squared residuals (none where the rank is below
    ``n`` or ``m <= n``: a size known once computed), the rank and the singular values."""
    xp = _namespace(a)
    if a.shape[0] != b.shape[0]:
        raise np.linalg.LinAlgError("Incompatible dimensions")
    a, b = _floating(a, b)
    m, n = _known(a.shape)
    if rcond is None:
        rcond = np.finfo(a.dtype).eps * max(m, n)
    column = b if b.ndim == 2 else xp.expand_dims(b, axis=1)
    u, s, vh = xp.linalg.svd(a, full_matrices=False)
    large = s > rcond * xp.max(s)
    one = xp.ones_like(s)
    inverse = xp.where(large, one / xp.where(large, s, one), xp.zeros_like(s))
    scaled = xp.multiply(xp.conj(vh).mT, inverse, broadcast_dimensions=(1,))  # V S^+
    x = scaled @ (xp.conj(u).mT @ column)
    r = column - a @ x
    squares = xp.sum(r * xp.conj(r) if r.dtype.kind == "c" else r * r, axis=0)
    squares = xp.real(squares) if squares.dtype.kind == "c" else squares
    rank = xp.astype(xp.sum(xp.astype(large, xp.int32)), xp.int32)
    full = xp.logical_and(rank == n, xp.asarray(m > n, device=a.device))
    residuals = squares[xp.broadcast_to(full, squares.shape)]
    return (x if b.ndim == 2 else x[:, 0]), residuals, rank, s


def cov(m: Array, y: Any = None, rowvar: bool = True, bias: bool = False, ddof: Any = None,
        fweights: Any = None, aweights: Any = None, *, dtype: Any = None) -> Array:  # fmt: skip
    """``np.cov`` of one 2-D array without ``y`` and weights: the centred observations'
    product with themselves, ``Z^T conj(Z) / (n - ddof)``, from the namespace's ``mean``
    and ``matmul`` (observations in rows for ``rowvar=False``, in columns otherwise)."""
    xp = _namespace(m)
    if ddof is not None and ddof != int(ddof):
        raise ValueError("ddof must be integer")
    if dtype is None:
        dtype = np.result_type(m.dtype, np.float64)
    z = xp.astype(m, np.dtype(dtype))
    if rowvar:
        z = z.mT  # observations in rows
    if ddof is None:
        ddof = 0 if bias else 1
    fact = _known(z.shape)[0] - ddof
    if fact <= 0:
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=3)
        fact = 0.0
    centred = xp.subtract(z, xp.mean(z, axis=0), broadcast_dimensions=(1,))
    c = centred.mT @ (xp.conj(centred) if centred.dtype.kind == "c" else centred)
    c = c * float(np.true_divide(1, fact))
    return xp.squeeze(c, axis=(0, 1)) if c.shape == (1, 1) else c


# --- stacks of matrices (and of vectors): NumPy's name, the namespace's function ------------
@dataclass(frozen=True)
class _PerMatrix:
    """How NumPy's ``linalg.<name>`` maps onto the namespace's function of that name: its
    array parameters and the core rank of each, its keywords the namespace takes under
    the same name, NumPy's keyword values it has no counterpart of (each the only value
    it takes), and whether integers and booleans are computed in float64 (as NumPy's
    ``linalg`` computes them) or kept (a product, a diagonal)."""

    arrays: tuple[str, ...]
    cores: tuple[int, ...]
    keywords: tuple[str, ...] = ()
    fixed: tuple[tuple[str, Any], ...] = ()
    floating: bool = True


_PER_MATRIX = {
    "det": _PerMatrix(("a",), (2,)),
    "inv": _PerMatrix(("a",), (2,)),
    "cholesky": _PerMatrix(("a",), (2,), ("upper",)),
    # (NumPy's eigh reads the lower triangle, as the namespace's does)
    "eigh": _PerMatrix(("a",), (2,), fixed=(("UPLO", "L"),)),
    "eigvalsh": _PerMatrix(("a",), (2,), fixed=(("UPLO", "L"),)),
    "slogdet": _PerMatrix(("a",), (2,)),
    "svdvals": _PerMatrix(("x",), (2,)),
    "matrix_norm": _PerMatrix(("x",), (2,), ("keepdims", "ord")),
    "matrix_rank": _PerMatrix(("A",), (2,), ("rtol",), (("tol", None), ("hermitian", False))),
    "solve": _PerMatrix(("a", "b"), (2, 1)),
    "diagonal": _PerMatrix(("x",), (2,), ("offset",), floating=False),
    "trace": _PerMatrix(("x",), (2,), ("offset", "dtype"), floating=False),
    "cross": _PerMatrix(("x1", "x2"), (1, 1), ("axis",), floating=False),
    "vecdot": _PerMatrix(("x1", "x2"), (1, 1), ("axis",), floating=False),
}


def why_not_per_matrix(name: str) -> Any:
    """A reason (for ``Unless``) to leave NumPy's ``linalg.<name>`` to NumPy per matrix:
    an array argument not an array (NumPy's or the device's), the first not the
    device's, a dtype outside NumPy's ``linalg`` (float16), a rank below the core's,
    or a keyword the namespace has no counterpart of given other than its default
    (``UPLO="U"``, ``tol=``, ``hermitian=True``)."""
    how = _PER_MATRIX[name]

    def why(b: dict[str, Any]) -> str:
        for i, (p, core) in enumerate(zip(how.arrays, how.cores)):
            a: Any = b.get(p)
            if not hasattr(a, "ndim") or not hasattr(a, "dtype") or isinstance(a, np.generic):
                return f"{p} not an array"
            if i == 0 and isinstance(a, np.ndarray):
                return f"{p} not an array of the device"
            if a.dtype.kind not in _KINDS or a.dtype == np.float16:
                return f"dtype {a.dtype}"
            if a.ndim < core:
                return f"{p} of rank {a.ndim}"
        for p, value in how.fixed:
            if b.get(p) is not value and b.get(p) != value:
                return f"{p}={b.get(p)!r}"
        return ""

    parts = [f"{' or '.join(how.arrays)} not an array of the device", "float16"]
    parts += [f"{p} other than {v!r}" for p, v in how.fixed]
    why.description = ", or ".join(parts)  # type: ignore[attr-defined]
    return why


@functools.cache
def per_matrix(name: str) -> Any:
    """NumPy's ``linalg.<name>`` of a stack of matrices (or vectors) by the namespace's
    ``linalg.<name>``: integers and booleans in float64 where NumPy computes them so,
    NumPy's keywords under the namespace's names."""
    numpy = getattr(np.linalg, name)
    how = _PER_MATRIX[name]

    def call(*args: Any, **kwargs: Any) -> Any:
        b = bound(numpy, args, kwargs)
        arrays = [b[p] for p in how.arrays]
        xp = _namespace(arrays[0])
        if how.floating:
            arrays = _floating(*arrays)
        elif len(arrays) > 1:  # (NumPy's common dtype of the operands)
            dtype = np.result_type(*(a.dtype for a in arrays))
            arrays = [a if a.dtype == dtype else xp.astype(a, dtype) for a in arrays]
        options = {k: b[k] for k in how.keywords if k in b}
        if name == "matrix_rank" and options.get("rtol") is None:
            options.pop("rtol", None)
        out = getattr(xp.linalg, name)(*arrays, **options)
        return _result_type(name)(*out) if hasattr(out, "_fields") else out  # (NumPy's tuple)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"""NumPy's ``linalg.{name}`` by the namespace's."""
    return call
