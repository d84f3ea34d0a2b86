"""S60: a KV-cache-aware scheduler gets the KV events it scores by.

llm-d's inference scheduler (the endpoint picker KServe's LLMInferenceService router runs) offers a
``precise-prefix-cache-scorer`` that scores each pod by the KV blocks it really holds: it subscribes to the KV events
the vLLM servers publish and indexes them (llm-d/llm-d-inference-scheduler v0.8.0 docs/architecture.md:373-383);
with no prefix-cache state every request is treated as cold (:573). vLLM publishes no KV events unless it is started
with ``--kv-events-config`` enabling them: ``enable_kv_cache_events`` defaults to False and the publisher to "null"
(vllm-project/vllm@b91ee1b4 vllm/config/kv_events.py:16, :56-58). KServe's own sample gives the vLLM servers that
flag through VLLM_ADDITIONAL_ARGS (kserve/kserve v0.20.0 docs/samples/llmisvc/precise-prefix-kv-cache-routing/
llm-inference-service-qwen2-7b-gpu-kv-cache-routing.yaml).

Read on an LLMInferenceService whose scheduler config (``spec.router.scheduler.config.inline``, its own or from the
LLMInferenceServiceConfigs its baseRefs name) lists a ``precise-prefix-cache-scorer`` plugin: each derived pod that
takes requests (spec.template, spec.prefill.template; presets merged, VLLM_ADDITIONAL_ARGS read as the preset script
passes it) whose vLLM has no ``--kv-events-config`` or one that does not enable events. Advice: requests are still
served, only routed without the cache knowledge the scorer was chosen for. Silent when a VLLM_ADDITIONAL_ARGS the files
cannot read (valueFrom, a controller placeholder in it) or an envFrom may carry the flag, or the scheduler config is a
reference the files do not resolve.
"""

from __future__ import annotations

import json
from typing import Any

from policies.framework import Policy, Resource, unproven
from policies.kube import as_dict, as_list, llmisvc_base_specs, pod_specs
from policies.reading.vllm_args import vllm_args, vllm_command_line

_TYPES = (
    "kubernetes:serving.kserve.io/v1alpha1:LLMInferenceService",
    "kubernetes:serving.kserve.io/v1alpha2:LLMInferenceService",
)
_SCORER = "precise-prefix-cache-scorer"
_TAKES_REQUESTS = ("spec.template", "spec.prefill.template")


def _inline_configs(resource: Resource) -> list[Any]:
    specs = [as_dict(as_dict(resource.props).get("spec"))]
    specs += llmisvc_base_specs(resource)[0]
    return [as_dict(as_dict(as_dict(s.get("router")).get("scheduler")).get("config")).get("inline") for s in specs]


def _names_scorer(config: Any) -> bool:
    """Whether an EndpointPickerConfig (a map, or its YAML/JSON text) lists the precise prefix-cache scorer."""
    if isinstance(config, str):
        return _SCORER in config
    return any(isinstance(p, dict) and p.get("type") == _SCORER for p in as_list(as_dict(config).get("plugins")))


def _unseen(container: dict) -> bool:
    """True when an env the files cannot read may carry the flag: VLLM_ADDITIONAL_ARGS from valueFrom, or with a
    placeholder the controller renders (KServe's sample writes ``{{ ChildName .ObjectMeta.Name `-epp-service` }}``
    in the endpoint, read as unknown), or an envFrom."""
    if container.get("envFrom"):
        return True
    return any(
        isinstance(e, dict) and e.get("name") == "VLLM_ADDITIONAL_ARGS" and not isinstance(e.get("value"), str)
        for e in as_list(container.get("env"))
    )


def _events_enabled(value: Any) -> bool:
    """Whether a --kv-events-config value enables events (a JSON object with enable_kv_cache_events true); a value
    that is not readable JSON (a variable) counts as enabling them."""
    try:
        config = json.loads(value) if isinstance(value, str) else None
    except ValueError:
        return True
    return not isinstance(config, dict) or config.get("enable_kv_cache_events") is True


def _check(resource: Resource, config: dict) -> list[str]:
    if not any(_names_scorer(c) for c in _inline_configs(resource)):
        return []
    messages: list[str] = []
    for path, podspec in pod_specs(resource):
        if path not in _TAKES_REQUESTS:
            continue
        for container in as_list(podspec.get("containers")):
            if not isinstance(container, dict) or container.get("name") != "main" or _unseen(container):
                continue
            if vllm_command_line(container) is None:
                continue  # not a vLLM server (another engine's image, a command the readers cannot follow)
            args = vllm_args(container)
            if "kv-events-config" in args and _events_enabled(args["kv-events-config"]):
                continue
            said = "one that leaves enable_kv_cache_events off" if "kv-events-config" in args else "no --kv-events-config"
            messages.append(
                unproven(
                    f"{path} container main: the scheduler scores pods with {_SCORER}, but this vLLM starts with {said}, "
                    f"so it publishes no KV events (vLLM's default) and the scorer's index stays empty: every request "
                    f"is routed as a cache miss; pass --kv-events-config with enable_kv_cache_events true and a zmq "
                    f"endpoint the scheduler subscribes to (VLLM_ADDITIONAL_ARGS), as KServe's precise-prefix sample does"
                )
            )
    return messages


POLICY = Policy(
    name="kv-events-for-cache-scorer",
    description=(
        "An LLMInferenceService whose scheduler scores pods with llm-d's precise-prefix-cache-scorer starts its vLLM "
        "servers with --kv-events-config enabling KV events (advice)."
    ),
    rationale=(
        "The precise prefix-cache scorer indexes the KV events vLLM publishes (llm-d-inference-scheduler v0.8.0 "
        "docs/architecture.md:373-383); vLLM publishes none by default (vllm/config/kv_events.py:16)."
    ),
    catalog="S60",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        'Add --kv-events-config \'{"enable_kv_cache_events":true,"publisher":"zmq","endpoint":...,"topic":...}\' '
        "to the main container's VLLM_ADDITIONAL_ARGS, with the block size and PYTHONHASHSEED the scorer is configured for."
    ),
    config_schema={},
    resource_types=_TYPES,
    check_resource=_check,
)
