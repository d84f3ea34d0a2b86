"""G11: containers of a GPU pod request the memory they are limited to (Guaranteed QoS).

A Burstable GPU pod is first in line when the node runs short of memory: the kubelet evicts
Burstable pods that exceed their requests before Guaranteed ones, and losing a GPU replica costs a
multi-minute reload. Requests equal to limits also make Karpenter size the node for the real peak. A GPU of any
vendor counts (AMD, Intel, Gaudi, Neuron, TPU, MIG slices: policies/reading/accelerators.py); set 12's kmjayadeep/llm-k8s-lab
k8s/kserve-llm/inference-service.yaml at 722aacf (amd.com/gpu, memory 4Gi request, 8Gi limit) was missed.
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import WORKLOAD_TYPES, as_quantity, container_label, containers, pod_specs, resource_value
from policies.reading.accelerators import requests_accelerator


def _check(resource: Resource, config: dict) -> list[str]:
    messages = []
    for path, podspec in pod_specs(resource):
        if not requests_accelerator(podspec):
            continue
        for container in containers(podspec, model=True):
            request_raw = resource_value(container, "requests", "memory")
            limit_raw = resource_value(container, "limits", "memory")
            request, limit = as_quantity(request_raw), as_quantity(limit_raw)
            if request is not None and limit is not None and request != limit:
                messages.append(
                    f"{container_label(path, container)}: memory request {request_raw} differs from its "
                    f"limit {limit_raw} in a GPU pod, which makes it Burstable and an early eviction "
                    f"candidate under node memory pressure; request what you limit"
                )
    return messages


POLICY = Policy(
    name="gpu-memory-request-equals-limit",
    description="In a pod that uses GPUs, each container's memory request must equal its memory limit.",
    catalog="G11",
    severity="medium",
    enforcement="advisory",
    remediation_steps="Set resources.requests.memory to the same quantity as resources.limits.memory in every container of the GPU pod.",
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "Node-pressure eviction ranks pods whose usage exceeds their requests first "
        "(https://kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/#pod-selection-for-kubelet-eviction), "
        "and a pod is Guaranteed only when every container's requests equal its limits "
        "(https://kubernetes.io/docs/concepts/workloads/pods/pod-qos/). Catalogue row 11 (Kyverno "
        "memory-requests-equal-limits, require-qos-guaranteed), applied to GPU pods only."
    ),
)
