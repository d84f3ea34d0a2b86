"""S6 gpu-workload-no-resource-metric-hpa: a model server scaled on GPU memory used (engines preallocate it).

Third-party form (held-out set 10, now development material, /work/eval10/PROVENANCE.md): pmady/keda-gpu-scaler
deploy/examples/vllm-scaledobject.yaml and tgi-scaledobject.yaml @5f0e6c18ed908715715c8b406b3fb4bbfe55c860, a KEDA
external trigger with ``profile: vllm-inference`` / ``tgi-inference``; the scaler's profiles.go reads both as
MetricMemoryUsedPercent (targets 80 and 75). Minimal hand-written forms below.
"""

import copy

from policy_fixtures import (
    DEPLOYMENT_TYPE,
    HPA_TYPE,
    SCALED_OBJECT_TYPE,
    deployment_props,
    hpa_props,
    resource,
)

from policies.autoscaling.gpu_workload_no_resource_metric_hpa import POLICY
from policies.registry import evaluate


def _keda(name, target, metadata, kind="external"):
    props = {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": {"name": name, "namespace": "ai-workloads"},
        "spec": {
            "scaleTargetRef": {"name": target},
            "minReplicaCount": 1,
            "maxReplicaCount": 50,
            "triggers": [{"type": kind, "metadata": metadata}],
        },
    }
    return resource(SCALED_OBJECT_TYPE, props)


def _found(*resources):
    return [(v.enforcement, v.message) for v in evaluate(list(resources), None, policies=[POLICY]) if "GPU memory" in v.message]


_SCALER = "keda-gpu-scaler.keda.svc.cluster.local:6000"


def test_keda_gpu_scaler_memory_profiles_block():
    for name, target, profile in (
        ("vllm-inference-scaler", "vllm-deepseek-deployment", "vllm-inference"),
        ("tgi-inference-scaler", "tgi-deployment", "tgi-inference"),
    ):
        ((level, message),) = _found(_keda(name, target, {"scalerAddress": _SCALER, "profile": profile}))
        assert level == "mandatory" and profile in message and "--gpu-memory-utilization" in message


def test_dcgm_framebuffer_query_on_a_gpu_deployment_of_the_set_blocks():
    deployment = deployment_props()
    query = "avg(DCGM_FI_DEV_FB_USED / (DCGM_FI_DEV_FB_USED + DCGM_FI_DEV_FB_FREE)) * 100"
    so = _keda(
        "chat",
        deployment["metadata"]["name"],
        {"serverAddress": "http://prom:9090", "query": query, "threshold": "70"},
        "prometheus",
    )
    so.props["metadata"]["namespace"] = "llm"
    ((level, message),) = _found(resource(DEPLOYMENT_TYPE, deployment), so)
    assert level == "mandatory" and "DCGM_FI_DEV_FB_USED" in message


def test_hpa_external_metric_on_gpu_memory_hinted_only_is_advice():
    hpa = hpa_props()
    hpa["metadata"] = {"name": "chat-inference", "namespace": "llm"}
    hpa["spec"]["scaleTargetRef"]["name"] = "chat-inference"
    hpa["spec"]["metrics"] = [
        {
            "type": "External",
            "external": {"metric": {"name": "nvidia_gpu_memory_used_bytes"}, "target": {"type": "Value", "value": "60Gi"}},
        }
    ]
    ((level, message),) = _found(resource(HPA_TYPE, hpa))
    assert level == "advisory" and "nvidia_gpu_memory_used" in message


def test_careful_forms_stay_silent():
    # Compute utilisation profile, memory bandwidth (not memory used), and a non-serving workload on FB_USED.
    assert _found(_keda("triton-scaler", "triton", {"scalerAddress": _SCALER, "profile": "triton-inference"})) == []
    assert _found(_keda("vllm-scaler", "vllm", {"scalerAddress": _SCALER, "metricType": "memory_utilization"})) == []
    query = "avg(DCGM_FI_DEV_FB_USED)"
    assert (
        _found(_keda("etl", "etl-batch", {"serverAddress": "http://p:9090", "query": query, "threshold": "5"}, "prometheus"))
        == []
    )
    hpa = copy.deepcopy(hpa_props())
    assert _found(resource(HPA_TYPE, hpa)) == []
