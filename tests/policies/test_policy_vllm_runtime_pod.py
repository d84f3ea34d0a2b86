"""S17 and S19 on a production-stack VLLMRuntime, read as the pod its controller renders (policies.operators.vllm_runtime_pod).

vllm-project/production-stack vllm-stack-0.1.12 (66b60661aa3052810859a417559e9e830772a091)
operator/internal/controller/vllmruntime_controller.go: `/opt/venv/bin/vllm serve` (L758) with args modelURL first and
vllmConfig.extraArgs appended (L441-511), env from vllmConfig.env, and a PersistentVolumeClaim at storageConfig.mountPath
only when storageConfig.enabled (L687-711); the CRD (operator/api/v1alpha1/vllmruntime_types.go) has no revision field
and no ephemeral-storage. The fixture is the operator's own sample at that tag
(operator/config/samples/production-stack_v1alpha1_vllmruntime.yaml), trimmed: storage on is the careful form, storage
off the firing one.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by, manifest

from policies.operators import vllm_runtime_pod

SAMPLE = {
    "apiVersion": "production-stack.vllm.ai/v1alpha1",
    "kind": "VLLMRuntime",
    "metadata": {"name": "vllmruntime-sample"},
    "spec": {
        "model": {"modelURL": "meta-llama/Llama-3.1-8B-Instruct", "maxModelLen": 4096, "dtype": "bfloat16"},
        "vllmConfig": {
            "tensorParallelSize": 1,
            "gpuMemoryUtilization": "0.8",
            "port": 8000,
            "env": [{"name": "HF_HOME", "value": "/data"}],
        },
        "deploymentConfig": {
            "resources": {"cpu": "5", "memory": "32Gi", "gpu": "1", "gpuType": "nvidia.com/gpu"},
            "image": {"registry": "docker.io", "name": "lmcache/vllm-openai:2025-05-27-v1"},
            "replicas": 2,
        },
        "storageConfig": {"enabled": True, "size": "10Gi", "accessMode": "ReadWriteMany", "mountPath": "/data"},
    },
}


def _runtime(**changes: object) -> dict:
    obj = copy.deepcopy(SAMPLE)
    for path, value in changes.items():
        node = obj["spec"]
        *parents, leaf = path.split("__")
        for key in parents:
            node = node[key]
        node[leaf] = value
    return obj


def test_the_pod_is_rendered_as_the_controller_does():
    podspec, container = vllm_runtime_pod(manifest(SAMPLE))
    assert container["command"] == ["/opt/venv/bin/vllm", "serve"]
    assert container["args"][:5] == ["meta-llama/Llama-3.1-8B-Instruct", "--host", "0.0.0.0", "--port", "8000"]
    assert container["image"] == "docker.io/lmcache/vllm-openai:2025-05-27-v1"
    assert podspec["volumes"] == [{"name": "pvc-storage", "persistentVolumeClaim": {"claimName": "vllmruntime-sample"}}]
    assert container["resources"]["limits"]["nvidia.com/gpu"] == 1


def test_a_model_url_without_revision_is_s17_advice():
    ((level, message),) = found_by([SAMPLE], "model-source-pinned")
    assert level == "advisory" and message.startswith("spec.model.modelURL: model meta-llama/Llama-3.1-8B-Instruct")
    pinned = _runtime(vllmConfig__extraArgs=["--revision", "0e9e39f249a16976918f6564b8830bc894c89659"])
    assert found_by([pinned], "model-source-pinned") == []


def test_no_storage_means_a_download_to_the_node_disk():
    ((level, message),) = found_by([_runtime(storageConfig__enabled=False)], "gpu-pod-ephemeral-storage")
    assert level == "advisory" and "spec.model.modelURL: downloads meta-llama/Llama-3.1-8B-Instruct" in message
    assert "into /data/hub" in message
    assert found_by([SAMPLE], "gpu-pod-ephemeral-storage") == []  # the PVC holds HF_HOME
