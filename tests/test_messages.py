"""What a new user meets: messages that say what a function accepts and which one
failed, pointers for NumPy habits, and the command line's errors."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from conftest import checkout_env, on

import strict_array as xp


@pytest.mark.parametrize(
    "call, accepted",
    [
        (lambda: xp.exp(1.0), r"exp: expected a strict_array\.Array, got the float 1\.0"),
        (lambda: xp.broadcast_in_dim(1.0, (2,), ()), r"broadcast_in_dim \(x\): expected a "
         r"strict_array\.Array, got the float 1\.0"),
        (lambda: xp.where(True, xp.ones(2), 0.0), r"where \(condition\): expected a "
         r"strict_array\.Array, got the bool True"),
        (lambda: xp.sum([1.0, 2.0]), r"sum \(x\): expected a strict_array\.Array, got list"),
        (lambda: xp.add("a", xp.ones(2)), r"add: expected a strict_array\.Array or a Python "
         r"scalar .*got str"),
    ],
)  # fmt: skip
def test_messages_say_what_is_accepted(call, accepted):
    with pytest.raises(TypeError, match=accepted) as info:
        call()
    assert "asarray" in str(info.value) or "got str" in str(info.value) or "list" in str(info.value)


@pytest.mark.parametrize(
    "call, error, names",
    [
        (lambda d: xp.where(on(d, np.ones((2, 3))) > 0, on(d, np.ones((2, 4))), 0.0),
         ValueError, r"where: shapes \(2, 3\) and \(2, 4\) cannot be broadcast"),
        (lambda d: xp.concat([on(d, np.ones((2, 3))), on(d, np.ones((2, 4)))]),
         ValueError, r"concat: the arrays must have equal sizes except along axis 0"),
        (lambda d: xp.bitwise_and(on(d, np.ones(3)), on(d, np.ones(3))),
         TypeError, r"bitwise_and: x1 has dtype float64, but bitwise_and takes integer or "
         r"boolean arrays .*strict_array.astype\(x1, strict_array.int64\)"),
        (lambda d: on(d, np.ones(3, dtype=np.int8)) + 2**70, OverflowError, r"add: operands"),
        (lambda d: on(d, np.ones(3))[5], IndexError, r"__getitem__: key 5 on an array of "
         r"shape \(3,\)"),
        # (of two errors in one key, the zero step is NumPy's: Dask checked the integers
        # first, and named the axis by its place in the result)
        (lambda d: on(d, np.ones((2, 2)))[None, ::0, None, 2], ValueError,
         r"__getitem__: key \(None, slice\(None, None, 0\), None, 2\) on an array of shape "
         r"\(2, 2\): slice step cannot be zero"),
        (lambda d: on(d, np.ones((2, 2))).__setitem__((slice(None, None, 0), 2), 1.0),
         ValueError, r"__setitem__: key .* slice step cannot be zero"),
        (lambda d: xp.bitwise_invert(on(d, np.ones(3))), TypeError, r"bitwise_invert: "),
        (lambda d: xp.reshape(on(d, np.ones(6)), (4, 2)), ValueError, r"reshape: cannot "
         r"reshape an array of shape \(6,\)"),
    ],
)  # fmt: skip
def test_backend_errors_name_the_operation(device, call, error, names):
    with pytest.raises(error, match=names):
        call(device)


def test_numpy_method_habits_get_a_pointer():
    x = xp.ones((2, 3))
    for method, pointer in [
        ("mean", "strict_array.mean(x, ...)"), ("astype", "strict_array.astype(x, dtype)"),
        ("tolist", "np.asarray(x).tolist()"), ("reshape", "strict_array.reshape(x, shape)"),
    ]:  # fmt: skip
        with pytest.raises(AttributeError, match=rf"NumPy method.*{pointer}".replace("(", r"\(")
                           .replace(")", r"\)")):  # fmt: skip
            getattr(x, method)
    assert not hasattr(x, "mean")  # still no such attribute for duck-typing code
    with pytest.raises(AttributeError, match="has no attribute 'bogus'"):
        x.bogus  # noqa: B018


def test_numpy_functions_give_numpys_value_or_name_the_fix():
    x = xp.ones(3)
    assert isinstance(np.exp(x), xp.Array) and isinstance(np.sum(x), xp.Array)
    assert isinstance(np.fmod(x, x), xp.Array) and isinstance(np.histogram(x)[0], xp.Array)
    # a lazy device refuses only where NumPy's value cannot be lazy, naming the fix
    with pytest.raises(
        TypeError,
        match=r"numpy\.real_if_close: strict_array\.DASK cannot give "
        r"NumPy's value lazily \(its dtype depends on the values\); compute "
        r"first: .*np\.asarray\(x\).*x\.to_device\(strict_array\.CPU\)",
    ):
        np.real_if_close(x.to_device(xp.DASK))
    # NumPy's arrays beside a strict array: NumPy's operator, NumPy's meaning, the rank rule
    assert isinstance(np.ones(3) + x, xp.Array)
    with pytest.raises(
        xp.RankPromotionError,
        match=r"numpy\.add: operands of shapes \(2, 3\) "
        r"and \(3,\)",
    ):
        np.ones((2, 3)) + x


def test_scalar_conversion_suggests_an_index_that_fits():
    with pytest.raises(TypeError, match=r"e\.g\. x\[0\]\)"):
        float(xp.ones(1))
    with pytest.raises(TypeError, match=r"e\.g\. x\[0, 0, 0\]\)"):
        int(xp.ones((1, 1, 1)))


def test_unknown_sizes_show_as_none_in_shape_and_chunks():
    x = xp.arange(10.0, device=xp.DASK, chunks=4)
    u = x[x > 4.5]
    assert u.shape == (None,)
    assert u.chunks == ((None, None, None),)
    with xp.known_sizes():
        k = x[x > 4.5]
    assert k.shape == (5,) and sum(k.chunks[0]) == 5


def test_setitem_hint_fits_any_mask():
    y = xp.zeros((5, 3))
    mask = xp.asarray(np.array([True, False, True, True, False]))
    with pytest.raises(xp.RankPromotionError, match=r"value\[None, :\]") as info:
        y[mask] = xp.ones(3)
    assert "(3, 3)" in str(info.value)  # the region is named, the fix does not depend on it
    y[mask] = xp.ones(3)[None, :]
    assert float(xp.sum(y)) == 9.0


def _cli(*args: str, cwd: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "strict_array", *args],
        capture_output=True, text=True, cwd=cwd, env=checkout_env(),
    )  # fmt: skip


def test_audit_cli_prints_the_table_when_the_script_raises(tmp_path):
    script = tmp_path / "fails.py"
    script.write_text(
        textwrap.dedent("""
        import strict_array as xp
        y = xp.ones((4, 3)) - xp.ones(3)
        raise RuntimeError("the script failed")
    """)
    )
    out = _cli("audit", str(script))
    assert out.returncode != 0
    table, _, trace = out.stderr.partition("Traceback")
    assert "1 rank promotion(s) at 1 site(s)" in table and "fails.py:3" in table
    assert "RuntimeError: the script failed" in trace


def test_audit_cli_errors_are_usage_errors(tmp_path):
    """argparse's form: the usage line, then one line naming the error; status 2."""
    missing = _cli("audit", str(tmp_path / "nope.py"))
    usage, error = missing.stderr.splitlines()
    assert missing.returncode == 2 and usage.startswith("usage: python -m strict_array audit")
    assert error.startswith("python -m strict_array audit: error: no such script")
    script = tmp_path / "ran.py"
    script.write_text("open('ran', 'w').write('yes')\n")
    unknown = _cli("audit", "--under=no_such_package_anywhere", str(script), cwd=str(tmp_path))
    assert unknown.returncode == 2 and "neither a path nor an importable package" in unknown.stderr
    assert not (tmp_path / "ran").exists()  # reported before the script runs
    bad = _cli("frobnicate")
    assert bad.returncode == 2 and "invalid choice: 'frobnicate'" in bad.stderr
    assert "tour" not in bad.stdout


def test_audit_cli_under_keeps_the_package(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text(
        "import strict_array as xp\n\ndef f():\n    return xp.ones((4, 3)) - xp.ones(3)\n"
    )
    script = tmp_path / "main.py"
    script.write_text("import pkg, strict_array as xp\npkg.f()\nxp.ones((2, 2)) * xp.ones(2)\n")
    out = _cli("audit", "--under", str(tmp_path / "pkg"), str(script), cwd=str(tmp_path))
    assert out.returncode == 0, out.stderr
    assert "1 rank promotion(s) at 1 site(s)" in out.stderr and "main.py" not in out.stderr


def test_command_line_version_help_and_default_tour():
    version = _cli("--version")
    assert version.returncode == 0 and version.stdout.strip() == f"strict_array {xp.__version__}"
    for args in (["--help"], ["audit", "--help"], ["tour", "--help"]):
        shown = _cli(*args)
        assert shown.returncode == 0 and shown.stdout.startswith("usage: python -m strict_array")
        assert "``" not in shown.stdout and ":func:" not in shown.stdout  # no raw markup
    assert "audit" in _cli("--help").stdout and "--report PATH" in _cli("audit", "-h").stdout
    for args in ([], ["tour"]):  # the README's first command: the tour, by default
        assert "equal to the NumPy result: True" in _cli(*args).stdout
    for args in (["--bogus"], ["tour", "extra"], ["audit", "--bogus", "x.py"], ["audit", "-m"]):
        bad = _cli(*args)
        assert bad.returncode == 2 and "error:" in bad.stderr and bad.stdout == "", args


def test_audit_cli_writes_a_json_report(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(
        "import strict_array as xp\nfor _ in range(2):\n    xp.ones((2, 5)) + xp.ones(5)\n"
    )
    out = _cli("audit", "--report", "r.json", "prog.py", cwd=str(tmp_path))
    assert out.returncode == 0, out.stderr
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["total"] == 2
    assert data["sites"] == [
        {"path": "prog.py", "line": 3, "function": "<module>", "operation": "add",
         "shapes": [[2, 5], [5]], "count": 2, "outer": False}
    ]  # fmt: skip
    assert "report written to r.json" in out.stderr


@pytest.mark.parametrize(
    "use",
    ["xp.DASK", "xp.ones(3, device='dask')", "xp.ones(3).to_device('dask')"],
)
def test_dask_device_without_dask_says_how_to_install_it(use):
    """Dask made unimportable, as where it is not installed."""
    code = textwrap.dedent(f"""
        import importlib.abc, sys

        class NoDask(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path, target=None):
                if name == "dask" or name.startswith("dask."):
                    raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)

        sys.meta_path.insert(0, NoDask())
        import strict_array as xp
        names = [d.name for d in xp.__array_namespace_info__().devices()]
        assert names == ["cpu", "cpu1", "cpu_float32", "cpu_no_float64", "cpu_no_x64"], names
        try:
            {use}
        except ImportError as e:
            print(type(e).__name__, e)
    """)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=checkout_env()
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("ModuleNotFoundError strict_array.DASK needs Dask")
    assert "No module named 'dask'" in out.stdout
    assert 'pip install "strict_array[dask]"' in out.stdout


@pytest.mark.parametrize(
    ("call", "fix"),
    [
        (lambda: xp.matmul(xp.ones((2, 3, 4)), xp.ones((5, 2, 4, 3))), r"Give x1 2 batch axes "
         r"first, placing its batch axes \(2,\) among \(5, 2\): x1\[None, :, \.\.\.\]\."),
        (lambda: xp.vecdot(xp.ones((4, 2, 3)), xp.ones((2, 3))), r"Give x2 2 batch axes first"
         r".*x2\[None, :, \.\.\.\]"),
        (lambda: xp.linalg.solve(xp.stack([xp.eye(3)] * 2), xp.ones((5, 2, 3, 1))), r"Give x1 2 batch "
         r"axes first.*x1\[None, :, \.\.\.\]"),
        (lambda: xp.sum_to(xp.ones((4, 3)), (3,)), r"Say which axes of the array the target's "
         r"axes are, e\.g\. broadcast_dimensions=\(1,\)"),
        (lambda: xp.ones((4, 3)) - xp.ones(3), r"broadcast_dimensions=\(1,\)"),
    ],
)  # fmt: skip
def test_every_warning_names_the_fix_like_its_error(call, fix):
    with pytest.raises(xp.RankPromotionError, match=fix):
        call()
    with xp.rank_promotion("warn"), pytest.warns(xp.RankPromotionWarning, match=fix) as caught:
        call()
    text = str(caught[0].message)
    assert "rank-promotion mode 'warn'" in text and "rank_promotion('warn')" not in text


@pytest.mark.parametrize("op", ["__sub__", "__isub__", "__rsub__", "subtract"])
def test_a_refusal_is_traced_to_the_callers_line_through_the_packages_files(device, op):
    # tools that tell a library's frames from its caller's by path (pytest, coverage,
    # consumers' site finders) find every frame up to the caller's inside the package,
    # generated operators included, and a traceback shows their source
    import os
    import traceback

    x, v = on(device, np.ones((4, 3))), on(device, np.ones(3))
    calls = {"__sub__": lambda: x - v, "__isub__": lambda: x.__isub__(v),
             "__rsub__": lambda: v.__rsub__(x), "subtract": lambda: xp.subtract(x, v)}  # fmt: skip
    with xp.rank_promotion("raise"), pytest.raises(xp.RankPromotionError) as info:
        calls[op]()
    frames = traceback.extract_tb(info.value.__traceback__)
    package = os.path.dirname(os.path.abspath(xp.__file__))
    last = max(i for i, f in enumerate(frames) if f.filename == __file__)  # the caller's
    inside = frames[last + 1 :]
    assert inside and all(os.path.abspath(f.filename).startswith(package) for f in inside)
    assert all(f.line for f in inside)  # (each with its source line)
