"""House limits of the product code (issue 22, "Tooling"): no function over 80 lines and no module over
600 lines in components/, stacks/ and policies/, data catalogues aside.

Lengths are measured on the source as committed (``def`` line to last line, decorators excluded; a
nested function counts in its parent too). A data catalogue is exempt from the module limit only
when it is listed below by name with the reason, and only while it holds no logic (no function, no
class): a table that grows code has to be split like any other module.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import ROOT, parse_python

PACKAGES = ("components", "stacks", "policies")
FUNCTION_LINES = 80
MODULE_LINES = 600

# Modules over MODULE_LINES because they are tables of facts, each with why it stays one file.
DATA_CATALOGUES = {
    "components/capacity/model_catalog.py": "the model catalogue: one literal dict of config.json subsets, checkpoint "
    "sizes and their sources, one entry per model; splitting it would only scatter the table",
}

# Offenders that another change in flight is splitting, by "path" or "path:qualified.name", with who
# owns the fix. Only for the length of a refactoring: the entry goes when the fix lands.
PENDING: dict[str, str] = {}


def _modules() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))


def function_lengths(source: str) -> dict[str, int]:
    """Lines of every function and method of ``source``, by qualified name (``Class.method``, ``outer.inner``)."""
    lengths: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    lengths[name] = (child.end_lineno or child.lineno) - child.lineno + 1
                visit(child, f"{name}.")
            else:
                visit(child, prefix)

    visit(parse_python(source), "")
    return lengths


def long_functions(files: dict[str, str], limit: int = FUNCTION_LINES) -> list[str]:
    """``path:name is N lines`` for every function of ``files`` (path -> source) over ``limit``."""
    return [
        f"{path}:{name} is {n} lines"
        for path, source in sorted(files.items())
        for name, n in sorted(function_lengths(source).items())
        if n > limit and f"{path}:{name}" not in PENDING
    ]


def _sources() -> dict[str, str]:
    return {p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8") for p in _modules()}


def test_the_walk_measures_what_it_should():
    """The measure itself: a method one line over the limit is named, one at the limit is not."""
    body = "".join(f"        x{i} = {i}\n" for i in range(FUNCTION_LINES - 1))
    source = f"class Big:\n    def over(self):\n{body}        return 0\n\n    def at(self):\n{body}\n"
    assert function_lengths(source) == {"Big.over": FUNCTION_LINES + 1, "Big.at": FUNCTION_LINES}
    assert long_functions({"components/example.py": source}) == [f"components/example.py:Big.over is {FUNCTION_LINES + 1} lines"]
    assert len(_modules()) > 100, "the walk must see the whole product (components/, stacks/, policies/)"


def test_no_function_over_80_lines():
    offenders = long_functions(_sources())
    assert not offenders, (
        f"functions over {FUNCTION_LINES} lines (split them; a table of data can move to a module): " + "; ".join(offenders)
    )


def test_no_module_over_600_lines_except_data_catalogues():
    offenders = [
        f"{path} is {len(source.splitlines())} lines"
        for path, source in _sources().items()
        if len(source.splitlines()) > MODULE_LINES and path not in DATA_CATALOGUES and path not in PENDING
    ]
    assert not offenders, (
        f"modules over {MODULE_LINES} lines (split them by concern, or list a pure table in DATA_CATALOGUES): "
        + "; ".join(offenders)
    )


@pytest.mark.parametrize("path", sorted(DATA_CATALOGUES))
def test_data_catalogues_hold_data_only(path):
    """An exempt catalogue exists, needs the exemption, and defines no function or class."""
    source = (ROOT / path).read_text(encoding="utf-8")
    assert len(source.splitlines()) > MODULE_LINES, f"{path} is within the limit: drop it from DATA_CATALOGUES"
    logic = [
        n.name for n in ast.walk(parse_python(source)) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    ]
    assert not logic, f"{path} is exempt as a data catalogue but defines {', '.join(logic)}: move the code out"
    assert DATA_CATALOGUES[path].strip(), f"{path}: say why it stays one file"


_SKIPPED_FOLDERS = frozenset({".git", ".venv", "venv", "node_modules", "site", "build", ".mypy_cache", ".ruff_cache"})
_CONFLICT_MARKER = ("<" * 7 + " ", ">" * 7 + " ", "=" * 7)


def conflict_markers(files: dict[str, str]) -> list[str]:
    """``path:line`` of every line that is a git merge-conflict marker (a whole ``=======`` line, or a line opening
    with seven ``<`` or ``>`` and a space)."""
    return [
        f"{path}:{number}"
        for path, text in sorted(files.items())
        for number, line in enumerate(text.splitlines(), 1)
        if line.startswith(_CONFLICT_MARKER[:2]) or line == _CONFLICT_MARKER[2]
    ]


def test_no_merge_conflict_markers_are_committed():
    """A merge resolved by a script that failed left markers in docs/policy-catalogue.md (models49, session 49);
    nothing caught it. Every tracked text file of the product, its docs and its tests is read."""
    assert conflict_markers({"x.md": "a\n" + "<" * 7 + " HEAD\nb\n" + "=" * 7 + "\nc\n" + ">" * 7 + " main\n"}) == [
        "x.md:2",
        "x.md:4",
        "x.md:6",
    ]
    assert conflict_markers({"x.md": "title\n" + "=" * 8 + "\n"}) == []  # a setext heading underline is longer
    suffixes = {".py", ".md", ".toml", ".json", ".yaml", ".yml", ".txt", ".cfg", ".ini"}
    files = {
        p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8", errors="replace")
        for p in ROOT.rglob("*")
        if p.suffix in suffixes and p.is_file() and not _SKIPPED_FOLDERS & set(p.relative_to(ROOT).parts)
    }
    assert len(files) > 200
    found = conflict_markers(files)
    assert not found, "merge-conflict markers committed at " + ", ".join(found)
