"""Graph overhead of strict_array on the DASK device against hand-written dask.array code.

Run: ``python benchmarks/bench_dask_overhead.py`` (small, < 1 minute) or with ``--big``
(the full chunk-alignment demo: x is 8 GiB, generated lazily, never materialised;
each case then computes in a fresh subprocess to measure its peak RSS).

Part 1, a chain of 10 element-wise operations with ``broadcast_dimensions``: x (n, n)
in (c, c) chunks, vectors v, w (n,) in c chunks; each step combines the running result
with a vector along axis 1 (``broadcast_dimensions=(1,)``) or axis 0 (``(0,)``). Raw
dask.array is written two ways: idiomatic NumPy style (``r + v``, ``r * w[:, None]``)
and fully explicit (``r + v[None, :]``). Reported: graph-building time (building the
lazy chain; timeit blocks of >= 20 ms, contenders interleaved, min of the group
medians), tasks in the graph (``len(dict(arr.__dask_graph__()))``) and after Dask's
optimisation (``dask.optimize``), compute time (threaded scheduler). Targets: equal
task counts; build time <= 1.1x the idiomatic raw code.

Part 2, chunk alignment: x (rows, cols) float64 in row blocks (one chunk across the
columns), v (cols,) chunked differently (``--v-chunk``). Raw dask ``(x + v).sum()``
unifies chunks by re-splitting x's column axis at v's chunk boundaries (more, smaller
tasks and a rechunk layer over the big array); ``xp.sum(xp.add(x, v,
broadcast_dimensions=(1,)))`` rechunks the small v to x's chunks instead. Reported:
tasks, the column chunks of the sum's input (is x re-split?), compute time, and with
``--rss`` (implied by ``--big``) the peak RSS of computing each case, measured in a
fresh subprocess (``resource.getrusage(RUSAGE_SELF).ru_maxrss`` at the end, minus the
same value just before computing).

Default sizes: n=2000, c=500; x (8192, 1024) in 1024-row chunks, v in 125-element
chunks. ``--big``: x (131072, 8192) in 1024-row chunks (64 MiB), v in 1000-element
chunks.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import dask
import dask.array as da
import numpy as np
from _harness import (
    Results,
    add_results_option,
    compare,
    fmt_bytes,
    fmt_time,
    interleaved_runs,
    maxrss_bytes,
    verdict,
)

import strict_array as xp

# (strict_array function, dask operator, axis of the result the vector maps to)
CHAIN = [
    ("add", "+", 1),
    ("multiply", "*", 0),
    ("subtract", "-", 1),
    ("divide", "/", 0),
    ("maximum", "maximum", 1),
    ("add", "+", 0),
    ("multiply", "*", 1),
    ("minimum", "minimum", 0),
    ("subtract", "-", 0),
    ("divide", "/", 1),
]
_DASK_OPS = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
    "maximum": da.maximum,
    "minimum": da.minimum,
}


def chain_raw(x: da.Array, v: da.Array, w: da.Array, explicit: bool) -> da.Array:
    r = x
    for _, op, axis in CHAIN:
        if axis == 1:
            vec = v[None, :] if explicit else v
        else:
            vec = w[:, None]
        r = _DASK_OPS[op](r, vec)
    return r


def chain_strict(x: xp.Array, v: xp.Array, w: xp.Array) -> xp.Array:
    r = x
    for name, _, axis in CHAIN:
        r = getattr(xp, name)(r, v if axis == 1 else w, broadcast_dimensions=(axis,))
    return r


def ntasks(a: da.Array) -> int:
    return len(dict(a.__dask_graph__()))


def ntasks_optimized(a: da.Array) -> int:
    (opt,) = dask.optimize(a)
    return len(dict(opt.__dask_graph__()))


def part1(args: argparse.Namespace, results: Results) -> None:
    n, c = args.n, args.chunk
    rng = da.random.default_rng(0)
    x = rng.random((n, n), chunks=(c, c))
    v = rng.random(n, chunks=c) + 1.0
    w = rng.random(n, chunks=c) + 1.0
    sx, sv, sw = xp.asarray(x), xp.asarray(v), xp.asarray(w)
    chains = {
        "raw dask (r + v)": chain_raw(x, v, w, False),
        "raw dask (r + v[None, :])": chain_raw(x, v, w, True),
        "strict_array": chain_strict(sx, sv, sw)._data,
    }
    with xp.progress(False):
        ref = chains["raw dask (r + v)"].compute()
        assert np.allclose(np.asarray(chain_strict(sx, sv, sw)), ref)
    build = compare(
        {
            "raw dask (r + v)": lambda: chain_raw(x, v, w, False),
            "raw dask (r + v[None, :])": lambda: chain_raw(x, v, w, True),
            "strict_array": lambda: chain_strict(sx, sv, sw),
        },
        repeats=args.repeats,
        groups=args.groups,
        block_s=0.02,
    )
    comp = interleaved_runs({k: r.compute for k, r in chains.items()}, args.compute_repeats)
    base_b, base_n = build["raw dask (r + v)"], ntasks(chains["raw dask (r + v)"])
    rows = []
    for k, r in chains.items():
        nt = ntasks(r)
        ok = None if k.startswith("raw") else (build[k] / base_b <= 1.1 and nt == base_n)
        rows.append(
            [
                k,
                fmt_time(build[k]),
                f"{build[k] / base_b:.2f}x",
                nt,
                ntasks_optimized(r),
                fmt_time(comp[k]),
                verdict(ok),
            ]
        )
    print(
        results.table(
            f"Part 1: chain of {len(CHAIN)} element-wise ops with broadcast_dimensions; "
            f"x ({n}, {n}) in ({c}, {c}) chunks, vectors in {c} chunks",
            [
                "code",
                "build",
                "vs idiomatic",
                "tasks",
                "tasks optimised",
                "compute",
                "target: = tasks, <= 1.1x",
            ],
            rows,
            "lrrrrrl",
        )
    )


# --- part 2 ---------------------------------------------------------------------------
def build_case(case: str, rows: int, cols: int, row_chunk: int, v_chunk: int):
    """(sum, input of the sum, x) as raw dask arrays, for ``case`` 'raw' or 'strict'."""
    x = da.random.default_rng(0).random((rows, cols), chunks=(row_chunk, cols))
    v = da.random.default_rng(1).random(cols, chunks=v_chunk)
    if case == "raw":
        y = x + v
        return y.sum(), y, x
    y = xp.add(xp.asarray(x), xp.asarray(v), broadcast_dimensions=(1,))
    return xp.sum(y)._data, y._data, x


def child(args: argparse.Namespace) -> None:
    """Subprocess entry: compute one case, print its peak RSS as JSON."""
    dask.config.set(scheduler="threads", num_workers=args.workers)
    s, _, _ = build_case(args.child, args.rows, args.cols, args.row_chunk, args.v_chunk)
    before = maxrss_bytes()
    t0 = time.perf_counter()
    value = float(s.compute())
    seconds = time.perf_counter() - t0
    print(
        json.dumps({"before": before, "peak": maxrss_bytes(), "seconds": seconds, "value": value})
    )


def run_child(case: str, args: argparse.Namespace) -> dict:
    cmd = [
        sys.executable,
        os.path.abspath(__file__),
        "--child",
        case,
        "--rows",
        str(args.rows),
        "--cols",
        str(args.cols),
        "--row-chunk",
        str(args.row_chunk),
        "--v-chunk",
        str(args.v_chunk),
        "--workers",
        str(args.workers),
    ]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def part2(args: argparse.Namespace, results: Results) -> None:
    nbytes = args.rows * args.cols * 8
    title = (
        f"Part 2: chunk alignment, x ({args.rows}, {args.cols}) float64 = "
        f"{fmt_bytes(nbytes)} in {args.row_chunk}-row chunks "
        f"({fmt_bytes(args.row_chunk * args.cols * 8)} each), v ({args.cols},) in "
        f"{args.v_chunk}-element chunks"
    )
    print("\n" + title)
    cases = {
        "raw dask (x + v).sum()": "raw",
        "xp.sum(xp.add(x, v, broadcast_dimensions=(1,)))": "strict",
    }
    built = {
        k: build_case(c, args.rows, args.cols, args.row_chunk, args.v_chunk)
        for k, c in cases.items()
    }
    rss = {}
    if args.rss:
        for k, c in cases.items():
            print(f"  computing {c} in a subprocess ...", flush=True)
            rss[k] = run_child(c, args)
        comp = {k: r["seconds"] for k, r in rss.items()}
    else:
        comp = interleaved_runs({k: b[0].compute for k, b in built.items()}, args.compute_repeats)
    rows = []
    for k, (s, y, x) in built.items():
        cols = y.chunks[1]
        resplit = cols != x.chunks[1]
        row = [
            k,
            ntasks(s),
            f"{len(cols)}: {_fmt_chunks(cols)}",
            "YES" if resplit else "no",
            fmt_time(comp[k]),
        ]
        if args.rss:
            r = rss[k]
            row += [fmt_bytes(r["peak"]), fmt_bytes(r["peak"] - r["before"])]
        rows.append(row)
    headers = ["code", "tasks", "column chunks of sum input", "x re-split", "compute"]
    if args.rss:
        headers += ["peak RSS", "RSS growth"]
    print(results.table(title, headers, rows, "lrllrrr"))


def _fmt_chunks(chunks: tuple[int, ...]) -> str:
    s = str(chunks)
    return s if len(s) <= 40 else s[:37] + "..."


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, default=2000, help="part 1: x is (n, n)")
    p.add_argument("--chunk", type=int, default=500, help="part 1: chunk size")
    p.add_argument("--rows", type=int, default=8192, help="part 2: rows of x")
    p.add_argument("--cols", type=int, default=1024, help="part 2: columns of x")
    p.add_argument("--row-chunk", type=int, default=1024, help="part 2: rows per chunk of x")
    p.add_argument("--v-chunk", type=int, default=125, help="part 2: chunk size of v")
    p.add_argument(
        "--big",
        action="store_true",
        help="part 2 at full size: x (131072, 8192) = 8 GiB, v chunks 1000; implies --rss",
    )
    p.add_argument("--rss", action="store_true", help="part 2: peak RSS per case (subprocess)")
    p.add_argument("--repeats", type=int, default=30, help="build-time blocks per contender")
    p.add_argument("--groups", type=int, default=10, help="groups for min of medians")
    p.add_argument("--compute-repeats", type=int, default=5, help="compute runs per contender")
    p.add_argument("--workers", type=int, default=2, help="threads of the Dask scheduler")
    p.add_argument("--skip-part1", action="store_true")
    p.add_argument("--child", choices=("raw", "strict"), help=argparse.SUPPRESS)
    add_results_option(p)
    args = p.parse_args()
    if args.big:
        args.rows, args.cols, args.row_chunk, args.v_chunk, args.rss = (
            131072,
            8192,
            1024,
            1000,
            True,
        )
    if args.child:
        return child(args)
    dask.config.set(scheduler="threads", num_workers=args.workers)
    results = Results("dask_overhead")
    print(__doc__.split("\n")[0])
    print(results.environment)
    print(f"threaded scheduler, {args.workers} workers\n")
    if not args.skip_part1:
        part1(args, results)
    part2(args, results)
    results.write(args.results)


if __name__ == "__main__":
    main()
