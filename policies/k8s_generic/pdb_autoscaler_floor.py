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

from collections.abc import Iterator
from typing import Any

from policies.framework import Policy, Resource
from policies.kube import SCALED_OBJECT_TYPE, as_dict, as_int, get, has_reader, is_custom_type, split_type
from policies.reading.label_selectors import only_equalities, selector_equalities, selector_matches
from policies.reading.serving import namespace_of, pod_labels

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


_PDB_KEYS = frozenset({"poddisruptionbudget", "pdb"})
_FLOOR_KEYS = ("replicas", "minReplicas", "minReplicaCount")


def _walk(value: Any, path: str, depth: int = 0) -> Iterator[tuple[str, str, Any]]:
    """(path, key, value) of every mapping entry under ``value``, pod templates and container lists left out."""
    if depth > 8 or not isinstance(value, dict):
        return
    for key, item in value.items():
        if not isinstance(key, str) or key in ("template", "containers", "initContainers", "metadata", "status"):
            continue
        here = f"{path}.{key}"
        yield here, key, item
        yield from _walk(item, here, depth + 1)


def _embedded(resource: Resource) -> list[tuple[str, str]]:
    """A PodDisruptionBudget an operator's resource no reader knows asks its operator for (a field named
    podDisruptionBudget or pdb: LlamaStackDistribution spec.server.podDisruptionBudget, spent set 31) whose minAvailable
    is not below the fewest replicas the same resource asks for (its replicas, or its autoscaling minReplicas)."""
    if not is_custom_type(resource.type) or has_reader(resource.type):
        return []
    entries = list(_walk(as_dict(get(resource.props, "spec")), "spec"))
    budgets = [(p, v) for p, k, v in entries if k.lower() in _PDB_KEYS and isinstance(v, dict)]
    floors = [(p, n) for p, k, v in entries if k in _FLOOR_KEYS and (n := as_int(v)) is not None and n >= 1]
    findings = []
    for path, budget in budgets:
        # Only the replicas of the component the budget sits in: beside it, in a mapping that holds it, or in such a
        # mapping's autoscaling (another component's replicas, such as a database's proxy, are not this one's).
        owner = path.rsplit(".", 1)[0]
        mine = [
            (f, n)
            for f, n in floors
            if owner == (home := f.rsplit(".", 1)[0].removesuffix(".autoscaling")) or owner.startswith(home + ".")
        ]
        if not mine:
            continue
        field, floor = min(mine, key=lambda f: f[1])
        wanted = as_int(budget.get("minAvailable"))
        if wanted is not None and wanted >= floor:
            findings.append(
                (
                    resource.name,
                    f"{path}.minAvailable {wanted} is not below {field} {floor}: the operator's PodDisruptionBudget then "
                    "lets no pod be evicted whenever the pods number that many, so node drains, upgrades and "
                    "consolidation wait; use maxUnavailable: 1, or a minAvailable below the fewest replicas",
                )
            )
    return findings


_NAME_LABELS = ("app", "app.kubernetes.io/name", "app.kubernetes.io/instance", "name", "k8s-app")


def absent_target_floor(pdb: Resource, wanted: int, resources: list[Resource]) -> list[tuple[str, str]]:
    """A ScaledObject of the PDB's namespace whose scale target is in no file read, where the PDB's selector names that
    target by a name label (app: litellm for Deployment litellm): the PDB guards the scaled pods (set 44:
    ShivSingh96/litellm-gateway-demo keda/scaledobject.yaml, minAvailable 1 beside minReplicaCount 1, the Deployment in
    another repository file)."""
    selector = get(pdb.props, "spec", "selector")
    labels = selector_equalities(selector)  # matchLabels, and single-value In expressions
    names = {labels[k] for k in _NAME_LABELS if k in labels}
    if not names or not only_equalities(selector):
        return []
    present = {(namespace_of(r), split_type(r.type)[1], get(r.props, "metadata", "name")) for r in resources}
    for scaler in resources:
        ref = as_dict(get(scaler.props, "spec", "scaleTargetRef"))
        kind, target = str(ref.get("kind") or "Deployment"), ref.get("name")
        if scaler.type != SCALED_OBJECT_TYPE or namespace_of(scaler) != namespace_of(pdb) or target not in names:
            continue
        floor = as_int(get(scaler.props, "spec", "minReplicaCount")) or 0
        if kind not in _SCALABLE or (namespace_of(scaler), kind, target) in present or not 1 <= floor <= wanted:
            continue
        return [
            (
                pdb.name,
                f"PodDisruptionBudget {get(pdb.props, 'metadata', 'name')}: minAvailable {wanted} is not below the "
                f"minReplicaCount {floor} of ScaledObject {get(scaler.props, 'metadata', 'name')}, which scales {kind} "
                f"{target} (not in the files read; the selector names it by label): whenever the fleet sits at that "
                "floor no pod may be evicted, so node drains, upgrades and consolidation wait for load to add replicas",
            )
        ]
    return []


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    findings: list[tuple[str, str]] = [f for r in resources for f in _embedded(r)]
    for pdb in (r for r in resources if r.type in PDB_TYPES):
        wanted = as_int(get(pdb.props, "spec", "minAvailable"))
        if wanted is not None and wanted > 0:
            findings += absent_target_floor(pdb, wanted, resources)
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
