"""Write components/<engine>_cli_flags.json for engines whose server is no Python wheel: the long options (and the
environment variables) each release's own parser declares, read from the engine's source at its release tags in a
git mirror brought here by the tool library's ``fetch`` (the sibling of tools/read_engine_options.py, which reads
vLLM's and SGLang's wheels; run by hand, never by the product or the tests).

    python tools/read_source_options.py tgi /work/.mirror/huggingface+text-generation-inference/repo --write
    python tools/read_source_options.py tei /work/.mirror/huggingface+text-embeddings-inference/repo --write
    python tools/read_source_options.py llama-cpp /work/.mirror/CrazyForks+llama.cpp/repo --write
    python tools/read_source_options.py llama-cpp /work/.mirror/CrazyForks+llama.cpp/repo --env
    python tools/read_source_options.py triton /work/.mirror/triton-inference-server+server/repo --write

``--env`` writes components/engine_env_names.json ``settings.llama-cpp`` (G74 engine-env-known): the table's LLAMA_ARG_
variables and every LLAMA_ARG_ name in the history of llama.cpp's common/, tools/server/ and examples/server/ up to the
newest tag read.

``--check`` writes nothing and exits 1 unless what it would write is byte-identical to the committed table. The tags
read are ``ENGINES[engine].tags`` (every release tag of TGI and TEI; a spaced choice of llama.cpp's build tags, whose
mirror holds a fork's copy of them: the tag's commit is recorded per release in ``provenance``). Each file is read with
``git show TAG:PATH``, parsed as text, never built or run.

Parsers, and what the table records of them (``syntax``, ``abbrev``):

- clap derive (TGI's text-generation-launcher, launcher/src/main.rs; TEI's text-embeddings-router, router/src/main.rs):
  every field of ``struct Args`` with ``#[clap(long ...)]`` is ``--field-name`` (``long = "name"`` names it), its
  ``alias``/``aliases`` too, and ``env`` (or ``env = "NAME"``) the variable that sets it (clap's derive: the field's
  name in upper case); clap adds ``--help`` and, with ``version`` on the struct, ``--version``. clap takes
  ``--name value`` and ``--name=value``, turns no ``_`` into ``-``, and reads no prefix of a long option unless the
  command sets ``infer_long_args`` (none of the files read does: ``abbrev`` is empty); an unknown argument ends the
  launcher with "error: unexpected argument" and exit status 2. A field typed ``bool`` (clap's SetTrue) takes no value
  (``flags``).
- llama.cpp's common/arg.cpp (llama-server parses with ``common_params_parse(..., LLAMA_EXAMPLE_SERVER)``): each
  ``add_opt(common_arg({"-m", "--model"}, ...))`` (``llama_arg`` before b4000) whose ``set_examples`` names the server or
  the common example (no ``set_examples``: common) and whose ``set_excludes`` does not name the server, with its
  negative spellings (``common_arg({"--x"}, {"--no-x"}, ...)``) and ``set_env("LLAMA_ARG_...")`` (and, where the file
  reads them, ``LLAMA_ARG_NO_...`` for a negated option). Its parse loop (``common_params_parse_ex``) turns ``_`` into
  ``-`` in an argument starting with ``--`` and looks the whole argument up in a map of the declared spellings: no
  prefix, and no ``--name=value`` form (the argument ``--port=8080`` is itself unknown): "error: invalid argument".
  The reading is generous (an ``add_opt`` inside a condition counts), so a name the table lacks is one the server's
  parser cannot know.
- Triton's tritonserver (src/command_line_parser.cc from v2.37, src/main.cc and src/servers/main.cc before): each
  ``{OPTION_X, "name", Option::ArgY, ...}`` of its option tables (those under an #ifdef of a feature included:
  generous). It parses with glibc's getopt_long (the file's own getopt_long is for Windows only, v2.71.0
  src/command_line_parser.cc:31-40) with no short options: ``--name value``, ``--name=value`` and a unique prefix of a
  long option are read, ``_`` is not ``-``; an unknown option is '?', a ParseException, and main prints the usage and
  exits 1 (v2.71.0 src/main.cc:475-480). ``Option::ArgNone`` options take no value (``flags``). Releases are named by
  the NGC container of each server release (nvcr.io/nvidia/tritonserver:24.08-py3 is 2.49.0), read from build.py's
  TRITON_VERSION_MAP at the tag.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from components.engine_options import version_key  # noqa: E402
from tools import read_engine_env  # noqa: E402
from tools.read_engine_options import _spans  # noqa: E402

COMPONENTS = ROOT / "components"


@dataclass(frozen=True)
class Source:
    """Where an engine's parser is, how it reads, and which release tags to read."""

    parser: str  # "clap" or "llama-cpp"
    path: str  # the file at each tag
    repository: str  # the upstream repository the tags are upstream's of
    tags: tuple[str, ...]  # the tags read; () = every tag matching ``tag_pattern``
    tag_pattern: str = r"v\d+\.\d+\.\d+"
    first: str = ""  # the oldest tag read (by version order) when ``tags`` is ()


# llama.cpp: a build tag about every two months from b3753 (the first builds of common/arg.cpp, 2024-09) to b8914
# (2026-04-26, the newest the mirror holds).
_LLAMA_TAGS = (
    "b3753", "b3985", "b4233", "b4488", "b4732", "b5022", "b5388", "b5770", "b6080", "b6427", "b6790", "b7146",
    "b7503", "b7868", "b8238", "b8579", "b8914",
)  # fmt: skip

ENGINES = {
    "tgi": Source("clap", "launcher/src/main.rs", "huggingface/text-generation-inference", (), first="v1.0.0"),
    "tei": Source("clap", "router/src/main.rs", "huggingface/text-embeddings-inference", (), first="v0.2.0"),
    "llama-cpp": Source("llama-cpp", "common/arg.cpp", "ggml-org/llama.cpp", _LLAMA_TAGS),
    # every minor release from v2.18.0 (NGC 22.01) to v2.71.0 (26.07); releases named by their NGC container (YY.MM)
    "triton": Source("getopt", "src/command_line_parser.cc", "triton-inference-server/server", (), r"v2\.\d+\.0", "v2.18.0"),
}


def _git(mirror: str, *args: str) -> str:
    done = subprocess.run(["git", "--git-dir", mirror, *args], check=True, capture_output=True)
    return done.stdout.decode("utf-8", "replace")


def release_tags(mirror: str, source: Source) -> list[str]:
    """The tags read, oldest first."""
    if source.tags:
        return list(source.tags)
    tags = [t for t in _git(mirror, "tag").split() if re.fullmatch(source.tag_pattern, t)]
    tags = [t for t in tags if version_key(t) >= version_key(source.first)]
    return sorted(tags, key=version_key)


def release_name(tag: str) -> str:
    """The release as image tags name it: v2.4.1 -> 2.4.1; llama.cpp's b4500 stays b4500."""
    return tag[1:] if tag.startswith("v") else tag


# --- clap derive ---------------------------------------------------------------------------------------------------


def _top_level(text: str) -> list[str]:
    """``text`` split at commas outside quotes, parentheses and brackets."""
    parts: list[str] = []
    depth, quote = 0, ""
    current: list[str] = []
    for ch in text:
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
            continue
        current.append(ch)
    if "".join(current).strip():
        parts.append("".join(current).strip())
    return parts


_FIELD = re.compile(r"^\s*(?:pub\s+)?([a-z_][a-z0-9_]*)\s*:\s*(.+?),?\s*$")
_ATTRIBUTE = re.compile(r"#\[(?:clap|arg)\((.*)\)\]\s*$", re.DOTALL)


# A field type clap's derive gives exactly one value per occurrence: a plain type or Option<T> (not Vec, not
# Option<Option<T>> or Option<Vec<T>>, whose values may be missing), and no attribute that changes the arity or lets a
# value start with '-' (the last six).
_ONE_VALUE_TYPE = re.compile(r"(?:Option<\s*)?(?!bool\b|Vec\b|Option\b)[A-Za-z_][A-Za-z0-9_:]*\s*>?")
_ARITY_ITEMS = (
    "num_args", "action", "default_missing_value", "require_equals", "min_values", "max_values", "takes_value",
    "multiple", "number_of_values", "allow_hyphen_values", "allow_negative_numbers", "last", "raw", "trailing_var_arg",
)  # fmt: skip


def clap_options(text: str) -> dict[str, dict]:
    """{"--name": {"env": VAR or "", "no_value": bool, "value": bool}} of the ``#[derive(Parser)]`` struct ``Args`` (see
    the module docstring; ``value``: one value must follow, ``_ONE_VALUE_TYPE``); raises ValueError where the struct
    cannot be read whole (a ``flatten`` or ``subcommand`` field)."""
    at = re.search(r"#\[derive\(Parser[^\]]*\)\]\s*(?:#\[[^\n]*\]\s*)*(?:pub\s+)?struct Args\s*\{", text)
    if at is None:
        raise ValueError("no #[derive(Parser)] struct Args")
    head = text[text.rfind("#[derive(Parser", 0, at.end()) : at.end()]
    body = text[at.end() : text.index("\n}", at.end())]
    flag = {"env": "", "no_value": True, "value": False}
    found: dict[str, dict] = {"--help": flag, "-h": flag}
    if re.search(r"#\[(?:clap|command)\([^\]]*\bversion\b", head):
        found.update({"--version": flag, "-V": flag})
    hyphens = any(word in head for word in _ARITY_ITEMS[-5:])  # the command lets a value start with '-'

    pending: list[str] = []
    attribute: list[str] = []
    for line in body.split("\n"):
        stripped = line.strip()
        if attribute:
            attribute.append(stripped)
            if stripped.endswith(")]"):
                pending.append(" ".join(attribute))
                attribute = []
            continue
        if stripped.startswith(("#[clap(", "#[arg(")):
            if stripped.endswith(")]"):
                pending.append(stripped)
            else:
                attribute = [stripped]
            continue
        if not stripped or stripped.startswith(("//", "#[")):
            continue
        field = _FIELD.match(line)
        if field is None:
            continue
        name, kind = field.group(1), field.group(2).strip()
        items = [p for a in pending if (m := _ATTRIBUTE.match(a)) for p in _top_level(m.group(1))]
        pending = []
        if any(i in ("flatten", "subcommand") for i in items):
            raise ValueError(f"field {name}: {items} (the struct is not read whole)")
        spellings, env = [], ""
        for item in items:
            key, _, value = (s.strip() for s in item.partition("="))
            value = value.strip("\"'")
            if key == "long":
                spellings.append("--" + (value or name.replace("_", "-")))
            elif key == "short":
                spellings.append("-" + (value or name[0]))
            elif key in ("alias", "visible_alias"):
                spellings.append("--" + value)
            elif key in ("aliases", "visible_aliases"):
                spellings += ["--" + a for a in re.findall(r"\"([^\"]+)\"", value)]
            elif key == "env":
                env = value or name.upper()
        no_value = kind == "bool" and not any(i.startswith(("action", "value_parser", "num_args")) for i in items)
        one_value = (
            not hyphens
            and _ONE_VALUE_TYPE.fullmatch(kind) is not None
            and not any(i.partition("=")[0].strip() in _ARITY_ITEMS for i in items)
        )
        for spelling in spellings:
            found[spelling] = {"env": env if spelling.startswith("--") else "", "no_value": no_value, "value": one_value}
    return found


def clap_abbreviates(text: str) -> bool:
    """True when the command sets clap's ``infer_long_args`` (a unique prefix of a long option is that option)."""
    return "infer_long_args" in text


# --- llama.cpp common/arg.cpp ---------------------------------------------------------------------------------------


def _strip_comments(text: str) -> str:
    """C++ text without // and /* */ comments (string and character literals kept whole)."""
    out, i, n = [], 0, len(text)
    while i < n:
        ch = text[i]
        if ch in "\"'":
            j = i + 1
            while j < n and text[j] != ch:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        elif text.startswith("//", i):
            i = text.find("\n", i)
            i = n if i < 0 else i
        elif text.startswith("/*", i):
            i = text.find("*/", i + 2)
            i = n if i < 0 else i + 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


_STRINGS = re.compile(r'"([^"\\]*)"')
_OPENING = re.compile(r"add_opt\(\s*(?:common_arg|llama_arg)\(\s*\{([^{}]*)\}\s*,\s*(\{([^{}]*)\}\s*,)?")
_SERVER_EXAMPLES = {"LLAMA_EXAMPLE_SERVER", "LLAMA_EXAMPLE_COMMON"}


# The handler's parameters after ``common_params & params``: none (handler_void), ``bool`` (handler_bool: a --x/--no-x
# pair), or a value (``const std::string &``, ``int``; two for handler_str_str), which the parse loop reads from the
# next argument, "expected value for argument" where none is left (b8914 common/arg.cpp:469-472, b3753 :209).
_HANDLER = re.compile(r"\[[^\]]*\]\s*\(\s*(?:common|gpt)_params\s*&\s*\w*\s*(\)|,\s*([^)]*)\))")
_VALUE_PARAMETER = re.compile(r"(?:const\s+)?(?:std::string|int|float)\b.*")


def llama_options(text: str) -> dict[str, dict]:
    """{"--name": {"env": VAR or "", "no_value": False, "value": bool}} of the options llama-server's parser declares
    (see the module docstring; ``value``: the handler takes a value, ``_HANDLER``); raises ValueError where the parse
    loop is not the one described there."""
    code = _strip_comments(text)
    loop = re.search(r"arg_to_options\.find\(arg\)\s*==\s*arg_to_options\.end\(\)", code)
    if loop is None or "std::replace(arg.begin(), arg.end(), '_', '-')" not in code:
        raise ValueError("the parse loop is not an exact lookup after '_' -> '-'")
    if 'throw std::invalid_argument("expected value for argument")' not in code:
        raise ValueError("the parse loop does not refuse a value option with no argument after it")
    negated_env = '"LLAMA_ARG_NO_"' in code
    found: dict[str, dict] = {}
    starts = [m.start() for m in re.finditer(r"\badd_opt\(", code)] + [len(code)]
    for at, end in zip(starts, starts[1:]):
        chunk = code[at:end]
        opening = _OPENING.match(chunk)
        if opening is None:
            continue  # add_opt's definition, or a call on a variable
        args = _STRINGS.findall(opening.group(1))
        negative = _STRINGS.findall(opening.group(3) or "") if opening.group(3) and _STRINGS.search(opening.group(3)) else []
        examples = re.search(r"\.set_examples\(\s*\{([^{}]*)\}", chunk)
        if examples is not None and not _SERVER_EXAMPLES & set(re.findall(r"LLAMA_EXAMPLE_\w+", examples.group(1))):
            continue
        excludes = re.search(r"\.set_excludes\(\s*\{([^{}]*)\}", chunk)
        if excludes is not None and "LLAMA_EXAMPLE_SERVER" in excludes.group(1):
            continue
        env_match = re.search(r'\.set_env\(\s*"([A-Z0-9_]+)"', chunk)
        env = env_match.group(1) if env_match else ""
        handler = _HANDLER.search(chunk)
        params = handler.group(2) if handler is not None else None
        value = params is not None and _VALUE_PARAMETER.fullmatch(params.strip()) is not None
        for spelling in args + negative:
            value_too = found.get(spelling, {}).get("value", value)  # declared twice: a value only if both take one
            found[spelling] = {"env": env if spelling.startswith("--") else "", "no_value": False, "value": value and value_too}
        if env and negative and negated_env:
            negated = "env:" + env.replace("LLAMA_ARG_", "LLAMA_ARG_NO_", 1)
            found.setdefault(negated, {"env": "", "no_value": False, "value": False})
    return found


# --- Triton's tritonserver (getopt_long) -----------------------------------------------------------------------------

# The third field is the argument's kind (Option::ArgStr ...) or, for an option whose value has a form of its own, a
# literal describing it ("<string>,<string>=<string>": --backend-config, --cuda-memory-pool-byte-size, --host-policy,
# --metrics-config ..., v2.49.0 src/command_line_parser.cc:839); such an option takes a value (getopt required_argument).
_TRITON_OPTION = re.compile(
    r'\{\s*OPTION_[A-Z0-9_]+,\s*"([a-z0-9][a-z0-9-]*)",\s*(?:Option::Arg(None|Str|Int|Bool|Float)|"[^"]*")'
)
_CONTAINER = re.compile(
    r"TRITON_VERSION_MAP = \{\s*[\"'](\d+\.\d+\.\d+)[\"']:\s*\(\s*[\"'](\d\d\.\d\d)[\"']"
    r'|"release_version":\s*"(\d+\.\d+\.\d+)(?:dev)?",\s*"triton_container_version":\s*"(\d\d\.\d\d)(?:dev)?"'
)


def triton_options(text: str) -> dict[str, dict]:
    """{"--name": {"env": "", "no_value": ArgNone, "value": not ArgNone}} of the ``{OPTION_X, "name", Option::ArgY | "<format>", ...}`` entries of
    tritonserver's option tables (src/command_line_parser.cc from v2.37; src/main.cc and src/servers/main.cc before);
    raises ValueError where the file has none."""
    found: dict[str, dict] = {}
    for name, kind in _TRITON_OPTION.findall(text):
        # getopt_long required_argument for every kind but ArgNone (v2.71.0 src/command_line_parser.cc:307): a value
        # must follow, or getopt returns '?' and the parse throws (:1335-1338); a name declared twice both ways is neither
        known = found.get(f"--{name}")
        same = known is None or known["no_value"] == (kind == "None")
        found[f"--{name}"] = {"env": "", "no_value": kind == "None" and same, "value": kind != "None" and same}
    if not found:
        raise ValueError('no {OPTION_X, "name", Option::ArgY} entries')
    return found


def triton_container(mirror: str, tag: str) -> str:
    """The NGC container release (YY.MM, what nvcr.io/nvidia/tritonserver tags name) of a server release tag, from
    build.py's TRITON_VERSION_MAP (DEFAULT_TRITON_VERSION_MAP from 2.47): its first entry is the tag's own release (a
    "dev" suffix left on it at some tags, v2.54.0's "2.54.0dev" / "25.01dev", read without it)."""
    match = _CONTAINER.search(_git(mirror, "show", f"refs/tags/{tag}:build.py"))
    if match is None or (match.group(1) or match.group(3)) != tag.lstrip("v"):
        raise ValueError(f"{tag}: no triton container version of {tag} in build.py")
    return match.group(2) or match.group(4)


def triton_sources(mirror: str, tag: str) -> tuple[str, str]:
    """(the files holding tritonserver's option table at ``tag``, their text)."""
    names = _git(mirror, "ls-tree", "-r", "--name-only", f"refs/tags/{tag}", "src").split()
    files = [n for n in names if n.endswith(("command_line_parser.cc", "src/main.cc", "src/servers/main.cc"))]
    texts = [_git(mirror, "show", f"refs/tags/{tag}:{n}") for n in files]
    return " ".join(files), "\n".join(t for t in texts if "OPTION_HELP" in t)


# --- the table ------------------------------------------------------------------------------------------------------

SYNTAX = {
    # clap: --name value and --name=value, no '_' -> '-', no JSON keys; a value never starts with '-' (no
    # allow_hyphen_values), so an option after a value option leaves it without one
    "clap": {"equals": True, "underscores": False, "dotted": False, "hyphen_values": False},
    # llama.cpp: the whole argument looked up ('_' -> '-' first): no --name=value form; a value option takes the next
    # argument whatever it is (b8914 common/arg.cpp:507)
    "llama-cpp": {"equals": False, "underscores": True, "dotted": False, "hyphen_values": True},
    # glibc getopt_long: --name value and --name=value, a unique prefix of a long option, no '_' -> '-'; a
    # required_argument takes the next argument whatever it is
    "getopt": {"equals": True, "underscores": False, "dotted": False, "hyphen_values": True},
}

PROVENANCE = (
    "tools/read_source_options.py over the engine's source at each release tag of a git mirror (tags: release -> "
    "'TAG COMMIT'; file: the parser's file at each): options and their environment variables from the parser's "
    "declarations, as its module docstring says; syntax is how the parser reads an argument, abbrev the releases "
    "that read a prefix as the option"
)


def read(engine: str, mirror: str) -> dict:
    """The table of ``engine`` read from ``mirror`` (a git directory)."""
    source = ENGINES[engine]
    options: dict[str, set[str]] = {}
    flags: dict[str, set[str]] = {}
    values: dict[str, set[str]] = {}
    env: dict[str, set[str]] = {}
    abbrev: dict[str, set[str]] = {}
    tags: dict[str, str] = {}
    files: dict[str, str] = {}
    for tag in release_tags(mirror, source):
        if source.parser == "getopt":
            files[tag], text = triton_sources(mirror, tag)
            release, found = triton_container(mirror, tag), triton_options(text)
        else:
            text = _git(mirror, "show", f"refs/tags/{tag}:{source.path}")
            release = release_name(tag)
            found = clap_options(text) if source.parser == "clap" else llama_options(text)
        options[release] = {o for o in found if not o.startswith("env:")}
        flags[release] = {o for o, facts in found.items() if facts["no_value"]}
        values[release] = {o for o, facts in found.items() if facts["value"] and not o.startswith("env:")}
        env[release] = {facts["env"] for facts in found.values() if facts["env"]} | {
            o[len("env:") :] for o in found if o.startswith("env:")
        }
        keeps = source.parser == "getopt" or (source.parser == "clap" and clap_abbreviates(text))
        abbrev[release] = {""} if keeps else set()
        tags[release] = f"{tag} {_git(mirror, 'rev-parse', f'refs/tags/{tag}^{{commit}}').strip()}"
    releases = sorted(options, key=version_key)
    return {
        "releases": releases,
        "options": _spans(releases, options),
        "modules": {},
        "flags": _spans(releases, flags),
        "values": _spans(releases, values),
        "env": _spans(releases, env),
        "abbrev": _spans(releases, abbrev).get("", ""),
        "syntax": SYNTAX[source.parser],
        "provenance": {
            "read": PROVENANCE,
            "repository": source.repository,
            "file": source.path,
            "tags": tags,
            **({"files": files} if files else {}),
        },
    }


# engine -> (its own variable prefix, the source folders whose history names them): llama.cpp's LLAMA_ARG_ variables,
# read by common/arg.cpp (set_env, and LLAMA_ARG_NO_ for a negated option) and the server's model router.
ENV_PREFIXES = {"llama-cpp": ("LLAMA_ARG_", ("common", "tools/server", "examples/server"))}


def env_history(mirror: str, engine: str, newest: str) -> set[str]:
    """Every ``PREFIX...`` name the source folders of ``engine`` held at any commit up to ``newest`` (``git log -p``):
    a superset of what the releases read, so that G74 reports no name some build between two read tags reads."""
    prefix, folders = ENV_PREFIXES[engine]
    sources = [f"{folder}/*.{ext}" for folder in folders for ext in ("cpp", "h", "hpp")]  # not the web UI's bundles
    patch = _git(mirror, "log", "-p", "--format=", f"refs/tags/{newest}", "--", *sources)
    return {n for n in re.findall(re.escape(prefix) + r"[A-Z0-9_]+", patch) if not n.endswith("_")}


def env_names(table: dict, prefix: str) -> list[str]:
    """The variables under ``prefix`` some release of the table reads (components/engine_env_names.json settings)."""
    return sorted(name for name in table["env"] if name.startswith(prefix))


def _indices(span: str) -> list[int]:
    """The release indices of a table span ("0-5,7-16")."""
    out: list[int] = []
    for part in span.split(","):
        first, _, last = part.partition("-")
        out += list(range(int(first), int(last or first) + 1))
    return out


def env_spans(mirror: str, engine: str, table: dict, history: set[str]) -> dict[str, tuple[str, str]]:
    """{name: (first, last)}: the releases read that name each variable, in the parser's set_env (the table's env) or
    anywhere in the source folders at the tag (``git grep``); a name of the history between two read tags that no tag
    read names spans every release read (it may be read by a build between any two)."""
    prefix, folders = ENV_PREFIXES[engine]
    releases = table["releases"]
    present: dict[str, set[str]] = {r: set() for r in releases}
    for name in env_names(table, prefix):
        for i in _indices(table["env"][name]):
            present[releases[i]].add(name)
    sources = [f"{folder}/*.{ext}" for folder in folders for ext in ("cpp", "h", "hpp")]
    for release in releases:
        tag = table["provenance"]["tags"][release].split()[0]
        try:
            text = _git(mirror, "grep", "-ho", "-E", re.escape(prefix) + "[A-Z0-9_]+", f"refs/tags/{tag}", "--", *sources)
        except subprocess.CalledProcessError:  # no match at the tag
            text = ""
        present[release] |= {n for n in text.split() if not n.endswith("_") and n in history}
    named = read_engine_env.spans(present, releases)
    for name in history - set(named):
        named[name] = (releases[0], releases[-1])
    return named


def env_settings_text(engine: str, named: dict[str, tuple[str, str]], table: dict) -> dict:
    """The ``settings.ENGINE`` row of components/engine_env_names.json for ``named`` ({name: (first, last)})."""
    prefix = ENV_PREFIXES[engine][0]
    releases = table["releases"]
    newest = table["provenance"]["tags"][releases[-1]]
    source = (
        f"tools/read_source_options.py {engine} --env: the set_env names of {table['provenance']['file']} at the "
        f"{len(releases)} tags of {engine.replace('-', '_')}_cli_flags.json ({releases[0]} to {releases[-1]}; LLAMA_ARG_NO_ "
        f"of a negated option, common/arg.cpp get_value_from_env), with every {prefix} name of {', '.join(ENV_PREFIXES[engine][1])} "
        f"in the history up to {newest} of the mirror ({table['provenance']['repository']} tags); first and last tag read "
        "naming each (set_env or the folders at the tag), a history name no tag read names spanning every tag; the server "
        "images' tags (server-cuda-b6080) name the build"
    )
    images = ["ggml-org/llama.cpp", "ggerganov/llama.cpp"]
    tag = "server(?:-[a-z0-9]+)*-(b\\d+)"
    return read_engine_env.settings_text(engine, prefix, releases, named, images, tag, source)


if __name__ == "__main__":
    engine, mirror = sys.argv[1], sys.argv[2]
    write, check = "--write" in sys.argv, "--check" in sys.argv
    out = COMPONENTS / f"{engine.replace('-', '_')}_cli_flags.json"
    data = read(engine, mirror)
    if "--env" in sys.argv:
        # components/engine_env_names.json settings.ENGINE: the table's names under the prefix and the history's
        newest_tag = data["provenance"]["tags"][data["releases"][-1]].split()[0]
        history = set(env_names(data, ENV_PREFIXES[engine][0])) | env_history(mirror, engine, newest_tag)
        named = env_spans(mirror, engine, data, history)
        read_engine_env.check_or_write(engine, env_settings_text(engine, named, data), len(named))
        sys.exit(0)
    text = json.dumps(data, indent=0, sort_keys=True) + "\n"
    if check:
        same = out.exists() and text == out.read_text()
        print(f"{out.name}: {'byte-identical to' if same else 'differs from'} what {len(data['releases'])} tags give")
        sys.exit(0 if same else 1)
    if write:
        out.write_text(text)
        print(f"wrote {out}: {len(data['releases'])} releases, {len(data['options'])} options, {len(data['env'])} env")
    else:
        sys.stdout.write(text)
