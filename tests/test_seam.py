"""The backend seam, read from the sources: backend knowledge only under
``strict_array/_backends``, and no import cycle inside the package."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "strict_array"
BACKENDS = PACKAGE / "_backends"

#: identifiers and strings that name a backend, its device or its array type
BACKEND_NAMES = {"dask", "da", "cpu", "numpydevice", "daskdevice", "is_numpy_array",
                 "is_dask_array", "cupy", "torch", "jax"}  # fmt: skip


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the docstring nodes: prose may name backends, code may not."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def backend_mentions(source: str) -> list[str]:
    """Every place where ``source``'s code (not its docstrings) names a backend."""
    tree = ast.parse(source)
    docstrings = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name.split(".")[0] for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [(node.module or "").split(".")[0]] + [a.name for a in node.names]
        elif isinstance(node, ast.Name):
            names = [node.id]
        elif isinstance(node, ast.Attribute):
            names = [node.attr]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) not in docstrings:
                names = [node.value.strip()]
        found += [f"line {node.lineno}: {n}" for n in names if n.lower() in BACKEND_NAMES]  # type: ignore[attr-defined]
    return found


def test_the_check_finds_backend_names():
    assert backend_mentions("import dask.array as da\nx = da.ones(3)\n")
    assert backend_mentions("from strict_array import DASK\n")
    assert backend_mentions("if device.name == 'dask':\n    pass\n")
    assert backend_mentions("array_api_compat.is_dask_array(x)\n")
    assert not backend_mentions('"""On DASK this is lazy."""\nx = device.lazy\n')


#: programs shipped as demonstrations use the devices by name, as a user would
DEMOS = {PACKAGE / "_tour.py", PACKAGE / "_audit_example.py"}
OUTSIDE = sorted(p for p in PACKAGE.rglob("*.py") if BACKENDS not in p.parents and p not in DEMOS)


@pytest.mark.parametrize("path", OUTSIDE, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_nothing_outside_backends_names_a_backend(path):
    assert backend_mentions(path.read_text()) == []


# --- import cycles ----------------------------------------------------------------------
def _module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(package: Path) -> dict[str, set[str]]:
    """Module -> the package's modules it imports anywhere (inside functions too),
    except under ``if TYPE_CHECKING:``."""
    root = package.parent
    paths = {_module_name(p, root): p for p in package.rglob("*.py")}
    graph = {}
    for me, path in paths.items():
        tree = ast.parse(path.read_text())
        here = me if path.name == "__init__.py" else me.rpartition(".")[0]
        typing_only = {
            id(n)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for stmt in node.body
            for n in ast.walk(stmt)
        }
        found = set()
        for node in ast.walk(tree):
            if id(node) in typing_only:
                continue
            if isinstance(node, ast.Import):
                found |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = (
                    here.split(".")[: len(here.split(".")) - node.level + 1] if node.level else []
                )
                module = ".".join(base + ([node.module] if node.module else []))
                for alias in node.names:  # `from . import x` may name a module
                    candidate = f"{module}.{alias.name}"
                    found.add(candidate if candidate in paths else module)
        graph[me] = {m for m in found if m in paths and m != me}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while component[-1:] != [v]:
                component.append(stack.pop())
            if len(component) > 1:
                out.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_the_check_finds_a_cycle(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from . import b\n")
    (package / "b.py").write_text("def f():\n    from .a import g\n")  # lazy: still a cycle
    (package / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import a\n"
    )
    assert cycles(import_graph(package)) == [["pkg.a", "pkg.b"]]


def test_no_import_cycle_inside_the_package():
    graph = import_graph(PACKAGE)
    assert "strict_array._backends" in graph["strict_array._array"]  # the graph is read
    assert cycles(graph) == []


def test_dask_as_the_default_device_loads_with_the_host():
    """With ``STRICT_ARRAY_DEVICE=dask`` the first array loads ``DASK`` before the host,
    and loading ``DASK`` loads the host (its per-matrix linalg kernels): the registry's
    lock is re-entrant, so this completes (it deadlocked with a plain lock)."""
    import os
    import subprocess
    import sys

    code = (
        "import strict_array as xp\n"
        "x = xp.ones((2, 2))\n"
        "print(x.device, round(float(xp.linalg.det(x + xp.eye(2, device=x.device))), 9))\n"
    )
    env = {**os.environ, "STRICT_ARRAY_DEVICE": "dask"}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["strict_array.DASK", "3.0"]
