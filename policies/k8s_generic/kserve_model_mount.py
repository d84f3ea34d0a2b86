"""G45: KServe's model mount at /mnt/models does not land on a mountPath the predictor's container already uses.

For an InferenceService with one storage URI (``storageUri`` or a ``storage`` spec), KServe's pod mutator adds a volume
mount at ``/mnt/models`` to ``kserve-container``: the claim itself for ``pvc://`` (volume ``kserve-pvc-source``, the URI's
path as subPath) and the storage initializer's emptyDir for every other scheme (volume ``kserve-provision-location``)
(kserve v0.16.0 pkg/webhook/admission/pod/storage_initializer_injector.go:343-392, the same at v0.20.0). It skips a
mount only when the container already has one of that volume name (pkg/utils/storage.go:75-82
addVolumeMountToContainer), never by path. A ServingRuntime (or the predictor's own container) that already mounts a
volume of another name at /mnt/models thus gives the pod two mounts at one path, which the API server refuses
(kubernetes pkg/apis/core/validation/validation.go ValidateVolumeMounts: mountPath "must be unique"); the predictor's
ReplicaSet reports FailedCreate and nothing serves (set 44: sereno4/LLM-Pipeline-Platform- kserve/inferenceservice.yaml
``pvc://model-pvc/gpt2`` over ServingRuntime huggingface-cpu-runtime mounting model-storage at /mnt/models).

Not judged: an OCI (modelcar) URI, which the injector does not mount this way (:218-221), a predictor with several
``storageUris`` (their own mount paths), and one whose runtime is not among the objects checked.
"""

from __future__ import annotations

from typing import Any

from policies.framework import Policy, Resource, unproven
from policies.kube import as_dict, as_list, get
from policies.reading.kserve_runtime import KSERVE_CONTAINER, merged_predictor
from policies.reading.kserve_storage import KSERVE_MODEL_DIR, isvc_source

_PVC_VOLUME = "kserve-pvc-source"  # constants.PvcSourceMountName
_DOWNLOAD_VOLUME = "kserve-provision-location"  # constants.StorageInitializerVolumeName
_AGENT = "internal.serving.kserve.io/agent"  # constants.go:149 AgentShouldInjectAnnotationKey: the injector stops


def _server_container(resource: Resource) -> tuple[dict, str] | None:
    """The predictor's kserve-container as KServe renders it, and where it comes from: merged with the ServingRuntime of
    the objects checked for a ``model`` predictor, or the predictor's own container of that name."""
    merged = merged_predictor(resource)
    if merged is not None:
        return merged[1], f"from {merged[2].label}"
    for container in as_list(get(resource.props, "spec", "predictor", "containers")):
        if as_dict(container).get("name") == KSERVE_CONTAINER:
            return as_dict(container), "of spec.predictor.containers"
    return None


def _clash(resource: Resource) -> list[str]:
    source = isvc_source(resource)
    annotations = as_dict(get(resource.props, "metadata", "annotations"))
    if source is None or source.startswith(("oci://", "oci+")) or _AGENT in annotations:
        return []
    found = _server_container(resource)
    if found is None:
        return []
    container, origin = found
    volume = _PVC_VOLUME if source.startswith("pvc://") else _DOWNLOAD_VOLUME
    for mount in (as_dict(m) for m in as_list(container.get("volumeMounts"))):
        path, name = mount.get("mountPath"), mount.get("name")
        if not isinstance(path, str) or path.rstrip("/") != KSERVE_MODEL_DIR or name == volume:
            continue
        if path != KSERVE_MODEL_DIR:
            # The API server compares the raw strings (kubernetes pkg/apis/core/validation/validation.go
            # ValidateVolumeMounts: mountpoints.Has(mnt.MountPath)), so /mnt/models/ beside /mnt/models is admitted and
            # the later mount (KServe's) hides the runtime's volume: review 45 #10.
            return [
                unproven(
                    f"spec.predictor: container {KSERVE_CONTAINER} ({origin}) mounts volume {name} at {path}, and for "
                    f"storage {source} KServe's pod mutator adds its own mount {volume} at {KSERVE_MODEL_DIR}: the API "
                    "server admits both (the paths differ as strings), but they are one directory, so one volume hides "
                    "the other and what the server finds there is not what one of them holds; drop one of the two"
                )
            ]
        return [
            f"spec.predictor: container {KSERVE_CONTAINER} ({origin}) already mounts volume {name} at "
            f"{KSERVE_MODEL_DIR}, and for storage {source} KServe's pod mutator adds its own mount {volume} at "
            f"{KSERVE_MODEL_DIR} (it de-duplicates by volume name, not path): the predictor pod has two mounts at one "
            "path, the API server refuses it (mountPath must be unique) and the model never serves; drop the "
            "runtime's mount and let storageUri mount the model, or drop storageUri and keep the volume"
        ]
    return []


def _check(resource: Resource, config: dict[str, Any]) -> list[str]:
    return _clash(resource)


POLICY = Policy(
    name="kserve-model-mount-unique",
    description=(
        "An InferenceService with a storage URI whose kserve-container (its ServingRuntime's or its own) already mounts "
        "another volume at /mnt/models: KServe adds its model mount there too and the pod is refused."
    ),
    catalog="G45",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Let KServe mount the model (keep storageUri, drop the runtime's /mnt/models mount), or keep the volume and "
        "drop storageUri (pass the path in args)."
    ),
    resource_types=("kubernetes:serving.kserve.io/v1beta1:InferenceService",),
    check_resource=_check,
    rationale=(
        "kserve pkg/webhook/admission/pod/storage_initializer_injector.go (v0.16.0 :343-392) mounts the single storage "
        "URI at /mnt/models and pkg/utils/storage.go addVolumeMountToContainer skips only a mount of the same volume "
        "name; core validation refuses two mounts at one mountPath."
    ),
)
