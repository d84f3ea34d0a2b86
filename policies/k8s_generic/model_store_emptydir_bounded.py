"""G36: a model server's model store on a disk emptyDir is bounded (advice).

A model a server downloads or pulls lands in its store (the engine table's ``downloads``: components/serving_engines.toml,
``OLLAMA_MODELS`` else /root/.ollama/models for Ollama, the Hugging Face cache for vLLM, SGLang, LMDeploy, TGI's /data,
NIM's cache; read by policies/reading/engines.py ``downloads`` for every engine row and pod template the readers
reach). On a disk-backed emptyDir with no ``sizeLimit``, while no container of the pod sets an ``ephemeral-storage``
request or limit, nothing bounds it: a multi-gigabyte pull fills the node's disk, and under disk pressure the kubelet
evicts pods, first those using more than they requested (https://kubernetes.io/docs/concepts/scheduling-eviction/
node-pressure-eviction/); a ``sizeLimit`` makes the kubelet evict this pod alone when its store outgrows it
(https://kubernetes.io/docs/concepts/storage/volumes/#emptydir). Advice: whether the node's disk runs short is not in
the files. S19 (gpu-pod-ephemeral-storage) reports the same download's missing request for the scheduler; this row is
the volume's own bound, which the labellers of spent set 64 asked for (dmplastun/monitoring-ai k8s/ollama-deployment.yaml:
ollama/ollama with /root/.ollama on ``emptyDir: {}``, label G36).

Silent for a store on the container's own layer (S19's), a PersistentVolumeClaim or other volume off the node's disk,
a memory-backed emptyDir (memory-emptydir-size-limit), an emptyDir with a sizeLimit, and a pod whose containers request
or limit ephemeral-storage. One finding per volume.
"""

from __future__ import annotations

from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_dict, as_list, containers, get
from policies.reading.engines import downloads, volume_at


def _asks_disk(podspec: dict) -> bool:
    """True when a container or init container of the pod requests or limits ephemeral-storage."""
    everyone = containers(podspec) + [as_dict(c) for c in as_list(podspec.get("initContainers")) if isinstance(c, dict)]
    return any(get(c, "resources", s, "ephemeral-storage") is not None for c in everyone for s in ("requests", "limits"))


def _check(resource: Resource, config: dict) -> list[str]:
    found: list[str] = []
    seen: set[tuple[int, str]] = set()
    for download in downloads(resource):
        volume = volume_at(download.podspec, download.container, download.into)
        if volume is None or "emptyDir" not in volume:
            continue
        empty_dir = as_dict(volume.get("emptyDir"))
        if empty_dir.get("medium") == "Memory" or empty_dir.get("sizeLimit") is not None:
            continue
        name = str(volume.get("name"))
        if (id(download.podspec), name) in seen or _asks_disk(download.podspec):
            continue
        seen.add((id(download.podspec), name))
        found.append(
            unproven(
                f"{download.label}: its model store {download.into} (the model it fetches from {download.source}) is on "
                f"emptyDir {name} with no sizeLimit, and no container of the pod requests or limits ephemeral-storage: "
                f"nothing bounds the download, which can fill the node's disk until the kubelet evicts pods; set "
                f"emptyDir.sizeLimit above the model's size (and an ephemeral-storage request to match), or keep the "
                f"store on a PersistentVolumeClaim"
            )
        )
    return found


POLICY = Policy(
    name="model-store-emptydir-bounded",
    description="A model server's model store on a disk emptyDir sets a sizeLimit or an ephemeral-storage request or "
    "limit (advice).",
    catalog="G36",
    severity="medium",
    enforcement="advisory",
    remediation_steps="Set `emptyDir: {sizeLimit: <model size + slack>}` on the store's volume and request "
    "ephemeral-storage to match, or keep the store on a PersistentVolumeClaim.",
    config_schema={},
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "An emptyDir with no sizeLimit is bounded only by the node's disk; a model pull fills it and node-pressure "
        "eviction follows (https://kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/)."
    ),
)
