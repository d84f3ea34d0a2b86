"""S17 config-revision-pinned on a ConfigMap key holding a Hugging Face file URL at a branch, read by a container.

Firing form: rajinikanthvadla-ai/llm-deploys-on-k8s k8s/llamacpp/configmap.yaml (spent set 69, labelled S17):
MODEL_URL https://huggingface.co/TheBloke/TinyLlama-1.1B-Chat-v1.0-GGUF/resolve/main/tinyllama-1.1b-chat-v1.0.Q4_K_M.gguf
read by envFrom and fetched by curl. The Hub serves a file at /resolve/<revision>/ (huggingface_hub v1.28.0 constants.py
HUGGINGFACE_CO_URL_TEMPLATE). Silent: the URL at a commit SHA, a ConfigMap no container reads.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

RULE = "config-revision-pinned"
URL = "https://huggingface.co/TheBloke/TinyLlama-1.1B-Chat-v1.0-GGUF/resolve/main/tinyllama-1.1b-chat-v1.0.Q4_K_M.gguf"
CONFIG = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "llamacpp-config", "namespace": "llm"},
    "data": {"MODEL_URL": URL, "MODEL_FILE": "model.gguf"},
}
FETCH = {
    "name": "fetch-model",
    "image": "curlimages/curl:8.10.1",
    "command": ["sh", "-c", 'curl -fL -o "/models/${MODEL_FILE}" "${MODEL_URL}"'],
    "envFrom": [{"configMapRef": {"name": "llamacpp-config"}}],
}
DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "llamacpp", "namespace": "llm"},
    "spec": {
        "selector": {"matchLabels": {"app": "llamacpp"}},
        "template": {
            "metadata": {"labels": {"app": "llamacpp"}},
            "spec": {
                "initContainers": [FETCH],
                "containers": [{"name": "server", "image": "ghcr.io/ggml-org/llama.cpp:server-b4500"}],
            },
        },
    },
}


def test_a_file_url_at_a_branch_read_by_a_container_is_advice():
    ((level, message),) = found_by([CONFIG, DEPLOYMENT], RULE)
    assert level == "advisory"
    assert message.startswith(
        "data.MODEL_URL is a Hugging Face file URL at revision 'main' of TheBloke/TinyLlama-1.1B-Chat-v1.0-GGUF, a branch"
    )


def test_a_commit_url_or_an_unread_config_map_stays_silent():
    pinned = copy.deepcopy(CONFIG)
    pinned["data"]["MODEL_URL"] = URL.replace("/main/", "/52e7645ba7c309695bec7ac98f4f005b139cf465/")
    assert found_by([pinned, DEPLOYMENT], RULE) == []
    assert found_by([CONFIG], RULE) == []
