"""``python -m strict_array audit``: run a program with rank promotions allowed and recorded.

The table of call sites is printed when the program ends, also when it raises
(then the traceback follows and the exit status is non-zero).
"""

from __future__ import annotations

import os
import runpy
import sys
import traceback

from ._audit_report import AuditReport, package_roots
from ._policy import audit

USAGE = """usage: python -m strict_array audit [--under PATH_OR_PACKAGE] [SCRIPT [ARGS...] | -m MODULE [ARGS...]]

Runs a Python program with rank promotions allowed and recorded, then prints
where they happened (sorted by count). Without a target it runs a bundled
example. --under keeps the sites inside a package or under a path."""


def _error(message: str) -> int:
    print(f"python -m strict_array audit: error: {message}", file=sys.stderr)
    return 2


def main(argv: list[str]) -> int:
    """Command line: ``python -m strict_array audit ...``; returns the exit status."""
    under = None
    if argv[:1] == ["--under"] or (argv and argv[0].startswith("--under=")):
        if argv[0].startswith("--under="):
            under, argv = argv[0].partition("=")[2], argv[1:]
        elif len(argv) >= 2:
            under, argv = argv[1], argv[2:]
        else:
            return _error("--under needs a package or a path.")
        try:
            package_roots(under)
        except ValueError as e:
            return _error(str(e).removeprefix("audit: "))
    if argv[:1] in (["-h"], ["--help"]):
        print(USAGE)
        return 0
    if argv and argv[0].startswith("-") and argv[0] != "-m":
        return _error(f"unknown option {argv[0]!r}.\n{USAGE}")
    if argv[:1] == ["-m"] and len(argv) < 2:
        return _error("-m needs a module name.")
    if argv and argv[0] != "-m" and not os.path.isfile(argv[0]):
        return _error(f"no such script: {argv[0]!r}.")
    status = 0
    failure: BaseException | None = None
    with audit() as report:
        saved_argv, saved_path = sys.argv[:], sys.path[:]
        try:
            if not argv:
                from . import _audit_example

                # run as __main__ so that its frames count as user code
                runpy.run_path(_audit_example.__file__, run_name="__main__")
            elif argv[0] == "-m":
                sys.argv = argv[1:]
                runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
            else:
                sys.argv = argv[:]
                sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
                runpy.run_path(argv[0], run_name="__main__")
        except SystemExit as e:
            status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except BaseException as e:  # the program failed: report first, then its traceback
            failure = e
            status = 1
        finally:
            sys.argv, sys.path[:] = saved_argv, saved_path
    _print(report, under)
    if failure is not None:
        traceback.print_exception(type(failure), failure, failure.__traceback__, file=sys.stderr)
    return status


def _print(report: AuditReport, under: str | None) -> None:
    print(report.under(under) if under else report, file=sys.stderr)
