"""G18: a serving app needs a PodDisruptionBudget that selects its pods.

Karpenter consolidation, drift and expiry, node upgrades and `kubectl drain` all evict through
the eviction API, which only a PDB can slow down. Without one, every replica of a model can be
evicted at once, and each comes back only after a multi-minute reload.
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import get, split_type
from policies.serving import selector_matches, unselected_serving_apps

PDB_TYPES = ("kubernetes:policy/v1:PodDisruptionBudget", "kubernetes:policy/v1beta1:PodDisruptionBudget")


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    findings = []
    for app in unselected_serving_apps(resources, ("PodDisruptionBudget",),
                                       lambda pdb, labels: selector_matches(get(pdb.props, "spec", "selector"), labels)):
        kind = split_type(app.type)[1]
        findings.append((app.name, f"{kind} {get(app.props, 'metadata', 'name')}: no PodDisruptionBudget selects "
                                   f"its pods, so a node drain or Karpenter consolidation can evict every replica "
                                   f"at once; add a PDB with maxUnavailable: 1"))
    return findings


POLICY = Policy(
    name="serving-app-pdb",
    description="Every serving app (Deployment, StatefulSet, LeaderWorkerSet or InferenceService running a model server) must have a PodDisruptionBudget.",
    catalog="G18",
    severity="high",
    enforcement="advisory",
    remediation_steps=(
        "Add a policy/v1 PodDisruptionBudget in the app's namespace whose selector matches the pod labels "
        "(for an InferenceService: serving.kserve.io/inferenceservice: <name>), with maxUnavailable: 1 and "
        "unhealthyPodEvictionPolicy: AlwaysAllow."),
    check_stack=_check,
    rationale=(
        "Voluntary disruptions (drain, Karpenter consolidation/drift/expiry) respect PodDisruptionBudgets and "
        "nothing else (https://kubernetes.io/docs/concepts/workloads/pods/disruptions/; "
        "https://karpenter.sh/docs/concepts/disruption/). A model replica takes minutes to return, so losing all "
        "of them at once is an outage. Catalogue row 18 (Kyverno require-pdb, Polaris missingPodDisruptionBudget); "
        "a serving app here is a long-running controller whose pods run a model server, not a Job or a Ray "
        "cluster (KubeRay manages its own pods)."),
)
