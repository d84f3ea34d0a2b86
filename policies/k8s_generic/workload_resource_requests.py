"""G8 on every workload container: CPU and memory requests (advice).

serving-resource-requests judges the model servers and serving-path apps; this row judges every other running
container of every pod template the readers reach (policies/reading/workload_pods.py): a Streamlit or FastAPI front
end, an MLflow server, an eval Job's workers, a server no table names. The scheduler places a pod by its containers'
requests and Karpenter sizes nodes from them
(https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/; https://karpenter.sh/docs/concepts/
scheduling/); a container with no memory request makes the pod Burstable or BestEffort, whose pods the kubelet evicts
first under node pressure (https://kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/).

Counted as set: a request or a limit (the API server defaults a missing request to the limit), a LimitRange default of
the namespace among the files (defaultRequest or default: policies/reading/limit_ranges.py), a VerticalPodAutoscaler of
the files that writes the request into the workload's pods (policies/reading/vpa_requests.py, main containers only),
and pod-level resources. One finding per object, naming the containers. Advice: a hygiene gap, not a failure.
Spent sets 76-79: cncf/llm-in-action (Streamlit), a-anurag1024/rinlekha (MLflow, an eval Job),
DemecosChambers/GPUArchitectureAWS, shbhangale/Karpenter-GPU-Autoscaling.
"""

from __future__ import annotations

from policies.framework import Policy, Resource, unproven
from policies.kube import workload_types
from policies.reading.limit_ranges import namespace_default
from policies.reading.vpa_requests import vpa_requested
from policies.reading.workload_pods import pod_sets, sets_none, workload_containers

_WANTED = ("cpu", "memory")
# The built-in priority classes at or above the kubelet's critical priority (2000000000): the kubelet never evicts such a
# pod under node pressure (kubernetes pkg/kubelet/eviction/eviction_manager.go evictPod: kubelettypes.IsCriticalPod, 'cannot
# evict a critical pod'), so the eviction clause is left out for them (node agents: NVIDIA's device plugin DaemonSet).
_CRITICAL = frozenset({"system-node-critical", "system-cluster-critical"})


def _check(resource: Resource, config: dict) -> list[str]:
    lacking: list[tuple[str, list[str]]] = []
    evictable = False
    for c in workload_containers(resource):
        missing = [
            r
            for r in _WANTED
            if sets_none(c.container, r)
            and not pod_sets(c.podspec, r)
            and namespace_default(resource, "requests", r) is None
            and namespace_default(resource, "limits", r) is None
            and not (not c.sidecar and c.name and vpa_requested(resource, c.name, r))
        ]
        if missing:
            lacking.append((c.label, missing))
            evictable |= "memory" in missing and c.podspec.get("priorityClassName") not in _CRITICAL
    if not lacking:
        return []
    named = ", ".join(f"{label} ({' and '.join(missing)})" for label, missing in lacking)
    return [
        unproven(
            f"{named}: no request (nor a limit, a LimitRange default, a VPA or pod-level resources), so the scheduler "
            f"and Karpenter place the pod as if it needed none"
            + (
                ", and with no memory request it is among the first pods the kubelet evicts under node pressure"
                if evictable
                else ""
            )
            + "; request what the containers use"
        )
    ]


POLICY = Policy(
    name="workload-resource-requests",
    description="Every running container of every workload (not only model servers) requests CPU and memory (advice).",
    catalog="G8",
    severity="low",
    enforcement="advisory",
    remediation_steps=(
        "Set resources.requests.cpu and resources.requests.memory on each container (a limit alone counts), or give "
        "the namespace a LimitRange defaultRequest, or let a VerticalPodAutoscaler set them."
    ),
    resource_types=workload_types(),
    check_resource=_check,
    operator_fills="cpu and memory requests",
    rationale=(
        "The scheduler and Karpenter place pods by their requests "
        "(https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/; "
        "https://karpenter.sh/docs/concepts/scheduling/); pods with no memory request are evicted first under node "
        "pressure (https://kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/). Catalogue row 8 "
        "(Polaris cpuRequestsMissing/memoryRequestsMissing, kube-linter unset-cpu-requirements, Checkov CKV_K8S_10/12), "
        "on every container the model-server rows do not judge."
    ),
)
