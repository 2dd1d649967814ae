"""The compute planner (strict_array._backends.dask._plan): values, passes, and memory.

The memory test counts the input chunks alive at once: the store hands out fresh
NumPy arrays and a ``weakref.finalize`` on each one counts it dead when Dask lets it
go. With the planner the maximum is a small constant; computed as one graph it is
every chunk (dask/dask#874).
"""

from __future__ import annotations

import logging
import threading
import uuid
import weakref

import dask
import dask.array as da
import numpy as np
import pytest

from strict_array._backends.dask import _basics, _graph, _plan

ROWS, COLS = 240, 6
DATA = np.random.default_rng(7).standard_normal((ROWS, COLS))

#: (name, chunks): regular row blocks, irregular blocks on both axes, one chunk,
#: column blocks
CHUNKINGS = [
    ("rows", (40, COLS)),
    ("irregular", ((70, 30, 100, 40), (4, 2))),
    ("one-chunk", (ROWS, COLS)),
    ("columns", (ROWS, 2)),
]


def _std_by_hand(x):
    m = x.mean(axis=0)
    return da.sqrt(((x - m) ** 2).mean(axis=0))


def _softmax(x):
    e = da.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _natural(x):
    m = x.mean(axis=0)
    z = x - m
    return (z * z).sum(axis=0)


#: name -> function of x returning the arrays to compute together
SIBLINGS = {
    "natural": lambda x: [_natural(x)],
    "natural with m": lambda x: [x.mean(axis=0), _natural(x)],
    "standardise": lambda x: [(x - x.mean(axis=0)) / x.std(axis=0)],
    "standardise by hand": lambda x: [(x - x.mean(axis=0)) / _std_by_hand(x)],
    "row share": lambda x: [x / x.sum(axis=1, keepdims=True)],
    "softmax": lambda x: [_softmax(x)],
    "centred max and sum": lambda x: [(x - x.max()).sum(), x.sum()],
    "column means then total": lambda x: [(x - x.mean(axis=0)).sum()],
    "min-max scaling": lambda x: [_scaled(x)],
}


def _scaled(x):
    lo = x.min(axis=0)
    return (x - lo) / (x.max(axis=0) - lo)


def _threshold(x: da.Array) -> int:
    """Less than the input, more than one chunk: whole-axis reductions are cut."""
    return max(x.nbytes // 4, max(np.prod(c) for c in _block_shapes(x)) * 8 + 1)


def _block_shapes(x):
    return [tuple(c[i] for c, i in zip(x.chunks, idx)) for idx in np.ndindex(*x.numblocks)]


def _same(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)  # bit for bit (NaN-aware)


@pytest.mark.parametrize("chunks", [c for _, c in CHUNKINGS], ids=[n for n, _ in CHUNKINGS])
@pytest.mark.parametrize("case", list(SIBLINGS))
def test_values_identical_to_one_graph(case, chunks):
    x = da.from_array(DATA, chunks=chunks)
    outs = SIBLINGS[case](x)
    want = dask.compute(*outs, scheduler="threads")
    p = _plan.plan(outs, threshold_bytes=_threshold(x), trust_dask=True)
    _same(_plan.execute(p, scheduler="threads"), want)
    # the rewritten lazy arrays, streamed by hand into NumPy targets
    final = _plan.rewrite(p, scheduler="threads")
    targets = [np.empty(a.shape, a.dtype) for a in final]
    da.store(final, targets, lock=False, scheduler="threads")
    _same(targets, want)


@pytest.mark.parametrize(
    ("case", "passes"),
    [
        ("natural", 2),
        ("natural with m", 2),
        ("standardise", 2),  # mean and std (one moment pass) together
        ("standardise by hand", 3),  # mean, then std of x - mean, then the result
        ("row share", 1),  # row-wise: each row block waits for itself only
        ("softmax", 1),
        ("centred max and sum", 2),
        ("column means then total", 2),
        ("min-max scaling", 2),  # max - min waits for min through small layers only
    ],
)
def test_number_of_passes(case, passes):
    x = da.from_array(DATA, chunks=(40, COLS))
    p = _plan.plan(SIBLINGS[case](x), threshold_bytes=_threshold(x), trust_dask=True)
    assert len(p.passes) == passes, str(p)
    assert p.passes[-1].final and not any(s.final for s in p.reductions)


def test_softmax_over_a_chunked_wide_axis_is_cut():
    # rows are one block and the reduced axis is chunked: the whole input waits
    x = da.from_array(DATA.T.copy(), chunks=(COLS, 40))
    out = _softmax(x)
    p = _plan.plan([out], threshold_bytes=_threshold(x), trust_dask=True)
    assert len(p.passes) == 3, str(p)  # max, then sum of exp(x - max), then the result
    _same(_plan.execute(p), dask.compute(out))


@pytest.mark.parametrize(
    "make",
    [
        lambda x: [x.sum()],
        lambda x: [x.sum(), x.max()],
        lambda x: [x.mean(axis=0), x.std(axis=0)],
        lambda x: [(x * 2).sum(axis=0)],
        lambda x: [x.mean(axis=0), x * 2],  # a large output, but nothing waits
        lambda x: [x - da.from_array(np.ones(COLS))],
        lambda x: [x - da.from_array(np.arange(COLS)).mean()],
    ],
    ids=[
        "sum",
        "sum and max",
        "mean and std",
        "sum of 2x",
        "mean and 2x",
        "minus a constant",
        "minus a one-block constant's mean",
    ],
)
def test_no_extra_pass_when_the_input_is_not_shared(make):
    x = da.from_array(DATA, chunks=(40, COLS))
    outs = make(x)
    p = _plan.plan(outs, threshold_bytes=_threshold(x), trust_dask=True)
    assert len(p.passes) == 1 and not p.reductions, str(p)
    calls = []

    def counting(step, collections):
        calls.append(step)
        return dask.compute(*collections)

    _same(_plan.execute(p, compute=counting), dask.compute(*outs))
    assert len(calls) == 1
    # rewrite returns the arrays themselves: nothing to rewrite
    assert all(a is b for a, b in zip(_plan.rewrite(p), outs))


def test_a_reduction_of_another_input_that_the_large_one_waits_for_is_cut():
    # x's blocks wait for the mean of y, which Dask's order may compute last: its own
    # pass first (it reads y alone), the products of x's blocks then stream
    x = da.from_array(DATA, chunks=(40, COLS))
    y = da.from_array(DATA[:, 0].copy(), chunks=40)
    m = y.mean()
    outs = [x.T @ (y - m), x.T @ x]
    p = _plan.plan(outs, threshold_bytes=_threshold(x), trust_dask=True)
    assert len(p.passes) == 2, str(p)
    assert [li.name for li in p.passes[0].layers] == [m.name]
    _same(_plan.execute(p), dask.compute(*outs))


def test_a_row_wise_result_built_with_a_parameter_of_small_values_is_not_cut():
    """GaussianMixture's E-step beside its M-step: a mask of each row's maximum (in x's
    row blocks) built with a parameter computed from small values alone (its kept
    precisions), and the centred data, both used by one contraction. Every block of
    the mask is there with its row block of x: nothing waits for a whole reduction, so
    one pass. The parameter, one block wide, made the mask count as one block wide:
    a pass of its own at every EM step."""
    x = da.from_array(DATA, chunks=(40, COLS))
    precision = da.from_array(np.eye(COLS), chunks=-1) * 2.0  # (from small values alone)
    mask = (x @ precision).max(axis=1, keepdims=True) > 1.0  # (small: 1 byte a row)
    out = ((x - 1.0) * mask).T @ (x - 1.0)
    p = _plan.plan([out], threshold_bytes=_threshold(x), small_bytes=512, trust_dask=True)
    assert len(p.passes) == 1, str(p)
    _same(_plan.execute(p), dask.compute(out))


def test_threshold_above_the_input_means_one_graph():
    x = da.from_array(DATA, chunks=(40, COLS))
    p = _plan.plan([_natural(x)], threshold_bytes=x.nbytes + 1, trust_dask=True)
    assert len(p.passes) == 1


def test_cut_as_far_downstream_as_possible():
    x = da.from_array(DATA, chunks=(40, COLS))
    sd = x.std(axis=0)  # var-aggregate, then sqrt: cut at the sqrt
    p = _plan.plan([x / sd], threshold_bytes=_threshold(x), trust_dask=True)
    (first, final) = p.passes
    assert [li.name for li in first.layers] == [sd.name]
    assert first.layers[0].shape == (COLS,) and first.layers[0].nbytes == COLS * 8
    assert [li.name for li in final.layers] == [(x / sd).name]


def test_small_values_computed_on_the_way_are_kept():
    # 2m is the cut point; m, on its way, is also needed by m + 1: its value is kept
    # from the same pass rather than computed again from x in the last one
    def make(x):
        m = x.mean(axis=0)
        return [m + 1, ((x - 2 * m) ** 2).sum(axis=0)]

    x = da.from_array(DATA, chunks=(40, COLS))
    outs = make(x)
    p = _plan.plan(outs, threshold_bytes=_threshold(x), trust_dask=True)
    assert len(p.passes) == 2
    assert {li.name for li in p.passes[0].layers} == {
        x.mean(axis=0).name,
        (2 * x.mean(axis=0)).name,
    }
    _same(_plan.execute(p), dask.compute(*outs))
    planned, _, passes = _measure(16, planned=True, make=lambda x: make(x)[0] + make(x)[1])
    assert passes == 2 and planned.loads == 2 * 16


def test_a_small_row_wise_result_of_the_data_waits_for_its_parameter_with_the_data():
    """``X @ coef``, one column (small when X is), with ``coef`` a reduction over X
    (Ridge's predictions, ``r2_score``'s check of them): X's blocks wait for ``coef``
    in the product, so ``coef`` is a cut point, though the product itself is small.
    On 0.5 GiB it was not, and Ridge(solver='svd') held X whole (1.2 GiB)."""
    x = da.from_array(DATA, chunks=(40, COLS))
    y = da.from_array(DATA[:, 0], chunks=40)
    coef = x.T @ y
    out = (x @ coef).sum()
    column = ROWS * 8  # (x @ coef's bytes: below small_bytes)
    p = _plan.plan([out], threshold_bytes=_threshold(x), small_bytes=2 * column, trust_dask=True)
    assert len(p.passes) == 2
    (cut,) = p.passes[0].layers  # (coef, as the product takes it: coef[:, None])
    assert cut.nbytes == COLS * 8 and coef.name in out.dask.dependencies[cut.name]
    _same(_plan.execute(p), dask.compute(out))


def test_progress_hook_gets_each_pass_and_plan_prints():
    x = da.from_array(DATA, chunks=(40, COLS))
    out = (x - x.mean(axis=0)) / _std_by_hand(x)
    p = _plan.plan([out], threshold_bytes=_threshold(x), trust_dask=True)
    seen = []

    def run(step, collections):
        seen.append((step.index, step.total, step.final, len(collections)))
        return dask.compute(*collections)

    _plan.execute(p, compute=run)
    assert seen == [(1, 3, False, 1), (2, 3, False, 1), (3, 3, True, 1)]
    text = str(p)
    assert text.startswith("Plan: 3 passes")
    assert "pass 1/3: 1 reduction over array-" in text
    assert "mean_agg-aggregate-" in text and "(6,) float64  48 B  1 chunk" in text
    assert "pass 3/3: 1 output (rewritten graph)" in text
    assert p.passes[0].title.startswith("pass 1/3: 1 reduction over array-")


def test_plan_rejects_other_arrays_and_both_compute_styles():
    x = da.from_array(DATA, chunks=(40, COLS))
    p = _plan.plan([_natural(x)], threshold_bytes=_threshold(x), trust_dask=True)
    with pytest.raises(TypeError, match="not both"):
        _plan.execute(p, compute=lambda s, c: dask.compute(*c), scheduler="threads")
    with pytest.raises(TypeError):
        _plan.plan([DATA], threshold_bytes=1, trust_dask=True)


def test_layers_without_annotations_are_never_cut_points():
    x = da.from_array(DATA, chunks=(40, COLS))
    m = x.mean(axis=0)
    s = _natural(x)
    graph = s.__dask_graph__()
    layer = graph.layers[m.name]
    saved = layer.collection_annotations
    layer.collection_annotations = None  # as a layer made outside dask.array would be
    try:
        p = _plan.plan([s], threshold_bytes=_threshold(x), trust_dask=True)
        cut = [li.name for step in p.reductions for li in step.layers]
        assert m.name not in cut  # its size is unknown: not a cut point
        _same(_plan.execute(p), dask.compute(s))
    finally:
        layer.collection_annotations = saved


def test_persist_the_rewritten_arrays():
    x = da.from_array(DATA, chunks=(40, COLS))
    out = (x - x.mean(axis=0)) / x.std(axis=0)
    p = _plan.plan([out], threshold_bytes=_threshold(x), trust_dask=True)
    (final,) = _plan.rewrite(p)
    # the rewritten graph is another computation: none of the original keys
    assert final.name != out.name and not set(dict(final.dask)) & set(dict(out.dask))
    assert final.chunks == out.chunks and final.dtype == out.dtype
    (kept,) = dask.persist(final)
    _same([kept.compute()], dask.compute(out))


def test_docstring_examples():
    import doctest

    result = doctest.testmod(_plan, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted > 0


# --- memory ---------------------------------------------------------------------------
class CountingStore:
    """An on-disk-like array: each read returns a fresh chunk; counts the reads and
    the chunks alive at once (a chunk dies when Dask drops its last reference)."""

    def __init__(self, data: np.ndarray) -> None:
        self.data = data
        self.shape, self.dtype, self.ndim = data.shape, data.dtype, data.ndim
        self._lock = threading.Lock()
        self._token = uuid.uuid4().hex
        self.loads = self.alive = self.max_alive = 0

    def __dask_tokenize__(self) -> str:
        return self._token

    def _dead(self) -> None:
        with self._lock:
            self.alive -= 1

    def __getitem__(self, key) -> np.ndarray:
        block = np.array(self.data[key])
        if block.size == 0:  # Dask's metadata probe, not a chunk
            return block
        with self._lock:
            self.loads += 1
            self.alive += 1
            self.max_alive = max(self.max_alive, self.alive)
        weakref.finalize(block, self._dead)
        return block


def _measure(n_chunks: int, planned: bool, make=_natural, rows: int = 32):
    store = CountingStore(np.random.default_rng(n_chunks).standard_normal((n_chunks * rows, 4)))
    x = da.from_array(store, chunks=(rows, 4), asarray=False)
    outs = [make(x)]
    with dask.config.set(scheduler="threads", num_workers=2):
        if planned:
            p = _plan.plan(outs, threshold_bytes=4 * rows * 4 * 8, trust_dask=True)
            assert store.loads == 0  # planning computes nothing
            values = _plan.execute(p)
            passes = len(p.passes)
        else:
            values = dask.compute(*outs)
            passes = 1
    return store, values, passes


@pytest.mark.parametrize("n_chunks", [16, 64])
def test_memory_bounded_with_the_planner_and_not_without(n_chunks):
    raw, want, _ = _measure(n_chunks, planned=False)
    planned, got, passes = _measure(n_chunks, planned=True)
    _same(got, want)
    # one graph: every chunk of x is alive at once (read once)
    assert raw.loads == n_chunks
    assert raw.max_alive >= n_chunks - 1
    # planned: read twice (one pass for the mean, one for the rest), a few chunks alive
    assert passes == 2 and planned.loads == 2 * n_chunks
    assert planned.max_alive <= 4
    assert planned.alive == raw.alive == 0


@pytest.mark.parametrize("n_chunks", [16, 64])
def test_memory_bounded_over_three_passes(n_chunks):
    def make(x):
        return ((x - x.mean(axis=0)) / _std_by_hand(x)).sum(axis=0)

    raw, want, _ = _measure(n_chunks, planned=False, make=make)
    planned, got, passes = _measure(n_chunks, planned=True, make=make)
    _same(got, want)
    assert raw.max_alive >= n_chunks - 1
    assert passes == 3 and planned.loads == 3 * n_chunks
    assert planned.max_alive <= 4


def test_independent_statistics_share_a_pass():
    # min, max and max - min in one pass, then the result: the input is read twice
    make = lambda x: _scaled(x).sum(axis=0)  # noqa: E731
    _, want, _ = _measure(32, planned=False, make=make)
    planned, got, passes = _measure(32, planned=True, make=make)
    _same(got, want)
    assert passes == 2 and planned.loads == 2 * 32
    assert planned.max_alive <= 4


def test_one_read_per_pass_for_several_cut_points():
    def make(x):
        return ((x - x.mean(axis=0)) / x.std(axis=0)).sum(axis=0)

    planned, _, passes = _measure(32, planned=True, make=make)
    assert passes == 2 and planned.loads == 2 * 32  # mean and std read x together
    assert planned.max_alive <= 4


# --- distributed ----------------------------------------------------------------------
class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@pytest.mark.distributed
def test_on_a_distributed_client():
    distributed = pytest.importorskip("distributed")
    records = _Records()
    scheduler_log = logging.getLogger("distributed.scheduler")
    scheduler_log.addHandler(records)
    try:
        with (
            distributed.LocalCluster(
                n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
            ) as cluster,
            distributed.Client(cluster) as client,
        ):
            x = da.from_array(DATA, chunks=(40, COLS))
            m = x.mean(axis=0)
            outs = [(x - m) / _std_by_hand(x), m]
            want = dask.compute(*outs)
            p = _plan.plan(outs, threshold_bytes=_threshold(x), trust_dask=True)
            assert len(p.passes) == 3
            seen = []

            def run(step, collections):
                seen.append(step.index)
                return client.compute(list(collections), sync=True)

            _same(_plan.execute(p, compute=run), want)
            assert seen == [1, 2, 3]
            _same(_plan.execute(p), want)  # dask.compute with the active client
            _same(dask.compute(*outs), want)  # the one graph again, on the same keys
            final = _plan.rewrite(p)
            _same(dask.compute(*dask.persist(*final)), want)
    finally:
        scheduler_log.removeHandler(records)
    # a substituted layer and what depends on it run under new keys: the scheduler
    # never sees one key with two different tasks (dask/dask#9888)
    assert not [m for m in records.messages if "different `run_spec`" in m]


# --- what the planner may trust -------------------------------------------------------
def test_raw_dask_graphs_are_planned_only_on_declared_metadata():
    x = da.from_array(DATA, chunks=(40, COLS))
    m = x.mean(axis=0)
    s = ((x - m) ** 2).sum(axis=0)
    # nothing declared: no layer has a size the planner can prove, one graph
    assert len(_plan.plan([s], threshold_bytes=_threshold(x)).passes) == 1
    _graph.declare(x, m)
    p = _plan.plan([s], threshold_bytes=_threshold(x))
    assert [li.name for li in p.passes[0].layers] == [m.name]
    _same(_plan.execute(p), dask.compute(s))


def _lying_mean(x):
    """x's column means whose array declares (COLS + 1,) where its block is (COLS,)."""
    m = x.mean(axis=0)
    lie = da.Array(m.dask, m.name, ((COLS + 1,),), meta=m._meta)
    _graph.declare(lie)
    return m


def test_a_wrong_declaration_changes_no_value_and_fails_the_checks():
    x = da.from_array(DATA, chunks=(40, COLS))
    _graph.declare(x)
    s = ((x - _lying_mean(x)) ** 2).sum(axis=0)
    p = _plan.plan([s], threshold_bytes=_threshold(x))
    assert len(p.passes) == 2
    with dask.config.set({_plan.CHECKS_KEY: False}):  # as users run it
        _same(_plan.execute(p), dask.compute(s))  # the blocks replace their own tasks
    with dask.config.set({_plan.CHECKS_KEY: True}), pytest.raises(AssertionError, match="declared"):
        _plan.execute(p)


# --- natural strict_array code under forced planning -----------------------------------
def _centred(z):
    import strict_array as xp

    return z - xp.mean(z, axis=0, keepdims=True)


def _issue_workloads():
    import strict_array as xp

    rng = np.random.default_rng(19)
    k = 4
    y = rng.integers(0, k, 300)
    a = rng.standard_normal((300, 5))
    m = rng.standard_normal((k, k)) + 4 * np.eye(k)
    b = rng.standard_normal((k, 300))

    def on(dev, v, chunks=None):
        return xp.asarray(v, device=dev, **({"chunks": chunks} if dev is xp.DASK else {}))

    return {
        # Dask's indexing by a Dask array builds an offsets array whose declared chunks
        # are not its block's; apply_gufunc a per-loop layer of the loop shape only
        "one-hot rows": lambda d: xp.eye(k, device=d)[on(d, y, 70)],
        "take along 1, lazy index": lambda d: xp.take(
            on(d, a, (100, 5)), xp.argmax(on(d, a[:3]), axis=1), axis=1
        ),
        "take of argmax": lambda d: xp.take(
            xp.eye(5, device=d), xp.argmax(on(d, a, (64, 5)), axis=1), axis=0
        ),
        "one-hot of unique_inverse": lambda d: xp.eye(k, device=d)[
            xp.unique_inverse(on(d, y, 70)).inverse_indices
        ],
        "solve then a step": lambda d: xp.linalg.solve(on(d, m), on(d, b, (k, 60))).mT * 2.0,
        "solve then a step, one chunk": lambda d: xp.linalg.solve(on(d, m), on(d, b)).mT,
    }


@pytest.mark.parametrize("threshold", [1, 256, 1024, 4096, 16384])
@pytest.mark.parametrize("case", list(_issue_workloads()))
def test_natural_code_same_under_forced_planning(case, threshold):
    import strict_array as xp

    make = _issue_workloads()[case]
    want = np.asarray(_centred(make(xp.CPU)))
    with xp.planning(False):
        one_graph = np.asarray(_centred(make(xp.DASK)))
    with xp.planning(threshold=threshold):
        planned = np.asarray(_centred(make(xp.DASK)))
    _same([planned], [one_graph])
    np.testing.assert_allclose(planned, want, rtol=1e-12, atol=1e-12)


# --- workload classes: reads and chunks alive, natural strict_array code ----------------
def _workloads():
    import strict_array as xp

    def mean0(a):
        return xp.mean(a, axis=0, keepdims=True)

    def softmax(x):
        e = xp.exp(x - xp.max(x, axis=0, keepdims=True))
        return e / xp.sum(e, axis=0, keepdims=True)

    def twice_centred(x):
        c = x - mean0(x)
        return c - mean0(c) - xp.mean(c, axis=1, keepdims=True)

    def kmeans_step(x):
        centres = x[:3]
        d = xp.sum((x[:, None, :] - centres[None, :, :]) ** 2, axis=2)
        label = xp.argmin(d, axis=1)
        k = xp.arange(3, device=x.device)
        onehot = xp.astype(label[:, None] == k[None, :], xp.float64)
        return (onehot.mT @ x) / xp.sum(onehot, axis=0)[:, None]

    def correlation(a, b):
        return (a - mean0(a)).mT @ (b - mean0(b))

    def least_squares(x):
        a, y = x[:, 1:], x[:, :1]
        c, yc = a - mean0(a), y - mean0(y)
        beta = xp.linalg.solve(c.mT @ c, c.mT @ yc)
        r = yc - c @ beta
        return xp.sum(r * r, axis=0)

    # name -> (levels of dependency between the statistics, workload)
    return {
        "z-score": (1, lambda x: (x - mean0(x)) / xp.std(x, axis=0, keepdims=True)),
        "min-max scaling": (
            1,
            lambda x: (
                (x - xp.min(x, axis=0, keepdims=True))
                / (xp.max(x, axis=0, keepdims=True) - xp.min(x, axis=0, keepdims=True))
            ),
        ),
        "column softmax": (2, softmax),
        "twice-centred residuals": (2, twice_centred),
        "row statistic then column statistic": (
            1,
            lambda x: (lambda r: r - mean0(r))(x - xp.mean(x, axis=1, keepdims=True)),
        ),
        "k-means step": (1, kmeans_step),
        "covariance": (1, lambda x: correlation(x, x) / (x.shape[0] - 1)),
        "Gram matrix": (0, lambda x: x.mT @ x),
        "correlation with a flip": (1, lambda x: correlation(x, xp.flip(x, axis=0))),
        "correlation with a slice": (1, lambda x: correlation(x[1:], x[:-1])),
        "least squares then residuals": (2, least_squares),
    }


@pytest.mark.parametrize("case", list(_workloads()))
def test_workloads_read_at_most_levels_plus_one_times_in_bounded_memory(case):
    """Natural code of each workload class: the input is read once per level of
    statistics plus once, a few chunks alive at a time, and the values are the one
    graph's bit for bit (the benchmark measures the same classes' RSS and time).
    Counted in the order Dask's priorities give (one thread: with two, on a busy
    machine one thread ran ahead of the other and the count varied, 9 and 14 for
    the k-means step where it is 2; one graph without the plan holds all 24)."""
    import strict_array as xp

    levels, make = _workloads()[case]
    n_chunks, rows = 24, 32
    results = {}
    for planned in (False, True):
        store = CountingStore(np.random.default_rng(3).standard_normal((n_chunks * rows, 4)))
        x = xp.asarray(da.from_array(store, chunks=(rows, 4), asarray=False))
        out = make(x)
        with dask.config.set(scheduler="sync"):
            with xp.planning(planned, threshold=4 * rows * 4 * 8):
                results[planned] = (np.asarray(out), store.loads, store.max_alive)
    (want, _, _), (got, loads, alive) = results[False], results[True]
    _same([got], [want])
    assert loads <= (levels + 1) * n_chunks
    assert alive <= 3


@pytest.mark.parametrize("weights", ["ones", "none"])
def test_products_of_an_input_with_a_centred_other_input_stream(weights):
    """RidgeCV's decomposition: ``X.T @ X``, ``X.T @ (y - mean(y))`` and
    ``X.T @ ones(n)``, computed together. ``y`` is another input: its mean is a cut
    point (pass 1 reads ``y`` alone), and ``ones(n)``, made in Dask's default blocks,
    is made in ``X``'s blocks in the tasks that use it. Without either, Dask's order
    held every block of ``X`` for the last product."""
    import strict_array as xp

    n_chunks, rows = 24, 32
    results = {}
    for planned in (False, True):
        rng = np.random.default_rng(5)
        store = CountingStore(rng.standard_normal((n_chunks * rows, 4)))
        x = xp.asarray(da.from_array(store, chunks=(rows, 4), asarray=False))
        y = xp.asarray(da.from_array(rng.standard_normal(n_chunks * rows), chunks=rows))
        outs = [x.mT @ x, x.mT @ (y - xp.mean(y))]
        if weights == "ones":
            outs.append(x.mT @ xp.ones(n_chunks * rows, dtype=xp.float64, device=x.device))
        with dask.config.set(scheduler="threads", num_workers=2):
            with xp.planning(planned, threshold=4 * rows * 4 * 8):
                values = [np.asarray(v) for v in xp.compute(*outs)]
        results[planned] = (values, store.loads, store.max_alive)
    (want, _, _), (got, loads, alive) = results[False], results[True]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12)
    assert loads == n_chunks  # X read once: y's mean in a pass of its own
    assert alive <= 3


@pytest.mark.parametrize("asked", [True, False])
def test_a_consumers_in_memory_operand_takes_the_inputs_blocks(asked):
    """RidgeClassifierCV: labels a consumer made in NumPy (``asarray``, Dask's one
    block) and weights from ``ones(n)``, centred and scaled, meet ``X`` in products
    and element-wise. Where sizes are asked for (a consumer's call) they are computed
    then, reading nothing, and cut in ``X``'s blocks: ``X`` streams (at most 6 chunks
    alive). Elsewhere nothing is computed while building: Dask's rechunk, lazy."""
    import strict_array as xp

    n_chunks, rows = 24, 32
    n = n_chunks * rows
    rng = np.random.default_rng(9)
    labels = rng.integers(0, 3, n)
    onehot = (labels[:, None] == np.arange(3)).astype(np.int64) * 2 - 1
    store = CountingStore(rng.standard_normal((n, 4)))
    x = xp.asarray(da.from_array(store, chunks=(rows, 4), asarray=False))
    with xp.known_sizes(asked):
        y = xp.astype(xp.asarray(onehot, device=xp.DASK), xp.float64)
        sw = xp.sqrt(xp.ones(n, dtype=xp.float64, device=xp.DASK))
        y = (y - xp.mean(y, axis=0, keepdims=True)) * sw[:, None]
        products = [x.mT @ y, x.mT @ sw]
        residual = y - x[:, :3]  # element-wise with x's rows
        assert store.loads == 0  # building computed nothing from x
        assert residual._data.chunks[0] == x._data.chunks[0]
        layers = [name for a in (*products, residual) for name in a._data.__dask_graph__().layers]
        assert any(name.startswith("rechunk") for name in layers) is not asked
    with dask.config.set(scheduler="threads", num_workers=2):
        got = [np.asarray(v) for v in xp.compute(*products, xp.sum(residual * residual, axis=0))]
    xn = store.data
    yn = (onehot - onehot.mean(axis=0)) * 1.0
    np.testing.assert_allclose(got[0], xn.T @ yn, rtol=1e-12)
    np.testing.assert_allclose(got[1], xn.sum(axis=0), rtol=1e-12)
    np.testing.assert_allclose(got[2], ((yn - xn[:, :3]) ** 2).sum(axis=0), rtol=1e-12)
    if asked:
        assert store.max_alive <= 6


# --- small chains from values in the process --------------------------------------------
def _chain(w, steps, undeclared=()):
    """``steps`` small steps from ``w`` (a mixture's precisions from its covariances);
    the results of the steps in ``undeclared`` are not declared (the planner does not
    know their sizes, as with layers Dask makes inside an operation)."""
    c = w
    for i in range(steps):
        c = (c @ c.T) / (i + 10.0) + np.eye(w.shape[0])
        if i not in undeclared:
            _graph.declare(c)
    return c


def _values_layers(a):
    graph = a.__dask_graph__()
    return [
        name for name, layer in graph.layers.items()
        if not graph.dependencies[name] and _graph.resident_bytes(layer, from_shapes=False) is not None
    ]  # fmt: skip


@pytest.mark.parametrize("undeclared_last", [False, True])
@pytest.mark.parametrize("steps", [1, 12])
def test_a_small_chain_from_values_here_is_computed_where_it_meets_data(steps, undeclared_last):
    """A chain of small layers from values in this process that meets data in blocks is
    computed when the graph is run, in this process, and its values go in the graph:
    a cluster's scheduler would run it one round trip per task while its workers read
    the data that waits for it. Also where its last layer is one Dask made inside an
    operation, of no declared size (Nystroem's normalisation, transposed inside
    Dask's matmul: the cluster's workers held 1.4 GiB of X's blocks on 2 GiB)."""
    store = CountingStore(DATA)
    x = da.from_array(store, chunks=(40, COLS), asarray=False)
    w = da.from_array(np.cov(DATA.T), chunks=COLS)  # values in this process
    c = _chain(w, steps)
    out = (x @ (c.T if undeclared_last else c)).sum(axis=0)
    _graph.declare(x, w, out)
    want = dask.compute(out, scheduler="sync")
    p = _plan.plan([out], threshold_bytes=10**9)
    assert not p.reductions  # nothing to cut: the chain is computed first all the same
    store.loads = 0
    (final,) = _plan.rewrite(p)
    assert store.loads == 0  # the chain reads nothing
    assert len(_values_layers(final)) == 1  # the chain's (declared) end, as values
    removed = len(out.__dask_graph__().layers) - len(final.__dask_graph__().layers)
    assert removed >= 3 * steps  # (each step: a product, a division, an addition)
    assert _plan.fold(final.__dask_graph__(), [final.name], 2**20)[1] == []
    _same(_plan.execute(p), want)  # bit for bit: the same tasks
    _same(dask.compute(final, scheduler="sync"), want)


def test_a_chain_after_a_cut_is_computed_before_the_next_pass():
    """GaussianMixture's precisions: the planner cuts where it knows sizes, before a
    layer of unknown size, and the rest of the chain, from that pass's values, is
    computed before the pass that reads the data again, not in it."""
    x = da.from_array(CountingStore(DATA), chunks=(40, COLS), asarray=False)
    m = x.mean(axis=0)
    cov = ((x - m).T @ (x - m)) / ROWS
    _graph.declare(x, m, cov)
    c = _chain(cov, 6, undeclared=(2,))
    out = ((x - m) @ c).sum(axis=0)
    _graph.declare(out)
    want = dask.compute(out, scheduler="sync")
    p = _plan.plan([out], threshold_bytes=_threshold(x), small_bytes=COLS * COLS * 8)
    assert len(p.passes) == 3  # m, then the chain up to step 2, then the rest

    def run(step, collections):
        return dask.compute(*collections, scheduler="sync")

    (final,) = _plan.rewrite(p, compute=run)
    graph = final.__dask_graph__()
    computed = {name.split("-")[0] for name in graph.layers if graph.dependencies[name]}
    assert not computed & {"truediv", "add"}, computed  # the chain's end is values
    assert _plan.fold(final.__dask_graph__(), [final.name], 2**20)[1] == []
    _same(_plan.execute(p), want)


def test_large_values_and_data_are_not_computed_here():
    x = da.from_array(CountingStore(DATA), chunks=(40, COLS), asarray=False)
    big = da.from_array(DATA.copy(), chunks=(40, COLS))  # values, larger than ``small``
    small_from_big = big.sum(axis=0)
    small_from_data = x.sum(axis=0)
    out = (x * small_from_big * small_from_data).sum()
    _graph.declare(x, big, small_from_big, small_from_data, out)
    graph = out.__dask_graph__()
    assert _plan.fold(graph, [out.name], DATA.nbytes - 1) == (graph, [])
    # with a bound above the values, their sum is computed here (the data is not read)
    folded, names = _plan.fold(graph, [out.name], DATA.nbytes)
    assert names == [small_from_big.name]
    _same(dask.compute(da.Array(folded, out.name, out.chunks, meta=out._meta)), dask.compute(out))


def test_arrays_made_from_nothing_hold_nothing():
    import strict_array as xp

    for a in (xp.eye(5, 3, k=1, device=xp.DASK), xp.arange(7, device=xp.DASK),
              xp.zeros((4, 2), device=xp.DASK)):  # fmt: skip
        layer = a._data.__dask_graph__().layers[a._data.name]
        assert _graph.resident_bytes(layer) == 0
        # made again in other blocks (beside data in its blocks), it still holds nothing
        again = _basics.rechunk(a._data, {0: (1,) * a.shape[0]})
        assert again.chunks[0] == (1,) * a.shape[0] and _basics.remade(again)
        assert _graph.resident_bytes(again.__dask_graph__().layers[again.name]) == 0
    store = da.from_array(CountingStore(DATA), chunks=(40, COLS), asarray=False)
    graph = store.__dask_graph__()
    assert [_graph.resident_bytes(layer) for layer in graph.layers.values()].count(None) >= 1


def test_cut_points_on_a_chain_computed_here_are_kept_for_their_passes():
    """Found by the differential suite: chains from values (``round(v * 8) / 8``) that
    the planner cuts at, in passes, on their way to the data of later passes; computed
    here first, a cut point was dropped from the graph (before its pass, or with the
    values of the pass before), and its pass had nothing to compute."""
    import strict_array as xp

    def steps(v, m):
        return xp.round(v * 8.0) / 8.0 * 0.01 + xp.asarray(m, device=xp.DASK, chunks=1)

    v = xp.asarray(np.float64(1.0), device=xp.DASK)
    norm = xp.linalg.matrix_norm(steps(v, np.eye(2) * 3 + 0.125), keepdims=True)
    m = xp.add(
        xp.expand_dims(xp.round(norm * 8.0) / 8.0, axis=(2, 3)) * 0.01,
        xp.asarray(np.full((3, 3), 0.125) + 4 * np.eye(3), device=xp.DASK),
        broadcast_dimensions=(2, 3),
    )
    for out in (norm._data, xp.linalg.matrix_norm(m)._data):
        p = _plan.plan([out], threshold_bytes=64, small_bytes=32)
        with dask.config.set({_plan.CHECKS_KEY: True}):
            _same(_plan.execute(p), dask.compute(out))


def test_data_in_memory_is_computed_in_one_pass(tmp_path):
    """Passes bound what waits for a reduction while data streams; data in memory (a
    NumPy array given to ``asarray``, a persisted array) waits anyway, so it is not
    planned: one pass, the same values. Data read from a store, and an array made from
    nothing at least the threshold's size (made block by block), are planned."""
    import strict_array as xp

    data = np.random.default_rng(19).standard_normal((1000, 4))

    def centred_squares(x):
        m = xp.mean(x, axis=0, keepdims=True)
        return xp.sum((x - m) ** 2, axis=0)

    path = str(tmp_path / "x.zarr")
    xp.to_zarr(xp.asarray(data, device=xp.DASK, chunks=(100, 4)), path)
    in_memory = xp.asarray(data, device=xp.DASK, chunks=(100, 4))
    (persisted,) = xp.persist(xp.from_zarr(path))
    made = xp.ones((1000, 4), device=xp.DASK, chunks=(100, 4))
    want = ((data - data.mean(axis=0)) ** 2).sum(axis=0)
    with xp.planning(threshold=8000):  # (the data: 31.2 KiB)
        for x, passes in ((in_memory, 1), (persisted, 1), (xp.from_zarr(path), 2), (made, 2)):
            assert xp.compute_plan(centred_squares(x)).startswith(f"Plan: {passes} pass")
        for x in (in_memory, persisted, xp.from_zarr(path)):
            np.testing.assert_allclose(np.asarray(centred_squares(x)), want, rtol=1e-12)
