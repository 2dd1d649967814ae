"""The NumPy-code mode (strict_array.numpy; contract section 7): plain NumPy code checked."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import run_user_tests

import strict_array as xp
import strict_array.numpy as snp


def checked(shape):
    return snp.asarray(np.arange(float(np.prod(shape))).reshape(shape) + 1.0)


# --- ufuncs and operators --------------------------------------------------------------------
def test_operators_and_ufuncs_follow_the_rank_rule():
    x, v = checked((3, 1)), np.arange(3.0)
    for call in (lambda: x - v, lambda: v - x, lambda: np.subtract(x, v), lambda: x < v,
                 lambda: np.hypot(x, v), lambda: np.logaddexp(v, x)):  # fmt: skip
        with pytest.raises(xp.RankPromotionError, match=r"numpy\.\w+: operands of shapes"):
            call()
    with xp.rank_promotion("allow"):
        r = x - v
    assert type(r) is snp.CheckedArray  # results stay checked
    np.testing.assert_array_equal(r, np.asarray(x) - v)  # NumPy's own values
    with pytest.warns(xp.RankPromotionWarning, match="numpy.add"), xp.rank_promotion("warn"):
        x + v


def test_calls_with_nothing_to_decide_keep_numpys_values_types_and_the_rank_rule():
    # (the fast paths: NumPy scalars on either side, in-place operators, assignment of a
    # NumPy scalar, a function's operands of one rank)
    x, row, plain = checked((2, 3)), checked((3,)), np.arange(6.0).reshape(2, 3) + 1.0
    f32 = snp.asarray(np.ones(3, np.float32))
    for s in (np.float64(2.0), np.float32(2.0), np.int64(2), np.bool_(True), np.complex64(1j)):
        for got, want in ((x * s, plain * s), (s * x, s * plain), (x == s, plain == s),
                          (x < s if s.dtype.kind != "c" else x == s, plain < s
                           if s.dtype.kind != "c" else plain == s)):  # fmt: skip
            assert type(got) is snp.CheckedArray and got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)
    assert (f32 * np.float64(2.0)).dtype == (np.float64(2.0) * f32).dtype == np.float64
    y = x.copy()
    same = y
    y += 1.0
    y *= np.float64(2.0)
    y -= checked((2, 3))
    assert y is same and type(y) is snp.CheckedArray
    np.testing.assert_array_equal(y, (plain + 1.0) * 2.0 - plain)
    with pytest.raises(xp.RankPromotionError, match=r"^numpy\.add: operands of shapes"):
        y += row
    with pytest.raises(xp.RankPromotionError, match=r"^numpy\.where: operands of shapes"):
        np.where(x > 1, x, row)
    got = np.where(x > 1, x, -x)
    assert type(got) is snp.CheckedArray
    np.testing.assert_array_equal(got, np.where(plain > 1, plain, -plain))
    z = snp.asarray(np.zeros(3, np.intp))
    z[1] = np.int64(7)
    z[np.intp(2)] = np.float64(3.0)
    np.testing.assert_array_equal(z, [0, 7, 3])


def test_what_broadcasts_freely():
    x = checked((3, 2))
    for other in (2.0, 3, np.float32(2.0), np.array(2.0), np.ones((1, 2)), np.ones((3, 1))):
        assert (x * other).shape == (3, 2)
        assert type(x * other) is snp.CheckedArray
    assert np.add.outer(checked((3,)), np.ones(2)).shape == (3, 2)  # outer is explicit
    assert (x.sum(axis=0) * np.ones(2)).shape == (2,)


def test_out_and_where_as_for_assignment():
    x, out = checked((3,)), np.zeros((2, 3))
    with pytest.raises(xp.RankPromotionError, match=r"numpy\.add \(out=\)"):
        np.add(x, 1.0, out=out)
    with pytest.raises(xp.RankPromotionError, match=r"numpy\.add \(where=\)"):
        np.add(checked((2, 3)), 1.0, where=np.array([True, False, True]))
    target = snp.asarray(np.zeros(3))
    assert np.add(x, 1.0, out=target) is target  # NumPy's out, returned as given
    np.testing.assert_array_equal(target, np.asarray(x) + 1.0)
    with pytest.raises(xp.RankPromotionError, match=r"numpy\.add\.reduce \(where=\)"):
        np.add.reduce(checked((2, 3)), where=np.array([True, False, True]))


def test_ufunc_at_is_checked_as_setitem():
    a = snp.asarray(np.zeros((3, 3)))
    with pytest.raises(xp.RankPromotionError, match=r"numpy\.add\.at"):
        np.add.at(a, 0, np.ones((1, 3)))
    np.add.at(a, [0, 0], 1.0)
    assert a[0, 0] == 2.0


def test_setitem():
    a = snp.asarray(np.zeros((3, 2)))
    with pytest.raises(xp.RankPromotionError, match=r"__setitem__"):
        a[:, :] = np.ones(2)
    a[:, 0] = np.ones(3)
    a[...] = 1.0
    a[0] = np.array([5.0, 6.0])
    np.testing.assert_array_equal(a, [[5.0, 6.0], [1.0, 1.0], [1.0, 1.0]])


def test_matmul_batch_axes():
    with pytest.raises(xp.RankPromotionError, match=r"numpy\.matmul"):
        checked((2, 3, 4)) @ np.ones((4, 5))
    assert (checked((3, 4)) @ np.ones(4)).shape == (3,)  # a vector keeps its meaning
    assert (checked((2, 3, 4)) @ np.ones((2, 4, 5))).shape == (2, 3, 5)
    with pytest.raises(xp.RankPromotionError, match=r"numpy\.linalg\.solve"):
        np.linalg.solve(snp.asarray(np.stack([np.eye(3)] * 2)), np.ones((3, 3)))


# --- NumPy's functions, by the table ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda c, v: np.where(c > 1, c, v), "where"),
        (lambda c, v: np.clip(c, v, 10.0), "clip"),
        (lambda c, v: np.select([c > 1], [v]), "select"),
        (lambda c, v: np.broadcast_arrays(c, v), "broadcast_arrays"),
        (lambda c, v: np.broadcast_to(v, (3, 3)), "broadcast_to"),
        (lambda c, v: np.einsum("...i,...i->...", c, v), "einsum"),
        (lambda c, v: np.isclose(c, v), "isclose"),
        (lambda c, v: np.piecewise(c, [v > 1], [0.0]), "piecewise"),
        (lambda c, v: np.copyto(c, v), "copyto"),
        (lambda c, v: np.sum(c, where=v > 1), "sum"),
    ],
)
def test_numpy_functions_that_broadcast(call, name):
    c, v = checked((3, 3)), snp.asarray(np.arange(3.0))
    with pytest.raises(xp.RankPromotionError, match=rf"numpy\.{name}"):
        call(c, v)
    with xp.rank_promotion("allow"):
        got = call(c, v)
    want = call(np.asarray(c).copy(), np.asarray(v))
    for g, w in zip(got if isinstance(got, tuple) else [got], want if isinstance(want, tuple) else [want]):  # fmt: skip
        np.testing.assert_array_equal(g, w)


def test_numpy_internals_broadcast_as_they_need():
    x = checked((4, 3))
    with xp.rank_promotion("raise"):
        for result in (np.cov(x), np.corrcoef(x), np.linalg.norm(x, axis=1), np.average(x, axis=0),
                       np.percentile(x, 50, axis=0), np.linalg.lstsq(x, np.ones(4), rcond=None)[0],
                       np.polyfit(np.arange(4.0), x, 1), np.gradient(x)[0]):  # fmt: skip
            assert type(result) is snp.CheckedArray


def test_policy_decides_by_the_calling_package():
    x, v = checked((3, 1)), np.ones(3)
    with xp.rank_promotion_policy({__name__: "allow"}, default="raise"):
        assert (x - v).shape == (3, 3)
    with xp.audit() as report:
        x - v
        np.vectorize(lambda a, b: a - b)(x, v)  # NumPy's Python code: the caller's site
        np.ones((3, 1)) - v  # plain arrays: nothing to check
    sites = [str(site) for site in report.counts]
    assert report.total == 2 and all("test_numpy_mode.py" in s for s in sites), sites


# --- switching it on ------------------------------------------------------------------------------
def test_checking_makes_numpys_arrays_checked_and_restores():
    plain_zeros = np.zeros
    with snp.checking():
        assert snp.is_checking()
        for made in (np.zeros(3), np.ones((2, 2)), np.asarray([1.0, 2.0]), np.array([1]),
                     np.arange(3), np.linspace(0, 1, 3), np.eye(2), np.full(2, 1.0),
                     np.zeros_like(np.empty(2)), np.random.rand(2),
                     np.random.default_rng(0).normal(size=2)):  # fmt: skip
            assert type(made) is snp.CheckedArray, made
        rng = np.random.default_rng(0)
        assert isinstance(rng, np.random.Generator)
        np.testing.assert_array_equal(
            rng.random(3), np.random.Generator(np.random.PCG64(0)).random(3)
        )
        with snp.checking():  # nests
            pass
        assert type(np.zeros(3)) is snp.CheckedArray
        with pytest.raises(xp.RankPromotionError):
            np.zeros((4, 3)) - np.zeros(3)
    assert np.zeros is plain_zeros and not snp.is_checking()
    assert type(np.zeros(3)) is np.ndarray


USER_CODE = """
import numpy as np

def centre(x):
    return x - x.mean(axis=1)  # the (n, 1) - (n,) hazard: meant keepdims=True

def test_centre():
    assert centre(np.ones((4, 4))).shape == (4, 4)

def test_fine():
    x = np.arange(6.0).reshape(2, 3)
    assert (x - x.mean(axis=0, keepdims=True)).shape == (2, 3)
"""


def test_pytest_option_audits_and_raises_at_the_site(tmp_path):
    out = run_user_tests(tmp_path, USER_CODE, "--rank-promotion-numpy", "--rank-promotion=audit")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "strict_array rank promotions" in out.stdout
    assert "test_user.py:5" in out.stdout and "numpy.subtract" in out.stdout
    out = run_user_tests(tmp_path, USER_CODE, "--rank-promotion-numpy", "--rank-promotion=raise")
    assert "1 failed, 1 passed" in out.stdout, out.stdout
    assert "RankPromotionError: numpy.subtract" in out.stdout
    out = run_user_tests(tmp_path, USER_CODE, "--rank-promotion=raise")  # off: plain NumPy
    assert "2 passed" in out.stdout, out.stdout


CONFTEST = """
import numpy as np

RNG = np.random.default_rng(0)  # made as the initial conftest.py files load
MADE = np.ones((3, 1))
SPREAD = np.ones((2, 1)) * np.ones(2)  # a promotion at import
"""

USES_CONFTEST = """
import numpy as np
from conftest import MADE, RNG


def test_generator_of_the_conftest():
    RNG.normal(np.zeros((3, 1)), np.ones(3))


def test_array_of_the_conftest():
    MADE - np.ones(3)
"""


def test_pytest_option_checks_what_the_conftest_makes_at_import(tmp_path):
    # the mode and the session's settings are in force before conftest.py loads
    (tmp_path / "conftest.py").write_text(CONFTEST)
    out = run_user_tests(
        tmp_path, USES_CONFTEST, "--rank-promotion-numpy", "--rank-promotion=audit"
    )
    assert "2 passed" in out.stdout, out.stdout + out.stderr
    assert "conftest.py:6" in out.stdout and "numpy.multiply" in out.stdout
    (tmp_path / "conftest.py").write_text(CONFTEST.replace("SPREAD", "# SPREAD"))
    out = run_user_tests(
        tmp_path, USES_CONFTEST, "--rank-promotion-numpy", "--rank-promotion=raise"
    )
    assert "2 failed" in out.stdout, out.stdout + out.stderr
    assert "RankPromotionError: numpy.random.Generator.normal" in out.stdout
    assert "RankPromotionError: numpy.subtract" in out.stdout
    out = run_user_tests(tmp_path, USES_CONFTEST, "--rank-promotion=raise")  # off: plain NumPy
    assert "2 passed" in out.stdout, out.stdout


def test_pytest_option_with_xdist(tmp_path):
    out = run_user_tests(
        tmp_path, USER_CODE, "-n", "2", "--rank-promotion-numpy", "--rank-promotion=raise"
    )
    assert "1 failed, 1 passed" in out.stdout, out.stdout
    out = run_user_tests(
        tmp_path, USER_CODE, "-n", "2", "--rank-promotion-numpy",
        "--rank-promotion-policy=raise,test_user=allow",
    )  # fmt: skip
    assert "2 passed" in out.stdout, out.stdout


def test_numpy_mode_reports_and_baselines(tmp_path):
    report = tmp_path / "report.json"
    out = run_user_tests(
        tmp_path, USER_CODE, "--rank-promotion-numpy", "--rank-promotion=audit",
        f"--rank-promotion-report={report}",
    )  # fmt: skip
    assert out.returncode == 0 and "numpy.subtract" in report.read_text(), out.stdout
    baseline = f"--rank-promotion-baseline={report}"
    out = run_user_tests(tmp_path, USER_CODE, "--rank-promotion-numpy", "--rank-promotion=raise",
                         baseline)  # fmt: skip
    assert "2 passed" in out.stdout, out.stdout  # the known site passes
    new_site = USER_CODE + "\ndef test_new():\n    np.ones((2, 2)) * np.ones(2)\n"
    out = run_user_tests(tmp_path, new_site, "--rank-promotion-numpy", "--rank-promotion=raise",
                         baseline)  # fmt: skip
    assert "1 failed, 2 passed" in out.stdout, out.stdout  # only the new one fails


def test_audit_command_checks_numpy_code(tmp_path):
    import subprocess
    import sys

    from conftest import checkout_env

    script = tmp_path / "script.py"
    script.write_text("import numpy as np\nx = np.ones((3, 3))\ny = x - x.sum(axis=0)\n")
    args = [sys.executable, "-m", "strict_array", "audit"]
    out = subprocess.run([*args, "--numpy", str(script)], capture_output=True, text=True,
                         cwd=tmp_path, env=checkout_env())  # fmt: skip
    assert out.returncode == 0 and "script.py:3" in out.stderr, out.stderr
    assert "numpy.subtract" in out.stderr
    out = subprocess.run([*args, str(script)], capture_output=True, text=True,
                         cwd=tmp_path, env=checkout_env())  # fmt: skip
    assert "0 rank promotion" in out.stderr or "no rank promotion" in out.stderr, out.stderr


# --- the mode only checks: NumPy's own behaviour, by construction ------------------------------------
def test_out_identity_and_tuples_with_none():
    with snp.checking():
        c0 = np.asarray(2.5)
        o = np.zeros(())
        assert np.floor(c0, out=o) is o and o == 2.0
        c = np.arange(6.0).reshape(2, 3)
        total = np.zeros(3)
        assert np.sum(c, axis=0, out=total) is total
        frac, whole = np.modf(c * 1.5, out=(None, np.zeros((2, 3))))
        assert frac is not None and type(frac) is snp.CheckedArray
        np.testing.assert_array_equal(whole, np.modf(np.arange(6.0).reshape(2, 3) * 1.5)[1])
        v = np.arange(3.0)
        assert np.atleast_1d(v) is v and np.asarray(v) is v and np.asanyarray(v) is v
        listed = [0, 1, 2]
        assert np.diff(listed, n=0) is listed  # an argument NumPy gives back, whatever it is
        assert np.percentile(np.arange(8.0), 100) == 7.0
        assert np.var(np.arange(4.0)) == 1.25 and isinstance(np.var(np.arange(4.0)), np.float64)


def test_new_arrays_own_their_data():
    with snp.checking():
        c = np.arange(3.0)
        assert c.flags.owndata and (c + 1).flags.owndata and np.sqrt(c).flags.owndata
        e = np.empty(3)
        e.resize(6)  # needs its own data and no other reference
        assert e.shape == (6,)
        import pandas as pd

        s = pd.Series([1, 2, 1], dtype="category")  # pandas resizes NumPy's arrays inside
        assert list(s.cat.codes) == [0, 1, 0]


def test_patched_functions_stay_functions_wherever_bound():
    with snp.checking():

        class T:
            array = np.array
            zeros = np.zeros

        assert T().array([1, 2]).tolist() == [1, 2] and T().zeros(2).shape == (2,)
        assert isinstance(np.random.mtrand._rand, np.random.RandomState)
        assert isinstance(np.random.default_rng(0), np.random.Generator)
        assert np.zeros.__name__ == "zeros" and "zeros" in (np.zeros.__doc__ or "")


def test_generators_keep_numpys_names_and_pickles():
    import pickle

    with snp.checking():
        rng = np.random.default_rng(0)
        back = pickle.loads(pickle.dumps(rng))
        assert type(rng).__name__ == "Generator" and type(back) is type(rng)
        assert back.normal(size=3).tolist() == rng.normal(size=3).tolist()
        with xp.rank_promotion("raise"), pytest.raises(xp.RankPromotionError):
            rng.normal(np.zeros((3, 1)), np.ones(3))  # distribution parameters broadcast


def test_other_overriding_subclasses_are_asked_with_plain_arrays():
    seen: list[tuple[str, ...]] = []

    class Other(np.ndarray):
        def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
            plain = tuple(i.view(np.ndarray) if isinstance(i, np.ndarray) else i for i in inputs)
            seen.append(tuple(type(i).__name__ for i in inputs))
            return getattr(ufunc, method)(*plain, **kwargs).view(Other)

    with snp.checking():
        result = np.add(np.ones(3), np.arange(3.0).view(Other))
        assert type(result) is Other and result.tolist() == [1.0, 2.0, 3.0]
        assert seen == [("ndarray", "Other")]  # NumPy's order, and no checked array inside
        np.testing.assert_array_equal(np.ones(3), [1, 1, 1])  # NumPy's assertions run plain


def test_numpys_warnings_at_the_callers_line():
    import inspect
    import warnings

    with snp.checking(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = inspect.currentframe().f_lineno + 1
        np.ones(3) / 0  # a ufunc's floating-point warning
        np.nanmean(np.array([np.nan]))  # a NumPy function's warning (stacklevel=2)
    assert [(w.filename, w.lineno) for w in caught] == [(__file__, line), (__file__, line + 1)]


def test_numpys_answers_where_numpy_answers():
    with snp.checking(), xp.rank_promotion("raise"):
        a, b = np.ones((3, 4)), np.ones((4, 3))
        assert np.cross(a, b, axisa=0, axisb=1).shape == (4, 3)  # vectors along other axes
        assert np.array_equiv(np.ones(2), np.ones((3, 3))) is False  # NumPy: False, no error
        s = np.zeros(3, dtype=[("x", float), ("y", int)])
        s[:] = (1.5, 2)  # a record, not an array
        assert s["y"].tolist() == [2, 2, 2]
        o = np.empty((2, 2), dtype=object)
        o[0, 0] = [1, 2, 3]  # a list is an object here
        o[1] = [[1], [2]]
        assert o[0, 0] == [1, 2, 3]


# --- every promotion a hook can see ----------------------------------------------------------------
@pytest.mark.parametrize(
    ("call", "name"),
    [
        (
            lambda: np.matmul(np.ones((2, 2)), np.ones((2, 2)), out=np.zeros((3, 2, 2))),
            r"numpy\.matmul \(out=\)",
        ),
        (lambda: np.vecdot(np.ones((3, 4)), np.ones(4)), r"numpy\.vecdot"),
        (lambda: np.matvec(np.ones((3, 2, 4)), np.ones(4)), r"numpy\.matvec"),
        (
            lambda: np.add.outer(np.ones(2), np.ones(3), out=np.zeros(6)),
            r"numpy\.add\.outer \(out=\)",
        ),
        (
            lambda: np.divmod(np.ones(3), 2.0, out=(np.zeros(3), np.zeros((2, 3)))),
            r"numpy\.divmod \(out=\)",
        ),
        (lambda: np.modf(np.ones(3), out=(None, np.zeros((2, 3)))), r"numpy\.modf \(out=\)"),
        (lambda: np.clip(np.ones(3), 0, 1, out=np.zeros((2, 3))), r"numpy\.clip"),
        (lambda: np.fix(np.ones(3), out=np.zeros((2, 3))), r"numpy\.f"),
        (
            lambda: np.select([np.ones((2, 3)) > 0], [np.ones((2, 3))], default=np.zeros(3)),
            r"numpy\.select",
        ),
        (lambda: np.einsum(np.ones((2, 3)), [..., 0], np.ones(3), [..., 0]), r"numpy\.einsum"),
        (lambda: np.trapezoid(np.ones((2, 3, 4)), x=np.ones((3, 4))), r"numpy\.trapezoid"),
        (
            lambda: np.random.default_rng(0).normal(np.zeros((3, 1)), np.ones(3)),
            r"numpy\.random\.Generator\.normal",
        ),
        (
            lambda: np.random.default_rng(0).normal(np.zeros(3), size=(2, 3)),
            r"numpy\.random\.Generator\.normal",
        ),
        (
            lambda: np.random.normal(np.zeros((3, 1)), np.ones(3)),
            r"numpy\.random\.RandomState\.normal",
        ),
        (  # (the same legacy function under the name of NumPy's module that holds it)
            lambda: np.random.mtrand.normal(np.zeros((3, 1)), np.ones(3)),
            r"numpy\.random\.RandomState\.normal",
        ),
        (
            lambda: np.apply_along_axis(lambda v: v - np.ones((2, 1)), 0, np.ones((3, 2))),
            r"numpy\.subtract",
        ),
        (
            lambda: np.piecewise(np.ones(3), [np.ones(3) > 0], [lambda v: v - np.ones((2, 1))]),
            r"numpy\.subtract",
        ),
        (lambda: np.fromfunction(lambda i, j: i - j[0], (3, 2)), r"numpy\.subtract"),
        (
            lambda: np.vectorize(lambda v: v - np.ones((2, 1)), signature="(n)->(m,n)")(
                np.ones((3, 2))
            ),
            r"numpy\.subtract",
        ),
        (lambda: (m := np.vstack([[1, 2, 3], [4, 5, 6]])) - m.mean(axis=1), r"numpy\.subtract"),
        (lambda: np.fromiter(range(3), float) - np.ones((2, 1)), r"numpy\.subtract"),
        (lambda: np.ogrid[0:3, 0:2][0] - np.ones(2), r"numpy\.subtract"),
        (lambda: np.asfortranarray(np.ones((2, 3))) - np.ones(3), r"numpy\.subtract"),
        (lambda: np.r_[1, 2, 3] - np.ones((2, 1)), r"numpy\.subtract"),
    ],
)
def test_every_promotion_a_hook_can_see_is_caught(call, name):
    with snp.checking(), xp.rank_promotion("raise"):
        with pytest.raises(xp.RankPromotionError, match=name):
            call()


def test_a_memmap_numpy_loads_is_checked(tmp_path):
    np.save(tmp_path / "a.npy", np.ones((3, 1)))
    with snp.checking():
        m = np.load(tmp_path / "a.npy", mmap_mode="r")
        assert isinstance(m, np.memmap) and isinstance(m, snp.CheckedArray)
        with pytest.raises(xp.RankPromotionError, match=r"numpy\.subtract"):
            m - np.ones(3)


def test_exits_have_no_hook():
    # documented in docs/numpy-code.md, "Limits": NumPy entry points that read arrays
    # through __array__ or by strides, and ufuncs given no checked array
    with snp.checking(), xp.rank_promotion("raise"):
        assert type(np.sqrt([[1.0], [4.0]])) is np.ndarray  # a ufunc object: no stand-in
        x = np.ones((3, 1))
        assert np.broadcast(x, np.ones(3)).shape == (3, 3)
        plain = x.view(np.ndarray)
        plain[...] = np.ones(1)
        it = np.nditer([x, np.ones(3)])
        assert it.shape == (3, 3)
        assert np.lib.stride_tricks.as_strided(x, (3, 3), (8, 0)).shape == (3, 3)


def test_the_same_name_in_both_paths():
    # one interpreter: a NumPy name names the operation alike for strict and checked arrays
    c, v = np.ones((3, 1)), np.ones(3)
    for make in (xp.asarray, snp.asarray):
        for call, name in ((lambda a, b: np.where(a > 0, a, b), "numpy.where"),
                           (lambda a, b: np.clip(a, b, 2.0), "numpy.clip"),
                           (lambda a, b: np.isclose(a, b), "numpy.isclose"),
                           (lambda a, b: np.subtract(a, b), "numpy.subtract")):  # fmt: skip
            with pytest.raises(xp.RankPromotionError, match=f"^{name}: operands of shapes"):
                call(make(c), make(v))
            with xp.audit() as report:
                call(make(c), make(v))
            assert [site.operation for site in report.counts] == [name]


# --- the region an assignment writes, from the key alone -------------------------------------------
_KEY_PARTS = (0, 1, -1, 2, -3, 5, True, slice(None), slice(1, None), slice(None, None, -2),
              slice(5, 0, -1), slice(-10, 10, 3), None, Ellipsis, [0], np.int64(1))  # fmt: skip


@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (4, 1, 5), (0, 3, 2)])
def test_the_region_of_a_key_is_numpys(shape):
    """``x[key] = v`` is checked against the region NumPy writes: computed from a basic key
    alone, and from NumPy's indexing of a stand-in otherwise (or NumPy's error)."""
    import itertools

    from strict_array._numpy_api._rules import region_shape

    x = np.empty(shape)
    for n in range(4):
        for key in itertools.product(_KEY_PARTS, repeat=n):
            key = key if n != 1 else key[0]
            try:
                want = x[key].shape
            except (IndexError, TypeError):
                with pytest.raises((IndexError, TypeError)):
                    region_shape(shape, key)
                continue
            assert region_shape(shape, key) == want, key


def test_a_library_imported_under_the_mode_reads_numpys_signatures():
    """Dask imported while the mode is on keeps the mode's ``np.sum`` and reads its
    argument list by unwrapping one level (``dask.utils.getargspec``), as through NumPy's
    own dispatcher: a Dask reduction then works (opt_einsum's Dask backend tests)."""
    import subprocess
    import sys

    script = (
        "import numpy as np, strict_array.numpy as snp\n"
        "with snp.checking():\n"
        "    import dask.array as da, dask.utils\n"
        "    assert dask.utils.getargspec(np.sum).args[:2] == ['a', 'axis']\n"
        "    x = np.arange(16.0).reshape(4, 4)\n"
        "    d = da.from_array(x, chunks=2)\n"
        "    assert np.allclose(da.tensordot(d, d, axes=1).compute(), x @ x)\n"
        "    assert np.allclose(d.sum(axis=0).compute(), x.sum(axis=0))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120)  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
