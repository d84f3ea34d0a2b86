"""S47 offline-model-cache-filled: HF_HUB_OFFLINE with a Hub id and a cache nothing fills."""

from __future__ import annotations

import copy

import pytest
from policy_fixtures import found_by

POLICY = "offline-model-cache-filled"

# Minimal form of spottabathula69/gpu-llm-inference-platform infra/k8s/apps/vllm/deployment_llama8B.yaml at
# a29f2166ff17862c2a646a5106ccd067a94de29c (spent set 10): vllm/vllm-openai:v0.6.3.post1 serving the Hub id
# casperhansen/llama-3-8b-instruct-awq with HF_HUB_OFFLINE=1, cache /root/.cache/huggingface on a hostPath
# /data/vllm-cache of type DirectoryOrCreate.
SPOT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm-8b"},
    "spec": {
        "selector": {"matchLabels": {"app": "vllm"}},
        "template": {
            "metadata": {"labels": {"app": "vllm"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:v0.6.3.post1",
                        "args": ["--model=casperhansen/llama-3-8b-instruct-awq", "--max-model-len=2048"],
                        "env": [{"name": "HF_HUB_OFFLINE", "value": "1"}],
                        "resources": {"limits": {"nvidia.com/gpu": 1}},
                        "volumeMounts": [{"name": "model-cache", "mountPath": "/root/.cache/huggingface"}],
                    }
                ],
                "volumes": [{"name": "model-cache", "hostPath": {"path": "/data/vllm-cache", "type": "DirectoryOrCreate"}}],
            },
        },
    },
}


def _spec(obj: dict) -> dict:
    return obj["spec"]["template"]["spec"]


def test_offline_hub_id_on_a_directory_or_create_host_path_blocks():
    found = found_by([SPOT], POLICY)
    assert len(found) == 1
    level, message = found[0]
    assert level == "mandatory"
    assert message.startswith(
        "container vllm: HF_HUB_OFFLINE is on, so the Hub client downloads nothing, but the model is the Hub id "
        "casperhansen/llama-3-8b-instruct-awq and its cache is /root/.cache/huggingface/hub on the hostPath /data/vllm-cache"
    )


@pytest.mark.parametrize(
    "volume",
    [{"name": "model-cache", "emptyDir": {}}, {"name": "model-cache", "emptyDir": {"sizeLimit": "50Gi"}}],
)
def test_emptydir_cache_blocks(volume):
    obj = copy.deepcopy(SPOT)
    _spec(obj)["volumes"] = [volume]
    assert [level for level, _ in found_by([obj], POLICY)] == ["mandatory"]


def test_transformers_offline_and_the_image_layer_block():
    obj = copy.deepcopy(SPOT)
    container = _spec(obj)["containers"][0]
    container["env"] = [{"name": "TRANSFORMERS_OFFLINE", "value": "true"}]
    container.pop("volumeMounts")
    _spec(obj).pop("volumes")
    assert ["image's own layer" in m for _, m in found_by([obj], POLICY)] == [True]


def _claim(obj: dict) -> None:
    # The careful form: ahmedwaleedmalik/k8s-llm-inference-platform serving/raw-vllm/deployment.yaml at
    # 441dd0a3a57db32484e853db7281dc787b1189d8 (spent set 7) keeps HF_HUB_OFFLINE=1 with the cache on a claim
    # that an init container pre-stages.
    _spec(obj)["volumes"] = [{"name": "model-cache", "persistentVolumeClaim": {"claimName": "vllm-model-cache"}}]


def _seeded(obj: dict) -> None:
    _spec(obj)["volumes"] = [{"name": "model-cache", "emptyDir": {}}]
    _spec(obj)["initContainers"] = [
        {"name": "fetch", "image": "python:3.12-slim", "volumeMounts": [{"name": "model-cache", "mountPath": "/cache"}]}
    ]


@pytest.mark.parametrize(
    "change",
    [
        _claim,
        _seeded,  # an init container writes into the same volume
        lambda o: _spec(o)["volumes"][0]["hostPath"].update(type="Directory"),  # must exist: seeded on purpose
        lambda o: _spec(o)["volumes"][0]["hostPath"].pop("type"),  # no type: nothing says it starts empty
        lambda o: _spec(o)["containers"][0].update(env=[{"name": "HF_HUB_OFFLINE", "value": "0"}]),
        lambda o: _spec(o)["containers"][0].update(args=["--model=/root/.cache/huggingface/llama-8b-awq"]),  # local path
    ],
)
def test_careful_forms_stay_silent(change):
    obj = copy.deepcopy(SPOT)
    change(obj)
    assert found_by([obj], POLICY) == []


def test_a_custom_image_may_carry_the_model():
    obj = copy.deepcopy(SPOT)
    container = _spec(obj)["containers"][0]
    container["image"] = "registry.example.com/team/llama-8b-baked:1.0"
    container["command"] = ["vllm", "serve"]
    container.pop("volumeMounts")
    _spec(obj).pop("volumes")
    assert found_by([obj], POLICY) == []
