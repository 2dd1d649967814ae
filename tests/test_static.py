"""Static checks in CI: ruff clean (package, tests, docs), and the package (with user code) type-checks."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_clean():
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    if not Path(ruff).exists():
        pytest.skip("ruff is not installed")
    out = subprocess.run(
        [ruff, "check", "strict_array", "tests", "docs"], cwd=ROOT, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stdout + out.stderr


def test_user_code_type_checks(tmp_path):
    pytest.importorskip("mypy")
    user = tmp_path / "user.py"
    user.write_text(
        "import strict_array as xp\n"
        "x = xp.ones((2, 3))\n"
        "v = xp.ones(3)\n"
        "y: xp.Array = xp.add(x, v, broadcast_dimensions=(1,)) * 2.0 - x @ x.mT[:, :2].T\n"
        "z: xp.Array = -abs(y) + (1 - y) / (y ** 2)\n"
        "y += 1\n"
    )
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--ignore-missing-imports",
            "--no-incremental",
            "strict_array",
            str(user),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stdout
