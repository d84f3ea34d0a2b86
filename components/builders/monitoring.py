"""What Prometheus scrapes and alerts on for one model: a PodMonitor and a PrometheusRule.

Pure functions. Every vLLM series a rule names is looked up in components/vllm_metrics.py (read
from each release's wheel, vllm/v1/metrics/loggers.py PrometheusStatLogger), and a rule whose series
the image's release does not export is left out (an alert on a missing series never fires); the pod
restart and HPA series come from kube-state-metrics, which kube-prometheus-stack installs.
Thresholds come from the stack's ``monitoring.alerts`` (documented defaults) and, for time to
first token and the queue, from the model's SLO and capacity plan.
"""

from __future__ import annotations

import functools
from typing import Any, Mapping

from ..builders.autoscaling import KV_CACHE_USAGE, SCRAPE_INTERVAL_SECONDS, WAITING, autoscaler_name, model_selector
from ..builders.labels import recommended_labels
from ..capacity.plan import ServingPlan
from ..config import AlertsConfig, ModelConfig
from ..vllm_metrics import missing_series
from .serving_backend import serving_backend

METRICS_PORT = "http"  # the vLLM container's named port on every back-end's API pod
SCRAPE_INTERVAL = f"{SCRAPE_INTERVAL_SECONDS}s"
RATE_WINDOW = "5m"
RESTART_WINDOW = "15m"
TTFT_QUANTILE = 0.95

ALERTS = (
    "LlmQueueBuildingUp",
    "LlmKvCacheNearlyFull",
    "LlmPreemptions",
    "LlmPodRestarting",
    "LlmPodOOMKilled",
    "LlmTimeToFirstTokenAboveSlo",
    "LlmAdmissionRejections",
    "LlmAutoscalerAtMaxReplicas",
)


def _labels(m: ModelConfig, extra: Mapping[str, str]) -> dict[str, str]:
    return {**recommended_labels(m.name, component="monitoring"), **dict(extra)}


def pod_monitor(m: ModelConfig, namespace: str, monitor_labels: Mapping[str, str]) -> dict[str, Any]:
    """A PodMonitor scraping /metrics of the model's serving pods (Prometheus Operator adds namespace and pod labels)."""
    return {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PodMonitor",
        "metadata": {"name": f"{m.name}-vllm", "namespace": namespace, "labels": _labels(m, monitor_labels)},
        "spec": {
            # The pods that serve the model's API and /metrics, as its back-end names them (components/backends/).
            "selector": {"matchLabels": serving_backend(m).metrics_pods(m)},
            "namespaceSelector": {"matchNames": [namespace]},
            "podMetricsEndpoints": [{"port": METRICS_PORT, "path": "/metrics", "interval": SCRAPE_INTERVAL}],
        },
    }


def _num(value: float) -> str:
    return f"{value:g}"


def _seconds(value: int) -> str:
    return f"{value}s"


def _alert_rule(labels: Mapping[str, str], alert: str, expr: str, for_: str, severity: str, summary: str) -> dict[str, Any]:
    """One alerting rule (no ``for`` when it fires at once)."""
    body: dict[str, Any] = {"alert": alert, "expr": expr}
    if for_ != "0s":
        body["for"] = for_
    body["labels"] = {**labels, "severity": severity}
    body["annotations"] = {"summary": summary}
    return body


def alert_rules(m: ModelConfig, plan: ServingPlan, namespace: str, alerts: AlertsConfig) -> list[dict[str, Any]]:
    """The model's alerting rules, in the order of ALERTS (a model nothing autoscales has no autoscaler alert)."""
    backend = serving_backend(m)
    sel = model_selector(m.name, namespace)
    # kube-state-metrics' view of every pod and vLLM container of the model (all Ray pods of a multi-node engine).
    pods = f'namespace="{namespace}",{backend.pod_matcher(m)}'
    hpa = f'namespace="{namespace}",horizontalpodautoscaler="{autoscaler_name(m)}"'
    hold = _seconds(alerts.for_seconds)
    # A release without --max-num-queued-reqs has no admission limit: alert at a batch's worth waiting.
    queue = plan.max_num_queued_reqs if plan.max_num_queued_reqs is not None else plan.max_num_seqs
    queue_limit = queue * alerts.queue_fraction
    rule = functools.partial(_alert_rule, {"model": m.name, "namespace": namespace})
    rules = [
        rule(
            "LlmQueueBuildingUp",
            f"sum by (namespace, pod) ({WAITING}{{{sel}}}) > {_num(queue_limit)}",
            hold,
            "warning",
            f"{m.name}: {{{{ $labels.pod }}}} has {{{{ $value }}}} requests waiting (queue holds {queue}; "
            f"503s start when it is full)",
        ),
        rule(
            "LlmKvCacheNearlyFull",
            f"max by (namespace, pod) ({KV_CACHE_USAGE}{{{sel}}}) > {_num(alerts.kv_cache_usage)}",
            hold,
            "warning",
            f"{m.name}: {{{{ $labels.pod }}}} KV cache {{{{ $value | humanizePercentage }}}} full; requests will be preempted",
        ),
        rule(
            "LlmPreemptions",
            f"sum by (namespace) (rate(vllm:num_preemptions_total{{{sel}}}[{RATE_WINDOW}])) * 60 > {_num(alerts.preemptions_per_minute)}",
            hold,
            "warning",
            f"{m.name}: {{{{ $value }}}} preemptions per minute (KV cache too small for the batch)",
        ),
        rule(
            "LlmPodRestarting",
            f"sum by (namespace, pod) (increase(kube_pod_container_status_restarts_total{{{pods}}}[{RESTART_WINDOW}])) > {alerts.restarts}",
            "0s",
            "critical",
            f"{m.name}: {{{{ $labels.pod }}}} restarted {{{{ $value }}}} times in {RESTART_WINDOW} (crash or OOM)",
        ),
        rule(
            "LlmPodOOMKilled",
            f'max by (namespace, pod) (kube_pod_container_status_last_terminated_reason{{{pods},reason="OOMKilled"}}) > 0 '
            f"and on (namespace, pod) sum by (namespace, pod) (increase(kube_pod_container_status_restarts_total{{{pods}}}[{RESTART_WINDOW}])) > 0",
            "0s",
            "critical",
            f"{m.name}: {{{{ $labels.pod }}}} was OOMKilled (host memory: check the pod memory limit and /dev/shm)",
        ),
        rule(
            "LlmTimeToFirstTokenAboveSlo",
            f"histogram_quantile({TTFT_QUANTILE:g}, sum by (le) (rate(vllm:time_to_first_token_seconds_bucket{{{sel}}}[{RATE_WINDOW}]))) "
            f"> {_num(m.slo.time_to_first_token_seconds)}",
            hold,
            "warning",
            f"{m.name}: p95 time to first token {{{{ $value }}}}s is above the {_num(m.slo.time_to_first_token_seconds)}s SLO",
        ),
        rule(
            "LlmAdmissionRejections",
            f"sum by (namespace) (rate(vllm:admission_rejections_total{{{sel}}}[{RATE_WINDOW}])) * 60 > {_num(alerts.admission_rejections_per_minute)}",
            hold,
            "critical",
            f"{m.name}: {{{{ $value }}}} requests per minute rejected with 503 (queue of {queue} full)",
        ),
        rule(
            "LlmAutoscalerAtMaxReplicas",
            f"kube_horizontalpodautoscaler_status_current_replicas{{{hpa}}} >= kube_horizontalpodautoscaler_spec_max_replicas{{{hpa}}}",
            _seconds(alerts.at_max_replicas_seconds),
            "warning",
            f"{m.name}: pinned at maxReplicas {m.replicas.max}; raise replicas.max or the pool's gpuLimit",
        ),
    ]
    # A model its back-end does not autoscale (one fixed-size Ray cluster) cannot be pinned at max.
    if backend.scale_target(m) is None:
        rules = [r for r in rules if r["alert"] != "LlmAutoscalerAtMaxReplicas"]
    # e.g. vllm:admission_rejections_total first in 0.32.0, vllm:kv_cache_usage_perc first in 0.9.2.
    return [r for r in rules if not missing_series(r["expr"], plan.release.version)]


def rule_group_name(m: ModelConfig) -> str:
    """The model's rule group (one per model; promtool checks each)."""
    return f"llm-serving.{m.name}"


def prometheus_rule(
    m: ModelConfig, plan: ServingPlan, namespace: str, alerts: AlertsConfig, monitor_labels: Mapping[str, str]
) -> dict[str, Any]:
    """A PrometheusRule holding the model's alert group."""
    return {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PrometheusRule",
        "metadata": {"name": f"{m.name}-alerts", "namespace": namespace, "labels": _labels(m, monitor_labels)},
        "spec": {"groups": [{"name": rule_group_name(m), "rules": alert_rules(m, plan, namespace, alerts)}]},
    }
