"""G11 gpu-memory-request-equals-limit names a Memory-medium /dev/shm of the Burstable GPU container: its pages are
charged to the pod's memory (core/v1 EmptyDirVolumeSource.sizeLimit: a memory medium counts against the containers'
memory limits), so shared tensors lift usage further above the request (res48 item 2; the form of a vLLM Deployment
with 4Gi requested, 8Gi limited and an 8Gi Memory emptyDir at /dev/shm)."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

POLICY = "gpu-memory-request-equals-limit"

VLLM = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "qwen"},
    "spec": {
        "selector": {"matchLabels": {"app": "qwen"}},
        "template": {
            "metadata": {"labels": {"app": "qwen"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:v0.10.1",
                        "args": ["--model", "Qwen/Qwen2.5-1.5B-Instruct"],
                        "resources": {
                            "requests": {"nvidia.com/gpu": 1, "memory": "4Gi", "cpu": "2"},
                            "limits": {"nvidia.com/gpu": 1, "memory": "8Gi", "cpu": "4"},
                        },
                        "volumeMounts": [{"name": "shm", "mountPath": "/dev/shm"}],
                    }
                ],
                "volumes": [{"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "8Gi"}}],
            },
        },
    },
}


def test_a_burstable_gpu_container_names_its_memory_shm():
    [(level, message)] = found_by([VLLM], POLICY)
    assert level == "advisory"
    assert message == (
        "container vllm: memory request 4Gi differs from its limit 8Gi in a GPU pod, which makes it Burstable and an "
        "early eviction candidate under node memory pressure; its Memory-medium emptyDir shm (sizeLimit 8Gi) at "
        "/dev/shm is charged to the same memory, so shared tensors lift its usage further above the request; request "
        "what you limit"
    )


def test_careful_forms():
    guaranteed = copy.deepcopy(VLLM)
    guaranteed["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["memory"] = "8Gi"
    assert found_by([guaranteed], POLICY) == []
    disk = copy.deepcopy(VLLM)
    disk["spec"]["template"]["spec"]["volumes"][0]["emptyDir"] = {}
    [(_, message)] = found_by([disk], POLICY)
    assert "/dev/shm" not in message
