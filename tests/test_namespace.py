"""The namespace and the array object: coverage, interchange and precise errors."""

from __future__ import annotations

import array_api_compat
import array_api_strict
import numpy as np
import pytest
from conftest import on, to_numpy

import strict_array as xp

STRICT_ONLY = {
    "ArrayAPIStrictFlags", "get_array_api_strict_flags", "set_array_api_strict_flags",
    "reset_array_api_strict_flags", "__version__",
}  # fmt: skip


def test_every_standard_name_is_present():
    missing = [n for n in array_api_strict.__all__ if n not in STRICT_ONLY and not hasattr(xp, n)]
    assert missing == []
    for ext in ("linalg", "fft"):
        names = [
            n
            for n in getattr(array_api_strict, ext).__dict__
            if n.islower() and not n.startswith("_")
        ]
        ours = getattr(xp, ext)
        std = [
            n
            for n in names
            if callable(getattr(getattr(array_api_strict, ext), n))
            and n
            not in {
                "requires_api_version",
                "requires_extension",
                "normalize_axis_tuple",
                "partial",
                "get_array_api_strict_flags",
                "device_supports_dtype",
                "astype",
                "conj",
                "reshape",
                "finfo",
            }
        ]
        assert [n for n in std if not hasattr(ours, n)] == []
    assert xp.__array_api_version__ == "2025.12"


def test_namespace_discovery():
    x = xp.asarray([1.0, 2.0])
    assert x.__array_namespace__() is xp
    assert array_api_compat.array_namespace(x, xp.ones(2)) is xp
    with pytest.raises(ValueError, match="api_version"):
        x.__array_namespace__(api_version="2099.01")


def test_info():
    info = xp.__array_namespace_info__()
    assert info.default_device() == xp.CPU
    assert info.devices()[:2] == (xp.CPU, xp.DASK)  # then the test backend, registered
    assert info.default_dtypes()["real floating"] == xp.float64
    assert set(info.dtypes(kind="integral")) == {
        "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"
    }  # fmt: skip
    assert info.capabilities()["boolean indexing"] is True


def test_dtypes_are_numpy_dtypes():
    x = xp.asarray([1, 2])
    assert isinstance(x.dtype, np.dtype) and x.dtype == xp.int64 and x.dtype.kind == "i"
    assert xp.asarray([1.5]).dtype == xp.float64
    assert xp.asarray([True]).dtype == xp.bool
    assert xp.asarray(1j).dtype == xp.complex128
    assert xp.result_type(xp.int8, xp.uint8) == xp.int16
    assert xp.result_type(xp.float32, 1.0) == xp.float32
    assert xp.isdtype(xp.float32, "real floating") and xp.isdtype(xp.int8, "numeric")
    assert not xp.isdtype(xp.int8, ("real floating", xp.complex64))
    with pytest.raises(TypeError, match="not a data type of the array API standard"):
        xp.zeros(3, dtype="float16")


def test_raw_numpy_arrays_are_refused_with_the_fix(device):
    x = on(device, np.ones(3))
    raw = np.ones(3)
    # the namespace's functions take strict arrays only (the standard does not mix types)
    for call in (lambda: xp.add(x, raw), lambda: xp.add(raw, x), lambda: xp.where(x > 0, raw, x),
                 lambda: xp.sum(raw)):  # fmt: skip
        with pytest.raises(TypeError, match="asarray"):
            call()
    # an operator leaves a NumPy array to NumPy's own (section 7): NumPy's meaning, on x's
    # device, the same both ways
    for got in (x + raw, raw + x):
        assert type(got) is xp.Array and got.device == x.device
        np.testing.assert_array_equal(to_numpy(got), [2.0, 2.0, 2.0])
    with pytest.raises(IndexError, match="asarray"):
        x[[0, 1]]  # a list is not a key: make an array of it
    # NumPy index arrays are keys, not operands: nothing broadcasts against them
    np.testing.assert_array_equal(to_numpy(x[np.array([0, 1])]), [1.0, 1.0])
    np.testing.assert_array_equal(to_numpy(x[np.array([True, False, True])]), [1.0, 1.0])


def test_an_operator_with_a_numpy_scalar_has_numpys_meaning_on_either_side(device):
    x = xp.ones(3, dtype=xp.float32, device=device)
    # an operator: NumPy's dtype rule (NEP 50) whichever side the scalar stands (section 7)
    assert (x * np.float64(2.0)).dtype == xp.float64
    assert (np.float64(2.0) * x).dtype == xp.float64
    assert (x - np.float32(1.0)).dtype == xp.float32
    assert (x < np.float64(2.0)).dtype == xp.bool
    i = xp.ones(3, dtype=xp.int8, device=device)
    assert (i + np.int64(1)).dtype == (np.int64(1) + i).dtype == xp.int64
    np.testing.assert_array_equal(to_numpy(np.float64(3.0) - x), [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(to_numpy(x - np.float64(3.0)), [-2.0, -2.0, -2.0])
    # the namespace's functions take it as the Python scalar it holds
    assert xp.multiply(x, np.float64(2.0)).dtype == xp.float32
    assert xp.multiply(np.float64(1.0), x).dtype == xp.float32


def test_unknown_operand_types_defer():
    class Other:
        def __radd__(self, other):
            return "other"

    assert xp.ones(2) + Other() == "other"
    with pytest.raises(TypeError):
        xp.ones(2) + "text"


def test_mixed_devices_raise():
    with pytest.raises(ValueError, match="different devices"):
        xp.ones(2) + xp.ones(2, device=xp.DASK)


def test_asarray_sources(device):
    np.testing.assert_array_equal(
        to_numpy(xp.asarray([[1, 2], [3, 4]], device=device)), [[1, 2], [3, 4]]
    )
    buf = xp.asarray(memoryview(np.arange(4, dtype=np.int32)), device=device)
    assert buf.dtype == xp.int32
    src = xp.asarray(np.arange(3.0))
    np.testing.assert_array_equal(to_numpy(xp.from_dlpack(src)), [0, 1, 2])
    np.testing.assert_array_equal(np.from_dlpack(on(device, np.arange(3.0))), [0, 1, 2])
    assert xp.asarray(on(device, [1.0]), dtype=xp.float32).dtype == xp.float32
    with pytest.raises(TypeError, match="asarray"):
        xp.asarray(np.array(["a"]))


def test_asarray_copy_semantics():
    base = np.arange(3.0)
    view = xp.asarray(base, copy=False)
    base[0] = 10
    assert float(view[0]) == 10.0
    copied = xp.asarray(base, copy=True)
    base[1] = 20
    assert float(copied[1]) == 1.0
    with pytest.raises(ValueError, match="copy=False"):
        xp.asarray(np.arange(3), dtype=xp.float64, copy=False)


def test_np_asarray_and_python_scalars(device):
    x = on(device, np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(np.asarray(x), np.arange(6.0).reshape(2, 3))
    assert float(x[1, 2]) == 5.0 and int(x[0, 1]) == 1 and bool(x[0, 1])
    assert complex(x[0, 0]) == 0j
    with pytest.raises(TypeError, match="0-d"):
        bool(x)
    with pytest.raises(TypeError, match="dtype"):
        int(on(device, np.array(1j)))
    assert x.__dlpack_device__() == (1, 0)


def test_array_attributes(device):
    x = on(device, np.arange(24.0).reshape(2, 3, 4))
    assert (x.ndim, x.shape, x.size) == (3, (2, 3, 4), 24)
    assert x.mT.shape == (2, 4, 3)
    assert x[0].T.shape == (4, 3)
    with pytest.raises(ValueError, match="2-D"):
        _ = x.T
    assert x.to_device(xp.CPU).device == xp.CPU
    assert x.to_device(xp.DASK).device == xp.DASK
    with pytest.raises(TypeError, match="asarray"):
        xp.Array()


def test_indexing(device):
    data = np.arange(12.0).reshape(3, 4)
    x = on(device, data)
    np.testing.assert_array_equal(to_numpy(x[1:, ::2]), data[1:, ::2])
    np.testing.assert_array_equal(to_numpy(x[..., None, 1]), data[..., None, 1])
    idx = on(device, np.array([2, 0]))
    np.testing.assert_array_equal(to_numpy(x[idx]), data[[2, 0]])
    mask = on(device, data > 4)
    np.testing.assert_array_equal(to_numpy(x[mask]), data[data > 4])
    with pytest.raises(IndexError, match="unsupported index"):
        x[[0, 1]]


def test_reductions_and_functions(device):
    data = np.arange(12.0).reshape(3, 4)
    x = on(device, data)
    np.testing.assert_allclose(to_numpy(xp.mean(x, axis=0)), data.mean(0))
    np.testing.assert_allclose(to_numpy(xp.std(x, correction=1)), data.std(ddof=1))
    np.testing.assert_array_equal(to_numpy(xp.cumulative_sum(x, axis=1)), data.cumsum(1))
    np.testing.assert_array_equal(to_numpy(xp.sort(-x, axis=0)), np.sort(-data, axis=0))
    np.testing.assert_array_equal(
        to_numpy(xp.concat([x, x], axis=1)), np.concatenate([data, data], 1)
    )
    np.testing.assert_array_equal(to_numpy(xp.unique_values(on(device, [3, 1, 3]))), [1, 3])
    np.testing.assert_allclose(to_numpy(xp.linalg.det(on(device, np.eye(3) * 2))), 8.0)
    w, v = xp.linalg.eigh(on(device, np.diag([3.0, 1.0])))
    np.testing.assert_allclose(to_numpy(w), [1.0, 3.0])
    np.testing.assert_allclose(np.abs(to_numpy(v)), [[0.0, 1.0], [1.0, 0.0]])
    np.testing.assert_allclose(to_numpy(xp.fft.fft(on(device, np.ones(4)))), np.fft.fft(np.ones(4)))
    np.testing.assert_array_equal(
        to_numpy(xp.take_along_axis(x, on(device, np.array([[0], [1], [2]])), axis=1)),
        np.take_along_axis(data, np.array([[0], [1], [2]]), axis=1),
    )


def test_repr():
    assert repr(xp.asarray([1.0, 2.0])) == "Array([1., 2.], dtype=float64)"
    assert "lazy" in repr(xp.ones(2, device=xp.DASK))


@pytest.mark.parametrize(
    "z, expected",
    [
        (complex(-0.0, 0.0), (0.0, 0.0)),
        (complex(np.inf, 0.0), (np.inf, 0.0)),
        (complex(-np.inf, np.inf), (-1.0, 0.0)),
        (complex(np.inf, np.inf), (np.inf, np.nan)),
        (complex(-np.inf, np.nan), (-1.0, 0.0)),
        (complex(np.inf, np.nan), (np.inf, np.nan)),
        (complex(np.nan, 0.0), (np.nan, 0.0)),
        (complex(1.0, np.inf), (np.nan, np.nan)),
    ],
)
def test_complex_expm1_special_cases(device, z, expected):
    got = complex(xp.expm1(on(device, np.array([z])))[0])
    np.testing.assert_equal((got.real, abs(got.imag) if expected[1] == 0 else got.imag), expected)
    assert not np.signbit(got.real) or expected[0] != 0


def test_complex_expm1_accuracy(device):
    z = np.array([1e-10 + 1e-10j, 0.5 - 2j, -3 + 0.1j, 20 + 1j])
    np.testing.assert_allclose(to_numpy(xp.expm1(on(device, z))), np.expm1(z), rtol=1e-14)


def test_asarray_of_an_array_converts_dtype(device):
    x = on(device, np.array([1, 2]))
    assert xp.asarray(x, dtype=xp.float64).dtype == xp.float64
    assert xp.asarray(x, dtype=xp.int32).dtype == xp.int32
    assert xp.asarray(x) is x and xp.asarray(x, dtype=xp.int64) is x
