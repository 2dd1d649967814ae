"""NumPy's spellings in the namespace: the messages that name the standard's spelling,
and the table of ``docs/numpy-interop.md``, from the rows of the table.

``strict_array.concatenate`` is not an attribute (the namespace is the standard's):
its ``AttributeError`` names ``strict_array.concat``, and reading a NumPy method of an
array (``x.mean``) names the namespace function to use.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import numpy as np

from .. import _elementwise, _public
from .._array import Array
from .._backends._numpy_ways import Blocks, Own, Refuse, Value, Whole, Writes
from ._rules import Assign, Broadcast, Callbacks, Einsum, Stacks, ToShape
from ._table import CONVERSIONS, FUNCTIONS, UFUNCS, Compose, Row, Unless

__all__ = ["METHODS", "install_methods", "markdown_table", "missing_attribute", "spell"]

#: the NumPy array methods a strict array lacks -> what to use (its AttributeError)
_SAME_NAME_METHODS = (
    "mean", "sum", "std", "var", "max", "min", "prod", "all", "any", "argmax", "argmin",
    "round", "clip", "nonzero", "sort", "argsort", "squeeze", "repeat", "take",
)  # fmt: skip
METHODS = {
    **{m: f"strict_array.{m}(x, ...)" for m in _SAME_NAME_METHODS},
    "cumsum": "strict_array.cumulative_sum(x, ...)",
    "cumprod": "strict_array.cumulative_prod(x, ...)",
    "astype": "strict_array.astype(x, dtype)",
    "reshape": "strict_array.reshape(x, shape)",
    "flatten": "strict_array.reshape(x, (-1,))",
    "ravel": "strict_array.reshape(x, (-1,))",
    "transpose": "strict_array.permute_dims(x, axes) or x.mT",
    "swapaxes": "strict_array.moveaxis(x, source, destination) or x.mT",
    "dot": "strict_array.matmul(x, y) or strict_array.vecdot(x, y)",
    "copy": "strict_array.asarray(x, copy=True)",
    "tolist": "np.asarray(x).tolist()",
    "item": "float(x), int(x) or bool(x) on a 0-d array",
    "fill": "x[...] = value",
    "conj": "strict_array.conj(x)",
    "conjugate": "strict_array.conj(x)",
    "real": "strict_array.real(x)",
    "imag": "strict_array.imag(x)",
    "compute": "strict_array.compute(x) or np.asarray(x)",
    "persist": "strict_array.persist(x)",
}

# a standard name is written strict_array.name where it is called, "f(", or stands as one
# of a list of alternatives ("concat (same rank) or stack (a new axis)"), not in prose
_NAME = re.compile(
    r"(?<![\w.])[a-z_]\w*(?:\.[a-z_]\w*)?(?=\()"
    r"|(?:(?<=^)|(?<=, )|(?<= or )|(?<= and ))[a-z_]\w*(?:\.[a-z_]\w*)?(?=$|,| or | and | \()"
)


@functools.cache
def _standard_names() -> frozenset[str]:
    """The public names of the namespace and its extensions (``"mean"``,
    ``"linalg.solve"``)."""
    return frozenset([
        *_public.NAMES, *_elementwise.FUNCTIONS, *(f"linalg.{n}" for n in _public.LINALG),
        *(f"fft.{n}" for n in _public.FFT),
    ])  # fmt: skip


def spell(standard: str) -> str:
    """``standard`` with each standard name in it written ``strict_array.name``."""
    names = _standard_names()
    return _NAME.sub(lambda m: f"strict_array.{m[0]}" if m[0] in names else m[0], standard)


def missing_attribute(module: str, name: str) -> AttributeError:
    """The AttributeError of ``strict_array[.linalg|.fft].name``, naming the standard
    spelling where ``name`` is NumPy's."""
    qualified = name if module == "strict_array" else f"{module.rpartition('.')[2]}.{name}"
    row = FUNCTIONS.get(qualified)
    hint = ""
    if row is not None and row.standard and row.standard != qualified:
        hint = f"; for NumPy's {qualified} use {spell(row.standard)}"
    elif name in UFUNCS:
        hint = f"; for NumPy's {name} use {spell(UFUNCS[name])}"
    elif row is not None and not row.standard:
        hint = f"; NumPy's {qualified} has no counterpart in the standard"
    elif name in CONVERSIONS:
        hint = "; use strict_array.asarray"
    return AttributeError(f"module {module!r} has no attribute {name!r}{hint}")


def _rule_text(row: Row) -> str:
    parts = []
    for rule in row.rules:
        if type(rule) is Broadcast:
            parts.append(" & ".join(f"`{p}`" for p in rule.params))
        elif type(rule) is ToShape:
            parts.append(f"`{rule.array}` to `{rule.shape}`")
        elif type(rule) is Assign:
            parts.append(" & ".join(f"`{p}`" for p in rule.values) + f" into `{rule.target}`")
        elif type(rule) is Stacks:
            parts.append(f"stacks `{rule.first}` & `{rule.second}`")
        elif type(rule) is Einsum:
            parts.append("axes under `...`")
        elif type(rule) is Callbacks:
            parts.append("checked inside " + ", ".join(f"`{p}`" for p in rule.params))
    return "; ".join(parts)


def _way_text(way: Any) -> str:
    kind = type(way)
    if kind is Own:
        return "Dask's own" + (f" `{way.name}`" if way.name else "")
    if kind is Blocks and way.along is None:
        return "NumPy's, block by block"
    if kind is Blocks:
        return "NumPy's, " + (
            "matrix by matrix" if isinstance(way.along, tuple) else "lane by lane"
        )
    if kind is Whole:
        return "NumPy's, in one task" + (" (sizes unknown)" if way.sizes == "values" else "")
    if kind is Value:
        return "NumPy's on the shapes" if way.shapes_only else "NumPy's, computed"
    if kind is Writes:
        return "writes: " + _way_text(way.how)
    if kind is Refuse:
        return f"refused: {way.why}"
    if kind is Compose:
        return "the namespace's functions"
    if kind is Unless:
        case = getattr(way.why, "description", "otherwise")
        return f"{_way_text(way.way)}; {case}: {_way_text(way.instead)}"
    return ""


def markdown_table() -> str:
    """The table of ``docs/numpy-interop.md``: every NumPy name, its rank rule, how DASK
    gives NumPy's value, and the namespace's spelling (generated from the rows when the
    site is built, by ``docs/_ext/generated_tables.py``)."""
    lines = [
        "| NumPy | broadcasts together | on DASK | the namespace's spelling |",
        "|---|---|---|---|",
    ]
    for name in sorted(FUNCTIONS):
        row = FUNCTIONS[name]
        standard = f"`{row.standard}`" if row.standard else ""
        lazy = _way_text(row.lazy) + (f" ({row.note})" if row.note else "")
        lines.append(f"| `np.{name}` | {_rule_text(row)} | {lazy} | {standard} |")
    ufuncs = sorted(n for n in dir(np) if isinstance(getattr(np, n), np.ufunc))
    for name in ufuncs:
        standard = UFUNCS.get(name, name if name in _elementwise.FUNCTIONS else "")
        stacked = getattr(np, name).signature is not None
        rule = "stacks (core axes), `out=`" if stacked else "operands, `out=`, `where=`"
        lazy = "Dask's own (gufunc)" if stacked else "NumPy's, block by block"
        lines.append(f"| `np.{name}` (ufunc) | {rule} | {lazy} | "
                     f"{f'`{standard}`' if standard else ''} |")  # fmt: skip
    return "\n".join(lines) + "\n"


class _NumPyMethod:
    """A NumPy array method that strict arrays do not have: reading it raises the
    AttributeError that names the namespace function to use instead.

    A class attribute rather than ``Array.__getattr__``: a ``__getattr__`` would
    take CPython's fast attribute lookup away from every ``x._data`` on the hot path.
    """

    def __init__(self, name: str, hint: str) -> None:
        self.name, self.hint = name, hint

    def __get__(self, obj: object, objtype: type | None = None) -> Any:
        raise AttributeError(
            f"'strict_array.Array' object has no attribute {self.name!r} (a NumPy method): "
            f"array API arrays keep their operations in the namespace; use {self.hint}."
        )


def install_methods() -> None:
    """Attach the NumPy-method hints to :class:`Array`."""
    for name, hint in METHODS.items():
        setattr(Array, name, _NumPyMethod(name, hint))
