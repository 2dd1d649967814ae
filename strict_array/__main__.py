"""``python -m strict_array``: the tour on an embedded example; ``audit`` runs a program under audit."""

from __future__ import annotations

import sys

USAGE = "usage: python -m strict_array [tour | audit [--under PKG] [SCRIPT [ARGS...] | -m MODULE [ARGS...]]]"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["audit"]:
        from ._audit import main as audit_main

        return audit_main(args[1:])
    if args[:1] in (["-h"], ["--help"]):
        print(__doc__)
        print(USAGE)
        return 0
    if args and args != ["tour"]:
        print(
            f"python -m strict_array: error: unknown command {args[0]!r}.\n{USAGE}", file=sys.stderr
        )
        return 2
    from ._tour import tour

    tour()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
