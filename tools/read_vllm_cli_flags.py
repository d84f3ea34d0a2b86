"""Write components/vllm_cli_flags.json: the long options vLLM's server parser accepts, release by release
(the source of the S38 policy engine-flags-exist; run by hand, never by the product or the tests).

    pip download vllm==0.33.0 --no-deps -d wheels/ --only-binary=:all: --python-version 3.12 \
        --platform manylinux1_x86_64 --platform manylinux_2_31_x86_64 --platform manylinux_2_28_x86_64
    python tools/read_vllm_cli_flags.py --write wheels/vllm-*.whl

It also lists the modules under ``vllm.entrypoints`` each release ships (``python -m`` of a module the wheel lacks
exits with "No module named").

Each wheel is read, not imported or run. A name is taken as an option of the release when it is

- a string literal ``--name`` anywhere in the package (``parser.add_argument("--port", ...)`` in
  ``vllm/entrypoints/openai/cli_args.py``, ``vllm/engine/arg_utils.py`` and ``vllm/entrypoints/cli/serve.py``);
- an annotated field of a class in ``vllm/config`` (``vllm/config.py`` in older releases),
  ``vllm/engine/arg_utils.py`` or ``vllm/entrypoints``: from 0.9 on ``EngineArgs.add_cli_args`` and the
  frontend's ``add_cli_args`` turn each dataclass field into ``--field-name`` (``get_kwargs``), and every
  boolean also into ``--no-field-name`` (argparse.BooleanOptionalAction), so ``--no-X`` is taken for every X.

The reading is deliberately generous (a literal of ``vllm bench`` counts too): a name the table lacks is one no
release's parser can know, which is what a mandatory finding needs. vLLM's parser keeps argparse's
``allow_abbrev`` (0.33.0 ``vllm/utils/argparse_utils.py`` FlexibleArgumentParser sets no other), so the policy
also accepts a unique prefix of a known option; it turns ``_`` into ``-`` before parsing (same file, ``parse_args``).
"""

from __future__ import annotations

import ast
import json
import re
import sys
import zipfile
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "components" / "vllm_cli_flags.json"
OPTION = re.compile(r"^--[a-z0-9][a-z0-9-]*$")
FIELD_FILES = re.compile(r"^vllm/(config/.*|config|engine/arg_utils|entrypoints/.*)\.py$")


def _version(wheel: str) -> str:
    return re.search(r"vllm-([0-9.]+)-", Path(wheel).name).group(1)  # type: ignore[union-attr]


def options(wheel: str) -> set[str]:
    """The long options one wheel's parser can accept (generously, see the module docstring)."""
    found: set[str] = set()
    archive = zipfile.ZipFile(wheel)
    for name in archive.namelist():
        if not (name.startswith("vllm/") and name.endswith(".py")):
            continue
        data = archive.read(name)
        fields = FIELD_FILES.match(name) is not None
        if not fields and b'"--' not in data and b"'--" not in data:
            continue  # no option literal in the file: skip the parse (the reading is CPU-bound)
        try:
            tree = ast.parse(data)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                text = node.value.replace("_", "-")
                if OPTION.match(text):
                    found.add(text)
            elif fields and isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                        flag = "--" + item.target.id.replace("_", "-")
                        if OPTION.match(flag):
                            found.update({flag, "--no-" + flag[2:]})
    if pairs_enable_disable(archive):
        found |= inverses(found)
    return found


def pairs_enable_disable(archive: zipfile.ZipFile) -> bool:
    """True when the release's parser pairs ``--enable-x`` with ``--disable-x`` (0.33.0 ``vllm/utils/argparse_utils.py``
    ``EnableDisableAction``, registered as the parser's ``BooleanOptionalAction``; ``--no-enable-x`` stays accepted)."""
    names = [n for n in archive.namelist() if n.startswith("vllm/utils/") and n.endswith(".py")]
    return any(b"class EnableDisableAction" in archive.read(n) for n in names)


def inverses(found: set[str]) -> set[str]:
    """The other half of every ``--enable-``/``--disable-`` pair (and its ``--no-`` form)."""
    out = set()
    for option in found:
        for prefix, inverse in (("--enable-", "--disable-"), ("--disable-", "--enable-")):
            if option.startswith(prefix):
                other = inverse + option[len(prefix) :]
                out |= {other, "--no-" + other[2:]}
    return out


def modules(wheel: str) -> set[str]:
    """The modules under ``vllm.entrypoints`` a wheel ships (what ``python -m vllm.entrypoints...`` can run)."""
    found = set()
    for name in zipfile.ZipFile(wheel).namelist():
        if name.startswith("vllm/entrypoints/") and name.endswith(".py"):
            found.add(name[: -len(".py")].removesuffix("/__init__").replace("/", "."))
    return found


def _spans(releases: list[str], found: dict[str, set[str]]) -> dict[str, str]:
    """Each name with the index ranges of the releases having it (``found``: release -> its names)."""
    ranges: dict[str, str] = {}
    for name in sorted(set().union(*found.values())):
        have = [i for i, release in enumerate(releases) if name in found[release]]
        spans, start = [], have[0]
        for prev, cur in zip(have, have[1:] + [-1]):
            if cur != prev + 1:
                spans.append(f"{start}-{prev}" if prev != start else str(start))
                start = cur
        ranges[name] = ",".join(spans)
    return ranges


def table(found: dict[str, set[str]], entry_modules: dict[str, set[str]]) -> dict:
    """{"releases": [...], "options": {name: "i-j,k"}, "modules": {...}}: each option and entry-point module with the
    index ranges of the releases having it (``found``/``entry_modules``: release -> its names)."""
    releases = sorted(found, key=lambda v: tuple(int(p) for p in v.split(".")))
    return {"releases": releases, "options": _spans(releases, found), "modules": _spans(releases, entry_modules)}


if __name__ == "__main__":
    write = "--write" in sys.argv
    wheels = [w for w in sys.argv[1:] if w != "--write"]
    data = table({_version(w): options(w) for w in wheels}, {_version(w): modules(w) for w in wheels})
    text = json.dumps(data, indent=0, sort_keys=True) + "\n"
    if write:
        OUT.write_text(text)
        print(f"wrote {OUT}: {len(data['releases'])} releases, {len(data['options'])} options")
    else:
        sys.stdout.write(text)
