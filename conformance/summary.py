"""The summary of one run of the array API test suite, as ``run.sh`` writes it.

usage: python conformance/summary.py REPORT OUT
  REPORT  the run's pytest-json-report file (the suite requires the plugin)
  OUT     the summary to write, ``conformance/results/<run>.json``
       python conformance/summary.py --commit
  prints the commit of the code under test (``run.sh`` reads it before the run)

The run's settings come from the environment ``run.sh`` exported (``RUN_NAME``,
``STRICT_ARRAY_DEVICE``, ``STRICT_ARRAY_RANK_PROMOTION``, ``API_VERSION``, ``NO_DDS``,
``MAX_EXAMPLES``, ``JOBS``, ``ARRAY_API_TESTS_DIR``, ``XFAILS``, ``SOURCE_COMMIT``); the
versions from the interpreter that ran the suite. The documentation's conformance table is generated from
these files (``docs/_ext/generated_tables.py``): a figure there is never typed by hand.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: the outcomes pytest-json-report counts, in the order the table shows them
OUTCOMES = ("passed", "failed", "error", "xfailed", "xpassed", "skipped")


def git(directory: str | Path, *args: str) -> str:
    out = subprocess.run(
        ["git", "-C", str(directory), *args], capture_output=True, text=True, check=False
    )
    return out.stdout.strip()


def commit(directory: str | Path, *paths: str) -> str | None:
    """The checkout's short commit, with ``+changes`` when ``paths`` differ from it."""
    head = git(directory, "rev-parse", "--short", "HEAD")
    if not head:
        return None
    dirty = git(directory, "status", "--porcelain", "--untracked-files=no", "--", *paths)
    return head + ("+changes" if dirty else "")


def version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def xfail_entries(path: str | None) -> int:
    """Entries of the run's xfails file: its lines that are neither blank nor comments."""
    if not path or not os.path.isfile(path):
        return 0
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return sum(1 for line in lines if line.strip() and not line.lstrip().startswith("#"))


def failure(test: dict[str, Any]) -> dict[str, str]:
    """A failed test: its id and why, in one line (a hypothesis deadline exceeded on a
    loaded machine said as such: such a test passes when run again)."""
    stage = next(
        (
            test[s]
            for s in ("setup", "call", "teardown")
            if test.get(s, {}).get("outcome") != "passed"
        ),
        {},
    )
    text = str(stage.get("longrepr", ""))
    if "DeadlineExceeded" in text:
        reason = "hypothesis deadline exceeded"
    else:
        reason = (stage.get("crash") or {}).get("message", "").split("\n")[0][:160]
    return {"test": test["nodeid"], "reason": reason}


def summary(report: dict[str, Any], env: dict[str, str]) -> dict[str, Any]:
    """The run's summary: its settings, its counts, and the tests that failed."""
    import strict_array as xp

    suite = env.get("ARRAY_API_TESTS_DIR", "")
    counts = report.get("summary", {})
    failed = sorted(
        (failure(t) for t in report.get("tests", []) if t.get("outcome") in ("failed", "error")),
        key=lambda f: f["test"],
    )
    created = report.get("created")
    date = (
        datetime.datetime.fromtimestamp(created, datetime.timezone.utc)
        if created
        else datetime.datetime.now(datetime.timezone.utc)
    )
    return {
        "run": env["RUN_NAME"],
        "device": env["STRICT_ARRAY_DEVICE"],
        "mode": env["STRICT_ARRAY_RANK_PROMOTION"],
        # the version the flags select (the default when API_VERSION is not set)
        "api_version": xp.__array_api_version__,
        "no_dds": bool(env.get("NO_DDS")),
        "examples": int(env.get("MAX_EXAMPLES") or 100),
        "workers": int(env.get("JOBS") or 2),
        **{outcome: int(counts.get(outcome, 0)) for outcome in OUTCOMES},
        "collected": int(counts.get("collected", 0)),
        "deselected": int(counts.get("deselected", 0)),
        "xfail_entries": xfail_entries(env.get("XFAILS")),
        "failures": failed,
        "minutes": round(report.get("duration", 0.0) / 60, 1),
        "date": date.strftime("%Y-%m-%d"),
        "strict_array": env.get("SOURCE_COMMIT") or commit(ROOT, "strict_array"),
        "suite": git(suite, "rev-parse", "--short", "HEAD") if suite else None,
        "spec": git(Path(suite) / "array-api", "rev-parse", "--short", "HEAD") if suite else None,
        "versions": {
            "python": platform.python_version(),
            **{p: version(p) for p in ("numpy", "dask", "array-api-compat", "hypothesis")},
        },
    }


def main(argv: list[str]) -> int:
    if argv == ["--commit"]:
        print(commit(ROOT, "strict_array") or "")
        return 0
    if len(argv) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    report = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    out = Path(argv[1])
    out.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(summary(report, dict(os.environ)), indent=1) + "\n"
    out.write_text(text, encoding="utf-8")
    print(f"summary: {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
