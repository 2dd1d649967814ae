"""The graph adapter (strict_array._backends.dask._graph): Dask's expression arrays are
refused when the device loads, with the setting named; graph arrays run."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from conftest import checkout_env

#: a program that uses the DASK device first by name, then by an array's device
PROGRAM = textwrap.dedent(
    """
    import strict_array as xp
    names = [str(d) for d in xp.__array_namespace_info__().devices()]
    print("devices", [n for n in names if not n.startswith("strict_array.CPU")])
    for device in (xp.CPU, "dask", "dask"):  # (refused again: the load is not cached)
        try:
            a = xp.asarray([[1.0, 2.0], [3.0, 4.0]], device=device)
            print("sum", float(xp.sum(a)))
        except ImportError as e:
            print("refused", type(e).__name__, e)
    """
)


def _run(planning: str | None) -> list[str]:
    env = checkout_env()
    env.pop("DASK_ARRAY__QUERY_PLANNING", None)
    if planning is not None:
        env["DASK_ARRAY__QUERY_PLANNING"] = planning
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


@pytest.mark.expression_arrays
def test_expression_arrays_are_refused_at_the_first_dask_use():
    lines = _run("True")
    assert lines[0] == "devices []"  # (the CPU devices alone are available)
    assert lines[1] == "sum 10.0"
    for line in lines[2:]:
        assert line.startswith("refused ExpressionArraysError")
        assert "'array.query-planning'" in line and "DASK_ARRAY__QUERY_PLANNING" in line
        assert "dask.config.set({'array.query-planning': False})" in line
        assert "strict_array.CPU" in line
    assert len(lines) == 4


@pytest.mark.expression_arrays
def test_graph_arrays_run_with_the_setting_off():
    lines = _run("False")
    assert lines == [
        "devices ['strict_array.DASK', 'strict_array.DASK1', 'strict_array.DASK_FLOAT32',"
        " 'strict_array.DASK_NO_FLOAT64', 'strict_array.DASK_NO_X64']",
        "sum 10.0",
        "sum 10.0",
        "sum 10.0",
    ]
