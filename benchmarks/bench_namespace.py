"""Per-call cost of the strict_array namespace (CPU device) against NumPy and array_api_strict.

Run: ``python benchmarks/bench_namespace.py [--repeats 100] [--groups 25] [--block-ms 2]``

Each row times the same operation in the three libraries, interleaved in one run
(every repeat runs one block of each contender, in a rotated order). A block is a
``timeit`` loop calibrated to last at least ``--block-ms``; the statement is compiled
into the loop, so no Python call is added around it, and the garbage collector is
off while timing.

Statistic, **min of medians, taken jointly**: the ``--repeats`` blocks are cut into
``--groups`` consecutive groups; each contender's per-call time in a group is its median
there; the reported times all come from the quietest group (smallest geometric mean of
the contenders' medians). The median rejects outliers inside a group; one common group
keeps the contenders side by side (on 2 vCPUs a busy sibling slows everything by up to
2x for seconds at a time). Overhead = strict_array - NumPy (µs, from those statistics); ratios
are strict_array / NumPy and array_api_strict / NumPy.

Targets (printed next to each row): overhead <= 0.30 µs for add/operator/slicing/reshape
on small arrays; within 3% of NumPy at 1,000,000 elements; ``array_namespace`` <= 2 µs.

``--baseline DIR`` adds a column: strict_array from another checkout (e.g. a
``git worktree`` of an older commit), imported as ``strict_array_baseline`` and timed
in the same interleaved run, with its overhead over NumPy beside today's.

The NumPy column uses the fastest NumPy spelling (``x.reshape(...)``, not the
``np.reshape`` wrapper; ``x + y[None, :]`` for the explicit broadcast);
array_api_strict broadcasts like NumPy, so its broadcast row is ``x + y``.
"""

from __future__ import annotations

import argparse

import array_api_compat
import array_api_strict as aas
import numpy as np
from _harness import compare, environment, fmt_time, table, timer, verdict

import strict_array as xp

CONTENDERS = ["numpy", "strict_array", "array_api_strict"]
#: strict_array of another checkout (``--baseline``), or None
BASELINE: object = None


def load_baseline(path: str) -> object:
    """The package ``strict_array`` under ``path`` (a checkout), as another module."""
    import importlib.util
    import os
    import sys

    init = os.path.join(path, "strict_array", "__init__.py")
    spec = importlib.util.spec_from_file_location(
        "strict_array_baseline", init, submodule_search_locations=[os.path.dirname(init)]
    )
    assert spec is not None and spec.loader is not None, init
    module = importlib.util.module_from_spec(spec)
    sys.modules["strict_array_baseline"] = module  # its relative imports resolve here
    spec.loader.exec_module(module)
    return module


def rows(rng: np.random.Generator) -> list[tuple[str, dict[str, tuple[str, dict]], str]]:
    """(label, {contender: (statement, names)}, target); target: 'overhead', 'ratio', 'abs'."""

    mods: dict[str, object] = {"numpy": np, "strict_array": xp, "array_api_strict": aas}
    if BASELINE is not None:
        mods["baseline"] = BASELINE

    def trio(*arrays: np.ndarray) -> dict[str, list]:
        return {
            c: list(arrays) if c == "numpy" else [mods[c].asarray(a) for a in arrays]  # type: ignore[attr-defined]
            for c in CONTENDERS
        }

    out = []

    def same(label: str, stmt: str, arrays: dict[str, list], target: str, **kw: str) -> None:
        spec = {}
        for c in CONTENDERS:
            names = {"ns": mods[c], **dict(zip("xyz", arrays[c]))}
            spec[c] = (kw.get(c, stmt), names)
        out.append((label, spec, target))

    for n in (1, 1_000, 1_000_000):
        same(
            f"add(x, y), {n:,} element{'s' * (n > 1)}",
            "ns.add(x, y)",
            trio(rng.random(n), rng.random(n)),
            "overhead" if n < 1_000_000 else "ratio",
        )
    same("x + y, 1 element", "x + y", trio(rng.random(1), rng.random(1)), "overhead")
    same(
        "x + y, (1000,1000) & (1000,) bd=(1,)",
        "x + y",
        trio(rng.random((1000, 1000)), rng.random(1000)),
        "",
        numpy="x + y[None, :]",
        strict_array="ns.add(x, y, broadcast_dimensions=(1,))",
        baseline="ns.add(x, y, broadcast_dimensions=(1,))",
    )
    same("x[1:3, ::2], (10,10)", "x[1:3, ::2]", trio(rng.random((10, 10))), "overhead")
    same(
        "reshape (10,10) -> (100,)",
        "ns.reshape(x, (100,))",
        trio(rng.random((10, 10))),
        "overhead",
        numpy="x.reshape((100,))",  # faster than np.reshape(x, ...), a Python wrapper
    )
    same("sum(x, axis=0), (1000,1000)", "ns.sum(x, axis=0)", trio(rng.random((1000, 1000))), "")
    same(
        "matmul, 100x100",
        "ns.matmul(x, y)",
        trio(rng.random((100, 100)), rng.random((100, 100))),
        "",
    )
    lst = rng.random(1000).tolist()
    same("asarray(list of 1,000 floats)", "ns.asarray(x)", {c: [lst] for c in CONTENDERS}, "")
    arrays = trio(rng.random(3), rng.random(3))
    for c in CONTENDERS:
        arrays[c].append(array_api_compat)  # bound as z
    same("array_api_compat.array_namespace(x, y)", "z.array_namespace(x, y)", arrays, "abs")
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--repeats", type=int, default=100, help="blocks per contender (100)")
    p.add_argument("--groups", type=int, default=25, help="groups for min of medians (25)")
    p.add_argument("--block-ms", type=float, default=2.0, help="min block duration, ms (2)")
    p.add_argument("--only", default=None, help="run only rows whose label contains this")
    p.add_argument("--baseline", default=None, help="checkout of strict_array to compare with")
    args = p.parse_args()
    global BASELINE
    if args.baseline:
        BASELINE = load_baseline(args.baseline)
        CONTENDERS.append("baseline")

    print(__doc__.split("\n")[0])
    print(environment())
    print(
        f"statistic: per-call medians in the quietest of {args.groups} groups; "
        f"{args.repeats} interleaved blocks of >= {args.block_ms} ms per contender\n"
    )
    headers = [
        "operation",
        "numpy",
        "strict_array",
        "array_api_strict",
        "overhead",
        "strict/np",
        "aas/np",
        "target",
        "",
    ]
    if BASELINE is not None:
        headers[4:4] = ["baseline", "baseline overhead"]
    out = []
    for label, spec, target in rows(np.random.default_rng(0)):
        if args.only and args.only not in label:
            continue
        t = compare(
            {c: timer(stmt, **names) for c, (stmt, names) in spec.items()},
            repeats=args.repeats,
            groups=args.groups,
            block_s=args.block_ms / 1000,
        )
        tn, ts, ta = t["numpy"], t["strict_array"], t["array_api_strict"]
        over = (ts - tn) * 1e6
        if target == "overhead":
            goal, ok = "<= +0.30 µs", over <= 0.30
        elif target == "ratio":
            goal, ok = "<= 1.03x", ts / tn <= 1.03
        elif target == "abs":
            goal, ok = "<= 2 µs", ts <= 2e-6
        else:
            goal, ok = "", None
        row = [label, fmt_time(tn), fmt_time(ts), fmt_time(ta), f"{over:+.2f} µs",
               f"{ts / tn:.2f}x", f"{ta / tn:.2f}x", goal, verdict(ok)]  # fmt: skip
        if BASELINE is not None:
            tb = t["baseline"]
            row[4:4] = [fmt_time(tb), f"{(tb - tn) * 1e6:+.2f} µs"]
        out.append(row)
        print(f"  done: {label}", flush=True)
    print()
    print(table(headers, out, "l" + "r" * (len(headers) - 3) + "ll"))


if __name__ == "__main__":
    main()
