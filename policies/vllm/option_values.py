"""S38's reading of values on an engine's command line (part of policies/vllm/flags_exist.py, apart for size): an
option that takes a value with none after it, a flag given one, an option with no name, an option and its value in one
argument to argparse. Each parser as the option
tables record it per release (``values``, ``flags``: tools/read_engine_options.py, tools/read_source_options.py) and
as it reads the next argument (``syntax.hyphen_values``)."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from typing import Optional

from components.engine_options import CliOptions, version_key
from policies.framework import unproven
from policies.reading.container_env import env_values
from policies.reading.vllm_args import is_shell_operator


@dataclass(frozen=True)
class Judged:
    """What the value rules need of one engine command line: the engine's option table, the release the image's tag
    names (None where none) and the read releases that bound it (empty where none), the engine's row name and display
    name, the image as shown, and whether its tag moves (``latest``: it runs the newest release read, judged as advice).
    """

    table: CliOptions
    release: Optional[str]
    bounds: tuple[str, ...]
    engine: str
    name: str
    image: str
    moving: bool = False


def empty_name(tokens: list[str], server: Judged) -> Optional[str]:
    """``--=value`` (or ``--=``): an option with no name, which no parser read has (argparse finds it ambiguous or
    unknown, clap and getopt_long unknown, llama.cpp's lookup finds no ``--=...``). Mandatory where the image names a
    release read, advice elsewhere."""
    for token in tokens:
        if token == "--" or is_shell_operator(token):
            return None
        if token.startswith("--=") and "$" not in token:
            release, bounds, name = server.release, server.bounds, server.name
            message = (
                f"'--=...' is an option with an empty name, which {name}'s argument parser refuses, so the server "
                "never starts; write the option's name before '='"
            )
            return f"{message} ({name} {release}, image {server.image})" if bounds else unproven(message)
    return None


# A token a parser takes for an option, not a value: '-' or '--' then a letter, no space (argparse reads an argument
# holding a space as a positional one), nothing decided at run time. A negative number (``--seed -1``) is a value to
# argparse (CPython Lib/argparse.py _negative_number_matcher, while the parser has no option that looks like one).
_OPTION_LIKE = re.compile(r"--?[A-Za-z][^\s$]*")


def missing_values(tokens: list[str]) -> list[tuple[str, Optional[str]]]:
    """(option, the argument after it) of each option token (``--ctx-size``, ``-c``), up to a shell operator or ``--``, whose next argument
    is an option (None where it is the last): the options to judge by ``_value_missing``. A ``--option=value`` token,
    one holding a variable or a space, and one followed by ``--`` (a value may follow the separator) are left out."""
    found: list[tuple[str, Optional[str]]] = []
    for i, token in enumerate(tokens):
        if token == "--" or is_shell_operator(token):
            break
        if "=" in token or not _OPTION_LIKE.fullmatch(token):
            continue  # a value, --option=value, or an option decided at run time
        after = tokens[i + 1] if i + 1 < len(tokens) else None
        if after is not None and is_shell_operator(after):
            after = None  # the command ends with the option
        if after is None or _OPTION_LIKE.fullmatch(after):
            found.append((token, after))
    return found


def explicit_values(tokens: list[str]) -> list[tuple[str, str]]:
    """(option, value) of each ``--option=value`` token, in order, up to a shell operator or ``--``; those holding a
    variable are left out (decided at run time)."""
    found = []
    for token in tokens:
        if token == "--" or is_shell_operator(token):
            break
        name, eq, value = token.partition("=")
        if eq and name.startswith("--") and len(name) > 2 and "$" not in token:
            found.append((name, value))
    return found


# Values a finding may echo: boolean-looking words. Anything else is shown as <value> (G47 keeps refused Secret
# values out of messages the same way).
_BOOLEAN_WORDS = frozenset({"true", "false", "1", "0", "yes", "no", "on", "off", "t", "f", "y", "n", ""})


# What each parser says of a flag given a value (the table's ``flags``): argparse "ignored explicit argument" (CPython
# Lib/argparse.py consume_optional), clap 4 "unexpected value ... no more were expected" (TGI's and TEI's bool fields,
# ArgAction::SetTrue: launcher/src/main.rs, router/src/main.rs, exit 2), glibc getopt_long "option '--x' doesn't allow
# an argument" ('?', tritonserver exits 1: v2.71.0 src/command_line_parser.cc:1335-1338).
_REFUSED_VALUE = {
    "vllm": "argparse exits with \"ignored explicit argument '{value}'\"",
    "sglang": "argparse exits with \"ignored explicit argument '{value}'\"",
    "tgi": "clap exits with \"unexpected value '{value}' for '{option}' found; no more were expected\"",
    "tei": "clap exits with \"unexpected value '{value}' for '{option}' found; no more were expected\"",
    "triton": "getopt_long reports \"option '{option}' doesn't allow an argument\" and tritonserver exits",
}


def value_refused(option: str, value: str, server: Judged) -> Optional[str]:
    """``--flag=value`` for a flag that takes no value (the table's ``flags``): the parser exits (``_REFUSED_VALUE``;
    vLLM's FlexibleArgumentParser passes ``--key=value`` through unchanged, 0.33.0 vllm/utils/argparse_utils.py:386-391).
    Mandatory where the image names a release read whose parser has the flag take no value; advice where the image
    names none and every release read that has the flag has it take no value."""
    table, release, bounds = server.table, server.release, server.bounds
    if not table.no_value:
        return None
    name, image = server.name, server.image
    bare = "--" + option.lstrip("-").replace("_", "-")
    shown = value if value.lower() in _BOOLEAN_WORDS else "<value>"  # never print what may be a pasted credential
    fix = f"write {bare} alone (or its --no- form, where the release has one) instead of {option}={shown}"
    parser = _REFUSED_VALUE.get(server.engine, "its argument parser exits").format(value=shown, option=table.name_of(option))
    refused = f"{parser} and the server never starts"
    reading = _no_value_reading(option, server)
    if reading is None:
        return None
    if bounds:
        return f"{option}={shown}: {bare} takes no value in {name} {release} (image {image}), so {refused}; {fix}"
    return unproven(
        f"{option}={shown}: {bare} takes no value in every {name} release read that has it ({table.span(reading)}), "
        f"and image {image} names none of them; if its {name} is one of them, {refused}; {fix}"
    )


def _no_value_reading(option: str, server: Judged) -> Optional[list[str]]:
    """Whether the flag takes no value as far as the tables tell: where the image names a release read, at every read
    release bounding it ([]: mandatory); where it names none, at every release read that has the flag (those releases:
    advice); None otherwise. value_refused and word_after_flag judge by it."""
    table, bounds = server.table, server.bounds
    if bounds:
        return [] if all(table.takes_no_value(option, bound) for bound in bounds) else None
    having = table.releases_with(option)
    return having if having and all(table.takes_no_value(option, r) for r in having) else None


# What each kind of parser does with a value option that has no value after it (the table's ``values``).
_NO_VALUE_LEFT = {
    "argparse": "argparse exits with 'argument {option}: expected one argument' (or 'at least one' for a list; it takes "
    "an argument starting with '-' for the next option, CPython Lib/argparse.py consume_optional)",
    "clap": "clap exits with \"a value is required for '{option}' but none was supplied\"",
    "llama": "its parser throws 'expected value for argument' (b8914 common/arg.cpp:469-472)",
    "getopt": "getopt_long reports \"option '{option}' requires an argument\" and tritonserver exits",
}


def _parser_kind(table: CliOptions) -> str:
    """argparse (vLLM's, SGLang's tables: dotted JSON keys), clap (TGI, TEI: no prefix), getopt (Triton: prefixes, no
    '_' for '-'), or llama (no ``--k=v`` form)."""
    if table.dotted:
        return "argparse"
    if not table.equals:
        return "llama"
    return "getopt" if table.abbreviating else "clap"


def value_missing(option: str, after: Optional[str], server: Judged, appended: bool = False) -> Optional[str]:
    """A value option (the table's ``values`` at the release) with no value after it: the last argument of the command,
    or (argparse, clap: ``hyphen_values`` false) followed by another option (``--tool-call-parser --enforce-eager``).
    Mandatory where the image names a release read (or is bracketed by two) whose parser has the option take a value;
    advice where it names none and every release read having the option has it take one.

    ``appended``: the option ends a KServe ServingRuntime's container, after which KServe appends each
    InferenceService's args (kserve v0.20.0 pkg/controller/v1beta1/inferenceservice/utils/utils.go:253-263
    MergeRuntimeContainers; v0.11.0 utils.go:167-199): the runtime never runs as written, and an InferenceService whose
    args begin with the value starts, so being the last argument there is advice at most."""
    table, release, bounds = server.table, server.release, server.bounds
    if not table.needs_value or (after is not None and table.hyphen_values):
        return None
    name, image = server.name, server.image
    wanted = table.name_of(option)
    what = f"{option} is the last argument" if after is None else f"{option} is followed by the option {after}"
    parser = _NO_VALUE_LEFT[_parser_kind(table)].format(option=wanted)
    fix = f"give {wanted} its value (or remove it)"
    if after is None and appended:
        what = f"{option} is the last argument of this ServingRuntime's container"
        having = table.releases_with(option)
        takes = (
            all(table.takes_value(option, bound) for bound in bounds)
            if bounds
            else bool(having) and all(table.takes_value(option, r) for r in having)
        )
        if not takes:
            return None
        where = f"{name} {release}" if bounds else f"every {name} release read that has it ({table.span(having)})"
        return unproven(
            f"{what}, and {wanted} takes a value in {where} (image {image}); KServe appends each InferenceService's "
            f"args after the runtime's (kserve v0.20.0 utils.go:253-263), so an InferenceService using this runtime "
            f"must begin its args with the value, else {parser} and its server never starts; {fix} here unless every "
            f"InferenceService using it gives the value first"
        )
    if bounds:
        if all(table.takes_value(option, bound) for bound in bounds):
            return f"{what}, but {wanted} takes a value in {name} {release} (image {image}): {parser}, so the server never starts; {fix}"
        return None
    if server.moving:
        newest = table.releases[-1]
        if table.takes_value(option, newest):
            return unproven(
                f"{what}, but {wanted} takes a value in {name} {newest}, the newest release read, which image {image} runs "
                f"today (the tag moves): {parser}, so the server never starts; {fix}"
            )
        return None
    having = table.releases_with(option)
    if having and all(table.takes_value(option, r) for r in having):
        return unproven(
            f"{what}, but {wanted} takes a value in every {name} release read that has it ({table.span(having)}), and "
            f"image {image} names none of them; if its {name} is one of them, {parser}; {fix}"
        )
    return None


def one_argument(token: str, name: str) -> str:
    """An option and its value in one argument ("--quantization bitsandbytes" as one list item): argparse takes an
    argument holding a space for a positional one (Python 3.11 argparse.py _parse_optional: "if it contains a space,
    it was meant to be a positional"), so the option is never applied. What follows depends on the parser (vLLM 0.33.0
    make_arg_parser has an optional ``model_tag`` positional, vllm/entrypoints/common/cli_args.py:438-443, which only
    ``vllm serve`` reads, vllm/entrypoints/cli/serve.py:56-57): an exit, the text taken for the model, or the option
    silently dropped, as kubernetes-sigs/inference-perf's quantization demo ran unquantized. Advice: the manifest shows
    the option is lost, not that the server fails."""
    option, _, value = token.partition(" ")
    if re.search(r"token|key|secret|password", option, re.IGNORECASE):
        value = "<value>"  # a credential flag's value is never printed
        token = f"{option} {value}"
    return unproven(
        f"'{token}' is one argument (the option and its value in one list item): {name}'s argparse reads an argument "
        f"holding a space as a positional one, never as {option}, so the setting is not applied (the parser then "
        f"exits on an unrecognized argument, takes the text for the model, or drops it silently); write it as two "
        f"items, or as {option}={value.strip()}"
    )


def additional_args(container: dict) -> list[str]:
    """The words of an LLMInferenceService container's VLLM_ADDITIONAL_ARGS as the preset's eval splits them (a value
    the files give: literal or a ConfigMap of the run); [] where unset, unknown, or not split whole."""
    value = env_values(container).get("VLLM_ADDITIONAL_ARGS")
    try:
        return shlex.split(value) if isinstance(value, str) and "$" not in value and "`" not in value else []
    except ValueError:
        return []


def all_strings(container: dict) -> bool:
    """True when every item of the container's command and args (where they are lists) is a string."""
    return all(
        all(isinstance(a, str) for a in v) for v in (container.get("command"), container.get("args")) if isinstance(v, list)
    )


# What each parser does with a boolean word written as the next argument after a flag that takes no value: argparse
# keeps it as a positional (vLLM's api_server module and SGLang's launch_server read none; `vllm serve` already has its
# model tag) and exits with "unrecognized arguments: true" (CPython Lib/argparse.py parse_args); clap 4 exits with
# "unexpected argument 'true' found" (TGI's launcher and TEI's router declare no positional). Spent set 93
# cc-automation-projects/voicegraph-autonomous-agent infra/k8s/vllm-deployment.yaml: '--enable-prefix-caching' 'true'
# on vllm/vllm-openai:v0.6.1, whose flag takes no value (components/vllm_cli_flags.json `flags`), labelled S38 blocking.
_STRAY_WORD = {
    "vllm": "argparse keeps it as a positional argument and exits with 'unrecognized arguments: {word}'",
    "sglang": "argparse keeps it as a positional argument and exits with 'unrecognized arguments: {word}'",
    "tgi": "clap exits with \"unexpected argument '{word}' found\"",
    "tei": "clap exits with \"unexpected argument '{word}' found\"",
}
_SHARED_TAG = (0, 10, 0)  # make_arg_parser declares model_tag (0.10.0 vllm/entrypoints/openai/cli_args.py:214)
_STRAY_BOOLEANS = frozenset({"true", "false", "yes", "no", "on", "off"})


def word_after_flag(tokens: list[str], server: Judged, serve: bool = False) -> list[str]:
    """``--flag true`` (two arguments) for a flag that takes no value: the word is a stray argument and the server
    exits before serving. Mandatory where the image names a release read whose parser has the flag take no value;
    advice where it names none and every release read that has the flag has it take no value.

    vLLM: a ``vllm serve`` line (``serve``) has one positional, the model tag: a second one is refused, and a word
    taken as the tag replaces the model (0.9.2 vllm/entrypoints/cli/serve.py:42-43) or is refused beside --model
    (serve_model_tag_release), so the server never starts at every release. ``python -m
    vllm.entrypoints.openai.api_server`` (and args to an image whose entrypoint it is) has no positional up to 0.9.2
    (the tag is declared on serve's sub-parser only: 0.6.6.post1 vllm/scripts.py:158, 0.9.2
    vllm/entrypoints/cli/serve.py:68; api_server.py parse_args, 0.9.2 :1492), so the word is refused there; from
    0.10.0 the shared make_arg_parser declares an optional ``model_tag`` (0.10.0 vllm/entrypoints/openai/cli_args.py:214)
    that api_server never reads, so the word is taken and ignored: advice there (review51a)."""
    parser = _STRAY_WORD.get(server.engine)
    if parser is None or not server.table.no_value:
        return []
    found: list[str] = []
    for option, word in zip(tokens, tokens[1:]):
        if is_shell_operator(option) or option == "--":
            break
        if not option.startswith("--") or "=" in option or word.lower() not in _STRAY_BOOLEANS:
            continue
        table, release, bounds = server.table, server.release, server.bounds
        refused = parser.format(word=word)
        fix = f"write {option} alone (or its --no- form, where the release has one), or drop {word}"
        reading = _no_value_reading(option, server)
        if reading is None:
            continue
        if bounds and server.engine == "vllm" and not serve and any(version_key(b) >= _SHARED_TAG for b in bounds):
            found.append(
                unproven(
                    f"{option} {word}: {option} takes no value in {server.name} {release} (image "
                    f"{server.image}); from 0.10.0 the API server's parser takes {word} as its optional model "
                    f"tag and ignores it (only `vllm serve` reads the tag): the flag alone turns the setting on, "
                    f"whatever {word} says; {fix}"
                )
            )
        elif bounds:
            found.append(
                f"{option} {word}: {option} takes no value in {server.name} {release} (image {server.image}), so "
                f"{refused} and the server never starts; {fix}"
            )
        else:
            found.append(
                unproven(
                    f"{option} {word}: {option} takes no value in every {server.name} release read that has it "
                    f"({table.span(reading)}), and image {server.image} names none of them; if its {server.name} is "
                    f"one of them, {refused} and the server never starts; {fix}"
                )
            )
    return found
