"""S55: a vLLM server's command line names the model it serves.

``vllm serve`` with no model tag and no ``--model`` (the vllm/vllm-openai image run with env only, its entrypoint
``vllm serve``) does not fail: vLLM loads ModelConfig.model's default, facebook/opt-125m up to 0.9.x and
Qwen/Qwen3-0.6B from 0.10.0 (the engine table's ``default_models``, read from the wheels). The pod then starts, passes
its probes and answers every request with a model nobody chose; a variable such as ``MODEL`` or ``MODEL_ID`` next to it
is read by no vLLM code (spent set 24 AnticipatedD/AMD_Instinct manifests/vllm-deployment.yaml: env MODEL
Qwen/Qwen2.5-1.5B-Instruct, label NONE).

Judged only where the whole command line is in the manifest (the core workload kinds and LeaderWorkerSet, vLLM's own
image or an explicit vLLM command, no config file, no variable the shell splits into options, no KServe runtime
supplying the args). Advice: some releases refuse a ``vllm serve`` without a tag instead (v0.6.2), and the image tag
may not name its release.
"""

from __future__ import annotations

from typing import Optional

from components.images import image_repository, vllm_release
from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, decimal, is_custom_type, split_type
from policies.reading.container_env import env_values, outside_env_sources
from policies.reading.serving import engine_row
from policies.reading.vllm_args import positional_tokens, served_model, vllm_command_line, vllm_servers

# Where a container's whole command line is in the manifest (as G4's port check reads it).
_OWN_COMMAND_LINE = frozenset({"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Pod", "LeaderWorkerSet"})
# vLLM's own images, whose entrypoint is `vllm serve` (vllm v0.33.0 docker/Dockerfile): a private image named /vllm:
# may start vLLM from a script of its own that passes a model.
_OWN_IMAGES = ("vllm/vllm-openai",)
# Variables people set to name the model for a server that does not read them.
_MODEL_VARIABLES = ("MODEL", "MODEL_ID", "MODEL_NAME", "MODEL_PATH", "HF_MODEL_ID", "MODEL_REPO")


def _release_key(release: str) -> tuple[int, ...]:
    return tuple(n for x in release.split(".") if (n := decimal(x)) is not None)


def _default(release: Optional[str]) -> str:
    """The default model vLLM loads at ``release`` (its engine-table row), or every default when it is unknown."""
    row = engine_row("vllm")
    pairs = row.default_models if row is not None else ()
    if not pairs:
        return "its built-in default model"
    if release is None:
        return "its built-in default model (" + ", ".join(f"{m} from {r}" for r, m in pairs) + "; the image names no release)"
    chosen = [m for r, m in pairs if _release_key(r) <= _release_key(release)]
    return f"its default model {chosen[-1]} (vLLM {release})" if chosen else "its built-in default model"


def _named_elsewhere(container: dict) -> Optional[str]:
    """``env NAME=value`` for a variable of the container (literal, or from a ConfigMap of the files) that names a
    model vLLM does not read."""
    for name, value in env_values(container).items():
        if name in _MODEL_VARIABLES and value.strip():
            return f"env {name}={value.strip()}"
    return None


def _whole_line(resource: Resource, container: dict, line: list[str]) -> bool:
    """True when ``line`` is all vLLM is given: the resource carries the command line itself, nothing splits into
    options at run time, no config file, and vLLM's own image or an explicit command starts it."""
    kind = split_type(resource.type)[1]
    if kind not in _OWN_COMMAND_LINE or (kind != "LeaderWorkerSet" and is_custom_type(resource.type)):
        return False
    if any("$" in t for t in line) or any(t.split("=", 1)[0] == "--config" for t in line):
        return False
    if any("dynamo" in t for t in line) or outside_env_sources(container):
        return False  # NVIDIA Dynamo's worker, or variables from outside the files a script may read
    if container.get("command"):
        return True
    image = container.get("image")
    return isinstance(image, str) and image_repository(image).endswith(_OWN_IMAGES)


def _check(resource: Resource, config: dict) -> list[str]:
    messages: list[str] = []
    for server in vllm_servers(resource):
        if server.runtime_merged or served_model(server) is not None or server.args.get("model"):
            continue
        line = vllm_command_line(server.container)
        if line is None or positional_tokens(line) or not _whole_line(resource, server.container, line):
            continue
        image = server.container.get("image")
        release = vllm_release(image) if isinstance(image, str) else None
        elsewhere = _named_elsewhere(server.container)
        meant = f", not the model {elsewhere} names (vLLM reads no such variable)" if elsewhere else ""
        messages.append(
            unproven(
                f"{server.label}: the vLLM command line names no model (no `vllm serve MODEL`, no --model), so vLLM "
                f"loads {_default(release)}{meant}, and the pod serves it as if it were the one meant; pass the model "
                f"as args: [MODEL] (the image's entrypoint is `vllm serve`) or --model"
            )
        )
    return messages


POLICY = Policy(
    name="vllm-names-its-model",
    description="A vLLM server's command line names the model it serves (else vLLM loads its built-in default).",
    catalog="S55",
    severity="high",
    enforcement="advisory",
    remediation_steps=(
        "Give the container `args: [MODEL, ...]` (the vllm/vllm-openai entrypoint is `vllm serve`) or `--model MODEL`; "
        "a MODEL or MODEL_ID variable alone is read by no vLLM code."
    ),
    config_schema={},
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "vLLM's ModelConfig.model defaults to facebook/opt-125m up to 0.9.x and to Qwen/Qwen3-0.6B from 0.10.0 "
        "(vllm 0.9.2 vllm/config.py L233, 0.10.0 L231): a server started without a model serves that one, healthy "
        "and wrong."
    ),
)
