"""scikit-learn's own estimators on a Zarr store read block by block, through strict_array.

The data stays on disk: ``xp.from_zarr`` gives lazy ``DASK`` arrays, scikit-learn's
array-API code runs on them unchanged, and strict_array computes each step in
streaming passes. Sizes that scikit-learn uses as numbers (the classes of ``y``) are
computed where it asks for them. Run::

    python examples/sklearn_out_of_core.py            # a 256 MiB store in a temp dir
    python examples/sklearn_out_of_core.py --mib 8192 --dir /data   # 8 GiB, kept

and it prints, for a pipeline of scaling and linear discriminant analysis, the
accuracy and the peak memory next to the size of the input (see docs/scikit-learn.md).
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile

# SciPy reads this once, at import: its array-API support, which scikit-learn uses too
os.environ.setdefault("SCIPY_ARRAY_API", "1")

import dask
import dask.array as da
import numpy as np
import sklearn
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.metrics import accuracy_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import strict_array as xp

FEATURES = 32


def write_store(path: str, mib: float, chunk_rows: int = 131_072) -> int:
    """X (n x 32 float64) and three classes y, as a Zarr group at ``path``."""
    n = max(chunk_rows, int(mib * 2**20 // (8 * FEATURES)))
    rng = da.random.default_rng(0)
    X = rng.standard_normal((n, FEATURES), chunks=(chunk_rows, -1))
    signal = X @ (np.linspace(-1.0, 1.0, FEATURES) / np.sqrt(FEATURES))
    y = (signal > -0.3).astype(np.float64) + (signal > 0.3)
    da.to_zarr(X, path, component="X", overwrite=True)
    da.to_zarr(y, path, component="y", overwrite=True)
    return n


def fit_and_score(path: str) -> float:
    """The accuracy of a scaler + LDA pipeline, fitted and scored on the store."""
    X = xp.from_zarr(path, component="X")  # lazy: nothing is read yet
    y = xp.from_zarr(path, component="y")
    model = make_pipeline(StandardScaler(), LinearDiscriminantAnalysis())
    with sklearn.config_context(array_api_dispatch=True):
        model.fit(X, y)
        return float(accuracy_score(y, model.predict(X)))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--mib", type=float, default=256.0, help="size of X in MiB (256)")
    p.add_argument("--dir", default=None, help="keep the store here (default: a temp dir)")
    args = p.parse_args()
    # scikit-learn's and SciPy's own code broadcasts ranks as NumPy does; your code stays strict
    xp.set_rank_promotion_policy({"sklearn": "allow", "scipy": "allow", "array_api_extra": "allow"})
    path = os.path.join(args.dir or tempfile.mkdtemp(prefix="strict_array_sklearn_"), "data.zarr")
    with dask.config.set(scheduler="threads"):
        n = write_store(path, args.mib)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10
        accuracy = fit_and_score(path)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10
    print(f"X: {n} x {FEATURES} float64 = {n * FEATURES * 8 / 2**20:.0f} MiB on disk at {path}")
    print(f"accuracy of StandardScaler + LinearDiscriminantAnalysis: {accuracy:.4f}")
    print(f"peak RSS: {peak:.0f} MiB (of which {before:.0f} MiB before fitting)")


if __name__ == "__main__":
    main()
