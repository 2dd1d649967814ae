"""pytest plugin (registered automatically when strict_array is installed).

Options
-------
``--rank-promotion=MODE``
    Run the session in ``raise``, ``warn`` or ``allow`` mode, or ``audit``: let
    rank promotions happen, record them, and print the audit table at the end.
``--rank-promotion-under=PATH_OR_PACKAGE``
    With ``audit``, show only the sites under a package or path.

Fixture
-------
``rank_promotion_audit``
    An :class:`strict_array.AuditReport` recording the rank promotions of one test.

Nothing changes unless an option or the fixture is used. To fail a test on any
promotion in ``warn`` mode, pytest's own ``-W error::strict_array.RankPromotionWarning``
(or the ``filterwarnings`` ini option) is enough.
"""

from __future__ import annotations

from typing import Any

import pytest

_STATE: dict[str, Any] = {}


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
        "--rank-promotion-under",
        default=None,
        metavar="PATH_OR_PACKAGE",
        help="with --rank-promotion=audit, report only sites under this package or path.",
    )


def pytest_configure(config: pytest.Config) -> None:
    mode = config.getoption("rank_promotion", default=None)
    if mode is None:
        return
    import strict_array as xp

    if mode == "audit":
        _STATE["audit"] = xp.audit()
        _STATE["report"] = _STATE["audit"].__enter__()
    else:
        _STATE["previous"] = xp.get_rank_promotion()
        xp.set_rank_promotion(mode)


def pytest_unconfigure(config: pytest.Config) -> None:
    if "audit" in _STATE:
        _STATE.pop("audit").__exit__(None, None, None)
    if "previous" in _STATE:
        import strict_array as xp

        xp.set_rank_promotion(_STATE.pop("previous"))


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    report = _STATE.get("report")
    if report is None:
        return
    under = config.getoption("rank_promotion_under", default=None)
    shown = report.under(under) if under else report
    terminalreporter.section("strict_array rank promotions")
    terminalreporter.write_line(str(shown))


@pytest.fixture
def rank_promotion_audit():
    """Record (and allow) the rank promotions of one test; yields the report."""
    import strict_array as xp

    with xp.audit() as report:
        yield report
