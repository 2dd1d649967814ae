"""Out-of-core throughput and memory: per-column standardisation of an on-disk Zarr array.

Run: ``python benchmarks/bench_out_of_core.py [--gib 0.25] [--numpy-gib 0.25] [--dir DIR]``
(by hand: ``--gib 8 --numpy-gib 1``, or more). The script re-executes itself once with
the glibc allocator settings below if they are not already in the environment.

The work, on x (rows, cols) float64 stored as Zarr in row blocks of ``--chunk-mib``
(64 MiB), generated lazily (``dask.array.random.default_rng``) and streamed to disk
with ``strict_array.to_zarr``:

    mean = mean(x, axis=0); std = std(x, axis=0)          # (cols,) each
    z = (x - mean) / std                                    # explicit broadcast_dimensions=(1,)
    result = sum(z * z)

Contenders, interleaved in one run (``--repeats`` rounds, rotating order):

- ``strict_array``: ``xp.from_zarr``, then the two statistics in ONE pass (``xp.stack``
  of the two reductions, moved to ``xp.CPU``: one computation, so the chunks of x are
  read once for both), back to ``xp.DASK`` with ``xp.asarray(..., device=xp.DASK)``, then
  ``xp.subtract(x, mean, broadcast_dimensions=(1,))``, ``xp.divide(...)``,
  ``xp.sum(z * z)``: a second pass.
- ``dask.array``: the same two passes written by hand (``dask.compute(x.mean(0),
  x.std(0))``, then ``((x - mean) / std)`` with the NumPy statistics, ``.sum()``).
- ``numpy``: the same on an in-memory array of ``--numpy-gib`` (generated before each
  run, not timed; its memory is part of that run's peak RSS).

Why two passes (dask/dask#874): written as one graph, ``x - mean(x, axis=0)`` needs the
complete reduction before the first subtraction, and Dask never recomputes a chunk, so
every chunk of x read for the mean stays in memory until the subtraction consumes it:
the whole of x is held. Computing the small statistics first (here: moving them to
``xp.CPU``; ``persist`` works too) and then streaming x a second time costs one more
read of x but keeps memory bounded by a few chunks per worker. ``--trap`` also runs
the one-graph form (strict_array, once, last) to show its peak RSS.

Reported: wall time, throughput = input bytes / wall time in GB/s (1e9 B/s; the input
is counted once though it is read twice), peak RSS of the process tree (this process
and its children, sampled every 10 ms by a psutil thread, maximum over the rounds).
Targets: strict_array >= 0.9x dask.array throughput; peak RSS <= 1 GiB. Time: the median
of the rounds (few, long runs). Note: the Zarr data was just written, so it is
probably in the OS page cache; this measures decoding and compute, not the disk.

Scheduler: Dask's threaded scheduler with ``--workers`` threads (default 2).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

#: glibc malloc settings, read only at process start (hence the re-exec):
#: - MMAP_THRESHOLD_ 64 KiB: every buffer >= 64 KiB (all chunk-sized arrays) is its own
#:   mmap and goes back to the OS on free. Setting it also turns off glibc's dynamic
#:   threshold, which otherwise rises to 32 MiB after the first large free and then
#:   serves chunk-sized buffers from the heap, where fragmentation keeps them resident.
#: - TRIM_THRESHOLD_ 64 KiB: trim free memory at the top of the heap beyond 64 KiB
#:   (also fixed, not dynamic).
#: - MMAP_MAX_ 65536: glibc's default cap on simultaneous mmaps, stated explicitly so
#:   the threshold above is never silently disabled by MMAP_MAX_=0.
#: - ARENA_MAX 4: at most 4 malloc arenas (instead of 8 per core) for Dask/Zarr worker
#:   threads, so freed memory is not stranded in many per-thread arenas.
MALLOC_ENV = {
    "MALLOC_MMAP_THRESHOLD_": "65536",
    "MALLOC_TRIM_THRESHOLD_": "65536",
    "MALLOC_MMAP_MAX_": "65536",
    "MALLOC_ARENA_MAX": "4",
}
_REEXEC_MARK = "STRICT_ARRAY_BENCH_REEXEC"


def ensure_malloc_env(enabled: bool = True) -> dict[str, str]:
    """Re-exec this script once with MALLOC_ENV added (values already set are kept)."""
    missing = {k: v for k, v in MALLOC_ENV.items() if k not in os.environ}
    if enabled and missing and os.environ.get(_REEXEC_MARK) != "1":
        env = {**os.environ, **missing, _REEXEC_MARK: "1"}
        sys.stdout.flush()
        os.execve(sys.executable, [sys.executable, os.path.abspath(__file__), *sys.argv[1:]], env)
    return {k: os.environ.get(k, "(unset)") for k in MALLOC_ENV}


def write_input(path: str, gib: float, cols: int, chunk_mib: float, compress: bool) -> tuple:
    import dask.array as da
    import zarr

    import strict_array as xp

    chunk_rows = max(1, int(chunk_mib * 2**20 // (8 * cols)))
    rows = max(chunk_rows, int(gib * 2**30 // (8 * cols)) // chunk_rows * chunk_rows)
    z = zarr.create_array(
        store=path,
        shape=(rows, cols),
        chunks=(chunk_rows, cols),
        dtype="float64",
        **({} if compress else {"compressors": None}),
    )
    x = da.random.default_rng(0).random((rows, cols), chunks=(chunk_rows, cols))
    t0 = time.perf_counter()
    xp.to_zarr(xp.asarray(x), z)
    return (rows, cols), chunk_rows, time.perf_counter() - t0


def run_strict(path: str) -> float:
    import strict_array as xp

    x = xp.from_zarr(path)
    stats = xp.stack([xp.mean(x, axis=0), xp.std(x, axis=0)]).to_device(xp.CPU)  # pass 1
    mean = xp.asarray(stats[0, :], device=xp.DASK)
    std = xp.asarray(stats[1, :], device=xp.DASK)
    z = xp.divide(xp.subtract(x, mean, broadcast_dimensions=(1,)), std, broadcast_dimensions=(1,))
    return float(xp.sum(z * z))  # pass 2


def run_dask(path: str) -> float:
    import dask
    import dask.array as da

    x = da.from_zarr(path)
    mean, std = dask.compute(x.mean(axis=0), x.std(axis=0))  # pass 1
    z = (x - mean) / std
    return float((z * z).sum().compute())  # pass 2


def run_trap(path: str) -> float:
    import strict_array as xp

    x = xp.from_zarr(path)
    z = xp.divide(
        xp.subtract(x, xp.mean(x, axis=0), broadcast_dimensions=(1,)),
        xp.std(x, axis=0),
        broadcast_dimensions=(1,),
    )
    return float(xp.sum(z * z))  # one graph: x stays in memory


def make_numpy_run(shape: tuple[int, int]):
    import numpy as np

    def run() -> tuple[float, float]:
        x = np.random.default_rng(0).random(shape)  # not timed
        t0 = time.perf_counter()
        mean, std = x.mean(axis=0), x.std(axis=0)
        z = (x - mean) / std
        value = float((z * z).sum())
        return value, time.perf_counter() - t0

    return run


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--gib", type=float, default=0.25, help="size of the Zarr input (0.25)")
    p.add_argument("--numpy-gib", type=float, default=0.25, help="in-memory NumPy size (0.25)")
    p.add_argument("--cols", type=int, default=2048, help="columns of x (2048)")
    p.add_argument("--chunk-mib", type=float, default=64, help="MiB per row block (64)")
    p.add_argument("--compress", action="store_true", help="Zarr's default compressor")
    p.add_argument("--dir", default=None, help="parent directory for the temporary Zarr store")
    p.add_argument("--repeats", type=int, default=3, help="rounds of the contenders (3)")
    p.add_argument("--workers", type=int, default=2, help="threads of the Dask scheduler (2)")
    p.add_argument("--trap", action="store_true", help="also run the one-graph form once")
    p.add_argument(
        "--no-malloc-env",
        action="store_true",
        help="do not re-exec with the allocator settings (for comparison)",
    )
    args = p.parse_args()
    malloc = ensure_malloc_env(not args.no_malloc_env)

    import dask
    from _harness import RSSSampler, environment, fmt_bytes, fmt_time, table, verdict

    import strict_array as xp

    dask.config.set(scheduler="threads", num_workers=args.workers)
    print(__doc__.split("\n")[0])
    print(environment())
    print("allocator: " + " ".join(f"{k}={v}" for k, v in malloc.items()))
    print(f"Dask threaded scheduler, {args.workers} workers\n")

    tmp = tempfile.mkdtemp(prefix="strict_array_bench_", dir=args.dir)
    try:
        path = os.path.join(tmp, "x.zarr")
        shape, chunk_rows, t_write = write_input(
            path, args.gib, args.cols, args.chunk_mib, args.compress
        )
        nbytes = shape[0] * shape[1] * 8
        print(
            f"input: {path}  shape {shape} float64 = {fmt_bytes(nbytes)}, "
            f"{shape[0] // chunk_rows} chunks of {chunk_rows} rows "
            f"({fmt_bytes(chunk_rows * shape[1] * 8)}), "
            f"{'compressed' if args.compress else 'uncompressed'}; written in "
            f"{fmt_time(t_write)} ({nbytes / t_write / 1e9:.2f} GB/s)"
        )
        np_rows = max(1, int(args.numpy_gib * 2**30 // (8 * args.cols)))
        np_bytes = np_rows * args.cols * 8
        numpy_run = make_numpy_run((np_rows, args.cols))

        def timed(fn):
            def run() -> tuple[float, float]:
                t0 = time.perf_counter()
                value = fn(path)
                return value, time.perf_counter() - t0

            return run

        contenders = {
            "dask.array": timed(run_dask),
            "strict_array": timed(run_strict),
            "numpy (in memory)": numpy_run,
        }
        times: dict[str, list[float]] = {k: [] for k in contenders}
        peaks = dict.fromkeys(contenders, 0)
        values = {}
        names = list(contenders)
        with xp.progress(False):
            for r in range(args.repeats):
                for k in names[r % len(names) :] + names[: r % len(names)]:
                    with RSSSampler(interval=0.01) as s:
                        values[k], t = contenders[k]()
                    times[k].append(t)
                    peaks[k] = max(peaks[k], s.peak)
                    print(
                        f"  round {r + 1}: {k:18s} {fmt_time(t):>8s}  peak RSS "
                        f"{fmt_bytes(s.peak)} (at start {fmt_bytes(s.baseline)})",
                        flush=True,
                    )
            if args.trap:
                with RSSSampler(interval=0.01) as s:
                    values["trap"], t = timed(run_trap)()
                times["strict_array, one graph (trap)"] = [t]
                peaks["strict_array, one graph (trap)"] = s.peak
        assert abs(values["strict_array"] - values["dask.array"]) <= 1e-6 * values["dask.array"]

        med = {k: statistics.median(v) for k, v in times.items()}
        gbs = {k: (np_bytes if k.startswith("numpy") else nbytes) / t / 1e9 for k, t in med.items()}
        base = gbs["dask.array"]
        rows = []
        for k in times:
            size = np_bytes if k.startswith("numpy") else nbytes
            ok = None
            if k == "strict_array":
                ok = gbs[k] / base >= 0.9 and peaks[k] <= 2**30
            rows.append(
                [
                    k,
                    fmt_bytes(size),
                    fmt_time(med[k]),
                    f"{gbs[k]:.2f}",
                    f"{gbs[k] / base:.2f}x",
                    fmt_bytes(peaks[k]),
                    verdict(ok),
                ]
            )
        print()
        print(
            table(
                [
                    "contender",
                    "input",
                    "time (median)",
                    "GB/s",
                    "vs dask.array",
                    "peak RSS",
                    "target >=0.9x, <=1 GiB",
                ],
                rows,
                "lrrrrrl",
            )
        )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
