"""array-api-strict's flags under its names, and writeable, on both backends."""

from __future__ import annotations

import asyncio
import pickle
import re
import subprocess
import sys
import threading

import numpy as np
import pytest
from conftest import on

import strict_array as xp
from strict_array import _flags

BACKENDS = [xp.CPU, xp.DASK]


@pytest.fixture(autouse=True)
def _default_flags():
    """Every test starts and ends with the default flags."""
    xp.reset_array_api_strict_flags()
    yield
    xp.reset_array_api_strict_flags()


@pytest.fixture(params=BACKENDS, ids=lambda d: d.name)
def backend(request):
    return request.param


# --- setting and reading ---------------------------------------------------------------
def test_defaults_are_array_api_stricts():
    import array_api_strict

    array_api_strict.reset_array_api_strict_flags()
    theirs = array_api_strict.get_array_api_strict_flags()
    ours = xp.get_array_api_strict_flags()
    assert {k: ours[k] for k in theirs} == theirs
    assert ours["writeable"] is True
    assert xp.__array_api_version__ == theirs["api_version"] == "2025.12"


def test_set_get_reset():
    xp.set_array_api_strict_flags(api_version="2023.12", boolean_indexing=False)
    flags = xp.get_array_api_strict_flags()
    assert flags["api_version"] == "2023.12" and flags["boolean_indexing"] is False
    assert flags["data_dependent_shapes"] is True  # (not given: kept)
    xp.set_array_api_strict_flags(data_dependent_shapes=False)
    assert xp.get_array_api_strict_flags()["boolean_indexing"] is False
    xp.reset_array_api_strict_flags()
    assert xp.get_array_api_strict_flags() == _flags.DEFAULT.as_dict()


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"api_version": "2020.12"}, ValueError, "not a version of the standard"),
        ({"api_version": "2026.12"}, ValueError, "2021.12, 2022.12"),
        ({"boolean_indexing": "no"}, TypeError, "boolean_indexing must be True or False"),
        ({"enabled_extensions": ["linalg", "sparse"]}, ValueError, "unknown extension 'sparse'"),
        ({"enabled_extensions": "linalg"}, TypeError, "collection of names"),
        (
            {"api_version": "2021.12", "enabled_extensions": ["fft"]},
            ValueError,
            "fft extension requires version 2022.12",
        ),
    ],
)
def test_bad_values_are_refused(kwargs, error, match):
    with pytest.raises(error, match=match):
        xp.set_array_api_strict_flags(**kwargs)
    with pytest.raises(error, match=match):
        xp.ArrayAPIStrictFlags(**kwargs)
    assert xp.get_array_api_strict_flags() == _flags.DEFAULT.as_dict()


def test_an_older_version_drops_newer_extensions():
    xp.set_array_api_strict_flags(api_version="2021.12")
    assert xp.get_array_api_strict_flags()["enabled_extensions"] == ("linalg",)
    with pytest.raises(AttributeError, match="fft extension is disabled"):
        xp.fft  # noqa: B018
    assert xp.linalg.det is not None


def test_context_manager_restores_and_nests():
    with xp.ArrayAPIStrictFlags(api_version="2023.12") as flags:
        assert flags.api_version == "2023.12"
        with xp.ArrayAPIStrictFlags(boolean_indexing=False):
            got = xp.get_array_api_strict_flags()
            assert got["api_version"] == "2023.12" and got["boolean_indexing"] is False
        assert xp.get_array_api_strict_flags()["boolean_indexing"] is True
    assert xp.__array_api_version__ == "2025.12"


def test_context_manager_is_per_thread():
    seen = {}
    inside, done = threading.Event(), threading.Event()

    def other():
        inside.wait()
        seen["other"] = xp.get_array_api_strict_flags()["data_dependent_shapes"]
        done.set()

    t = threading.Thread(target=other)
    t.start()
    with xp.ArrayAPIStrictFlags(data_dependent_shapes=False):
        inside.set()
        done.wait()
        seen["here"] = xp.get_array_api_strict_flags()["data_dependent_shapes"]
    t.join()
    assert seen == {"other": True, "here": False}


def test_context_manager_is_per_task():
    async def task(flag: bool) -> bool:
        with xp.ArrayAPIStrictFlags(boolean_indexing=flag):
            await asyncio.sleep(0.01)
            return bool(xp.get_array_api_strict_flags()["boolean_indexing"])

    async def both():
        return await asyncio.gather(task(True), task(False))

    assert asyncio.run(both()) == [True, False]


def test_context_manager_decorates():
    @xp.ArrayAPIStrictFlags(api_version="2022.12")
    def version() -> str:
        return xp.__array_api_version__

    assert version() == "2022.12" and xp.__array_api_version__ == "2025.12"


@pytest.mark.parametrize("prefix", ["ARRAY_API_STRICT_", "STRICT_ARRAY_"])
def test_environment_variables(prefix):
    env = {
        f"{prefix}API_VERSION": "2023.12",
        f"{prefix}BOOLEAN_INDEXING": "False",
        f"{prefix}DATA_DEPENDENT_SHAPES": "false",
        f"{prefix}ENABLED_EXTENSIONS": "linalg",
        f"{prefix}WRITEABLE": "0",
    }
    code = (
        "import strict_array as xp\n"
        "print(xp.get_array_api_strict_flags())\n"
        "x = xp.zeros(2)\n"
        "try:\n    x[0] = 1.0\nexcept RuntimeError as e:\n    print('refused', 'writeable' in str(e))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env={**_clean_env(), **env}, capture_output=True,
        text=True, check=True,
    ).stdout  # fmt: skip
    assert (
        "{'api_version': '2023.12', 'boolean_indexing': False, 'data_dependent_shapes': False, "
        "'enabled_extensions': ('linalg',), 'writeable': False, 'packages': ()}" in out
    )
    assert "refused True" in out


_PACKAGE = """
import strict_array as xp

def unique(x):
    return xp.unique_values(x)

def mask(x):
    return x[x > 1.5]

def write(x):
    x[0] = 9.0
    return x

def capabilities():
    return xp.__array_namespace_info__().capabilities()
"""


@pytest.fixture
def package(tmp_path, monkeypatch):
    """A consumer's package, ``mypkg``, beside the test calling it."""
    (tmp_path / "mypkg").mkdir()
    (tmp_path / "mypkg" / "__init__.py").write_text(_PACKAGE)
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    yield importlib.import_module("mypkg")
    sys.modules.pop("mypkg", None)


def test_flags_for_one_package(package, backend):
    """packages=: the package under test is refused what its tests may still do."""
    x = on(backend, [1.0, 2.0, 2.0])
    off = {"boolean_indexing": False, "data_dependent_shapes": False, "writeable": False}
    with xp.ArrayAPIStrictFlags(**off, packages=["mypkg"]):
        for call, flag in ((package.unique, "data_dependent_shapes"),
                           (package.mask, "boolean_indexing"), (package.write, "writeable")):  # fmt: skip
            with pytest.raises(RuntimeError, match=f"the {flag} flag is off"):
                call(x)
        # the test's own code (another package) may
        assert xp.unique_values(x).shape[0] in (2, None)
        assert x[x > 1.5].shape[0] in (2, None)
        x[0] = 0.0
        assert package.capabilities()["data-dependent shapes"] is False
        assert xp.__array_namespace_info__().capabilities()["data-dependent shapes"] is True
    with xp.ArrayAPIStrictFlags(**off, packages=["otherpkg"]):
        package.unique(x), package.mask(x), package.write(x)
    assert np.asarray(x).tolist() == [9.0, 2.0, 2.0]
    with pytest.raises(TypeError, match="packages must be a collection of package names"):
        xp.ArrayAPIStrictFlags(packages="mypkg")


def test_environment_prefers_strict_arrays_own(monkeypatch):
    monkeypatch.setenv("ARRAY_API_STRICT_API_VERSION", "2022.12")
    monkeypatch.setenv("STRICT_ARRAY_API_VERSION", "2024.12")
    monkeypatch.setenv("STRICT_ARRAY_FLAGS_PACKAGES", "mypkg, other")
    flags = _flags.flags_from_environment()
    assert flags.api_version == "2024.12" and flags.packages == ("mypkg", "other")
    monkeypatch.setenv("STRICT_ARRAY_BOOLEAN_INDEXING", "maybe")
    with pytest.raises(ValueError, match="BOOLEAN_INDEXING: 'maybe' is not a truth value"):
        _flags.flags_from_environment()


def _clean_env():
    import os

    return {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("ARRAY_API_STRICT_", "STRICT_ARRAY_"))
    }


# --- api_version -----------------------------------------------------------------------
_CALLS = {
    "clip": lambda x: xp.clip(x, 0.0, 1.0),
    "copysign": lambda x: xp.copysign(x, x),
    "cumulative_sum": lambda x: xp.cumulative_sum(x),
    "hypot": lambda x: xp.hypot(x, x),
    "maximum": lambda x: xp.maximum(x, x),
    "minimum": lambda x: xp.minimum(x, x),
    "moveaxis": lambda x: xp.moveaxis(x, 0, 0),
    "repeat": lambda x: xp.repeat(x, 2),
    "searchsorted": lambda x: xp.searchsorted(x, x),
    "signbit": lambda x: xp.signbit(x),
    "tile": lambda x: xp.tile(x, (2,)),
    "unstack": lambda x: xp.unstack(x),
    "__array_namespace_info__": lambda x: xp.__array_namespace_info__(),
    "count_nonzero": lambda x: xp.count_nonzero(x),
    "cumulative_prod": lambda x: xp.cumulative_prod(x),
    "diff": lambda x: xp.diff(x),
    "nextafter": lambda x: xp.nextafter(x, x),
    "reciprocal": lambda x: xp.reciprocal(x),
    "take_along_axis": lambda x: xp.take_along_axis(x, xp.argsort(x)),
    "broadcast_shapes": lambda x: xp.broadcast_shapes((2,), (2,)),
    "isin": lambda x: xp.isin(x, x),
    "linalg.eig": lambda x: xp.linalg.eig(xp.reshape(xp.concat([x, x]), (2, 2))),
    "linalg.eigvals": lambda x: xp.linalg.eigvals(xp.reshape(xp.concat([x, x]), (2, 2))),
}


def test_every_versioned_function_is_tested():
    assert sorted(_CALLS) == sorted(n for names in _flags.INTRODUCED.values() for n in names)


@pytest.mark.parametrize("version", _flags.SUPPORTED_VERSIONS)
def test_functions_of_later_versions_are_refused(version, backend):
    x = on(backend, [0.25, 0.5])
    with xp.ArrayAPIStrictFlags(api_version=version):
        assert xp.__array_api_version__ == version
        for added, names in _flags.INTRODUCED.items():
            for name in names:
                if name.startswith("linalg.") and backend is xp.DASK:
                    continue  # (eig needs a general eigen-solver Dask lacks)
                if added > version:
                    with pytest.raises(RuntimeError, match=f"added in version {added}"):
                        _CALLS[name](x)
                else:
                    _CALLS[name](x)


def test_operators_and_older_functions_work_under_the_oldest_version(backend):
    x = on(backend, [1.0, 2.0])
    with xp.ArrayAPIStrictFlags(api_version="2021.12"):
        y = xp.sum(x + 1.0) * xp.asarray(2.0, device=backend)
        assert float(y) == 10.0


@pytest.mark.parametrize("version", _flags.SUPPORTED_VERSIONS)
def test_sums_of_floats_follow_the_version(version, backend):
    """Before 2023.12 a sum or product of float32 was float64 (as in array-api-strict)."""
    import array_api_strict as strict

    x = on(backend, [1.0, 2.0], dtype=np.float32)
    with (
        xp.ArrayAPIStrictFlags(api_version=version),
        strict.ArrayAPIStrictFlags(api_version=version),
    ):
        theirs = strict.sum(strict.asarray([1.0, 2.0], dtype=strict.float32)).dtype
        for f in (xp.sum, xp.prod):
            assert str(f(x).dtype) == str(theirs).removeprefix("array_api_strict.")
        assert xp.sum(x, dtype=xp.float32).dtype == xp.float32
        square = xp.reshape(xp.concat([x, x]), (2, 2))
        assert str(xp.linalg.trace(square).dtype) == str(theirs).removeprefix("array_api_strict.")


#: the behaviours a later version added to older functions: a call of each on a float
#: array ``x`` of namespace ``ns``, and the exception strict_array refuses it with
_BEHAVIOURS = {
    "add(x, 1.0)": (lambda ns, x: ns.add(x, 1.0), TypeError),
    "multiply(2, x)": (lambda ns, x: ns.multiply(2, x), TypeError),
    "less(x, 1.5)": (lambda ns, x: ns.less(x, 1.5), TypeError),
    "result_type(x, 1.0)": (lambda ns, x: ns.result_type(x, 1.0), TypeError),
    "mean(complex)": (lambda ns, x: ns.mean(ns.astype(x, ns.complex128)), TypeError),
    "from_dlpack(device=)": (lambda ns, x: ns.from_dlpack(x, device=x.device), ValueError),
    "from_dlpack(copy=)": (lambda ns, x: ns.from_dlpack(x, copy=True), ValueError),
    # array-api-strict's is a ValueError; ours the TypeError of a producer without the
    # keywords, on which NumPy's from_dlpack retries
    "__dlpack__(copy=)": (lambda ns, x: x.__dlpack__(copy=True), (TypeError, ValueError)),
    "__dlpack__(max_version=)": (
        lambda ns, x: x.__dlpack__(max_version=(1, 0)),
        (TypeError, ValueError),
    ),
}


def _refusals(ns, x, version):
    """``{call: the exception's type, or None}`` of each call of :data:`_BEHAVIOURS`."""
    refused = {}
    with ns.ArrayAPIStrictFlags(api_version=version):
        for name, (call, _) in _BEHAVIOURS.items():
            try:
                call(ns, x)
                refused[name] = None
            except (TypeError, ValueError, AttributeError) as e:
                # (array-api-strict's functions meet a scalar with an AttributeError)
                refused[name] = type(e)
    return refused


@pytest.mark.parametrize("version", _flags.SUPPORTED_VERSIONS)
def test_later_behaviours_are_refused_as_in_array_api_strict(version, backend):
    """Scalar operands of the functions and of result_type, the complex mean (2024.12),
    the DLPack keywords (2023.12): refused under the same versions as array-api-strict,
    with errors naming the version; the operators take scalars under every version."""
    import array_api_strict as strict

    x = on(backend, [1.0, 2.0])
    ours = _refusals(xp, x, version)
    theirs = _refusals(strict, strict.asarray([1.0, 2.0]), version)
    assert {k: v is None for k, v in ours.items()} == {k: v is None for k, v in theirs.items()}
    for name, (_, error) in _BEHAVIOURS.items():
        assert ours[name] is None or issubclass(ours[name], error), name
    expected = version < "2024.12"
    assert (ours["add(x, 1.0)"] is not None) == expected
    assert (ours["from_dlpack(copy=)"] is not None) == (version < "2023.12")
    with xp.ArrayAPIStrictFlags(api_version=version):
        assert xp.all(x + 1.0 == xp.add(x, xp.asarray(1.0, device=backend)))
        assert xp.all(1.0 - x == xp.subtract(xp.asarray(1.0, device=backend), x))
        n = on(backend, [6, 7])
        n &= 3
        n //= 2
        y = xp.asarray(x, copy=True)
        y *= 2.0
        assert np.asarray(n).tolist() == [1, 1] and np.asarray(y).tolist() == [2.0, 4.0]
        assert xp.result_type(x, xp.float32) == xp.float64
        # NumPy's import of our array (it retries __dlpack__ with stream= alone)
        assert np.array_equal(np.from_dlpack(x), [1.0, 2.0])
        assert np.array_equal(np.asarray(xp.from_dlpack(x)), [1.0, 2.0])
        if expected:
            with pytest.raises(TypeError, match=r"add: a Python scalar .* version 2024\.12"):
                xp.add(x, 1.0)


@pytest.mark.parametrize("version", _flags.SUPPORTED_VERSIONS[2:])
def test_info_follows_the_version(version):
    with xp.ArrayAPIStrictFlags(api_version=version):
        info = xp.__array_namespace_info__()
        caps = info.capabilities()
        assert ("max dimensions" in caps) == (version >= "2024.12")
        devices = info.devices()
        assert isinstance(devices, tuple if version >= "2025.12" else list)
        assert xp.CPU in devices and xp.CPU_NO_X64 in devices
        kind = tuple if version >= "2025.12" else list
        v = xp.ones(2)
        assert type(xp.meshgrid(v, v)) is kind and type(xp.broadcast_arrays(v, v)) is kind


def test_array_namespace_checks_the_version():
    x = xp.ones(2)
    assert x.__array_namespace__(api_version="2023.12") is xp
    with pytest.raises(ValueError, match="not supported"):
        x.__array_namespace__(api_version="2020.12")


def test_extensions_can_be_disabled():
    with xp.ArrayAPIStrictFlags(enabled_extensions=["fft"]):
        with pytest.raises(AttributeError, match="linalg extension is disabled"):
            xp.linalg  # noqa: B018
        assert not hasattr(xp, "linalg")
        assert xp.fft.fft is not None
        assert xp.matmul is not None  # (the main namespace's own)
    assert hasattr(xp, "linalg")


# --- boolean indexing and data-dependent shapes -----------------------------------------
@pytest.mark.parametrize("mask_kind", ["array", "numpy"])
def test_boolean_indexing_flag(backend, mask_kind):
    x = on(backend, [1.0, 2.0, 3.0])
    mask = x > 1.5 if mask_kind == "array" else np.array([False, True, True])
    assert x[mask].shape[0] in (2, None)  # allowed by default
    with xp.ArrayAPIStrictFlags(boolean_indexing=False):
        assert xp.__array_namespace_info__().capabilities()["boolean indexing"] is False
        with pytest.raises(RuntimeError, match="__getitem__: indexing by a boolean array"):
            x[mask]
        with pytest.raises(RuntimeError, match=r"__setitem__: .*boolean_indexing flag is off"):
            x[mask] = 0.0
        assert float(x[1]) == 2.0  # other indexing unchanged
        assert float(xp.sum(xp.where(x > 1.5, x, 0.0))) == 5.0
    x[mask] = 0.0  # (and allowed again after the block, on the fast path's device too)
    assert np.asarray(x).tolist() == [1.0, 0.0, 0.0]


_DATA_DEPENDENT = {
    "unique_all": lambda ns, x: ns.unique_all(x),
    "unique_counts": lambda ns, x: ns.unique_counts(x),
    "unique_inverse": lambda ns, x: ns.unique_inverse(x),
    "unique_values": lambda ns, x: ns.unique_values(x),
    "nonzero": lambda ns, x: ns.nonzero(x),
    "repeat (an array of repeats)": lambda ns, x: ns.repeat(
        x, ns.asarray([1, 2, 1], device=x.device)
    ),
}


@pytest.mark.parametrize("op", sorted(_DATA_DEPENDENT))
def test_data_dependent_shapes_flag(backend, op):
    x = on(backend, [1.0, 0.0, 1.0])
    _DATA_DEPENDENT[op](xp, x)
    with xp.ArrayAPIStrictFlags(data_dependent_shapes=False):
        assert xp.__array_namespace_info__().capabilities()["data-dependent shapes"] is False
        with pytest.raises(
            RuntimeError, match=rf"{re.escape(op)}: .*data_dependent_shapes flag is off"
        ):
            _DATA_DEPENDENT[op](xp, x)
        assert np.asarray(xp.repeat(x, 2)).tolist() == [1, 1, 0, 0, 1, 1]  # fixed shape


def test_data_dependent_shapes_match_array_api_strict():
    """The same calls are refused as in array-api-strict (its flag, its functions)."""
    import array_api_strict as strict

    refused = {}
    for ns in (xp, strict):
        x = ns.asarray([1.0, 0.0, 1.0])
        setter = ns.ArrayAPIStrictFlags
        with setter(data_dependent_shapes=False, boolean_indexing=False):
            refused[ns.__name__] = []
            for name, call in _DATA_DEPENDENT.items():
                try:
                    call(ns, x)
                except RuntimeError:
                    refused[ns.__name__].append(name)
            try:
                x[x > 0.5]
            except RuntimeError:
                refused[ns.__name__].append("mask")
    assert refused["strict_array"] == refused["array_api_strict"] == [*_DATA_DEPENDENT, "mask"]


# --- writeable ----------------------------------------------------------------------
_WRITES = {
    "Array.__setitem__": lambda x: x.__setitem__(0, 5.0),
    "Array.__setitem__ (mask)": lambda x: x.__setitem__(x > 1.5, 5.0),
    "numpy.add (out=)": lambda x: np.add(x, 1.0, out=x),
    "numpy.copyto": lambda x: np.copyto(x, 1.0),
    "numpy.sum (out=)": lambda x: np.sum(x, out=x[0]),
}


@pytest.mark.parametrize("write", sorted(_WRITES))
def test_writeable_flag(backend, write):
    x = on(backend, [1.0, 2.0, 3.0])
    before = np.asarray(x).tolist()
    with xp.ArrayAPIStrictFlags(writeable=False):
        with pytest.raises(RuntimeError, match=r"writeable flag is off.*array_api_extra\.at"):
            _WRITES[write](x)
        assert np.asarray(x).tolist() == before  # nothing written
        y = x + 1.0  # out of place: fine
        assert np.asarray(y).tolist() == [2.0, 3.0, 4.0]
    if "sum" not in write:  # (strict_array refuses np.sum's out= into a 0-d view anyway)
        _WRITES[write](x)
        assert np.asarray(x).tolist() != before


@pytest.mark.parametrize(
    ("op", "expected"),
    [("+=", [2.0, 3.0, 4.0]), ("*=", [1.0, 4.0, 9.0]), ("/=", [1.0, 1.0, 1.0]),
     ("**=", [1.0, 4.0, 27.0]), ("-=", [0.0, 0.0, 0.0])],
)  # fmt: skip
def test_in_place_operators_make_a_new_array(backend, op, expected):
    """As on JAX (no in-place operators: x op= y is x = x op y): the old array keeps its
    values, so code that relies on a write through another reference shows it."""
    x = on(backend, [1.0, 2.0, 3.0])
    alias = x
    with xp.ArrayAPIStrictFlags(writeable=False):
        scope = {"x": x, "y": 1.0 if op == "+=" else x}
        exec(f"x {op} y", scope)
        y = scope["x"]
    assert y is not alias and np.asarray(y).tolist() == expected
    assert np.asarray(alias).tolist() == [1.0, 2.0, 3.0]  # not written
    x += 1.0  # (written in place again once the flag is on)
    assert x is alias and np.asarray(alias).tolist() == [2.0, 3.0, 4.0]


def test_array_api_extra_at_is_the_fix(backend):
    """The fix the error names works under the flag: array_api_extra.at's writes pass."""
    import array_api_extra as xpx

    x = on(backend, [1.0, 2.0, 3.0])
    with xp.ArrayAPIStrictFlags(writeable=False):
        y = xpx.at(x)[1].set(5.0)
        y = xpx.at(y)[y > 4.0].multiply(2.0)
        with pytest.raises(RuntimeError, match="writeable flag is off"):
            y[0] = 0.0  # (the caller's own write is still refused)
    assert np.asarray(y).tolist() == [1.0, 10.0, 3.0]


def test_writeable_is_per_thread():
    x = xp.zeros(3)
    errors = []

    def writer():
        try:
            x[0] = 1.0
        except RuntimeError as e:  # pragma: no cover - the failure this test looks for
            errors.append(e)

    with xp.ArrayAPIStrictFlags(writeable=False):
        t = threading.Thread(target=writer)
        t.start()
        t.join()
    assert not errors and float(x[0]) == 1.0


def test_flags_pickle_and_compare():
    flags = _flags.current()
    assert pickle.loads(pickle.dumps(flags)) == flags == _flags.DEFAULT
