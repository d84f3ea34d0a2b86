"""Careful third-party forms that long-standing mandatory rules once blocked because they assumed this project's own
conventions; each keeps a form the rule must still block."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

# A vLLM Deployment that sets no cpu/memory requests or limits of its own (shape of the held-out set 8 file
# aatchison/deploy-vllm-k8s deploy-gemma4-31B-bf16-tp2.yaml, reduced: only nvidia.com/gpu under limits).
SERVER = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm", "namespace": "vllm"},
    "spec": {
        "selector": {"matchLabels": {"app": "vllm"}},
        "template": {
            "metadata": {"labels": {"app": "vllm"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:v0.10.1",
                        "args": ["--model", "/models/qwen"],
                        "resources": {"limits": {"nvidia.com/gpu": 1}},
                    }
                ]
            },
        },
    },
}
# Kubernetes' documented namespace defaults ("Configure Default Memory Requests and Limits for a Namespace",
# kubernetes.io/docs/tasks/administer-cluster/manage-resources/memory-default-namespace/, memory-defaults.yaml:
# a Container LimitRange with default and defaultRequest), here with cpu too.
LIMIT_RANGE = {
    "apiVersion": "v1",
    "kind": "LimitRange",
    "metadata": {"name": "mem-limit-range", "namespace": "vllm"},
    "spec": {"limits": [{"type": "Container", "default": {"memory": "64Gi", "cpu": "8"}, "defaultRequest": {"memory": "32Gi"}}]},
}


def test_a_namespace_limit_range_in_the_run_fills_requests_and_limits():
    for policy in ("serving-memory-limit", "serving-resource-requests"):
        assert [e for e, _ in found_by([SERVER], policy)] == ["mandatory"], policy
        assert found_by([SERVER, LIMIT_RANGE], policy) == [], policy
    # A LimitRange of another namespace, or one without the field, fills nothing.
    elsewhere = copy.deepcopy(LIMIT_RANGE)
    elsewhere["metadata"]["namespace"] = "other"
    assert [e for e, _ in found_by([SERVER, elsewhere], "serving-memory-limit")] == ["mandatory"]
    cpu_only = copy.deepcopy(LIMIT_RANGE)
    cpu_only["spec"]["limits"][0] = {"type": "Container", "default": {"cpu": "8"}}
    (finding,) = found_by([SERVER, cpu_only], "serving-resource-requests")
    assert finding[0] == "mandatory" and "no memory request" in finding[1]
    pod_type = copy.deepcopy(LIMIT_RANGE)
    pod_type["spec"]["limits"][0]["type"] = "Pod"
    assert [e for e, _ in found_by([SERVER, pod_type], "serving-memory-limit")] == ["mandatory"]
