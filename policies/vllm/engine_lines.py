"""The engine command lines S38 checks (policies/vllm/flags_exist.py): every container of a resource whose engine row
lists its options (components/serving_engines.toml ``options``), with the tokens its parser gets and what is known of
the release it runs.

vLLM's servers (policies/reading/vllm_args.vllm_servers): the options of ``vllm serve`` or ``python -m vllm...`` up to
a shell operator; an LLMInferenceService preset's container gets the user's args after VLLM_ADDITIONAL_ARGS (kserve
v0.20.0 config/llmisvcconfig/config-llm-template.yaml:166-177); another program's module (NVIDIA Dynamo's
``-m dynamo.vllm``) is no vLLM release's parser. The other engines of the table (policies/reading/engines.table_servers)
where the engine's command is run, or where args alone reach its parser through the publisher's ENTRYPOINT
(``args_tags``). A KServe InferenceService's predictor merged with its ServingRuntime (KServe appends the predictor's
args, kserve v0.20.0 utils.go:253-263, and sets the tag to ``runtimeVersion``, utils.go:339-355): only the predictor's
own args are its (``own_from``).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import Optional

from components.engine_options import cli_options, tag_matches
from components.images import is_published
from components.serving_engines import Engine
from policies.framework import Resource
from policies.kube import split_type
from policies.llmisvc_presets import PRESET_COMMAND
from policies.reading.engines import table_servers
from policies.reading.installs import installs_engine, installs_provider
from policies.reading.kserve_runtime import merged_predictor, predictor_model, runtime_tail
from policies.reading.kustomize import image_rewritten
from policies.reading.serving import engine_command_line, engine_row
from policies.reading.vllm_args import VllmServer, command_tokens, expand_env, vllm_command_line, vllm_servers
from policies.vllm.option_values import additional_args, all_strings
from policies.vllm.serve_model_tag_release import serve_written, shown_image


def preset_args(resource: Resource, server: VllmServer) -> bool:
    """True for an LLMInferenceService container that runs the preset's command with the user's args."""
    command = server.container.get("command")
    return split_type(resource.type)[1] == "LLMInferenceService" and isinstance(command, list) and command[:3] == PRESET_COMMAND


@dataclass(frozen=True)
class EngineLine:
    """One engine command line to check: the engine's row, the tokens its parser gets, the module ``python -m`` runs."""

    label: str
    image: str
    row: Engine
    tokens: list[str]
    module: Optional[str]
    installed: bool = False  # the container installs the engine itself before serving: the image's release is not it
    provided: bool = False  # it installs what may provide ``module`` (Dynamo's ai-dynamo for dynamo.sglang)
    own_from: int = 0  # the tokens from here on are the resource's own (a KServe predictor's args after its runtime's)
    # every item of the container's command and args is a string: where one is not (the API server refuses it), the
    # tokens read leave it out, so which argument follows which is not known
    strings: bool = True
    # the last item of a KServe ServingRuntime container's command and args, after which KServe appends each
    # InferenceService's args (kserve v0.20.0 utils.go:253-263): an option there may get its value from them
    appended_after: Optional[str] = None
    serve: bool = False  # vLLM's line runs `vllm serve` (written, or a preset's): its one positional is the model tag


def _module_run(tokens: list[str], row: Engine) -> Optional[str]:
    """The engine module ``python -m`` runs among ``tokens`` (one the row's ``modules`` names), or None."""
    return next((t for i, t in enumerate(tokens) if i and tokens[i - 1] == "-m" and t.startswith(row.modules)), None)


def engine_lines(resource: Resource) -> list[EngineLine]:
    """The command lines of every engine of the resource whose row lists its options (vLLM's, SGLang's)."""
    found = []
    vllm = engine_row("vllm")
    for server in vllm_servers(resource):
        if vllm is None or vllm.options is None:
            break
        if server.runtime_merged:
            continue  # KServe's Hugging Face server: parse_known_args ignores what it does not know
        if preset_args(resource, server):
            # The preset runs `vllm serve`: the user's args only, and a module named there is only an argument; before
            # them the words of VLLM_ADDITIONAL_ARGS, which the preset's eval splits (kserve v0.20.0
            # config/llmisvcconfig/config-llm-template.yaml:166-177).
            args = server.container.get("args")
            tokens = expand_env([a for a in args if isinstance(a, str)], server.container) if isinstance(args, list) else []
            tokens = additional_args(server.container) + tokens
            image = shown_image(server.container.get("image"))
            found.append(EngineLine(server.label, image, vllm, tokens, None, strings=all_strings(server.container), serve=True))
            continue
        argv = command_tokens(server.container)[0]
        module = _module_run(argv, vllm)
        line = vllm_command_line(server.container) or []
        if module and not cli_options(vllm.options.file).releases_shipping(module):
            # Another program's module that hands vLLM the options it does not know itself (NVIDIA Dynamo's
            # `-m dynamo.vllm`: parse_known_args, then vLLM's parser on the rest; ai-dynamo/dynamo
            # components/src/dynamo/vllm/args.py@000a36a parse_args): its own options are no vLLM release's.
            line = []
        # A kustomization of the run that rewrites the image runs another release than the tag's: as unknown as one
        # the container installs itself.
        installed = installs_engine(argv, vllm.name) or image_rewritten(resource.retagged, server.container.get("image"))
        provided = module is not None and installs_provider(argv, module)
        image = shown_image(server.container.get("image"))
        strings = all_strings(server.container)
        tail = runtime_tail(resource, server.container)
        serve = serve_written(server.container)
        found.append(EngineLine(server.label, image, vllm, line, module, installed, provided, 0, strings, tail, serve))
    for other in table_servers(resource):
        row = other.row
        if row is None or row.options is None:
            continue
        argv, script = command_tokens(other.container)
        module = _module_run(argv, row)
        if module is None and not any(_runs(argv, words) for words in row.commands):
            if not _args_reach_parser(other.container, row, script):
                continue  # the image's own entrypoint or script: what reaches the parser is not shown
        line = engine_command_line(other.container, row) or []
        if module and not cli_options(row.options.file).releases_shipping(module):
            line = []  # another program's module (Dynamo's dynamo.sglang) parses its own options first
        found.append(
            EngineLine(
                other.label,
                shown_image(other.container.get("image")),
                row,
                line,
                module,
                installs_engine(argv, row.name) or image_rewritten(resource.retagged, other.container.get("image")),
                module is not None and installs_provider(argv, module),
                strings=all_strings(other.container),
                appended_after=runtime_tail(resource, other.container),
            )
        )
    found.extend(_kserve_servers(resource))
    return found


# KServe replaces the runtime image's tag with the predictor's runtimeVersion, unless the image is pinned by digest
# (kserve v0.20.0 pkg/controller/v1beta1/inferenceservice/utils/utils.go:339-355 UpdateImageTag).
_IMAGE_TAG = re.compile(r":[\w.\-]*$")


def _kserve_servers(resource: Resource) -> list[EngineLine]:
    """An InferenceService's predictor (``model``, or ``triton`` as KServe's webhook turns it into one) run by an engine
    of the table other than vLLM, merged with its ServingRuntime among the objects checked: KServe appends the
    predictor's args to the runtime's (kserve v0.20.0 utils.go:253-263 MergeRuntimeContainers) and the image's tag
    becomes ``runtimeVersion``. Only the predictor's own args are judged here (``own_from``); the runtime's are the
    runtime's findings."""
    if split_type(resource.type) != ("serving.kserve.io", "InferenceService"):
        return []
    merged = merged_predictor(resource, legacy=True)
    if merged is None:
        return []
    _, container, runtime = merged
    predictor = resource.props.get("spec", {}).get("predictor", {}) if isinstance(resource.props.get("spec"), dict) else {}
    model = predictor_model(predictor if isinstance(predictor, dict) else {}, legacy=True)
    own = [a for a in model.get("args", []) if isinstance(a, str)] if isinstance(model.get("args"), list) else []
    version, image = model.get("runtimeVersion"), container.get("image")
    if isinstance(version, str) and version and isinstance(image, str) and "@sha256:" not in image:
        container = {**container, "image": _IMAGE_TAG.sub("", image) + ":" + version}
    found = []
    # the merged container seen as a pod of its own, for the readers of pod templates
    pod = Resource("kubernetes:apps/v1:Deployment", resource.name, {"spec": {"template": {"spec": {"containers": [container]}}}})
    for server in table_servers(pod):
        row = server.row
        if row is None or row.options is None or not own:
            continue
        argv, script = command_tokens(container)
        if not any(_runs(argv, words) for words in row.commands) and not _args_reach_parser(container, row, script):
            continue
        line = engine_command_line(container, row) or []
        start = len(line) - len(own)
        if start < 0 or line[start:] != expand_env(own, container):
            continue  # the predictor's args are not the end of the engine's command line as read
        label = f"{server.label} (InferenceService predictor with {runtime.label} merged in, as KServe does)"
        image = shown_image(container.get("image"))
        installed = installs_engine(argv, row.name)
        found.append(EngineLine(label, image, row, line, None, installed, own_from=start, strings=all_strings(container)))
    return found


def _args_reach_parser(container: dict, row: Engine, script: bool) -> bool:
    """True when the container gives args alone (no command) to one of the engine's own images whose ENTRYPOINT hands
    them to the server's parser (the options table's ``args_tags``: TGI's tgi-entrypoint.sh, llama.cpp's server
    images)."""
    assert row.options is not None
    image = container.get("image")
    if container.get("command") or script or not isinstance(image, str) or not row.options.args_tags:
        return False
    return is_published(image, row.options.images) and tag_matches(image, row.options.args_tags)


def _runs(argv: list[str], words: tuple[str, ...]) -> bool:
    """True when ``words`` (``sglang serve``) appear in a row in ``argv``, the first by its file name."""
    n = len(words)
    return any(
        posixpath.basename(argv[i]) == words[0] and tuple(argv[i + 1 : i + n]) == words[1:] for i in range(len(argv) - n + 1)
    )
