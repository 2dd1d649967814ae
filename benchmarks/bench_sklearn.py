"""scikit-learn's own estimators and metrics on a Zarr input larger than memory, through DASK.

Each row of ``_sklearn_rows.py`` (every estimator and metric scikit-learn declares
array-API support for) runs on strict_array's ``DASK`` arrays read from an on-disk
Zarr store (``xp.from_zarr``) and, side by side, on NumPy arrays in memory (the same
store read into memory first); with ``--cluster`` also on a ``dask.distributed``
``LocalCluster`` (2 workers of 2 GiB each). Each contender runs in a fresh
subprocess, so that its peak RSS is its own. Columns:

- peak RSS and time of each contender (NumPy's includes reading the store);
- passes: reads of ``X`` by the DASK run (tasks of the Zarr layer over its blocks);
- ``/read``: the DASK time over (passes x one streaming read of X, measured first);
- same: the DASK values against NumPy's (``rtol`` of the row: 1e-9 where the algorithm
  is the same) and the largest relative difference.

Run from the repository root: ``python benchmarks/bench_sklearn.py --gib 2`` (about 20
minutes), ``--gib 8 --dir DIR`` (the store is kept in DIR), ``--rows PCA,Ridge`` for
some rows, ``--cluster`` (``--cluster-only``: there alone; the client's peak RSS beside
the workers'); ``--persist`` instead times each row on DASK arrays persisted in
memory against NumPy's arrays loaded first (the iterative rows' target: within 3x of
NumPy); ``--floor`` instead runs scikit-learn's own steps that leave the namespace for
NumPy in memory (``_sklearn_rows.FLOORS``) alone on NumPy labels: the memory they add
is a floor under the rows that make them, whatever the namespace; ``--per-block`` times
the iterative rows' arithmetic on one block of X against the CPU time of reading it
(the least ``/read`` their passes can take). NumPy's contender runs under an
address-space limit (``BENCH_NUMPY_ADDRESS_SPACE``, bytes; 20 GiB): beyond it, it fails
alone (shown as "MemoryError").
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
import warnings
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _sklearn_rows as rows
from _harness import environment, fmt_bytes, fmt_time, maxrss_bytes, table
from _out_of_core import MALLOC_ENV, ClusterProbe, local_cluster, warm_page_cache

CHUNK_ROWS = 262_144  # x 32 float64 columns = 64 MiB per block of X
POLICY = {"sklearn": "allow", "scipy": "allow", "array_api_extra": "allow"}


# --- the input ---------------------------------------------------------------------------
def write_input(path: str, gib: float) -> int:
    """A Zarr group at ``path``: ``X`` (n x 32 float64, standard normal) and every vector of
    :class:`_sklearn_rows.Data`, in blocks of CHUNK_ROWS rows; kept if it has that size."""
    import dask
    import dask.array as da
    import zarr

    n = max(CHUNK_ROWS, int(gib * 2**30 // (8 * rows.FEATURES)) // CHUNK_ROWS * CHUNK_ROWS)
    marker = os.path.join(path, f"done-{n}")
    if os.path.exists(marker):
        return n
    rng = da.random.default_rng(0)
    X = rng.standard_normal((n, rows.FEATURES), chunks=(CHUNK_ROWS, -1))
    noise = rng.standard_normal((n, 4), chunks=(CHUNK_ROWS, -1))
    arrays = rows.derived(da, X, noise)
    group = zarr.open_group(path, mode="w")
    targets = []
    for name, a in arrays.items():
        chunks = (CHUNK_ROWS, *a.shape[1:])
        targets.append(
            group.create_array(
                name, shape=a.shape, chunks=chunks, dtype="float64", compressors=None
            )
        )
    with dask.config.set(scheduler="threads", num_workers=2):
        da.store([a.astype("float64") for a in arrays.values()], targets, lock=False)
    open(marker, "w").close()
    return n


def load(path: str, device: str) -> rows.Data:
    """The input as strict DASK arrays (lazy, read block by block) or NumPy arrays."""

    if device == "numpy":
        return _InMemory(path_group(path))  # type: ignore[return-value]
    import strict_array as xp

    return rows.Data(
        **{name: xp.from_zarr(path, component=name) for name in rows.Data.__dataclass_fields__}
    )


def path_group(path: str) -> Any:
    import zarr

    return zarr.open_group(path, mode="r")


class _InMemory:
    """The inputs as NumPy arrays, each read into memory when a row first uses it (a
    metric of two vectors does not read X)."""

    def __init__(self, group: Any) -> None:
        self._group = group

    def __getattr__(self, name: str) -> np.ndarray:
        if name not in rows.Data.__dataclass_fields__:
            raise AttributeError(name)
        value = self._group[name][...]
        setattr(self, name, value)
        return value


# --- one contender, in its own process ----------------------------------------------------
class _Reads:
    """Counts the blocks of X read from the store: calls of ``zarr.Array.__getitem__`` on
    X (Dask fuses the read tasks into the tasks that use them, so a scheduler callback
    would not see them)."""

    def __init__(self) -> None:
        import threading

        import zarr

        self.n = 0
        lock = threading.Lock()
        original = zarr.Array.__getitem__

        def counted(array: Any, selection: Any) -> Any:
            if array.shape[1:] == (rows.FEATURES,):
                with lock:
                    self.n += 1
            return original(array, selection)

        zarr.Array.__getitem__ = counted  # (this process only: the child of one row)


def child(row_name: str, path: str, device: str) -> dict[str, Any]:
    import dask

    import strict_array as xp

    warnings.simplefilter("ignore")
    out: dict[str, Any] = {}
    if device == "numpy":
        limit = int(os.environ.get("BENCH_NUMPY_ADDRESS_SPACE", str(20 * 2**30)))
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    xp.set_rank_promotion_policy(POLICY)
    t0 = time.perf_counter()
    try:
        if device == "floor":  # scikit-learn's own NumPy step alone, on NumPy labels
            d = load(path, "numpy")
            for k in ("y_class", "pred_class"):
                getattr(d, k)  # (read before: the step's own memory is what it adds)
            out["before"] = maxrss_bytes()
            t0 = time.perf_counter()
            rows.FLOORS[row_name].run(d)
            values = {}
        elif device == "numpy":
            values = rows.values(_run(row_name, load(path, "numpy")))
        elif device == "cluster":
            with local_cluster("2GiB") as client, ClusterProbe(client, 2) as probe:
                t0 = time.perf_counter()
                values = rows.values(_run(row_name, load(path, "dask")))
            out.update(probe.figures())
        elif device in ("persisted", "numpy loaded"):
            # in memory before the clock starts, on both sides: the fit against the fit
            dask.config.set(scheduler="threads", num_workers=2)
            names = list(rows.Data.__dataclass_fields__)
            if device == "persisted":
                d = load(path, "dask")
                d = rows.Data(**dict(zip(names, xp.persist(*(getattr(d, k) for k in names)))))
            else:
                d = _InMemory(path_group(path))  # type: ignore[assignment]
                for k in names:
                    getattr(d, k)
            with xp.progress(False):
                t0 = time.perf_counter()
                values = rows.values(_run(row_name, d))
        else:
            dask.config.set(scheduler="threads", num_workers=2)
            d = load(path, "dask")
            reads = _Reads()
            cpu = _cpu_seconds()
            with xp.progress(False):
                t0 = time.perf_counter()
                values = rows.values(_run(row_name, d))
            out["cpu"] = _cpu_seconds() - cpu
            out["passes"] = reads.n / d.X._data.numblocks[0]
        out["values"] = {k: v.ravel().tolist() for k, v in values.items()}
    except MemoryError:
        out["error"] = "MemoryError"
    except Exception as e:  # reported in the table, the run goes on
        out["error"] = f"{type(e).__name__}: {str(e)[:200]}"
    out["time"] = time.perf_counter() - t0
    out["maxrss"] = maxrss_bytes()
    return out


def _cpu_seconds() -> float:
    """This process's CPU time so far, user and system, over all its threads: reading a
    store in the page cache is work on the cores (copies, page faults), not waiting."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _run(row_name: str, d: rows.Data) -> dict[str, Any]:
    if row_name == "one read of X":
        return {"sum": rows.namespace_of(d.X).sum(d.X, axis=0)}
    return rows.ROWS[row_name].run(d)


def spawn(row_name: str, path: str, device: str) -> dict[str, Any]:
    env = {**os.environ, **{k: v for k, v in MALLOC_ENV.items() if k not in os.environ}}
    env["PYTHONWARNINGS"] = "ignore"
    cmd = [sys.executable, __file__, "--child", row_name, "--path", path, "--device", device]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT ") :])
    return {
        "error": f"crashed: {proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else proc.returncode}",
        "time": float("nan"),
        "maxrss": 0,
    }


# --- the table ---------------------------------------------------------------------------
def same(row: rows.Row, got: dict[str, Any], want: dict[str, Any]) -> tuple[bool | None, float]:
    if "values" not in got or "values" not in want:
        return None, float("nan")
    worst = 0.0
    ok = got["values"].keys() == want["values"].keys()
    for k, w in want["values"].items():
        g, w = np.asarray(got["values"].get(k, []), float), np.asarray(w, float)
        if g.shape != w.shape:
            return False, float("inf")
        equal = (g == w) | (np.isnan(g) & np.isnan(w))  # (thresholds hold inf; NaN as NaN)
        finite = np.abs(w[np.isfinite(w)])
        scale = max(1.0, float(finite.max(initial=0)))
        diff = float(np.abs(np.where(equal, 0.0, g - w)).max(initial=0)) / scale
        worst = max(worst, diff)
        ok = ok and diff <= row.rtol
    return ok, worst


#: the table's columns of each contender
COLUMNS = {
    "dask": ["DASK peak RSS", "DASK time", "passes", "/read"],
    "cluster": ["cluster time", "client peak", "worker peak", "spilled"],
    "numpy": ["NumPy peak RSS", "NumPy time"],
}


def _columns(device: str, r: dict[str, Any], read_time: float) -> list[str]:
    """The :data:`COLUMNS` of one contender's figures ``r``."""
    took = fmt_time(r["time"]) if "error" not in r else r["error"][:60]
    if device == "dask":
        passes = r.get("passes", float("nan"))
        per_read = r["time"] / (max(passes, 1.0) * read_time)
        return [fmt_bytes(r["maxrss"]), took, f"{passes:.1f}",
                f"{per_read:.2f}" if passes == passes else "-"]  # fmt: skip
    if device == "cluster":
        return [took, fmt_bytes(r["maxrss"]), fmt_bytes(max(r.get("worker_peaks") or [0])),
                fmt_bytes(r.get("spilled", 0))]  # fmt: skip
    return [fmt_bytes(r["maxrss"]), took]


# --- the results file ----------------------------------------------------------------------
def _commit() -> str | None:
    """The short hash of the checkout being measured, when it is a git checkout."""
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, cwd=os.path.dirname(os.path.abspath(__file__)))  # fmt: skip
    except OSError:
        return None
    return out.stdout.strip() or None


def records(
    results: dict[str, dict[str, Any]], gib: float, read_time: float
) -> dict[str, dict[str, Any]]:
    """One record per row and contender of this run, as the results file keeps them: the
    figures a reader decides by (peak memory, passes over ``X``, time, and on the cluster
    the largest worker's peak and the bytes spilled), the size of ``X`` they were measured
    at, whether the values are NumPy's in the same run, and where and when the run was
    made (the machine's load average then: times taken beside other work are longer)."""
    stamp = {"gib": gib, "commit": _commit(), "date": time.strftime("%Y-%m-%d"),
             "load": round(os.getloadavg()[0], 1)}  # fmt: skip
    out: dict[str, dict[str, Any]] = {}
    for name, by_device in results.items():
        want = by_device.get("numpy", {})
        for device, r in by_device.items():
            rec: dict[str, Any] = {**stamp, "maxrss": r.get("maxrss"), "time": r.get("time")}
            if "error" in r:
                rec["error"] = r["error"][:120]
            if device == "dask" and r.get("passes") is not None:
                rec["passes"] = r["passes"]
                if r["passes"] >= 1:  # (a row that does not read X has no time per read)
                    rec["per_read"] = r["time"] / (r["passes"] * read_time)
            if device == "cluster":
                rec["worker_peak"] = max(r.get("worker_peaks") or [0])
                rec["spilled"] = r.get("spilled", 0)
            if device != "numpy":
                ok, worst = same(rows.ROWS[name], r, want)
                rec["same_values"] = ok
                rec["worst_difference"] = None if worst != worst else worst
            out.setdefault(name, {})[device] = rec
    return out


def merge_results(path: str, new: dict[str, dict[str, Any]]) -> None:
    """Put this run's records into the results file at ``path``: a row's contender
    measured again replaces its older record; rows and contenders not run are kept."""
    try:
        with open(path, encoding="utf-8") as f:
            kept = json.load(f)
    except FileNotFoundError:
        kept = {"rows": {}}
    for name, by_device in new.items():
        kept["rows"].setdefault(name, {}).update(by_device)
    kept["rows"] = dict(sorted(kept["rows"].items(), key=lambda kv: _row_order(kv[0])))
    with open(path, "w", encoding="utf-8") as f:
        json.dump(kept, f, indent=1, sort_keys=False)
        f.write("\n")


def _row_order(name: str) -> int:
    order = list(rows.ROWS)
    return order.index(name) if name in order else len(order)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--gib", type=float, default=2.0, help="size of X (2)")
    p.add_argument("--dir", default=None, help="keep the store here (default: a temp dir)")
    p.add_argument("--rows", default="", help="rows whose names contain one of these (a,b)")
    p.add_argument("--cluster", action="store_true", help="also on a LocalCluster")
    p.add_argument(
        "--cluster-only", action="store_true", help="on a LocalCluster, not on one machine"
    )
    p.add_argument("--no-numpy", action="store_true", help="skip NumPy in memory")
    p.add_argument(
        "--persist",
        action="store_true",
        help="instead: the input persisted in memory first against NumPy's loaded first",
    )
    p.add_argument(
        "--floor",
        action="store_true",
        help="instead: scikit-learn's own NumPy steps on the labels, alone (a floor no "
        "namespace can lower)",
    )
    p.add_argument(
        "--per-block",
        action="store_true",
        help="instead: the iterative rows' arithmetic on one block of X, one BLAS thread, "
        "against the CPU time of reading that block",
    )
    p.add_argument("--json", default=None, help="write the figures here too")
    p.add_argument(
        "--results",
        default=None,
        help="merge each row's figures into this results file (the documentation's table "
        "reads benchmarks/results/sklearn.json)",
    )
    p.add_argument("--child", help=argparse.SUPPRESS)
    p.add_argument("--path", help=argparse.SUPPRESS)
    p.add_argument("--device", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        print("RESULT " + json.dumps(child(args.child, args.path, args.device)), flush=True)
        return
    import tempfile

    import dask
    import sklearn

    import strict_array as xp

    print(__doc__.split("\n")[0])
    print(
        f"{environment()}; dask {dask.__version__}; scikit-learn {sklearn.__version__}; strict_array {xp.__version__}"
    )
    parent = args.dir or tempfile.mkdtemp(prefix="strict_array_sklearn_")
    path = os.path.join(parent, f"sklearn-{args.gib:g}gib.zarr")
    n = write_input(path, args.gib)
    warm_page_cache(path)
    print(
        f"input {path}: X {n} x {rows.FEATURES} float64 = {fmt_bytes(n * rows.FEATURES * 8)}, blocks of {CHUNK_ROWS} rows"
    )
    if args.floor:
        return floor_table(path, args)
    wanted = [w for w in args.rows.split(",") if w]
    names = [r for r in rows.ROWS if not wanted or any(w in r for w in wanted)]
    read = spawn("one read of X", path, "dask")
    read_passes = max(read.get("passes", 1.0), 1.0)
    read_time, read_cpu = read["time"] / read_passes, read.get("cpu", float("nan")) / read_passes
    print(
        f"one streaming read of X: {fmt_time(read_time)} ({fmt_time(read_cpu)} of CPU on "
        f"{os.cpu_count()} cores), peak RSS {fmt_bytes(read['maxrss'])}\n"
    )
    if args.persist:
        return persisted_table(names, path, args)
    if args.per_block:
        return per_block_table(read_cpu / (n / CHUNK_ROWS))
    devices = (
        ([] if args.cluster_only else ["dask"])
        + (["cluster"] if args.cluster or args.cluster_only else [])
        + ([] if args.no_numpy else ["numpy"])
    )
    results: dict[str, dict[str, Any]] = {}
    lines = []
    for name in names:
        r = results[name] = {dev: spawn(name, path, dev) for dev in devices}
        line = [name] + [c for dev in devices for c in _columns(dev, r[dev], read_time)]
        # each distributed contender's values against NumPy's (the cluster's, if alone)
        want = r.get("numpy", {})
        checks = [same(rows.ROWS[name], r[dev], want) for dev in devices if dev != "numpy"]
        ok = None if any(c[0] is None for c in checks) else all(c[0] for c in checks)
        worst = max((c[1] for c in checks), default=float("nan"))
        line.append("-" if ok is None else f"{'yes' if ok else 'NO'} ({worst:.1e})")
        lines.append(line)
        print("  " + " | ".join(str(c) for c in line), flush=True)
        if args.results:  # row by row: a run stopped half-way keeps the rows it made
            merge_results(args.results, records({name: r}, args.gib, read_time))
    headers = ["row"] + [h for dev in devices for h in COLUMNS[dev]] + ["same values"]
    print()
    print(table(headers, lines))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                {"gib": args.gib, "n": n, "read_time": read_time, "read_cpu": read_cpu,
                 "results": results},
                f,
            )  # fmt: skip


def persisted_table(names: list[str], path: str, args: Any) -> None:
    """Each row on DASK arrays persisted in memory (``xp.persist``) against NumPy's arrays,
    both in memory before the clock starts: the cost of strict_array and Dask's
    scheduling themselves (the docs' target for iterative rows: within 3x of NumPy)."""
    results: dict[str, dict[str, Any]] = {}
    lines = []
    for name in names:
        r = results[name] = {dev: spawn(name, path, dev) for dev in ("persisted", "numpy loaded")}
        got, want = r["persisted"], r["numpy loaded"]
        ok, worst = same(rows.ROWS[name], got, want)
        failed = "error" in got or "error" in want
        line = [
            name,
            fmt_time(got["time"]) if "error" not in got else got["error"][:60],
            fmt_time(want["time"]) if "error" not in want else want["error"][:40],
            "-" if failed else f"{got['time'] / want['time']:.2f}",
            fmt_bytes(got["maxrss"]),
            fmt_bytes(want["maxrss"]),
            "-" if ok is None else f"{'yes' if ok else 'NO'} ({worst:.1e})",
        ]
        lines.append(line)
        print("  " + " | ".join(str(c) for c in line), flush=True)
    headers = ["row", "persisted DASK time", "NumPy time", "ratio", "DASK peak RSS",
               "NumPy peak RSS", "same values"]  # fmt: skip
    print()
    print(table(headers, lines))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"gib": args.gib, "persist": True, "results": results}, f)


def per_block_table(read_cpu_per_block: float) -> None:
    """The arithmetic each pass of the iterative rows does on a block of X (CHUNK_ROWS x
    32), in NumPy on one BLAS thread (as each Dask thread runs it), against the CPU time
    of reading that block. Reading a store in the page cache is work on the same cores,
    so a pass takes at least the two together: the rows' ``/read`` cannot fall below
    one plus the arithmetic of their passes over the reading."""
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(0)
    x = rng.standard_normal((CHUNK_ROWS, rows.FEATURES))
    coef, grad = rng.standard_normal((rows.FEATURES, 3)), rng.standard_normal((CHUNK_ROWS, 3))
    prec = rng.standard_normal((3, rows.FEATURES, rows.FEATURES))
    resp, means = rng.random(CHUNK_ROWS), rng.standard_normal((3, rows.FEATURES))

    def logsumexp(r: np.ndarray) -> np.ndarray:
        top = r.max(axis=1, keepdims=True)
        return np.log(np.exp(r - top).sum(axis=1)) + top[:, 0]

    kernels = {
        "LogisticRegression: X @ coef (each pass)": lambda: x @ coef,
        "LogisticRegression: log-sum-exp of the n x 3 raw prediction (each pass)": (
            lambda: logsumexp(grad)
        ),
        "LogisticRegression: grad_pointwise.T @ X (one pass a step)": lambda: grad.T @ x,
        "GaussianMixture E-step: X @ prec_chol[k], 3 components": lambda: [x @ p for p in prec],
        "GaussianMixture M-step: (resp[:, k] * diff.T) @ diff, 3 components": (
            lambda: [(resp * (x - m).T) @ (x - m) for m in means]
        ),
    }
    lines = [["reading the block", fmt_time(read_cpu_per_block), "1.00"]]
    with threadpool_limits(limits=1, user_api="blas"):
        for name, kernel in kernels.items():
            kernel()
            t0, runs = time.thread_time(), 0  # (CPU time: the same on a busy machine)
            while time.thread_time() - t0 < 1.0:
                kernel()
                runs += 1
            each = (time.thread_time() - t0) / runs
            lines.append([name, fmt_time(each), f"{each / read_cpu_per_block:.2f}"])
    headers = [f"on a block of {CHUNK_ROWS} x {rows.FEATURES}", "CPU time", "/ reading it"]
    print(table(headers, lines))


def floor_table(path: str, args: Any) -> None:
    """Each of scikit-learn's steps that leave the namespace for NumPy in memory
    (:data:`_sklearn_rows.FLOORS`), alone in a fresh process on the store's labels read
    into NumPy: the peak RSS with the labels in memory, and what the step adds to it. No
    namespace can bring the rows that make the step below what it adds."""
    results = {name: spawn(name, path, "floor") for name in rows.FLOORS}
    lines = [
        [
            name,
            ", ".join(rows.FLOORS[name].rows),
            fmt_bytes(r.get("before", 0)),
            fmt_bytes(r["maxrss"]) if "error" not in r else r["error"][:60],
            "-" if "error" in r else fmt_bytes(r["maxrss"] - r["before"]),
            fmt_time(r["time"]),
        ]
        for name, r in results.items()
    ]
    headers = ["scikit-learn's step, on NumPy", "rows that make it", "labels read",
               "peak RSS", "added by the step", "time"]  # fmt: skip
    print(table(headers, lines))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"gib": args.gib, "floor": True, "results": results}, f)


if __name__ == "__main__":
    main()
