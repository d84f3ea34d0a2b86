"""G8: an HPA (or KEDA ScaledObject) scaling on CPU or memory Utilization over a workload whose containers do not all
request that resource.

The HPA controller divides each pod's usage by the sum of its containers' requests for the resource; one container
without a request fails the metric ("missing request for cpu in container ..."): the HPA reports
FailedGetResourceMetric and ScalingActive False and never scales (kubernetes pkg/controller/podautoscaler/
replica_calculator.go calculateRequests / calculatePodRequestsFromContainers, code index file 4233727116;
policies/reading/hpa_requests.py). The finding lands on the autoscaler, which is what never works. It blocks only where
the files prove it: an HPA whose one metric is that target, its Deployment/StatefulSet/ReplicaSet among the files with
its containers read as written, and no LimitRange of the files that could default the request; with other metrics the
HPA still scales up on them (never down), and a KEDA ScaledObject, a placeholder or a LimitRange make it advice. A
VerticalPodAutoscaler of the files that is not Off and controls the resource writes the request at pod admission:
silent (G17 reports the VPA/HPA pair).
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import HPA_TYPES, SCALED_OBJECT_TYPE
from policies.reading.hpa_requests import scaler_unrequested


def _check(resource: Resource, config: dict) -> list[str]:
    return scaler_unrequested(resource)


POLICY = Policy(
    name="utilization-target-requests",
    description="An HPA scaling on CPU/memory Utilization targets a workload whose every container requests it.",
    catalog="G8",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Set resources.requests.<cpu|memory> on every container of the target's pod template (sidecars included), or "
        "scale on an AverageValue target or a model-server metric (queue length, KV-cache use) instead."
    ),
    resource_types=(*HPA_TYPES, SCALED_OBJECT_TYPE),
    check_resource=_check,
    rationale=(
        "The HPA controller computes utilisation as usage over the pods' requests and fails the metric when a "
        "container has none (kubernetes pkg/controller/podautoscaler/replica_calculator.go calculateRequests; "
        "https://kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale/#support-for-resource-metrics: "
        "without the request on every container the pod's utilisation is undefined and the metric takes no action). "
        "A limit stands for an "
        "unset request; a LimitRange default of the files makes the finding advice."
    ),
)
