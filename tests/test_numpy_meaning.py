"""NumPy's value under NumPy's name (contract section 7): every row of the table against
NumPy, on both devices.

Each call of ``numpy_cases.CASES`` runs on NumPy's arrays and on strict arrays: on CPU,
and on DASK in several chunkings (one chunk, chunks of two, chunks of one), some
arguments left as NumPy's arrays (array-likes beside strict arrays). The results must be
NumPy's: strict arrays on the device with NumPy's dtype, shape and values (floating
results within rounding on DASK, whose reductions add in another order), other values
equal, NumPy's exception type where NumPy raises, and a written argument changed as
NumPy changes it. Rank promotions are allowed here: their rule is tested apart.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from numpy_cases import APART, CASES

import strict_array as xp
from strict_array._backends._numpy_ways import Refuse, Value
from strict_array._numpy_api import FUNCTIONS
from strict_array._numpy_api._table import lookup

ROWS = sorted(name for name in FUNCTIONS if name not in APART)
CHUNKINGS = ("one", "two", "ones")


def _strict(value: Any, device: Any, chunking: str) -> Any:
    if isinstance(value, np.ndarray) and value.dtype.kind in "biufc":
        if device is xp.CPU:
            return xp.asarray(value.copy())
        chunks = {"one": -1, "two": 2, "ones": 1}[chunking] if value.ndim else ()
        return xp.asarray(value.copy(), device=xp.DASK, chunks=chunks)
    if type(value) in (list, tuple):
        return type(value)(_strict(v, device, chunking) for v in value)
    return value


def _copied(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.copy()
    if type(value) in (list, tuple):
        return type(value)(_copied(v) for v in value)
    return value


def _outcome(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
    """("value", result, args after the call) or ("error", type) of ``func(*args)``,
    every lazy array in them computed."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            r = func(*args, **kwargs)
            return ("value", _computed(r), _computed(args))
    except Exception as e:  # (the error is the outcome compared)
        return ("error", type(e), str(e))


def _computed(value: Any) -> Any:
    if type(value) is xp.Array:
        return ("strict", value.device, np.asarray(value))
    if isinstance(value, tuple):
        return type(value)(*[_computed(v) for v in value]) if hasattr(value, "_fields") else \
            tuple(_computed(v) for v in value)  # fmt: skip
    if type(value) is list:
        return [_computed(v) for v in value]
    return value


#: NumPy leaves the values undefined: dtype and shape are compared
UNDEFINED = frozenset({"empty_like"})


def _same(name: str, want: Any, got: Any, device: Any, where: str) -> None:
    if isinstance(want, (np.ndarray, np.generic)) and want.dtype.kind in "biufc":
        assert isinstance(got, tuple) and got[:1] == ("strict",), (
            f"{name} {where}: NumPy gives an array, strict_array a {type(got).__name__}"
        )
        _, dev, values = got
        assert dev is device, f"{name} {where}: a result on {dev!r}, not {device!r}"
        assert values.dtype == want.dtype, (
            f"{name} {where}: dtype {values.dtype}, NumPy's {want.dtype}"
        )
        assert values.shape == np.shape(want), (
            f"{name} {where}: shape {values.shape}, NumPy's {np.shape(want)}"
        )
        if name in UNDEFINED:
            return
        exact = device is xp.CPU or want.dtype.kind in "biu"
        rtol = 0 if exact else (1e-4 if (want.dtype.itemsize <= 8 and want.dtype.kind == "c")
                                or want.dtype.itemsize <= 4 else 1e-9)  # fmt: skip
        np.testing.assert_allclose(values, want, rtol=rtol, atol=rtol, equal_nan=True,
                                   err_msg=f"{name} {where}")  # fmt: skip
    elif isinstance(want, tuple) and not (isinstance(got, tuple) and got[:1] == ("strict",)):
        assert isinstance(got, tuple) and len(got) == len(want), f"{name} {where}: {got!r}"
        assert type(got) is type(want) or not hasattr(want, "_fields"), f"{name} {where}"
        for i, (w, g) in enumerate(zip(want, got)):
            _same(name, w, g, device, f"{where}[{i}]")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), f"{name} {where}: {got!r}"
        for i, (w, g) in enumerate(zip(want, got)):
            _same(name, w, g, device, f"{where}[{i}]")
    elif isinstance(want, np.ndarray):
        np.testing.assert_array_equal(got, want, err_msg=f"{name} {where}")
    elif isinstance(want, float) and want != want:
        assert got != got, f"{name} {where}: {got!r}, NumPy's nan"
    else:
        assert got == want and type(got) is type(want), f"{name} {where}: {got!r}, NumPy's {want!r}"


def _same_outcome(name: str, where: str, want: tuple[Any, ...], got: tuple[Any, ...],
                  device: Any) -> None:  # fmt: skip
    """NumPy's error type, or NumPy's value and what the call wrote into its arguments."""
    if want[0] == "error":
        assert got[0] == "error" and issubclass(got[1], want[1]), (
            f"{name} {where}: NumPy raises {want[1].__name__} ({want[2]}); "
            + (f"strict_array {got[1].__name__}: {got[2]}" if got[0] == "error"
               else "strict_array answers")
        )  # fmt: skip
        return
    assert got[0] == "value", (
        f"{name} {where}: NumPy answers; strict_array raises {got[1].__name__}: {got[2]}")  # fmt: skip
    _same(name, want[1], got[1], device, where)
    for j, (w, g) in enumerate(zip(want[2], got[2])):  # what the call wrote
        if isinstance(w, np.ndarray) and w.dtype.kind in "biufc" and isinstance(g, tuple):
            _same(name, w, g, device, f"{where}, argument {j} after the call")


@pytest.mark.parametrize("name", ROWS)
@pytest.mark.parametrize("device", [xp.CPU, xp.DASK], ids=["cpu", "dask"])
def test_numpy_value_under_numpy_name(name: str, device: Any) -> None:
    func = lookup(name)
    cases = CASES[name]
    # a refusal only where the row says a lazy device cannot give NumPy's value
    refused = device is xp.DASK and type(FUNCTIONS[name].lazy) is Refuse
    with xp.rank_promotion("allow"):
        for i, (args, kwargs) in enumerate(cases):
            want = _outcome(func, _copied(args), _copied(kwargs))
            chunking = CHUNKINGS[i % len(CHUNKINGS)]
            strict_args = _strict(args, device, chunking)
            strict_kwargs = {k: _strict(v, device, chunking) for k, v in kwargs.items()}
            arrays = [j for j, a in enumerate(args) if isinstance(a, np.ndarray)]
            if i % 4 == 3 and len(arrays) > 1:  # an array-like beside strict arrays
                j = arrays[-1]
                strict_args = (*strict_args[:j], args[j].copy(), *strict_args[j + 1 :])
            got = _outcome(func, strict_args, strict_kwargs)
            where = f"case {i} ({chunking}): args {_show(args)} {_show(kwargs)}"
            if refused and got[0] == "error":
                assert got[1] is TypeError and "cannot give NumPy's value lazily" in got[2], (
                    f"{name} {where}: {got[1].__name__}: {got[2]}")  # fmt: skip
                continue
            _same_outcome(name, where, want, got, device)


def _show(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"{value.dtype}{value.shape}"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}={_show(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "(" + ", ".join(_show(v) for v in value) + ")"
    return repr(value)


def test_every_row_has_cases_and_every_numpy_function_a_row() -> None:
    from strict_array._numpy_api._table import names_without_rows

    assert sorted(set(FUNCTIONS) - set(CASES) - set(APART)) == []
    assert names_without_rows() == []


# --- ufuncs: NumPy's own, every method ---------------------------------------------------------
def _ufuncs() -> list[str]:
    seen, names = set(), []
    for name in sorted(dir(np)):
        u = getattr(np, name)
        if isinstance(u, np.ufunc) and u not in seen and not name.startswith("_"):
            seen.add(u)
            names.append(name)
    return names


def _ufunc_cases(u: np.ufunc) -> list[tuple[str, tuple[Any, ...], dict[str, Any]]]:
    from numpy_cases import INDICES, MASK, grid, like, sample

    if u.signature is not None:  # matmul, vecdot, matvec, vecmat
        pairs = [(sample((3, 4), "float64"), sample((4, 2), "float64")),
                 (sample((2, 3, 4), "float64"), sample((2, 4, 3), "int64")),
                 (sample((4,), "float64"), sample((4,), "float64")),
                 (sample((2, 4), "float64"), sample((2, 4), "float64"))]  # fmt: skip
        return [("__call__", p, {}) for p in pairs]
    arrays = grid(["bool", "int8", "uint8", "int64", "float32", "float64", "complex128"])
    if u.nin == 1:
        cases = [("__call__", (a,), {}) for a in arrays]
        a = sample((3, 4), "float64")
        cases += [
            (
                "__call__",
                (a,),
                {"where": MASK, "out": tuple(np.zeros((3, 4)) for _ in range(u.nout))},
            ),
            ("__call__", (a,), {"dtype": "float32"}),
            (
                "__call__",
                (sample((3, 4), "int64"),),
                {"out": tuple(np.zeros((3, 4), "int8") for _ in range(u.nout))},
            ),
        ]
        return cases
    cases = [("__call__", (a, b), {}) for a in arrays[::2] for b in like(a)]
    a, b = sample((3, 4), "float64", low=1), sample((3, 4), "float64", low=1)
    cases += [
        (
            "__call__",
            (a, b),
            {"where": MASK, "out": tuple(np.zeros((3, 4)) for _ in range(u.nout))},
        ),
        ("__call__", (a, 2), {"dtype": "float32"}),
        (
            "__call__",
            (sample((3, 4), "int64"), 2),
            {"out": tuple(np.zeros((3, 4), "int8") for _ in range(u.nout))},
        ),
        (
            "__call__",
            (sample((3, 4), "int64"), 2),
            {"out": tuple(np.zeros((3, 4), "int8") for _ in range(u.nout)), "casting": "unsafe"},
        ),
    ]
    if u.nout == 1:
        for x in (
            a,
            sample((3, 4), "int64", low=1),
            sample((0, 3), "float64"),
            sample((5,), "bool"),
        ):
            cases += [
                ("reduce", (x,), {}),
                ("reduce", (x,), {"axis": None}),
                ("reduce", (x,), {"axis": -1, "keepdims": True}),
                ("accumulate", (x,), {}),
                ("accumulate", (x,), {"axis": -1}),
            ]
        cases += [
            ("reduce", (a,), {"where": MASK, "initial": 1.0}),
            ("reduce", (a,), {"dtype": "float32"}),
            ("outer", (sample((3,), "float64", low=1), sample((2,), "int64", low=1)), {}),
            ("reduceat", (sample((6,), "float64", low=1), np.array([0, 2, 5])), {}),
            ("at", (sample((5,), "float64", low=1), INDICES, 2.0), {}),
        ]
    return cases


@pytest.mark.parametrize("name", _ufuncs())
@pytest.mark.parametrize("device", [xp.CPU, xp.DASK], ids=["cpu", "dask"])
def test_every_ufunc_gives_numpys_value(name: str, device: Any) -> None:
    u = getattr(np, name)
    with xp.rank_promotion("allow"):
        for i, (method, args, kwargs) in enumerate(_ufunc_cases(u)):
            call = getattr(u, method)
            want = _outcome(call, _copied(args), _copied(kwargs))
            chunking = CHUNKINGS[i % len(CHUNKINGS)]
            strict_args = _strict(args, device, chunking)
            strict_kwargs = {k: _strict(v, device, chunking) for k, v in kwargs.items()}
            got = _outcome(call, strict_args, strict_kwargs)
            where = f"{method} case {i} ({chunking}): {_show(args)} {_show(kwargs)}"
            _same_outcome(name, where, want, got, device)
            outs = kwargs.get("out")
            if outs is not None and got[0] == "value" and want[0] == "value":
                for w, g in zip(want[1] if isinstance(want[1], tuple) else (want[1],),
                                got[1] if isinstance(got[1], tuple) and got[1][:1] != ("strict",)
                                else (got[1],)):  # fmt: skip
                    _same(name, w, g, device, f"{where}, out")


# --- the table's ways name NumPy's parameters, and DASK stays lazy -------------------------------
def _named_parameters(way: Any) -> list[str]:
    """The parameters a lazy way names, through Unless's branches."""
    from strict_array._backends._numpy_ways import Blocks, Whole, Writes
    from strict_array._numpy_api._table import Unless

    if type(way) is Unless:
        return _named_parameters(way.way) + _named_parameters(way.instead)
    if type(way) is Blocks:
        return [*way.arrays] + ([way.along] if isinstance(way.along, str) else [])
    if type(way) is Whole:
        return list(way.arrays)
    if type(way) is Writes:
        return [way.target, *_named_parameters(way.how)]
    return []


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_every_way_names_numpys_parameters(name: str) -> None:
    import inspect

    func = lookup(name)
    try:
        parameters = set(inspect.signature(func).parameters)
    except ValueError:  # (a builtin without a signature)
        pytest.skip(f"numpy.{name} has no signature")
    named = [p.lstrip("*") for p in _named_parameters(FUNCTIONS[name].lazy)]  # ("*": a list)
    missing = [p for p in named if p not in parameters]
    assert missing == [], f"numpy.{name}{inspect.signature(func)}: its way names {missing}"


@pytest.mark.parametrize(
    "name", [n for n in ROWS if type(FUNCTIONS[n].lazy) not in (Value, Refuse)]
)  # (a result that is not an array, Value, is computed by design; Refuse refuses)
def test_numpy_names_on_dask_compute_nothing(name: str) -> None:
    """DASK answers NumPy's names lazily: no graph runs during the call."""
    from dask.callbacks import Callback

    runs: list[int] = []

    class Runs(Callback):  # type: ignore[misc]
        def _start(self, dsk: Any) -> None:
            runs.append(1)

    func = lookup(name)
    with xp.rank_promotion("allow"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, (args, kwargs) in enumerate(CASES[name]):
            chunking = CHUNKINGS[i % len(CHUNKINGS)]
            strict_args = _strict(args, xp.DASK, chunking)
            strict_kwargs = {k: _strict(v, xp.DASK, chunking) for k, v in kwargs.items()}
            with Runs():
                try:
                    func(*strict_args, **strict_kwargs)
                except Exception:  # (NumPy's errors are tested above)
                    continue
            assert runs == [], f"numpy.{name} case {i} ({chunking}) ran {len(runs)} graph(s)"
