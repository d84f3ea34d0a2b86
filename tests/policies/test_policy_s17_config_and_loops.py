"""S17 model-source-pinned: a model id read from a ConfigMap through $(VAR), and Ollama models pulled in a shell loop.

Cut from spent set 18 (both labelled S17 advisory):
- apnex/k8s-vllm k8s/deployment.yaml@80e7f6b279c49e5e7ae99c407e2d2a08dd09e81b: vllm/vllm-openai:v0.20.2 with
  ``--model=$(VLLM_MODEL)``, VLLM_MODEL from ConfigMap vllm-config key VLLM_MODEL (k8s/configmap.yaml@
  937533a658ffc2b9de96f40946bfdfdbfd218d0a: cyankiwi/Qwen3-Coder-30B-A3B-Instruct-AWQ-4bit), no --revision;
- yuxiaojian/ollama-k8s ollama-gpu.yaml@79159968f6c14b53128d14ed2dfe24feaf4c64d2: ollama/ollama:0.3.5 whose postStart
  hook runs ``for model in $PRELOAD_MODELS; do ollama run $model ""; done`` with PRELOAD_MODELS=llama3.1.
"""

import copy

from policy_fixtures import found_by

POLICY = "model-source-pinned"


def _deployment(container: dict, name: str = "vllm") -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": name},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container]}},
        },
    }


CONFIG = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "vllm-config", "namespace": "vllm"},
    "data": {"VLLM_MODEL": "cyankiwi/Qwen3-Coder-30B-A3B-Instruct-AWQ-4bit", "VLLM_MAX_MODEL_LEN": "98304"},
}
APNEX = {
    "name": "vllm",
    "image": "vllm/vllm-openai:v0.20.2",
    "env": [
        {"name": "VLLM_MODEL", "valueFrom": {"configMapKeyRef": {"name": "vllm-config", "key": "VLLM_MODEL"}}},
        {"name": "VLLM_MAX_MODEL_LEN", "valueFrom": {"configMapKeyRef": {"name": "vllm-config", "key": "VLLM_MAX_MODEL_LEN"}}},
    ],
    "args": ["--model=$(VLLM_MODEL)", "--max-model-len=$(VLLM_MAX_MODEL_LEN)", "--dtype=auto"],
    "resources": {"limits": {"nvidia.com/gpu": 1}, "requests": {"nvidia.com/gpu": 1}},
}
YUXIAOJIAN = {
    "name": "ollama",
    "image": "ollama/ollama:0.3.5",
    "env": [{"name": "PRELOAD_MODELS", "value": "llama3.1"}, {"name": "OLLAMA_KEEP_ALIVE", "value": "12h"}],
    "lifecycle": {
        "postStart": {"exec": {"command": ["/bin/sh", "-c", 'for model in $PRELOAD_MODELS; do ollama run $model ""; done']}}
    },
}


def test_a_hub_model_read_from_a_config_map_is_reported():
    ((level, message),) = found_by([_deployment(APNEX), CONFIG], POLICY)
    assert level == "advisory"
    assert "model cyankiwi/Qwen3-Coder-30B-A3B-Instruct-AWQ-4bit comes from the Hugging Face Hub with no revision" in message


def test_config_map_careful_forms_stay_silent():
    # The ConfigMap pins a revision the args pass on.
    pinned = copy.deepcopy(APNEX)
    pinned["env"].append({"name": "VLLM_REVISION", "valueFrom": {"configMapKeyRef": {"name": "vllm-config", "key": "REV"}}})
    pinned["args"].append("--revision=$(VLLM_REVISION)")
    config = copy.deepcopy(CONFIG)
    config["data"]["REV"] = "0123456789abcdef0123456789abcdef01234567"
    assert found_by([_deployment(pinned), config], POLICY) == []
    # A model on a volume, named in the ConfigMap.
    local = copy.deepcopy(CONFIG)
    local["data"]["VLLM_MODEL"] = "/models/qwen3-coder-awq"
    assert found_by([_deployment(APNEX), local], POLICY) == []
    # A ConfigMap outside the checked files: the model is not known, nothing is said.
    assert found_by([_deployment(APNEX)], POLICY) == []


def test_an_ollama_model_pulled_in_a_shell_loop_is_reported():
    ((level, message),) = found_by([_deployment(YUXIAOJIAN, "ollama")], POLICY)
    assert level == "advisory" and "pulls the Ollama model llama3.1 by its tag" in message
    several = copy.deepcopy(YUXIAOJIAN)
    several["env"][0]["value"] = "llama3.1 qwen2.5:7b"
    assert [m.split("model ")[1].split(" by")[0] for _, m in found_by([_deployment(several, "ollama")], POLICY)] == [
        "llama3.1",
        "qwen2.5:7b",
    ]


def test_ollama_loop_careful_forms_stay_silent():
    # A digest-pinned model in the loop's list.
    pinned = copy.deepcopy(YUXIAOJIAN)
    pinned["env"][0]["value"] = "llama3.1@sha256:" + "a" * 64
    assert found_by([_deployment(pinned, "ollama")], POLICY) == []
    # A loop variable the manifest never sets: no model is known.
    unset = copy.deepcopy(YUXIAOJIAN)
    unset["env"] = [{"name": "OLLAMA_KEEP_ALIVE", "value": "12h"}]
    assert found_by([_deployment(unset, "ollama")], POLICY) == []
