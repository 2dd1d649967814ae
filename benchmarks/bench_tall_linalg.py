"""Peak memory of the factorizations of a tall array on DASK: NumPy's names and the
namespace's, against the streaming TSQR path (``xp.linalg.svd``).

Run: ``python benchmarks/bench_tall_linalg.py [--rows 2000000] [--cols 16] [--blocks 8]
[--dir DIR]``. The input, x (rows, cols) float64 standard normal, uncompressed Zarr in
``--blocks`` row blocks (default 2e6 x 16, 8 blocks: 244 MiB), is written to ``--dir``
(default a temporary directory, removed at the end; with ``--dir`` it is kept).

Each row runs in a fresh subprocess with the allocator settings of
``_out_of_core.MALLOC_ENV``, on Dask's threaded scheduler (``--workers`` threads):
``x = xp.from_zarr(path)``, the call, and every output computed to NumPy together
(``xp.compute``), so a row's peak RSS (``VmHWM``) holds its outputs (U, Q and the
pseudo-inverse are as large as x). Reported: peak RSS, its ratio to the TSQR row's
(target <= 1.25), time, and whether a digest of the values (singular values, |diag R|,
the covariance, the solution, the pseudo-inverse's row sums) matches NumPy's on the
whole array in memory (computed in this process, after the rows).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def _b(xp: Any, x: Any) -> Any:
    """The right-hand side of the least-squares rows: the first column plus one."""
    return x[:, 0] + 1.0


#: name -> (the call on (xp, np, x): its outputs; the digest of its outputs, on NumPy's
#: values)
ROWS: dict[str, tuple[Callable[[Any, Any, Any], Any], Callable[..., Any]]] = {
    "xp.linalg.svd (TSQR)": (
        lambda xp, np, x: xp.linalg.svd(x, full_matrices=False),
        lambda np, u, s, vh: s,
    ),
    "np.linalg.svd(full_matrices=False)": (
        lambda xp, np, x: np.linalg.svd(x, full_matrices=False),
        lambda np, u, s, vh: s,
    ),
    "np.linalg.svd(compute_uv=False)": (
        lambda xp, np, x: (np.linalg.svd(x, compute_uv=False),),
        lambda np, s: s,
    ),
    "xp.linalg.qr": (lambda xp, np, x: xp.linalg.qr(x), lambda np, q, r: np.abs(np.diag(r))),
    "np.linalg.qr": (lambda xp, np, x: np.linalg.qr(x), lambda np, q, r: np.abs(np.diag(r))),
    "np.cov(rowvar=False)": (lambda xp, np, x: (np.cov(x, rowvar=False),), lambda np, c: c),
    "xp covariance (mean, matmul)": (
        lambda xp, np, x: (
            (lambda c: c.mT @ c / (x.shape[0] - 1))(
                xp.subtract(x, xp.mean(x, axis=0), broadcast_dimensions=(1,))
            ),
        ),
        lambda np, c: c,
    ),
    "np.linalg.lstsq": (
        lambda xp, np, x: np.linalg.lstsq(x, _b(xp, x)),
        lambda np, sol, res, rank, s: sol,
    ),
    "np.linalg.pinv": (lambda xp, np, x: (np.linalg.pinv(x),), lambda np, p: p.sum(axis=1)),
    "xp.linalg.pinv": (lambda xp, np, x: (xp.linalg.pinv(x),), lambda np, p: p.sum(axis=1)),
}
REFERENCE = "xp.linalg.svd (TSQR)"


def child(name: str, path: str, workers: int) -> dict[str, Any]:
    """One row, in this fresh process: its time, peak RSS and digest."""
    import dask
    import numpy as np
    from _harness import maxrss_bytes

    import strict_array as xp

    call, digest = ROWS[name]
    dask.config.set(scheduler="threads", num_workers=workers)
    with xp.progress(False):
        t0 = time.perf_counter()
        x = xp.from_zarr(path)
        outs = [o for o in call(xp, np, x)]
        values = [np.asarray(v) for v in xp.compute(*outs)]
        seconds = time.perf_counter() - t0
    value = np.asarray(digest(np, *values), dtype=np.float64).ravel()
    return {"time": seconds, "maxrss": maxrss_bytes(), "value": value.tolist()}


def write_input(path: str, rows: int, cols: int, blocks: int) -> None:
    import dask
    import dask.array as da
    import zarr

    chunk = -(-rows // blocks)
    if os.path.exists(path):
        z = zarr.open_array(path, mode="r")
        if z.shape == (rows, cols) and z.chunks == (chunk, cols):
            return
    z = zarr.create_array(store=path, shape=(rows, cols), chunks=(chunk, cols),
                          dtype="float64", compressors=None, overwrite=True)  # fmt: skip
    x = da.random.default_rng(0).standard_normal((rows, cols), chunks=(chunk, cols))
    with dask.config.set(scheduler="threads", num_workers=2):
        da.store(x, z, lock=False)


def numpy_digests(path: str) -> dict[str, Any]:
    """Each row's digest from NumPy's own function on the whole array in memory."""
    import numpy as np
    import zarr

    a = zarr.open_array(path, mode="r")[...]
    b = a[:, 0] + 1.0
    out: dict[str, Any] = {}
    for name, (_, digest) in ROWS.items():
        if "svd" in name and "compute_uv" not in name:
            value = digest(np, *np.linalg.svd(a, full_matrices=False))
        elif "compute_uv" in name:
            value = digest(np, np.linalg.svd(a, compute_uv=False))
        elif "qr" in name:
            value = digest(np, *np.linalg.qr(a))
        elif "cov" in name:
            value = digest(np, np.cov(a, rowvar=False))
        elif "lstsq" in name:
            value = digest(np, *np.linalg.lstsq(a, b))
        else:
            value = digest(np, np.linalg.pinv(a))
        out[name] = np.asarray(value, dtype=np.float64).ravel()
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rows", type=int, default=2_000_000)
    p.add_argument("--cols", type=int, default=16)
    p.add_argument("--blocks", type=int, default=8)
    p.add_argument("--dir", default=None, help="keep the input here (default: a temp dir)")
    p.add_argument("--workers", type=int, default=2, help="threads, threaded scheduler (2)")
    p.add_argument("--only", default="", help="comma-separated substrings of row names")
    p.add_argument("--run", help=argparse.SUPPRESS)
    p.add_argument("--path", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.run:
        print("RESULT " + json.dumps(child(args.run, args.path, args.workers)), flush=True)
        return
    import numpy as np
    from _harness import environment, fmt_bytes, fmt_time, table, verdict
    from _out_of_core import spawn

    print(__doc__.split("\n")[0])
    print(environment())
    directory = args.dir or tempfile.mkdtemp(prefix="bench-tall-")
    path = os.path.join(directory, f"x-{args.rows}x{args.cols}-{args.blocks}.zarr")
    try:
        write_input(path, args.rows, args.cols, args.blocks)
        nbytes = args.rows * args.cols * 8
        print(f"input: {args.rows} x {args.cols} float64, {args.blocks} row blocks, "
              f"{fmt_bytes(nbytes)}; Dask threaded scheduler, {args.workers} workers")  # fmt: skip
        only = [w.strip() for w in args.only.split(",") if w.strip()]
        names = [n for n in ROWS if n == REFERENCE or not only or any(w in n for w in only)]
        results = {}
        for name in names:
            results[name] = spawn(os.path.abspath(__file__), name, path, args.workers, False)
            r = results[name]
            print(f"  {name:38s} {fmt_time(r['time']):>8s}  peak RSS {fmt_bytes(r['maxrss'])}",
                  flush=True)  # fmt: skip
        want = numpy_digests(path)
        reference = results[REFERENCE]["maxrss"]
        rows = []
        for name in names:
            r = results[name]
            got, expected = np.asarray(r["value"]), want[name]
            scale = max(1.0, float(np.max(np.abs(expected)))) if expected.size else 1.0
            same = got.shape == expected.shape and bool(
                np.allclose(got, expected, rtol=1e-8, atol=1e-10 * scale)
            )
            ratio = r["maxrss"] / reference
            rows.append([name, fmt_bytes(r["maxrss"]), f"{ratio:.2f}", fmt_time(r["time"]),
                         "yes" if same else "NO", verdict(ratio <= 1.25 and same)])  # fmt: skip
        print()
        print(table(["row", "peak RSS", "/ TSQR's", "time", "= NumPy", "<= 1.25x, NumPy's values"],
                    rows, "lrrrll"))  # fmt: skip
    finally:
        if not args.dir:
            shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
