"""NumPy's joins, selections and data movement on DASK: the namespace's own ``concat``,
``stack``, ``where``, ``clip``, ``nonzero``, ``sort``, ``reshape``, ``take``... (right
over unknown sizes, each array's blocks kept), with NumPy's result dtypes, NumPy's
truth of a condition and NumPy's values,
whatever the blocks (SEMANTICS section 6: one block, irregular blocks, blocks of one
element, unknown sizes); NumPy's errors where NumPy raises."""

from __future__ import annotations

import numpy as np
import pytest

import strict_array as xp
from strict_array._numpy_api import _dispatch
from strict_array._numpy_api._table import FUNCTIONS, Compose

RNG = np.random.default_rng(11)
A = RNG.standard_normal((7, 5))
A[1, 2] = np.nan
B = RNG.integers(-3, 9, (7, 5)).astype(np.int32)
V = RNG.standard_normal(5)
U8 = RNG.integers(0, 200, (7, 5)).astype(np.uint8)

CHUNKINGS = {"one block": -1, "irregular": ((2, 4, 1), (3, 2)), "size-1 blocks": 1}

#: name -> NumPy's call of (a float matrix, an int32 matrix, a vector, a uint8 matrix)
CASES = {
    "concatenate": lambda a, b, v, u: np.concatenate([a, b]),
    "concatenate axis=None": lambda a, b, v, u: np.concatenate([a, b], axis=None),
    "concatenate dtype=": lambda a, b, v, u: np.concatenate([a, b], axis=1, dtype=np.float32),
    "concat": lambda a, b, v, u: np.concat((u, b), axis=-1),
    "stack": lambda a, b, v, u: np.stack([a, b], axis=-1),
    "stack dtype=": lambda a, b, v, u: np.stack([b, u], axis=1, dtype=np.int64),
    "hstack of vectors": lambda a, b, v, u: np.hstack([v, v]),
    "hstack": lambda a, b, v, u: np.hstack([a, u]),
    "vstack": lambda a, b, v, u: np.vstack([v, a, b]),
    "dstack": lambda a, b, v, u: np.dstack([a, b]),
    "dstack of vectors": lambda a, b, v, u: np.dstack([v, v]),
    "column_stack": lambda a, b, v, u: np.column_stack([np.sum(a[:, :2], axis=1), b]),
    "append": lambda a, b, v, u: np.append(a, u),
    "append axis=0": lambda a, b, v, u: np.append(b, u, axis=0),
    "where": lambda a, b, v, u: np.where(a > 0, a, 0.0),
    "where of two dtypes": lambda a, b, v, u: np.where(a > 0, a, b),
    "where of a number": lambda a, b, v, u: np.where(b, a, -1),
    "where of a vector": lambda a, b, v, u: np.where(a > 0, v, a),
    "where of scalars": lambda a, b, v, u: np.where(a > 0, 1, 2.5),
    "where of uint8": lambda a, b, v, u: np.where(u > 100, u, 7),
    "where alone": lambda a, b, v, u: np.where(a > 0)[1],
    "nonzero": lambda a, b, v, u: np.nonzero(b)[0],
    "argwhere": lambda a, b, v, u: np.argwhere(a > 0),
    "flatnonzero": lambda a, b, v, u: np.flatnonzero(b),
    "clip": lambda a, b, v, u: np.clip(a, -0.5, 0.5),
    "clip of integers by floats": lambda a, b, v, u: np.clip(b, 0.5, 2),
    "clip by a vector": lambda a, b, v, u: np.clip(a, v, None),
    "clip by keywords": lambda a, b, v, u: np.clip(b, min=0, max=v),
    "clip, min above max": lambda a, b, v, u: np.clip(a, 1, -1),
    "clip of uint8": lambda a, b, v, u: np.clip(u, 10, 100),
    # data movement
    "sort": lambda a, b, v, u: np.sort(a),
    "sort along 0": lambda a, b, v, u: np.sort(b, axis=0),
    "sort flat": lambda a, b, v, u: np.sort(u, axis=None),
    "argsort stable": lambda a, b, v, u: np.argsort(a, axis=0, kind="stable"),
    "argsort stable=True": lambda a, b, v, u: np.argsort(b, stable=True),
    "expand_dims": lambda a, b, v, u: np.expand_dims(a, (0, 2)),
    "squeeze": lambda a, b, v, u: np.squeeze(np.expand_dims(b, 1)),
    "flip": lambda a, b, v, u: np.flip(a),
    "fliplr": lambda a, b, v, u: np.fliplr(b),
    "flipud": lambda a, b, v, u: np.flipud(u),
    "moveaxis": lambda a, b, v, u: np.moveaxis(a, 0, -1),
    "swapaxes": lambda a, b, v, u: np.swapaxes(b, 0, -1),
    "transpose": lambda a, b, v, u: np.transpose(a),
    "permute_dims": lambda a, b, v, u: np.permute_dims(u, (1, 0)),
    "reshape": lambda a, b, v, u: np.reshape(a, (5, -1)),
    "reshape to an int": lambda a, b, v, u: np.reshape(b, 35),
    "ravel": lambda a, b, v, u: np.ravel(a),
    "roll": lambda a, b, v, u: np.roll(a, 2),
    "roll along axes": lambda a, b, v, u: np.roll(b, (1, -1), axis=(0, 1)),
    "tile": lambda a, b, v, u: np.tile(a, 2),
    "tile to a higher rank": lambda a, b, v, u: np.tile(u, (2, 1, 2)),
    "repeat": lambda a, b, v, u: np.repeat(a, 2),
    "repeat along an axis": lambda a, b, v, u: np.repeat(b, 3, axis=1),
    "broadcast_to": lambda a, b, v, u: np.broadcast_to(v, (3, 7, 5)),
    "tril": lambda a, b, v, u: np.tril(a, -1),
    "triu": lambda a, b, v, u: np.triu(b, 1),
    "take": lambda a, b, v, u: np.take(a, np.flatnonzero(v > 0), axis=1),
    "take flat": lambda a, b, v, u: np.take(b, np.flatnonzero(v > 0)),
    "tensordot": lambda a, b, v, u: np.tensordot(a, b, axes=([0], [0])),
    "tensordot of two dtypes": lambda a, b, v, u: np.tensordot(u, a.T, 1),
    "atleast_1d": lambda a, b, v, u: np.atleast_1d(a),
    "atleast_2d of a vector": lambda a, b, v, u: np.atleast_2d(v),
    "atleast_3d": lambda a, b, v, u: np.atleast_3d(b),
    "atleast_3d of several": lambda a, b, v, u: np.atleast_3d(v, a)[0],
    "broadcast_arrays": lambda a, b, v, u: np.broadcast_arrays(a, v)[1],
    "meshgrid": lambda a, b, v, u: np.meshgrid(v, v[:3])[1],
    "meshgrid ij": lambda a, b, v, u: np.meshgrid(v, v[:2], indexing="ij")[0],
    "diff": lambda a, b, v, u: np.diff(a),
    "diff twice along 0": lambda a, b, v, u: np.diff(b, n=2, axis=0),
    "diff of booleans": lambda a, b, v, u: np.diff(u > 100),
    "rollaxis": lambda a, b, v, u: np.rollaxis(a, 1),
    "rollaxis to the end": lambda a, b, v, u: np.rollaxis(b, 0, 2),
    "rot90": lambda a, b, v, u: np.rot90(a),
    "rot90 twice": lambda a, b, v, u: np.rot90(b, 2),
    "rot90 back": lambda a, b, v, u: np.rot90(u, -1, axes=(1, 0)),
    "compress": lambda a, b, v, u: np.compress(b[:, 0] > 0, a, axis=0),
    "compress by a shorter condition": lambda a, b, v, u: np.compress(v > 0, a),
    "compress along 1": lambda a, b, v, u: np.compress(v > 0, b, axis=1),
    "extract": lambda a, b, v, u: np.extract(b > 0, a),
    "pad": lambda a, b, v, u: np.pad(a, 2),
    "pad edge": lambda a, b, v, u: np.pad(b, ((1, 0), (0, 2)), mode="edge"),
    "pad by a constant": lambda a, b, v, u: np.pad(u, (1, 2), constant_values=7),
    "pad reflect": lambda a, b, v, u: np.pad(a, 1, mode="reflect"),
    "ediff1d": lambda a, b, v, u: np.ediff1d(a),
    "ediff1d of integers": lambda a, b, v, u: np.ediff1d(b),
    "diag of a matrix": lambda a, b, v, u: np.diag(a),
    "diag below": lambda a, b, v, u: np.diag(b, -2),
    "real": lambda a, b, v, u: np.real(a * 1j + b),
    "imag": lambda a, b, v, u: np.imag(a * 1j + b),
    "round": lambda a, b, v, u: np.round(a * 3),
    "around of integers": lambda a, b, v, u: np.around(b),
    "astype": lambda a, b, v, u: np.astype(a, np.int16),
    "astype by a name": lambda a, b, v, u: np.astype(u, "float32"),
    "copy": lambda a, b, v, u: np.copy(a),
    "searchsorted": lambda a, b, v, u: np.searchsorted(np.sort(v), a),
    "searchsorted right": lambda a, b, v, u: np.searchsorted(np.sort(v), v, side="right"),
    "isin": lambda a, b, v, u: np.isin(b, np.astype(v > 0, np.int32)),
    "isin invert": lambda a, b, v, u: np.isin(u, u[0], invert=True),
}


@pytest.fixture
def namespace_only(monkeypatch):
    """NumPy's names resolve to the namespace's functions: NumPy's own way (per block,
    per lane, Dask's own) is not taken."""

    def refused(op, *args):
        raise AssertionError(f"{op} took NumPy's own way, not the namespace's")

    monkeypatch.setattr(_dispatch, "_lazily", refused)


def _same(got, want):
    assert type(got) is xp.Array and got.device == xp.DASK
    got = np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)  # (products: rounding)


@pytest.mark.parametrize("chunks", list(CHUNKINGS))
@pytest.mark.parametrize("name", list(CASES))
def test_joins_selections_and_moves_are_numpys(name, chunks, namespace_only):
    f = CASES[name]
    on = [
        xp.asarray(a, device=xp.DASK, chunks=CHUNKINGS[chunks] if a.ndim == 2 else 2)
        for a in (A, B, V, U8)
    ]
    with xp.rank_promotion("allow"):  # (NumPy's broadcasting of a vector: the table's rule)
        _same(f(*on), f(A, B, V, U8))


@pytest.mark.parametrize("chunks", [(2, 5), 1])
@pytest.mark.parametrize(
    "name", ["concatenate", "stack", "hstack", "vstack", "where", "where alone", "clip",
             "nonzero", "argwhere", "append axis=0", "clip of integers by floats", "sort along 0",
             "argsort stable", "expand_dims", "flip", "transpose", "ravel", "roll", "tile",
             "repeat along an axis", "take", "tensordot", "atleast_3d", "diff",
             "rollaxis", "rot90", "compress", "extract", "round", "astype", "isin"],
)  # fmt: skip
def test_over_unknown_sizes_and_empty_blocks(name, chunks, namespace_only):
    """Rows selected by a mask: sizes unknown until computed, and blocks left empty."""
    keep = A[:, 0] > 0
    f = CASES[name]
    mask = xp.asarray(keep, device=xp.DASK, chunks=2)
    on = [xp.asarray(a, device=xp.DASK, chunks=chunks)[mask] for a in (A, B)]
    on += [xp.asarray(V, device=xp.DASK, chunks=2)]
    on += [xp.asarray(U8, device=xp.DASK, chunks=chunks)[mask]]
    assert None in on[0].shape
    with xp.rank_promotion("allow"):  # (NumPy's broadcasting of a vector: the table's rule)
        got = f(*on)
    _same(got, f(A[keep], B[keep], V, U8[keep]))


@pytest.mark.parametrize(
    "call",
    [
        lambda a, b: np.concatenate([a, b], dtype=np.int32),  # (same_kind casting)
        lambda a, b: np.concatenate([a[0, 0], b[0, 0]]),  # (0-d arrays)
        lambda a, b: np.stack([a, b[:3]]),
        lambda a, b: np.where(a > 0, a),
        lambda a, b: np.clip(a, 1, 2, a_min=1),
        lambda a, b: np.where(a > 0, a, b[:3]),
        lambda a, b: np.clip(a, a[:3], 1.0),
        lambda a, b: np.swapaxes(a, 0, 2),
        lambda a, b: np.reshape(a, (3, -1)),
        lambda a, b: np.take(a, np.array([9]), axis=0),
    ],
)
def test_numpys_errors(call):
    """NumPy's error, of the same type: when built, or (an index out of bounds, which the
    data decides) when computed."""
    with pytest.raises(Exception) as numpys:
        call(A, B)
    x, y = (xp.asarray(a, device=xp.DASK, chunks=3) for a in (A, B))
    with pytest.raises(type(numpys.value)):
        np.asarray(call(x, y))


@pytest.mark.parametrize(
    ("name", "b", "reason"),
    [
        ("concatenate", {"arrays": [V, V], "out": None}, ""),
        ("concatenate", {"arrays": [V, [1.0]], "out": None}, "not a sequence of arrays"),
        ("stack", {"arrays": [V, V.astype(np.float16)], "out": None}, "dtype float16"),
        ("where", {"condition": "lazy", "x": 1.0, "y": V}, ""),
        ("where", {"condition": V > 0, "x": 1.0, "y": 2.0}, "condition not an array of the device"),
        ("clip", {"a": "lazy", "a_min": 0, "a_max": 1, "out": "lazy"}, "out= or a ufunc keyword given"),
        ("clip", {"a": "lazy bool", "a_min": 0, "a_max": 1}, "clip of dtype bool"),
    ],
)  # fmt: skip
def test_the_table_resolves_to_the_namespace_where_it_takes_the_arguments(name, b, reason):
    """Which way a call takes, and the reason on the row where not the namespace's."""
    lazy = FUNCTIONS[name].lazy
    d = xp.asarray(V, device=xp.DASK)._data
    lazy_values = {"lazy": d, "lazy bool": d > 0}
    b = {k: lazy_values[v] if isinstance(v, str) else v for k, v in b.items()}
    assert lazy.why(b) == reason and type(lazy.way) is Compose


# --- Fourier transforms: the namespace's fft -------------------------------------------------
R = np.nan_to_num(A)  # (no NaN in a transform: every output would be NaN)
C = R + 1j * RNG.standard_normal((7, 5))
F = R.astype(np.float32)

#: name -> NumPy's call of (a real matrix, a complex matrix, an int32 matrix, float32)
TRANSFORMS = {
    "fft": lambda r, c, i, f: np.fft.fft(c),
    "fft of reals along 0, n=5": lambda r, c, i, f: np.fft.fft(r, n=5, axis=0),
    "fft of float32, ortho": lambda r, c, i, f: np.fft.fft(f, norm="ortho"),
    "rfft2 of float32": lambda r, c, i, f: np.fft.rfft2(f),
    "ifft forward": lambda r, c, i, f: np.fft.ifft(c, axis=0, norm="forward"),
    "rfft": lambda r, c, i, f: np.fft.rfft(r),
    "rfft of integers": lambda r, c, i, f: np.fft.rfft(i, n=10),
    "irfft": lambda r, c, i, f: np.fft.irfft(c),
    "irfft n=7 along 0": lambda r, c, i, f: np.fft.irfft(c, n=7, axis=0),
    "hfft": lambda r, c, i, f: np.fft.hfft(c),
    "ihfft": lambda r, c, i, f: np.fft.ihfft(r),
    "fft2": lambda r, c, i, f: np.fft.fft2(c),
    "ifft2 s=": lambda r, c, i, f: np.fft.ifft2(r, s=(4, 4)),
    "rfft2": lambda r, c, i, f: np.fft.rfft2(r),
    "irfft2": lambda r, c, i, f: np.fft.irfft2(c),
    "fftn": lambda r, c, i, f: np.fft.fftn(c),
    "fftn axes=": lambda r, c, i, f: np.fft.fftn(r, axes=(0,)),
    "ifftn s= axes=": lambda r, c, i, f: np.fft.ifftn(c, s=(3, 5), axes=(0, 1)),
    "rfftn": lambda r, c, i, f: np.fft.rfftn(r),
    "irfftn": lambda r, c, i, f: np.fft.irfftn(c, axes=(1,)),
    "fftshift": lambda r, c, i, f: np.fft.fftshift(r),
    "ifftshift along 0": lambda r, c, i, f: np.fft.ifftshift(c, axes=0),
    "fftshift of integers": lambda r, c, i, f: np.fft.fftshift(i, axes=(1,)),
}


@pytest.mark.parametrize("chunks", list(CHUNKINGS.values()), ids=list(CHUNKINGS))
@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_transforms_are_numpys(name, chunks, namespace_only):
    f = TRANSFORMS[name]
    arrays = (R, C, B, F)
    got = f(*(xp.asarray(a, device=xp.DASK, chunks=chunks) for a in arrays))
    want = f(*arrays)
    assert type(got) is xp.Array and got.device == xp.DASK
    got = np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape
    tol = 1e-5 if want.dtype in (np.complex64, np.float32) else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


# --- norms, traces, diagonals and products by NumPy's names ----------------------------------
T3 = RNG.standard_normal((3, 4, 5))

#: name -> NumPy's call of (a float matrix with NaN, an int32 matrix, a vector, a 3-D array,
#: a complex matrix)
PRODUCTS = {
    "vector_norm": lambda a, b, v, t, c: np.linalg.vector_norm(t),
    "vector_norm along axes": lambda a, b, v, t, c: np.linalg.vector_norm(
        t, axis=(0, 2), keepdims=True, ord=1
    ),
    "vector_norm of integers": lambda a, b, v, t, c: np.linalg.vector_norm(b, axis=0, ord=np.inf),
    "norm": lambda a, b, v, t, c: np.linalg.norm(a),
    "norm of complex numbers": lambda a, b, v, t, c: np.linalg.norm(c),
    "norm keepdims": lambda a, b, v, t, c: np.linalg.norm(t, keepdims=True),
    "norm ord=2": lambda a, b, v, t, c: np.linalg.norm(c, 2),
    "norm nuc": lambda a, b, v, t, c: np.linalg.norm(b, "nuc"),
    "norm along an axis": lambda a, b, v, t, c: np.linalg.norm(t, axis=1),
    "norm of two axes": lambda a, b, v, t, c: np.linalg.norm(t, ord=1, axis=(2, 0), keepdims=True),
    "norm of a vector, inf": lambda a, b, v, t, c: np.linalg.norm(v, np.inf),
    "trace": lambda a, b, v, t, c: np.trace(c),
    "trace of integers": lambda a, b, v, t, c: np.trace(b, 1),
    "trace of two axes": lambda a, b, v, t, c: np.trace(t, axis1=2, axis2=0),
    "diagonal of two axes": lambda a, b, v, t, c: np.diagonal(t, -1, 1, 2),
    "diagonal": lambda a, b, v, t, c: np.diagonal(a),
    "dot": lambda a, b, v, t, c: np.dot(c, v),
    "dot of matrices": lambda a, b, v, t, c: np.dot(c.T, b),
    "dot of a matrix and a stack": lambda a, b, v, t, c: np.dot(c[:, :4], t),
    "dot of vectors": lambda a, b, v, t, c: np.dot(v, v),
    "vdot": lambda a, b, v, t, c: np.vdot(c, b),
    "outer": lambda a, b, v, t, c: np.outer(v, b),
    "linalg.outer": lambda a, b, v, t, c: np.linalg.outer(v, v),
    "linalg.tensordot": lambda a, b, v, t, c: np.linalg.tensordot(t, b[:5], axes=1),
    "linalg.matmul": lambda a, b, v, t, c: np.linalg.matmul(t, b[:5]),
    "linalg.matmul of a matrix and a stack": lambda a, b, v, t, c: np.linalg.matmul(c[:, :4], t),
    "linalg.matmul of a vector": lambda a, b, v, t, c: np.linalg.matmul(b, v),
    "cross": lambda a, b, v, t, c: np.cross(c[:, :3], a[::-1, 2:]),
    "cross of a vector and a stack": lambda a, b, v, t, c: np.cross(b[0, :3], c[:, 1:4]),
    "cross along an axis": lambda a, b, v, t, c: np.cross(t[:, :3], t[:, 1:], axis=0),
    "cross into another axis": lambda a, b, v, t, c: np.cross(a[:, :3], b[:, 2:], axisc=0),
}


@pytest.mark.parametrize("chunks", [-1, 1, 2], ids=["one block", "size-1 blocks", "blocks of 2"])
@pytest.mark.parametrize("name", list(PRODUCTS))
def test_norms_and_products_are_numpys(name, chunks, namespace_only):
    f = PRODUCTS[name]
    arrays = (A, B, V, T3, C)
    with xp.rank_promotion("allow"):  # (NumPy's broadcasting of stacks: the table's rule)
        got = f(*(xp.asarray(a, device=xp.DASK, chunks=chunks) for a in arrays))
    want = np.asarray(f(*arrays))
    assert type(got) is xp.Array and got.device == xp.DASK
    got = np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    "call",
    [lambda a: np.fft.fft(a), lambda a: np.fft.fft(a, axis=0), lambda a: np.fft.fftshift(a),
     lambda a: np.fft.rfftn(a, axes=(1,)), lambda a: np.fft.ifft2(a)],
    ids=["fft of known lanes", "fft along the unknown axis", "fftshift", "rfftn", "ifft2"],
)  # fmt: skip
def test_transforms_over_unknown_sizes(call):
    """Rows selected by a mask: lanes of known size are the namespace's transform; a
    transformed axis of unknown size is NumPy's in one task (the namespace's needs it
    known)."""
    keep = R[:, 0] > 0
    x = xp.asarray(R, device=xp.DASK, chunks=(2, 5))[xp.asarray(keep, device=xp.DASK, chunks=2)]
    want = call(R[keep])
    got = np.asarray(call(x))
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
