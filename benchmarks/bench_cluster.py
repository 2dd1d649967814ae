"""Out-of-core on a dask.distributed cluster: the natural form of dask/dask#874.

Run: ``python benchmarks/bench_cluster.py [--gib 2] [--dir DIR] [--repeats 1]``. The
input, x (rows, 64) float64 standard normal, uncompressed Zarr in row blocks of 64 MiB
(at least 2 GiB by default), is written to ``--dir`` (default a temporary directory,
removed at the end; with ``--dir`` it is kept and reused).

The job and its four forms are those of ``bench_out_of_core.py`` (see
``_out_of_core.py``): strict_array's natural form and two passes by hand, raw
dask.array's natural form (one graph) and two passes by hand. Each contender runs in a
fresh subprocess that starts its own
``LocalCluster(n_workers=2, threads_per_worker=1, memory_limit="1GiB", processes=True)``
and a ``Client`` (so every compute, strict_array's planned passes included, runs on
the cluster).

Reported per contender (worst round for the memory figures, median for the time):
bytes the workers spilled to disk (the sum over workers of their ``SpillBuffer``'s
cumulative ``("disk-write", "bytes")`` metric, sampled every 0.5 s so a restarted
worker's count is kept), worker restarts (worker pids beyond the first two), the
workers' peak RSS (psutil, every 20 ms), the time, and whether the result matches the
one-graph result. Targets for strict_array's natural form: nothing spilled, no
restarts, time <= raw Dask's natural form.
"""

from __future__ import annotations

import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _out_of_core import (
    CONTENDERS,
    Input,
    agree,
    header,
    parse_args,
    rotating,
    run_child_if_asked,
    spawn,
)

NATURAL, BY_HAND, DASK_NATURAL, DASK_BY_HAND = CONTENDERS


def main() -> None:
    args = parse_args(__doc__, default_gib=2.0)
    if run_child_if_asked(args):
        return
    import distributed
    from _harness import fmt_bytes, fmt_time, verdict

    results = header(
        __doc__,
        "cluster",
        f"distributed {distributed.__version__}; LocalCluster(n_workers=2, "
        "threads_per_worker=1, memory_limit='1GiB', processes=True), one per contender run",
    )
    with Input(args.dir, args.gib) as (path, nbytes):
        times: dict[str, list[float]] = {k: [] for k in CONTENDERS}
        worst: dict[str, dict] = {}
        values: dict[str, list[float]] = {}
        script = os.path.abspath(__file__)
        for k in rotating(args.repeats, CONTENDERS):
            r = spawn(script, k, path, 1, cluster=True)
            times[k].append(r["time"])
            values[k] = r["value"]
            w = worst.setdefault(k, {"spilled": 0.0, "restarts": 0, "worker_peaks": []})
            w["spilled"] = max(w["spilled"], r["spilled"])
            w["restarts"] = max(w["restarts"], r["restarts"])
            w["worker_peaks"] = max(w["worker_peaks"], r["worker_peaks"])
            print(
                f"  {k:34s} {fmt_time(r['time']):>8s}  spilled {fmt_bytes(r['spilled'])}, "
                f"restarts {r['restarts']}, worker peaks "
                + " / ".join(fmt_bytes(b) for b in r["worker_peaks"]),
                flush=True,
            )
        same = agree(values)
        med = {k: statistics.median(v) for k, v in times.items()}
        rows = []
        for k in CONTENDERS:
            w = worst[k]
            ok = None
            if k == NATURAL:
                ok = w["spilled"] == 0 and w["restarts"] == 0 and med[k] <= med[DASK_NATURAL]
            rows.append(
                [
                    k,
                    fmt_time(med[k]),
                    f"{nbytes / med[k] / 1e9:.2f}",
                    f"{med[k] / med[DASK_NATURAL]:.2f}x",
                    fmt_bytes(w["spilled"]),
                    str(w["restarts"]),
                    " / ".join(fmt_bytes(b) for b in w["worker_peaks"]),
                    "yes" if same[k] else "NO",
                    verdict(ok),
                ]
            )
        print()
        print(
            results.table(
                f"The canonical job on {fmt_bytes(nbytes)} of x, {args.repeats} round(s), "
                "LocalCluster(n_workers=2, threads_per_worker=1, memory_limit='1GiB') "
                "(median time, worst spill and peaks)",
                [
                    "contender",
                    "time",
                    "GB/s",
                    "time vs dask one graph",
                    "spilled to disk",
                    "restarts",
                    "worker peak RSS",
                    "= one graph",
                    "target 0 spilled, 0 restarts, <= dask time",
                ],
                rows,
                "lrrrrrlll",
            )
        )
    results.write(args.results)


if __name__ == "__main__":
    main()
