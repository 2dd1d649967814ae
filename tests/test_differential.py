"""Differential tests: random programs of namespace calls agree on CPU and DASK.

SEMANTICS.md section 6 ("Devices agree"): every function and operator gives the same
shape, dtype and values on every device, whatever the chunking on DASK, or raises the
same exception type; DASK raises shape, rank and dtype errors when the expression is
built (only errors that depend on data values, such as an out-of-bounds value inside an
index array, may wait until compute time); ``x[key] = value`` and in-place operators
never change ``x``'s dtype; unknown sizes (``None``, after boolean masking) follow
section 4 everywhere.

How a test works: Hypothesis draws an initial array (rank 0-3, sizes 0-5, one of six
dtypes) and a chunking for DASK (one chunk, irregular chunks, size-1 chunks, irregular
chunks with blocks of size 0; the ``unknown`` tests also mask it so that DASK has
``None`` sizes). A program of 1-6 steps
follows, each a short piece of Python source drawn from one operation family and run on
both devices (``A(values, chunks)`` makes an auxiliary array on the device at hand,
ignoring ``chunks`` on CPU). After every step the result (or the mutated copy) is
computed on DASK with ``np.asarray`` and compared with CPU's; at the end every array
still alive is compared again. The planning axis: each DASK result is also computed in
planned passes forced by tiny thresholds (``FORCED_PLANS``; the default threshold leaves
these small arrays one graph) and must equal the one graph bit for bit, in dtype and
shape, or raise the same error (``PlanningChangesOutcome``). The ``feedback`` family
(``FEEDBACK``) builds the compositions planning cuts: a small statistic of an expression
(a mean, a max, an argmax, unique values, a small matrix of a contraction) used with
that expression again, through indexing, take, sorting, setitem, concat, casts, every
``linalg`` and ``fft`` function. A disagreement raises one of the ``Disagreement``
subclasses below (one per kind, so that Hypothesis reports distinct kinds separately)
with a standalone script that replays the program on both devices.

Each program test runs twice the profile's ``max_examples`` (120 programs under
``HYPOTHESIS_PROFILE=ci``, which is derandomized). To dig deeper::

    HYPOTHESIS_PROFILE=dev pytest tests/test_differential.py       # 600 per test, random
    DIFFERENTIAL_EXAMPLES=3000 HYPOTHESIS_PROFILE=dev pytest tests/test_differential.py
    DIFFERENTIAL_SEED=7 HYPOTHESIS_PROFILE=dev pytest ...           # another fixed search

``DIFFERENTIAL_SHRINK_SECONDS`` (default 15) bounds the time Hypothesis spends shrinking
each failing test (its own limit, 300 s, would blow CI's budget while bugs remain).
"""

from __future__ import annotations

import ast
import itertools
import math
import os
import re
import sys
import threading
import warnings
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, event, given, seed, settings
from hypothesis import strategies as st
from hypothesis.control import currently_in_test_context

import strict_array as xp
from strict_array import RankPromotionError, RankPromotionWarning
from strict_array._backends.dask import _plan

# --- settings -----------------------------------------------------------------------
# Each program test runs twice the profile's max_examples: 120 programs under
# HYPOTHESIS_PROFILE=ci (the whole file then takes about 2 minutes on 2 cores, a good
# part of it shrinking failures while strict_array still has them), 600 under "dev".
_PROFILE_EXAMPLES = settings().max_examples
EXAMPLES = int(os.environ.get("DIFFERENTIAL_EXAMPLES", "0")) or 2 * _PROFILE_EXAMPLES
PROGRAMS = settings(
    max_examples=EXAMPLES,
    # no "explain" phase: it replays failing programs for a long time and its comments
    # ("sometimes passed when ... varied") mean little for programs drawn step by step
    phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink),
    deadline=None,
    suppress_health_check=list(HealthCheck),
    print_blob=True,
)
_SEED = os.environ.get("DIFFERENTIAL_SEED")


def _seeded(f):
    return seed(int(_SEED))(f) if _SEED else f


DTYPES = ("float64", "float32", "int64", "int32", "bool", "complex128")

#: (threshold_bytes, small_bytes) of the planned passes every DASK result is also computed
#: in (the planning axis): at these arrays' sizes (up to a few KiB) nearly every reduction
#: of a shared input is cut; (8, 8) cuts even 0-d results of one-element inputs
FORCED_PLANS = ((8, 8), (64, 32))
nan, inf = math.nan, math.inf

# --- disagreements ------------------------------------------------------------------


class Disagreement(AssertionError):
    """CPU and DASK disagree (or a device breaks the contract); carries a replay script."""


class ValuesDiffer(Disagreement):
    pass


class ShapesDiffer(Disagreement):
    pass


class DtypesDiffer(Disagreement):
    pass


class MutationChangedArray(Disagreement):
    """``x[key] = v`` or ``x op= y`` changed ``x``'s dtype, shape or device."""


class ExceptionTypesDiffer(Disagreement):
    pass


class OnlyDaskRaises(Disagreement):
    """DASK refuses (when building) what CPU computes, outside section 4."""


class DaskFailsWhenComputing(Disagreement):
    """DASK builds the expression but computing it raises; CPU computes it."""


class OnlyCpuRaises(Disagreement):
    """CPU raises; DASK builds and computes a value."""


class ErrorOnlyWhenComputing(Disagreement):
    """Both raise, but DASK only when computing an error that does not depend on data."""


class ContractBroken(Disagreement):
    """An outcome SEMANTICS.md fixes on every device (e.g. bool broadcast_dimensions)."""


class UnknownSizeNotRefused(Disagreement):
    """Section 4: an unknown size against a known size other than 1 must raise when built."""


class PlanningChangesOutcome(Disagreement):
    """DASK computed in planned passes differs from DASK computed as one graph (planning
    may change memory and time, never a value, dtype, shape or whether it raises)."""


class HarnessError(Exception):
    """A bug in this file's generators (never a strict_array finding)."""


#: Most specific first: an exception is classified by the first class it is an instance of.
_CANONICAL = (
    RankPromotionError,
    np.linalg.LinAlgError,
    np.exceptions.AxisError,
    IndexError,
    KeyError,
    TypeError,
    ZeroDivisionError,
    OverflowError,
    NotImplementedError,
    ValueError,
    ArithmeticError,
    RuntimeError,
    Exception,
)


def canonical(e: BaseException) -> type:
    return next(c for c in _CANONICAL if isinstance(e, c))


def _canonical_class(cls: type) -> type:
    return next(c for c in _CANONICAL if issubclass(cls, c))


def describe(e: BaseException | None) -> str:
    if e is None:
        return "no exception"
    text = str(e).strip().splitlines()[0] if str(e).strip() else ""
    return f"{type(e).__module__}.{type(e).__qualname__}: {text[:300]}"


_SIZE_PAIRS = (
    re.compile(r"has sizes (\w+) and (\w+)"),
    re.compile(r"\(size (\w+)\) of shape .*? to axis \d+ \(size (\w+)\)"),
    re.compile(r"has size (\w+) but maps to axis \d+ of size (\w+)"),
    re.compile(r"target axis \d+ has size (\w+) but array axis \d+ has size (\w+)"),
)


_BROADCAST_TO = re.compile(r"broadcast_to: cannot broadcast shape (\(.*?\)) to (\(.*?\))")


#: strict_array's own build-time refusals of what needs a size unknown until computed
_UNKNOWN_SIZE_REFUSALS = re.compile(
    r"unknown until computed|cannot be checked before computing|the number of results is "
    r"not known"
)


def section4_refusal(e: BaseException) -> bool:
    """Whether ``e`` is strict_array's own build-time refusal of what needs a size that
    is unknown on DASK (the one difference section 6 allows): an unknown size meeting
    a known size other than 1, or a position on an axis of unknown size."""
    if canonical(e) is not ValueError:
        return False
    if _UNKNOWN_SIZE_REFUSALS.search(str(e)):
        return True
    found = _BROADCAST_TO.search(str(e))
    if found:
        shape, target = (ast.literal_eval(g) for g in found.groups())
        pairs = zip(reversed(shape), reversed(target))
        return any(a is None and b != 1 for a, b in pairs)
    for pattern in _SIZE_PAIRS:
        for a, b in pattern.findall(str(e)):
            pair = {a, b}
            if "unknown" in pair and len(pair) == 2 and (pair - {"unknown"}) != {"1"}:
                return True
    return False


# --- programs -----------------------------------------------------------------------


@dataclass
class Step:
    family: str
    lines: list[str]
    #: the pool variable to compare afterwards (a new result, or a mutated copy)
    target: str | None = None
    #: the target is a copy that the step mutates; its dtype/shape/device must stay
    mutated_from: str | None = None
    #: pool variables the step reads
    inputs: list[str] = field(default_factory=list)
    #: exception types that depend on data values: DASK may raise them when computing
    deferrable: tuple[type, ...] = ()
    #: the exception the contract requires on both devices
    expect: type | None = None
    #: section 4: an unknown DASK size meets a known size other than 1 (DASK must refuse)
    dask_refuses: bool = False
    #: a known mask size meets an unknown size: DASK may refuse when building
    dask_may_refuse: bool = False
    #: whether the step is added to the pool when both devices succeed
    keep: bool = True
    #: the step multiplies complex numbers and adds the products in an order that the
    #: chunking decides: a product with an infinite part has no single answer (see _close)
    complex_products: bool = False


_HARNESS_ERRORS = (NameError, SyntaxError, UnboundLocalError)


def _aux_array(dev: Any):
    def A(values: np.ndarray, chunks: Any = -1) -> xp.Array:
        if dev is xp.DASK:
            return xp.asarray(values, device=xp.DASK, chunks=chunks)
        return xp.asarray(values)

    return A


class Program:
    """Steps run on both devices, a pool of live arrays, and the checks after each step."""

    def __init__(self, mode: str = "raise"):
        self.mode = mode
        self.steps: list[Step] = []
        self.live: list[str] = []
        self.cpu: dict[str, Any] = self._env(xp.CPU)
        self.dask: dict[str, Any] = self._env(xp.DASK)
        self._count = 0
        self.initial_dtype: dict[str, np.dtype] = {}
        self.single_precision: set[str] = set()

    @staticmethod
    def _env(dev: Any) -> dict[str, Any]:
        return {"xp": xp, "np": np, "nan": nan, "inf": inf, "A": _aux_array(dev)}

    # names and what generators may know (CPU values and DASK shapes)
    def fresh(self, prefix: str = "v") -> str:
        self._count += 1
        return f"{prefix}{self._count}"

    def value(self, name: str) -> np.ndarray:
        return np.asarray(self.cpu[name])

    def shape(self, name: str) -> tuple[int, ...]:
        return tuple(self.cpu[name].shape)

    def dshape(self, name: str) -> tuple[int | None, ...]:
        return tuple(self.dask[name].shape)

    def dtype(self, name: str) -> np.dtype:
        return self.cpu[name].dtype

    def unknown(self, name: str) -> bool:
        return None in self.dshape(name)

    def pick(self, data: Any, pred: Any = None) -> str | None:
        names = [n for n in reversed(self.live) if pred is None or pred(self, n)]
        return data.draw(st.sampled_from(names)) if names else None

    # running ----------------------------------------------------------------------
    def _exec(self, env: dict[str, Any], step: Step) -> BaseException | None:
        code = compile("\n".join(step.lines), f"<step {len(self.steps)}>", "exec")
        try:
            with _quiet(), xp.rank_promotion(self.mode):  # type: ignore[arg-type]
                exec(code, env)
        except _HARNESS_ERRORS as e:
            raise HarnessError(f"{describe(e)}\n{self.script()}") from e
        except Exception as e:
            return e
        return None

    def run(self, step: Step) -> None:
        self.steps.append(step)
        if step.mutated_from is not None:
            self.initial_dtype[step.target] = self.dtype(step.mutated_from)  # type: ignore[index]
        if len({n for n in step.inputs if self.unknown(n)}) >= 2:
            # unknown against unknown: whether the sizes agree is data (section 4)
            step.deferrable = (*step.deferrable, ValueError, IndexError)
        cpu_err = self._exec(self.cpu, step)
        dask_err = self._exec(self.dask, step)
        phase = "build" if dask_err is not None else None
        t = step.target
        cpu_val = dask_val = None
        if t is not None and cpu_err is None:
            cpu_val = np.asarray(self.cpu[t])
        if t is not None and dask_err is None:
            try:
                with _quiet():
                    dask_val = np.asarray(self.dask[t])
            except Exception as e:
                dask_err, phase = e, "compute"
        if t is not None and (dask_err is None or phase == "compute"):
            self._check_planned(step, t, dask_val, dask_err)
        outcome = self._judge(step, cpu_err, dask_err, phase)
        if currently_in_test_context():
            event(f"{step.family}: {outcome}")
        if outcome == "both succeed" and t is not None:
            if any(
                n in self.single_precision or self.dtype(n) in (np.float32, np.complex64)
                for n in step.inputs
                if n in self.cpu
            ):  # computed from single-precision values: their rounding, in any dtype
                self.single_precision.add(t)
            self._compare(step, t, cpu_val, dask_val)
            if step.keep and not _order_dependent(step, cpu_val, dask_val):
                self.live.append(t)
        elif (
            outcome == "both raise"
            and phase == "build"
            and step.mutated_from is not None
            and t in self.cpu
            and t in self.dask
        ):
            # a refused assignment leaves the (copied) array as it was on both devices
            self._compare(step, t, np.asarray(self.cpu[t]), self._compute(step, t))
        if outcome != "both succeed" and t is not None:
            self.cpu.pop(t, None)
            self.dask.pop(t, None)

    def _check_planned(
        self, step: Step, name: str, one_graph: np.ndarray | None, err: BaseException | None
    ) -> None:
        """Compute DASK's ``name`` in forced planned passes (:data:`FORCED_PLANS`): the
        same values bit for bit, dtype and shape as the one graph, or the same error."""
        data = self.dask[name]._data
        for threshold, small in FORCED_PLANS:
            p = _plan.plan([data], threshold_bytes=threshold, small_bytes=small)
            if not p.reductions:
                continue  # one graph: what was just computed
            if currently_in_test_context():
                event(f"planned: {len(p.passes)} passes")
            planned: np.ndarray | None = None
            try:
                with _quiet():
                    planned = np.asarray(_plan.execute(p)[0])
            except AssertionError:  # the planner's own checks (planning-checks)
                raise
            except Exception as e:
                if err is None or canonical(e) is not canonical(err):
                    raise PlanningChangesOutcome(
                        self.report(
                            step,
                            f"{name} in {len(p.passes)} planned passes (threshold {threshold} B,"
                            f" cut points <= {small} B) raises {describe(e)}; as one graph: "
                            f"{describe(err) if err else 'computes'}\n{p}",
                        )
                    ) from e
                continue
            if err is not None or one_graph is None:
                raise PlanningChangesOutcome(
                    self.report(
                        step, f"{name}: one graph raises {describe(err)}, planned computes\n{p}"
                    )
                )
            if (
                planned.dtype != one_graph.dtype
                or planned.shape != one_graph.shape
                or not np.array_equal(planned, one_graph, equal_nan=planned.dtype.kind in "fc")
            ):
                raise PlanningChangesOutcome(
                    self.report(
                        step,
                        f"{name} in {len(p.passes)} planned passes (threshold {threshold} B, "
                        f"cut points <= {small} B):\nplanned   {planned.dtype} "
                        f"{planned.tolist()!r}\none graph {one_graph.dtype} "
                        f"{one_graph.tolist()!r}\n{p}",
                    )
                )

    def _compute(self, step: Step, name: str) -> np.ndarray:
        try:
            with _quiet():
                return np.asarray(self.dask[name])
        except Exception as e:
            raise DaskFailsWhenComputing(
                self.report(step, f"computing {name} on DASK raises {describe(e)}")
            ) from e

    def _judge(
        self,
        step: Step,
        cpu_err: BaseException | None,
        dask_err: BaseException | None,
        phase: str | None,
    ) -> str:
        both = f"CPU: {describe(cpu_err)}\nDASK ({phase or 'ok'}): {describe(dask_err)}"
        if step.expect is not None:
            for name, err in (("CPU", cpu_err), ("DASK", dask_err)):
                if err is None or canonical(err) is not _canonical_class(step.expect):
                    raise ContractBroken(
                        self.report(step, f"{name} must raise {step.expect.__name__}\n{both}")
                    )
        if step.dask_refuses:
            # section 4: DASK must refuse when building (CPU knows the sizes)
            if dask_err is None or phase != "build":
                raise UnknownSizeNotRefused(
                    self.report(step, f"an unknown size meets a known size != 1\n{both}")
                )
            if cpu_err is not None and canonical(dask_err) not in (canonical(cpu_err), ValueError):
                raise ExceptionTypesDiffer(self.report(step, both))
            return "DASK refuses (section 4)"
        if cpu_err is None and dask_err is None:
            return "both succeed"
        if cpu_err is None:
            assert dask_err is not None
            if phase == "build":
                if section4_refusal(dask_err) or (
                    step.dask_may_refuse and canonical(dask_err) in (ValueError, IndexError)
                ):
                    return "DASK refuses (section 4)"
                raise OnlyDaskRaises(self.report(step, both))
            raise DaskFailsWhenComputing(self.report(step, both))
        if dask_err is None:
            raise OnlyCpuRaises(self.report(step, both))
        if canonical(cpu_err) is not canonical(dask_err):
            if phase == "build" and section4_refusal(dask_err):
                return "DASK refuses (section 4)"
            raise ExceptionTypesDiffer(self.report(step, both))
        if phase == "compute" and not isinstance(cpu_err, step.deferrable):
            raise ErrorOnlyWhenComputing(self.report(step, both))
        return "both raise"

    def _compare(self, step: Step, name: str, c: np.ndarray, d: np.ndarray) -> None:
        ca, da_ = self.cpu[name], self.dask[name]
        where = f"{name} after step {len(self.steps)}"
        if ca.device is not xp.CPU or da_.device is not xp.DASK:
            raise MutationChangedArray(
                self.report(step, f"{where}: devices {ca.device}, {da_.device}")
            )
        if name in self.initial_dtype:
            for dev, a in (("CPU", ca), ("DASK", da_)):
                if a.dtype != self.initial_dtype[name]:
                    raise MutationChangedArray(
                        self.report(
                            step,
                            f"{where}: the assignment changed the dtype on {dev} from "
                            f"{self.initial_dtype[name]} to {a.dtype}",
                        )
                    )
        if ca.dtype != da_.dtype or d.dtype != da_.dtype or c.dtype != ca.dtype:
            raise DtypesDiffer(
                self.report(
                    step,
                    f"{where}: dtype CPU {ca.dtype}, DASK {da_.dtype} (computed as {d.dtype})",
                )
            )
        dshape = tuple(da_.shape)
        if (
            c.shape != d.shape
            or len(dshape) != len(c.shape)
            or any(s is not None and s != n for s, n in zip(dshape, d.shape))
        ):
            raise ShapesDiffer(
                self.report(
                    step, f"{where}: shape CPU {c.shape}, DASK {dshape} (computed as {d.shape})"
                )
            )
        single = name in self.single_precision
        if not _close(c, d, self._scale(c), single, complex_products=step.complex_products):
            raise ValuesDiffer(
                self.report(step, f"{where}:\nCPU  {c.tolist()!r}\nDASK {d.tolist()!r}")
            )

    def _scale(self, result: np.ndarray) -> float:
        """Magnitude for absolute tolerances: reductions in another order differ by about
        (number of terms) x eps x (largest term)."""
        values = [self.value(n) for n in self.live] + [result]
        biggest, count = 1.0, 1
        for v in values:
            if v.dtype.kind in "fc" and v.size:
                finite = np.abs(v[np.isfinite(v)])
                if finite.size:
                    biggest = max(biggest, float(finite.max()))
            count = max(count, v.size)
        return biggest * count

    def finish(self) -> None:
        """Compare every live array once more (later steps must not change earlier ones)."""
        final = Step("end of program", ["pass"])
        for name in self.live:
            c = np.asarray(self.cpu[name])
            d = self._compute(final, name)
            self._compare(final, name, c, d)

    # reporting --------------------------------------------------------------------
    def script(self, target: str | None = None) -> str:
        body = [line for s in self.steps for line in s.lines]
        if target is None and self.steps:
            target = self.steps[-1].target
        indent = "        " if self.mode != "raise" else "    "
        lines = [
            "import numpy as np",
            "import strict_array as xp",
            "nan, inf = np.nan, np.inf",
            "",
            "",
            "def program(dev):",
            "    def A(values, chunks=-1):  # an array on dev (chunks only on DASK)",
            "        if dev is xp.DASK:",
            "            return xp.asarray(values, device=dev, chunks=chunks)",
            "        return xp.asarray(values)",
            "",
        ]
        if self.mode != "raise":
            lines.append(f"    with xp.rank_promotion({self.mode!r}):")
        lines += [indent + line for line in body]
        lines.append(f"{indent}return {target or 'None'}")
        lines += [
            "",
            "",
            "for dev in (xp.CPU, xp.DASK):",
            "    try:",
            "        r = program(dev)",
            "        v = np.asarray(r)",
            "        print(dev, r.shape, r.dtype, v.dtype, v.tolist())",
            "    except Exception as e:",
            "        print(dev, type(e).__name__, e)",
        ]
        return "\n".join(lines)

    def report(self, step: Step, what: str) -> str:
        target = step.target if step.target in self.cpu or step.target in self.dask else None
        return (
            f"[{step.family}] step {len(self.steps)}: {' / '.join(step.lines)}\n{what}\n"
            f"--- replay (python) ---\n{self.script(target or step.target)}"
        )


class _quiet(warnings.catch_warnings):
    """Ignore NumPy's and Dask's runtime warnings inside a step; rank-promotion warnings
    stay errors (there must be none: raise mode raises, allow mode is silent)."""

    def __enter__(self):
        out = super().__enter__()
        warnings.simplefilter("ignore")
        warnings.simplefilter("error", RankPromotionWarning)
        return out


def _order_dependent(step: Step, c: Any, d: Any) -> bool:
    """Whether the devices' complex non-finite values differ (they agree, see _close):
    later steps cannot compare what is computed from them, so they leave the pool."""
    if not (step.complex_products and c.dtype.kind == "c"):
        return False
    both = ~np.isfinite(c) & ~np.isfinite(d)
    return not np.array_equal(c[both], d[both], equal_nan=True)


def _close(
    c: np.ndarray, d: np.ndarray, scale: float, single: bool = False, *,
    complex_products: bool = False,
) -> bool:  # fmt: skip
    """Whether DASK's ``d`` is CPU's ``c``: equal, or for floats within rounding (of
    single precision if ``single``: a float64 result of float32 inputs keeps their
    rounding)."""
    if c.dtype.kind not in "fc":
        return bool(np.array_equal(c, d))
    if complex_products and c.dtype.kind == "c" and c.shape == d.shape:
        # A complex sum of products with an infinite part is not fixed by the values:
        # NumPy itself gives -inf+infj, nan+infj or nan+nanj for one product depending on
        # the operand shapes (BLAS's zgemm scales by alpha = 1+0j, so 0 * inf), and
        # complex multiplication with infinities is not associative. Where both devices
        # give a non-finite value they agree; a finite value against a non-finite one
        # still differs.
        both = ~np.isfinite(c) & ~np.isfinite(d)
        c, d = np.where(both, 0, c), np.where(both, 0, d)
    if single or c.dtype in (np.float32, np.complex64):
        rtol, atol = 1e-5, 1e-6
    else:
        rtol, atol = 1e-9, 1e-12
    try:
        np.testing.assert_allclose(d, c, rtol=rtol, atol=atol, equal_nan=True)
        return True
    except AssertionError:
        pass
    try:  # reduction order: absolute error grows with the terms' size and count
        np.testing.assert_allclose(d, c, rtol=rtol, atol=atol * scale, equal_nan=True)
        return True
    except AssertionError:
        return False


# --- values, shapes, chunks ---------------------------------------------------------
FLOATS = (1.0, 0.0, -1.0, 2.0, 0.5, -2.5, 3.0, -4.0, 1.5, 6.0)
SPECIALS = (nan, inf, -inf, -0.0)
INTS = (1, 0, -1, 2, 3, -3, 5, 7, -8, 4)
SIZES = (2, 1, 3, 0, 4, 5, 1, 2, 3)


def choice(data: Any, seq: Any) -> Any:
    return data.draw(st.sampled_from(list(seq)))


def rarely(data: Any, one_in: int = 6) -> bool:
    return data.draw(st.integers(0, one_in - 1)) == 0


def draw_values(data: Any, dtype: str, shape: tuple[int, ...], *, specials: bool | None = None):
    n = math.prod(shape)
    kind = np.dtype(dtype).kind
    if specials is None:
        specials = rarely(data, 4)
    if kind == "b":
        elems: Any = st.booleans()
    elif kind in "iu":
        elems = st.sampled_from(INTS)
    elif kind == "f":
        elems = st.sampled_from(FLOATS + (SPECIALS if specials else ()))
    else:
        part = st.sampled_from(FLOATS + ((nan, inf) if specials else ()))
        elems = st.builds(complex, part, part)
    values = data.draw(st.lists(elems, min_size=n, max_size=n))
    return np.array(values, dtype=dtype).reshape(shape)


def draw_shape(data: Any, min_rank: int = 0, max_rank: int = 3) -> tuple[int, ...]:
    rank = data.draw(st.integers(min_rank, max_rank))
    return tuple(choice(data, SIZES) for _ in range(rank))


def draw_chunks(data: Any, shape: tuple[int, ...], style: str | None = None) -> Any:
    """DASK chunks: one chunk, irregular chunks (a random split of each axis), size-1
    chunks, or irregular chunks with blocks of size 0 among them (as concatenating
    empty arrays gives)."""
    if style is None:
        style = choice(data, ("one", "irregular", "ones", "empty blocks"))
    if style == "one" or not shape:
        return -1
    if style == "ones":
        return 1
    out = []
    for n in shape:
        cuts = sorted(data.draw(st.sets(st.integers(1, n - 1), max_size=n - 1))) if n > 1 else []
        bounds = [0, *cuts, n]
        sizes = [b - a for a, b in itertools.pairwise(bounds)] or [0]
        if style == "empty blocks":
            sizes.insert(data.draw(st.integers(0, len(sizes))), 0)
        out.append(tuple(sizes))
    return tuple(out)


def _element(v: Any) -> str:
    if isinstance(v, complex):
        return f"complex({v.real!r}, {v.imag!r})"
    return repr(v)


def literal(values: np.ndarray) -> str:
    flat = ", ".join(_element(v) for v in values.ravel().tolist())
    return f"np.array([{flat}], dtype='{values.dtype}').reshape({values.shape})"


def aux(data: Any, values: np.ndarray) -> str:
    """Source of ``A(values, chunks)``: the values on the device at hand."""
    chunks = draw_chunks(data, values.shape)
    return f"A({literal(values)}, {chunks!r})" if chunks != -1 else f"A({literal(values)})"


def new_aux(data: Any, dtype: str, shape: tuple[int, ...]) -> tuple[str, np.ndarray]:
    values = draw_values(data, dtype, shape)
    return aux(data, values), values


def tup(items: Any) -> str:
    items = list(items)
    return "(" + ", ".join(map(str, items)) + ("," if len(items) == 1 else "") + ")"


def kind_of(prog: Program, name: str) -> str:
    return prog.dtype(name).kind


def other_dtype(data: Any, dtype: np.dtype) -> str:
    """Mostly the same dtype; sometimes any other."""
    return str(dtype) if not rarely(data, 4) else choice(data, DTYPES)


# --- operands and broadcast_dimensions -----------------------------------------------


@dataclass
class Operand:
    code: str
    shape: tuple[int, ...] | None  # CPU shape; None for a Python scalar
    dshape: tuple[int | None, ...] | None  # DASK shape
    inputs: list[str] = field(default_factory=list)
    dims: tuple[int, ...] | None = None  # how the lower-rank side maps into the higher
    lower_is_other: bool = True

    @property
    def is_array(self) -> bool:
        return self.shape is not None

    @property
    def ndim(self) -> int:
        return -1 if self.shape is None else len(self.shape)


SCALARS = {
    "b": ("True", "False"),
    "i": ("2", "0", "-1", "3", "7", "np.int64(2)"),
    "f": ("0.5", "2.0", "-1.5", "0.0", "nan", "np.float32(1.5)"),
    "c": ("1j", "(1-2j)", "np.complex128(2+0j)"),
}


def scalar(data: Any, kind: str) -> str:
    if rarely(data, 4):
        kind = choice(data, "bifc")
    return choice(data, SCALARS["i" if kind in "iu" else kind])


def template(data: Any, prog: Program, name: str) -> tuple[int, ...]:
    """CPU shape of ``name``; axes of unknown size on DASK mostly become 1 (so that they
    broadcast), sometimes keep their size (which DASK must refuse, section 4)."""
    return tuple(
        c if d is not None or rarely(data, 4) else 1
        for c, d in zip(prog.shape(name), prog.dshape(name))
    )


def operand(data: Any, prog: Program, x: str, *, kinds: Any = None) -> Operand:
    """A second operand for ``x``: a scalar, a pool array or an auxiliary array of a
    related shape (same, size-1 axes, lower or higher rank, 0-d, mismatched)."""
    s = prog.shape(x)
    r = len(s)
    kinds = kinds or (
        "same", "scalar", "pool", "size1", "lower", "zero_d", "higher", "mismatch", "self",
    )  # fmt: skip
    kind = choice(data, kinds)
    dtype = other_dtype(data, prog.dtype(x))
    if kind == "scalar":
        return Operand(scalar(data, prog.dtype(x).kind), None, None)
    if kind == "self":
        return Operand(x, s, prog.dshape(x), [x])
    if kind == "pool":
        y = prog.pick(data)
        assert y is not None
        o = Operand(y, prog.shape(y), prog.dshape(y), [y])
        if len(o.shape) != r and min(len(o.shape), r) > 0:
            lo, hi = (o.shape, s) if len(o.shape) < r else (s, o.shape)
            cands = candidates(lo, hi)
            o.dims = choice(data, cands) if cands else None
            o.lower_is_other = len(o.shape) < r
        return o
    t = template(data, prog, x)
    if kind == "same" or (kind in ("size1", "lower") and r == 0):
        shape = t
    elif kind == "size1":
        ones = data.draw(st.sets(st.integers(0, r - 1)))
        shape = tuple(1 if i in ones else n for i, n in enumerate(t))
    elif kind == "zero_d":
        shape = ()
    elif kind == "lower":
        k = data.draw(st.integers(0 if r == 1 else 1, r - 1))
        dims = tuple(sorted(data.draw(st.sets(st.integers(0, r - 1), min_size=k, max_size=k))))
        shape = tuple(t[d] if not rarely(data) else 1 for d in dims)
        code, _ = new_aux(data, dtype, shape)
        return Operand(code, shape, shape, dims=dims)
    elif kind == "higher":
        extra = data.draw(st.integers(1, 2))
        dims = tuple(
            sorted(data.draw(st.sets(st.integers(0, r + extra - 1), min_size=r, max_size=r)))
        )
        full = [choice(data, (2, 1, 3, 0)) for _ in range(r + extra)]
        for i, d in enumerate(dims):
            full[d] = t[i] if not rarely(data) else 1
        shape = tuple(full)
        code, _ = new_aux(data, dtype, shape)
        return Operand(code, shape, shape, dims=dims, lower_is_other=False)
    else:  # mismatch
        shape = tuple(choice(data, (3, 2, 1, 4, 0)) for _ in range(r))
    code, _ = new_aux(data, dtype, shape)
    return Operand(code, shape, shape)


def candidates(low: tuple, high: tuple) -> list[tuple[int, ...]]:
    """Every valid broadcast_dimensions mapping ``low`` into ``high`` (CPU sizes)."""
    return [
        dims
        for dims in itertools.combinations(range(len(high)), len(low))
        if all(low[i] in (1, high[d]) or high[d] == 1 for i, d in enumerate(dims))
    ]


def draw_bd(data: Any, r_x: int, o: Operand) -> tuple[str | None, bool, tuple[int, ...] | None]:
    """``broadcast_dimensions`` for ``x`` (rank ``r_x``) with ``o``: valid and invalid
    ones. Returns (source or None, whether it holds a bool, the valid dims it encodes)."""
    r_o = o.ndim
    if r_o <= 0 or r_x == 0:  # a scalar operand: only None or () are valid
        kind = choice(data, ("none", "none", "empty", "nonempty", "bool"))
        return {
            "none": (None, False, None),
            "empty": ("()", False, ()),
            "nonempty": ("(0,)", False, None),
            # the length (0) is checked before the entry's type: a ValueError
            "bool": ("(True,)", False, None),
        }[kind]
    if r_o == r_x:
        ident = tuple(range(r_x))
        kind = choice(data, ("none", "none", "identity", "np_ints", "permuted", "bool"))
        if kind == "none":
            return None, False, None
        if kind == "identity":
            return tup(ident), False, ident
        if kind == "np_ints":
            return tup(f"np.int64({d})" for d in ident), False, ident
        if kind == "permuted":
            return tup(reversed(ident)) if r_x > 1 else "(1,)", False, None
        return tup(["False", *ident[1:]]), True, None
    low, high = (o.shape, (0,) * r_x) if r_o < r_x else ((0,) * r_x, o.shape)
    n_low, n_high = len(low), len(high)
    valid = o.dims if o.dims is not None else tuple(range(n_high - n_low, n_high))
    kind = choice(
        data,
        (
            "none", "valid", "valid", "np_ints", "list", "wrong_length", "non_increasing",
            "out_of_range", "negative", "bool", "other",
        ),
    )  # fmt: skip
    if kind == "none":
        return None, False, None
    if kind == "valid":
        return tup(valid), False, valid
    if kind == "np_ints":
        return tup(f"np.int64({d})" for d in valid), False, valid
    if kind == "list":
        return repr(list(valid)), False, valid
    if kind == "wrong_length":
        return (
            (tup(valid[:-1]) if valid and rarely(data, 2) else tup((*valid, n_high))),
            False,
            None,
        )
    if kind == "non_increasing":
        if len(valid) >= 2:
            return tup(reversed(valid)), False, None
        return tup((valid[0], valid[0])), False, None
    if kind == "out_of_range":
        return tup((*valid[:-1], n_high)), False, None
    if kind == "negative":
        return tup((*valid[:-1], -1)), False, None
    if kind == "bool":
        bools = ["True" if d else "False" for d in valid]
        return tup(bools), True, None
    other = tuple(
        sorted(data.draw(st.sets(st.integers(0, n_high - 1), min_size=n_low, max_size=n_low)))
    )
    return tup(other), False, other


def aligned(shape: tuple, high_ndim: int, dims: tuple[int, ...] | None) -> tuple:
    """``shape`` viewed at rank ``high_ndim`` (size-1 axes where nothing maps)."""
    if len(shape) == high_ndim:
        return tuple(shape)
    if dims is None:
        dims = tuple(range(high_ndim - len(shape), high_ndim))
    out: list = [1] * high_ndim
    for i, d in enumerate(dims):
        out[d] = shape[i]
    return tuple(out)


def section4(*shapes: tuple) -> bool:
    """Whether an unknown size meets a known size other than 1 (shapes of one rank)."""
    for sizes in zip(*shapes):
        if None in sizes and any(s is not None and s != 1 for s in sizes):
            return True
    return False


def rank_rule(prog: Program, *operands: Operand) -> type | None:
    """RankPromotionError when arrays of rank >= 1 differ in rank (raise mode)."""
    ranks = {o.ndim for o in operands if o.ndim >= 1}
    return RankPromotionError if len(ranks) > 1 and prog.mode == "raise" else None


def pool_operand(prog: Program, name: str) -> Operand:
    return Operand(name, prog.shape(name), prog.dshape(name), [name])


# --- families ----------------------------------------------------------------------

UNARY = {
    "b": ("logical_not", "bitwise_invert", "abs", "positive"),
    "i": ("abs", "negative", "positive", "square", "sign", "bitwise_invert", "floor", "round",
          "trunc", "ceil"),
    "f": ("abs", "negative", "exp", "expm1", "log", "log1p", "log2", "log10", "sqrt", "sin",
          "cos", "tan", "tanh", "sinh", "cosh", "asin", "acos", "atan", "asinh", "acosh",
          "atanh", "floor", "ceil", "round", "trunc", "sign", "square", "isnan", "isinf",
          "isfinite", "signbit", "reciprocal"),
    "c": ("abs", "exp", "expm1", "log", "sqrt", "conj", "real", "imag", "sign", "square",
          "isnan", "isfinite", "negative", "sin", "tanh", "reciprocal"),
}  # fmt: skip
UNARY_OPERATORS = {"negative": "-{}", "positive": "+{}", "abs": "abs({})", "bitwise_invert": "~{}"}

ARITH = ("add", "subtract", "multiply", "divide", "floor_divide", "remainder", "pow",
         "maximum", "minimum")  # fmt: skip
BITWISE = ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
           "bitwise_right_shift")  # fmt: skip
COMPARE = ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal")
BINARY = {
    "b": (
        "logical_and",
        "logical_or",
        "logical_xor",
        "bitwise_and",
        "bitwise_or",
        "bitwise_xor",
        "equal",
        "not_equal",
    ),
    "i": ARITH + BITWISE + COMPARE,
    "f": ARITH + COMPARE + ("atan2", "hypot", "copysign", "nextafter", "logaddexp"),
    "c": ("add", "subtract", "multiply", "divide", "pow", "equal", "not_equal"),
}
ALL_BINARY = tuple(sorted(set(itertools.chain(*BINARY.values()))))
OPERATORS = {
    "add": "+", "subtract": "-", "multiply": "*", "divide": "/", "floor_divide": "//",
    "remainder": "%", "pow": "**", "bitwise_and": "&", "bitwise_or": "|",
    "bitwise_xor": "^", "bitwise_left_shift": "<<", "bitwise_right_shift": ">>",
    "equal": "==", "not_equal": "!=", "less": "<", "less_equal": "<=", "greater": ">",
    "greater_equal": ">=",
}  # fmt: skip


def g_unary(data: Any, prog: Program) -> Step:
    x = prog.pick(data)
    assert x is not None
    names = (
        UNARY[kind_of(prog, x)] if not rarely(data, 10) else tuple(itertools.chain(*UNARY.values()))
    )
    f = choice(data, names)
    t = prog.fresh()
    if f in UNARY_OPERATORS and data.draw(st.booleans()):
        code = f"{t} = {UNARY_OPERATORS[f].format(x)}"
    else:
        code = f"{t} = xp.{f}({x})"
    return Step("unary", [code], t, inputs=[x])


def _binary_checks(prog: Program, x: str, o: Operand, bd: str | None, has_bool: bool,
                   dims: tuple[int, ...] | None) -> tuple[type | None, bool]:  # fmt: skip
    """(expected exception, whether DASK must refuse by section 4) for x op o."""
    r = len(prog.shape(x))
    if has_bool:
        return TypeError, False
    if bd is None and o.is_array and o.ndim != r and min(o.ndim, r) >= 1:
        if prog.mode == "raise":
            return RankPromotionError, False
        dims = None  # trailing alignment
    if not o.is_array or o.ndim == 0 or r == 0:
        return None, False
    if o.ndim == r:
        if bd is not None and dims is None:
            return None, False  # an invalid non-identity: a ValueError on both
        return None, section4(prog.dshape(x), o.dshape)  # type: ignore[arg-type]
    if bd is not None and dims is None:
        return None, False
    assert o.dshape is not None
    if o.ndim < r:
        if bd is not None and dims is not None and not _valid_dims(o.shape, prog.shape(x), dims):
            return None, False
        return None, section4(prog.dshape(x), aligned(o.dshape, r, dims))
    if bd is not None and dims is not None and not _valid_dims(prog.shape(x), o.shape, dims):
        return None, False
    return None, section4(aligned(prog.dshape(x), o.ndim, dims), o.dshape)


def _valid_dims(low: tuple, high: tuple, dims: tuple[int, ...]) -> bool:
    return dims in candidates(low, high)


def g_binary(data: Any, prog: Program) -> Step:
    x = prog.pick(data)
    assert x is not None
    names = BINARY[kind_of(prog, x)] if not rarely(data, 8) else ALL_BINARY
    f = choice(data, names)
    o = operand(data, prog, x)
    bd, has_bool, dims = draw_bd(data, len(prog.shape(x)), o)
    t = prog.fresh()
    form = choice(data, ("call", "operator", "reflected")) if bd is None else "call"
    if form != "call" and f not in OPERATORS:
        form = "call"
    if form == "operator":
        code = f"{t} = {x} {OPERATORS[f]} {o.code}"
    elif form == "reflected":
        code = f"{t} = {o.code} {OPERATORS[f]} {x}"
    else:
        swap = data.draw(st.booleans())
        a, b = (o.code, x) if swap else (x, o.code)
        kw = "" if bd is None else f", broadcast_dimensions={bd}"
        code = f"{t} = xp.{f}({a}, {b}{kw})"
    expect, refuses = _binary_checks(prog, x, o, bd, has_bool, dims)
    deferrable: tuple[type, ...] = ()
    if f == "pow" and kind_of(prog, x) in "iu":
        deferrable = (ValueError,)  # integers to negative integer powers: data
    return Step("binary", [code], t, inputs=[x, *o.inputs], deferrable=deferrable,
                expect=expect, dask_refuses=refuses)  # fmt: skip


REDUCTIONS = ("sum", "mean", "max", "min", "prod", "std", "var", "any", "all", "argmax",
              "argmin", "cumulative_sum")  # fmt: skip


def draw_axis(data: Any, r: int, *, tuples: bool = True) -> str:
    kinds = ["none", "int", "negative", "out_of_range"] + (["tuple", "tuple_bad"] if tuples else [])
    kind = choice(data, kinds)
    if kind == "none" or (r == 0 and kind in ("int", "negative", "tuple")):
        return "None"
    if kind == "int":
        return str(data.draw(st.integers(0, r - 1)))
    if kind == "negative":
        return str(data.draw(st.integers(-r, -1)))
    if kind == "out_of_range":
        return choice(data, (str(r), str(-r - 1)))
    if kind == "tuple":
        axes = data.draw(st.lists(st.integers(-r, r - 1), max_size=r, unique_by=lambda a: a % r))
        return tup(axes)
    axes = data.draw(st.lists(st.integers(-r - 1, r), min_size=1, max_size=r + 1))
    return tup(axes)


def g_reduction(data: Any, prog: Program) -> Step:
    x = prog.pick(data)
    assert x is not None
    r = len(prog.shape(x))
    f = choice(data, REDUCTIONS)
    kw = []
    if f in ("argmax", "argmin", "cumulative_sum"):
        axis = draw_axis(data, r, tuples=False)
        if not (f == "cumulative_sum" and axis == "None" and r != 1 and not rarely(data)):
            kw.append(f"axis={axis}")
        elif r >= 1:
            kw.append(f"axis={data.draw(st.integers(-r, r - 1))}")
    else:
        kw.append(f"axis={draw_axis(data, r)}")
    if f != "cumulative_sum" and data.draw(st.booleans()):
        kw.append("keepdims=True")
    if f in ("std", "var") and data.draw(st.booleans()):
        kw.append(f"correction={choice(data, ('1', '0.5', '2', '0'))}")
    if f in ("sum", "prod", "cumulative_sum") and rarely(data, 4):
        kw.append(
            f"dtype=xp.{choice(data, ('float64', 'int64', 'float32', 'complex128', 'int32'))}"
        )
    if f == "cumulative_sum" and data.draw(st.booleans()):
        kw.append("include_initial=True")
    t = prog.fresh()
    # max, min and the arg-reductions fail on an empty selection: data, if its size is unknown
    empty_is_data = f in ("max", "min", "argmax", "argmin") and prog.unknown(x)
    return Step(
        "reduction", [f"{t} = xp.{f}({x}, {', '.join(kw)})"], t, inputs=[x],
        deferrable=(ValueError,) if empty_is_data else (), complex_products=f == "prod",
    )  # fmt: skip


def bool_condition(data: Any, prog: Program, x: str) -> str:
    k = kind_of(prog, x)
    if k == "b":
        return x
    if k == "c":
        return f"(xp.real({x}) > {choice(data, ('0', '1.5'))})"
    return f"({x} > {choice(data, ('0', '1', '-1'))})"


def g_where(data: Any, prog: Program) -> Step:
    x = prog.pick(data)
    assert x is not None
    s = prog.shape(x)
    ckind = choice(data, ("derived", "aux", "pool", "nonbool"))
    if ckind == "derived" or (
        ckind == "pool" and prog.pick(data, lambda p, n: kind_of(p, n) == "b") is None
    ):
        cond = Operand(bool_condition(data, prog, x), s, prog.dshape(x), [x])
    elif ckind == "pool":
        name = prog.pick(data, lambda p, n: kind_of(p, n) == "b")
        assert name is not None
        cond = pool_operand(prog, name)
    elif ckind == "nonbool":
        cond = pool_operand(prog, x)
    else:
        shape_op = operand(data, prog, x, kinds=("same", "size1", "zero_d", "lower", "mismatch"))
        assert shape_op.shape is not None
        code, _ = new_aux(data, "bool", shape_op.shape)
        cond = Operand(code, shape_op.shape, shape_op.shape)
    first = (
        pool_operand(prog, x)
        if not rarely(data, 5)
        else Operand(scalar(data, kind_of(prog, x)), None, None)
    )
    second = operand(data, prog, x)
    a, b = (first, second) if data.draw(st.booleans()) else (second, first)
    t = prog.fresh()
    code = f"{t} = xp.where({cond.code}, {a.code}, {b.code})"
    arrays = [o for o in (cond, a, b) if o.is_array]
    expect = rank_rule(prog, *arrays)
    if ckind == "nonbool" and kind_of(prog, x) != "b":
        expect = TypeError
    if not a.is_array and not b.is_array:
        expect = expect or TypeError
    ranked = [o.dshape for o in arrays if o.ndim >= 1]
    refuses = expect is None and len({len(d) for d in ranked}) == 1 and section4(*ranked)
    return Step("where", [code], t, inputs=[*cond.inputs, *a.inputs, *b.inputs],
                expect=expect, dask_refuses=refuses)  # fmt: skip


def g_clip(data: Any, prog: Program) -> Step:
    x = prog.pick(data)
    assert x is not None
    bounds = []
    for _ in range(2):
        kind = choice(data, ("scalar", "none", "array"))
        if kind == "none":
            bounds.append(None)
        elif kind == "scalar":
            k = kind_of(prog, x)
            value = (
                choice(data, ("3.5", "4.5", "-1.0", "0", "2", "nan"))
                if k in "fc"
                else choice(data, ("0", "3", "-1", "2"))
            )
            bounds.append(Operand(value, None, None))
        else:
            bounds.append(
                operand(
                    data, prog, x, kinds=("same", "size1", "zero_d", "lower", "pool", "mismatch")
                )
            )
    lo, hi = bounds
    kw = ", ".join(
        f"{n}={b.code}" if data.draw(st.booleans()) or n == "max" else b.code
        for n, b in (("min", lo), ("max", hi))
        if b is not None
    )
    if lo is None and hi is not None and "max=" not in kw:
        kw = f"max={hi.code}"
    t = prog.fresh()
    code = f"{t} = xp.clip({x}{', ' if kw else ''}{kw})"
    arrays = [pool_operand(prog, x)] + [b for b in bounds if b is not None and b.is_array]
    expect = rank_rule(prog, *arrays)
    ranked = [o.dshape for o in arrays if o.ndim >= 1]
    refuses = expect is None and len({len(d) for d in ranked}) == 1 and section4(*ranked)
    inputs = [x] + [i for b in bounds if b is not None for i in b.inputs]
    return Step("clip", [code], t, inputs=inputs, expect=expect, dask_refuses=refuses)


# --- keys (indexing and assignment) -------------------------------------------------


@dataclass
class Key:
    code: str
    np_key: Any  # the same key for NumPy (to know the selected region), or None
    kind: str
    oob_values: bool = False  # an index array holds an out-of-bounds value (data)
    refuses: bool = False  # a known mask size meets an unknown size (section 4)
    defer: bool = False  # a mask of size 1 meets an unknown size (data)
    inputs: list[str] = field(default_factory=list)


def _slice(data: Any, n: int) -> tuple[str, slice]:
    bound = st.one_of(st.none(), st.integers(-n - 2, n + 2))
    start, stop = data.draw(bound), data.draw(bound)
    step = choice(
        data, (None, 1, 2, -1, -2, 3, None, 0) if rarely(data, 12) else (None, 1, 2, -1, -2, 3)
    )
    s = slice(start, stop, step)
    text = ("" if start is None else str(start)) + ":" + ("" if stop is None else str(stop))
    if step is not None:
        text += f":{step}"
    return text, s


def basic_key(data: Any, shape: tuple[int, ...]) -> Key:
    r = len(shape)
    kind = choice(
        data,
        ("mixed", "ellipsis_only", "too_many") if r else ("ellipsis_only", "mixed", "too_many"),
    )
    if kind == "ellipsis_only":
        return Key("...", Ellipsis, "basic")
    n_lead = data.draw(st.integers(0, r))
    use_ellipsis = data.draw(st.booleans())
    n_trail = data.draw(st.integers(0, r - n_lead)) if use_ellipsis else 0
    if kind == "too_many":
        n_lead += 1
    axes = list(range(n_lead)) + ([None] if use_ellipsis else []) + list(range(r - n_trail, r))
    codes: list[str] = []
    keys: list[Any] = []
    for axis in axes:
        if rarely(data, 5):
            codes.append("None")
            keys.append(None)
        if axis is None:
            codes.append("...")
            keys.append(Ellipsis)
            continue
        n = shape[axis] if axis < r else 1
        if data.draw(st.booleans()):
            i = (
                data.draw(st.integers(-n - 1, n))
                if rarely(data, 5)
                else (data.draw(st.integers(-n, n - 1)) if n else 0)
            )
            codes.append(str(i))
            keys.append(i)
        else:
            text, s = _slice(data, n)
            codes.append(text)
            keys.append(s)
    if not codes:
        return Key("()", (), "basic")
    return Key(
        ", ".join(codes) + ("," if len(codes) == 1 and rarely(data, 4) else ""),
        tuple(keys),
        "basic",
    )


def _index_values(data: Any, n: int, shape: tuple[int, ...], dtype: str) -> tuple[np.ndarray, bool]:
    count = math.prod(shape)
    inside = st.integers(-n, n - 1) if n else st.just(0)
    if rarely(data, 5) or n == 0:
        elems = st.one_of(inside, st.sampled_from((n, -n - 1, n + 2)))
    else:
        elems = inside
    values = np.array(data.draw(st.lists(elems, min_size=count, max_size=count)), dtype=dtype)
    values = values.reshape(shape)
    oob = bool(values.size and ((values >= n) | (values < -n)).any())
    return values, oob


def array_key(data: Any, prog: Program, x: str) -> Key:
    """Integer index arrays (1-D or n-D, several, with ints; sometimes with slices)."""
    shape = prog.shape(x)
    r = len(shape)
    lead = 1 if r > 1 and rarely(data, 5) else 0  # x[:, i, ...]
    k = data.draw(st.integers(1, min(r - lead, 3)))
    bshape = tuple(
        choice(data, (2, 1, 3, 0) if rarely(data, 8) else (2, 1, 3))
        for _ in range(data.draw(st.integers(0, 2)))
    )
    codes: list[str] = [":"] * lead
    keys: list[Any] = [slice(None)] * lead
    oob = False
    n_arrays = 0
    for j in range(k):
        n = shape[lead + j]
        if j and rarely(data, 3):
            i = data.draw(st.integers(-n, n - 1)) if n else 0
            codes.append(str(i))
            keys.append(i)
            continue
        ishape = tuple(1 if rarely(data, 4) else b for b in bshape)
        if ishape and rarely(data, 5):
            ishape = ishape[1:]  # broadcasts from the right
        if not ishape and not bshape and k == 1 and not rarely(data, 3):
            ishape = (choice(data, (2, 1, 3, 0)),)  # mostly 1-D for a single array
        values, bad = _index_values(data, n, ishape, choice(data, ("int64", "int32")))
        oob |= bad
        codes.append(aux(data, values))
        keys.append(values)
        n_arrays += 1
    if n_arrays == 0:
        values, bad = _index_values(data, shape[lead], (2,), "int64")
        codes[lead], keys[lead] = aux(data, values), values
        oob |= bad
    if rarely(data, 3):
        codes.append("...")
        keys.append(Ellipsis)
    elif lead + k < r and rarely(data, 3):
        codes.append(":")
        keys.append(slice(None))
    # an index into an axis of unknown size on DASK: whether it is in bounds is data
    dshape = prog.dshape(x)
    oob |= any(dshape[lead + j] is None for j in range(k))
    return Key(", ".join(codes), tuple(keys), "array", oob_values=oob)


def mask_key(data: Any, prog: Program, x: str) -> Key:
    """Boolean masks: full-rank, leading-axis, trailing, 0-d, derived from x, mismatched."""
    shape, dshape = prog.shape(x), prog.dshape(x)
    r = len(shape)
    kind = choice(data, ("derived", "full", "leading", "zero_d", "trailing", "middle", "mismatch"))
    if kind == "derived":
        cond = bool_condition(data, prog, x)
        return Key(cond, np.asarray(_eval_cpu(prog, cond)), "mask", inputs=[x])
    if kind == "zero_d" or r == 0:
        values = np.array(data.draw(st.booleans()))
        return Key(aux(data, values), values, "mask")
    if kind == "full":
        axes = list(range(r))
    elif kind == "leading":
        axes = list(range(data.draw(st.integers(1, r))))
    elif kind == "trailing":
        axes = list(range(r - data.draw(st.integers(1, r)), r))
    elif kind == "middle" and r >= 2:
        axes = [1]
    else:
        axes = list(range(r))
    mshape = tuple(shape[a] for a in axes)
    if kind == "mismatch":
        mshape = tuple(choice(data, (n + 1, max(n - 1, 0), 1)) for n in mshape)
    values = np.array(
        data.draw(st.lists(st.booleans(), min_size=math.prod(mshape), max_size=math.prod(mshape))),
        dtype=bool,
    ).reshape(mshape)
    code = aux(data, values)
    unknown_axes = [a for a in axes if dshape[a] is None]
    # section 6: DASK may refuse, when building, a known mask size on an axis of
    # unknown size (CPU knows the size); a mask of size 1 there may also fit: data
    refuses = bool(unknown_axes)
    defer = bool(unknown_axes) and all(mshape[axes.index(a)] == 1 for a in unknown_axes)
    if kind == "trailing" and axes[0] > 0:
        return Key(f"..., {code}", (Ellipsis, values), "mask", refuses=refuses, defer=defer)
    if kind == "middle" and r >= 2:
        return Key(f":, {code}", (slice(None), values), "mask", refuses=refuses, defer=defer)
    if kind == "leading" and rarely(data, 2):
        return Key(f"{code}, ...", (values, Ellipsis), "mask", refuses=refuses, defer=defer)
    return Key(code, values, "mask", refuses=refuses, defer=defer)


def _eval_cpu(prog: Program, code: str) -> Any:
    with _quiet():
        return eval(code, dict(prog.cpu))


def draw_key(data: Any, prog: Program, x: str) -> Key:
    r = len(prog.shape(x))
    kind = choice(data, ("basic", "array", "mask") if r else ("basic", "mask"))
    if kind == "basic":
        return basic_key(data, prog.shape(x))
    if kind == "array":
        return array_key(data, prog, x)
    return mask_key(data, prog, x)


def region_of(
    prog: Program, x: str, key: Key
) -> tuple[tuple[int, ...] | None, tuple | None, np.ndarray | None]:
    """CPU shape, DASK shape (lazily) and flat positions of ``x[key]`` (None if refused)."""
    value = prog.value(x)
    try:
        with _quiet():
            positions = np.arange(value.size).reshape(value.shape)[key.np_key]
    except Exception:
        return None, None, None
    try:
        with _quiet():
            dshape = tuple(eval(f"{x}[{key.code}]", dict(prog.dask)).shape)
    except Exception:
        dshape = None
    return positions.shape, dshape, positions


def g_getitem(data: Any, prog: Program) -> Step:
    x = prog.pick(data)
    assert x is not None
    key = draw_key(data, prog, x)
    t = prog.fresh()
    deferrable = (IndexError,) if key.oob_values else ()
    if key.defer:
        deferrable = (IndexError, ValueError)
    return Step(f"getitem ({key.kind})", [f"{t} = {x}[{key.code}]"], t, inputs=[x, *key.inputs],
                deferrable=deferrable, dask_may_refuse=key.refuses)  # fmt: skip


LOWER_DTYPES = {"float64": ("float32", "int64", "bool"), "float32": ("bool", "int32"),
                "int64": ("int32", "bool"), "int32": ("bool",), "bool": ("bool",),
                "complex128": ("float64", "float32", "int64")}  # fmt: skip


def g_setitem(data: Any, prog: Program) -> Step:
    x = prog.pick(data)
    assert x is not None
    t = prog.fresh()
    key = draw_key(data, prog, x) if not rarely(data, 5) else Key("...", Ellipsis, "ellipsis")
    region, dregion, positions = region_of(prog, x, key)
    dtype = str(prog.dtype(x))
    vkind = choice(
        data,
        (
            "scalar",
            "same",
            "size1",
            "zero_d",
            "expr",
            "mismatch",
            "lower",
            "higher",
            "other_scalar",
        ),
    )
    vdtype = choice(data, (dtype, dtype, *LOWER_DTYPES[dtype], choice(data, DTYPES)))
    expect: type | None = None
    refuses = False
    deferrable: tuple[type, ...] = (IndexError,) if key.oob_values else ()
    if key.defer:
        deferrable = (IndexError, ValueError)
    inputs = [x, *key.inputs]
    duplicates = positions is not None and np.unique(positions).size < positions.size
    if vkind in ("scalar", "other_scalar") or (
        duplicates and vkind in ("same", "expr", "mismatch")
    ):
        k = prog.dtype(x).kind if vkind == "scalar" else choice(data, "bifc")
        value = choice(data, SCALARS["i" if k in "iu" else k])
    elif vkind == "expr":
        op = "xp.logical_not({})" if prog.dtype(x).kind == "b" else "({} * 2)"
        value = op.format(f"{t}[{key.code}]")
    else:
        base = region if region is not None else prog.shape(x)
        if region is not None and dregion is not None and len(dregion) == len(region):
            base = tuple(
                n if d is not None or rarely(data, 4) else 1 for n, d in zip(region, dregion)
            )
        if vkind == "same":
            vshape = base
        elif vkind == "size1":
            ones = data.draw(st.sets(st.integers(0, len(base) - 1))) if base else set()
            vshape = tuple(1 if i in ones or not ones else n for i, n in enumerate(base))
            if not base or rarely(data, 6):
                vshape = (1,)
        elif vkind == "zero_d":
            vshape = ()
        elif vkind == "mismatch":
            vshape = tuple(n + 1 if i == 0 else n for i, n in enumerate(base)) or (2,)
        elif vkind == "lower":
            vshape = base[1:] if len(base) > 1 else ((1,) if not base else base[:0] + (base[0],))
        else:
            vshape = (1, *base)
        value, _ = new_aux(data, vdtype, vshape)
        if region is not None and dregion is not None and len(vshape) == len(region) and vshape:
            refuses = refuses or section4(dregion, vshape)
        if (
            region is not None
            and vshape
            and region
            and len(vshape) != len(region)
            and prog.mode == "raise"
        ):
            expect = RankPromotionError
    lines = [f"{t} = xp.asarray({x}, copy=True)", f"{t}[{key.code}] = {value}"]
    return Step(f"setitem ({key.kind}, {vkind})", lines, t, mutated_from=x, inputs=inputs,
                deferrable=deferrable, expect=expect, dask_refuses=refuses,
                dask_may_refuse=key.refuses)  # fmt: skip


INPLACE = {
    "b": ("&=", "|=", "^="),
    "i": ("+=", "-=", "*=", "//=", "%=", "**=", "&=", "|=", "^=", "<<=", ">>=", "@="),
    "f": ("+=", "-=", "*=", "/=", "//=", "%=", "**=", "@="),
    "c": ("+=", "-=", "*=", "/=", "**=", "@="),
}
ALL_INPLACE = ("+=", "-=", "*=", "/=", "//=", "%=", "**=", "&=", "|=", "^=", "<<=", ">>=", "@=")


def g_inplace(data: Any, prog: Program) -> Step:
    x = prog.pick(data)
    assert x is not None
    t = prog.fresh()
    k = kind_of(prog, x)
    s = prog.shape(x)
    op = choice(data, INPLACE[k]) if not rarely(data, 8) else choice(data, ALL_INPLACE)
    expect: type | None = None
    refuses = False
    if op == "@=" and len(s) >= 1 and data.draw(st.booleans()):
        n = s[-1]
        batch = s[:-2] if len(s) >= 2 else ()
        mshape = (
            (*tuple(1 if rarely(data) else b for b in batch), n, n) if rarely(data, 2) else (n, n)
        )
        code, _ = new_aux(data, str(prog.dtype(x)), mshape)
        o = Operand(code, mshape, mshape)
    else:
        o = operand(data, prog, x)
        if (
            o.is_array
            and o.ndim != len(s)
            and min(o.ndim, len(s)) >= 1
            and op != "@="
            and prog.mode == "raise"
        ):
            expect = RankPromotionError
        if op != "@=" and o.is_array and o.ndim == len(s) and o.ndim:
            refuses = section4(prog.dshape(x), o.dshape)  # type: ignore[arg-type]
    deferrable: tuple[type, ...] = (ValueError,) if op == "**=" and k in "iu" else ()
    lines = [f"{t} = xp.asarray({x}, copy=True)", f"{t} {op} {o.code}"]
    return Step(f"inplace {op}", lines, t, mutated_from=x, inputs=[x, *o.inputs],
                deferrable=deferrable, expect=expect, dask_refuses=refuses,
                complex_products=op == "@=")  # fmt: skip


# --- manipulation -------------------------------------------------------------------


def _factor_shape(data: Any, size: int) -> tuple[int, ...]:
    rank = data.draw(st.integers(0 if size == 1 else 1, 3))
    if size == 0:
        shape = [choice(data, (1, 2, 3)) for _ in range(rank)]
        shape[data.draw(st.integers(0, rank - 1))] = 0
        return tuple(shape)
    shape = [1] * rank
    factors = []
    n = size
    p = 2
    while n > 1:
        while n % p == 0:
            factors.append(p)
            n //= p
        p += 1
    for f in factors:
        shape[data.draw(st.integers(0, rank - 1))] *= f
    return tuple(shape)


def g_manipulation(data: Any, prog: Program) -> Step:
    x = prog.pick(data)
    assert x is not None
    s = prog.shape(x)
    r = len(s)
    f = choice(data, ("reshape", "permute_dims", "expand_dims", "squeeze", "flip", "roll",
                      "concat", "stack", "moveaxis", "tile", "repeat", "broadcast_to", "mT"))  # fmt: skip
    t = prog.fresh()
    inputs = [x]
    if f == "reshape":
        shape = list(_factor_shape(data, math.prod(s)))
        if rarely(data, 5):
            shape.append(choice(data, (2, 3)))  # wrong size
        if shape and data.draw(st.booleans()) and 0 not in shape:
            shape[data.draw(st.integers(0, len(shape) - 1))] = -1
        call = f"xp.reshape({x}, {tup(shape)})"
    elif f == "permute_dims":
        axes = list(data.draw(st.permutations(range(r))))
        if axes and data.draw(st.booleans()):
            axes[0] -= r
        if rarely(data, 5):
            axes = axes[:-1] if axes else [0]
        call = f"xp.permute_dims({x}, {tup(axes)})"
    elif f == "expand_dims":
        axis = data.draw(st.integers(-r - 2, r + 1))
        call = (
            f"xp.expand_dims({x}, axis={axis})"
            if not rarely(data, 4)
            else f"xp.expand_dims({x}, axis={tup((0, axis))})"
        )
    elif f == "squeeze":
        ones = [i for i, n in enumerate(s) if n == 1]
        if ones and not rarely(data, 4):
            axes = data.draw(st.lists(st.sampled_from(ones), min_size=1, unique=True))
        else:
            axes = [data.draw(st.integers(-r - 1, r))] if r else [0]
        call = f"xp.squeeze({x}, axis={axes[0] if len(axes) == 1 and data.draw(st.booleans()) else tup(axes)})"
    elif f == "flip":
        call = f"xp.flip({x}, axis={draw_axis(data, r)})"
    elif f == "roll":
        shift = data.draw(st.integers(-4, 4))
        axis = draw_axis(data, r)
        if axis.startswith("(") and not rarely(data, 4):
            n_axes = len([a for a in axis.strip("()").split(",") if a.strip()])
            shift_code = tup([data.draw(st.integers(-4, 4)) for _ in range(n_axes)])
        else:
            shift_code = str(shift)
        call = f"xp.roll({x}, {shift_code}, axis={axis})"
    elif f in ("concat", "stack"):
        others = []
        for _ in range(data.draw(st.integers(1, 2))):
            kind = choice(data, ("same", "self", "pool", "derived", "mismatch"))
            if kind == "self":
                others.append(x)
            elif kind == "derived":
                others.append(f"({x} * 2)" if kind_of(prog, x) != "b" else f"xp.logical_not({x})")
            elif kind == "pool":
                y = prog.pick(data)
                assert y is not None
                others.append(y)
                inputs.append(y)
            else:
                shape = list(prog.shape(x))
                if f == "concat" and shape and kind == "same":
                    shape[data.draw(st.integers(0, r - 1))] = choice(data, (1, 2, 0))
                if kind == "mismatch":
                    shape = [
                        choice(data, (1, 2, 3))
                        for _ in range(r + choice(data, (0, 0, 1, -1) if r else (0, 1)))
                    ]
                code, _ = new_aux(data, other_dtype(data, prog.dtype(x)), tuple(shape))
                others.append(code)
        arrays = "[" + ", ".join([x, *others]) + "]"
        if f == "concat":
            axis = (
                choice(data, [str(a) for a in range(-r, r)] + ["None", str(r)])
                if r
                else choice(data, ("0", "None"))
            )
        else:
            axis = str(data.draw(st.integers(-r - 2, r + 1)))
        call = f"xp.{f}({arrays}, axis={axis})"
    elif f == "moveaxis":
        if r == 0 or rarely(data, 6):
            call = f"xp.moveaxis({x}, 0, {data.draw(st.integers(-1, 1))})"
        elif data.draw(st.booleans()):
            call = f"xp.moveaxis({x}, {data.draw(st.integers(-r, r - 1))}, {data.draw(st.integers(-r, r - 1))})"
        else:
            k = data.draw(st.integers(1, r))
            src = data.draw(st.lists(st.integers(0, r - 1), min_size=k, max_size=k, unique=True))
            dst = data.draw(
                st.lists(st.integers(-r, r - 1), min_size=k, max_size=k, unique_by=lambda a: a % r)
            )
            call = f"xp.moveaxis({x}, {tup(src)}, {tup(dst)})"
    elif f == "tile":
        reps = [data.draw(st.integers(0, 3)) for _ in range(data.draw(st.integers(0, r + 1)))]
        call = f"xp.tile({x}, {tup(reps)})"
    elif f == "repeat":
        if r and rarely(data, 3):
            axis = data.draw(st.integers(-r, r - 1))
            reps_values = np.array(
                [data.draw(st.integers(0, 3)) for _ in range(s[axis])], dtype="int64"
            )
            call = f"xp.repeat({x}, {aux(data, reps_values)}, axis={axis})"
        else:
            axis_code = (
                "None" if r == 0 or data.draw(st.booleans()) else str(data.draw(st.integers(-r, r)))
            )
            call = f"xp.repeat({x}, {data.draw(st.integers(0, 3))}, axis={axis_code})"
    elif f == "broadcast_to":
        shape = [choice(data, (2, 3, 1, 0)) for _ in range(data.draw(st.integers(0, 2)))]
        shape += [choice(data, (3, 2)) if n == 1 and data.draw(st.booleans()) else n for n in s]
        if rarely(data, 4) and shape:
            shape[data.draw(st.integers(0, len(shape) - 1))] += 1
        call = f"xp.broadcast_to({x}, {tup(shape)})"
    else:
        call = f"{x}.mT" if r != 2 or data.draw(st.booleans()) else f"{x}.T"
    # whether an unknown number of elements makes whole rows is the data's business
    deferrable = (ValueError,) if f == "reshape" and prog.unknown(x) else ()
    return Step(f"manipulation {f}", [f"{t} = {call}"], t, inputs=inputs, deferrable=deferrable)


# --- linear algebra -----------------------------------------------------------------


def _float_source(prog: Program, x: str) -> str:
    """Finite float64 values from ``x`` (keeps its shape, unknown sizes included)."""
    k = kind_of(prog, x)
    src = {"b": f"xp.astype({x}, xp.float64)", "i": f"xp.astype({x}, xp.float64)",
           "c": f"xp.real({x})", "f": f"xp.astype({x}, xp.float64)"}[k]  # fmt: skip
    if k in "fc" and not np.isfinite(prog.value(x)).all():
        src = f"xp.where(xp.isfinite({src}), {src}, 0.0)"
    if k in "fc":
        # on a grid of eighths, small: any order of summation is exact, so a statistic
        # fed back (F > mean(F)) decides the same on both devices (a z-score's mean is
        # -1.3e-17 summed pairwise, 0.0 by blocks: not a disagreement of strict_array's)
        src = f"xp.round(xp.clip({src}, -(2.0**40), 2.0**40) * 8.0) / 8.0"
    return src


def g_linalg(data: Any, prog: Program) -> Step:
    x = prog.pick(data)
    assert x is not None
    s = prog.shape(x)
    r = len(s)
    t = prog.fresh()
    f = choice(data, ("matmul", "matmul_op", "vecdot", "tensordot", "solve", "inv", "det",
                      "cross", "vector_norm", "matrix_norm"))  # fmt: skip
    lines: list[str] = []
    expect: type | None = None
    inputs = [x]
    if f in ("matmul", "matmul_op"):
        if r == 0 or rarely(data, 4):
            y = prog.pick(data)
            assert y is not None
            other, oshape = y, prog.shape(y)
            inputs.append(y)
        else:
            k = s[-1] if not rarely(data, 6) else choice(data, (1, 2, 3))
            n_other = choice(data, (2, 3, 1, 0))
            if r == 1 or rarely(data, 5):
                oshape = (k,) if rarely(data, 3) else (k, n_other)
            else:
                batch = tuple(1 if rarely(data) else b for b in s[:-2])
                if rarely(data, 5):
                    batch = batch[1:] if batch else (2,)
                oshape = (*batch, k, n_other)
            other, _ = new_aux(data, other_dtype(data, prog.dtype(x)), oshape)
        a, b = (x, other) if not rarely(data, 4) else (other, x)
        lines.append(f"{t} = {a} @ {b}" if f == "matmul_op" else f"{t} = xp.matmul({a}, {b})")
        if min(r, len(oshape)) >= 2 and r != len(oshape) and prog.mode == "raise":
            expect = RankPromotionError
    elif f == "vecdot":
        o = operand(data, prog, x, kinds=("same", "size1", "self", "pool", "lower"))
        axis = data.draw(st.integers(-max(r, 1), max(r, 1) - 1)) if not rarely(data, 5) else -1
        lines.append(f"{t} = xp.vecdot({x}, {o.code}, axis={axis})")
        inputs += o.inputs
        if o.ndim != r and min(o.ndim, r) >= 1 and prog.mode == "raise":
            expect = RankPromotionError
    elif f == "tensordot":
        n = data.draw(st.integers(0, min(r, 2)))
        if data.draw(st.booleans()):
            oshape = (
                *s[r - n :],
                *(choice(data, (2, 1)) for _ in range(data.draw(st.integers(0, 1)))),
            )
            axes = str(n)
        else:
            xa = (
                data.draw(st.lists(st.integers(0, r - 1), max_size=min(r, 2), unique=True))
                if r
                else []
            )
            extra = data.draw(st.integers(0, 1))
            oshape_l = [choice(data, (2, 1)) for _ in range(len(xa) + extra)]
            perm = data.draw(st.permutations(range(len(oshape_l))))
            ya = list(perm[: len(xa)])
            for i, a in zip(ya, xa):
                oshape_l[i] = s[a]
            oshape = tuple(oshape_l)
            xa = [a - r if data.draw(st.booleans()) else a for a in xa]
            axes = f"({tup(xa)}, {tup(ya)})"
        if rarely(data, 6):
            oshape = tuple(n + 1 for n in oshape)
        other, _ = new_aux(data, other_dtype(data, prog.dtype(x)), oshape)
        lines.append(f"{t} = xp.tensordot({x}, {other}, axes={axes})")
    elif f in ("solve", "inv", "det", "matrix_norm"):
        n = choice(data, (2, 3, 1))
        m = prog.fresh("m")
        base = np.array(draw_values(data, "float64", (n, n), specials=False)) / 8 + (
            n + 1
        ) * np.eye(n)
        src = _float_source(prog, x)
        if r == 0:
            lines.append(f"{m} = {src} * 0.01 + {aux(data, base)}")
        else:
            lines.append(
                f"{m} = xp.add(xp.expand_dims({src}, axis=({r}, {r + 1})) * 0.01, "
                f"{aux(data, base)}, broadcast_dimensions=({r}, {r + 1}))"
            )
        batch = s
        if f == "solve":
            form = choice(data, ("vector", "matrix", "batch_vector", "rank_mismatch", "wrong_size"))
            if form == "vector":
                rhs, _ = new_aux(data, "float64", (n,))
            elif form in ("matrix", "wrong_size"):
                rhs, _ = new_aux(
                    data,
                    "float64",
                    (
                        *tuple(1 if rarely(data) else b for b in batch),
                        n + (form == "wrong_size"),
                        choice(data, (1, 2)),
                    ),
                )
            elif form == "batch_vector":
                rhs = (
                    f"xp.expand_dims(xp.add(xp.expand_dims({src}, axis={r}), {aux(data, draw_values(data, 'float64', (n,), specials=False))}, broadcast_dimensions=({r},)), axis={r + 1})"
                    if r
                    else f"xp.expand_dims({aux(data, draw_values(data, 'float64', (n,), specials=False))}, axis=1)"
                )
            else:
                rhs, _ = new_aux(data, "float64", (n, 1) if r else (2, n, 1))
                expect = RankPromotionError if prog.mode == "raise" else None
            lines.append(f"{t} = xp.linalg.solve({m}, {rhs})")
        elif f == "matrix_norm":
            ord_ = choice(data, ("'fro'", "'nuc'", "1", "2", "inf", "-inf", "-1", "-2"))
            lines.append(
                f"{t} = xp.linalg.matrix_norm({m}, ord={ord_}, keepdims={data.draw(st.booleans())})"
            )
        else:
            lines.append(f"{t} = xp.linalg.{f}({m})")
    elif f == "cross":
        src = _float_source(prog, x)
        c1, c2 = prog.fresh("c"), prog.fresh("c")
        lines.append(f"{c1} = xp.stack([{src}, {src} * 2.0 + 1.0, {src} - 3.0], axis=-1)")
        if data.draw(st.booleans()):
            lines.append(f"{c2} = xp.stack([{src} - 1.0, {src} * {src}, {src} + 0.5], axis=-1)")
        else:
            shape = (
                (*tuple(1 if rarely(data) else n for n in s), 3) if not rarely(data, 6) else (*s, 2)
            )
            if rarely(data, 6) and r:
                shape = shape[1:]
                expect = RankPromotionError if prog.mode == "raise" else None
            lines.append(f"{c2} = {aux(data, draw_values(data, 'float64', shape))}")
        axis = -1 if not rarely(data, 4) else choice(data, (0, r, -r - 1))
        lines.append(f"{t} = xp.linalg.cross({c1}, {c2}, axis={axis})")
        if choice(data, (False, True)):
            lines[-1] = f"{t} = xp.vecdot({c1}, {c2}, axis={axis})"
    else:  # vector_norm
        ord_ = choice(data, ("2", "1", "inf", "-inf", "0", "3"))
        lines.append(
            f"{t} = xp.linalg.vector_norm({x}, axis={draw_axis(data, r)}, keepdims={data.draw(st.booleans())}, ord={ord_})"
        )
    deferrable: tuple[type, ...] = (np.linalg.LinAlgError,)
    if f == "vector_norm" and prog.unknown(x):  # (the minimum of an empty selection)
        deferrable += (ValueError,)
    return Step(
        f"linalg {f}", lines, t, inputs=inputs, deferrable=deferrable,
        expect=expect, complex_products=True,
    )  # fmt: skip


# --- broadcast_in_dim and sum_to ----------------------------------------------------


def g_broadcast(data: Any, prog: Program) -> Step:
    x = prog.pick(data)
    assert x is not None
    s = prog.shape(x)
    r = len(s)
    t = prog.fresh()
    f = choice(data, ("broadcast_in_dim", "sum_to"))
    kind = choice(data, ("valid", "valid", "valid", "wrong_length", "non_increasing",
                         "out_of_range", "negative", "bool", "size", "rank", "none", "np_ints"))  # fmt: skip
    expect: type | None = None
    if f == "broadcast_in_dim":
        extra = data.draw(st.integers(0, 2))
        dims = (
            sorted(data.draw(st.sets(st.integers(0, r + extra - 1), min_size=r, max_size=r)))
            if r + extra
            else []
        )
        shape = [choice(data, (2, 1, 3, 0)) for _ in range(r + extra)]
        for i, d in enumerate(dims):
            shape[d] = s[i] if s[i] != 1 or data.draw(st.booleans()) else choice(data, (2, 3, 0))
        dims_code, shape_code = tup(dims), tup(shape)
    else:
        target_rank = data.draw(st.integers(0, r))
        dims = (
            sorted(
                data.draw(
                    st.sets(st.integers(0, r - 1), min_size=target_rank, max_size=target_rank)
                )
            )
            if r
            else []
        )
        shape = [s[d] if data.draw(st.booleans()) else 1 for d in dims]
        dims_code, shape_code = tup(dims), tup(shape)
        if target_rank == r and data.draw(st.booleans()):
            dims_code = "None"
    if kind == "wrong_length":
        dims_code = tup([*dims, 0])
    elif kind == "non_increasing" and len(dims) >= 2:
        dims_code = tup(reversed(dims))
    elif kind == "out_of_range":
        dims_code = tup([*dims[:-1], len(shape) if f == "broadcast_in_dim" else r])
    elif kind == "negative" and dims:
        dims_code = tup([*dims[:-1], -1])
    elif kind == "bool" and dims:
        dims_code = tup("True" if d else "False" for d in dims)
        if f == "sum_to" or len(shape) >= r:
            expect = TypeError
    elif kind == "size" and shape:
        i = data.draw(st.integers(0, len(shape) - 1))
        shape[i] += 2
        shape_code = tup(shape)
    elif kind == "rank":
        shape_code = tup(shape[1:]) if shape else "(2,)"
    elif kind == "none":
        dims_code = "None"
        if f == "sum_to" and len(shape) < r and len(shape) > 0 and prog.mode == "raise":
            expect = RankPromotionError
    elif kind == "np_ints":
        dims_code = tup(f"np.int64({d})" for d in dims)
    if f == "broadcast_in_dim":
        code = f"{t} = xp.broadcast_in_dim({x}, {shape_code}, {dims_code})"
        if kind == "none":
            code = f"{t} = xp.broadcast_in_dim({x}, {shape_code}, None)"
    else:
        code = (
            f"{t} = xp.sum_to({x}, {shape_code}, {dims_code})"
            if dims_code != "None" or data.draw(st.booleans())
            else f"{t} = xp.sum_to({x}, {shape_code})"
        )
    return Step(f, [code], t, inputs=[x], expect=expect)


# --- feedback: a small statistic of an expression feeds back into it -----------------

#: name -> (rank needed: None any >= 1, or an exact rank, lines using F, the float source,
#: m/M its statistics, n0/n1 its CPU sizes; T the target). Each computes a statistic of
#: F (a reduction, an index, a small matrix) and uses it with F again: the shape that the
#: planner cuts (dask/dask#874).
_GRAM = "g = F.mT @ F + xp.eye(N1, device=F.device)"  # a small SPD matrix of F
_CENTRED_GRAM = ("c = F - xp.mean(F, axis=0, keepdims=True)", _GRAM.replace("F", "c"))
FEEDBACK: dict[str, tuple[int | None, tuple[str, ...]]] = {
    "centre": (None, ("T = F - xp.mean(F, axis=0, keepdims=True)",)),
    "z-score": (None, ("c = F - xp.mean(F, axis=0, keepdims=True)",
                       "T = c / xp.std(c, axis=0, keepdims=True)")),
    "min-max": (None, ("T = (F - xp.min(F)) / (xp.max(F) - xp.min(F))",)),
    "softmax": (None, ("e = xp.exp(F - xp.max(F, axis=-1, keepdims=True))",
                       "T = e / xp.sum(e, axis=-1, keepdims=True)")),
    "mask": (None, ("T = F[F > xp.mean(F)]",)),
    "mask setitem": (None, ("T = F * 1.0", "T[T > xp.mean(T)] = xp.mean(T)")),
    "row setitem": (None, ("T = F * 1.0", "T[0] = xp.max(T, axis=0) - xp.mean(T)")),
    "nonzero": (None, ("T = F[xp.nonzero(F > xp.mean(F))] - xp.min(F)",)),
    "nonzero take": (1, ("T = xp.take(F, xp.nonzero(F >= xp.mean(F))[0], axis=0)",)),
    "argsort take": (1, ("T = xp.take(F, xp.argsort(F - xp.mean(F)), axis=0)",)),
    "argmax take": (2, ("T = xp.take(F, xp.argmax(F, axis=0), axis=0) - xp.max(F)",)),
    "argmax take 1": (2, ("T = xp.take(F, xp.argmax(F[:1], axis=1), axis=1)",)),
    "argsort along": (None, ("T = xp.take_along_axis(F, xp.argsort(F, axis=-1), axis=-1)"
                             " - xp.mean(F)",)),
    "one-hot": (2, ("T = xp.eye(N1, device=F.device)[xp.argmax(F, axis=1)]",
                    "T = T - xp.mean(T, axis=0, keepdims=True)")),
    "one-hot take": (2, ("T = xp.take(xp.eye(N1, device=F.device), xp.argmax(F, axis=1), axis=0)",
                         "T = T - xp.mean(T, axis=0, keepdims=True)")),
    "unique_inverse": (None, ("u = xp.unique_inverse(F)",
                              "T = u.values[u.inverse_indices] - xp.mean(F)")),
    "unique_inverse one-hot": (1, ("u = xp.unique_inverse(xp.round(F - xp.min(F)))",
                                   "T = xp.eye(3, device=F.device)[xp.clip(u.inverse_indices, 0, 2)]",
                                   "T = T - xp.mean(T, axis=0, keepdims=True)")),
    "unique_counts": (None, ("c = xp.unique_counts(F - xp.mean(F)).counts",
                             "T = c / xp.sum(c)")),
    "unique_all": (None, ("u = xp.unique_all(F)",
                          "T = xp.take(u.values, xp.reshape(u.inverse_indices, (-1,)), axis=0) "
                          "* xp.sum(u.counts)")),
    "unique_values": (None, ("T = xp.unique_values(F) - xp.mean(F)",)),
    "sort": (None, ("T = xp.sort(F - xp.mean(F), axis=-1)",)),
    "cumulative_sum": (None, ("T = xp.cumulative_sum(F - xp.mean(F, axis=0, keepdims=True), "
                              "axis=0)",)),
    "searchsorted": (1, ("T = xp.searchsorted(xp.sort(F), F - xp.mean(F))",)),
    "concat": (None, ("m = xp.mean(F, axis=0, keepdims=True)",
                      "T = xp.concat([F - m, m], axis=0)")),
    "stack": (None, ("T = xp.stack([F, F - xp.max(F)], axis=-1)",)),
    "astype": (None, ("T = xp.astype(F - xp.mean(F), xp.float32)",)),
    "astype int": (None, ("T = xp.astype(F > xp.mean(F), xp.int32) + xp.astype(F, xp.int64)",)),
    "astype complex": (None, ("T = xp.astype(F, xp.complex128) * xp.mean(F)",)),
    # linalg: a small matrix of a contraction over the long axis, fed back
    "matmul": (2, ("c = F - xp.mean(F, axis=0, keepdims=True)", "g = c.mT @ c",
                   "T = c @ g")),
    "inv": (2, (*_CENTRED_GRAM,
                "T = c @ xp.linalg.inv(g)")),
    "solve": (2, (*_CENTRED_GRAM,
                  "T = xp.linalg.solve(g, c.mT).mT * 2.0")),
    "cholesky": (2, (*_CENTRED_GRAM,
                     "T = c @ xp.linalg.cholesky(g)")),
    # (a factor in (-1, 1): fed back, c * det(g) would grow until g + I is singular to
    # rounding, and the two devices' rounding would decide the value)
    "det": (2, (*_CENTRED_GRAM,
                "d = xp.linalg.det(g)", "T = c * (d / (1.0 + xp.abs(d)))")),
    "slogdet": (2, (_GRAM,
                    "T = F - xp.linalg.slogdet(g).logabsdet")),
    "eigh": (2, (_GRAM,
                 "T = F - xp.max(xp.linalg.eigh(g).eigenvalues)")),
    "eigvalsh": (2, (_GRAM,
                     "T = F / xp.max(xp.linalg.eigvalsh(g))")),
    "svd": (2, (_GRAM,
                "T = F / xp.max(xp.linalg.svd(g).S)")),
    "svdvals": (2, (_GRAM,
                    "T = F / xp.max(xp.linalg.svdvals(g))")),
    "qr": (2, (_GRAM,
               "T = F @ xp.abs(xp.linalg.qr(g).R)")),
    "pinv": (2, (_GRAM, "T = F @ xp.linalg.pinv(g)")),
    "matrix_rank": (2, (_GRAM,
                        "T = F * xp.astype(xp.linalg.matrix_rank(g), xp.float64)")),
    "matrix_power": (2, ("g = F.mT @ F / (1.0 + xp.max(xp.abs(F)))",
                         "T = F @ xp.linalg.matrix_power(g, 2)")),
    "matrix_norm": (2, ("T = F / (1.0 + xp.linalg.matrix_norm(F.mT @ F))",)),
    "vector_norm": (None, ("T = F - xp.linalg.vector_norm(F, axis=0, keepdims=True)",)),
    "trace diagonal": (2, ("g = F.mT @ F",
                           "T = F * xp.linalg.trace(g) - xp.max(xp.linalg.diagonal(g))")),
    "matrix_transpose": (2, ("T = xp.linalg.matrix_transpose(F - xp.mean(F, axis=0, keepdims=True))",)),
    "outer": (2, ("m = xp.mean(F, axis=0)", "T = F @ xp.linalg.outer(m, m)")),
    "vecdot": (2, ("T = xp.linalg.vecdot(F, xp.mean(F, axis=0, keepdims=True))",)),
    "tensordot": (2, ("T = xp.tensordot(F, xp.mean(F, axis=0), axes=1)",)),
    "cross": (2, ("m = xp.mean(F, axis=0, keepdims=True)",
                  "T = xp.linalg.cross(F[:, :3], m[:, :3])")),
    # fft: along the last axis (its size known), fed back
    "fft": (None, ("T = xp.abs(xp.fft.fft(F - xp.mean(F, axis=-1, keepdims=True), axis=-1))",)),
    "ifft": (None, ("T = xp.real(xp.fft.ifft(xp.fft.fft(F, axis=-1) * xp.mean(F), axis=-1))",)),
    "rfft irfft": (None, ("T = xp.fft.irfft(xp.fft.rfft(F - xp.mean(F), axis=-1), n=NL, "
                          "axis=-1)",)),
    "hfft ihfft": (None, ("T = xp.fft.hfft(xp.fft.ihfft(F - xp.max(F), axis=-1), n=NL, axis=-1)",)),
    "fftn ifftn": (None, ("T = xp.real(xp.fft.ifftn(xp.fft.fftn(F, axes=(-1,)) - xp.mean(F), "
                          "axes=(-1,)))",)),
    "rfftn irfftn": (None, ("T = xp.fft.irfftn(xp.fft.rfftn(F - xp.mean(F), axes=(-1,)), "
                            "s=(NL,), axes=(-1,))",)),
    "fftfreq shift": (1, ("T = xp.fft.fftshift(F * xp.fft.fftfreq(NL, device=F.device)) "
                          "- xp.mean(F)",)),
    "rfftfreq ifftshift": (1, ("T = xp.fft.ifftshift(xp.fft.rfftfreq(2 * NL, device=F.device)"
                               "[:NL] * F) - xp.max(F)",)),
}  # fmt: skip


def g_feedback(data: Any, prog: Program) -> Step:
    x = prog.pick(data, lambda p, n: len(p.shape(n)) >= 1)
    if x is None:  # only 0-d arrays: a reduction of one
        return g_reduction(data, prog)
    s, ds = prog.shape(x), prog.dshape(x)
    r = len(s)
    names = [n for n, (rank, _) in FEEDBACK.items() if rank is None or rank == r]
    name = choice(data, names)
    _, lines = FEEDBACK[name]
    t = prog.fresh()
    f, c = prog.fresh("f"), prog.fresh("c")
    src = {"F": f, "T": t, "c": c, "u": prog.fresh("u"), "e": prog.fresh("e"),
           "g": prog.fresh("g"), "m": prog.fresh("m"), "N1": str(s[-1]), "NL": str(s[-1])}  # fmt: skip
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, src)) + r")\b")
    body = [f"{f} = {_float_source(prog, x)}"]
    body += [pattern.sub(lambda mt: src[mt.group(1)], line) for line in lines]
    unknown = prog.unknown(x)
    return Step(
        f"feedback ({name})", body, t, inputs=[x],
        # an empty selection's min or max, an index into an unknown size: data on DASK
        deferrable=(ValueError, IndexError, np.linalg.LinAlgError) if unknown else (),
        dask_may_refuse=unknown or None in ds, complex_products="astype complex" == name,
    )  # fmt: skip


FAMILIES = {
    "elementwise": (g_unary, g_binary),
    "reduction": (g_reduction,),
    "where_clip": (g_where, g_clip),
    "getitem": (g_getitem,),
    "setitem": (g_setitem,),
    "inplace": (g_inplace,),
    "manipulation": (g_manipulation,),
    "linalg": (g_linalg,),
    "broadcast": (g_broadcast,),
    "feedback": (g_feedback,),
}
ALL_GENERATORS = tuple(itertools.chain(*FAMILIES.values()))


# --- the program tests --------------------------------------------------------------

#: Shrinking a failing program replays it many times; Hypothesis allows 300 s per test,
#: which with a dozen failing tests would far exceed CI's budget. Capped here (per test,
#: restored afterwards); DIFFERENTIAL_SHRINK_SECONDS=300 gives Hypothesis' own limit.
SHRINK_SECONDS = float(os.environ.get("DIFFERENTIAL_SHRINK_SECONDS", "15"))


@pytest.fixture(autouse=True)
def _bounded_shrinking(monkeypatch):
    try:
        from hypothesis.internal.conjecture import engine
    except ImportError:  # pragma: no cover - a Hypothesis without this module
        yield
        return
    if hasattr(engine, "MAX_SHRINKING_SECONDS"):
        monkeypatch.setattr(engine, "MAX_SHRINKING_SECONDS", SHRINK_SECONDS)
    yield


def start(data: Any, prog: Program, *, unknown: bool = False) -> None:
    """The initial array(s): drawn values, a drawn chunking on DASK; ``unknown`` masks
    them (on both devices) so that DASK has unknown sizes."""
    dtype = choice(data, DTYPES)
    shape = draw_shape(data, 1 if unknown else 0)
    values = draw_values(data, dtype, shape)
    v = prog.fresh()
    prog.run(Step("start", [f"{v} = A({literal(values)}, {draw_chunks(data, shape)!r})"], v))
    if data.draw(st.booleans()):
        # a second array of a related shape, for binary steps between pool arrays
        s2 = tuple(1 if rarely(data, 3) else n for n in shape)
        if rarely(data, 3):
            s2 = s2[1:]
        w = prog.fresh()
        v2 = draw_values(data, other_dtype(data, np.dtype(dtype)), s2)
        prog.run(Step("start", [f"{w} = A({literal(v2)}, {draw_chunks(data, s2)!r})"], w))
    if unknown:
        leading = data.draw(st.booleans())
        mshape = shape[:1] if leading else shape
        mask = np.array(data.draw(st.lists(st.sampled_from((True, True, True, False)),
                                           min_size=math.prod(mshape), max_size=math.prod(mshape))),
                        dtype=bool).reshape(mshape)  # fmt: skip
        u = prog.fresh()
        prog.run(Step("start (mask)", [f"{u} = {v}[{aux(data, mask)}]"], u, inputs=[v]))
        if data.draw(st.booleans()):
            u2 = prog.fresh()
            prog.run(
                Step(
                    "start (mask)",
                    [
                        f"{u2} = {v}[{v} {'!=' if dtype != 'bool' else '|'} {choice(data, ('0', '1')) if dtype != 'bool' else 'True'}]"
                    ],
                    u2,
                    inputs=[v],
                )
            )


def run_program(data: Any, generators: Any, *, unknown: bool = False, mode: str = "raise") -> None:
    prog = Program(mode)
    start(data, prog, unknown=unknown)
    for _ in range(data.draw(st.integers(1, 6))):
        if not prog.live:
            break
        gen = choice(data, generators)
        prog.run(gen(data, prog))
    prog.finish()


@pytest.mark.parametrize("family", sorted(FAMILIES))
@_seeded
@PROGRAMS
@given(data=st.data())
def test_programs_agree(family, data):
    """Programs of one operation family give the same results on CPU and DASK."""
    run_program(data, FAMILIES[family])


@_seeded
@PROGRAMS
@given(data=st.data())
def test_mixed_programs_agree(data):
    """Programs mixing every family, in raise and allow mode."""
    mode = choice(data, ("raise", "raise", "raise", "allow"))
    run_program(data, ALL_GENERATORS, mode=mode)


@_seeded
@PROGRAMS
@given(data=st.data())
def test_programs_with_unknown_sizes_agree(data):
    """After boolean masking DASK has unknown sizes: every family follows section 4."""
    run_program(data, ALL_GENERATORS, unknown=True)


def test_complex_products_agree_only_where_both_are_non_finite():
    """The one relaxation of the comparison, and only for steps that sum complex
    products in an order the chunking decides (NumPy's own matmul of one product gives
    -inf+infj or nan+nanj by the operands' shapes)."""
    inf_cpu, inf_dask = np.array([6j, complex(nan, nan)]), np.array([6j, complex(-inf, inf)])
    assert _close(inf_cpu, inf_dask, 1.0, complex_products=True)
    assert not _close(inf_cpu, inf_dask, 1.0)
    assert not _close(np.array([6j, 1j]), inf_dask, 1.0, complex_products=True)
    assert not _close(np.array([5j, complex(nan, nan)]), inf_dask, 1.0, complex_products=True)


# --- threads ------------------------------------------------------------------------


@pytest.fixture
def fast_switching():
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # preempt often, as busy worker threads do
    try:
        yield
    finally:
        sys.setswitchinterval(old)


N_THREADS, ROW = 8, 50


def _hammer(x: xp.Array, work: Any) -> None:
    barrier = threading.Barrier(N_THREADS)
    errors: list[BaseException] = []

    def run(i: int) -> None:
        barrier.wait()
        try:
            work(x, i)
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(N_THREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors


def _set_row(x: xp.Array, i: int) -> None:
    x[i, ...] = xp.full((ROW,), float(i + 1), device=x.device)


def _add_to_row(x: xp.Array, i: int) -> None:
    for _ in range(3):
        x[i, ...] += 1.0


def _add_to_all(x: xp.Array, i: int) -> None:
    for _ in range(3):
        x += 1.0


CONCURRENT = {
    "x[i, ...] = v": (_set_row, lambda: np.arange(1.0, N_THREADS + 1)[:, None] * np.ones(ROW)),
    "x[i, ...] += 1": (_add_to_row, lambda: np.full((N_THREADS, ROW), 3.0)),
    "x += 1": (_add_to_all, lambda: np.full((N_THREADS, ROW), 3.0 * N_THREADS)),
}


@pytest.mark.parametrize("device", [xp.CPU, xp.DASK], ids=lambda d: d.name)
@pytest.mark.parametrize("write", sorted(CONCURRENT))
def test_concurrent_writes_are_not_lost(write, device, fast_switching):
    """8 threads writing into one array: every write lands (scikit-learn's threaded
    pairwise distances write rows of one result array this way)."""
    work, expected = CONCURRENT[write]
    lost = []
    for rep in range(15):
        x = xp.zeros((N_THREADS, ROW), device=device)
        if device is xp.DASK:
            x = x.to_device(xp.DASK, chunks=(2, 25))
        _hammer(x, work)
        got = np.asarray(x)
        wrong = int((got != expected()).any(axis=1).sum())
        if wrong:
            lost.append((rep, wrong))
        assert x.dtype == xp.float64 and x.shape == (N_THREADS, ROW)
    assert not lost, f"{write} on {device}: (repetition, rows with a lost write): {lost}"


# --- warnings -----------------------------------------------------------------------


@pytest.mark.parametrize("device", [xp.CPU, xp.DASK], ids=lambda d: d.name)
def test_rank_promotion_warns_once_per_location(device):
    """In warn mode, a promoting line run in a loop warns once under the "default"
    filter (once per location: the registry is ``__warningregistry__`` of this module,
    keyed by message, category and line).

    Entering ``catch_warnings`` and ``simplefilter`` invalidate every registry, so the
    count starts afresh here whatever ran before (also the other device's run of these
    same lines); only something that mutates the filters *between* the iterations (or a
    message that changes) can make a line warn again.
    """

    def make(values, chunks):
        if device is xp.DASK:
            return xp.asarray(values, device=device, chunks=chunks)
        return xp.asarray(values)

    m = make(np.arange(12.0).reshape(4, 3), (2, 2))
    v = make(np.arange(3.0), (2,))
    stack = make(np.ones((2, 3, 3)), (1, 2, 3))
    square = make(np.eye(3), (2, 3))
    sites = 6
    with xp.rank_promotion("warn"), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        for _ in range(4):
            a = m + v
            b = xp.where(m > 1.0, m, v)
            c = xp.clip(m, v, None)
            d = stack @ square
            e = xp.sum_to(m, (3,))
            f = xp.asarray(m, copy=True)
            f -= v
            for r in (a, b, c, d, e, f):
                np.asarray(r)  # computing must not warn again either
    ours = [w for w in caught if issubclass(w.category, RankPromotionWarning)]
    locations = Counter((w.filename, w.lineno) for w in ours)
    assert all(filename == __file__ for filename, _ in locations), locations
    assert len(locations) == sites, locations
    repeated = {loc: n for loc, n in locations.items() if n != 1}
    assert not repeated, f"warned more than once at (file, line): {repeated}"


@pytest.mark.parametrize("device", [xp.CPU, xp.DASK], ids=lambda d: d.name)
def test_rank_promotion_results_agree_in_warn_mode(device):
    """The promoted results themselves equal NumPy's trailing alignment."""
    m = np.arange(12.0).reshape(4, 3)
    v = np.arange(3.0)
    kw = {"device": device, "chunks": (2, 2)} if device is xp.DASK else {}
    with xp.rank_promotion("allow"):
        got = np.asarray(xp.asarray(m, **kw) + xp.asarray(v, **({"device": device} if kw else {})))
    np.testing.assert_array_equal(got, m + v)
