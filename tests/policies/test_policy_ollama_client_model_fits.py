"""G10 ollama-client-model-fits: a CPU-only Ollama whose memory limit is below the model its clients ask it for
(the S57 client machinery feeding G10's size estimate; ollama/ollama README.md@v0.3.0:52 `ollama run llama3` is 8B)."""

from __future__ import annotations

import pytest
from policy_fixtures import found_by

POLICY = "ollama-client-model-fits"


def _ollama(limit: str = "1.5Gi", gpu: bool = False, pull: str | None = None) -> list[dict]:
    container: dict = {
        "name": "ollama",
        "image": "ollama/ollama:latest",
        "args": ["serve"],
        "ports": [{"containerPort": 11434}],
        "resources": {"requests": {"cpu": "250m", "memory": "768Mi"}, "limits": {"cpu": "800m", "memory": limit}},
    }
    if gpu:
        container["resources"]["limits"]["nvidia.com/gpu"] = 1
    if pull:
        container["lifecycle"] = {"postStart": {"exec": {"command": ["/bin/sh", "-c", f"ollama pull {pull}"]}}}
    return [
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": "llm", "namespace": "dating-app"},
            "spec": {"selector": {"app": "llm"}, "ports": [{"port": 11434, "targetPort": 11434}]},
        },
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "llm", "namespace": "dating-app"},
            "spec": {
                "selector": {"matchLabels": {"app": "llm"}},
                "template": {"metadata": {"labels": {"app": "llm"}}, "spec": {"containers": [container]}},
            },
        },
    ]


# sungendary/smart-traffic-assistant k8s/app-configmap.yaml and k8s/llm-deployment.yaml (spent set 83, labelled G10).
def _config_map(url: str = "http://llm:11434", model: str = "llama3") -> dict:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "dating-app-config", "namespace": "dating-app"},
        "data": {"LLM_BASE_URL": url, "LLM_MODEL": model, "LLM_TEMPERATURE": "0.3"},
    }


# NiranEC77/documentation-improver k8s/backend-deployment.yaml (spent set 83, labelled G10): the backend's env.
def _backend(model: str = "codellama:7b") -> dict:
    env = [{"name": "LLM_SERVICE_URL", "value": "http://llm:11434"}, {"name": "MODEL_NAME", "value": model}]
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "backend", "namespace": "dating-app"},
        "spec": {
            "selector": {"matchLabels": {"app": "backend"}},
            "template": {
                "metadata": {"labels": {"app": "backend"}},
                "spec": {"containers": [{"name": "backend", "image": "acme/backend:1.0", "env": env}]},
            },
        },
    }


@pytest.mark.parametrize("objs", [[*_ollama(), _config_map()], [*_ollama("1Gi"), _backend()]])
def test_a_client_model_above_the_limit_is_advice(objs):
    found = found_by(objs, POLICY)
    assert [level for level, _ in found] == ["advisory"], found
    assert "asks it for" in found[0][1] and "GiB" in found[0][1]


@pytest.mark.parametrize(
    "objs",
    [
        [*_ollama("8Gi"), _config_map()],  # the limit holds the 8B model's 4-bit weights
        [*_ollama(gpu=True), _config_map()],  # a GPU server holds the weights in GPU memory
        [*_ollama(), _config_map(model="qwen2.5:0.5b")],  # a small model fits
        [*_ollama(), _config_map(url="http://other-host:11434")],  # the client reaches no Service of this server
        [*_ollama(pull="llama3"), _config_map()],  # pulled by the server itself: G10's pulled form judges it
        [*_ollama(), _config_map(model="llama3.1:${SIZE}")],  # not a name the files resolve
    ],
)
def test_careful_forms_are_silent(objs):
    assert not found_by(objs, POLICY)
