"""The cost of NumPy's spelling: ``np.f(x)`` on strict arrays beside ``xp.f(x)``.

Run: ``python benchmarks/bench_numpy_calls.py [--repeats 30] [--groups 5]``

NumPy's functions and ufuncs called on strict arrays keep NumPy's meaning (NEP 18
``__array_function__``, NEP 13 ``__array_ufunc__``, through the table of
``strict_array/_numpy_api/``): the row's rules are checked, then on CPU NumPy's own
function computes on the data and the result is a strict array. Each row times, on small
arrays (8x8 float64, where the dispatch is all there is to time), side by side in one run:

- ``numpy``: NumPy's function on NumPy arrays (what the code cost before);
- ``xp``: the strict_array function called directly;
- ``np on strict``: NumPy's spelling on strict arrays (the dispatch plus ``xp``).

Reported: each time, the dispatch overhead (``np on strict`` - ``xp``) and the ratio
``np on strict`` / ``numpy``. Statistic: min of medians, taken jointly (``_harness``).
"""

from __future__ import annotations

import numpy as np
from _harness import compare, fmt_time, small_array_arguments, table, timer

import strict_array as xp


def cases() -> list[tuple[str, str, str]]:
    """(label, NumPy statement, strict statement); names: x, y, mask (strict or NumPy)."""
    return [
        ("add (ufunc)", "np.add(x, y)", "xp.add(x, y)"),
        ("exp (ufunc)", "np.exp(x)", "xp.exp(x)"),
        ("add.reduce", "np.add.reduce(x)", "xp.sum(x, axis=0)"),
        ("mean", "np.mean(x)", "xp.mean(x)"),
        ("sum, axis=0", "np.sum(x, axis=0)", "xp.sum(x, axis=0)"),
        ("std", "np.std(x)", "xp.std(x)"),
        ("where", "np.where(mask, x, y)", "xp.where(mask, x, y)"),
        ("clip", "np.clip(x, 0.1, 0.9)", "xp.clip(x, 0.1, 0.9)"),
        ("concatenate", "np.concatenate([x, y])", "xp.concat([x, y])"),
        ("transpose", "np.transpose(x)", "xp.permute_dims(x, (1, 0))"),
        ("dot", "np.dot(x, y)", "xp.matmul(x, y)"),
        ("round", "np.round(x)", "xp.round(x)"),
        ("linalg.norm", "np.linalg.norm(x)", "xp.linalg.vector_norm(x)"),
        ("argmax", "np.argmax(x)", "xp.argmax(x)"),
        ("sort", "np.sort(x)", "xp.sort(x)"),
    ]


def main() -> None:
    args = small_array_arguments(__doc__)
    rng = np.random.default_rng(0)
    a, b = rng.random((args.size, args.size)), rng.random((args.size, args.size))
    m = a > 0.5
    sx, sy, sm = xp.asarray(a), xp.asarray(b), xp.asarray(m)
    numpy_ns = {"np": np, "x": a, "y": b, "mask": m}
    strict_ns = {"np": np, "xp": xp, "x": sx, "y": sy, "mask": sm}
    rows, overheads = [], []
    for label, numpy_stmt, strict_stmt in cases():
        # the three give the same values (the row measures the same computation)
        want = eval(numpy_stmt, numpy_ns)
        for got in (eval(numpy_stmt, strict_ns), eval(strict_stmt, strict_ns)):
            assert isinstance(got, xp.Array)
            np.testing.assert_allclose(np.asarray(got), want, err_msg=label)
        t = compare(
            {
                "numpy": timer(numpy_stmt, **numpy_ns),
                "xp": timer(strict_stmt, **strict_ns),
                "np on strict": timer(numpy_stmt, **strict_ns),
            },
            repeats=args.repeats,
            groups=args.groups,
        )
        dispatch = t["np on strict"] - t["xp"]
        overheads.append(dispatch)
        rows.append([
            label, fmt_time(t["numpy"]), fmt_time(t["xp"]), fmt_time(t["np on strict"]),
            f"{dispatch * 1e6:+.2f} µs", f"{t['np on strict'] / t['numpy']:.2f}x",
        ])  # fmt: skip
    print(f"{args.size}x{args.size} float64")
    print(table(["call", "numpy", "xp", "np on strict", "dispatch", "vs numpy"], rows, "lrrrrr"))
    overheads.sort()
    print(f"\nmedian dispatch overhead: {overheads[len(overheads) // 2] * 1e6:+.2f} µs")


if __name__ == "__main__":
    main()
