"""G67 scaler-query-averaged-once: a KEDA query already per replica, or a latency, under KEDA's default AverageValue."""

from __future__ import annotations

import copy

import pytest
from policy_fixtures import found_by

POLICY = "scaler-query-averaged-once"


def _scaled_object(*queries: str, metric_type: str | None = None) -> dict:
    """A ScaledObject with one prometheus trigger per query (threshold 5)."""
    triggers = []
    for query in queries:
        trigger: dict = {
            "type": "prometheus",
            "metadata": {"serverAddress": "http://prometheus:9090", "query": query, "threshold": "5"},
        }
        if metric_type is not None:
            trigger["metricType"] = metric_type
        triggers.append(trigger)
    return {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": {"name": "vllm", "namespace": "vllm"},
        "spec": {"scaleTargetRef": {"name": "vllm"}, "minReplicaCount": 1, "maxReplicaCount": 8, "triggers": triggers},
    }


# Minimal form of rajyadav9/mlops k8s/keda/scaledobject.yaml at 37bc3e207996b8d9aaff232b75369e8c827516db (set 41,
# label filed none): the queue divided by kube_deployment_spec_replicas, threshold 5, no metricType.
RAJYADAV = (
    'sum(vllm:num_requests_waiting{namespace="vllm"})\n/\nmax(kube_deployment_spec_replicas{deployment="vllm",namespace="vllm"})'
)
# Minimal form of Ting-YuChou/LLM-Infrastructure-mvp k8s/autoscaling/vllm-keda-scaledobject.yaml at
# a4516497828cb8eec6bc09e93d171e58376d225b (set 38): requests over clamp_min(count(kube_pod_status_ready), 1).
TING = (
    'sum(llm_active_requests{namespace="llm-inference"})\n/\n'
    'clamp_min(count(kube_pod_status_ready{namespace="llm-inference",condition="true"}), 1)'
)
# Minimal form of lake-of-dreams/llm-inference-platform config/keda/scaledobject.yaml at
# 4f34e7d6c468f827a9b21c6fd5445ca75ae2cee2 (set 27, label filed none): p95 TTFT in ms, no metricType.
LAKE = (
    'histogram_quantile(0.95,\n  sum(rate(vllm:time_to_first_token_seconds_bucket{model_name="qwen-small"}[2m]))\n'
    "  by (le)) * 1000"
)
PER_REPLICA = (
    "spec.triggers[0] has no metricType, so KEDA hands the HPA threshold 5 as an AverageValue per replica, and the HPA "
    "divides the query's value by the replica count itself (it asks for ceil(value / threshold) replicas); this query "
    "is already per replica (it divides by the replicas or pods, or averages over them), so the load is divided "
    "twice: N replicas ask for ceil(total / (N x "
    "threshold)), scale-out needs N times the per-pod load it was written for and the fleet settles near sqrt(total / "
    "threshold) replicas; sum the load instead or set metricType: Value on the trigger"
)


@pytest.mark.parametrize(
    "query",
    [
        RAJYADAV,
        TING,
        "sum(vllm:num_requests_waiting) / count(vllm:num_requests_running)",
        # The same per-replica value as an average of the engine's per-pod queue gauge (the form public KEDA
        # write-ups give beside sum/count, e.g. avg(vllm:num_requests_waiting{model_name="..."})).
        'avg(vllm:num_requests_waiting{model_name="qwen-72b"})',
        "avg by (model_name) (sglang:num_queue_reqs)",
    ],
)
def test_a_query_divided_by_the_replicas_is_advised(query):
    assert found_by([_scaled_object(query)], POLICY) == [("advisory", PER_REPLICA)]


def test_a_percentile_latency_is_advised():
    found = found_by([_scaled_object("sum(vllm:num_requests_waiting)", LAKE)], POLICY)
    assert [m for _, m in found] == [
        "spec.triggers[1] has no metricType, so KEDA hands the HPA threshold 5 as an AverageValue per replica, and the "
        "HPA asks for ceil(value / threshold) replicas; the query is a percentile latency, which does not grow with the "
        "load the replicas share, so the HPA asks for ceil(latency / threshold) replicas however busy the fleet is: one "
        "more when the latency passes the threshold, and back down as soon as it dips, never the replicas the load "
        "needs; scale on the queue or requests in flight (summed), or set metricType: Value if a fixed step is meant"
    ]


def test_a_mean_latency_is_advised():
    query = "sum(rate(vllm:e2e_request_latency_seconds_sum[2m])) / sum(rate(vllm:e2e_request_latency_seconds_count[2m]))"
    found = found_by([_scaled_object(query)], POLICY)
    assert len(found) == 1 and "a mean latency (a _sum rate over a _count rate)" in found[0][1]


@pytest.mark.parametrize("metric_type", ["Value"])
def test_metric_type_value_is_silent(metric_type):
    assert found_by([_scaled_object(RAJYADAV, LAKE, metric_type=metric_type)], POLICY) == []


def test_explicit_average_value_is_advised_like_the_default():
    assert len(found_by([_scaled_object(RAJYADAV, metric_type="AverageValue")], POLICY)) == 1


@pytest.mark.parametrize(
    "query",
    [
        # The careful form: the fleet's total, which the HPA divides by the replicas itself (rajyadav9's query without
        # the division; lake-of-dreams' first trigger).
        'sum(vllm:num_requests_waiting{namespace="vllm"})',
        'sum(vllm:num_requests_waiting{model_name="qwen-small"})',
        # A gauge average: sometimes a deliberate guard sized for it (set 18, riya0920/asr-serving-vllm-k8s
        # infra/keda/scaledobject.yaml gpu-util-guard: "avg util 90 / threshold 6 -> 15 replicas").
        'avg(DCGM_FI_DEV_GPU_UTIL{namespace="asr"})',
        # An average per pod kept per pod is the per-pod series itself, not a fleet value.
        "avg by (pod) (vllm:num_requests_waiting)",
        # A division that is not by a replica count: a ratio of two sums.
        "sum(rate(http_requests_total{code=~'5..'}[2m])) / sum(rate(http_requests_total[2m]))",
        # A slash inside a label value or a regex is no division.
        'sum(vllm:num_requests_waiting{path="/v1/count(x)"})',
    ],
)
def test_a_total_or_an_unproven_shape_is_silent(query):
    assert found_by([_scaled_object(query)], POLICY) == []


def test_a_trigger_of_another_type_is_silent():
    so = _scaled_object(RAJYADAV)
    so["spec"]["triggers"][0]["type"] = "metrics-api"
    assert found_by([so], POLICY) == []


def test_a_trigger_without_threshold_is_silent():
    so = copy.deepcopy(_scaled_object(RAJYADAV))
    so["spec"]["triggers"][0]["metadata"].pop("threshold")
    assert found_by([so], POLICY) == []
