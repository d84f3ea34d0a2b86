"""G12: a model server's memory limit stays within a ratio of its memory request.

The scheduler places a pod by its requests; the limit is what the container may take once it runs. A model server
loads its weights (and, for a CPU server, its KV cache) into host memory at its first load, so a limit far above the
request is memory the node never reserved: on a node packed by requests, the load pushes the node into memory
pressure, and the kubelet evicts Burstable pods over their requests first, the model server with them. Kyverno's
``other/enforce-resources-as-ratio`` holds memory limits to at most 2.5x the request (catalogue row 12); so does this
row, on model servers of any engine, GPU or not (set 20: davidglogan/ollama-kubernetes-stack
legacy/ollama-deployment.yaml at 8ec34a92da5092149f46ed8c922a9c0b0bfe7fc7, an Ollama server requesting 8Gi and
limited to 48Gi). G11 (gpu-memory-request-equals-limit) asks GPU pods for request == limit. Advice: whether the node
runs short depends on what else it runs.
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import WORKLOAD_TYPES, as_quantity, resource_value
from policies.reading.serving import model_servers

# Kyverno other/enforce-resources-as-ratio: "memory limits are no more than 2.5x its requests".
MAX_RATIO = 2.5


def _check(resource: Resource, config: dict) -> list[str]:
    messages = []
    for server in model_servers(resource):
        request_raw = resource_value(server.container, "requests", "memory")
        limit_raw = resource_value(server.container, "limits", "memory")
        request, limit = as_quantity(request_raw), as_quantity(limit_raw)
        if request and limit and limit > MAX_RATIO * request:
            messages.append(
                f"{server.label}: memory limit {limit_raw} is {limit / request:.1f}x its request {request_raw} on this "
                f"{server.engine} server; the scheduler reserves only the request, so loading the model takes memory "
                f"the node never set aside, and under node memory pressure the kubelet evicts it first; request at "
                f"least 1/{MAX_RATIO} of the limit (ideally the limit itself)"
            )
    return messages


POLICY = Policy(
    name="model-server-memory-ratio",
    description=f"A model server's memory limit is at most {MAX_RATIO}x its memory request (advice).",
    catalog="G12",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Raise resources.requests.memory to the memory the model server uses once its model is loaded (at least "
        f"1/{MAX_RATIO} of the limit; equal to it for Guaranteed QoS)."
    ),
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "The scheduler places pods by requests; pods whose usage exceeds their requests are evicted first under node "
        "memory pressure (https://kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/"
        "#pod-selection-for-kubelet-eviction). Catalogue row 12; Kyverno other/enforce-resources-as-ratio: memory "
        f"limits no more than {MAX_RATIO}x requests."
    ),
)
