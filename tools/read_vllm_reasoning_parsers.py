"""Write components/vllm_reasoning_parsers.json: the names vLLM's ``--reasoning-parser`` accepts, release by release
(the source of S38 engine-options-exist's reasoning-parser check; run by hand, never by the product or the tests).

    pip download vllm==0.8.5.post1 --no-deps -d wheels/ --only-binary=:all: --python-version 3.12 \\
        --platform manylinux1_x86_64 --platform manylinux_2_31_x86_64 --platform manylinux_2_28_x86_64
    python tools/read_vllm_reasoning_parsers.py --write wheels/vllm-*.whl

Each wheel is read, not imported. A name is registered when ``vllm/reasoning/*.py`` (before 0.8.3
``vllm/entrypoints/openai/reasoning_parsers/*.py``) decorates a class with
``ReasoningParserManager.register_module("name")`` (or a list of names), or when ``vllm/reasoning/__init__.py`` lists it
in the lazily registered table (``"name": ("module", "Class")``). The server's parser takes only these names
(0.8.5.post1 vllm/engine/arg_utils.py:496-499 ``choices=list(ReasoningParserManager.reasoning_parsers)``; later releases
look the name up at start and raise on an unknown one), unless ``--reasoning-parser-plugin`` registers more.
Each release's provenance also says whether ``vllm/engine/arg_utils.py`` builds the option's argparse ``choices`` from
the registered names (``argparse_choices``). ``--add`` merges the wheels named into the table already written.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from components.engine_options import version_key  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "components" / "vllm_reasoning_parsers.json"
_DECORATED = re.compile(r"register_module\(\s*(?:name\s*=\s*)?(\[[^\]]*\]|\"[^\"]+\"|'[^']+')")
_LAZY = re.compile(r"^\s*[\"']([a-z0-9_.\-]+)[\"']\s*:\s*\(", re.M)
_WHEEL = re.compile(r"vllm-([0-9][^-]*)-")


_DIRS = re.compile(r"vllm/(reasoning|entrypoints/openai/reasoning_parsers)/[^/]+\.py$")
_CHOICES = "choices=list(ReasoningParserManager.reasoning_parsers)"


def names(wheel: Path) -> tuple[str, list[str], list[str], bool]:
    """(release, sorted names, files read, whether the server's argparse takes the names as choices) of one wheel."""
    release = _WHEEL.match(wheel.name)
    if release is None:
        raise SystemExit(f"{wheel}: not a vllm wheel name")
    found: set[str] = set()
    files = []
    choices = False
    with zipfile.ZipFile(wheel) as z:
        for info in z.infolist():
            if info.filename == "vllm/engine/arg_utils.py":
                choices = _CHOICES in z.read(info).decode("utf-8", "replace").replace(" ", "").replace("\n", "")
            if not _DIRS.match(info.filename):
                continue
            text = z.read(info).decode("utf-8", "replace")
            before = len(found)
            for match in _DECORATED.finditer(text):
                found.update(re.findall(r"[\"']([^\"']+)[\"']", match.group(1)))
            if info.filename.endswith("__init__.py") and "_REASONING_PARSERS_TO_REGISTER" in text:
                table = text.split("_REASONING_PARSERS_TO_REGISTER", 1)[1].split("}", 1)[0]
                found.update(_LAZY.findall(table))
            if len(found) > before:
                files.append(info.filename)
    return release.group(1), sorted(found), sorted(files), choices


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--add", action="store_true", help="merge into the table already written")
    parser.add_argument("wheels", nargs="+", type=Path)
    args = parser.parse_args(argv)
    table = json.loads(OUT.read_text()) if args.add and OUT.exists() else {"releases": {}, "provenance": {}}
    for wheel in args.wheels:
        release, found, files, choices = names(wheel)
        table["releases"][release] = found
        table["provenance"][release] = {"wheel": wheel.name, "files": files, "argparse_choices": choices}
    table["releases"] = {r: table["releases"][r] for r in sorted(table["releases"], key=version_key)}
    table["provenance"] = {r: table["provenance"][r] for r in sorted(table["provenance"], key=version_key)}
    text = json.dumps(table, indent=0) + "\n"
    if args.write:
        OUT.write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
