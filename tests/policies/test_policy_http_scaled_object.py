"""S6 autoscaling-signal-not-throughput on KEDA HTTP add-on HTTPScaledObjects: requestRate on a GPU model server is
advice, and so is a concurrency target above the target's --max-num-seqs; a web app behind the add-on is silent."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

POLICY = "autoscaling-signal-not-throughput"

# wozniakjan/kmg killercoda/autoscale.md (the HTTPScaledObject it applies): app-1 scaled on requestRate, target 1.
APP = {
    "kind": "HTTPScaledObject",
    "apiVersion": "http.keda.sh/v1alpha1",
    "metadata": {"name": "app-1"},
    "spec": {
        "hosts": ["app-1"],
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "app-1", "service": "app-1", "port": 8080},
        "replicas": {"min": 0, "max": 10},
        "scalingMetric": {"requestRate": {"targetValue": 1}},
        "scaledownPeriod": 1,
    },
}
# A vLLM Deployment on one GPU (velrite/project7-ai-inference-platform k8s/vllm-deployment.yaml at 1d0d4e3, cut down,
# with --max-num-seqs 16).
VLLM = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm-inference"},
    "spec": {
        "selector": {"matchLabels": {"app": "vllm-inference"}},
        "template": {
            "metadata": {"labels": {"app": "vllm-inference"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:v0.8.5",
                        "args": ["--model=Qwen/Qwen2.5-7B-Instruct", "--max-num-seqs=16"],
                        "resources": {"limits": {"nvidia.com/gpu": 1}},
                    }
                ]
            },
        },
    },
}


def on_vllm(scaling_metric: dict | None) -> dict:
    hso = copy.deepcopy(APP)
    hso["metadata"]["name"] = "vllm"
    hso["spec"]["scaleTargetRef"].update({"name": "vllm-inference", "service": "vllm-inference", "port": 8000})
    if scaling_metric is None:
        del hso["spec"]["scalingMetric"]
    else:
        hso["spec"]["scalingMetric"] = scaling_metric
    return hso


def test_request_rate_on_a_gpu_model_server_is_advice():
    ((level, message),) = found_by([on_vllm({"requestRate": {"targetValue": 1}}), VLLM], POLICY)
    assert level == "advisory"
    assert message.startswith(
        "spec.scalingMetric.requestRate: the KEDA HTTP add-on scales this GPU model server on requests per second (1 "
        "per replica), counted as they arrive"
    )


def test_a_concurrency_above_the_engine_batch_is_advice():
    # No scalingMetric: the add-on's default, concurrency 100 (http-add-on v0.15.0 httpscaledobject_types.go:100-106).
    ((level, message),) = found_by([on_vllm(None), VLLM], POLICY)
    assert level == "advisory"
    assert message.startswith(
        "no target: the add-on's default 100: the KEDA HTTP add-on adds a replica of Deployment/vllm-inference only past "
        "100 requests in flight per replica, but vLLM runs at most 16 at once (--max-num-seqs 16)"
    )


def test_a_web_app_or_a_concurrency_within_the_batch_is_silent():
    within = on_vllm({"concurrency": {"targetValue": 12}})
    assert found_by([APP, within, VLLM], POLICY) == []
