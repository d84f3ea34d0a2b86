"""G19: a PodDisruptionBudget must allow at least one voluntary disruption.

`maxUnavailable: 0`, `maxUnavailable: "0%"` or `minAvailable: "100%"` block every eviction:
Karpenter can never consolidate or replace the GPU node, AMI patches never land, and
`kubectl drain` hangs. The same goes for a `minAvailable` at or above the replicas of the
workload it selects, when that workload is in the same set of resources (and no HPA of the set keeps more replicas
than that floor: its minReplicas is the workload's replica count then).

One engine over several nodes is the exception the pack itself recommends (kuberay-cluster-pdb: "maxUnavailable: 0
for a multi-node engine", and karpenter-multi-node-pool-never-expires keeps its nodes): any eviction stops the whole
engine, so its operators roll its nodes by a planned procedure. A zero budget on the pods of a RayCluster/RayService/
RayJob or a LeaderWorkerSet of the set, or one selecting by the labels KubeRay (``ray.io/...``) or LWS
(``leaderworkerset.sigs.k8s.io/...``) put on the pods they create, is advice there.
"""

from __future__ import annotations

from policies.framework import Policy, Resource, unproven
from policies.k8s_generic.pdb_autoscaler_floor import absent_target_floor
from policies.k8s_generic.pdb_ray_groups import ray_pdb_findings
from policies.kube import as_dict, as_int, as_list, get, split_type
from policies.reading.serving import namespace_of, pod_labels, selector_matches

PDB_TYPES = ("kubernetes:policy/v1:PodDisruptionBudget", "kubernetes:policy/v1beta1:PodDisruptionBudget")
_WHY = "no voluntary eviction is ever allowed, so GPU nodes cannot be drained, consolidated or patched"


# Kinds whose replicas default to 1 when unset (kubernetes pkg/apis/apps/v1/defaults.go SetDefaults_Deployment,
# SetDefaults_StatefulSet, SetDefaults_ReplicaSet: ``*obj.Spec.Replicas = 1``).
_DEFAULT_ONE = frozenset({"Deployment", "StatefulSet", "ReplicaSet"})
# Kinds whose pods a PDB may select (a workload of the files read is looked for among them).
_POD_KINDS = _DEFAULT_ONE | {"DaemonSet", "Job", "Pod", "LeaderWorkerSet", "RayCluster", "RayService", "InferenceService"}


def _replicas(workload: Resource) -> int | None:
    kind = split_type(workload.type)[1]
    if kind == "InferenceService":
        return as_int(get(workload.props, "spec", "predictor", "minReplicas"))
    replicas = get(workload.props, "spec", "replicas")
    if replicas is None and kind in _DEFAULT_ONE and get(workload.props, "spec", "template") is not None:
        return 1
    return as_int(replicas)


def _selects_nothing_read(pdb: Resource, resources: list[Resource]) -> bool:
    """True when no workload of the files read, in the PDB's namespace, has pods the PDB's selector matches."""
    selector = get(pdb.props, "spec", "selector")
    for workload in resources:
        if split_type(workload.type)[1] not in _POD_KINDS or namespace_of(workload) != namespace_of(pdb):
            continue
        if any(selector_matches(selector, labels) for labels in pod_labels(workload)):
            return False
    return True


def _floor_of_unseen(pdb: Resource, resources: list[Resource], wanted: int | None) -> list[tuple[str, str]]:
    """A minAvailable of 1 over pods no workload of the files read holds (set 41 jolyonbrown/inference-platform
    k8s/base/pdb.yaml, whose single-replica Deployment sits in another file of the kustomization): advice, since one
    replica, the default, makes it block every eviction."""
    if wanted != 1 or not _selects_nothing_read(pdb, resources) or absent_target_floor(pdb, wanted, resources):
        return []  # a ScaledObject's floor over the unread workload: pdb-below-autoscaler-floor (G20) says it sharper
    name = get(pdb.props, "metadata", "name")
    return [
        (
            pdb.name,
            unproven(
                f"PodDisruptionBudget {name}: minAvailable 1 over pods no workload of the files read holds; if that "
                f"workload runs one replica (the default when replicas is unset), {_WHY}; use maxUnavailable: 1, or "
                f"run two or more replicas"
            ),
        )
    ]


_GROUP_KINDS = {("ray.io", "RayCluster"), ("ray.io", "RayService"), ("ray.io", "RayJob")}
_GROUP_LABELS = ("ray.io/", "leaderworkerset.sigs.k8s.io/")
_MULTI_NODE = (
    " (advisory: it selects the pods of a multi-node engine, where any eviction stops the engine and a zero budget "
    "with a planned node roll is the usual choice)"
)


def _multi_node(pdb: Resource, resources: list[Resource]) -> bool:
    """True when the PDB selects the pods of an engine spread over several nodes (module docstring)."""
    selector = get(pdb.props, "spec", "selector")
    keys = [str(k) for k in as_dict(get(selector, "matchLabels"))]
    keys += [str(get(e, "key")) for e in as_list(get(selector, "matchExpressions")) if isinstance(e, dict)]
    if any(k.startswith(_GROUP_LABELS) for k in keys):
        return True
    for workload in resources:
        group_kind = split_type(workload.type)
        if group_kind not in _GROUP_KINDS and group_kind[1] != "LeaderWorkerSet":
            continue
        if namespace_of(workload) == namespace_of(pdb) and any(
            selector_matches(selector, labels) for labels in pod_labels(workload)
        ):
            return True
    return False


def _hpa_floor(workload: Resource, resources: list[Resource]) -> int | None:
    """The highest minReplicas of an HPA of the set that scales the workload (it sets the replicas), or None."""
    kind, name = split_type(workload.type)[1], get(workload.props, "metadata", "name")
    floors = [
        as_int(get(r.props, "spec", "minReplicas")) or 1
        for r in resources
        if split_type(r.type) == ("autoscaling", "HorizontalPodAutoscaler")
        and get(r.props, "spec", "scaleTargetRef", "name") == name
        and get(r.props, "spec", "scaleTargetRef", "kind") == kind
        and namespace_of(r) == namespace_of(workload)
    ]
    # A KEDA ScaledObject's minReplicaCount is the floor of the HPA it creates (kind Deployment when unset; a floor of
    # 0, KEDA's default, scales to zero, where no pod is left to evict: not a floor here).
    floors += [
        as_int(get(r.props, "spec", "minReplicaCount")) or 0
        for r in resources
        if split_type(r.type)[1] == "ScaledObject"
        and get(r.props, "spec", "scaleTargetRef", "name") == name
        and (get(r.props, "spec", "scaleTargetRef", "kind") or "Deployment") == kind
        and namespace_of(r) == namespace_of(workload)
    ]
    floors = [f for f in floors if f > 0]
    return max(floors) if floors else None


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    findings: list[tuple[str, str]] = []
    for pdb in (r for r in resources if r.type in PDB_TYPES):
        spec = as_dict(get(pdb.props, "spec"))
        name = get(pdb.props, "metadata", "name")
        max_unavailable, min_available = spec.get("maxUnavailable"), spec.get("minAvailable")
        zero = None
        if max_unavailable in (0, 0.0, "0", "0%"):
            zero = f"PodDisruptionBudget {name}: maxUnavailable {max_unavailable}: {_WHY}"
        elif min_available == "100%":
            zero = f"PodDisruptionBudget {name}: minAvailable 100%: {_WHY}"
        if zero is not None:
            findings.append((pdb.name, unproven(zero + _MULTI_NODE) if _multi_node(pdb, resources) else zero))
        if zero is None:
            ray = ray_pdb_findings(pdb, resources, as_int(min_available))
            findings.extend((pdb.name, m) for m in ray)
            # Pods of a Ray group are KubeRay's (pdb_ray_groups reads those); others may be in files not read.
            unseen = not ray and not _multi_node(pdb, resources)
            findings.extend(_floor_of_unseen(pdb, resources, as_int(min_available)) if unseen else [])
        if zero is None and (wanted := as_int(min_available)) is not None:
            for workload in resources:
                replicas = _replicas(workload)
                if replicas is None or workload is pdb or namespace_of(workload) != namespace_of(pdb):
                    continue
                replicas = _hpa_floor(workload, resources) or replicas
                if any(selector_matches(spec.get("selector"), labels) for labels in pod_labels(workload)) and wanted >= replicas:
                    kind = split_type(workload.type)[1]
                    findings.append(
                        (
                            pdb.name,
                            f"PodDisruptionBudget {name}: minAvailable {wanted} is not below the "
                            f"{replicas} replicas of {kind} {get(workload.props, 'metadata', 'name')}: {_WHY}",
                        )
                    )
    return findings


POLICY = Policy(
    name="pdb-allows-disruption",
    description="A PodDisruptionBudget must allow at least one pod to be evicted; selectors are resolved against the pods operators create (KubeRay's ray.io/group, ray.io/node-type labels per head and worker group).",
    catalog="G19",
    severity="high",
    # Advisory: a risk, not a failure the files prove (docs/policies.md "Enforcement levels"); --config raises it.
    enforcement="advisory",
    remediation_steps="Use maxUnavailable: 1 (or a minAvailable below the replica count); keep the floor in the HPA's minReplicas, not in the PDB.",
    check_stack=_check,
    rationale=(
        "A PDB that allows zero disruptions makes every eviction fail, so `kubectl drain` and Karpenter's disruption "
        "controller wait forever (https://kubernetes.io/docs/tasks/run-application/configure-pdb/; "
        "https://karpenter.sh/docs/concepts/disruption/#pod-level-controls). Catalogue rows 19-20 "
        "(compliance-policies disallowZeroVoluntaryDisruption, kube-linter pdb-max-unavailable)."
    ),
)
