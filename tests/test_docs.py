"""The documentation: doctests of the pages, a complete API reference, commands in sync.

Every ``>>>`` example in docs/ (its subfolders too), README.md and the READMEs the site includes runs
and prints what the page says (the pages that show ``DASK`` a second time with ``DASK``
the default device); the tables of figures are generated from results files, never
typed into a page; every public name of ``strict_array``,
``strict_array.linalg`` and ``strict_array.fft`` is documented on an API reference page
(docs/reference/*.rst); README's commands are the ones .ci/run and the site's index run.
(The site itself is built with warnings as errors by .ci/run.)
"""

from __future__ import annotations

import contextlib
import doctest
import importlib
import io
import itertools
import json
import os
import re
import sys
import traceback
import warnings
from pathlib import Path
from unittest import mock

import pytest

import strict_array as xp

ROOT = Path(__file__).resolve().parent.parent
#: folders of docs/ that hold no page: the build, and what the build generates
NOT_PAGES = {"_build", "_generated", "_intersphinx"}
PAGES = [
    *sorted(
        page
        for page in (ROOT / "docs").rglob("*.md")
        if not NOT_PAGES & set(page.relative_to(ROOT / "docs").parts)
    ),
    ROOT / "README.md",
    ROOT / "benchmarks" / "README.md",
    ROOT / "conformance" / "README.md",
]
REFERENCE = ROOT / "docs" / "reference"


#: a fenced block of Python code; the first line of a quote of the project's source
_PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```$", re.S | re.M)
_QUOTE = re.compile(r"# (strict_array/[\w/]+\.py|tests/[\w/]+\.py)\n")
_FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def is_user_page(page: Path) -> bool:
    """A page a user reads: not a contributor's note under docs/dev/."""
    return not page.is_relative_to(ROOT / "docs" / "dev")


_DISPLAY = sys.__displayhook__


class _ComputedChecker(doctest.OutputChecker):
    """Output checks of the ``DASK`` pass: an example's output matches as it is, or with
    each lazy array it showed replaced by the ``CPU`` array it computes to (a page that
    shows ``CPU`` values checks them on ``DASK`` too)."""

    def __init__(self) -> None:
        self.shown: list[tuple[str, str]] = []

    def display(self, value: object) -> None:
        _DISPLAY(value)
        if isinstance(value, xp.Array) and value.device.lazy:
            self.shown.append((repr(value), repr(value.to_device(xp.CPU))))

    def check_output(self, want: str, got: str, optionflags: int) -> bool:
        shown, self.shown = self.shown, []
        if super().check_output(want, got, optionflags):
            return True
        for lazy, computed in shown:
            got = got.replace(lazy, computed, 1)
        return super().check_output(want, got, optionflags)


class _ComputedRunner(doctest.DocTestRunner):
    """A doctest runner whose checks see lazy arrays' values (doctest displays an
    example's value with ``sys.__displayhook__``)."""

    def __init__(self, optionflags: int) -> None:
        self.checker = _ComputedChecker()
        super().__init__(checker=self.checker, optionflags=optionflags)

    def run(self, test, *args, **kwargs):  # type: ignore[override]
        with mock.patch.object(sys, "__displayhook__", self.checker.display):
            return super().run(test, *args, **kwargs)


@contextlib.contextmanager
def on_device(device: xp.Device | None):
    """The page's examples with ``device`` the default device, for the process and for
    the processes it starts (``STRICT_ARRAY_DEVICE``); ``None``: as they are."""
    if device is None:
        yield
        return
    previous = xp.get_default_device()
    xp.set_default_device(device)
    try:
        with mock.patch.dict(os.environ, {"STRICT_ARRAY_DEVICE": device.name.lower()}):
            yield
    finally:
        xp.set_default_device(previous)


def run_page(page: Path, device: xp.Device | None = None) -> tuple[int, int]:
    """Run every example of ``page`` in order, in one namespace, as a reader would:
    its ``>>>`` examples as doctests, and (on a user's page) each ```` ```python ````
    block as a script, which must run without an error. A block that opens with a
    comment naming a file of the project (``# strict_array/_backends/__init__.py``) is
    a quote of that file: its lines must be in it. With ``device`` (``DASK``), the
    same examples run with it the default device, a lazy array shown by its values.
    Returns (failed, attempted)."""
    with on_device(device):
        return _run_page(page, lazy=device is not None and device.lazy)


def _run_page(page: Path, lazy: bool) -> tuple[int, int]:
    text = page.read_text(encoding="utf-8")
    globs: dict = {"__name__": "__main__"}
    parser = doctest.DocTestParser()
    runner = (_ComputedRunner if lazy else doctest.DocTestRunner)(optionflags=_FLAGS)
    failed = attempted = done = 0

    def doctests(upto: int) -> None:
        nonlocal failed, attempted, done
        lineno = text.count("\n", 0, done)
        test = parser.get_doctest(text[done:upto], globs, page.name, str(page), lineno)
        result = runner.run(test, clear_globs=False)
        globs.update(test.globs)
        failed, attempted = failed + result.failed, attempted + result.attempted

    for block in _PYTHON_BLOCK.finditer(text) if is_user_page(page) else ():
        doctests(block.start())
        done = block.end()
        code, attempted = block.group(1), attempted + 1
        where = f"{page.name}:{text.count(chr(10), 0, block.start()) + 2}"
        if quote := _QUOTE.match(code):
            source = (ROOT / quote[1]).read_text(encoding="utf-8")
            missing = [line for line in code.splitlines()[1:] if line.strip() not in source]
            if missing:
                print(f"{where}: not in {quote[1]}: {missing}")
                failed += 1
            continue
        try:
            # as a reader runs it: warnings are shown, not errors (the suite's filters
            # make them errors)
            with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                exec(compile(code, where, "exec"), globs)
        except Exception:
            print(f"{where}: the block raised\n{traceback.format_exc()}")
            failed += 1
    doctests(len(text))
    return failed, attempted


@pytest.fixture
def reader_state(tmp_path, monkeypatch):
    """What a page's examples may change for the process: the rank-promotion policy,
    warnings filters, the environment and the working directory, restored after it."""
    from strict_array import _policy

    process = list(_policy._process)
    monkeypatch.chdir(tmp_path)
    with warnings.catch_warnings(), mock.patch.dict(os.environ):
        yield
    _policy._process[:] = process


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_doc_examples(page, reader_state):
    failed, attempted = run_page(page)
    assert failed == 0, f"{failed} of {attempted} examples failed in {page.name}"


#: the user's pages that show their code on ``DASK``: the tutorial, the guides to data
#: larger than memory, scikit-learn out of core and clusters, and the pages leading to
#: them. Their examples run a second time with ``DASK`` the default device: the same
#: code gives the same values and refusals there (``run_page``).
DASK_PAGES = [
    ROOT / "docs" / name
    for name in (
        "index.md",
        "tutorial.md",
        "howto.md",
        "dask.md",
        "dask-memory.md",
        "scikit-learn.md",
        "cluster.md",
        "devices.md",
    )
]


@pytest.mark.parametrize("page", DASK_PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_doc_examples_on_dask(page, reader_state):
    failed, attempted = run_page(page, xp.DASK)
    assert failed == 0, f"{failed} of {attempted} examples failed on DASK in {page.name}"


def test_dask_pages_are_the_guides_that_show_dask():
    """Every page the brief's guides name is run on DASK, and each shows DASK."""
    for page in DASK_PAGES:
        assert is_user_page(page) and page in PAGES
        assert "DASK" in page.read_text(encoding="utf-8"), page


def test_dask_pass_checks_values_and_lazy_outputs(tmp_path, reader_state):
    """On DASK a page's CPU output is checked against the values computed, a lazy
    output shown as such matches as it is, and a wrong value fails."""
    page = tmp_path / "page.md"
    page.write_text(
        ">>> import strict_array as xp\n"
        ">>> xp.asarray([1.0, 2.0]) + 1.0\n"
        "Array([2., 3.], dtype=float64)\n"
        ">>> xp.ones(2, device=xp.DASK)\n"
        "Array(<lazy, shape=(2,)>, dtype=float64, device=strict_array.DASK)\n"
        ">>> xp.ones(2).device\n"
        "strict_array.DASK\n"
    )
    assert run_page(page, xp.DASK) == (0, 4)
    assert run_page(page) == (1, 4)  # the last output names DASK: on CPU it fails
    page.write_text(
        ">>> import strict_array as xp\n>>> xp.asarray([1.0, 2.0])\nArray([1., 3.], dtype=float64)\n"
    )
    assert run_page(page, xp.DASK) == (1, 2)
    assert xp.get_default_device() == xp.CPU


def test_page_runner_runs_python_blocks_and_checks_quotes(tmp_path, reader_state):
    page = tmp_path / "page.md"
    page.write_text(
        "```python\nvalue = 6 * 7\n```\n\n```pycon\n>>> value\n42\n\n```\n\n"
        "```python\n# strict_array/_policy.py\ndef set_rank_promotion_policy(\n```\n"
    )
    assert run_page(page) == (0, 3)
    page.write_text("```python\nraise ValueError\n```\n```python\n# tests/conftest.py\nnope\n```\n")
    assert run_page(page) == (2, 2)


def test_docstring_examples():
    modules = [xp._policy, xp._explicit, xp._devices, xp._compute, xp._flags]
    failed = sum(
        doctest.testmod(m, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE).failed
        for m in modules
    )
    assert failed == 0


# --- tables generated when the site is built ---------------------------------------
def _generated_tables():
    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    try:
        return importlib.import_module("generated_tables")
    finally:
        sys.path.remove(str(ROOT / "docs" / "_ext"))


#: each generated table and the pages that include it
INCLUDED = [
    ("numpy-interop.md", "numpy-names.md"),
    ("scikit-learn.md", "sklearn-status.md"),
    ("conformance.md", "conformance-results.md"),
    ("dask-memory.md", "bench-out_of_core.md"),
    ("cluster.md", "bench-cluster.md"),
    ("dev/benchmarks.md", "bench-sum_to.md"),
    ("dev/benchmarks.md", "bench-dask_overhead.md"),
    ("dev/benchmarks.md", "bench-out_of_core.md"),
    ("dev/benchmarks.md", "bench-cluster.md"),
    ("dev/benchmarks.md", "bench-out_of_core_workloads.md"),
    ("dev/benchmarks.md", "bench-numpy_mode.md"),
    ("dev/benchmarks.md", "bench-numpy_suites.md"),
]


def _table_headers(text: str) -> list[str]:
    """The header lines of the Markdown tables in ``text``."""
    pairs = itertools.pairwise(text.splitlines())
    return [a for a, b in pairs if a.startswith("|") and b.startswith(("|-", "|:"))]


@pytest.mark.parametrize(("page", "table"), INCLUDED)
def test_pages_include_their_generated_tables(page, table):
    """A status table is generated at build time, never typed into a page: the page
    includes the generated file, and holds no copy of the table's header."""
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    up = "../" * page.count("/")
    assert f"```{{include}} {up}_generated/{table}\n```" in text
    for header in _table_headers(_generated_tables().tables()[table]):
        assert header not in text, f"docs/{page} holds a hand-typed copy of a generated table"


def test_every_generated_table_is_shown():
    assert {table for _, table in INCLUDED} == set(_generated_tables().tables())


#: a cell that is a measurement and nothing else: "12.3 µs", "1.05x", "390 MiB"
_MEASURED = re.compile(r"[-+]?\d[\d,]*(\.\d+)? ?(µs|ms|s|B|KiB|MiB|GiB|GB/s|x)")
_COUNT_HEADER = re.compile(r"\|\s*(passed|xfailed|failed)\s*\|")


def hand_typed_tables(text: str) -> list[str]:
    """The rows of Markdown tables in ``text`` (outside code blocks) that hold figures of
    a run: two cells or more that are each a time, a size or a ratio; and the headers of
    tables of test outcomes (passed, failed, xfailed)."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    found = []
    for line in text.splitlines():
        if not line.startswith("|") or line.startswith(("|-", "|:")):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if sum(1 for c in cells if _MEASURED.fullmatch(c)) >= 2 or _COUNT_HEADER.search(line):
            found.append(line)
    return found


@pytest.mark.parametrize(
    "page", [p for p in PAGES if is_user_page(p)], ids=lambda p: str(p.relative_to(ROOT))
)
def test_no_hand_typed_figures_table(page):
    """The user's pages and the READMEs (benchmarks' and conformance's among them) show a
    run's figures only in tables generated from results files: a table of timings,
    sizes, ratios or test counts typed into a page drifts from the code. (The
    measurement logs under docs/dev/ are histories of runs, each dated.)"""
    rows = hand_typed_tables(page.read_text(encoding="utf-8"))
    assert not rows, f"{page.relative_to(ROOT)} holds hand-typed figures: {rows[:3]}"


def test_hand_typed_tables_are_found():
    text = "| case | numpy | ours |\n|---|---|---|\n| add | 8.31 ms | 8.70 ms |\n"
    assert hand_typed_tables(text) == ["| add | 8.31 ms | 8.70 ms |"]
    assert hand_typed_tables("| device | passed |\n|---|---|\n| CPU | x |\n")
    # targets, commands and generated includes are not figures of a run
    assert not hand_typed_tables("| script | target |\n|---|---|\n| a.py | <= 1.05x |\n")
    assert not hand_typed_tables("```text\n| a | 1 s | 2 s |\n```\n")  # a code block


def _table_rows(text: str) -> list[list[str]]:
    """The body rows of the Markdown tables in ``text``, as lists of cells."""
    rows = []
    for line in text.splitlines():
        if line.startswith("|") and not line.startswith(("|-", "|:")):
            cells = re.split(r"(?<!\\)\|", line)[1:-1]
            rows.append([re.sub(r"\\(.)", r"\1", c.strip()) for c in cells])
    return rows


def _conformance_row(run: dict) -> list[str]:
    """What the conformance table's line of ``run`` must say, read from the summary
    itself: device, mode and flags, then the outcome counts."""
    flags = f"API {run['api_version']}" + (", no data-dependent shapes" if run["no_dds"] else "")
    return [
        f"`{run['device'].upper()}`, `{run['mode']}`, {flags}",
        str(run["passed"]),
        f"{run['xfailed']} ({run['xfail_entries']})",
        str(run["xpassed"]),
        str(run["failed"] + run["error"]),
        str(run["skipped"]),
    ]


def test_conformance_table_is_the_results_files():
    """One line per summary in conformance/results/ (as run.sh writes them), with that
    run's counts, and nothing else; each failed test named under it."""
    gen = _generated_tables()
    runs = gen.conformance_runs()
    text = gen.tables()["conformance-results.md"]
    rows = _table_rows(text)[1:]
    assert len({r["examples"] for r in runs}) == 1  # else the table has their column
    assert sorted(r[:6] for r in rows) == sorted(_conformance_row(r) for r in runs)
    for run in runs:
        assert run["run"] == run["device"] + "-" + run["mode"] + (
            f"-api{run['api_version']}" if run["run"].count("-api") else ""
        ) + ("-no-dds" if run["no_dds"] else "")
        for f in run["failures"]:
            assert f"`{run['run']}`: `{f['test']}`" in text


def test_conformance_results_exist_for_the_plain_cpu_runs():
    """The runs the conformance page is about are recorded (DASK's and the simulated
    devices' lines appear when their runs are committed)."""
    runs = {r["run"] for r in _generated_tables().conformance_runs()}
    assert {"cpu-allow", "cpu-raise"} <= runs


def test_conformance_summary_of_a_report(tmp_path):
    """``conformance/summary.py`` turns a pytest-json-report report into the summary
    the table reads: the counts, the failures with their reasons, the settings."""
    sys.path.insert(0, str(ROOT / "conformance"))
    try:
        summary = importlib.import_module("summary")
    finally:
        sys.path.remove(str(ROOT / "conformance"))
    xfails = tmp_path / "xfails.txt"
    xfails.write_text("# why\narray_api_tests/test_a.py::test_x\n\narray_api_tests/test_b.py\n")
    report = {
        "created": 1_800_000_000.0,
        "duration": 90.0,
        "summary": {"passed": 7, "failed": 2, "xfailed": 1, "skipped": 3, "collected": 13},
        "tests": [
            {"nodeid": "t::ok", "outcome": "passed"},
            {
                "nodeid": "t::slow",
                "outcome": "failed",
                "setup": {"outcome": "passed"},
                "call": {"outcome": "failed", "longrepr": "... DeadlineExceeded: 900ms ..."},
            },
            {
                "nodeid": "t::wrong",
                "outcome": "failed",
                "setup": {"outcome": "passed"},
                "call": {
                    "outcome": "failed",
                    "crash": {"message": "AssertionError: out=1.0, but should be 2.0\nmore"},
                    "longrepr": "...",
                },
            },
        ],
    }
    env = {
        "RUN_NAME": "cpu_float32-allow-no-dds",
        "STRICT_ARRAY_DEVICE": "cpu_float32",
        "STRICT_ARRAY_RANK_PROMOTION": "allow",
        "NO_DDS": "1",
        "MAX_EXAMPLES": "20",
        "JOBS": "0",
        "XFAILS": str(xfails),
    }
    out = summary.summary(report, env)
    assert (out["passed"], out["failed"], out["xfailed"], out["xpassed"]) == (7, 2, 1, 0)
    assert (out["skipped"], out["collected"], out["xfail_entries"]) == (3, 13, 2)
    assert (out["examples"], out["workers"], out["no_dds"], out["minutes"]) == (20, 0, True, 1.5)
    assert out["failures"] == [
        {"test": "t::slow", "reason": "hypothesis deadline exceeded"},
        {"test": "t::wrong", "reason": "AssertionError: out=1.0, but should be 2.0"},
    ]
    assert out["date"] == "2027-01-15" and out["api_version"] == xp.__array_api_version__
    text = _generated_tables().conformance_table([out])
    assert _table_rows(text)[1][:6] == _conformance_row(out)
    assert "`CPU_FLOAT32`, `allow`" in text and "20 examples per test" in text


def _benchmarks():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        return importlib.import_module("_harness")
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))


@pytest.mark.parametrize("name", _generated_tables().BENCHMARKS)
def test_benchmark_results_are_recorded_and_shown_cell_for_cell(name):
    """Each benchmark the docs quote has a results file, and its generated table holds
    every cell of it, row by row, under each table's title."""
    gen = _generated_tables()
    path = gen.BENCHMARK_RESULTS / f"{name}.json"
    assert path.is_file(), f"run `python benchmarks/bench_{name}.py --results`"
    results = json.loads(path.read_text(encoding="utf-8"))
    text = gen.tables()[f"bench-{name}.md"]
    rows = _table_rows(text)
    for table in results["tables"]:
        assert f"**{gen.literal(table['title'])}**" in text
        assert table["headers"] in rows
        for row in table["rows"]:
            assert row in rows
    assert f"`{results['command']}`" in text and results["commit"] in text


def test_results_file_of_a_run(tmp_path, monkeypatch):
    """``_harness.Results`` writes the tables as printed, with the command (without
    ``--results``), and the generated page shows them."""
    harness = _benchmarks()
    monkeypatch.setattr(
        sys, "argv", [str(ROOT / "benchmarks" / "bench_x.py"), "--gib", "2", "--results", "f.json"]
    )
    results = harness.Results("x")
    printed = results.table("A title", ["case", "time"], [["a | b", "1.5 s"]])
    assert printed.startswith("A title\n") and "1.5 s" in printed
    results.write(str(tmp_path / "x.json"))
    record = json.loads((tmp_path / "x.json").read_text(encoding="utf-8"))
    assert record["command"] == "python benchmarks/bench_x.py --gib 2"
    assert record["tables"] == [
        {"title": "A title", "headers": ["case", "time"], "rows": [["a | b", "1.5 s"]]}
    ]
    text = _generated_tables().benchmark_tables("x", record)
    assert ["a | b", "1.5 s"] in _table_rows(text)
    # cells are shown as printed, not read as Markdown's emphasis
    text = _generated_tables().benchmark_tables("x", {**record, "tables": [
        {"title": "t", "headers": ["hook"], "rows": [["__array_ufunc__ *"]]}]})  # fmt: skip
    assert "\\_\\_array\\_ufunc\\_\\_ \\*" in text
    assert ["__array_ufunc__ *"] in _table_rows(text)
    assert harness.command_line(["bench_x.py", "--results", "--repeats", "2"]).endswith(
        "bench_x.py --repeats 2"
    )
    assert harness.command_line(["b.py", "--dir", "/tmp/d", "--results=f", "--dir=/x"]).endswith(
        "b.py --dir DIR --dir DIR"
    )
    # the suites' interpreter and their logs' directory are places on the machine too
    assert harness.command_line(["b.py", "--python", "/v/bin/python", "--out=/o"]).endswith(
        "b.py --python VENV/bin/python --out DIR"
    )
    # a benchmark not run yet: the page says so, no table is typed in its place
    assert "has not been written" in _generated_tables().benchmark_tables("x", None)


def test_sklearn_status_says_its_size_once():
    """Records of one size: the size is said under the table, not in a column, and the
    columns no record fills are left out (the table stays narrow)."""
    gen = _generated_tables()
    rec = {"gib": 0.25, "date": "2026-11-29", "commit": "abc", "maxrss": 2**29, "time": 3.0}
    text = gen.sklearn_table({"rows": {"PCA": {"dask": rec, "numpy": rec}}})
    header = text.splitlines()[0]
    assert header == "| row | peak RSS | time | NumPy in memory | values NumPy's |"
    assert "every row with `X` of 0.25 GiB" in text


def test_numpy_names_table_is_the_tables_rows():
    from strict_array import _numpy_api

    assert _generated_tables().tables()["numpy-names.md"] == _numpy_api.markdown_table()


def test_sklearn_status_lists_every_measured_row():
    """The scikit-learn status table has a line for each row of the results file that
    ``bench_sklearn.py --results`` writes, and the results name only the benchmark's
    rows."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        rows = importlib.import_module("_sklearn_rows")
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    gen = _generated_tables()
    results = json.loads(gen.SKLEARN_RESULTS.read_text(encoding="utf-8"))
    assert set(results["rows"]) <= set(rows.ROWS)
    table = gen.sklearn_table(results)
    for name in results["rows"]:
        assert f"| `{name}` |" in table


def test_sklearn_status_renders_what_the_benchmark_writes(tmp_path):
    """A record as ``bench_sklearn.records`` makes it, merged by ``merge_results``,
    renders with its figures and its size."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        bench = importlib.import_module("bench_sklearn")
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    values = {"values": {"mean": [1.0, 2.0]}}
    run = {
        "StandardScaler": {
            "dask": {"maxrss": 300 * 2**20, "time": 12.0, "passes": 3.0, **values},
            "cluster": {
                "maxrss": 200 * 2**20,
                "time": 20.0,
                "worker_peaks": [2**29, 2**28],
                "spilled": 0,
                **values,
            },
            "numpy": {"maxrss": 3 * 2**30, "time": 4.0, **values},
        }
    }
    path = tmp_path / "sklearn.json"
    bench.merge_results(str(path), bench.records(run, 2.0, 2.0))
    bench.merge_results(
        str(path), bench.records({"PCA(svd_solver='full')": run["StandardScaler"]}, 8.0, 2.0)
    )
    results = json.loads(path.read_text())
    assert list(results["rows"]) == ["StandardScaler", "PCA(svd_solver='full')"]
    table = _generated_tables().sklearn_table(results)
    assert (
        "| `StandardScaler` | 2 GiB | 300 MiB | 3 | 12 s | 2.00 | 512 MiB (200 MiB) | 0 | 3.0 GiB | yes (0.0e+00) |"
        in table
    )
    assert "| `PCA(svd_solver='full')` | 8 GiB |" in table


# --- the API reference --------------------------------------------------------------
_CURRENT_MODULE = re.compile(r"\.\. (?:py:)?currentmodule:: ([\w.]+)")
_MODULE = re.compile(r"\.\. (?:py:module|module|automodule):: ([\w.]+)")
_OBJECT = re.compile(
    r"\.\. (?:py:)?(?:auto)?(?:data|function|class|exception|attribute|method|property)"
    r":: ([\w.]+)"
)


def _qualified(name: str, module: str) -> str:
    return name if name.split(".")[0] == "strict_array" else f"{module}.{name}"


def documented_names() -> set[str]:
    """Fully qualified names that docs/reference/*.rst document.

    A name counts when it is an entry of an ``autosummary`` table, the target of an
    object directive (``.. data::``, ``.. autofunction::``, ...), or a module given to
    ``automodule``/``module``; relative names are taken in the page's current module.
    """
    names: set[str] = set()
    for page in sorted(REFERENCE.glob("*.rst")):
        module = "strict_array"
        in_autosummary = False
        for line in page.read_text(encoding="utf-8").splitlines():
            if in_autosummary:
                entry = line.strip()
                if not line.strip() or entry.startswith(":"):
                    continue
                if line.startswith((" ", "\t")):
                    names.add(_qualified(entry.lstrip("~"), module))
                    continue
                in_autosummary = False
            if m := _CURRENT_MODULE.match(line):
                module = m[1]
            elif m := _MODULE.match(line):
                module = m[1]
                names.add(m[1])
            elif m := _OBJECT.match(line):
                names.add(_qualified(m[1], module))
            elif line.startswith(".. autosummary::"):
                in_autosummary = True
    return names


def public_names() -> set[str]:
    return {
        f"{module.__name__}.{name}" for module in (xp, xp.linalg, xp.fft) for name in module.__all__
    }


def test_reference_documents_every_public_name():
    missing = sorted(public_names() - documented_names())
    assert not missing, (
        "public names missing from the API reference (docs/reference/*.rst): "
        f"{', '.join(missing)}; add each to the autosummary table of its group"
    )


def _resolve(qualified: str) -> object:
    parts = qualified.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(qualified)


def test_reference_names_exist():
    stale = []
    for name in sorted(documented_names()):
        try:
            _resolve(name)
        except (ImportError, AttributeError):
            stale.append(name)
    assert not stale, f"the API reference documents names that do not exist: {stale}"


def test_reference_test_sees_the_pages():
    names = documented_names()
    # one name of each kind of entry: autosummary, object directive, automodule
    assert {"strict_array.add", "strict_array.fft.fft", "strict_array.linalg.svd"} <= names
    assert {"strict_array.pi", "strict_array.float64", "strict_array.Array.__getitem__"} <= names
    assert {"strict_array.linalg", "strict_array.fft", "strict_array.pytest_plugin"} <= names


# --- commands -----------------------------------------------------------------------
def _bash_blocks(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return [b.strip() for b in re.findall(r"```bash\n(.*?)```", text, re.S)]


def test_readme_commands_match_ci_and_index():
    readme = _bash_blocks(ROOT / "README.md")
    assert len(readme) >= 2
    ci_lines = [
        line.strip()
        for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    first_command = next(line for line in ci_lines if line.startswith("python3 -m venv"))
    assert readme[1] == first_command, "README's second command must be what .ci/run runs"
    assert _bash_blocks(ROOT / "docs" / "index.md")[:2] == readme[:2]


def test_readme_links_are_absolute_and_reach_the_documentation_site():
    """README.md is the package index's page: a relative link there leads nowhere. Its
    links to the project's pages go to the documentation site declared in pyproject."""
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    site = re.search(r'^Documentation = "(https://[^"]+/)"$', pyproject, re.M)
    assert site, "pyproject.toml declares [project.urls] Documentation"
    links = re.findall(r"\]\(([^)\s]+)\)", (ROOT / "README.md").read_text(encoding="utf-8"))
    relative = [link for link in links if not link.startswith("https://")]
    assert not relative, f"README.md has relative links: {relative}"
    ours = [link.removeprefix(site.group(1)) for link in links if link.startswith(site.group(1))]
    assert len(ours) >= 10
    for page in ours:
        path = page.partition("#")[0]
        source = path.removesuffix(".html")
        assert any((ROOT / "docs" / (source + ext)).is_file() for ext in ("", ".md", ".rst")), (
            f"README.md links to {page}, which no page of docs/ builds"
        )
