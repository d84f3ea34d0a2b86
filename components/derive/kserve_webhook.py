"""KServe v0.20.0's pod webhook, step 5 of components/derive/kserve.py: the pod a predictor Deployment's ReplicaSet
creates, as ``pkg/webhook/admission/pod/`` mutates it (``mutator.go:131-139`` runs its mutators in order on every pod
labelled ``serving.kserve.io/inferenceservice``, 55-57, 154-158). Paths are in kserve/kserve at tag v0.20.0.

Split from derive/kserve.py (the house's 600-line limit); the names KServe's controller and webhook share live here,
and derive/kserve.py imports them.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Optional, Protocol

from ..builders.model_source import storage_key

TAG = "kserve/kserve v0.20.0"
CONTAINER_NAME = "kserve-container"  # constants.go:493 InferenceServiceContainerName
ISVC_LABEL = "serving.kserve.io/inferenceservice"  # constants.go:61 InferenceServicePodLabelKey
LOCAL_MODEL_LABEL = "internal.serving.kserve.io/localmodel"  # constants.go:177
LOCAL_MODEL_SOURCE = "internal.serving.kserve.io/localmodel-sourceuri"  # constants.LocalModelSourceUriAnnotationKey
LOCAL_MODEL_PVC = "internal.serving.kserve.io/localmodel-pvc-name"  # constants.go:180
SOURCE_URI = "internal.serving.kserve.io/storage-initializer-sourceuri"  # constants.go:158
WEBHOOK_DIR = "pkg/webhook/admission/pod"
WEBHOOK_GO = f"{WEBHOOK_DIR}/storage_initializer_injector.go"
AGENT_GO = f"{WEBHOOK_DIR}/agent_injector.go"
MODEL_MOUNT_PATH = "/mnt/models"  # constants.go:508 DefaultModelLocalMountPath
PVC_PREFIX = "pvc://"  # constants.go:206 PvcURIPrefix
PVC_SOURCE_VOLUME = "kserve-pvc-source"  # constants.go:209 PvcSourceMountName
STORAGE_INITIALIZER = "storage-initializer"  # constants.go:494 StorageInitializerContainerName
TRANSFORMER_CONTAINER = "transformer-container"  # constants.go:497
WORKER_CONTAINER = "worker-container"  # constants.go:500
READONLY_ANNOTATION = "storage.kserve.io/readonly"  # constants.go:130 StorageReadonlyAnnotationKey
METRIC_AGGREGATION = "serving.kserve.io/enable-metric-aggregation"  # constants.go:124
PROMETHEUS_SCRAPING = "serving.kserve.io/enable-prometheus-scraping"  # constants.go:125
GKE_ACCELERATOR = "serving.kserve.io/gke-accelerator"  # constants.go:114
AGENT_INJECT = "internal.serving.kserve.io/agent"  # constants.go:171 AgentShouldInjectAnnotationKey
LOGGER_ANNOTATION = "internal.serving.kserve.io/logger"  # constants.go:163
BATCHER_ANNOTATION = "internal.serving.kserve.io/batcher"  # constants.go:168
STORAGE_URI_ENV = "STORAGE_URI"  # constants.CustomSpecStorageUriEnvVarKey: a custom predictor's storage URI


class AggregatorConfig(Protocol):
    """What the metrics aggregator reads of ``inferenceservice-config`` (derive/kserve.py IsvcConfig has it)."""

    @property
    def metric_aggregation(self) -> str: ...  # metricsAggregator.enableMetricAggregation ("true"/"false")

    @property
    def prometheus_scraping(self) -> str: ...  # metricsAggregator.enablePrometheusScraping


def webhook_pod(deployment: Mapping[str, Any], cfg: AggregatorConfig) -> tuple[Optional[dict[str, Any]], dict[str, str], str]:
    """(the pod, the rule behind each field the webhook set, why it is not derived or "") of one predictor
    Deployment's pod template as KServe's pod webhook admits it (mutator.go:131-139, in that order).

    The webhook sees the pod the Deployment's ReplicaSet creates: named ``<replicaset>-<5 random characters>`` and
    owned by it. Their names carry the pod template's hash, unknown here, so the derived pod stands in with the
    Deployment's name, five zeros and a zero uid (as derive/kuberay.py does for KubeRay's pods)."""
    template = deployment["spec"]["template"]
    meta = deployment["metadata"]
    pod: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": f"{meta['name']}-00000",
            "generateName": f"{meta['name']}-",
            "namespace": meta["namespace"],
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1",
                    "kind": "ReplicaSet",
                    "name": meta["name"],
                    "uid": "00000000-0000-0000-0000-000000000000",
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
            "labels": dict(template["metadata"].get("labels") or {}),
            "annotations": dict(template["metadata"].get("annotations") or {}),
        },
        "spec": copy.deepcopy(dict(template["spec"])),
    }
    rules: dict[str, str] = {}
    annotations = pod["metadata"]["annotations"]
    if ISVC_LABEL not in pod["metadata"]["labels"]:  # mutator.go:55-57, 154-158 needMutate
        return pod, rules, ""
    if any(k in annotations for k in (AGENT_INJECT, LOGGER_ANNOTATION, BATCHER_ANNOTATION)):
        return None, rules, f"the model agent (logger, batcher or puller) is injected ({TAG} {AGENT_GO}:177-185)"
    if annotations.get(GKE_ACCELERATOR) is not None:
        return None, rules, f"the GKE accelerator selector ({TAG} {WEBHOOK_DIR}/accelerator_injector.go:32-49)"
    why = _storage_initializer(pod, rules)
    if why:
        return None, rules, why
    _metrics_aggregator(pod, cfg, rules)
    return pod, rules, ""


def _storage_initializer(pod: dict[str, Any], rules: dict[str, str]) -> str:
    """storage_initializer_injector.go:716-784 and CommonStorageInitialization (291-694) for the one legacy storage
    URI of a custom predictor; "" when done, else why the pod is not derived."""
    annotations = pod["metadata"]["annotations"]
    src = annotations.get(SOURCE_URI)
    if src is None:  # 718-721: nothing to inject
        return ""
    labels = pod["metadata"]["labels"]
    if LOCAL_MODEL_LABEL in labels:  # 723-737: the node's cache volume instead of a download
        source = str(annotations.get(LOCAL_MODEL_SOURCE, ""))
        sub = src[len(source) :] if src.startswith(source) else src
        sub = sub if sub.startswith("/") else "/" + sub
        pvc = annotations.get(LOCAL_MODEL_PVC)
        if pvc is None:
            return f"the webhook refuses the pod: annotation {LOCAL_MODEL_PVC} not found ({TAG} {WEBHOOK_GO}:731-736)"
        src = f"{PVC_PREFIX}{pvc}/models/{storage_key(source)}{sub}"
    spec = pod["spec"]
    if AGENT_INJECT in annotations:  # 292-295
        return ""
    if any(c.get("name") == STORAGE_INITIALIZER for c in spec.get("initContainers") or []):  # 388-393
        return ""
    if not src.startswith(PVC_PREFIX):
        return (
            f"a storage-initializer init container downloads {src} (built from inferenceservice-config "
            f"storageInitializer, {TAG} {WEBHOOK_GO}:540-551, 569-691); not derived here"
        )
    names = [c.get("name") for c in spec.get("containers") or []]
    targets = [n for n in (CONTAINER_NAME, TRANSFORMER_CONTAINER) if n in names]
    if CONTAINER_NAME not in names:
        if WORKER_CONTAINER not in names:  # 411-417
            return f"the webhook refuses the pod: no {CONTAINER_NAME} container ({TAG} {WEBHOOK_GO}:411-417)"
        targets = [WORKER_CONTAINER, *[n for n in targets if n != WORKER_CONTAINER]]
    # pkg/utils/storage.go:59-73 ParsePvcURI: the claim, then the rest of the path as the mount's subPath.
    claim, _, path = src[len(PVC_PREFIX) :].partition("/")
    read_only = annotations.get(READONLY_ANNOTATION) != "false"  # 256-265: read-only unless "false"
    mount: dict[str, Any] = {"name": PVC_SOURCE_VOLUME, "mountPath": MODEL_MOUNT_PATH}
    if path:
        mount["subPath"] = path
    if read_only:
        mount["readOnly"] = True
    why = (
        f"KServe's pod webhook mounts the local model cache's PVC {claim} at {MODEL_MOUNT_PATH} from {path or '/'} "
        f"({TAG} {WEBHOOK_GO}:723-737, 509-558; pkg/utils/storage.go:75-163)"
    )
    added = False
    for i, container in enumerate(spec["containers"]):  # storage.go:107-163 AddModelMount, 76-94: once per volume
        if container.get("name") in targets:
            mounts = container.setdefault("volumeMounts", [])
            if not any(m.get("name") == PVC_SOURCE_VOLUME for m in mounts):
                mounts.append(dict(mount))
                rules[f"spec.containers[{i}].volumeMounts[{len(mounts) - 1}]"] = why
                added = True
    volumes = spec.setdefault("volumes", [])
    if added and not any(v.get("name") == PVC_SOURCE_VOLUME for v in volumes):
        volumes.append({"name": PVC_SOURCE_VOLUME, "persistentVolumeClaim": {"claimName": claim}})
        rules[f"spec.volumes[{len(volumes) - 1}]"] = why
    for i, container in enumerate(spec["containers"]):  # 560-566: the model container's STORAGE_URI, if set
        if container.get("name") != targets[0]:
            continue
        for j, env in enumerate(container.get("env") or []):
            if env.get("name") == STORAGE_URI_ENV and env.get("value"):
                env["value"] = MODEL_MOUNT_PATH
                rules[f"spec.containers[{i}].env[{j}].value"] = (
                    f"KServe's pod webhook points STORAGE_URI at {MODEL_MOUNT_PATH} ({TAG} {WEBHOOK_GO}:560-566)"
                )
    return ""


def _metrics_aggregator(pod: dict[str, Any], cfg: AggregatorConfig, rules: dict[str, str]) -> None:
    """metrics_aggregate_injector.go:94-129: the config's two switches as pod annotations where the pod has none,
    and Prometheus' port and path when scraping is on (the queue-proxy it would also change exists only in Knative)."""
    annotations = pod["metadata"]["annotations"]
    where = f"{TAG} {WEBHOOK_DIR}/metrics_aggregate_injector.go:94-129, inferenceservice-config metricsAggregator"
    for key, value in ((METRIC_AGGREGATION, cfg.metric_aggregation), (PROMETHEUS_SCRAPING, cfg.prometheus_scraping)):
        if key not in annotations:
            annotations[key] = value
            rules[f"metadata.annotations.{key}"] = f"KServe's pod webhook copies {value!r} from the config ({where})"
    if annotations[PROMETHEUS_SCRAPING] == "true":
        port = "9088" if annotations[METRIC_AGGREGATION] == "true" else "9091"  # constants.go:132-133
        annotations["prometheus.io/port"] = port
        annotations["prometheus.io/path"] = "/metrics"  # constants.go:131
        rules["metadata.annotations.prometheus.io/port"] = f"KServe's pod webhook ({where})"
