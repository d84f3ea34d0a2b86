"""G19 on the pods KubeRay creates: a PodDisruptionBudget resolved against a Ray cluster's head and worker groups.

KubeRay labels every pod it creates (ray-project/kuberay v1.7.0 ray-operator/controllers/ray/common/pod.go:1167-1190
labelPod): ``ray.io/is-ray-node: yes``, ``ray.io/cluster: <RayCluster name>``, ``ray.io/node-type: head|worker``,
``ray.io/group: <groupName>`` (``headgroup`` for the head: utils/constant.go:19-23, :351), ``ray.io/identifier``,
``app.kubernetes.io/name: kuberay``, ``app.kubernetes.io/created-by: kuberay-operator``, then the group template's
own labels (never overriding node-type, group or cluster). A RayService's RayCluster gets a generated name, so
``ray.io/cluster`` is known only for a RayCluster.

One finding: a ``minAvailable`` at or above the fixed pod count of the group it selects (zero voluntary
disruptions: the GPU node is never drained; blocking for a one-pod worker group beside a head with no GPUs, where no
engine spans nodes, else advice as pdb_allows_disruption's multi-node exception). A selector that selects no pod of
the Ray objects beside it (``ray.io/group-name``, a RayService's name as ``ray.io/cluster``) is G18 pdb-selects-pods
(policies/k8s_generic/pdb_selects_pods.py).
"""

from __future__ import annotations

from typing import Any, Optional

from policies.framework import unproven
from policies.kube import as_dict, as_int, get, split_type
from policies.reading.ray_cluster import RayGroup, cluster_spec, groups
from policies.reading.serving import namespace_of, selector_matches

_WHY = "no voluntary eviction is ever allowed, so GPU nodes cannot be drained, consolidated or patched"


def group_labels(resource: Any, group: RayGroup) -> dict:
    """The labels KubeRay puts on one group's pods (module docstring)."""
    labels = dict(as_dict(get(group.spec, "template", "metadata", "labels")))
    labels.update(
        {
            "ray.io/is-ray-node": "yes",
            "ray.io/node-type": "head" if group.is_head else "worker",
            "ray.io/group": "headgroup" if group.is_head else group.name,
            "app.kubernetes.io/name": "kuberay",
            "app.kubernetes.io/created-by": "kuberay-operator",
        }
    )
    if split_type(resource.type)[1] == "RayCluster":
        labels["ray.io/cluster"] = get(resource.props, "metadata", "name")
    return labels


def _fixed_pods(spec: dict, group: RayGroup) -> Optional[int]:
    """The group's pod count when autoscaling cannot raise it: in-tree autoscaling off, or maxReplicas = replicas."""
    pods = group.pods()
    if group.is_head or pods is None:
        return pods
    top = as_int(group.spec.get("maxReplicas"))
    if get(spec, "enableInTreeAutoscaling") is True and (
        top is None or top * (as_int(group.spec.get("numOfHosts", 1)) or 1) > pods
    ):
        return None
    return pods


def ray_pdb_findings(pdb: Any, resources: list, wanted: Optional[int]) -> list[str]:
    """G19 findings of one PDB against the Ray objects of its namespace (module docstring)."""
    selector = get(pdb.props, "spec", "selector")
    name = get(pdb.props, "metadata", "name")
    rays = [r for r in resources if cluster_spec(r) is not None and namespace_of(r) == namespace_of(pdb)]
    if not rays or not isinstance(selector, dict):
        return []
    found = []
    for ray in rays:
        spec = cluster_spec(ray)[1]  # type: ignore[index]
        all_groups = groups(ray)
        head_gpus = next((g.pod_gpus() for g in all_groups if g.is_head), 0)
        for group in all_groups:
            if not selector_matches(selector, group_labels(ray, group)):
                continue
            pods = _fixed_pods(spec, group)
            if wanted is None or pods is None or wanted < pods:
                continue
            kind = split_type(ray.type)[1]
            message = (
                f"PodDisruptionBudget {name}: minAvailable {wanted} is not below the {pods} pod(s) of {kind} "
                f"{get(ray.props, 'metadata', 'name')}'s {'head' if group.is_head else 'worker group ' + group.name} "
                f"(KubeRay labels them ray.io/group={group_labels(ray, group)['ray.io/group']}): {_WHY}"
            )
            single = not group.is_head and pods == 1 and not head_gpus
            found.append(
                message
                if single
                else unproven(
                    message + " (advisory: these pods may carry one engine over several nodes, where a "
                    "zero budget with a planned node roll is the usual choice)"
                )
            )
    return found
