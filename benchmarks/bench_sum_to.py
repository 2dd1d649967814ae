"""sum_to (the gradient of broadcasting) against hand-written NumPy and dask.array reductions.

Run: ``python benchmarks/bench_sum_to.py [--elements 10000000] [--chunk-elements 1000000]``

Three cases, each of ``--elements`` float64 values (default 1e7, 80 MB):

- leading axes:   g (1000, 100, 100) -> (100, 100), broadcast_dimensions (1, 2);
                  by hand ``g.sum(axis=0)``
- size-1 axis:    g (1000, 10000)    -> (1, 10000);  by hand ``g.sum(axis=0, keepdims=True)``
- middle axis:    g (100, 1000, 100) -> (1000,), broadcast_dimensions (1,);
                  by hand ``g.sum(axis=(0, 2))``

The hand-written code is the shortest NumPy/Dask expression giving the same result
(a ``sum(axis=..., keepdims=...)``, plus a ``reshape`` where one is needed).

CPU (NumPy) part: time per call, contenders interleaved (one call each per repeat,
rotating order); statistic: **min of medians, taken jointly** (the repeats are cut into
``--groups`` consecutive groups; the medians of the quietest group, i.e. the one with the
smallest geometric mean of the contenders' medians, are reported). Target: sum_to <= 1.05x NumPy.

DASK part: the same arrays chunked along axis 0 into blocks of about
``--chunk-elements`` values (``dask.array.from_array`` of the same in-memory data, so
compute time is the reduction, not data generation); for raw dask.array and sum_to:
graph-building time (building the lazy expression; timeit blocks, min of medians),
number of tasks (``len(dict(arr.__dask_graph__()))``) and compute time (threaded
scheduler, ``--workers`` threads; min of medians of single runs). Targets: <= 1.1x and
the same number of tasks.
"""

from __future__ import annotations

import argparse

import dask
import dask.array as da
import numpy as np
from _harness import (
    Results,
    add_results_option,
    compare,
    fmt_time,
    interleaved_runs,
    timer,
    verdict,
)

import strict_array as xp


def cases(n: int) -> list[tuple[str, tuple, tuple, tuple | None, dict]]:
    """(label, g shape, target shape, broadcast_dimensions, hand-written sum kwargs)."""
    a = n // 10_000
    return [
        ("leading axes", (a, 100, 100), (100, 100), (1, 2), {"axis": 0}),
        ("size-1 axis", (a, 10_000), (1, 10_000), None, {"axis": 0, "keepdims": True}),
        ("middle axis", (a // 10, 1000, 100), (1000,), (1,), {"axis": (0, 2)}),
    ]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--elements", type=int, default=10_000_000, help="elements of g (1e7)")
    p.add_argument("--chunk-elements", type=int, default=1_000_000, help="Dask chunk size")
    p.add_argument("--repeats", type=int, default=21, help="repeats of each timed call")
    p.add_argument("--groups", type=int, default=7, help="groups for min of medians")
    p.add_argument("--workers", type=int, default=2, help="threads of the Dask scheduler")
    p.add_argument("--no-dask", action="store_true", help="skip the Dask part")
    add_results_option(p)
    args = p.parse_args()
    dask.config.set(scheduler="threads", num_workers=args.workers)
    results = Results("sum_to")

    print(__doc__.split("\n")[0])
    print(results.environment)
    print(
        f"statistic: medians in the quietest of {args.groups} groups of "
        f"{args.repeats} interleaved runs\n"
    )
    rng = np.random.default_rng(0)
    data = {label: rng.random(shape) for label, shape, *_ in cases(args.elements)}

    cpu_rows = []
    for label, shape, target, bd, kw in cases(args.elements):
        g = data[label]
        sg = xp.asarray(g)
        ref = g.sum(**kw)
        assert ref.shape == target and np.allclose(np.asarray(xp.sum_to(sg, target, bd)), ref)
        t = interleaved_runs(
            {
                "numpy": lambda g=g, kw=kw: g.sum(**kw),
                "sum_to": lambda sg=sg, target=target, bd=bd: xp.sum_to(sg, target, bd),
            },
            args.repeats,
            args.groups,
        )
        r = t["sum_to"] / t["numpy"]
        cpu_rows.append(
            [
                f"{label}  {shape} -> {target}",
                fmt_time(t["numpy"]),
                fmt_time(t["sum_to"]),
                f"{r:.3f}x",
                "<= 1.05x",
                verdict(r <= 1.05),
            ]
        )
    print(
        results.table(
            f"CPU: NumPy vs sum_to, {args.elements:,} float64 elements",
            ["case", "numpy", "sum_to", "ratio", "target", "verdict"],
            cpu_rows,
            "lrrrll",
        )
    )

    if args.no_dask:
        results.write(args.results)
        return
    dask_rows = []
    for label, shape, target, bd, kw in cases(args.elements):
        rows_per_chunk = max(1, args.chunk_elements // int(np.prod(shape[1:])))
        g = da.from_array(data[label], chunks=(rows_per_chunk,) + shape[1:])
        sg = xp.asarray(g)
        raw, ours = g.sum(**kw), xp.sum_to(sg, target, bd)
        n_raw, n_ours = len(dict(raw.__dask_graph__())), len(dict(ours._data.__dask_graph__()))
        with xp.progress(False):
            assert np.allclose(np.asarray(ours.to_device(xp.CPU)), raw.compute())
            build = compare(
                {
                    "raw": timer("g.sum(**kw)", g=g, kw=kw),
                    "ours": timer(
                        "sum_to(sg, target, bd)", sum_to=xp.sum_to, sg=sg, target=target, bd=bd
                    ),
                },
                repeats=args.repeats * 2,
                groups=args.groups,
                block_s=0.02,
            )
            comp = interleaved_runs(
                {"raw": raw.compute, "ours": lambda ours=ours: ours.to_device(xp.CPU)},
                args.repeats,
                args.groups,
            )
        rb, rc = build["ours"] / build["raw"], comp["ours"] / comp["raw"]
        dask_rows.append(
            [
                f"{label} ({g.npartitions} chunks)",
                fmt_time(build["raw"]),
                fmt_time(build["ours"]),
                f"{rb:.2f}x",
                str(n_raw),
                str(n_ours),
                fmt_time(comp["raw"]),
                fmt_time(comp["ours"]),
                f"{rc:.3f}x",
                verdict(rb <= 1.1 and rc <= 1.1 and n_raw == n_ours),
            ]
        )
    print()
    print(
        results.table(
            f"DASK: dask.array vs sum_to, chunks of ~{args.chunk_elements:,} elements, "
            f"threaded scheduler with {args.workers} workers",
            [
                "case",
                "build raw",
                "build sum_to",
                "ratio",
                "tasks raw",
                "tasks sum_to",
                "compute raw",
                "compute sum_to",
                "ratio",
                "target <=1.1x, = tasks",
            ],
            dask_rows,
            "lrrrrrrrrl",
        )
    )
    results.write(args.results)


if __name__ == "__main__":
    main()
