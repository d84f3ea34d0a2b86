"""G19: a PodDisruptionBudget must allow at least one voluntary disruption.

`maxUnavailable: 0`, `maxUnavailable: "0%"` or `minAvailable: "100%"` block every eviction:
Karpenter can never consolidate or replace the GPU node, AMI patches never land, and
`kubectl drain` hangs. A `minAvailable` at or above the replicas of the workload it selects is the catalogue's G20
row ("PDB minAvailable vs replicas / HPA min"): pdb-below-replicas (policies/k8s_generic/pdb_below_replicas.py) joins
it across the run's files. The pods of KubeRay groups are read here (policies/k8s_generic/pdb_ray_groups.py).

One engine over several nodes is the exception the pack itself recommends (kuberay-cluster-pdb: "maxUnavailable: 0
for a multi-node engine", and karpenter-multi-node-pool-never-expires keeps its nodes): any eviction stops the whole
engine, so its operators roll its nodes by a planned procedure. A zero budget on the pods of a RayCluster/RayService/
RayJob or a LeaderWorkerSet of the set, or one selecting by the labels KubeRay (``ray.io/...``) or LWS
(``leaderworkerset.sigs.k8s.io/...``) put on the pods they create, is advice there.
"""

from __future__ import annotations

from policies.framework import Policy, Resource, unproven
from policies.k8s_generic.pdb_ray_groups import ray_pdb_findings
from policies.kube import as_dict, as_int, as_list, get, split_type
from policies.reading.serving import namespace_of, pod_labels, selector_matches

PDB_TYPES = ("kubernetes:policy/v1:PodDisruptionBudget", "kubernetes:policy/v1beta1:PodDisruptionBudget")
WHY = "no voluntary eviction is ever allowed, so GPU nodes cannot be drained, consolidated or patched"


_GROUP_KINDS = {("ray.io", "RayCluster"), ("ray.io", "RayService"), ("ray.io", "RayJob")}
_GROUP_LABELS = ("ray.io/", "leaderworkerset.sigs.k8s.io/")
_MULTI_NODE = (
    " (advisory: it selects the pods of a multi-node engine, where any eviction stops the engine and a zero budget "
    "with a planned node roll is the usual choice)"
)


def multi_node(pdb: Resource, resources: list[Resource]) -> bool:
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


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    findings: list[tuple[str, str]] = []
    for pdb in (r for r in resources if r.type in PDB_TYPES):
        spec = as_dict(get(pdb.props, "spec"))
        name = get(pdb.props, "metadata", "name")
        max_unavailable, min_available = spec.get("maxUnavailable"), spec.get("minAvailable")
        zero = None
        if max_unavailable in (0, 0.0, "0", "0%"):
            zero = f"PodDisruptionBudget {name}: maxUnavailable {max_unavailable}: {WHY}"
        elif min_available == "100%":
            zero = f"PodDisruptionBudget {name}: minAvailable 100%: {WHY}"
        if zero is not None:
            findings.append((pdb.name, unproven(zero + _MULTI_NODE) if multi_node(pdb, resources) else zero))
        if zero is None:
            findings.extend((pdb.name, m) for m in ray_pdb_findings(pdb, resources, as_int(min_available)))
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
