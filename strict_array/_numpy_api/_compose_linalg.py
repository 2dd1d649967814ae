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
import operator
import warnings
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from .._array import Array
from .._backends._numpy_ways import bound

__all__ = [
    "common", "cov", "cross", "diagonal", "dot", "matmul", "lstsq", "norm", "outer", "per_matrix", "pinv", "qr",
    "svd", "tensordot", "trace", "vdot", "why_not_norm", "why_not_one_matrix",
    "why_not_per_matrix", "why_not_plain_cov", "why_not_product", "why_not_two_axes",
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


def common(*arrays: Array) -> list[Array]:
    """The arrays in NumPy's common dtype (a product of int32 and float32 in float64)."""
    xp = _namespace(arrays[0])
    dtype = np.result_type(*(a.dtype for a in arrays))
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
    "vector_norm": _PerMatrix(("x",), (0,), ("axis", "keepdims", "ord")),
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
            arrays = common(*arrays)
        options = {k: b[k] for k in how.keywords if k in b}
        if options.get("dtype") is not None:  # (NumPy's names of dtypes too: "float32")
            options["dtype"] = np.dtype(options["dtype"])
        if name == "matrix_rank" and options.get("rtol") is None:
            options.pop("rtol", None)
        out = getattr(xp.linalg, name)(*arrays, **options)
        return _result_type(name)(*out) if hasattr(out, "_fields") else out  # (NumPy's tuple)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"""NumPy's ``linalg.{name}`` by the namespace's."""
    return call


# --- norms and products by NumPy's older names ----------------------------------------------
def why_not_norm(b: dict[str, Any]) -> str:
    """A reason (for ``Unless``) to leave ``np.linalg.norm`` to Dask's own: ``x`` not the
    device's array of a dtype NumPy's ``linalg`` takes, an order NumPy refuses for those
    axes, or axes NumPy refuses (NumPy's own error)."""
    x: Any = b.get("x")
    if not hasattr(x, "ndim") or isinstance(x, (np.ndarray, np.generic)):
        return "x not an array of the device"
    if x.dtype.kind not in _KINDS or x.dtype == np.float16:
        return f"dtype {x.dtype}"
    axis, order = b.get("axis"), b.get("ord")
    axes = (axis,) if isinstance(axis, (int, np.integer)) else axis
    if axis is None and order is not None and x.ndim not in (1, 2):
        return "ord= of an array neither 1-D nor 2-D without axis="
    vector = (axis is None and (order is None or x.ndim == 1)) or (axes and len(axes) == 1)
    if vector and isinstance(order, str):
        return f"ord={order!r} of vectors"
    if axes is not None and (
        len(axes) > 2 or len({int(a) % max(x.ndim, 1) for a in axes}) < len(axes)
    ):
        return f"axis={axis!r}"
    return ""


why_not_norm.description = (  # type: ignore[attr-defined]
    "x not an array of the device, or float16, or an order or axes NumPy refuses"
)


def norm(x: Array, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Array:
    """``np.linalg.norm``: the namespace's ``vector_norm`` (of the flattened array where
    neither ``ord`` nor ``axis`` is given, of one axis) or ``matrix_norm`` (of two axes,
    moved last; ``ord=None`` is Frobenius), integers in float64."""
    xp = _namespace(x)
    (x,) = _floating(x)
    if axis is None and (ord is None or x.ndim == 1):
        return xp.linalg.vector_norm(x, axis=None, keepdims=keepdims, ord=2 if ord is None else ord)
    axes = (0, 1) if axis is None else (axis,) if isinstance(axis, (int, np.integer)) else axis
    if len(axes) == 1:
        return xp.linalg.vector_norm(
            x, axis=int(axes[0]), keepdims=keepdims, ord=2 if ord is None else ord
        )
    row, column = (int(a) % x.ndim for a in axes)
    rest = [i for i in range(x.ndim) if i not in (row, column)]
    out = xp.linalg.matrix_norm(
        xp.permute_dims(x, (*rest, row, column)), ord="fro" if ord is None else ord
    )
    return xp.expand_dims(out, axis=tuple(sorted((row, column)))) if keepdims else out


def why_not_two_axes(b: dict[str, Any]) -> str:
    """A reason (for ``Unless``) to leave ``np.trace`` or ``np.diagonal`` to Dask's own:
    ``a`` not the device's array of a dtype the namespace takes, of fewer than two axes,
    the same axis twice (NumPy's errors), or ``out=`` given."""
    a: Any = b.get("a")
    if not hasattr(a, "ndim") or isinstance(a, (np.ndarray, np.generic)):
        return "a not an array of the device"
    if a.dtype.kind not in _KINDS or a.dtype == np.float16:
        return f"dtype {a.dtype}"
    if a.ndim < 2 or int(b["axis1"]) % a.ndim == int(b["axis2"]) % a.ndim:
        return "fewer than two axes, or one axis twice"
    return "out= given" if b.get("out") is not None else ""


why_not_two_axes.description = (  # type: ignore[attr-defined]
    "a not an array of the device, or float16, or fewer than two axes, or out= given"
)


def _last_two(a: Array, axis1: Any, axis2: Any) -> Array:
    """``a`` with ``axis1`` and ``axis2`` moved last (NumPy's matrix of those axes)."""
    i, j = int(axis1) % a.ndim, int(axis2) % a.ndim
    rest = [k for k in range(a.ndim) if k not in (i, j)]
    return _namespace(a).permute_dims(a, (*rest, i, j))


def trace(a: Array, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None,
          out: Any = None) -> Array:  # fmt: skip
    """``np.trace``: the namespace's ``linalg.trace`` of the matrices of ``axis1`` and
    ``axis2`` (NumPy's first two axes by default)."""
    m = _last_two(a, axis1, axis2)
    dtype = None if dtype is None else np.dtype(dtype)  # (NumPy's names of dtypes too)
    return _namespace(a).linalg.trace(m, offset=int(offset), dtype=dtype)


def diagonal(a: Array, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Array:
    """``np.diagonal``: the namespace's ``linalg.diagonal`` of the matrices of ``axis1``
    and ``axis2``."""
    return _namespace(a).linalg.diagonal(_last_two(a, axis1, axis2), offset=int(offset))


#: the reasons of :func:`why_not_product` past the operands', for the docs' table
_PRODUCT_REASONS = {
    "dot": ", or a 0-d operand", "linalg.matmul": ", or a 0-d operand",
    "cross": ", or a 0-d operand, or vectors not of 3 elements",
    "linalg.outer": ", or not vectors",
}  # fmt: skip


def why_not_product(name: str) -> Any:
    """A reason (for ``Unless``) to leave NumPy's product ``name`` to Dask's own: an
    operand not an array (NumPy's or the device's), the first not the device's, a dtype
    outside the namespace's (float16), a 0-d operand of ``dot`` (NumPy's product by a
    scalar), ``linalg.matmul`` or ``cross``, an operand of ``linalg.outer`` not a vector
    (NumPy's error), vectors of ``cross`` not of 3 elements, or ``out=``."""
    first_name, second_name = ("x1", "x2") if name.startswith("linalg.") else ("a", "b")

    def why(b: dict[str, Any]) -> str:
        first: Any = b.get(first_name)
        second: Any = b.get(second_name)
        if not hasattr(first, "ndim") or isinstance(first, (np.ndarray, np.generic)):
            return f"{first_name} not an array of the device"
        if not hasattr(second, "dtype") or isinstance(second, np.generic):
            return f"{second_name} not an array"
        for v in (first, second):
            if v.dtype.kind not in "biufc" or v.dtype == np.float16:
                return f"dtype {v.dtype}"
        if name in ("dot", "linalg.matmul", "cross") and 0 in (first.ndim, second.ndim):
            return "a 0-d operand"
        if name == "linalg.outer" and (first.ndim, second.ndim) != (1, 1):
            return "operands not vectors"
        if name == "cross":
            axes: list[Any] = [b.get("axis")] * 2 if b.get("axis") is not None else \
                [b["axisa"], b["axisb"]]  # fmt: skip
            if any(v.shape[int(a) % v.ndim] != 3 for v, a in zip((first, second), axes)):
                return "vectors not of 3 elements"  # (NumPy's of 2 elements: a scalar)
        return "out= given" if b.get("out") is not None else ""

    why.description = (  # type: ignore[attr-defined]
        f"{first_name} not an array of the device, or {second_name} not an array, or float16"
        + _PRODUCT_REASONS.get(name, "")
    )
    return why


def dot(a: Array, b: Array, out: Any = None) -> Array:
    """``np.dot``: a product over the last axis of ``a`` and the second-to-last of ``b``
    (its only one for a vector), the namespace's ``tensordot``."""
    xp = _namespace(a)
    a, b = common(a, b)
    return xp.tensordot(a, b, axes=([a.ndim - 1], [max(b.ndim - 2, 0)]))


def vdot(a: Array, b: Array, /) -> Array:
    """``np.vdot``: the flattened arrays' dot product, the first conjugated: the
    namespace's ``vecdot``."""
    xp = _namespace(a)
    a, b = common(a, b)
    return xp.vecdot(xp.reshape(a, (-1,)), xp.reshape(b, (-1,)))


def outer(a: Array, b: Array, out: Any = None) -> Array:
    """``np.outer`` (and ``np.linalg.outer``): the flattened arrays' outer product, the
    namespace's ``linalg.outer``."""
    xp = _namespace(a)
    a, b = common(a, b)
    return xp.linalg.outer(xp.reshape(a, (-1,)), xp.reshape(b, (-1,)))


def tensordot(x1: Array, x2: Array, /, *, axes: Any = 2) -> Array:
    """``np.tensordot`` and ``np.linalg.tensordot``: the namespace's ``tensordot`` in
    NumPy's common dtype, NumPy's axes (an int, or two ints or sequences) as lists."""
    xp = _namespace(x1)
    x1, x2 = common(x1, x2)
    if not isinstance(axes, (int, np.integer)):
        axes = tuple([operator.index(a) for a in (v if isinstance(v, (tuple, list)) else (v,))]
                     for v in axes)  # fmt: skip
    return cast(Array, xp.tensordot(x1, x2, axes=axes))


def _batch_aligned(a: Array, b: Array, core: int) -> tuple[Array, Array]:
    """``a`` and ``b`` with leading axes of size 1 to one rank of their batch axes (all
    but the last ``core``; NumPy's broadcasting of stacks, which the NumPy table's rule
    decided first); a vector of ``matmul`` as it is."""
    xp = _namespace(a)
    if core == 2 and 1 in (a.ndim, b.ndim):
        return a, b
    ndim = max(a.ndim, b.ndim)
    a, b = (v if v.ndim == ndim else xp.expand_dims(v, axis=tuple(range(ndim - v.ndim)))
            for v in (a, b))  # fmt: skip
    return a, b


def matmul(x1: Array, x2: Array, /) -> Array:
    """``np.linalg.matmul``: the namespace's ``matmul`` in NumPy's common dtype."""
    xp = _namespace(x1)
    x1, x2 = common(x1, x2)
    return cast(Array, xp.matmul(*_batch_aligned(x1, x2, core=2)))


def cross(a: Array, b: Array, axisa: int = -1, axisb: int = -1, axisc: int = -1,
          axis: int | None = None) -> Array:  # fmt: skip
    """``np.cross`` of 3-element vectors: the namespace's ``linalg.cross`` of the vectors
    along ``axisa`` and ``axisb`` (``axis`` for all three), the result's along ``axisc``."""
    xp = _namespace(a)
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = common(a, b)
    a, b = xp.moveaxis(a, axisa, -1), xp.moveaxis(b, axisb, -1)
    out = xp.linalg.cross(*_batch_aligned(a, b, core=1), axis=-1)
    return cast(Array, xp.moveaxis(out, -1, axisc))
