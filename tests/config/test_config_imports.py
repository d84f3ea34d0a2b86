"""The config package imports one way: nothing from the builders, and nothing that imports the config back.

Read from the source (AST) rather than from ``sys.modules`` so the test names the import statement
at fault; a fresh interpreter then imports each config module first, the way a consumer would, so
a cycle hidden behind import order shows as the ImportError it would raise.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "components"
CONFIG_MODULES = sorted(
    "components.config" + ("" if p.stem == "__init__" else "." + p.stem) for p in (PACKAGE / "config").glob("*.py")
)


def _module_file(name: str) -> Path | None:
    """The source file of ``components...`` module ``name`` (a package's __init__.py), or None."""
    base = ROOT.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _is_type_checking(node: ast.If) -> bool:
    return isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def _runtime_imports(name: str) -> list[tuple[str, int]]:
    """The components modules ``name`` imports when it runs: module-level statements, outside
    ``if TYPE_CHECKING:``, each with its line; ``from .pkg import mod`` counts ``pkg.mod``."""
    path = _module_file(name)
    assert path is not None, name
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: list[tuple[str, int]] = []
    statements = list(ast.parse(path.read_text(encoding="utf-8")).body)
    while statements:
        node = statements.pop(0)
        if isinstance(node, ast.If) and not _is_type_checking(node):
            statements[:0] = node.body + node.orelse
        elif isinstance(node, ast.Try):
            statements[:0] = node.body + node.orelse + node.finalbody + [s for h in node.handlers for s in h.body]
        elif isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names if a.name.split(".")[0] == "components"]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            if base.split(".")[0] != "components":
                continue
            found.append((base, node.lineno))
            found += [(f"{base}.{a.name}", node.lineno) for a in node.names if _module_file(f"{base}.{a.name}")]
    return found


def _with_parents(name: str) -> list[str]:
    """``a.b.c`` -> ``a``, ``a.b``, ``a.b.c``: importing a module runs its packages' __init__ first."""
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1)]


def _closure(start: str) -> dict[str, tuple[str, int]]:
    """Every components module importing ``start`` runs, with the module and line that first imports it."""
    seen: dict[str, tuple[str, int]] = {}
    todo = [start]
    while todo:
        current = todo.pop()
        for target, line in _runtime_imports(current):
            for name in _with_parents(target):
                if _module_file(name) and name not in seen and name != start:
                    seen[name] = (current, line)
                    todo.append(name)
    return seen


def test_the_config_package_is_split_by_concern():
    names = {m.rpartition(".")[2] for m in CONFIG_MODULES}
    assert {"routing", "scan", "pydantic_errors", "cross_checks", "load", "stack"} <= names


@pytest.mark.parametrize("module", CONFIG_MODULES)
def test_no_config_module_imports_the_builders(module):
    reached = _closure(module)
    builders = {m: reached[m] for m in reached if m.startswith("components.builders")}
    assert not builders, f"{module} reaches the builders: {builders}"


@pytest.mark.parametrize("module", CONFIG_MODULES)
def test_nothing_the_config_imports_imports_the_config_back(module):
    back = []
    for name in _closure(module):
        if name.startswith("components.config") or name == "components":
            continue
        back += [
            f"{name}:{line} imports {target}"
            for target, line in _runtime_imports(name)
            if target == "components.config" or target.startswith("components.config.")
        ]
    assert not back, back


@pytest.mark.parametrize("module", CONFIG_MODULES)
def test_no_config_module_imports_inside_a_function(module):
    """A function-level import is how a cycle hides; the config needs none."""
    path = _module_file(module)
    assert path is not None
    late = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for func in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        for node in ast.walk(func)
        if isinstance(node, (ast.Import, ast.ImportFrom))
    ]
    assert not late, late


@pytest.mark.parametrize("module", [*CONFIG_MODULES, "components.capacity.layout", "components.capacity.gpus"])
def test_each_module_imports_first_in_a_fresh_interpreter(module):
    result = subprocess.run([sys.executable, "-c", f"import {module}"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr


def test_the_reader_sees_what_the_checks_rely_on():
    """Not vacuous: the cross checks do reach the capacity layout, and a runtime import of the config
    (the capacity plan's) is seen, while the layout's, under ``TYPE_CHECKING``, is not."""
    assert "components.capacity.layout" in _closure("components.config.cross_checks")
    assert "components.config" in [t for t, _ in _runtime_imports("components.capacity.plan")]
    assert not [t for t, _ in _runtime_imports("components.capacity.layout") if t.startswith("components.config")]
