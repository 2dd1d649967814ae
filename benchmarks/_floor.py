"""The floor of any Python-level hook on NumPy: a minimal :class:`numpy.ndarray` subclass
whose hooks only unwrap their arguments, call NumPy and rewrap the result (not a
benchmark itself).

``Floor`` is what ``bench_numpy_mode.py`` times per call beside the NumPy-code mode.
As a pytest plugin (``-p _floor``, with this directory on ``sys.path``), the module
applies that hook to a whole test session, as ``--rank-promotion-numpy`` applies the
mode: NumPy's functions in ``numpy``, ``numpy.linalg`` and ``numpy.fft`` (the modules
whose functions the mode replaces) are replaced by wrappers that call NumPy's function
and rewrap a plain array it returns as a ``Floor``, so that every array they make is
one, and every operation on one goes through its hook. Nothing is checked: what it costs
is what any hook costs before it checks anything, the floor under the mode's cost
(``bench_numpy_suites.py``'s ``floor`` run).
"""

from __future__ import annotations

import functools
import types
from typing import Any

import numpy as np


def _unwrap(value: Any) -> Any:
    if type(value) is Floor:
        return value.view(np.ndarray)
    if type(value) in (tuple, list):
        return type(value)(_unwrap(v) for v in value)
    return value


def _rewrap(value: Any) -> Any:
    if type(value) is np.ndarray:
        return value.view(Floor)
    if type(value) is tuple:
        return tuple(_rewrap(v) for v in value)
    return value


class Floor(np.ndarray):
    """The least a Python-level hook does: unwrap, call NumPy, rewrap."""

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if kwargs:
            kwargs = {k: _unwrap(v) for k, v in kwargs.items()}
        return _rewrap(getattr(ufunc, method)(*_unwrap(inputs), **kwargs))

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        return _rewrap(func._implementation(*_unwrap(args), **kwargs))

    def __setitem__(self, key: Any, value: Any) -> None:
        self.view(np.ndarray)[key] = _unwrap(value)


def _rewrapping(function: Any) -> Any:
    """``function`` whose plain arrays come back as ``Floor`` arrays."""

    @functools.wraps(function)
    def made(*args: Any, **kwargs: Any) -> Any:
        return _rewrap(function(*args, **kwargs))

    return made


def rewrapped(module: Any) -> dict[str, Any]:
    """NumPy's functions in ``module`` (those the mode replaces: functions, builtins and
    NumPy's dispatchers, not classes nor ufuncs), each as a function whose plain arrays
    come back as ``Floor`` arrays, by name."""
    found = {}
    for name in dir(module):
        obj = getattr(module, name)
        if not name.startswith("_") and (
            isinstance(obj, (types.BuiltinFunctionType, types.FunctionType))
            or type(obj).__name__ == "_ArrayFunctionDispatcher"
        ):
            found[name] = _rewrapping(obj)
    return found


#: the modules whose functions the floor replaces, as the mode does
MODULES = (np, np.linalg, np.fft)
#: module attribute -> NumPy's own, while the session runs
_SAVED: dict[tuple[Any, str], Any] = {}


def pytest_load_initial_conftests(early_config: Any, parser: Any, args: Any) -> None:
    # (before the conftest files and the test modules load, as the mode's option)
    for module in MODULES:
        for name, wrapper in rewrapped(module).items():
            _SAVED[(module, name)] = getattr(module, name)
            setattr(module, name, wrapper)


def pytest_unconfigure(config: Any) -> None:
    for (module, name), obj in _SAVED.items():
        setattr(module, name, obj)
    _SAVED.clear()
