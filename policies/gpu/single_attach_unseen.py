"""S30 on a claim the run does not hold (``single-attach-volume-rolls``, policies/gpu/single_attach_rollout.py).

A claim whose PersistentVolumeClaim is not among the files (its pvc.yaml left out, or made by another tool) may be
ReadWriteOnce: most dynamically provisioned block volumes (EBS, GCE PD, Azure Disk) support no other mode. Where a
model-server or GPU pod (or any pod of a run that serves a model) mounts it writable and may land on several nodes,
a surging rollout or an autoscaler that adds replicas puts a pod on another node that waits on a Multi-Attach error:
advice, since the mode is the claim's. A claim named for a shared file system (efs, nfs, fsx, ...) is left alone, and
so is one a PersistentVolumeClaim of the files names in another namespace than the pod's (unstated) one: its modes are
the files', judged where they are read.
"""

from __future__ import annotations

import re
from typing import Any, Optional

from policies.framework import Resource, unproven
from policies.kube import as_dict, as_list, get, metadata_name, requests_gpu, split_type, viewed_resources
from policies.reading.engines import table_servers
from policies.reading.placement import pinned_node
from policies.reading.vllm_args import vllm_servers

SHARED_NAME = re.compile(r"(efs|nfs|fsx|filestore|s3|rwx|shared|lustre|azurefile|cephfs)", re.IGNORECASE)


def _serving_run() -> bool:
    """True when a resource of the run starts a model server."""
    return any(table_servers(r) or vllm_servers(r) for r in viewed_resources() or ())


def held(name: str) -> bool:
    """True when a PersistentVolumeClaim of the run has this name in any namespace: a Deployment that states none is
    applied with `-n` into the claim's (review56d: an unseen-claim finding on a ReadWriteMany claim the files hold)."""
    return any(
        split_type(r.type) == ("", "PersistentVolumeClaim") and metadata_name(r.props) == name for r in viewed_resources() or ()
    )


def unseen_writable(resource: Resource, podspec: dict, volume: dict, name: str) -> bool:
    """True for a writable claim the run does not hold (not named for a shared file system), mounted by a model-server
    or GPU pod, or by any pod of a run that serves a model, that may land on several nodes (module docstring)."""
    if get(volume, "persistentVolumeClaim", "readOnly") is True or SHARED_NAME.search(name) or held(name):
        return False
    mounts = [
        m
        for c in as_list(podspec.get("containers"))
        for m in as_list(as_dict(c).get("volumeMounts"))
        if as_dict(m).get("name") == volume.get("name")
    ]
    if (mounts and all(as_dict(m).get("readOnly") is True for m in mounts)) or pinned_node(podspec) is not None:
        return False
    # A model server's or GPU pod's claim, or any Deployment's of a run that serves a model (its UI, its gateway: spent
    # set 16 heissanjay/ollama-eks-depl kubernetes/deployment.yml@0f87150, open-webui on claim ollama-pvc).
    return bool(requests_gpu(podspec) or table_servers(resource) or vllm_servers(resource) or _serving_run())


_IF_RWO = (
    "is not in the files read; if it is ReadWriteOnce (block volumes such as EBS, GCE PD or Azure Disk support no other mode)"
)


def unseen_claim(
    resource: Resource, podspec: dict, volume: dict, name: str, surges: bool, scaled: Optional[tuple[str, int]]
) -> Any:
    """Advice on a writable claim the run does not hold, mounted by a surging model-server or GPU pod, or by one an
    autoscaler of the run takes above one replica (module docstring)."""
    if not (surges or scaled) or not unseen_writable(resource, podspec, volume, name):
        return None
    where = f"spec.template.spec.volumes {volume.get('name')}: PersistentVolumeClaim {name} {_IF_RWO}"
    if not surges and scaled is not None:
        return unproven(
            f"{where}, {scaled[0]} adds replicas up to {scaled[1]}: a replica placed on another node waits in "
            f"ContainerCreating on a Multi-Attach error, so scale-out adds no capacity; use a ReadWriteMany volume or "
            f"keep the autoscaler at one replica"
        )
    return unproven(
        f"{where}, the RollingUpdate starts the new pod before the old one releases it and, on another node, it waits "
        f"on a Multi-Attach error: the rollout stalls; use strategy Recreate or maxSurge 0, or a ReadWriteMany volume"
    )


def unseen_for_autoscaler(deployment: Resource, ceiling: int, claims: dict[str, dict]) -> list[str]:
    """Advice on the autoscaler for a writable claim the run does not hold that its target's pods mount (the finding
    ``unseen_claim`` puts on the Deployment; spent set 122 ahmedwaleedmalik/k8s-llm-inference-platform
    serving/raw-vllm/scaledobject.yaml, labelled S30 on the ScaledObject, whose claim vllm-model-cache no file holds)."""
    podspec = as_dict(get(deployment.props, "spec", "template", "spec"))
    for volume in as_list(podspec.get("volumes")):
        name = get(volume, "persistentVolumeClaim", "claimName")
        if isinstance(name, str) and name not in claims and unseen_writable(deployment, podspec, as_dict(volume), name):
            return [
                unproven(
                    f"spec: scales Deployment {metadata_name(deployment.props)} up to {ceiling} replicas, whose "
                    f"pods all mount PersistentVolumeClaim {name}, which {_IF_RWO}, a replica placed on another node waits "
                    f"in ContainerCreating on a Multi-Attach error, so scale-out adds no capacity; use a "
                    f"ReadWriteMany volume or keep maxReplicas at 1"
                )
            ]
    return []
