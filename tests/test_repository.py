"""The repository's root holds the project's files and nothing else.

A probe's output or a scratch file committed at the root by mistake (a file named ``10``
once was) is caught here rather than by a reader of the repository.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Every entry the project keeps at its root, and why.
ALLOWED = {
    ".ci",  # the CI script
    ".gitignore",
    ".readthedocs.yaml",  # the documentation site's build
    "LICENSE",
    "MANIFEST.in",  # what the sdist carries
    "README.md",
    "benchmarks",
    "conformance",  # the array API test suite's lists
    "docs",
    "examples",
    "pyproject.toml",
    "strict_array",
    "tests",
}


def _tracked_root_entries() -> set[str]:
    git = shutil.which("git")
    if git is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout (an sdist carries only what MANIFEST.in names)")
    listed = subprocess.run(
        [git, "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    return {path.split("/", 1)[0] for path in listed.split("\0") if path}


def test_repository_root_holds_only_the_projects_files():
    stray = sorted(_tracked_root_entries() - ALLOWED)
    assert not stray, (
        f"files at the repository's root that are not the project's: {stray}; "
        "remove them, or add each to ALLOWED in tests/test_repository.py with its reason"
    )
