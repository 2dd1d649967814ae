"""Linear algebra on DASK (strict_array._backends.dask._linalg): products, TSQR, stacks
of matrices, unknown sizes, against CPU."""

from __future__ import annotations

import dask
import dask.array as da
import numpy as np
import pytest
from conftest import on, to_numpy

import strict_array as xp


def test_matmul_contracted_sizes_checked_when_built(device):
    with pytest.raises(ValueError, match=r"matmul: the contracted axes differ.*\(2, 1\).*\(3, 2\)"):
        xp.ones((2, 1), device=device) @ xp.ones((3, 2), device=device)


def test_vector_norm_axes_and_roll_by_nothing(device):
    with pytest.raises(np.exceptions.AxisError, match=r"linalg.vector_norm: axis -4 is out"):
        xp.linalg.vector_norm(on(device, np.ones((1, 0, 1))), axis=-4)
    a = on(device, np.arange(8.0).reshape(4, 2, 1))
    u = a[a[:, 0, 0] > 1.0]  # an unknown size on DASK
    np.testing.assert_array_equal(
        to_numpy(xp.roll(u, 0, axis=1)), np.arange(8.0).reshape(4, 2, 1)[1:]
    )


LINALG_OF_UNKNOWN_SIZES = {
    "diagonal": lambda u: xp.linalg.diagonal(u, offset=1),
    "trace": xp.linalg.trace,
    "matrix_rank": xp.linalg.matrix_rank,
    "pinv": xp.linalg.pinv,
    "svdvals": xp.linalg.svdvals,
    "svd": lambda u: xp.linalg.svd(u, full_matrices=False)[1],
    "qr R": lambda u: abs(xp.linalg.qr(u)[1]),
    "vector_norm": xp.linalg.vector_norm,
    "vector_norm inf": lambda u: xp.linalg.vector_norm(u, axis=0, ord=xp.inf, keepdims=True),
    "vector_norm 0": lambda u: xp.linalg.vector_norm(u, axis=-1, ord=0),
    "vector_norm 3": lambda u: xp.linalg.vector_norm(u, ord=3, keepdims=True),
    "matrix_norm": lambda u: xp.linalg.matrix_norm(u, ord="nuc"),
    "diff": lambda u: xp.diff(u, axis=0),
    "diff appended": lambda u: xp.diff(u, axis=0, n=2, append=xp.ones((1, 3), device=u.device)),
}


@pytest.mark.parametrize("name", sorted(LINALG_OF_UNKNOWN_SIZES))
def test_matrices_and_vectors_of_unknown_sizes(name):
    a = np.random.default_rng(0).standard_normal((6, 3))
    rows = np.array([True, False, False, True, True, True])
    f = LINALG_OF_UNKNOWN_SIZES[name]
    x = xp.asarray(a, device=xp.DASK, chunks=(1, 2))
    u = x[xp.asarray(rows, device=xp.DASK, chunks=1)]
    want = f(xp.asarray(a[rows]))
    got = f(u)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(to_numpy(got), to_numpy(want), rtol=1e-10, atol=1e-12)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_empty_selections_in_linalg():
    """A selection that turns out empty on DASK: NumPy's results of nothing."""
    for dev in (xp.CPU, xp.DASK):
        v = xp.asarray(np.zeros((3, 0)), device=dev)[xp.asarray([True] * 3, device=dev)]
        assert float(xp.linalg.vector_norm(v, ord=xp.inf)) == 0.0
        m = xp.add(
            xp.expand_dims(v, axis=(2, 3)), xp.asarray([[2.0]], device=dev),
            broadcast_dimensions=(2, 3),
        )  # fmt: skip
        assert to_numpy(xp.linalg.solve(m, xp.asarray([1.0], device=dev))).shape == (3, 0, 1)
        for ord in ("fro", "nuc", 1, 2, -xp.inf):  # (DASK failed on the unknown batch size)
            assert to_numpy(xp.linalg.matrix_norm(m, ord=ord)).shape == (3, 0)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("chunks", [-1, 1, (2, 1)])
def test_tensordot_multiplies_zero_by_infinity_whatever_the_chunks(chunks):
    """NumPy's tensordot (np.dot) gives 0 for 0 * inf when one element is contracted and
    NaN otherwise (numpy/numpy#14788): on DASK the result followed the chunks."""
    a = np.array([[np.inf, 1.5, -np.inf, 6.0, 0.0]] * 2)
    b = np.array([[0.0, 1.5, 3.0, 1.0, -4.0]])
    for dev, kw in ((xp.CPU, {}), (xp.DASK, {"chunks": chunks})):
        got = xp.tensordot(xp.asarray(a, device=dev, **kw), xp.asarray(b, device=dev, **kw),
                           axes=((1,), (1,)))  # fmt: skip
        assert np.isnan(to_numpy(got)).all()
    one = xp.tensordot(xp.asarray([[np.inf]]), xp.asarray([[0.0]]), axes=((1,), (1,)))
    assert np.isnan(to_numpy(one)).all()  # (np.tensordot gives 0 here)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int8, np.complex128])
@pytest.mark.parametrize("contracted_chunks", [-1, 2])
def test_a_product_over_one_contracted_block_needs_no_sum(dtype, contracted_chunks):
    """``X @ W`` with the contracted axis in one block (a few features): each output
    block is one product, fused by Dask with what makes and uses its operands; summed
    as a reduction of one piece, it was copied twice in tasks of their own, which a
    cluster's workers held apart from their consumers (Nystroem's kernel). In several
    blocks, the partial products are summed. NumPy's values and dtype."""
    rng = np.random.default_rng(3)
    a = (rng.standard_normal((60, 5)) * 3).astype(dtype)
    b = (rng.standard_normal((5, 4)) * 3).astype(dtype)
    x = xp.asarray(a, device=xp.DASK, chunks=(10, contracted_chunks))
    w = xp.asarray(b, device=xp.DASK, chunks=(contracted_chunks, -1))
    got = x @ w
    np.testing.assert_allclose(to_numpy(got), a @ b, rtol=1e-5 if dtype == np.float32 else 1e-12)
    assert to_numpy(got).dtype == (a @ b).dtype
    layers = list(got._data.dask.layers)
    summed = [n for n in layers if n.startswith("sum")]
    assert (not summed) if contracted_chunks == -1 else summed
    if contracted_chunks == -1 and dtype == np.float64:
        (fused,) = dask.optimize(xp.sum(xp.exp(x * 0.1) @ w, axis=0)._data)
        assert not [n for n in fused.dask.layers if n.startswith(("exp", "product"))]
        # what makes an operand fuses into the product too (Nystroem's kernel
        # ``exp(...) @ W``: a cluster's workers held the kernel's blocks for it)
        kernel = xp.exp(x * 0.1) @ w
        (fused,) = dask.optimize(kernel._data)
        assert not [k for k in dict(fused.dask) if k[0].startswith(("exp", "mul"))]
        np.testing.assert_allclose(to_numpy(kernel), np.exp(a * 0.1) @ b, rtol=1e-12)
        # and into the element-wise work that uses it (GaussianMixture's E-step,
        # sum((X @ P - mu @ P) ** 2, axis=1)): Dask fuses only layers of one
        # ``concatenate``, and a cluster's workers held the products apart
        mu = xp.asarray(a[0], device=xp.DASK)
        e_step = xp.sum(xp.square(xp.subtract(x @ w, mu @ w, broadcast_dimensions=(1,))), axis=1)
        (fused,) = dask.optimize(e_step._data)
        assert not [k for k in dict(fused.dask) if k[0].startswith(("product", "subtract"))]
        np.testing.assert_allclose(
            to_numpy(e_step), np.sum((a @ b - a[0] @ b) ** 2, axis=1), rtol=1e-12
        )


@pytest.mark.parametrize("device", [xp.CPU, xp.DASK], ids=["cpu", "dask"])
def test_vecdot_axis_per_operand_and_empty_masks_beside_unknown_sizes(device):
    """A non-negative vecdot axis for operands of different ranks is ambiguous (NumPy
    counts it in each operand, the standard from the end; DASK differed from CPU); an
    empty mask beside an axis of unknown size selects nothing (DASK failed)."""
    a = on(device, np.arange(10.0).reshape(2, 5))
    with xp.rank_promotion("allow"):
        with pytest.raises(ValueError, match=r"give a negative axis, e\.g\. axis=-2"):
            xp.vecdot(a, on(device, np.array([0.5, 1.0])), axis=0)
        got = xp.vecdot(a, on(device, np.array([[0.5], [1.0]])), axis=0)
    np.testing.assert_array_equal(
        to_numpy(got), np.array([0.5, 1.0]) @ np.arange(10.0).reshape(2, 5)
    )
    v = on(device, np.zeros((0, 2)))[:, on(device, np.array([True, False]))]
    assert to_numpy(v[on(device, np.zeros(0, bool))]).shape == (0, 1)


def test_contractions_keep_the_large_operands_blocks():
    """``w.T @ x`` with ``w`` in finer row blocks than ``x`` (as the split above makes
    them): ``w`` is given ``x``'s blocks, so ``x`` is not re-split (and re-read for each
    piece); the product is the one-block product."""
    from strict_array._backends.dask._namespace import _contracted_blocks_alike

    values = np.random.default_rng(1).random((4000, 16))
    x = da.from_array(values, chunks=(2000, 16))
    w = da.from_array(values[:, :3], chunks=(500, 3))
    wt, same = _contracted_blocks_alike(w.T, x)
    assert same is x and wt.chunks == ((3,), (2000, 2000))
    xT = x.T
    xt, w_again = _contracted_blocks_alike(xT, w)  # the larger on the left, too
    assert xt is xT and w_again.chunks[0] == (2000, 2000)
    head, tail = x[1:].T, x[:-1]  # like sizes: Dask's own pairing of blocks
    assert _contracted_blocks_alike(head, tail) == (head, tail)
    product = xp.asarray(w, device=xp.DASK).mT @ xp.asarray(x, device=xp.DASK)
    np.testing.assert_allclose(to_numpy(product), values[:, :3].T @ values, rtol=1e-12)


@pytest.mark.parametrize("kwargs", [{}, {"axis": -1}, {"axis": (0, 2), "keepdims": True}])
def test_vector_norm_of_nan_and_infinite_parts_is_numpys(kwargs):
    """NumPy's 2-norm of a complex element of NaN and infinite parts is NaN (the sum of
    (x.conj() * x).real), on every chunking and with sizes known only when computed."""
    x = np.ones((2, 2, 3), complex)
    x[-1, -1, -1], x[0, 0, 0] = complex(np.nan, np.inf), 3 - 4j
    want = np.asarray(xp.linalg.vector_norm(xp.asarray(x), **kwargs))
    for chunks in (-1, 1):
        lazy = xp.asarray(x, device=xp.DASK, chunks=chunks)
        got = np.asarray(xp.linalg.vector_norm(lazy, **kwargs))
        np.testing.assert_allclose(got, want, equal_nan=True)
    keep = xp.asarray(np.array([True, True]), device=xp.DASK)
    unknown = xp.asarray(x, device=xp.DASK)[keep]
    np.testing.assert_allclose(np.asarray(xp.linalg.vector_norm(unknown, **kwargs)), want,
                               equal_nan=True)  # fmt: skip


def test_contractions_over_several_empty_blocks():
    """xp.tile(x, (0, 0)) gives blocks of size 0 along the contracted axis: the products
    are NumPy's (zeros), as Dask's matmul alone fails when computed."""
    x = xp.tile(xp.asarray(np.ones((2, 4)), device=xp.DASK, chunks=1), (0, 0))
    a = xp.matmul(x, xp.asarray(np.zeros((0, 1)), device=xp.DASK))  # (0, 1), blocks (0, 0)
    for got in (a.mT @ a, xp.matmul(a.mT, a), xp.tensordot(a.mT, a, axes=1),
                xp.vecdot(a, a, axis=0)):  # fmt: skip
        want = np.zeros(got.shape)
        np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize(
    ("shape", "chunks", "dtype"),
    [((400, 6), (50, 6), "float64"), ((400, 6), (50, 2), "float64"), ((40, 6), (4, 6), "float64"),
     ((6, 400), (6, 70), "float64"), ((300, 5), (60, 5), "complex128"), ((300, 5), (60, 5), "float32"),
     ((300, 5), (60, 5), "int64"), ((12, 12), (5, 12), "float64"), ((7, 3), (1, 3), "float64")],
)  # fmt: skip
def test_tall_and_skinny_svd_and_qr_through_tsqr(shape, chunks, dtype):
    """A matrix in several row blocks (or, for svd, column blocks) is factored by TSQR:
    the values are NumPy's (singular vectors up to sign), and U and Q stay lazy."""
    rng = np.random.default_rng(1)
    a = rng.standard_normal(shape) * 10
    a = a + 1j * rng.standard_normal(shape) if dtype == "complex128" else a.astype(dtype)
    x = xp.asarray(a, device=xp.DASK, chunks=chunks)
    tol = 1e-4 if dtype == "float32" else 1e-12
    u, s, vh = xp.linalg.svd(x, full_matrices=False)
    want_s = np.linalg.svd(a, compute_uv=False)
    assert (u.shape, s.shape, vh.shape) == (
        (shape[0], len(want_s)),
        want_s.shape,
        (len(want_s), shape[1]),
    )
    assert u.dtype == xp.linalg.svd(xp.asarray(a), full_matrices=False).U.dtype
    un, sn, vn = (np.asarray(t) for t in (u, s, vh))
    np.testing.assert_allclose(sn, want_s, rtol=tol, atol=tol * want_s[0])
    np.testing.assert_allclose((un * sn) @ vn, a, atol=tol * want_s[0] * 10)
    np.testing.assert_allclose(un.conj().T @ un, np.eye(len(want_s)), atol=tol * 10)
    np.testing.assert_allclose(
        np.asarray(xp.linalg.svdvals(x)), want_s, rtol=tol, atol=tol * want_s[0]
    )
    if shape[0] >= shape[1]:
        q, r = xp.linalg.qr(x)
        qn, rn = np.asarray(q), np.asarray(r)
        np.testing.assert_allclose(qn @ rn, a, atol=tol * want_s[0] * 10)
        np.testing.assert_allclose(
            np.abs(rn), np.abs(np.linalg.qr(a)[1]), atol=tol * want_s[0] * 10
        )
        np.testing.assert_allclose(qn.conj().T @ qn, np.eye(shape[1]), atol=tol * 10)


def test_tsqr_is_computed_in_two_streaming_passes():
    """U's large blocks wait only for small factors, which the planner computes ahead:
    the one-graph alternative keeps every block's Q in memory."""
    x = xp.asarray(da.random.default_rng(0).standard_normal((20_000, 8), chunks=(2_000, 8)))
    u = xp.linalg.svd(x, full_matrices=False).U
    with xp.planning(threshold="256 KiB"):
        plan = xp.compute_plan(u)
        assert plan.startswith("Plan: 2 passes"), plan
        q = xp.linalg.qr(x).Q
        assert xp.compute_plan(q).startswith("Plan: 2 passes")
        np.testing.assert_allclose(np.asarray(q).T @ np.asarray(q), np.eye(8), atol=1e-12)


def test_a_matrix_in_one_block_is_factored_as_numpy_does():
    a = np.random.default_rng(2).standard_normal((30, 4))
    x = xp.asarray(a, device=xp.DASK, chunks=-1)
    for got, want in zip(
        xp.linalg.svd(x, full_matrices=False), np.linalg.svd(a, full_matrices=False)
    ):
        np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("op", ["cross", "solve"])
def test_a_batch_axis_of_size_one_broadcasts_in_the_lazy_shape(op):
    # (array-api-tests: cross((1, 3), (2, 3)) and solve((1, 0, 0), (2, 0, 0)) declared
    # the first operand's size, (1, ...), while each block computed NumPy's (2, ...))
    rng = np.random.default_rng(0)
    shapes = {"cross": ((1, 3), (2, 3)), "solve": ((1, 2, 2), (2, 2, 2))}[op]
    a, b = (rng.normal(size=s) + (2 * np.eye(2) if op == "solve" else 0) for s in shapes)
    want = getattr(xp.linalg, op)(xp.asarray(a), xp.asarray(b))
    got = getattr(xp.linalg, op)(xp.asarray(a, device=xp.DASK), xp.asarray(b, device=xp.DASK))
    assert got.shape == want.shape == (2, *shapes[1][1:])
    np.testing.assert_allclose(np.asarray(got), np.asarray(want))
