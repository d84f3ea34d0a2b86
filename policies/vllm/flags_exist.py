"""S38: every option passed to an engine's own argument parser exists in the engine release the image runs.

Engine-generic: an engine row of components/serving_engines.toml with an ``options`` table (its ``file``, the images
whose tag names the release, ``release_tag`` and ``args_tags``) is checked here, and the table's ``syntax`` says how
its parser reads an argument (components.engine_options.CliOptions): argparse for vLLM and SGLang (below); clap for
TGI's text-generation-launcher and TEI's text-embeddings-router (``--k v`` and ``--k=v``, no prefix, no ``_`` for
``-``: launcher/src/main.rs and router/src/main.rs, ``Args::parse``, exit 2 "unexpected argument"); llama.cpp's own
parser for llama-server (b8914 common/arg.cpp:427-487 common_params_parse_ex: ``_`` read as ``-`` in a ``--``
argument, then the whole argument looked up: no prefix and no ``--k=v`` form, "error: invalid argument"); glibc's
getopt_long for Triton's tritonserver (``--k v``, ``--k=v``, a unique prefix; an unknown option exits 1 after the usage,
v2.71.0 src/main.cc:475-480). Those four tables are read from each release tag's source by
tools/read_source_options.py; args alone reach the parser on the
publisher's images whose ENTRYPOINT hands them on (``args_tags``: TGI's tgi-entrypoint.sh, TEI's entrypoint.sh,
llama.cpp's server images). A table loads only when a container of its engine is seen (``cli_options``, cached).

vLLM's server parser is argparse (``FlexibleArgumentParser`` from 0.5.1, 0.33.0 ``vllm/utils/argparse_utils.py``; a
plain ``argparse.ArgumentParser`` before, 0.4.3 ``vllm/entrypoints/openai/cli_args.py:25``, parsed with a strict
``parse_args``, ``api_server.py:63-65``): an option it does not know ends ``parse_args`` with "unrecognized arguments"
and exit status 2, before any weight is loaded, so the pod restarts for ever. It turns ``_`` into ``-`` in an option's
name, reads ``--x.key value`` as a key of the JSON option ``--x``, and keeps argparse's ``allow_abbrev`` at every
release read (no ``allow_abbrev`` in any vLLM wheel from 0.4.0 to 0.34.0): an exact name wins, a unique prefix is the
option it abbreviates, and a prefix of two or more ends with "ambiguous option" (CPython Lib/argparse.py
``_parse_optional``). Which options each release has is components/vllm_cli_flags.json (written from the wheels of
every vLLM release from 0.4.0 to 0.34.0 by tools/read_engine_options.py; components.engine_options.cli_options, which
``CliOptions.accepts`` reads as argparse does).

What is checked, and how sure it is:

- the options of a vLLM command line (``vllm serve``, ``python -m vllm.entrypoints...``, the vllm/vllm-openai image's
  entrypoint), up to a shell operator or a bare ``--``; an option written with a variable (``--$(NAME)``) is not read;
- mandatory where the image is the official ``vllm/vllm-openai`` at a release tag the table was read at (or between
  two read releases that both lack the option): the manifest names the release, and that release's parser refuses it;
- advisory where, at that release, the option is only a prefix of two or more options (the table is generous, so the
  ambiguity is suggested, not proven), or only a field of vLLM's configuration classes that the parser does not
  declare (0.34.0's ``--device``: ``DeviceConfig.device`` stays, the option went);
- advisory where the image is the official one with no tag or a tag its publisher moves (``latest``, the engine
  table's ``moving_tags``): it is judged at the newest release read, which is what the tag runs today;
- advisory where no release read has the option but the image names none of them (a rebuild such as Red Hat's, a
  release outside the table, or the script pip-installs the engine before serving): the parser inside is not known,
  though no vLLM read accepts the option;
- an option that takes no value written with one (``--enforce-eager=true``: argparse exits with "ignored explicit
  argument"), as the same table records per release (``flags``): mandatory at a read release tag, advice where the
  image names no release and every release read that has the option has it take no value;
- for every parser (the tables' ``values`` and ``flags``, read per release by the tools): an option that takes a value
  with none after it, the last argument or, for argparse and clap (which take an argument starting with '-' for the
  next option), followed by another option (``--tool-call-parser --enable-auto-tool-choice``); llama.cpp and
  getopt_long take the next argument whatever it is, so only the last counts there; a flag given a value (clap:
  "unexpected value", getopt_long: "doesn't allow an argument"); ``--=x``, an option with no name. Mandatory at a read
  release where every release bounding it reads the option so, advice where the image names none. A negative number
  (``--seed -1``), ``--k=v``, ``--`` and a value holding a variable stay silent;
- a KServe InferenceService's predictor args (``model``, or ``triton``, which KServe's webhook turns into a model of
  format triton: kserve v0.20.0 pkg/apis/serving/v1beta1/inference_service_defaults.go:323-335) are read appended to
  its ServingRuntime's among the objects checked, at the predictor's ``runtimeVersion`` where set; only the predictor's
  own args are judged there; a runtime's value option last in its container is advice (KServe appends the args after it);
- silent where some release has it and the image's release is unknown; KServe's Hugging Face server (its vLLM
  backend takes vLLM's options with ``parse_known_args``, which ignores unknown ones: kserve v0.20.0
  python/huggingfaceserver/huggingfaceserver/__main__.py:213) is judged only on what argparse refuses even there, a
  value option with no value and a flag given one (policies/vllm/kserve_hf_lines.py).

An LLMInferenceService's args go to ``vllm serve`` through the preset's ``eval "exec vllm serve /mnt/models ... $@"``
(kserve v0.20.0 config/llmisvcconfig/config-llm-template.yaml:166-179): only the user's args are checked there (the
preset adds ``--shutdown-timeout`` only where its image has it, :152-156).
"""

from __future__ import annotations

import difflib
import re
from typing import Optional

from components.engine_options import CliOptions, cli_options, moving_release, tagged_release, version_key
from policies.framework import Policy, Resource, Unproven, unproven
from policies.reading.installs import installs_engine
from policies.reading.serving import EngineConfig, engine_row
from policies.reading.vllm_args import (
    command_tokens,
    is_shell_operator,
    vllm_servers,
)
from policies.vllm.engine_lines import EngineLine, engine_lines, preset_args
from policies.vllm.hint_literals import PARSER_DROPPED, hint_only
from policies.vllm.kserve_hf_lines import hf_findings
from policies.vllm.option_choices import reasoning_parser_refused
from policies.vllm.option_values import (
    Judged,
    empty_name,
    explicit_values,
    missing_values,
    one_argument,
    value_missing,
    value_refused,
    word_after_flag,
)
from policies.vllm.serve_command import serve_missing
from policies.vllm.serve_model_tag_release import model_tag_finding, serve_written, tag_regime
from policies.vllm.stray_positional import stray_after_command, stray_positional


def options_written(tokens: list[str]) -> list[str]:
    """The long options among ``tokens``, in order, up to a shell operator or ``--``; options holding a variable are
    left out (their name is decided at run time)."""
    found = []
    for token in tokens:
        if token == "--" or is_shell_operator(token):
            break
        name = token.split("=", 1)[0]
        if token.startswith("--") and len(token) > 2 and "$" not in name and name != "--":
            found.append(name)  # ``--=x`` names no option: _empty_name says so
    return found


def joined_values(tokens: list[str]) -> list[str]:
    """The ``--option=value`` tokens among ``tokens``, in order, up to a shell operator or ``--``; those whose option
    holds a variable are left out."""
    found = []
    for token in tokens:
        if token == "--" or is_shell_operator(token):
            break
        name, eq, _ = token.partition("=")
        if eq and name.startswith("--") and len(name) > 2 and "$" not in name and " " not in name:
            found.append(token)
    return found


def engine_release(engine: EngineConfig) -> Optional[str]:
    """The release vllm/vllm-openai's tag names for a vLLM engine, for the rules whose outcome changed between
    releases; None for another image, a tag naming none, or a container that installs vLLM itself (its release is
    then not the tag's)."""
    row = engine_row("vllm")
    if engine.server is None or row is None or row.options is None or engine.retagged:
        return None
    if installs_engine(command_tokens(engine.server.container)[0], row.name):
        return None
    return tagged_release(engine.image, row.options.images)


def _release(server: EngineLine) -> tuple[CliOptions, Optional[str], tuple[str, ...]]:
    """The engine's option table, the release the image's tag names (None when it names none, or the container
    installs the engine itself) and the releases read that bound it (CliOptions.neighbours)."""
    assert server.row.options is not None
    table = cli_options(server.row.options.file)
    release = (
        None if server.installed else tagged_release(server.image, server.row.options.images, server.row.options.release_tag)
    )
    return table, release, table.neighbours(release) if release else ()


def _moving(server: EngineLine) -> bool:
    """True when the image is the engine's own with no tag or a tag its publisher moves (``vllm/vllm-openai:latest``)
    and the container does not install the engine itself: it runs the newest release, which the table read last."""
    assert server.row.options is not None
    if server.installed:
        return False
    table, release, _ = _release(server)
    return moving_release(server.image, server.row.options.images, server.row.moving_tags) or (
        release is not None and table.open_series(release)
    )


def _finding(option: str, server: EngineLine) -> Optional[str]:
    """What the parser of the image's release does with ``option`` (CliOptions.accepts, at the release the tag names
    or the read ones around it): mandatory when it is unknown there; advice when it is only an ambiguous prefix there
    (the table is generous), when the tag moves (judged at the newest release read), or when no release read has it
    and the image names none."""
    table, release, bounds = _release(server)
    name, image = server.row.display, server.image
    moving = not bounds and _moving(server)
    if moving:
        release, bounds = table.releases[-1], (table.releases[-1],)
    if bounds:
        return _at_release(option, server, table, release or "", bounds, moving)
    if table.releases_having(option):
        return None
    first, last = table.releases[0], table.releases[-1]
    named = f"{name} {release}, outside the releases read" if release else f"no {name} release the table was read at"
    if server.installed:
        named += f" (and the container installs {name} itself before serving)"
    return unproven(
        f"{option} is an option of no {name} release from {first} to {last}, and image {image} names {named}; "
        f"if its {name} lacks it too, {name}'s argument parser exits on an unrecognized argument, so the server never "
        "starts"
    )


def _at_release(
    option: str, server: EngineLine, table: CliOptions, release: str, bounds: tuple[str, ...], moving: bool
) -> Optional[str]:
    """``_finding`` where the release is known (``bounds``: itself, or the read releases around it), or taken as the
    newest read (``moving``: the tag moves, so advice)."""
    name, image = server.row.display, server.image
    hinted = hint_only(option, bounds) if server.row.name == "vllm" else None
    read = {bound: "unknown" if hinted else table.accepts(option, bound) for bound in bounds}
    if {"exact", "prefix"} & set(read.values()):
        return None
    own = table.releases_declaring(option)  # the releases whose parser has the option itself
    if moving:
        which = f"{name} {release}, the newest release read, which image {image} runs today (the tag moves)"
    elif bounds == (release,):
        which = f"{name} {release}, the release of image {image}"
    else:
        which = f"{name} {release} (nor {bounds[0]} and {bounds[1]} around it), the release of image {image}"
    if hinted:
        at = f"{name} {release}, the newest release read, which image {image} runs today" if moving else which
        found = f"{option} is not an option of {at}: {hinted[0]}; argparse exits with 'unrecognized arguments'"
        found += f" and the server never starts; {hinted[1]}"
        return unproven(found) if moving else found
    dropped = PARSER_DROPPED.get("--" + option.lstrip("-").replace("_", "-")) if server.row.name == "vllm" else None
    if dropped and not moving and all(version_key(b) >= version_key(dropped[0]) for b in bounds):
        where = f"{name} declares it in {table.span(own)}" if own else f"no {name} release read declares it"
        return (
            f"{option} is not an option of {which} ({where}); {dropped[1]}, so argparse exits on it and the server never starts"
        )
    if "ambiguous" in read.values():
        # An option a release dropped whose name is now a prefix of two or more (vLLM 0.34.0's --device-ids and
        # --device-memory-utilization, SGLang 0.5.20's --cuda-graph-max-bs-decode and -prefill). The table is
        # generous, so advice.
        removed = bool(own) and table.releases.index(own[0]) < table.releases.index(bounds[0])
        if not table.field_only and not removed:
            return None  # a table not read for the names only a field gives (SGLang's): the longer names may be none
        bound = next(b for b in bounds if read[b] == "ambiguous")
        matches = " and ".join(table.declared_prefixes(option, bound))
        where = f"{name} has it in {table.span(own)}" if own else f"no {name} release read has it"
        return unproven(
            f"{option} is not an option of {which} ({where}), only a prefix of {matches}; where its parser has both, "
            "argparse exits with 'ambiguous option' and the server never starts"
        )
    if "field" in read.values():
        where = f"{name} declares it in {table.span(own)}" if own else f"no {name} release read declares it"
        return unproven(
            f"{option} is not declared by the parser of {which} ({where}; the name is only a field of its "
            "configuration classes, and the parser adds its options by name); if the parser lacks it, it exits on an "
            "unrecognized argument and the server never starts"
        )
    having = table.releases_having(option)
    first, last = table.releases[0], table.releases[-1]
    where = f"{name} has it in {table.span(having)}" if having else f"no {name} release from {first} to {last} has it"
    longer = any(table.abbreviated(option, bound) for bound in bounds)
    abbrev = ", and its parser takes no abbreviation of a longer option (allow_abbrev=False)" if longer else ""
    if not table.dotted:  # a table read from the engine's source (clap, llama.cpp): no prefix at all; name the closest
        abbrev = ", and its parser reads no prefix of a longer option" if longer else ""
        where += _closest(option, table, bounds[-1])
    message = (
        f"{option} is not an option of {which} ({where}){abbrev}; {name}'s argument parser exits on an unrecognized "
        "argument, so the server never starts"
    )
    return unproven(message) if moving else message


def _closest(option: str, table: CliOptions, release: str) -> str:
    """ "; did you mean --max-input-length?" where ``release`` has an option spelled close to ``option`` (a typo, or
    clap's kebab case for an underscore), else ""."""
    index = table.releases.index(release)
    name = table.name_of(option)
    known = [o for o in table.options if o.startswith("--") and index in table.options[o]]
    close = difflib.get_close_matches(name.replace("_", "-"), known, n=1, cutoff=0.8)
    return f"; did you mean {close[0]}?" if close else ""


def _equals_refused(token: str, server: EngineLine) -> Optional[str]:
    """``--name=value`` to a parser that looks the whole argument up (llama.cpp's, the table's ``syntax`` equals
    false: b8914 common/arg.cpp:480-487): the argument is no option, "error: invalid argument". Mandatory where the
    image names a release read (or bracketed by two) and the name itself is an option there; advice where it names none
    (every release read refuses the form) or the tag moves."""
    table, release, bounds = _release(server)
    option, _, value = token.partition("=")
    name, image = server.row.display, server.image
    if not table.releases_having(option):
        return None  # no release has the name at all: the unknown-option finding says so
    credential = re.search(r"token|key|secret|password", option, re.IGNORECASE)
    shown = value if re.fullmatch(r"[\w.:/-]{0,40}", value) and not credential else "<value>"
    written = f"{option}={shown}"
    why = (
        f"{name}'s parser turns _ into - and looks the whole argument up among its options (no --option=value form), "
        f"so {written} is no option and it exits with 'error: invalid argument: {written}' before serving"
    )
    fix = f"write {option} and {shown} as two arguments"
    moving = not bounds and _moving(server)
    if bounds and not moving:
        return f"{written}: in {name} {release} (image {image}) {why}; {fix}"
    first, last = table.releases[0], table.releases[-1]
    where = "runs the newest today (the tag moves)" if moving else "names none of them"
    return unproven(f"{written}: in every {name} release read ({first} to {last}) {why}, and image {image} {where}; {fix}")


def _spaced_refused(token: str, server: EngineLine) -> Optional[str]:
    """An option and its value in one argument to a parser that reads no positional argument in its place (clap's, TGI
    and TEI: "unexpected argument"; llama.cpp's: "invalid argument"): no release has an option of that name, so the
    server exits. Mandatory where the image names a release read whose parser has the option (the table's syntax
    holds at every release read); advice elsewhere."""
    table, release, bounds = _release(server)
    option, _, value = token.partition(" ")
    if not table.releases_having(option):
        return None
    shown = "<value>" if re.search(r"token|key|secret|password", option, re.IGNORECASE) else value.strip()
    name, image = server.row.display, server.image
    why = (
        f"'{option} {shown}' is one argument (the option and its value in one list item), and {name}'s parser takes it "
        f"whole for the name of an option it does not have, so it exits before serving; write {option} and its value as "
        f"two items{f', or {option}={shown}' if table.equals else ''}"
    )
    moving = not bounds and _moving(server)
    if bounds and not moving:
        return f"{why} ({name} {release}, the release of image {image})"
    return unproven(f"{why} (every {name} release read parses so; image {image} names none of them for sure)")


_DEMO = "vllm.entrypoints.api_server"


def _module_finding(server: EngineLine) -> Optional[str]:
    """A module the image's release does not ship (mandatory where the release is known), or vLLM's demo server."""
    assert server.module is not None
    table, release, bounds = _release(server)
    module, name, image = server.module, server.row.display, server.image
    shipping = table.releases_shipping(module)
    # A module the command installs before running it is not the image's to ship (Dynamo scripts: `pip
    # install ai-dynamo==0.8.0 && python3 -m dynamo.sglang` on lmsysorg/sglang).
    if bounds and not set(bounds) & set(shipping) and not server.provided:
        where = f"{name} ships it in {table.span(shipping)}" if shipping else f"no {name} release read ships it"
        return (
            f"python -m {module}: {name} {release} (image {image}) has no such module ({where}), so Python exits with "
            f"'No module named {module}' and the server never starts"
        )
    if module == _DEMO:
        later = [r for r in table.releases if shipping and table.releases.index(r) > table.releases.index(shipping[-1])]
        gone = f", and vLLM {later[0]} and later no longer ship it" if later else ""
        return unproven(
            f"python -m {module} is vLLM's demo server (vllm/entrypoints/api_server.py, vLLM {table.span(shipping)}: "
            "'used only for demonstrating usage of AsyncEngine and simple performance benchmarks. It is not intended for "
            f"production use'): it answers /health and /generate only, with no OpenAI API and no /metrics{gone}; serve "
            "with `vllm serve` (vLLM's OpenAI-compatible server)"
        )
    return None


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    allowed = {f"--{str(o).lstrip('-')}" for o in config.get("allowedOptions", [])}
    findings: list[tuple[str, str]] = []
    for r in resources:
        tags = [(s.label, model_tag_finding(s)) for s in vllm_servers(r) if not s.runtime_merged and not preset_args(r, s)]
        tags += [(s.label, stray_positional(s, tag_regime(s), serve_written(s.container))) for s in vllm_servers(r)]
        tags += [(s.label, stray_after_command(s, preset_args(r, s))) for s in vllm_servers(r) if not s.runtime_merged]
        tags += [(s.label, serve_missing(s, installs_engine(command_tokens(s.container)[0], "vllm"))) for s in vllm_servers(r)]
        findings.extend(
            (r.name, unproven(f"{label}: {m}") if isinstance(m, Unproven) else f"{label}: {m}") for label, m in tags if m
        )
        findings.extend((r.name, m) for m in hf_findings(r))
        for server in engine_lines(r):
            messages = [_module_finding(server)] if server.module else []
            table = cli_options(server.row.options.file) if server.row.options is not None else None
            own = server.tokens[server.own_from :]  # a KServe predictor's args (its runtime's are the runtime's)
            if table is not None and not table.equals:
                messages += [_equals_refused(token, server) for token in dict.fromkeys(joined_values(own))]
            for option in dict.fromkeys(options_written(own)):
                if " " in option:
                    spaced = table is not None and not table.dotted
                    messages.append(_spaced_refused(option, server) if spaced else one_argument(option, server.row.display))
                    continue  # not an option name at all: the release table does not apply
                found = None if option.replace("_", "-") in allowed else _finding(option, server)
                if found is not None:
                    fix = "remove it or use the spelling of the image's release"
                    messages.append(unproven(f"{found}; {fix}") if isinstance(found, Unproven) else f"{found}; {fix}")
            if table is not None:
                judged = Judged(*_release(server), server.row.name, server.row.display, server.image, _moving(server))
                messages += [value_refused(o, v, judged) for o, v in explicit_values(own) if o.replace("_", "-") not in allowed]
                messages += word_after_flag(own, judged, serve=server.serve)
                # from the runtime's last argument: an option of it left without a value by the predictor's first
                pairs = missing_values(server.tokens[max(server.own_from - 1, 0) :]) if server.strings else []
                tail = server.appended_after if server.tokens[-1:] == [server.appended_after] else None
                pairs = [(o, after) for o, after in pairs if o.replace("_", "-") not in allowed]
                messages += [value_missing(o, after, judged, appended=after is None and o == tail) for o, after in pairs]
                messages.append(empty_name(own, judged))
            if server.row.name == "vllm":
                messages.append(reasoning_parser_refused(server.tokens, _release(server)[1], server.image))
            for message in messages:
                if message is not None:
                    text = f"{server.label}: {message}"
                    findings.append((r.name, unproven(text) if isinstance(message, Unproven) else text))
    return findings


POLICY = Policy(
    name="engine-options-exist",
    description="Every option passed to an engine's argument parser (vLLM, SGLang, TGI, TEI, llama.cpp's server, "
    "Triton's tritonserver) exists "
    "in the engine release the image runs (argparse and clap exit on an unknown option, llama.cpp on an unknown "
    "argument, `--ctx-size=4096` included: its parser has no --option=value form), a flag that takes no value is not given one "
    "(--enforce-eager=true, TGI's --trust-remote-code=true), an option that takes a value has one after it (not the last "
    "argument, nor, for argparse and clap, followed by another option: --tool-call-parser --enable-auto-tool-choice), "
    "a KServe predictor's args are read after its ServingRuntime's, a --reasoning-parser name is one the release registers, and the entry module it starts "
    "exists; vLLM's demo server "
    "(python -m vllm.entrypoints.api_server, not for production) is advised against; `vllm serve`'s positional "
    "model tag must be a model, not a module or command word, and is not given with --model (0.11.1+ exits with "
    "'unrecognized arguments', earlier releases refuse a bare --model), and before 0.11.1 `vllm serve` gets the model "
    "as its positional tag, not --model.",
    catalog="S38",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Remove the option, or spell it as the image's release does (`vllm serve --help=all`, `sglang serve --help` in "
        "that image list them), or move to a release that has it. An option meant for another program (the llm-d scheduler, a "
        "wrapper script) belongs on that program's command line. Where the image's vLLM is a rebuild that accepts it, "
        'list it in the policy config allowedOptions or annotate llm-serving.io/exempt-engine-options-exist: "<reason>".'
    ),
    config_schema={
        "allowedOptions": {
            "type": "array",
            "items": {"type": "string"},
            "default": [],
            "description": "Options this pack config accepts whatever the release (default none).",
        },
    },
    check_stack=_check,
    per_object=True,
    rationale=(
        "vLLM's FlexibleArgumentParser (0.33.0 vllm/utils/argparse_utils.py) is argparse: an unknown option ends "
        "parse_args with 'unrecognized arguments' (exit 2). components/vllm_cli_flags.json lists every long option of "
        "every vLLM release from 0.4.0 to 0.34.0 (patch and post releases included; 0.21.0's only wheel carries the "
        "manylinux_2_24 platform tag, 0.20.1's and 0.20.2's manylinux_2_35), read from the wheels (tools/"
        "read_engine_options.py), with the releases whose parser keeps allow_abbrev (all of them) and the names only a "
        "configuration class field gives; components/sglang_cli_flags.json SGLang's (the engine table's options); "
        "components/tgi_cli_flags.json, tei_cli_flags.json and llama_cpp_cli_flags.json TGI's (v1.0.0 to v3.3.7), TEI's "
        "(v0.2.0 to v1.9.3), llama-server's (17 build tags b3753 to b8914) and triton_cli_flags.json tritonserver's "
        "(NGC 22.01 to 26.07, server v2.18.0 to v2.71.0) from their source at each tag "
        "(tools/read_source_options.py), with how each parser reads an argument. "
        "An image with a moving tag (latest, or a series tag such as 3.3 while its series is the newest) is judged, "
        "as advice, at the newest release read."
    ),
)
