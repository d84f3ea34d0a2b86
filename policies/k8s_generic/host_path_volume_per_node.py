"""G31 through a PersistentVolume: a hostPath PV with no nodeAffinity is a different directory on every node.

A PersistentVolume whose source is ``hostPath`` names a path, not a disk: "HostPath volume (for single node testing
only; WILL NOT WORK in a multi-node cluster; consider using local volume instead)" (the PersistentVolume types list,
https://kubernetes.io/docs/concepts/storage/persistent-volumes/#types-of-persistent-volumes). With no
``spec.nodeAffinity`` the scheduler puts each pod that mounts its claim on any node, and each node has its own
directory at that path. So when the pods of the claim may run on more than one node, what one pod writes (a
download Job's weights) is not there for another, and a server on another node finds an empty directory.

Two forms, both advice (the cluster may have one node, or the files may be on every node):
- on a workload that runs on several nodes by itself: spec.replicas > 1, an HPA or ScaledObject of the run taking
  it above one replica, or a Job's parallelism > 1 (set 38 sandervanvugt/kubeai@c34ba5c llama-deployment.yaml with
  models-pv-pvc.yaml: two llama-server replicas, HPA to 8, on hostPath /opt/models; label G31 on
  Deployment/llama-server);
- on the PersistentVolume, when two or more workloads of the run mount its claim (a download Job and the servers that
  read what it wrote) and nothing puts them all on one node (set 41 colinjlacy/tofu-proxmox-gpu-ubuntu-k3s
  k8s/common/model-storage.yaml: PersistentVolume model-pv, hostPath /data/models, a Job that only *prefers* GPU
  nodes; label G31 on PersistentVolume/model-pv).

And since session 47, one workload alone on such a volume (labellers label it: the pod may start on another node after
a drain, an eviction or a node loss, and find that node's own directory empty, the models it pulled there gone):
advice on the PersistentVolume, and on the workload when it runs a model server or asks for GPUs (spent set 34
kimduquan/JavaEE OpenUP/Ollama/ollama.yaml@3b870ee2: one Ollama replica on a hostPath PV, held silent until then).

Silent: a PV with nodeAffinity (the scheduler keeps the claim's pods on the node that holds the path), a local PV
(spec.local), pods pinned to one node (nodeName, a kubernetes.io/hostname selector or required affinity:
policies.reading.placement.pinned_node), a DaemonSet (every node on purpose).

The claim is bound by the claim's spec.volumeName or the PV's spec.claimRef (name, and namespace where given), or,
where neither names the binding, as the volume controller matches a claim to a volume: the same storageClassName,
the claim's access modes among the PV's, enough capacity, the claim's selector (``_matches``).
"""

from __future__ import annotations

from typing import Any, Iterator, Optional

from policies.framework import Policy, Resource, unproven
from policies.gpu.single_attach_rollout import _autoscaled_to
from policies.kube import (
    WORKLOAD_TYPES,
    as_dict,
    as_int,
    as_list,
    as_quantity,
    get,
    metadata_name,
    pod_specs,
    split_type,
    viewed_resources,
    workload_types,
)
from policies.reading.label_selectors import selector_matches
from policies.reading.node_agents import serving
from policies.reading.placement import pinned_node
from policies.reading.run_objects import binds

PV_TYPE = "kubernetes:core/v1:PersistentVolume"


def _kind(resource: Resource) -> str:
    return split_type(resource.type)[1]


def _host_path_pv(pv: dict) -> Optional[str]:
    """The path of a hostPath PersistentVolume no nodeAffinity pins to a node, else None."""
    spec = as_dict(pv.get("spec"))
    path = get(spec, "hostPath", "path")
    if "nodeAffinity" in spec or not isinstance(path, str):
        return None
    return path


def _objects(kind: str) -> list[Resource]:
    return [r for r in viewed_resources() or () if split_type(r.type) == ("", kind)]


def _class(obj: dict, unset: Optional[str]) -> Optional[str]:
    value = get(obj, "spec", "storageClassName")
    return value if isinstance(value, str) else unset


def _matches(pv: dict, claim: dict) -> bool:
    """True when the volume controller may bind this claim (no volumeName) to this PV (no claimRef) by matching:
    the same storage class (a PV with none is class ""; a claim with none is read as meaning the PV its files wrote
    for it, where no default class intervenes), the claim's access modes among the PV's, a capacity at least the
    request where both parse, and the claim's selector matching the PV's labels
    (https://kubernetes.io/docs/concepts/storage/persistent-volumes/#binding; pkg/controller/volume/persistentvolume
    findMatchingVolume). The files show what was meant; the cluster's default class may still intervene (advice)."""
    if get(claim, "spec", "volumeName") is not None or get(pv, "spec", "claimRef") is not None:
        return False
    wanted = _class(claim, None)
    if wanted is not None and wanted != _class(pv, ""):
        return False
    modes = {m for m in as_list(get(pv, "spec", "accessModes")) if isinstance(m, str)}
    if not {m for m in as_list(get(claim, "spec", "accessModes")) if isinstance(m, str)} <= modes:
        return False
    size = as_quantity(get(pv, "spec", "capacity", "storage"))
    request = as_quantity(get(claim, "spec", "resources", "requests", "storage"))
    if size is not None and request is not None and size < request:
        return False
    selector = get(claim, "spec", "selector")
    return selector is None or selector_matches(selector, as_dict(get(pv, "metadata", "labels")))


def _claim_of(pv: dict) -> list[tuple[Optional[str], str]]:
    """(namespace, name) of the claims of the run bound to this PV: by the claim's volumeName or the PV's claimRef
    (run_objects.binds), or by the controller's matching (``_matches``) when nothing names the binding."""
    found = []
    for claim in _objects("PersistentVolumeClaim"):
        name = metadata_name(claim.props)
        if name and (binds(pv, claim.props) or _matches(pv, claim.props)):
            found.append((get(claim.props, "metadata", "namespace"), name))
    return found


def _mounts(resource: Resource, claims: list[tuple[Optional[str], str]]) -> Iterator[tuple[str, dict, str]]:
    """(path, podspec, claim) of each pod spec of a workload mounting one of the claims (its namespace or none)."""
    namespace = get(resource.props, "metadata", "namespace")
    names = {name for ns, name in claims if ns in (None, namespace) or namespace is None}
    for path, podspec in pod_specs(resource):
        for volume in as_list(podspec.get("volumes")):
            claim = get(volume, "persistentVolumeClaim", "claimName")
            if isinstance(claim, str) and claim in names:
                yield path, podspec, claim


def _spread(resource: Resource) -> Optional[str]:
    """Why one workload runs on several nodes by itself, or None."""
    spec = as_dict(get(resource.props, "spec"))
    kind = _kind(resource)
    if kind in ("Deployment", "StatefulSet", "ReplicaSet"):
        replicas = as_int(spec.get("replicas"))
        if replicas is not None and replicas > 1:
            return f"spec.replicas {replicas}"
        if kind == "Deployment" and (scaled := _autoscaled_to(resource)) is not None:
            return f"{scaled[0]} scales it up to {scaled[1]} replicas"
    if kind == "Job":
        parallel = as_int(spec.get("parallelism"))
        if parallel is not None and parallel > 1:
            return f"spec.parallelism {parallel}"
    return None


def _pvs_of(resource: Resource) -> list[tuple[str, str, list[tuple[Optional[str], str]]]]:
    """(PV name, host path, bound claims) of every unpinned hostPath PV of the run."""
    found = []
    for pv in _objects("PersistentVolume"):
        path = _host_path_pv(pv.props)
        if path is not None and (claims := _claim_of(pv.props)):
            found.append((metadata_name(pv.props) or "?", path, claims))
    return found


def _on_workload(resource: Resource) -> list[str]:
    if _kind(resource) == "DaemonSet":
        return []
    why = _spread(resource)
    # One pod of a model server (or a GPU pod) on such a volume: advice that its files stay behind on a reschedule.
    if why is None and not serving(resource):
        return []
    messages: list[str] = []
    for pv, host, claims in _pvs_of(resource):
        for path, podspec, claim in _mounts(resource, claims):
            if pinned_node(podspec) is not None:
                continue
            bound = f"{path}.volumes: PersistentVolumeClaim {claim} is bound to PersistentVolume {pv}, hostPath {host} with no nodeAffinity"
            if why is None:
                messages.append(
                    unproven(
                        f"{bound}, and nothing pins this model server's pod to one node: when it is rescheduled (a "
                        f"drain, an eviction, a node lost) it may start on a node whose own {host} is empty, and the "
                        f"models pulled or copied there are not found (a new download, or a server with no model); "
                        f"give the PV nodeAffinity (a local PV) so the scheduler keeps the pod on that node, or use "
                        f"storage that follows the pod"
                    )
                )
                continue
            messages.append(
                unproven(
                    f"{bound}, and {why}: every node has its own {host}, so a pod on a node "
                    f"that does not hold the files finds the directory empty (the model is missing, or each replica "
                    f"downloads its own copy); give the PV nodeAffinity (a local PV) and pin the pods to that node, "
                    f"or use shared storage (ReadWriteMany)"
                )
            )
    return messages


def _on_volume(resource: Resource) -> list[str]:
    host = _host_path_pv(resource.props)
    claims = _claim_of(resource.props) if host is not None else []
    if not claims:
        return []
    users: list[tuple[str, Any]] = []
    for workload in viewed_resources() or ():
        if workload.type not in WORKLOAD_TYPES or _kind(workload) == "DaemonSet":
            continue
        for _path, podspec, _claim in _mounts(workload, claims):
            users.append((f"{_kind(workload)} {metadata_name(workload.props)}", pinned_node(podspec)))
    names = sorted({name for name, _ in users})
    nodes = {node for _, node in users}
    if not names or (len(nodes) == 1 and None not in nodes):
        return []
    listed = ", ".join(f"{ns}/{name}" if ns else name for ns, name in claims)
    if len(names) == 1:
        return [
            unproven(
                f"spec.hostPath {host} has no nodeAffinity and its claim {listed} is mounted by {names[0]}, which "
                f"nothing pins to one node: when its pod is rescheduled (a drain, an eviction, a node lost) it may "
                f"start on another node, whose own {host} is empty, and what it pulled or wrote there (the models) "
                f"is not found; give the PV nodeAffinity to the node that holds the path (a local PV), or use storage "
                f"that follows the pod"
            )
        ]
    return [
        unproven(
            f"spec.hostPath {host} has no nodeAffinity and its claim {listed} is mounted by {', '.join(names)}, which "
            f"nothing puts on one node: every node has its own {host}, so what one pod writes there (a download) is "
            f"not there for a pod on another node, which finds the directory empty; give the PV nodeAffinity (a local "
            f"PV) and pin the pods to that node, or use shared storage (ReadWriteMany)"
        )
    ]


def _check(resource: Resource, config: dict) -> list[str]:
    return _on_volume(resource) if resource.type == PV_TYPE else _on_workload(resource)


POLICY = Policy(
    name="host-path-volume-per-node",
    description="A hostPath PersistentVolume with no nodeAffinity is only shared by pods on one node.",
    catalog="G31",
    severity="medium",
    # Advisory: the cluster may have one node, or every node may hold the files (docs/policies.md "Enforcement levels").
    enforcement="advisory",
    remediation_steps=(
        "Give the hostPath PersistentVolume spec.nodeAffinity (better, a local PV) and pin the pods that use it to that "
        "node, or put the weights on storage every node reaches (a ReadWriteMany volume), in the image, or download "
        'them per pod into an emptyDir; annotate llm-serving.io/exempt-host-path-volume-per-node: "<reason>" on a '
        "single-node cluster."
    ),
    resource_types=workload_types(PV_TYPE),
    check_resource=_check,
    rationale=(
        '"HostPath volume (for single node testing only; WILL NOT WORK in a multi-node cluster; consider using local '
        'volume instead)" (https://kubernetes.io/docs/concepts/storage/persistent-volumes/#types-of-persistent-volumes). '
        "Catalogue row 31 (hostPath), through the PV a claim binds."
    ),
)
