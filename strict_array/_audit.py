"""``audit()``: let rank promotions happen and record where they come from.

Inside ``with xp.audit() as report:`` every rank promotion is allowed (as in
mode ``"allow"``) and recorded with its call site (the first frame outside
``strict_array``), the operation and both shapes. ``print(report)`` shows a
table sorted by count; ``report.under("sklearn")`` keeps the sites inside a
package or path. ``python -m strict_array audit SCRIPT`` runs a whole program
this way.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import runpy
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from ._modes import _observer, caller_frame


@dataclass(frozen=True, order=True)
class PromotionSite:
    """One kind of rank promotion at one line of code."""

    filename: str
    lineno: int
    function: str
    operation: str
    shapes: tuple[tuple, tuple]


class AuditReport:
    """Rank promotions recorded by :func:`audit`, counted per call site.

    Attributes
    ----------
    counts : collections.Counter
        :class:`PromotionSite` -> number of times it happened.
    """

    def __init__(self, counts: Counter | None = None) -> None:
        self.counts: Counter[PromotionSite] = Counter() if counts is None else counts
        self._lock = threading.Lock()

    def record(self, operation: str, shape1: tuple, shape2: tuple) -> None:
        frame = caller_frame()
        site = PromotionSite(
            filename=frame.f_code.co_filename if frame else "<unknown>",
            lineno=frame.f_lineno if frame else 0,
            function=frame.f_code.co_name if frame else "<unknown>",
            operation=operation,
            shapes=(tuple(shape1), tuple(shape2)),
        )
        with self._lock:
            self.counts[site] += 1

    def __len__(self) -> int:
        """Number of distinct sites."""
        return len(self.counts)

    @property
    def total(self) -> int:
        """Number of rank promotions."""
        return sum(self.counts.values())

    def most_common(self) -> list[tuple[PromotionSite, int]]:
        return sorted(self.counts.items(), key=lambda kv: (-kv[1], kv[0]))

    def under(self, location: str) -> AuditReport:
        """The sites inside a package (by import name) or under a directory/file path."""
        roots = _roots(location)
        kept = Counter(
            {
                site: n
                for site, n in self.counts.items()
                if any(os.path.abspath(site.filename).startswith(r) for r in roots)
            }
        )
        return AuditReport(kept)

    def __str__(self) -> str:
        if not self.counts:
            return "strict_array audit: no rank promotions."
        rows = [
            (
                str(n),
                f"{_short(site.filename)}:{site.lineno}",
                site.function,
                site.operation,
                f"{site.shapes[0]} & {site.shapes[1]}",
            )
            for site, n in self.most_common()
        ]
        header = ("count", "call site", "function", "operation", "shapes")
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        lines = [
            f"strict_array audit: {self.total} rank promotion(s) at {len(self)} site(s)",
            "  ".join(h.ljust(w) for h, w in zip(header, widths)),
            "  ".join("-" * w for w in widths),
        ]
        lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in rows]
        return "\n".join(line.rstrip() for line in lines)

    __repr__ = __str__


def _roots(location: str) -> list[str]:
    if os.path.exists(location):
        return [os.path.abspath(location)]
    spec = importlib.util.find_spec(location)
    if spec is None:
        raise ValueError(f"audit: {location!r} is neither a path nor an importable package.")
    if spec.submodule_search_locations:
        return [os.path.abspath(p) for p in spec.submodule_search_locations]
    return [os.path.abspath(spec.origin or location)]


def _short(filename: str) -> str:
    for base in sorted(sys.path, key=len, reverse=True):
        if base and filename.startswith(base + os.sep):
            return filename[len(base) + 1 :]
    return filename


@contextlib.contextmanager
def audit() -> Iterator[AuditReport]:
    """Allow and record rank promotions inside the block.

    Yields
    ------
    AuditReport
        Filled in as the block runs; print it for a table sorted by count.

    Examples
    --------
    >>> import strict_array as xp
    >>> with xp.audit() as report:
    ...     _ = xp.ones((4, 3)) - xp.ones(3)
    >>> report.total
    1
    """
    report = AuditReport()
    token = _observer.set(report.record)
    try:
        yield report
    finally:
        _observer.reset(token)


USAGE = """usage: python -m strict_array audit [--under PATH_OR_PACKAGE] [SCRIPT [ARGS...] | -m MODULE [ARGS...]]

Runs a Python program with rank promotions allowed and recorded, then prints
where they happened (sorted by count). Without a target it runs a bundled
example."""


def main(argv: list[str]) -> int:
    """Command line: ``python -m strict_array audit ...``."""
    under = None
    if argv[:1] == ["--under"] and len(argv) >= 2:
        under, argv = argv[1], argv[2:]
    if argv[:1] in (["-h"], ["--help"]):
        print(USAGE)
        return 0
    status = 0
    with audit() as report:
        saved = sys.argv[:]
        try:
            if not argv:
                from . import _audit_example

                # run as __main__ so that its frames count as user code
                runpy.run_path(_audit_example.__file__, run_name="__main__")
            elif argv[0] == "-m":
                if len(argv) < 2:
                    print(USAGE, file=sys.stderr)
                    return 2
                sys.argv = argv[1:]
                runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
            else:
                sys.argv = argv[:]
                sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
                runpy.run_path(argv[0], run_name="__main__")
        except SystemExit as e:
            status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        finally:
            sys.argv = saved
    shown = report.under(under) if under else report
    print(shown, file=sys.stderr)
    return status
