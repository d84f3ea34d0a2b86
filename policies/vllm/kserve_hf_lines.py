"""S38 on KServe's Hugging Face server: a predictor's args that its vLLM backend's argparse refuses.

KServe's Hugging Face server (kserve/huggingfaceserver, the built-in ClusterServingRuntime kserve-huggingfaceserver for
``modelFormat: huggingface``) parses its arguments twice: its own options with ``parse_known_args``, then, where its
vLLM backend is enabled (``--backend`` auto or vllm, vLLM installed, and every architecture of the model's config one
vLLM's registry lists), the same parser with vLLM's own arguments added, again with ``parse_known_args`` (kserve
v0.20.0 python/huggingfaceserver/huggingfaceserver/__main__.py:168-213; is_vllm_backend_enabled :60-70;
huggingfaceserver/vllm/utils.py:40-55 infer_vllm_supported_from_model_architecture). ``parse_known_args`` keeps an
option it does not know for later, so an unknown option is no finding here; but argparse still exits on what it does
know: a vLLM option that takes a value followed by another option (``--tool-call-parser --enforce-eager``: "argument
--tool-call-parser: expected one argument") or left last, and a flag given a value (``--enforce-eager=true``: "ignored
explicit argument"), CPython Lib/argparse.py consume_optional. The server then exits before it loads the model.

Which vLLM release the image holds: components/kserve_hf_vllm.toml (ARG VLLM_VERSION of each KServe release's
python/huggingface_server.Dockerfile, v0.15.0 to v0.20.0; the CPU image builds vLLM too,
python/huggingface_server_cpu.Dockerfile at the same tags, so vLLM is installed in either). The image's tag (a
ServingRuntime of the files) or the predictor's ``runtimeVersion`` names the KServe release; otherwise every release of that table is judged, the
installed KServe not being in the files. Mandatory where the option reads so at every vLLM release judged and the
model's architecture (components/vllm_architectures.py) is one every such release's registry lists, so the vLLM
backend is on; advice where the architecture is not known or a release judged reads the option otherwise, and where
the files name no KServe release: KServe v0.13.0 to v0.14.1 add only vLLM's engine arguments
(``AsyncEngineArgs.add_cli_args``, huggingfaceserver/vllm/utils.py v0.14.0:54-57), not its OpenAI server's
(``--tool-call-parser``), and the table does not tell the two apart, so a cluster's older KServe may start the same
predictor (the pack's reading of a moving vLLM tag is advice too). Spent set 113 prokube-ai/kubeflow-examples
serving/kserve-hf-vllm-completion/inference-service.yaml (Qwen/Qwen2.5-1.5B-Instruct, ``--tool-call-parser`` then
``--enforce-eager``). Silent: ``--backend=huggingface``, an option with its value, an option vLLM does not declare
(kept for later by ``parse_known_args``), a value holding a variable, an option spelt with ``_`` or a ``.`` (vLLM's
FlexibleArgumentParser turns ``--tool_call_parser`` into ``--tool-call-parser`` and ``--x.y`` into JSON only in
``parse_args``, which the server never calls: vllm/utils/argparse_utils.py; ``parse_known_args`` keeps them as
unknown), and a predictor naming a runtime that is neither among the files nor one of KServe's Hugging Face server
runtimes (its program is not known).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Optional

import components
from components.engine_options import CliOptions, cli_options
from components.images import image_tag, names_image
from components.parse_cache import read_toml
from components.vllm_architectures import architecture_table, model_architecture
from policies.framework import Resource, Unproven, unproven
from policies.kube import as_list, get, split_type
from policies.reading.kserve_runtime import predictor_model, predictor_runtime, runtime_container
from policies.reading.serving import engine_row
from policies.reading.vllm_args import parse_vllm_args, vllm_servers
from policies.vllm.option_values import Judged, explicit_values, missing_values, value_missing, value_refused

_TABLE = Path(components.__file__).resolve().with_name("kserve_hf_vllm.toml")
_IMAGE = "kserve/huggingfaceserver"
# KServe's own Hugging Face server runtimes (kserve-huggingfaceserver, kserve-huggingfaceserver-multinode:
# components/kserve_runtimes.toml), which a predictor may name without the files holding them.
_BUILTIN = "kserve-huggingfaceserver"
_RC = re.compile(r"rc\d*(?:$|[-.])")


@lru_cache(maxsize=1)
def hf_vllm_releases() -> dict[str, str]:
    """KServe release tag -> the vLLM release its Hugging Face server image installs (components/kserve_hf_vllm.toml)."""
    rows = read_toml(_TABLE).get("release", [])
    return {str(row["kserve"]): str(row["vllm"]) for row in rows if isinstance(row, dict)}


@dataclass(frozen=True)
class HfLine:
    """A predictor's own args as KServe's Hugging Face server reads them, and the vLLM releases they are judged at."""

    label: str
    tokens: list[str]
    kserve: tuple[str, ...]  # the KServe releases judged
    vllm: tuple[str, ...]  # their vLLM releases, in order, once each
    model: Optional[str]
    named: bool  # the files name the KServe release (the runtime image's tag or the predictor's runtimeVersion)


def _kserve_releases(resource: Resource, model: dict) -> tuple[tuple[str, ...], bool]:
    """The KServe releases whose image may run: the tag of a ServingRuntime of the files that runs
    kserve/huggingfaceserver, else the predictor's runtimeVersion, else every release of the table; and whether the
    files named the release."""
    table = hf_vllm_releases()
    runtime = predictor_runtime(resource)
    tag = None
    named = model.get("runtime")
    if runtime is None and isinstance(named, str) and named and not named.startswith(_BUILTIN):
        return (), False  # a runtime the files do not hold and KServe does not ship: its program is not known
    if runtime is not None:
        image = runtime_container(runtime).get("image")
        if not (isinstance(image, str) and names_image(image, (_IMAGE,))):
            return (), False  # another runtime's program: not this parser
        tag = image_tag(image)
    version = model.get("runtimeVersion")
    tag = version if isinstance(version, str) and version else tag
    if tag:
        # v0.16.0-gpu is v0.16.0's image; a release candidate (v0.15.0-rc1: vLLM 0.7.3) is another release, not read
        return tuple(k for k in table if tag == k or (tag.startswith(f"{k}-") and not _RC.match(tag[len(k) + 1 :]))), True
    return tuple(table), False


def hf_lines(resource: Resource) -> list[HfLine]:
    """Every InferenceService predictor ``model`` that KServe's Hugging Face server runs with its vLLM backend."""
    if split_type(resource.type) != ("serving.kserve.io", "InferenceService"):
        return []
    found = []
    for server in vllm_servers(resource):
        if not server.runtime_merged:
            continue
        model = predictor_model(get(resource.props, "spec", "predictor") or {})
        fmt = get(model, "modelFormat", "name")
        if not (isinstance(fmt, str) and fmt.lower() == "huggingface"):
            continue
        tokens = [a for a in as_list(model.get("args")) if isinstance(a, str)]
        kserve, named = _kserve_releases(resource, model)
        if not tokens or not kserve:
            continue
        table = hf_vllm_releases()
        vllm = tuple(dict.fromkeys(table[k] for k in kserve))
        args = parse_vllm_args(tokens)
        model_id = args.get("model-id") or args.get("model_id")
        model_name = model_id if isinstance(model_id, str) else None
        found.append(HfLine(server.label, tokens, kserve, vllm, model_name, named))
    return found


def _backend_on(line: HfLine) -> bool:
    """True when the model's architecture is one vLLM's registry lists at every release judged: the server then adds
    vLLM's parser (is_vllm_backend_enabled)."""
    if line.model is None:
        return False
    found = model_architecture(line.model)
    if found is None or not found.architectures:
        return False
    registry = architecture_table()
    return all(set(line.vllm) <= set(registry.releases_with(a)) for a in found.architectures)


def hf_findings(resource: Resource) -> list[str]:
    """S38's findings on KServe Hugging Face server predictors: what vLLM's argparse exits on under parse_known_args."""
    row = engine_row("vllm")
    if row is None or row.options is None:
        return []
    table: CliOptions = cli_options(row.options.file)
    found = []
    for line in hf_lines(resource):
        proven = _backend_on(line)
        releases = ", ".join(line.vllm)
        kserve = line.kserve[0] if len(line.kserve) == 1 else f"{line.kserve[0]} to {line.kserve[-1]}"
        image = f"{_IMAGE} {kserve}, whose vLLM backend adds vLLM's parser to its own"
        judged = Judged(table, releases, line.vllm, "vllm", "vLLM", image)
        explicit = [(o, v) for o, v in explicit_values(line.tokens) if _spelt_as_declared(o, table)]
        missing = [(o, after) for o, after in missing_values(line.tokens) if _spelt_as_declared(o, table)]
        messages = [value_refused(o, v, judged) for o, v in explicit]
        messages += [value_missing(o, after, judged) for o, after in missing]
        for message in messages:
            if message is None:
                continue
            text = f"{line.label} (KServe's Hugging Face server): {message}"
            if not proven:
                text = f"{text} (if its vLLM backend runs: the model's architecture is not known to be one vLLM loads)"
            elif not line.named:
                text = (
                    f"{text} (if the cluster's KServe is one of those releases: the files name none, and v0.13.0 to "
                    "v0.14.1 add vLLM's engine arguments only)"
                )
            found.append(unproven(text) if not proven or not line.named or isinstance(message, Unproven) else text)
    return found


def _spelt_as_declared(option: str, table: CliOptions) -> bool:
    """True for an option some vLLM release declares, written as vLLM declares it: no ``_`` and no ``.`` in its name.
    The server reads its args with ``parse_known_args``, so FlexibleArgumentParser's rewriting in ``parse_args`` (``_``
    to ``-``, ``--x.y`` to JSON) never runs and argparse keeps such a spelling as an unknown option."""
    name = option.partition("=")[0]
    return "_" not in name and "." not in name and bool(table.releases_with(name))
