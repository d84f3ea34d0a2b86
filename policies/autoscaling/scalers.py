"""Reading autoscalers and what they depend on: HPAs, KEDA ScaledObjects, their targets, adapter rules, monitors.

Shared by the autoscaling policies (S6, S7, S8). Everything tolerates the engine's loose values
(floats for ints, missing fields) and third-party shapes (plain manifests, Helm release props,
the adapter's ConfigMap); what cannot be read is None or empty, never an exception.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional

from components.loading import Limits, LoadError, load_yaml
from policies.framework import Resource
from policies.kube import (
    GPU_RESOURCE,
    HPA_TYPES,
    ISVC_TYPE,
    SCALED_OBJECT_TYPE,
    annotations_of,
    as_dict,
    as_float,
    as_int,
    as_list,
    as_quantity,
    containers,
    get,
    memoized,
    metadata_name,
    pod_specs,
    split_type,
)
from policies.reading.server_names import SERVER_WORD

HELM_RELEASE_TYPES = ("kubernetes:helm.sh/v3:Release", "kubernetes:helm.sh/v4:Release")
POD_MONITOR_GROUP_KIND = ("monitoring.coreos.com", "PodMonitor")
SERVICE_MONITOR_GROUP_KIND = ("monitoring.coreos.com", "ServiceMonitor")
NODEPOOL_LABEL = "karpenter.sh/nodepool"
ISVC_POD_LABEL = "serving.kserve.io/inferenceservice"
# An adapter config inside a ConfigMap is YAML in a string: parsed with the project's bounded loader,
# since the string itself may hold an alias bomb the manifest reader never expanded.
ADAPTER_CONFIG = Limits(
    "a Prometheus Adapter config in a ConfigMap", max_bytes=1 << 20, max_depth=32, max_nodes=100_000, max_documents=1
)
# vLLM gauges that are fractions in 0..1 (vllm-project/vllm v0.33.0 section 1): kv_cache_usage_perc and its removed old name.
FRACTION_METRIC = re.compile(r"(kv_cache_usage_perc|gpu_cache_usage_perc|cache_usage)", re.IGNORECASE)
# Kubernetes HPA defaults when spec.behavior is absent (autoscaling/v2 API reference).
DEFAULT_SCALE_DOWN_STABILIZATION = 300
KEDA_DEFAULT_MAX_REPLICAS = 100


def namespace_of(resource: Resource) -> Optional[str]:
    """metadata.namespace as a string, or None."""
    ns = get(resource.props, "metadata", "namespace")
    return ns if isinstance(ns, str) else None


def is_hpa(resource: Resource) -> bool:
    """An autoscaling/* HorizontalPodAutoscaler."""
    return resource.type in HPA_TYPES


def is_scaled_object(resource: Resource) -> bool:
    """A KEDA ScaledObject."""
    return resource.type == SCALED_OBJECT_TYPE


def scalers(resources: Iterable[Resource]) -> list[Resource]:
    """Every HPA and ScaledObject, in input order."""
    return [r for r in resources if is_hpa(r) or is_scaled_object(r)]


@dataclass(frozen=True)
class EmbeddedHPA(Resource):
    """The HPA an operator renders from a block of its own custom resource, as a Resource of the HPA type named as that
    resource (findings land on it; policies/autoscaling/embedded.py builds them). ``field`` is where the block's metrics
    and behavior sit, ``replicas_at`` where its maxReplicas sits, for messages; ``lead`` (optional) replaces "<behavior
    path> is not set" where the operator itself decides the behavior, and ``settled`` is False where a cluster setting
    outside the files may supply what the block leaves out."""

    field: str = "spec"
    replicas_at: str = ""
    lead: str = ""
    settled: bool = True


@dataclass(frozen=True)
class Metric:
    """One HPA metric: where it is, its type, its name (None for Resource metrics) and its target."""

    path: str
    type: str
    name: Optional[str]
    target: dict


def hpa_metrics(hpa: Resource) -> list[Metric]:
    """The spec.metrics of an autoscaling/v2 (or v2beta2) HPA (of the block an operator renders one from: EmbeddedHPA)."""
    where = hpa.field if isinstance(hpa, EmbeddedHPA) else "spec"
    found = []
    for i, metric in enumerate(as_list(get(hpa.props, "spec", "metrics"))):
        if not isinstance(metric, dict):
            continue
        mtype = str(metric.get("type"))
        key = {
            "Pods": "pods",
            "Object": "object",
            "External": "external",
            "Resource": "resource",
            "ContainerResource": "containerResource",
        }.get(mtype)
        body = as_dict(metric.get(key)) if key else {}
        name = get(body, "metric", "name") if mtype in ("Pods", "Object", "External") else get(body, "name")
        found.append(
            Metric(
                f"{where}.metrics[{i}].{key or mtype}",
                mtype,
                name if isinstance(name, str) else None,
                as_dict(body.get("target")),
            )
        )
    return found


def triggers(scaled_object: Resource) -> list[tuple[str, dict]]:
    """(path, trigger) of a ScaledObject's spec.triggers."""
    return [
        (f"spec.triggers[{i}]", t)
        for i, t in enumerate(as_list(get(scaled_object.props, "spec", "triggers")))
        if isinstance(t, dict)
    ]


def behavior(scaler: Resource) -> tuple[str, dict]:
    """(path, behavior) of an HPA or ScaledObject (the HPA KEDA creates takes advanced.horizontalPodAutoscalerConfig)."""
    if is_scaled_object(scaler):
        path = "spec.advanced.horizontalPodAutoscalerConfig.behavior"
        return path, as_dict(get(scaler.props, "spec", "advanced", "horizontalPodAutoscalerConfig", "behavior"))
    where = scaler.field if isinstance(scaler, EmbeddedHPA) else "spec"
    return f"{where}.behavior", as_dict(get(scaler.props, "spec", "behavior"))


def max_replicas(scaler: Resource) -> tuple[str, Optional[int]]:
    """(field, value) of the scaler's replica ceiling; KEDA's default 100 when a ScaledObject leaves it unset (kedacore/
    keda v2.20.2 apis/keda/v1alpha1/scaledobject_types.go); an InferenceService's spec.predictor.maxReplicas."""
    if scaler.type == ISVC_TYPE:
        return "spec.predictor.maxReplicas", as_int(get(scaler.props, "spec", "predictor", "maxReplicas"))
    if is_scaled_object(scaler):
        value = get(scaler.props, "spec", "maxReplicaCount")
        return "spec.maxReplicaCount", KEDA_DEFAULT_MAX_REPLICAS if value is None else as_int(value)
    where = (scaler.replicas_at or scaler.field) if isinstance(scaler, EmbeddedHPA) else "spec"
    return f"{where}.maxReplicas", as_int(get(scaler.props, "spec", "maxReplicas"))


@dataclass(frozen=True)
class Workload:
    """A workload an autoscaler can target: its pods' labels, GPUs per pod and Karpenter pool."""

    resource: Resource
    kind: str
    name: str
    namespace: Optional[str]
    pod_labels: dict
    gpus_per_pod: int
    pool: Optional[str]


def _pool(podspec: dict) -> Optional[str]:
    pool = get(podspec, "nodeSelector", NODEPOOL_LABEL)
    if isinstance(pool, str):
        return pool
    for term in as_list(
        get(podspec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
    ):
        for expr in as_list(get(term, "matchExpressions")):
            values = as_list(get(expr, "values"))
            if (
                get(expr, "key") == NODEPOOL_LABEL
                and get(expr, "operator") == "In"
                and len(values) == 1
                and isinstance(values[0], str)
            ):
                return values[0]
    return None


def _gpus(podspec: dict) -> int:
    total = 0
    for c in containers(podspec, model=True):
        value = as_quantity(get(c, "resources", "limits", GPU_RESOURCE))
        if value is None:
            value = as_quantity(get(c, "resources", "requests", GPU_RESOURCE))
        total += int(value or 0)
    return total


def workloads(resources: Iterable[Resource]) -> list[Workload]:
    """Every scalable workload in the set, with an InferenceService standing for its `<name>-predictor` Deployment."""
    found = []
    for r in resources:
        name = metadata_name(r.props) or r.name
        if r.type == ISVC_TYPE:
            predictor = as_dict(get(r.props, "spec", "predictor"))
            # KServe's predictor pods: the InferenceService label, component=predictor, and the predictor's labels.
            labels = {**as_dict(predictor.get("labels")), ISVC_POD_LABEL: name, "component": "predictor"}
            found.append(
                Workload(r, "Deployment", f"{name}-predictor", namespace_of(r), labels, _gpus(predictor), _pool(predictor))
            )
            continue
        group, kind = split_type(r.type)
        if group not in ("apps", "leaderworkerset.x-k8s.io") or kind not in (
            "Deployment",
            "StatefulSet",
            "ReplicaSet",
            "LeaderWorkerSet",
        ):
            continue
        specs = pod_specs(r)
        if not specs:
            continue
        _, podspec = specs[0]
        template_meta = get(r.props, "spec", "template", "metadata") or get(
            r.props, "spec", "leaderWorkerTemplate", "leaderTemplate", "metadata"
        )
        gpus = _group_gpus(r.props) if kind == "LeaderWorkerSet" else _gpus(podspec)
        found.append(Workload(r, kind, name, namespace_of(r), as_dict(get(template_meta, "labels")), gpus, _pool(podspec)))
    return found


def _group_gpus(props: dict) -> int:
    """GPUs of one LeaderWorkerSet replica, the group an HPA counts: the leader's plus size - 1 workers' (size defaults
    to 1, "the total number of pods in each group"; without a leaderTemplate the leader is a worker: kubernetes-sigs/lws
    v0.10.0 api/leaderworkerset/v1/leaderworkerset_types.go:151-165, LeaderWorkerTemplate)."""
    lwt = as_dict(get(props, "spec", "leaderWorkerTemplate"))
    worker = as_dict(get(lwt, "workerTemplate", "spec"))
    leader = as_dict(get(lwt, "leaderTemplate", "spec")) or worker
    size = as_int(lwt.get("size"))
    return _gpus(leader) + max((size or 1) - 1, 0) * _gpus(worker)


def _target_ref(scaler: Resource) -> tuple[Any, Any, Optional[str]]:
    """(kind, name, namespace) of the workload the scaler's scaleTargetRef names, as written."""
    ref = as_dict(get(scaler.props, "spec", "scaleTargetRef"))
    # A ScaledObject's kind defaults to Deployment.
    return ref.get("kind") or ("Deployment" if is_scaled_object(scaler) else None), ref.get("name"), namespace_of(scaler)


def scale_target(scaler: Resource, candidates: list[Workload]) -> Optional[Workload]:
    """The workload the scaler's scaleTargetRef names (same namespace where both say one), if it is in the set."""
    kind, name, ns = _target_ref(scaler)
    for w in candidates:
        if (w.kind, w.name) == (kind, name) and (ns is None or w.namespace is None or ns == w.namespace):
            return w
    return None


def target_in_set(scaler: Resource, resources: Iterable[Resource]) -> bool:
    """True when an object of the set is (or, for an InferenceService, renders) the workload the scaler names.

    Any kind counts, readers or not, so that a target read generically is never taken for one outside the set.
    """
    kind, name, ns = _target_ref(scaler)
    for r in resources:
        r_name, r_ns = metadata_name(r.props) or r.name, namespace_of(r)
        if ns is not None and r_ns is not None and ns != r_ns:
            continue
        if (split_type(r.type)[1], r_name) == (kind, name) or (r.type == ISVC_TYPE and f"{r_name}-predictor" == name):
            return True
    return False


def selector_matches(selector: Any, labels: dict) -> bool:
    """A metav1.LabelSelector against a label set (an empty selector matches everything; a malformed one nothing)."""
    if not isinstance(selector, dict):
        return False
    for key, value in as_dict(selector.get("matchLabels")).items():
        if labels.get(key) != value:
            return False
    for expr in as_list(selector.get("matchExpressions")):
        key, op, values = get(expr, "key"), get(expr, "operator"), as_list(get(expr, "values"))
        if op == "In" and labels.get(key) not in values:
            return False
        if op == "NotIn" and key in labels and labels[key] in values:
            return False
        if op == "Exists" and key not in labels:
            return False
        if op == "DoesNotExist" and key in labels:
            return False
        if op not in ("In", "NotIn", "Exists", "DoesNotExist"):
            return False
    return True


def namespace_selected(monitor: Resource, namespace: Optional[str]) -> bool:
    """Whether a PodMonitor/ServiceMonitor discovers targets in ``namespace`` (its namespaceSelector, else its own)."""
    ns_sel = as_dict(get(monitor.props, "spec", "namespaceSelector"))
    if ns_sel.get("any") is True:
        return True
    names = as_list(ns_sel.get("matchNames"))
    if names:
        return namespace is None or namespace in names
    # No namespaceSelector: the monitor's own namespace.
    mine = namespace_of(monitor)
    return mine is None or namespace is None or mine == namespace


def monitors(resources: Iterable[Resource]) -> list[Resource]:
    """Every PodMonitor and ServiceMonitor."""
    return [r for r in resources if split_type(r.type) in (POD_MONITOR_GROUP_KIND, SERVICE_MONITOR_GROUP_KIND)]


def monitored_by(workload: Workload, resources: list[Resource]) -> list[Resource]:
    """The PodMonitors selecting the workload's pods, and ServiceMonitors selecting a Service that selects them."""
    # The same list is asked about every workload: its monitors and Services are listed once.
    services = memoized(resources, "services", lambda rs: [r for r in rs if split_type(r.type) == ("", "Service")])
    found = []
    for mon in memoized(resources, "monitors", monitors):
        if not namespace_selected(mon, workload.namespace):
            continue
        selector = get(mon.props, "spec", "selector")
        if split_type(mon.type) == POD_MONITOR_GROUP_KIND:
            if selector_matches(selector, workload.pod_labels):
                found.append(mon)
            continue
        for svc in services:
            svc_selector = as_dict(get(svc.props, "spec", "selector"))
            same_ns = workload.namespace is None or namespace_of(svc) in (None, workload.namespace)
            if (
                same_ns
                and svc_selector
                and selector_matches({"matchLabels": svc_selector}, workload.pod_labels)
                and selector_matches(selector, as_dict(get(svc.props, "metadata", "labels")))
            ):
                found.append(mon)
                break
    return found


@dataclass
class AdapterRules:
    """What the Prometheus Adapter configurations in the set serve."""

    sources: list[str] = field(default_factory=list)  # resource names holding adapter config
    custom: set = field(default_factory=set)  # names served on custom.metrics.k8s.io (Pods / Object)
    external: set = field(default_factory=set)  # names served on external.metrics.k8s.io
    custom_any: bool = False  # a rule whose name cannot be worked out (regex discovery + templated name)
    external_any: bool = False
    fraction_names: set = field(default_factory=set)  # names whose series are 0..1 fractions
    queries: list = field(default_factory=list)  # (resource name, rule path, seriesQuery + metricsQuery) of every rule

    @property
    def present(self) -> bool:
        """True when the set holds at least one adapter configuration."""
        return bool(self.sources)


_NAME_EQ = re.compile(r'__name__\s*=\s*"([^"]+)"')
_NAME_RE = re.compile(r'__name__\s*=~\s*"\^?([A-Za-z_:][A-Za-z0-9_:]*)\$?"')
_LEADING = re.compile(r"^\s*([A-Za-z_:][A-Za-z0-9_:]*)\s*(\{|$)")


def series_names(series_query: str) -> Optional[list[str]]:
    """The metric names a seriesQuery discovers, where they are literal; None when only a pattern is known."""
    names = _NAME_EQ.findall(series_query) + _NAME_RE.findall(series_query)
    lead = _LEADING.match(series_query)
    if lead:
        names.append(lead.group(1))
    return sorted(set(names)) or None


def _go_template(template: str) -> str:
    # Go regexp expansion ($1, ${1}, $name) -> Python's \g<...>.
    return re.sub(r"\$\{?(\w+)\}?", lambda m: f"\\g<{m.group(1)}>", template.replace("\\", "\\\\"))


def exposed_names(rule: Any) -> Optional[list[str]]:
    """The API names one adapter rule serves (name.matches / name.as over the discovered series); None if unknowable."""
    if not isinstance(rule, dict):
        return []
    series_query = rule.get("seriesQuery")
    series = series_names(series_query) if isinstance(series_query, str) else None
    naming = as_dict(rule.get("name"))
    matches = naming.get("matches")
    pattern = matches if isinstance(matches, str) else ".*"
    as_ = naming.get("as")
    if isinstance(as_, str) and as_ and "$" not in as_:
        return [as_]
    if series is None:
        return None
    try:
        regex = re.compile(pattern)
    except re.error:
        return []
    if not isinstance(as_, str) or not as_:
        as_ = "$1" if regex.groups == 1 else "$0"
    out: list[str] = []
    for name in series:
        if regex.search(name):
            try:
                out.append(regex.sub(_go_template(as_), name))
            except (re.error, IndexError):
                return None
    return out


def _add_rules(result: AdapterRules, rules: Any, external: bool, source: str = "", where: str = "") -> None:
    for i, rule in enumerate(as_list(rules)):
        query = " ".join(str(as_dict(rule).get(k, "")) for k in ("seriesQuery", "metricsQuery"))
        result.queries.append((source, f"{where}[{i}]", query))
        names = exposed_names(rule)
        if names is None:
            if external:
                result.external_any = True
            else:
                result.custom_any = True
            continue
        (result.external if external else result.custom).update(names)
        text = " ".join(str(as_dict(rule).get(k, "")) for k in ("seriesQuery", "metricsQuery"))
        if FRACTION_METRIC.search(text) and not re.search(r"\*\s*100|100\s*\*", text):
            result.fraction_names.update(names)


def _is_adapter_chart(chart: Any) -> bool:
    return isinstance(chart, str) and chart.rstrip("/").rsplit("/", 1)[-1] == "prometheus-adapter"


def adapter_rules(resources: Iterable[Resource]) -> AdapterRules:
    """Rules of every Prometheus Adapter configuration in the set.

    Read from a prometheus-adapter Helm release (`values.rules.custom` / `rules.external`, the
    chart's values) or from the adapter's own config file in a ConfigMap (`rules` /
    `externalRules`, the format the chart renders; kubernetes-sigs/prometheus-adapter v0.12.0 docs/config.md, "Rule format").
    """
    result = AdapterRules()
    for r in resources:
        if r.type in HELM_RELEASE_TYPES and _is_adapter_chart(r.props.get("chart")):
            rules = as_dict(get(r.props, "values", "rules"))
            result.sources.append(r.name)
            _add_rules(result, rules.get("custom"), False, r.name, "values.rules.custom")
            _add_rules(result, rules.get("external"), True, r.name, "values.rules.external")
            if rules.get("default", True) is not False:
                # The chart's default rules serve every namespaced series under derived names.
                result.custom_any = True
        elif split_type(r.type) == ("", "ConfigMap"):
            for value in as_dict(r.props.get("data")).values():
                if not isinstance(value, str) or "seriesQuery" not in value:
                    continue
                try:
                    doc = load_yaml(r.name, ADAPTER_CONFIG, name=f"{r.name} data", text=value)
                except LoadError:
                    continue  # unreadable within bounds: not counted as an adapter configuration
                if isinstance(doc, dict) and ("rules" in doc or "externalRules" in doc):
                    result.sources.append(r.name)
                    _add_rules(result, doc.get("rules"), False, r.name, "rules")
                    _add_rules(result, doc.get("externalRules"), True, r.name, "externalRules")
    return result


def target_number(target: dict) -> tuple[Optional[str], Optional[float]]:
    """(field, value) of an HPA metric target's averageValue / value as a number."""
    for key in ("averageValue", "value"):
        if key in target:
            return key, as_quantity(target[key])
    if "averageUtilization" in target:
        return "averageUtilization", as_float(target["averageUtilization"])
    return None, None


def mentions_vllm(scaler: Resource) -> bool:
    """True when the scaler's metric names or queries read vLLM series (its target is then an LLM server): the word in
    a metric name, a Prometheus query or a trigger's metric, not in a host, a stream or a queue name (spent set 93
    xinhangl44-blip/llm-inference-optimization k8s/keda-scaler.yaml: a redis-streams trigger on stream
    vllm_task_stream scales the CPU consumer vllm-consumer, no model server; read as one, S8 blocked it)."""
    return "vllm" in _metric_names(scaler).lower()


def _metrics_text(scaler: Resource) -> str:
    """An HPA's spec.metrics and a ScaledObject's spec.triggers as one text, for the series names they read."""
    return str(get(scaler.props, "spec", "metrics")) + str(get(scaler.props, "spec", "triggers"))


def _metric_names(scaler: Resource) -> str:
    """The metric names and queries an HPA or ScaledObject reads (not its server addresses or auth), as one text."""
    names = [m.name for m in hpa_metrics(scaler) if m.name]
    for _, trigger in triggers(scaler):
        meta = as_dict(trigger.get("metadata"))
        names += [str(meta[k]) for k in ("metricName", "query", "metric", "value") if k in meta]
    return " ".join(names)


# Series of model servers and GPUs besides vLLM's: SGLang (sglang:), TGI (tgi_), Triton (nv_inference_*, nv_gpu_*),
# DCGM's GPU gauges (DCGM_FI_DEV_*). An autoscaler reading one scales a model server or a GPU workload.
_SERVER_METRIC = re.compile(r"(sglang[:_]|tgi_|nv_inference_|nv_gpu_|triton_|DCGM_FI_)", re.IGNORECASE)
# A GPU named in a series an autoscaler reads ("gpu_job_queue_depth", "gpu_utilization"): the workload queues GPU work.
_GPU_METRIC = re.compile(r"(?<![a-z0-9])gpu(?=[_:])", re.IGNORECASE)
# Parts of a serving stack that sit beside the model server and scale on CPU by right: a name with one of these
# words is not taken for the server however it is prefixed ("vllm-router", "llm-gateway").
_BESIDE_SERVER = re.compile(
    r"(?<![a-z0-9])(router|gateway|proxy|epp|ui|webui|frontend|ingress|scheduler|controller|operator|redis|cache-server)"
    r"(?![a-z])",
    re.IGNORECASE,
)


_NAME_LABELS = ("app", "app.kubernetes.io/name", "app.kubernetes.io/instance", "k8s-app", "model")


def model_server_hint(scaler: Resource) -> Optional[str]:
    """What in the scaler suggests it scales a model server, when its target is not in the set; None if nothing does.

    Read: a model-server or GPU series in its metrics or triggers, else a model server's name in its target's name,
    its own name or its labels' values ("inference" among them), else a metric named for GPU work ("gpu_job_queue_depth":
    held-out set 8's Tazmainiandevil/eks-gpu-inference-autoscaling). Only a hint: the target's pods are not in the files
    read.
    """
    text = _metrics_text(scaler)
    if "vllm" in text.lower() or _SERVER_METRIC.search(text):
        return "its metrics read a model server's series"
    found = _named_hint(scaler, SERVER_WORD)
    if found is not None:
        return found
    if _GPU_METRIC.search(_metric_names(scaler)):
        return "its metrics name GPU work"
    return None


def _named_hint(scaler: Resource, words: re.Pattern) -> Optional[str]:
    """Where the scaler's target name, own name or app labels hold one of ``words`` (not a part beside the server)."""
    ref_name = get(scaler.props, "spec", "scaleTargetRef", "name")
    labels = as_dict(get(scaler.props, "metadata", "labels"))
    named = [("scaleTargetRef.name", ref_name), ("metadata.name", metadata_name(scaler.props))]
    # Labels that name the app itself; part-of, managed-by and the like name the platform ("llm-serving").
    named += [(f"metadata.labels.{k}", labels.get(k)) for k in _NAME_LABELS if k in labels]
    for where, value in named:
        if isinstance(value, str) and (word := words.search(value)) and not _BESIDE_SERVER.search(value):
            return f"{where} {value!r} names a model server ({word.group(1)})"
    return None


# Words that name a model-serving app of any kind, not only an LLM engine: "demo-model-a" (spent set 79 yashbhangale/
# Karpenter-GPU-Autoscaling), "kserve-sentiment" (spent set 78 Brayantcw/kserve_k8s_setup), an embedding or reranker
# service, a classifier. Weaker than SERVER_WORD: read only where the pack's readers see no engine in the target.
_MODEL_WORD = re.compile(
    r"(?<![a-z0-9])(models?|kserve|predictor|embeddings?|embedder|reranker|classifier|sentiment|ml-api)(?![a-z])",
    re.IGNORECASE,
)


# Words beside "model" that name an app handling models without serving them: a registry or catalogue of models
# (Kubeflow's model-registry), their storage, training or tuning, or a pipeline moving them (review50a). Read only for
# the weaker _MODEL_WORD hint: a name such as "model-registry" says what the app keeps, not that it answers requests.
_MODEL_KEEPER = re.compile(
    r"(?<![a-z0-9])(registry|catalog|catalogue|store|storage|repository|repo|train|trainer|training|tuning|finetune|"
    r"fine-tune|pipeline|builder|downloader|uploader|sync|exporter|monitor|monitoring)(?![a-z])",
    re.IGNORECASE,
)


def model_word_hint(scaler: Resource) -> Optional[str]:
    """model_server_hint, or a weaker hint: a model-serving word (_MODEL_WORD) in the scaler's target name, own name or
    app labels, unless a word there says the app keeps or makes models rather than serves them (_MODEL_KEEPER:
    "model-registry"). None when nothing suggests a model server."""
    strong = model_server_hint(scaler)
    if strong is not None:
        return strong
    weak = _named_hint(scaler, _MODEL_WORD)
    if weak is None:
        return None
    names = (get(scaler.props, "spec", "scaleTargetRef", "name"), metadata_name(scaler.props))
    return None if any(isinstance(n, str) and _MODEL_KEEPER.search(n) for n in names) else weak


def scaler_annotations(scaler: Resource) -> dict:
    """The scaler's metadata.annotations."""
    return annotations_of(scaler.props)
