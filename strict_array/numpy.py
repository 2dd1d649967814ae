"""NumPy code, checked: strict_array's rank rules for plain NumPy, without a rewrite.

:class:`CheckedArray` is an :class:`numpy.ndarray` subclass whose ufunc calls
(operators included), NumPy functions and ``x[key] = value`` follow the rank rules of
the contract (sections 1, 2, 4 and 7), by the rows of the one table of NumPy names and
its one interpreter (:mod:`strict_array._numpy_api`): operands of different ranks are a
rank promotion, which the rank-promotion mode and policy decide (raise, warn, allow or
audit, per package of the calling code). Python scalars and 0-d arrays broadcast freely;
equal ranks broadcast their size-1 axes.

The mode only checks. After its checks NumPy computes as it does for any subclass (its
ufunc on the arrays' plain views, its function's own implementation through
``super().__array_function__``), so that values, dtypes, ``out=`` (the arrays given are
the arrays returned), identities (``np.asarray(x) is x``), exception types and
``isinstance`` against NumPy's classes are NumPy's own; a new array owns its data, as
NumPy's does; NumPy's warnings are reported at the calling line (NumPy's own code runs
in a frame that is the caller's to :mod:`warnings`).

:func:`checking` (and the pytest option ``--rank-promotion-numpy``) makes every array
that NumPy makes checked, from whatever input, so that a whole code base is checked with
no change to it.

>>> import numpy as np
>>> import strict_array as xp
>>> import strict_array.numpy as snp
>>> x = snp.asarray(np.ones((3, 1)))
>>> x - np.ones(3)
Traceback (most recent call last):
    ...
strict_array.RankPromotionError: numpy.subtract: operands of shapes (3, 1) and (3,) ...
>>> with xp.rank_promotion("allow"):
...     (x - np.ones(3)).shape
(3, 3)
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import sys
import threading
import types
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any

import numpy as np

from ._numpy_api import _rules
from ._numpy_api._dispatch import row_of
from ._numpy_api._table import GENERATORS
from ._typing import PY_SCALARS

__all__ = [
    "EXITS", "CheckedArray", "CheckedGenerator", "CheckedRandomState", "asarray", "checking",
    "is_checking", "unchecked",
]  # fmt: skip

#: set while NumPy's own implementation of a checked call runs: NumPy's internals
#: broadcast as they need (user callbacks it calls are checked again)
_inside: ContextVar[bool] = ContextVar("strict_array_inside_numpy", default=False)


class CheckedArray(np.ndarray):
    """A NumPy array whose operations follow strict_array's rank rules.

    Make one with :func:`asarray` (a view, no copy) or let :func:`checking` make
    NumPy's own functions return them. Every value is NumPy's: the checks only decide
    whether an operation between arrays of different ranks may happen.
    """

    # NumPy's, to the libraries that pick an array's backend from the top-level module of
    # its type (opt_einsum, autoray: "numpy.…"): a checked array is a NumPy array to them.
    # Pickles name _restore instead of the class (see __reduce__).
    __module__ = "numpy"

    def __reduce__(self) -> tuple[Any, tuple[np.ndarray]]:
        return (_restore, (self.view(np.ndarray),))

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        inside = _inside.get()
        if method == "__call__" and not kwargs and not inside and ufunc.nin == 2 and \
                ufunc.signature is not None:  # fmt: skip
            a, b = inputs  # matmul, vecdot, ...: stacks of one rank have nothing to decide
            if type(a) in _ARRAYS and type(b) in _ARRAYS and a.ndim == b.ndim >= 2:
                return _owned(_at_caller(ufunc, (a.view(np.ndarray), b.view(np.ndarray)), {}))
        if method == "__call__" and not kwargs and not inside and ufunc.signature is None:
            # the common case: operands of one rank, or scalars, have nothing to decide
            plain, rank = [], -1
            for v in inputs:
                t = type(v)
                if t is CheckedArray:
                    n = v.ndim
                    v = v.view(np.ndarray)
                elif t is np.ndarray:
                    n = v.ndim
                elif t in PY_SCALARS:
                    n = 0
                else:
                    break
                if n and n != rank:
                    if rank >= 0:
                        break
                    rank = n
                plain.append(v)
            else:
                result = _at_caller(ufunc, plain, {})
                if type(result) is tuple:
                    return tuple(_owned(r) for r in result)
                return _owned(result)
        out = kwargs.get("out")
        if not inside:
            for v in (*inputs, *(out if isinstance(out, tuple) else ())):
                if _foreign(v):
                    return NotImplemented
            _rules.check_ufunc(ufunc, method, inputs, kwargs)
        # NumPy's ufunc on the plain arrays, as for any subclass (ndarray.__array_ufunc__)
        views: dict[int, Any] = {}
        plain = _plain(inputs, views)
        kwargs = {k: _plain(v, views) for k, v in kwargs.items()}
        call = functools.partial(super().__array_ufunc__, ufunc, method)  # type: ignore[arg-type]
        results = call(*plain, **kwargs) if inside else _at_caller(call, plain, kwargs)
        if results is NotImplemented or method == "at":
            return results
        return _checked_results(results, views, owned=not inside)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        if any(not issubclass(t, np.ndarray) for t in types):
            return NotImplemented  # another array type (a strict_array.Array, ...) decides
        return _checked_call(func, row_of(func), args, kwargs)

    def __setitem__(self, key: Any, value: Any) -> None:
        if not _inside.get() and not _a_record(self.dtype, value):
            _rules.check_setitem("numpy.ndarray.__setitem__", self.shape, key, value)
        super().__setitem__(key, value)


_ARRAYS = (CheckedArray, np.ndarray)


class _CheckedMemmap(CheckedArray, np.memmap):
    """A checked view of a :class:`numpy.memmap` (``np.load(path, mmap_mode="r")``):
    still a memmap, to ``isinstance``."""

    __module__ = "numpy"


def _a_record(dtype: np.dtype, value: Any) -> bool:
    """A value NumPy stores as one element, not an array: a tuple into a structured
    array (a record), anything but an array into an object array (a list is an object)."""
    if dtype.names is not None and isinstance(value, tuple):
        return True
    return dtype.kind == "O" and not isinstance(value, np.ndarray)


def _restore(data: np.ndarray) -> CheckedArray:
    """Unpickle a checked array (its pickle holds the plain array)."""
    return _owned(data)


def asarray(a: Any, dtype: Any = None) -> CheckedArray:
    """``a`` as a :class:`CheckedArray` (a view of a NumPy array, no copy)."""
    return np.asarray(a, dtype=dtype).view(CheckedArray)


def unchecked(a: Any) -> Any:
    """The plain NumPy view of a checked array (anything else as it is)."""
    return a.view(np.ndarray) if isinstance(a, CheckedArray) else a


# --- what an operand is, what a result becomes ------------------------------------------------
def _foreign(value: Any) -> bool:
    """Another library's array, which decides for itself (NEP 13)."""
    if isinstance(value, np.ndarray) or type(value) in PY_SCALARS or value is None:
        return False
    return hasattr(value, "__array_ufunc__") and not isinstance(value, np.generic)


def _owned(value: Any) -> Any:
    """A plain array NumPy has just made, as a checked array that owns its data as
    NumPy's did (its layout kept); a checked array, a scalar or anything else as it is."""
    if type(value) is np.ndarray:
        if value.base is None and value.flags.owndata:
            flags = value.flags
            if not (flags.c_contiguous or flags.f_contiguous):
                return value.view(CheckedArray).copy(order="K")
            owned = np.ndarray.__new__(CheckedArray, value.shape, value.dtype,
                                       order="C" if flags.c_contiguous else "F")  # fmt: skip
            owned.view(np.ndarray)[...] = value  # (no dispatch: the plain view is written)
            return owned
        return value.view(CheckedArray)
    if type(value) is np.memmap:
        return value.view(_CheckedMemmap)
    return value


def _plain(value: Any, views: dict[int, Any]) -> Any:
    """``value`` with each checked array in it (lists, tuples and dicts too) as its plain
    view, remembered in ``views`` (by the view's id) to give the checked array back; a
    container holding none is that very object (``shuffle`` of a list shuffles it)."""
    if isinstance(value, CheckedArray):
        view = value.view(np.ndarray)
        views[id(view)] = value
        views.setdefault(-1, []).append(view)  # (the views kept alive while ids are used)
        return view
    t = type(value)
    if (t is list or t is tuple) and _holds_checked(value):
        return t(_plain(v, views) for v in value)
    if t is dict and _holds_checked(value):
        return {k: _plain(v, views) for k, v in value.items()}
    return value


def _checked_results(value: Any, views: dict[int, Any], owned: bool = True,
                     given: tuple[Any, ...] = ()) -> Any:  # fmt: skip
    """NumPy's result with every plain array in it checked: a checked argument NumPy gives
    back (its plain view, or ``out=``) is that very checked array, and so is a plain
    argument it gives back (in ``given``); a new array is checked and, where ``owned``,
    owns its data as NumPy's did; named tuples and lists item by item."""
    t = type(value)
    if t is np.ndarray or t is np.memmap:
        checked = views.get(id(value))
        if checked is not None:
            return checked
        if any(value is g for g in given):
            return value
        return _owned(value) if owned else value.view(CheckedArray)
    if isinstance(value, tuple):
        items = [_checked_results(v, views, owned, given) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    if t is list:
        return [_checked_results(v, views, owned, given) for v in value]
    return value


def _checked_callback(function: Callable[..., Any]) -> Callable[..., Any]:
    """A user function NumPy calls (``apply_along_axis``'s ``func1d``): checked inside,
    its NumPy arguments checked arrays."""

    @functools.wraps(function)
    def checked(*args: Any, **kwargs: Any) -> Any:
        token = _inside.set(False)
        try:
            args = tuple(v.view(CheckedArray) if type(v) is np.ndarray else v for v in args)
            return function(*args, **kwargs)
        finally:
            _inside.reset(token)

    return checked


# --- NumPy's warnings at the caller's line ---------------------------------------------------
#: the module of this file: its frames are not the caller
_THIS = __name__
#: one code object per call site: ``_r = _f(*_a, **_k)`` with the site's file and line
_TRAMPOLINES: dict[tuple[str, int], types.CodeType] = {}
_TEMPLATE = compile("__tracebackhide__ = True\n_r = _f(*_a, **_k)", "<strict_array>", "exec")


def _at_caller(call: Callable[..., Any], args: Any, kwargs: dict[str, Any]) -> Any:
    """``call(*args, **kwargs)`` in a frame that :mod:`warnings` takes for the caller's:
    its globals, file and line. NumPy warns with ``stacklevel`` counted from its own
    frame (``divide by zero`` at level 1, from its functions at level 2); without this,
    that frame would be this module's, and the warning's location, its once-per-line
    registry and its module filters strict_array's."""
    frame = sys._getframe(1)
    while frame.f_globals.get("__name__") == _THIS:
        back = frame.f_back
        if back is None:
            break
        frame = back
    key = (frame.f_code.co_filename, frame.f_lineno)
    code = _TRAMPOLINES.get(key)
    if code is None:
        if len(_TRAMPOLINES) > 4096:
            _TRAMPOLINES.clear()
        code = _TRAMPOLINES[key] = _TEMPLATE.replace(
            co_filename=key[0], co_firstlineno=max(key[1] - 1, 1), co_name="<numpy>"
        )
    scope = {"_f": call, "_a": args, "_k": kwargs}
    exec(code, frame.f_globals, scope)
    return scope["_r"]


# --- switching it on for a whole process ---------------------------------------------------------
class _Patched:
    """A NumPy function as the module attribute while :func:`checking` is on: the arrays it
    makes from plain inputs come back checked, after the checks of its row.

    A callable object, not a function: bound to a class (``class T: array = np.array``)
    it stays NumPy's function, as a builtin does. Its name, module, documentation and
    signature are NumPy's function's; pickles find NumPy's function by that name.
    """

    __slots__ = ("__wrapped__", "_dispatched", "_row")

    def __init__(self, function: Any) -> None:
        self.__wrapped__ = function
        self._row = row_of(function)
        self._dispatched = hasattr(function, "_implementation")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        function = self.__wrapped__
        if _inside.get() or (self._dispatched and _holds_foreign(args, kwargs)):
            return function(*args, **kwargs)  # NumPy's internals, or another array type's
        # (a checked array's call: what its __array_function__ does, without NumPy's dispatch)
        return _checked_call(function, self._row, args, kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__wrapped__, name)

    def __repr__(self) -> str:
        return repr(self.__wrapped__)

    def __reduce__(self) -> str:
        return self.__wrapped__.__qualname__  # type: ignore[no-any-return]

    @property  # type: ignore[misc]
    def __doc__(self) -> str | None:  # type: ignore[override]
        return self.__wrapped__.__doc__

    @property  # type: ignore[misc]
    def __module__(self) -> str:  # type: ignore[override]
        return self.__wrapped__.__module__  # type: ignore[no-any-return]

    @property
    def __signature__(self) -> inspect.Signature:
        return inspect.signature(self.__wrapped__)


def _checked_call(function: Any, row: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """A NumPy function's call, checked by its row, computed by NumPy's own function on
    the plain arrays, as for any NumPy array (its internals broadcast as they need, its
    scalars are scalars, ``out=`` its own), at the caller's line; the arrays it makes
    come back checked, and a checked argument it gives back (its view, ``out=``) is that
    very argument."""
    views: dict[int, Any] = {}
    plain_args, plain_kwargs = _plain(args, views), _plain(kwargs, views)
    if _inside.get():  # (NumPy's internals, given a checked array by a callback)
        return function(*plain_args, **plain_kwargs)
    if row is not None and row.rules:
        _rules.check(f"numpy.{row.numpy}", row.rules, function, args, kwargs)
        plain_args, plain_kwargs = _rules.with_callbacks(
            row.rules, function, plain_args, plain_kwargs, _checked_callback
        )
    token = _inside.set(True)
    try:
        result = _at_caller(function, plain_args, plain_kwargs)
    finally:
        _inside.reset(token)
    return _checked_results(result, views, given=(*args, *kwargs.values()))


def _holds_foreign(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """Whether another library's array is among a call's arguments (its own
    ``__array_function__`` decides, through NumPy's dispatch)."""
    for v in (*args, *kwargs.values()):
        if type(v) in (list, tuple):
            if any(_foreign_array(item) for item in v):
                return True
        elif _foreign_array(v):
            return True
    return False


def _foreign_array(value: Any) -> bool:
    return not isinstance(value, np.ndarray) and hasattr(type(value), "__array_function__")


def _holds_checked(value: Any) -> bool:
    """Whether a checked array is in ``value`` (lists, tuples and dicts, at any depth)."""
    t = type(value)
    if t is list or t is tuple:
        return any(_holds_checked(v) for v in value)
    if t is dict:
        return any(_holds_checked(v) for v in value.values())
    return isinstance(value, CheckedArray)


class _PatchedIndexer:
    """``np.ogrid``, ``np.mgrid``, ``np.r_``, ``np.c_`` while :func:`checking` is on: what
    they make comes back checked."""

    __slots__ = ("__wrapped__",)

    def __init__(self, indexer: Any) -> None:
        self.__wrapped__ = indexer

    def __getitem__(self, key: Any) -> Any:
        return _checked_results(self.__wrapped__[key], {})

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__wrapped__, name)

    def __len__(self) -> int:
        return len(self.__wrapped__)

    def __repr__(self) -> str:
        return repr(self.__wrapped__)


# --- random generators ---------------------------------------------------------------------------
class _SameClass(type):
    """The metaclass of a checked generator class: NumPy's own generators are instances
    of it too, so that ``isinstance(np.random.mtrand._rand, np.random.RandomState)``
    holds while the checked class stands in NumPy's module."""

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, cls.__mro__[2])

    def __subclasscheck__(cls, sub: type) -> bool:
        return issubclass(sub, cls.__mro__[2])


class _CheckedMethods:
    """A generator's methods, checked by the table's rows (a distribution's parameters
    broadcast together and against ``size``), NumPy's own code running inside, their
    arrays returned checked."""

    _prefix = ""

    def __getattribute__(self, name: str) -> Any:
        attr = super().__getattribute__(name)
        if name.startswith("_") or not callable(attr):
            return attr
        row = GENERATORS.get(f"{type(self)._prefix}.{name}")
        return _checked_method(attr, row)


class _CheckedMethod:
    """A generator's method (or NumPy's legacy random function), checked by its row: a
    callable object, not a function, so that stored on a class it is not bound again
    (``self.rfunc = rng.integers``), as NumPy's own methods are not."""

    __slots__ = ("__wrapped__", "_row")

    def __init__(self, method: Callable[..., Any], row: Any) -> None:
        self.__wrapped__ = method
        self._row = row

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        method = self.__wrapped__
        if _inside.get():
            return method(*args, **kwargs)
        row = self._row
        if row is not None and row.rules:
            unbound = getattr(type(method.__self__), method.__name__)  # type: ignore[attr-defined]
            _rules.check(f"numpy.{row.numpy}", row.rules, unbound, (None, *args), kwargs)
        views: dict[int, Any] = {}
        token = _inside.set(True)
        try:
            result = _at_caller(method, _plain(args, views), _plain(kwargs, views))
        finally:
            _inside.reset(token)
        return _checked_results(result, views, given=(*args, *kwargs.values()))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__wrapped__, name)

    def __repr__(self) -> str:
        return repr(self.__wrapped__)

    @property  # type: ignore[misc]
    def __doc__(self) -> str | None:  # type: ignore[override]
        return self.__wrapped__.__doc__


def _checked_method(method: Callable[..., Any], row: Any) -> _CheckedMethod:
    return _CheckedMethod(method, row)


def _rebuild(ctor: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    """Unpickle a generator: NumPy's own, checked while :func:`checking` is on."""
    made = ctor(*args)
    checked = _CHECKED_CLASSES.get(type(made))
    if checked is None or not is_checking():
        return made
    return checked(made._bit_generator if checked is CheckedRandomState else made.bit_generator)


#: NumPy's own generator classes -> their checked classes (NumPy's module names stand for
#: the checked ones while checking() is on)
_CHECKED_CLASSES: dict[Any, Any] = {}


class CheckedGenerator(_CheckedMethods, np.random.Generator, metaclass=_SameClass):
    """A :class:`numpy.random.Generator` whose arrays are checked (same bits, same
    values as the generator it stands for). NumPy's name to ``repr`` and to
    ``isinstance``; pickled, it comes back checked while :func:`checking` is on."""

    __module__ = "strict_array.numpy"
    _prefix = "random.Generator"

    def __reduce__(self) -> Any:
        ctor, args, *state = super().__reduce__()  # type: ignore[misc]
        return (_rebuild, (ctor, args), *state)


class CheckedRandomState(_CheckedMethods, np.random.RandomState, metaclass=_SameClass):
    """A :class:`numpy.random.RandomState` whose arrays are checked (same values)."""

    __module__ = "strict_array.numpy"
    _prefix = "random.RandomState"

    def __reduce__(self) -> Any:
        ctor, args, *state = super().__reduce__()  # type: ignore[misc]
        return (_rebuild, (ctor, args), *state)


CheckedGenerator.__name__ = "Generator"  # (NumPy's repr and test ids read the name)
CheckedRandomState.__name__ = "RandomState"
_CHECKED_CLASSES.update({np.random.Generator: CheckedGenerator,
                         np.random.RandomState: CheckedRandomState})  # fmt: skip


_numpy_default_rng = np.random.default_rng


def _default_rng(seed: Any = None) -> CheckedGenerator:
    if isinstance(seed, np.random.Generator):
        return seed if type(seed) is CheckedGenerator else CheckedGenerator(seed.bit_generator)
    return CheckedGenerator(_numpy_default_rng(seed).bit_generator)


# --- what checking() replaces -----------------------------------------------------------------------
#: NumPy entry points with no hook, left as they are (the docs' limits list them): they
#: read arrays through ``__array__`` or make views by strides
EXITS = frozenset({
    "nditer", "broadcast", "nested_iters", "as_strided", "frompyfunc", "vectorize",
    "errstate", "printoptions", "set_printoptions", "get_printoptions", "seterr", "geterr",
    "seterrcall", "geterrcall", "setbufsize", "getbufsize", "show_config", "show_runtime",
    "info", "test", "get_include", "iterable", "isscalar", "isfortran", "typename",
    "issubdtype", "isdtype", "promote_types", "mintypecode", "base_repr", "binary_repr",
    "format_float_positional", "format_float_scientific", "datetime_data", "broadcast_shapes",
    "add_docstring", "add_newdoc", "add_newdoc_ufunc", "deprecate", "byte_bounds",
    "get_array_wrap", "from_dlpack", "asmatrix", "bmat", "fromregex",
})  # fmt: skip

#: module attribute -> what stood there, while checking() is on
_SAVED: dict[tuple[Any, str], Any] = {}
_LOCK = threading.Lock()
_DEPTH = [0]


def _replacements() -> dict[tuple[Any, str], Any]:
    """Every NumPy function, ufunc and indexer that makes arrays, and the random
    generators, with what stands in for each while checking() is on."""
    found: dict[tuple[Any, str], Any] = {}
    for module in (np, np.linalg, np.fft):
        for name in dir(module):
            if name.startswith("_") or name in EXITS:
                continue
            obj = getattr(module, name)
            # (never a ufunc: C extensions read NumPy's ufuncs from its module as NumPy's own
            # struct, numpy._core._rational_tests registering its loops on np.add)
            if (
                isinstance(obj, (types.BuiltinFunctionType, types.FunctionType))
                or type(obj).__name__ == "_ArrayFunctionDispatcher"
            ):
                found[(module, name)] = _Patched(obj)
    for name in ("ogrid", "mgrid", "r_", "c_"):
        found[(np, name)] = _PatchedIndexer(getattr(np, name))
    found[(np.random, "default_rng")] = _default_rng
    for module in (np.random, np.random.mtrand):  # (emcee's spelling: mtrand)
        found[(module, "RandomState")] = CheckedRandomState
    found[(np.random, "Generator")] = CheckedGenerator
    legacy = np.random.mtrand._rand
    for name in dir(np.random):
        obj = getattr(np.random, name)
        if getattr(obj, "__self__", None) is legacy and not name.startswith("_"):
            found[(np.random, name)] = _checked_method(
                obj, GENERATORS.get(f"random.RandomState.{name}")
            )
    return found


def is_checking() -> bool:
    """Whether :func:`checking` is in force."""
    return _DEPTH[0] > 0


@contextlib.contextmanager
def checking() -> Iterator[None]:
    """Make every array NumPy makes checked, for a whole process.

    Inside the block, NumPy's functions (``np.array``, ``np.zeros``, ``np.vstack`` of
    lists, ``np.fromiter``, ``np.load``'s memmap, ...), the
    index tricks (``np.ogrid``, ``np.r_``), ``np.random.default_rng()``'s generators,
    ``np.random.Generator`` and ``np.random.RandomState`` and NumPy's legacy random
    functions return :class:`CheckedArray`, and check their own arguments by the same
    rules, so that code that calls them through ``np.`` (or imported them by name after
    the block began) is checked with no change to it; the rank-promotion mode and policy
    decide each promotion, by the package of the calling code. An argument NumPy gives
    back as it is stays that very object (``np.asarray(x) is x``).

    The switch is process-wide (NumPy's module attributes are replaced), not local to a
    thread, and nests. The pytest option ``--rank-promotion-numpy`` holds it for a test
    session.
    """
    with _LOCK:
        if _DEPTH[0] == 0:
            for (module, name), replacement in _replacements().items():
                _SAVED[(module, name)] = getattr(module, name)
                setattr(module, name, replacement)
        _DEPTH[0] += 1
    try:
        yield
    finally:
        with _LOCK:
            _DEPTH[0] -= 1
            if _DEPTH[0] == 0:
                for (module, name), original in _SAVED.items():
                    setattr(module, name, original)
                _SAVED.clear()
