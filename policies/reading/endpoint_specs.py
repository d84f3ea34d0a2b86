"""vLLM engines a custom resource describes in its own spec, for a controller (or a kro ResourceGraphDefinition) to
render: ``spec.backend: vllm``, ``spec.model: google/gemma-3-1b-it``, ``spec.quantization: awq``.

Platform teams wrap the serving stack in a kind of their own (bogdancstrike/k8s-llm-slm-hami's kro
``InferenceEndpoint``: backend, model, quantization, maxModelLen, gpuMemUtilization). The pack does not know how such a
kind renders its server, but where the spec names vLLM as its engine and a Hugging Face model, the spec's fields that
spell a vLLM option in camelCase (``maxModelLen`` -> ``--max-model-len``, ``quantization``, ``dtype``,
``tensorParallelSize``; every option any vLLM release read accepts, components/vllm_cli_flags.json) are that engine's
settings. The start-up rules (policies.vllm.startup_rules) judge them, as advice: the files do not show the rendering.
"""

from __future__ import annotations

import re
from typing import Any, Optional

from components.engine_options import cli_options
from policies.kube import as_dict, is_custom_type, memoized
from policies.reading.serving import EngineConfig

# Spec keys that name the engine the resource runs, and those that name its model.
_ENGINE_KEYS = ("backend", "engine", "runtime", "framework", "servingEngine", "inferenceEngine", "servingRuntime")
_MODEL_KEYS = ("model", "modelId", "modelID", "modelName", "hfModel", "huggingfaceModel")
# A Hugging Face id: owner/name, no scheme, no path beyond it.
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


def _kebab(key: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"-\1", key).lower()


def _names_vllm(spec: dict) -> Optional[str]:
    """The spec key that names vLLM as the engine, or None."""
    for key in _ENGINE_KEYS:
        value = spec.get(key)
        if isinstance(value, str) and value.strip().lower().split("-", 1)[0] == "vllm":
            return key
    return None


def endpoint_engines(resource: Any) -> list[EngineConfig]:
    """The vLLM engine a custom resource's spec describes (see the module docstring); [] for every other resource."""
    return list(memoized(resource, "endpoint_engines", _endpoint_engines))


def _endpoint_engines(resource: Any) -> list[EngineConfig]:
    if not is_custom_type(resource.type):
        return []
    spec = as_dict(as_dict(resource.props).get("spec"))
    engine_key = _names_vllm(spec)
    model = next((spec[k] for k in _MODEL_KEYS if isinstance(spec.get(k), str)), None)
    if engine_key is None or not isinstance(model, str) or not _HUB_ID.match(model.strip()):
        return []
    options = cli_options().options
    args: dict[str, str | None] = {}
    for key, value in spec.items():
        flag = _kebab(str(key))
        if key in _MODEL_KEYS or key == engine_key or f"--{flag}" not in options:
            continue
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            args[flag] = str(value)
    label = f"spec ({engine_key}: {spec[engine_key]})"
    return [EngineConfig(label=label, args=args, model=model.strip(), extra={"endpoint_spec": True})]
