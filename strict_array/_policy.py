"""Rank-promotion policy: the one place that decides every rank rule.

Every operation asks the pure shape rules (:mod:`strict_array._broadcasting`)
for a plan; when the plan carries a :class:`~strict_array._broadcasting.Promotion`
(operands of different ranks without ``broadcast_dimensions``), the operation
calls one of the functions here, which raise, warn, record or allow it. Nothing
else in strict_array raises :class:`RankPromotionError`, warns
:class:`RankPromotionWarning` or records an audit.

A *policy* is a default mode plus a mode per package; the package is that of
the first frame outside strict_array (the code that called us), found only when
a promotion happens, so the fast path, which never promotes, pays nothing.

A policy also names the packages whose data-dependent sizes are computed at once
(:attr:`RankPromotionPolicy.known_sizes`; by default scikit-learn, SciPy and
array-api-extra, array-API consumers that use sizes as numbers): on a lazy device a
selection by a mask, ``nonzero`` or ``unique_values`` called from them has its size
known where it arises (the DASK device's data-dependent-size rule). It is the only
other decision made by the calling package, and it too looks for the caller only when
such a size arises (:func:`sizes_known_here`).

Modes: ``"raise"`` (default), ``"warn"``, ``"allow"``, and ``"audit"`` (allow
and record the call site in the policy's :class:`AuditReport`). A policy may
carry a :class:`RankPromotionBaseline`, the known sites: where the mode would
raise or warn, a promotion at one of them is allowed and recorded instead, so
that only new sites fail. It is checked in :func:`_decide`, as the modes are, so
every caller of this module gets it.

- Process-wide: the environment variable ``STRICT_ARRAY_RANK_PROMOTION``, read
  at import (``"warn"``, or a policy such as ``"raise,sklearn=warn,scipy=audit"``),
  :func:`set_rank_promotion` and :func:`set_rank_promotion_policy`.
- In one thread or asyncio task (a :class:`contextvars.ContextVar`):
  :func:`rank_promotion`, :func:`rank_promotion_policy` and :func:`audit`,
  context managers and decorators.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import os
import sys
import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from contextvars import ContextVar, Token
from dataclasses import dataclass, field
from types import FrameType
from typing import Any, Literal

from ._audit_report import AuditReport, RankPromotionBaseline
from ._broadcasting import (
    BinaryPlan,
    Promotion,
    SumToPlan,
    batch_plan,
    batch_shape,
    binary_plan,
    mixed_ranks,
    operands_plan,
    promotion_message,
    stretches_both,
    sum_to_plan,
)
from ._caller import caller, in_packages
from ._errors import RankPromotionError, RankPromotionWarning
from ._settings import answer_sizes_by
from ._typing import Shape

__all__ = [
    "RankPromotionPolicy",
    "audit",
    "binary",
    "get_rank_promotion",
    "get_rank_promotion_policy",
    "operands",
    "rank_promotion",
    "rank_promotion_policy",
    "set_rank_promotion",
    "set_rank_promotion_policy",
    "stacks",
    "sum_to",
]

#: the packages whose data-dependent sizes are computed at once by default: array-API
#: consumers that use sizes as numbers (scikit-learn's type_of_target compares
#: unique_values(y).shape[0] with 2; array-api-extra's eager_shape refuses an unknown
#: size; SciPy calls both)
KNOWN_SIZES_PACKAGES = frozenset({"sklearn", "scipy", "array_api_extra"})

Mode = Literal["raise", "warn", "allow"]
PolicyMode = Literal["raise", "warn", "allow", "audit"]
MODES: tuple[str, ...] = ("raise", "warn", "allow")
POLICY_MODES: tuple[str, ...] = (*MODES, "audit")
ENV_VAR = "STRICT_ARRAY_RANK_PROMOTION"


# --- policies --------------------------------------------------------------------------
@dataclass(frozen=True)
class RankPromotionPolicy:
    """What happens to rank promotions: a default mode and a mode per package.

    Attributes
    ----------
    default : {"raise", "warn", "allow", "audit"}
        The mode for code outside every listed package.
    packages : dict
        Package (import name, e.g. ``"sklearn"`` or ``"mypkg.sub"``) -> mode; the
        longest matching name wins.
    report : AuditReport
        Where the promotions decided by an ``"audit"`` mode are recorded.
    baseline : RankPromotionBaseline or None
        Known sites: where the mode is ``"raise"`` or ``"warn"``, a promotion at
        one of them is allowed and recorded in ``baseline.report`` instead.
    known_sizes : frozenset of str
        The packages whose calls get data-dependent sizes computed at once on a
        lazy device (a module inside one counts); :data:`KNOWN_SIZES_PACKAGES` by
        default. A block's ``strict_array.known_sizes(...)`` decides over it.
    """

    default: str
    packages: Mapping[str, str] = field(default_factory=dict)
    report: AuditReport = field(default_factory=AuditReport)
    baseline: RankPromotionBaseline | None = None
    known_sizes: frozenset[str] = field(default_factory=lambda: KNOWN_SIZES_PACKAGES)

    __module__ = "strict_array"

    def mode_for(self, module: str) -> str:
        """The mode for code in ``module`` (a dotted module name)."""
        best, mode = -1, self.default
        for package, package_mode in self.packages.items():
            if (module == package or module.startswith(package + ".")) and len(package) > best:
                best, mode = len(package), package_mode
        return mode


def _check_mode(mode: object, where: str, allowed: tuple[str, ...] = MODES) -> str:
    if mode not in allowed:
        raise ValueError(
            f"{where}: rank-promotion mode must be one of "
            f"{', '.join(repr(m) for m in allowed)}, got {mode!r}."
        )
    return mode  # type: ignore[return-value]


def _check_name(name: object, where: str) -> str:
    if not isinstance(name, str) or not all(p.isidentifier() for p in name.split(".")):
        raise ValueError(
            f"{where}: {name!r} is not a package name; use an import name such as "
            "'sklearn' or 'mypkg.sub'."
        )
    return name


def _check_packages(packages: object, where: str) -> dict[str, str]:
    if not isinstance(packages, Mapping):
        raise TypeError(
            f"{where}: packages must be a mapping of package names to modes, e.g. "
            f"{{'sklearn': 'warn'}}, got {type(packages).__name__}."
        )
    return {
        _check_name(name, where): _check_mode(mode, f"{where} (package {name!r})", POLICY_MODES)
        for name, mode in packages.items()
    }


def _check_known_sizes(packages: object, where: str) -> frozenset[str]:
    if isinstance(packages, str) or not isinstance(packages, Iterable):
        raise TypeError(
            f"{where}: known_sizes must be a collection of package names, e.g. "
            f"['sklearn', 'mypkg'], got {packages!r}."
        )
    return frozenset(_check_name(name, f"{where} (known_sizes)") for name in packages)


BaselineLike = RankPromotionBaseline | AuditReport | Mapping[str, Any] | str | os.PathLike[str]


def as_baseline(
    baseline: BaselineLike, where: str, root: str | os.PathLike[str] | None = None
) -> RankPromotionBaseline:
    """A :class:`RankPromotionBaseline` from one, a report, its dict or a JSON file."""
    if isinstance(baseline, RankPromotionBaseline):
        return baseline
    if not isinstance(baseline, (AuditReport, Mapping, str, os.PathLike)):
        raise TypeError(
            f"{where}: baseline must be the path of a JSON rank-promotion report, its "
            f"dict, an AuditReport or a RankPromotionBaseline, got {type(baseline).__name__}."
        )
    try:
        return RankPromotionBaseline(baseline, root)
    except ValueError as e:
        raise ValueError(f"{where}: baseline {e}") from None


def parse_policy(text: str, where: str) -> RankPromotionPolicy | None:
    """A policy from ``"raise,sklearn=warn,scipy=audit"`` (None for an empty text).

    Entries are separated by commas; ``PACKAGE=MODE`` sets a package's mode and a
    bare ``MODE`` the default (``"raise"`` if none is given).
    """
    default, packages = "raise", {}
    for entry in (e.strip() for e in text.split(",")):
        if not entry:
            continue
        name, sep, mode = entry.partition("=")
        if sep:
            packages[name.strip()] = mode.strip()
        else:
            default = _check_mode(entry, where, POLICY_MODES)
    if not packages and not text.strip():
        return None
    return RankPromotionPolicy(default, _check_packages(packages, where))


def _from_environment() -> RankPromotionPolicy:
    policy = parse_policy(os.environ.get(ENV_VAR, ""), ENV_VAR) or RankPromotionPolicy("raise")
    if "audit" in (policy.default, *policy.packages.values()):
        atexit.register(_print_process_audit)
    return policy


def _print_process_audit() -> None:
    report = _process[0].report
    if report.counts:
        print(report, file=sys.stderr)


_process: list[RankPromotionPolicy] = [_from_environment()]
_local: ContextVar[RankPromotionPolicy | None] = ContextVar(
    "strict_array_rank_promotion_policy", default=None
)


def get_rank_promotion_policy() -> RankPromotionPolicy:
    """The policy in force here (the innermost context's, else the process-wide one)."""
    return _local.get() or _process[0]


def get_rank_promotion() -> str:
    """Return the default rank-promotion mode in force here.

    Returns
    -------
    {"raise", "warn", "allow", "audit"}
        The innermost :func:`rank_promotion` (or policy) context's default mode,
        else the process-wide default; ``"audit"`` inside :func:`audit`.
    """
    return get_rank_promotion_policy().default


def set_rank_promotion(mode: Mode) -> None:
    """Set the process-wide default rank-promotion mode.

    Package modes set by :func:`set_rank_promotion_policy` stay as they are.

    Parameters
    ----------
    mode : {"raise", "warn", "allow"}
        ``"raise"`` refuses operations between arrays of different ranks without
        ``broadcast_dimensions`` (:class:`RankPromotionError`); ``"warn"`` does
        NumPy-style rank promotion and issues :class:`RankPromotionWarning`;
        ``"allow"`` does it silently.

    Notes
    -----
    An active :func:`rank_promotion` context in a thread or task takes
    precedence over this default there.
    """
    current = _process[0]
    _process[0] = dataclasses.replace(current, default=_check_mode(mode, "set_rank_promotion"))


def set_rank_promotion_policy(
    packages: Mapping[str, PolicyMode],
    default: Mode | None = None,
    *,
    baseline: BaselineLike | None = None,
    known_sizes: Iterable[str] | None = None,
) -> None:
    """Set the process-wide rank-promotion policy: a mode per package.

    Parameters
    ----------
    packages : mapping
        Package import name -> ``"raise"``, ``"warn"``, ``"allow"`` or ``"audit"``.
        The package is that of the first frame outside strict_array.
    default : {"raise", "warn", "allow"}, optional
        The mode everywhere else; unchanged if omitted.
    baseline : path, dict, AuditReport or RankPromotionBaseline, optional
        Known sites (a JSON report): promotions there are allowed and recorded in
        ``get_rank_promotion_policy().baseline.report`` where the mode would raise
        or warn; unchanged if omitted. File paths are relative to the working
        directory.
    known_sizes : collection of str, optional
        The packages whose calls get data-dependent sizes computed at once on a lazy
        device (:attr:`RankPromotionPolicy.known_sizes`); unchanged if omitted.

    See Also
    --------
    rank_promotion_policy : the same for one block of code.
    """
    current = _process[0]
    checked = _check_packages(packages, "set_rank_promotion_policy")
    mode = (
        current.default
        if default is None
        else _check_mode(default, "set_rank_promotion_policy", POLICY_MODES)
    )
    known = (
        current.baseline if baseline is None else as_baseline(baseline, "set_rank_promotion_policy")
    )
    sized = (
        current.known_sizes
        if known_sizes is None
        else _check_known_sizes(known_sizes, "set_rank_promotion_policy")
    )
    _process[0] = RankPromotionPolicy(mode, checked, current.report, known, sized)


class _Scoped(contextlib.ContextDecorator):
    """A policy in force inside a ``with`` block (or a decorated function), in the
    current thread or asyncio task only; validated when made, not when entered."""

    def __init__(self, make: Callable[[RankPromotionPolicy], RankPromotionPolicy]) -> None:
        self._make = make
        self._tokens: list[Token[RankPromotionPolicy | None]] = []

    def _recreate_cm(self) -> _Scoped:
        return _Scoped(self._make)  # a decorated function may run in several threads at once

    def __enter__(self) -> AuditReport:
        policy = self._make(get_rank_promotion_policy())
        self._tokens.append(_local.set(policy))
        return policy.report

    def __exit__(self, *exc: object) -> None:
        _local.reset(self._tokens.pop())


def rank_promotion(mode: Mode) -> contextlib.AbstractContextManager[Any]:
    """Context manager (and decorator) setting the rank-promotion mode locally.

    The mode applies to all code in the block, whatever package it is in, in the
    current thread or asyncio task only, and is restored on exit.

    Parameters
    ----------
    mode : {"raise", "warn", "allow"}

    Raises
    ------
    ValueError
        An unknown mode (when called, not when the block is entered).

    Examples
    --------
    >>> import strict_array as xp
    >>> with xp.rank_promotion("allow"):
    ...     (xp.ones((2, 3)) + xp.ones(3)).shape
    (2, 3)
    """
    checked = _check_mode(mode, "rank_promotion")
    return _Scoped(
        lambda outer: RankPromotionPolicy(
            checked, baseline=outer.baseline, known_sizes=outer.known_sizes
        )
    )


def rank_promotion_policy(
    packages: Mapping[str, PolicyMode],
    default: PolicyMode | None = None,
    *,
    baseline: BaselineLike | None = None,
    known_sizes: Iterable[str] | None = None,
) -> contextlib.AbstractContextManager[AuditReport]:
    """Context manager (and decorator): a rank-promotion mode per package, locally.

    Each rank promotion is decided by the package of the first frame outside
    strict_array: your code can raise while a dependency only warns, or is
    audited. The policy applies in the current thread or asyncio task only.

    Parameters
    ----------
    packages : mapping
        Package import name -> ``"raise"``, ``"warn"``, ``"allow"`` or ``"audit"``;
        these add to (and override) the enclosing policy's packages. The longest
        matching name wins (``"mypkg.legacy"`` over ``"mypkg"``).
    default : {"raise", "warn", "allow", "audit"}, optional
        The mode for all other code; by default the enclosing one.
    baseline : path, dict, AuditReport or RankPromotionBaseline, optional
        Known sites, as a JSON report (``--rank-promotion-report``) or a report of
        this process: where the mode would raise or warn, a promotion at one of
        them is allowed and recorded, so that only new sites fail. By default the
        enclosing one. File paths are relative to the working directory; read
        when called.
    known_sizes : collection of str, optional
        The packages whose calls get data-dependent sizes computed at once on a lazy
        device (:attr:`RankPromotionPolicy.known_sizes`); by default the enclosing
        policy's.

    Yields
    ------
    AuditReport
        The promotions decided by an ``"audit"`` mode inside the block, and those
        the ``baseline`` given here let through.

    Examples
    --------
    >>> import strict_array as xp
    >>> with xp.rank_promotion_policy({"sklearn": "warn"}, default="audit") as report:
    ...     _ = xp.ones((4, 3)) - xp.ones(3)  # not in sklearn: audited
    >>> report.total
    1
    """
    checked = _check_packages(packages, "rank_promotion_policy")
    mode = None if default is None else _check_mode(default, "rank_promotion_policy", POLICY_MODES)
    known = None if baseline is None else as_baseline(baseline, "rank_promotion_policy")
    where = "rank_promotion_policy"
    sized = None if known_sizes is None else _check_known_sizes(known_sizes, where)

    def make(outer: RankPromotionPolicy) -> RankPromotionPolicy:
        packages = {**outer.packages, **checked}
        sizes = outer.known_sizes if sized is None else sized
        if known is None:
            return RankPromotionPolicy(
                mode or outer.default, packages, baseline=outer.baseline, known_sizes=sizes
            )
        # one report for the block: its audited packages and its baseline's sites
        return RankPromotionPolicy(mode or outer.default, packages, known.report, known, sizes)

    return _Scoped(make)


def audit() -> contextlib.AbstractContextManager[AuditReport]:
    """Allow and record rank promotions inside the block.

    Yields
    ------
    AuditReport
        Filled in as the block runs; print it for a table sorted by count, or
        keep the sites of one package with ``report.under("sklearn")``.

    Examples
    --------
    >>> import strict_array as xp
    >>> with xp.audit() as report:
    ...     _ = xp.ones((4, 3)) - xp.ones(3)
    >>> report.total
    1
    """
    return _Scoped(lambda outer: RankPromotionPolicy("audit", known_sizes=outer.known_sizes))


# --- the decisions -----------------------------------------------------------------------
def sizes_known_here(packages: Iterable[str] | None = None) -> bool:
    """Whether the code calling strict_array here is in one of the policy's
    :attr:`~RankPromotionPolicy.known_sizes` packages (or of ``packages``): the caller
    is looked for only where a data-dependent size arises, as for a promotion."""
    if packages is None:
        packages = get_rank_promotion_policy().known_sizes
    packages = tuple(packages)
    if not packages:
        return False
    frame, _ = caller()
    return frame is not None and in_packages(frame.f_globals.get("__name__", ""), packages)


answer_sizes_by(sizes_known_here)


def _decide(p: Promotion) -> None:
    policy = _local.get() or _process[0]
    frame: FrameType | None = None
    level = 0
    if policy.packages:  # (the search stops in a package the policy names, NumPy's too)
        frame, level = caller(policy.packages)
        mode = policy.mode_for(frame.f_globals.get("__name__", "") if frame else "")
    else:
        mode = policy.default
    report = policy.report
    # a block's baseline, else the process-wide one (set after the block was entered)
    baseline = policy.baseline or _process[0].baseline
    if baseline is not None and mode in ("raise", "warn"):
        # a known site (the baseline) is let through and recorded; a new one is not
        if frame is None:
            frame, level = caller(policy.packages)
        if baseline.admits(frame, p.op, p.shape1, p.shape2):
            mode, report = "audit", baseline.report
    if mode == "raise":
        raise RankPromotionError(promotion_message(p, "raise"))
    if p.failure is not None:  # NumPy's alignment fails as well: only that error
        raise ValueError(p.failure)
    if mode == "allow":
        return
    if frame is None:
        frame, level = caller(policy.packages)
    if mode == "audit":
        outer = stretches_both(p.kind, p.shape1, p.shape2, p.core)
        report.record(p.op, p.shape1, p.shape2, frame, outer=outer)
    else:
        _warn(promotion_message(p, mode), frame, level)


# Python's once-per-location registry (the "default", "module" and "once" filter
# actions) is cleared whenever the filters change, and every warnings.catch_warnings()
# block changes them on entry and exit (python/cpython#73858); Dask enters such
# blocks while building graphs, so a promotion on DASK would warn again at every
# run of the same line. Which locations have been shown is kept here instead, per
# filter list (catch_warnings gives each block its own list and puts the old one
# back) and its contents (a new filter starts afresh, as in Python).
_SHOWN: OrderedDict[int, tuple[list[Any], tuple[Any, ...], set[tuple[Any, ...]]]] = OrderedDict()
_SHOWN_LOCK = threading.Lock()


def _shown_here() -> set[tuple[Any, ...]]:
    """The locations shown under the filters in force (call with the lock held)."""
    filters: list[Any] = warnings.filters  # type: ignore[assignment]
    entry = _SHOWN.get(id(filters))
    if entry is None or entry[0] is not filters or entry[1] != tuple(filters):
        # the list itself is kept in the entry, so its id is not reused while cached
        entry = _SHOWN[id(filters)] = (filters, tuple(filters), set())
        while len(_SHOWN) > 64:
            _SHOWN.popitem(last=False)
    return entry[2]


def _action(text: str, category: type[Warning], module: str, lineno: int) -> str:
    """The action of the first matching filter, as :mod:`warnings` finds it."""
    for action, message, cat, mod, ln in warnings.filters:
        if (
            (message is None or message.match(text))
            and issubclass(category, cat)
            and (mod is None or mod.match(module))
            and (ln == 0 or lineno == ln)
        ):
            return action
    return getattr(warnings, "defaultaction", "default")  # not in the typing stubs


def _warn(text: str, frame: FrameType | None, level: int) -> None:
    if frame is not None:
        module = frame.f_globals.get("__name__", "<string>")
        lineno = frame.f_lineno
        action = _action(text, RankPromotionWarning, module, lineno)
        where = {"default": (frame.f_code.co_filename, lineno), "module": module, "once": None}
        if action in where:
            key = (text, where[action])
            with _SHOWN_LOCK:
                shown = _shown_here()
                if key in shown:
                    return
                shown.add(key)
    # ``level`` counts from _decide to the caller; warn's stacklevel 2 is _decide
    warnings.warn(text, RankPromotionWarning, stacklevel=level + 2)


# --- the rank rules, decided -------------------------------------------------------------
def binary(op: str, shape1: Shape, shape2: Shape, dims: object) -> BinaryPlan:
    """The plan of a binary element-wise operation (section 1), promotion decided."""
    plan = binary_plan(op, shape1, shape2, dims)
    if plan.promotion is not None:
        _decide(plan.promotion)
    return plan


def operands(op: str, *shapes: Shape) -> Shape:
    """The broadcast shape of operands without ``broadcast_dimensions`` (``where``,
    ``clip``, ``x[key] = v``, ``linalg.cross``: section 2), promotion decided."""
    if shapes and shapes.count(shapes[0]) == len(shapes):
        return shapes[0]  # one shape: one rank, nothing to promote or broadcast
    shape, promotion = operands_plan(op, *shapes)
    if promotion is not None:
        _decide(promotion)
    return shape


def ranks(op: str, *shapes: Shape) -> None:
    """The rank rule of operands without ``broadcast_dimensions``, decided before their
    sizes are checked (a function that refuses a dtype first: :func:`operands` then)."""
    pair = mixed_ranks(shapes)
    if pair is not None:
        _decide(Promotion(op, *pair, "operands"))


def stacks(op: str, shape1: Shape, shape2: Shape, core1: int = 2, core2: int = 2) -> Shape:
    """The broadcast batch shape of two stacks of ``core``-axis operands (``matmul``,
    ``vecdot``, stacked ``linalg``: section 2), promotion decided."""
    promotion = batch_plan(op, shape1, shape2, core1, core2)
    if promotion is not None:
        _decide(promotion)
    return batch_shape(op, shape1, shape2, core1, core2)


def sum_to(op: str, shape: Shape, target: tuple[int, ...], dims: object) -> SumToPlan:
    """The plan of ``sum_to`` (section 5): a lower-rank target without
    ``broadcast_dimensions`` is the adjoint of a promotion, decided here."""
    plan = sum_to_plan(op, shape, target, dims)
    if plan.promotion is not None:
        _decide(plan.promotion)
    return plan
