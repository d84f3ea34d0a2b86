"""Containers a HorizontalPodAutoscaler's utilisation target needs a request from.

An HPA's Resource (or ContainerResource) metric with ``target.type: Utilization`` (autoscaling/v1's
targetCPUUtilizationPercentage) divides each pod's usage by the pod's request for that resource; a container of the
pod with no request for it makes the HPA controller fail the metric ("missing request for cpu in container ...",
kubernetes pkg/controller/podautoscaler/replica_calculator.go GetResourceReplicas -> calculatePodRequests), the HPA
reports ScalingActive False and never changes the replicas. A LimitRange default of the namespace fills the request.
"""

from __future__ import annotations

from typing import Any

from policies.kube import HPA_TYPES, as_dict, as_list, container_label, containers, get, pod_specs, split_type, viewed_resources
from policies.reading.limit_ranges import namespace_default
from policies.reading.serving import namespace_of

_SCALED = frozenset({"Deployment", "StatefulSet", "ReplicaSet"})


def utilization_targets(hpa: Any) -> list[tuple[str, str]]:
    """(resource, container or "") of each Utilization target of an HPA (autoscaling/v1's CPU percentage included)."""
    found = []
    if get(hpa.props, "spec", "targetCPUUtilizationPercentage") is not None:
        found.append(("cpu", ""))
    for metric in as_list(get(hpa.props, "spec", "metrics")):
        metric = as_dict(metric)
        kind = metric.get("type")
        body = as_dict(metric.get("resource" if kind == "Resource" else "containerResource"))
        if kind in ("Resource", "ContainerResource") and get(body, "target", "type") == "Utilization":
            name = body.get("name")
            if isinstance(name, str):
                found.append((name, str(body.get("container") or "") if kind == "ContainerResource" else ""))
    return found


def _outcome(hpa: Any, kind: str) -> str:
    """What the HPA does when that metric fails: with other metrics it still scales up on them but never scales down
    (kubernetes pkg/controller/podautoscaler/horizontal.go computeReplicasForMetrics: an invalid metric blocks only a
    scale-down; ScalingActive is False only when every metric fails). Review 41 item 7."""
    if len(as_list(get(hpa.props, "spec", "metrics"))) > 1:
        return f"so it scales this {kind} up on its other metrics only and never scales it down"
    return f"reports ScalingActive False and never scales this {kind}"


def unrequested(resource: Any) -> list[str]:
    """One message per container of a scaled workload that an HPA of the files read (same namespace, its
    scaleTargetRef) needs a request from and that sets none (nor a limit, nor a LimitRange default)."""
    kind, name = split_type(resource.type)[1], get(resource.props, "metadata", "name")
    if kind not in _SCALED:
        return []
    messages = []
    for hpa in viewed_resources() or ():
        ref = as_dict(get(hpa.props, "spec", "scaleTargetRef"))
        if hpa.type not in HPA_TYPES or ref.get("name") != name or ref.get("kind") != kind:
            continue
        if namespace_of(hpa) != namespace_of(resource):
            continue
        for wanted, only in utilization_targets(hpa):
            if namespace_default(resource, "requests", wanted) is not None or namespace_default(resource, "limits", wanted):
                continue
            for path, podspec in pod_specs(resource):
                for container in containers(podspec):
                    if only and container.get("name") != only:
                        continue
                    if (
                        get(container, "resources", "requests", wanted) is None
                        and get(container, "resources", "limits", wanted) is None
                    ):
                        messages.append(
                            f"{container_label(path, container)}: no resources.requests.{wanted}, so "
                            f"HorizontalPodAutoscaler {get(hpa.props, 'metadata', 'name')} (a {wanted} Utilization "
                            f"target) cannot compute utilisation ('missing request for {wanted}'), {_outcome(hpa, kind)}; "
                            f"request {wanted}"
                        )
    return messages
