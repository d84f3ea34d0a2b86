"""How one model scales on serving load: the per-pod in-flight signal, an autoscaling/v2 HPA or a KEDA ScaledObject.

Pure functions from the model's config and its capacity plan to manifest dicts. The signal is
vLLM's requests in flight per pod, ``vllm:num_requests_running + vllm:num_requests_waiting``
(vLLM 0.33 names: vllm-project/vllm v0.33.0, vllm/v1/metrics/loggers.py): a GPU-bound server's CPU says nothing
about its load (policy S6). Both backends aim at the same per-pod target, the capacity plan's
``target_in_flight_per_pod`` (or the user's, checked there against what one replica can hold),
and share one scaling behaviour: out at once, in slowly.
"""

from __future__ import annotations

from typing import Any, Optional

from ..builders.labels import recommended_labels
from ..capacity.plan import ServingPlan
from ..config import ModelConfig
from .serving_backend import serving_backend

# vLLM 0.33 gauges (vllm-project/vllm v0.33.0, vllm/v1/metrics/loggers.py); both carry model_name = --served-model-name.
RUNNING = "vllm:num_requests_running"
WAITING = "vllm:num_requests_waiting"
KV_CACHE_USAGE = "vllm:kv_cache_usage_perc"  # 0..1; the pre-0.10 name gpu_cache_usage_perc is gone in 0.33

# Scale-up: no stabilization, and per 15 s period the larger of doubling or 4 more pods (the
# HPA's own defaults, kept explicit so policy S8 sees a bounded scale-up). Scale-down: at most one
# pod or 10% per minute, whichever removes fewer, after the configured stabilization window.
SCALE_UP_PERIOD_SECONDS = 15
SCALE_UP_PERCENT = 100
SCALE_UP_PODS = 4
SCALE_DOWN_PERIOD_SECONDS = 60
SCALE_DOWN_PERCENT = 10
SCALE_DOWN_PODS = 1
# KEDA polls its trigger this often (seconds); the HPA it creates syncs every 15 s by default.
KEDA_POLLING_SECONDS = 15
# How stale the signal is when the HPA acts: one Prometheus scrape interval (the PodMonitor's) plus
# one HPA sync period (kube-controller-manager --horizontal-pod-autoscaler-sync-period, default 15 s).
SCRAPE_INTERVAL_SECONDS = 15
HPA_SYNC_SECONDS = 15


def in_flight_metric_name(model_name: str) -> str:
    """The custom-metrics API name of one model's per-pod in-flight requests (no colons, one per model)."""
    return f"vllm_requests_in_flight_{model_name.replace('-', '_')}"


def model_selector(model_name: str, namespace: str) -> str:
    """PromQL label matchers that scope vLLM series to one model: its namespace and its served model name."""
    return f'namespace="{namespace}",model_name="{model_name}"'


def in_flight_per_pod_query(model_name: str, namespace: str) -> str:
    """Requests in flight per pod (running + waiting), one series per pod, for KEDA's trigger and the report.

    The adapter rule's metricsQuery is the same expression with the adapter's template fields in
    place of the pod matchers (builders/prometheus_adapter.py).
    """
    return f'sum by (pod) ({{__name__=~"{RUNNING}|{WAITING}",{model_selector(model_name, namespace)}}})'


def behavior(scale_down_stabilization_seconds: int) -> dict[str, Any]:
    """autoscaling/v2 HorizontalPodAutoscalerBehavior: out at once and generously, in slowly and bounded."""
    return {
        "scaleUp": {
            "stabilizationWindowSeconds": 0,
            "selectPolicy": "Max",
            "policies": [
                {"type": "Percent", "value": SCALE_UP_PERCENT, "periodSeconds": SCALE_UP_PERIOD_SECONDS},
                {"type": "Pods", "value": SCALE_UP_PODS, "periodSeconds": SCALE_UP_PERIOD_SECONDS},
            ],
        },
        "scaleDown": {
            "stabilizationWindowSeconds": scale_down_stabilization_seconds,
            "selectPolicy": "Min",
            "policies": [
                {"type": "Percent", "value": SCALE_DOWN_PERCENT, "periodSeconds": SCALE_DOWN_PERIOD_SECONDS},
                {"type": "Pods", "value": SCALE_DOWN_PODS, "periodSeconds": SCALE_DOWN_PERIOD_SECONDS},
            ],
        },
    }


def _scale_target(m: ModelConfig) -> dict[str, str]:
    # What the model's back-end runs its replicas as (components/backends/): KServe's predictor Deployment.
    target = serving_backend(m).scale_target(m)
    if target is None:
        raise ValueError(f"model {m.name!r}: its serving back-end ({serving_backend(m).key}) is not autoscaled")
    return target


def _metadata(m: ModelConfig, namespace: str, name: str) -> dict[str, Any]:
    return {"name": name, "namespace": namespace, "labels": recommended_labels(m.name, component="autoscaling")}


# Switching a model between the adapter and KEDA in one `pulumi up` is ordered by the Pulumi resource options of the
# HPA and the ScaledObject (components/autoscaling.py _backend_switch): the old object is deleted before the new one is
# created, so KEDA's admission webhook, which refuses a ScaledObject whose target an HPA it does not own scales
# (kedacore/keda v2.20.2 apis/keda/v1alpha1/scaledobject_webhook.go:256-313, verifyHpas), finds none. Our HPA carries no
# validations.keda.sh/hpa-ownership: "false" (:274), which would switch that guard off for good, and uses no
# scaledobject.keda.sh/transfer-hpa-ownership (:298-306): KEDA would adopt the HPA named like ours and Pulumi would
# then delete it as the old resource.


def horizontal_pod_autoscaler(m: ModelConfig, plan: ServingPlan, namespace: str) -> dict[str, Any]:
    """An autoscaling/v2 HPA on the model's Pods metric served by the Prometheus Adapter (switchable to KEDA in one up)."""
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": _metadata(m, namespace, m.name),
        "spec": {
            "scaleTargetRef": _scale_target(m),
            "minReplicas": m.replicas.min,
            "maxReplicas": m.replicas.max,
            "metrics": [
                {
                    "type": "Pods",
                    "pods": {
                        "metric": {"name": in_flight_metric_name(m.name)},
                        "target": {"type": "AverageValue", "averageValue": str(plan.target_in_flight_per_pod)},
                    },
                }
            ],
            "behavior": behavior(m.autoscaling.scale_down_stabilization_seconds),
        },
    }


def keda_hpa_name(scaled_object_name: str) -> str:
    """The HPA KEDA creates for a ScaledObject (KEDA's default, `keda-hpa-<name>`)."""
    return f"keda-hpa-{scaled_object_name}"


def scaled_object(m: ModelConfig, plan: ServingPlan, namespace: str, prometheus_url: str) -> dict[str, Any]:
    """A KEDA ScaledObject with a Prometheus trigger on the same per-pod signal and target as the HPA.

    The query sums the per-pod in-flight series over the model's pods; with metricType
    AverageValue the HPA KEDA creates divides it by the replica count, so each pod aims at the
    same target a Pods-metric HPA would.
    """
    return {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": _metadata(m, namespace, m.name),
        "spec": {
            "scaleTargetRef": _scale_target(m),
            # Explicit: KEDA defaults minReplicaCount to 0 (scale to zero), which policy S5 forbids for LLMs.
            "minReplicaCount": m.replicas.min,
            "maxReplicaCount": m.replicas.max,
            "pollingInterval": KEDA_POLLING_SECONDS,
            "advanced": {"horizontalPodAutoscalerConfig": {"behavior": behavior(m.autoscaling.scale_down_stabilization_seconds)}},
            "triggers": [
                {
                    "type": "prometheus",
                    "name": "in-flight",
                    "metricType": "AverageValue",
                    "metadata": {
                        "serverAddress": prometheus_url,
                        "query": f"sum({in_flight_per_pod_query(m.name, namespace)})",
                        "threshold": str(plan.target_in_flight_per_pod),
                        # No pods reporting means no load reported, not an error to stop scaling on.
                        "ignoreNullValues": "true",
                    },
                }
            ],
        },
    }


def autoscaler_name(m: ModelConfig) -> str:
    """The HPA that actually scales the model (KEDA's own HPA for the keda backend)."""
    return keda_hpa_name(m.name) if m.autoscaling.backend == "keda" else m.name


def scaling_summary(m: ModelConfig, plan: ServingPlan) -> Optional[dict[str, Any]]:
    """The model's scaling figures for the plan report (None for a model its back-end does not autoscale).

    Time to scale out on a fresh node = the signal's lag (scrape + HPA sync) + the node's lead time
    (launch and join, image pull: before the container starts; estimates in components/capacity/cold_start.py and layout.py via
    capacity/layout.py) + the container's start. The container's start is expected to take the
    plan's startup parts (process, weights from the model source, compile; capacity/cold_start.py)
    and may take at most the startup budget, after which the probe restarts the pod.
    """
    if serving_backend(m).scale_target(m) is None:
        return None  # e.g. a multi-node model runs one fixed-size Ray cluster: nothing scales it
    from ..capacity.layout import IMAGE_PULL_SECONDS, NODE_READY_SECONDS

    lag = SCRAPE_INTERVAL_SECONDS + HPA_SYNC_SECONDS
    node_lead = NODE_READY_SECONDS + IMAGE_PULL_SECONDS
    budget = plan.startup_failure_threshold * plan.startup_period_seconds
    expected, source = budget, "startup budget"
    if plan.startup is not None and plan.startup.parts:
        parts = plan.startup.parts
        expected = sum(p.seconds for p in parts)
        source = f"startup parts ({plan.startup.source}): " + " + ".join(f"{p.name} {p.seconds}s" for p in parts)
    adapter = m.autoscaling.backend == "prometheus-adapter"
    return {
        "backend": m.autoscaling.backend,
        "kind": "HorizontalPodAutoscaler" if adapter else "ScaledObject",
        "signal": f"{RUNNING} + {WAITING} per pod",
        "metric": in_flight_metric_name(m.name)
        if adapter
        else f"sum({in_flight_per_pod_query(m.name, '<namespace>')}) / replicas",
        "target_in_flight_per_pod": plan.target_in_flight_per_pod,
        # None: no admission limit (a vLLM release before --max-num-queued-reqs), the queue is unbounded.
        "replica_capacity": plan.max_num_seqs + plan.max_num_queued_reqs if plan.max_num_queued_reqs is not None else None,
        "min_replicas": m.replicas.min,
        "max_replicas": m.replicas.max,
        "scale_down_stabilization_seconds": m.autoscaling.scale_down_stabilization_seconds,
        "metric_lag_seconds": lag,
        "node_lead_seconds": node_lead,
        "replica_start_seconds": expected,
        "replica_start_source": source,
        "startup_budget_seconds": budget,
        "scale_out_estimate_seconds": lag + node_lead + expected,
        "scale_out_seconds": lag + node_lead + budget,
    }
