"""An Ollama server under an image no engine row names is recognised by the bind address its own variable sets.

A rebuild of ollama/ollama (a model baked in, a CUDA build) keeps the server's OLLAMA_HOST variable: a container that
sets it to every address of the pod (0.0.0.0, ::, with or without a port) and declares the port so bound runs the
server (ollama/ollama v0.32.15 envconfig/config.go L20-42 Host(): OLLAMA_HOST [scheme://]host[:port], default port
11434). A client of the server sets the same variable to the server's address, or to loopback beside it.

Fixtures:
- set 29, hdiazf/ollama_mlops k8s/ollama-deployment.yaml@32ef154150a83fae1635276a764b8ccb11c85f62 (image
  ollama-mlops-ollama:latest, OLLAMA_HOST 0.0.0.0, containerPort 11434, a livenessProbe and no readinessProbe: G4);
- set 24, z-george-ma/ai-tools ollama-cuda/k8s.yaml@84e8e1236c894fd8b60067c9b15b51ea9c0331b7 (image
  ghcr.io/z-george-ma/ai-tools/ollama-cuda:latest, OLLAMA_HOST 0.0.0.0, containerPort 11434, no probe);
- silent: set 20, edenreich/ollama-kubernetes ollama/llama3/03-deployment.yaml@3276d532d5286aa1385032e411a83825c896e7d0
  (the puller beside ollama serve sets OLLAMA_HOST 127.0.0.1: a client of the server in the same pod).
"""

from __future__ import annotations

import copy

from policy_fixtures import messages, resource

from components.serving_engines import ENGINES
from policies.k8s_generic.serving_readiness_probe import POLICY
from policies.reading.engine_flags import binds_by_env
from policies.reading.serving import model_server_engine

_OLLAMA = next(e for e in ENGINES if e.name == "ollama")

_HDIAZF = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "ollama"},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "ollama"}},
        "template": {
            "metadata": {"labels": {"app": "ollama"}},
            "spec": {
                "containers": [
                    {
                        "name": "ollama",
                        "image": "ollama-mlops-ollama:latest",
                        "imagePullPolicy": "IfNotPresent",
                        "ports": [{"containerPort": 11434}],
                        "env": [{"name": "OLLAMA_HOST", "value": "0.0.0.0"}],
                        "resources": {"requests": {"memory": "16Gi", "cpu": "1000m"}, "limits": {"memory": "16Gi"}},
                        "livenessProbe": {"httpGet": {"path": "/api/tags", "port": 11434}, "initialDelaySeconds": 60},
                    }
                ]
            },
        },
    },
}


def _r(doc: dict):
    return resource(f"kubernetes:{doc['apiVersion']}:{doc['kind']}", copy.deepcopy(doc))


def _c(doc: dict) -> dict:
    return doc["spec"]["template"]["spec"]["containers"][0]


def test_a_rebuilt_ollama_image_binding_every_address_is_an_ollama_server():
    assert model_server_engine(_c(_HDIAZF)) == "ollama"
    (found,) = messages(POLICY, _r(_HDIAZF))
    assert "no readinessProbe on this ollama server" in found
    cuda = {
        "name": "ollama-cuda",
        "image": "ghcr.io/z-george-ma/ai-tools/ollama-cuda:latest",
        "env": [{"name": "OLLAMA_HOST", "value": "0.0.0.0"}, {"name": "OLLAMA_KEEP_ALIVE", "value": "-1"}],
        "ports": [{"containerPort": 11434}],
        "resources": {"limits": {"nvidia.com/gpu": 1}},
    }
    assert model_server_engine(cuda) == "ollama"
    # A port in the value moves the bound port: declared, it is the server.
    moved = {"image": "acme/llm:1", "env": [{"name": "OLLAMA_HOST", "value": "0.0.0.0:8080"}], "ports": [{"containerPort": 8080}]}
    assert binds_by_env(moved, _OLLAMA)


def test_clients_and_undeclared_ports_stay_unrecognised():
    # edenreich's puller: loopback, a client of ollama serve in the same pod.
    puller = {"name": "ollama-model-puller", "image": "busybox:1.36", "env": [{"name": "OLLAMA_HOST", "value": "127.0.0.1"}]}
    assert model_server_engine(puller) is None
    client = {
        "image": "acme/backend:1",
        "env": [{"name": "OLLAMA_HOST", "value": "http://ollama:11434"}],
        "ports": [{"containerPort": 8000}],
    }
    assert not binds_by_env(client, _OLLAMA)
    # A wildcard but no declared port the server would bind: not proven to be the server.
    undeclared = {"image": "acme/app:1", "env": [{"name": "OLLAMA_HOST", "value": "0.0.0.0"}], "ports": [{"containerPort": 8000}]}
    assert not binds_by_env(undeclared, _OLLAMA)
    ready = copy.deepcopy(_HDIAZF)
    _c(ready)["readinessProbe"] = {"httpGet": {"path": "/", "port": 11434}}
    assert messages(POLICY, _r(ready)) == []
