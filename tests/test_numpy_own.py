"""The CPU device calls NumPy's own functions where array_api_compat's wrap them
(``strict_array._backends.numpy.NUMPY_OWN``): each gives compat's dtype, values and
errors for every data type, or, where compat's is wrong, the right answer on both devices."""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import array_api_compat.numpy as cnp
import numpy as np
import pytest
from conftest import on, to_numpy

import strict_array as xp
from strict_array._backends.numpy import CPU, NUMPY_OWN

DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
          np.uint64, np.float32, np.float64, np.complex64, np.complex128]  # fmt: skip


def _data(shape: tuple[int, ...], dtype: Any, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape) * 3
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    if np.dtype(dtype).kind in "biu":
        a = np.abs(a)
    return a.astype(dtype)


def _small(shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """Values 0, 1 and 2 (repeated, for unique and products that stay in range)."""
    return np.random.default_rng(0).integers(0, 3, shape).astype(dtype)


def _fft_cases(name: str) -> Iterator[tuple[tuple[Any, ...], dict[str, Any]]]:
    for dt in DTYPES:
        if name.endswith("shift"):
            for axes in (None, 0, (0, 1), -1, 2):
                yield (_data((3, 4), dt),), {"axes": axes}
        elif name.endswith("n"):
            for shape in ((8,), (4, 8), (2, 3, 4), (0, 3)):
                for kw in ({"s": None, "axes": None, "norm": "backward"},
                           {"s": (3, 5), "axes": (0, 1), "norm": "ortho"},
                           {"s": None, "axes": (0,), "norm": "forward"},
                           {"s": None, "axes": (-1,), "norm": "backward"},
                           {"s": None, "axes": (5,), "norm": "backward"}):  # fmt: skip
                    yield (_data(shape, dt),), kw
        else:
            for shape in ((8,), (4, 8), (0,), (1,), (3, 0)):
                for kw in ({"n": None, "axis": -1, "norm": "backward"},
                           {"n": 5, "axis": 0, "norm": "ortho"},
                           {"n": None, "axis": -1, "norm": "forward"},
                           {"n": 0, "axis": -1, "norm": "backward"},
                           {"n": None, "axis": 3, "norm": "backward"},
                           {"n": None, "axis": -1, "norm": "bad"}):  # fmt: skip
                    if 0 in shape and kw["n"]:
                        continue  # NumPy's zero-padding of nothing reads uninitialised memory
                    yield (_data(shape, dt),), kw


_MATRICES = ((4, 4), (2, 3, 3), (3, 5), (5, 3), (0, 0), (2, 0, 3))


def _linalg_cases(name: str) -> Iterator[tuple[tuple[Any, ...], dict[str, Any]]]:
    for dt in DTYPES:
        for shape in _MATRICES:
            x = _data(shape, dt)
            if name == "cross":
                yield (_data((4, 3), dt), _data((4, 3), dt, 1)), {"axis": -1}
                yield (_data((3, 2), dt), _data((3, 2), dt, 1)), {"axis": 0}
            elif name == "qr":
                for mode in ("reduced", "complete"):
                    yield (x,), {"mode": mode}
            elif name == "svd":
                for full in (True, False):
                    yield (x,), {"full_matrices": full}
            elif name == "matrix_norm":
                for ord in ("fro", "nuc", 1, 2, -1, -2, np.inf, -np.inf, 3):
                    for keepdims in (False, True):
                        yield (x,), {"keepdims": keepdims, "ord": ord}
            elif name == "matrix_rank":
                if 0 in shape:
                    continue  # compat's raises (test_matrix_rank_of_empty_matrices)
                for rtol in (None, 0.1, 1e-20, np.asarray(0.5)):
                    yield (x,), {"rtol": rtol}
                yield (_data((6, 2), dt) @ _data((2, 6), dt, 1),), {}  # rank 2
            elif name == "solve":
                yield (x, _data(shape[-1:], dt, 1)), {}
                yield (x, _data(shape, dt, 1)), {}
                yield (x, _data(shape[:-1] + (2,), dt, 1)), {}
            else:
                yield (x,), {}
    for dt in (np.float32, np.float64, np.complex64, np.complex128):
        for x in (np.zeros((3, 3), dt), np.full((3, 3), np.nan, dt), np.full((3, 3), np.inf, dt)):
            if name == "cross":
                yield (x, x), {}
            else:
                yield ((x, np.ones(3, dt)) if name == "solve" else (x,)), {}


def _unique_cases(name: str) -> Iterator[tuple[tuple[Any, ...], dict[str, Any]]]:
    for dt in DTYPES:
        for shape in ((8,), (3, 4), (0,), (2, 0)):
            yield (_small(shape, dt),), {}
    for dt in (np.float32, np.float64, np.complex64, np.complex128):
        yield (np.array([[np.nan, 1, np.nan], [1, 0, -0.0]], dt),), {}


def _cumulative_cases(name: str) -> Iterator[tuple[tuple[Any, ...], dict[str, Any]]]:
    for dt in DTYPES:
        for shape, axis in (((8,), 0), ((3, 4), 0), ((3, 4), 1), ((0,), 0), ((2, 0), 1)):
            for kw in ({}, {"include_initial": True}, {"dtype": np.float32},
                       {"dtype": np.int8, "include_initial": True}):  # fmt: skip
                yield (_small(shape, dt),), {"axis": axis, **kw}


def _cases(dotted: str) -> Iterator[tuple[tuple[Any, ...], dict[str, Any]]]:
    module, _, name = dotted.rpartition(".")
    if module == "fft":
        return _fft_cases(name)
    if module == "linalg":
        return _linalg_cases(name)
    return _unique_cases(name) if name.startswith("unique") else _cumulative_cases(name)


def _outcome(func: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The result (arrays as dtype, shape and bytes) or the error, and any warnings."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = func(*args, **kwargs)
        except Exception as e:  # (the error is the outcome compared)
            return type(e), str(e)
    parts = value if isinstance(value, tuple) else (value,)
    arrays = [np.asarray(v) for v in parts]
    return (
        [(a.dtype, a.shape, a.tobytes()) for a in arrays],
        sorted(str(w.message) for w in caught),
    )


def _compat(dotted: str) -> Callable[..., Any]:
    return functools.reduce(getattr, dotted.split("."), cnp)  # type: ignore[arg-type]


@pytest.mark.parametrize("dotted", sorted(NUMPY_OWN))
def test_numpy_own_functions_give_what_array_api_compat_gives(dotted):
    own = functools.reduce(getattr, dotted.split("."), CPU.ns)
    assert own is NUMPY_OWN[dotted] and own is not _compat(dotted)
    cases = list(_cases(dotted))
    assert len(cases) > 20
    for args, kwargs in cases:
        assert _outcome(own, args, kwargs) == _outcome(_compat(dotted), args, kwargs), (
            dotted, [getattr(a, "dtype", a) for a in args], kwargs,
        )  # fmt: skip


def test_numpy_own_functions_leave_array_api_compat_alone():
    # the CPU namespace's linalg and fft are copies: compat's modules keep their own
    import array_api_compat.numpy.fft as compat_fft
    import array_api_compat.numpy.linalg as compat_linalg

    assert CPU.ns.linalg is not compat_linalg and CPU.ns.fft is not compat_fft
    assert cnp.linalg.solve is compat_linalg.solve is not np.linalg.solve
    assert cnp.linalg.eig is compat_linalg.eig is not np.linalg.eig


def test_eig_is_complex_where_numpys_is_real():
    x = np.diag([3.0, 1.0, 2.0])
    assert np.linalg.eig(x).eigenvalues.dtype == np.float64  # (why NumPy's is not used)
    w, v = CPU.ns.linalg.eig(x)
    assert w.dtype == v.dtype == np.complex128
    np.testing.assert_array_equal(w, [3, 1, 2])
    assert CPU.ns.linalg.eigvals(x.astype(np.float32)).dtype == np.complex64


#: the devices that compute each matrix with the CPU namespace's function (the test
#: backend over array_api_strict has that library's own)
NUMPY_DEVICES = pytest.mark.parametrize("device", [xp.CPU, xp.DASK], ids=lambda d: d.name)


@NUMPY_DEVICES
def test_matrix_rank_of_a_huge_matrix(device):
    # compat's tolerance, max(S) * n * eps, overflows to inf there (rank 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rank = to_numpy(xp.linalg.matrix_rank(on(device, np.eye(3) * 1e308)))
    assert int(rank) == 3


@NUMPY_DEVICES
@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 3)])
def test_matrix_rank_of_empty_matrices(device, shape):
    a = np.zeros(shape)
    try:
        want = np.linalg.matrix_rank(a)  # 0 for each matrix (NumPy >= 2.3)
    except ValueError as e:  # earlier NumPy's maximum of no singular values
        with pytest.raises(ValueError, match=str(e)):
            to_numpy(xp.linalg.matrix_rank(on(device, a)))
        return
    got = xp.linalg.matrix_rank(on(device, a))
    assert got.dtype == xp.int64
    np.testing.assert_array_equal(to_numpy(got), want)


@pytest.mark.parametrize("mode", ["r", "raw", "full", "bad"])
def test_qr_modes_outside_the_standard_are_refused(device, mode):
    x = on(device, np.eye(3))
    with pytest.raises(
        ValueError, match=f"linalg.qr: mode must be 'reduced' or 'complete', got '{mode}'"
    ):
        xp.linalg.qr(x, mode=mode)
