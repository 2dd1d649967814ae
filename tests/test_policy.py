"""Rank-promotion policies per package: API, environment variable, pytest option."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap
import threading
import warnings

import pytest
from conftest import run_user_tests

import strict_array as xp

PROMOTE = "import strict_array as xp\n\ndef promote():\n    return xp.ones((4, 3)) - xp.ones(3)\n"


@pytest.fixture
def packages(tmp_path, monkeypatch):
    """Two importable packages whose code promotes ranks: ``mypkg`` and ``theirpkg``."""
    for name in ("mypkg", "theirpkg"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text(PROMOTE)
    monkeypatch.syspath_prepend(str(tmp_path))
    import mypkg  # type: ignore[import-not-found]
    import theirpkg  # type: ignore[import-not-found]

    yield mypkg, theirpkg
    for name in ("mypkg", "theirpkg"):
        sys.modules.pop(name, None)


def test_the_calling_package_decides(packages):
    mine, theirs = packages
    with xp.rank_promotion_policy({"mypkg": "raise", "theirpkg": "warn"}, default="allow"):
        with pytest.raises(xp.RankPromotionError, match="subtract"):
            mine.promote()
        with pytest.warns(xp.RankPromotionWarning) as record:
            assert theirs.promote().shape == (4, 3)
        assert [w.filename for w in record] == [theirs.__file__]
        assert (xp.ones((4, 3)) - xp.ones(3)).shape == (4, 3)  # this file: the default


def test_audit_mode_records_only_its_package(packages):
    mine, theirs = packages
    with xp.rank_promotion_policy({"theirpkg": "audit"}, default="allow") as report:
        theirs.promote()
        theirs.promote()
        mine.promote()
    assert report.total == 2 and len(report) == 1
    ((site, _),) = report.most_common()
    assert site.filename == theirs.__file__ and site.operation == "subtract"


def test_longest_package_name_wins(tmp_path, monkeypatch):
    (tmp_path / "outer" / "inner").mkdir(parents=True)
    (tmp_path / "outer" / "__init__.py").write_text(PROMOTE)
    (tmp_path / "outer" / "inner" / "__init__.py").write_text(PROMOTE)
    monkeypatch.syspath_prepend(str(tmp_path))
    import outer  # type: ignore[import-not-found]
    import outer.inner  # type: ignore[import-not-found]

    try:
        with xp.rank_promotion_policy({"outer": "raise", "outer.inner": "allow"}):
            outer.inner.promote()
            with pytest.raises(xp.RankPromotionError):
                outer.promote()
    finally:
        sys.modules.pop("outer.inner", None)
        sys.modules.pop("outer", None)


def test_nested_policies_add_packages_and_rank_promotion_overrides_them(packages):
    mine, theirs = packages
    with xp.rank_promotion_policy({"mypkg": "allow"}, default="raise"):
        with xp.rank_promotion_policy({"theirpkg": "allow"}):
            mine.promote()
            theirs.promote()
            with pytest.raises(xp.RankPromotionError):
                xp.ones((4, 3)) - xp.ones(3)
            with xp.rank_promotion("raise"), pytest.raises(xp.RankPromotionError):
                mine.promote()  # one mode for all code in the block


def test_policy_is_thread_and_task_local(packages):
    mine, _ = packages
    seen = {}

    def other_thread():
        try:
            mine.promote()
            seen["thread"] = "allowed"
        except xp.RankPromotionError:
            seen["thread"] = "raised"

    async def task():
        with xp.rank_promotion_policy({"mypkg": "allow"}):
            await asyncio.sleep(0)
            mine.promote()
        return "allowed"

    async def other_task():
        await asyncio.sleep(0)
        try:
            mine.promote()
            return "allowed"
        except xp.RankPromotionError:
            return "raised"

    async def both():
        return await asyncio.gather(task(), other_task())

    with xp.rank_promotion_policy({"mypkg": "allow"}):
        t = threading.Thread(target=other_thread)
        t.start()
        t.join()
    assert seen["thread"] == "raised"  # the policy did not leak into another thread
    assert asyncio.run(both()) == ["allowed", "raised"]


def test_bad_policies_are_refused_when_called():
    with pytest.raises(ValueError, match="rank-promotion mode"):
        xp.rank_promotion_policy({"mypkg": "bogus"})
    with pytest.raises(ValueError, match="not a package name"):
        xp.rank_promotion_policy({"my pkg": "raise"})
    with pytest.raises(TypeError, match="mapping"):
        xp.rank_promotion_policy(["mypkg"])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="rank-promotion mode"):
        xp.rank_promotion("bogus")  # type: ignore[arg-type]


def _in_fresh_context(func):
    """Run ``func`` in a new thread, outside this test's own rank_promotion("raise")
    context (conftest's autouse fixture): there the process-wide policy holds."""
    box = {}

    def run():
        try:
            box["value"] = func()
        except BaseException as e:  # re-raised in the test's thread
            box["error"] = e

    t = threading.Thread(target=run)
    t.start()
    t.join()
    if "error" in box:
        raise box["error"]
    return box.get("value")


def test_set_rank_promotion_policy_is_the_process_default(packages):
    mine, theirs = packages
    saved = xp.get_rank_promotion_policy()

    def check():
        theirs.promote()
        with pytest.raises(xp.RankPromotionError):
            mine.promote()
        assert xp.get_rank_promotion_policy().packages == {"theirpkg": "allow"}
        xp.set_rank_promotion("warn")  # the default changes, the packages stay
        assert xp.get_rank_promotion_policy().packages == {"theirpkg": "allow"}
        with pytest.warns(xp.RankPromotionWarning):
            mine.promote()

    from strict_array import _policy

    process = _policy._process[0]
    try:
        xp.set_rank_promotion_policy({"theirpkg": "allow"}, default="raise")
        _in_fresh_context(check)
        assert xp.get_rank_promotion_policy() is saved  # here the local context holds
    finally:
        _policy._process[0] = process


def test_no_cost_without_promotion():
    """The policy is read only when ranks differ: the fast path never looks at it."""
    from strict_array import _policy

    calls = []
    original = _policy._decide
    _policy._decide = lambda p: calls.append(p)  # type: ignore[assignment]
    try:
        x = xp.ones((3, 3))
        _ = x + x, x * 2.0, xp.add(x, x), x[0] - x[1]
    finally:
        _policy._decide = original
    assert calls == []


def _run(code: str, env: dict[str, str], cwd: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env={**os.environ, **env}, capture_output=True, text=True, cwd=cwd,
    )  # fmt: skip


def test_environment_variable_policy(tmp_path):
    (tmp_path / "theirpkg").mkdir()
    (tmp_path / "theirpkg" / "__init__.py").write_text(PROMOTE)
    code = """
        import strict_array as xp, theirpkg
        theirpkg.promote()
        try:
            xp.ones((4, 3)) - xp.ones(3)
        except xp.RankPromotionError:
            print("own code raises")
    """
    out = _run(code, {"STRICT_ARRAY_RANK_PROMOTION": "raise,theirpkg=audit"}, str(tmp_path))
    assert out.returncode == 0, out.stderr
    assert "own code raises" in out.stdout
    # the audited package's sites are printed when the process ends
    assert "1 rank promotion(s) at 1 site(s)" in out.stderr and "theirpkg" in out.stderr
    bad = _run("import strict_array", {"STRICT_ARRAY_RANK_PROMOTION": "pkg=bogus"}, str(tmp_path))
    assert bad.returncode != 0 and "STRICT_ARRAY_RANK_PROMOTION" in bad.stderr


def test_empty_environment_variables_count_as_unset(tmp_path):
    code = "import strict_array as xp; print(xp.get_rank_promotion(), xp.get_default_device())"
    out = _run(code, {"STRICT_ARRAY_RANK_PROMOTION": "", "STRICT_ARRAY_DEVICE": ""}, str(tmp_path))
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["raise", "strict_array.CPU"]


def test_pytest_option_policy(tmp_path):
    (tmp_path / "theirpkg").mkdir()
    (tmp_path / "theirpkg" / "__init__.py").write_text(PROMOTE)
    source = """
        import pytest, strict_array as xp, theirpkg

        def test_theirs_warns():
            with pytest.warns(xp.RankPromotionWarning):
                theirpkg.promote()

        def test_mine_raises():
            with pytest.raises(xp.RankPromotionError):
                xp.ones((4, 3)) - xp.ones(3)
    """
    out = run_user_tests(
        tmp_path, textwrap.dedent(source), "--rank-promotion-policy=raise,theirpkg=warn",
        "-p", "no:randomly",
    )  # fmt: skip
    assert out.returncode == 0, out.stdout + out.stderr
    assert "2 passed" in out.stdout


def test_warn_mode_does_not_warn_before_an_error():
    """In warn mode a promotion that NumPy's alignment cannot do either gives only the error."""
    with xp.rank_promotion("warn"), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(ValueError, match="trailing alignment"):
            xp.ones((4, 3)) * xp.ones(4)
    assert [w for w in caught if issubclass(w.category, xp.RankPromotionWarning)] == []
