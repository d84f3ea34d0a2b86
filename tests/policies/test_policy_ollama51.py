"""Brief ollama51: settings engines do not read (G74) and clients asking for a model nothing serves (S65).

G74 engine-env-file-unread, firing form: spent set 82 olafkfreund/SOW-generator@2e78b6f84c07e1b9b699bfe56594fb1622955e04
deployment/k8s-pod-amd.yaml (ConfigMap ollama-amd-config, ollama.conf of OLLAMA_...= lines mounted at /etc/ollama into
an Ollama rebuild, labelled G74 on the ConfigMap): Ollama reads its settings with os.Getenv only (ollama/ollama v0.32.15
envconfig/config.go:375-376). Careful forms: the file sourced by the command; the settings also in the container's env.
"""

from __future__ import annotations

from policy_fixtures import manifest

from policies.registry import evaluate

FILE_UNREAD = "engine-env-file-unread"

OLLAMA_CONF = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "ollama-amd-config", "namespace": "sow"},
    "data": {
        "ollama.conf": "# Ollama configuration\nOLLAMA_HOST=0.0.0.0:11434\nOLLAMA_FLASH_ATTENTION=1\n"
        "OLLAMA_TENSOR_PARALLEL_SIZE=1\nOLLAMA_MAX_BATCH_SIZE=32\n",
        "gpu-info.sh": "#!/bin/bash\nrocm-smi --showallinfo\n",
    },
}


def _deployment(name: str, containers: list, volumes: list | None = None, namespace: str = "sow") -> dict:
    spec: dict = {"containers": containers}
    if volumes:
        spec["volumes"] = volumes
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"selector": {"matchLabels": {"app": name}}, "template": {"metadata": {"labels": {"app": name}}, "spec": spec}},
    }


def _ollama(image: str = "ollama-amd:latest", **extra) -> dict:
    return {
        "name": "ollama",
        "image": image,
        "ports": [{"containerPort": 11434}],
        "env": [{"name": "OLLAMA_HOST", "value": "0.0.0.0:11434"}],
        "volumeMounts": [{"name": "ollama-config", "mountPath": "/etc/ollama", "readOnly": True}],
        **extra,
    }


def _found(objs: list[dict], policy: str) -> list[tuple[str, str, str]]:
    return [(v.enforcement, v.resource, v.message) for v in evaluate([manifest(o) for o in objs]) if v.policy == policy]


def _with_config(container: dict) -> list[dict]:
    volumes = [{"name": "ollama-config", "configMap": {"name": "ollama-amd-config"}}]
    return [_deployment("ollama-amd", [container], volumes), OLLAMA_CONF]


def test_an_unsourced_ollama_conf_is_said_on_its_config_map():
    ((level, where, message),) = _found(_with_config(_ollama()), FILE_UNREAD)
    assert (level, where) == ("advisory", "ConfigMap/ollama-amd-config")
    assert message.startswith(
        "this ConfigMap's file /etc/ollama/ollama.conf sets OLLAMA_FLASH_ATTENTION, OLLAMA_MAX_BATCH_SIZE, "
        "OLLAMA_TENSOR_PARALLEL_SIZE, but Ollama reads its settings only from its environment (unless a rebuilt"
    )
    assert "nothing in container ollama of Deployment ollama-amd sources the file" in message
    ((_, _, published),) = _found(_with_config(_ollama("ollama/ollama:0.6.2")), FILE_UNREAD)
    assert "unless a rebuilt" not in published


def test_a_sourced_or_env_set_ollama_conf_is_silent_on_the_config_map():
    sourced = _ollama(command=["sh", "-c", "set -a; . /etc/ollama/ollama.conf; exec ollama serve"])
    assert _found(_with_config(sourced), FILE_UNREAD) == []
    in_env = _ollama("ollama/ollama:0.6.2")
    in_env["env"] = [
        {"name": n, "value": "1"}
        for n in ("OLLAMA_HOST", "OLLAMA_FLASH_ATTENTION", "OLLAMA_TENSOR_PARALLEL_SIZE", "OLLAMA_MAX_BATCH_SIZE")
    ]
    assert _found(_with_config(in_env), FILE_UNREAD) == []
    # A client container (no Ollama server) mounting the same file is no engine's.
    client = {"name": "app", "image": "python:3.12", "volumeMounts": _ollama()["volumeMounts"]}
    volumes = [{"name": "ollama-config", "configMap": {"name": "ollama-amd-config"}}]
    assert _found([_deployment("app", [client], volumes), OLLAMA_CONF], FILE_UNREAD) == []
