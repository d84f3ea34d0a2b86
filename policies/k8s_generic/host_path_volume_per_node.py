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
advice on the PersistentVolume and on the workload, when that workload runs a model server or asks for GPUs (one
database or web UI alone on such a volume is not judged: its data, not the models); on the PersistentVolume also when
its host path is named as a model store (``_MODEL_STORE``) and the one workload only reads it (an app loading a GGUF
in-process, session 51) (spent set 34
kimduquan/JavaEE OpenUP/Ollama/ollama.yaml@3b870ee2: one Ollama replica on a hostPath PV, held silent until then).

Silent: a PV of a device path (/dev/dri, /dev/infiniband: each node's own on purpose), a PV with nodeAffinity (the scheduler keeps the claim's pods on the node that holds the path), a local PV
(spec.local), pods pinned to one node (nodeName, a kubernetes.io/hostname selector or required affinity:
policies.reading.placement.pinned_node), a DaemonSet (every node on purpose).

The claim is bound by the claim's spec.volumeName or the PV's spec.claimRef (name, and namespace where given), or,
where neither names the binding, as the volume controller matches a claim to a volume: the same storageClassName,
the claim's access modes among the PV's, enough capacity, the claim's selector (``_matches``).
"""

from __future__ import annotations

import posixpath
import re
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
# A host path named as a model store (/model-gguf, /mnt/models, /var/lib/ollama, /data/hf-cache, /weights): one pod of
# any workload that only reads it (models placed on one node beforehand) finds none on another node, as a model server
# does (session 51: spent set 83 donggi22/Capa-Agent k8s/05-agent.yaml, PV model-gguf-pv hostPath /model-gguf mounted
# read-only by an agent that loads the GGUF in-process, labelled G31). A pod writing there keeps its own data (silent).
_MODEL_STORE = re.compile(r"model|gguf|weights|checkpoint|huggingface|hf[-_]?(?:cache|home)|ollama", re.IGNORECASE)
# Host paths that are the node's own devices and kernel state: a pod reads its node's on purpose.
_NODE_OWN = ("/dev/", "/sys/", "/proc/")


def _kind(resource: Resource) -> str:
    return split_type(resource.type)[1]


def _host_path_pv(pv: dict) -> Optional[str]:
    """The path of a hostPath PersistentVolume no nodeAffinity pins to a node, else None."""
    spec = as_dict(pv.get("spec"))
    path = get(spec, "hostPath", "path")
    if "nodeAffinity" in spec or not isinstance(path, str):
        return None
    if posixpath.normpath(path).startswith(_NODE_OWN):
        return None  # each node's own devices or kernel state on purpose (/dev/dri, /dev/infiniband), not files kept
    return path


def _objects(kind: str) -> list[Resource]:
    return [r for r in viewed_resources() or () if split_type(r.type) == ("", kind)]


def _class(obj: dict, unset: Optional[str]) -> Optional[str]:
    value = get(obj, "spec", "storageClassName")
    return value if isinstance(value, str) else unset


def _matches(pv: dict, claim: dict) -> bool:
    """True when the volume controller may bind this claim (no volumeName) to this PV (no claimRef) by matching:
    the same storage class (kubernetes/component-helpers storage/volume/pv_helpers.go FindMatchingVolume compares
    GetPersistentVolumeClass(volume) with GetPersistentVolumeClaimClass(claim), an unset class being "" on both sides;
    a claim with none where a default StorageClass exists is given that class by admission, which matches a PV of no
    class even less), the same volumeMode (Filesystem unless set), the claim's access modes among the PV's, a capacity
    at least the request where both parse, and the claim's selector matching the PV's labels
    (https://kubernetes.io/docs/concepts/storage/persistent-volumes/#binding)."""
    if get(claim, "spec", "volumeName") is not None or get(pv, "spec", "claimRef") is not None:
        return False
    if _class(claim, "") != _class(pv, ""):
        return False
    if (get(claim, "spec", "volumeMode") or "Filesystem") != (get(pv, "spec", "volumeMode") or "Filesystem"):
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


def _bound_by_name(pv: dict, claim: str) -> bool:
    """True when the files name the binding of ``claim`` to this PV (volumeName or claimRef), not only a match."""
    return any(metadata_name(c.props) == claim and binds(pv, c.props) for c in _objects("PersistentVolumeClaim"))


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


def _pvs_of(resource: Resource) -> list[tuple[dict, str, list[tuple[Optional[str], str]]]]:
    """(PV, host path, bound claims) of every unpinned hostPath PV of the run."""
    found = []
    for pv in _objects("PersistentVolume"):
        path = _host_path_pv(pv.props)
        if path is not None and (claims := _claim_of(pv.props)):
            found.append((pv.props, path, claims))
    return found


def _on_workload(resource: Resource) -> list[str]:
    if _kind(resource) == "DaemonSet":
        return []
    why = _spread(resource)
    # One pod of a model server (or a GPU pod) on such a volume: advice that its files stay behind on a reschedule.
    if why is None and not serving(resource):
        return []
    messages: list[str] = []
    for props, host, claims in _pvs_of(resource):
        pv = metadata_name(props) or "?"
        for path, podspec, claim in _mounts(resource, claims):
            if pinned_node(podspec) is not None:
                continue
            # Several claims may match one PV; the controller binds one of them: "may bind" unless the files name it.
            verb = "is bound to" if _bound_by_name(props, claim) else "matches (the controller may bind it to)"
            bound = f"{path}.volumes: PersistentVolumeClaim {claim} {verb} PersistentVolume {pv}, hostPath {host} with no nodeAffinity"
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


def _served_claims(namespace: Optional[str]) -> Iterator[tuple[str, str]]:
    """(workload, claim name) of each claim a model-server or GPU workload of the run mounts in a pod spec nothing
    pins to one node (DaemonSets aside), in the PV's claim namespace or any where unknown."""
    for workload in viewed_resources() or ():
        if workload.type not in WORKLOAD_TYPES or _kind(workload) == "DaemonSet" or not serving(workload):
            continue
        ns = get(workload.props, "metadata", "namespace")
        if namespace is not None and ns not in (None, namespace):
            continue
        for _path, podspec in pod_specs(workload):
            if pinned_node(podspec) is not None:
                continue
            for volume in as_list(podspec.get("volumes")):
                claim = get(volume, "persistentVolumeClaim", "claimName")
                if isinstance(claim, str):
                    yield f"{_kind(workload)} {metadata_name(workload.props)}", claim


def _unclaimed(pv: dict, host: str) -> list[str]:
    """Advice on a hostPath PV with no nodeAffinity that no claim of the files binds or matches, while a model server
    nothing pins mounts a claim it is there for:
    - a claim of the files with no storageClassName beside a PV of a class, which it would match otherwise: the
      controller compares the classes ("" for an unset claim class, or the default class DefaultStorageClass admission
      writes into it: ``_matches``), so the claim never binds this PV (spent set 61 farrukhshafique87/master-thesis-
      llm-kubernetes kubernetes/base/storage/persistent-volume.yaml: PV ollama-pv of class manual, claim ollama-pvc
      of none);
    - a claim the files do not define, which this PV's claimRef names or, with no claimRef, may be bound to it
      (spent set 51 HaxxonHax/ollama-k8s-RPi ollama/k8s/ollama-pv-volume.yaml: claim ollama-pv-claim is not in the
      files, the PV /var/lib/k3s/pv/ollama-models is).
    Silent for a claim of the files bound or matched elsewhere, or one that states another class (provisioned)."""
    ref = as_dict(get(pv, "spec", "claimRef"))
    ref_name, ref_ns = ref.get("name"), ref.get("namespace")
    defined = {metadata_name(c.props): c.props for c in _objects("PersistentVolumeClaim")}
    pvs = [p.props for p in _objects("PersistentVolume")]
    pv_class = _class(pv, "")
    for user, name in _served_claims(ref_ns if isinstance(ref_ns, str) else None):
        if ref_name is not None and ref_name != name:
            continue
        claim = defined.get(name)
        if claim is None:
            if ref_name is None and any(binds(other, {"metadata": {"name": name}}) for other in pvs):
                continue  # another PV of the files reserves that claim
            how = "its claimRef names" if ref_name else "may be bound to"
            return [
                unproven(
                    f"spec.hostPath {host} has no nodeAffinity, and {user}, a model server nothing pins to one node, "
                    f"mounts claim {name}, which the files do not define and this PV {how}: when its pod is "
                    f"rescheduled (a drain, an eviction, a node lost) it may start on another node, whose own {host} "
                    f"is empty, and the models pulled there are not found; give the PV nodeAffinity to the node that "
                    f"holds the path (a local PV), or use storage that follows the pod"
                )
            ]
        if ref_name is not None or get(claim, "spec", "volumeName") is not None or not pv_class:
            continue
        if get(claim, "spec", "storageClassName") is not None or any(_matches(other, claim) for other in pvs):
            continue
        classed = {**claim, "spec": {**as_dict(claim.get("spec")), "storageClassName": pv_class}}
        if not _matches(pv, classed):
            continue  # it differs in more than the class (modes, size, selector): not this PV's claim
        return [
            unproven(
                f"spec.hostPath {host} has no nodeAffinity, and claim {name}, which {user} (a model server) mounts, "
                f"names no storageClassName while this PV's is {pv_class}: admission gives the claim the cluster's "
                f"default class (or it stays classless), so it never binds this PV, which stays Available while the "
                f"claim waits for or gets another volume; were it bound, a pod rescheduled to another node would find "
                f"that node's own {host} empty; set storageClassName: {pv_class} on the claim and give the PV "
                f"nodeAffinity (a local PV), or drop the PV"
            )
        ]
    return []


def _reads_only(podspec: dict, claim: str) -> bool:
    """True when the pod only reads the claim (the volume or every container mount of it readOnly): files placed on
    one node beforehand, not data the pod keeps."""
    names = {
        v.get("name")
        for v in (as_dict(v) for v in as_list(podspec.get("volumes")))
        if get(v, "persistentVolumeClaim", "claimName") == claim
    }
    if any(
        get(v, "persistentVolumeClaim", "readOnly") is True
        for v in as_list(podspec.get("volumes"))
        if as_dict(v).get("name") in names
    ):
        return True
    mounts = [
        as_dict(m)
        for c in [*as_list(podspec.get("initContainers")), *as_list(podspec.get("containers"))]
        for m in as_list(as_dict(c).get("volumeMounts"))
        if as_dict(m).get("name") in names
    ]
    return bool(mounts) and all(m.get("readOnly") is True for m in mounts)


def _on_volume(resource: Resource) -> list[str]:
    host = _host_path_pv(resource.props)
    claims = _claim_of(resource.props) if host is not None else []
    if host is not None and not claims:
        return _unclaimed(resource.props, host)
    if not claims:
        return []
    users: list[tuple[str, Any]] = []
    servers, readers = False, True
    for workload in viewed_resources() or ():
        if workload.type not in WORKLOAD_TYPES or _kind(workload) == "DaemonSet":
            continue
        for _path, podspec, claim in _mounts(workload, claims):
            users.append((f"{_kind(workload)} {metadata_name(workload.props)}", pinned_node(podspec)))
            servers = servers or serving(workload)
            readers = readers and _reads_only(podspec, claim)
    names = sorted({name for name, _ in users})
    nodes = {node for _, node in users}
    if not names or (len(nodes) == 1 and None not in nodes):
        return []
    if len(names) == 1 and not servers and not (host is not None and _MODEL_STORE.search(host) and readers):
        return []  # one pod of no model server (a database, a web UI): its data, not the models, is G31's one-user case
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
