"""G13: a container's nvidia.com/gpu request must equal its limit, and a request needs a limit.

Extended resources cannot be overcommitted: the API server rejects a pod whose request differs
from its limit, and a GPU request without a limit is refused too. This finds it at review time
instead of at apply time, for every container, not only vLLM's.

A server told to offload layers to the GPU (the engine table's gpu-layers setting: llama.cpp's
``-ngl``/``--gpu-layers``/``--n-gpu-layers`` N > 0, -1, auto or all, or env LLAMA_ARG_N_GPU_LAYERS: "number of layers
to store in VRAM", ggml-org/llama.cpp common/arg.cpp) in a pod that requests no accelerator and mounts no device node
from the host (a Jetson's /dev/nvgpu) is advice (spent set 43: Lichthagel/infra apps/llamacpp/deployment.yaml@ef3a9c1,
server-cuda with --n-gpu-layers -1 under runtimeClassName nvidia): either the node's default runtime hands it the GPUs the CUDA image's
NVIDIA_VISIBLE_DEVICES=all names, unaccounted by the scheduler, so several such pods share one GPU and can run out of
VRAM at load, or it sees none and llama.cpp ignores the option ("no usable GPU found, --gpu-layers option will be
ignored") and serves from the CPU (set 12: raphideb/llm-k8s gemma-2-9b-it-q4-k-m-deployment.yaml at 9c804d5, -ngl 99).
"""

from __future__ import annotations

from typing import Any

from policies.framework import Policy, Resource, unproven
from policies.kube import (
    GPU_RESOURCE,
    WORKLOAD_TYPES,
    as_quantity,
    container_label,
    containers,
    decimal,
    fmt_number,
    pod_specs,
    read_generically,
    resource_value,
)
from policies.reading.accelerators import claims_devices, host_devices, requests_accelerator
from policies.reading.engines import table_servers
from policies.reading.gpu_pools import platform_adds_toleration
from policies.reading.nodepools import gpu_instance_type

# Values of the gpu-layers setting that ask for every layer on the GPU besides a positive count: llama.cpp's -1 (its
# default, "auto" in current builds), auto and all.
_ALL_LAYERS = ("-1", "auto", "all")


def offload_asked(server: Any) -> str:
    """The engine table's gpu-layers setting of a server when it asks for GPU offload (a positive count, -1, auto,
    all), else ""."""
    value = server.args.get("gpu-layers") if server.row is not None and "gpu-layers" in server.row.flags else None
    layers = str(value).strip().lower() if value is not None else ""
    return layers if (decimal(layers) or 0) > 0 or layers in _ALL_LAYERS else ""


def _offloads_without_gpu(resource: Resource) -> list[str]:
    """Advice for a llama.cpp server offloading layers to a GPU its pod does not request (module docstring)."""
    messages: list[str] = []
    for server in table_servers(resource):
        layers = offload_asked(server)
        if not layers:
            continue
        if requests_accelerator(server.podspec) or claims_devices(server.podspec):
            continue
        if host_devices(server.podspec, server.container) is not None:
            continue  # device nodes mounted from the host: a GPU reached on purpose (a Jetson)
        shown = "every layer" if layers == "all" else "its layers" if layers in _ALL_LAYERS else f"{layers} layers"
        messages.append(
            unproven(
                f"{server.label}: offloads {shown} to the GPU ({server.flag('gpu-layers')} {layers}) but the pod requests "
                f"no GPU: the scheduler "
                f"counts none, so it either reaches the node's GPUs unaccounted through the default runtime (several "
                f"such pods share one GPU and can run out of VRAM at load) or sees none and serves from the CPU; "
                f"request nvidia.com/gpu: 1"
            )
        )
    return messages


# Fields an operator's resource names its nodes' instance type in (a Kaito Workspace's ``resource.instanceType``, the
# VM size Kaito provisions the GPU nodes as).
_INSTANCE_TYPE_KEYS = frozenset({"instancetype", "instance-type", "instancetypes"})


def _gpu_instance_fields(props: Any, pods: tuple[str, ...], path: str = "", depth: int = 0) -> list[tuple[str, str]]:
    """(field path, GPU instance type) of each instance-type field outside the pod templates and metadata."""
    found: list[tuple[str, str]] = []
    if depth > 8 or path in pods:
        return found
    if isinstance(props, dict):
        for key, value in props.items():
            here = f"{path}.{key}" if path else str(key)
            if key in ("metadata", "status"):
                continue
            if isinstance(key, str) and key.lower() in _INSTANCE_TYPE_KEYS:
                found += [(here, v) for v in (value if isinstance(value, list) else [value]) if gpu_instance_type(v)]
            elif isinstance(value, (dict, list)):
                found += _gpu_instance_fields(value, pods, here, depth + 1)
    elif isinstance(props, list):
        for i, item in enumerate(props):
            found += _gpu_instance_fields(item, pods, f"{path}[{i}]", depth + 1)
    return found


def _gpu_nodes_without_request(resource: Resource) -> list[str]:
    """Advice for an operator's resource no reader knows that puts its pods on a GPU instance type of its own field
    while no pod template requests an accelerator: the operator copies a custom template as written (Kaito
    pkg/workspace/manifests/manifests.go GenerateDeploymentManifestWithPodTemplate adds affinity and tolerations, no
    resources), so the device plugin allocates no GPU to the pods on the GPU node."""
    paths = read_generically(resource)
    if not paths:
        return []
    specs = pod_specs(resource)
    if any(requests_accelerator(pod) or claims_devices(pod) for _, pod in specs):
        return []
    fields = _gpu_instance_fields(resource.props, tuple(paths))
    if not fields:
        return []
    field, instance = fields[0]
    return [
        unproven(
            f"{path}: {field} puts these pods on {instance} GPU nodes, but no container of the template requests "
            f"{GPU_RESOURCE}, so the device plugin allocates them no GPU (the container sees none, or every GPU of the "
            f"node unaccounted, as its runtime decides); request the GPUs the server uses in resources.limits"
        )
        for path, _ in specs
    ]


def _check(resource: Resource, config: dict) -> list[str]:
    messages = _offloads_without_gpu(resource) + _gpu_nodes_without_request(resource)
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
    "that offloads layers to a GPU its pod does not request, and an operator resource that puts its pods on a GPU "
    "instance type while its pod template requests no GPU, are advised against.",
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
