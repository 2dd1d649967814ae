"""The documentation: doctests of the pages, a complete API reference, commands in sync.

Every ``>>>`` example in docs/ (its subfolders too), README.md and the READMEs the site includes runs
and prints what the page says; every public name of ``strict_array``,
``strict_array.linalg`` and ``strict_array.fft`` is documented on an API reference page
(docs/reference/*.rst); README's commands are the ones .ci/run and the site's index run.
(The site itself is built with warnings as errors by .ci/run.)
"""

from __future__ import annotations

import contextlib
import doctest
import importlib
import io
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


def run_page(page: Path) -> tuple[int, int]:
    """Run every example of ``page`` in order, in one namespace, as a reader would:
    its ``>>>`` examples as doctests, and (on a user's page) each ```` ```python ````
    block as a script, which must run without an error. A block that opens with a
    comment naming a file of the project (``# strict_array/_backends/__init__.py``) is
    a quote of that file: its lines must be in it. Returns (failed, attempted)."""
    text = page.read_text(encoding="utf-8")
    globs: dict = {"__name__": "__main__"}
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(optionflags=_FLAGS)
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


@pytest.mark.parametrize(
    ("page", "table"),
    [("numpy-interop.md", "numpy-names.md"), ("scikit-learn.md", "sklearn-status.md")],
)
def test_pages_include_their_generated_tables(page, table):
    """A status table is generated at build time, never typed into a page: the page
    includes the generated file, and holds no copy of the table's header."""
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    assert f"```{{include}} _generated/{table}\n```" in text
    header = _generated_tables().tables()[table].splitlines()[0]
    assert header not in text, f"docs/{page} holds a hand-typed copy of a generated table"


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
