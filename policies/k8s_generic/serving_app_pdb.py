"""G18: a serving app needs a PodDisruptionBudget that selects its pods.

Karpenter consolidation, drift and expiry, node upgrades and `kubectl drain` all evict through
the eviction API, which only a PDB can slow down. Without one, every replica of a model can be
evicted at once, and each comes back only after a multi-minute reload.
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import as_dict, get, split_type
from policies.reading.engines import ray_gpu_workers
from policies.reading.ray_cluster import groups
from policies.reading.serving import namespace_of, selector_matches, unselected_serving_apps

PDB_TYPES = ("kubernetes:policy/v1:PodDisruptionBudget", "kubernetes:policy/v1beta1:PodDisruptionBudget")


def ray_worker_labels(resource: Resource) -> list[dict]:
    """The label sets of a RayService's worker pods: the template's labels plus those KubeRay adds
    (ray-operator/controllers/ray/common/pod.go labelPod at v1.7.0: ray.io/is-ray-node "yes",
    ray.io/node-type "worker", ray.io/group <groupName>; ray.io/cluster is the generated cluster's name)."""
    found = []
    for group in groups(resource):
        if group.is_head:
            continue
        labels = dict(as_dict(get(group.spec, "template", "metadata", "labels")))
        labels.update({"ray.io/is-ray-node": "yes", "ray.io/node-type": "worker", "ray.io/group": group.name})
        found.append(labels)
    return found


def _ray_services_without_pdb(resources: list[Resource]) -> list[tuple[str, str]]:
    """RayServices whose Serve replicas run on GPU workers that no PDB protects: KubeRay creates none
    (no PodDisruptionBudget in ray-operator/controllers at v1.7.0), and a drained GPU worker takes its
    replicas with it."""
    pdbs = [r for r in resources if r.type in PDB_TYPES]
    findings = []
    for r in resources:
        if split_type(r.type) != ("ray.io", "RayService") or not ray_gpu_workers(r):
            continue
        if any(
            namespace_of(pdb) == namespace_of(r) and selector_matches(get(pdb.props, "spec", "selector"), labels)
            for pdb in pdbs
            for labels in ray_worker_labels(r)
        ):
            continue
        findings.append(
            (
                r.name,
                f"RayService {get(r.props, 'metadata', 'name')}: no PodDisruptionBudget selects its GPU "
                f"worker pods (KubeRay creates none), so a node drain or Karpenter consolidation can evict "
                f"every Serve replica at once; add a PDB with maxUnavailable: 1 on ray.io/node-type: worker "
                f"and the group's labels",
            )
        )
    return findings


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    findings = []
    for app in unselected_serving_apps(
        resources, ("PodDisruptionBudget",), lambda pdb, labels: selector_matches(get(pdb.props, "spec", "selector"), labels)
    ):
        kind = split_type(app.type)[1]
        findings.append(
            (
                app.name,
                f"{kind} {get(app.props, 'metadata', 'name')}: no PodDisruptionBudget selects "
                f"its pods, so a node drain or Karpenter consolidation can evict every replica "
                f"at once; add a PDB with maxUnavailable: 1",
            )
        )
    return findings + _ray_services_without_pdb(resources)


POLICY = Policy(
    name="serving-app-pdb",
    description="Every serving app (Deployment, StatefulSet, LeaderWorkerSet or InferenceService running a model server, and a RayService's GPU workers) must have a PodDisruptionBudget.",
    catalog="G18",
    severity="high",
    enforcement="advisory",
    remediation_steps=(
        "Add a policy/v1 PodDisruptionBudget in the app's namespace whose selector matches the pod labels "
        "(for an InferenceService: serving.kserve.io/inferenceservice: <name>), with maxUnavailable: 1 and "
        "unhealthyPodEvictionPolicy: AlwaysAllow."
    ),
    check_stack=_check,
    rationale=(
        "Voluntary disruptions (drain, Karpenter consolidation/drift/expiry) respect PodDisruptionBudgets and "
        "nothing else (https://kubernetes.io/docs/concepts/workloads/pods/disruptions/; "
        "https://karpenter.sh/docs/concepts/disruption/). A model replica takes minutes to return, so losing all "
        "of them at once is an outage. Catalogue row 18 (Kyverno require-pdb, Polaris missingPodDisruptionBudget); "
        "a serving app here is a long-running controller whose pods run a model server, not a Job; a RayService's "
        "GPU workers count too, since KubeRay creates no PDB for them."
    ),
)
