"""NumPy interoperation: NumPy's own calls on strict arrays, and NumPy code checked.

One job per module:

- :mod:`._table`: the rows, every NumPy name strict_array answers, in one table: which
  arguments broadcast together (its rules), how a lazy device gives NumPy's value (its
  way), and the namespace's spelling of it. Adding a NumPy function is a row there.
- :mod:`._rules`: the kinds of rule (operands that broadcast, an array to a target
  shape, an assignment target, stacks with core ranks, einsum's ``...``, user
  callbacks) and their one interpreter, which both callers below use, so that an
  operation is named the same way in every error and audit row. Adding a kind of rule
  is a dataclass and its branch there.
- :mod:`._dispatch`: NEP 18 and NEP 13 on strict arrays: a call checked by its rules,
  then NumPy's value on the arrays' device.
- :mod:`._masked`: ``numpy.ma``'s functions on strict arrays (np.ma has no hook; it
  asks for an operand's ``_mask``, where its call is checked or refused).
- :mod:`._compose`: the few NumPy functions a lazy device gives through the namespace's
  own functions.
- :mod:`._hints`: NumPy's spellings named in the namespace's messages, and the table of
  ``docs/numpy-interop.md``.

NumPy code under the NumPy-code mode (:mod:`strict_array.numpy`) is checked by the same
rows and the same interpreter. How each device computes lives under
:mod:`strict_array._backends` (the ways of :mod:`strict_array._backends._numpy_ways`).
"""

from __future__ import annotations

from .._array import Array
from ._dispatch import array_function, array_ufunc, row_of
from ._hints import install_methods, markdown_table, missing_attribute, spell
from ._masked import install_mask
from ._table import CALLING_ASSERTIONS, CONVERSIONS, FUNCTIONS, GENERATORS, UFUNCS, UNHOOKED, Row

__all__ = [
    "CALLING_ASSERTIONS", "CONVERSIONS", "FUNCTIONS", "GENERATORS", "UFUNCS", "UNHOOKED", "Row",
    "array_function", "array_ufunc", "install", "markdown_table", "missing_attribute", "row_of",
    "spell",
]  # fmt: skip


def install() -> None:
    """Attach NEP 18, NEP 13 and the NumPy-method hints to :class:`Array`."""
    Array.__array_function__ = array_function  # type: ignore[method-assign,assignment]
    Array.__array_ufunc__ = array_ufunc  # type: ignore[method-assign,assignment]
    install_methods()
    install_mask()
