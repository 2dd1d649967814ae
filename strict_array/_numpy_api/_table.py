"""The one table of NumPy interoperation: every NumPy name strict_array answers.

A row says, for one NumPy function (``"mean"``, ``"linalg.norm"``, ``"fft.fft"``, a
random generator's method ``"random.Generator.normal"``):

- ``rules``: which of its arguments broadcast together, and how (:mod:`._rules`);
  both NumPy's functions on strict arrays and NumPy code under the NumPy-code mode are
  checked by them;
- ``lazy``: how a lazy device gives NumPy's value (a way of
  :mod:`strict_array._backends._numpy_ways`, or :class:`Compose`, :class:`Unless`); an
  eager device whose data is NumPy's calls NumPy's own function;
- ``standard``: the namespace's spelling of the operation, for the messages that name
  it (``strict_array.concatenate`` is not an attribute: ``concat`` is) and the docs.

Ufuncs take their rules from the ufunc itself (its operands, core axes, ``out=``,
``where=``); their rows (:data:`UFUNCS`) give the standard spelling.

Adding a NumPy function is one row here, and the cases that test it against NumPy
(``tests/numpy_cases.py``); ``docs/dev/adding-a-numpy-function.md`` shows how.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeAlias

import numpy as np

from .._backends._numpy_ways import (
    Blocks,
    Own,
    Refuse,
    Value,
    Way,
    Whole,
    Writes,
    dotted,
)
from . import (
    _compose,
    _compose_fft,
    _compose_join,
    _compose_like,
    _compose_linalg,
    _compose_move,
    _compose_reduce,
    _compose_select,
)
from ._rules import Assign, Broadcast, Callbacks, Einsum, Rule, Stacks, ToShape, shape_of

__all__ = [
    "ASSOCIATIVE", "CALLING_ASSERTIONS", "CONVERSIONS", "FUNCTIONS", "GENERATORS", "INDEXERS", "MAKERS", "UFUNCS",
    "UNHOOKED",
    "Compose", "Lazy", "Row", "Unless",
    "by_function", "lookup",
]  # fmt: skip


@dataclass(frozen=True)
class Compose:
    """Written with the namespace's own functions (:mod:`._compose`), whose value is
    NumPy's for every argument NumPy's function takes; the arguments come as strict
    arrays on the device. With ``any_device``, a question about the arguments
    themselves (``np.may_share_memory``), answered on every device, as they are."""

    fn: Callable[..., Any]
    any_device: bool = False


@dataclass(frozen=True)
class Unless:
    """``way``, except where ``why(arguments)`` names a reason it would not give NumPy's
    value (an upstream issue): then ``instead``."""

    why: Callable[[dict[str, Any]], str]
    way: Lazy
    instead: Lazy


Lazy: TypeAlias = Way | Compose | Unless


@dataclass(frozen=True)
class Row:
    """How strict_array answers one NumPy name (see the module's docstring)."""

    numpy: str
    rules: tuple[Rule, ...] = ()
    lazy: Lazy = field(default_factory=lambda: Whole(()))
    standard: str = ""
    note: str = ""


def rows(names: str, *rules: Rule, lazy: Lazy | Callable[[str], Lazy], standard: str = "",
         note: str = "") -> list[Row]:  # fmt: skip
    """One row per name of ``names`` (space-separated); ``lazy`` may be made per name, and
    ``standard`` ``"="`` means the namespace's function of NumPy's name."""
    return [
        Row(name, tuple(rules), lazy(name) if callable(lazy) else lazy,
            name if standard == "=" else standard, note)
        for name in names.split()
    ]  # fmt: skip


def _case(
    description: str, why: Callable[[dict[str, Any]], str]
) -> Callable[[dict[str, Any]], str]:
    """``why``, described for the docs' table (``"axis=None"``)."""
    why.description = description  # type: ignore[attr-defined]
    return why


def _given(*names: str) -> Callable[[dict[str, Any]], str]:
    """The reason: one of ``names`` is given (other than None)."""
    return _case(" or ".join(f"{n}=" for n in names),
                 lambda b: next((f"{n}=" for n in names if b.get(n) is not None), ""))  # fmt: skip


def _is_none(name: str) -> Callable[[dict[str, Any]], str]:
    return _case(f"{name}=None", lambda b: f"{name}=None" if b.get(name) is None else "")


def _not(name: str, value: Any) -> Callable[[dict[str, Any]], str]:
    return _case(f"{name} other than {value!r}",
                 lambda b: f"{name}={b.get(name)!r}" if b.get(name) != value else "")  # fmt: skip


def _device_array(*names: str) -> Callable[[dict[str, Any]], str]:
    """The reason: one of ``names`` is the device's own array (a lazy one), not NumPy's
    data (an array, a scalar, a list)."""

    def why(b: dict[str, Any]) -> str:
        lazy = [n for n in names if hasattr(v := b.get(n), "shape")
                and not isinstance(v, (np.ndarray, np.generic))]  # fmt: skip
        return " and ".join(f"a lazy {n}=" for n in lazy)

    return _case(" or ".join(f"a lazy {n}=" for n in names), why)


@functools.partial(_case, "an integer dtype=")
def _integer_dtype(b: dict[str, Any]) -> str:
    dtype = b.get("dtype")
    return f"dtype={np.dtype(dtype)}" if dtype is not None and np.dtype(dtype).kind in "biu" else ""


#: a reduction's where= broadcasts against its input
WHERE = Broadcast(("a", "where"))
#: NumPy's functions of one whole array that are not chunked
WHOLE = lambda *arrays: Whole(tuple(arrays))  # noqa: E731
WHOLE_VALUES = lambda *arrays: Whole(tuple(arrays), sizes="values")  # noqa: E731
#: NumPy's function on each lane: the axes ``along`` names of the first array (and of each
#: other of its shape) in one block
LANES = lambda *arrays, along="axis": Blocks(tuple(arrays), along=along)  # noqa: E731
#: NumPy's function on each matrix (``core=1``: vector) of a stack: the last ``core`` axes
#: of each array in one block
MATRICES = lambda *arrays, core=2: Blocks(tuple(arrays), along=(core,) * len(arrays))  # noqa: E731


@functools.partial(_case, "reflect, symmetric or wrap wider than the axis, or reflect_type")
def _pad_wider_than_axis(b: dict[str, Any]) -> str:
    """Dask's pad gives a wrong shape and values where a reflect, symmetric or wrap
    width reaches the axis's length (NumPy pads repeatedly there), and ignores
    ``reflect_type="odd"``."""
    if b.get("mode") not in ("reflect", "symmetric", "wrap"):
        return ""
    if b.get("kwargs", {}).get("reflect_type", "even") != "even":
        return "reflect_type"
    x = b.get("array")
    widths = np.broadcast_to(np.asarray(b.get("pad_width")), (getattr(x, "ndim", 0), 2))
    sizes = getattr(x, "shape", ())
    return "a width at least the axis" if any(
        int(w) >= (s or 0) for pair, s in zip(widths, sizes) for w in pair
    ) else ""  # fmt: skip


def _size(value: Any) -> int:
    """The number of elements of an argument, from its shape alone (``np.size`` of a Dask
    array would compute it: Dask does not implement it); asked only of known sizes."""
    size = 1
    for n in shape_of(value) or ():
        size *= int(n)  # type: ignore[arg-type]
    return size


def _convolve_shape(b: dict[str, Any]) -> tuple[int]:
    n, m = _size(b["a"]), _size(b["v"])
    mode = b.get("mode", "full")
    if mode == "full":
        return (n + m - 1,)
    if mode == "same":
        return (max(n, m),)
    return (max(n, m) - min(n, m) + 1,)


def _histogram_shape(b: dict[str, Any]) -> Any:
    bins = b.get("bins", 10)
    if isinstance(bins, str):
        return None  # the number of bins depends on the values
    edges = shape_of(bins) or ()
    n = int(bins) if not edges else int(edges[0]) - 1  # type: ignore[arg-type]
    return ((n,), (n + 1,))


#: why a quantile stays NumPy's per lane
_NO_QUANTILE = "the namespace has no quantile: the reduced axes in one block"


def _own_reduction(name: str, instead: Lazy) -> Unless:
    """NumPy's reduction ``name`` by the namespace's own (:mod:`._compose_reduce`), where
    it takes the arguments; else ``instead``."""
    return Unless(_compose_reduce.why_not_reduction(name),
                  Compose(_compose_reduce.reduction(name)), instead)  # fmt: skip


def _own_join(name: str, instead: Lazy) -> Unless:
    """NumPy's join ``name`` by the namespace's ``concat`` or ``stack``
    (:mod:`._compose_join`), where it takes the arguments; else ``instead``."""
    return Unless(_compose_join.why_not_join(name), Compose(_compose_join.joining(name)), instead)


def _own_move(name: str, instead: Lazy) -> Unless:
    """NumPy's ``name`` by the namespace's function that moves data
    (:mod:`._compose_move`), where it takes the arguments; else ``instead``."""
    return Unless(_compose_move.why_not_move(name), Compose(_compose_move.moving(name)), instead)


def _own_transform(name: str, instead: Lazy) -> Unless:
    """NumPy's ``fft.<name>`` by the namespace's (:mod:`._compose_fft`), where it takes the
    arguments; else ``instead``."""
    short = name.split(".")[1]
    return Unless(_compose_fft.why_not_transform(short), Compose(_compose_fft.transform(short)),
                  instead)  # fmt: skip


def _product(name: str, instead: Lazy) -> Unless:
    """NumPy's product ``name`` by the namespace's ``tensordot``, ``vecdot`` or
    ``linalg.outer`` (:mod:`._compose_linalg`), where it takes the arguments; else
    ``instead``."""
    return Unless(_compose_linalg.why_not_product(name),
                  Compose(getattr(_compose_linalg, name.rpartition(".")[2])), instead)  # fmt: skip


def _two_axes(name: str) -> Unless:
    """``np.trace`` or ``np.diagonal`` by the namespace's ``linalg`` function of the
    matrices of two axes (:mod:`._compose_linalg`), where it takes the arguments; else
    Dask's own."""
    return Unless(_compose_linalg.why_not_two_axes, Compose(getattr(_compose_linalg, name)), Own())


def _own_select(name: str, instead: Lazy) -> Unless:
    """NumPy's ``name`` by the namespace's ``where``, ``clip`` or ``nonzero``
    (:mod:`._compose_select`), where it takes the arguments; else ``instead``."""
    return Unless(_compose_select.why_not_select(name), Compose(_compose_select.selecting(name)),
                  instead)  # fmt: skip


def _per_matrix(name: str, instead: Lazy) -> Unless:
    """NumPy's ``linalg.<name>`` of a stack by the namespace's (:mod:`._compose_linalg`),
    where it takes the arguments; else ``instead``."""
    short = name.split(".")[1]
    return Unless(_compose_linalg.why_not_per_matrix(short),
                  Compose(_compose_linalg.per_matrix(short)), instead)  # fmt: skip


#: every NumPy function that takes an array, by its qualified name
FUNCTIONS: dict[str, Row] = {r.numpy: r for r in [
    # --- reductions and statistics: Dask's own tree reductions, else each lane ---------------
    # (the namespace's reductions: right over unknown sizes and empty blocks on DASK)
    *rows("sum prod max min nansum nanprod nanmax nanmin", WHERE,
          lazy=lambda n: _own_reduction(n, Own()), standard="="),
    # (Dask's moments in an integer dtype= are not NumPy's, which truncates its mean)
    *rows("mean std var nanmean nanstd nanvar", WHERE, lazy=lambda n: _own_reduction(
        n, Unless(_integer_dtype, Own(), LANES("a", "where"))), standard="="),
    *rows("all any", WHERE, lazy=lambda n: _own_reduction(n, Own()), standard="="),
    *rows("amax", WHERE, lazy=_own_reduction("amax", Own("max")), standard="max"),
    *rows("amin", WHERE, lazy=_own_reduction("amin", Own("min")), standard="min"),
    *rows("count_nonzero", lazy=_own_reduction("count_nonzero", Own()), standard="="),
    # (Dask's arg-reductions break ties between blocks otherwise than NumPy, first index:
    # the namespace's keep the first, else NumPy per lane)
    *rows("argmax argmin nanargmax nanargmin", lazy=lambda n: _own_reduction(n, LANES("a")),
          standard="="),
    *rows("ptp", lazy=_own_reduction("ptp", Own()), standard="max(x, axis=...) - min(x, axis=...)"),
    *rows("median nanmedian", lazy=LANES("a"), note=_NO_QUANTILE),
    *rows("percentile quantile nanpercentile nanquantile",
          Broadcast(("a", "weights"), vectors=("weights",)),
          lazy=LANES("a", "weights"), note=_NO_QUANTILE),
    *rows("average", lazy=_own_reduction("average", LANES("a", "weights")),
          standard="mean, or sum(x * w) / sum(w)",
          note="weights of a's shape, or along axis"),
    *rows("cumsum cumprod", lazy=lambda n: _own_reduction(n, Own()),
          standard="cumulative_sum or cumulative_prod (of reshape(x, (-1,)) for axis=None)"),
    *rows("nancumsum nancumprod", lazy=lambda n: _own_reduction(
        n, Unless(_is_none("axis"), Own(), LANES("a"))), standard="="),
    *rows("cumulative_sum cumulative_prod", lazy=lambda n: _own_reduction(n, LANES("x")),
          standard="="),
    *rows("cov", lazy=Unless(_compose_linalg.why_not_plain_cov,
                             Compose(_compose_linalg.cov), WHOLE("m", "y", "fweights", "aweights")),
          standard="matmul of the centred data"),
    *rows("corrcoef", lazy=WHOLE("x", "y"), standard="matmul of the centred data"),
    *rows("histogram", lazy=Whole(("a", "weights", "bins"), shape=_histogram_shape)),
    *rows("histogram_bin_edges", lazy=Whole(("a", "weights", "bins"),
                                            shape=lambda b: (_histogram_shape(b) or (0, None))[1])),
    *rows("histogram2d", lazy=WHOLE("x", "y", "weights", "bins")),
    *rows("histogramdd", lazy=WHOLE("sample", "weights", "bins")),
    *rows("bincount", lazy=WHOLE_VALUES("x", "weights")),
    # --- element-wise functions: NumPy's on each block -----------------------------------
    *rows("angle", lazy=Blocks(("z",)), standard="atan2(imag(x), real(x))"),
    *rows("round around", lazy=lambda n: _own_move(n, Blocks(("a",))), standard="round",
          note="decimals= as NumPy rounds"),
    *rows("fix", Assign("out", ("x",)), lazy=Blocks(("x",)), standard="trunc"),
    *rows("i0 sinc", lazy=Blocks(("x",))),
    *rows("real imag", lazy=lambda n: _own_move(n, Blocks(("val",))), standard="="),
    *rows("iscomplex isreal", lazy=Blocks(("x",))),
    *rows("isneginf isposinf", Assign("out", ("x",)), lazy=Blocks(("x",))),
    *rows("nan_to_num", lazy=Blocks(("x",)), standard="where(isnan(x), 0.0, x)"),
    *rows("clip", Broadcast(("a", "a_min", "a_max", "min", "max")),
          Assign("out", ("a", "a_min", "a_max", "min", "max")),
          lazy=_own_select("clip", Blocks(("a", "a_min", "a_max", "min", "max"))), standard="="),
    *rows("isclose", Broadcast(("a", "b")), lazy=Blocks(("a", "b")),
          standard="abs(a - b) <= atol + rtol * abs(b)"),
    *rows("where", Broadcast(("condition", "x", "y")),
          lazy=_own_select("where", Unless(_is_none("x"), Blocks(("condition", "x", "y")), Own())),
          standard="=",
          note="where(condition) alone is nonzero(condition)"),
    *rows("select", Broadcast(("*condlist", "*choicelist", "default")),
          lazy=Blocks(("*condlist", "*choicelist", "default")), standard="where, nested"),
    *rows("piecewise", Broadcast(("x", "*condlist")), Callbacks(("funclist",)),
          lazy=Blocks(("x", "*condlist")), standard="where"),
    *rows("choose", Broadcast(("a", "*choices")), lazy=Blocks(("a", "*choices")),
          standard="take_along_axis or where"),
    *rows("interp", lazy=Blocks(("x",))),
    *rows("polyval", lazy=Blocks(("x",))),
    *rows("searchsorted", lazy=_own_move("searchsorted", Blocks(("v",))),
          standard="="),
    *rows("digitize", lazy=Blocks(("x",)), standard="searchsorted"),
    *rows("isin", lazy=_own_move("isin", Blocks(("element",))),
          standard="="),
    *rows("ravel_multi_index", lazy=Blocks(("*multi_index",))),
    *rows("unravel_index", lazy=Blocks(("indices",))),
    *rows("real_if_close", lazy=Refuse("its dtype depends on the values")),
    *rows("astype", lazy=_own_move("astype", Blocks(("x",))), standard="="),
    *rows("copy", lazy=_own_move("copy", Blocks(("a",))), standard="asarray(x, copy=True)"),
    # (the namespace's: a constant the planner makes again where needed, never holds)
    *rows("zeros_like ones_like empty_like full_like", lazy=lambda n: Unless(
        _compose_like.why_not_like(n), Compose(_compose_like.like(n)), Own()), standard="="),
    # --- along an axis: NumPy's on each lane --------------------------------------------------
    *rows("sort argsort", lazy=lambda n: _own_move(n, LANES("a")),
          standard="="),
    *rows("partition argpartition", lazy=LANES("a"), standard="sort or argsort",
          note="the namespace has no partition: NumPy's order of the other elements is its own"),
    *rows("sort_complex", lazy=LANES("a", along=-1),
          note="the namespace orders no complex numbers"),
    *rows("lexsort", lazy=WHOLE("keys")),
    *rows("unwrap", lazy=LANES("p"), note="the namespace has no unwrap"),
    *rows("trapezoid", Broadcast(("y", "x"), vectors=("x",)), lazy=LANES("y", "x"),
          note="the namespace has no trapezoid"),
    *rows("gradient", lazy=WHOLE("f", "varargs")),
    # (Dask's diff makes its prepend= and append= NumPy arrays: a lazy one is computed)
    *rows("diff", lazy=_own_move("diff", Unless(_device_array("prepend", "append"), Own(),
                                                WHOLE("a", "prepend", "append"))),
          standard="="),
    # (Dask's ediff1d casts to_end and to_begin that NumPy refuses under same_kind)
    *rows("ediff1d", lazy=_own_move("ediff1d", Unless(_given("to_end", "to_begin"), Own(),
                                                      WHOLE("ary"))),
          standard="diff(reshape(x, (-1,)))"),
    *rows("apply_along_axis", Callbacks(("func1d",)), lazy=LANES("arr"),
          note="a function of the caller's, called on each lane"),
    *rows("apply_over_axes", Callbacks(("func",)), lazy=WHOLE("a")),
    *rows("packbits unpackbits", lazy=LANES("a"), note="the namespace has no bit packing"),
    *rows("convolve correlate", lazy=Whole(("a", "v"), shape=_convolve_shape)),
    *rows("vander", lazy=WHOLE("x")),
    # --- sets and data-dependent sizes --------------------------------------------------------
    *rows("unique", lazy=WHOLE_VALUES("ar"),
          standard="unique_values, unique_counts, unique_inverse or unique_all"),
    *rows("unique_values unique_counts unique_inverse unique_all", lazy=WHOLE_VALUES("x"),
          standard="="),
    *rows("union1d intersect1d setdiff1d setxor1d", lazy=WHOLE_VALUES("ar1", "ar2")),
    *rows("nonzero", lazy=_own_select("nonzero", Own()), standard="="),
    *rows("argwhere", lazy=_own_select("argwhere", Own()), standard="stack(nonzero(x), axis=-1)"),
    *rows("flatnonzero", lazy=_own_select("flatnonzero", Own()),
          standard="nonzero(reshape(x, (-1,)))[0]"),
    *rows("compress", lazy=_own_move("compress", Own()), standard="boolean indexing: x[mask]"),
    *rows("extract", lazy=_own_move("extract", Own()), standard="boolean indexing: x[mask]"),
    *rows("trim_zeros", lazy=WHOLE_VALUES("filt")),
    # --- manipulation ----------------------------------------------------------------------
    *rows("append", lazy=lambda n: _own_join(n, Own()), standard="concat"),
    *rows("atleast_1d atleast_2d atleast_3d", lazy=lambda n: _own_move(n, Own()),
          standard="expand_dims"),
    *rows("block", lazy=Own(), standard="concat",
          note="nested lists of arrays"),
    *rows("broadcast_arrays", Broadcast(("*args",)), lazy=_own_move("broadcast_arrays", Own()),
          standard="="),
    *rows("broadcast_to", ToShape("array", "shape"), lazy=_own_move("broadcast_to", Own()),
          standard="="),
    *rows("concatenate concat", lazy=lambda n: _own_join(n, Own("concatenate")),
          standard="concat"),
    *rows("stack", lazy=lambda n: _own_join(n, Own()), standard="="),
    *rows("hstack vstack dstack", lazy=lambda n: _own_join(n, Own()),
          standard="concat (same rank) or stack (a new axis)"),
    *rows("column_stack", lazy=lambda n: _own_join(n, WHOLE("tup")), standard="stack or concat"),
    *rows("split array_split", lazy=lambda n: Compose(_compose.splitting(getattr(np, n))),
          standard="slicing, or unstack"),
    *rows("hsplit vsplit dsplit", lazy=lambda n: Compose(_compose.splitting(getattr(np, n))),
          standard="slicing"),
    *rows("unstack", lazy=Compose(_compose.unstack), standard="="),
    *rows("expand_dims", lazy=_own_move("expand_dims", Own()), standard="="),
    *rows("squeeze", lazy=_own_move("squeeze", Own()), standard="="),
    *rows("flip", lazy=_own_move("flip", Own()), standard="="),
    *rows("fliplr flipud", lazy=lambda n: _own_move(n, Own()),
          standard="flip"),
    *rows("moveaxis", lazy=_own_move("moveaxis", Own()), standard="="),
    *rows("rollaxis", lazy=_own_move("rollaxis", Own()), standard="moveaxis"),
    *rows("swapaxes", lazy=_own_move("swapaxes", Own()), standard="permute_dims"),
    *rows("transpose", lazy=_own_move("transpose", Own()),
          standard="permute_dims or matrix_transpose"),
    *rows("permute_dims", lazy=_own_move("permute_dims", Own("transpose")), standard="="),
    *rows("matrix_transpose", lazy=Compose(_compose.matrix_transpose), standard="="),
    *rows("ravel", lazy=_own_move("ravel", Unless(_not("order", "C"), Own(), WHOLE("a"))),
          standard="reshape"),
    *rows("reshape", lazy=_own_move("reshape", Unless(_not("order", "C"), Own(), WHOLE("a"))),
          standard="="),
    *rows("resize", lazy=WHOLE("a"), standard="tile and reshape"),
    *rows("repeat", lazy=_own_move("repeat", Unless(_is_none("axis"), Own(),
                                                    WHOLE("a", "repeats"))),
          standard="="),
    *rows("tile", lazy=_own_move("tile", Own()), standard="="),
    *rows("roll", lazy=_own_move("roll", Own()), standard="="),
    *rows("rot90", lazy=_own_move("rot90", Own()), standard="flip and matrix_transpose"),
    *rows("insert", lazy=Unless(_is_none("axis"), Own(), WHOLE("arr", "obj", "values")),
          standard="concat and slicing",
          note="the namespace has no insert"),
    *rows("delete", lazy=Unless(_is_none("axis"), Own(), WHOLE("arr", "obj")),
          standard="concat and slicing",
          note="the namespace has no delete"),
    *rows("pad", lazy=Unless(_pad_wider_than_axis, _own_move("pad", Own()), WHOLE("array")),
          standard="="),
    *rows("meshgrid", lazy=_own_move("meshgrid", Own()), standard="="),
    *rows("ix_", lazy=WHOLE("args")),
    *rows("diag", lazy=_own_move("diag", Own()), standard="linalg.diagonal (of a matrix)",
          note="of a vector: the namespace makes no matrix of it"),
    *rows("diagflat", lazy=WHOLE("v")),
    *rows("diagonal", lazy=_two_axes("diagonal"), standard="linalg.diagonal"),
    *rows("trace", lazy=_two_axes("trace"), standard="linalg.trace"),
    *rows("tril triu", lazy=lambda n: _own_move(n, Own()),
          standard="="),
    *rows("tril_indices_from triu_indices_from diag_indices_from", lazy=Value(shapes_only=True)),
    # --- indexing and writes ---------------------------------------------------------------
    *rows("take", lazy=_own_move("take", Unless(_given("mode"), Unless(_is_none("axis"), Own(),
                                                    WHOLE("a", "indices")), WHOLE("a", "indices"))),
          standard="="),
    *rows("take_along_axis", lazy=Compose(_compose.take_along_axis), standard="="),
    *rows("put", lazy=Writes("a", WHOLE("a", "ind", "v")), standard="x[key] = value"),
    *rows("putmask", lazy=Writes("a", WHOLE("a", "mask", "values")), standard="x[key] = value"),
    *rows("place", lazy=Writes("arr", WHOLE("arr", "mask", "vals")), standard="x[key] = value"),
    *rows("fill_diagonal", lazy=Writes("a", WHOLE("a", "val")), standard="x[key] = value"),
    *rows("put_along_axis", Broadcast(("indices", "values")),
          lazy=Writes("arr", WHOLE("arr", "indices", "values")), standard="x[key] = value"),
    *rows("copyto", Assign("dst", ("src", "where")),
          lazy=Writes("dst", Blocks(("dst", "src", "where"))), standard="x[key] = value"),
    # --- linear algebra ------------------------------------------------------------------------
    *rows("dot", lazy=_product("dot", Own()), standard="matmul, vecdot or tensordot"),
    *rows("vdot", lazy=_product("vdot", Own()), standard="vecdot"),
    *rows("inner", lazy=WHOLE("a", "b"), standard="vecdot (or tensordot)"),
    *rows("outer", lazy=_product("outer", Own()), standard="linalg.outer"),
    *rows("tensordot", lazy=_own_move("tensordot", Own()), standard="="),
    *rows("einsum", Einsum(), lazy=Own(), standard="=",
          note="the namespace has no einsum"),
    *rows("einsum_path", Einsum(), lazy=Value(shapes_only=True)),
    *rows("kron", lazy=WHOLE("a", "b")),
    *rows("cross", Stacks("a", "b", (1, 1), axes=("axisa", "axisb", "axis")),
          lazy=_product("cross", Unless(_case("vectors along other axes",
                            lambda b: "axes" if (b.get("axis"), b.get("axisa"), b.get("axisb"),
                                                 b.get("axisc")) != (None, -1, -1, -1) else ""),
                      MATRICES("a", "b", core=1), WHOLE("a", "b"))),
          standard="linalg.cross"),
    # (the namespace's own, per matrix of a stack)
    *rows("linalg.cholesky linalg.det linalg.inv linalg.eigh linalg.eigvalsh linalg.slogdet",
          lazy=lambda n: _per_matrix(n, MATRICES("a")), standard="="),
    # (NumPy's are real where every eigenvalue is, complex elsewhere: each block's own)
    *rows("linalg.eig linalg.eigvals", lazy=Refuse("the result's dtype depends on the values "
                                                   "(complex where an eigenvalue is not real)"),
          note="the namespace has no eig: not the standard's"),
    *rows("linalg.matrix_power", lazy=MATRICES("a"), standard="=",
          note="its dtype depends on n's sign: integers kept for n >= 0"),
    # (the namespace's own factorizations: TSQR of a tall matrix in row blocks on DASK)
    *rows("linalg.svd linalg.pinv", lazy=lambda n: Unless(
        _compose_linalg.why_not_one_matrix("a", per_matrix={"hermitian": (True,)},
                                           qr_first=n == "linalg.svd"),
        Compose(getattr(_compose_linalg, n.split(".")[1])), MATRICES("a")),
        standard="="),
    *rows("linalg.qr", lazy=Unless(_compose_linalg.why_not_one_matrix("a", per_matrix={"mode": ("raw",)}),
                                   Compose(_compose_linalg.qr), MATRICES("a")),
          standard="="),
    *rows("linalg.svdvals linalg.matrix_norm", lazy=lambda n: _per_matrix(n, MATRICES("x")),
          standard="="),
    *rows("linalg.cond", lazy=MATRICES("x"), standard="svdvals, max / min",
          note="the namespace has no cond: not the standard's"),
    *rows("linalg.matrix_rank", lazy=_per_matrix("linalg.matrix_rank", MATRICES("A")),
          standard="="),
    *rows("linalg.solve", Stacks("a", "b", (2, 2)),
          lazy=_per_matrix("linalg.solve", MATRICES("a", "b")), standard="="),
    *rows("linalg.lstsq", lazy=Unless(_compose_linalg.why_not_one_matrix("a", ranks={"b": (1, 2)}),
                                      Compose(_compose_linalg.lstsq), WHOLE_VALUES("a", "b")),
          standard="linalg.solve (of the normal equations)"),
    *rows("linalg.multi_dot", lazy=WHOLE("arrays"), standard="matmul, one product at a time"),
    *rows("linalg.norm", lazy=Unless(_compose_linalg.why_not_norm, Compose(_compose_linalg.norm),
                                     Own()),
          standard="linalg.vector_norm or linalg.matrix_norm"),
    *rows("linalg.vector_norm", lazy=_per_matrix("linalg.vector_norm", LANES("x")), standard="="),
    *rows("linalg.tensorinv", lazy=WHOLE("a")),
    *rows("linalg.tensorsolve", lazy=WHOLE("a", "b")),
    *rows("linalg.cross", Stacks("x1", "x2", (1, 1), axes=("axis", "axis")),
          lazy=_per_matrix("linalg.cross", Unless(_not("axis", -1), MATRICES("x1", "x2", core=1),
                                                  WHOLE("x1", "x2"))),
          standard="="),
    *rows("linalg.vecdot", Stacks("x1", "x2", (1, 1), axes=("axis", "axis")),
          lazy=_per_matrix("linalg.vecdot", Unless(_not("axis", -1), MATRICES("x1", "x2", core=1),
                                                   WHOLE("x1", "x2"))),
          standard="="),
    *rows("linalg.matmul", Stacks("x1", "x2", (2, 2)), lazy=_product("linalg.matmul", Own("matmul")),
          standard="="),
    *rows("linalg.diagonal linalg.trace", lazy=lambda n: _per_matrix(n, MATRICES("x")),
          standard="="),
    *rows("linalg.matrix_transpose", lazy=Compose(_compose.matrix_transpose), standard="="),
    *rows("linalg.outer", lazy=_product("linalg.outer", WHOLE("x1", "x2")), standard="="),
    *rows("linalg.tensordot", lazy=_product("linalg.tensordot", Own("tensordot")), standard="="),
    # --- fft: NumPy's transform of each lane ------------------------------------------------------
    *rows("fft.fft fft.ifft fft.rfft fft.irfft fft.hfft fft.ihfft",
          lazy=lambda n: _own_transform(n, LANES("a")), standard="="),
    *rows("fft.fft2 fft.ifft2 fft.rfft2 fft.irfft2",
          lazy=lambda n: _own_transform(n, LANES("a", along="axes")),
          standard="fft.fftn (axes=(-2, -1))"),
    *rows("fft.fftn fft.ifftn fft.rfftn fft.irfftn",
          lazy=lambda n: _own_transform(n, LANES("a", along="axes")), standard="="),
    *rows("fft.fftshift fft.ifftshift", lazy=lambda n: _own_transform(n, LANES("x", along="axes")),
          standard="="),
    # --- polynomials ------------------------------------------------------------------------------
    *rows("poly", lazy=WHOLE("seq_of_zeros")),
    *rows("polyadd polysub", lazy=WHOLE("a1", "a2")),
    *rows("polymul", lazy=WHOLE("a1", "a2")),
    *rows("polyder polyint", lazy=WHOLE("p")),
    *rows("polydiv", lazy=WHOLE_VALUES("u", "v")),
    *rows("polyfit", lazy=WHOLE_VALUES("x", "y", "w")),
    *rows("roots", lazy=WHOLE_VALUES("p")),
    # --- what arrays are, not their values -------------------------------------------------------
    *rows("shape", lazy=Value(shapes_only=True), standard="x.shape"),
    *rows("ndim", lazy=Value(shapes_only=True), standard="x.ndim"),
    *rows("size", lazy=Value(shapes_only=True), standard="x.size"),
    *rows("iscomplexobj isrealobj", lazy=Value(shapes_only=True),
          standard="isdtype(x.dtype, 'complex floating')"),
    *rows("result_type", lazy=Value(shapes_only=True), standard="="),
    *rows("can_cast", lazy=Value(shapes_only=True), standard="="),
    *rows("common_type", lazy=Value(shapes_only=True)),
    *rows("min_scalar_type", lazy=Value()),
    *rows("may_share_memory shares_memory",
          lazy=lambda n: Compose(_compose.memory_question(getattr(np, n)), True),
          note="a question about memory: a lazy array's answer is about views"),
    # --- values out of the array world: computed, then NumPy's ----------------------------------
    *rows("allclose", Broadcast(("a", "b")), lazy=Value(),
          standard="all(abs(a - b) <= atol + rtol * abs(b))"),
    *rows("array_equal", lazy=Value(), standard="a.shape == b.shape and all(a == b)"),
    *rows("array_equiv", Broadcast(("a1", "a2"), tries=True), lazy=Value(),
          standard="all(a == b)"),
    *rows("array2string array_repr array_str", lazy=Value(), standard="repr(x) or str(x)"),
    *rows("save savez savez_compressed savetxt", lazy=Value(), standard="to_npy or to_zarr"),
    *rows("datetime_as_string busday_count busday_offset is_busday", lazy=Value(),
          note="dates: not the standard's dtypes"),
    # --- NumPy's creation functions that dispatch on an array (like=) ----------------------------
    *rows("linspace", lazy=Own(), standard="linspace",
          note="bounds that are arrays"),
    *rows("logspace geomspace", lazy=WHOLE("start", "stop"), standard="linspace"),
    # --- numpy.lib --------------------------------------------------------------------------------
    *rows("lib.stride_tricks.sliding_window_view", lazy=Own("lib.stride_tricks.sliding_window_view"),
          standard="lib.stride_tricks.sliding_window_view",
          note="the namespace has no windows"),
    *rows("lib.scimath.sqrt lib.scimath.log lib.scimath.log2 lib.scimath.log10 "
          "lib.scimath.arccos lib.scimath.arcsin lib.scimath.arctanh",
          lazy=Refuse("the result's dtype depends on the values (complex where one is "
                      "outside the real domain)")),
    *rows("lib.scimath.logn lib.scimath.power", lazy=Refuse(
        "the result's dtype depends on the values (complex where one is outside the "
        "real domain)")),
]}  # fmt: skip


def _distribution_rows(cls: Any, prefix: str) -> list[Row]:
    """A random generator's methods: each distribution's parameters broadcast together
    and against ``size`` (a target shape), as for ``np.random.Generator.normal``."""
    kept = {"size", "dtype", "out", "method", "endpoint", "self"}
    special = {"choice", "multinomial", "multivariate_hypergeometric", "multivariate_normal",
               "dirichlet", "permutation", "permuted", "shuffle", "bytes", "spawn", "seed",
               "get_state", "set_state", "rand", "randn", "tomaxint"}  # fmt: skip
    out = []
    for name in sorted(dir(cls)):
        method = getattr(cls, name)
        if name.startswith("_") or not callable(method):
            continue
        try:
            params = [p for p in inspect.signature(method).parameters if p not in kept]
        except (TypeError, ValueError):
            continue
        has_size = "size" in inspect.signature(method).parameters
        rules: tuple[Rule, ...] = ()
        if name not in special and params:
            rules = (Broadcast(tuple(params)),)
            if has_size:
                rules += tuple(ToShape(p, "size") for p in params)
        out.append(Row(f"{prefix}.{name}", rules, Refuse("a random generator's stream"), ""))
    return out


#: NumPy's functions that make arrays from no array (no NEP 18 call reaches them): the
#: NumPy-code mode checks the user functions they call
MAKERS: dict[str, Row] = {r.numpy: r for r in [
    Row("fromfunction", (Callbacks(("function",)),), Refuse("makes arrays from no array")),
]}  # fmt: skip

#: NumPy's random generators' methods (the NumPy-code mode checks their parameters)
GENERATORS: dict[str, Row] = {
    r.numpy: r for r in [*_distribution_rows(np.random.Generator, "random.Generator"),
                         *_distribution_rows(np.random.RandomState, "random.RandomState")]
}  # fmt: skip

#: NumPy ufunc name -> the standard element-wise function of the same name or meaning
#: (NumPy's own ufunc computes; the name is for messages and the docs)
UFUNCS: dict[str, str] = {
    "absolute": "abs", "arccos": "acos", "arccosh": "acosh", "arcsin": "asin",
    "arcsinh": "asinh", "arctan": "atan", "arctan2": "atan2", "arctanh": "atanh",
    "power": "pow", "invert": "bitwise_invert", "bitwise_not": "bitwise_invert",
    "left_shift": "bitwise_left_shift", "right_shift": "bitwise_right_shift",
    "conjugate": "conj", "true_divide": "divide", "mod": "remainder",
    "fmod": "remainder (its result has the divisor's sign; fmod's, the dividend's)",
    "fmax": "maximum (it propagates NaN; fmax skips NaN)",
    "fmin": "minimum (it propagates NaN; fmin skips NaN)",
    "fabs": "abs", "cbrt": "pow(x, 1 / 3) for x >= 0", "exp2": "pow(2, x)",
    "deg2rad": "x * (pi / 180)", "radians": "x * (pi / 180)",
    "rad2deg": "x * (180 / pi)", "degrees": "x * (180 / pi)",
    "float_power": "pow(x1, x2) of float64 operands", "divmod": "floor_divide and remainder",
    "logaddexp2": "logaddexp(x1 * log(2), x2 * log(2)) / log(2)",
    "matvec": "matmul(A, x[..., None])[..., 0]", "vecmat": "matmul(x[..., None, :], A)[..., 0, :]",
    "heaviside": "where", "modf": "trunc and x - trunc(x)", "rint": "round",
}  # fmt: skip

#: NumPy's conversion functions: they read a strict array through ``__array__``, the
#: explicit exit to NumPy (a lazy array computes, through the planner)
CONVERSIONS = (
    "array", "asarray", "asanyarray", "ascontiguousarray", "asfortranarray",
    "asarray_chkfinite", "require",
)  # fmt: skip

#: the NumPy-code mode: NumPy's entry points with no hook, left as they are (the docs'
#: limits list them): they read arrays through ``__array__``, make views by strides, or
#: take no array
UNHOOKED = frozenset({
    "nditer", "broadcast", "nested_iters", "as_strided", "frompyfunc", "vectorize",
    "errstate", "printoptions", "set_printoptions", "get_printoptions", "seterr", "geterr",
    "seterrcall", "geterrcall", "setbufsize", "getbufsize", "show_config", "show_runtime",
    "info", "test", "get_include", "iterable", "isscalar", "isfortran", "typename",
    "issubdtype", "isdtype", "promote_types", "mintypecode", "base_repr", "binary_repr",
    "format_float_positional", "format_float_scientific", "datetime_data", "broadcast_shapes",
    "add_docstring", "add_newdoc", "add_newdoc_ufunc", "deprecate", "byte_bounds",
    "get_array_wrap", "from_dlpack", "asmatrix", "bmat", "fromregex",
})  # fmt: skip

#: NumPy's ufuncs whose fold does not depend on the order NumPy iterates: a lazy device may
#: reduce them block by block (np.power.reduce of a column is not that of the same column
#: in a matrix: NumPy's fold of the others follows the memory layout)
ASSOCIATIVE = frozenset({
    "add", "multiply", "maximum", "minimum", "fmax", "fmin", "logical_and", "logical_or",
    "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "gcd", "lcm", "logaddexp",
    "logaddexp2",
})  # fmt: skip

#: the NumPy-code mode: NumPy's indexers that make arrays (``np.ogrid[0:3, 0:2]``)
INDEXERS = ("ogrid", "mgrid", "r_", "c_")

#: the NumPy-code mode: NumPy's test assertions that call a function of the caller's (its
#: code is checked); NumPy's other assertions run unchecked, as NumPy's own code
CALLING_ASSERTIONS = frozenset({
    "assert_raises", "assert_raises_regex", "assert_warns", "assert_no_warnings",
    "assert_no_gc_cycles",
})  # fmt: skip


def lookup(name: str) -> Any:
    """NumPy's object of a qualified name (``"linalg.norm"``), or None."""
    return dotted(np, name)


def by_function() -> dict[Any, Row]:
    """The rows keyed by NumPy's function objects (an alias, ``np.concat`` of
    ``np.concatenate``, keeps the first name's row)."""
    found: dict[Any, Row] = {}
    for name, row in {**FUNCTIONS, **GENERATORS, **MAKERS}.items():
        func = lookup(name)
        if func is not None:
            found.setdefault(func, row)
    return found


def names_without_rows() -> list[str]:
    """NumPy's public functions that dispatch on arrays but have no row (a newer NumPy's):
    tested to be none on the NumPy this release supports."""
    missing = []
    for prefix, module in (("", np), ("linalg.", np.linalg), ("fft.", np.fft)):
        for name in dir(module):
            f = getattr(module, name)
            if not name.startswith("_") and hasattr(f, "_implementation") and \
                    prefix + name not in FUNCTIONS:  # fmt: skip
                missing.append(prefix + name)
    return sorted(missing)
