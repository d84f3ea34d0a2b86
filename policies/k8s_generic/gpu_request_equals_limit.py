"""G13: a container's nvidia.com/gpu request must equal its limit, and a request needs a limit.

Extended resources cannot be overcommitted: the API server rejects a pod whose request differs
from its limit, and a GPU request without a limit is refused too. This finds it at review time
instead of at apply time, for every container, not only vLLM's.

A llama.cpp server told to offload layers to the GPU (``-ngl``/``--gpu-layers``/``--n-gpu-layers`` N > 0, or env
LLAMA_ARG_N_GPU_LAYERS: "number of layers to store in VRAM", ggml-org/llama.cpp common/arg.cpp) in a pod that requests
no accelerator is advice: either the node's default runtime hands it the GPUs the CUDA image's
NVIDIA_VISIBLE_DEVICES=all names, unaccounted by the scheduler, so several such pods share one GPU and can run out of
VRAM at load, or it sees none and llama.cpp ignores the option ("no usable GPU found, --gpu-layers option will be
ignored") and serves from the CPU (set 12: raphideb/llm-k8s gemma-2-9b-it-q4-k-m-deployment.yaml at 9c804d5, -ngl 99).
"""

from __future__ import annotations

from policies.framework import Policy, Resource, unproven
from policies.kube import (
    GPU_RESOURCE,
    WORKLOAD_TYPES,
    as_quantity,
    container_label,
    containers,
    fmt_number,
    pod_specs,
    resource_value,
)
from policies.reading.accelerators import claims_devices, requests_accelerator
from policies.reading.engines import table_servers
from policies.reading.gpu_pools import platform_adds_toleration

_GPU_LAYERS = ("ngl", "gpu-layers", "n-gpu-layers")


def _offloads_without_gpu(resource: Resource) -> list[str]:
    """Advice for a llama.cpp server offloading layers to a GPU its pod does not request (module docstring)."""
    messages: list[str] = []
    for server in table_servers(resource, "llama-cpp"):
        value = next((server.args[k] for k in _GPU_LAYERS if k in server.args), None)
        layers = str(value).strip().lower() if value is not None else ""
        if not (layers.isdigit() and int(layers) > 0 or layers == "all"):
            continue
        if requests_accelerator(server.podspec) or claims_devices(server.podspec):
            continue
        messages.append(
            unproven(
                f"{server.label}: offloads {layers} layers to the GPU (-ngl) but the pod requests no GPU: the scheduler "
                f"counts none, so it either reaches the node's GPUs unaccounted through the default runtime (several "
                f"such pods share one GPU and can run out of VRAM at load) or sees none and serves from the CPU; "
                f"request nvidia.com/gpu: 1"
            )
        )
    return messages


def _check(resource: Resource, config: dict) -> list[str]:
    messages = _offloads_without_gpu(resource)
    for path, podspec in pod_specs(resource):
        for container in containers(podspec, init=True, model=True):
            label = container_label(path, container)
            request_raw = resource_value(container, "requests", GPU_RESOURCE)
            limit_raw = resource_value(container, "limits", GPU_RESOURCE)
            if request_raw is None:
                continue
            request, limit = as_quantity(request_raw), as_quantity(limit_raw)
            if limit_raw is None:
                message = (
                    f"{label}: resources.requests {GPU_RESOURCE} is set without a limit; the API server "
                    f"rejects extended resources that are requested but not limited"
                )
                # On GKE (the pod requires a GKE node label) Autopilot sets every container's limits to its requests
                # before validation (https://cloud.google.com/kubernetes-engine/docs/concepts/autopilot-resource-requests),
                # while Standard clusters refuse the pod: which one it is, the manifest does not say.
                messages.append(unproven(message) if platform_adds_toleration(podspec) else message)
            elif request != limit:
                shown = lambda v, raw: fmt_number(v) if v is not None else repr(raw)  # noqa: E731
                messages.append(
                    f"{label}: resources.requests {GPU_RESOURCE} is {shown(request, request_raw)} but the "
                    f"limit is {shown(limit, limit_raw)}; GPUs cannot be overcommitted, so the API server "
                    f"rejects the pod"
                )
    return messages


POLICY = Policy(
    name="gpu-request-equals-limit",
    description="A container that requests nvidia.com/gpu must set the same number as its limit; a llama.cpp server "
    "that offloads layers to a GPU its pod does not request is advised against.",
    catalog="G13",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        'Set resources.limits["nvidia.com/gpu"] (the limit alone is enough: the request defaults to it), and if '
        "you also set the request, make it the same whole number."
    ),
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        '"You can specify GPU limits without specifying requests ... If you specify both, they must be equal" '
        "and GPUs are not overcommitted (https://kubernetes.io/docs/tasks/manage-gpus/scheduling-gpus/). "
        "Catalogue row 13: no public policy set has it (Kyverno's check-nvidia-gpu looks at the image's env)."
    ),
)
