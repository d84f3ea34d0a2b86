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


# Set 47 (S5 blocking): SecureCloudOps/llm-rag-infra-platform k8s/vllm/deployment.yaml commits "replicas: 0" and
# k8s/vllm/hpa.yaml scales it with minReplicas 1 on CPU; the HPA controller never scales a target at 0 replicas while
# its minReplicas is not 0 (ScalingDisabled).
HPA = {
    "apiVersion": "autoscaling/v2",
    "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "llm-vllm", "namespace": "llm-inference"},
    "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "llm-vllm"},
        "minReplicas": 1,
        "maxReplicas": 3,
        "metrics": [
            {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 75}}}
        ],
    },
}


def test_a_model_server_at_zero_under_an_hpa_with_a_floor_blocks():
    found = found_by([PARKED, HPA], POLICY)
    assert [e for e, _ in found] == ["mandatory"]
    assert "HorizontalPodAutoscaler llm-vllm (minReplicas 1) scales it" in found[0][1]
    assert "ScalingDisabled" in found[0][1]


def test_an_hpa_without_min_replicas_takes_one_and_blocks_too():
    # autoscaling/v1 form, minReplicas left to its default 1 (the same controller path).
    hpa = copy.deepcopy(HPA)
    hpa["apiVersion"] = "autoscaling/v1"
    hpa["spec"].pop("minReplicas")
    hpa["spec"].pop("metrics")
    hpa["spec"]["targetCPUUtilizationPercentage"] = 80
    found = found_by([PARKED, hpa], POLICY)
    assert [e for e, _ in found] == ["mandatory"]
    assert "(minReplicas 1, the default)" in found[0][1]


def test_an_hpa_at_min_replicas_zero_scales_from_zero_and_is_silent_here():
    # The careful form: llm-d's workload-variant-autoscaler docs (HPA "minReplicas: 0  # HPAScaleToZero", scaling a
    # vLLM Deployment on inferno_desired_replicas; code index file 14762465912): the controller goes on scaling a
    # target at 0 when minReplicas is 0. The HPA's own floor of 0 is judged on the HPA (S5's scaler rows).
    hpa = copy.deepcopy(HPA)
    hpa["spec"]["minReplicas"] = 0
    assert all("ScalingDisabled" not in m for _, m in found_by([PARKED, hpa], POLICY))


def test_an_hpa_on_another_deployment_leaves_the_parked_advice():
    hpa = copy.deepcopy(HPA)
    hpa["spec"]["scaleTargetRef"]["name"] = "web"
    assert [e for e, _ in found_by([PARKED, hpa], POLICY)] == ["advisory"]
