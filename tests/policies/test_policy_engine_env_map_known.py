"""G74 engine-env-map-known: a ConfigMap that only vLLM servers take as their environment holds no VLLM_ key vLLM never
reads (components/engine_env_names.json settings.vllm)."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

POLICY = "engine-env-map-known"

# SecureCloudOps/llm-rag-infra-platform@5c772f91cfa74806d2476c25c296b941f65bb1c0 k8s/vllm/configmap.yaml and
# k8s/vllm/deployment.yaml (spent set 114), trimmed: VLLM_LOG_LEVEL (vLLM reads VLLM_LOGGING_LEVEL); VLLM_HOST and
# VLLM_PORT are named by the args ($(VLLM_HOST)), so the kubelet reads them.
CONFIG = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "vllm-config", "namespace": "ai-system"},
    "data": {
        "MODEL_NAME": "placeholder-local-model",
        "VLLM_HOST": "0.0.0.0",
        "VLLM_PORT": "8000",
        "VLLM_LOG_LEVEL": "info",
    },
}
SERVER = {
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
                        "image": "vllm/vllm-openai:latest",
                        "command": ["python", "-m", "vllm.entrypoints.openai.api_server"],
                        "args": ["--host", "$(VLLM_HOST)", "--port", "$(VLLM_PORT)", "--model", "$(MODEL_NAME)"],
                        "envFrom": [{"configMapRef": {"name": "vllm-config"}}],
                    }
                ]
            },
        },
    },
}


def test_unread_key_is_said_on_the_config_map():
    [(level, message)] = found_by([CONFIG, SERVER], POLICY)
    assert level == "advisory"
    assert message.startswith(
        "data.VLLM_LOG_LEVEL: Deployment/vllm container vllm takes this ConfigMap as its environment (envFrom), but "
        "VLLM_LOG_LEVEL is no setting vLLM 0.34.0 (the tag latest follows the newest release) reads "
        "(components/engine_env_names.json settings.vllm); the closest variable it reads is VLLM_LOGGING_LEVEL"
    )


def test_careful_forms_stay_silent():
    spelt = copy.deepcopy(CONFIG)
    spelt["data"]["VLLM_LOGGING_LEVEL"] = spelt["data"].pop("VLLM_LOG_LEVEL")
    assert found_by([spelt, SERVER], POLICY) == []
    # a client that takes the same ConfigMap may read VLLM_LOG_LEVEL its own way
    client = copy.deepcopy(SERVER)
    client["metadata"]["name"] = "rag-api"
    client["spec"]["template"]["spec"]["containers"][0] = {
        "name": "rag-api",
        "image": "ghcr.io/acme/rag-api:1.0",
        "envFrom": [{"configMapRef": {"name": "vllm-config"}}],
    }
    assert found_by([CONFIG, SERVER, client], POLICY) == []
    # the container's own env sets it again: engine-env-known's finding, not the map's
    own = copy.deepcopy(SERVER)
    own["spec"]["template"]["spec"]["containers"][0]["env"] = [{"name": "VLLM_LOG_LEVEL", "value": "debug"}]
    assert found_by([CONFIG, own], POLICY) == []
