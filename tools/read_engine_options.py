"""Write components/<engine>_cli_flags.json: the long options an engine's server parser accepts, release by release
(the source of the S38 policy engine-options-exist, through the engine table's ``options``; run by hand, never by the
product or the tests).

    pip download vllm==0.33.0 --no-deps -d wheels/ --only-binary=:all: --python-version 3.12 \
        --platform manylinux1_x86_64 --platform manylinux_2_31_x86_64 --platform manylinux_2_28_x86_64
    python tools/read_engine_options.py vllm --write wheels/vllm-*.whl
    pip download sglang==0.5.10 --no-deps -d wheels/ --only-binary=:all:
    python tools/read_engine_options.py sglang --write wheels/sglang-*.whl

``--add`` merges the wheels named into the table already written (one release added without every other wheel):
vLLM 0.21.0 is published only as ``vllm-0.21.0-1-cp38-abi3-manylinux_2_24_x86_64.whl`` (a build tag and an older
platform tag), so its download needs ``--platform manylinux_2_24_x86_64``:

    pip download vllm==0.21.0 --no-deps -d wheels/ --only-binary=:all: --python-version 3.12 \
        --platform manylinux_2_24_x86_64
    python tools/read_engine_options.py vllm --write --add wheels/vllm-0.21.0-*.whl

It also lists the entry modules each release ships (``python -m`` of a module the wheel lacks exits with "No module
named"): vLLM's under ``vllm.entrypoints``, SGLang's ``sglang.launch_server`` and its siblings.

Each wheel is read, not imported or run. A name is taken as an option of the release when it is

- a string literal ``--name`` anywhere in the package (vLLM: ``parser.add_argument("--port", ...)`` in
  ``vllm/entrypoints/openai/cli_args.py``, ``vllm/engine/arg_utils.py``, ``vllm/entrypoints/cli/serve.py``; SGLang:
  ``ServerArgs.add_cli_args`` in ``sglang/srt/server_args.py``, whose ``prepare_server_args`` parses with a plain
  ``argparse.ArgumentParser``, 0.5.10 server_args.py:6515-6538);
- an annotated field of a class in the engine's argument files (vLLM: ``vllm/config``, ``vllm/config.py`` in older
  releases, ``vllm/engine/arg_utils.py``, ``vllm/entrypoints``, whose ``add_cli_args`` turn each dataclass field into
  ``--field-name`` from 0.9 on (``get_kwargs``), and every boolean also into ``--no-field-name``
  (argparse.BooleanOptionalAction), so ``--no-X`` is taken for every X; SGLang: every class of ``sglang/srt``, ``ServerArgs`` and, from 0.5.20, the ``sglang/srt/arg_groups/fields`` classes the
  parser is generated from);
- for vLLM 0.33 and later, the other half of an ``--enable-x``/``--disable-x`` pair (``EnableDisableAction``).

The reading is deliberately generous (a literal of ``vllm bench`` counts too): a name the table lacks is one no
release's parser can know, which is what a mandatory finding needs. Both parsers keep argparse's ``allow_abbrev``
(vLLM 0.33.0 ``vllm/utils/argparse_utils.py`` FlexibleArgumentParser sets no other), so the policy also accepts a unique
prefix of a known option; vLLM turns ``_`` into ``-`` before parsing (same file, ``parse_args``), and the policy reads
SGLang's options the same generous way.
"""

from __future__ import annotations

import ast
import json
import re
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# The loader's release order (CliOptions.neighbours compares releases by it), so the table is written in that order.
from components.engine_options import version_key  # noqa: E402

COMPONENTS = ROOT / "components"
OPTION = re.compile(r"^--[a-z0-9][a-z0-9-]*$")
# engine -> (its package folder, the files whose class fields are options, the folder of its entry modules)
ENGINES = {
    "vllm": ("vllm/", re.compile(r"^vllm/(config/.*|config|engine/arg_utils|entrypoints/.*)\.py$"), "vllm/entrypoints/"),
    "sglang": ("sglang/", re.compile(r"^sglang/srt/.*\.py$"), "sglang/"),
}


def _version(wheel: str) -> str:
    return re.search(r"^[a-z]+-([0-9]+(?:\.[0-9]+)*(?:\.post[0-9]+)?)-", Path(wheel).name).group(1)  # type: ignore[union-attr]


def options(wheel: str, engine: str = "vllm") -> set[str]:
    """The long options one wheel's parser can accept (generously, see the module docstring)."""
    package, field_files, _ = ENGINES[engine]
    found: set[str] = set()
    archive = zipfile.ZipFile(wheel)
    for name in archive.namelist():
        if not (name.startswith(package) and name.endswith(".py")):
            continue
        data = archive.read(name)
        fields = field_files.match(name) is not None
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


def modules(wheel: str, engine: str = "vllm") -> set[str]:
    """The entry modules a wheel ships (what ``python -m vllm.entrypoints...`` / ``sglang.launch_server`` can run):
    vLLM's under ``vllm/entrypoints/``, SGLang's directly under ``sglang/``."""
    folder = ENGINES[engine][2]
    found = set()
    for name in zipfile.ZipFile(wheel).namelist():
        if name.startswith(folder) and name.endswith(".py") and (engine == "vllm" or name.count("/") == 1):
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
    releases = sorted(found, key=version_key)
    return {"releases": releases, "options": _spans(releases, found), "modules": _spans(releases, entry_modules)}


def _releases_of(ranges: dict[str, str], releases: list[str]) -> dict[str, set[str]]:
    """The inverse of ``_spans``: release -> the names a written table gives it."""
    found: dict[str, set[str]] = {release: set() for release in releases}
    for name, spans in ranges.items():
        for span in spans.split(","):
            first, _, last = span.partition("-")
            for i in range(int(first), int(last or first) + 1):
                found[releases[i]].add(name)
    return found


def merged(existing: dict, found: dict[str, set[str]], entry_modules: dict[str, set[str]]) -> dict:
    """The written table ``existing`` with the releases of ``found``/``entry_modules`` added (or read again), so one
    wheel can be added without downloading every other release's."""
    releases = existing["releases"]
    options_by = {**_releases_of(existing["options"], releases), **found}
    modules_by = {**_releases_of(existing["modules"], releases), **entry_modules}
    return table(options_by, modules_by)


if __name__ == "__main__":
    # --add: merge the wheels' releases into the written table instead of writing one from these wheels alone.
    engine, write, add = sys.argv[1], "--write" in sys.argv, "--add" in sys.argv
    wheels = [w for w in sys.argv[2:] if w not in ("--write", "--add")]
    found = {_version(w): options(w, engine) for w in wheels}
    entry = {_version(w): modules(w, engine) for w in wheels}
    if add:
        data = merged(json.loads((COMPONENTS / f"{engine}_cli_flags.json").read_text()), found, entry)
    else:
        data = table(found, entry)
    text = json.dumps(data, indent=0, sort_keys=True) + "\n"
    out = COMPONENTS / f"{engine}_cli_flags.json"
    if write:
        out.write_text(text)
        print(f"wrote {out}: {len(data['releases'])} releases, {len(data['options'])} options")
    else:
        sys.stdout.write(text)
