"""Every ``>>>`` example in docs/*.md and README.md runs and prints what the page says."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted((ROOT / "docs").glob("*.md"))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_doc_examples(page):
    result = doctest.testfile(
        str(page),
        module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
        raise_on_error=False,
        verbose=False,
    )
    assert result.failed == 0, (
        f"{result.failed} of {result.attempted} examples failed in {page.name}"
    )


def test_docstring_examples():
    import strict_array as xp

    modules = [xp._policy, xp._explicit, xp._devices, xp._compute]
    failed = sum(
        doctest.testmod(m, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE).failed
        for m in modules
    )
    assert failed == 0
