"""``numpy.ma``'s functions on strict arrays: the rank rule, or a refusal by name.

``numpy.ma`` has no hook of its own (no NEP 18 dispatch): it reads an operand's data
and mask as attributes, ``a._data`` and ``a._mask`` (``np.ma.getdata``,
``np.ma.getmask``), and runs NumPy's ufuncs on that data. A strict array's ``_data`` is
its device's data, so np.ma would compute on it unchecked. The ``_mask`` that np.ma
reads of every operand is the one place strict_array is asked: there, the np.ma call
that asks (the outermost ``numpy.ma`` frame) is checked by the rules of NumPy's own
name (the ufunc of ``np.ma.add``, the row of ``np.where`` for ``np.ma.where``), once per
call, by the one interpreter (:mod:`._rules`); then np.ma goes on, with no mask.
np.ma's ``getdata`` (``np.ma.getdata(x)``, and np.ma's functions that read the data
before the mask) asks too, in place of NumPy's.
On a device whose data is not NumPy's (``DASK``), np.ma cannot give NumPy's value (it
would compute on the lazy data itself), so the call is refused by name with the fix.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

import numpy as np

from .._array import Array
from . import _rules
from ._dispatch import row_of

__all__ = ["install_mask"]

_MA = "numpy.ma"
#: the np.ma frame last checked (held, so that its id is not another's while it runs)
_last: list[Any] = [None]


def _asking_frame() -> FrameType | None:
    """The outermost frame of ``numpy.ma``'s code in the current call, or None."""
    frame = sys._getframe(2)
    found = None
    while frame is not None and frame.f_globals.get("__name__", "").startswith(_MA):
        found, frame = frame, frame.f_back  # type: ignore[assignment]
    return found


def _mask(self: Array) -> Any:
    """``Array._mask``, as np.ma reads it: the np.ma call that asks is checked (or, on a
    device that cannot give NumPy's value, refused); the array has no mask."""
    frame = _asking_frame()
    if frame is None:
        raise AttributeError(f"{type(self).__name__!r} object has no attribute '_mask'")
    if _last[0] is not frame:
        _last[0] = frame
        _check(frame, self)
    return np.ma.nomask


def _operation(frame: FrameType) -> tuple[str, dict[str, Any], Any]:
    """The np.ma call that ``frame`` runs: its dotted name, its arguments by name, and
    the callable object it is a method of (np.ma's ``add``, ``mean``), if any."""
    code = frame.f_code
    names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    values = {n: frame.f_locals[n] for n in names if n in frame.f_locals}
    owner = values.pop("self", None)
    if code.co_name == "__call__" and isinstance(getattr(owner, "__name__", None), str):
        op = f"{_MA}.{owner.__name__}"  # (np.ma's callable objects: np.ma.add, np.ma.mean)
    elif code.co_name == "__new__":
        op = f"{_MA}.{values.pop('cls').__name__}"
    else:
        op = f"{_MA}.{code.co_name}"
    return op, values, owner


def _refuse_lazy(op: str, array: Array) -> None:
    """np.ma on a device whose data is not NumPy's: refused by name, with the fix."""
    if not array._device.host:
        raise TypeError(
            f"{op}: numpy.ma computes on an operand's data itself, which on "
            f"{array._device!r} is lazy, so it cannot give NumPy's value; compute first: "
            f"{op}(np.asarray(x)), or move the array: x.to_device(strict_array.CPU)."
        )


def _check(frame: FrameType, array: Array) -> None:
    code = frame.f_code
    op, values, owner = _operation(frame)
    ufunc = getattr(owner, "f", None)
    _refuse_lazy(op, array)
    if isinstance(ufunc, np.ufunc) and code.co_name == "__call__":
        operands = [v for n, v in values.items() if n in ("a", "b")]
        _rules.check_ufunc(ufunc, "__call__", operands, {}, name=op)
        return
    numpys = getattr(np, op.rpartition(".")[2], None)
    row = row_of(numpys)
    if row is None or not row.rules:
        return  # (NumPy's name broadcasts nothing: nothing to decide)
    args: list[Any] = []  # np.ma's arguments under NumPy's parameter names
    kwargs: dict[str, Any] = {}
    for param in _rules.signature(numpys).parameters.values():
        if param.kind is param.POSITIONAL_ONLY:
            if param.name not in values:
                break  # (a later positional one would take its place)
            args.append(values[param.name])
        elif param.name in values and param.kind is not param.VAR_POSITIONAL:
            kwargs[param.name] = values[param.name]
    _rules.check(op, row.rules, numpys, tuple(args), kwargs)


def _data_reader(getdata: Callable[..., Any]) -> Callable[..., Any]:
    """np.ma's ``getdata``, which reads an operand's data without its mask (the public
    ``np.ma.getdata(x)`` and np.ma's functions that read the data first): a strict array's
    ``_data`` on a device whose data is not NumPy's is refused by the name of the np.ma
    call (``numpy.ma.getdata``, or the np.ma function that asks), as its mask would be,
    rather than given out lazy; on the CPU device it is NumPy's array, as
    ``np.asarray(x)`` is."""

    @functools.wraps(getdata)
    def reader(a: Any, subok: bool = True) -> Any:
        if type(a) is Array and not a._device.host:
            frame = _asking_frame()
            _refuse_lazy(f"{_MA}.getdata" if frame is None else _operation(frame)[0], a)
        return getdata(a, subok)

    reader.__wrapped_getdata__ = getdata  # type: ignore[attr-defined]
    return reader


def install_mask() -> None:
    """Attach ``_mask`` to :class:`Array` (np.ma's question, see the module's docstring),
    and make np.ma's ``getdata`` ask the same (in each of np.ma's modules that hold it)."""
    Array._mask = property(_mask)  # type: ignore[attr-defined]
    import numpy.ma  # noqa: F401  (np.ma's modules, loaded: their getdata is replaced)

    getdata = np.ma.core.getdata
    if hasattr(getdata, "__wrapped_getdata__"):
        return  # (installed already)
    reader = _data_reader(getdata)
    for name, module in list(sys.modules.items()):
        if (name == _MA or name.startswith(_MA + ".")) and \
                getattr(module, "getdata", None) is getdata:  # fmt: skip
            module.getdata = reader  # type: ignore[attr-defined]
