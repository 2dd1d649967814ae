"""The NumPy-code mode on real test suites: outcomes test by test and slowdown, plain
against checked.

Run: ``python benchmarks/bench_numpy_suites.py --python VENV/bin/python [--numpy | --packages
...] [--repeats 2] [--out DIR] [--results [FILE]]`` (``--results``: the tables also go to
``benchmarks/results/numpy_suites.json``, which the documentation shows).

By default, every suite: NumPy's own (``numpy.fft.tests``, ``numpy.ma.tests``,
``numpy.polynomial.tests``, ``numpy.lib.tests``, ``numpy.linalg.tests``,
``numpy._core.tests.test_numeric``, ``numpy._core.tests.test_umath`` and
``numpy.random.tests``), then NumPy-based packages whose tests ship in their wheels:
numdifftools (NumPy and SciPy; its test collection imports matplotlib), numpy-financial
and opt_einsum (NumPy and pure Python). ``--numpy`` runs NumPy's only, ``--packages``
the suites named (import names: also ``emcee``, ``pywt``)::

    python -m venv VENV
    VENV/bin/pip install numpy pytest hypothesis numdifftools matplotlib numpy-financial opt-einsum
    VENV/bin/pip install --no-deps -e .

``--python`` is the interpreter of an environment holding the packages, pytest and
strict_array (installed): each suite runs in a subprocess, ``python -m pytest --pyargs PKG
-q -p no:cacheprovider --junitxml=...`` from a temporary directory, so that the package's
own installed tests are collected and nothing of the working directory shadows them.

Each suite runs in these ways, ``--repeats`` rounds interleaved with a rotating start:

- ``plain``: the suite as it ships;
- ``floor``: the floor of any Python-level hook, applied as the mode is (``-p _floor``,
  :mod:`_floor`): NumPy's functions make arrays of a minimal ndarray subclass whose
  ``__array_ufunc__`` and ``__array_function__`` only unwrap, call NumPy and rewrap,
  nothing checked (its outcomes are not compared: it is a measure of cost only);
- ``allow``: ``--rank-promotion-numpy --rank-promotion=allow``, every array NumPy makes
  is checked and every promotion allowed: every test must have its plain outcome (the
  mode checks, it never computes differently; a hypothesis deadline missed is a test
  failed), except the tests listed, each with its reason, in ``docs/numpy-code.md``
  (``--exceptions``): tests that assert that an array's type is exactly
  ``numpy.ndarray``;
- ``audit`` (not for NumPy's own suites): ``--rank-promotion=audit``, every promotion
  recorded by its site (``--rank-promotion-report=PATH``).

Reported per suite: the counts of each run, the wall time and the CPU time of the
subprocess (interpreter start and collection included), each against ``plain`` (the
quietest round, taken jointly: ``_harness.min_of_medians``), the overhead of the CPU time
over plain's as a multiple of the floor's, and whether the CPU time is within 1.5x of
plain's (the CPU time: on a machine other jobs keep busy, the wall time counts their
time too); then, test by
test (from the junit XML), each test whose outcome differs from plain: listed (an
exact-type assertion) or NOT LISTED, and each listed test that no longer differs. The
exit status is 1 if a test differs that is not listed. Saved in ``--out``: each run's
pytest output and junit XML (the last round's), and for the audit its sites gathered per
(site, operation).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _harness import Results, add_results_option, fmt_time, min_of_medians, verdict

#: NumPy-based packages whose wheels ship their tests (PyPI: numdifftools,
#: numpy-financial, opt-einsum; emcee and pywt, PyWavelets, run with ``--packages``)
PACKAGES = ("numdifftools", "numpy_financial", "opt_einsum")
#: NumPy's own suites
NUMPY_SUITES = (
    "numpy.fft.tests", "numpy.ma.tests", "numpy.polynomial.tests", "numpy.lib.tests",
    "numpy.linalg.tests", "numpy._core.tests.test_numeric", "numpy._core.tests.test_umath",
    "numpy.random.tests",
)  # fmt: skip
#: the slowdown every suite must stay within (wall time of the allow run against plain)
MAX_SLOWDOWN = 1.5
#: the page whose table lists the tests allowed to differ, with their reasons
EXCEPTIONS_PAGE = Path(__file__).parents[1] / "docs" / "numpy-code.md"
#: a row of that table: | `suite` | `test id` | reason |
_EXCEPTION_ROW = re.compile(
    r"^\|\s*`(?P<suite>[\w.]+)`\s*\|\s*`(?P<test>[^`]+)`\s*\|(?P<reason>.*)\|\s*$"
)
NUMPY_MODE = ("--rank-promotion-numpy",)
#: the floor's plugin (_floor.py, beside this file, on the suites' path)
FLOOR = ("-p", "_floor")
REPORT_OPTION = "--rank-promotion-report"
COUNTED = ("passed", "failed", "skipped", "errors", "xfailed", "xpassed")

#: pytest's closing line, "== 12 passed, 1 skipped, 3 warnings in 4.56s =="
_SUMMARY = re.compile(r"^=*\s*(?P<body>(?:\d+ \w+(?:, )?)+) in [\d.]+s")
_COUNT = re.compile(r"(\d+) (\w+)")


@dataclass
class Run:
    """One way of running a suite: its pytest options and what its rounds gave."""

    name: str
    options: tuple[str, ...]
    counts: list[dict[str, int]] = field(default_factory=list)
    returncodes: list[int] = field(default_factory=list)
    log: str = ""
    junit: str = ""


def outcomes(junit: str) -> dict[str, str]:
    """Each test's outcome in a junit XML file: passed, failed, error, skipped, xfailed."""
    found: dict[str, str] = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        test = f"{case.get('classname')}::{case.get('name')}"
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error"):
                outcome = "failed" if child.tag == "failure" else "error"
            elif child.tag == "skipped":
                outcome = "xfailed" if child.get("type") == "pytest.xfail" else "skipped"
        found[test] = outcome
    return found


def listed_exceptions(page: Path) -> dict[tuple[str, str], str]:
    """The tests allowed to differ, (suite, test id) -> reason, from the page's table."""
    found = {}
    for line in page.read_text().splitlines():
        m = _EXCEPTION_ROW.match(line)
        if m:
            found[(m["suite"], m["test"])] = m["reason"].strip()
    return found


def summary_counts(output: str) -> dict[str, int]:
    """The counts of pytest's closing line (``error`` read as ``errors``)."""
    for line in reversed(output.splitlines()):
        m = _SUMMARY.match(line.strip())
        if m:
            counts = {k: 0 for k in COUNTED}
            for n, word in _COUNT.findall(m["body"]):
                word = "errors" if word == "error" else word
                if word in counts:
                    counts[word] = int(n)
            return counts
    raise RuntimeError("no pytest summary line in the output:\n" + output[-2000:])


def _children_cpu() -> float:
    """The CPU time (user and system) of this process's finished children so far: a
    suite's own, whatever else runs on the machine (its wall time counts that too)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def report_sites(path: str) -> tuple[int, list[dict[str, Any]]]:
    """The promotions and the kinds of promotion of the plugin's JSON report, each with
    its site (the report names each site by its full path)."""
    with open(path) as f:
        report = json.load(f)
    rows = [
        {
            "site": f"{site['path']}:{site['line']}",
            "function": site["function"],
            "operation": site["operation"],
            "shapes": " & ".join(str(tuple(s)) for s in site["shapes"]),
            "count": site["count"],
        }
        for site in report["sites"]
    ]
    return report["total"], rows


def pytest_help(python: str, cwd: str) -> str:
    return subprocess.run(
        [python, "-m", "pytest", "--help"],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


#: prints the versions of Python, NumPy, strict_array, pytest and the packages named
_VERSIONS = """
import importlib, importlib.metadata, platform, sys
import numpy, strict_array
parts = [f"Python {platform.python_version()}", f"NumPy {numpy.__version__}",
         f"strict_array {strict_array.__version__} ({strict_array.__file__})",
         f"pytest {importlib.metadata.version('pytest')}"]
dists = importlib.metadata.packages_distributions()  # import name -> distributions
for name in sys.argv[1:]:
    dist = dists.get(name, [name])[0]  # its own __version__ may be stale (pywt's is)
    parts.append(f"{dist} {importlib.metadata.version(dist)}")
print("; ".join(parts))
"""


def versions(python: str, packages: list[str], cwd: str) -> str:
    out = subprocess.run(
        [python, "-c", _VERSIONS, *packages],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip()


def by_operation(sites: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The audit's rows gathered per (call site, operation): shapes seen, total count."""
    grouped: dict[tuple[str, str, str], dict[str, Any]] = {}
    for row in sites:
        key = (row["site"], row["function"], row["operation"])
        entry = grouped.setdefault(
            key,
            {
                "site": key[0],
                "function": key[1],
                "operation": key[2],
                "shapes": [],
                "count": 0,
            },
        )
        entry["shapes"].append(row["shapes"])
        entry["count"] += row["count"]
    return sorted(grouped.values(), key=lambda e: (e["site"], e["operation"]))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--python", default=sys.executable, help="interpreter of the suites' venv")
    p.add_argument("--packages", nargs="+", default=None, help="import names")
    p.add_argument("--numpy", action="store_true", help="NumPy's own suites")
    p.add_argument("--repeats", type=int, default=2, help="rounds of the runs (2)")
    p.add_argument("--out", default="numpy-suites", help="directory for logs and audits")
    p.add_argument("--timeout", type=float, default=1800, help="seconds per pytest run")
    p.add_argument("--pytest-args", default="", help="more pytest options for every run")
    p.add_argument(
        "--exceptions",
        default=str(EXCEPTIONS_PAGE),
        help="the page listing the tests allowed to differ (docs/numpy-code.md)",
    )
    add_results_option(p)
    args = p.parse_args()
    results = Results("numpy_suites")
    packages = args.packages or list(NUMPY_SUITES if args.numpy else NUMPY_SUITES + PACKAGES)

    out_dir = os.path.abspath(args.out)
    os.makedirs(out_dir, exist_ok=True)
    cwd = tempfile.mkdtemp(prefix="numpy-suites-")
    help_text = pytest_help(args.python, cwd)
    if NUMPY_MODE[0] not in help_text:
        sys.exit(f"{args.python}: pytest has no {NUMPY_MODE[0]} (is strict_array installed?)")
    if REPORT_OPTION not in help_text:
        sys.exit(f"{args.python}: pytest has no {REPORT_OPTION} (strict_array too old)")
    allowed = listed_exceptions(Path(args.exceptions))

    print(__doc__.split("\n")[0])
    # the suites' interpreter, not this one, is the environment measured
    suites_versions = versions(args.python, [p for p in packages if p not in NUMPY_SUITES], cwd)
    print(suites_versions)
    try:
        load = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    except OSError:
        load = "?"
    print(f"{os.cpu_count()} CPUs; load average {load}; {args.repeats} rounds; out: {out_dir}")
    results.environment = re.sub(r" \(/[^)]*\)", "", suites_versions)
    results.environment += f"; {os.cpu_count()} CPUs; load average {load}"
    print()

    extra = tuple(args.pytest_args.split())
    rows: list[list[str]] = []
    audits: list[list[str]] = []
    differing: list[str] = []
    differing_rows: list[list[str]] = []
    unlisted = 0
    for package in packages:
        report_path = os.path.join(out_dir, f"{package}.report.json")
        audit_options = (*NUMPY_MODE, "--rank-promotion=audit", f"{REPORT_OPTION}={report_path}")
        runs = [Run("plain", ()), Run("floor", FLOOR),
                Run("allow", (*NUMPY_MODE, "--rank-promotion=allow"))]  # fmt: skip
        if package not in NUMPY_SUITES:
            runs.append(Run("audit", audit_options))

        def runner(run: Run, package: str = package) -> Any:
            def go() -> None:
                junit = os.path.join(out_dir, f"{package}.{run.name}.xml")
                command = [args.python, "-m", "pytest", "--pyargs", package, "-q"]
                command += ["-p", "no:cacheprovider", f"--junitxml={junit}", *extra, *run.options]
                env = None
                if run.options == FLOOR:  # (the plugin's module on the path)
                    here = str(Path(__file__).resolve().parent)
                    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
                        p for p in (here, os.environ.get("PYTHONPATH")) if p)}  # fmt: skip
                done = subprocess.run(command, cwd=cwd, capture_output=True, text=True,
                                      timeout=args.timeout, env=env)  # fmt: skip
                run.log = done.stdout + done.stderr
                run.returncodes.append(done.returncode)
                run.counts.append(summary_counts(done.stdout))
                run.junit = junit
                with open(os.path.join(out_dir, f"{package}.{run.name}.log"), "w") as f:
                    f.write(f"$ {' '.join(command)}\n{run.log}")

            return go

        samples: dict[str, list[float]] = {run.name: [] for run in runs}
        cpu_samples: dict[str, list[float]] = {run.name: [] for run in runs}
        for r in range(args.repeats):
            order = runs[r % len(runs) :] + runs[: r % len(runs)]
            for run in order:
                t0, c0 = time.perf_counter(), _children_cpu()
                runner(run)()
                samples[run.name].append(time.perf_counter() - t0)
                cpu_samples[run.name].append(_children_cpu() - c0)
        times = min_of_medians(samples, args.repeats)
        cpu = min_of_medians(cpu_samples, args.repeats)
        plain = outcomes(runs[0].junit)
        for run in runs:
            first = run.counts[0]
            steady = all(c == first for c in run.counts)
            same: bool | None = None
            if run.name not in ("plain", "floor"):
                checked = outcomes(run.junit)
                diff = sorted(t for t in plain.keys() | checked.keys()
                              if plain.get(t) != checked.get(t))  # fmt: skip
                same = not diff
                for test in diff:
                    listed = (package, test) in allowed
                    unlisted += not listed
                    differing.append(
                        f"  {package} {run.name}: {test}: {plain.get(test, 'absent')} -> "
                        f"{checked.get(test, 'absent')}"
                        + (f" (listed: {allowed[(package, test)]})" if listed else " NOT LISTED")
                    )
                    differing_rows.append([
                        package, run.name, test,
                        f"{plain.get(test, 'absent')} -> {checked.get(test, 'absent')}",
                        allowed[(package, test)] if listed else "NOT LISTED",
                    ])  # fmt: skip
                for suite, test in allowed:
                    if suite == package and test not in diff and run.name == "allow":
                        differing.append(f"  {package}: {test}: listed, but no longer differs")
                        differing_rows.append(
                            [package, run.name, test, "as plain", "listed, no longer differs"]
                        )
            rows.append([
                package, run.name,
                *(str(first[k]) for k in ("passed", "failed", "skipped", "errors")),
                "" if steady else "varies",
                fmt_time(times[run.name]), f"{times[run.name] / times['plain']:.2f}x",
                fmt_time(cpu[run.name]), f"{cpu[run.name] / cpu['plain']:.2f}x",
                "" if run.name in ("plain", "floor") else
                f"{(cpu[run.name] - cpu['plain']) / (cpu['floor'] - cpu['plain']):.2f}x"
                if cpu["floor"] > cpu["plain"] else "-",
                verdict(None if run.name != "allow" else
                        cpu[run.name] <= MAX_SLOWDOWN * cpu["plain"]),
                verdict(same),
            ])  # fmt: skip

        if package in NUMPY_SUITES:
            continue
        total, sites = report_sites(report_path) if os.path.exists(report_path) else (0, [])
        pairs = by_operation(sites)
        with open(os.path.join(out_dir, f"{package}.audit.json"), "w") as f:
            json.dump({"package": package, "promotions": total, "sites": pairs}, f, indent=1)
        audits.append([
            package, str(total), str(len(sites)), str(len(pairs)),
            str(len({p["site"] for p in pairs})),
            "yes" if os.path.exists(report_path) else "-",
        ])  # fmt: skip

    headers = ["suite", "run", "passed", "failed", "skipped", "errors", "rounds", "time"]
    print(
        results.table(
            "each suite, plain and checked",
            [
                *headers,
                "vs plain",
                "CPU time",
                "vs plain",
                "overhead / floor's",
                f"<= {MAX_SLOWDOWN}x",
                "outcomes = plain",
            ],
            rows,
            "llrrrrlrrrrrll",
        )
    )
    if audits:
        print()
        headers = ["package", "promotions", "(site, shapes)", "(site, operation)", "lines"]
        print(results.table("the audit's promotions", [*headers, "report"], audits))
    print(f"\ntests whose outcome differs from plain: {len(differing)}, "
          f"not listed in {os.path.relpath(args.exceptions)}: {unlisted}")  # fmt: skip
    for line in differing:
        print(line)
    print(f"logs, junit XML and audits in {out_dir}")
    # the lines above, as a table of the results file
    results.table(
        f"tests whose outcome differs from plain: {len(differing_rows)}, not listed: {unlisted}",
        ["suite", "run", "test", "outcome", "listed"],
        differing_rows,
    )
    results.write(args.results)
    sys.exit(1 if unlisted else 0)


if __name__ == "__main__":
    main()
