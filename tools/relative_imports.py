"""Rewrite ``from components.x import y`` inside components/ into relative imports.

    python tools/relative_imports.py [--check]

The library ships as ``llm_serving`` (pyproject.toml maps the components/ folder to that name),
so a module inside it must not import itself as ``components``: a consumer's own top-level
``components`` package would shadow it, or it would shadow theirs. Relative imports work under
both names. ``--check`` lists the absolute imports left (exit 1) without changing anything;
tests/packaging/test_relative_imports.py runs the same check.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "components"
# `from components.a.b import c` / `from components import a`, at any indentation (lazy imports too).
ABSOLUTE = re.compile(r"^(?P<indent>[ \t]*)from components(?P<rest>(\.[A-Za-z_][A-Za-z0-9_]*)*) import ", re.M)


def relative_prefix(path: Path) -> str:
    """The dots that lead from ``path``'s package up to components/ (``.`` at the top level)."""
    depth = len(path.relative_to(PACKAGE).parts) - 1
    return "." * (depth + 1)


def rewrite(text: str, path: Path) -> str:
    """``text`` with every absolute self-import made relative to ``path``."""
    dots = relative_prefix(path)

    def sub(m: re.Match) -> str:
        rest = m.group("rest").lstrip(".")
        return f"{m.group('indent')}from {dots}{rest} import "

    return ABSOLUTE.sub(sub, text)


def absolute_imports() -> list[str]:
    """``file:line: text`` of every absolute self-import left in components/."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if ABSOLUTE.match(line):
                found.append(f"{path.relative_to(PACKAGE.parent)}:{number}: {line.strip()}")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tools/relative_imports.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="list absolute self-imports (exit 1 if any); change nothing")
    args = parser.parse_args(argv)
    if args.check:
        left = absolute_imports()
        sys.stdout.write("".join(f"{line}\n" for line in left))
        return 1 if left else 0
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        new = rewrite(text, path)
        if new != text:
            path.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
