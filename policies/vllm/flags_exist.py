"""S38: every option passed to vLLM's own argument parser exists in the vLLM release the image runs.

vLLM's server parser is argparse (``FlexibleArgumentParser``, 0.33.0 ``vllm/utils/argparse_utils.py``): an option it
does not know ends ``parse_args`` with "unrecognized arguments" and exit status 2, before any weight is loaded, so the
pod restarts for ever. It turns ``_`` into ``-`` in an option's name, reads ``--x.key value`` as a key of the JSON
option ``--x``, and keeps argparse's ``allow_abbrev`` (a unique prefix of an option is that option): all three are read
as the parser reads them. Which options each release has is components/vllm_cli_flags.json (written from the wheels of
0.6.0 to 0.34.0 by tools/read_vllm_cli_flags.py; components.vllm_flags.cli_options).

What is checked, and how sure it is:

- the options of a vLLM command line (``vllm serve``, ``python -m vllm.entrypoints...``, the vllm/vllm-openai image's
  entrypoint), up to a shell operator or a bare ``--``; an option written with a variable (``--$(NAME)``) is not read;
- mandatory where the image is the official ``vllm/vllm-openai`` at a release tag the table was read at (or between
  two read releases that both lack the option): the manifest names the release, and that release's parser refuses it;
- advisory where no release read has the option but the image names none of them (``latest``, a rebuild such as Red
  Hat's, a release outside 0.6.0-0.34.0): the parser inside is not known, though no vLLM read accepts the option;
- silent where some release has it and the image's release is unknown, and for KServe's Hugging Face server (its
  ``--backend vllm`` takes vLLM's options with ``parse_known_args``, which ignores unknown ones: kserve v0.20.0
  python/huggingfaceserver/huggingfaceserver/__main__.py:213).

An LLMInferenceService's args go to ``vllm serve`` through the preset's ``eval "exec vllm serve /mnt/models ... $@"``
(kserve v0.20.0 config/llmisvcconfig/config-llm-template.yaml:166-179): only the user's args are checked there (the
preset adds ``--shutdown-timeout`` only where its image has it, :152-156).
"""

from __future__ import annotations

from typing import Any, Optional

from components.vllm_flags import cli_options, official_release
from policies.framework import Policy, Resource, Unproven, unproven
from policies.kube import split_type
from policies.llmisvc_presets import PRESET_COMMAND
from policies.reading.vllm_args import (
    VllmServer,
    command_tokens,
    expand_env,
    is_shell_operator,
    vllm_command_line,
    vllm_servers,
)


def _preset_args(resource: Resource, server: VllmServer) -> bool:
    """True for an LLMInferenceService container that runs the preset's command with the user's args."""
    command = server.container.get("command")
    return split_type(resource.type)[1] == "LLMInferenceService" and isinstance(command, list) and command[:3] == PRESET_COMMAND


def _tokens(resource: Resource, server: VllmServer) -> list[str]:
    """The tokens the user wrote for vLLM's parser (see the module docstring)."""
    container = server.container
    if _preset_args(resource, server):
        args = container.get("args")
        return expand_env([a for a in args if isinstance(a, str)], container) if isinstance(args, list) else []
    return vllm_command_line(container) or []


def options_written(tokens: list[str]) -> list[str]:
    """The long options among ``tokens``, in order, up to a shell operator or ``--``; options holding a variable are
    left out (their name is decided at run time)."""
    found = []
    for token in tokens:
        if token == "--" or is_shell_operator(token):
            break
        if token.startswith("--") and len(token) > 2 and "$" not in token.split("=", 1)[0]:
            found.append(token.split("=", 1)[0])
    return found


def _span(releases: list[str]) -> str:
    """Releases as runs of consecutive read releases: "0.6.0 to 0.16.0, 0.33.0 to 0.34.0"."""
    order = cli_options().releases
    runs: list[list[str]] = []
    for release in releases:
        if runs and order.index(release) == order.index(runs[-1][-1]) + 1:
            runs[-1].append(release)
        else:
            runs.append([release])
    return ", ".join(run[0] if len(run) == 1 else f"{run[0]} to {run[-1]}" for run in runs)


def _finding(option: str, image: str) -> Optional[str]:
    table = cli_options()
    having = table.releases_having(option)
    release = official_release(image)
    bounds = table.neighbours(release) if release else ()
    first, last = table.releases[0], table.releases[-1]
    refused = "vLLM's argument parser exits on an unrecognized argument, so the server never starts"
    where = f"vLLM has it in {_span(having)}" if having else f"no vLLM release from {first} to {last} has it"
    if bounds and not set(bounds) & set(having):
        read = f"vLLM {release}" if bounds == (release,) else f"vLLM {release} (nor {bounds[0]} and {bounds[1]} around it)"
        return f"{option} is not an option of {read}, the release of image {image} ({where}); {refused}"
    if having:
        return None
    named = f"vLLM {release}, outside the releases read" if release else "no vLLM release the table was read at"
    return unproven(
        f"{option} is an option of no vLLM release from {first} to {last}, and image {image} names {named}; "
        f"if its vLLM lacks it too, {refused}"
    )


_DEMO = "vllm.entrypoints.api_server"


def _module(resource: Resource, server: VllmServer) -> Optional[str]:
    """The ``vllm.entrypoints`` module the container runs with ``python -m``, or None."""
    if _preset_args(resource, server):
        return None  # the preset runs `vllm serve`; a module named in the user's args is only an argument to it
    tokens, _ = command_tokens(server.container)
    return next((t for i, t in enumerate(tokens) if i and tokens[i - 1] == "-m" and t.startswith("vllm.entrypoints")), None)


def _module_finding(module: str, image: str) -> Optional[str]:
    """A module the image's release does not ship (mandatory where the release is known), or vLLM's demo server."""
    table = cli_options()
    shipping = table.releases_shipping(module)
    release = official_release(image)
    bounds = table.neighbours(release) if release else ()
    if bounds and not set(bounds) & set(shipping):
        where = f"vLLM ships it in {_span(shipping)}" if shipping else "no vLLM release read ships it"
        return (
            f"python -m {module}: vLLM {release} (image {image}) has no such module ({where}), so Python exits with "
            f"'No module named {module}' and the server never starts; run `vllm serve` (vLLM's OpenAI-compatible server)"
        )
    if module == _DEMO:
        later = [r for r in table.releases if shipping and table.releases.index(r) > table.releases.index(shipping[-1])]
        gone = f", and vLLM {later[0]} and later no longer ship it" if later else ""
        return unproven(
            f"python -m {module} is vLLM's demo server (vllm/entrypoints/api_server.py, vLLM {_span(shipping)}: 'used "
            "only for demonstrating usage of AsyncEngine and simple performance benchmarks. It is not intended for "
            f"production use'): it answers /health and /generate only, with no OpenAI API and no /metrics{gone}; serve "
            "with `vllm serve` (vLLM's OpenAI-compatible server)"
        )
    return None


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    allowed = {f"--{str(o).lstrip('-')}" for o in config.get("allowedOptions", [])}
    findings = []
    for r in resources:
        for server in vllm_servers(r):
            if server.runtime_merged:
                continue  # KServe's Hugging Face server: parse_known_args ignores what it does not know
            image: Any = server.container.get("image")
            shown = image if isinstance(image, str) and image else "(none)"
            module = _module(r, server)
            found = _module_finding(module, shown) if module else None
            if found is not None:
                text = f"{server.label}: {found}"
                findings.append((r.name, unproven(text) if isinstance(found, Unproven) else text))
            for option in dict.fromkeys(options_written(_tokens(r, server))):
                message = None if option.replace("_", "-") in allowed else _finding(option, shown)
                if message is not None:
                    text = f"{server.label}: {message}; remove it or use the spelling of the image's release"
                    findings.append((r.name, unproven(text) if isinstance(message, Unproven) else text))
    return findings


POLICY = Policy(
    name="vllm-flags-exist",
    description="Every option passed to vLLM's argument parser exists in the vLLM release the image runs "
    "(argparse exits on an unknown option).",
    catalog="S38",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Remove the option, or spell it as the image's vLLM release does (`vllm serve --help=all` in that image "
        "lists them), or move to a release that has it. An option meant for another program (the llm-d scheduler, a "
        "wrapper script) belongs on that program's command line. Where the image's vLLM is a rebuild that accepts it, "
        'list it in the policy config allowedOptions or annotate llm-serving.io/exempt-vllm-flags-exist: "<reason>".'
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
    rationale=(
        "vLLM's FlexibleArgumentParser (0.33.0 vllm/utils/argparse_utils.py) is argparse: an unknown option ends "
        "parse_args with 'unrecognized arguments' (exit 2). components/vllm_cli_flags.json lists every long option of "
        "vLLM 0.6.0 to 0.34.0 (every minor release, 0.21.0 never published), read from the wheels (tools/read_vllm_cli_flags.py)."
    ),
)
