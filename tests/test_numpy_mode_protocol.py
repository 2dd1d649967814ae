"""The NumPy-code mode keeps NumPy's protocols: Python's operator order beside other
ndarray subclasses, NumPy's pickles and reprs (docs/numpy-code.md, "The mode only checks")."""

from __future__ import annotations

import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest

import strict_array as xp
import strict_array.numpy as snp


class _Reflecting(np.ndarray):
    """An ndarray subclass with its own reflected operators (np.matrix's pattern)."""

    def __radd__(self, other):
        return "radd"

    def __rsub__(self, other):
        return NotImplemented  # (NumPy's operator then, as beside a plain array)

    def __lt__(self, other):
        return "lt"

    def __gt__(self, other):
        return "gt"


@pytest.mark.parametrize(
    "expr",
    [
        lambda a, b: a + b,
        lambda a, b: a - b,
        lambda a, b: a < b,
        lambda a, b: a > b,
        lambda a, b: a * b,
    ],
)
def test_an_operator_defers_to_a_subclass_as_a_plain_array_does(expr):
    plain = np.arange(3.0)
    other = np.ones(3).view(_Reflecting)
    want = expr(plain, other)
    got = expr(snp.asarray(plain), other)
    assert type(got) is type(want)
    if isinstance(want, np.ndarray):
        np.testing.assert_array_equal(got, want)
    else:
        assert got == want


@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")
def test_matrix_and_masked_arrays_take_their_reflected_operators_first():
    with snp.checking(), xp.rank_promotion("allow"):
        product = np.array([[1, 2]]) * np.matrix([[1], [2]])
        assert type(product) is np.matrix
        np.testing.assert_array_equal(product, [[5]])
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # np.ma's division: no warning, a masked value
            quotient = np.array([1.0, 2.0]) / np.ma.array([0.0, 1.0])
        assert quotient.mask.tolist() == [True, False]


def test_reprs_and_type_names_are_numpys():
    with snp.checking():
        x = np.array([0.0, 1.0])
        assert type(x) is snp.CheckedArray
        assert repr(x) == "array([0., 1.])" and str(x) == "[0. 1.]"
        assert repr(type(x)) == "<class 'numpy.ndarray'>"
        assert repr(np.ma.array([1, 2])).startswith("masked_array(data=[1, 2],")
        assert repr(np.polynomial.Polynomial([0, 1])).startswith("Polynomial([0., 1.], ")
        module = sys.modules[type(x).__module__]
        assert getattr(module, type(x).__qualname__) is np.ndarray


@pytest.mark.parametrize("protocol", [2, 4, 5])
def test_pickles_are_numpys_and_load_without_strict_array(protocol, tmp_path):
    with snp.checking():
        made = [np.arange(3.0), np.ma.array([1, 2], mask=[0, 1]),
                np.polynomial.Polynomial([0, 1]), np.arange(6.0).reshape(2, 3).T]  # fmt: skip
        data = pickle.dumps(made, protocol=protocol)
    assert b"strict_array" not in data
    path = tmp_path / "made.pkl"
    path.write_bytes(data)
    code = (
        "import pickle, sys; made = pickle.loads(open(sys.argv[1], 'rb').read()); "
        "assert 'strict_array' not in sys.modules; "
        "print([type(m).__name__ for m in made], made[1].mask.tolist(), made[3].tolist())"
    )
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                         text=True, check=True).stdout  # fmt: skip
    assert out.strip() == (
        "['ndarray', 'MaskedArray', 'Polynomial', 'ndarray'] [False, True] "
        "[[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]"
    )
    back = pickle.loads(data)
    assert type(back[0]) is np.ndarray and type(back[1].data) is np.ndarray


@pytest.mark.parametrize(
    ("name", "shapes", "one_rank"),
    [
        ("numpy.matvec", [(2, 3, 3), (4, 2, 3)], [(4, 1, 3, 3), (4, 2, 3)]),
        ("numpy.vecmat", [(4, 2, 3), (2, 3, 3)], [(4, 2, 3), (1, 2, 3, 3)]),
        ("numpy.vecdot", [(2, 3), (4, 2, 3)], [(1, 2, 3), (4, 2, 3)]),
        ("numpy.matmul", [(2, 3, 3), (4, 2, 3, 3)], [(1, 2, 3, 3), (4, 2, 3, 3)]),
        ("numpy._core._umath_tests.inner1d", [(2, 3), (4, 2, 3)], [(4, 2, 3), (4, 1, 3)]),
        (
            "numpy._core._umath_tests.innerwt",
            [(2, 3), (2, 3), (4, 2, 3)],
            [(1, 2, 3), (4, 2, 3), (4, 2, 3)],
        ),
    ],
)
def test_every_gufuncs_loop_axes_are_checked_and_named_by_its_module(name, shapes, one_rank):
    module, _, short = name.rpartition(".")
    ufunc = getattr(__import__(module, fromlist=[short]), short)
    arrays = [np.ones(s) for s in shapes]
    want = ufunc(*arrays)
    with snp.checking(), xp.rank_promotion("raise"):
        checked = [np.ones(s) for s in shapes]
        with pytest.raises(xp.RankPromotionError, match=f"^{name}: operands of shapes"):
            ufunc(*checked)
        with pytest.raises(xp.RankPromotionError, match=f"^{name}: "):
            ufunc(*[snp.asarray(a) for a in arrays])
    with snp.checking(), xp.rank_promotion("allow"):
        np.testing.assert_array_equal(ufunc(*[np.ones(s) for s in shapes]), want)
    with snp.checking(), xp.audit() as report:
        ufunc(*[np.ones(s) for s in shapes])
    assert report.total == len(shapes) - 1 and name in str(report)  # (each lower pair)
    # loop axes of one rank: nothing to decide
    with snp.checking(), xp.rank_promotion("raise"):
        ufunc(*[np.ones(s) for s in one_rank])


def test_a_third_party_ufunc_is_named_by_its_module():
    special = pytest.importorskip("scipy.special")
    with snp.checking(), xp.rank_promotion("raise"):
        with pytest.raises(xp.RankPromotionError, match=r"^scipy\.special\.eval_chebyt: "):
            special.eval_chebyt(np.ones((3, 1)), np.ones(3))


# --- the audit's sites and the failures' lines, under the pytest option ---------------------
_SUITE = """
import numpy as np
from numpy.polynomial import chebyshev as C

def test_numpys_own_promotion():
    x = np.linspace(-1, 1, 20)
    C.chebval(x, np.ones((3, 2)))

def test_own_line():
    x = np.ones((3, 1))
    x - np.ones(3)

def test_assertion():
    np.testing.assert_allclose(np.ones(3), np.zeros(3))
"""


def test_the_audit_finds_sites_in_numpy_when_the_policy_names_it(tmp_path):
    from conftest import run_user_tests

    plain = run_user_tests(tmp_path, _SUITE, "--rank-promotion-numpy", "--rank-promotion=audit")
    out = plain.stdout
    # a site is one line; NumPy's own code is skipped: its promotions are at the test's line
    assert "at 2 site(s)" in out and "test_user.py:7 in test_numpys_own_promotion" in out
    assert "test_user.py:11 in test_own_line" in out and "_pytest" not in out
    assert "chebyshev.py" not in out
    named = run_user_tests(tmp_path, _SUITE, "--rank-promotion-numpy",
                           "--rank-promotion-policy=audit,numpy=audit")  # fmt: skip
    out = named.stdout
    assert "numpy/polynomial/chebyshev.py:" in out and " in chebval" in out
    assert "test_user.py:11 in test_own_line" in out and "test_user.py:7" not in out
    # the failing assertion is reported at the test's line, not inside strict_array
    assert "test_user.py:14: AssertionError" in out and "strict_array/numpy.py" not in out


def test_comparisons_of_voids_strings_and_objects_are_numpys():
    # == and != are NumPy's own comparison for these dtypes, not the ufunc (which has no
    # loop for unstructured voids): NumPy's test_compare_unstructured_voids
    cases = [(np.zeros(3, "V3"), np.zeros(3, "V3")), (np.array(["a", "b"]), "a"),
             (np.array(["a"]), 1), (np.array([None, 1], dtype=object), None)]  # fmt: skip
    want = [(a == b, a != b) for a, b in cases]
    with snp.checking():
        got = [(snp.asarray(a) == b, snp.asarray(a) != b) for a, b in cases]
    for (eq, ne), (ceq, cne) in zip(want, got):
        np.testing.assert_array_equal(ceq, eq)
        np.testing.assert_array_equal(cne, ne)
