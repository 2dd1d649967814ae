"""``python -m strict_array``: a short tour on an embedded example; ``audit`` runs a program under audit."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] == "audit":
        from ._audit import main as audit_main

        return audit_main(args[1:])
    if args and args[0] in ("-h", "--help"):
        print(__doc__)
        print(
            "usage: python -m strict_array [tour | audit [SCRIPT [ARGS...] | -m MODULE [ARGS...]]]"
        )
        return 0
    from ._tour import tour

    tour()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
