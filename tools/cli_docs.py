"""docs/cli.md's command sections, generated from the command table (components/commands.py).

    python tools/cli_docs.py            # print the generated sections
    python tools/cli_docs.py --write    # replace them in docs/cli.md
    python tools/cli_docs.py --check    # exit 1 when docs/cli.md differs (tests/test_cli_docs.py does the same)

Each command of the table owns one block of the page, between ``<!-- cli:begin NAME ... -->`` and ``<!-- cli:end NAME
-->``: its heading, usage, description, exit codes, JSON output and the page that tells more. Prose outside the blocks
is written by hand (what a command does in more depth); a command whose block is missing is added at the end.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Optional, Sequence

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from components.commands import COMMANDS, JSON_ERROR_SHAPE, Command  # noqa: E402

PAGE = ROOT / "docs" / "cli.md"
GENERATED_BY = "generated from components/commands.py by `python tools/cli_docs.py --write`; do not edit by hand"


def _begin(name: str) -> str:
    return f"<!-- cli:begin {name} ({GENERATED_BY}) -->"


def _end(name: str) -> str:
    return f"<!-- cli:end {name} -->"


def section(c: Command) -> str:
    """The Markdown block of one command, markers included."""
    lines = [_begin(c.name), "", f"## `python -m {c.name}`", "", "```text", c.usage, "```", ""]
    lines += [" ".join(c.description.split()), ""]
    if c.pending:
        lines += [f"Not available yet: {c.pending}.", ""]
    lines += ["| exit code | meaning |", "| --- | --- |"]
    lines += [f"| {code} | {meaning.replace('|', '/')} |" for code, meaning in c.codes()]
    lines.append("")
    if c.json_flag:
        holds = f"one object: {c.json_fields}" if c.json_fields else "one object"
        shape = JSON_ERROR_SHAPE.replace('"', "")
        lines += [f"With `{c.json_flag}`, stdout is JSON on every exit: {holds}; on exit 2 or 3, `{shape}`.", ""]
    if c.see:
        page = c.see.split("#")[0]
        lines += [f"More: [{page.removesuffix('.md')}]({c.see}).", ""]
    lines.append(_end(c.name))
    return "\n".join(lines)


def render(page: str) -> str:
    """``page`` with every command's block replaced by the table's (missing blocks appended)."""
    for c in COMMANDS:
        block = section(c)
        pattern = re.compile(re.escape(f"<!-- cli:begin {c.name} (") + r".*?" + re.escape(_end(c.name)), re.S)
        if pattern.search(page):
            page = pattern.sub(lambda _m, b=block: b, page, count=1)
        else:
            page = page.rstrip("\n") + "\n\n" + block + "\n"
    return page


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Print, write or check the generated sections of docs/cli.md."""
    parser = argparse.ArgumentParser(prog="python tools/cli_docs.py", description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="replace the sections in docs/cli.md")
    mode.add_argument("--check", action="store_true", help="exit 1 when docs/cli.md differs from the table")
    args = parser.parse_args(argv)
    current = PAGE.read_text(encoding="utf-8")
    wanted = render(current)
    if args.write:
        PAGE.write_text(wanted, encoding="utf-8")
    elif args.check:
        if wanted != current:
            sys.stderr.write("docs/cli.md differs from components/commands.py: run python tools/cli_docs.py --write\n")
            return 1
    else:
        sys.stdout.write("\n\n".join(section(c) for c in COMMANDS) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
