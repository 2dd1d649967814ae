"""Rank-promotion mode: ``"raise"`` (default), ``"warn"`` or ``"allow"``.

The process-wide default comes from ``STRICT_ARRAY_RANK_PROMOTION`` at import
and from :func:`set_rank_promotion`; :func:`rank_promotion` overrides it in the
current thread or asyncio task only (a :class:`contextvars.ContextVar`).
"""

from __future__ import annotations

import contextlib
import os
import sys
import warnings
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from types import FrameType
from typing import Any, Literal

from ._broadcasting import (
    RankPromotionError,
    RankPromotionWarning,
    batch_rank_message,
    rank_promotion_message,
)

Mode = Literal["raise", "warn", "allow"]
MODES: tuple[str, ...] = ("raise", "warn", "allow")
ENV_VAR = "STRICT_ARRAY_RANK_PROMOTION"


def _check_mode(mode: object, where: str) -> Mode:
    if mode not in MODES:
        raise ValueError(
            f"{where}: rank-promotion mode must be one of 'raise', 'warn', 'allow', got {mode!r}."
        )
    return mode  # type: ignore[return-value]


_default: list[Mode] = [_check_mode(os.environ.get(ENV_VAR, "raise"), ENV_VAR)]
_override: ContextVar[Mode | None] = ContextVar("strict_array_rank_promotion", default=None)

#: Called with (operation, shape1, shape2) for every rank promotion that happens;
#: ``audit()`` installs one. A ContextVar so audits in other threads stay apart.
_observer: ContextVar[Callable[[str, tuple, tuple], None] | None] = ContextVar(
    "strict_array_rank_promotion_observer", default=None
)


def get_rank_promotion() -> Mode:
    """Return the rank-promotion mode in force here.

    Returns
    -------
    {"raise", "warn", "allow"}
        The innermost :func:`rank_promotion` context's mode, else the
        process-wide default.
    """
    return _override.get() or _default[0]


def effective_mode() -> Mode:
    """The mode for deciding now: ``"allow"`` while an audit records promotions."""
    return "allow" if _observer.get() is not None else get_rank_promotion()


def set_rank_promotion(mode: Mode) -> None:
    """Set the process-wide default rank-promotion mode.

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
    _default[0] = _check_mode(mode, "set_rank_promotion")


@contextlib.contextmanager
def rank_promotion(mode: Mode) -> Iterator[None]:
    """Context manager (and decorator) setting the rank-promotion mode locally.

    The mode applies to the current thread or asyncio task only, and is restored
    on exit.

    Parameters
    ----------
    mode : {"raise", "warn", "allow"}

    Examples
    --------
    >>> import strict_array as xp
    >>> with xp.rank_promotion("allow"):
    ...     (xp.ones((2, 3)) + xp.ones(3)).shape
    (2, 3)
    """
    token = _override.set(_check_mode(mode, "rank_promotion"))
    try:
        yield
    finally:
        _override.reset(token)


_PACKAGE = __name__.rpartition(".")[0]


def _ours(frame: Any) -> bool:
    name = frame.f_globals.get("__name__", "")
    return name == _PACKAGE or name.startswith(_PACKAGE + ".")


def caller_stacklevel() -> int:
    """``stacklevel`` for :func:`warnings.warn` pointing at the first frame outside the package.

    Counted for a ``warnings.warn`` call made directly in this function's caller.
    """
    frame: FrameType | None = sys._getframe(1)
    level = 1
    while frame is not None and _ours(frame):
        frame, level = frame.f_back, level + 1
    return level


def caller_frame() -> FrameType | None:
    """The first frame outside the package (an audit's call site), or None."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None and _ours(frame):
        frame = frame.f_back
    return frame


def promote_or_raise(
    op: str,
    shape1: tuple,
    shape2: tuple,
    *,
    takes_dims: bool = True,
    core: tuple[int, int] | None = None,
) -> None:
    """Apply the mode to one rank promotion about to happen: raise, warn, or pass.

    An active ``audit()`` records the promotion and lets it through.
    """
    observer = _observer.get()
    if observer is not None:
        observer(op, shape1, shape2)
        return
    mode = get_rank_promotion()
    if mode == "allow":
        return
    if core is None:
        message = rank_promotion_message(op, shape1, shape2, mode, takes_dims=takes_dims)
    else:  # stacks of matrices or vectors: only the batch axes promote
        message = batch_rank_message(op, shape1, shape2, core[0], core[1], mode)
    if mode == "raise":
        raise RankPromotionError(message)
    warnings.warn(message, RankPromotionWarning, stacklevel=caller_stacklevel())
