"""Tables the site shows, generated when it is built: never typed into a page by hand.

* ``_generated/numpy-names.md``: what every NumPy function and ufunc does on a strict
  array, from the rows of ``strict_array/_numpy_api`` (the one table of NumPy
  interoperation), included by ``numpy-interop.md``;
* ``_generated/sklearn-status.md``: where each scikit-learn estimator and metric stands
  on ``DASK``, from ``benchmarks/results/sklearn.json``, the results file that
  ``benchmarks/bench_sklearn.py --results`` writes, included by ``scikit-learn.md``;
* ``_generated/bench-NAME.md``: the tables of a benchmark's latest run, from
  ``benchmarks/results/NAME.json``, the file ``benchmarks/bench_NAME.py --results``
  writes (``benchmarks/_harness.py``, ``Results``), included by ``dev/benchmarks.md``
  and by the guides that quote them;
* ``_generated/conformance-results.md``: the runs of the array API test suite, from
  ``conformance/results/*.json``, the summaries ``conformance/run.sh`` writes, included
  by ``conformance.md``.

A page includes a generated file with MyST's ``include`` directive; the files are
written at ``builder-inited``, before any page is read, and only when their text
changes (so an unchanged table does not make Sphinx read its pages again).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

DOCS = Path(__file__).resolve().parent.parent
ROOT = DOCS.parent
GENERATED = DOCS / "_generated"
BENCHMARK_RESULTS = ROOT / "benchmarks" / "results"
SKLEARN_RESULTS = BENCHMARK_RESULTS / "sklearn.json"
CONFORMANCE_RESULTS = ROOT / "conformance" / "results"
#: the benchmarks whose results the site shows (``benchmarks/results/NAME.json``)
BENCHMARKS = (
    "sum_to",
    "dask_overhead",
    "out_of_core",
    "out_of_core_workloads",
    "cluster",
    "numpy_mode",
    "numpy_suites",
)


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

    One line per row of the benchmark: on one machine, the run's peak RSS, passes over
    ``X``, time and time per streaming read; on a ``dask.distributed`` cluster, the
    largest worker's peak (the client's beside it) and the bytes spilled to disk; NumPy
    in memory, its peak RSS; whether the values are NumPy's (the largest relative
    difference). The size of ``X`` is said once under the table when every record has
    the same, else in a column of its own; a contender measured at another size than the
    row's says so; a column no record fills is left out, a cell not measured is ``-``.
    """
    names = list(results["rows"])
    records = [r for d in results["rows"].values() for r in d.values()]
    sizes = sorted({r["gib"] for r in records if "gib" in r})
    one_size = sizes[0] if len(sizes) == 1 else None
    columns: list[tuple[str, list[str]]] = [("row", [f"`{n}`" for n in names])]
    if one_size is None:
        columns.append(("X", []))
    for label in ("peak RSS", "passes over X", "time", "time / read"):
        columns.append((label, []))
    for label in ("cluster: worker (client)", "spilled", "NumPy in memory", "values NumPy's"):
        columns.append((label, []))
    cells = dict(columns)
    for name in names:
        by_device = results["rows"][name]
        dask, cluster, numpy = (by_device.get(k) for k in ("dask", "cluster", "numpy"))
        size = (dask or cluster or numpy or {}).get("gib")
        if one_size is None:
            cells["X"].append(fmt_size(size) if size is not None else "-")
        if dask and "error" not in dask:
            cells["peak RSS"].append(fmt_bytes(dask["maxrss"]))
            cells["passes over X"].append(f"{dask['passes']:g}" if "passes" in dask else "-")
            cells["time"].append(fmt_time(dask["time"]))
            cells["time / read"].append(f"{dask['per_read']:.2f}" if "per_read" in dask else "-")
        else:
            cells["peak RSS"].append(_at(dask, "", size) if dask else "-")
            for label in ("passes over X", "time", "time / read"):
                cells[label].append("-")
        if cluster:
            text = f"{fmt_bytes(cluster['worker_peak'])} ({fmt_bytes(cluster['maxrss'])})"
            cells["cluster: worker (client)"].append(_at(cluster, text, size))
            spilled = fmt_bytes(cluster["spilled"]) if "error" not in cluster else "-"
            cells["spilled"].append(spilled)
        else:
            cells["cluster: worker (client)"].append("-")
            cells["spilled"].append("-")
        cells["NumPy in memory"].append(
            _at(numpy, fmt_bytes(numpy["maxrss"]), size) if numpy else "-"
        )
        compared = [r for r in (dask, cluster) if r and "error" not in r]
        cells["values NumPy's"].append("; ".join(_values(r) for r in compared[:1]) or "-")
    shown = [(label, col) for label, col in columns if any(c != "-" for c in col)]
    lines = [
        "| " + " | ".join(label for label, _ in shown) + " |",
        "|" + "|".join("---" for _ in shown) + "|",
    ]
    lines += ["| " + " | ".join(col[i] for _, col in shown) + " |" for i in range(len(names))]
    by_date: dict[str, set[str]] = {}
    for r in records:
        by_date.setdefault(r["date"], set()).add(r.get("commit") or "?")
    stamp = "; ".join(
        f"{date} at " + ", ".join(f"`{c}`" for c in sorted(commits))
        for date, commits in sorted(by_date.items())
    )
    if one_size is not None:
        stamp += f", every row with `X` of {fmt_size(one_size)}"
    loads = [r["load"] for r in records if "load" in r]
    if loads:  # times taken beside other work are longer; memory and values are not
        stamp += f", load average {min(loads):g} to {max(loads):g}"
    return "\n".join(lines) + f"\n\nMeasured {stamp} (`benchmarks/results/sklearn.json`).\n"


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|")


def markdown_table(headers: list[str], rows: list[list[str]]) -> str:
    lines = [
        "| " + " | ".join(_cell(h) for h in headers) + " |",
        "|" + "|".join([":--"] + ["--:"] * (len(headers) - 1)) + "|",
    ]
    return "\n".join(lines + ["| " + " | ".join(_cell(c) for c in r) + " |" for r in rows])


def literal(text: str) -> str:
    """``text`` shown as printed: Markdown's emphasis and code marks escaped (a benchmark
    prints ``__array_ufunc__``, not a bold ``array_ufunc``)."""
    return re.sub(r"([\\`*_])", r"\\\1", str(text))


def benchmark_tables(name: str, results: dict[str, Any] | None) -> str:
    """A benchmark's latest run as its results file holds it: each table under its
    title, then the command, the date, the commit and the environment of the run."""
    if results is None:
        return (
            f"No results yet: `benchmarks/results/{name}.json` has not been written "
            "(its benchmark's `--results` writes it).\n"
        )
    parts = []
    for t in results["tables"]:
        headers = [literal(h) for h in t["headers"]]
        rows = [[literal(c) for c in r] for r in t["rows"]]
        parts += [f"**{literal(t['title'])}**", "", markdown_table(headers, rows), ""]
    parts.append(
        f"Measured {results['date']} at `{results['commit']}` by `{results['command']}` "
        f"({results['environment']}; `benchmarks/results/{name}.json`)."
    )
    return "\n".join(parts) + "\n"


def run_label(run: dict[str, Any]) -> str:
    """A conformance run as the table names it: device, mode and flags."""
    label = f"`{run['device'].upper()}`, `{run['mode']}`, API {run['api_version']}"
    return label + (", no data-dependent shapes" if run["no_dds"] else "")


def _run_order(run: dict[str, Any]) -> tuple[Any, ...]:
    """The plain devices first (``CPU``, then ``DASK``), then the simulated ones; the
    default flags before the others."""
    device = run["device"]
    plain = device in ("cpu", "dask")
    family = 0 if device.startswith("cpu") else 1
    return (not plain, family, device, run["mode"] != "allow", run["no_dds"], run["run"])


def conformance_table(runs: list[dict[str, Any]]) -> str:
    """The table of ``conformance.md``: one line per run's summary (``run.sh`` writes
    one per device, mode and flag set), its outcome counts and when it was made; then
    the suite's commit, the examples per test, the versions, and every failed test by
    name. The examples per test get a column only when the runs differ in them."""
    if not runs:
        return "No runs recorded yet: `conformance/run.sh MODE DEVICE` writes them.\n"
    runs = sorted(runs, key=_run_order)
    examples = sorted({r["examples"] for r in runs})
    headers = ["run", *(["examples"] if len(examples) > 1 else [])]
    headers += ["passed", "xfailed (listed)", "xpassed", "failed", "skipped", "measured"]
    rows = [
        [
            run_label(r),
            *([str(r["examples"])] if len(examples) > 1 else []),
            str(r["passed"]),
            f"{r['xfailed']} ({r['xfail_entries']})",
            str(r["xpassed"]),
            str(r["failed"] + r["error"]),
            str(r["skipped"]),
            f"{r['date']}, `{r['strict_array']}`",
        ]
        for r in runs
    ]
    suites = sorted({f"`{r['suite']}` (spec `{r['spec']}`)" for r in runs})
    versions = sorted({"; ".join(f"{k} {v}" for k, v in r["versions"].items() if v) for r in runs})
    text = markdown_table(headers, rows)
    text += (
        f"\n\nSuite commit {', '.join(suites)}"
        + (f", {examples[0]} examples per test" if len(examples) == 1 else "")
        + f"; {' / '.join(versions)}; "
        f"{'/'.join(sorted({str(r['workers']) for r in runs}))} pytest-xdist workers; "
        "*xfailed (listed)*: the listed tests that failed as expected (the entries the "
        "run's lists hold); *measured*: the date and the commit of `strict_array` "
        "(`conformance/results/`).\n"
    )
    failures = [(r, t) for r in runs for t in r["failures"]]
    if failures:
        text += "\nFailed:\n\n"
        text += "".join(f"- `{r['run']}`: `{f['test']}`: {f['reason']}\n" for r, f in failures)
    return text


def conformance_runs() -> list[dict[str, Any]]:
    return [
        json.loads(p.read_text(encoding="utf-8"))
        for p in sorted(CONFORMANCE_RESULTS.glob("*.json"))
    ]


def _read(path: Path) -> dict[str, Any] | None:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def numpy_names_table() -> str:
    from strict_array._numpy_api import markdown_table

    return markdown_table()


def tables() -> dict[str, str]:
    """Every generated file's name and text."""
    results = json.loads(SKLEARN_RESULTS.read_text(encoding="utf-8"))
    out = {
        "numpy-names.md": numpy_names_table(),
        "sklearn-status.md": sklearn_table(results),
        "conformance-results.md": conformance_table(conformance_runs()),
    }
    for name in BENCHMARKS:
        out[f"bench-{name}.md"] = benchmark_tables(name, _read(BENCHMARK_RESULTS / f"{name}.json"))
    return out


def write_tables(app: Any = None) -> None:
    GENERATED.mkdir(exist_ok=True)
    for name, text in tables().items():
        path = GENERATED / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")


def setup(app: Any) -> dict[str, Any]:
    app.connect("builder-inited", write_tables)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
