"""Out-of-core memory and throughput on one machine: the natural form of dask/dask#874.

Run: ``python benchmarks/bench_out_of_core.py [--gib 1] [--dir DIR] [--repeats 1]``
(for the figures of the docs: ``--gib 8``). The input, x (rows, 64) float64 standard
normal, uncompressed Zarr in row blocks of 64 MiB, is written to ``--dir`` (default a
temporary directory, removed at the end; with ``--dir`` it is kept and reused).

The job (see ``_out_of_core.py``): centre the columns and sum the squares,

    x = xp.from_zarr(path)
    m = xp.mean(x, axis=0)
    z = xp.subtract(x, m, broadcast_dimensions=(1,))
    s = xp.sum(z * z, axis=0)

Contenders, each in a fresh subprocess with the allocator settings of
``_out_of_core.MALLOC_ENV``, on Dask's threaded scheduler with ``--workers`` threads:
strict_array's natural form (the planner of ``strict_array.compute_plan`` reads x in
two streaming passes), strict_array's two passes by hand, and raw dask.array's natural
form (one graph: it holds the whole of x, dask/dask#874) and two passes by hand. The
two-pass forms and the natural strict_array form run ``--repeats`` rounds, interleaved
with a rotating start; raw Dask's one graph runs once, last (it needs as much memory as
the input).

Reported: wall time (median of the rounds; planning included), throughput = input
bytes / time in GB/s (x counted once, though the two-pass forms read it twice), peak
RSS of the subprocess (``VmHWM``, maximum over the rounds; it includes ~100 MiB
of interpreter and imports), and whether the result matches the one-graph result.
Targets for strict_array's natural form: peak RSS <= 1 GiB and throughput >= 0.9x the
hand-written two passes. The input was just written or read, so it is mostly in the
page cache: this measures decoding and compute, not the disk.

The workload classes (``--job workloads``; ``_out_of_core.WORKLOADS``, natural code
written once for strict_array and for raw Dask through ``array_api_compat``): a z-score,
min/max scaling, a column softmax, twice-centred residuals, a row statistic then a
column statistic, one k-means step, covariance and Gram matrices, the correlation of
two views of the input (a flip, a slice), least squares by the normal equations then
the residual sum of squares. Each runs in a fresh subprocess as strict_array's natural
code (planned passes at the default threshold), as raw Dask's (one graph; its child
has an address-space limit, ``BENCH_DASK_ADDRESS_SPACE``, default 12 GiB, so that a
graph holding more fails alone), and next to them one streaming read of the input
(raw Dask's column sums). Reported: passes, peak RSS, time, time / one read, and the
goal time 1.1 x (raw Dask's one graph + one read per pass beyond the first).
"""

from __future__ import annotations

import os
import statistics
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _out_of_core import (
    CONTENDERS,
    WORKLOAD_CONTENDERS,
    WORKLOADS,
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
    args = parse_args(__doc__, default_gib=1.0)
    if run_child_if_asked(args):
        return
    # the workload classes alone have a results file of their own
    name = "out_of_core_workloads" if args.job == "workloads" else "out_of_core"
    results = header(__doc__, name, f"Dask threaded scheduler, {args.workers} workers")
    with Input(args.dir, args.gib) as (path, nbytes):
        if args.job in ("canonical", "both"):
            canonical(args, path, nbytes, results)
        if args.job in ("workloads", "both"):
            workloads(args, path, results)
    results.write(args.results)


def workloads(args: Any, path: str, results: Any) -> None:
    """The workload classes: strict_array planned, raw Dask's one graph, one read."""
    from _harness import fmt_bytes, fmt_time, verdict

    script = os.path.abspath(__file__)
    rows = []
    print("\nworkload classes (strict_array natural code, raw Dask one graph, one read)")
    only = [w.strip() for w in args.only.split(",") if w.strip()]
    for name, (levels, _) in WORKLOADS.items():
        if only and not any(w in name for w in only):
            continue
        r = {}
        for who in rotating(1, WORKLOAD_CONTENDERS):
            r[who] = spawn(script, f"{name}|{who}", path, args.workers, cluster=False)
            print(
                f"  {name:28s} {who:13s} {fmt_time(r[who]['time']):>8s}  "
                f"peak RSS {fmt_bytes(r[who]['maxrss'])}",
                flush=True,
            )
        strict, raw, read = (r[w] for w in WORKLOAD_CONTENDERS)
        passes = strict["passes"]
        raw_failed = raw.get("memory_error", False)
        goal = 1.1 * (raw["time"] + (passes - 1) * read["time"])
        same = not raw_failed and agree_values(strict["value"], raw["value"])
        rows.append(
            [
                name,
                str(levels),
                str(passes),
                fmt_bytes(strict["maxrss"]),
                fmt_time(strict["time"]),
                f"{strict['time'] / read['time']:.2f}",
                "MemoryError" if raw_failed else fmt_bytes(raw["maxrss"]),
                "-" if raw_failed else fmt_time(raw["time"]),
                f"{raw['time'] / read['time']:.2f}" if not raw_failed else "-",
                fmt_time(read["time"]),
                "-" if raw_failed else f"{strict['time'] / goal:.2f}",
                "yes" if same else ("-" if raw_failed else "NO"),
                verdict(
                    strict["maxrss"] <= 2**30
                    and passes <= levels + 1
                    and (raw_failed or strict["time"] <= goal)
                ),
            ]
        )
    print()
    print(
        results.table(
            f"Workload classes, {fmt_bytes(2**30 * args.gib)} of x: strict_array's natural "
            "code, raw Dask's one graph, one read",
            [
                "workload",
                "levels",
                "passes",
                "peak RSS",
                "time",
                "/ one read",
                "raw Dask peak RSS",
                "raw Dask time",
                "/ one read",
                "one read",
                "time / goal",
                "= raw Dask",
                "<=1 GiB, passes <= levels+1, time <= goal",
            ],
            rows,
            "lrrrrrrrrrrll",
        )
    )


def agree_values(a: list[float], b: list[float], rtol: float = 1e-8) -> bool:
    import numpy as np

    x, y = np.asarray(a), np.asarray(b)
    scale = max(1.0, float(np.max(np.abs(y)))) if y.size else 1.0
    return x.shape == y.shape and bool(np.allclose(x, y, rtol=rtol, atol=rtol * scale))


def canonical(args: Any, path: str, nbytes: int, results: Any) -> None:
    """The canonical job: four forms of centring and summing the squares."""
    from _harness import fmt_bytes, fmt_time, verdict

    times: dict[str, list[float]] = {k: [] for k in CONTENDERS}
    peaks = dict.fromkeys(CONTENDERS, 0)
    values: dict[str, list[float]] = {}
    script = os.path.abspath(__file__)
    for k in [*rotating(args.repeats, (NATURAL, BY_HAND, DASK_BY_HAND)), DASK_NATURAL]:
        r = spawn(script, k, path, args.workers, cluster=False)
        times[k].append(r["time"])
        peaks[k] = max(peaks[k], r["maxrss"])
        values[k] = r["value"]
        print(
            f"  {k:34s} {fmt_time(r['time']):>8s}  peak RSS {fmt_bytes(r['maxrss'])}",
            flush=True,
        )
    same = agree(values)
    med = {k: statistics.median(v) for k, v in times.items()}
    gbs = {k: nbytes / t / 1e9 for k, t in med.items()}
    rows = []
    for k in CONTENDERS:
        ok = None
        if k == NATURAL:
            ok = peaks[k] <= 2**30 and gbs[k] >= 0.9 * gbs[BY_HAND]
        rows.append(
            [
                k,
                fmt_time(med[k]),
                f"{gbs[k]:.2f}",
                f"{gbs[k] / gbs[BY_HAND]:.2f}x",
                f"{gbs[k] / gbs[DASK_NATURAL]:.2f}x",
                fmt_bytes(peaks[k]),
                f"{peaks[k] / peaks[DASK_NATURAL]:.2f}x",
                "yes" if same[k] else "NO",
                verdict(ok),
            ]
        )
    print()
    print(
        results.table(
            f"The canonical job on {fmt_bytes(nbytes)} of x, {args.repeats} round(s), "
            f"threaded scheduler with {args.workers} workers (median time, largest peak)",
            [
                "contender",
                "time",
                "GB/s",
                "vs by hand",
                "vs dask one graph",
                "peak RSS",
                "RSS vs dask one graph",
                "= one graph",
                "target <=1 GiB, >=0.9x by hand",
            ],
            rows,
            "lrrrrrrll",
        )
    )


if __name__ == "__main__":
    main()
