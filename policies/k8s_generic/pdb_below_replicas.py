"""G20: a PodDisruptionBudget's minAvailable must stay below the replicas of the workload it selects.

A ``minAvailable`` at or above the replicas of the workload whose pods the PDB selects (``minAvailable: 1`` over
``replicas: 1``) allows no voluntary eviction: an eviction is refused while it would leave fewer than minAvailable
healthy pods (https://kubernetes.io/docs/concepts/workloads/pods/disruptions/#pod-disruption-budgets), so `kubectl
drain`, node upgrades and Karpenter consolidation wait. The catalogue's G20 row ("PDB minAvailable vs replicas / HPA
min", docs/policy-catalogue.md section 2) is this comparison; G19 keeps the budgets that are zero on their own
(maxUnavailable 0, minAvailable 100%).

The PDB and the workload are joined across the files of one run (a PDB in its own file beside the Deployment's, the
usual layout) by the selector (policies/reading/label_selectors.py) and by namespace, where an object that names no
namespace meets any: it lands in the namespace `kubectl apply -n` or its kustomization gives it, which the files do
not say. A Deployment/StatefulSet/ReplicaSet without replicas runs 1 (kubernetes pkg/apis/apps/v1/defaults.go
SetDefaults_Deployment, SetDefaults_StatefulSet, SetDefaults_ReplicaSet: ``*obj.Spec.Replicas = 1``); an HPA or KEDA
ScaledObject of the run that scales the workload sets its replicas (the highest floor counts). A ``minAvailable: 1``
over pods no workload of the files read holds is advice too: one replica, the default, makes it block every eviction.

Silent: minAvailable below the replicas (1 over 2), any maxUnavailable above 0, a percentage (it rounds up from the
replicas, so ``50%`` of 2 allows one; a percentage is left to the controller's arithmetic, not judged here), and the
pods of KubeRay groups and multi-node engines (pdb-allows-disruption and pdb_ray_groups read those).
"""

from __future__ import annotations

from policies.framework import Policy, Resource, unproven
from policies.k8s_generic.pdb_allows_disruption import PDB_TYPES, WHY, multi_node
from policies.k8s_generic.pdb_autoscaler_floor import absent_target_floor
from policies.k8s_generic.pdb_ray_groups import ray_pdb_findings
from policies.kube import as_dict, as_int, get, split_type
from policies.reading.label_selectors import namespaces_meet
from policies.reading.serving import pod_labels, selector_matches

# Kinds whose replicas default to 1 when unset (module docstring).
_DEFAULT_ONE = frozenset({"Deployment", "StatefulSet", "ReplicaSet"})
# Kinds whose pods a PDB may select (a workload of the files read is looked for among them).
_POD_KINDS = _DEFAULT_ONE | {"DaemonSet", "Job", "Pod", "LeaderWorkerSet", "RayCluster", "RayService", "InferenceService"}


def _replicas(workload: Resource) -> int | None:
    kind = split_type(workload.type)[1]
    if kind == "InferenceService":
        return as_int(get(workload.props, "spec", "predictor", "minReplicas"))
    if kind == "LeaderWorkerSet":
        # replicas counts groups of leaderWorkerTemplate.size pods (both default 1; LWS api/leaderworkerset/v1
        # leaderworkerset_types.go): a PDB over its pods weighs pods, not groups (review47b item 4).
        groups = get(workload.props, "spec", "replicas")
        size = get(workload.props, "spec", "leaderWorkerTemplate", "size")
        g = 1 if groups is None else as_int(groups)
        n = 1 if size is None else as_int(size)
        return None if g is None or n is None else g * n
    replicas = get(workload.props, "spec", "replicas")
    if replicas is None and kind in _DEFAULT_ONE and get(workload.props, "spec", "template") is not None:
        return 1
    return as_int(replicas)


def _selected(pdb: Resource, resources: list[Resource], kinds: frozenset[str] | None) -> list[Resource]:
    """The workloads (of `kinds`, None: any) of the run whose pods the PDB's selector matches, in a namespace it may
    share."""
    selector = get(pdb.props, "spec", "selector")
    met = [
        w
        for w in resources
        if (kinds is None or split_type(w.type)[1] in kinds)
        and w is not pdb
        and namespaces_meet(w.props, pdb.props)
        and any(selector_matches(selector, labels) for labels in pod_labels(w))
    ]
    # A workload in the PDB's own named namespace is the one it guards; one that names no namespace (another
    # environment's folder, review47b item 3) joins only when none does.
    own = get(pdb.props, "metadata", "namespace")
    exact = [w for w in met if isinstance(own, str) and own and get(w.props, "metadata", "namespace") == own]
    return exact or met


def _floor_of_unseen(pdb: Resource, resources: list[Resource], wanted: int | None) -> list[tuple[str, str]]:
    """A minAvailable of 1 over pods no workload of the files read holds (set 41 jolyonbrown/inference-platform
    k8s/base/pdb.yaml, whose single-replica Deployment sits in another file of the kustomization): advice."""
    if wanted != 1 or _selected(pdb, resources, _POD_KINDS) or absent_target_floor(pdb, wanted, resources):
        return []  # a ScaledObject's floor over the unread workload: pdb-below-autoscaler-floor says it sharper
    name = get(pdb.props, "metadata", "name")
    return [
        (
            pdb.name,
            unproven(
                f"PodDisruptionBudget {name}: minAvailable 1 over pods no workload of the files read holds; if that "
                f"workload runs one replica (the default when replicas is unset), {WHY}; use maxUnavailable: 1, or "
                f"run two or more replicas"
            ),
        )
    ]


def _autoscaler_floor(workload: Resource, resources: list[Resource]) -> int | None:
    """The highest floor of an HPA (minReplicas, default 1) or KEDA ScaledObject (minReplicaCount > 0) of the run that
    scales the workload (it sets the replicas then), or None."""
    kind, name = split_type(workload.type)[1], get(workload.props, "metadata", "name")
    floors = []
    for r in resources:
        ref = as_dict(get(r.props, "spec", "scaleTargetRef"))
        if ref.get("name") != name or not namespaces_meet(r.props, workload.props):
            continue
        if split_type(r.type) == ("autoscaling", "HorizontalPodAutoscaler") and ref.get("kind") == kind:
            floors.append(as_int(get(r.props, "spec", "minReplicas")) or 1)
        elif split_type(r.type)[1] == "ScaledObject" and (ref.get("kind") or "Deployment") == kind:
            # A floor of 0, KEDA's default, scales to zero, where no pod is left to evict: not a floor here.
            floors.append(as_int(get(r.props, "spec", "minReplicaCount")) or 0)
    floors = [f for f in floors if f > 0]
    return max(floors) if floors else None


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    findings: list[tuple[str, str]] = []
    for pdb in (r for r in resources if r.type in PDB_TYPES):
        spec = as_dict(get(pdb.props, "spec"))
        if spec.get("maxUnavailable") in (0, 0.0, "0", "0%") or spec.get("minAvailable") == "100%":
            continue  # a zero budget on its own: pdb-allows-disruption (G19)
        wanted = as_int(spec.get("minAvailable"))
        if wanted is None or wanted <= 0:
            continue
        if not ray_pdb_findings(pdb, resources, wanted) and not multi_node(pdb, resources):
            findings += _floor_of_unseen(pdb, resources, wanted)
        name = get(pdb.props, "metadata", "name")
        for workload in _selected(pdb, resources, None):
            replicas = _replicas(workload)
            if replicas is None or (replicas == 0 and _autoscaler_floor(workload, resources) is None):
                continue  # unknown, or scaled to zero by hand: no pods to evict (review47b item 5)
            replicas = _autoscaler_floor(workload, resources) or replicas
            if wanted >= replicas:
                kind = split_type(workload.type)[1]
                findings.append(
                    (
                        pdb.name,
                        f"PodDisruptionBudget {name}: minAvailable {wanted} is not below the {replicas} replicas of "
                        f"{kind} {get(workload.props, 'metadata', 'name')}: {WHY}",
                    )
                )
    return findings


POLICY = Policy(
    name="pdb-below-replicas",
    description=(
        "A PodDisruptionBudget's minAvailable must stay below the replicas of the workload it selects (joined across "
        "the run's files; an HPA's or ScaledObject's floor where one scales it): at or above them no pod may be evicted."
    ),
    catalog="G20",
    severity="high",
    # Advisory: a risk, not a failure the files prove (docs/policies.md "Enforcement levels"); --config raises it.
    enforcement="advisory",
    remediation_steps="Use maxUnavailable: 1 (or a minAvailable below the replica count); keep the floor in the HPA's minReplicas, not in the PDB.",
    check_stack=_check,
    rationale=(
        "An eviction is refused while it would leave fewer than minAvailable healthy pods "
        "(https://kubernetes.io/docs/concepts/workloads/pods/disruptions/#pod-disruption-budgets), so `kubectl drain` "
        "and Karpenter's disruption controller wait (https://karpenter.sh/docs/concepts/disruption/#pod-level-controls). "
        "Catalogue row 20 (kyverno deployment-replicas-higher-than-pdb, kube-linter pdb-min-available)."
    ),
)
