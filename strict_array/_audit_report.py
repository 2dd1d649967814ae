"""What an audit records: rank promotions counted per call site (:class:`AuditReport`),
written as JSON and read back as a baseline of known sites (:class:`RankPromotionBaseline`).

A site's *identity*, which a baseline matches, leaves out the line number, so that a
baseline survives edits above the line: it is the file (relative to the project's
root, or to the import directory for installed packages), the function, the
operation and the two shapes (see :func:`site_path`).
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import site
import sys
import sysconfig
import threading
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import FrameType
from typing import Any

from ._typing import Shape

__all__ = ["AuditReport", "PromotionSite", "RankPromotionBaseline", "site_path"]

#: the ``format`` of a JSON report; ``version`` changes when its meaning does
REPORT_FORMAT = "strict_array rank-promotion report"
REPORT_VERSION = 1


@dataclass(frozen=True, order=True)
class PromotionSite:
    """One kind of rank promotion at one line of code.

    ``outer`` is true when NumPy's alignment makes the result larger than both
    operands, as an outer product does (``(n, 1) - (n,)`` is ``(n, n)``).
    """

    filename: str
    lineno: int
    function: str
    operation: str
    shapes: tuple[Shape, Shape]
    outer: bool = False


class AuditReport:
    """Rank promotions recorded by :func:`strict_array.audit`, counted per call site.

    A site is one line of code: that of the first frame of code under audit outside
    ``strict_array`` (see :mod:`strict_array._caller`); each of its kinds of promotion
    (operation and shapes) is counted apart. Print the report for a table of the sites,
    each with its operations and shapes under it.

    Attributes
    ----------
    counts : collections.Counter
        :class:`PromotionSite` -> number of times it happened.
    """

    __module__ = "strict_array"

    def __init__(self, counts: Counter[PromotionSite] | None = None) -> None:
        self.counts: Counter[PromotionSite] = Counter() if counts is None else counts
        self._lock = threading.Lock()

    def record(
        self,
        operation: str,
        shape1: Shape,
        shape2: Shape,
        frame: FrameType | None,
        *,
        outer: bool = False,
    ) -> None:
        """Count one promotion of ``operation`` between two shapes at ``frame``
        (``outer``: the result is larger than both operands)."""
        site = PromotionSite(
            filename=frame.f_code.co_filename if frame else "<unknown>",
            lineno=frame.f_lineno if frame else 0,
            function=frame.f_code.co_name if frame else "<unknown>",
            operation=operation,
            shapes=(tuple(shape1), tuple(shape2)),
            outer=outer,
        )
        with self._lock:
            self.counts[site] += 1

    def merge(self, other: AuditReport) -> None:
        """Add ``other``'s counts to this report."""
        with self._lock:
            self.counts.update(other.counts)

    def __len__(self) -> int:
        """Number of sites: distinct lines of code."""
        return len({(kind.filename, kind.lineno) for kind in self.counts})

    @property
    def total(self) -> int:
        """Number of rank promotions."""
        return sum(self.counts.values())

    def most_common(self) -> list[tuple[PromotionSite, int]]:
        """The sites with their counts: outer-product-like promotions (a result larger
        than both operands, ``site.outer``) first, then the most frequent first."""
        return sorted(self.counts.items(), key=lambda kv: (not kv[0].outer, -kv[1], kv[0]))

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

    # --- JSON --------------------------------------------------------------------------
    def to_json(self, root: str | os.PathLike[str] | None = None) -> dict[str, Any]:
        """The report as a JSON-ready dict: one entry per site, with its identity.

        Parameters
        ----------
        root : path, optional
            The project's root directory; file paths under it are written relative
            to it (the working directory by default). See :func:`site_path`.

        Returns
        -------
        dict
            ``{"format", "version", "total", "sites": [...]}``; each site has
            ``path``, ``line``, ``function``, ``operation``, ``shapes`` (two lists,
            ``null`` for an unknown size), ``count`` and ``outer``.
        """
        base = _root(root)
        sites = [
            {
                "path": site_path(s.filename, base),
                "line": s.lineno,
                "function": s.function,
                "operation": s.operation,
                "shapes": [list(s.shapes[0]), list(s.shapes[1])],
                "count": n,
                "outer": s.outer,
            }
            for s, n in self.most_common()
        ]
        return {
            "format": REPORT_FORMAT,
            "version": REPORT_VERSION,
            "total": self.total,
            "sites": sites,
        }

    def write_json(
        self, path: str | os.PathLike[str], root: str | os.PathLike[str] | None = None
    ) -> None:
        """Write :meth:`to_json` to ``path`` (a baseline for later runs)."""
        data = self.to_json(root)
        sites = ",\n".join("  " + json.dumps(site) for site in data.pop("sites"))
        head = json.dumps(data)[:-1]  # one site a line: a baseline diffs well
        with open(path, "w", encoding="utf-8") as f:
            f.write(f'{head}, "sites": [\n{sites}\n]}}\n' if sites else f'{head}, "sites": []}}\n')

    @classmethod
    def from_json(
        cls,
        data: Mapping[str, Any] | str | os.PathLike[str],
        root: str | os.PathLike[str] | None = None,
    ) -> AuditReport:
        """A report from :meth:`to_json`'s dict or a JSON file written by :meth:`write_json`.

        Relative paths are taken relative to ``root`` (the working directory by
        default).

        Raises
        ------
        ValueError
            The file or dict is not such a report (the message says what is wrong).
        """
        data, where = _load(data)
        base = _root(root)
        report = cls()
        for entry in data["sites"]:
            path, function, operation, shapes = _identity(entry, where)
            count = entry.get("count", 1)
            if not isinstance(count, int) or isinstance(count, bool) or count < 1:
                raise ValueError(
                    f"{where}: a site's count must be a positive integer, got {count!r}."
                )
            line = entry.get("line", 0)
            site_ = PromotionSite(
                filename=path if os.path.isabs(path) else os.path.join(base, path),
                lineno=line if isinstance(line, int) else 0,
                function=function,
                operation=operation,
                shapes=shapes,
                outer=entry.get("outer") is True,
            )
            report.counts[site_] += count
        return report

    def sites(self) -> list[tuple[tuple[str, int, str], list[tuple[PromotionSite, int]]]]:
        """The sites, each one line of code, ``(filename, lineno, function)``, with the
        promotions recorded there (operation and shapes, as :meth:`most_common` gives
        them): lines with an outer-product-like promotion first, then the busiest."""
        lines: dict[tuple[str, int, str], list[tuple[PromotionSite, int]]] = {}
        for kind, n in self.most_common():
            lines.setdefault((kind.filename, kind.lineno, kind.function), []).append((kind, n))
        return sorted(
            lines.items(),
            key=lambda kv: (not kv[1][0][0].outer, -sum(n for _, n in kv[1]), kv[0]),
        )

    def __str__(self) -> str:
        if not self.counts:
            return "strict_array audit: no rank promotions."
        rows: list[tuple[str, str, str]] = []
        for (filename, lineno, function), kinds in self.sites():
            outer = "yes" if kinds[0][0].outer else ""
            rows.append((outer, str(sum(n for _, n in kinds)),
                         f"{_short(filename)}:{lineno} in {function}"))  # fmt: skip
            rows += [("yes" if kind.outer else "", str(n),
                      f"  {kind.operation}  {kind.shapes[0]} & {kind.shapes[1]}")
                     for kind, n in kinds]  # fmt: skip
        header = ("outer", "count", "site (line of code), its operations and shapes")
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        lines = [
            f"strict_array audit: {self.total} rank promotion(s) at {len(self)} site(s)",
            "  ".join(h.ljust(w) for h, w in zip(header, widths)),
            "  ".join("-" * w for w in widths),
        ]
        lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in rows]
        outer_sites = sum(1 for _, kinds in self.sites() if kinds[0][0].outer)
        if outer_sites:
            lines.append(
                f"outer: {outer_sites} site(s), listed first, make a result larger than both "
                "operands, as an outer product does ((n, 1) - (n,) is (n, n)): the "
                "likeliest bugs."
            )
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


# --- site identity ---------------------------------------------------------------------
SiteKey = tuple[str, str, str, tuple[Shape, Shape]]


@functools.lru_cache(maxsize=1)
def _installed_dirs() -> tuple[str, ...]:
    """The directories installed packages are imported from, longest first."""
    paths = sysconfig.get_paths()
    dirs = {paths[k] for k in ("purelib", "platlib", "stdlib", "platstdlib") if k in paths}
    try:
        dirs.update(site.getsitepackages())
    except AttributeError:  # some virtualenv versions' site module lacks it
        pass
    if site.ENABLE_USER_SITE and site.USER_SITE:
        dirs.add(site.USER_SITE)
    return tuple(sorted({os.path.realpath(d) for d in dirs}, key=len, reverse=True))


@functools.lru_cache(maxsize=4096)
def site_path(filename: str, root: str) -> str:
    """A call site's file as a baseline names it, the same on every machine.

    A file of an installed package is named from its import directory
    (``sklearn/utils/extmath.py``, whatever the environment's path), a file under
    ``root`` (the project: its tests and sources) relative to ``root``; any other
    file by its absolute path. Separators are ``/``.
    """
    if filename.startswith("<"):  # <string>, <stdin>, <doctest ...>: no file
        return filename
    real = os.path.realpath(filename)
    for base in (*_installed_dirs(), os.path.realpath(root)):
        if real.startswith(base + os.sep):
            return os.path.relpath(real, base).replace(os.sep, "/")
    return real.replace(os.sep, "/")


def _root(root: str | os.PathLike[str] | None) -> str:
    return os.path.abspath(os.fspath(root) if root is not None else os.getcwd())


def _load(data: Mapping[str, Any] | str | os.PathLike[str]) -> tuple[Mapping[str, Any], str]:
    """A report's dict (read from a file if given a path), checked; and what to call it."""
    if isinstance(data, (str, os.PathLike)):
        where = os.fspath(data)
        try:
            with open(where, encoding="utf-8") as f:
                data = json.load(f)
        except OSError as e:
            raise ValueError(
                f"{where}: cannot read the rank-promotion report ({e.strerror})."
            ) from None
        except json.JSONDecodeError as e:
            raise ValueError(
                f"{where}: not JSON ({e}); a report is written by --rank-promotion-report."
            ) from None
    else:
        where = "rank-promotion report"
    if not isinstance(data, Mapping) or data.get("format") != REPORT_FORMAT:
        raise ValueError(
            f'{where}: not a strict_array rank-promotion report (no "format": '
            f"{REPORT_FORMAT!r}); write one with --rank-promotion-report=PATH or "
            "AuditReport.write_json."
        )
    if data.get("version") != REPORT_VERSION:
        raise ValueError(
            f"{where}: report version {data.get('version')!r}, but this strict_array "
            f"reads version {REPORT_VERSION}; write the report again."
        )
    if not isinstance(data.get("sites"), list):
        raise ValueError(f'{where}: "sites" must be a list of sites.')
    return data, where


def _shape(value: object) -> Shape | None:
    if not isinstance(value, list):
        return None
    if not all(
        v is None or (isinstance(v, int) and not isinstance(v, bool) and v >= 0) for v in value
    ):
        return None
    return tuple(value)


def _identity(entry: object, where: str) -> SiteKey:
    """A site entry's identity (path, function, operation, shapes), checked."""
    if not isinstance(entry, Mapping):
        raise ValueError(f"{where}: each site must be an object, got {entry!r}.")
    fields = [entry.get(k) for k in ("path", "function", "operation")]
    shapes = entry.get("shapes")
    pair = [_shape(s) for s in shapes] if isinstance(shapes, list) and len(shapes) == 2 else []
    if not all(isinstance(v, str) for v in fields) or len(pair) != 2 or None in pair:
        raise ValueError(
            f'{where}: each site needs "path", "function" and "operation" '
            f'(strings) and "shapes" (two lists of sizes), got {dict(entry)!r}.'
        )
    return (fields[0], fields[1], fields[2], (pair[0], pair[1]))  # type: ignore[return-value]


class RankPromotionBaseline:
    """Known rank-promotion sites, let through where the mode would raise or warn.

    Made from a JSON report (:meth:`AuditReport.write_json`, pytest's
    ``--rank-promotion-report``, ``python -m strict_array audit --report``): under
    ``"raise"`` (or ``"warn"``), a promotion at a site of the baseline is allowed
    and recorded in :attr:`report`; promotions at other sites raise (or warn) as
    before. A site matches by its identity: file (see :func:`site_path`),
    function, operation and shapes, not its line, so edits elsewhere in the file
    keep the baseline valid.

    Parameters
    ----------
    source : path, dict or AuditReport
        A JSON report file, its dict, or a report recorded in this process.
    root : path, optional
        The project's root directory, against which files are named (the working
        directory by default; pytest's rootdir in the pytest plugin).

    Attributes
    ----------
    sites : frozenset
        The identities ``(path, function, operation, shapes)`` let through.
    report : AuditReport
        The promotions let through so far.
    root : str
    """

    __module__ = "strict_array"

    def __init__(
        self,
        source: Mapping[str, Any] | str | os.PathLike[str] | AuditReport,
        root: str | os.PathLike[str] | None = None,
    ) -> None:
        self.root = _root(root)
        if isinstance(source, AuditReport):
            source = source.to_json(self.root)
        data, where = _load(source)
        self.sites: frozenset[SiteKey] = frozenset(_identity(e, where) for e in data["sites"])
        self.report = AuditReport()

    def key(self, frame: FrameType | None, operation: str, shape1: Shape, shape2: Shape) -> SiteKey:
        """The identity of a promotion of ``operation`` at ``frame``."""
        if frame is None:
            return ("<unknown>", "<unknown>", operation, (tuple(shape1), tuple(shape2)))
        code = frame.f_code
        return (
            site_path(code.co_filename, self.root),
            code.co_name,
            operation,
            (tuple(shape1), tuple(shape2)),
        )

    def admits(self, frame: FrameType | None, operation: str, shape1: Shape, shape2: Shape) -> bool:
        """Whether the baseline holds this promotion's site."""
        return self.key(frame, operation, shape1, shape2) in self.sites

    def unseen(self, seen: Iterable[SiteKey] | None = None) -> list[SiteKey]:
        """The baseline's sites that did not promote (in :attr:`report`, or ``seen``):
        paid down, or not run; candidates to drop from the baseline."""
        if seen is None:
            seen = {self.key_of(s) for s in self.report.counts}
        return sorted(self.sites - set(seen), key=repr)

    def key_of(self, site_: PromotionSite) -> SiteKey:
        """The identity of a recorded site."""
        return (site_path(site_.filename, self.root), site_.function, site_.operation, site_.shapes)

    def __len__(self) -> int:
        return len(self.sites)

    def __repr__(self) -> str:
        return f"RankPromotionBaseline({len(self)} site(s), root={self.root!r})"
