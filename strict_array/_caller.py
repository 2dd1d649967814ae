"""Where the caller is: the first frame of code under audit, outside strict_array.

The settings that differ per package (the rank-promotion policy, the packages whose
data-dependent sizes are computed where they arise) ask here whose code called, and
the audit records that frame's line as the site. The search goes out from strict_array
and skips NumPy's own Python (np.testing's functions, NumPy's functions running under
the NumPy-code mode) unless the policy names a package it is in (``numpy=audit``,
``numpy.polynomial=audit``: NumPy's own lines are then the sites); NumPy's test modules
are code under test like any other. A test runner's frames (pytest's, pluggy's) are
never the caller: past them, the innermost frame skipped is.
Only a decision that needs it walks the stack, so the fast paths pay nothing.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from types import FrameType

_PACKAGE = __name__.rpartition(".")[0]
#: the modules of a test runner, which run the code under test but never promote
_RUNNERS = ("_pytest.", "pluggy.", "unittest.")


def _numpys_own(name: str) -> bool:
    """Whether module ``name`` is NumPy's own Python, not one of its test modules."""
    if not (name == "numpy" or name.startswith("numpy.")):
        return False
    return ".tests." not in name and not name.endswith(".tests")


def ours(frame: FrameType, under: Iterable[str] = ()) -> bool:
    """Whether ``frame`` runs strict_array's code, or NumPy's own Python outside the
    packages ``under`` (those the policy names)."""
    name = frame.f_globals.get("__name__", "")
    if name.startswith(_PACKAGE + ".") or name == _PACKAGE:
        return True
    return _numpys_own(name) and not (under and in_packages(name, under))


def caller(under: Iterable[str] = ()) -> tuple[FrameType | None, int]:
    """The first frame outside strict_array and NumPy's own code (but in the packages
    ``under``), and the ``stacklevel`` that names it for a :func:`warnings.warn` call
    made in the function that calls this one."""
    frame: FrameType | None = sys._getframe(1)
    level = 1
    skipped: tuple[FrameType, int] | None = None  # the innermost frame of NumPy's skipped
    while frame is not None:
        if not ours(frame, under):
            if not frame.f_globals.get("__name__", "").startswith(_RUNNERS):
                return frame, level - 1
            break  # a test runner's frame: the innermost of NumPy's skipped instead
        if skipped is None and not frame.f_globals.get("__name__", "").startswith(_PACKAGE):
            skipped = (frame, level - 1)
        frame, level = frame.f_back, level + 1
    return skipped if skipped is not None else (frame, level - 1)


def in_packages(module: str, packages: Iterable[str]) -> bool:
    """Whether the dotted ``module`` is one of ``packages`` or inside one."""
    return any(module == p or module.startswith(p + ".") for p in packages)


def called_from(packages: Iterable[str]) -> bool:
    """Whether the code calling strict_array here is in one of ``packages``."""
    frame, _ = caller()
    return frame is not None and in_packages(frame.f_globals.get("__name__", ""), packages)
