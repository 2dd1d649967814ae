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
import copy
import copyreg
import functools
import inspect
import sys
import threading
import types
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any, SupportsIndex, cast

import numpy as np

from ._numpy_api import CALLING_ASSERTIONS, UNHOOKED, Row, _rules, row_of
from ._numpy_api._table import GENERATORS, INDEXERS
from ._typing import PY_SCALARS

__all__ = [
    "EXITS", "CheckedArray", "CheckedGenerator", "CheckedRandomState", "asarray", "checking",
    "is_checking", "unchecked",
]  # fmt: skip

#: set while NumPy's own implementation of a checked call runs: NumPy's internals
#: broadcast as they need (user callbacks it calls are checked again)
_inside: ContextVar[bool] = ContextVar("strict_array_inside_numpy", default=False)


class _NumPyNamed(type):
    """The metaclass of the checked array classes: each stands for one of NumPy's
    classes (``_stands_for``), under whose name and module it reports itself, and as
    which it is pickled (copyreg, below), so that a pickle of anything made under the
    mode (a masked array names its data's class) loads where strict_array is not."""

    _stands_for: type


def _pickled_class(cls: _NumPyNamed) -> tuple[Any, tuple[type]]:
    # (copy.copy of a class is that class: a reduction NumPy's pickles can always load)
    return (copy.copy, (cls._stands_for,))


copyreg.pickle(_NumPyNamed, _pickled_class)  # type: ignore[arg-type]


class CheckedArray(np.ndarray, metaclass=_NumPyNamed):
    """A NumPy array whose operations follow strict_array's rank rules.

    Make one with :func:`asarray` (a view, no copy) or let :func:`checking` make
    NumPy's own functions return them. Every value is NumPy's: the checks only decide
    whether an operation between arrays of different ranks may happen.

    It reports itself as NumPy's (``numpy.ndarray`` to ``repr(type(x))``, ``array(...)``
    to ``repr(x)``, ``masked_array(...)`` inside a masked array), and pickles as a plain
    NumPy array: a pickle loads where strict_array is not, as a plain array (NumPy's
    unpickling functions are not replaced: NumPy's C code pickles plain arrays by them).
    """

    # NumPy's, to the libraries that pick an array's backend from the top-level module of
    # its type (opt_einsum, autoray: "numpy.…"), to reprs (NumPy's array printing and
    # np.ma's read the class's __name__: "array(", "masked_array(") and to pickles.
    __module__ = "numpy"
    _stands_for: type = np.ndarray

    def __reduce_ex__(self, protocol: SupportsIndex) -> Any:
        # NumPy's own pickle of the plain array (protocol 5 without a copy)
        return self.view(type(self)._stands_for).__reduce_ex__(protocol)

    def __reduce__(self) -> Any:
        return self.view(type(self)._stands_for).__reduce__()

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True  # (pytest: a failure is at the caller's line)
        if type(ufunc) is not np.ufunc:  # (a direct call with other arguments: NumPy's error)
            return super().__array_ufunc__(ufunc, method, *inputs, **kwargs)
        inside = _inside.get()
        if method == "__call__" and not kwargs and not inside:
            if ufunc.signature is None:
                # the common case: operands of one rank, or scalars, have nothing to decide
                if len(inputs) == 1 and type(inputs[0]) is CheckedArray:
                    return _new(ufunc, (inputs[0].view(np.ndarray),))
                if len(inputs) == 2:  # (the pair, without the loop below)
                    a, b = inputs
                    if (
                        type(a) is CheckedArray
                        and type(b) is CheckedArray
                        and (a.ndim == b.ndim or not a.ndim or not b.ndim)
                    ):
                        return _new(ufunc, (a.view(np.ndarray), b.view(np.ndarray)))
                plain, rank = [], -1
                for v in inputs:
                    t = type(v)
                    if t is CheckedArray:
                        n = v.ndim
                        v = v.view(np.ndarray)
                    elif t is np.ndarray:
                        n = v.ndim
                    elif t in _SCALARS:
                        n = 0
                    else:
                        break
                    if n and n != rank:
                        if rank >= 0:
                            break
                        rank = n
                    plain.append(v)
                else:
                    return _new(ufunc, plain)
            elif ufunc.nin == 2:
                a, b = inputs  # matmul, vecdot, ...: loop axes of one rank have nothing to
                # decide, nor matmul's matrices and vectors (no loop axes)
                cores = _rules.gufunc_cores(ufunc.signature)
                if (
                    type(a) in _ARRAYS
                    and type(b) in _ARRAYS
                    and (
                        a.ndim <= 2 and b.ndim <= 2 and ufunc is np.matmul
                        if cores is None
                        else a.ndim - cores[0] == b.ndim - cores[1] >= 0
                    )
                ):
                    return _new(ufunc, (a.view(np.ndarray), b.view(np.ndarray)))
        elif method == "__call__" and not inside and len(inputs) == 2 and len(kwargs) == 1:
            # an in-place operator (x += y: out=(x,)) with nothing to decide: an operand of
            # x's rank or a scalar, written into x, given back (NumPy's out= is that array)
            a, b = inputs
            out = kwargs.get("out")
            tb = type(b)
            if (
                type(out) is tuple
                and len(out) == 1
                and out[0] is a
                and type(a) is CheckedArray
                and ufunc.signature is None
                and (
                    tb in _SCALARS
                    or ((tb is CheckedArray or tb is np.ndarray) and b.ndim == a.ndim)
                )
            ):
                p = a.view(np.ndarray)
                b = b.view(np.ndarray) if tb is CheckedArray else b
                _trampoline(sys._getframe(1))(ufunc, (p, b), {"out": (p,)})
                return a
        if (
            method == "reduce"
            and not inside
            and len(inputs) == 1
            and type(inputs[0]) is CheckedArray
            and kwargs.get("out") is None
            and kwargs.get("where", True) is True
        ):
            # a reduction with nothing to decide (no where= mask, no out=): NumPy's own
            kwargs.pop("out", None)
            return _owned(_at_caller(ufunc.reduce, (inputs[0].view(np.ndarray),), kwargs))
        out = kwargs.get("out")
        others = (*(out if isinstance(out, tuple) else ()), kwargs.get("where"))
        if not inside:
            for v in (*inputs, *others):
                if _foreign(v):
                    return NotImplemented
            _rules.check_ufunc(ufunc, method, inputs, kwargs)
        # NumPy's ufunc on the plain arrays, as for any subclass (ndarray.__array_ufunc__);
        # where another subclass overrides it too, NumPy dispatches to it, as without us
        views: dict[int, Any] = {}
        plain = _plain(inputs, views)
        kwargs = _plain(kwargs, views)
        overriding = [v for v in (*plain, *_plain(others, views)) if _overrides(v)]
        if overriding:  # another subclass's own: as NumPy would ask it, our arrays plain
            call: Any = functools.partial(_ask_others, overriding, ufunc, method)
        else:  # (ndarray.__array_ufunc__ of plain arrays: the ufunc's method itself)
            call = getattr(ufunc, method)
        results = call(*plain, **kwargs) if inside else _at_caller(call, plain, kwargs)
        if results is NotImplemented or method == "at":
            return results
        return _checked_results(results, views, owned=not inside)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        __tracebackhide__ = True  # (pytest: a failure is at the caller's line)
        for t in types:  # (a loop: a generator expression costs more for these few)
            if not issubclass(t, np.ndarray):
                return NotImplemented  # another array type (a strict_array.Array, ...) decides
        return _checked_call(func, row_of(func), args, kwargs)

    def __setitem__(self, key: Any, value: Any) -> None:
        __tracebackhide__ = True  # (pytest: a failure is at the caller's line)
        t = type(value)
        if t in _SCALARS:
            pass  # (the common values: a scalar fills any region)
        elif (t is CheckedArray or t is np.ndarray) and (
            not value.ndim or (type(key) is int and value.ndim == self.ndim - 1)
        ):
            pass  # (a 0-d value, or a row into x[i]: nothing to decide)
        elif not _inside.get() and not _a_record(self.dtype, value):
            _rules.check_setitem("numpy.ndarray.__setitem__", self.shape, key, value)
        _SETITEM(self, key, value)


_ARRAYS = (CheckedArray, np.ndarray)
_NUMBERS = frozenset("biufc")
_SETITEM = np.ndarray.__setitem__
#: Python's numbers and NumPy's number scalars: 0-d operands, which broadcast freely and
#: are never another library's array (``x == np.float64(2.0)``, ``x[i] = np.intp(3)``)
_SCALARS = PY_SCALARS | frozenset(
    t for t in set(np.sctypeDict.values()) if np.dtype(t).kind in "biufc"
)
#: the operands that are never another library's array (NEP 13): no need to ask
_PLAIN_OPERANDS = frozenset({CheckedArray, np.ndarray, type(None), *_SCALARS})


# --- Python's operator protocol, as for a plain ndarray ------------------------------------------
def _binary_operator(name: str, reflected: str, ufunc: np.ufunc | None) -> Callable[..., Any]:
    """``CheckedArray.<name>``: NumPy's operator, after the reflected operator of another
    ndarray subclass that has its own, as Python runs it first beside a plain ndarray
    (a subclass of ndarray is not a subclass of CheckedArray, so Python would not):
    ``np.array([[1, 2]]) * np.matrix([[1], [2]])`` is ``matrix.__rmul__``'s ``[[5]]``,
    ``nd / masked`` is np.ma's. With nothing to decide (an operand of the same rank, a
    Python scalar), NumPy's ``ufunc`` on the plain arrays at once: what NumPy's operator
    does, without its way through ``__array_ufunc__``."""
    numpys = getattr(np.ndarray, name)
    base = getattr(np.ndarray, reflected)
    # (== and != are their ufuncs for numbers only: voids, records, strings and objects
    # have NumPy's own comparison, or its fallback where the ufunc has no loop)
    comparison = name in ("__eq__", "__ne__")

    def operator(self: CheckedArray, other: Any, *mod: Any) -> Any:
        __tracebackhide__ = True  # (pytest: a failure is at the caller's line)
        t = type(other)
        fast = not _inside.get()
        if fast and comparison:
            fast = self.dtype.kind in _NUMBERS and (
                t in _SCALARS
                or ((t is CheckedArray or t is np.ndarray) and other.dtype.kind in _NUMBERS)
            )
        if fast and ufunc is not None:
            if t is CheckedArray:
                if other.ndim == self.ndim:
                    return _new(ufunc, (self.view(np.ndarray), other.view(np.ndarray)))
            elif t in _SCALARS or (t is np.ndarray and other.ndim == self.ndim):
                return _new(ufunc, (self.view(np.ndarray), other))
        if t not in _PLAIN_OPERANDS and isinstance(other, np.ndarray) and \
                not isinstance(other, CheckedArray):  # fmt: skip
            theirs = getattr(t, reflected, base)
            if theirs is not base:
                value = theirs(other, self)
                if value is not NotImplemented:
                    return value
        return numpys(self, other, *mod)

    operator.__name__ = operator.__qualname__ = name
    return operator


#: Python's binary operators and their reflections (a comparison's is its mirror)
_REFLECTED = {
    "__add__": "__radd__", "__sub__": "__rsub__", "__mul__": "__rmul__",
    "__matmul__": "__rmatmul__", "__truediv__": "__rtruediv__",
    "__floordiv__": "__rfloordiv__", "__mod__": "__rmod__", "__divmod__": "__rdivmod__",
    "__pow__": "__rpow__", "__lshift__": "__rlshift__", "__rshift__": "__rrshift__",
    "__and__": "__rand__", "__xor__": "__rxor__", "__or__": "__ror__",
    "__eq__": "__eq__", "__ne__": "__ne__", "__lt__": "__gt__", "__le__": "__ge__",
    "__gt__": "__lt__", "__ge__": "__le__",
}  # fmt: skip
#: the operators that are their ufunc's call (``**`` is not: NumPy squares for ``** 2``);
#: their operands of one rank have nothing to decide, matmul's included (one batch rank)
_UFUNCS = {
    "__add__": np.add, "__sub__": np.subtract, "__mul__": np.multiply,
    "__truediv__": np.true_divide, "__floordiv__": np.floor_divide, "__mod__": np.remainder,
    "__lshift__": np.left_shift, "__rshift__": np.right_shift, "__and__": np.bitwise_and,
    "__xor__": np.bitwise_xor, "__or__": np.bitwise_or, "__eq__": np.equal,
    "__ne__": np.not_equal, "__lt__": np.less, "__le__": np.less_equal, "__gt__": np.greater,
    "__ge__": np.greater_equal, "__matmul__": np.matmul,  # (operands of one rank: one batch)
}  # fmt: skip
for _name, _reflected in _REFLECTED.items():
    setattr(CheckedArray, _name, _binary_operator(_name, _reflected, _UFUNCS.get(_name)))
CheckedArray.__hash__ = None  # type: ignore[assignment]  # (as ndarray's: unhashable)


class _CheckedMemmap(CheckedArray, np.memmap):
    """A checked view of a :class:`numpy.memmap` (``np.load(path, mmap_mode="r")``):
    still a memmap, to ``isinstance``."""

    __module__ = "numpy"
    _stands_for = np.memmap


# NumPy's names (see _NumPyNamed): what NumPy prints, a name that resolves in its module
CheckedArray.__name__, CheckedArray.__qualname__ = "array", "ndarray"
_CheckedMemmap.__name__ = _CheckedMemmap.__qualname__ = "memmap"


def _a_record(dtype: np.dtype, value: Any) -> bool:
    """A value NumPy stores as one element, not an array: a tuple into a structured
    array (a record), anything but an array into an object array (a list is an object)."""
    if dtype.names is not None and isinstance(value, tuple):
        return True
    return dtype.kind == "O" and not isinstance(value, np.ndarray)


def asarray(a: Any, dtype: Any = None) -> CheckedArray:
    """``a`` as a :class:`CheckedArray` (a view of a NumPy array, no copy)."""
    return np.asarray(a, dtype=dtype).view(CheckedArray)


def unchecked(a: Any) -> Any:
    """The plain NumPy view of a checked array (anything else as it is)."""
    return a.view(np.ndarray) if isinstance(a, CheckedArray) else a


# --- what an operand is, what a result becomes ------------------------------------------------
def _ask_others(overriding: list[Any], ufunc: np.ufunc, method: str, *inputs: Any,
                **kwargs: Any) -> Any:  # fmt: skip
    """NumPy's ufunc dispatch among the other overriding arguments (subclasses before
    their bases, then left to right), given our arrays as plain ones: what NumPy does
    where our arrays are plain NumPy arrays."""
    order: list[Any] = []
    for v in overriding:
        if type(v) not in (type(o) for o in order):
            at = next((i for i, o in enumerate(order) if issubclass(type(v), type(o))), len(order))
            order.insert(at, v)
    for v in order:
        result = type(v).__array_ufunc__(v, ufunc, method, *inputs, **kwargs)
        if result is not NotImplemented:
            return result
    names = ", ".join(repr(type(v).__name__) for v in order)
    raise TypeError(f"operand type(s) all returned NotImplemented from __array_ufunc__"
                    f"({ufunc!r}, {method!r}, ...): {names}")  # fmt: skip


def _overrides(value: Any) -> bool:
    """Another ndarray subclass with a ``__array_ufunc__`` of its own."""
    t = type(value)
    return t is not CheckedArray and isinstance(value, np.ndarray) and \
        t.__array_ufunc__ is not np.ndarray.__array_ufunc__  # fmt: skip


def _foreign(value: Any) -> bool:
    """Another library's array, which decides for itself (NEP 13)."""
    if type(value) in _PLAIN_OPERANDS or isinstance(value, np.ndarray):
        return False
    return hasattr(value, "__array_ufunc__") and not isinstance(value, np.generic)


def _owned(value: Any) -> Any:
    """A plain array NumPy has just made, as a checked array that owns its data as
    NumPy's did (its layout kept); a checked array, a scalar or anything else as it is."""
    if type(value) is np.ndarray:
        if value.base is None and value.flags.owndata:
            if value.itemsize:  # (NumPy's copy keeps the layout: order="K")
                return value.view(CheckedArray).copy(order="K")
            flags = value.flags  # zero-sized items: strides of NumPy's own allocation
            owned = np.ndarray.__new__(CheckedArray, value.shape, value.dtype,
                                       order="F" if flags.f_contiguous and not flags.c_contiguous
                                       else "C")  # fmt: skip
            return owned
        return value.view(CheckedArray)
    if type(value) is np.memmap:
        return value.view(_CheckedMemmap)
    return value


def _plain(value: Any, views: dict[int, Any]) -> Any:
    """``value`` with each checked array in it (lists, tuples and dicts too) as its plain
    view, remembered in ``views`` (by the view's id, with the view, kept alive while its
    id is used) to give the checked array back; a container holding none is that very
    object (``shuffle`` of a list shuffles it)."""
    t = type(value)
    if t is CheckedArray:
        view = value.view(np.ndarray)
        views[id(view)] = (value, view)
        return view
    if t is tuple or t is list:
        items: list[Any] | None = None
        for i, v in enumerate(value):
            tv = type(v)
            if tv is np.ndarray or tv in _SCALARS:
                continue  # (the common items, at the cost of two tests)
            if tv is CheckedArray:  # (the commonest, without a call)
                p = v.view(np.ndarray)
                views[id(p)] = (v, p)
            elif tv in _CONTAINERS or isinstance(v, CheckedArray):
                p = _plain(v, views)
            else:
                continue
            if p is not v:
                if items is None:
                    items = list(value)
                items[i] = p
        return value if items is None else t(items)
    if t is dict:
        changed: dict[Any, Any] | None = None
        for k, v in value.items():
            p = _plain(v, views)
            if p is not v:
                if changed is None:
                    changed = dict(value)
                changed[k] = p
        return value if changed is None else changed
    if isinstance(value, CheckedArray):  # (a subclass: the memmap's)
        view = value.view(np.ndarray)
        views[id(view)] = (value, view)
        return view
    return value


_CONTAINERS = (tuple, list, dict)


def _checked_results(value: Any, views: dict[int, Any], owned: bool = True,
                     given: tuple[tuple[Any, ...], dict[str, Any]] = ((), {})) -> Any:  # fmt: skip
    """NumPy's result with every plain array in it checked: a checked argument NumPy gives
    back (its plain view, or ``out=``) is that very checked array, and so is a plain
    argument it gives back (``given``: the call's arguments); a new array is checked and,
    where ``owned``, owns its data as NumPy's did; named tuples and lists item by item."""
    t = type(value)
    if t is np.ndarray or t is np.memmap:
        hit = views.get(id(value))
        if hit is not None:
            return hit[0]
        if _given(value, given):
            return value
        return _owned(value) if owned else value.view(CheckedArray)
    if (t is list or isinstance(value, tuple)) and _given(value, given):
        return value  # (np.diff(x, n=0) is x, a list)
    if isinstance(value, tuple):
        items = [_checked_results(v, views, owned, given) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    if t is list:
        return [_checked_results(v, views, owned, given) for v in value]
    return value


def _given(value: Any, given: tuple[tuple[Any, ...], dict[str, Any]]) -> bool:
    """Whether ``value`` is one of a call's arguments (``given``: its args and kwargs)."""
    args, kwargs = given
    for g in args:  # (loops: a generator expression costs more than these few arguments)
        if value is g:
            return True
    if kwargs:
        for g in kwargs.values():
            if value is g:
                return True
    return False


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
#: NumPy's conversions that give a NumPy array back as it is
_AS_IT_IS: frozenset[Any] = frozenset([cast(Any, np.asarray), np.asanyarray])

#: the module of this file: its frames are not the caller
_THIS = __name__
#: strict_array's own code calls NumPy's functions as they are
_PACKAGE = __name__.rpartition(".")[0] + "."
#: one function per call site, ``_t(_f, _a, _k)``: ``_f(*_a, **_k)`` with the site's
#: globals, file and line
_TRAMPOLINES: dict[tuple[int, int], tuple[types.CodeType, Callable[..., Any]]] = {}
_TEMPLATE: types.CodeType = compile(
    "def _t(_f, _a, _k):\n    __tracebackhide__ = True\n    return _f(*_a, **_k)\n",
    "<strict_array>", "exec",
).co_consts[0]  # fmt: skip


def _at_caller(call: Callable[..., Any], args: Any, kwargs: dict[str, Any]) -> Any:
    """``call(*args, **kwargs)`` in a frame that :mod:`warnings` takes for the caller's:
    its globals, file and line. NumPy warns with ``stacklevel`` counted from its own
    frame (``divide by zero`` at level 1, from its functions at level 2); without this,
    that frame would be this module's, and the warning's location, its once-per-line
    registry and its module filters strict_array's."""
    return _trampoline(sys._getframe(1))(call, args, kwargs)


def _trampoline(frame: types.FrameType) -> Callable[..., Any]:
    """The trampoline of the first frame outside this module, from ``frame`` out."""
    while frame.f_globals.get("__name__") == _THIS:
        back = frame.f_back
        if back is None:
            break
        frame = back
    # by the code's id, not the code (hashing a code object hashes its bytecode and its
    # constants, nested functions' code included: tens of µs for a test module's); the
    # code kept in the entry, so that its id is not another's while cached
    code = frame.f_code
    key = (id(code), frame.f_lasti)  # (one line may hold several calls)
    entry = _TRAMPOLINES.get(key)
    if entry is None or entry[0] is not code:
        if len(_TRAMPOLINES) > 4096:
            _TRAMPOLINES.clear()
        at = _TEMPLATE.replace(co_filename=code.co_filename,
                               co_firstlineno=max(frame.f_lineno - 2, 1), co_name="<numpy>")  # fmt: skip
        entry = _TRAMPOLINES[key] = (code, types.FunctionType(at, frame.f_globals))
    return entry[1]


def _new(ufunc: np.ufunc, args: Any) -> Any:
    """The hot path of a ufunc call with nothing to decide (an operator, ``np.add(x, y)``
    on operands of one rank): ``ufunc(*args)`` at the caller's line (:func:`_at_caller`),
    its new arrays checked and owning their data (:func:`_owned`), in one call."""
    value = _trampoline(sys._getframe(2))(ufunc, args, _NO_KEYWORDS)
    # (a ufunc's new array, no out=: NumPy's own allocation, which owns its data)
    if type(value) is np.ndarray and value.base is None and value.itemsize:
        return value.view(CheckedArray).copy(order="K")
    if type(value) is tuple:
        return tuple(_owned(r) for r in value)
    return _owned(value)


_NO_KEYWORDS: dict[str, Any] = {}


# --- NumPy's allocations, checked from the start ---------------------------------------------
#: NumPy's C functions under their dispatchers: an array's allocation, a fill
_EMPTY_LIKE: Any = np.empty_like._implementation  # type: ignore[attr-defined]
_COPYTO: Any = np.copyto._implementation  # type: ignore[attr-defined]
_ASARRAY = np.asarray
#: the class of NumPy's DType classes (np.dtypes.Float64DType, ...)
_DTYPE_CLASS = type(np.dtype)


def _arguments(params: tuple[str, ...], args: tuple[Any, ...],
               kwargs: dict[str, Any]) -> dict[str, Any] | None:  # fmt: skip
    """The arguments by NumPy's parameter names, or None where a call gives others (or
    one twice): NumPy's own function decides those."""
    if len(args) > len(params):
        return None
    bound = dict(zip(params, args))
    for k, v in kwargs.items():
        if k in bound or k not in params:
            return None
        bound[k] = v
    return bound


def _allocation(kind: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``np.empty``, ``np.zeros``, ``np.ones``, ``np.full`` (``kind``) made as a checked
    array that owns its data: NumPy's allocation of the subclass (``ndarray.__new__``),
    filled as NumPy's function fills, with no copy. None for a call of another form
    (``like=``, an array to fill with, an order NumPy's allocation does not take, a
    dtype whose zero is not a number's): NumPy's own function makes it, checked as any
    other call."""
    full = kind == "full"
    b = _arguments(("shape", "fill_value", "dtype", "order") if full
                   else ("shape", "dtype", "order"), args, kwargs)  # fmt: skip
    if b is None or "shape" not in b or b.get("order", "C") not in ("C", "F"):
        return None
    dtype = b.get("dtype")
    value: Any = 1
    if full:
        value = b.get("fill_value")
        if type(value) not in _SCALARS:
            return None
        if dtype is None:  # (np.full's own: the value's dtype)
            value = _ASARRAY(value)
            dtype = value.dtype
    if isinstance(dtype, _DTYPE_CLASS):
        return None  # (a DType class, np.dtypes.StrDType: ndarray.__new__ reads it otherwise)
    try:
        made = np.ndarray.__new__(CheckedArray, b["shape"], float if dtype is None else dtype,
                                  order=b.get("order", "C"))  # fmt: skip
    except Exception:  # (a shape or dtype NumPy refuses: its function raises its own error)
        return None
    if made.dtype.kind not in "biufcmMO":
        return None  # (a flexible dtype: NumPy's functions size "U" and "S" as 1, not 0)
    if kind == "zeros":  # (NumPy's zero bytes: a number's zero, else NumPy's own)
        if made.dtype.kind not in "biufc":
            return None
        made.fill(0)
    elif kind != "empty":  # (np.ones, np.full: NumPy's fill, the value cast unsafely)
        _COPYTO(made.view(np.ndarray), value, casting="unsafe")
    return made


def _like_allocation(kind: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``np.empty_like``, ``np.zeros_like``, ``np.ones_like``, ``np.full_like`` (``kind``) of
    a plain or checked array: NumPy's allocation of a checked prototype's class
    (``subok``), owning its data, filled as NumPy's functions fill (``copyto``, unsafe);
    None for a call of another form (another subclass, ``subok=False``, an array to
    fill with)."""
    full = kind == "full"
    b = _arguments(("a", "fill_value", "dtype", "order", "subok", "shape") if full
                   else ("a", "dtype", "order", "subok", "shape"), args, kwargs)  # fmt: skip
    if b is None or "a" not in b or b.get("subok", True) is not True:
        return None
    a = b["a"]
    t = type(a)
    if t is np.ndarray:
        a = a.view(CheckedArray)
    elif t is not CheckedArray:
        return None
    value = {"zeros": 0, "ones": 1}.get(kind)
    if full:
        value = b.get("fill_value")
        if type(value) not in _SCALARS:
            return None
    made = _EMPTY_LIKE(a, b.get("dtype"), b.get("order", "K"), True, b.get("shape"))
    if kind != "empty":
        _COPYTO(made.view(np.ndarray), value, casting="unsafe")
    return made


#: NumPy's allocating functions -> their checked allocation (None: NumPy's own decides)
_ALLOCATIONS: dict[Any, Callable[[tuple[Any, ...], dict[str, Any]], Any]] = {
    function: functools.partial(make, kind)
    for make, functions in (
        (_allocation, ((np.empty, "empty"), (np.zeros, "zeros"), (np.ones, "ones"),
                       (np.full, "full"))),
        (_like_allocation, ((np.empty_like, "empty"), (np.zeros_like, "zeros"),
                            (np.ones_like, "ones"), (np.full_like, "full"))),
    )
    for function, kind in functions
}  # fmt: skip


# --- switching it on for a whole process ---------------------------------------------------------
class _Patched:
    """A NumPy function as the module attribute while :func:`checking` is on: the arrays it
    makes from plain inputs come back checked, after the checks of its row.

    A callable object, not a function: bound to a class (``class T: array = np.array``)
    it stays NumPy's function, as a builtin does. Its name, module, documentation and
    signature are NumPy's function's; pickles find NumPy's function by that name.
    """

    __slots__ = ("_allocate", "_dispatched", "_function", "_quick", "_row")

    def __init__(self, function: Any, row: Any = None) -> None:
        self._function = function
        self._row = row = row_of(function) if row is None else row
        self._dispatched = hasattr(function, "_implementation")
        self._allocate = _ALLOCATIONS.get(function)
        # the calls _quick_call serves: a function of arrays (dispatched) whose row has no
        # rule (_ANY_RANKS: its arrays' ranks decide nothing), or only rules that arrays of
        # one rank satisfy (_ONE_RANK)
        rules = () if row is None else row.rules
        self._quick = (
            None if not self._dispatched
            else _ANY_RANKS if not rules
            else _ONE_RANK if all(type(r) in (_rules.Broadcast, _rules.Assign) for r in rules)
            else None
        )  # fmt: skip

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True  # (pytest: a failure is at the caller's line)
        function = self._function
        if _inside.get():
            return function(*args, **kwargs)  # NumPy's internals
        site = sys._getframe(1)
        if site.f_globals.get("__name__", "").startswith(_PACKAGE):
            return function(*args, **kwargs)  # strict_array's own code
        if function in _AS_IT_IS and not kwargs and len(args) == 1 and type(args[0]) is \
                CheckedArray:  # fmt: skip
            return args[0]  # (NumPy gives a NumPy array back as it is)
        if self._allocate is not None:
            made = self._allocate(args, kwargs)
            if made is not None:
                return made
        if self._quick is not None:
            result = _quick_call(function, self._quick, args, kwargs, site)
            if result is not _GENERAL:
                return result
        if self._dispatched and _holds_foreign(args, kwargs):
            return function(*args, **kwargs)  # another array type's call: NumPy dispatches
        # (a checked array's call: what its __array_function__ does, without NumPy's dispatch;
        # a function that takes data, not arrays, np.array's list of objects, keeps it whole)
        return _checked_call(function, self._row, args, kwargs, self._dispatched, site)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._function, name)

    def __repr__(self) -> str:
        return repr(self._function)

    def __reduce__(self) -> str:
        return self._function.__qualname__  # type: ignore[no-any-return]

    @property  # type: ignore[misc]
    def __doc__(self) -> str | None:  # type: ignore[override]
        return self._function.__doc__

    @property  # type: ignore[misc]
    def __module__(self) -> str:  # type: ignore[override]
        return self._function.__module__  # type: ignore[no-any-return]

    @property
    def __signature__(self) -> inspect.Signature:
        return inspect.signature(self._function)

    @property
    def __wrapped__(self) -> Any:
        # NumPy's Python function under its dispatcher: tools that unwrap one level and
        # read the argument list (dask.utils.getargspec, inspect.getfullargspec) find it
        # there, as they do through NumPy's own dispatcher
        return getattr(self._function, "__wrapped__", self._function)


def _checked_call(function: Any, row: Any, args: tuple[Any, ...], kwargs: dict[str, Any],
                  deep: bool = True, site: types.FrameType | None = None) -> Any:  # fmt: skip
    """A NumPy function's call, checked by its row, computed by NumPy's own function on
    the plain arrays, as for any NumPy array (its internals broadcast as they need, its
    scalars are scalars, ``out=`` its own), at the caller's line; the arrays it makes
    come back checked, and a checked argument it gives back (its view, ``out=``) is that
    very argument. ``deep=False``: a function of data (``np.array``'s list of objects)
    converts its checked arguments only, not what their lists hold. ``site``: the
    caller's frame, where the caller has it (else the first frame outside this module)."""
    __tracebackhide__ = True
    views: dict[int, Any] = {}
    if deep:
        plain_args = _plain(args, views)
        plain_kwargs = _plain(kwargs, views) if kwargs else kwargs
    else:
        plain_args, plain_kwargs = args, kwargs
        checked = False
        for v in (*args, *kwargs.values()) if kwargs else args:
            t = type(v)
            if t is CheckedArray:
                checked = True
            elif t is not np.ndarray and isinstance(v, np.ndarray):
                if _overrides(v):
                    # another ndarray subclass converting its own arrays (np.array(obj) in
                    # its __array_ufunc__, NumPy's subclassing pattern): they stay plain
                    return function(*args, **kwargs)
                checked = checked or isinstance(v, CheckedArray)
        if checked:  # (comprehensions of lists: a generator expression costs more)
            plain_args = tuple([_plain(v, views) if isinstance(v, CheckedArray) else v
                                for v in args])  # fmt: skip
            if kwargs:
                plain_kwargs = {k: _plain(v, views) if isinstance(v, CheckedArray) else v
                                for k, v in kwargs.items()}  # fmt: skip
    if _inside.get():  # (NumPy's internals, given a checked array by a callback)
        return function(*plain_args, **plain_kwargs)
    if row is not None and row.rules:
        _rules.check(f"numpy.{row.numpy}", row.rules, function, args, kwargs)
        plain_args, plain_kwargs = _rules.with_callbacks(
            row.rules, function, plain_args, plain_kwargs, _checked_callback
        )
    site = sys._getframe(1) if site is None else site
    return _called_inside(function, plain_args, plain_kwargs, site, views, (args, kwargs))


def _called_inside(function: Any, args: Any, kwargs: dict[str, Any], site: types.FrameType,
                   views: dict[int, Any], given: tuple[Any, Any]) -> Any:  # fmt: skip
    """NumPy's ``function`` on the plain arguments, its internals unchecked (``_inside``) and
    its warnings at the caller's line (``site``), its result checked as
    :func:`_checked_results` gives it back (``given``: the call's own arguments)."""
    __tracebackhide__ = True
    at = _trampoline(site)
    token = _inside.set(True)
    try:
        result = at(function, args, kwargs)
    finally:
        _inside.reset(token)
    return _checked_results(result, views, given=given)


#: _quick_call's kinds of function (see _Patched), and its answer for a call it leaves
_ANY_RANKS, _ONE_RANK, _GENERAL = "any ranks", "one rank", object()
#: a keyword argument's values that are no array (an axis, a dtype, a flag)
_INERT = frozenset({*_SCALARS, type(None), str, np.dtype, type})


def _quick_call(function: Any, kind: str, args: tuple[Any, ...], kwargs: dict[str, Any],
                site: types.FrameType) -> Any:  # fmt: skip
    """The common call of a NumPy function of arrays, in one pass: positional arrays
    (checked or plain; for a function with no rule, lists and tuples of them too) and
    scalars, keyword arguments none of which is an array. Its arrays' plain views go to
    NumPy's function, as :func:`_checked_call` gives them, where nothing is to decide
    (``kind``: a function with no rule, or arrays of one rank); ``_GENERAL`` for any other
    call, which :func:`_checked_call` checks and computes."""
    __tracebackhide__ = True
    if kwargs:
        for v in kwargs.values():
            if type(v) not in _INERT:
                return _GENERAL
    views: dict[int, Any] = {}
    plain: list[Any] = []
    rank = 0
    for v in args:
        t = type(v)
        if t is CheckedArray:
            n = v.ndim
            p = v.view(np.ndarray)
            views[id(p)] = (v, p)
            v = p
        elif t is np.ndarray:
            n = v.ndim
        elif t in _INERT:
            n = 0
        elif (t is list or t is tuple) and kind is _ANY_RANKS:
            items = []
            for item in v:
                ti = type(item)
                if ti is CheckedArray:
                    p = item.view(np.ndarray)
                    views[id(p)] = (item, p)
                    item = p
                elif ti is not np.ndarray and ti not in _INERT:
                    return _GENERAL
                items.append(item)
            if views:
                v = t(items)
            n = 0
        else:
            return _GENERAL
        if n and n != rank:
            if rank and kind is _ONE_RANK:
                return _GENERAL
            rank = n
        plain.append(v)
    if not views:
        return _GENERAL  # (no checked array: its row decides, as for any call)
    return _called_inside(function, plain, kwargs, site, views, (args, kwargs))


def _holds_foreign(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """Whether another library's array is among a call's arguments (its own
    ``__array_function__`` decides, through NumPy's dispatch)."""
    for v in (*args, *kwargs.values()) if kwargs else args:
        t = type(v)
        if t in _PLAIN_OPERANDS:
            continue  # (the common arguments, at the cost of one test)
        if t is list or t is tuple:
            if any(_foreign_array(item) for item in v):
                return True
        elif _foreign_array(v):
            return True
    return False


def _foreign_array(value: Any) -> bool:
    return not isinstance(value, np.ndarray) and hasattr(type(value), "__array_function__")


class _NumPysOwn(_Patched):
    """One of NumPy's own test assertions (``np.testing.assert_allclose``) while
    :func:`checking` is on: NumPy's code, run as NumPy's implementations are, on the
    plain arrays and unchecked (its comparisons broadcast as they need)."""

    __slots__ = ()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True  # (pytest: a failure is at the caller's line)
        if _inside.get():
            return self._function(*args, **kwargs)
        views: dict[int, Any] = {}
        token = _inside.set(True)
        try:
            return self._function(*_plain(args, views), **_plain(kwargs, views))
        finally:
            _inside.reset(token)


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
        return _CheckedMethod(attr, row)


class _CheckedMethod:
    """A generator's method (or NumPy's legacy random function), checked by its row: a
    callable object, not a function, so that stored on a class it is not bound again
    (``self.rfunc = rng.integers``), as NumPy's own methods are not."""

    __slots__ = ("__wrapped__", "_row")

    def __init__(self, method: Callable[..., Any], row: Any) -> None:
        self.__wrapped__ = method
        self._row = row

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True  # (pytest: a failure is at the caller's line)
        method = self.__wrapped__
        if _inside.get():
            return method(*args, **kwargs)
        row = self._row
        if row is not None and row.rules:  # (by the unbound method's signature: self first)
            unbound = getattr(type(method.__self__), method.__name__)  # type: ignore[attr-defined]
            _rules.check(f"numpy.{row.numpy}", row.rules, unbound, (None, *args), kwargs)
        return _checked_call(method, None, args, kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__wrapped__, name)

    def __repr__(self) -> str:
        return repr(self.__wrapped__)

    def __eq__(self, other: object) -> bool:  # (as bound methods compare: `func in funcs`)
        return self.__wrapped__ == getattr(other, "__wrapped__", other)  # type: ignore[no-any-return]

    def __hash__(self) -> int:
        return hash(self.__wrapped__)

    @property  # type: ignore[misc]
    def __doc__(self) -> str | None:  # type: ignore[override]
        return self.__wrapped__.__doc__


def _checked_ctor(ctor: Callable[..., Any]) -> Callable[..., Any]:
    """NumPy's unpickling constructor of a generator (``ctor(bit_generator)``, or of its
    name), made checked while :func:`checking` is on; kept by ``ctor`` so that pickles
    name one function per class."""
    made = _CTORS.get(ctor)
    if made is None:

        def made(*args: Any) -> Any:
            plain = ctor(*args)
            checked = _CHECKED_CLASSES.get(type(plain))
            if checked is None or not is_checking():
                return plain
            bits = plain._bit_generator if checked is CheckedRandomState else plain.bit_generator
            return checked(bits)

        made.__name__ = made.__qualname__ = f"_checked_{ctor.__name__.strip('_')}"
        made.__module__ = __name__
        globals()[made.__name__] = made  # (pickles find it by name)
        _CTORS[ctor] = made
    return made


_CTORS: dict[Any, Callable[..., Any]] = {}


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
        ctor, *rest = super().__reduce__()  # type: ignore[misc]
        return (_checked_ctor(ctor), *rest)  # (NumPy's structure: ctor, (bit_generator,), state)


class CheckedRandomState(_CheckedMethods, np.random.RandomState, metaclass=_SameClass):
    """A :class:`numpy.random.RandomState` whose arrays are checked (same values)."""

    __module__ = "strict_array.numpy"
    _prefix = "random.RandomState"

    def __reduce__(self) -> Any:
        ctor, *rest = super().__reduce__()  # type: ignore[misc]
        return (_checked_ctor(ctor), *rest)  # (NumPy's structure: ctor, (bit_generator,), state)


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
#: NumPy's entry points with no hook, left as they are (the docs' limits list them)
EXITS = UNHOOKED

#: the row of NumPy's private _lerp(a, b, t, out=None) (see _replacements): element-wise
_LERP = Row(
    "lib._function_base_impl._lerp",
    (_rules.Broadcast(("a", "b", "t")), _rules.Assign("out", ("a", "b", "t"))),
)

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
    for name in INDEXERS:
        found[(np, name)] = _PatchedIndexer(getattr(np, name))
    import numpy.testing

    for name in dir(numpy.testing):  # (not those that call the caller's functions)
        if name.startswith("assert_") and name not in CALLING_ASSERTIONS:
            found[(numpy.testing, name)] = _NumPysOwn(getattr(numpy.testing, name))
    # an override of one of NumPy's private functions (as array_api_compat keeps its own
    # where NumPy's do not serve): _lerp, np.percentile's and np.quantile's interpolation,
    # which NumPy's own tests call directly. Run on 0-d checked arrays, its
    # add(..., out=...) gives NumPy's scalar where it gives a 0-d array, and its next
    # subtract(..., out=that scalar) fails, because NumPy does not pass out=... to
    # __array_ufunc__ (numpy/numpy#28576); served as NumPy's public functions are, its
    # operands checked as an element-wise function's, NumPy's own code run on their plain
    # arrays (np.percentile's own calls of it, from inside NumPy, are NumPy's as they are)
    impl = getattr(np.lib, "_function_base_impl", None)
    if impl is not None and hasattr(impl, "_lerp"):
        found[(impl, "_lerp")] = _Patched(impl._lerp, _LERP)
    found[(np.random, "default_rng")] = _default_rng
    for module in (np.random, np.random.mtrand):  # (emcee's spelling: mtrand)
        found[(module, "RandomState")] = CheckedRandomState
    found[(np.random, "Generator")] = CheckedGenerator
    legacy = np.random.mtrand._rand  # (NumPy's legacy functions: its methods, under both
    for module in (np.random, np.random.mtrand):  # modules' names)
        for name in dir(module):
            obj = getattr(module, name)
            if getattr(obj, "__self__", None) is legacy and not name.startswith("_"):
                found[(module, name)] = _CheckedMethod(
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
