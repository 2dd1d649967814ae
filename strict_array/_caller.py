"""Where the caller is: the first frame outside strict_array (and NumPy's own Python).

The settings that differ per package (the rank-promotion policy, the packages whose
data-dependent sizes are computed where they arise) ask here whose code called.
Only a decision that needs it walks the stack, so the fast paths pay nothing.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from types import FrameType

_PACKAGE = __name__.rpartition(".")[0]


def ours(frame: FrameType) -> bool:
    """Whether ``frame`` runs strict_array's code (or NumPy's own Python)."""
    # NumPy's own Python code between the caller and strict_array (np.testing's
    # functions on checked arrays, strict_array.numpy) is not the caller either
    name = frame.f_globals.get("__name__", "")
    return name.startswith((_PACKAGE + ".", "numpy.")) or name in (_PACKAGE, "numpy")


def caller() -> tuple[FrameType | None, int]:
    """The first frame outside the package, and the ``stacklevel`` that names it for
    a :func:`warnings.warn` call made in the function that calls this one."""
    frame: FrameType | None = sys._getframe(1)
    level = 1
    while frame is not None and ours(frame):
        frame, level = frame.f_back, level + 1
    return frame, level - 1


def in_packages(module: str, packages: Iterable[str]) -> bool:
    """Whether the dotted ``module`` is one of ``packages`` or inside one."""
    return any(module == p or module.startswith(p + ".") for p in packages)


def called_from(packages: Iterable[str]) -> bool:
    """Whether the code calling strict_array here is in one of ``packages``."""
    frame, _ = caller()
    return frame is not None and in_packages(frame.f_globals.get("__name__", ""), packages)
