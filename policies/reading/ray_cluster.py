"""Read KubeRay objects (RayCluster, RayService, RayJob) as the engine hands them to policies.

A RayCluster spec sits at `spec` (RayCluster), `spec.rayClusterConfig` (RayService) or
`spec.rayClusterSpec` (RayJob); its head group and worker groups carry `rayStartParams` (all
strings) and a pod template (KubeRay v1 CRD, ray-project/kuberay v1.7.0
ray-operator/config/crd/bases). The Ray container is the
first container of each pod (KubeRay utils.RayContainerIndex = 0). Nothing here raises on odd
input: unreadable values come back as None.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from policies.kube import as_dict, as_int, as_list, as_quantity, containers, get, is_ray, requests_gpu, split_type

RAY_TYPES: tuple[str, ...] = (
    "kubernetes:ray.io/v1:RayCluster",
    "kubernetes:ray.io/v1:RayService",
    "kubernetes:ray.io/v1:RayJob",
    "kubernetes:ray.io/v1alpha1:RayCluster",
    "kubernetes:ray.io/v1alpha1:RayService",
    "kubernetes:ray.io/v1alpha1:RayJob",
)
_CLUSTER_PATH = {
    "RayCluster": ("spec",),
    "RayService": ("spec", "rayClusterConfig"),
    "RayJob": ("spec", "rayClusterSpec"),
    # AIBrix's RayClusterFleet renders RayClusters from spec.template.spec.
    "RayClusterFleet": ("spec", "template", "spec"),
}


@dataclass(frozen=True)
class RayGroup:
    """The head group or one worker group: where it is, its ray start parameters, its pod spec."""

    path: str  # e.g. spec.headGroupSpec, spec.workerGroupSpecs[0]
    name: str  # "head" or the worker group's groupName
    is_head: bool
    spec: dict  # the group object itself
    podspec: dict

    @property
    def start_params(self) -> dict:
        """`rayStartParams` (string values), or {}."""
        return as_dict(self.spec.get("rayStartParams"))

    @property
    def ray_container(self) -> dict:
        """The Ray container (the pod's first container), or {}."""
        found = as_list(self.podspec.get("containers"))
        return found[0] if found and isinstance(found[0], dict) else {}

    def pod_gpus(self) -> int | None:
        """GPUs Ray sees in one pod: `num-gpus` if given, else the Ray container's GPU limit
        (KubeRay copies the first non-zero limit whose name ends in "gpu", keys sorted, into
        `ray start --num-gpus`: kuberay v1.3.0 ray-operator/controllers/ray/common/pod.go:835-839,
        v1.7.0 pod.go:1453-1455; so amd.com/gpu counts as nvidia.com/gpu does)."""
        if "num-gpus" in self.start_params:
            return as_int(self.start_params["num-gpus"])
        limits = as_dict(as_dict(self.ray_container.get("resources")).get("limits"))
        for key in sorted(str(name) for name in limits):
            if not key.endswith("gpu"):
                continue
            quantity = as_quantity(limits[key])
            if quantity is not None and float(quantity) == 0:
                continue
            return int(quantity) if quantity is not None and float(quantity).is_integer() else None
        return 0

    def pods(self) -> int | None:
        """Pods of this group: 1 for the head; replicas (else minReplicas, KubeRay's default) x numOfHosts."""
        if self.is_head:
            return 1
        replicas = self.spec.get("replicas", self.spec.get("minReplicas", 0))
        count, hosts = as_int(replicas), as_int(self.spec.get("numOfHosts", 1))
        if count is None or hosts is None:
            return None
        return count * hosts


def cluster_spec(resource: Any) -> tuple[str, dict] | None:
    """(path, RayCluster spec) of a KubeRay resource, or None for anything else."""
    group, kind = split_type(resource.type)
    if not is_ray(resource.type) or kind not in _CLUSTER_PATH:
        return None
    path = _CLUSTER_PATH[kind]
    spec = get(resource.props, *path)
    return (".".join(path), spec) if isinstance(spec, dict) else None


def groups(resource: Any) -> list[RayGroup]:
    """The head group, then the worker groups, of a KubeRay resource (those with a pod spec)."""
    found = cluster_spec(resource)
    if found is None:
        return []
    prefix, spec = found
    out = []
    head = as_dict(spec.get("headGroupSpec"))
    if isinstance(pod := get(head, "template", "spec"), dict):
        out.append(RayGroup(f"{prefix}.headGroupSpec", "head", True, head, pod))
    for i, worker in enumerate(as_list(spec.get("workerGroupSpecs"))):
        if isinstance(worker, dict) and isinstance(pod := get(worker, "template", "spec"), dict):
            name = worker.get("groupName")
            out.append(
                RayGroup(f"{prefix}.workerGroupSpecs[{i}]", name if isinstance(name, str) else f"#{i}", False, worker, pod)
            )
    return out


def cluster_gpus(resource: Any) -> tuple[int, list[str]] | None:
    """GPUs of the whole Ray cluster and how they add up ("head 0", "gpu-workers 2 x 8"); None when
    a count cannot be read."""
    total, parts = 0, []
    for g in groups(resource):
        per_pod, pods = g.pod_gpus(), g.pods()
        if per_pod is None or pods is None:
            return None
        total += per_pod * pods
        parts.append(f"head {per_pod}" if g.is_head else f"{g.name} {pods} x {per_pod}")
    return total, parts


def kuberay_created_pod(resource: Any) -> bool:
    """A Pod that KubeRay created for a RayCluster: labelled ray.io/cluster (pod.go labelPod, which no template
    overrides) and owned by the RayCluster as its controller."""
    if split_type(resource.type)[1] != "Pod" or not isinstance(resource.props, dict):
        return False
    labels = get(resource.props, "metadata", "labels")
    owners = get(resource.props, "metadata", "ownerReferences")
    owned = isinstance(owners, list) and any(
        isinstance(o, dict) and o.get("kind") == "RayCluster" and o.get("controller") is True for o in owners
    )
    return isinstance(labels, dict) and "ray.io/cluster" in labels and owned


def ray_gpu_workers(resource: Any) -> list[tuple[str, dict, dict]]:
    """(pod spec path, podspec, container) of every GPU container of a Ray cluster's worker groups
    (the groups as policies.reading.ray_cluster reads them)."""
    found = []
    for group in groups(resource):
        if group.is_head:
            continue
        for container in containers(group.podspec):
            if requests_gpu({"containers": [container]}):
                found.append((f"{group.path}.template.spec", group.podspec, container))
    return found
