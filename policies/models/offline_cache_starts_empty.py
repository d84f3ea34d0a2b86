"""S47: a server told to stay offline finds its Hub model in a cache that something fills.

``HF_HUB_OFFLINE`` (or ``TRANSFORMERS_OFFLINE``) true makes the Hugging Face Hub client send no request and serve
only from the local cache (huggingface_hub 2.4.0 constants.py is_offline_mode; policies/reading/engines.py
hub_offline). A server whose model is a Hub id then loads it only if the cache already holds it. A cache that starts
empty on every pod (an emptyDir, a generic ephemeral volume, the engine's own image layer) or on every new node (a
hostPath of type DirectoryOrCreate, which the kubelet creates empty) holds nothing the first time, so the server
exits at start ("offline mode is enabled" / cannot find the files) and the pod crash-loops on a bought GPU node.

Silent where something may fill the cache: a PersistentVolumeClaim, NFS, CSI or any volume that outlives the pod, a
hostPath that must exist (type Directory) or of no type, another container of the pod (an init container, a
sidecar) mounting the same volume, an image not the engine's own (it may carry the model), or a model given as a
local path.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional

from policies.framework import Policy, Resource
from policies.kube import WORKLOAD_TYPES, as_dict, as_list, containers
from policies.models.gated_model_token import hub_servers
from policies.reading.engines import hub_model, volume_at

_FIX = (
    "keep the cache on a PersistentVolumeClaim seeded beforehand (or an init container that downloads it with the Hub "
    "online), serve a local path, or unset HF_HUB_OFFLINE"
)


def _filled_by_another(podspec: Mapping, container: Mapping, volume_name: Any) -> bool:
    """True when a container of the pod other than the server mounts the volume (it may write the model there)."""
    for other in containers(podspec, init=True):
        if other is container:
            continue
        if any(as_dict(m).get("name") == volume_name for m in as_list(other.get("volumeMounts"))):
            return True
    return False


def _starts_empty(podspec: Mapping, container: Mapping, directory: str, layer_empty: bool) -> Optional[str]:
    """How the cache folder starts empty (for the message), or None when it may hold the model."""
    volume = volume_at(podspec, container, directory)
    if volume is None:
        return f"{directory} in the image's own layer (the engine's image carries no model)" if layer_empty else None
    if _filled_by_another(podspec, container, volume.get("name")):
        return None
    if "emptyDir" in volume or "ephemeral" in volume:
        kind = "emptyDir" if "emptyDir" in volume else "generic ephemeral volume"
        return f"{directory} on the {kind} {volume.get('name')}, empty at every pod start"
    host = as_dict(volume.get("hostPath"))
    if host and host.get("type") == "DirectoryOrCreate":
        return (
            f"{directory} on the hostPath {host.get('path')} (DirectoryOrCreate: the kubelet creates it empty on a node "
            f"where it does not exist)"
        )
    return None


def _check(resource: Resource, config: dict) -> list[str]:
    messages = []
    for label, model, podspec, container, dirs, offline, layer_empty in hub_servers(resource):
        repository = hub_model(model)
        if not offline or repository is None or not dirs:
            continue
        empty = [_starts_empty(podspec, container, d, layer_empty) for d in dirs]
        if any(e is None for e in empty):
            continue
        messages.append(
            f"{label}: HF_HUB_OFFLINE is on, so the Hub client downloads nothing, but the model is the Hub id "
            f"{repository} and its cache is {empty[0]}: nothing puts the model there, so the server cannot load it and "
            f"the pod crash-loops on the GPU node; {_FIX}"
        )
    return messages


POLICY = Policy(
    name="offline-model-cache-filled",
    description=(
        "A model server with HF_HUB_OFFLINE (or TRANSFORMERS_OFFLINE) on and a Hugging Face Hub id as its model reads "
        "it from a cache something fills: not an emptyDir, the image's own layer or a DirectoryOrCreate hostPath alone."
    ),
    catalog="S47",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Keep the model cache on a PersistentVolumeClaim filled beforehand (a Job or an init container that downloads "
        "with the Hub online), or serve a local path, or let the server download (unset HF_HUB_OFFLINE)."
    ),
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "huggingface_hub reads HF_HUB_OFFLINE (else TRANSFORMERS_OFFLINE) as offline mode and then serves only cached "
        "files (constants.py is_offline_mode; file_download.py raises when nothing is cached). An emptyDir starts "
        "empty with every pod, and a hostPath of type DirectoryOrCreate is created empty where it does not exist "
        "(https://kubernetes.io/docs/concepts/storage/volumes/#hostpath-volume-types)."
    ),
)
