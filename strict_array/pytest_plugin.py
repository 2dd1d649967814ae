"""pytest plugin (registered automatically when strict_array is installed).

Options
-------
``--rank-promotion=MODE``
    Run the session in ``raise``, ``warn`` or ``allow`` mode, or ``audit``: let
    rank promotions happen, record them, and print the audit table at the end.
``--rank-promotion-policy=POLICY``
    A mode per package for the session, as ``STRICT_ARRAY_RANK_PROMOTION`` takes
    it: ``"raise,sklearn=warn,scipy=audit"`` (a bare mode is the default for all
    other code; the package is that of the code calling strict_array). The
    promotions of ``audit`` packages are printed at the end.
``--rank-promotion-under=PATH_OR_PACKAGE``
    With ``audit``, show only the sites under a package or path.
``--rank-promotion-numpy``
    Check plain NumPy code too: the arrays NumPy's creation functions and random
    generators return in the session are :class:`strict_array.numpy.CheckedArray`,
    whose operations follow the same rules, modes and policy
    (:func:`strict_array.numpy.checking`).
``--rank-promotion-report=PATH``
    Write the promotions the session recorded (audited, or let through by the
    baseline) to ``PATH`` as JSON: site, operation, shapes, count.
``--rank-promotion-baseline=PATH``
    Known sites, a report written by ``--rank-promotion-report``: where the mode
    would raise or warn, a promotion at one of them is allowed and recorded, so
    that only new sites fail.

Every option is checked when pytest starts, before collection: a bad value is a
usage error (exit status 4) naming it. With pytest-xdist (``-n``), each worker
records its promotions and the controller merges them into one table and report.

Fixture
-------
``rank_promotion_audit``
    An :class:`strict_array.AuditReport` recording the rank promotions of one test.

Tracebacks
----------
A test failing on an error that strict_array raises (``RankPromotionError``, a
bad argument) shows the test's own line last, without strict_array's frames
(``__tracebackhide__``); ``--full-trace`` shows them, and so does strict_array's own
test suite (run from its checkout).

Nothing changes unless an option or the fixture is used. To fail a test on any
promotion in ``warn`` mode, pytest's own ``-W error::strict_array.RankPromotionWarning``
(or the ``filterwarnings`` ini option) is enough.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Generator, Iterator
from typing import Any

import pytest

_STATE: dict[str, Any] = {}
#: the reports a session keeps, and their terminal-summary titles
_REPORTS = {
    "report": "rank promotions",
    "policy_report": "audited packages",
    "baseline_report": "baseline sites let through",
}
#: the key of the reports in an xdist worker's ``workeroutput``
_WORKER_KEY = "strict_array_rank_promotions"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("strict_array")
    group.addoption(
        "--rank-promotion",
        choices=("raise", "warn", "allow", "audit"),
        default=None,
        help="strict_array rank-promotion mode for the session, or 'audit' to record "
        "every rank promotion and print where they happen.",
    )
    group.addoption(
        "--rank-promotion-policy",
        default=None,
        metavar="POLICY",
        help="strict_array rank-promotion mode per package for the session, e.g. "
        "'raise,sklearn=warn,scipy=audit' (a bare mode is the default).",
    )
    group.addoption(
        "--rank-promotion-numpy",
        action="store_true",
        default=False,
        help="check plain NumPy code: arrays made by NumPy's creation functions and random "
        "generators in the session follow strict_array's rank rules (strict_array.numpy).",
    )
    group.addoption(
        "--rank-promotion-under",
        default=None,
        metavar="PATH_OR_PACKAGE",
        help="with --rank-promotion=audit, report only sites under this package or path.",
    )
    group.addoption(
        "--rank-promotion-report",
        default=None,
        metavar="PATH",
        help="write the rank promotions the session recorded (audited, or let through "
        "by the baseline) to PATH as JSON.",
    )
    group.addoption(
        "--rank-promotion-baseline",
        default=None,
        metavar="PATH",
        help="a JSON report of known rank-promotion sites: they pass where the mode "
        "would raise or warn; only new sites fail.",
    )


def _checked_options(config: pytest.Config, option: Callable[[str], Any]) -> dict[str, Any]:
    """Every option (read by ``option(name)``), validated: a bad value is pytest's usage
    error, naming it."""
    from . import _policy
    from ._audit_report import package_roots

    root = str(config.rootpath)
    options: dict[str, Any] = {"mode": option("rank_promotion")}
    text = option("rank_promotion_policy")
    under = option("rank_promotion_under")
    report = option("rank_promotion_report")
    baseline = option("rank_promotion_baseline")
    try:
        options["policy"] = None if text is None else _policy.parse_policy(text, f"{text!r}")
    except ValueError as e:
        raise pytest.UsageError(
            f"--rank-promotion-policy={e} Write it as 'MODE' or 'MODE,PACKAGE=MODE,...', "
            "e.g. 'raise,sklearn=warn,scipy=audit'."
        ) from None
    if under is not None:
        try:
            package_roots(under)
        except ValueError:
            raise pytest.UsageError(
                f"--rank-promotion-under={under!r} is neither an existing path nor an "
                "importable package."
            ) from None
    if report is not None:
        folder = os.path.dirname(os.path.abspath(report))
        if os.path.isdir(report) or not os.path.isdir(folder):
            raise pytest.UsageError(
                f"--rank-promotion-report={report!r}: give the path of a file in an "
                f"existing directory ({folder!r} is not one)."
                if not os.path.isdir(report)
                else f"--rank-promotion-report={report!r} is a directory; give a file path."
            )
        options["report"] = os.path.abspath(report)
    if baseline is not None:
        try:
            options["baseline"] = _policy.as_baseline(baseline, "--rank-promotion-baseline", root)
        except ValueError as e:
            raise pytest.UsageError(str(e)) from None
    return options


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> Generator[None, Any, None]:
    # the session's settings, and the NumPy-code mode, in force before the initial
    # conftest.py files load: what they make at import (a module-level random generator,
    # arrays, NumPy's functions imported by name) is checked, by the session's mode
    known = early_config.known_args_namespace
    _start(early_config, lambda name: getattr(known, name, None))
    outcome = yield
    if outcome.excinfo is not None:  # (no session follows: nothing stays switched on)
        _stop()


def pytest_configure(config: pytest.Config) -> None:
    # (here where the plugin was registered after the initial conftest.py files loaded)
    _start(config, lambda name: config.getoption(name, default=None))


def _start(config: pytest.Config, option: Callable[[str], Any]) -> None:
    """The session's settings, once per session (``config``), from ``option(name)``."""
    if _STATE.get("config") is config:
        return
    options = _checked_options(config, option)
    _STATE["config"] = config
    # strict_array's own test suite (its checkout is the rootdir) keeps the frames
    checkout = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    _STATE["hide_frames"] = checkout != str(config.rootpath)
    if _STATE["hide_frames"]:
        _mark_library_modules()
    if option("rank_promotion_numpy"):
        from .numpy import checking

        _STATE["numpy"] = checking()
        _STATE["numpy"].__enter__()
    if not any(options.get(k) is not None for k in ("mode", "policy", "baseline", "report")):
        return
    from . import _policy

    _STATE["options"] = options
    _STATE["previous"] = _policy._process[0]
    mode, policy, baseline = options["mode"], options["policy"], options.get("baseline")
    if mode == "audit":
        _STATE["audit"] = _policy.audit()
        _STATE["report"] = _STATE["audit"].__enter__()
    elif mode is not None:
        _policy.set_rank_promotion(mode)
    if policy is not None:
        _policy.set_rank_promotion_policy(policy.packages, policy.default)  # type: ignore[arg-type]
        _STATE["policy_report"] = _policy.get_rank_promotion_policy().report
    if baseline is not None:
        current = _policy._process[0]
        _policy.set_rank_promotion_policy(current.packages, baseline=baseline)  # type: ignore[arg-type]
        _STATE["baseline_report"] = baseline.report


def pytest_unconfigure(config: pytest.Config) -> None:
    _stop()


def _stop() -> None:
    """The session's settings undone, as they were before it."""
    if "numpy" in _STATE:
        _STATE.pop("numpy").__exit__(None, None, None)
    if "audit" in _STATE:
        _STATE.pop("audit").__exit__(None, None, None)
    if "previous" in _STATE:
        from . import _policy

        _policy._process[0] = _STATE.pop("previous")
    _STATE.clear()


# --- pytest-xdist: the workers record, the controller merges -------------------------------
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    if "options" not in _STATE:
        return
    root = str(config.rootpath)
    workeroutput = getattr(config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: hand the reports to the controller
        workeroutput[_WORKER_KEY] = {
            key: [
                [s.filename, s.lineno, s.function, s.operation, [list(t) for t in s.shapes],
                 s.outer, n]
                for s, n in _STATE[key].counts.items()
            ]
            for key in _REPORTS
            if key in _STATE
        }  # fmt: skip
        return
    path = _STATE["options"].get("report")
    if path is not None:
        _session_report().write_json(path, root)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """pytest-xdist's controller: a worker finished; add its promotions to ours."""
    from ._audit_report import AuditReport, PromotionSite

    reports = getattr(node, "workeroutput", {}).get(_WORKER_KEY, {})
    for key, rows in reports.items():
        if key in _STATE:
            received = AuditReport()
            for filename, line, function, operation, shapes, outer, n in rows:
                shape_pair = (tuple(shapes[0]), tuple(shapes[1]))
                site = PromotionSite(filename, line, function, operation, shape_pair, outer)
                received.counts[site] += n
            _STATE[key].merge(received)


def _session_report() -> Any:
    """Every promotion the session recorded, in one report."""
    from ._audit_report import AuditReport

    merged = AuditReport()
    seen: set[int] = set()
    for key in _REPORTS:
        report = _STATE.get(key)
        if report is not None and id(report) not in seen:
            seen.add(id(report))
            merged.merge(report)
    return merged


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    if "options" not in _STATE:
        return
    under = config.getoption("rank_promotion_under", default=None)
    for key, title in _REPORTS.items():
        report = _STATE.get(key)
        if report is None or (key != "report" and not report.counts):
            continue
        shown = report.under(under) if under else report
        terminalreporter.section(f"strict_array {title}")
        terminalreporter.write_line(str(shown))
    baseline = _STATE["options"].get("baseline")
    if baseline is not None:
        report = _STATE["baseline_report"]
        unseen = baseline.unseen({baseline.key_of(site) for site in report.counts})
        if unseen:
            terminalreporter.write_line(
                f"strict_array baseline: {len(unseen)} of its {len(baseline)} site(s) did "
                "not promote in this session (fixed, or not run); write a new report to "
                "drop them."
            )
    path = _STATE["options"].get("report")
    if path is not None:
        terminalreporter.write_line(f"strict_array: rank-promotion report written to {path}")


# --- tracebacks ------------------------------------------------------------------------
def _hide_library_frame(excinfo: Any) -> bool:
    """``__tracebackhide__`` of strict_array's modules: hide the frame when the error
    is one strict_array raised on purpose (bad input, a rank promotion), so that the
    user's line comes last; errors from inside NumPy or Dask keep the whole path."""
    if excinfo is None:
        return False
    from ._errors import RankPromotionWarning

    if not isinstance(excinfo.value, (ValueError, TypeError, IndexError, RankPromotionWarning)):
        return False
    tb = excinfo.tb
    while tb.tb_next is not None:
        tb = tb.tb_next
    return _is_library(tb.tb_frame.f_globals.get("__name__", ""))


def _is_library(module: str) -> bool:
    return module == "strict_array" or module.startswith("strict_array.")


def _mark_library_modules() -> None:
    """Give every loaded strict_array module the ``__tracebackhide__`` above."""
    for name, module in list(sys.modules.items()):
        if _is_library(name) and module is not None and name != __name__:
            module.__dict__.setdefault("__tracebackhide__", _hide_library_frame)


@pytest.hookimpl(hookwrapper=True)  # (the old-style wrapper: every pytest the plugin meets)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    if call.excinfo is not None and _STATE.get("hide_frames"):  # modules imported since
        _mark_library_modules()
    yield


@pytest.fixture
def rank_promotion_audit() -> Iterator[Any]:
    """Record (and allow) the rank promotions of one test; yields the report."""
    import strict_array as xp

    with xp.audit() as report:
        yield report
