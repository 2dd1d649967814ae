"""The NumPy-code mode's cost per call, as the pytest option runs it: inside
``checking()``, beside plain NumPy and beside the floor of any Python-level hook.

Run: ``python benchmarks/bench_numpy_mode.py [--repeats 30] [--groups 5] [--size 8]
[--results [FILE]]`` (``--results``: the tables also go to
``benchmarks/results/numpy_mode.json``, which the documentation shows)

Each row times one operation on small float64 arrays (``--size`` x ``--size``, where
the hook is all there is to time), three ways side by side in one run:

- ``numpy``: plain NumPy arrays, outside :func:`strict_array.numpy.checking`;
- ``floor``: arrays of a minimal :class:`numpy.ndarray` subclass whose hook only unwraps
  its arguments, calls NumPy and rewraps the result (the row's ``floor`` column names
  the hook: ``__array_ufunc__`` for ufuncs, operators and reductions,
  ``__array_function__`` for NumPy's functions, ``__setitem__`` for assignment, none for
  a basic index): what any Python-level check costs before it checks anything;
- ``mode``: the arrays NumPy makes inside ``checking()`` (what ``--rank-promotion-numpy``
  holds for a test session), the call made inside the block.

Reported: the three times, the overhead of the floor and of the mode over NumPy, and
the mode's overhead as a multiple of the floor's; then the medians of both overheads and
their ratio (the target: at most 1.3x). Times are the process's CPU time
(``time.process_time``), each contender's minimum over its blocks
(``_harness.compare(statistic="min")``: the least disturbed block, steadier than a median
where other jobs keep the machine busy). The slowdown of whole test suites is
measured by ``bench_numpy_suites.py``.
"""

from __future__ import annotations

import time
import timeit
from typing import Any

import numpy as np
from _harness import Results, compare, fmt_time, small_array_arguments, verdict

import strict_array.numpy as snp

#: the target: the mode's median overhead against the floor's
TARGET = 1.3


def timer(stmt: str, **ns: Any) -> timeit.Timer:
    """A timer of ``stmt`` in the process's CPU time: the time it waited while other
    processes ran (a busy shared machine) is not counted; the calls are single-threaded,
    so on an idle machine it is their wall time."""
    return timeit.Timer(stmt, timer=time.process_time, globals=ns)


def _unwrap(value: Any) -> Any:
    if type(value) is Floor:
        return value.view(np.ndarray)
    if type(value) in (tuple, list):
        return type(value)(_unwrap(v) for v in value)
    return value


def _rewrap(value: Any) -> Any:
    if type(value) is np.ndarray:
        return value.view(Floor)
    if type(value) is tuple:
        return tuple(_rewrap(v) for v in value)
    return value


class Floor(np.ndarray):
    """The least a Python-level hook does: unwrap, call NumPy, rewrap."""

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if kwargs:
            kwargs = {k: _unwrap(v) for k, v in kwargs.items()}
        return _rewrap(getattr(ufunc, method)(*_unwrap(inputs), **kwargs))

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        return _rewrap(func._implementation(*_unwrap(args), **kwargs))

    def __setitem__(self, key: Any, value: Any) -> None:
        self.view(np.ndarray)[key] = _unwrap(value)


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
    ("np.mean(x, axis=0)", "np.mean(x, axis=0)", "__array_function__"),
    ("np.concatenate([x, y])", "np.concatenate([x, y])", "__array_function__"),
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
    plain = {"np": np, **data}
    floor = {"np": np, **{k: v.view(Floor) for k, v in data.items()}}
    rows, floors, modes = [], [], []
    with snp.checking():
        checked = {"np": np, **{k: np.array(v) for k, v in data.items()}}
        assert all(type(v) is snp.CheckedArray for k, v in checked.items() if k != "np")
        for label, stmt, hook in CASES:
            timers = {"numpy": timer(stmt, **plain), "floor": timer(stmt, **floor),
                      "mode": timer(stmt, **checked)}  # fmt: skip
            t = compare(timers, repeats=args.repeats, groups=args.groups, statistic="min")
            over_floor, over_mode = t["floor"] - t["numpy"], t["mode"] - t["numpy"]
            floors.append(over_floor)
            modes.append(over_mode)
            rows.append([
                label, hook, fmt_time(t["numpy"]), fmt_time(t["floor"]), fmt_time(t["mode"]),
                f"{over_floor * 1e6:+.2f} µs", f"{over_mode * 1e6:+.2f} µs",
                f"{over_mode / over_floor:.2f}x" if over_floor > 5e-8 else "-",
            ])  # fmt: skip
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
