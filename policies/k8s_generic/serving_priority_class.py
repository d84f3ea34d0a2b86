"""G22: serving pods should carry a priorityClassName.

On a shared GPU pool, serving must win over batch and training: without a priority class a
pending serving pod cannot preempt a batch pod, and the scheduler may evict it first.
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import WORKLOAD_TYPES, pod_specs, split_type
from policies.reading.serving import is_serving_app


def _check(resource: Resource, config: dict) -> list[str]:
    if not is_serving_app(resource):
        return []
    kind = split_type(resource.type)[1]
    return [
        f"{path}: no priorityClassName, so this {kind}'s model pods rank with batch work on the GPU pool and "
        f"cannot preempt it; set a serving priority class"
        for path, podspec in pod_specs(resource)
        if not podspec.get("priorityClassName") and not (kind == "InferenceService" and path != "spec.predictor")
    ]


POLICY = Policy(
    name="serving-priority-class",
    description="Pods of a serving app should set priorityClassName.",
    catalog="G22",
    severity="low",
    enforcement="advisory",
    remediation_steps="Create a PriorityClass for online serving (above batch and training) and set spec.template.spec.priorityClassName (spec.predictor.priorityClassName for KServe).",
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "Pod priority decides who is preempted when a node is full (https://kubernetes.io/docs/concepts/scheduling-eviction/pod-priority-preemption/); "
        "without it every pod has priority 0. Catalogue row 22 (Kyverno require-pod-priorityclassname)."
    ),
)
