"""Session 48 (brief pods48): pod-level rules that did not reach every form a third party writes.

Each class is written out minimally from the forms the sealed sets showed (the brief describes forms, not files); each
has a careful form that must stay silent:

- S19: a GPU model server's model downloaded into a disk emptyDir WITH a sizeLimit (12Gi, 20Gi) while no container nor
  init container requests ephemeral-storage: bounded, but the scheduler places pods by requests alone
  (https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/#local-ephemeral-storage); careful:
  a request of at least the sizeLimit, or the cache on a PersistentVolumeClaim.
"""

from __future__ import annotations

import copy

from tests.policies.policy_fixtures import found_by


def _deployment(name: str, pod: dict, labels: dict | None = None) -> dict:
    labels = labels or {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "llm"},
        "spec": {"selector": {"matchLabels": labels}, "template": {"metadata": {"labels": labels}, "spec": pod}},
    }


# -- S19: a bounded emptyDir the scheduler does not count ------------------------------------------------------------

_VLLM_CACHE = {
    "name": "vllm",
    "image": "vllm/vllm-openai:v0.8.5",
    "args": ["--model", "Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "8192"],
    "env": [{"name": "HF_HOME", "value": "/models"}],
    "resources": {"limits": {"nvidia.com/gpu": 1}},
    "volumeMounts": [{"name": "model-cache", "mountPath": "/models"}],
}


def _cache_pod(limit: str, server: dict | None = None) -> dict:
    volumes = [{"name": "model-cache", "emptyDir": {"sizeLimit": limit}}]
    return _deployment("vllm", {"containers": [server or _VLLM_CACHE], "volumes": volumes})


def test_s19_a_download_into_a_size_limited_emptydir_without_a_request_is_advice():
    [(level, message)] = found_by([_cache_pod("20Gi")], "gpu-pod-ephemeral-storage")
    assert level == "advisory"
    assert message.startswith(
        "container vllm: downloads Qwen/Qwen2.5-7B-Instruct from the Hugging Face Hub into /models/hub, an emptyDir "
        "with sizeLimit 20Gi on the node's disk, but the pod requests no ephemeral-storage"
    )


def test_s19_an_init_container_download_into_a_size_limited_emptydir_is_advice():
    fetch = {
        "name": "download",
        "image": "python:3.11-slim",
        "command": ["sh", "-c", "huggingface-cli download Qwen/Qwen2.5-72B-Instruct --local-dir /models/qwen"],
        "volumeMounts": [{"name": "model-cache", "mountPath": "/models"}],
    }
    server = {**_VLLM_CACHE, "args": ["--model", "/models/qwen"], "env": []}
    doc = _cache_pod("12Gi", server)
    doc["spec"]["template"]["spec"]["initContainers"] = [fetch]
    [(level, message)] = found_by([doc], "gpu-pod-ephemeral-storage")
    assert level == "advisory" and "into /models/qwen, an emptyDir with sizeLimit 12Gi" in message


def test_s19_a_model_store_emptydir_with_a_size_limit_and_no_request_is_advice():
    # Nothing the rule reads fills the folder (a custom server image), but the GPU pod names it as a model store.
    server = {
        "name": "server",
        "image": "registry.example.com/team/llm-server:1.4.2",
        "resources": {"limits": {"nvidia.com/gpu": 1}},
        "volumeMounts": [{"name": "model-cache", "mountPath": "/model-cache"}],
    }
    [(level, message)] = found_by([_cache_pod("20Gi", server)], "gpu-pod-ephemeral-storage")
    assert (
        level == "advisory" and "mounts the emptyDir model-cache at /model-cache as a model store, with sizeLimit 20Gi" in message
    )


def test_s19_careful_forms_stay_silent():
    # A request of at least the sizeLimit (on any container; a limit alone stands for the request, as the API server
    # defaults it).
    for resources in (
        {"limits": {"nvidia.com/gpu": 1}, "requests": {"ephemeral-storage": "20Gi"}},
        {"limits": {"nvidia.com/gpu": 1, "ephemeral-storage": "30Gi"}},
    ):
        server = copy.deepcopy(_VLLM_CACHE)
        server["resources"] = resources
        assert found_by([_cache_pod("20Gi", server)], "gpu-pod-ephemeral-storage") == []
    # The cache on a claim.
    doc = _cache_pod("20Gi")
    doc["spec"]["template"]["spec"]["volumes"] = [{"name": "model-cache", "persistentVolumeClaim": {"claimName": "hf"}}]
    assert found_by([doc], "gpu-pod-ephemeral-storage") == []
    # A request below the limit is still advice.
    server = copy.deepcopy(_VLLM_CACHE)
    server["resources"]["requests"] = {"ephemeral-storage": "10Gi"}
    [(_, message)] = found_by([_cache_pod("20Gi", server)], "gpu-pod-ephemeral-storage")
    assert "the pod requests 10 GiB of ephemeral-storage, below that limit" in message
