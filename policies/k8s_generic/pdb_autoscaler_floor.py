"""G20: a PodDisruptionBudget's minAvailable must stay below the floor the workload's autoscaler keeps.

A KEDA ScaledObject (or an HPA) owns the replicas of a workload that sets none (or whose spec.replicas the scaler
overrides). When the PDB's minAvailable is at or above the scaler's floor (a ScaledObject's minReplicaCount, an
HPA's minReplicas, default 1), then whenever traffic is low enough for the fleet to sit at the floor no pod may be
evicted: `kubectl drain`, node upgrades and Karpenter consolidation wait until load lifts the replicas (held-out set
18, riya0920/asr-serving-vllm-k8s infra/k8s/deployment.yaml: minAvailable 2 beside minReplicaCount 2). Only advice:
above the floor evictions are allowed. A workload with spec.replicas scaled by an HPA is judged by
pdb-allows-disruption (G19), which reads the HPA's floor itself.
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import SCALED_OBJECT_TYPE, as_int, get, split_type
from policies.reading.serving import namespace_of, pod_labels, selector_matches

PDB_TYPES = ("kubernetes:policy/v1:PodDisruptionBudget", "kubernetes:policy/v1beta1:PodDisruptionBudget")
_SCALABLE = ("Deployment", "StatefulSet", "ReplicaSet")


def _floors(workload: Resource, resources: list[Resource]) -> list[tuple[str, str, int]]:
    """(scaler kind/name, floor field, floor) of every HPA or ScaledObject of the set that scales the workload."""
    kind, name = split_type(workload.type)[1], get(workload.props, "metadata", "name")
    found = []
    for r in resources:
        ref = get(r.props, "spec", "scaleTargetRef") or {}
        if namespace_of(r) != namespace_of(workload) or get(ref, "name") != name:
            continue
        if r.type == SCALED_OBJECT_TYPE and (get(ref, "kind") or "Deployment") == kind:
            # minReplicaCount defaults to 0 (https://keda.sh/docs/2.16/reference/scaledobject-spec/#minreplicacount).
            floor = as_int(get(r.props, "spec", "minReplicaCount")) or 0
            found.append((f"ScaledObject {get(r.props, 'metadata', 'name')}", "minReplicaCount", floor))
        elif split_type(r.type) == ("autoscaling", "HorizontalPodAutoscaler") and get(ref, "kind") == kind:
            floor = as_int(get(r.props, "spec", "minReplicas")) or 1
            found.append((f"HorizontalPodAutoscaler {get(r.props, 'metadata', 'name')}", "minReplicas", floor))
    return found


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    findings: list[tuple[str, str]] = []
    for pdb in (r for r in resources if r.type in PDB_TYPES):
        wanted = as_int(get(pdb.props, "spec", "minAvailable"))
        if wanted is None or wanted <= 0:
            continue
        for workload in resources:
            if split_type(workload.type)[1] not in _SCALABLE or namespace_of(workload) != namespace_of(pdb):
                continue
            if not any(selector_matches(get(pdb.props, "spec", "selector"), labels) for labels in pod_labels(workload)):
                continue
            floors = _floors(workload, resources)
            keda = any(scaler.startswith("ScaledObject") for scaler, _, _ in floors)
            if not floors or (get(workload.props, "spec", "replicas") is not None and not keda):
                continue  # no scaler, or an HPA over spec.replicas: pdb-allows-disruption (G19) judges it
            scaler, field, floor = min(floors, key=lambda f: f[2])
            if floor >= 1 and wanted >= floor:
                findings.append(
                    (
                        pdb.name,
                        f"PodDisruptionBudget {get(pdb.props, 'metadata', 'name')}: minAvailable {wanted} is not below "
                        f"the {field} {floor} of {scaler}, which scales {split_type(workload.type)[1]} "
                        f"{get(workload.props, 'metadata', 'name')}: whenever the fleet sits at that floor no pod may be "
                        "evicted, so node drains, upgrades and consolidation wait for load to add replicas",
                    )
                )
    return findings


POLICY = Policy(
    name="pdb-below-autoscaler-floor",
    description=(
        "A PodDisruptionBudget's minAvailable must stay below the floor of the autoscaler that owns the selected "
        "workload's replicas (a KEDA ScaledObject's minReplicaCount, an HPA's minReplicas when the workload sets no "
        "replicas): at that floor no pod may be evicted."
    ),
    catalog="G20",
    severity="medium",
    # Advisory: above the floor evictions are allowed; the block lasts while load is low.
    enforcement="advisory",
    remediation_steps="Use maxUnavailable: 1, or a minAvailable one below the autoscaler's floor.",
    check_stack=_check,
    rationale=(
        "An eviction is refused while it would leave fewer than minAvailable healthy pods "
        "(https://kubernetes.io/docs/concepts/workloads/pods/disruptions/#pod-disruption-budgets); an autoscaler at "
        "its floor keeps exactly that many, so `kubectl drain` and Karpenter's disruption controller wait "
        "(https://karpenter.sh/docs/concepts/disruption/#pod-level-controls)."
    ),
)
