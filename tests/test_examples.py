"""The examples in examples/ run and are right."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import strict_array as xp

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.fixture(scope="module")
def reverse_mode():
    """examples/reverse_mode.py, imported from its path (examples/ is not a package)."""
    spec = importlib.util.spec_from_file_location("reverse_mode", EXAMPLES / "reverse_mode.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_reverse_mode_matches_finite_differences(reverse_mode, device):
    assert reverse_mode.check(device) < 1e-6


def test_reverse_mode_gradients_are_the_closed_form(reverse_mode, device):
    # f = sum((X + v[:, None]) * w[None, :]): df/dX = w broadcast down the rows,
    # df/dv = sum(w) for every row, df/dw = column sums of X + v[:, None]
    rng = np.random.default_rng(1)
    X, v, w = rng.standard_normal((3, 4)), rng.standard_normal(3), rng.standard_normal(4)
    on = [xp.asarray(a, device=device) for a in (X, v, w)]
    gX, gv, gw = (np.asarray(g) for g in reverse_mode.gradients(*on))
    np.testing.assert_allclose(gX, np.broadcast_to(w, (3, 4)))
    np.testing.assert_allclose(gv, np.full(3, w.sum()))
    np.testing.assert_allclose(gw, (X + v[:, None]).sum(axis=0))


def test_reverse_mode_script_runs():
    out = subprocess.run(
        [sys.executable, str(EXAMPLES / "reverse_mode.py")], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert "strict_array.CPU" in out.stdout and "strict_array.DASK" in out.stdout


def test_the_scikit_learn_example_fits_a_zarr_store_read_block_by_block(tmp_path):
    """examples/sklearn_out_of_core.py, small: scikit-learn's LDA on a lazy Zarr store."""
    spec = importlib.util.spec_from_file_location(
        "sklearn_out_of_core", EXAMPLES / "sklearn_out_of_core.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    path = str(tmp_path / "data.zarr")
    n = module.write_store(path, mib=4, chunk_rows=4096)
    with xp.rank_promotion_policy(
        {"sklearn": "allow", "scipy": "allow", "array_api_extra": "allow"}
    ):
        accuracy = module.fit_and_score(path)
    import zarr
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

    X, y = zarr.open_array(path + "/X")[...], zarr.open_array(path + "/y")[...]
    assert X.shape == (n, module.FEATURES)
    assert accuracy == pytest.approx(LinearDiscriminantAnalysis().fit(X, y).score(X, y), rel=1e-12)
