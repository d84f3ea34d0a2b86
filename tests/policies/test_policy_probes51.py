"""Session 51, probes that do not tell whether the model serves (G4, G5, S16 on every form).

Fires:
- G4: spent set 84 asifkhan03/ollamaverse K8S-Manifests/python/ollama-smollm2.yaml (and ollama-tinyllama.yaml),
  labelled G4: `ollama serve &`, then `ollama run MODEL` into a fresh emptyDir, readiness a tcpSocket on 11434, which
  passes once the server listens, while the model is still being pulled.
Careful forms stay silent: the model pulled in an init container (done before the server starts), and a readiness
exec that checks the model itself.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

G4 = "serving-readiness-probe"


def _deployment(container: dict, init: list | None = None) -> dict:
    spec: dict = {"containers": [container], "volumes": [{"name": "ollama-models", "emptyDir": {}}]}
    if init:
        spec["initContainers"] = init
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "ollama-smollm2", "namespace": "aiops"},
        "spec": {
            "selector": {"matchLabels": {"app": "ollama-smollm2"}},
            "template": {"metadata": {"labels": {"app": "ollama-smollm2"}}, "spec": spec},
        },
    }


# asifkhan03/ollamaverse K8S-Manifests/python/ollama-smollm2.yaml (spent set 84), cut to the server container.
OLLAMA_TCP = {
    "name": "ollama",
    "image": "ollama/ollama:latest",
    "ports": [{"containerPort": 11434}],
    "env": [{"name": "OLLAMA_MODEL", "value": "smollm2:135m-instruct-q8_0"}],
    "volumeMounts": [{"name": "ollama-models", "mountPath": "/root/.ollama"}],
    "command": ["/bin/sh"],
    "args": ["-c", 'ollama serve &\nsleep 5\nollama run "$OLLAMA_MODEL"\nwait\n'],
    "readinessProbe": {"tcpSocket": {"port": 11434}, "initialDelaySeconds": 30, "periodSeconds": 10},
}


def test_ollama_tcp_readiness_while_the_model_is_pulled_is_advice() -> None:
    found = found_by([_deployment(OLLAMA_TCP)], G4)
    assert [level for level, _ in found] == ["advisory"]
    assert "readinessProbe tcpSocket passes as soon as ollama serve listens" in found[0][1]
    assert "smollm2:135m-instruct-q8_0" in found[0][1]


def test_ollama_tcp_readiness_after_an_init_pull_or_checking_the_model_is_silent() -> None:
    served = copy.deepcopy(OLLAMA_TCP)
    served["command"], served["args"] = ["ollama"], ["serve"]
    init = {
        "name": "pull",
        "image": "ollama/ollama:latest",
        "command": ["/bin/sh", "-c", "ollama serve & sleep 5; ollama pull smollm2:135m-instruct-q8_0"],
        "volumeMounts": [{"name": "ollama-models", "mountPath": "/root/.ollama"}],
    }
    assert found_by([_deployment(served, [init])], G4) == []
    checked = copy.deepcopy(OLLAMA_TCP)
    checked["readinessProbe"] = {"exec": {"command": ["sh", "-c", "ollama show smollm2:135m-instruct-q8_0"]}}
    assert found_by([_deployment(checked)], G4) == []
