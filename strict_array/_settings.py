"""How lazy devices compute: progress bars and the plan of passes.

- A lazy device shows a progress bar while it computes when a person is
  watching (stderr is a terminal); ``STRICT_ARRAY_PROGRESS=0`` (or ``1``)
  decides for the process and :func:`progress` for one block of code.
- A lazy device computes large inputs shared by a reduction and other work in
  several streaming passes (bounded memory); :func:`planning` switches that off
  (or on, or sets its threshold) for one block of code, where a backend also
  has its own setting (on ``DASK``, the ``dask.config`` keys
  ``strict_array.planning`` and ``strict_array.planning-threshold``).

Each setting holds in the current thread or asyncio task (a ContextVar).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
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
