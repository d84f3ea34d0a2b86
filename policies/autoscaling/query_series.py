"""S7, read for every engine: what the PromQL an autoscaler runs selects, against the series the scaled server exports.

The query forms (``prometheus_queries``) are a KEDA ScaledObject's ``prometheus`` triggers and a KServe
InferenceService's external metrics with backend prometheus (KServe copies them unchanged into the trigger of the
ScaledObject it creates: kserve/kserve v0.20.0 pkg/controller/v1beta1/inferenceservice/reconcilers/keda/
keda_reconciler.go:115-126). Each reading here is advice: the files show the query and the scaled server, not the
Prometheus that answers it (a recording rule, a relabelling or a single-tenant cluster may make it right).

- **Unscoped** (``unscoped_findings``): a model-server series selected with no label matcher at all and no KEDA
  ``namespace`` parameter (which makes KEDA ask a tenancy-aware querier for one namespace: kedacore/keda v2.20.2
  pkg/scalers/prometheus_scaler.go:209-212) returns that series for every server of the engine Prometheus scrapes,
  every tenant's, so the trigger scales this workload on their load (spent set 113 rmehta2974/LLM_mlops
  alternate_learning/manifests/21-keda-scaledobject.yaml: sum(rate(triton_inference_request_success[1m]))).
- **Not the server's series** (``series_findings``): the scaled workload runs engine E (components/engine_metrics.py,
  each engine's series read from its source) and the query names a series under another engine's own prefix
  (sglang:... on a vLLM Deployment), or one no engine of the table exports at all while every container of the pods is
  a model server (spent set 114 zjinsong/amazon-eks-multi-model-gpu-sharing manifests/keda-scaledobject.yaml:
  inference_waiting_requests on a vLLM Deployment, whose queue is vllm:num_requests_waiting). The empty result is no
  error: KEDA's ignoreNullValues defaults to true (prometheus_scaler.go:56, :268-270), so it reads 0 and never scales.
- **One series per NIM pod** (``nim_per_pod_findings``): NIM serves vLLM's series without the vllm: prefix
  (gpu_cache_usage_perc), names too generic to prove the engine alone; where the scaled workload is a NIMService's,
  a bare selector of one returns a series per pod and KEDA fails on more than one element (prometheus_scaler.go:
  273-274; spent set 113 redhat-na-ssa/nvaie-guide configs/software/nim/keda-meta-scaledobject.yaml).
- **DCGM as a Pods metric** (``dcgm_pods_findings``): dcgm-exporter's series are scraped from the exporter's pods, so
  Prometheus labels them with the exporter's pod and namespace and keeps DCGM's own as ``exported_pod`` /
  ``exported_namespace`` (honor_labels false, the default: https://prometheus.io/docs/prometheus/latest/
  configuration/configuration/#scrape_config); the custom metrics API then holds no value for the model's pods
  (spent set 114 seans3/k8s-ai vllm-gpu/hpa/gpu-horizontal-pod-autoscaler.yaml). Silent where a monitor of the run
  honours labels or an adapter configuration maps ``exported_pod``.
"""

from __future__ import annotations

import json
import re
from typing import NamedTuple, Optional

from components.engine_metrics import engine_of, exported_by_any, exports, shown, table
from components.serving_engines import ENGINES
from policies.autoscaling.scalers import Workload, hpa_metrics, is_hpa, monitors, scale_target, triggers
from policies.framework import Resource, unproven
from policies.kube import ISVC_TYPE, as_list, containers, get, metadata_name, pod_specs, split_type
from policies.reading.engine_metric_names import foreign_prefixed, gateway_unexported, misspelled
from policies.reading.promql import Selector, selectors, server_series, shape
from policies.reading.scalers_ext import NIM_SERVICE
from policies.reading.serving import model_servers, namespace_of

_DISPLAY = {e.name: e.display for e in ENGINES}
# Exporters other than the engines whose series a query on a model server's pods may name: the Python and Go
# runtimes' own collectors, HTTP instrumentation, meshes and proxies in front, Kubernetes' and GPU exporters, gateways.
_OTHER_EXPORTERS = re.compile(
    r"^(?:up|process_|python_|go_|http_|grpc_|rpc_|container_|kube_|kubelet_|node_|machine_|dcgm_|nvidia_|gpu_|amd_|"
    r"neuron|habana|istio_|envoy_|nginx_|traefik_|haproxy_|kong_|apisix_|cilium_|litellm_|ray_|kserve_|knative_|"
    r"revision_|activator_|keda_|prometheus_|scrape_|otel|aws_|stackdriver|cloudwatch|request_|requests_|api_|app_|"
    r"fastapi_|starlette_|uvicorn_|flask_|django_|gunicorn_|celery_|redis_|rabbitmq_|kafka_|sqs_)",
    re.IGNORECASE,
)
_LOAD_FAMILIES = ("DCGM_FI_",)


class Query(NamedTuple):
    """One PromQL query KEDA runs for a scaler, where it is written, and the KEDA namespace parameter beside it."""

    path: str
    query: str
    namespace: str


def prometheus_queries(scaler: Resource) -> list[Query]:
    """The PromQL queries KEDA runs for a ScaledObject's prometheus triggers, or for a KServe InferenceService's external
    metrics with backend prometheus (podMetric queries KServe wraps in sum(...) itself, keda_reconciler.go:157-171)."""
    if scaler.type == ISVC_TYPE:
        metrics = as_list(get(scaler.props, "spec", "predictor", "autoScaling", "metrics"))
        return [
            Query(
                f"spec.predictor.autoScaling.metrics[{i}].external.metric.query",
                query,
                str(get(m, "external", "metric", "namespace") or ""),
            )
            for i, m in enumerate(metrics)
            if str(get(m, "external", "metric", "backend")).lower() == "prometheus"
            and isinstance(query := get(m, "external", "metric", "query"), str)
        ]
    return [
        Query(f"{path}.metadata.query", query, str(get(trigger, "metadata", "namespace") or ""))
        for path, trigger in triggers(scaler)
        if trigger.get("type") == "prometheus" and isinstance(query := get(trigger, "metadata", "query"), str)
    ]


def target_engines(scaler: Resource, candidates: list[Workload], resources: list[Resource]) -> tuple[set[str], bool]:
    """(engines the scaled workload's model servers run, whether every container of its pods is one of them): an
    InferenceService's own predictor, the workload of the files scaleTargetRef names, or the Deployment a NIMService of
    that name renders (the NIM operator names it after the NIMService)."""
    if scaler.type == ISVC_TYPE:
        servers = model_servers(scaler)
        return {s.engine for s in servers}, False
    target = scale_target(scaler, candidates)
    if target is not None:
        servers = model_servers(target.resource)
        every = [c for _, spec in pod_specs(target.resource) for c in containers(spec)]
        return {s.engine for s in servers}, bool(servers) and len(every) == len(servers)
    name, ns = get(scaler.props, "spec", "scaleTargetRef", "name"), namespace_of(scaler)
    for r in resources:
        if split_type(r.type) == NIM_SERVICE and metadata_name(r.props) == name and namespace_of(r) in (ns, None):
            return {"nim"}, True
    return set(), False


def _engine_series(query: str, engines: set[str]) -> list[tuple[Selector, str]]:
    """(selector, who) of the model-server series a query selects: an engine's own prefix, DCGM's, or a bare name of
    an engine the scaled workload runs (NIM's gpu_cache_usage_perc on a NIMService)."""
    found: list[tuple[Selector, str]] = []
    for sel in selectors(query):
        owner = engine_of(sel.name)
        if owner is None and sel.name.startswith(_LOAD_FAMILIES):
            owner = "DCGM"
        if owner is None:
            owner = next((e for e in sorted(engines) if e in table() and not table()[e].prefix and exports(e, sel.name)), None)
        if owner is not None and sel.name.count(":") < 2:
            found.append((sel, owner))
    return found


def unscoped_findings(scaler: Resource, engines: set[str]) -> list[str]:
    """Advice on a query selecting a model-server series with no label matcher and no KEDA namespace parameter."""
    found: list[str] = []
    for q in prometheus_queries(scaler):
        if q.namespace:
            continue
        loose = [(sel, owner) for sel, owner in _engine_series(q.query, engines) if not sel.labels]
        loose += [
            (Selector(m.name, ()), m.engine) for m in foreign_prefixed(q.query) if f"{m.name}{{" not in q.query.replace(" ", "")
        ]
        if not loose:
            continue
        sel, owner = loose[0]
        who = "GPU" if owner == "DCGM" else f"{_DISPLAY.get(owner, owner)} pod"
        found.append(
            unproven(
                f"{q.path} {q.query.strip()} selects {sel.name} with no label matcher (and the trigger sets no KEDA "
                f"namespace): Prometheus answers with that series for every {who} it scrapes, this workload's and every "
                f"other tenant's, so the autoscaler scales this workload on their load too; match on this workload "
                f'({sel.name}{{namespace="{namespace_of(scaler) or "..."}"}}, or its model_name, pod or service)'
            )
        )
    return found


def series_findings(scaler: Resource, engines: set[str], only_servers: bool) -> list[str]:
    """Advice on a query naming another engine's series than the scaled workload runs, or a series no engine exports."""
    runs = {e for e in engines if e in table()}
    if not runs or runs <= {"ollama"}:
        return []
    names = ", ".join(sorted(_DISPLAY.get(e, e) for e in runs))
    found: list[str] = []
    for q in prometheus_queries(scaler):
        told = {m.name for m in misspelled(q.query) + foreign_prefixed(q.query) + gateway_unexported(q.query)}
        for sel in selectors(q.query):
            if sel.name in told or sel.name.count(":") > 1 or any(exports(e, sel.name) for e in runs):
                continue
            owner = engine_of(sel.name)
            if owner is not None and not {owner, *runs} <= {"vllm", "nim"}:
                why = f"a {_DISPLAY.get(owner, owner)} series, and the scaled workload runs {names}, which exports none"
            elif owner is None and ":" not in sel.name and only_servers and not exported_by_any(sel.name):
                if _OTHER_EXPORTERS.match(sel.name):
                    continue
                why = f"a series no serving engine of the pack's table exports, and every container of the scaled pods is a {names} server"
            else:
                continue
            load = "; ".join(f"{_DISPLAY.get(e, e)}: {shown(e)}" for e in sorted(runs) if shown(e))
            found.append(
                unproven(
                    f"{q.path} names {sel.name}, {why} ({load or 'no Prometheus series'}; components/engine_metrics.py); "
                    f"unless a recording rule or another exporter defines it, the query returns no series, KEDA reads "
                    f"0 (ignoreNullValues defaults to true) and the autoscaler never sees load"
                )
            )
            told.add(sel.name)
    return found


def nim_per_pod_findings(scaler: Resource, engines: set[str]) -> list[str]:
    """Advice on a bare, unaggregated NIM series (no prefix of its own) where the scaled workload is NIM."""
    if "nim" not in engines:
        return []
    found: list[str] = []
    for q in prometheus_queries(scaler):
        if server_series(q.query) or shape(q.query) != "per-pod":
            continue
        bare = [sel.name for sel in selectors(q.query) if exports("nim", sel.name) and engine_of(sel.name) is None]
        if bare:
            paused = str(get(scaler.props, "metadata", "annotations", "autoscaling.keda.sh/paused")).lower() == "true"
            found.append(
                unproven(
                    f"{q.path} {q.query.strip()} returns one series per NIM pod ({bare[0]} is a series each NIM server "
                    f"exports), and KEDA's prometheus scaler fails on a result of more than one element, so the trigger "
                    f"errors as soon as two replicas run{' (once the paused annotation is removed)' if paused else ''}; "
                    f"aggregate it (sum(...) or avg(...))"
                )
            )
    return found


def _keeps_dcgm_pod(resources: list[Resource]) -> bool:
    """A monitor of the run that honours the target's labels, or adapter configuration mapping exported_pod."""
    for monitor in monitors(resources):
        for key in ("endpoints", "podMetricsEndpoints"):
            if any(get(e, "honorLabels") is True for e in as_list(get(monitor.props, "spec", key))):
                return True
    return any(
        split_type(r.type)[1] in ("ConfigMap", "Release", "HelmRelease") and "exported_pod" in json.dumps(r.props, default=str)
        for r in resources
    )


def dcgm_pods_findings(scaler: Resource, resources: list[Resource], keeps: Optional[bool] = None) -> list[str]:
    """Advice on an HPA Pods metric that names a DCGM GPU series."""
    if not is_hpa(scaler):
        return []
    found: list[str] = []
    for metric in hpa_metrics(scaler):
        name = metric.name
        if metric.type != "Pods" or not isinstance(name, str) or "dcgm_fi_" not in name.lower():
            continue
        if keeps is None:
            keeps = _keeps_dcgm_pod(resources)
        if keeps:
            return []
        found.append(
            unproven(
                f"{metric.path}.metric.name {name} is a DCGM GPU series as a Pods metric: dcgm-exporter's series are "
                f"scraped from the exporter's own pods, so Prometheus labels them with the exporter's pod and namespace "
                f"(DCGM's own become exported_pod/exported_namespace unless the scrape honours labels), and the custom "
                f"metrics API holds no value for the model server's pods: the HPA shows <unknown> for it and never "
                f"scales; serve it through an adapter rule mapping exported_namespace/exported_pod to the pod, or scale "
                f"on the engine's queue series"
            )
        )
    return found
