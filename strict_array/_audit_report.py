"""What an audit records: rank promotions counted per call site (:class:`AuditReport`)."""

from __future__ import annotations

import importlib.util
import os
import sys
import threading
from collections import Counter
from dataclasses import dataclass
from types import FrameType

from ._typing import Shape

__all__ = ["AuditReport", "PromotionSite"]


@dataclass(frozen=True, order=True)
class PromotionSite:
    """One kind of rank promotion at one line of code."""

    filename: str
    lineno: int
    function: str
    operation: str
    shapes: tuple[Shape, Shape]


class AuditReport:
    """Rank promotions recorded by :func:`strict_array.audit`, counted per call site.

    A call site is the first frame outside ``strict_array``. Print the report
    for a table sorted by count.

    Attributes
    ----------
    counts : collections.Counter
        :class:`PromotionSite` -> number of times it happened.
    """

    __module__ = "strict_array"

    def __init__(self, counts: Counter[PromotionSite] | None = None) -> None:
        self.counts: Counter[PromotionSite] = Counter() if counts is None else counts
        self._lock = threading.Lock()

    def record(self, operation: str, shape1: Shape, shape2: Shape, frame: FrameType | None) -> None:
        """Count one promotion of ``operation`` between two shapes at ``frame``."""
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
        """The sites with their counts, most frequent first."""
        return sorted(self.counts.items(), key=lambda kv: (-kv[1], kv[0]))

    def under(self, location: str) -> AuditReport:
        """The sites inside a package (by import name) or under a directory or file path.

        Raises
        ------
        ValueError
            ``location`` is neither an existing path nor an importable package.
        """
        roots = package_roots(location)
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


def package_roots(location: str) -> list[str]:
    """The directories (or file) of a package by import name, or of a path."""
    if os.path.exists(location):
        return [os.path.abspath(location)]
    try:
        spec = importlib.util.find_spec(location)
    except (ImportError, ValueError):
        spec = None
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
