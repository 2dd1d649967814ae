"""How lazy devices compute: progress bars and the plan of passes.

- A lazy device shows a progress bar while it computes when a person is
  watching (stderr is a terminal); ``STRICT_ARRAY_PROGRESS=0`` (or ``1``)
  decides for the process and :func:`progress` for one block of code.
- A lazy device computes large inputs shared by a reduction and other work in
  several streaming passes (bounded memory); :func:`planning` switches that off
  (or on, or sets its threshold) for one block of code, where a backend also
  has its own setting (on ``DASK``, the ``dask.config`` keys
  ``strict_array.planning`` and ``strict_array.planning-threshold``).

- A lazy device leaves data-dependent sizes (after boolean masking, ``nonzero``,
  ``unique_*``) unknown (``None``) until computed; :func:`known_sizes` makes it
  compute them where they arise, for code that needs sizes as numbers (on
  ``DASK`` also the ``dask.config`` key ``strict_array.known-sizes``, or the
  environment variable ``DASK_STRICT_ARRAY__KNOWN_SIZES=1``).

Each setting holds in the current thread or asyncio task (a ContextVar).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass

PROGRESS_ENV_VAR = "STRICT_ARRAY_PROGRESS"
_progress: ContextVar[bool | None] = ContextVar("strict_array_progress", default=None)


def show_progress() -> bool:
    """Whether a computation starting here should show a progress bar."""
    setting = _progress.get()
    if setting is not None:
        return setting
    env = os.environ.get(PROGRESS_ENV_VAR)
    if env is not None:
        return env.strip().lower() not in ("0", "false", "no", "off", "")
    return sys.stderr is not None and sys.stderr.isatty()  # a person is watching


@contextlib.contextmanager
def progress(show: bool = True) -> Iterator[None]:
    """Show (or hide) a progress bar for computations inside the block.

    By default a bar is shown when stderr is a terminal; the environment
    variable ``STRICT_ARRAY_PROGRESS=0`` (or ``1``) overrides that globally.
    On ``DASK``, local schedulers use :class:`dask.diagnostics.ProgressBar`
    and a ``dask.distributed`` cluster its own progress bar; a computation
    in several passes (see :func:`strict_array.compute`) shows one bar per pass.

    Parameters
    ----------
    show : bool, default True
        Whether to show the bar inside the block.
    """
    token = _progress.set(bool(show))
    try:
        yield
    finally:
        _progress.reset(token)


@dataclass(frozen=True)
class Planning:
    """The plan-of-passes setting of a block of code (None: the backend's default)."""

    enabled: bool | None = None
    threshold: int | str | None = None


_DEFAULT_PLANNING = Planning()
_planning: ContextVar[Planning | None] = ContextVar("strict_array_planning", default=None)


def current_planning() -> Planning:
    """The planning setting in force here."""
    return _planning.get() or _DEFAULT_PLANNING


@contextlib.contextmanager
def planning(enabled: bool = True, *, threshold: int | str | None = None) -> Iterator[None]:
    """Plan computations in streaming passes (or not) inside the block.

    When a large input feeds both a reduction and other work (``x - mean(x)``),
    a lazy device first computes the reduction in one streaming pass, puts its
    value into the graph, then computes the rest: memory stays bounded where
    the one graph would hold the whole input (dask/dask#874). It is on by
    default on ``DASK`` for inputs above the threshold.

    Parameters
    ----------
    enabled : bool, default True
        ``False`` computes every expression as one graph.
    threshold : int or str, optional
        Plan only when at least this much data (bytes, or a string such as
        ``"256 MiB"``) would wait in memory for a reduction.

    Examples
    --------
    >>> import strict_array as xp
    >>> with xp.planning(False):
    ...     float(xp.sum(xp.ones(4, device=xp.DASK)))
    4.0
    """
    if threshold is not None and not isinstance(threshold, (int, str)):
        raise TypeError(
            f"planning: threshold must be a number of bytes or a string such as '256 MiB', "
            f"got {type(threshold).__name__}."
        )
    token = _planning.set(Planning(bool(enabled), threshold))
    try:
        yield
    finally:
        _planning.reset(token)


_known_sizes: ContextVar[bool | None] = ContextVar("strict_array_known_sizes", default=None)


#: the fix named where a size unknown until computed (on ``DASK``) is used as a number
#: (here, beside ``known_sizes``: the devices name it too, and they are below the namespace)
UNKNOWN_SIZES_FIX = (
    "make the sizes known first: strict_array.known_sizes() around the code, or name the "
    "calling package in the rank-promotion policy's known_sizes "
    "(strict_array.rank_promotion_policy({}, known_sizes=[...]))"
)


def current_known_sizes() -> bool | None:
    """The known-sizes setting in force here (None: the backend's default)."""
    return _known_sizes.get()


# The packages whose data-dependent sizes are computed at once are the rank-promotion
# policy's to name; the policy sits above the backends, so it hands its question down
# here when it loads, and a lazy backend asks it without importing the policy.
def _no_package(packages: Iterable[str] | None = None) -> bool:
    return False


_policy_sizes: list[Callable[[Iterable[str] | None], bool]] = [_no_package]


def sizes_known_by_policy(packages: Iterable[str] | None = None) -> bool:
    """Whether the calling code is in a package whose data-dependent sizes are computed
    at once: the policy's ``known_sizes``, or ``packages``
    (:func:`strict_array._policy.sizes_known_here`)."""
    return _policy_sizes[0](packages)


def answer_sizes_by(question: Callable[[Iterable[str] | None], bool]) -> None:
    """Install the policy's question for :func:`sizes_known_by_policy` (done once, by
    :mod:`strict_array._policy` as it loads)."""
    _policy_sizes[0] = question


@contextlib.contextmanager
def known_sizes(enabled: bool = True) -> Iterator[None]:
    """Compute data-dependent sizes where they arise, inside the block.

    On a lazy device the size of ``x[mask]``, ``nonzero(x)`` or ``unique_values(x)``
    depends on the data, so ``shape`` reports it as ``None`` until computed, and
    code that uses sizes as numbers (``n = x.shape[0]``, ``range(len(x))``) fails.
    Inside this block such a result is computed at once (it, or the mask it is
    selected by, kept in memory, or on the cluster's workers) and its sizes are
    known: the code works as on an eager device, at the cost of a computation at
    each such step.

    Parameters
    ----------
    enabled : bool, default True

    Examples
    --------
    >>> import strict_array as xp
    >>> x = xp.arange(10.0, device=xp.DASK)
    >>> x[x > 6.5].shape
    (None,)
    >>> with xp.known_sizes():
    ...     x[x > 6.5].shape
    (3,)
    """
    token = _known_sizes.set(bool(enabled))
    try:
        yield
    finally:
        _known_sizes.reset(token)
