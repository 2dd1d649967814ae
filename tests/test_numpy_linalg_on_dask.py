"""NumPy's factorizations of a matrix on DASK: the namespace's own functions (TSQR of a
tall matrix in row blocks), with NumPy's values, whatever the blocks (SEMANTICS
section 6: one block, irregular blocks, blocks of one row, unknown sizes)."""

from __future__ import annotations

import dask.array as da
import numpy as np
import pytest

import strict_array as xp

CHUNKINGS = {
    "one block": -1,
    "row blocks": (50, 6),
    "irregular": ((7, 93, 150, 150), (6,)),
    "column blocks": (100, 2),
}


def _dask(a: np.ndarray, chunks) -> xp.Array:
    return xp.asarray(a, device=xp.DASK, chunks=chunks)


def _tall(dtype: str = "float64", shape: tuple[int, int] = (400, 6)) -> np.ndarray:
    rng = np.random.default_rng(4)
    a = rng.standard_normal(shape) * 10
    if dtype == "complex128":
        return a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def _close(got, want, dtype) -> None:
    tol = 1e-4 if np.dtype(dtype).itemsize <= 4 else 1e-10
    got = np.asarray(got)
    assert got.dtype == np.asarray(want).dtype and got.shape == np.shape(want)
    scale = max(1.0, np.abs(want).max()) if np.size(want) else 1.0
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * scale)


@pytest.mark.parametrize("chunks", list(CHUNKINGS))
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128", "int64"])
def test_svd_qr_and_pinv_are_numpys(chunks, dtype):
    """Singular vectors and Q's columns with NumPy's signs too: TSQR's R takes the signs
    of LAPACK's Householder R, which the matrix's first rows and its Gram matrix decide."""
    a = _tall(dtype)
    x = _dask(a, CHUNKINGS[chunks])
    for got, want in zip(
        np.linalg.svd(x, full_matrices=False), np.linalg.svd(a, full_matrices=False)
    ):
        _close(got, want, want.dtype)
    assert type(np.linalg.svd(x, full_matrices=False)) is type(np.linalg.svd(a))
    _close(np.linalg.svd(x, compute_uv=False), np.linalg.svd(a, compute_uv=False), a.dtype)
    for mode in ("reduced", "complete"):
        for got, want in zip(np.linalg.qr(x, mode=mode), np.linalg.qr(a, mode=mode)):
            _close(got, want, want.dtype)
    _close(np.linalg.qr(x, mode="r"), np.linalg.qr(a, mode="r"), a.dtype)
    for got, want in zip(xp.linalg.qr(x), np.linalg.qr(a)):  # the namespace's own
        _close(got, want, want.dtype)
    _close(np.linalg.pinv(x), np.linalg.pinv(a), a.dtype)
    if dtype == "int64":  # (NumPy's eps of an integer dtype: none)
        with pytest.raises(ValueError, match="not inexact"):
            np.linalg.pinv(x, rtol=None)
    else:
        _close(np.linalg.pinv(x, rtol=None), np.linalg.pinv(a, rtol=None), a.dtype)
    _close(np.linalg.pinv(x, rcond=0.5), np.linalg.pinv(a, rcond=0.5), a.dtype)
    if dtype != "int64":
        _close(xp.linalg.pinv(x), np.linalg.pinv(a, rtol=None), a.dtype)
        _close(xp.linalg.pinv(x.mT), np.linalg.pinv(a.T, rtol=None), a.dtype)  # wide


@pytest.mark.parametrize("chunks", list(CHUNKINGS))
def test_cov_and_lstsq_are_numpys(chunks):
    a, b = _tall(), _tall(shape=(400, 2))
    x = _dask(a, CHUNKINGS[chunks])
    y = _dask(b, -1 if chunks == "one block" else (x._data.chunks[0], -1))
    for kwargs in (
        {"rowvar": False},
        {"rowvar": False, "ddof": 3},
        {"rowvar": False, "bias": True},
    ):
        _close(np.cov(x, **kwargs), np.cov(a, **kwargs), np.float64)
    _close(np.cov(x.mT), np.cov(a.T), np.float64)
    _close(np.cov(x[:, :1], rowvar=False), np.cov(a[:, :1], rowvar=False), np.float64)  # 0-d
    for rhs, rhs_numpy in ((y, b), (y[:, 0], b[:, 0])):
        got = np.linalg.lstsq(x, rhs)
        want = np.linalg.lstsq(a, rhs_numpy)
        for g, w in zip(got, want):
            _close(g, w, np.asarray(w).dtype)
    # rank below n: no residuals (a size known once computed), NumPy's solution
    deficient = np.concatenate([a[:, :3], a[:, :3]], axis=1)
    got = np.linalg.lstsq(_dask(deficient, CHUNKINGS[chunks]), y[:, 0])
    want = np.linalg.lstsq(deficient, b[:, 0])
    for g, w in zip(got, want):
        _close(g, w, np.asarray(w).dtype)


def test_unknown_sizes_and_blocks_of_one_row():
    a = _tall(shape=(7, 3))
    x = _dask(a, (1, 3))
    for got, want in zip(
        np.linalg.svd(x, full_matrices=False), np.linalg.svd(a, full_matrices=False)
    ):
        _close(got, want, want.dtype)
    _close(np.linalg.pinv(x), np.linalg.pinv(a), a.dtype)
    keep = np.arange(7) != 3
    unknown = _dask(a, (3, 3))[xp.asarray(keep, device=xp.DASK, chunks=3)]
    assert unknown.shape[0] is None
    for got, want in zip(np.linalg.qr(unknown), np.linalg.qr(a[keep])):
        _close(got, want, want.dtype)
    _close(np.cov(unknown, rowvar=False), np.cov(a[keep], rowvar=False), np.float64)


def test_numpys_other_cases_stay_numpys_per_matrix():
    """A matrix less than 11/6 times as tall as wide (LAPACK bidiagonalises it without a
    QR first), a wide one, a stack, ``hermitian=True`` and ``mode="raw"``: NumPy's own
    function per matrix, as before."""
    a = _tall(shape=(10, 6))
    x = _dask(a, (3, 6))
    for got, want in zip(
        np.linalg.svd(x, full_matrices=False), np.linalg.svd(a, full_matrices=False)
    ):
        _close(got, want, want.dtype)
    for got, want in zip(
        np.linalg.svd(x.mT, full_matrices=False), np.linalg.svd(a.T, full_matrices=False)
    ):
        _close(got, want, want.dtype)
    spd = a.T @ a
    _close(
        np.linalg.pinv(_dask(spd, 3), hermitian=True), np.linalg.pinv(spd, hermitian=True), a.dtype
    )
    for got, want in zip(np.linalg.qr(x, mode="raw"), np.linalg.qr(a, mode="raw")):
        _close(got, want, want.dtype)
    stack = np.stack([a, a * 2])
    _close(np.linalg.pinv(_dask(stack, (1, 5, 6))), np.linalg.pinv(stack), a.dtype)


def test_a_tall_matrix_is_factored_in_streaming_passes():
    """Through NumPy's names as through the namespace's, U, Q and the pseudo-inverse
    stay lazy, in the input's row blocks, and are computed in two reads of it."""
    x = xp.asarray(da.random.default_rng(0).standard_normal((20_000, 8), chunks=(2_000, 8)))
    with xp.planning(threshold="256 KiB"):
        for out in (np.linalg.svd(x, full_matrices=False).U, np.linalg.qr(x).Q, np.linalg.pinv(x)):
            assert out._data.numblocks in ((10, 1), (1, 10))
            assert xp.compute_plan(out).startswith("Plan: 2 passes"), xp.compute_plan(out)


# --- stacks of matrices and vectors: the namespace's linalg, per matrix ---------------------
_RNG = np.random.default_rng(9)
SQ = _RNG.standard_normal((4, 3, 3)) + 3 * np.eye(3)
SPD = SQ @ np.swapaxes(SQ, -1, -2)
INTS = _RNG.integers(-3, 4, (4, 3, 3))
VECS = _RNG.standard_normal((4, 3))
RECT = _RNG.standard_normal((4, 3, 2)).astype(np.float32)

#: name -> NumPy's call of (square, positive definite, integer, vectors, float32 rectangles)
STACKS = {
    "det": lambda s, p, i, v, r: np.linalg.det(s),
    "det of integers": lambda s, p, i, v, r: np.linalg.det(i),
    "inv": lambda s, p, i, v, r: np.linalg.inv(s),
    "cholesky": lambda s, p, i, v, r: np.linalg.cholesky(p),
    "cholesky upper": lambda s, p, i, v, r: np.linalg.cholesky(p, upper=True),
    "eigh values": lambda s, p, i, v, r: np.linalg.eigh(p).eigenvalues,
    "eigh vectors up to sign": lambda s, p, i, v, r: np.abs(np.linalg.eigh(p)[1]),
    "eigvalsh": lambda s, p, i, v, r: np.linalg.eigvalsh(p),
    "slogdet": lambda s, p, i, v, r: np.linalg.slogdet(s).logabsdet,
    "slogdet sign": lambda s, p, i, v, r: np.linalg.slogdet(s)[0],
    "svdvals of float32": lambda s, p, i, v, r: np.linalg.svdvals(r),
    "matrix_norm": lambda s, p, i, v, r: np.linalg.matrix_norm(s, ord=2),
    "matrix_norm nuc": lambda s, p, i, v, r: np.linalg.matrix_norm(r, ord="nuc", keepdims=True),
    "matrix_norm of integers": lambda s, p, i, v, r: np.linalg.matrix_norm(i),
    "matrix_rank": lambda s, p, i, v, r: np.linalg.matrix_rank(i),
    "matrix_rank rtol": lambda s, p, i, v, r: np.linalg.matrix_rank(s, rtol=0.5),
    "solve": lambda s, p, i, v, r: np.linalg.solve(s, r),
    "solve integers": lambda s, p, i, v, r: np.linalg.solve(s, i),
    "solve a vector": lambda s, p, i, v, r: np.linalg.solve(s[0], v[0]),
    "diagonal": lambda s, p, i, v, r: np.linalg.diagonal(i, offset=1),
    "trace of integers": lambda s, p, i, v, r: np.linalg.trace(i),
    "trace": lambda s, p, i, v, r: np.linalg.trace(s, offset=-1),
    "cross": lambda s, p, i, v, r: np.linalg.cross(v, v[::-1]),
    "cross along an axis": lambda s, p, i, v, r: np.linalg.cross(i, i[::-1], axis=1),
    "vecdot": lambda s, p, i, v, r: np.linalg.vecdot(v, v),
    "vecdot along an axis": lambda s, p, i, v, r: np.linalg.vecdot(s, i, axis=0),
}


@pytest.mark.parametrize("chunks", [-1, 1, (3, 2, 2)], ids=["one block", "size 1", "irregular"])
@pytest.mark.parametrize("name", list(STACKS))
def test_stacks_of_matrices_are_numpys(name, chunks):
    f = STACKS[name]
    arrays = (SQ, SPD, INTS, VECS, RECT)
    on = [_dask(a, chunks if a.ndim == 3 or chunks != (3, 2, 2) else (3, 2)) for a in arrays]
    want = f(*arrays)
    _close(f(*on), want, want.dtype)


@pytest.mark.parametrize(
    "name",
    ["cholesky", "det", "inv", "eigh", "eigvalsh", "slogdet", "svdvals", "matrix_norm",
     "matrix_rank", "solve", "diagonal", "trace", "cross", "vecdot"],
)  # fmt: skip
def test_the_table_resolves_stacks_to_the_namespace(name):
    """NumPy's linalg of a stack takes the namespace's function; NumPy's per matrix
    where a keyword has no counterpart (the reason on the row)."""
    from strict_array._numpy_api._table import FUNCTIONS, Compose

    lazy = FUNCTIONS[f"linalg.{name}"].lazy
    d = _dask(SQ, 1)._data
    b = {p: d for p in ("a", "b", "x", "A", "x1", "x2")}
    b |= {"UPLO": "L", "tol": None, "hermitian": False}
    assert lazy.why(b) == "" and type(lazy.way) is Compose
    assert lazy.why({**b, "a": SQ, "x": SQ, "A": SQ, "x1": SQ}).endswith(
        "not an array of the device"
    )
    if name in ("eigh", "eigvalsh"):
        assert lazy.why({**b, "UPLO": "U"}) == "UPLO='U'"
    if name == "matrix_rank":
        assert lazy.why({**b, "hermitian": True}) == "hermitian=True"
