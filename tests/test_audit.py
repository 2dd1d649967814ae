"""audit(): recording rank promotions by call site, the CLI, and the documented recipes."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
from conftest import run_user_tests

import strict_array as xp


def _site():
    return xp.ones((4, 3)) - xp.ones(3)


SITE_LINE = _site.__code__.co_firstlineno + 1


def test_audit_records_sites_and_counts():
    with xp.audit() as report:
        for _ in range(3):
            r = _site()
        xp.sum_to(xp.ones((4, 3)), (3,))
    np.testing.assert_array_equal(np.asarray(r), np.zeros((4, 3)))
    assert report.total == 4 and len(report) == 2
    (top, n), _ = report.most_common()
    assert n == 3 and top.lineno == SITE_LINE and top.filename == __file__
    assert top.operation == "subtract" and top.shapes == ((4, 3), (3,))
    table = str(report)
    assert (
        "subtract" in table
        and "(4, 3) & (3,)" in table
        and table.index("subtract") < table.index("sum_to")
    )
    assert xp.get_rank_promotion() == "raise"  # restored
    with pytest.raises(xp.RankPromotionError):
        _site()


def test_audit_overrides_raise_and_warn_silently():
    with xp.rank_promotion("warn"), warnings.catch_warnings():
        warnings.simplefilter("error")
        with xp.audit() as report:
            _site()
    assert report.total == 1


def test_audit_filter_by_path_and_package(tmp_path):
    pkg = tmp_path / "depdemo"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(
        "import strict_array as xp\ndef promote():\n    return xp.ones((2, 2)) * xp.ones(2)\n"
    )
    sys.path.insert(0, str(tmp_path))
    try:
        import depdemo

        with xp.audit() as report:
            depdemo.promote()
            _site()
        assert report.under("depdemo").total == 1
        assert report.under(str(pkg)).total == 1
        assert report.under(__file__).total == 1
        with pytest.raises(ValueError, match="neither a path nor"):
            report.under("no_such_package_here")
    finally:
        sys.path.remove(str(tmp_path))


def test_recipe_strict_for_own_code_only(tmp_path):
    """Own package raises, dependencies only warn: warn mode plus a module filter."""
    (tmp_path / "thirdparty.py").write_text(
        "import strict_array as xp\ndef scale(x):\n    return x - xp.mean(x, axis=0)\n"
    )
    (tmp_path / "mine.py").write_text(
        "import strict_array as xp\ndef bad(x):\n    return x * xp.ones(x.shape[1])\n"
    )
    code = textwrap.dedent(
        """
        import warnings, strict_array as xp, thirdparty, mine
        xp.set_rank_promotion("warn")
        warnings.filterwarnings("error", category=xp.RankPromotionWarning, module=r"mine(\\.|$)")
        with warnings.catch_warnings(record=True) as seen:
            warnings.filterwarnings("always", category=xp.RankPromotionWarning, module="thirdparty")
            thirdparty.scale(xp.ones((3, 2)))
        assert len(seen) == 1, seen
        try:
            mine.bad(xp.ones((3, 2)))
        except xp.RankPromotionWarning:
            print("own code raised")
        """
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "own code raised" in out.stdout


def test_cli_runs_bundled_example():
    out = subprocess.run(
        [sys.executable, "-m", "strict_array", "audit"], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert "fitted weights" in out.stdout
    assert (
        "_audit_example.py" in out.stderr
        and "subtract" in out.stderr
        and "(200, 3) & (3,)" in out.stderr
    )


def test_cli_script_and_module(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(
        "import sys, strict_array as xp\n"
        "for _ in range(int(sys.argv[1])):\n"
        "    xp.ones((2, 5)) + xp.ones(5)\n"
        "raise SystemExit(3)\n"
    )
    out = subprocess.run(
        [sys.executable, "-m", "strict_array", "audit", str(script), "4"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 3
    assert "4 rank promotion(s) at 1 site(s)" in out.stderr and "prog.py:3" in out.stderr
    out = subprocess.run(
        [sys.executable, "-m", "strict_array", "audit", "-m", "prog", "2"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path), "PATH": ""},
    )
    assert "2 rank promotion(s)" in out.stderr


def test_tour_runs():
    out = subprocess.run([sys.executable, "-m", "strict_array"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "RankPromotionError" in out.stdout and "equal to the NumPy result: True" in out.stdout


def test_pytest_plugin_audit_and_fixture(tmp_path):
    source = (
        "import strict_array as xp\n"
        "def test_scale():\n"
        "    xp.ones((3, 2)) * xp.ones(2)\n"
        "def test_fixture(rank_promotion_audit):\n"
        "    xp.ones((3, 2)) + xp.ones(2)\n"
        "    assert rank_promotion_audit.total == 1\n"
    )
    out = run_user_tests(tmp_path, source, "--rank-promotion=audit")
    assert out.returncode == 0, out.stdout
    assert "strict_array rank promotions" in out.stdout and "multiply" in out.stdout
    out = run_user_tests(tmp_path, source, "--rank-promotion=raise")
    assert "1 failed, 1 passed" in out.stdout  # the fixture's audit still allows its own test
