"""S5 llm-no-scale-to-zero on a model server's Deployment committed with replicas 0 (advice: a cold start)."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

POLICY = "llm-no-scale-to-zero"

# Minimal form of AurelioAguirre/multi-model-orchestrator k8s/inference/vllm-deployment.yaml at
# a56a9ccc9c72ad14adf481caf7e8a3fee83768b2 (set 41, label S5 advisory: "replicas: 0  # Start with 0, scale up when
# needed", scaled on demand by the project's orchestrator).
PARKED = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "llm-vllm", "namespace": "llm-inference"},
    "spec": {
        "replicas": 0,
        "selector": {"matchLabels": {"app": "llm-vllm"}},
        "template": {
            "metadata": {"labels": {"app": "llm-vllm"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:v0.10.1",
                        "args": ["--model", "openai/gpt-oss-20b", "--port", "8013"],
                        "ports": [{"containerPort": 8013}],
                        "resources": {"limits": {"nvidia.com/gpu": 1}},
                    }
                ]
            },
        },
    },
}

SCALER = {
    "apiVersion": "keda.sh/v1alpha1",
    "kind": "ScaledObject",
    "metadata": {"name": "llm-vllm", "namespace": "llm-inference"},
    "spec": {
        "scaleTargetRef": {"name": "llm-vllm"},
        "minReplicaCount": 1,
        "maxReplicaCount": 2,
        "triggers": [{"type": "prometheus", "metadata": {"query": "sum(vllm:num_requests_waiting)", "threshold": "5"}}],
    },
}


def test_a_model_server_committed_at_zero_replicas_is_advice():
    assert found_by([PARKED], POLICY) == [
        (
            "advisory",
            "spec.replicas is 0, so this model server runs no pod until something outside these files scales it up, "
            "and each first request then waits for a pod to start and load the model; an LLM replica takes minutes to "
            "return (GPU node, image pull, weight load), so the first request after idling times out; set it to at "
            "least 1",
        )
    ]


def test_a_deployment_an_autoscaler_of_the_files_scales_is_judged_on_the_autoscaler():
    # KEDA writes the target's replicas from minReplicaCount; replicas 0 in the Deployment is only its start.
    assert found_by([PARKED, SCALER], POLICY) == []


def test_a_deployment_at_zero_that_serves_no_model_is_silent():
    web = copy.deepcopy(PARKED)
    web["spec"]["template"]["spec"]["containers"] = [{"name": "web", "image": "nginx:1.27", "ports": [{"containerPort": 80}]}]
    assert found_by([web], POLICY) == []


def test_a_model_server_with_replicas_is_silent():
    for replicas in (1, None):
        running = copy.deepcopy(PARKED)
        if replicas is None:
            running["spec"].pop("replicas")  # the Deployment default, 1
        else:
            running["spec"]["replicas"] = replicas
        assert found_by([running], POLICY) == []
