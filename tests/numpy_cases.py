"""Calls of every NumPy function in strict_array's table, over a grid of inputs.

``CASES[name]`` lists calls of ``numpy.<name>`` as ``(args, kwargs)`` holding NumPy
arrays: tests/test_numpy_meaning.py runs each on NumPy's arrays, and on strict arrays
(CPU, and DASK in several chunkings), and compares the values, dtypes, shapes and
errors. The grid covers dtypes (bool, integers, floats, complex), shapes (0-d, empty,
size-1 axes, 1-D to 3-D) and each keyword's values, one keyword at a time.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

Case = tuple[tuple[Any, ...], dict[str, Any]]

_RNG = np.random.default_rng(20261125)


def sample(shape: tuple[int, ...], dtype: Any, *, low: float = -3, high: float = 4,
           nan: bool = False) -> np.ndarray:  # fmt: skip
    """Deterministic values of ``dtype`` and ``shape`` (small integers where integral)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        a = _RNG.random(shape) > 0.5
    elif dtype.kind in "iu":
        a = _RNG.integers(0 if dtype.kind == "u" else int(low), int(high), shape).astype(dtype)
    elif dtype.kind == "f":
        a = (_RNG.random(shape) * (high - low) + low).astype(dtype)
    else:
        a = (_RNG.random(shape) * (high - low) + low + 1j * _RNG.random(shape)).astype(dtype)
    a = np.asarray(a)
    if nan and dtype.kind in "fc" and a.size > 1:
        a.flat[1] = np.nan
    return a


SHAPES = [(), (0,), (1,), (5,), (1, 4), (3, 1), (3, 4), (0, 3), (2, 1, 3), (2, 3, 4)]
DTYPES = ["bool", "int8", "uint8", "int64", "float32", "float64", "complex128"]


def grid(dtypes: Iterable[str] = DTYPES, shapes: Iterable[tuple[int, ...]] = SHAPES,
         min_ndim: int = 0, **kw: Any) -> list[np.ndarray]:  # fmt: skip
    """Each shape once (dtypes rotating) and each dtype once on a 2-D shape: a grid of
    inputs that meets every shape and every dtype, without every pair."""
    dtypes, shapes = list(dtypes), [s for s in shapes if len(s) >= min_ndim]
    out = [sample(s, dtypes[i % len(dtypes)], **kw) for i, s in enumerate(shapes)]
    out += [sample((3, 4) if min_ndim <= 2 else (2, 3, 4), d, **kw) for d in dtypes]
    return out


REAL = ["int8", "uint8", "int64", "float32", "float64"]
FLOAT = ["float32", "float64"]
NUMERIC = ["int64", "float32", "float64", "complex128"]
INEXACT = ["float32", "float64", "complex128"]


def calls(arrays: Iterable[Any], *, extra: Iterable[tuple[Any, ...]] = ((),),
          keywords: dict[str, list[Any]] | None = None,
          base: dict[str, Any] | None = None) -> list[Case]:  # fmt: skip
    """Each array with each ``extra`` positional tail, with no keyword, and then each
    keyword's values one at a time (on the first three arrays of the grid and on its
    largest): ``keywords`` maps a parameter to its values."""
    arrays = list(arrays)
    base = dict(base or {})
    out: list[Case] = []
    for a in arrays:
        for tail in extra:
            out.append(((a, *tail), dict(base)))
    if keywords:
        some = arrays[:3] + sorted(arrays, key=lambda a: a.size)[-2:]
        for name, values in keywords.items():
            for value in values:
                for a in some:
                    out.append(((a, *next(iter(extra))), {**base, name: value}))
    return out


def pairs(first: Iterable[np.ndarray], second: Callable[[np.ndarray], Iterable[Any]],
          **kw: Any) -> list[Case]:  # fmt: skip
    """Each array with each of the operands ``second`` gives for it."""
    return [((a, b), dict(kw)) for a in first for b in second(a)]


def like(a: np.ndarray) -> list[Any]:
    """Operands that broadcast with ``a``: same shape and dtype, another dtype, a size-1
    axis, a scalar, a list."""
    out: list[Any] = [sample(a.shape, a.dtype), sample(a.shape, "float64"), 2, 1.5]
    if a.ndim:
        out.append(sample((1,) * a.ndim, "int64"))
        out.append(sample(a.shape, "float32").tolist())
    return out


def without(names: Iterable[str], table: dict[str, list[Case]]) -> dict[str, list[Case]]:
    return {k: v for k, v in table.items() if k not in set(names)}


_AXES = {"axis": [0, -1, (0, 1), None]}
_REDUCE = {**_AXES, "keepdims": [True]}

ANY = grid()
REALS = grid(REAL)
FLOATS = grid(FLOAT)
NANS = grid(FLOAT, nan=True)
INEXACTS = grid(INEXACT)
NUMBERS = grid(NUMERIC)
VECTORS = [sample((n,), d) for n, d in ((0, "float64"), (1, "int64"), (5, "float64"),
                                         (7, "float32"), (6, "int8"))]  # fmt: skip
FLOAT_VECTORS = [v.astype("float64") for v in VECTORS]
MATRICES = [sample(s, d) for s, d in (((3, 3), "float64"), ((2, 3, 3), "float64"),
                                        ((4, 4), "float32"), ((0, 2, 2), "float64"),
                                        ((1, 1), "complex128"), ((3, 3), "int64"))]  # fmt: skip


def spd(shape: tuple[int, ...], dtype: Any = "float64") -> np.ndarray:
    a = sample(shape, dtype)
    return a @ np.swapaxes(a, -1, -2).conj() + shape[-1] * np.eye(shape[-1], dtype=dtype)


SPD = [spd((3, 3)), spd((2, 3, 3)), spd((4, 4), "float32"), spd((1, 1), "complex128")]
RECTANGLES = [sample(s, d) for s, d in (((4, 3), "float64"), ((3, 5), "float64"),
                                          ((2, 4, 3), "float64"), ((3, 2), "float32"))]  # fmt: skip
INDICES = np.array([2, 0, 1, 0])
MASK = np.array([[True, False, True, True], [False, True, False, True],
                 [True, True, False, False]])  # fmt: skip


def _reduction(
    dtypes: list[str],
    extra: dict[str, list[Any]] | None = None,
    nan: bool = False,
    where: bool = True,
) -> list[Case]:
    keywords = dict(_REDUCE, **(extra or {}))
    cases = calls(grid(dtypes, nan=nan), keywords=keywords)
    if where:
        cases.append(((sample((3, 4), dtypes[-1], nan=nan),), {"where": MASK}))
        cases.append(((sample((3, 4), dtypes[-1], nan=nan),), {"where": MASK[0]}))
    return cases


_UNSORTED = sample((6,), "float64")

CASES: dict[str, list[Case]] = {
    # --- reductions and statistics ------------------------------------------------------------------
    **{n: _reduction(DTYPES, {"dtype": ["float64", "int64"]}) for n in ("sum", "prod")},
    "mean": _reduction(NUMERIC, {"dtype": ["float32"]}),
    **{n: _reduction(NUMERIC, {"ddof": [1, 3], "correction": [1]}) for n in ("std", "var")},
    **{n: _reduction(REAL + ["bool"], {"initial": [0]}) for n in ("max", "min", "amax", "amin")},
    **{n: _reduction(DTYPES) for n in ("all", "any")},
    **{n: _reduction(FLOAT, {"dtype": ["float64"]}, nan=True) for n in ("nansum", "nanprod", "nanmean")},
    **{n: _reduction(FLOAT, {"ddof": [1, 2]}, nan=True) for n in ("nanstd", "nanvar")},
    **{n: _reduction(FLOAT, nan=True) for n in ("nanmax", "nanmin")},
    **{n: calls(grid(REAL, min_ndim=1), keywords={"axis": [0, -1], "keepdims": [True]})
       for n in ("argmax", "argmin")},
    **{n: calls(grid(FLOAT, min_ndim=1, nan=True)[2:], keywords={"axis": [0, -1]})
       for n in ("nanargmax", "nanargmin")},
    "count_nonzero": calls(ANY, keywords=_REDUCE),
    "ptp": calls(grid(REAL, min_ndim=1)[2:], keywords=_REDUCE),
    **{n: calls(grid(NUMERIC), keywords={"axis": [0, -1, None], "keepdims": [True]})
       for n in ("median",)},
    "nanmedian": calls(NANS, keywords={"axis": [0, -1, None], "keepdims": [True]}),
    **{n: calls(grid(REAL), extra=[(50,), ([10, 90],)],
                keywords={"axis": [0, -1], "keepdims": [True], "method": ["nearest", "lower"]})
       for n in ("percentile", "nanpercentile")},
    **{n: calls(grid(REAL), extra=[(0.5,), ([0.1, 0.9],)],
                keywords={"axis": [0, -1], "keepdims": [True], "method": ["midpoint", "higher"]})
       for n in ("quantile", "nanquantile")},
    "average": [*calls(grid(NUMERIC), keywords={"axis": [0, -1, None], "keepdims": [True],
                                                "returned": [True]}),
                ((sample((3, 4), "float64"),), {"weights": sample((3, 4), "float64", low=1)}),
                ((sample((3, 4), "float64"),), {"weights": sample((4,), "float64", low=1),
                                                "axis": 1}),
                ((sample((3, 4), "int64"),), {"weights": sample((3,), "float64", low=1),
                                              "axis": 0, "returned": True})],
    **{n: calls(grid(DTYPES), keywords={"axis": [0, -1], "dtype": ["float64"]})
       for n in ("cumsum", "cumprod")},
    **{n: calls(grid(FLOAT, nan=True), keywords={"axis": [0, -1]})
       for n in ("nancumsum", "nancumprod")},
    **{n: calls(grid(NUMERIC, min_ndim=1, shapes=[(0,), (1,), (5,)]),
                keywords={"include_initial": [True], "dtype": ["float64"]}) +
          calls(grid(NUMERIC, min_ndim=2), base={"axis": 0},
                keywords={"include_initial": [True]})
       for n in ("cumulative_sum", "cumulative_prod")},
    "cov": [*calls([sample((3, 6), "float64"), sample((2, 4), "int64"), sample((5,), "float64"),
                    sample((4, 3), "float32")],
                   keywords={"rowvar": [False], "bias": [True], "ddof": [0, 2]}),
            ((sample((2, 5), "float64"),), {"aweights": sample((5,), "float64", low=0.5)}),
            ((sample((2, 5), "float64"),), {"fweights": np.array([1, 2, 1, 3, 1])}),
            ((sample((5,), "float64"), sample((5,), "float64")), {})],
    "corrcoef": calls([sample((3, 6), "float64"), sample((4, 3), "float64"),
                       sample((2, 5), "int64")], keywords={"rowvar": [False]}),
    "histogram": [*calls([sample((20,), "float64"), sample((4, 5), "int64"), sample((0,), "float64")],
                         keywords={"bins": [3, [0.0, 1.0, 2.5, 4.0]], "range": [(-1, 2)],
                                   "density": [True]}),
                  ((sample((20,), "float64"),), {"weights": sample((20,), "float64")}),
                  ((sample((20,), "float64"),), {"bins": "auto"})],
    "histogram_bin_edges": calls([sample((20,), "float64"), sample((4, 5), "int64")],
                                 keywords={"bins": [3, "auto"], "range": [(-1, 2)]}),
    "histogram2d": [((sample((10,), "float64"), sample((10,), "float64")), {}),
                    ((sample((10,), "float64"), sample((10,), "float64")), {"bins": 3}),
                    ((sample((10,), "float64"), sample((10,), "float64")), {"bins": (2, 4)})],
    "histogramdd": [((sample((10, 2), "float64"),), {}), ((sample((10, 3), "float64"),), {"bins": 2})],
    "bincount": [((np.array([0, 1, 1, 3, 2, 1, 7]),), {}),
                 ((np.array([0, 1, 1, 3]),), {"minlength": 6}),
                 ((np.array([0, 1, 1, 3]),), {"weights": np.array([0.5, 1.0, 2.0, 0.25])}),
                 ((np.array([], dtype=np.int64),), {})],
    # --- element-wise --------------------------------------------------------------------------------
    "angle": calls(grid(NUMERIC), keywords={"deg": [True]}),
    **{n: calls(grid(NUMERIC), keywords={"decimals": [1, -1, 2]}) for n in ("round", "around")},
    "fix": calls(grid(REAL)),
    "i0": calls(grid(FLOAT)),
    "sinc": calls(grid(INEXACT)),
    **{n: calls(grid(NUMERIC)) for n in ("real", "imag", "iscomplex", "isreal")},
    **{n: calls(grid(FLOAT, nan=True) + [np.array([np.inf, -np.inf, 1.0])])
       for n in ("isneginf", "isposinf")},
    "nan_to_num": calls(grid(INEXACT, nan=True) + [np.array([np.inf, -np.inf, np.nan])],
                        keywords={"nan": [1.5], "posinf": [9.0], "neginf": [-9.0]}),
    "clip": [*calls(grid(REAL), extra=[(1.5, 3.5), (0, 2), (None, 1)]),
             ((sample((3, 4), "float64"), sample((3, 4), "float64"), 3.0), {}),
             ((sample((3, 4), "int64"), sample((1, 4), "int64"), sample((3, 1), "int64")), {}),
             ((sample((3, 4), "int8"),), {"min": 0, "max": 2}),
             ((sample((3, 4), "float32"), 0.5, 2.5), {})],
    "isclose": [*pairs(grid(NUMERIC), like),
                ((sample((3, 4), "float64"), sample((3, 4), "float64")), {"rtol": 0.5, "atol": 1.0}),
                ((np.array([np.nan, 1.0]), np.array([np.nan, 1.0])), {"equal_nan": True})],
    "where": [*[((a > 0, a, b), {}) for a in grid(REAL) for b in like(a)[:4]],
              ((sample((3, 4), "float64") > 0,), {})],
    "select": [(([MASK, ~MASK], [sample((3, 4), "float64"), sample((3, 4), "int64")]), {}),
               (([MASK], [sample((3, 4), "float64")]), {"default": 9.5}),
               (([MASK[0], MASK[1]], [sample((4,), "int64"), 2]), {})],
    "piecewise": [((sample((3, 4), "float64"), [MASK, ~MASK], [0.5, lambda v: v * 2]), {}),
                  ((sample((5,), "float64"), [sample((5,), "float64") > 0], [lambda v: -v]), {})],
    "choose": [((np.array([[0, 1], [1, 0]]), [sample((2, 2), "float64"), sample((2, 2), "float64")]), {}),
               ((np.array([0, 1, 1]), [sample((3,), "int64"), 7]), {}),
               ((np.array([0, 2]), [sample((2,), "int64"), sample((2,), "int64")]), {"mode": "clip"})],
    "interp": [((sample((6,), "float64"), np.sort(sample((5,), "float64")), sample((5,), "float64")), {}),
               ((sample((3, 4), "float64"), np.array([0.0, 1.0, 2.0]), np.array([1.0, 3.0, 2.0])),
                {"left": -1.0, "right": 9.0}),
               ((sample((5,), "float64"), np.array([0.0, 1.0, 2.0]), np.array([1.0, 3.0, 2.0])),
                {"period": 2.0})],
    "polyval": [((np.array([1.0, -2.0, 0.5]), sample((3, 4), "float64")), {}),
                ((np.array([3, 1]), sample((5,), "int64")), {})],
    "searchsorted": [((np.sort(sample((8,), "float64")), sample((3, 4), "float64")), {}),
                     ((np.sort(sample((8,), "int64")), sample((5,), "int64")), {"side": "right"}),
                     # (a sorter that sorts x1: on an unsorted x1 NumPy's answer is
                     # its binary search's accident, not a value)
                     ((_UNSORTED, sample((3,), "float64")), {"sorter": np.argsort(_UNSORTED)})],
    "digitize": [((sample((3, 4), "float64"), np.array([-1.0, 0.0, 2.0])), {}),
                 ((sample((5,), "float64"), np.array([3.0, 1.0, -1.0])), {"right": True})],
    "isin": [((sample((3, 4), "int64"), np.array([0, 2, 3])), {}),
             ((sample((5,), "int64"), np.array([1, 2])), {"invert": True}),
             ((sample((0,), "int64"), np.array([1])), {})],
    "ravel_multi_index": [(((np.array([0, 1, 2]), np.array([1, 0, 3])), (3, 4)), {}),
                          (((np.array([0, 4]), np.array([1, 5])), (3, 4)), {"mode": "clip"})],
    "unravel_index": [((np.array([0, 5, 11]), (3, 4)), {}),
                      ((np.array([[1, 2], [3, 4]]), (2, 3)), {"order": "F"})],
    "real_if_close": calls([sample((3,), "complex128").real.astype(complex)]),
    "astype": [((a, np.dtype(d)), {}) for a in grid(REAL)[:8] for d in ("float32", "int8")],
    "copy": calls(ANY),
    **{n: calls(grid(NUMERIC), keywords={"dtype": ["float32"], "shape": [(2, 5)]})
       for n in ("zeros_like", "ones_like", "empty_like")},
    "full_like": calls(grid(NUMERIC), extra=[(2.5,), (1,)], keywords={"dtype": ["int64"]}),
    # --- along an axis -----------------------------------------------------------------------------------
    **{n: calls(grid(REAL + ["bool"]), keywords={"axis": [0, None], "kind": ["stable"]})
       for n in ("sort", "argsort")},
    **{n: calls(grid(REAL, min_ndim=1, shapes=[(5,), (1, 4), (3, 4), (2, 3, 4)]), extra=[(0,), (-1,)],
                keywords={"axis": [0, None]})
       for n in ("partition", "argpartition")},
    "sort_complex": calls(grid(NUMERIC, min_ndim=1)),
    "lexsort": [(((sample((6,), "int64"), sample((6,), "int64")),), {}),
                ((sample((2, 5), "int64"),), {}), ((sample((3, 2, 4), "int64"),), {"axis": 1})],
    "unwrap": calls(grid(FLOAT, min_ndim=1), keywords={"axis": [0], "discont": [4.0],
                                                        "period": [3.0]}),
    "trapezoid": [*calls(grid(NUMERIC, min_ndim=1), keywords={"axis": [0], "dx": [0.5]}),
                  ((sample((3, 4), "float64"),), {"x": np.arange(4.0)}),
                  ((sample((3, 4), "float64"),), {"x": sample((3, 4), "float64")})],
    "gradient": [*calls(grid(FLOAT, min_ndim=1, shapes=[(5,), (3, 4), (2, 3, 4)]),
                        keywords={"axis": [0, -1], "edge_order": [2]}),
                 ((sample((5,), "float64"), 0.5), {}),
                 ((sample((3, 4), "float64"), 1.0, np.arange(4.0)), {})],
    "diff": [*calls(grid(NUMERIC, min_ndim=1), keywords={"n": [2, 0], "axis": [0]}),
             ((sample((3, 4), "float64"),), {"prepend": 0.0}),
             ((sample((3, 4), "float64"),), {"append": sample((3, 1), "float64")}),
             ((sample((5,), "int64"), 1), {})],
    "ediff1d": calls(grid(NUMERIC), keywords={"to_end": [[9.0]], "to_begin": [-1.0]}),
    "apply_along_axis": [((np.sum, 0, sample((3, 4), "float64")), {}),
                         ((lambda v: v[::-1] * 2, 1, sample((2, 3, 4), "float64")), {}),
                         ((np.diff, -1, sample((3, 5), "int64")), {})],
    "apply_over_axes": [((np.sum, sample((2, 3, 4), "float64"), [0, 2]), {})],
    "packbits": calls([sample((2, 9), "bool"), sample((4,), "uint8"), sample((3, 8), "uint8")],
                      keywords={"axis": [0, -1], "bitorder": ["little"]}),
    "unpackbits": calls([sample((2, 3), "uint8"), sample((4,), "uint8")],
                        keywords={"axis": [0], "count": [5], "bitorder": ["little"]}),
    **{n: [((a, v), {"mode": m}) for a, v in ((sample((6,), "float64"), sample((3,), "float64")),
                                              (sample((2,), "int64"), sample((5,), "int64")))
           for m in ("full", "same", "valid")] for n in ("convolve", "correlate")},
    "vander": calls([sample((4,), "float64"), sample((3,), "int64"), sample((0,), "float64")],
                    keywords={"N": [2, 5], "increasing": [True]}),
    # --- sets and data-dependent sizes ----------------------------------------------------------------
    "unique": [*calls(grid(REAL), keywords={"return_index": [True], "return_inverse": [True],
                                             "return_counts": [True], "axis": [0]}),
               ((np.array([1.0, np.nan, np.nan, 2.0]),), {}),
               ((np.array([1.0, np.nan, np.nan, 2.0]),), {"equal_nan": False})],
    **{n: calls(grid(REAL)) for n in ("unique_values", "unique_counts", "unique_inverse",
                                      "unique_all")},
    **{n: [((sample((6,), "int64"), sample((4,), "int64")), {}),
           ((sample((2, 3), "int64"), sample((5,), "int64")), {})]
       for n in ("union1d", "intersect1d", "setdiff1d", "setxor1d")},
    **{n: calls(grid(DTYPES)) for n in ("nonzero", "argwhere", "flatnonzero")},
    "compress": [((np.array([True, False, True]), sample((3, 4), "float64")), {"axis": 0}),
                 ((np.array([False, True]), sample((3, 4), "int64")), {"axis": 1}),
                 ((np.array([True, False, True]), sample((2, 3), "float64")), {})],
    "extract": [((MASK, sample((3, 4), "float64")), {}), ((MASK[0], sample((4,), "int64")), {})],
    "trim_zeros": [((np.array([0, 0, 1, 2, 0]),), {}), ((np.array([0.0, 1.0, 0.0]),), {"trim": "f"}),
                   ((np.array([[0, 0, 0], [0, 1, 0]]),), {"axis": 0})],
    # --- manipulation ----------------------------------------------------------------------------------
    "append": [((sample((3, 4), "float64"), sample((2, 4), "int64")), {"axis": 0}),
               ((sample((3,), "int64"), [1, 2]), {}), ((sample((2, 2), "float64"), 5.0), {})],
    **{n: calls(ANY) + [((sample((2,), "int64"), sample((3, 4), "float64")), {})]
       for n in ("atleast_1d", "atleast_2d", "atleast_3d")},
    "block": [(([[sample((2, 2), "float64"), sample((2, 1), "float64")],
                 [sample((1, 3), "int64")]],), {})],
    "broadcast_arrays": [((sample((3, 4), "float64"), sample((1, 4), "int64")), {}),
                         ((sample((3, 1), "float64"), sample((4,), "float64")), {}),
                         ((sample((2, 3), "float64"), 5.0), {})],
    "broadcast_to": [((sample((4,), "float64"), (3, 4)), {}), ((sample((3, 1), "int64"), (3, 5)), {}),
                     ((np.asarray(2.0), (2, 2)), {}), ((sample((3,), "float64"), 3), {})],
    **{n: [(((sample((2, 3), "float64"), sample((1, 3), "int64")),), {}),
           (((sample((2, 3), "float64"), sample((2, 2), "float64")),), {"axis": 1}),
           (((sample((3,), "float64"), sample((2,), "float64")),), {"axis": None}),
           (((sample((2, 3), "float32"), sample((2, 3), "float32")),), {"dtype": "float64"})]
       for n in ("concatenate", "concat")},
    "stack": [(((sample((2, 3), "float64"), sample((2, 3), "int64")),), {}),
              (((sample((3,), "float64"), sample((3,), "float64")),), {"axis": -1})],
    **{n: [(((sample((2, 3), "float64"), sample((2, 3), "int64")),), {}),
           (((sample((3,), "float64"), sample((3,), "float64")),), {})]
       for n in ("hstack", "vstack", "dstack", "column_stack")},
    **{n: [((sample((6, 4), "float64"), 2), {}), ((sample((6, 4), "float64"), [1, 4]), {}),
           ((sample((4, 6, 2), "int64"), 2), {"axis": 1})] for n in ("split",)},
    "array_split": [((sample((7, 3), "float64"), 3), {}), ((sample((5,), "int64"), [2, 3]), {}),
                    ((sample((2, 7), "float64"), 4), {"axis": 1})],
    "hsplit": [((sample((3, 4), "float64"), 2), {}), ((sample((6,), "float64"), 3), {})],
    "vsplit": [((sample((4, 3), "float64"), 2), {}), ((sample((4, 3), "float64"), [1]), {})],
    "dsplit": [((sample((2, 2, 4), "float64"), 2), {})],
    "unstack": calls(grid(NUMERIC, min_ndim=1), keywords={"axis": [1, -1]}),
    "expand_dims": calls(ANY, extra=[(0,), (-1,), ((0, 2),)]),
    "squeeze": calls(ANY, keywords={"axis": [0]}),
    "flip": calls(ANY, keywords={"axis": [0, -1, (0, 1)]}),
    **{n: calls(grid(NUMERIC, min_ndim=2 if n == "fliplr" else 1)) for n in ("fliplr", "flipud")},
    "moveaxis": calls(grid(NUMERIC, min_ndim=2), extra=[(0, -1), ((0, 1), (1, 0))]),
    "rollaxis": calls(grid(NUMERIC, min_ndim=2), extra=[(1,), (-1, 0)]),
    "swapaxes": calls(grid(NUMERIC, min_ndim=2), extra=[(0, 1), (-1, 0)]),
    **{n: calls(ANY) + [((sample((2, 3, 4), "float64"), (1, 0, 2)), {})]
       for n in ("transpose", "permute_dims")},
    "matrix_transpose": calls(grid(NUMERIC, min_ndim=2)),
    "ravel": calls(ANY, keywords={"order": ["F"]}),
    "reshape": [*calls(grid(NUMERIC, shapes=[(6,), (2, 3), (3, 2, 1)]), extra=[((3, 2),), (-1,)],
                       keywords={"order": ["F"]}),
                ((sample((2, 3), "float64"),), {"shape": (6,)})],
    "resize": [((sample((2, 3), "float64"), (3, 4)), {}), ((sample((4,), "int64"), 7), {}),
               ((sample((0,), "float64"), (2, 2)), {})],
    "repeat": [*calls(grid(NUMERIC), extra=[(2,), (0,)], keywords={"axis": [0]}),
               ((sample((3, 2), "float64"), np.array([1, 0, 2])), {"axis": 0})],
    "tile": calls(grid(NUMERIC), extra=[(2,), ((2, 1),), ((1, 2, 2),)]),
    "roll": calls(grid(NUMERIC), extra=[(1,), (-2,)], keywords={"axis": [0, (0, 1)]}),
    "rot90": calls(grid(NUMERIC, min_ndim=2), keywords={"k": [2, -1], "axes": [(1, 0)]}),
    "insert": [((sample((3, 4), "float64"), 1, 9.0), {}), ((sample((3, 4), "float64"), 1, 9.0), {"axis": 0}),
               ((sample((5,), "int64"), [0, 2], [7, 8]), {}),
               ((sample((3, 4), "float64"), 2, sample((3,), "float64")), {"axis": 1})],
    "delete": [((sample((3, 4), "float64"), 1), {}), ((sample((3, 4), "float64"), [0, 2]), {"axis": 1}),
               ((sample((5,), "int64"), slice(1, 3)), {})],
    "pad": [*[((a, w), {"mode": m}) for a in (sample((3,), "float64"), sample((2, 3), "int64"),
                                            sample((4, 5), "float64"))
              for w in (1, (2, 1), 4) for m in ("constant", "edge", "reflect", "symmetric", "wrap",
                                                 "mean", "maximum", "linear_ramp")],
            ((sample((3,), "float64"), 2), {"constant_values": 7.0}),
            ((sample((5,), "float64"), 2), {"mode": "reflect", "reflect_type": "odd"})],
    "meshgrid": [((sample((3,), "float64"), sample((4,), "int64")), {}),
                 ((sample((3,), "float64"), sample((2,), "float64")), {"indexing": "ij"}),
                 ((sample((3,), "float64"), sample((2,), "float64")), {"sparse": True})],
    "ix_": [((np.array([0, 2]), np.array([1, 3, 0])), {}), ((np.array([True, False, True]),), {})],
    "diag": [*calls([sample((3, 4), "float64"), sample((4,), "int64"), sample((3, 3), "complex128")],
                    keywords={"k": [1, -2]})],
    "diagflat": calls([sample((3,), "float64"), sample((2, 2), "int64")], keywords={"k": [1]}),
    "diagonal": calls(grid(NUMERIC, min_ndim=2), keywords={"offset": [1, -1],
                                                            "axis1": [1], "axis2": [0]}),
    "trace": calls(grid(NUMERIC, min_ndim=2), keywords={"offset": [1], "dtype": ["float32"]}),
    **{n: calls(grid(NUMERIC, min_ndim=1), keywords={"k": [1, -1]}) for n in ("tril", "triu")},
    **{n: calls([sample((3, 3), "float64"), sample((4, 4), "int64")])
       for n in ("tril_indices_from", "triu_indices_from", "diag_indices_from")},
    # --- indexing and writes -----------------------------------------------------------------------------
    "take": [((sample((3, 4), "float64"), INDICES), {}), ((sample((3, 4), "float64"), INDICES), {"axis": 1}),
             ((sample((5,), "int64"), np.array([[0, 4], [1, 1]])), {"axis": 0}),
             ((sample((3, 4), "float64"), np.array([7, -1])), {"mode": "wrap"}),
             ((sample((3, 4), "float64"), np.array([7])), {"mode": "clip", "axis": 0})],
    "take_along_axis": [((sample((3, 4), "float64"), np.argsort(sample((3, 4), "float64"), axis=1)),
                         {"axis": 1}),
                        ((sample((5,), "int64"), np.array([4, 0])), {"axis": None})],
    "put": [((sample((3, 4), "float64"), [0, 5], [9.0, 8.0]), {}),
            ((sample((5,), "int64"), 7, 1), {"mode": "clip"})],
    "putmask": [((sample((3, 4), "float64"), MASK, np.array([9.0, 8.0])), {})],
    "place": [((sample((3, 4), "float64"), MASK, [1.0, 2.0, 3.0]), {})],
    "fill_diagonal": [((sample((3, 4), "float64"), 9.0), {}), ((sample((5, 2), "int64"), 7), {"wrap": True})],
    "put_along_axis": [((sample((3, 4), "float64"), np.array([[0], [2], [1]]), 9.0, 1), {}),
                       ((sample((3, 4), "float64"), np.array([[0, 1, 2, 0]]), sample((1, 4), "float64"), 0), {})],
    "copyto": [((sample((3, 4), "float64"), sample((3, 4), "int64")), {}),
               ((sample((3, 4), "float64"), sample((1, 4), "float64")), {"where": MASK}),
               ((sample((3, 4), "int64"), 5), {})],
    # --- linear algebra ------------------------------------------------------------------------------
    "dot": [((a, b), {}) for a, b in ((sample((3, 4), "float64"), sample((4, 2), "float64")),
                                       (sample((4,), "int64"), sample((4,), "int64")),
                                       (sample((3, 4), "float64"), sample((4,), "float64")),
                                       (sample((2, 3, 4), "float64"), sample((4, 2), "float64")),
                                       (sample((3,), "float64"), 2.0))],
    "vdot": [((sample((3, 4), "complex128"), sample((12,), "complex128")), {}),
             ((sample((4,), "int64"), sample((4,), "float64")), {})],
    "inner": [((sample((3, 4), "float64"), sample((2, 4), "float64")), {}),
              ((sample((4,), "int64"), sample((4,), "int64")), {}), ((sample((3,), "float64"), 2.0), {})],
    "outer": [((sample((3,), "float64"), sample((4,), "int64")), {}),
              ((sample((2, 2), "float64"), sample((3,), "float64")), {})],
    "tensordot": [((sample((3, 4), "float64"), sample((4, 5), "float64")), {"axes": 1}),
                  ((sample((2, 3, 4), "float64"), sample((3, 4, 5), "float64")), {}),
                  ((sample((2, 3), "float64"), sample((3, 2), "float64")), {"axes": ([0, 1], [1, 0])})],
    "einsum": [(("ij,jk->ik", sample((3, 4), "float64"), sample((4, 2), "float64")), {}),
               (("ii", sample((3, 3), "float64")), {}), (("...i,...i->...", sample((2, 3), "float64"),
                                                          sample((2, 3), "float64")), {}),
               ((sample((3, 4), "float64"), [0, 1], sample((4,), "float64"), [1], [0]), {}),
               (("ij->ji", sample((2, 3), "int64")), {"optimize": True})],
    "einsum_path": [(("ij,jk,kl->il", sample((3, 4), "float64"), sample((4, 5), "float64"),
                      sample((5, 2), "float64")), {"optimize": "greedy"})],
    "kron": [((sample((2, 2), "float64"), sample((2, 3), "int64")), {}),
             ((sample((3,), "float64"), sample((2,), "float64")), {})],
    "cross": [((sample((4, 3), "float64"), sample((4, 3), "float64")), {}),
              ((sample((3,), "float64"), sample((3,), "float64")), {}),
              ((sample((2,), "float64"), sample((2,), "float64")), {}),
              ((sample((3, 4), "float64"), sample((4, 3), "float64")), {"axisa": 0, "axisb": 1}),
              ((sample((2, 3), "float64"), sample((2, 3), "float64")), {"axisc": 0})],
    **{f"linalg.{n}": calls(MATRICES) for n in ("det", "slogdet", "eigvals", "svdvals",
                                                 "matrix_rank", "cond", "pinv")},
    **{f"linalg.{n}": calls(SPD) for n in ("inv", "eigh", "eigvalsh")},
    "linalg.eig": calls([spd((3, 3)), spd((2, 3, 3))]),
    "linalg.cholesky": calls(SPD, keywords={"upper": [True]}),
    "linalg.svd": calls(RECTANGLES + MATRICES[:2], keywords={"full_matrices": [False],
                                                           "compute_uv": [False]}),
    "linalg.qr": calls(RECTANGLES, keywords={"mode": ["complete", "r", "raw"]}),
    "linalg.matrix_power": calls([sample((3, 3), "float64"), sample((2, 3, 3), "int64")],
                                 extra=[(2,), (0,), (-1,)]),
    "linalg.matrix_norm": calls(MATRICES, keywords={"ord": [1, "nuc", -2], "keepdims": [True]}),
    "linalg.solve": [((SPD[0], sample((3,), "float64")), {}), ((SPD[1], sample((2, 3, 2), "float64")), {}),
                     ((SPD[0], sample((3, 4), "float64")), {})],
    "linalg.lstsq": [((sample((5, 3), "float64"), sample((5,), "float64")), {"rcond": None}),
                     ((sample((4, 2), "float64"), sample((4, 2), "float64")), {})],
    "linalg.multi_dot": [(([sample((3, 4), "float64"), sample((4, 5), "float64"),
                            sample((5, 2), "float64")],), {})],
    "linalg.norm": calls([sample((4,), "float64"), sample((3, 4), "float64"), sample((2, 3, 4), "float64"),
                          sample((3, 3), "complex128")],
                         keywords={"ord": [1, 2, np.inf], "axis": [0, -1], "keepdims": [True]}) +
                   [((sample((3, 4), "float64"),), {"ord": "fro"}),
                    ((sample((2, 3, 4), "float64"),), {"axis": (1, 2), "ord": "nuc"})],
    "linalg.vector_norm": calls(grid(NUMERIC), keywords={"ord": [1, np.inf, 0], "axis": [0, (0, 1)],
                                                         "keepdims": [True]}),
    "linalg.tensorinv": [((np.eye(4).reshape(4, 2, 2) + 0.1,), {"ind": 1})],
    "linalg.tensorsolve": [((np.eye(6).reshape(2, 3, 6) + 0.1, sample((2, 3), "float64")), {})],
    **{f"linalg.{n}": [((a, b), {}) for a, b in ((sample((4, 3), "float64"), sample((4, 3), "float64")),
                                                  (sample((3,), "float64"), sample((3,), "int64")))]
       for n in ("cross", "vecdot")},
    "linalg.matmul": [((sample((3, 4), "float64"), sample((4, 2), "float64")), {}),
                      ((sample((2, 3, 4), "float64"), sample((2, 4, 2), "float64")), {})],
    **{f"linalg.{n}": calls(grid(NUMERIC, min_ndim=2), keywords={"offset": [1]})
       for n in ("diagonal", "trace")},
    "linalg.matrix_transpose": calls(grid(NUMERIC, min_ndim=2)),
    "linalg.outer": [((sample((3,), "float64"), sample((2,), "int64")), {})],
    "linalg.tensordot": [((sample((3, 4), "float64"), sample((4, 5), "float64")), {"axes": 1})],
    # --- fft ---------------------------------------------------------------------------------------------
    **{f"fft.{n}": calls(grid(NUMERIC if n not in ("irfft", "hfft") else INEXACT, min_ndim=1,
                              shapes=[(1,), (5,), (3, 4), (2, 3, 4)]),
                         keywords={"n": [4, 7], "axis": [0], "norm": ["ortho", "forward"]})
       for n in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
       if True},
    **{f"fft.{n}": calls(grid(NUMERIC if not n.startswith("i") else INEXACT, min_ndim=2,
                              shapes=[(3, 4), (2, 3, 4)]),
                         keywords={"s": [(2, 3)], "axes": [(0, 1)], "norm": ["ortho"]})
       for n in ("fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn", "rfftn", "irfftn")},
    **{f"fft.{n}": calls(grid(NUMERIC), keywords={"axes": [0, (0, 1)]})
       for n in ("fftshift", "ifftshift")},
    # --- polynomials ---------------------------------------------------------------------------------
    "poly": [((np.array([1.0, 2.0, -1.0]),), {}), ((sample((3, 3), "float64"),), {})],
    **{n: [((np.array([1.0, 2.0]), np.array([3.0, 0.5, 1.0])), {}),
           ((np.array([1, 2, 3]), np.array([4])), {})] for n in ("polyadd", "polysub", "polymul")},
    "polyder": [((np.array([1.0, 2.0, 3.0, 4.0]),), {}), ((np.array([1.0, 2.0, 3.0]), 2), {})],
    "polyint": [((np.array([1.0, 2.0, 3.0]),), {}), ((np.array([3.0, 1.0]),), {"m": 2, "k": [1.0, 2.0]})],
    "polydiv": [((np.array([1.0, 3.0, 2.0]), np.array([1.0, 1.0])), {})],
    "polyfit": [((np.arange(6.0), sample((6,), "float64"), 2), {}),
                ((np.arange(5.0), sample((5, 2), "float64"), 1), {}),
                ((np.arange(6.0), sample((6,), "float64"), 1), {"w": np.ones(6)})],
    "roots": [((np.array([1.0, -3.0, 2.0]),), {}), ((np.array([0.0, 1.0, -1.0]),), {})],
    # --- what arrays are ------------------------------------------------------------------------------
    **{n: calls(grid(DTYPES)[:8]) for n in ("shape", "ndim", "size", "iscomplexobj", "isrealobj",
                                             "min_scalar_type")},
    "result_type": [((sample((3,), "float32"), sample((2,), "int64")), {}),
                    ((sample((3,), "int8"), 2.5), {})],
    "can_cast": [((np.dtype("int32"), np.dtype("float64")), {}),
                 ((sample((3,), "float32"), np.dtype("int8")), {"casting": "same_kind"})],
    "common_type": [((sample((3,), "float32"), sample((2,), "int64")), {})],
    "may_share_memory": [((sample((3,), "float64"), sample((3,), "float64")), {})],
    "shares_memory": [((sample((3,), "float64"), sample((3,), "float64")), {})],
    # --- values out of the array world ----------------------------------------------------------------
    "allclose": [*pairs(grid(NUMERIC)[:8], lambda a: like(a)[:3]),
                 ((np.array([np.nan, 1.0]), np.array([np.nan, 1.0])), {"equal_nan": True})],
    "array_equal": [((sample((3,), "int64"), sample((3,), "int64")), {}),
                    ((np.arange(3), np.arange(3.0)), {}), ((np.arange(3), np.arange(4)), {})],
    "array_equiv": [((np.ones((3, 4)), np.ones(4)), {}), ((np.arange(3), np.arange(4)), {}),
                    ((np.ones((2, 1)), np.ones((2, 3))), {})],
    **{n: calls([sample((2, 3), "float64"), sample((4,), "int64")]) for n in
       ("array2string", "array_repr", "array_str")},
    "linspace": [((np.array([0.0, 1.0]), np.array([1.0, 3.0])), {"num": 4}),
                 ((np.asarray(0.0), np.asarray(2.0)), {"num": 5, "endpoint": False})],
    "logspace": [((np.asarray(0.0), np.asarray(2.0)), {"num": 3})],
    "geomspace": [((np.asarray(1.0), np.asarray(8.0)), {"num": 4})],
    "lib.stride_tricks.sliding_window_view": calls([sample((6,), "float64"), sample((3, 4), "int64")],
                                                   extra=[(2,)], keywords={"axis": [0]}),
    **{f"lib.scimath.{n}": calls([np.array([-1.0, 4.0]), np.array([0.25, 0.5])])
       for n in ("sqrt", "log", "log2", "log10", "arccos", "arcsin", "arctanh")},
    "lib.scimath.logn": [((2, np.array([-1.0, 4.0])), {})],
    "lib.scimath.power": [((np.array([-1.0, 4.0]), 0.5), {})],
}  # fmt: skip

#: rows whose calls write files, or take dates: tested by tests/test_numpy_meaning.py apart
APART = {
    "save": "writes a file",
    "savez": "writes a file",
    "savez_compressed": "writes a file",
    "savetxt": "writes a file",
    "datetime_as_string": "dates",
    "busday_count": "dates",
    "busday_offset": "dates",
    "is_busday": "dates",
}

#: NumPy's random generators' methods: the NumPy-code mode checks them
#: (tests/test_numpy_mode.py); strict arrays do not reach them through NEP 18
_ = (itertools, without)
