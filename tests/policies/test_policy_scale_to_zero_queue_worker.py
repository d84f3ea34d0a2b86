"""S5 on a GPU queue worker: KEDA scaling an asynchronous worker from zero on its queue's length is the design, not a
cold-start failure (held-out set 48, labelled by an independent reader: a Whisper transcription worker with a GPU,
no port and no Service, scaled by a KEDA ScaledObject with minReplicaCount 0 on a Redis list; our mandatory S5 was
the set's one wrong blocking finding). Its floor is advice; the same workload that serves requests (a port, an HTTP
probe, a Service selecting it, or an engine the table knows) still blocks."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

S5 = "llm-no-scale-to-zero"

# Shape of the set-48 worker, written here: a GPU Deployment with no port and a KEDA redis trigger, floor 0.
WORKER = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "whisper-worker", "namespace": "asr"},
    "spec": {
        "selector": {"matchLabels": {"app": "whisper-worker"}},
        "template": {
            "metadata": {"labels": {"app": "whisper-worker"}},
            "spec": {
                "containers": [
                    {
                        "name": "worker",
                        "image": "ghcr.io/example/whisper-worker:1.4.2",
                        "command": ["python", "-m", "worker"],
                        "env": [{"name": "REDIS_URL", "value": "redis://redis.asr:6379/0"}],
                        "resources": {"limits": {"nvidia.com/gpu": "1", "memory": "16Gi"}},
                    }
                ]
            },
        },
    },
}
SCALER = {
    "apiVersion": "keda.sh/v1alpha1",
    "kind": "ScaledObject",
    "metadata": {"name": "whisper-worker", "namespace": "asr"},
    "spec": {
        "scaleTargetRef": {"name": "whisper-worker"},
        "minReplicaCount": 0,
        "maxReplicaCount": 4,
        "triggers": [{"type": "redis", "metadata": {"address": "redis.asr:6379", "listName": "jobs", "listLength": "5"}}],
    },
}


def _levels(objs: list[dict]) -> list[str]:
    return [level for level, _ in found_by(objs, S5)]


def test_a_gpu_queue_worker_scaled_from_zero_is_advice():
    ((level, message),) = found_by([WORKER, SCALER], S5)
    assert level == "advisory" and "answers no request" in message and "queue" in message


def test_the_same_workload_serving_requests_blocks():
    with_port = copy.deepcopy(WORKER)
    with_port["spec"]["template"]["spec"]["containers"][0]["ports"] = [{"containerPort": 8000}]
    assert _levels([with_port, SCALER]) == ["mandatory"]
    probed = copy.deepcopy(WORKER)
    probed["spec"]["template"]["spec"]["containers"][0]["readinessProbe"] = {"httpGet": {"path": "/health", "port": 8000}}
    assert _levels([probed, SCALER]) == ["mandatory"]
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "whisper", "namespace": "asr"},
        "spec": {"selector": {"app": "whisper-worker"}, "ports": [{"port": 80}]},
    }
    assert _levels([WORKER, SCALER, service]) == ["mandatory"]
    # A Service of another namespace does not select it.
    elsewhere = copy.deepcopy(service)
    elsewhere["metadata"]["namespace"] = "web"
    assert _levels([WORKER, SCALER, elsewhere]) == ["advisory"]


def test_a_known_engine_without_a_port_still_blocks():
    """vLLM listens on 8000 whether or not the manifest declares the port: the engine table knows it serves."""
    vllm = copy.deepcopy(WORKER)
    container = vllm["spec"]["template"]["spec"]["containers"][0]
    container["image"], container["command"] = "vllm/vllm-openai:v0.8.5", None
    del container["command"]
    container["args"] = ["--model", "Qwen/Qwen2.5-7B-Instruct"]
    assert _levels([vllm, SCALER]) == ["mandatory"]


def test_a_target_scaled_on_request_traffic_blocks():
    """review46a #6: an HTTPScaledObject routes HTTP requests to the target; a prometheus trigger on a request rate
    scales on requests: neither is a queue worker, whatever the Deployment declares."""
    http = {
        "apiVersion": "http.keda.sh/v1alpha1",
        "kind": "HTTPScaledObject",
        "metadata": {"name": "whisper-worker", "namespace": "asr"},
        "spec": {
            "hosts": ["asr.example.com"],
            "scaleTargetRef": {
                "name": "whisper-worker",
                "kind": "Deployment",
                "apiVersion": "apps/v1",
                "service": "asr",
                "port": 8080,
            },
            "replicas": {"min": 0, "max": 3},
        },
    }
    assert _levels([WORKER, http]) == ["mandatory"]
    prometheus = copy.deepcopy(SCALER)
    prometheus["spec"]["triggers"] = [
        {
            "type": "prometheus",
            "metadata": {"serverAddress": "http://prom:9090", "query": "sum(rate(http_requests_total[1m]))", "threshold": "5"},
        }
    ]
    assert _levels([WORKER, prometheus]) == ["mandatory"]
    mixed = copy.deepcopy(SCALER)
    mixed["spec"]["triggers"] = [*SCALER["spec"]["triggers"], prometheus["spec"]["triggers"][0]]
    assert _levels([WORKER, mixed]) == ["mandatory"]
    # Queue and stream triggers only: advice.
    streams = copy.deepcopy(SCALER)
    streams["spec"]["triggers"] = [{"type": "aws-sqs-queue", "metadata": {"queueURL": "q"}}, {"type": "kafka", "metadata": {}}]
    assert _levels([WORKER, streams]) == ["advisory"]


def test_a_service_with_no_namespace_may_select_it():
    """review46a #7: kustomize's `namespace:` or `kubectl apply -n` sets the namespace a Service leaves out."""
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "whisper"},
        "spec": {"selector": {"app": "whisper-worker"}, "ports": [{"port": 80}]},
    }
    assert _levels([WORKER, SCALER, service]) == ["mandatory"]
    worker = copy.deepcopy(WORKER)
    del worker["metadata"]["namespace"]
    scaler = copy.deepcopy(SCALER)
    del scaler["metadata"]["namespace"]
    placed = {**service, "metadata": {"name": "whisper", "namespace": "asr"}}
    assert _levels([worker, scaler, placed]) == ["mandatory"]
