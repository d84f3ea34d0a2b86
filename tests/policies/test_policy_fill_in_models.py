"""S27 model-is-not-a-fill-in, and the kubelet's $(VAR) expansion from a ConfigMap that it relies on.

Fixture: fresh set 47 SecureCloudOps/llm-rag-infra-platform at 5c772f91cfa74806d2476c25c296b941f65bb1c0:
k8s/vllm/configmap.yaml (MODEL_NAME "placeholder-local-model", labelled S27 blocking on ConfigMap/vllm-config) read by
k8s/vllm/deployment.yaml through envFrom and ``--model $(MODEL_NAME)``.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

POLICY = "model-is-not-a-fill-in"

CONFIG = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "vllm-config", "namespace": "ai-system"},
    "data": {"MODEL_NAME": "placeholder-local-model", "VLLM_HOST": "0.0.0.0", "VLLM_PORT": "8000"},
}
VLLM = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm", "namespace": "ai-system"},
    "spec": {
        "selector": {"matchLabels": {"app": "vllm"}},
        "template": {
            "metadata": {"labels": {"app": "vllm"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:v0.10.1",
                        "command": ["python", "-m", "vllm.entrypoints.openai.api_server"],
                        "args": ["--host", "$(VLLM_HOST)", "--port", "$(VLLM_PORT)", "--model", "$(MODEL_NAME)"],
                        "envFrom": [{"configMapRef": {"name": "vllm-config"}}],
                        "resources": {"limits": {"nvidia.com/gpu": 1}},
                    }
                ]
            },
        },
    },
}


def _container(doc: dict) -> dict:
    return doc["spec"]["template"]["spec"]["containers"][0]


def test_a_fill_in_in_the_config_map_is_reported_on_its_key():
    assert found_by([CONFIG, VLLM], POLICY) == [
        (
            "advisory",
            "data.MODEL_NAME: placeholder-local-model is a fill-in, not a model, and Deployment/vllm container vllm serves "
            "it as its model through $(MODEL_NAME); vLLM takes it for a Hugging Face repository id, finds none, and "
            "exits; set the model's Hub id or the path of its weights",
        )
    ]


def test_the_same_fill_in_through_a_config_map_key_ref_or_written_in_args():
    # Second forms: env valueFrom.configMapKeyRef (the kubelet expands it the same way), and the fill-in written in
    # the args themselves.
    keyed = copy.deepcopy(VLLM)
    _container(keyed).pop("envFrom")
    _container(keyed)["env"] = [
        {"name": "MODEL_NAME", "valueFrom": {"configMapKeyRef": {"name": "vllm-config", "key": "MODEL_NAME"}}}
    ]
    assert [m.split(":", 1)[0] for _, m in found_by([CONFIG, keyed], POLICY)] == ["data.MODEL_NAME"]
    literal = copy.deepcopy(VLLM)
    _container(literal)["args"][-1] = "model-placeholder"
    assert [e for e, _ in found_by([literal], POLICY)] == ["advisory"]


def test_a_real_model_or_a_value_from_a_secret_is_silent():
    real = copy.deepcopy(CONFIG)
    real["data"]["MODEL_NAME"] = "Qwen/Qwen2.5-0.5B-Instruct"
    assert found_by([real, VLLM], POLICY) == []
    secret = copy.deepcopy(VLLM)
    _container(secret)["envFrom"] = [{"secretRef": {"name": "vllm-config"}}]
    assert found_by([CONFIG, secret], POLICY) == []
    # A model whose name merely contains the letters of a fill-in word is a model.
    todo = copy.deepcopy(CONFIG)
    todo["data"]["MODEL_NAME"] = "org/todoist-assistant-7b"
    assert found_by([todo, VLLM], POLICY) == []


def test_the_config_map_value_reaches_the_other_readers():
    # The kubelet expands $(VAR) from envFrom ConfigMaps too: S2's advice names the expanded model.
    messages = [m for _, m in found_by([CONFIG, VLLM], "vllm-max-model-len-explicit")]
    assert messages and "placeholder-local-model" in messages[0]
