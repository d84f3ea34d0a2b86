"""KServe v0.20.0 in Standard (raw) mode: the predictor Deployment and Service of each InferenceService.

Followed step by step from kserve/kserve at tag v0.20.0 (paths below are in that repository):

1. The mutating webhook defaults the InferenceService (``pkg/apis/serving/v1beta1/inference_service_defaults.go``
   ``DefaultInferenceService``, lines 163-214): the deprecated ``RawDeployment`` annotation becomes
   ``Standard`` (166-171); a custom predictor's first container is named ``kserve-container`` and every
   CPU/memory request or limit it lacks is filled from ``inferenceservice-config`` (``predictor_custom.go:65-73``,
   ``inference_service_defaults.go:59-96``: only missing keys, requests and limits separately); a
   LocalModelCache whose URI matches the storage URI labels the InferenceService (``setLocalModelLabel``,
   504-593); with ``autoMountServiceAccountToken: false`` the predictor gets ``automountServiceAccountToken:
   false`` (211-213, 219-222).
2. The predictor reconciler builds the pod spec and metadata (``pkg/controller/v1beta1/inferenceservice/components/
   predictor.go``): annotations minus the disallowed list (99-102; ``pkg/constants/constants.go:534-540``),
   plus ``internal.serving.kserve.io/storage-initializer-sourceuri`` for a storage URI (116-120, 294-309);
   the predictor's own pod spec with its ``kserve-container`` (139-147); ``INFERENCE_SERVICE_NAME`` on
   every container (152-157); name ``<isvc>-predictor`` (159; constants.go:799-804); labels
   isvc < predictor < ``serving.kserve.io/inferenceservice`` and ``component: predictor`` (498-519).
3. The raw Deployment (``reconcilers/deployment/deployment_reconciler.go``): ``app: isvc.<name>`` on the
   template (and, through Go's shared label map, on the Deployment itself) and as the selector (140-161);
   pod defaults (276-339: DNS policy, restart policy, 30 s grace, an empty securityContext, the default
   scheduler, termination message path and policy, ``IfNotPresent``, a TCP readiness probe where the
   model container has none); deployment defaults (341-359: RollingUpdate 25%/25%, 10 revisions,
   ``progressDeadlineSeconds: 600``); replicas only with autoscaler class ``none`` (170-172).
4. The Service (``reconcilers/service/service_reconciler.go:104-192``): port 80 named after the first
   container port, targeting it; selector ``app: isvc.<name>``; ``clusterIP: None`` only with
   ``serviceClusterIPNone``.

5. The pod, as KServe's pod webhook mutates each one the Deployment creates (``pkg/webhook/admission/pod/``,
   ``mutator.go:131-139`` runs its mutators in order on every pod labelled ``serving.kserve.io/inferenceservice``,
   55-57, 154-158): the storage initializer (``storage_initializer_injector.go:716-784``) which, for a pod with the
   local-model label, mounts the cache's PVC at ``/mnt/models`` from ``models/<storage key>`` (723-737, 509-558)
   instead of downloading, and points ``STORAGE_URI`` at ``/mnt/models`` (560-566); the metrics aggregator's
   annotations (``metrics_aggregate_injector.go:94-129``). A storage URI that needs the storage-initializer init
   container (not a cache) or the model agent (logger, batcher) is not derived: the pod is left out and the
   summary says why.

Only custom predictors (``spec.predictor.containers``) are derived; a predictor that names a model
format goes through a ServingRuntime this module does not read, and is left out (said in the summary
of no object: nothing is derived for it).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional

from ..capacity.cold_start import cold_ready
from ..probes import startup_budget
from . import Derived, Rendered
from .karpenter import quantity
from .kserve_webhook import (
    CONTAINER_NAME,
    ISVC_LABEL,
    LOCAL_MODEL_LABEL,
    LOCAL_MODEL_PVC,
    LOCAL_MODEL_SOURCE,
    MODEL_MOUNT_PATH,
    SOURCE_URI,
    STORAGE_URI_ENV,
    TAG,
    webhook_pod,
)

DEFAULTS_GO = "pkg/apis/serving/v1beta1/inference_service_defaults.go"
CUSTOM_GO = "pkg/apis/serving/v1beta1/predictor_custom.go"
PREDICTOR_GO = "pkg/controller/v1beta1/inferenceservice/components/predictor.go"
DEPLOYMENT_GO = "pkg/controller/v1beta1/inferenceservice/reconcilers/deployment/deployment_reconciler.go"
SERVICE_GO = "pkg/controller/v1beta1/inferenceservice/reconcilers/service/service_reconciler.go"
CHART_VALUES = "charts/kserve-resources/values.yaml"
CONFIGMAP_PATCH = "charts/kserve-resources/files/common/configmap-patch.yaml"

DEPLOYMENT_MODE = "serving.kserve.io/deploymentMode"  # constants.go:115
AUTOSCALER_CLASS = "serving.kserve.io/autoscalerClass"  # constants.go:118
DISABLE_LOCAL_MODEL = "serving.kserve.io/disable-localmodel"  # constants.go:117
NODE_GROUP = "serving.kserve.io/nodegroup"  # constants.NodeGroupAnnotationKey
# constants.go:534-540: never copied from the InferenceService to what the controller creates.
DISALLOWED_ANNOTATIONS = (
    "autoscaling.knative.dev/min-scale",
    "autoscaling.knative.dev/max-scale",
    SOURCE_URI,
    "kubectl.kubernetes.io/last-applied-configuration",
    "serving.kserve.io/model-format",
)
# PredictorSpec's own fields and the inline ComponentExtensionSpec (predictor.go:36-86 and
# component.go:75-131 of pkg/apis/serving/v1beta1): everything else under spec.predictor is the pod spec.
PREDICTOR_FIELDS = frozenset(
    {
        "name", "sklearn", "xgboost", "tensorflow", "pytorch", "triton", "onnx", "huggingface", "pmml",
        "lightgbm", "paddle", "model", "storageUris", "storageContainerName", "workerSpec",
        "minReplicas", "maxReplicas", "scaleTarget", "scaleMetric", "scaleMetricType", "autoScaling",
        "containerConcurrency", "timeout", "canaryTrafficPercent", "logger", "batcher", "labels",
        "annotations", "deploymentStrategy",
    }
)  # fmt: skip
# deployment_reconciler.go:355-358 (setDefaultDeploymentSpec). Nothing in KServe v0.20.0 changes it: no annotation,
# no inferenceservice-config key and no InferenceService field reaches it (a user deploymentStrategy skips
# setDefaultDeploymentSpec, 162-168, and the API server then defaults the field to the same 600); a value set on
# the Deployment by someone else is reverted, because every reconcile builds the Deployment afresh, compares its
# spec after a dry-run update (261-272) and patches the difference back (471-499). Only a mutation on the API
# server's side (an admission policy, run on the dry-run update as on the real one) would survive: a
# MutatingAdmissionPolicy, GA (admissionregistration.k8s.io/v1) from Kubernetes 1.36, and absent on the 1.33
# clusters the stacks target.
PROGRESS_DEADLINE_SECONDS = 600


@dataclass(frozen=True)
class IsvcConfig:
    """What ``inferenceservice-config`` says, as the kserve-resources release renders it."""

    cpu_request: str
    memory_request: str
    cpu_limit: str
    memory_limit: str
    default_deployment_mode: str
    local_model_enabled: bool
    automount_service_account_token: bool
    service_cluster_ip_none: bool
    metric_aggregation: str  # metricsAggregator.enableMetricAggregation, a string ("true"/"false")
    prometheus_scraping: str  # metricsAggregator.enablePrometheusScraping
    source: str  # where the values came from (the release, or the chart's defaults)


# The chart's defaults (charts/kserve-resources/values.yaml at v0.20.0: inferenceservice.resources 88-95,
# security 86-87, controller.deploymentMode 109, service.serviceClusterIPNone 19, localmodel.enabled 63-64);
# tests/derive/test_kserve_derive.py checks them against the pinned chart's values.yaml.
CHART_DEFAULTS: Mapping[str, Any] = {
    "inferenceservice": {"resources": {"limits": {"cpu": "1", "memory": "2Gi"}, "requests": {"cpu": "1", "memory": "2Gi"}}},
    "security": {"autoMountServiceAccountToken": True},
    "controller": {"deploymentMode": "Knative"},
    "service": {"serviceClusterIPNone": False},
    "localmodel": {"enabled": False},
    "metricsaggregator": {"enableMetricAggregation": "false", "enablePrometheusScraping": "false"},
}


def _merged(defaults: Any, values: Any) -> Any:
    """Helm's merge of user values over a chart's defaults: maps merge, a null deletes the key."""
    if not isinstance(defaults, Mapping) or not isinstance(values, Mapping):
        return copy.deepcopy(values)
    out = {k: copy.deepcopy(v) for k, v in defaults.items()}
    for key, value in values.items():
        if value is None:
            out.pop(key, None)
        elif key in out:
            out[key] = _merged(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _dig(tree: Any, *path: str) -> Any:
    for part in path:
        tree = tree.get(part) if isinstance(tree, Mapping) else None
    return tree


def _rendered_string(value: Any) -> str:
    # `"{{ .Values.x }}"` renders a missing (or null) value as "" (Helm replaces Go's "<no value>").
    return "" if value is None else str(value)


def isvc_config(rendered: Rendered) -> IsvcConfig:
    """``inferenceservice-config`` from the stack's kserve-resources release (its values over the chart's
    defaults, rendered by configmap-patch.yaml:55-62, 115-143); the chart's defaults alone when the stack
    installs no such release (KServe installed by someone else, as the chart ships it)."""
    release = rendered.release("kserve-resources")
    user = _dig(release.values, "kserve") if release is not None else None
    values = _merged(CHART_DEFAULTS, user if isinstance(user, Mapping) else {})
    res = _dig(values, "inferenceservice", "resources") or {}
    return IsvcConfig(
        cpu_request=_rendered_string(_dig(res, "requests", "cpu")),
        memory_request=_rendered_string(_dig(res, "requests", "memory")),
        cpu_limit=_rendered_string(_dig(res, "limits", "cpu")),
        memory_limit=_rendered_string(_dig(res, "limits", "memory")),
        default_deployment_mode=_rendered_string(_dig(values, "controller", "deploymentMode")),
        local_model_enabled=_dig(values, "localmodel", "enabled") is True,
        automount_service_account_token=_dig(values, "security", "autoMountServiceAccountToken") is not False,
        service_cluster_ip_none=_dig(values, "service", "serviceClusterIPNone") is True,
        metric_aggregation=_rendered_string(_dig(values, "metricsaggregator", "enableMetricAggregation")),
        prometheus_scraping=_rendered_string(_dig(values, "metricsaggregator", "enablePrometheusScraping")),
        source=f"release {release.namespace}/{release.name}"
        if release is not None
        else "the chart's defaults (no kserve release)",
    )


def _match_storage_uri(cached: str, uri: str) -> bool:
    """pkg/apis/serving/v1alpha1/storage_uri_utils.go:23-35: the cache's URI or a folder under it."""
    cached, uri = cached.rstrip("/"), uri.rstrip("/")
    return uri == cached or uri.startswith(cached + "/")


def _storage_uri(predictor: Mapping[str, Any]) -> Optional[str]:
    """A custom predictor's storage URI: STORAGE_URI on its kserve-container (predictor_custom.go:75-88)."""
    for container in predictor.get("containers") or []:
        if container.get("name") == CONTAINER_NAME:
            for env in container.get("env") or []:
                if env.get("name") == STORAGE_URI_ENV and isinstance(env.get("value"), str):
                    return str(env["value"])
            break
    return None


def _local_model(isvc: Mapping[str, Any], uri: Optional[str], caches: list[Mapping[str, Any]]) -> Optional[tuple[str, str, str]]:
    """(cache name, its source URI, PVC name) of the LocalModelCache the defaulter matches (inference_service_defaults.go:548-590)."""
    if uri is None:
        return None
    group = (_dig(isvc, "metadata", "annotations") or {}).get(NODE_GROUP)
    for cache in caches:
        spec = cache.get("spec") or {}
        source = str(spec.get("sourceModelUri") or "")
        groups = list(spec.get("nodeGroups") or [])
        if not source or not groups or not _match_storage_uri(source, uri):
            continue
        if group is not None:
            if group not in groups:
                continue
            node_group = group
        else:
            node_group = groups[0]
        name = str(_dig(cache, "metadata", "name"))
        return name, source, f"{name}-{node_group}"
    return None


def _set_resource_defaults(resources: dict[str, Any], cfg: IsvcConfig, rules: dict[str, str], prefix: str) -> None:
    """inference_service_defaults.go:59-96: each CPU/memory request or limit the container lacks, from the config."""
    for kind, defaults in (
        ("requests", {"cpu": cfg.cpu_request, "memory": cfg.memory_request}),
        ("limits", {"cpu": cfg.cpu_limit, "memory": cfg.memory_limit}),
    ):
        current = resources.setdefault(kind, {})
        for key, value in defaults.items():
            if value and key not in current:
                current[key] = value
                config_key = f"{'cpu' if key == 'cpu' else 'memory'}{'Request' if kind == 'requests' else 'Limit'}"
                rules[f"{prefix}.resources.{kind}.{key}"] = (
                    f"KServe's defaulter fills a missing {kind[:-1]} from inferenceservice-config "
                    f"resource.{config_key} = {value!r} ({cfg.source}; {TAG} {DEFAULTS_GO}:59-96, {CUSTOM_GO}:65-73)"
                )


def _pod_defaults(spec: dict[str, Any], rules: dict[str, str]) -> None:
    """deployment_reconciler.go:276-339 (setDefaultPodSpec)."""
    where = f"{TAG} {DEPLOYMENT_GO}:276-339"
    for key, value in (
        ("dnsPolicy", "ClusterFirst"),
        ("restartPolicy", "Always"),
        ("terminationGracePeriodSeconds", 30),
        ("securityContext", {}),
        ("schedulerName", "default-scheduler"),
    ):
        if key not in spec:
            spec[key] = value
            rules[f"spec.template.spec.{key}"] = f"KServe's pod defaults ({where})"
    for i, container in enumerate(spec.get("containers") or []):
        container.setdefault("terminationMessagePath", "/dev/termination-log")
        container.setdefault("terminationMessagePolicy", "File")
        container.setdefault("imagePullPolicy", "IfNotPresent")
        if container.get("name") == CONTAINER_NAME and "readinessProbe" not in container:
            ports = container.get("ports") or []
            port = ports[0].get("containerPort", 8080) if ports else 8080
            container["readinessProbe"] = {
                "tcpSocket": {"port": port},
                "timeoutSeconds": 1,
                "periodSeconds": 10,
                "successThreshold": 1,
                "failureThreshold": 3,
            }
            rules[f"spec.template.spec.containers[{i}].readinessProbe"] = (
                f"KServe's TCP readiness probe for a model container without one ({where})"
            )


def _add_env(container: dict[str, Any], name: str, value: str) -> None:
    """isvcutils.AddEnvVarToPodSpec: set the variable, replacing one of the same name."""
    env = container.setdefault("env", [])
    for item in env:
        if item.get("name") == name:
            item.clear()
            item.update({"name": name, "value": value})
            return
    env.append({"name": name, "value": value})


def default_inference_service(
    isvc: Mapping[str, Any], cfg: IsvcConfig, caches: list[Mapping[str, Any]]
) -> tuple[dict[str, Any], dict[str, str]]:
    """The InferenceService as KServe's mutating webhook stores it (inference_service_defaults.go:163-214), with the
    rule behind each field it set (paths into the InferenceService). What the API server then holds, and so what
    `pulumi refresh` reads back: every path here that differs from ours is a diff unless Pulumi ignores it."""
    out = copy.deepcopy(dict(isvc))
    meta = out.setdefault("metadata", {})
    annotations = meta.setdefault("annotations", {})
    labels = meta.setdefault("labels", {})
    rules: dict[str, str] = {}
    mode = annotations.get(DEPLOYMENT_MODE)
    if mode == "RawDeployment":  # 166-171
        annotations[DEPLOYMENT_MODE] = "Standard"
        rules[f"metadata.annotations.{DEPLOYMENT_MODE}"] = (
            f"the deprecated RawDeployment becomes Standard ({TAG} {DEFAULTS_GO}:166-171)"
        )
    elif mode is None and cfg.default_deployment_mode == "Standard":  # 178-186
        annotations[DEPLOYMENT_MODE] = "Standard"
        rules[f"metadata.annotations.{DEPLOYMENT_MODE}"] = f"the config's default deployment mode ({TAG} {DEFAULTS_GO}:178-186)"
    predictor = out.setdefault("spec", {}).setdefault("predictor", {})
    containers = predictor.get("containers") or []
    if containers:
        # predictor_custom.go:65-73: the single (or unnamed first) container is the model container.
        if len(containers) == 1 or not containers[0].get("name"):
            containers[0]["name"] = CONTAINER_NAME
        _set_resource_defaults(containers[0].setdefault("resources", {}), cfg, rules, "spec.predictor.containers[0]")
    uri = _storage_uri(predictor)
    if cfg.local_model_enabled and DISABLE_LOCAL_MODEL not in annotations:
        matched = _local_model(out, uri, caches)
        if matched is not None:  # 580-590
            labels[LOCAL_MODEL_LABEL] = matched[0]
            annotations[LOCAL_MODEL_SOURCE] = matched[1]
            annotations[LOCAL_MODEL_PVC] = matched[2]
            why = f"the LocalModelCache {matched[0]} matches the storage URI ({TAG} {DEFAULTS_GO}:504-593)"
            for path in (
                f"metadata.labels.{LOCAL_MODEL_LABEL}",
                f"metadata.annotations.{LOCAL_MODEL_SOURCE}",
                f"metadata.annotations.{LOCAL_MODEL_PVC}",
            ):
                rules[path] = why
    if not cfg.automount_service_account_token and "automountServiceAccountToken" not in predictor:
        predictor["automountServiceAccountToken"] = False  # 211-222
        rules["spec.predictor.automountServiceAccountToken"] = (
            f"inferenceservice-config security.autoMountServiceAccountToken false ({TAG} {DEFAULTS_GO}:211-222)"
        )
    return out, rules


def _deployment_defaults(
    dspec: dict[str, Any], predictor: Mapping[str, Any], annotations: Mapping[str, Any], rules: dict[str, str]
) -> None:
    """The raw Deployment's strategy, history, progress deadline and replicas as the reconciler sets them."""
    strategy = predictor.get("deploymentStrategy")
    if strategy is not None:  # deployment_reconciler.go:162-164: the user's strategy, and no other deployment defaults
        dspec["strategy"] = copy.deepcopy(strategy)
    else:  # 341-359
        dspec["strategy"] = {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}}
        dspec["revisionHistoryLimit"] = 10
        dspec["progressDeadlineSeconds"] = PROGRESS_DEADLINE_SECONDS
        rules["spec.progressDeadlineSeconds"] = (
            f"KServe sets {PROGRESS_DEADLINE_SECONDS} s on every predictor Deployment, offers no field, annotation or "
            f"config key to change it and reverts a value set on the Deployment ({TAG} {DEPLOYMENT_GO}:355-358, "
            "261-272, 471-499)"
        )
    if annotations.get(AUTOSCALER_CLASS) == "none" and predictor.get("minReplicas") is not None:  # 170-172
        dspec["replicas"] = predictor["minReplicas"]


def _pod_summary(pod: Mapping[str, Any]) -> dict[str, Any]:
    """The derived pod's volumes and what is mounted at the model path, for the report."""
    main: dict[str, Any] = next((c for c in pod["spec"]["containers"] if c.get("name") == CONTAINER_NAME), {})
    mounts = [m for m in main.get("volumeMounts") or [] if m.get("mountPath") == MODEL_MOUNT_PATH]
    pod_summary = {
        "volumes": [v.get("name") for v in pod["spec"].get("volumes") or []],
        "modelMount": ", ".join(
            f"{m['name']} at {m['mountPath']} from {m.get('subPath') or '/'}{' (read-only)' if m.get('readOnly') else ''}"
            for m in mounts
        )
        or f"none at {MODEL_MOUNT_PATH}",
    }
    return pod_summary


def _predictor(isvc: Mapping[str, Any], cfg: IsvcConfig, caches: list[Mapping[str, Any]]) -> Optional[list[Derived]]:
    defaulted, isvc_rules = default_inference_service(isvc, cfg, caches)
    meta = defaulted["metadata"]
    name, namespace = str(meta.get("name")), str(meta.get("namespace") or "default")
    annotations = dict(meta.get("annotations") or {})
    labels = dict(meta.get("labels") or {})
    predictor = defaulted["spec"]["predictor"]
    if annotations.get(DEPLOYMENT_MODE) != "Standard" or not predictor.get("containers"):
        return None
    # The webhook's rules, at the path the same field takes in the Deployment.
    rules = {
        path.replace("spec.predictor.containers[0]", "spec.template.spec.containers[0]", 1): why
        for path, why in isvc_rules.items()
        if path.startswith(("spec.predictor.containers[0]", "metadata.labels."))
    }
    containers = predictor["containers"]
    uri = _storage_uri(predictor)
    # predictor.go:99-120: the InferenceService's annotations minus the disallowed ones, then the storage URI.
    kept = {k: v for k, v in annotations.items() if k not in DISALLOWED_ANNOTATIONS}
    if uri is not None:
        kept[SOURCE_URI] = uri
        rules[f"metadata.annotations.{SOURCE_URI}"] = f"the storage initializer's trigger ({TAG} {PREDICTOR_GO}:116-120, 294-309)"
    own = {k: v for k, v in (predictor.get("annotations") or {}).items() if k not in DISALLOWED_ANNOTATIONS}
    pod_spec = {k: v for k, v in predictor.items() if k not in PREDICTOR_FIELDS}
    for container in pod_spec["containers"]:  # predictor.go:152-157
        _add_env(container, "INFERENCE_SERVICE_NAME", name)
    deployment_name = f"{name}-predictor"  # predictor.go:159, constants.go:799-804
    app = f"isvc.{deployment_name}"  # constants.go:755-757 GetRawServiceLabel
    object_labels = {**labels, **(predictor.get("labels") or {}), ISVC_LABEL: name, "component": "predictor", "app": app}
    object_annotations = {**kept, **own}
    spec = pod_spec
    _pod_defaults(spec, rules)
    deployment: dict[str, Any] = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": deployment_name, "namespace": namespace, "labels": object_labels, "annotations": object_annotations},
        "spec": {
            "selector": {"matchLabels": {"app": app}},
            "template": {"metadata": {"labels": dict(object_labels), "annotations": dict(object_annotations)}, "spec": spec},
        },
    }
    rules["metadata.labels.app"] = (
        f"KServe's raw deployment label, shared with the pod template's map ({TAG} {DEPLOYMENT_GO}:145-161)"
    )
    dspec = deployment["spec"]
    _deployment_defaults(dspec, predictor, annotations, rules)
    model = name
    startup = startup_budget(containers[0])
    cache = _cache_gib(caches, labels.get(LOCAL_MODEL_LABEL))
    summary = {
        "resources": containers[0].get("resources") or {},
        "probes": {k: containers[0][k] for k in ("startupProbe", "readinessProbe", "livenessProbe") if k in containers[0]},
        "progressDeadlineSeconds": dspec.get("progressDeadlineSeconds", PROGRESS_DEADLINE_SECONDS),
        "startupBudgetSeconds": startup,
        # From the pod's creation to Ready on a new node: what the progress deadline must cover on a rollout
        # (capacity/cold_start.py cold_ready; the same figure `pulumi up` waits for, builders/awaiting.py).
        "coldReady": cold_ready(startup, cache).report() if startup is not None else None,
        "volumes": [v.get("name") for v in spec.get("volumes") or []],
        "initContainers": [c.get("name") for c in spec.get("initContainers") or []],
        "localModel": labels.get(LOCAL_MODEL_LABEL, ""),
    }
    pod, pod_rules, not_derived = webhook_pod(deployment, cfg)
    if not_derived:
        summary["pod"] = f"not derived: {not_derived}"
    source = f"InferenceService {namespace}/{name}"
    out = [Derived("kserve", source, model, deployment, dict(rules), summary)]
    out.append(Derived("kserve", source, model, _service(deployment, cfg), {}, {}))
    if pod is not None:
        out.append(Derived("kserve", source, model, pod, pod_rules, _pod_summary(pod)))
    return out


def _cache_gib(caches: list[Mapping[str, Any]], name: Optional[str]) -> Optional[float]:
    """The size (GiB) of the LocalModelCache the defaulter matched (its ``spec.modelSize``, what KServe's agent
    downloads to every node of the group before the model's pod may start), None without one."""
    for cache in caches:
        if name is not None and _dig(cache, "metadata", "name") == name:
            return quantity(_dig(cache, "spec", "modelSize")) / 2**30
    return None


def _service(deployment: Mapping[str, Any], cfg: IsvcConfig) -> dict[str, Any]:
    """service_reconciler.go:104-192 (createDefaultSvc) for a single-node predictor."""
    meta = deployment["metadata"]
    containers = deployment["spec"]["template"]["spec"]["containers"]
    container = next((c for c in containers if c.get("name") == "transformer-container"), containers[0])
    ports: list[dict[str, Any]] = []
    if container.get("ports"):
        first = container["ports"][0]
        port: dict[str, Any] = {"name": first.get("name", ""), "port": 80, "targetPort": first["containerPort"]}
        port["protocol"] = first.get("protocol", "TCP")
        if any(s in str(first.get("name", "")) for s in ("grpc", "h2c")):  # 65-78 getAppProtocol
            port["appProtocol"] = "kubernetes.io/h2c"
        ports.append(port)
        for extra in container["ports"][1:]:
            p = {"name": extra.get("name", ""), "port": extra["containerPort"], "targetPort": extra["containerPort"]}
            p["protocol"] = extra.get("protocol") or "TCP"
            ports.append(p)
    else:
        ports.append({"name": meta["name"], "port": 80, "targetPort": 8080, "protocol": "TCP"})
    spec: dict[str, Any] = {"selector": {"app": meta["labels"]["app"]}, "ports": ports}
    if cfg.service_cluster_ip_none:
        spec["clusterIP"] = "None"
    return {"apiVersion": "v1", "kind": "Service", "metadata": copy.deepcopy(dict(meta)), "spec": spec}


def derive(rendered: Rendered) -> list[Derived]:
    """The predictor Deployment and Service KServe creates for each Standard-mode InferenceService."""
    cfg = isvc_config(rendered)
    caches = rendered.of_kind("serving.kserve.io/v1alpha1", "LocalModelCache")
    out: list[Derived] = []
    for isvc in rendered.of_kind("serving.kserve.io/v1beta1", "InferenceService"):
        out.extend(_predictor(isvc, cfg, caches) or [])
    return out
