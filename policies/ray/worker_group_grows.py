"""G91: a KubeRay worker group whose maxReplicas lies above its replicas grows only with the in-tree autoscaler.

KubeRay keeps each worker group at ``replicas`` clamped to [minReplicas, maxReplicas] (ray-project/kuberay v1.7.0
ray-operator/controllers/ray/utils/util.go:389-407, GetWorkerGroupDesiredReplicas); only the Ray autoscaler, which
KubeRay injects into the head pod when ``enableInTreeAutoscaling`` is true (common/pod.go:242-243,
utils/util.go:751-753 IsAutoscalingEnabled), ever writes a larger ``replicas``. A group that says maxReplicas 10 with
replicas 1 and no in-tree autoscaling therefore stays at one pod whatever the load: the ceiling is never used. Read for
every Ray cluster form the pack reads (RayCluster spec, RayService rayClusterConfig, RayJob rayClusterSpec:
policies/reading/ray_cluster.py). Forms: spent set 79 djleeam/kuberay-eks clusters/ray-cluster.complete.yaml
(small-group replicas 1, maxReplicas 10) and apps/mobilenet/ray-service.mobilenet.yaml (maxReplicas 5).

Advice, never blocking: the cluster serves at its fixed size; what is lost is the headroom the manifest asked for.
A maxReplicas left at the CRD default (2147483647) is not a ceiling anyone chose and is not read; nor is a group whose
maxReplicas equals its pods.
"""

from __future__ import annotations

from policies.framework import Policy, Resource, unproven
from policies.kube import as_int, get
from policies.reading.ray_cluster import RAY_TYPES, cluster_spec, groups

_CRD_DEFAULT_MAX = 2147483647


def _check(resource: Resource, config: dict) -> list[str]:
    found = cluster_spec(resource)
    if found is None:
        return []
    prefix, spec = found
    if get(spec, "enableInTreeAutoscaling") is True:
        return []
    messages: list[str] = []
    for group in groups(resource):
        if group.is_head:
            continue
        top = as_int(group.spec.get("maxReplicas"))
        raw = group.spec.get("replicas", group.spec.get("minReplicas", 0))
        count = as_int(raw)
        if top is None or count is None or top >= _CRD_DEFAULT_MAX or top <= max(count, 0):
            continue
        said = "replicas" if "replicas" in group.spec else ("minReplicas" if "minReplicas" in group.spec else "default")
        shown = f"{said} {count}" if said != "default" else "replicas unset (0)"
        messages.append(
            unproven(
                f"{group.path} ({group.name}): maxReplicas {top} above {shown}, but {prefix}.enableInTreeAutoscaling "
                f"is not true: KubeRay keeps the group at replicas (clamped to [minReplicas, maxReplicas]) and only the "
                f"Ray autoscaler it injects with enableInTreeAutoscaling ever adds workers, so the group stays at "
                f"{max(count, 0)} pod(s) under any load; set enableInTreeAutoscaling: true, or make maxReplicas the "
                f"size you run"
            )
        )
    return messages


POLICY = Policy(
    name="ray-worker-group-grows",
    description=(
        "A KubeRay worker group (RayCluster, RayService rayClusterConfig, RayJob rayClusterSpec) whose maxReplicas is "
        "above its replicas has enableInTreeAutoscaling: true on its cluster; otherwise nothing grows it (advice)."
    ),
    catalog="G91",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Set enableInTreeAutoscaling: true on the RayCluster (or the RayService's rayClusterConfig) so the Ray "
        "autoscaler scales the group between minReplicas and maxReplicas, or set maxReplicas to the replicas you run."
    ),
    config_schema={},
    resource_types=RAY_TYPES,
    check_resource=_check,
    rationale=(
        "KubeRay reconciles a worker group to its replicas within [minReplicas, maxReplicas]; only the in-tree Ray "
        "autoscaler (enableInTreeAutoscaling) changes replicas, so a maxReplicas above replicas is unused without it "
        "(ray-project/kuberay v1.7.0 utils/util.go:389-407, common/pod.go:242-243)."
    ),
)
