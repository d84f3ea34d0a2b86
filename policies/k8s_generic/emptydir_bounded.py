"""G36 on every pod template: a disk emptyDir is bounded by a sizeLimit or an ephemeral-storage request (advice).

model-store-emptydir-bounded judges a model server's model store, memory-emptydir-size-limit the memory-backed ones;
this row judges every other disk-backed emptyDir of every pod template the readers reach (Deployment, StatefulSet,
DaemonSet, Job, CronJob, Pod, LWS, Ray head and worker groups, KServe pods, custom resources read generically): with no
``sizeLimit``, while no container of the pod requests or limits ``ephemeral-storage`` and no LimitRange of the files
defaults one, nothing bounds what the pod writes there (logs, caches, downloads, Ray's /tmp/ray object spill): it
fills the node's disk and node-pressure eviction follows, starting with pods that use more than they requested
(https://kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/;
https://kubernetes.io/docs/concepts/storage/volumes/#emptydir: sizeLimit). Spent set 79 djleeam/kuberay-eks
clusters/ray-cluster.complete.yaml (a /tmp/ray log emptyDir, no ephemeral-storage), set 76 opea-project/GenAIExamples
CodeTrans Gaudi manifest (the TGI model download into an emptyDir /data). One finding per object, naming the volumes;
advice (the node's disk is not in the files). Silent for a sizeLimit, an ephemeral-storage request or limit on any
container (init containers included), a LimitRange default, a memory emptyDir, a store the model-store row reports, and the kinds whose operator adds the
volumes from its presets (LLMInferenceService, DynamoGraphDeployment).
"""

from __future__ import annotations

from policies.framework import Policy, Resource, unproven
from policies.kube import as_dict, as_list, containers, get, pod_specs, split_type, workload_types
from policies.reading.engines import downloads, volume_at
from policies.reading.limit_ranges import namespace_default

_DISK = "ephemeral-storage"
# Kinds whose pods the controller builds from presets or defaults the files do not show (their volumes are the
# operator's, not the manifest's): KServe's LLMInferenceService (policies/llmisvc_presets.py) and Dynamo's
# DynamoGraphDeployment (policies/dynamo_defaults.py).
_PRESET_KINDS = frozenset({("serving.kserve.io", "LLMInferenceService"), ("nvidia.com", "DynamoGraphDeployment")})


def _asks_disk(podspec: dict) -> bool:
    everyone = containers(podspec, init=True, model=True)
    return any(get(c, "resources", s, _DISK) is not None for c in everyone for s in ("requests", "limits")) or any(
        get(podspec, "resources", s, _DISK) is not None for s in ("requests", "limits")
    )


def _unbounded(podspec: dict) -> list[str]:
    names = []
    for volume in as_list(podspec.get("volumes")):
        volume = as_dict(volume)
        if "emptyDir" not in volume:
            continue
        empty_dir = volume.get("emptyDir")
        if empty_dir is not None and not isinstance(empty_dir, dict):
            continue  # not readable as written (a template placeholder)
        empty_dir = empty_dir or {}
        if empty_dir.get("medium") is not None and empty_dir.get("medium") != "" or empty_dir.get("sizeLimit") is not None:
            continue
        if isinstance(volume.get("name"), str):
            names.append(volume["name"])
    return names


def _check(resource: Resource, config: dict) -> list[str]:
    if split_type(resource.type) in _PRESET_KINDS:
        return []
    candidates = [(path, podspec, names) for path, podspec in pod_specs(resource) if (names := _unbounded(podspec))]
    if not candidates or namespace_default(resource, "requests", _DISK) is not None:
        return []
    if namespace_default(resource, "limits", _DISK) is not None:
        return []
    stores = set()
    for download in downloads(resource):
        volume = volume_at(download.podspec, download.container, download.into)
        if volume is not None:
            stores.add((id(download.podspec), volume.get("name")))
    named = [
        f"{'' if path in ('spec', 'spec.template.spec') else path + ' '}emptyDir {name}"
        for path, podspec, names in candidates
        if not _asks_disk(podspec)
        for name in names
        if (id(podspec), name) not in stores
    ]
    if not named:
        return []
    return [
        unproven(
            f"{', '.join(named)}: no sizeLimit, and no container of the pod requests or limits ephemeral-storage, so "
            f"nothing bounds what the pod writes there: it can fill the node's disk until the kubelet evicts pods; set "
            f"emptyDir.sizeLimit (and an ephemeral-storage request to match)"
        )
    ]


POLICY = Policy(
    name="emptydir-bounded",
    description="Every disk-backed emptyDir of a pod template (not only model stores) sets a sizeLimit, or the pod "
    "requests ephemeral-storage (advice).",
    catalog="G36",
    severity="low",
    enforcement="advisory",
    remediation_steps="Set `emptyDir: {sizeLimit: <size>}` on the volume and request ephemeral-storage to match.",
    config_schema={},
    resource_types=workload_types(),
    check_resource=_check,
    rationale=(
        "An emptyDir with no sizeLimit is bounded only by the node's disk, and pods that use more ephemeral storage "
        "than they requested are evicted first under disk pressure "
        "(https://kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/). Catalogue row 36 (Kyverno "
        "add-emptydir-sizelimit, Gatekeeper ephemeralstoragelimit), on every pod template."
    ),
)
