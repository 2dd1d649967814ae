"""Shared fixtures: hypothesis profiles and the two devices."""

from __future__ import annotations

import os
import subprocess
import sys

# SciPy reads this at import: its array API support (used by scikit-learn too)
os.environ.setdefault("SCIPY_ARRAY_API", "1")

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

# a third backend, registered the way any backend is (tests/strict_backend.py)
from strict_backend import STRICT

import strict_array as xp

# the pytest plugin's tests run user sessions with pytester (tests/test_plugin.py)
pytest_plugins = ("pytester",)

# "ci" keeps property tests bounded for CI's 2 cores; "dev" digs deeper by hand.
settings.register_profile(
    "ci",
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=True,
)
settings.register_profile("dev", max_examples=300, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


def _dask_refused() -> str | None:
    """Why the DASK device is not available here (Dask's expression arrays are on: the
    device refuses them), or None."""
    try:
        xp.DASK  # noqa: B018 (loads the device)
    except ImportError as e:
        if type(e).__name__ == "ExpressionArraysError":
            return str(e)
        raise
    return None


#: under Dask's expression arrays (DASK_ARRAY__QUERY_PLANNING=True) the DASK device
#: refuses to load: its tests are left out, and what the others support runs
DASK_REFUSED = _dask_refused()
DEVICES = [xp.CPU, STRICT] if DASK_REFUSED else [xp.CPU, xp.DASK, STRICT]
if DASK_REFUSED:
    # (the modules that use the DASK device as they load; tests/dask/test_graph.py
    # runs, and checks the refusal; a test that reaches the device elsewhere is skipped)
    collect_ignore_glob = ["dask/test_[!g]*.py"]
    collect_ignore = [
        "test_differential.py", "test_dtypes.py", "test_numpy_meaning.py",
        "test_numpy_own.py",
    ]  # fmt: skip


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Under Dask's expression arrays, a test stopped by the DASK device's refusal is
    skipped with the refusal as its reason (the rest of it is not supported there)."""
    outcome = yield
    if DASK_REFUSED and call.excinfo is not None:
        if call.excinfo.typename == "ExpressionArraysError":
            report = outcome.get_result()
            report.outcome = "skipped"
            report.longrepr = (str(item.path), item.location[1] or 0, f"Skipped: {DASK_REFUSED}")


@pytest.fixture(params=DEVICES, ids=lambda d: d.name)
def device(request):
    """Each test using it runs on every device: NumPy, Dask and the test backend over array_api_strict."""
    return request.param


@pytest.fixture(autouse=True, scope="session")
def _planning_checks():
    """The DASK planner asserts that each block it computes has its declared shape
    (off for users: a wrong declaration costs memory, never a value)."""
    try:
        import dask
    except ImportError:  # pragma: no cover - Dask is a test dependency
        yield
        return
    if DASK_REFUSED:  # (no planner to check)
        yield
        return
    from strict_array._backends.dask._plan import CHECKS_KEY

    with dask.config.set({CHECKS_KEY: True}):
        yield


@pytest.fixture(autouse=True)
def _raise_mode():
    """Every test starts in the default mode, whatever the environment says."""
    with xp.rank_promotion("raise"):
        yield


try:
    from dask.callbacks import Callback
except ImportError:  # (the DASK device's tests need Dask; the others run without it)
    Callback = object


class CountTasks(Callback):
    """Counts task executions on Dask's local schedulers (none while a graph is built)."""

    def __init__(self):
        super().__init__()
        self.count = 0

    def _pretask(self, key, dsk, state):
        self.count += 1


def run_as(package: str, source: str, **names):
    """Run ``source`` (an expression) as code of the module ``package`` would (a consumer
    package's call, where the data-dependent-size rule asks for sizes)."""
    return eval(source, {"__name__": package, "xp": xp, "np": np, **names})


def _nbytes(value: object) -> int:
    if isinstance(value, (tuple, list)):
        return sum(map(_nbytes, value))
    return getattr(value, "nbytes", 0)


class LargestResult:
    """A Dask callback: the largest result in bytes of any task but the final gathering of
    what was asked for (proof that no task held a whole large input), and the most bytes
    of results held at once (``held``)."""

    def __init__(self) -> None:
        from dask.callbacks import Callback

        self.nbytes = 0
        self.held = 0
        outer = self

        class _Callback(Callback):
            def _posttask(self, key, result, dsk, state, id):
                if "finalize" not in str(key):  # (the whole result, asked for)
                    parts = result if isinstance(result, tuple) else (result,)
                    outer.nbytes = max(outer.nbytes, *(getattr(r, "nbytes", 0) for r in parts))
                outer.held = max(outer.held, sum(map(_nbytes, state["cache"].values())))

        self._callback = _Callback()

    def __enter__(self) -> LargestResult:
        self._callback.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._callback.__exit__(*exc)


def to_numpy(x: xp.Array) -> np.ndarray:
    return np.asarray(x)


def on(device, values, **kwargs) -> xp.Array:
    """An Array of ``values`` on ``device`` (small chunks on Dask, to exercise them)."""
    arr = np.asarray(values, **kwargs)
    if device.name == "dask":  # (not xp.DASK: it may be refused, see DASK_REFUSED)
        chunks = tuple(max(1, (s + 1) // 2) for s in arr.shape) if arr.ndim else ()
        return xp.asarray(arr, device=device, chunks=chunks)
    return xp.asarray(arr, device=device)


def run_user_tests(tmp_path, source: str, *pytest_args: str) -> subprocess.CompletedProcess:
    """Run ``source`` as a user's test file under a fresh pytest (our plugin loads itself)."""
    test_file = tmp_path / "test_user.py"
    test_file.write_text(source)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c", "/dev/null",
         *pytest_args, str(test_file)],
        capture_output=True, text=True, cwd=tmp_path, env=checkout_env(),
    )  # fmt: skip


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def checkout_env(**extra: str) -> dict[str, str]:
    """The environment for a subprocess that imports this checkout's strict_array from
    any working directory (not another installed copy)."""
    path = os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path, **extra}
