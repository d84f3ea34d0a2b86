"""G8: a workload a HorizontalPodAutoscaler scales on a Utilization target requests the resource it divides by
(policies/reading/hpa_requests.py): without it the HPA controller fails the metric ("missing request for cpu") and never
scales, model server or not."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

POLICY = "serving-resource-requests"


def _deployment(name: str, container: dict) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container]}},
        },
    }


def _hpa(name: str, target: str, metrics: list[dict]) -> dict:
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": target},
            "minReplicas": 3,
            "maxReplicas": 20,
            "metrics": metrics,
        },
    }


CPU_75 = [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 75}}}]
# savyasachi6/llm-serving-platform infra/kubernetes/base gateway-deployment.yaml and hpa.yaml@05118a8288c69162fe6b3b5769bf3ea21957f3ef
# (spent set 28, labelled G8): the gateway requests no CPU, gateway-hpa targets 75% CPU utilisation.
GATEWAY = _deployment("gateway", {"name": "gateway", "image": "gateway:latest", "imagePullPolicy": "Never"})
GATEWAY_HPA = _hpa("gateway-hpa", "gateway", CPU_75)
# GauravS0001/gpu-inference-platform vllm/deployment.yaml and autoscaling/hpa.yaml@4d33a0f3b6cf9ecafb5a98833bd79b7cdb83d60b (spent set 21): a vLLM server with only
# a GPU limit, scaled on CPU utilisation.
VLLM = _deployment(
    "vllm",
    {"name": "vllm", "image": "vllm/vllm-openai:v0.6.3", "resources": {"limits": {"nvidia.com/gpu": 1}}},
)
VLLM_HPA = _hpa("vllm-hpa", "vllm", CPU_75)


def test_a_utilisation_target_over_a_container_with_no_request_never_scales():
    assert found_by([GATEWAY, GATEWAY_HPA], POLICY) == [
        (
            "advisory",
            "container gateway: no resources.requests.cpu, so HorizontalPodAutoscaler gateway-hpa (a cpu Utilization "
            "target) cannot compute utilisation ('missing request for cpu'), reports ScalingActive False and never "
            "scales this Deployment; request cpu",
        )
    ]
    assert any("HorizontalPodAutoscaler vllm-hpa" in m for _, m in found_by([VLLM, VLLM_HPA], POLICY))


def test_a_request_a_limit_or_an_average_value_target_stays_silent():
    # kubernetes/website content/en/examples/application/php-apache.yaml (the HPA walkthrough): requests cpu 200m.
    requested = copy.deepcopy(GATEWAY)
    requested["spec"]["template"]["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "200m"}}
    limited = copy.deepcopy(GATEWAY)
    limited["spec"]["template"]["spec"]["containers"][0]["resources"] = {"limits": {"cpu": "1"}}  # the request defaults to it
    average = _hpa(
        "gateway-hpa",
        "gateway",
        [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "AverageValue", "averageValue": "500m"}}}],
    )
    assert found_by([requested, GATEWAY_HPA], POLICY) == []
    assert found_by([limited, GATEWAY_HPA], POLICY) == []
    assert found_by([GATEWAY, average], POLICY) == []
    other_namespace = copy.deepcopy(GATEWAY_HPA)
    other_namespace["metadata"]["namespace"] = "edge"
    assert found_by([GATEWAY, other_namespace], POLICY) == []


def test_with_other_metrics_it_still_scales_up_but_never_down():
    # Review 41 item 7: kubernetes pkg/controller/podautoscaler/horizontal.go computeReplicasForMetrics computes the
    # other metrics; an invalid one only blocks a scale-down, and ScalingActive is False only when all fail.
    queue = {
        "type": "Pods",
        "pods": {"metric": {"name": "vllm:num_requests_waiting"}, "target": {"type": "AverageValue", "averageValue": "5"}},
    }
    [(level, message)] = found_by([GATEWAY, _hpa("gateway-hpa", "gateway", [*CPU_75, queue])], POLICY)
    assert level == "advisory"
    assert "so it scales this Deployment up on its other metrics only and never scales it down; request cpu" in message
