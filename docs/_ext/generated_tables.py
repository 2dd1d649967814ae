"""Tables the site shows, generated when it is built: never typed into a page by hand.

* ``_generated/numpy-names.md``: what every NumPy function and ufunc does on a strict
  array, from the rows of ``strict_array/_numpy_api`` (the one table of NumPy
  interoperation), included by ``numpy-interop.md``;
* ``_generated/sklearn-status.md``: where each scikit-learn estimator and metric stands
  on ``DASK``, from ``benchmarks/results/sklearn.json``, the results file that
  ``benchmarks/bench_sklearn.py --results`` writes, included by ``scikit-learn.md``.

A page includes a generated file with MyST's ``include`` directive; the files are
written at ``builder-inited``, before any page is read, and only when their text
changes (so an unchanged table does not make Sphinx read its pages again).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DOCS = Path(__file__).resolve().parent.parent
ROOT = DOCS.parent
GENERATED = DOCS / "_generated"
SKLEARN_RESULTS = ROOT / "benchmarks" / "results" / "sklearn.json"


def fmt_bytes(n: float) -> str:
    """``n`` bytes in MiB under 1 GiB, else in GiB (as the benchmarks print them)."""
    if n == 0:
        return "0"
    if n >= 2**30:
        return f"{n / 2**30:.1f} GiB"
    return f"{n / 2**20:.0f} MiB"


def fmt_time(seconds: float) -> str:
    return f"{seconds:.3g} s" if seconds < 100 else f"{seconds:.0f} s"


def fmt_size(gib: float) -> str:
    return f"{gib:g} GiB"


def _at(rec: dict[str, Any], text: str, size: float | None) -> str:
    """A contender's cell: its failure, or ``text`` with its size where that is not
    the row's."""
    if "error" in rec:
        return f"failed: {rec['error']}"
    return text if rec.get("gib") == size else f"{text} at {fmt_size(rec['gib'])}"


def _values(rec: dict[str, Any]) -> str:
    same = rec.get("same_values")
    if same is None:
        return "not compared"
    worst = rec.get("worst_difference")
    return f"{'yes' if same else '**no**'} ({worst:.1e})" if worst is not None else "yes"


def sklearn_table(results: dict[str, Any]) -> str:
    """The status table of ``scikit-learn.md`` from the results file's records.

    One line per row of the benchmark: on one machine, the size of ``X`` and the run's
    peak RSS, passes over ``X``, time and time per streaming read; on a
    ``dask.distributed`` cluster, the largest worker's peak (the client's beside it) and
    the bytes spilled to disk; NumPy in memory, its peak RSS; whether the values are
    NumPy's (the largest relative difference). A contender measured at another size than
    the row's one-machine run says so; one not measured is ``-``.
    """
    lines = [
        "| row | X | peak RSS | passes over X | time | time / read | "
        "cluster: worker (client) | spilled | NumPy in memory | values NumPy's |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, by_device in results["rows"].items():
        dask, cluster, numpy = (by_device.get(k) for k in ("dask", "cluster", "numpy"))
        size = (dask or cluster or numpy or {}).get("gib")

        cells = [f"`{name}`", fmt_size(size) if size is not None else "-"]
        if dask and "error" not in dask:
            cells += [
                fmt_bytes(dask["maxrss"]),
                f"{dask['passes']:g}" if "passes" in dask else "-",
                fmt_time(dask["time"]),
                f"{dask['per_read']:.2f}" if "per_read" in dask else "-",
            ]
        else:
            cells += [_at(dask, "", size) if dask else "-", "-", "-", "-"]
        if cluster:
            text = f"{fmt_bytes(cluster['worker_peak'])} ({fmt_bytes(cluster['maxrss'])})"
            cells.append(_at(cluster, text, size))
            cells.append(fmt_bytes(cluster["spilled"]) if "error" not in cluster else "-")
        else:
            cells += ["-", "-"]
        cells.append(_at(numpy, fmt_bytes(numpy["maxrss"]), size) if numpy else "-")
        compared = [r for r in (dask, cluster) if r and "error" not in r]
        cells.append("; ".join(_values(r) for r in compared[:1]) or "-")
        lines.append("| " + " | ".join(cells) + " |")
    records = [r for d in results["rows"].values() for r in d.values()]
    by_date: dict[str, set[str]] = {}
    for r in records:
        by_date.setdefault(r["date"], set()).add(r.get("commit") or "?")
    stamp = "; ".join(
        f"{date} at " + ", ".join(f"`{c}`" for c in sorted(commits))
        for date, commits in sorted(by_date.items())
    )
    loads = [r["load"] for r in records if "load" in r]
    if loads:  # times taken beside other work are longer; memory and values are not
        stamp += f", load average {min(loads):g} to {max(loads):g}"
    return "\n".join(lines) + f"\n\nMeasured {stamp} (`benchmarks/results/sklearn.json`).\n"


def numpy_names_table() -> str:
    from strict_array._numpy_api import markdown_table

    return markdown_table()


def tables() -> dict[str, str]:
    """Every generated file's name and text."""
    results = json.loads(SKLEARN_RESULTS.read_text(encoding="utf-8"))
    return {"numpy-names.md": numpy_names_table(), "sklearn-status.md": sklearn_table(results)}


def write_tables(app: Any = None) -> None:
    GENERATED.mkdir(exist_ok=True)
    for name, text in tables().items():
        path = GENERATED / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")


def setup(app: Any) -> dict[str, Any]:
    app.connect("builder-inited", write_tables)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
