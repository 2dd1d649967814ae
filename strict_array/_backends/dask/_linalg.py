"""Per-matrix ``linalg`` (and ``take_along_axis``) on Dask through generalized ufuncs.

Dask's own ``linalg`` handles only single 2-D matrices chunked its way; these
run NumPy's (through ``array_api_compat``) on each matrix of a stack as a generalized
ufunc's call (:func:`gufunc`) by the engine of NumPy's calls
(:func:`._per_block.per_block`), which keeps the batch axes chunked and gathers only
the matrix axes of each matrix into one block (so one matrix must fit in a worker's
memory). Everything stays lazy; no SciPy is needed.
"""

from __future__ import annotations

import re
from typing import Any

import array_api_compat.dask.array as compat
import array_api_compat.numpy as cnp
import dask.array as da
import numpy as np

from ._basics import reshape, unknown, whole_axes
from ._graph import declare
from ._per_block import per_block
from ._reductions import reduction


def gufunc(func: Any, signature: str, *args: da.Array, output_dtypes: Any,
           output_sizes: Any = None) -> Any:  # fmt: skip
    """``da.apply_gufunc``'s call, by the NumPy calls' engine (:func:`._per_block.per_block`):
    each argument's core axes in one block, the loop (batch) axes of all arguments
    chunked alike (also where a core axis has size 0, where Dask's own re-chunking
    divides by zero, and where a loop size is unknown, which Dask's refuses)."""
    inputs, outputs = (re.findall(r"\(([^)]*)\)", side) for side in signature.split("->"))
    cores = [tuple(d.strip() for d in group.split(",") if d.strip()) for group in inputs]
    sizes = dict(output_sizes or {})
    for a, core in zip(args, cores):
        sizes.update({d: s for d, s in zip(core, a.shape[a.ndim - len(core) :]) if d not in sizes})
    width = max(a.ndim - len(core) for a, core in zip(args, cores))
    follows = {k: k for k in range(width)}
    dtypes = output_dtypes if len(outputs) > 1 else (output_dtypes,)
    parts = [("one", (1,) * width + tuple(sizes[d.strip()] for d in group.split(",") if d.strip()),
              np.dtype(dtype), follows) for group, dtype in zip(outputs, dtypes)]  # fmt: skip
    return per_block(
        _apply, {"f": func, "args": args}, [("args", i) for i in range(len(args))], list(args),
        [tuple(range(a.ndim - len(core), a.ndim)) for a, core in zip(args, cores)],
        structure=parts[0] if len(parts) == 1 else ("many", tuple, parts),
    )  # fmt: skip


def _apply(f: Any, /, *args: Any) -> Any:
    return f(*args)


def _k(x: da.Array) -> dict[str, float]:
    """The size ``k`` of the signatures: min(m, n) of ``x``'s matrices, unknown (NaN) if
    either is (Python's min depends on the order)."""
    m, n = x.shape[-2:]
    return {"k": np.nan if m != m or n != n else min(m, n)}


def _same(dtype: np.dtype) -> np.dtype:
    """The input's dtype, floating as NumPy's linalg makes integers and booleans."""
    return dtype if dtype.kind in "fc" else np.dtype(np.float64)


def _real(dtype: np.dtype) -> np.dtype:
    return np.empty(0, _same(dtype)).real.dtype


def _complex(dtype: np.dtype) -> np.dtype:
    return np.result_type(_same(dtype), np.complex64)


def _index(dtype: np.dtype) -> np.dtype:
    return np.dtype(np.int64)


#: name -> (gufunc signature, output dtypes from the input dtype); "k" is min(m, n)
PER_MATRIX = {
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


def per_matrix(name: str) -> Any:
    """A lazy per-matrix linalg function: batch axes stay chunked, matrix axes are
    gathered into one chunk, and the host device's function (NumPy's, as ``CPU``
    computes it) does each block."""
    from .. import host_device

    signature, out_dtypes = PER_MATRIX[name]
    kernel = getattr(host_device().ns.linalg, name)

    def apply(x: da.Array, *args: Any, **kwargs: Any) -> Any:
        dtypes = [f(x.dtype) for f in out_dtypes]
        common = {"output_dtypes": dtypes if len(dtypes) > 1 else dtypes[0], "output_sizes": _k(x)}
        rtol = kwargs.pop("rtol", None)
        if isinstance(rtol, da.Array):  # a tolerance per matrix: a loop-only argument
            inputs, outputs = signature.split("->")
            kernel_r = lambda a, r: _plain(kernel(a, *args, rtol=r, **kwargs))  # noqa: E731
            return gufunc(kernel_r, f"{inputs},()->{outputs}", x, rtol, **common)
        if rtol is not None:
            kwargs["rtol"] = rtol
        return gufunc(lambda a: _plain(kernel(a, *args, **kwargs)), signature, x, **common)

    return apply


def _plain(value: Any) -> Any:
    return tuple(value) if isinstance(value, tuple) else value


def tall_and_skinny(x: da.Array) -> da.Array | None:
    """``x`` with its columns in one block, when TSQR applies: a matrix of known
    sizes, at least as tall as it is wide, in several row blocks; else None (a
    matrix in one block keeps the per-matrix path, which computes it as NumPy
    does on ``CPU``)."""
    if x.ndim != 2 or any(unknown(s) for s in x.shape) or x.numblocks[0] == 1:
        return None
    m, n = x.shape
    if n == 0 or m < n:
        return None
    x = x if x.dtype.kind in "fc" else x.astype(_same(x.dtype))
    if x.numblocks[1] == 1:
        return x
    # joining the column blocks multiplies a block's bytes: rows re-chunked to Dask's size
    return x.rechunk({0: "auto", 1: -1})


def _block_q(block: np.ndarray) -> np.ndarray:
    return np.linalg.qr(block)[0]


def _block_r(block: np.ndarray) -> np.ndarray:
    return np.linalg.qr(block)[1]


def _svd_part(i: int) -> Any:
    return lambda a: np.linalg.svd(a)[i]


def _lapack_signs(r: np.ndarray, top: np.ndarray, rows: int) -> np.ndarray:
    """The signs that turn ``r``, an R factor of a tall matrix whose first rows are
    ``top``, into the R of LAPACK's Householder QR of the whole matrix of ``rows`` rows
    (NumPy's).

    Householder's R is unique up to the signs of its rows, and LAPACK's signs follow
    from the diagonal element each reflection meets, which the matrix's first rows and
    its Gram matrix ``r^H r`` decide: the matrix ``[top; c]``, with ``c^H c`` the Gram
    matrix of the rows below ``top`` (as many rows as they are, up to ``n``: a
    reflection with nothing below its diagonal element keeps its sign), has the same
    Householder R (a unitary map of the rows below ``top`` changes no reflection's
    diagonal element). So LAPACK's signs are
    those of its QR of that small matrix. (NumPy's SVD of a matrix at least 11/6 times
    as tall as wide is the SVD of that R: ``U`` and ``V`` follow NumPy's signs too.)
    """
    n = r.shape[1]
    gram = r.conj().T @ r - top.conj().T @ top
    w, v = np.linalg.eigh((gram + gram.conj().T) / 2)
    below = (np.sqrt(np.clip(w, 0, None))[:, None] * v.conj().T)[n - min(rows - n, n) :]
    r_numpy = np.linalg.qr(np.concatenate([top, below.astype(top.dtype)]), mode="r")
    signs = np.sign(np.diag(r_numpy).real[:n]) * np.sign(np.diag(r).real)
    return np.where(signs == 0, 1, signs).astype(r.dtype)  # type: ignore[no-any-return]


def tsqr(x: da.Array, *, svd: bool = False) -> tuple:
    """The reduced QR (or SVD) of a tall matrix in one column block, by indirect TSQR.

    Each row block ``X_i = Q1_i R_i`` (Benson, Gleich and Demmel 2013); the stacked
    ``R_i`` (row blocks x columns squared: small) is factored once, ``[R_i] = Q2 R``,
    and ``Q_i = Q1_i Q2_i``, where ``Q1_i`` is computed again from ``X_i``. So the
    large layers (``X``, ``Q``) wait only for small ones (``Q2``, ``R``), which the
    planner computes ahead in a streaming pass: ``Q`` and ``U`` stay lazy and are
    computed in two streaming reads of ``X``. Dask's own ``tsqr`` keeps every ``Q1_i``
    until the stacked factor is done, that is the size of ``X`` in memory. For the
    SVD, ``R = U_r S V^H`` (small) and ``U = Q U_r``.
    """
    n = x.shape[1]
    rows = tuple(min(int(c), n) for c in x.chunks[0])  # a block shorter than n gives c x n
    r_blocks = da.map_blocks(_block_r, x, chunks=(rows, (n,)), dtype=x.dtype)
    stacked = r_blocks.rechunk({0: -1})
    q2 = da.map_blocks(_block_q, stacked, chunks=((sum(rows),), (n,)), dtype=x.dtype)
    r = da.map_blocks(_block_r, stacked, chunks=((n,), (n,)), dtype=x.dtype)
    # the signs of R's rows (and Q's columns) NumPy's QR of the whole matrix gives
    top = x[:n].rechunk(-1)
    signs = da.map_blocks(
        _lapack_signs, r, top, x.shape[0], drop_axis=1, chunks=((n,),), dtype=x.dtype
    )
    r = da.blockwise(lambda b, d: b * d[:, None], "ij", r, "ij", signs, "i", dtype=x.dtype)
    q2 = da.blockwise(lambda b, d: b * d, "ij", q2, "ij", signs, "j", dtype=x.dtype)
    small = [r_blocks, top, signs, q2, r]
    if svd:
        u_r = da.map_blocks(_svd_part(0), r, dtype=x.dtype)
        s = da.map_blocks(_svd_part(1), r, drop_axis=1, chunks=((n,),), dtype=_real(x.dtype))
        vh = da.map_blocks(_svd_part(2), r, dtype=x.dtype)
        q2 = q2 @ u_r  # U = Q1 (Q2 U_r): the small product first
        small += [u_r, s, vh, q2]
    q = da.map_blocks(
        lambda block, q2_block: _block_q(block) @ q2_block,
        x, q2.rechunk((rows, (n,))), chunks=(x.chunks[0], (n,)), dtype=x.dtype,
    )  # fmt: skip
    declare(q, *small)  # (built here, one task per block: the planner may cut them)
    return (q, s, vh) if svd else (q, r)


def svd(x: da.Array, /, *, full_matrices: bool = True) -> tuple:
    tall = None if full_matrices else tall_and_skinny(x)
    if tall is not None:
        return tsqr(tall, svd=True)
    wide = None if full_matrices or x.ndim != 2 else tall_and_skinny(x.T)
    if wide is not None:
        u, s, vh = tsqr(wide, svd=True)  # x = vh^H s u^H
        return da.conj(vh.T), s, da.conj(u.T)
    signature = "(m,n)->(m,m),(k),(n,n)" if full_matrices else "(m,n)->(m,k),(k),(k,n)"
    svd_of = lambda a: tuple(cnp.linalg.svd(a, full_matrices=full_matrices))  # noqa: E731
    dtypes = (_same(x.dtype), _real(x.dtype), _same(x.dtype))
    return gufunc(svd_of, signature, x, output_dtypes=dtypes, output_sizes=_k(x))


def svdvals(x: da.Array, /) -> da.Array:
    """The singular values; of a tall (or wide) matrix in several blocks, through TSQR."""
    for matrix in (x, x.T) if x.ndim == 2 else ():
        tall = tall_and_skinny(matrix)
        if tall is not None:
            return tsqr(tall, svd=True)[1]
    return per_matrix("svdvals")(x)


def pinv(x: da.Array, /, *, rtol: Any = None) -> da.Array:
    """The pseudo-inverse; of a tall (or wide) matrix in several blocks, from its TSQR
    SVD: ``V S^+ U^H``, each block of the result from a block of ``U`` (which streams)
    and the small ``V S^+``. The singular values at most ``rtol`` times the largest are
    dropped, as NumPy's ``pinv`` does (default ``max(m, n) * eps``)."""
    one_tolerance = not isinstance(rtol, da.Array) or rtol.ndim == 0
    for matrix, wide in ((x, False), (x.T, True)) if x.ndim == 2 and one_tolerance else ():
        tall = tall_and_skinny(matrix)
        if tall is not None:
            out = _pinv_of_tall(tall.conj() if wide else tall, rtol)
            return out.conj().T if wide else out  # pinv(A) = pinv(A^H)^H
    return per_matrix("pinv")(x, rtol=rtol)


def _pinv_of_tall(x: da.Array, rtol: Any) -> da.Array:
    m, n = x.shape
    if rtol is None:
        rtol = max(m, n) * np.finfo(x.dtype).eps
    u, s, vh = tsqr(x, svd=True)
    large = s > rtol * s.max()
    inverse = da.where(large, 1 / da.where(large, s, 1), 0).astype(s.dtype)
    scaled = vh.conj().T * inverse[None, :]  # V S^+, small
    out = da.blockwise(
        lambda ub, w: w @ ub.conj().T, "ji", u, "ik", scaled, "jk",
        dtype=x.dtype, concatenate=True, meta=np.empty((0, 0), x.dtype),
    )  # fmt: skip
    declare(out, large, inverse, scaled)
    return out


def qr(x: da.Array, /, *, mode: str = "reduced") -> tuple:
    tall = tall_and_skinny(x) if mode == "reduced" else None
    if tall is not None:
        return tsqr(tall)
    signature = "(m,n)->(m,k),(k,n)" if mode == "reduced" else "(m,n)->(m,m),(m,n)"
    qr_of = lambda a: tuple(cnp.linalg.qr(a, mode=mode))  # noqa: E731
    dtypes = (_same(x.dtype), _same(x.dtype))
    return gufunc(qr_of, signature, x, output_dtypes=dtypes, output_sizes=_k(x))


def _solve_vector(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    # NumPy reads a b of more than one dimension as a stack of matrices: a block of
    # vectors (b broadcast along the batch axes) is one column each
    return np.linalg.solve(a, b[..., None])[..., 0]


def solve(x1: da.Array, x2: da.Array, /) -> da.Array:
    signature = "(m,m),(m)->(m)" if x2.ndim == 1 else "(m,m),(m,k)->(m,k)"
    kernel = _solve_vector if x2.ndim == 1 else np.linalg.solve
    return gufunc(
        kernel, signature, x1, x2, output_dtypes=_same(np.result_type(x1.dtype, x2.dtype))
    )


def cross(x1: da.Array, x2: da.Array, /, *, axis: int = -1) -> da.Array:
    a, b = da.moveaxis(x1, axis, -1), da.moveaxis(x2, axis, -1)
    out = gufunc(np.cross, "(k),(k)->(k)", a, b, output_dtypes=np.result_type(x1.dtype, x2.dtype))
    return da.moveaxis(out, -1, axis)


def _of_nothing(name: str, x: da.Array, **kwargs: Any) -> da.Array | None:
    """NumPy's ``linalg.<name>`` of ``x`` if it is empty, of known sizes (Dask's
    placeholders are wrong), else None."""
    if 0 not in x.shape or any(unknown(s) for s in x.shape):
        return None
    return da.from_array(
        np.asarray(getattr(cnp.linalg, name)(np.empty(x.shape, x.dtype), **kwargs))
    )


def matrix_norm(x: da.Array, /, *, keepdims: bool = False, ord: Any = "fro") -> da.Array:
    """Matrix norms of each matrix of a stack, from element-wise work and reductions.

    Dask's own norm computes the singular-value norms (``"nuc"``, 2, -2) only for
    one 2-D matrix, and its max and min fail on the empty blocks that unknown
    batch sizes bring; here each norm is its definition, with the namespace's
    reductions (which handle both) and :func:`per_matrix` ``svdvals``.
    """
    empty = _of_nothing("matrix_norm", x, keepdims=keepdims, ord=ord)
    if empty is not None:
        return empty
    if x.dtype.kind in "biu":
        x = x.astype(np.float64)
    maximum, minimum = reduction("max"), reduction("min")
    if ord == "fro":
        out = da.sqrt(da.sum(da.real(x * da.conj(x)), axis=(-2, -1)))
    elif ord in ("nuc", 2, -2):
        values = per_matrix("svdvals")(x)
        out = {"nuc": da.sum(values, axis=-1), 2: maximum(values, axis=-1),
               -2: minimum(values, axis=-1)}[ord]  # fmt: skip
    elif ord in (1, -1, np.inf, -np.inf):
        sums = da.sum(da.abs(x), axis=-2 if ord in (1, -1) else -1)
        out = (maximum if ord in (1, np.inf) else minimum)(sums, axis=-1)
    else:
        raise ValueError(f"matrix_norm: unsupported ord {ord!r}.")
    return out[..., None, None] if keepdims else out


def vector_norm(x: da.Array, /, **kwargs: Any) -> da.Array:
    """Vector norms of real floating results, as NumPy gives them for integer input
    (Dask's norm keeps integers for ``ord`` 1 and infinity)."""
    if x.dtype.kind in "biu":
        x = x.astype(np.float64)
    axis = kwargs.get("axis")
    if axis == ():  # no axis to reduce: each element's own norm, block by block
        return da.map_blocks(lambda b: cnp.linalg.vector_norm(b, **kwargs), x, dtype=x.real.dtype)
    empty = _of_nothing("vector_norm", x, **kwargs)
    if empty is not None:
        return empty
    if x.dtype.kind == "c" and kwargs.get("ord", 2) == 2:
        # NumPy's: the root of the sum of (x.conj() * x).real, which is NaN for an element
        # of NaN and infinite parts (Dask's abs(x) ** 2 makes it infinite)
        squares = (x.conj() * x).real
        total = reduction("sum")(squares, axis=axis, keepdims=kwargs.get("keepdims", False))
        return da.sqrt(total)
    if any(unknown(s) for s in x.shape):
        return _vector_norm_of_unknown_sizes(x, **kwargs)
    return compat.linalg.vector_norm(x, **kwargs)  # type: ignore[attr-defined]


def _vector_norm_of_unknown_sizes(
    x: da.Array, /, *, axis: Any = None, keepdims: bool = False, ord: Any = 2
) -> da.Array:
    """Each norm from its definition with the namespace's reductions, which take empty
    blocks and unknown sizes (Dask's norm flattens, and its max fails on empty blocks)."""
    if axis is None and x.ndim != 1:  # all axes: the flattened array
        out = _vector_norm_of_unknown_sizes(reshape(x, (-1,)), axis=0, ord=ord)
        return out.reshape((1,) * x.ndim) if keepdims else out
    axes = tuple(range(x.ndim)) if axis is None else axis
    a = abs(x)
    if ord == np.inf:  # (NumPy's: 0 for no elements)

        def peak(b: np.ndarray, axis: Any, keepdims: bool) -> np.ndarray:
            return np.max(b, axis=axis, keepdims=keepdims, initial=0)

        out = da.reduction(a, peak, peak, axis=axes, keepdims=keepdims, dtype=a.dtype)
    elif ord == -np.inf:
        out = reduction("min")(a, axis=axes, keepdims=keepdims)
    elif ord == 0:
        out = reduction("sum")((a != 0).astype(a.dtype), axis=axes, keepdims=keepdims)
    elif ord == 1:
        out = reduction("sum")(a, axis=axes, keepdims=keepdims)
    elif ord == 2:
        out = da.sqrt(reduction("sum")(a * a, axis=axes, keepdims=keepdims))
    else:
        out = reduction("sum")(a**ord, axis=axes, keepdims=keepdims) ** (1.0 / ord)
    return out.astype(a.dtype)


def diagonal(x: da.Array, /, *, offset: int = 0) -> da.Array:
    """The diagonal of each matrix; of matrices of unknown size, each matrix in one
    block (Dask's diagonal counts the elements by the sizes)."""
    if not any(unknown(s) for s in x.shape[-2:]):
        return compat.linalg.diagonal(x, offset=offset)  # type: ignore[attr-defined]
    x = whole_axes(x, (-2, -1))
    return da.map_blocks(
        lambda b: np.diagonal(b, offset, axis1=-2, axis2=-1), x, drop_axis=x.ndim - 1,
        chunks=(*x.chunks[:-2], (np.nan,)), dtype=x.dtype,
    )  # fmt: skip


def trace(x: da.Array, /, *, offset: int = 0, dtype: Any = None) -> da.Array:
    """The sum of each matrix's diagonal, of :func:`diagonal` (unknown sizes too)."""
    if not any(unknown(s) for s in x.shape[-2:]):
        return compat.linalg.trace(x, offset=offset, dtype=dtype)  # type: ignore[attr-defined]
    return reduction("sum")(diagonal(x, offset=offset), axis=-1, dtype=dtype)
