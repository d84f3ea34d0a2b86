"""G77: an Ollama server keeps the models it serves loaded between requests.

Ollama loads a model into memory on the first request for it and unloads it when its keep-alive ends or when it
needs room; a model that is unloaded is read from disk again (seconds to minutes for billions of weights) by the next
request for it. Two settings turn that into a reload on (nearly) every request:

* ``OLLAMA_KEEP_ALIVE`` of zero ("0", "0s", "0m"): "Zero is treated as no keep alive" (ollama/ollama v0.32.15
  envconfig/config.go:126-146), so the model is unloaded as soon as each request ends. KubeAI sets 999999h for this
  reason and appends a Model's own ``spec.env`` after it, so the Model's value wins (kubeai v0.21.0
  internal/modelcontroller/engine_ollama.go:22-55: "Ollama treates 0 as 'no keep alive'"): spent set 27
  leoho0722/gpu-delegater-based-on-kubeai, a 70B Model with ``OLLAMA_KEEP_ALIVE: "0s"``.
* ``OLLAMA_MAX_LOADED_MODELS=1`` on a server whose pod pulls two or more models: the scheduler unloads the loaded
  model to make room for a request for the other ("max runners achieved, unloading one to make room", v0.32.15
  server/sched.go:226-267), so alternating chat and embedding calls reload each model in turn: spent set 38
  ahoffer/aiagent k8s/ollama.yaml, qwen3:14b and nomic-embed-text pulled by its init container.

Advice: a client may send its own keep_alive per request, and how often the models alternate is not in the files.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Optional

from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_dict, split_type
from policies.reading.engines import env_values, table_servers
from policies.reading.ollama_pulls import pod_pulls

_ZERO = re.compile(r"^\s*[+-]?0+(?:\.0*)?(?:ns|us|µs|ms|s|m|h)?\s*$")
_KUBEAI_MODEL = ("kubeai.org", "Model")


def _keep_alive_zero(env: Mapping[str, str]) -> Optional[str]:
    value = env.get("OLLAMA_KEEP_ALIVE")
    return value if isinstance(value, str) and _ZERO.match(value) else None


def _models(podspec: Mapping) -> list[str]:
    """The distinct models a pod pulls, ``name`` and ``name:latest`` counted once."""
    seen: list[str] = []
    for model in pod_pulls(podspec):
        name = model if ":" in model.rsplit("/", 1)[-1] else f"{model}:latest"
        if name not in seen:
            seen.append(name)
    return seen


def _keep_alive_message(label: str, value: str) -> str:
    return (
        f"{label}: OLLAMA_KEEP_ALIVE={value} turns Ollama's keep-alive off (zero is 'no keep alive'), so the server "
        f"unloads the model when each request ends and the next request reads the weights from disk again; leave it "
        f"unset (5m) or set a long or negative duration (-1 keeps the model loaded)"
    )


def _kubeai(resource: Resource) -> list[str]:
    spec = as_dict(as_dict(resource.props).get("spec"))
    if str(spec.get("engine", "")).lower() != "ollama":
        return []
    env = {str(k): str(v) for k, v in as_dict(spec.get("env")).items()}
    value = _keep_alive_zero(env)
    if value is None:
        return []
    return [
        unproven(
            _keep_alive_message("spec.env", value).replace(
                "turns Ollama's keep-alive off",
                "comes after KubeAI's own OLLAMA_KEEP_ALIVE=999999h and wins: it turns Ollama's keep-alive off",
            )
        )
    ]


def _check(resource: Resource, config: dict) -> list[str]:
    if split_type(resource.type) == _KUBEAI_MODEL:
        return _kubeai(resource)
    messages: list[str] = []
    for server in table_servers(resource, "ollama"):
        env = env_values(server.container)
        value = _keep_alive_zero(env)
        if value is not None:
            messages.append(unproven(_keep_alive_message(server.label, value)))
        models = _models(server.podspec)
        if env.get("OLLAMA_MAX_LOADED_MODELS", "").strip() == "1" and len(models) >= 2:
            messages.append(
                unproven(
                    f"{server.label}: OLLAMA_MAX_LOADED_MODELS=1 keeps one model in memory, but the pod pulls "
                    f"{len(models)} ({', '.join(models)}): a request for another model unloads the loaded one to make "
                    f"room, so alternating calls (chat, then embeddings) reload the weights each time; raise it to the "
                    f"number of models served together, or serve them from separate servers"
                )
            )
    return messages


POLICY = Policy(
    name="ollama-keeps-models-loaded",
    description=(
        "An Ollama server keeps the models it serves loaded between requests: OLLAMA_KEEP_ALIVE is not zero, and "
        "OLLAMA_MAX_LOADED_MODELS is not 1 where the pod pulls two or more models (advice)."
    ),
    catalog="G77",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Leave OLLAMA_KEEP_ALIVE unset or set it long (-1: forever); set OLLAMA_MAX_LOADED_MODELS to at least the "
        "number of models the server serves together."
    ),
    config_schema={},
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "Ollama treats a zero keep-alive as none (ollama/ollama v0.32.15 envconfig/config.go:126-146) and unloads a "
        "loaded model to make room when OLLAMA_MAX_LOADED_MODELS is reached (server/sched.go:226-267); an unloaded "
        "model is read from disk again by the next request for it."
    ),
)
