"""docs/semantics.md section 4: raise / warn / allow, thread and task safety, attribution."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
import warnings

import numpy as np
import pytest
from conftest import run_user_tests

import strict_array as xp
from strict_array import RankPromotionError, RankPromotionWarning


def _promote():
    return xp.ones((2, 3)) + xp.asarray([1.0, 2.0, 3.0])  # the line warnings point at


PROMOTE_LINE = _promote.__code__.co_firstlineno + 1


def test_exception_hierarchy():
    assert issubclass(RankPromotionError, ValueError)
    assert issubclass(RankPromotionWarning, UserWarning)


def test_raise_is_default():
    assert xp.get_rank_promotion() == "raise"
    with pytest.raises(RankPromotionError):
        _promote()


def test_allow_is_numpy_semantics():
    with xp.rank_promotion("allow"), warnings.catch_warnings():
        warnings.simplefilter("error")
        r = _promote()
    np.testing.assert_array_equal(np.asarray(r), np.ones((2, 3)) + [1, 2, 3])


def test_warn_attributed_to_caller_line():
    with xp.rank_promotion("warn"), pytest.warns(RankPromotionWarning) as record:
        _promote()
    (w,) = record
    assert (w.filename, w.lineno) == (__file__, PROMOTE_LINE)
    assert "add" in str(w.message) and "(2, 3)" in str(w.message)
    assert "broadcast_dimensions=(1,)" in str(w.message)


def test_warning_filters_by_module_work():
    with xp.rank_promotion("warn"), warnings.catch_warnings():
        warnings.filterwarnings("error", category=RankPromotionWarning, module=__name__)
        with pytest.raises(RankPromotionWarning):
            _promote()
        warnings.filterwarnings("ignore", category=RankPromotionWarning, module="elsewhere")


def test_set_rank_promotion_is_process_default():
    try:
        xp.set_rank_promotion("allow")
        seen = []
        t = threading.Thread(target=lambda: seen.append(xp.get_rank_promotion()))
        t.start()
        t.join()
        assert seen == ["allow"]
    finally:
        xp.set_rank_promotion("raise")
    with pytest.raises(ValueError, match="'raise', 'warn', 'allow'"):
        xp.set_rank_promotion("sometimes")


def test_context_manager_is_thread_local():
    barrier = threading.Barrier(2)
    results = {}

    def worker(mode):
        with xp.rank_promotion(mode):
            barrier.wait()
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    _promote()
                results[mode] = "ok"
            except RankPromotionError:
                results[mode] = "raised"
            barrier.wait()

    threads = [threading.Thread(target=worker, args=(m,)) for m in ("allow", "raise")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {"allow": "ok", "raise": "raised"}
    assert xp.get_rank_promotion() == "raise"


def test_context_manager_is_task_local():
    async def task(mode, started, other_started):
        with xp.rank_promotion(mode):
            started.set()
            await other_started.wait()
            return xp.get_rank_promotion()

    async def main():
        e1, e2 = asyncio.Event(), asyncio.Event()
        return await asyncio.gather(task("allow", e1, e2), task("warn", e2, e1))

    assert asyncio.run(main()) == ["allow", "warn"]


def test_context_manager_restores_on_error():
    with pytest.raises(KeyError), xp.rank_promotion("allow"):
        raise KeyError
    assert xp.get_rank_promotion() == "raise"


@pytest.mark.parametrize("mode", ["allow", "warn", "raise"])
def test_environment_variable(mode):
    code = "import strict_array as xp; print(xp.get_rank_promotion())"
    out = subprocess.run(
        [sys.executable, "-c", code],
        env={"STRICT_ARRAY_RANK_PROMOTION": mode, "PATH": ""},
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == mode


def test_environment_variable_invalid():
    out = subprocess.run(
        [sys.executable, "-c", "import strict_array"],
        env={"STRICT_ARRAY_RANK_PROMOTION": "maybe", "PATH": ""},
        capture_output=True,
        text=True,
    )
    assert out.returncode != 0
    assert "STRICT_ARRAY_RANK_PROMOTION" in out.stderr and "maybe" in out.stderr


def test_pytest_error_filter_on_warning(tmp_path):
    """The documented pytest recipe: -W error::strict_array.RankPromotionWarning."""
    out = run_user_tests(
        tmp_path,
        "import strict_array as xp\n"
        "def test_promotes():\n"
        "    with xp.rank_promotion('warn'):\n"
        "        xp.ones((2, 3)) + xp.ones(3)\n",
        "-W",
        "error::strict_array.RankPromotionWarning",
    )
    assert out.returncode == 1, out.stdout
    assert "RankPromotionWarning" in out.stdout and "1 failed" in out.stdout
