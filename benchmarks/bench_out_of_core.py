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
RSS of the subprocess (``ru_maxrss``, maximum over the rounds; it includes ~100 MiB
of interpreter and imports), and whether the result matches the one-graph result.
Targets for strict_array's natural form: peak RSS <= 1 GiB and throughput >= 0.9x the
hand-written two passes. The input was just written or read, so it is mostly in the
page cache: this measures decoding and compute, not the disk.
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
    args = parse_args(__doc__, default_gib=1.0)
    if run_child_if_asked(args):
        return
    from _harness import fmt_bytes, fmt_time, table, verdict

    header(__doc__, f"Dask threaded scheduler, {args.workers} workers")
    with Input(args.dir, args.gib) as (path, nbytes):
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
            table(
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
