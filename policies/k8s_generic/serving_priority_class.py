"""G22: serving pods should carry a priorityClassName.

On a shared GPU pool, serving must win over batch and training: without a priority class a
pending serving pod cannot preempt a batch pod, and the scheduler may evict it first. The opposite mistake is advice
too: a model server at system-node-critical or system-cluster-critical, the classes of the cluster's own components.
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import WORKLOAD_TYPES, pod_specs, split_type
from policies.reading.serving import is_serving_app


def _check(resource: Resource, config: dict) -> list[str]:
    if not is_serving_app(resource):
        return []
    kind = split_type(resource.type)[1]
    found = [
        f"{path}: no priorityClassName, so this {kind}'s model pods rank with batch work on the GPU pool and "
        f"cannot preempt it; set a serving priority class"
        for path, podspec in pod_specs(resource)
        if not podspec.get("priorityClassName") and not (kind == "InferenceService" and path != "spec.predictor")
    ]
    for path, podspec in pod_specs(resource):
        name = podspec.get("priorityClassName")
        if isinstance(name, str) and name in _SYSTEM_CLASSES:
            found.append(
                f"{path}: priorityClassName {name} (priority {_SYSTEM_CLASSES[name]}) is Kubernetes' class for the "
                f"components a node or the cluster cannot run without: this {kind}'s model pods then preempt any "
                f"workload to be placed, and are the last pods the kubelet evicts under node pressure; create a serving "
                f"priority class below the system ones"
            )
    return found


# The built-in classes (https://kubernetes.io/docs/concepts/scheduling-eviction/pod-priority-preemption/
# "Kubernetes already ships with two PriorityClasses: system-cluster-critical and system-node-critical"; their values
# kubernetes pkg/apis/scheduling/types.go SystemCriticalPriority = 2000000000, system-node-critical
# SystemCriticalPriority + 1000), reserved for critical add-ons and node components
# (https://kubernetes.io/docs/tasks/administer-cluster/guaranteed-scheduling-critical-addon-pods/). Spent set 55
# egel/k8s-ollama ollama-all.yaml: an 8-14 GiB Ollama server at system-node-critical.
_SYSTEM_CLASSES = {"system-node-critical": 2000001000, "system-cluster-critical": 2000000000}


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
