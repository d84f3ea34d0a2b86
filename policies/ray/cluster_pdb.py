"""G18: a RayCluster that serves a model needs a PodDisruptionBudget over its pods.

KubeRay v1.7.0 creates no PodDisruptionBudget for a RayCluster (none in ray-operator/controllers), so
a node drain, Karpenter consolidation or drift can evict every pod of the engine at once; one lost
pod already stops a multi-node engine. KubeRay labels every pod ``ray.io/cluster: <name>``
(ray-operator/controllers/ray/common/pod.go:1170, utils/constant.go:19), ``ray.io/node-type`` and
``ray.io/group``, beside the template's own labels; a PDB selecting any of those sets counts.
(A RayService's workers are checked by serving-app-pdb.)

Advisory, as serving-app-pdb: a missing PodDisruptionBudget is never proven by the files checked, because a PDB is
usually written in a file of its own (or by a chart, or a platform policy) and a pull request that adds the cluster
need not touch it. The finding says what the set lacks; it does not block. (Before issue 32 this policy blocked while
serving-app-pdb did not, for the same absence.)
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import as_dict, get, requests_gpu, split_type
from policies.reading.ray_cluster import groups
from policies.reading.serving import namespace_of, selector_matches

PDB_TYPES = ("kubernetes:policy/v1:PodDisruptionBudget", "kubernetes:policy/v1beta1:PodDisruptionBudget")


def pod_label_sets(cluster: Resource) -> list[dict]:
    """Labels of the cluster's pods, per group: the template's plus those KubeRay adds."""
    name = get(cluster.props, "metadata", "name")
    out = []
    for group in groups(cluster):
        labels = dict(as_dict(get(group.spec, "template", "metadata", "labels")))
        labels.update(
            {
                "ray.io/cluster": name,
                "ray.io/is-ray-node": "yes",
                "ray.io/node-type": "head" if group.is_head else "worker",
                "ray.io/group": "headgroup" if group.is_head else group.name,
            }
        )
        out.append(labels)
    return out


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    pdbs = [r for r in resources if r.type in PDB_TYPES]
    findings = []
    for r in resources:
        if split_type(r.type) != ("ray.io", "RayCluster"):
            continue
        if not any(requests_gpu(g.podspec) for g in groups(r)):
            continue
        workers = [labels for labels in pod_label_sets(r) if labels["ray.io/node-type"] == "worker"]
        if all(
            any(namespace_of(p) == namespace_of(r) and selector_matches(get(p.props, "spec", "selector"), labels) for p in pdbs)
            for labels in workers
        ):
            continue
        findings.append(
            (
                r.name,
                f"RayCluster {get(r.props, 'metadata', 'name')}: no PodDisruptionBudget selects its GPU "
                f"worker pods (KubeRay creates none), so a drain or Karpenter consolidation can evict "
                f"them together and stop the engine; add a PDB (maxUnavailable: 0 for a multi-node engine) on "
                f"ray.io/cluster: {get(r.props, 'metadata', 'name')}",
            )
        )
    return findings


POLICY = Policy(
    name="kuberay-cluster-pdb",
    description="A RayCluster with GPU workers must have a PodDisruptionBudget that selects its worker pods.",
    rationale="KubeRay v1.7.0 creates no PodDisruptionBudget for a RayCluster; the eviction API (node drains, Karpenter consolidation and drift: https://karpenter.sh/docs/concepts/disruption/) is slowed only by a PDB, and one evicted pod stops a multi-node engine.",
    catalog="G18",
    severity="high",
    # Advisory like serving-app-pdb: the PDB may live in a file outside the set (module docstring).
    enforcement="advisory",
    remediation_steps="Add a PodDisruptionBudget with unhealthyPodEvictionPolicy: AlwaysAllow and selector ray.io/cluster: "
    "<RayCluster name>: maxUnavailable: 0 for one engine over several nodes (any eviction stops it; roll its nodes by a "
    "planned procedure and exempt the PDB from pdb-allows-disruption with that reason), else maxUnavailable: 1; annotate "
    'the pod templates karpenter.sh/do-not-disrupt: "true" as well.',
    check_stack=_check,
)
