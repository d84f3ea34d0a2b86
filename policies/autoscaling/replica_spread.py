"""G16: an autoscaler whose floor equals its ceiling never scales.

An HPA keeps its target between spec.minReplicas (default 1) and spec.maxReplicas; with the two equal the replica
count is fixed and the metrics change nothing (https://kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale/;
Polaris ``hpaMaxAvailability``, kube-linter ``minimumReplicaSpread``). A KEDA ScaledObject hands its HPA
minReplicaCount (default 0: the HPA's floor is then 1 and KEDA itself scales to and from zero) and maxReplicaCount
(default 100): kedacore/keda v2.20.2 apis/keda/v1alpha1/scaledobject_types.go:96-97 defaultHPAMinReplicas 1,
defaultHPAMaxReplicas 100, L303-317 GetHPAMinReplicas / GetHPAMaxReplicas. KEDA refuses only a floor above the ceiling
(L353-368 CheckReplicaCountBoundsAreValid), so minReplicaCount == maxReplicaCount is accepted and its triggers can
never add a replica; an idleReplicaCount below the floor still lets KEDA move between idle and the floor, and is
silent, as is the HPA KEDA renders (owned by a ScaledObject), whose floor 1 stands for KEDA's own scaling from 0. Advice: a pinned autoscaler may be a deliberate placeholder (a capacity note), but it does not autoscale.
"""

from __future__ import annotations

from typing import Optional

from policies.autoscaling.scalers import is_scaled_object, max_replicas
from policies.framework import Policy, Resource
from policies.kube import HPA_TYPES, SCALED_OBJECT_TYPE, as_dict, as_int, as_list, get


def _floor(scaler: Resource) -> tuple[str, Optional[int]]:
    """(field, value) of the scaler's replica floor, with its default when unset."""
    spec = as_dict(get(scaler.props, "spec"))
    if is_scaled_object(scaler):
        return "spec.minReplicaCount", as_int(spec.get("minReplicaCount", 0))
    return "spec.minReplicas", as_int(spec.get("minReplicas", 1))


def _keda_rendered(resource: Resource) -> bool:
    """True for the HPA KEDA renders from a ScaledObject (owned by it): its minReplicas 1 stands for KEDA's own 0..1
    step (set 25: abdulfahad66-png/scale-to-zero-gpu-inference-poc keda-hpa-vllm-autoscaler, ScaledObject 0..1)."""
    owners = as_list(get(resource.props, "metadata", "ownerReferences"))
    if any(as_dict(o).get("kind") == "ScaledObject" for o in owners):
        return True
    return get(resource.props, "metadata", "labels", "app.kubernetes.io/managed-by") == "keda-operator"


def _check(resource: Resource, config: dict) -> list[str]:
    if not is_scaled_object(resource) and _keda_rendered(resource):
        return []
    floor_field, floor = _floor(resource)
    ceiling_field, ceiling = max_replicas(resource)
    if floor is None or ceiling is None or ceiling < 1 or floor != ceiling:
        return []
    spec = as_dict(get(resource.props, "spec"))
    idle = as_int(spec.get("idleReplicaCount")) if is_scaled_object(resource) else None
    if idle is not None and idle < floor:
        return []
    what = "its triggers" if is_scaled_object(resource) else "its metrics"
    return [
        f"{floor_field} = {floor} equals {ceiling_field} = {ceiling}: the target always runs {floor} "
        f"replica{'s' if floor != 1 else ''} and {what} can never add or remove one; raise {ceiling_field} to the "
        "replicas the pool can hold, or drop the autoscaler and set the workload's replicas"
    ]


POLICY = Policy(
    name="autoscaler-replica-spread",
    description=(
        "An HPA or KEDA ScaledObject leaves room to scale: its replica floor (minReplicas, default 1; minReplicaCount, "
        "default 0) is below its ceiling (maxReplicas; maxReplicaCount, default 100)."
    ),
    catalog="G16",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Raise maxReplicas / maxReplicaCount above the floor (to the replicas the GPU pool can hold), or remove the "
        "autoscaler and set the workload's replicas directly."
    ),
    resource_types=(*HPA_TYPES, SCALED_OBJECT_TYPE),
    check_resource=_check,
    rationale=(
        "An HPA keeps replicas between minReplicas and maxReplicas, so equal bounds fix the count "
        "(https://kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale/); KEDA passes minReplicaCount and "
        "maxReplicaCount (default 100) to its HPA and accepts them equal (kedacore/keda v2.20.2 apis/keda/v1alpha1/"
        "scaledobject_types.go:96-97, 303-317, 353-368). Polaris hpaMaxAvailability, kube-linter minimumReplicaSpread."
    ),
)
