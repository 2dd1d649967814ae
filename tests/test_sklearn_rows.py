"""Every row of the scikit-learn benchmark (benchmarks/bench_sklearn.py) at small sizes:
scikit-learn's own estimators and metrics on ``DASK`` give NumPy's values in memory,
on several chunkings, with sizes unknown until computed included (docs/scikit-learn.md).

The rows live in ``benchmarks/_sklearn_rows.py``; the large runs are the benchmark's.
"""

from __future__ import annotations

import importlib.util
import pathlib
import sys
import warnings

import numpy as np
import pytest

import strict_array as xp

pytest.importorskip("sklearn")

ROWS_FILE = pathlib.Path(__file__).resolve().parents[1] / "benchmarks" / "_sklearn_rows.py"
_spec = importlib.util.spec_from_file_location("_sklearn_rows", ROWS_FILE)
assert _spec is not None and _spec.loader is not None
rows = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("_sklearn_rows", rows)
_spec.loader.exec_module(rows)

N = 480
DATA = rows.make_numpy(N, seed=1)
KEEP = np.random.default_rng(2).random(N) < 0.8
#: chunk rows, and whether the rows are a lazy selection (sizes unknown until computed)
LAYOUTS = {"chunks-100": (100, False), "one-chunk": (N, False), "unknown-sizes": (70, True)}


@pytest.fixture(autouse=True)
def _consumers_policy():
    # scikit-learn's and SciPy's own code broadcasts ranks as NumPy does (docs/scikit-learn.md)
    with xp.rank_promotion_policy(
        {"sklearn": "allow", "scipy": "allow", "array_api_extra": "allow"}
    ):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (convergence and NumPy's warnings, both sides)
            yield


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("name", list(rows.ROWS))
def test_a_row_on_dask_gives_numpys_values(name, layout):
    row = rows.ROWS[name]
    chunk_rows, select = LAYOUTS[layout]
    expected_input = rows.Data(**{k: v[KEEP] for k, v in vars(DATA).items()}) if select else DATA
    expected = rows.values(row.run(expected_input))
    d = rows.on_dask(DATA, chunk_rows, KEEP if select else None)
    if select:
        assert d.X.shape[0] is None  # the user's selection: lazy, sizes unknown
    got = rows.values(row.run(d))
    assert got.keys() == expected.keys()
    for key, want in expected.items():
        np.testing.assert_allclose(
            got[key],
            want,
            rtol=row.rtol,
            atol=row.rtol * max(1.0, float(np.abs(want).max(initial=0))),
            err_msg=f"{name}: {key}",
        )


def test_every_array_api_estimator_of_scikit_learn_has_a_row():
    """A scikit-learn release that tags a new estimator as array-API fails here until
    the benchmark and this test have its row."""
    from sklearn.utils import all_estimators

    tagged = set()
    for name, cls in all_estimators():
        try:
            if cls().__sklearn_tags__().array_api_support:
                tagged.add(name)
        except Exception:  # needs arguments: not one scikit-learn tags by default
            continue
    covered = {name.split("(")[0] for name in rows.ROWS}
    assert tagged <= covered, sorted(tagged - covered)


@pytest.mark.parametrize("chunks", [None, 2])
@pytest.mark.parametrize("weighted", [False, True])
def test_curves_with_weights_in_one_block_or_several(chunks, weighted):
    """The curves with sample weights (the zero weights filtered by a mask first), in
    one block or several: a take by the thresholds fuses the tasks that make each
    block of indices, which read the data the index is made from (the mask, the
    ``[n - 1]`` joined to it); those layers must stay in the graph when the index's
    own layer is replaced by kept blocks (it failed with a missing dependency).
    NumPy's values."""
    from sklearn import config_context
    from sklearn.metrics import det_curve, precision_recall_curve, roc_curve

    y = np.array([0, 0, 1, 1, 0, 1, 1, 0])
    s = np.array([0.1, 0.4, 0.35, 0.8, 0.5, 0.9, 0.35, 0.2])
    w = np.array([1.0, 2.0, 0.0, 1.0, 1.0, 3.0, 0.5, 0.0])
    kw = {"sample_weight": w} if weighted else {}
    for metric, extra in ((roc_curve, {"drop_intermediate": False}), (det_curve, {}),
                          (precision_recall_curve, {})):  # fmt: skip
        want = metric(y, s, **kw, **extra)
        on = {"device": xp.DASK, **({"chunks": chunks} if chunks else {})}
        with config_context(array_api_dispatch=True):
            got = metric(xp.asarray(y, **on), xp.asarray(s, **on),
                         **{k: xp.asarray(v, **on) for k, v in kw.items()}, **extra)  # fmt: skip
            got = [np.asarray(g) for g in got]
        for g, wv in zip(got, want):
            np.testing.assert_allclose(g, wv, err_msg=metric.__name__)


@pytest.mark.parametrize(
    "floor, name", [(f, r) for f, floor in rows.FLOORS.items() for r in floor.rows]
)
def test_a_row_of_a_floor_moves_the_labels_to_numpy(floor, name, monkeypatch):
    """The benchmark's ``--floor`` runs scikit-learn's own NumPy steps alone, as a floor
    under the rows that make them (docs/scikit-learn.md): each such row, on ``DASK``,
    hands scikit-learn a NumPy copy of a whole-length array. A scikit-learn release that
    keeps the step in the namespace fails here, and the floor is to be dropped."""
    converted: list[tuple] = []
    for method in ("__array__", "__dlpack__"):
        original = getattr(xp.Array, method)

        def recording(self, *args, _original=original, **kwargs):
            converted.append(self.shape)
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(xp.Array, method, recording)
    rows.values(rows.ROWS[name].run(rows.on_dask(DATA, 100, None)))
    assert any(shape[:1] == (N,) for shape in converted), (floor, name, converted)
