"""S29: the volume a model server downloads its model into can hold the checkpoint.

A PersistentVolumeClaim of 100Gi for a ~690 GB checkpoint (DeepSeek-V3/R1), or an emptyDir whose sizeLimit is
below the weights, fails the download with "No space left on device" (an emptyDir over its sizeLimit gets the
pod evicted) minutes after the GPU node was bought. The model's checkpoint size comes from the lock file
(`python -m stacks models lock`), then the built-in catalogue (components/capacity/models.py find_model);
models neither knows are not judged.

Where the model lands: the server's download directory (`--download-dir`, the HF cache its env names, or the
image's ~/.cache/huggingface; policies/reading/engines.py cache_dirs), or for a local model path the path
itself. The volume's size: an emptyDir's sizeLimit, an ephemeral volume's or a StatefulSet claim template's
storage request, or a claimed PersistentVolumeClaim of the same run (same namespace).
"""

from __future__ import annotations

from typing import Optional

from components.capacity.models import CatalogModel, UnknownModel, find_model
from components.errors import ConfigError
from policies.framework import Policy, Resource
from policies.kube import (
    WORKLOAD_TYPES,
    as_dict,
    as_list,
    as_quantity,
    get,
    metadata_name,
    requests_gpu,
    split_type,
    viewed_resources,
)
from policies.reading.engines import cache_dirs, hub_model, table_servers, volume_at
from policies.reading.vllm_args import served_model, vllm_servers

GIB = float(1 << 30)


def _model(reference: Optional[str]) -> Optional[CatalogModel]:
    """The catalogue or lock entry a model reference names: a Hub id, or a local path ending in one."""
    if not isinstance(reference, str) or not reference:
        return None
    candidates = [hub_model(reference)]
    parts = [p for p in reference.rstrip("/").split("/") if p]
    if reference.startswith("/") and len(parts) >= 2:
        candidates += ["/".join(parts[-2:]), parts[-1]]
    for candidate in candidates:
        if candidate:
            try:
                return find_model(candidate)
            except (UnknownModel, ConfigError, ValueError, KeyError):
                continue
    return None


def _claim_size(resource: Resource, claim: str) -> tuple[Optional[float], str]:
    namespace = get(resource.props, "metadata", "namespace")
    for other in viewed_resources() or ():
        if split_type(other.type) != ("", "PersistentVolumeClaim") or metadata_name(other.props) != claim:
            continue
        if get(other.props, "metadata", "namespace") not in (None, namespace):
            continue
        size = as_quantity(get(other.props, "spec", "resources", "requests", "storage"))
        return size, f"PersistentVolumeClaim {claim}"
    return None, ""


def volume_size(resource: Resource, volume: dict) -> tuple[Optional[float], str]:
    """The bytes a pod volume can hold, and how a message names it; (None, "") when unknown or unbounded."""
    name = volume.get("name")
    empty = volume.get("emptyDir")
    if isinstance(empty, dict) and "sizeLimit" in empty:
        return as_quantity(empty.get("sizeLimit")), f"emptyDir {name} (sizeLimit)"
    template = get(volume, "ephemeral", "volumeClaimTemplate", "spec", "resources", "requests", "storage")
    if template is not None:
        return as_quantity(template), f"ephemeral volume {name}"
    claim = get(volume, "persistentVolumeClaim", "claimName")
    if isinstance(claim, str):
        return _claim_size(resource, claim)
    for template in as_list(get(resource.props, "spec", "volumeClaimTemplates")):
        if get(template, "metadata", "name") == name:
            return as_quantity(get(template, "spec", "resources", "requests", "storage")), f"volumeClaimTemplate {name}"
    return None, ""


def _servers(resource: Resource) -> list[tuple[str, dict, dict, dict, Optional[str]]]:
    found = [(s.label, s.podspec, s.container, s.args, served_model(s)) for s in vllm_servers(resource) if not s.runtime_merged]
    found += [(s.label, s.podspec, s.container, s.args, s.model) for s in table_servers(resource)]
    return found


def _check(resource: Resource, config: dict) -> list[str]:
    messages = []
    for label, podspec, container, args, reference in _servers(resource):
        if not requests_gpu(podspec):
            continue  # a Ray head (num-gpus 0) reads the config and tokenizer only: the GPU workers load the weights
        model = _model(reference)
        if model is None:
            continue
        assert isinstance(reference, str)
        dirs = (reference,) if reference.startswith("/") else cache_dirs(container, args)
        for directory in dirs:
            volume = volume_at(podspec, container, directory)
            if volume is None:
                continue
            size, shown = volume_size(resource, as_dict(volume))
            if size is None or size >= model.checkpoint_bytes:
                continue
            messages.append(
                f"{label}: {shown} at {directory} holds {size / GIB:,.0f} GiB, but the checkpoint of {model.hf_id} is "
                f"{model.checkpoint_gib:,.0f} GiB ({model.source}): the download fails with no space left on the "
                f"device; size the volume above the checkpoint"
            )
            break
    return messages


POLICY = Policy(
    name="model-cache-fits-checkpoint",
    description="The volume a model server downloads its model into is at least as large as the model's checkpoint.",
    catalog="S29",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Request more storage on the claim (or the emptyDir sizeLimit) than the checkpoint holds, with room for the "
        "Hub cache's temporary files; `python -m stacks size --model <id>` prints the checkpoint's weights_gib."
    ),
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "A download larger than its volume fails part-way (ENOSPC), and an emptyDir over its sizeLimit gets the pod "
        "evicted (https://kubernetes.io/docs/concepts/storage/volumes/#emptydir); either way the server never starts, "
        "after the node, the image pull and part of the download were paid for (issue 32: a 100Gi cache for a "
        "~690 GB model)."
    ),
)
