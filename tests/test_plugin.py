"""The pytest plugin (run with pytester in a subprocess, as a user's session runs it):
option validation, tracebacks, the JSON report, the baseline, and pytest-xdist."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

USER_TESTS = """
import strict_array as xp


def outer():
    return xp.ones((5, 1)) - xp.ones(5)


def test_scale():
    xp.ones((3, 2)) * xp.ones(2)


def test_outer():
    outer()


def test_repeated():
    for _ in range(3):
        xp.ones((3, 2)) + xp.ones(2)
"""

NEW_SITE = """

def test_new_site():
    xp.ones((4, 2)) * xp.ones(2)
"""


@pytest.fixture
def run(pytester, monkeypatch):
    """``run(*args)``: pytest in a subprocess on this checkout's strict_array."""
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    monkeypatch.delenv("STRICT_ARRAY_RANK_PROMOTION", raising=False)

    def run(*args: str) -> pytest.RunResult:
        return pytester.runpytest_subprocess("-p", "no:cacheprovider", *args)

    return run


def _sites(path: Path) -> dict[tuple[str, str], dict]:
    data = json.loads(path.read_text())
    assert data["format"] == "strict_array rank-promotion report" and data["version"] == 1
    return {(s["function"], s["operation"]): s for s in data["sites"]}


# --- options are checked before collection ----------------------------------------------
@pytest.mark.parametrize(
    ("option", "named"),
    [
        ("--rank-promotion-policy=bogus", "'bogus'"),
        ("--rank-promotion-policy=raise,sklearn=loud", "'loud'"),
        ("--rank-promotion-policy=raise,not-a-package=warn", "'not-a-package'"),
        ("--rank-promotion-under=no_such_package_anywhere", "'no_such_package_anywhere'"),
        ("--rank-promotion-report=no/such/folder/r.json", "'no/such/folder/r.json'"),
        ("--rank-promotion-baseline=missing.json", "missing.json"),
        ("--rank-promotion-baseline=garbage.json", "not JSON"),
        ("--rank-promotion-baseline=other.json", "not a strict_array rank-promotion report"),
        ("--rank-promotion=loud", "'loud'"),
    ],
)
def test_bad_option_values_are_usage_errors(run, pytester, option, named):
    pytester.makefile(".json", garbage="{not json", other='{"sites": []}')
    pytester.makepyfile(
        test_collected="open('collected', 'w').write('yes')\ndef test_x():\n    pass\n"
    )
    result = run(option)
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()
    assert named in result.stderr.str()
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    assert not (pytester.path / "collected").exists()  # refused before collection


# --- tracebacks -------------------------------------------------------------------------
def test_rank_promotion_error_shows_the_users_frame_first(run, pytester):
    pytester.makepyfile(
        test_user="import strict_array as xp\n"
        "def test_promotes():\n"
        "    x = xp.ones((4, 3))\n"
        "    x - xp.mean(x, axis=0)\n"
    )
    result = run()
    out = result.stdout.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert ">       x - xp.mean(x, axis=0)" in out and "RankPromotionError" in out
    assert "_policy.py" not in out and "_elementwise.py" not in out and "_array.py" not in out
    full = run("--full-trace").stdout.str()
    assert "_policy.py" in full and "_elementwise.py" in full


def test_library_frames_stay_for_errors_from_inside_numpy(run, pytester):
    """Only errors strict_array raises on purpose hide its frames."""
    pytester.makepyfile(
        test_user="import strict_array as xp\n"
        "def test_backend_error():\n"
        "    xp.linalg.inv(xp.zeros((2, 2)))\n"
    )
    out = run().stdout.str()
    assert "LinAlgError: Singular matrix" in out and "strict_array/linalg.py" in out


# --- the report ------------------------------------------------------------------------
def test_report_lists_sites_operations_shapes_and_counts(run, pytester):
    pytester.makepyfile(test_user=USER_TESTS)
    result = run("--rank-promotion=audit", "--rank-promotion-report=report.json")
    assert result.ret == 0
    sites = _sites(pytester.path / "report.json")
    assert set(sites) == {
        ("test_scale", "multiply"),
        ("outer", "subtract"),
        ("test_repeated", "add"),
    }
    repeated = sites["test_repeated", "add"]
    assert repeated["path"] == "test_user.py" and repeated["count"] == 3
    assert repeated["shapes"] == [[3, 2], [2]] and repeated["outer"] is False
    assert sites["outer", "subtract"]["outer"] is True
    data = json.loads((pytester.path / "report.json").read_text())
    assert data["total"] == 5 and data["sites"][0]["function"] == "outer"  # outer first
    table = result.stdout.str()
    assert table.index("yes    1      test_user.py:5 in outer") < table.index("test_repeated")


# --- the baseline -----------------------------------------------------------------------
def test_baseline_passes_old_sites_and_fails_new_ones(run, pytester):
    test_file = pytester.makepyfile(test_user=USER_TESTS)
    assert run("--rank-promotion=audit", "--rank-promotion-report=baseline.json").ret == 0
    assert run().ret == pytest.ExitCode.TESTS_FAILED  # raise: every site fails
    # lines move (an edit above the sites) and a new site appears
    test_file.write_text("# a new header line\n\n" + USER_TESTS + NEW_SITE)
    result = run("--rank-promotion-baseline=baseline.json", "--rank-promotion-report=now.json")
    result.assert_outcomes(passed=3, failed=1)
    assert "FAILED test_user.py::test_new_site - strict_array.RankPromotionError" in (
        result.stdout.str()
    )
    now = _sites(pytester.path / "now.json")  # the baseline's sites are still recorded
    assert set(now) == {("test_scale", "multiply"), ("outer", "subtract"), ("test_repeated", "add")}
    assert now["test_repeated", "add"]["count"] == 3
    assert "strict_array baseline sites let through" in result.stdout.str()
    # warn mode: known sites are quiet, new ones warn
    result = run(
        "--rank-promotion=warn", "--rank-promotion-baseline=baseline.json",
        "-W", "error::strict_array.RankPromotionWarning",
    )  # fmt: skip
    result.assert_outcomes(passed=3, failed=1)


def test_baseline_matches_shapes_and_operation(run, pytester):
    pytester.makepyfile(
        test_user="import strict_array as xp\ndef test_a():\n    xp.ones((3, 2)) * xp.ones(2)\n"
    )
    assert run("--rank-promotion=audit", "--rank-promotion-report=b.json").ret == 0
    pytester.makepyfile(
        test_user="import strict_array as xp\ndef test_a():\n    xp.ones((3, 4)) * xp.ones(4)\n"
    )
    run("--rank-promotion-baseline=b.json").assert_outcomes(failed=1)
    pytester.makepyfile(
        test_user="import strict_array as xp\ndef test_a():\n    xp.ones((3, 2)) + xp.ones(2)\n"
    )
    run("--rank-promotion-baseline=b.json").assert_outcomes(failed=1)


def test_baseline_reports_sites_that_no_longer_promote(run, pytester):
    pytester.makepyfile(test_user=USER_TESTS)
    assert run("--rank-promotion=audit", "--rank-promotion-report=b.json").ret == 0
    pytester.makepyfile(test_user=USER_TESTS.replace("xp.ones((3, 2)) * xp.ones(2)", "pass"))
    result = run("--rank-promotion-baseline=b.json")
    assert result.ret == 0
    assert "1 of its 3 site(s) did not promote" in result.stdout.str()


# --- pytest-xdist ------------------------------------------------------------------------
def test_xdist_workers_record_and_the_controller_merges(run, pytester):
    pytester.makepyfile(test_user=USER_TESTS)
    serial = run("--rank-promotion=audit", "--rank-promotion-report=serial.json")
    parallel = run("-n", "2", "--rank-promotion=audit", "--rank-promotion-report=parallel.json")
    assert serial.ret == parallel.ret == 0
    assert _sites(pytester.path / "serial.json") == _sites(pytester.path / "parallel.json")
    assert "5 rank promotion(s) at 3 site(s)" in parallel.stdout.str()


def test_xdist_baseline(run, pytester):
    test_file = pytester.makepyfile(test_user=USER_TESTS)
    assert run("-n", "2", "--rank-promotion=audit", "--rank-promotion-report=b.json").ret == 0
    test_file.write_text(USER_TESTS + NEW_SITE)
    result = run("-n", "2", "--rank-promotion-baseline=b.json", "--rank-promotion-report=now.json")
    result.assert_outcomes(passed=3, failed=1)
    now = _sites(pytester.path / "now.json")
    assert len(now) == 3 and now["test_repeated", "add"]["count"] == 3
