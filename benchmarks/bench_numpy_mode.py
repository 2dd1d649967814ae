"""The NumPy-code mode's cost per call, as the pytest option runs it: inside
``checking()``, beside plain NumPy and beside the floor of any Python-level hook.

Run: ``python benchmarks/bench_numpy_mode.py [--repeats 30] [--groups 5] [--size 8]
[--results [FILE]]`` (``--results``: the tables also go to
``benchmarks/results/numpy_mode.json``, which the documentation shows)

Each row times one operation on small float64 arrays (``--size`` x ``--size``, where
the hook is all there is to time), three ways side by side in one run:

- ``numpy``: plain NumPy arrays and NumPy's functions, outside
  :func:`strict_array.numpy.checking`;
- ``floor``: arrays of a minimal :class:`numpy.ndarray` subclass whose hook only unwraps
  its arguments, calls NumPy and rewraps the result, and NumPy's functions as the floor
  applies it to a test session, rewrapping what they make (``_floor.py``; the row's
  ``floor`` column names the hook: ``__array_ufunc__`` for ufuncs, operators and
  reductions, ``__array_function__`` for NumPy's functions, the function's own
  rewrapping for an allocation, ``__setitem__`` for assignment, none for a basic
  index), outside ``checking()``: what any Python-level check costs before it checks
  anything;
- ``mode``: the arrays NumPy makes inside ``checking()`` (what ``--rank-promotion-numpy``
  holds for a test session), the call made inside the block.

``checking()`` is entered and left between the timed blocks (a timer's setup, not
timed), so that NumPy's functions are NumPy's own in the other two. Reported: the three
times, the overhead of the floor and of the mode over NumPy, and the mode's overhead as
a multiple of the floor's; then the medians of both overheads and their ratio (the
target: at most 1.3x). Times are the process's CPU time (``time.process_time``), each
contender's minimum over its blocks (``_harness.compare(statistic="min")``: the least
disturbed block, steadier than a median where other jobs keep the machine busy). The
slowdown of whole test suites, beside the same floor, is measured by
``bench_numpy_suites.py``.
"""

from __future__ import annotations

import time
import timeit
import types
from typing import Any

import numpy as np
from _floor import Floor, rewrapped
from _harness import Results, compare, fmt_time, small_array_arguments, verdict

import strict_array.numpy as snp

#: the target: the mode's median overhead against the floor's
TARGET = 1.3


def timer(stmt: str, setup: str, **ns: Any) -> timeit.Timer:
    """A timer of ``stmt`` (after ``setup``, not timed) in the process's CPU time: the
    time it waited while other processes ran (a busy shared machine) is not counted; the
    calls are single-threaded, so on an idle machine it is their wall time."""
    return timeit.Timer(stmt, setup, timer=time.process_time, globals=ns)


class Mode:
    """``checking()`` entered (``on``) or left (``off``) between timed blocks."""

    def __init__(self) -> None:
        self._block: Any = None

    def on(self) -> None:
        if self._block is None:
            self._block = snp.checking()
            self._block.__enter__()

    def off(self) -> None:
        if self._block is not None:
            self._block.__exit__(None, None, None)
            self._block = None


#: (label, statement, the floor's hook); names: x, y (arrays), v (a row of x's width),
#: m (a mask)
CASES = [
    ("x + y", "x + y", "__array_ufunc__"),
    ("x * 2.0", "x * 2.0", "__array_ufunc__"),
    ("np.add(x, y)", "np.add(x, y)", "__array_ufunc__"),
    ("np.exp(x)", "np.exp(x)", "__array_ufunc__"),
    ("x < y", "x < y", "__array_ufunc__"),
    ("x - v (equal ranks)", "x - v", "__array_ufunc__"),
    ("x @ y", "x @ y", "__array_ufunc__"),
    ("x.sum(axis=0)", "x.sum(axis=0)", "__array_ufunc__ (reduce)"),
    ("np.where(m, x, y)", "np.where(m, x, y)", "__array_function__"),
    ("np.flatnonzero(m)", "np.flatnonzero(m)", "__array_function__"),
    ("np.mean(x, axis=0)", "np.mean(x, axis=0)", "__array_function__"),
    ("np.concatenate([x, y])", "np.concatenate([x, y])", "__array_function__"),
    ("np.zeros((n, n))", "np.zeros((n, n))", "np.zeros's rewrapping"),
    ("np.empty_like(x)", "np.empty_like(x)", "__array_function__"),
    ("x[0] = y[1]", "x[0] = y[1]", "__setitem__"),
    ("x[1:3, ::2]", "x[1:3, ::2]", "none"),
]


def main() -> None:
    results = Results("numpy_mode")
    args = small_array_arguments(
        __doc__,
        "each contender's least block of its --repeats, in the process's CPU time",
        results,
    )
    rng = np.random.default_rng(0)
    n = args.size
    data = {"x": rng.random((n, n)), "y": rng.random((n, n)), "v": rng.random((1, n)),
            "m": rng.random((n, n)) > 0.5}  # fmt: skip
    # the floor's NumPy: its functions rewrapping what they make, as in a test session
    floor_np = types.ModuleType("numpy")
    floor_np.__dict__.update(vars(np))
    floor_np.__dict__.update(rewrapped(np))
    mode = Mode()
    plain = {"np": np, "n": n, "_mode": mode, **data}
    floor = {"np": floor_np, "n": n, "_mode": mode,
             **{k: v.view(Floor) for k, v in data.items()}}  # fmt: skip
    mode.on()
    checked = {"np": np, "n": n, "_mode": mode, **{k: np.array(v) for k, v in data.items()}}
    mode.off()
    assert all(type(checked[k]) is snp.CheckedArray for k in data)
    rows, floors, modes = [], [], []
    try:
        for label, stmt, hook in CASES:
            timers = {"numpy": timer(stmt, "_mode.off()", **plain),
                      "floor": timer(stmt, "_mode.off()", **floor),
                      "mode": timer(stmt, "_mode.on()", **checked)}  # fmt: skip
            t = compare(timers, repeats=args.repeats, groups=args.groups, statistic="min")
            over_floor, over_mode = t["floor"] - t["numpy"], t["mode"] - t["numpy"]
            floors.append(over_floor)
            modes.append(over_mode)
            rows.append([
                label, hook, fmt_time(t["numpy"]), fmt_time(t["floor"]), fmt_time(t["mode"]),
                f"{over_floor * 1e6:+.2f} µs", f"{over_mode * 1e6:+.2f} µs",
                f"{over_mode / over_floor:.2f}x" if over_floor > 5e-8 else "-",
            ])  # fmt: skip
    finally:
        mode.off()
    print(results.table(f"{n}x{n} float64, the mode's calls inside checking()",
                        ["operation", "floor's hook", "numpy", "floor", "mode",
                         "floor overhead", "mode overhead", "mode/floor"], rows,
                        "llrrrrrr"))  # fmt: skip
    floors.sort()
    modes.sort()
    f, m = floors[len(floors) // 2], modes[len(modes) // 2]
    print(f"\nmedian overhead per call: floor {f * 1e6:+.2f} µs, mode {m * 1e6:+.2f} µs: "
          f"{m / f:.2f}x the floor's (target: at most {TARGET}x)")  # fmt: skip
    # the line above, as a table of the results file
    results.table("median overhead per call", ["floor", "mode", "mode/floor", f"<= {TARGET}x"],
                  [[f"{f * 1e6:+.2f} µs", f"{m * 1e6:+.2f} µs", f"{m / f:.2f}x",
                    verdict(m / f <= TARGET)]])  # fmt: skip
    results.write(args.results)


if __name__ == "__main__":
    main()
