"""The values kept between computations (strict_array._backends.dask._keep): the small
results of a computation, the held arrays computed with it, and their bounds."""

from __future__ import annotations

from typing import Any

import dask
import dask.array as da
import numpy as np
import pytest
from test_plan import CountingStore

from strict_array._backends.dask import _graph


def _held_input(n_chunks: int, rows: int, seed: int) -> tuple[CountingStore, Any]:
    import strict_array as xp

    store = CountingStore(np.random.default_rng(seed).standard_normal((n_chunks * rows, 4)))
    return store, xp.asarray(da.from_array(store, chunks=(rows, 4), asarray=False))


def test_an_iterations_next_parameters_are_computed_in_the_pass_that_reads_the_data():
    """EM's order: the next step's small parameters are built, then the scalar that ends
    this step is asked for (scikit-learn's GaussianMixture: the M-step, then ``abs(change)
    < tol``). The parameters, still held, use the same input and add no pass: they are
    computed in the scalar's pass and kept, so each step reads the data once, where it
    read it twice (once for the parameters, once for the scalar). NumPy's values."""
    import strict_array as xp

    n_chunks, rows, steps = 16, 32, 5
    store, x = _held_input(n_chunks, rows, 11)
    a = np.asarray(store.data)
    want_c, want_s = a.mean(axis=0), []
    with dask.config.set(scheduler="threads", num_workers=2):
        with xp.planning(True, threshold=4 * rows * 4 * 8):
            c, got_s = xp.mean(x, axis=0), []
            for _ in range(steps):
                d = xp.subtract(x, c, broadcast_dimensions=(1,))
                following = xp.mean(xp.abs(d), axis=0)  # (built first, still held)
                got_s.append(float(xp.sum(d * d)))
                c = following
    for _ in range(steps):
        want_s.append(((a - want_c) ** 2).sum())
        want_c = np.abs(a - want_c).mean(axis=0)
    np.testing.assert_allclose(got_s, want_s, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(c), want_c, rtol=1e-12)
    # the first mean in a pass of its own, then one pass per step
    assert store.loads == (steps + 1) * n_chunks
    assert store.max_alive <= 4


def test_a_selection_by_a_mask_counted_in_a_pass_keeps_what_the_pass_computed():
    """scikit-learn's r2_score: ``numerator[valid]`` and ``denominator[valid]``, with
    ``valid = denominator != 0``, each selection's mask persisted to count it. The
    denominator, in the mask's graph, and the numerator, still held, are computed and
    kept in the pass that counts the mask: one read of the input, where each selection
    read it again. NumPy's values."""
    import strict_array as xp

    n_chunks, rows = 16, 32
    store, x = _held_input(n_chunks, rows, 14)
    a = np.asarray(store.data)
    with dask.config.set(scheduler="threads", num_workers=2):
        with xp.planning(True, threshold=4 * rows * 4 * 8), xp.known_sizes():
            numerator = xp.sum(x * x, axis=0)
            denominator = xp.sum(xp.abs(x), axis=0)
            valid = denominator != 0
            fraction = numerator[valid] / denominator[valid]
            got = np.asarray(fraction)
    np.testing.assert_allclose(got, (a * a).sum(axis=0) / np.abs(a).sum(axis=0), rtol=1e-12)
    assert store.loads == n_chunks


def test_the_small_results_of_a_computation_in_passes_are_kept_where_that_adds_no_pass():
    """An SVD's singular values, masked, as scikit-learn's Ridge does (``s[s > 1e-15]``,
    then ``d[idx] = ...`` through the same mask): the mask's computation is planned in
    passes, and ``s``, a small result of it, is kept with it; counting the mask again
    reads nothing."""
    import strict_array as xp

    n_chunks, rows = 16, 32
    store, x = _held_input(n_chunks, rows, 15)
    a = np.asarray(store.data)
    with dask.config.set(scheduler="threads", num_workers=2):
        with xp.planning(True, threshold=4 * rows * 4 * 8), xp.known_sizes():
            centred = xp.subtract(x, xp.mean(x, axis=0), broadcast_dimensions=(1,))
            s = xp.linalg.svdvals(centred)
            idx = s > 1e-15
            first = s[idx]
            loads = store.loads
            again = xp.zeros(4, device=xp.DASK)
            again[idx] = 1 / first
            got = np.asarray(again)
    want = np.linalg.svd(a - a.mean(axis=0), compute_uv=False)
    np.testing.assert_allclose(np.asarray(first), want, rtol=1e-10)
    np.testing.assert_allclose(got, 1 / want, rtol=1e-10)
    assert store.loads == loads


def test_a_kept_value_taken_along_by_a_later_pass_stays_kept_for_its_held_array():
    """scikit-learn's RidgeClassifierCV: the fit computes the means of ``X`` (a pass
    of their own, kept) and holds them; a later computation of the fit, with them put
    in its graph as kept values, cuts another reduction and takes them along in that
    pass; the score then builds ``X @ coef - means @ coef`` on the held means. Taken
    along, the means are not kept again as that computation's copy (gone with it), so
    the score finds them kept and reads ``X`` once, where it read it twice (once for
    the means again, once for the rest). NumPy's values."""
    import strict_array as xp

    n_chunks, rows = 16, 32
    store, x = _held_input(n_chunks, rows, 17)
    a = np.asarray(store.data)
    coef = np.arange(1.0, 5.0)
    # (small results kept, not the input's size: the centred data is not kept either)
    settings = {"strict_array.keep-bytes": rows * 4 * 8}
    with dask.config.set(settings, scheduler="threads", num_workers=2):
        with xp.planning(True, threshold=4 * rows * 4 * 8):
            means = xp.mean(x, axis=0)  # (held, as the estimator holds X_offset)
            centred = xp.subtract(x, means, broadcast_dimensions=(1,))
            total = float(xp.sum(centred * centred))  # (a pass for the means, then one)
            spread = xp.mean(centred * centred, axis=0)
            scaled = xp.divide(centred, spread, broadcast_dimensions=(1,))
            # (a pass for spread, which takes the kept means along, then one)
            scaled_total = float(xp.sum(scaled))
            loads = store.loads
            w = xp.asarray(coef, device=xp.DASK)
            score = float(xp.sum(x @ w - xp.sum(means * w)))
    want_means = a.mean(axis=0)
    want_spread = ((a - want_means) ** 2).mean(axis=0)
    np.testing.assert_allclose(total, ((a - want_means) ** 2).sum(), rtol=1e-12)
    np.testing.assert_allclose(scaled_total, ((a - want_means) / want_spread).sum(), atol=1e-9)
    np.testing.assert_allclose(score, (a @ coef - want_means @ coef).sum(), atol=1e-9)
    assert loads == 4 * n_chunks
    assert store.loads - loads == n_chunks  # (one pass: the means were kept)


def test_a_result_rebuilt_on_the_same_input_is_not_computed_again(tmp_path, monkeypatch):
    """scikit-learn checks ``isfinite(sum(X))`` when it fits and again when it predicts,
    each time a new array: the same computation of the same input layers is found
    kept while the input lives. An input opened again (a store that may have been
    written meanwhile) is read again, and the value goes with the input."""
    import gc

    import zarr

    import strict_array as xp
    from strict_array._backends.dask import _keep

    path = str(tmp_path / "x.zarr")
    data = np.random.default_rng(16).standard_normal((64, 4))
    xp.to_zarr(xp.asarray(data, device=xp.DASK, chunks=(16, 4)), path)
    x = xp.from_zarr(path)
    reads = []
    read = zarr.Array.__getitem__
    monkeypatch.setattr(zarr.Array, "__getitem__", lambda a, k: reads.append(k) or read(a, k))
    first = bool(xp.isfinite(xp.sum(x)))
    gc.collect()
    again = bool(xp.isfinite(xp.sum(x)))
    assert first and again
    assert len(reads) == 4  # (the second read nothing)
    total = float(xp.sum(x))
    np.testing.assert_allclose(total, data.sum(), rtol=1e-12)

    name = xp.sum(x)._data.name
    assert name in _keep._kept
    y = xp.from_zarr(path)  # (the same name, another input layer)
    assert xp.sum(y)._data.name == name
    xp.to_zarr(xp.asarray(2 * data, device=xp.DASK, chunks=(16, 4)), path, overwrite=True)
    np.testing.assert_allclose(float(xp.sum(y)), 2 * data.sum(), rtol=1e-12)
    del x, y
    gc.collect()
    assert name not in _keep._kept


def test_a_held_array_is_computed_with_another_only_where_that_costs_no_pass_or_error():
    """Still held and not computed: an array that would add a pass (it needs a mean of
    the data first), one of another input, and one whose computation fails stay lazy;
    the scalar asked for reads its input once and is right, and the failing array's
    error comes when it is itself asked for."""
    import strict_array as xp

    n_chunks, rows = 16, 32
    store, x = _held_input(n_chunks, rows, 12)
    other_store, other = _held_input(n_chunks, rows, 13)

    def fails(block: np.ndarray) -> np.ndarray:
        raise ValueError("a block that cannot be computed")

    with dask.config.set(scheduler="threads", num_workers=2):
        with xp.planning(True, threshold=4 * rows * 4 * 8):
            centred = xp.subtract(x, xp.mean(x, axis=0), broadcast_dimensions=(1,))
            far = xp.sum(centred * centred, axis=0)  # (a mean first: two passes)
            apart = xp.sum(other, axis=0)  # (another input)
            broken = xp.sum(xp.asarray(x._data.map_blocks(fails, dtype=x.dtype)), axis=0)
            total = float(xp.sum(x))
            assert other_store.loads == 0
            loads = store.loads
            np.testing.assert_allclose(
                np.asarray(far), ((store.data - store.data.mean(0)) ** 2).sum(0)
            )
            with pytest.raises(ValueError, match="cannot be computed"):
                np.asarray(broken)
            np.testing.assert_allclose(np.asarray(apart), other_store.data.sum(0))
    np.testing.assert_allclose(total, store.data.sum(), rtol=1e-12)
    # the scalar's pass, stopped by the failing array, and again without it
    assert n_chunks < loads <= 2 * n_chunks


@pytest.mark.parametrize(
    "rows",
    [(32,) * 8, (256,), (1, 31, 100, 124), (1,) * 256],
    ids=["8", "1", "irregular", "size-1"],
)
def test_an_array_held_from_data_in_memory_is_computed_once(tmp_path, rows):
    """scikit-learn's logistic loss converts the loss, then the gradient's product with
    ``X``, then its sum, each from the same ``raw = X @ coef``: where the data is in
    memory, the computation keeps ``raw``, which the program still holds, and the
    next starts from it (it was computed again by each). It goes when the program lets
    it go; it is not kept where the data is read from a store (it streams), nor where
    it is as large as the data (``X.T``: a copy, not a result)."""
    import gc

    import strict_array as xp
    from strict_array._backends.dask import _keep

    rng = np.random.default_rng(17)
    data, w = rng.standard_normal((256, 16)), rng.standard_normal((16, 3))
    with dask.config.set({"strict_array.keep-bytes": "1 KiB"}):
        x = xp.asarray(data, device=xp.DASK, chunks=(rows, (16,)))
        coef = xp.asarray(w, device=xp.DASK)
        raw = x @ coef  # (6 KiB, of 32 KiB in memory)
        xt = x.T
        copy = xp.asarray(raw, copy=True)  # (an array of raw's name, which goes first)
        assert copy._data.name == raw._data.name
        del copy
        gc.collect()
        loss = float(xp.sum(xp.exp(raw)))
        name, t_name = raw._data.name, xt._data.name
        assert name in _keep._kept and _keep._kept[name].bound == _keep.HELD
        grad = xp.matmul(raw.T, x)
        # (built on the kept blocks: the graph holds them as values)
        assert _graph.resident_bytes(grad._data.__dask_graph__().layers[name]) == 256 * 3 * 8
        assert float(xp.sum(xt)) == pytest.approx(data.sum())
        assert t_name not in _keep._kept
        np.testing.assert_allclose(loss, np.exp(data @ w).sum(), rtol=1e-12)
        np.testing.assert_allclose(np.asarray(grad), (data @ w).T @ data, rtol=1e-12)
        del raw, grad
        gc.collect()
        assert name in _keep._kept  # (found again by a rebuilt ``x @ coef`` while they live)
        again = x @ coef
        assert _graph.resident_bytes(again._data.__dask_graph__().layers[name]) == 256 * 3 * 8
        del again, coef
        gc.collect()
        assert name not in _keep._kept

        path = str(tmp_path / "x.zarr")
        xp.to_zarr(x, path)
        stored = xp.from_zarr(path)
        streamed = stored @ xp.asarray(w, device=xp.DASK)  # (held, as ``raw`` was)
        both = float(xp.sum(xp.exp(streamed)) + xp.sum(x))  # (x: in memory, beside it)
        np.testing.assert_allclose(both, loss + data.sum(), rtol=1e-12)
        assert streamed._data.name not in _keep._kept


def test_held_arrays_kept_stay_under_their_own_bound():
    """The arrays kept because the program holds them stay under
    ``strict_array.keep-held-total`` (the oldest go first); the small results kept
    under ``strict_array.keep-total`` are not pushed out by them."""
    import strict_array as xp
    from strict_array._backends.dask import _keep

    rng = np.random.default_rng(18)
    data = rng.standard_normal((256, 16))
    config = {"strict_array.keep-bytes": "1 KiB", "strict_array.keep-held-total": "8 KiB"}
    with dask.config.set(config):
        x = xp.asarray(data, device=xp.DASK, chunks=(32, 16))
        small = xp.mean(x, axis=0, keepdims=True)  # (128 B: under keep-total)
        raws = [x @ xp.asarray(rng.standard_normal((16, 3)), device=xp.DASK) for _ in range(2)]
        for raw in raws:  # (6 KiB each: one fits)
            float(xp.sum(raw - small[:, :3]))
        first, second = (r._data.name for r in raws)
        assert first not in _keep._kept and second in _keep._kept
        assert small._data.name in _keep._kept
        assert _keep._total[_keep.HELD] == 256 * 3 * 8
