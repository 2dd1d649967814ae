"""The simulated devices of each backend (array-api-strict's device1, device2, no_float64,
no_x64): their dtypes, and that arrays of different devices never mix."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import strict_array as xp
from strict_array import _profiles

#: (real device, its second device, float32 defaults, no float64, no 64-bit types)
FAMILIES = {
    "cpu": (xp.CPU, xp.CPU1, xp.CPU_FLOAT32, xp.CPU_NO_FLOAT64, xp.CPU_NO_X64),
    "dask": (xp.DASK, xp.DASK1, xp.DASK_FLOAT32, xp.DASK_NO_FLOAT64, xp.DASK_NO_X64),
}
SIMULATED = [d for family in FAMILIES.values() for d in family[1:]]
ALL = [d for family in FAMILIES.values() for d in family]
#: array-api-strict's device of the same profile, by our device's suffix
STRICTS = {"": "CPU_DEVICE", "1": "device1", "_float32": "device2",
           "_no_float64": "no_float64", "_no_x64": "no_x64"}  # fmt: skip


def _suffix(dev) -> str:
    return dev.name.removeprefix("cpu").removeprefix("dask")


def _chunked(dev, values, chunks=None, **kwargs):
    """``values`` on ``dev`` (on a lazy device with ``chunks``)."""
    return xp.asarray(values, device=dev, chunks=chunks if dev.lazy else None, **kwargs)


@pytest.fixture(params=ALL, ids=lambda d: d.name)
def dev(request):
    return request.param


@pytest.fixture(params=SIMULATED, ids=lambda d: d.name)
def sim(request):
    return request.param


# --- what the devices report ---------------------------------------------------------
def test_info_reports_every_device_as_array_api_strict_does(dev):
    import array_api_strict as strict

    info = xp.__array_namespace_info__()
    assert dev in info.devices()
    theirs = strict.__array_namespace_info__()
    their_dev = strict.Device(STRICTS[_suffix(dev)])
    assert info.default_dtypes(device=dev) == {
        k: np.dtype(str(v).removeprefix("array_api_strict."))
        for k, v in theirs.default_dtypes(device=their_dev).items()
    }
    for kind in (None, "real floating", "integral", ("complex floating", "bool")):
        assert sorted(info.dtypes(device=dev, kind=kind)) == sorted(
            theirs.dtypes(device=their_dev, kind=kind)
        )


def test_devices_are_distinct_and_named(sim):
    real = xp.CPU if not sim.lazy else xp.DASK
    assert sim != real and sim.lazy is real.lazy
    assert repr(sim) == f"strict_array.{sim.name.upper()}"
    assert getattr(xp, sim.name.upper()) is sim
    assert pickle.loads(pickle.dumps(sim)) is sim
    assert f"device={sim!r}" in repr(_chunked(sim, [1.0], dtype=xp.float32))
    with xp.default_device(sim):
        assert xp.zeros(2).device is sim
    assert xp.asarray([1, 2], device=sim.name).device is sim


# --- defaults and refusals ------------------------------------------------------------
def test_creation_uses_the_devices_defaults(dev):
    d = xp.__array_namespace_info__().default_dtypes(device=dev)
    real, cplx, integral = d["real floating"], d["complex floating"], d["integral"]
    assert xp.zeros(3, device=dev).dtype == real
    assert xp.ones((2, 2), device=dev).dtype == real
    assert xp.empty(2, device=dev).dtype == real
    assert xp.eye(2, device=dev).dtype == real
    assert xp.full(2, 1.5, device=dev).dtype == real
    assert xp.full(2, 1, device=dev).dtype == integral
    assert xp.full(2, 1j, device=dev).dtype == cplx
    assert xp.full(2, True, device=dev).dtype == xp.bool
    assert xp.arange(3, device=dev).dtype == integral
    assert xp.arange(0.0, 1.0, 0.5, device=dev).dtype == real
    assert xp.linspace(0, 1, 3, device=dev).dtype == real
    assert xp.asarray([1.0, 2.0], device=dev).dtype == real
    assert xp.asarray([[1, 2]], device=dev).dtype == integral
    assert xp.asarray(1j, device=dev).dtype == cplx
    assert xp.asarray(np.float32(1.0), device=dev).dtype == xp.float32  # (its own dtype)
    assert xp.zeros_like(xp.zeros(2, device=dev)).dtype == real
    assert xp.fft.fftfreq(4, device=dev).dtype == real
    assert xp.fft.rfftfreq(4, device=dev).dtype == real


@pytest.mark.parametrize(
    "make",
    [
        lambda dev, dt: xp.zeros(2, dtype=dt, device=dev),
        lambda dev, dt: xp.asarray(np.ones(2, dt), device=dev),
        lambda dev, dt: xp.asarray([1, 2], dtype=dt, device=dev),
        lambda dev, dt: xp.astype(xp.ones(2, dtype=xp.int8, device=dev), dt),
        lambda dev, dt: xp.asarray(np.ones(2, dt)).to_device(dev),
        lambda dev, dt: xp.full(2, 1, dtype=dt, device=dev),
    ],
    ids=["zeros", "asarray(numpy)", "asarray(list)", "astype", "to_device", "full"],
)
def test_a_missing_dtype_is_refused_naming_the_device(sim, make):
    for dtype in sim.profile.lacks:
        with pytest.raises(ValueError, match=rf"{sim!r} has no {dtype} \(it simulates"):
            make(sim, dtype)
    for dtype in xp.__array_namespace_info__().dtypes(device=sim).values():
        assert make(sim, dtype).dtype == dtype


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_promotion_to_a_missing_dtype_is_refused(family):
    no_x64 = FAMILIES[family][4]
    a = _chunked(no_x64, [1, 2], dtype=xp.int32)
    b = _chunked(no_x64, [1, 2], dtype=xp.uint32)
    for combine in (lambda: a + b, lambda: xp.add(a, b), lambda: xp.concat([a, b])):
        with pytest.raises(ValueError, match="has no int64"):
            combine()
    assert (a + a).dtype == xp.int32  # same dtypes: fine
    f = _chunked(FAMILIES[family][3], [1.0, 2.0])
    assert f.dtype == xp.float32 and (f * 2.0).dtype == xp.float32
    assert (f + 1j).dtype == xp.complex64
    with pytest.raises(ValueError, match="has no float64"):
        xp.astype(f, xp.float64)


@pytest.mark.parametrize("family", sorted(FAMILIES))
@pytest.mark.parametrize("chunks", [None, 2, (1, 3, 2)])
def test_indices_and_integer_sums_are_int32_without_x64(family, chunks):
    dev = FAMILIES[family][4]
    values = [3.0, 1.0, 2.0, 1.0, 0.0, 5.0]
    x = _chunked(dev, values, chunks)
    expected = np.asarray(values)
    checks = {
        "argmax": (xp.argmax(x), np.argmax(expected)),
        "argmin": (xp.argmin(x), np.argmin(expected)),
        "argsort": (xp.argsort(x), np.argsort(expected, stable=True)),
        "nonzero": (xp.nonzero(x)[0], np.nonzero(expected)[0]),
        "searchsorted": (
            xp.searchsorted(xp.sort(x), x),
            np.searchsorted(np.sort(expected), expected),
        ),
        "unique_inverse": (
            xp.unique_inverse(x).inverse_indices,
            np.unique(expected, return_inverse=True)[1],
        ),
        "unique_counts": (xp.unique_counts(x).counts, np.unique(expected, return_counts=True)[1]),
        "count_nonzero": (xp.count_nonzero(x), np.count_nonzero(expected)),
    }
    ints = xp.astype(x, xp.int16)
    checks["sum"] = (xp.sum(ints), np.sum(expected.astype(np.int16)))
    checks["prod"] = (xp.prod(ints + 1), np.prod(expected.astype(np.int16) + 1))
    checks["cumulative_sum"] = (xp.cumulative_sum(ints), np.cumsum(expected.astype(np.int16)))
    square = xp.reshape(ints, (2, 3))[:, :2]
    checks["linalg.trace"] = (
        xp.linalg.trace(square),
        np.trace(np.reshape(expected, (2, 3))[:, :2]),
    )
    checks["linalg.matrix_rank"] = (
        xp.linalg.matrix_rank(xp.astype(square, xp.float32)),
        np.linalg.matrix_rank(np.reshape(expected, (2, 3))[:, :2]),
    )
    for name, (got, want) in checks.items():
        assert got.dtype == xp.int32, name
        assert got.device is dev, name
        np.testing.assert_array_equal(np.asarray(got), want, err_msg=name)
    assert xp.sum(xp.astype(x, xp.uint8)).dtype == xp.uint32
    # the index arrays index the device's arrays
    np.testing.assert_array_equal(np.asarray(x[xp.argsort(x)]), np.sort(expected))


# --- devices do not mix ----------------------------------------------------------------
_BINARY = {
    "operator +": lambda a, b: a + b,
    "operator ==": lambda a, b: a == b,
    "operator @": lambda a, b: xp.reshape(a, (1, 3)) @ xp.reshape(b, (3, 1)),
    "add": lambda a, b: xp.add(a, b),
    "maximum": lambda a, b: xp.maximum(a, b),
    "where": lambda a, b: xp.where(a > 0, a, b),
    "where (condition)": lambda a, b: xp.where(b > 0, a, a),
    "concat": lambda a, b: xp.concat([a, b]),
    "stack": lambda a, b: xp.stack([a, b]),
    "matmul": lambda a, b: xp.matmul(a, b),
    "vecdot": lambda a, b: xp.vecdot(a, b),
    "take": lambda a, b: xp.take(a, xp.astype(b, xp.int32)),
    "index array": lambda a, b: a[xp.astype(b, xp.int32)],
    "mask": lambda a, b: a[b > 0],
    "setitem": lambda a, b: a.__setitem__(slice(None), b),
    "in-place +=": lambda a, b: a.__iadd__(b),
    "isin": lambda a, b: xp.isin(a, b),
    "searchsorted": lambda a, b: xp.searchsorted(a, b),
    "broadcast_arrays": lambda a, b: xp.broadcast_arrays(a, b),
    "meshgrid": lambda a, b: xp.meshgrid(a, b),
    "repeat": lambda a, b: xp.repeat(a, xp.astype(b, xp.int32)),
    "clip": lambda a, b: xp.clip(a, b, None),
    "copysign": lambda a, b: xp.copysign(a, b),
}


@pytest.mark.parametrize("family", sorted(FAMILIES))
@pytest.mark.parametrize("op", sorted(_BINARY))
@pytest.mark.parametrize("zero_d", [False, True], ids=["1-d", "0-d other"])
def test_arrays_of_two_devices_never_mix(family, op, zero_d):
    real, second = FAMILIES[family][:2]
    for d1, d2 in ((real, second), (second, real), (second, FAMILIES[family][2])):
        a = xp.asarray([1.0, 0.0, 2.0], device=d1, dtype=xp.float32)
        b = xp.asarray([2.0, 1.0, 0.0], device=d2, dtype=xp.float32)
        if zero_d:
            b = b[0]
            if op in ("index array", "take", "mask", "repeat", "operator @", "meshgrid"):
                continue
        with pytest.raises(ValueError, match=r"different devices"):
            _BINARY[op](a, b)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_a_host_scalar_array_still_meets_the_real_lazy_device(family):
    """The rule for the real devices stays: a 0-d host array acts as a scalar on DASK."""
    if family == "cpu":
        pytest.skip("CPU is the host")
    x = xp.asarray([1.0, 2.0], device=xp.DASK)
    assert np.asarray(x + xp.asarray(1.0)).tolist() == [2.0, 3.0]
    with pytest.raises(ValueError, match="different devices"):
        xp.asarray([1.0, 2.0], device=xp.DASK1) + xp.asarray(1.0)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_results_stay_on_the_device(family):
    """As array-api-strict's device1 tests: every result keeps its input's device."""
    dev = FAMILIES[family][1]
    x = xp.asarray([1.0, 2.0, 3.0], device=dev)
    results = [
        x**2, 2.0 * x, -x, xp.sum(x), xp.cumulative_sum(x, include_initial=True),
        xp.cumulative_prod(x), xp.asarray(x), xp.sort(x), xp.argsort(x), x[1:], x[x > 1.5],
        xp.unique_values(x), xp.nonzero(x)[0], xp.where(x > 1.0, x, 0.0), xp.clip(x, 1.5, 2.5),
        xp.reshape(x, (3, 1)), xp.zeros_like(x), xp.full_like(x, 2.0), xp.astype(x, xp.int32),
        xp.linalg.vector_norm(x), xp.fft.fft(x), xp.meshgrid(x, x)[0], xp.diff(x),
        xp.take(x, xp.asarray([0, 2], device=dev)), xp.isin(x, x), xp.max(x),
    ]  # fmt: skip
    for r in results:
        assert r.device is dev
    x[0] = 5.0
    x += 1.0
    assert x.device is dev and np.asarray(x).tolist() == [6.0, 3.0, 4.0]


@pytest.mark.parametrize("src", ALL, ids=lambda d: d.name)
def test_to_device_moves_between_any_two(src):
    x = _chunked(src, [1.5, -2.0, 3.0], chunks=2, dtype=xp.float32)
    for target in ALL:
        y = x.to_device(target)
        assert y.device is target and y.dtype == xp.float32
        assert np.asarray(y).tolist() == [1.5, -2.0, 3.0]
    z = xp.asarray(x, device=xp.CPU1)
    assert z.device is xp.CPU1


def test_profiles_are_one_record_each():
    assert xp.CPU.profile is xp.DASK.profile is xp.CPU1.profile is _profiles.FULL
    assert xp.CPU_NO_X64.profile is xp.DASK_NO_X64.profile is _profiles.NO_X64
    assert type(xp.CPU1).__mro__[1] is type(xp.CPU)
