"""G11: containers of a GPU pod request the memory they are limited to (Guaranteed QoS).

A Burstable GPU pod is first in line when the node runs short of memory: the kubelet evicts
Burstable pods that exceed their requests before Guaranteed ones, and losing a GPU replica costs a
multi-minute reload. Requests equal to limits also make Karpenter size the node for the real peak. A GPU of any
vendor counts (AMD, Intel, Gaudi, Neuron, TPU, MIG slices: policies/reading/accelerators.py); set 12's kmjayadeep/llm-k8s-lab
k8s/kserve-llm/inference-service.yaml at 722aacf (amd.com/gpu, memory 4Gi request, 8Gi limit) was missed.
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import (
    LLMISVC_CONFIG_TYPES,
    as_dict,
    as_list,
    as_quantity,
    container_label,
    containers,
    get,
    pod_specs,
    viewed_resources,
    workload_types,
)
from policies.reading.accelerators import requests_accelerator
from policies.reading.kserve_runtime import effective_resources, is_runtime_merged
from policies.reading.serving import model_servers
from policies.reading.shm import shm_volume_name


def _shm_note(podspec: dict | None, container: dict | None) -> str:
    """Where the container mounts a Memory-medium emptyDir at /dev/shm: its pages are charged to the pod's memory
    (core/v1 EmptyDirVolumeSource: a memory medium counts against the containers' memory limits), so the shared tensors
    push usage further above the request (spent set 60: 4Gi requested, 8Gi limited, an 8Gi Memory /dev/shm)."""
    name = shm_volume_name(container) if container is not None and podspec is not None else None
    if not name:
        return ""
    for volume in as_list(podspec.get("volumes") if podspec else None):
        volume = as_dict(volume)
        if volume.get("name") == name and get(volume, "emptyDir", "medium") == "Memory":
            size = get(volume, "emptyDir", "sizeLimit")
            sized = f" (sizeLimit {size})" if size is not None else ""
            return (
                f"; its Memory-medium emptyDir {name}{sized} at /dev/shm is charged to the same memory, so shared "
                f"tensors lift its usage further above the request"
            )
    return ""


def _message(
    label: str, resources: dict, merged: str = "", podspec: dict | None = None, container: dict | None = None
) -> str | None:
    request_raw = as_dict(resources.get("requests")).get("memory")
    limit_raw = as_dict(resources.get("limits")).get("memory")
    request, limit = as_quantity(request_raw), as_quantity(limit_raw)
    if request is None or limit is None or request == limit:
        return None
    return (
        f"{label}: memory request {request_raw} differs from its limit {limit_raw}{merged} in a GPU pod, which makes it "
        f"Burstable and an early eviction candidate under node memory pressure{_shm_note(podspec, container)}; request "
        f"what you limit"
    )


def _unclaimed_config(resource: Resource) -> list[str]:
    """An LLMInferenceServiceConfig that no LLMInferenceService among the files names in its baseRefs: its own GPU
    containers (``spec.template``, ``spec.worker``, ``spec.prefill.template``...) are what every service built on it
    gets unless it overrides them (KServe merges the config under the service, kserve v0.20.0
    pkg/controller/v1alpha2/llmisvc/config_merge.go), so a request below the limit there is advice on the config itself
    (spent set 31 opendatahub-io/odh-model-controller server/samples/workload-single-node.yaml: 16Gi requested, 32Gi
    limited, one GPU). A config a service of the files names is judged on that service, with the config merged in."""
    name = get(resource.props, "metadata", "name")
    for other in viewed_resources() or ():
        if other.type in LLMISVC_CONFIG_TYPES:
            continue
        if any(get(ref, "name") == name for ref in as_list(get(other.props, "spec", "baseRefs"))):
            return []
    messages = []
    for path, podspec in _config_templates(as_dict(get(resource.props, "spec")), "spec"):
        if requests_accelerator(podspec):
            for container in containers(podspec):
                found = _message(container_label(path, container), as_dict(container.get("resources")))
                messages.extend([found] if found else [])
    return messages


def _config_templates(spec: dict, path: str) -> list[tuple[str, dict]]:
    """The pod templates of an LLMInferenceServiceConfig spec: ``template`` and ``worker``, and the same under
    ``prefill``."""
    found = [(f"{path}.{key}", spec[key]) for key in ("template", "worker") if isinstance(spec.get(key), dict)]
    if isinstance(spec.get("prefill"), dict):
        found.extend(_config_templates(spec["prefill"], f"{path}.prefill"))
    return found


def _check(resource: Resource, config: dict) -> list[str]:
    if resource.type in LLMISVC_CONFIG_TYPES:
        return _unclaimed_config(resource)
    messages = []
    for path, podspec in pod_specs(resource):
        if not requests_accelerator(podspec):
            continue
        for container in containers(podspec, model=True):
            found = _message(container_label(path, container), as_dict(container.get("resources")), "", podspec, container)
            messages.extend([found] if found else [])
    # A KServe predictor whose GPU is its own and whose memory its ServingRuntime gives: KServe merges the runtime's
    # resources under the model's key by key (policies/reading/kserve_runtime.py), so the pod is what the merge says
    # (fresh set 31 opendatahub-io/distributed-workloads: 8Gi requested, 16Gi limited by the runtime).
    for server in model_servers(resource):
        if not is_runtime_merged(resource, server.path) or _message("", as_dict(server.container.get("resources"))):
            continue
        resources, merged = effective_resources(resource, server.path, server.container)
        if resources and requests_accelerator({"containers": [{"resources": resources}]}):
            found = _message(server.label, resources, merged)
            messages.extend([found] if found else [])
    return messages


POLICY = Policy(
    name="gpu-memory-request-equals-limit",
    description="In a pod that uses GPUs, each container's memory request must equal its memory limit.",
    catalog="G11",
    severity="medium",
    enforcement="advisory",
    remediation_steps="Set resources.requests.memory to the same quantity as resources.limits.memory in every container of the GPU pod.",
    resource_types=workload_types(*LLMISVC_CONFIG_TYPES),
    check_resource=_check,
    rationale=(
        "Node-pressure eviction ranks pods whose usage exceeds their requests first "
        "(https://kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/#pod-selection-for-kubelet-eviction), "
        "and a pod is Guaranteed only when every container's requests equal its limits "
        "(https://kubernetes.io/docs/concepts/workloads/pods/pod-qos/). Catalogue row 11 (Kyverno "
        "memory-requests-equal-limits, require-qos-guaranteed), applied to GPU pods only."
    ),
)
