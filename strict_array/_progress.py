"""Whether computations show a progress bar (``strict_array.progress``).

A lazy device shows one while it computes when a person is watching (stderr
is a terminal); ``STRICT_ARRAY_PROGRESS=0`` (or ``1``) decides for the process
and :func:`progress` for one block of code.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from contextvars import ContextVar

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
