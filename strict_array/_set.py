"""Set functions. Results have data-dependent sizes (``None`` in ``shape`` on ``DASK``)."""

from __future__ import annotations

from typing import NamedTuple

from ._array import Array, as_scalar, common_device, expect_array, result
from ._errors import ARRAY_OR_SCALAR
from ._flags import refuse_data_dependent


class UniqueAllResult(NamedTuple):
    values: Array
    indices: Array
    inverse_indices: Array
    counts: Array


class UniqueCountsResult(NamedTuple):
    values: Array
    counts: Array


class UniqueInverseResult(NamedTuple):
    values: Array
    inverse_indices: Array


def isin(x1: Array | int, x2: Array | int, /, *, invert: bool = False) -> Array:
    """True where an element of ``x1`` occurs in ``x2`` (False with ``invert=True``).

    At least one of ``x1`` and ``x2`` must be an array; the result has the shape of ``x1``.
    """
    arrays = [a for a in (x1, x2) if type(a) is Array]
    if not arrays:
        raise TypeError("isin: at least one of x1 and x2 must be an array.")
    dev = common_device("isin", arrays)
    a = (
        x1._data
        if type(x1) is Array
        else dev.ns.asarray(as_scalar("isin (x1)", x1, ARRAY_OR_SCALAR))
    )
    b = x2._data if type(x2) is Array else as_scalar("isin (x2)", x2, ARRAY_OR_SCALAR)
    return result(dev.ns.isin(a, b, invert=invert), dev)


def _unique(op: str, x: Array) -> list[Array]:
    if type(x) is not Array:
        expect_array(op, x)
    refuse_data_dependent(op)
    dev = x._device
    values, *indices = dev.function(op)(x._data)  # (then indices, inverse or counts)
    return [result(values, dev), *(result(dev.index_result(i), dev) for i in indices)]


def unique_all(x: Array, /) -> UniqueAllResult:
    """Unique values with first indices, inverse indices (shape of ``x``) and counts."""
    return UniqueAllResult(*_unique("unique_all", x))


def unique_counts(x: Array, /) -> UniqueCountsResult:
    """Unique values and their counts."""
    return UniqueCountsResult(*_unique("unique_counts", x))


def unique_inverse(x: Array, /) -> UniqueInverseResult:
    """Unique values and the indices (shape of ``x``) that rebuild ``x`` from them."""
    return UniqueInverseResult(*_unique("unique_inverse", x))


def unique_values(x: Array, /) -> Array:
    """The unique values of ``x`` (1-D)."""
    x = expect_array("unique_values", x)
    refuse_data_dependent("unique_values")
    return result(x._device.ns.unique_values(x._data), x._device)
