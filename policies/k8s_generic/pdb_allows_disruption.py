"""G19: a PodDisruptionBudget must allow at least one voluntary disruption.

`maxUnavailable: 0`, `maxUnavailable: "0%"` or `minAvailable: "100%"` block every eviction:
Karpenter can never consolidate or replace the GPU node, AMI patches never land, and
`kubectl drain` hangs. The same goes for a `minAvailable` at or above the replicas of the
workload it selects, when that workload is in the same set of resources.
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import as_int, get, split_type
from policies.reading.serving import namespace_of, pod_labels, selector_matches

PDB_TYPES = ("kubernetes:policy/v1:PodDisruptionBudget", "kubernetes:policy/v1beta1:PodDisruptionBudget")
_WHY = "no voluntary eviction is ever allowed, so GPU nodes cannot be drained, consolidated or patched"


def _replicas(workload: Resource) -> int | None:
    kind = split_type(workload.type)[1]
    if kind == "InferenceService":
        return as_int(get(workload.props, "spec", "predictor", "minReplicas"))
    return as_int(get(workload.props, "spec", "replicas"))


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    findings = []
    for pdb in (r for r in resources if r.type in PDB_TYPES):
        spec = get(pdb.props, "spec") or {}
        name = get(pdb.props, "metadata", "name")
        max_unavailable, min_available = spec.get("maxUnavailable"), spec.get("minAvailable")
        if max_unavailable in (0, 0.0, "0", "0%"):
            findings.append((pdb.name, f"PodDisruptionBudget {name}: maxUnavailable {max_unavailable}: {_WHY}"))
        elif min_available == "100%":
            findings.append((pdb.name, f"PodDisruptionBudget {name}: minAvailable 100%: {_WHY}"))
        elif (wanted := as_int(min_available)) is not None:
            for workload in resources:
                replicas = _replicas(workload)
                if replicas is None or workload is pdb or namespace_of(workload) != namespace_of(pdb):
                    continue
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
    description="A PodDisruptionBudget must allow at least one pod to be evicted.",
    catalog="G19",
    severity="high",
    enforcement="mandatory",
    remediation_steps="Use maxUnavailable: 1 (or a minAvailable below the replica count); keep the floor in the HPA's minReplicas, not in the PDB.",
    check_stack=_check,
    rationale=(
        "A PDB that allows zero disruptions makes every eviction fail, so `kubectl drain` and Karpenter's disruption "
        "controller wait forever (https://kubernetes.io/docs/tasks/run-application/configure-pdb/; "
        "https://karpenter.sh/docs/concepts/disruption/#pod-level-controls). Catalogue rows 19-20 "
        "(compliance-policies disallowZeroVoluntaryDisruption, kube-linter pdb-max-unavailable)."
    ),
)
