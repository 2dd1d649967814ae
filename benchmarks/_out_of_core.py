"""The out-of-core job shared by ``bench_out_of_core.py`` and ``bench_cluster.py``.

The canonical out-of-core job, centring the columns of an on-disk array and
summing the squares (dask/dask#874), written four ways:

- ``strict_array``, the natural form (one expression; the planner reads ``x`` in
  two streaming passes by itself)::

      x = xp.from_zarr(path)
      m = xp.mean(x, axis=0)
      z = xp.subtract(x, m, broadcast_dimensions=(1,))
      s = xp.sum(z * z, axis=0)

- ``strict_array``, two passes by hand (``m`` computed first and moved back);
- ``dask.array``, the natural form (``x - x.mean(axis=0)``, one graph: it holds
  the whole of ``x`` in memory, dask/dask#874);
- ``dask.array``, two passes by hand.

Each contender runs in a fresh subprocess (so its peak RSS, ``VmHWM``, is its
own) with the glibc allocator settings of :data:`MALLOC_ENV`, and prints one
``RESULT {json}`` line.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

CHUNK_ROWS = 131072
COLS = 64  # 131072 x 64 float64 = 64 MiB per chunk

#: glibc malloc settings, read only at process start (hence the subprocesses):
#: - MMAP_THRESHOLD_ 64 KiB: every buffer >= 64 KiB (all chunk-sized arrays) is its own
#:   mmap and goes back to the OS on free. Setting it also turns off glibc's dynamic
#:   threshold, which otherwise rises to 32 MiB after the first large free and then
#:   serves chunk-sized buffers from the heap, where fragmentation keeps them resident.
#: - TRIM_THRESHOLD_ 64 KiB: trim free memory at the top of the heap beyond 64 KiB.
#: - MMAP_MAX_ 65536: glibc's default cap on simultaneous mmaps, stated explicitly so
#:   the threshold above is never silently disabled by MMAP_MAX_=0.
#: - ARENA_MAX 4: at most 4 malloc arenas (instead of 8 per core) for the worker
#:   threads, so freed memory is not stranded in many per-thread arenas.
MALLOC_ENV = {
    "MALLOC_MMAP_THRESHOLD_": "65536",
    "MALLOC_TRIM_THRESHOLD_": "65536",
    "MALLOC_MMAP_MAX_": "65536",
    "MALLOC_ARENA_MAX": "4",
}

CONTENDERS = (
    "strict_array, natural",
    "strict_array, two passes by hand",
    "dask.array, natural (one graph)",
    "dask.array, two passes by hand",
)


def write_input(path: str, gib: float) -> tuple[int, int]:
    """A (rows, COLS) float64 standard-normal Zarr at ``path``, uncompressed, in row
    blocks of CHUNK_ROWS; kept if it already has that shape and chunking."""
    import dask
    import dask.array as da
    import zarr

    rows = max(CHUNK_ROWS, int(gib * 2**30 // (8 * COLS)) // CHUNK_ROWS * CHUNK_ROWS)
    if os.path.exists(path):
        z = zarr.open_array(path, mode="r")
        if z.shape == (rows, COLS) and z.chunks == (CHUNK_ROWS, COLS):
            return (rows, COLS)
    z = zarr.create_array(
        store=path,
        shape=(rows, COLS),
        chunks=(CHUNK_ROWS, COLS),
        dtype="float64",
        compressors=None,
        overwrite=True,
    )
    x = da.random.default_rng(0).standard_normal((rows, COLS), chunks=(CHUNK_ROWS, COLS))
    with dask.config.set(scheduler="threads", num_workers=2):
        da.store(x, z, lock=False)
    return (rows, COLS)


# --- the four forms (run inside the child) ----------------------------------------------
def strict_natural(path: str) -> Any:
    import numpy as np

    import strict_array as xp

    x = xp.from_zarr(path)
    m = xp.mean(x, axis=0)
    z = xp.subtract(x, m, broadcast_dimensions=(1,))
    s = xp.sum(z * z, axis=0)
    return np.asarray(s)


def strict_by_hand(path: str) -> Any:
    import numpy as np

    import strict_array as xp

    x = xp.from_zarr(path)
    m = xp.asarray(xp.mean(x, axis=0).to_device(xp.CPU), device=xp.DASK)  # pass 1
    z = xp.subtract(x, m, broadcast_dimensions=(1,))
    return np.asarray(xp.sum(z * z, axis=0))  # pass 2


def dask_natural(path: str) -> Any:
    import dask.array as da

    x = da.from_zarr(path)
    z = x - x.mean(axis=0)
    return (z * z).sum(axis=0).compute()


def dask_by_hand(path: str) -> Any:
    import dask.array as da

    x = da.from_zarr(path)
    m = x.mean(axis=0).compute()  # pass 1
    z = x - m
    return (z * z).sum(axis=0).compute()  # pass 2


FORMS: dict[str, Callable[[str], Any]] = dict(
    zip(CONTENDERS, (strict_natural, strict_by_hand, dask_natural, dask_by_hand))
)


# --- the workload classes: natural code, written once for both namespaces -------------
def _mean0(ns: Any, a: Any) -> Any:
    return ns.mean(a, axis=0, keepdims=True)


def _t(ns: Any, a: Any) -> Any:
    return ns.permute_dims(a, (1, 0))


def _correlation(ns: Any, a: Any, b: Any) -> Any:
    return _t(ns, a - _mean0(ns, a)) @ (b - _mean0(ns, b))


def _softmax(ns: Any, x: Any) -> Any:
    e = ns.exp(x - ns.max(x, axis=0, keepdims=True))
    return e / ns.sum(e, axis=0, keepdims=True)


def _twice_centred(ns: Any, x: Any) -> Any:
    c = x - _mean0(ns, x)
    return c - _mean0(ns, c) - ns.mean(c, axis=1, keepdims=True)


def _row_then_column(ns: Any, x: Any) -> Any:
    r = x - ns.mean(x, axis=1, keepdims=True)
    return r - _mean0(ns, r)


def _kmeans_step(ns: Any, x: Any) -> Any:
    centres = x[:3]
    d = ns.sum((x[:, None, :] - centres[None, :, :]) ** 2, axis=2)
    onehot = ns.astype(d == ns.min(d, axis=1, keepdims=True), ns.float64)  # nearest centre
    return (_t(ns, onehot) @ x) / _t(ns, ns.sum(onehot, axis=0, keepdims=True))


def _least_squares(ns: Any, x: Any) -> Any:
    a, y = x[:, 1:], x[:, :1]
    c, yc = a - _mean0(ns, a), y - _mean0(ns, y)
    beta = ns.linalg.solve(_t(ns, c) @ c, _t(ns, c) @ yc)
    r = yc - c @ beta
    return ns.sum(r * r, axis=0)


#: name -> (levels of dependency between the statistics, workload of (namespace, x));
#: a large result is reduced to its column sums at the end (a value to compare, not a
#: large array in the process), which adds no level
WORKLOADS: dict[str, tuple[int, Callable[[Any, Any], Any]]] = {
    "z-score": (1, lambda ns, x: (x - _mean0(ns, x)) / ns.std(x, axis=0, keepdims=True)),
    "min/max scaling": (
        1,
        lambda ns, x: (
            (x - ns.min(x, axis=0, keepdims=True))
            / (ns.max(x, axis=0, keepdims=True) - ns.min(x, axis=0, keepdims=True))
        ),
    ),
    "column softmax": (2, _softmax),
    "twice-centred residuals": (2, _twice_centred),
    "row statistic, then column": (1, _row_then_column),
    "k-means step": (1, _kmeans_step),
    "covariance": (1, lambda ns, x: _correlation(ns, x, x) / (x.shape[0] - 1)),
    "Gram matrix": (0, lambda ns, x: _t(ns, x) @ x),
    "correlation with a flip": (1, lambda ns, x: _correlation(ns, x, ns.flip(x, axis=0))),
    "correlation with a slice": (1, lambda ns, x: _correlation(ns, x[1:], x[:-1])),
    "least squares, residuals": (2, _least_squares),
}

#: a workload's contenders: strict_array's natural code (planned), raw Dask's (one
#: graph), and one streaming read of the input (raw Dask's column sums)
WORKLOAD_CONTENDERS = ("strict_array", "dask.array", "one read")


def _summed(ns: Any, out: Any) -> Any:
    return ns.sum(out, axis=0) if out.ndim == 2 and out.shape[0] > 256 else out


def run_workload(contender: str, path: str) -> tuple[Any, dict[str, Any]]:
    """``contender`` is ``"<workload>|<one of WORKLOAD_CONTENDERS>"``: its value and
    figures (the number of passes for strict_array)."""
    import dask
    import dask.array as da
    import numpy as np

    name, who = contender.split("|")
    _, make = WORKLOADS[name]
    if who == "one read":
        return da.from_zarr(path).sum(axis=0).compute(), {}
    if who == "dask.array":
        import array_api_compat.dask.array as dxp

        out = _summed(dxp, make(dxp, da.from_zarr(path)))
        return dask.compute(out)[0], {}
    import strict_array as xp

    out = _summed(xp, make(xp, xp.from_zarr(path)))
    passes = int(xp.compute_plan(out).split()[1])  # "Plan: 2 passes ..."
    return np.asarray(out), {"passes": passes}


# --- the child ---------------------------------------------------------------------------
class ClusterProbe:
    """Samples a ``LocalCluster``'s workers while a contender runs: peak RSS per worker
    process (psutil, every 20 ms), bytes spilled to disk (the ``SpillBuffer``'s
    cumulative ``("disk-write", "bytes")`` metric, every 0.5 s, so the count of a worker
    that is later restarted is kept), and the worker pids seen (restarts = new pids)."""

    def __init__(self, client: Any, n_workers: int) -> None:
        import psutil

        self.client, self.n_workers = client, n_workers
        self.me = psutil.Process()
        self.peaks: dict[int, int] = {}
        self.spilled: dict[int, float] = {}
        self.pids: set[int] = set()
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=f, daemon=True) for f in (self._rss, self._spill)]

    @staticmethod
    def _spill_of(dask_worker: Any) -> tuple[int, float]:
        metrics = getattr(dask_worker.data, "cumulative_metrics", {})
        return os.getpid(), float(metrics.get(("disk-write", "bytes"), 0.0))

    def _sample_spill(self) -> None:
        for pid, b in self.client.run(self._spill_of).values():
            self.pids.add(pid)
            self.spilled[pid] = max(self.spilled.get(pid, 0.0), b)

    def _rss(self) -> None:
        import psutil

        while not self.stop.is_set():
            for p in self.me.children(recursive=True):
                try:
                    rss = p.memory_info().rss
                except psutil.Error:
                    continue
                self.peaks[p.pid] = max(self.peaks.get(p.pid, 0), rss)
            self.stop.wait(0.02)

    def _spill(self) -> None:
        while not self.stop.is_set():
            try:
                self._sample_spill()
            except Exception:  # a worker restarting
                pass
            self.stop.wait(0.5)

    def __enter__(self) -> ClusterProbe:
        self._sample_spill()
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        time.sleep(0.6)
        self.stop.set()
        for t in self.threads:
            t.join()
        self._sample_spill()

    def figures(self) -> dict[str, Any]:
        peaks = sorted((self.peaks.get(pid, 0) for pid in self.pids), reverse=True)
        return {
            "spilled": sum(self.spilled.values()),
            "restarts": max(0, len(self.pids) - self.n_workers),
            "worker_peaks": peaks,
        }


@contextlib.contextmanager
def local_cluster(memory_limit: str) -> Iterator[Any]:
    """A ``Client`` of a ``LocalCluster`` of 2 worker processes of 1 thread and
    ``memory_limit`` each (the benchmarks' cluster)."""
    from distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            memory_limit=memory_limit,
            processes=True,
            dashboard_address=None,
        ) as lc,
        Client(lc) as client,
    ):
        yield client


def child(contender: str, path: str, workers: int, cluster: bool) -> dict[str, Any]:
    """Run one contender (in this fresh process) and return its figures."""
    import resource

    import dask
    import numpy as np
    from _harness import maxrss_bytes

    import strict_array as xp

    out: dict[str, Any] = {}
    if "|" in contender:  # a workload class
        if contender.endswith("|dask.array"):  # the one graph may hold the whole input
            # (a shared machine: beyond this address space the child fails alone)
            limit = int(os.environ.get("BENCH_DASK_ADDRESS_SPACE", str(12 * 2**30)))
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        dask.config.set(scheduler="threads", num_workers=workers)
        with xp.progress(False):
            t0 = time.perf_counter()
            try:
                value, figures = run_workload(contender, path)
            except MemoryError:
                value, figures = np.full(1, np.nan), {"memory_error": True}
            out["time"] = time.perf_counter() - t0
        out.update(figures)
        out["value"] = np.asarray(value, dtype=np.float64).ravel().tolist()
        out["maxrss"] = maxrss_bytes()
        return out
    form = FORMS[contender]
    with xp.progress(False):
        if cluster:
            with local_cluster("1GiB") as client:
                with ClusterProbe(client, 2) as probe:
                    t0 = time.perf_counter()
                    value = form(path)
                    out["time"] = time.perf_counter() - t0
                out.update(probe.figures())
        else:
            dask.config.set(scheduler="threads", num_workers=workers)
            t0 = time.perf_counter()
            value = form(path)
            out["time"] = time.perf_counter() - t0
    value = np.asarray(value, dtype=np.float64)
    out["value"] = value.tolist()
    out["maxrss"] = maxrss_bytes()
    return out


def spawn(script: str, contender: str, path: str, workers: int, cluster: bool) -> dict[str, Any]:
    """Run ``script --run contender ...`` in a fresh subprocess; its RESULT dict."""
    env = {**os.environ, **{k: v for k, v in MALLOC_ENV.items() if k not in os.environ}}
    env["PYTHONWARNINGS"] = "ignore"
    cmd = [sys.executable, script, "--run", contender, "--path", path, "--workers", str(workers)]
    proc = subprocess.run(
        cmd + (["--cluster"] if cluster else []), env=env, capture_output=True, text=True
    )
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT ") :])
    raise RuntimeError(f"{contender} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")


def run_child_if_asked(args: Any) -> bool:
    """In the child (``--run``): run it, print RESULT, and say so."""
    if not args.run:
        return False
    out = child(args.run, args.path, args.workers, args.cluster)
    print("RESULT " + json.dumps(out), flush=True)
    return True


def rotating(repeats: int, names: tuple[str, ...]) -> list[str]:
    """``repeats`` rounds of ``names``, each round starting one later (interleaved)."""
    return [names[(r + i) % len(names)] for r in range(repeats) for i in range(len(names))]


def agree(values: dict[str, list[float]], rtol: float = 1e-9) -> dict[str, bool]:
    """Whether each contender's result matches raw Dask's one-graph result."""
    import numpy as np

    ref = np.asarray(values["dask.array, natural (one graph)"])
    return {k: bool(np.allclose(np.asarray(v), ref, rtol=rtol, atol=0)) for k, v in values.items()}


def parse_args(doc: str, default_gib: float, default_repeats: int = 1) -> Any:
    """The command line shared by the two scripts (``--run`` and the rest: the child)."""
    import argparse

    from _harness import add_results_option

    p = argparse.ArgumentParser(description=doc.split("\n")[0])
    p.add_argument(
        "--gib", type=float, default=default_gib, help=f"Zarr input size ({default_gib:g})"
    )
    p.add_argument("--dir", default=None, help="keep the input here (default: a temp dir)")
    p.add_argument("--repeats", type=int, default=default_repeats, help="rounds (1)")
    p.add_argument("--workers", type=int, default=2, help="threads, threaded scheduler (2)")
    p.add_argument(
        "--job",
        choices=("canonical", "workloads", "both"),
        default="canonical",
        help="the canonical job, the workload classes, or both (canonical)",
    )
    p.add_argument(
        "--only", default="", help="workload classes whose names contain one of these (a,b)"
    )
    p.add_argument("--run", help=argparse.SUPPRESS)
    p.add_argument("--path", help=argparse.SUPPRESS)
    p.add_argument("--cluster", action="store_true", help=argparse.SUPPRESS)
    add_results_option(p)
    return p.parse_args()


def header(doc: str, name: str, *extra: str) -> Any:
    """The first lines of a report: what, versions, planner threshold; returns the
    run's :class:`_harness.Results` named ``name`` (its file's name)."""
    import dask
    from _harness import Results

    import strict_array as xp

    results = Results(name)
    print(doc.split("\n")[0])
    print(results.environment)
    threshold = dask.config.get("strict_array.planning-threshold", "256 MiB (default)")
    print(f"strict_array {xp.__version__}; planner threshold {threshold}")
    print("allocator (subprocesses): " + " ".join(f"{k}={v}" for k, v in MALLOC_ENV.items()))
    for line in extra:
        print(line)
    return results


def warm_page_cache(path: str) -> None:
    """Read every file of the store once, so that no contender pays the first read
    from disk (the input fits in the page cache: the runs measure decode + compute)."""
    for root, _, files in os.walk(path):
        for name in files:
            with open(os.path.join(root, name), "rb") as f:
                while f.read(1 << 24):
                    pass


class Input:
    """The Zarr input in ``--dir`` (kept) or a temporary directory (removed on exit)."""

    def __init__(self, directory: str | None, gib: float) -> None:
        import tempfile

        self.keep = directory is not None
        self.parent = directory or tempfile.mkdtemp(prefix="strict_array_bench_")
        self.gib = gib

    def __enter__(self) -> tuple[str, int]:
        from _harness import fmt_bytes, fmt_time

        os.makedirs(self.parent, exist_ok=True)
        path = os.path.join(self.parent, f"plan-x-{self.gib:g}gib.zarr")
        t0 = time.perf_counter()
        shape = write_input(path, self.gib)
        nbytes = shape[0] * shape[1] * 8
        warm_page_cache(path)
        print(
            f"\ninput {path}: {shape} float64 = {fmt_bytes(nbytes)} in {shape[0] // CHUNK_ROWS} "
            f"chunks of {fmt_bytes(CHUNK_ROWS * COLS * 8)} (ready in "
            f"{fmt_time(time.perf_counter() - t0)})"
        )
        return path, nbytes

    def __exit__(self, *exc: object) -> None:
        if not self.keep:
            import shutil

            shutil.rmtree(self.parent, ignore_errors=True)
