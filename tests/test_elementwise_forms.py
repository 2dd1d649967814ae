"""Every element-wise function in every form against its general path.

The fast path of the element-wise functions is compiled from one template into five
forms (strict_array._elementwise): the namespace function, the operator, the reflected
operator, the in-place operator and the unary function. Each form must give what the
general path gives (apply_binary, apply_unary, general_inplace) for every operand pair:
the same values, dtype and shape, or the same error, type and message.
"""

from __future__ import annotations

import operator
import warnings

import numpy as np
import pytest
from conftest import on, to_numpy

import strict_array as xp
from strict_array import _elementwise as ew
from strict_array import _operators

#: unary operator suffix -> the operator module's function
_UNARY_OPERATOR = {s: getattr(operator, s) for s in _operators.UNARY}
#: binary function -> its operator suffix, where it has one
_SUFFIX = {name: s for s, name in {**_operators.ARITHMETIC, **_operators.COMPARISONS}.items()}
_UNARY_SUFFIX = {name: s for s, name in _operators.UNARY.items()}

_DTYPES = ("bool", "int8", "uint8", "int64", "float32", "float64", "complex128")


def _operands(device, full: bool):
    """Arrays of each dtype (one shape, a size-1 axis, another rank, 0-d) and scalars."""
    values = np.array([[-2, -1, 0], [1, 2, 3]])
    arrays = [on(device, values.astype(dt)) for dt in (_DTYPES if full else _DTYPES[1::2])]
    arrays += [
        on(device, np.array([[0.5, -1.5, 2.0]])),  # (1, 3): size-1 broadcasting
        on(device, np.array([1.0, 2.0, 3.0])),  # (3,): another rank, a promotion
        on(device, np.asarray(2.0)),  # 0-d
    ]
    if device.host and full:
        arrays.append(on(device, np.ones((2, 2))))  # shapes that do not broadcast
    scalars = [True, 3, -1, 2.5, 1j, 2**70, np.float32(1.5), np.int64(2), "s", None]
    return arrays, scalars if full else scalars[1:4] + scalars[6:]


def _outcome(call, *args):
    """What ``call(*args)`` gives: (values, dtype, shape), or (error type, message)."""
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # (Dask's threads compute)
            r = call(*args)
            if r is NotImplemented:
                return ("NotImplemented",)
            assert type(r) is xp.Array
            return ("value", to_numpy(r).tobytes(), r.dtype, r.shape)
    except Exception as e:  # (the error is the outcome compared)
        return ("error", type(e), str(e))


def _same(x):
    return x


def _leaves_to_its_type(name, y):
    try:
        return ew._foreign(name, y)
    except TypeError:  # a raw array: refused by the operator as by the function
        return False


def _inplace_general(name, x, y):
    return ew.general_inplace(name, x, y, lambda a, b: ew.apply_binary(name, a, b))


@pytest.mark.parametrize("name", sorted(ew.BINARY))
def test_binary_forms_agree_with_the_general_path(device, name):
    arrays, scalars = _operands(device, full=device.host)
    suffix = _SUFFIX.get(name)
    # the operator slots themselves: an operand type an operator leaves to that type's
    # own operator gives NotImplemented (where the function raises its TypeError)
    forward = getattr(xp.Array, f"__{suffix}__", None)
    reflected = getattr(xp.Array, f"__r{suffix}__", None)
    inplace = getattr(xp.Array, f"__i{suffix}__", None)
    general = lambda a, b: ew.apply_binary(name, a, b)  # noqa: E731
    checked = 0
    for x in arrays:
        for y in arrays + scalars:
            expected = _outcome(general, x, y)
            assert _outcome(getattr(xp, name), x, y) == expected, (x, y)
            foreign = type(y) is not xp.Array and _leaves_to_its_type(name, y)
            by_operator = ("NotImplemented",) if foreign else expected
            if forward is not None:
                assert _outcome(forward, x, y) == by_operator, (x, y)
            if type(y) is not xp.Array:  # the scalar on the left: function, reflected form
                left = _outcome(general, y, x)
                assert _outcome(getattr(xp, name), y, x) == left, (y, x)
                if reflected is not None:
                    expected_left = ("NotImplemented",) if foreign else left
                    assert _outcome(reflected, x, y) == expected_left, (y, x)
            if inplace is not None:
                mine, theirs = xp.asarray(x, copy=True), xp.asarray(x, copy=True)
                got = _outcome(inplace, mine, y)
                assert got == _outcome(_inplace_general, name, theirs, y), (x, y)
                assert _outcome(_same, mine) == _outcome(_same, theirs), (x, y)
            checked += 1
    assert checked == len(arrays) * (len(arrays) + len(scalars))


@pytest.mark.parametrize("name", sorted([*ew.UNARY, "expm1"]))
def test_unary_forms_agree_with_the_general_path(device, name):
    arrays, scalars = _operands(device, full=True)
    suffix = _UNARY_SUFFIX.get(name)
    for x in arrays + scalars:
        expected = _outcome(ew.apply_unary, name, x)
        if name == "expm1" and type(x) is xp.Array and x.dtype.kind == "c":
            continue  # complex expm1 has its own kernel (the standard's special cases)
        assert _outcome(getattr(xp, name), x) == expected, x
        if suffix is not None and type(x) is xp.Array:
            assert _outcome(_UNARY_OPERATOR[suffix], x) == expected, x
