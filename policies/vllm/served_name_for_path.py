"""S66 vllm-served-name-for-path: a vLLM server that loads its model from a local path gives it a served name.

vLLM answers a request only under the names it serves: the ``--served-model-name`` values, else the ``--model``
value as written ("If not specified, the model name will be the same as the ``--model`` argument": the option's help,
vllm-project/vllm vllm/engine/arg_utils.py and ModelConfig.served_model_name, read at 00153c8b as S65 reads it;
ModelConfig.__post_init__ sets ``served_model_name = get_served_model_name(model, served_model_name)``). A server
started with a folder (``--model /mnt/models``, ``vllm serve /models/llama``) then serves the model as that path:
every OpenAI client must send ``"model": "/mnt/models"``, which no client of a model by name does, and ``/v1/models``
lists a path. Spent set 66: agud97/k8s-vllm gitops/apps/llm-serving/inference-service.yaml@783a7904 (an
InferenceService on a ClusterServingRuntime running vllm/vllm-openai with ``--model=/mnt/models``; label filed NONE).

Read on every vLLM server the readers reach (policies/reading/vllm_args.py vllm_servers: Deployments, StatefulSets,
LeaderWorkerSets, Ray worker groups, operator pod templates) and on a KServe InferenceService whose ServingRuntime of
the files runs vLLM itself (the runtime's args, then the InferenceService's: kserve v0.20.0 MergeRuntimeContainers).
Advice: a client may send the path on purpose. Silent with ``--served-model-name`` anywhere on the line, for a model
that is a Hub id or unrendered, for a ServingRuntime that an InferenceService of the files names, or
that one naming no runtime may pick (that InferenceService is read instead, as its args may add the name; a runtime no
InferenceService of the files uses is read on its own command line: spent set 76 cfchase/basic-kserve-vllm), for an LLMInferenceService (its preset
names the model: spent set 52's labeller read the served model name among the preset's args), and for KServe's
Hugging Face server, which serves the model under ``--model_name`` (the InferenceService's name).
"""

from __future__ import annotations

from typing import Optional

from policies.framework import Policy, Resource, unproven
from policies.kube import get, split_type
from policies.reading.kserve_runtime import merged_predictor
from policies.reading.vllm_args import parse_vllm_args, served_model, vllm_command_line, vllm_servers

# Runtimes and presets: the objects that use them add the name (an InferenceService's args; an LLMInferenceService's
# preset passes the model's name, and this pack keeps only the preset's first words: policies/llmisvc_presets.py).
_RUNTIMES = frozenset({"ServingRuntime", "ClusterServingRuntime", "LLMInferenceService", "LLMInferenceServiceConfig"})
_KSERVE_RUNTIMES = frozenset({"ServingRuntime", "ClusterServingRuntime"})
_NAME_FLAG = "served-model-name"
_PATH_STARTS = ("/", "./", "../", "~/")


def _local_path(model: Optional[str]) -> bool:
    return isinstance(model, str) and model.startswith(_PATH_STARTS) and "$" not in model and "{{" not in model


def _message(label: str, model: str) -> str:
    return unproven(
        f"{label}: vLLM loads the model from the path {model} and is given no --served-model-name, so it serves the "
        f"model under the name {model!r}: OpenAI clients must send model={model!r} (any other name gets 404 "
        f"'The model does not exist'); add --served-model-name NAME (the name clients ask for)"
    )


def _isvc_finding(resource: Resource) -> Optional[str]:
    """The message for an InferenceService whose ServingRuntime of the files starts vLLM on a local path."""
    merged = merged_predictor(resource)
    if merged is None:
        return None
    _, container, runtime = merged
    line = vllm_command_line(container)
    if line is None:
        return None  # not vLLM's own command line (KServe's Hugging Face server passes --model_name)
    args = parse_vllm_args(line)
    model = args.get("model")
    if _NAME_FLAG in args or not isinstance(model, str) or not _local_path(model):
        return None
    return _message(f"predictor (on {runtime.label})", model)


def _runtimes_used(resources: list[Resource]) -> frozenset[str] | None:
    """The names of the KServe runtimes the InferenceServices of the files name (``predictor.model.runtime``), or
    None when one of them names none (KServe then picks a runtime by model format, which may be any of them)."""
    names: set[str] = set()
    for resource in resources:
        if split_type(resource.type) != ("serving.kserve.io", "InferenceService") or not isinstance(resource.props, dict):
            continue
        model = get(resource.props, "spec", "predictor", "model")
        if not isinstance(model, dict):
            continue  # a predictor of its own containers or a framework key (sklearn:, ...): no runtime of ours named
        runtime = model.get("runtime")
        if not isinstance(runtime, str):
            return None
        names.add(runtime)
    return frozenset(names)


class _Everything:
    """``in`` answers True: every runtime may be used (an InferenceService of the files picks one by format)."""

    def __contains__(self, item: object) -> bool:
        return True


def _runtime_findings(resource: Resource) -> list[tuple[str, str]]:
    """S66 on a KServe ServingRuntime / ClusterServingRuntime that no InferenceService of the files uses: its own
    vLLM command line on a local path (``--model /mnt/models``, where KServe's storage initializer puts the model) with
    no --served-model-name. An InferenceService outside the files may add the name among its args, so advice, as
    everywhere on this row. Spent set 76 cfchase/basic-kserve-vllm@f0e9deab vllm-runtime.yaml (ServingRuntime vllm,
    quay.io/rh-aiservices-bu/vllm-openai-ubi9:0.4.2 with ``--model /mnt/models/``; labelled S66)."""
    found = []
    for server in vllm_servers(resource):
        if _NAME_FLAG in server.args:
            continue
        model = served_model(server)
        if isinstance(model, str) and _local_path(model):
            found.append((resource.name, _message(server.label, model)))
    return found


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    findings: list[tuple[str, str]] = []
    named = _runtimes_used(resources)
    used = _Everything() if named is None else named
    for resource in resources:
        if not isinstance(resource.props, dict) or resource.patch:
            continue
        group, kind = split_type(resource.type)
        if kind in _RUNTIMES:
            name = get(resource.props, "metadata", "name")
            name = name if isinstance(name, str) else None  # a list or map is no name (and unhashable)
            if kind in _KSERVE_RUNTIMES and group == "serving.kserve.io" and name not in used:
                findings += _runtime_findings(resource)
            continue
        if (group, kind) == ("serving.kserve.io", "InferenceService"):
            if (message := _isvc_finding(resource)) is not None:
                findings.append((resource.name, message))
            continue
        for server in vllm_servers(resource):
            if server.runtime_merged or _NAME_FLAG in server.args:
                continue
            model = served_model(server)
            if isinstance(model, str) and _local_path(model):
                findings.append((resource.name, _message(server.label, model)))
    return findings


POLICY = Policy(
    name="vllm-served-name-for-path",
    description=(
        "A vLLM server that loads its model from a local path (--model /mnt/models) names the model it serves with "
        "--served-model-name; otherwise clients must ask for the path (advice)."
    ),
    rationale=(
        "vLLM serves a model under its --served-model-name values, else under --model as written (vllm/engine/"
        "arg_utils.py --served-model-name help), so a path becomes the model's public name."
    ),
    catalog="S66",
    severity="medium",
    enforcement="advisory",
    remediation_steps="Add `--served-model-name NAME` to the vLLM command line (the name clients send as `model`).",
    config_schema={},
    check_stack=_check,
)
