"""The rows of ``bench_namespace.py --suite functions``: one call of every public function.

Every public function of ``strict_array``, ``strict_array.linalg`` and
``strict_array.fft`` (read from their ``__all__``: :func:`public_functions`) has at
least one row here, on small inputs (8x8 float64 and the like), spelled once for the
three namespaces: ``array_api_compat.numpy`` (the reference), ``strict_array`` (on
``CPU``) and ``array_api_strict``. :func:`missing_rows` lists the public functions
without a row; the benchmark refuses to run while it is not empty, and
``tests/test_benchmark_coverage.py`` fails, so coverage cannot rot.

A statement uses ``ns`` (the namespace), ``np`` (NumPy) and the inputs of
:func:`inputs` by name. Functions that are not in the standard (``nansum``,
``einsum``, ``pad``, ``broadcast_in_dim``...) are compared with NumPy's own function
(``ref=``) in the reference column; the configuration and planning functions have
nothing to compare with and are timed for strict_array alone. Where a namespace does
not have a function (``array_api_strict`` has no ``nansum``) its cell is empty.
"""

from __future__ import annotations

import inspect
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from types import ModuleType

import numpy as np

#: the contenders: the reference first
REFERENCE = "array_api_compat.numpy"
CONTENDERS = (REFERENCE, "strict_array", "array_api_strict")


@dataclass(frozen=True)
class Row:
    """One benchmark row: a statement timed in each namespace."""

    label: str
    #: the public functions this row covers, as ``module.name`` ("linalg.det", "sum")
    covers: tuple[str, ...]
    #: the statement for every namespace (``ns`` is the namespace)
    stmt: str
    #: the reference column's statement when it is not ``stmt`` (a NumPy function)
    ref: str | None = None
    #: time strict_array alone (configuration and planning: nothing to compare with)
    alone: bool = False
    #: the kind of row, for the table's sections
    kind: str = "function"
    #: statements that differ per contender (overrides ``stmt`` and ``ref``)
    per: dict[str, str | None] = field(default_factory=dict)

    def statement(self, contender: str) -> str | None:
        if contender in self.per:
            return self.per[contender]
        if self.alone and contender != "strict_array":
            return None
        if contender == REFERENCE and self.ref is not None:
            return self.ref
        return self.stmt


def public_functions() -> list[str]:
    """Every public function of the namespace, ``linalg`` and ``fft``, from ``__all__``.

    A public function is a callable name of ``__all__`` that is not a type of its own
    (``Array``, ``Device``, the warnings, exceptions and policies) nor a data type:
    ``finfo`` and ``iinfo`` count, ``float64`` does not.
    """
    import strict_array as xp

    out = []
    for prefix, mod in (("", xp), ("linalg.", xp.linalg), ("fft.", xp.fft)):
        for name in mod.__all__:
            obj = getattr(mod, name)
            if isinstance(obj, (ModuleType, np.dtype)) or not callable(obj):
                continue
            if inspect.isclass(obj) and name not in ("finfo", "iinfo"):
                continue
            out.append(prefix + name)
    return sorted(out)


def missing_rows() -> list[str]:
    """The public functions that no row covers (must be empty)."""
    covered = {name for row in rows() for name in row.covers}
    return [name for name in public_functions() if name not in covered]


# --- inputs ----------------------------------------------------------------------------
def inputs(rng: np.random.Generator) -> dict[str, object]:
    """NumPy inputs, converted by each namespace's ``asarray`` (lists and strings stay)."""
    x = rng.uniform(0.1, 0.9, (8, 8))
    return {
        "x": x,  # 8x8 float64 in (0.1, 0.9): every unary function is defined there
        "y": rng.uniform(0.1, 0.9, (8, 8)),
        "v": rng.uniform(0.1, 0.9, 8),
        "r": rng.uniform(0.1, 0.9, (1, 8)),
        "s": np.asarray(0.5),  # 0-d float64
        "si": np.asarray(3),  # 0-d int64
        "sb": np.asarray(True),  # 0-d bool
        "b": rng.random((8, 8)) < 0.5,
        "b2": rng.random((8, 8)) < 0.5,
        "i": rng.integers(0, 8, (8, 8)),
        "j": rng.integers(0, 4, (8, 8)),
        "c": rng.normal(size=(8, 8)) + 1j * rng.normal(size=(8, 8)),
        "a3": rng.normal(size=(8, 3)),
        "b3": rng.normal(size=(8, 3)),
        "spd": x @ x.T + 8 * np.eye(8),
        "sv": np.sort(rng.random(64)),
        "iv": np.asarray([0, 2, 5]),
        "ia": np.argsort(x, axis=1),
        "w": rng.uniform(0.1, 0.9, (8, 8)),  # written to by the in-place rows
    }


#: inputs kept as they are (not converted to arrays)
PLAIN = {"L": [0.5, 0.25, 0.125, 1.0, 2.0, 4.0, 8.0, 16.0]}


def files() -> Iterator[dict[str, str]]:
    """Paths for the I/O rows: a ``.npy`` and a Zarr store of an 8x8 float64 (removed after)."""
    with tempfile.TemporaryDirectory() as d:
        npy = os.path.join(d, "x.npy")
        np.save(npy, np.ones((8, 8)))
        store = os.path.join(d, "x.zarr")
        import zarr

        z = zarr.open_array(store, mode="w", shape=(8, 8), dtype="f8")
        z[...] = 1.0
        yield {"npy": npy, "npy_out": os.path.join(d, "out.npy"), "zarr": store,
               "zarr_out": os.path.join(d, "out.zarr")}  # fmt: skip


# --- the rows --------------------------------------------------------------------------
def _elementwise() -> list[Row]:
    from strict_array._elementwise import BINARY, UNARY

    unary_input = {"bitwise_invert": "i", "logical_not": "b", "imag": "c", "conj": "c"}
    binary_inputs = {
        "bitwise_and": "i, j", "bitwise_or": "i, j", "bitwise_xor": "i, j",
        "bitwise_left_shift": "i, j", "bitwise_right_shift": "i, j",
        "logical_and": "b, b2", "logical_or": "b, b2", "logical_xor": "b, b2",
    }  # fmt: skip
    out = [Row(f"{n}(x)", (n,), f"ns.{n}({unary_input.get(n, 'x')})") for n in sorted(UNARY)]
    out += [Row(f"{n}(x, y)", (n,), f"ns.{n}({binary_inputs.get(n, 'x, y')})") for n in BINARY]
    out += [
        Row("add(x, 1.0)", ("add",), "ns.add(x, 1.0)"),
        Row("add(x, v), bd=(1,)", ("add",), "ns.add(x, v, broadcast_dimensions=(1,))",
            ref="ns.add(x, v[None, :])", per={"array_api_strict": "ns.add(x, v[None, :])"}),
        Row("clip(x, 0.2, 0.8)", ("clip",), "ns.clip(x, 0.2, 0.8)"),
        Row("clip(x, y, 0.8)", ("clip",), "ns.clip(x, y, 0.8)"),
    ]  # fmt: skip
    return out


def _namespace() -> list[Row]:
    R = Row
    return [
        # creation
        R("arange(10)", ("arange",), "ns.arange(10)"),
        R("asarray(list of 8 floats)", ("asarray",), "ns.asarray(L)"),
        R("asarray(x)", ("asarray",), "ns.asarray(x)"),
        R("empty((8, 8))", ("empty",), "ns.empty((8, 8))"),
        R("empty_like(x)", ("empty_like",), "ns.empty_like(x)"),
        R("eye(8)", ("eye",), "ns.eye(8)"),
        R("from_dlpack(x)", ("from_dlpack",), "ns.from_dlpack(x)"),
        R("full((8, 8), 1.0)", ("full",), "ns.full((8, 8), 1.0)"),
        R("full_like(x, 1.0)", ("full_like",), "ns.full_like(x, 1.0)"),
        R("linspace(0, 1, 8)", ("linspace",), "ns.linspace(0.0, 1.0, 8)"),
        R("meshgrid(v, v)", ("meshgrid",), "ns.meshgrid(v, v)"),
        R("ones((8, 8))", ("ones",), "ns.ones((8, 8))"),
        R("ones_like(x)", ("ones_like",), "ns.ones_like(x)"),
        R("tril(x)", ("tril",), "ns.tril(x)"),
        R("triu(x)", ("triu",), "ns.triu(x)"),
        R("zeros((8, 8))", ("zeros",), "ns.zeros((8, 8))"),
        R("zeros((8, 8), dtype=float32)", ("zeros",), "ns.zeros((8, 8), dtype=ns.float32)"),
        R("zeros_like(x)", ("zeros_like",), "ns.zeros_like(x)"),
        # data types
        R("astype(x, float32)", ("astype",), "ns.astype(x, ns.float32)"),
        R("can_cast(float64, float32)", ("can_cast",), "ns.can_cast(ns.float64, ns.float32)"),
        R("finfo(float64)", ("finfo",), "ns.finfo(ns.float64)"),
        R("iinfo(int64)", ("iinfo",), "ns.iinfo(ns.int64)"),
        R("isdtype(float64, 'real floating')", ("isdtype",),
          "ns.isdtype(ns.float64, 'real floating')"),
        R("result_type(x, y)", ("result_type",), "ns.result_type(x, y)"),
        # manipulation
        R("broadcast_arrays(r, x)", ("broadcast_arrays",), "ns.broadcast_arrays(r, x)"),
        R("broadcast_shapes((1, 8), (8, 8))", ("broadcast_shapes",),
          "ns.broadcast_shapes((1, 8), (8, 8))"),
        R("broadcast_to(r, (8, 8))", ("broadcast_to",), "ns.broadcast_to(r, (8, 8))"),
        R("concat((x, y))", ("concat",), "ns.concat((x, y))"),
        R("expand_dims(x, axis=0)", ("expand_dims",), "ns.expand_dims(x, axis=0)"),
        R("flip(x)", ("flip",), "ns.flip(x)"),
        R("moveaxis(x, 0, 1)", ("moveaxis",), "ns.moveaxis(x, 0, 1)"),
        R("permute_dims(x, (1, 0))", ("permute_dims",), "ns.permute_dims(x, (1, 0))"),
        R("repeat(x, 2)", ("repeat",), "ns.repeat(x, 2)"),
        R("reshape(x, (64,))", ("reshape",), "ns.reshape(x, (64,))"),
        R("roll(x, 1)", ("roll",), "ns.roll(x, 1)"),
        R("squeeze(r, axis=0)", ("squeeze",), "ns.squeeze(r, axis=0)"),
        R("stack((x, y))", ("stack",), "ns.stack((x, y))"),
        R("tile(x, (2, 2))", ("tile",), "ns.tile(x, (2, 2))"),
        R("unstack(x)", ("unstack",), "ns.unstack(x)"),
        # searching, sets, sorting
        R("argmax(x)", ("argmax",), "ns.argmax(x)"),
        R("argmax(x, axis=1)", ("argmax",), "ns.argmax(x, axis=1)"),
        R("argmin(x)", ("argmin",), "ns.argmin(x)"),
        R("count_nonzero(b)", ("count_nonzero",), "ns.count_nonzero(b)"),
        R("nonzero(b)", ("nonzero",), "ns.nonzero(b)"),
        R("searchsorted(sv, v)", ("searchsorted",), "ns.searchsorted(sv, v)"),
        R("where(b, x, y)", ("where",), "ns.where(b, x, y)"),
        R("where(b, x, 0.0)", ("where",), "ns.where(b, x, 0.0)"),
        R("isin(i, j)", ("isin",), "ns.isin(i, j)"),
        R("unique_all(i)", ("unique_all",), "ns.unique_all(i)"),
        R("unique_counts(i)", ("unique_counts",), "ns.unique_counts(i)"),
        R("unique_inverse(i)", ("unique_inverse",), "ns.unique_inverse(i)"),
        R("unique_values(i)", ("unique_values",), "ns.unique_values(i)"),
        R("argsort(x)", ("argsort",), "ns.argsort(x)"),
        R("sort(x)", ("sort",), "ns.sort(x)"),
        # statistics
        R("all(b)", ("all",), "ns.all(b)"),
        R("any(b)", ("any",), "ns.any(b)"),
        R("cumulative_prod(v)", ("cumulative_prod",), "ns.cumulative_prod(v)"),
        R("cumulative_sum(v)", ("cumulative_sum",), "ns.cumulative_sum(v)"),
        R("cumulative_sum(x, axis=0)", ("cumulative_sum",), "ns.cumulative_sum(x, axis=0)"),
        R("diff(v)", ("diff",), "ns.diff(v)"),
        R("max(x)", ("max",), "ns.max(x)"),
        R("mean(x)", ("mean",), "ns.mean(x)"),
        R("mean(x, axis=0)", ("mean",), "ns.mean(x, axis=0)"),
        R("min(x)", ("min",), "ns.min(x)"),
        R("prod(x)", ("prod",), "ns.prod(x)"),
        R("std(x)", ("std",), "ns.std(x)"),
        R("sum(x)", ("sum",), "ns.sum(x)"),
        R("sum(x, axis=0)", ("sum",), "ns.sum(x, axis=0)"),
        R("sum(x, axis=1, keepdims=True)", ("sum",), "ns.sum(x, axis=1, keepdims=True)"),
        R("var(x)", ("var",), "ns.var(x)"),
        # linear algebra (namespace)
        R("matmul(x, y)", ("matmul",), "ns.matmul(x, y)"),
        R("matmul(x, v)", ("matmul",), "ns.matmul(x, v)"),
        R("matrix_transpose(x)", ("matrix_transpose",), "ns.matrix_transpose(x)"),
        R("tensordot(x, y, axes=1)", ("tensordot",), "ns.tensordot(x, y, axes=1)"),
        R("vecdot(x, y)", ("vecdot",), "ns.vecdot(x, y)"),
        # indexing functions
        R("take(x, iv, axis=0)", ("take",), "ns.take(x, iv, axis=0)"),
        R("take_along_axis(x, ia, axis=1)", ("take_along_axis",),
          "ns.take_along_axis(x, ia, axis=1)"),
        R("__array_namespace_info__()", ("__array_namespace_info__",),
          "ns.__array_namespace_info__()"),
    ]  # fmt: skip


def _extensions() -> list[Row]:
    """Functions beyond the standard, against NumPy's function of the same job."""
    R = Row
    nan = ["nanargmax", "nanargmin", "nancumprod", "nancumsum", "nanmax", "nanmean",
           "nanmin", "nanprod", "nanstd", "nansum", "nanvar"]  # fmt: skip
    out = [
        R(f"{n}(x)" if "cum" not in n else f"{n}(v)", (n,),
          f"ns.{n}({'v' if 'cum' in n else 'x'})",
          ref=f"np.{n}({'v' if 'cum' in n else 'x'})",
          per={"array_api_strict": None}, kind="extension")
        for n in nan
    ]  # fmt: skip
    out += [
        R("einsum('ij,jk->ik', x, y)", ("einsum",), "ns.einsum('ij,jk->ik', x, y)",
          ref="np.einsum('ij,jk->ik', x, y)", per={"array_api_strict": None}, kind="extension"),
        R("pad(x, 1)", ("pad",), "ns.pad(x, 1)", ref="np.pad(x, 1)",
          per={"array_api_strict": None}, kind="extension"),
        R("sliding_window_view(v, 3)", ("sliding_window_view",), "ns.sliding_window_view(v, 3)",
          ref="np.lib.stride_tricks.sliding_window_view(v, 3)",
          per={"array_api_strict": None}, kind="extension"),
        R("broadcast_in_dim(v, (8, 8), (1,))", ("broadcast_in_dim",),
          "ns.broadcast_in_dim(v, (8, 8), (1,))", ref="np.broadcast_to(v[None, :], (8, 8))",
          per={"array_api_strict": None}, kind="extension"),
        R("sum_to(x, (1, 8))", ("sum_to",), "ns.sum_to(x, (1, 8))",
          ref="np.sum(x, axis=0, keepdims=True)", per={"array_api_strict": None},
          kind="extension"),
        R("to_npy(x, path)", ("to_npy",), "ns.to_npy(x, npy_out)", ref="np.save(npy_out, x)",
          per={"array_api_strict": None}, kind="extension"),
        R("from_npy(path, device=CPU)", ("from_npy",), "ns.from_npy(npy, device=ns.CPU)",
          ref="np.load(npy, mmap_mode='r')", per={"array_api_strict": None}, kind="extension"),
        R("to_zarr(x, store, overwrite=True)", ("to_zarr",),
          "ns.to_zarr(x, zarr_out, overwrite=True)", alone=True, kind="extension"),
        R("from_zarr(store, device=CPU)", ("from_zarr",), "ns.from_zarr(zarr, device=ns.CPU)",
          alone=True, kind="extension"),
    ]  # fmt: skip
    # configuration, devices and planning: no counterpart in the other namespaces
    config = [
        ("compute(x)", "compute", "ns.compute(x)"),
        ("compute_plan(x)", "compute_plan", "ns.compute_plan(x)"),
        ("persist(x)", "persist", "ns.persist(x)"),
        ("with planning(): pass", "planning", "with ns.planning():\n    pass"),
        ("with progress(False): pass", "progress", "with ns.progress(False):\n    pass"),
        ("with known_sizes(): pass", "known_sizes", "with ns.known_sizes():\n    pass"),
        ("with audit(): pass", "audit", "with ns.audit():\n    pass"),
        ("with default_device(CPU): pass", "default_device",
         "with ns.default_device(ns.CPU):\n    pass"),
        ("get_default_device()", "get_default_device", "ns.get_default_device()"),
        ("set_default_device(CPU)", "set_default_device", "ns.set_default_device(ns.CPU)"),
        ("get_rank_promotion()", "get_rank_promotion", "ns.get_rank_promotion()"),
        ("set_rank_promotion('raise')", "set_rank_promotion", "ns.set_rank_promotion('raise')"),
        ("with rank_promotion('raise'): pass", "rank_promotion",
         "with ns.rank_promotion('raise'):\n    pass"),
        ("get_rank_promotion_policy()", "get_rank_promotion_policy",
         "ns.get_rank_promotion_policy()"),
        ("set_rank_promotion_policy({})", "set_rank_promotion_policy",
         "ns.set_rank_promotion_policy({})"),
        ("with rank_promotion_policy({}): pass", "rank_promotion_policy",
         "with ns.rank_promotion_policy({}):\n    pass"),
        ("get_array_api_strict_flags()", "get_array_api_strict_flags",
         "ns.get_array_api_strict_flags()"),
        ("set_array_api_strict_flags(boolean_indexing=True)", "set_array_api_strict_flags",
         "ns.set_array_api_strict_flags(boolean_indexing=True)"),
        ("reset_array_api_strict_flags()", "reset_array_api_strict_flags",
         "ns.reset_array_api_strict_flags()"),
    ]  # fmt: skip
    out += [
        R(label, (name,), stmt, alone=True, kind="configuration") for label, name, stmt in config
    ]
    return out


def _linalg_fft() -> list[Row]:
    R = Row
    la = [
        ("cholesky(spd)", "cholesky", "spd"), ("cross(a3, b3)", "cross", "a3, b3"),
        ("det(x)", "det", "x"), ("diagonal(x)", "diagonal", "x"), ("eig(x)", "eig", "x"),
        ("eigh(spd)", "eigh", "spd"), ("eigvals(x)", "eigvals", "x"),
        ("eigvalsh(spd)", "eigvalsh", "spd"), ("inv(x)", "inv", "x"),
        ("matmul(x, y)", "matmul", "x, y"), ("matrix_norm(x)", "matrix_norm", "x"),
        ("matrix_power(x, 3)", "matrix_power", "x, 3"),
        ("matrix_rank(x)", "matrix_rank", "x"),
        ("matrix_transpose(x)", "matrix_transpose", "x"), ("outer(v, v)", "outer", "v, v"),
        ("pinv(x)", "pinv", "x"), ("qr(x)", "qr", "x"), ("slogdet(x)", "slogdet", "x"),
        ("solve(spd, x)", "solve", "spd, x"), ("svd(x)", "svd", "x"),
        ("svdvals(x)", "svdvals", "x"), ("tensordot(x, y)", "tensordot", "x, y"),
        ("trace(x)", "trace", "x"), ("vecdot(x, y)", "vecdot", "x, y"),
        ("vector_norm(x)", "vector_norm", "x"),
        ("vector_norm(x, axis=1)", "vector_norm", "x, axis=1"),
    ]  # fmt: skip
    ff = [
        ("fft(c)", "fft", "c"), ("ifft(c)", "ifft", "c"), ("fftn(c)", "fftn", "c"),
        ("ifftn(c)", "ifftn", "c"), ("rfft(x)", "rfft", "x"), ("irfft(c)", "irfft", "c"),
        ("rfftn(x)", "rfftn", "x"), ("irfftn(c)", "irfftn", "c"), ("hfft(c)", "hfft", "c"),
        ("ihfft(x)", "ihfft", "x"), ("fftfreq(8)", "fftfreq", "8"),
        ("rfftfreq(8)", "rfftfreq", "8"), ("fftshift(x)", "fftshift", "x"),
        ("ifftshift(x)", "ifftshift", "x"),
    ]  # fmt: skip
    return [R(f"linalg.{lbl}", (f"linalg.{n}",), f"ns.linalg.{n}({a})", kind="linalg")
            for lbl, n, a in la] + [
        R(f"fft.{lbl}", (f"fft.{n}",), f"ns.fft.{n}({a})", kind="fft") for lbl, n, a in ff
    ]  # fmt: skip


def _array() -> list[Row]:
    """Indexing forms, operators and the Python conversions (the array object)."""
    R = Row
    ops = [
        ("x + y", "x + y"), ("x + 1.0", "x + 1.0"), ("1.0 + x", "1.0 + x"),
        ("x - y", "x - y"), ("x * y", "x * y"), ("x * 2.0", "x * 2.0"),
        ("x / y", "x / y"), ("2.0 / x", "2.0 / x"), ("x ** 2", "x ** 2"),
        ("x // y", "x // y"), ("x % y", "x % y"), ("i & j", "i & j"), ("i << j", "i << j"),
        ("x < y", "x < y"), ("x == y", "x == y"), ("x >= 0.5", "x >= 0.5"),
        ("-x", "-x"), ("abs(x)", "abs(x)"), ("~i", "~i"), ("x @ y", "x @ y"),
        ("x @ v", "x @ v"), ("w += y", "w.__iadd__(y)"), ("w *= 1.0", "w.__imul__(1.0)"),
        ("x.T", "x.T"), ("x.mT", "x.mT"), ("x.shape", "x.shape"), ("x.dtype", "x.dtype"),
        ("x.ndim", "x.ndim"), ("x.size", "x.size"), ("x.device", "x.device"),
    ]  # fmt: skip
    idx = [
        ("x[1:3, ::2]", "x[1:3, ::2]"), ("x[2]", "x[2]"), ("x[2, 3]", "x[2, 3]"),
        ("x[..., 0]", "x[..., 0]"), ("x[None]", "x[None]"), ("x[-1, :]", "x[-1, :]"),
        ("x[b] (boolean mask)", "x[b]"), ("x[iv] (integer array)", "x[iv]"),
        ("x[iv, iv] (integer arrays)", "x[iv, iv]"), ("w[0] = 1.0", "w.__setitem__(0, 1.0)"),
        ("w[1:3] = 0.5", "w.__setitem__(slice(1, 3), 0.5)"),
        ("w[b] = 0.5", "w.__setitem__(b, 0.5)"),
    ]  # fmt: skip
    conv = [
        ("bool(sb)", "bool(sb)"), ("float(s)", "float(s)"), ("int(si)", "int(si)"),
        ("float(sum(x))", "float(ns.sum(x))"), ("bool(all(b))", "bool(ns.all(b))"),
        ("bool(x[0, 0] > 0.5)", "bool(x[0, 0] > 0.5)"), ("len(x)", "len(x)"),
    ]  # fmt: skip
    return (
        [R(lbl, (), s, kind="operator") for lbl, s in ops]
        + [R(lbl, (), s, kind="indexing") for lbl, s in idx]
        + [R(lbl, (), s, kind="conversion") for lbl, s in conv]
    )


def rows() -> list[Row]:
    """Every row of the functions suite, in table order."""
    return _elementwise() + _namespace() + _linalg_fft() + _extensions() + _array()
