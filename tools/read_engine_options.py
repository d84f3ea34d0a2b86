"""Write components/<engine>_cli_flags.json: the long options an engine's server parser accepts, release by release
(the source of the S38 policy engine-options-exist, through the engine table's ``options``; run by hand, never by the
product or the tests).

    pip download vllm==0.33.0 --no-deps -d wheels/ --only-binary=:all: --python-version 3.12 \
        --platform manylinux1_x86_64 --platform manylinux_2_31_x86_64 --platform manylinux_2_28_x86_64
    python tools/read_engine_options.py vllm --write wheels/vllm-*.whl
    pip download sglang==0.5.10 --no-deps -d wheels/ --only-binary=:all:
    python tools/read_engine_options.py sglang --write wheels/sglang-*.whl

vLLM's table holds every release on PyPI from 0.4.0 to 0.34.0; some wheels carry other platform tags, so the
download names them all: ``--platform manylinux_2_24_x86_64`` (0.21.0, published only as
``vllm-0.21.0-1-cp38-abi3-manylinux_2_24_x86_64.whl``), ``manylinux_2_35_x86_64`` (0.20.0 to 0.20.2),
``manylinux1_x86_64`` with ``--python-version 3.10`` (0.4.0 to 0.5.1, cp310 wheels only). ``--add`` merges the wheels
named into the table already written (one release added without every other wheel):

    pip download vllm==0.21.0 --no-deps -d wheels/ --only-binary=:all: --python-version 3.12 \
        --platform manylinux_2_24_x86_64
    python tools/read_engine_options.py vllm --write --add wheels/vllm-0.21.0-*.whl

``--check`` writes nothing and exits 1 unless what it would write is byte-identical to the committed table (with every
wheel of the table, or with ``--add`` and some of them): ``python tools/read_engine_options.py vllm --check
wheels/vllm-*.whl``. The table's ``provenance`` names the wheel read for each release and the files that define its
server's parser.

Besides the options, the table records per release whether the server's parser keeps argparse's ``allow_abbrev``
(``abbrev``; ``keeps_abbrev``: no vLLM wheel from 0.4.0 to 0.34.0 sets it) and, for vLLM, the names it takes only from
a configuration class's field (``fields``; ``field_only_options``), which the parser does not declare.

For vLLM it also lists, per release, the options that take no value (``flags``: store_true and the like,
BooleanOptionalAction, a bool field's generated flag; read conservatively, see ``no_value_options``), so S38 can name
``--enforce-eager=true``, which argparse refuses, from the table alone; and the options that must be followed by a
value (``values``: one value or more, ``value_options``), so S38 can name ``--tool-call-parser --enforce-eager`` and a
value option last on the line, which argparse refuses with "expected one argument".

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
from components.engine_options import decode_spans, encode_spans, version_key  # noqa: E402

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
    return _option_sources(wheel, engine)[0]


def field_only_options(wheel: str, engine: str = "vllm") -> set[str]:
    """The names ``options`` takes only from a field of a class outside vLLM's ``vllm/entrypoints`` (a config class's
    ``device``): no ``--name`` literal in the package, no entry-point args class (FrontendArgs, whose fields its
    add_cli_args loop turns into options: 0.34.0 vllm/entrypoints/common/cli_args.py:278-284) and no ``--no-`` or
    ``--enable-``/``--disable-`` form of one. Every vLLM release read from 0.4.0 to 0.34.0 adds its server's options
    by literal name except that loop (no other ``add_argument`` takes a computed name), so such a name is one the
    parser does not declare; the table keeps it (generous) and S38 only advises on it."""
    if engine != "vllm":
        return set()
    found, declared = _option_sources(wheel, engine)
    return found - declared


def _option_sources(wheel: str, engine: str) -> tuple[set[str], set[str]]:
    """(every option ``options`` reads, those a literal or an entry-point args class declares, with their ``--no-``
    and paired forms)."""
    package, field_files, entry_folder = ENGINES[engine]
    found: set[str] = set()
    declared: set[str] = set()
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
        entry = name.startswith(entry_folder)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                text = node.value.replace("_", "-")
                if OPTION.match(text):
                    found.add(text)
                    declared.update({text, "--no-" + text[2:]})
            elif fields and isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                        flag = "--" + item.target.id.replace("_", "-")
                        if OPTION.match(flag):
                            found.update({flag, "--no-" + flag[2:]})
                            if entry:
                                declared.update({flag, "--no-" + flag[2:]})
    if pairs_enable_disable(archive):
        found |= inverses(found)
        declared |= inverses(declared)
    return found, declared


# argparse actions that consume no argument (nargs=0): an explicit ``--x=value`` makes argparse exit with "ignored
# explicit argument" (CPython Lib/argparse.py, ArgumentParser.consume_optional).
NO_VALUE_ACTIONS = {"store_true", "store_false", "store_const", "append_const", "count"}
NO_VALUE_CLASSES = {"BooleanOptionalAction", "EnableDisableAction"}
# vLLM's get_kwargs turning a bool field into argparse.BooleanOptionalAction (0.33.0 vllm/engine/arg_utils.py:384-386).
_BOOL_GENERATOR = re.compile(
    rb"contains_type\(type_hints, bool\):\s*\n(?:\s*#.*\n)*\s*kwargs\[name\]\[\"action\"\] = argparse\.BooleanOptionalAction"
)


def _boolish(annotation: ast.expr) -> bool:
    """``bool``, ``Optional[bool]`` or ``bool | None``: a field get_kwargs turns into a flag taking no value."""
    text = ast.unparse(annotation).replace(" ", "").strip("'\"")
    return text in {"bool", "Optional[bool]", "bool|None", "None|bool"}


def _action_kind(call: ast.Call) -> str:
    """How one ``add_argument`` call reads its option: "none" (takes no value), "value", or "field:NAME" (its kwargs come
    from ``**X_kwargs["NAME"]``, a dataclass field's)."""
    splat = None
    for keyword in call.keywords:
        if keyword.arg == "action":
            value = keyword.value
            if isinstance(value, ast.Constant):
                return "none" if value.value in NO_VALUE_ACTIONS else "value"
            name = value.attr if isinstance(value, ast.Attribute) else getattr(value, "id", "")
            return "bool" if name in NO_VALUE_CLASSES else "value"
        if keyword.arg is None and isinstance(keyword.value, ast.Subscript) and isinstance(keyword.value.slice, ast.Constant):
            splat = keyword.value.slice.value
    return f"field:{splat}" if isinstance(splat, str) else "value"


def _changed_kwargs(tree: ast.AST) -> set[str]:
    """Field names whose generated kwargs the source changes after get_kwargs (``x_kwargs["f"]["type"] = ...``,
    ``x_kwargs["f"].update(...)``): their action is not read from the field's type alone."""
    found = set()
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AugAssign) else []
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            targets = [node.func.value]
        for target in targets:
            while isinstance(target, ast.Subscript) and isinstance(target.value, ast.Subscript):
                target = target.value
            if (
                isinstance(target, ast.Subscript)
                and isinstance(target.slice, ast.Constant)
                and isinstance(target.slice.value, str)
            ):
                if isinstance(target.value, ast.Name):
                    found.add(target.slice.value)  # any name: a key wrongly taken for a field only leaves it unread
    return found


def no_value_options(wheel: str) -> set[str]:
    """The long options of one vLLM wheel that take no value, read conservatively: an option counts only when every
    ``add_argument`` of it in the package consumes no argument (store_true and the like, BooleanOptionalAction, or a
    ``**kwargs`` of a field typed bool that get_kwargs turns into BooleanOptionalAction and nothing changes after), with
    the ``--no-`` form (and ``--enable-``/``--disable-`` pair) of each BooleanOptionalAction. An option added in a loop
    (``add_argument(f"--{key}")``) or with a custom action is not read: it is never listed."""
    package, field_files, _ = ENGINES["vllm"]
    archive = zipfile.ZipFile(wheel)
    sites: dict[str, set[str]] = {}
    fields: dict[str, set[bool]] = {}
    changed: set[str] = set()
    generator = False
    for name in archive.namelist():
        if not (name.startswith(package) and name.endswith(".py")):
            continue
        data = archive.read(name)
        generator = generator or (name.endswith("arg_utils.py") and _BOOL_GENERATOR.search(data) is not None)
        is_fields = field_files.match(name) is not None
        if not is_fields and b"add_argument" not in data:
            continue
        try:
            tree = ast.parse(data)
        except SyntaxError:
            continue
        changed |= _changed_kwargs(tree)
        for node in ast.walk(tree):
            if is_fields and isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                        fields.setdefault(item.target.id, set()).add(_boolish(item.annotation))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument":
                kind = _action_kind(node)
                for arg in node.args:
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and OPTION.match(arg.value):
                        sites.setdefault(arg.value, set()).add(kind)
    found: set[str] = set()
    for option, kinds in sites.items():
        resolved = set()
        for kind in kinds:
            if kind.startswith("field:"):
                field = kind[len("field:") :]
                typed_bool = generator and bool(fields.get(field)) and all(fields[field]) and field not in changed
                kind = "bool" if typed_bool else "value"
            resolved.add(kind)
        if resolved <= {"none", "bool"}:
            found.add(option)
            if "bool" in resolved and resolved == {"bool"}:
                found.add("--no-" + option[2:])
    if pairs_enable_disable(archive):
        found |= {o for o in inverses(found) if not o.startswith("--no-no-")}
    return found


# argparse actions that store what follows the option (one value each time, unless ``nargs`` says otherwise).
VALUE_ACTIONS = {"store", "append", "extend"}
# Annotation words that may make get_kwargs give a field no value or an optional one: bool (BooleanOptionalAction, or
# nargs="?" for bool | str | None: 0.34.0 vllm/engine/arg_utils.py:377-385).
_MAYBE_FLAG = re.compile(r"\bbool\b|\bAny\b|\bobject\b")


def _value_kind(call: ast.Call) -> str:
    """How one ``add_argument`` call takes its value, for ``value_options``: "one" (at least one value must follow:
    no ``action`` or a storing one, no ``nargs`` or an int >= 1 or "+"), "field:NAME" (``**X["NAME"]``, a dataclass
    field's generated kwargs, with nothing else that changes the arity), or "other" (no value, an optional one, a
    custom action, or kwargs not read)."""
    splat = None
    for keyword in call.keywords:
        value = keyword.value
        if keyword.arg is None:
            if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Constant) and isinstance(value.slice.value, str):
                if splat is not None:
                    return "other"
                splat = value.slice.value
                continue
            return "other"  # **kwargs of a dict not read
        if keyword.arg == "action" and not (isinstance(value, ast.Constant) and value.value in VALUE_ACTIONS):
            return "other"
        if keyword.arg == "nargs" and not (
            isinstance(value, ast.Constant) and (value.value == "+" or (type(value.value) is int and value.value >= 1))
        ):
            return "other"
    if splat is not None:
        return "other" if any(k.arg in ("action", "nargs") for k in call.keywords) else f"field:{splat}"
    return "one"


def _arity_changed(tree: ast.AST) -> set[str]:
    """Field names whose generated kwargs the source may change in arity after get_kwargs: ``x["f"]["action"|"nargs"|
    "const"] = ...``, ``del x["f"][...]``, ``x["f"].update(...)``, ``x["f"].pop(...)``, ``y_kwargs["f"] = ...``."""
    found = set()
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, (ast.Assign, ast.Delete)):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("update", "pop", "setdefault")
        ):
            targets = [node.func.value]
        for target in targets:
            key = target.slice.value if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant) else None
            if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Subscript):
                inner = target.value
                if isinstance(inner.slice, ast.Constant) and isinstance(inner.slice.value, str):
                    if key in ("action", "nargs", "const") or isinstance(node, ast.Delete):
                        found.add(inner.slice.value)
            elif isinstance(target, ast.Subscript) and isinstance(key, str) and isinstance(target.value, ast.Name):
                if target.value.id.endswith("_kwargs"):
                    found.add(key)  # a field's whole kwargs replaced (``model_kwargs["x"] = ...``)
    return found


def _aliases(tree: ast.Module) -> dict[str, str]:
    """Module-level type aliases (``BlockSize = Literal[...]``, ``X: TypeAlias = ...``, ``type X = ...``) as text."""
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            found[node.targets[0].id] = ast.unparse(node.value)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            found[node.target.id] = ast.unparse(node.value)
        elif type(node).__name__ == "TypeAlias":  # Python 3.12's ``type X = ...``
            found[node.name.id] = ast.unparse(node.value)  # type: ignore[attr-defined]
    return found


def _may_be_flag(annotation: str, aliases: dict[str, set[str]], seen: frozenset[str] = frozenset()) -> bool:
    """True when a field's annotation, with the package's type aliases expanded (every definition of a name), may hold
    bool (or Any/object, which may): get_kwargs may then give it no value or an optional one."""
    if _MAYBE_FLAG.search(annotation):
        return True
    for word in set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", annotation)) - seen:
        if any(_may_be_flag(text, aliases, seen | {word}) for text in aliases.get(word, ())):
            return True
    return False


def value_options(wheel: str) -> set[str]:
    """The long options of one vLLM wheel that must be followed by a value (argparse exits with "expected one
    argument" when the next argument is an option, or none is left), read conservatively: every ``add_argument`` of
    the name in the package takes one value or more (``_value_kind``), a ``**x["field"]`` resolved by the field's
    annotation where the release generates kwargs from types (get_kwargs: a field whose annotation, its aliases
    expanded, holds no bool is given a type and, for a collection, nargs "+" or a tuple's length: 0.34.0
    vllm/engine/arg_utils.py:323-440) and nothing changes that field's action or nargs afterwards; an option with no
    literal ``add_argument`` is taken from an entry-point args class's field the same way (FrontendArgs' loop, 0.34.0
    vllm/entrypoints/common/cli_args.py:271-285). Anything else is left out: a name never listed is never judged."""
    package, field_files, entry_folder = ENGINES["vllm"]
    archive = zipfile.ZipFile(wheel)
    sites: dict[str, set[str]] = {}
    fields: dict[str, set[str]] = {}
    entry_fields: set[str] = set()
    aliases: dict[str, set[str]] = {}
    changed: set[str] = set()
    generator = False
    for name in archive.namelist():
        if not (name.startswith(package) and name.endswith(".py")):
            continue
        data = archive.read(name)
        generator = generator or (name.endswith("arg_utils.py") and _BOOL_GENERATOR.search(data) is not None)
        is_fields = field_files.match(name) is not None
        if not is_fields and b"add_argument" not in data:
            continue
        try:
            tree = ast.parse(data)
        except SyntaxError:
            continue
        changed |= _arity_changed(tree)
        for alias, text in _aliases(tree).items():
            aliases.setdefault(alias, set()).add(text)
        for node in ast.walk(tree):
            if is_fields and isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                        fields.setdefault(item.target.id, set()).add(ast.unparse(item.annotation))
                        if name.startswith(entry_folder):
                            entry_fields.add(item.target.id)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument":
                kind = _value_kind(node)
                for arg in node.args:
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and OPTION.match(arg.value):
                        sites.setdefault(arg.value, set()).add(kind)

    def field_takes_value(field: str) -> bool:
        texts = fields.get(field, set())
        return generator and bool(texts) and field not in changed and not any(_may_be_flag(t, aliases) for t in texts)

    found = {
        option
        for option, kinds in sites.items()
        if all(k == "one" or (k.startswith("field:") and field_takes_value(k[6:])) for k in kinds)
    }
    # where the release generates kwargs from types, an args class's loop may declare the option too (FrontendArgs):
    # its field must then take a value; before, every option is declared by a literal (no loop to read)
    for field in entry_fields if generator else ():
        option = "--" + field.replace("_", "-")
        if not OPTION.match(option):
            continue
        if field_takes_value(field) and (option in found or option not in sites):
            found.add(option)
        else:
            found.discard(option)
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
    return {
        name: encode_spans([i for i, release in enumerate(releases) if name in found[release]])
        for name in sorted(set().union(*found.values()))
    }


def table(
    found: dict[str, set[str]],
    entry_modules: dict[str, set[str]],
    flags: dict[str, set[str]] | None = None,
    abbrev: dict[str, bool] | None = None,
    sources: dict[str, tuple[str, set[str]]] | None = None,
    fields: dict[str, set[str]] | None = None,
    values: dict[str, set[str]] | None = None,
) -> dict:
    """{"releases": [...], "options": {name: "i-j,k"}, "modules": {...}, "flags": {...}, "fields": {...}, "values": {...}, "abbrev":
    "i-j", "provenance": {...}}: each option and entry-point module with the index ranges of the releases having it
    (``found``/``entry_modules``: release -> its names); where ``flags`` (release -> its options taking no value) or
    ``fields`` (release -> its names only a class field gives, ``field_only_options``) is given, those names the same
    way, and ``values`` (release -> its options that must be followed by a value, ``value_options``); where ``abbrev`` is given (release -> its parser keeps allow_abbrev) the ranges of the releases keeping it;
    where ``sources`` is given (release -> its wheel's file name and the parser files read, ``parser_files``) the
    provenance: each wheel, and each parser file with the releases it was read in."""
    releases = sorted(found, key=version_key)
    out: dict = {"releases": releases, "options": _spans(releases, found), "modules": _spans(releases, entry_modules)}
    if flags is not None:
        out["flags"] = _spans(releases, {r: flags.get(r, set()) for r in releases})
    if fields is not None:
        out["fields"] = _spans(releases, {r: fields.get(r, set()) for r in releases})
    if values is not None:
        out["values"] = _spans(releases, {r: values.get(r, set()) for r in releases})
    if abbrev is not None:
        out["abbrev"] = _spans(releases, {r: {""} if abbrev.get(r, True) else set() for r in releases}).get("", "")
    if sources is not None:
        out["provenance"] = {
            "read": PROVENANCE,
            "wheels": {r: sources[r][0] for r in releases if r in sources},
            "parser_files": _spans(releases, {r: sources[r][1] if r in sources else set() for r in releases}),
        }
    return out


def _releases_of(ranges: dict[str, str], releases: list[str]) -> dict[str, set[str]]:
    """The inverse of ``_spans``: release -> the names a written table gives it."""
    found: dict[str, set[str]] = {release: set() for release in releases}
    for name, spans in ranges.items():
        for i in decode_spans(spans):
            found[releases[i]].add(name)
    return found


def merged(
    existing: dict,
    found: dict[str, set[str]],
    entry_modules: dict[str, set[str]],
    flags: dict[str, set[str]] | None = None,
    abbrev: dict[str, bool] | None = None,
    sources: dict[str, tuple[str, set[str]]] | None = None,
    fields: dict[str, set[str]] | None = None,
    values: dict[str, set[str]] | None = None,
) -> dict:
    """The written table ``existing`` with the releases of ``found``/``entry_modules`` (and ``flags``, ``abbrev``,
    ``sources``) added (or read again), so one wheel can be added without downloading every other release's."""
    releases = existing["releases"]
    options_by = {**_releases_of(existing["options"], releases), **found}
    modules_by = {**_releases_of(existing["modules"], releases), **entry_modules}
    flags_by = None
    if flags is not None or "flags" in existing:
        flags_by = {**_releases_of(existing.get("flags", {}), releases), **(flags or {})}
    abbrev_by = None
    if abbrev is not None or "abbrev" in existing:
        # a table read before allow_abbrev was looked for: argparse's default, kept
        kept = _releases_of({"": existing.get("abbrev", f"0-{len(releases) - 1}")}, releases) if existing.get("abbrev", 1) else {}
        abbrev_by = {**{r: "" in kept.get(r, ()) for r in releases}, **(abbrev or {})}
    sources_by = None
    if sources is not None or "provenance" in existing:
        old = existing.get("provenance", {"wheels": {}, "parser_files": {}})
        files = _releases_of(old["parser_files"], releases)
        sources_by = {**{r: (old["wheels"][r], files[r]) for r in releases if r in old["wheels"]}, **(sources or {})}
    fields_by = None
    if fields is not None or "fields" in existing:
        fields_by = {**_releases_of(existing.get("fields", {}), releases), **(fields or {})}
    values_by = None
    if values is not None or "values" in existing:
        values_by = {**_releases_of(existing.get("values", {}), releases), **(values or {})}
    return table(options_by, modules_by, flags_by, abbrev_by, sources_by, fields_by, values_by)


PROVENANCE = (
    "tools/read_engine_options.py over the PyPI wheels named in wheels (a file name PyPI never lets be uploaded twice): "
    "options from argparse literals and argument-class fields, entry modules from the package's files; parser_files "
    "are the files defining the server's parser (make_arg_parser, add_cli_args, FlexibleArgumentParser, "
    "prepare_server_args), with the releases read, where allow_abbrev is looked for (abbrev)"
)
# The definitions that build an engine server's parser: where allow_abbrev would be set, and what provenance cites.
_PARSER_DEFS = re.compile(
    rb"^\s*(?:def (?:make_arg_parser|add_cli_args|prepare_server_args)\b|class FlexibleArgumentParser\b)", re.MULTILINE
)


# engine -> the files that may build its server's parser: vLLM's package less its benchmarks; SGLang's ServerArgs
# (sglang/srt/server_args.py) and, from 0.5.20, the argument groups it is generated from (sglang/srt/arg_groups/), not
# the tests or the diffusion server (sglang/multimodal_gen) that define add_cli_args of their own.
_PARSER_SCOPE = {
    "vllm": re.compile(r"^vllm/(?!.*bench).*\.py$"),
    "sglang": re.compile(r"^sglang/srt/(server_args\.py|arg_groups/.*\.py)$"),
}


def parser_files(wheel: str, engine: str = "vllm") -> set[str]:
    """The files of a wheel that define its server's parser (``_PARSER_DEFS``, within ``_PARSER_SCOPE``)."""
    archive = zipfile.ZipFile(wheel)
    scope = _PARSER_SCOPE[engine]
    return {name for name in archive.namelist() if scope.match(name) and _PARSER_DEFS.search(archive.read(name))}


def keeps_abbrev(wheel: str, engine: str = "vllm") -> bool:
    """False when a parser file (``parser_files``) turns argparse's ``allow_abbrev`` off (``allow_abbrev=False``, or
    ``kwargs["allow_abbrev"] = False``): that release's parser then takes no prefix for an option. argparse keeps it
    by default (CPython Lib/argparse.py ArgumentParser.__init__ allow_abbrev=True)."""
    archive = zipfile.ZipFile(wheel)
    for name in sorted(parser_files(wheel, engine)):
        data = archive.read(name)
        if b"allow_abbrev" not in data:
            continue
        for node in ast.walk(ast.parse(data)):
            if isinstance(node, ast.keyword) and node.arg == "allow_abbrev":
                value = node.value
            elif isinstance(node, ast.Assign) and any("allow_abbrev" in ast.unparse(t) for t in node.targets):
                value = node.value
            else:
                continue
            if isinstance(value, ast.Constant) and value.value is False:
                return False
    return True


def _read(wheels: list[str], engine: str) -> tuple:
    """What --write records of each wheel: options, entry modules, flags (vLLM), allow_abbrev, provenance, the names
    only a class field gives (vLLM), the options that must be followed by a value (vLLM)."""
    found = {_version(w): options(w, engine) for w in wheels}
    entry = {_version(w): modules(w, engine) for w in wheels}
    flags = {_version(w): no_value_options(w) for w in wheels} if engine == "vllm" else None
    abbrev = {_version(w): keeps_abbrev(w, engine) for w in wheels}
    sources = {_version(w): (Path(w).name, parser_files(w, engine)) for w in wheels}
    fields = {_version(w): field_only_options(w, engine) for w in wheels} if engine == "vllm" else None
    values = {_version(w): value_options(w) for w in wheels} if engine == "vllm" else None
    return found, entry, flags, abbrev, sources, fields, values


if __name__ == "__main__":
    # --add: merge the wheels' releases into the written table instead of writing one from these wheels alone;
    # --check: write nothing, exit 1 unless what would be written is byte-identical to the committed table.
    engine, write, add, check = sys.argv[1], "--write" in sys.argv, "--add" in sys.argv, "--check" in sys.argv
    wheels = [w for w in sys.argv[2:] if w not in ("--write", "--add", "--check")]
    out = COMPONENTS / f"{engine}_cli_flags.json"
    read = _read(wheels, engine)
    data = merged(json.loads(out.read_text()), *read) if add else table(*read)
    text = json.dumps(data, indent=0, sort_keys=True) + "\n"
    if check:
        same = text == out.read_text()
        print(f"{out.name}: {'byte-identical to' if same else 'differs from'} what {len(wheels)} wheels give")
        sys.exit(0 if same else 1)
    if write:
        out.write_text(text)
        print(f"wrote {out}: {len(data['releases'])} releases, {len(data['options'])} options")
    else:
        sys.stdout.write(text)
