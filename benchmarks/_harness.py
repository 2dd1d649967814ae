"""Shared helpers for the strict_array benchmarks (not a benchmark itself).

Timing: every contender of a row is a ``timeit.Timer``; its loop count is
calibrated once so that one *block* takes at least ``--block-ms``. Then, for
each repeat, every contender runs one block, in a rotated order (interleaving:
a burst of noise from another process hits all contenders alike).

Statistic, "min of medians, taken jointly": the repeats are cut into ``--groups``
consecutive groups; in each group every contender gets the median of its per-call
times; the reported times are those of the *quietest group*, the one whose medians
have the smallest geometric mean over the contenders. The median rejects outliers
inside a group; taking all contenders from the same group keeps them side by side
(on a 2-vCPU machine a busy sibling thread slows everything by up to 2x for seconds,
so independent minima could pair a quiet stretch of one contender with a noisy one
of another). Ratios are taken between these times.
"""

from __future__ import annotations

import datetime
import gc
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import threading
import time
import timeit
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

#: where each benchmark's ``--results`` file goes; the documentation is generated from it
RESULTS = Path(__file__).resolve().parent / "results"


# --- timing ----------------------------------------------------------------------------
def timer(stmt: Callable[[], Any] | str, **ns: Any) -> timeit.Timer:
    """A timer for ``stmt``: a statement evaluated with the names ``ns`` (compiled into
    timeit's loop, so no extra call per iteration) or a zero-argument callable."""
    return timeit.Timer(stmt, globals=ns) if isinstance(stmt, str) else timeit.Timer(stmt)


def calibrate(t: timeit.Timer, block_s: float) -> int:
    """Loops per block so that a block lasts at least ``block_s`` seconds."""
    number = 1
    while True:
        elapsed = t.timeit(number)
        if elapsed >= block_s:
            return number
        # aim a bit above the target; at most x10 per step
        number = max(number + 1, int(number * min(10.0, 1.2 * block_s / max(elapsed, 1e-9))))


def min_of_medians(samples: dict[str, Sequence[float]], groups: int) -> dict[str, float]:
    """Per contender, its median in the quietest group (see the module docstring)."""
    n = min(len(v) for v in samples.values())
    groups = max(1, min(groups, n))
    size = n // groups
    best, best_score = None, math.inf
    for g in range(groups):
        med = {k: statistics.median(v[g * size : (g + 1) * size]) for k, v in samples.items()}
        score = sum(math.log(max(m, 1e-12)) for m in med.values())
        if score < best_score:
            best, best_score = med, score
    assert best is not None
    return best


def compare(
    contenders: dict[str, timeit.Timer | Callable[[], Any]],
    *,
    repeats: int = 30,
    groups: int = 5,
    block_s: float = 0.005,
    statistic: str = "median",
) -> dict[str, float]:
    """Per-call seconds of each contender, measured interleaved: the min of medians
    (``statistic="median"``, see the module docstring) or each contender's minimum over
    all its blocks (``"min"``, perf-style repeated minima: the least disturbed block,
    steadier than any median on a machine other jobs keep busy).

    A contender is a ``timeit.Timer`` (see :func:`timer`) or a zero-argument callable.
    """
    contenders = {
        k: t if isinstance(t, timeit.Timer) else timeit.Timer(t) for k, t in contenders.items()
    }
    names = list(contenders)
    for t in contenders.values():  # warm up (caches, lazy imports)
        t.timeit(1)
    numbers = {k: calibrate(t, block_s) for k, t in contenders.items()}
    samples: dict[str, list[float]] = {k: [] for k in names}
    for r in range(repeats):
        order = names[r % len(names) :] + names[: r % len(names)]
        for k in order:  # timeit turns the garbage collector off while timing
            samples[k].append(contenders[k].timeit(numbers[k]) / numbers[k])
    if statistic == "min":
        return {k: min(v) for k, v in samples.items()}
    return min_of_medians(samples, groups)


def interleaved_runs(
    contenders: dict[str, Callable[[], Any]], repeats: int, groups: int = 1
) -> dict[str, float]:
    """For slow operations (one call per sample): min of medians of single calls."""
    names = list(contenders)
    samples: dict[str, list[float]] = {k: [] for k in names}
    for r in range(repeats):
        order = names[r % len(names) :] + names[: r % len(names)]
        for k in order:
            gc.collect()
            t0 = time.perf_counter()
            contenders[k]()
            samples[k].append(time.perf_counter() - t0)
    return min_of_medians(samples, groups)


# --- memory ----------------------------------------------------------------------------
class RSSSampler:
    """Samples the RSS of this process plus all its children in a background thread.

    ``with RSSSampler() as s: ...`` then ``s.peak`` (bytes) and ``s.baseline``.
    """

    def __init__(self, interval: float = 0.01) -> None:
        import psutil

        self._proc = psutil.Process()
        self._psutil = psutil
        self.interval = interval
        self.peak = 0
        self.baseline = 0
        self._stop = threading.Event()

    def rss(self) -> int:
        total = 0
        procs = [self._proc]
        try:
            procs += self._proc.children(recursive=True)
        except self._psutil.Error:
            pass
        for p in procs:
            try:
                total += p.memory_info().rss
            except self._psutil.Error:
                pass
        return total

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self.rss())
            self._stop.wait(self.interval)

    def __enter__(self) -> RSSSampler:
        self.baseline = self.peak = self.rss()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self.rss())


def maxrss_bytes() -> int:
    """Peak RSS of this process so far: on Linux its own address space's high-water mark
    (``VmHWM``). Linux's ``ru_maxrss`` survives ``exec``: a subprocess reports at least
    its parent's RSS when it was forked (a parent that wrote a 2 GiB store, at 445 MiB,
    gave every row at least 445 MiB). Elsewhere ``ru_maxrss`` (KiB; bytes on macOS)."""
    import resource

    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    r = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return r if sys.platform == "darwin" else r * 1024


# --- reporting -------------------------------------------------------------------------
def environment() -> str:
    import numpy

    parts = [
        f"Python {platform.python_version()}",
        f"NumPy {numpy.__version__}",
    ]
    for mod in ("dask", "zarr", "array_api_strict", "array_api_compat"):
        m = sys.modules.get(mod)
        if m is not None:
            parts.append(f"{mod} {getattr(m, '__version__', '?')}")
    try:
        load = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    except OSError:
        load = "?"
    return f"{'; '.join(parts)}; {os.cpu_count()} CPUs; load average {load}"


def fmt_time(seconds: float) -> str:
    us = seconds * 1e6
    if us < 1000:
        return f"{us:.3g} µs" if us < 100 else f"{us:.0f} µs"
    if us < 1e6:
        return f"{us / 1000:.3g} ms"
    return f"{seconds:.3g} s"


def fmt_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n}"


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]], align: str | None = None) -> str:
    """A plain-text table; ``align`` is one char per column ('l' or 'r')."""
    cells = [[str(c) for c in headers]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    align = align or "l" + "r" * (len(headers) - 1)

    def line(r: Sequence[str]) -> str:
        return "  ".join(
            c.ljust(w) if a == "l" else c.rjust(w) for c, w, a in zip(r, widths, align)
        ).rstrip()

    sep = "  ".join("-" * w for w in widths)
    return "\n".join([line(cells[0]), sep, *(line(r) for r in cells[1:])])


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A Markdown (MyST) table: the first column left-aligned, the others right-aligned."""
    cells = [[str(c).replace("|", "\\|") for c in r] for r in rows]
    lines = [
        "| " + " | ".join(str(h) for h in headers) + " |",
        "|" + "|".join([":--"] + ["--:"] * (len(headers) - 1)) + "|",
    ]
    lines += ["| " + " | ".join(r) + " |" for r in cells]
    return "\n".join(lines)


# --- results files ---------------------------------------------------------------------
def add_results_option(parser: Any) -> None:
    """``--results [FILE]``: write the run's tables to FILE, by default
    ``benchmarks/results/NAME.json`` (:class:`Results`), the file the documentation's
    tables are made of."""
    parser.add_argument(
        "--results",
        nargs="?",
        const=True,
        default=None,
        metavar="FILE",
        help="write the run's tables to FILE (default benchmarks/results/NAME.json, "
        "which the documentation shows)",
    )


#: options whose value is a place on the machine that ran: the command names them so
PLACES = {"--dir": "DIR", "--out": "DIR", "--python": "VENV/bin/python"}


def command_line(argv: Sequence[str]) -> str:
    """The run's command as its results file names it: the script and its arguments
    without ``--results`` and its file (where the results went is not part of the run),
    and a directory of the machine named as such (``--dir DIR``)."""
    args = list(argv[1:])
    out = []
    while args:
        a = args.pop(0)
        option, eq, _ = a.partition("=")
        if a == "--results":
            if args and not args[0].startswith("-"):
                args.pop(0)
        elif option == "--results":
            pass
        elif option in PLACES:
            out += [option, PLACES[option]]
            if not eq and args:
                args.pop(0)
        else:
            out.append(a)
    script = Path(argv[0]).resolve()
    name = f"benchmarks/{script.name}" if script.parent == RESULTS.parent else argv[0]
    return " ".join(["python", name, *out])


def source_commit() -> str | None:
    """The repository's short commit, with ``+changes`` when ``strict_array/`` or
    the benchmarks' code differ from it (the code a result was measured on)."""
    root = RESULTS.parent.parent

    def git(*args: str) -> str:
        out = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)
        return out.stdout.strip()

    head = git("rev-parse", "--short", "HEAD")
    dirty = git(
        "status", "--porcelain", "--untracked-files=no", "--", "strict_array", "benchmarks/*.py"
    )
    return (head + ("+changes" if dirty else "")) or None


class Results:
    """The tables a run prints, kept for its results file: ``benchmarks/results/NAME.json``
    holds the command, the date, the commit, the environment and each table (its title,
    headers and the cells as printed); the documentation's tables are generated from it.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.environment = environment()
        self.commit = source_commit()  # the code measured: the checkout may move on
        self.tables: list[dict[str, Any]] = []

    def table(
        self,
        title: str,
        headers: Sequence[str],
        rows: Sequence[Sequence[Any]],
        align: str | None = None,
    ) -> str:
        """The table as :func:`table` prints it, under ``title``; kept for the file."""
        self.tables.append(
            {
                "title": title,
                "headers": [str(h) for h in headers],
                "rows": [[str(c) for c in r] for r in rows],
            }
        )
        return f"{title}\n{table(headers, rows, align)}"

    def write(self, path: str | bool | None) -> None:
        """Write the results file to ``path``, or to ``benchmarks/results/NAME.json``
        when it is True (``--results`` without a file); nothing when it is None."""
        if path is None or path is False:
            return
        out = RESULTS / f"{self.name}.json" if path is True else Path(path)
        record = {
            "benchmark": self.name,
            "command": command_line(sys.argv),
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "commit": self.commit,
            "environment": self.environment,
            "tables": self.tables,
        }
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", "utf-8")
        print(f"results: {out}")


def verdict(ok: bool | None) -> str:
    return "-" if ok is None else ("ok" if ok else "MISS")


def small_array_arguments(
    doc: str, statistic: str | None = None, results: Results | None = None
) -> Any:
    """The command line of a per-call benchmark on small arrays (``--repeats``,
    ``--groups``, ``--size``, and ``--results`` for a benchmark that keeps ``results``),
    parsed, with the run's header printed (``statistic``: what the benchmark reports,
    where not the min of medians)."""
    import argparse

    p = argparse.ArgumentParser(description=doc.split("\n")[0])
    p.add_argument("--repeats", type=int, default=30, help="repeats of each timed block")
    p.add_argument("--groups", type=int, default=5, help="groups for min of medians")
    p.add_argument("--size", type=int, default=8, help="side of the square inputs (8)")
    if results is not None:
        add_results_option(p)
    args = p.parse_args()
    print(doc.split("\n")[0])
    print(environment() if results is None else results.environment)
    if statistic is None:
        statistic = f"medians in the quietest of {args.groups} groups of {args.repeats}"
    print(f"statistic: {statistic}\n")
    return args
