"""G21: a PodDisruptionBudget should set unhealthyPodEvictionPolicy: AlwaysAllow.

With the default (IfHealthyBudget), pods that never become Ready (a model that OOMs at startup,
a crash-looping engine) count against the budget, so a broken GPU pod blocks the drain of its
node until someone deletes it by hand.
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import get

PDB_TYPES = ("kubernetes:policy/v1:PodDisruptionBudget",)


def _check(resource: Resource, config: dict) -> list[str]:
    value = get(resource.props, "spec", "unhealthyPodEvictionPolicy")
    if value == "AlwaysAllow":
        return []
    shown = "is not set (IfHealthyBudget)" if value is None else f"is {value}"
    return [
        f"spec.unhealthyPodEvictionPolicy {shown}: crash-looping or never-ready model pods then block node "
        f"drains; set AlwaysAllow"
    ]


POLICY = Policy(
    name="pdb-unhealthy-pod-eviction",
    description="PodDisruptionBudgets should set unhealthyPodEvictionPolicy: AlwaysAllow.",
    catalog="G21",
    severity="medium",
    enforcement="advisory",
    remediation_steps="Add `unhealthyPodEvictionPolicy: AlwaysAllow` to the PodDisruptionBudget's spec (Kubernetes 1.27+ beta, GA in 1.31).",
    resource_types=PDB_TYPES,
    check_resource=_check,
    rationale=(
        '"AlwaysAllow ... allows eviction of misbehaving applications" and is the recommended setting '
        "(https://kubernetes.io/docs/tasks/run-application/configure-pdb/#unhealthy-pod-eviction-policy). "
        "Catalogue row 21 (kube-linter pdb-unhealthy-pod-eviction-policy)."
    ),
)
